//! Thin HTTP handlers; the logic is in `gate`, `managed`, `proxy` and `health`.

mod forward_auth;
mod health;
mod sign_in;
mod standalone;

use actix_web::web;

use crate::config::ServerMode;
use crate::gate::SIGN_IN_PATH;

/// The service's routes. Every path the common routes (`/healthz`, `/_metrics`) do not take is
/// the forward-auth check or the proxied cluster, depending on the mode.
pub fn configure(mode: ServerMode, config: &mut web::ServiceConfig) {
    config
        .route("/_health", web::get().to(health::health))
        .route(SIGN_IN_PATH, web::get().to(sign_in::start));
    match mode {
        ServerMode::ForwardAuth => config.default_service(web::to(forward_auth::check)),
        ServerMode::Standalone => config.default_service(web::to(standalone::forward)),
    };
}
