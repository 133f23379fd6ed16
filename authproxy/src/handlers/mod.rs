//! Thin HTTP handlers; the logic is in `gate`, `managed`, `proxy` and `health`.

mod forward_auth;
pub(crate) mod health;
mod sign_in;
mod standalone;

use actix_web::web;

use crate::config::ServerMode;
use crate::gate::{LOGOUT_PATH, SIGN_IN_PATH};

/// The service's routes. Every path the common routes (`/healthz`, `/_metrics`) do not take is
/// the forward-auth check or the proxied cluster, depending on the mode. `callback_path` (from
/// `oidc.redirect_url`) and logout exist only with OIDC.
pub fn configure(mode: ServerMode, callback_path: Option<&str>, config: &mut web::ServiceConfig) {
    config
        .route("/_health", web::get().to(health::health))
        .route(SIGN_IN_PATH, web::get().to(sign_in::start));
    if let Some(path) = callback_path {
        config
            .route(path, web::get().to(sign_in::callback))
            .route(LOGOUT_PATH, web::get().to(sign_in::logout))
            .route(LOGOUT_PATH, web::post().to(sign_in::logout));
    }
    match mode {
        ServerMode::ForwardAuth => config.default_service(web::to(forward_auth::check)),
        ServerMode::Standalone => config.default_service(web::to(standalone::forward)),
    };
}
