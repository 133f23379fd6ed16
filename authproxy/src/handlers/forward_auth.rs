//! The reverse proxy's authentication sub-request (Traefik forwardAuth, nginx auth_request).

use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::Error;
use crate::gate::{RequestContext, admit_forward_auth_caller, authenticate, authorize};
use crate::state::AppState;

/// 200 with the managed credential in `Authorization` and the identity in
/// `X-Auth-Request-User/-Email/-Groups`; never cached by anything in between. Answered only to
/// trusted proxies unless `server.forward_auth_callers` is `any` (403 otherwise).
pub async fn check(
    state: web::Data<AppState>,
    request: HttpRequest,
) -> Result<HttpResponse, Error> {
    admit_forward_auth_caller(&state, &request)?;
    let context = RequestContext::of(&state, &request);
    let identity = authenticate(&state, &request, &context).await?;
    authorize(&state, &request, &context, &identity)?;
    let mut response = HttpResponse::Ok();
    response.insert_header((header::CACHE_CONTROL, "no-store"));
    let groups = identity.groups.join(",");
    let identity_headers = [
        ("x-auth-request-user", identity.username.as_str()),
        ("x-auth-request-email", identity.email.as_str()),
        ("x-auth-request-groups", groups.as_str()),
    ];
    for (name, value) in identity_headers {
        // A value that cannot be a header (control characters) is left out, never sent raw.
        if let Ok(value) = HeaderValue::from_str(value) {
            response.insert_header((name, value));
        }
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
