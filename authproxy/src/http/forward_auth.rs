//! The reverse proxy's authentication sub-request (Traefik forwardAuth, nginx auth_request).

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::Error;
use crate::http::gate::{
    RequestContext, admit_forward_auth_caller, authenticate, authorize, enforce_request_rules,
};
use crate::identity::headers::IdentityHeaders;
use crate::state::AppState;

/// 200 with the managed credential in `Authorization` and the identity in
/// `X-Auth-Request-User/-Email/-Groups` (format and sanitising in `identity::headers`); never
/// cached by anything in between. Answered only to trusted proxies unless
/// `server.forward_auth_callers` is `any` (403 otherwise); an identity the `authorization` rules
/// refuse gets 403.
pub async fn check(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, Error> {
    admit_forward_auth_caller(&state, &request)?;
    let context = RequestContext::of(&state, &request)?;
    let identity = authenticate(&state, &request, &context).await?;
    authorize(&state, &request, &context, &identity)?;
    enforce_request_rules(&state, &request, &context, &identity)?;
    let mut response = HttpResponse::Ok();
    response.insert_header((header::CACHE_CONTROL, "no-store"));
    let identity_headers = IdentityHeaders::of(&identity);
    if identity_headers.omitted_values + identity_headers.dropped_groups > 0 {
        tracing::warn!(
            username = %identity.username,
            omitted_values = identity_headers.omitted_values,
            dropped_groups = identity_headers.dropped_groups,
            "identity headers: values that cannot be passed on safely were left out"
        );
    }
    for header in identity_headers.headers {
        response.insert_header(header);
    }
    if let Some(managed) = &state.managed {
        let credential = managed.credential_for(&identity).await?;
        let value = secrecy::ExposeSecret::expose_secret(&credential.authorization);
        if let Ok(value) = HeaderValue::from_str(value) {
            response.insert_header((header::AUTHORIZATION, value));
        }
    }
    Ok(response.finish())
}
