//! standalone mode: authenticate, then forward to the search cluster as the managed user.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::error::Error;
use crate::http::gate::{RequestContext, authenticate, authorize, enforce_request_rules};
use crate::http::proxy;
use crate::state::AppState;

pub async fn forward(
    state: web::Data<AppState>,
    request: HttpRequest,
    payload: web::Payload,
) -> Result<HttpResponse, Error> {
    let context = RequestContext::of(&state, &request)?;
    let identity = authenticate(&state, &request, &context).await?;
    authorize(&state, &request, &context, &identity)?;
    enforce_request_rules(&state, &request, &context, &identity)?;
    proxy::forward(&state, &request, payload, &identity, &context).await
}
