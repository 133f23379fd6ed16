//! `GET /auth/start?rd=<path>`: where sign-in starts. Without OIDC, signing in means giving Basic
//! credentials: the browser is challenged, and once they verify it goes back to `rd`.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use crate::error::Error;
use crate::gate::{RequestContext, authenticate};
use crate::state::AppState;

#[derive(Debug, Deserialize)]
pub struct StartQuery {
    rd: Option<String>,
}

pub async fn start(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<StartQuery>,
) -> Result<HttpResponse, Error> {
    let context = RequestContext::of(&state, &request);
    if request.headers().get(header::AUTHORIZATION).is_none() {
        return Err(Error::Unauthenticated);
    }
    authenticate(&state, &request, &context).await?;
    let target = query
        .rd
        .as_deref()
        .filter(|rd| is_local_path(rd))
        .unwrap_or("/");
    Ok(HttpResponse::Found()
        .insert_header((header::LOCATION, target))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .finish())
}

/// Only a path on this host: `/x`, never `//host`, `/\host` or anything with a scheme or
/// control characters (no open redirect).
fn is_local_path(target: &str) -> bool {
    target.starts_with('/')
        && !target.starts_with("//")
        && !target.starts_with("/\\")
        && !target.chars().any(|c| c.is_control() || c == '\\')
}

#[cfg(test)]
mod tests {
    use super::is_local_path;

    #[test]
    fn only_local_paths_are_redirect_targets() {
        assert!(is_local_path("/"));
        assert!(is_local_path("/logs/_search?q=1"));
        for bad in [
            "//evil.example",
            "/\\evil.example",
            "https://evil.example",
            "evil",
            "/a\r\nb",
            "",
        ] {
            assert!(!is_local_path(bad), "{bad}");
        }
    }
}
