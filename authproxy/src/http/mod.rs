//! The routes: the forward_auth check, standalone forwarding, sign-in and logout, `/_health`,
//! `/auth/explain`.
//! Every one of them passes the [`gate`] (authentication, then the authorization rules);
//! standalone mode then forwards through [`proxy`] with the managed credential.

mod explain;
mod forward_auth;
pub(crate) mod gate;
pub(crate) mod health;
pub(crate) mod proxy;
mod sign_in;
mod standalone;
mod tokens;

use actix_web::web;

use crate::config::ServerMode;
use gate::{LOGOUT_PATH, SIGN_IN_PATH};

/// The public listener's routes: `/_health`, sign-in, and with OIDC the callback
/// (`callback_path`, from `oidc.redirect_url`) and logout; in standalone mode every other path
/// is the proxied cluster. The forward_auth check is not here: see [`configure_internal`].
pub fn configure(mode: ServerMode, callback_path: Option<&str>, config: &mut web::ServiceConfig) {
    config
        .route("/_health", web::get().to(health::health))
        .route(SIGN_IN_PATH, web::get().to(sign_in::start))
        .route(explain::EXPLAIN_PATH, web::get().to(explain::explain));
    if let Some(path) = callback_path {
        config
            .route(path, web::get().to(sign_in::callback))
            .route(LOGOUT_PATH, web::get().to(sign_in::logout))
            .route(LOGOUT_PATH, web::post().to(sign_in::logout))
            .route(tokens::TOKENS_PATH, web::get().to(tokens::list))
            .route(tokens::TOKENS_PATH, web::post().to(tokens::create))
            .route(
                &format!("{}/{{id}}/revoke", tokens::TOKENS_PATH),
                web::post().to(tokens::revoke),
            );
    }
    if mode == ServerMode::Standalone {
        config.default_service(web::to(standalone::forward));
    }
}

/// The internal listener's routes (`server.internal_port`, beside liveness and `/_metrics`):
/// in forward_auth mode every path is the check. It answers with the identity and the managed
/// cluster credential, so it is served only where the front door asks, never where a browser
/// reaches authproxy.
pub fn configure_internal(mode: ServerMode, config: &mut web::ServiceConfig) {
    if mode == ServerMode::ForwardAuth {
        config.default_service(web::to(forward_auth::check));
    }
}
