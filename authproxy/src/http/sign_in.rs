//! Sign-in and logout. `GET /auth/start?rd=<target>[&login_hint=<user>]` starts OIDC sign-in
//! when `oidc.enabled`; without OIDC it is a Basic challenge that returns to `rd` once the
//! credentials verify. The callback (path of `oidc.redirect_url`) creates the session;
//! `/auth/logout` ends it. Every answer here carries `Cache-Control: no-store`. A browser whose
//! OIDC sign-in fails (provider down, a callback this browser did not start, a refused token)
//! gets a plain error page with a link to try again; other clients get the common error body.

use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use serde::Deserialize;
use service_kit::http::ApiError;

use crate::authn::oidc::sign_in::{CallbackQuery, Failed};
use crate::error::Error;
use crate::error::pages::{self, Link};
use crate::http::gate::{LOGOUT_PATH, RequestContext, SIGN_IN_PATH, authenticate, wants_html};
use crate::identity::AuthMethod;
use crate::metrics;
use crate::request::redirect::SafeTarget;
use crate::request::same_origin::is_same_origin;
use crate::state::AppState;

#[derive(Debug, Deserialize)]
pub struct StartQuery {
    rd: Option<String>,
    login_hint: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct LogoutQuery {
    rd: Option<String>,
}

pub async fn start(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<StartQuery>,
) -> Result<HttpResponse, Error> {
    let target = state
        .redirects
        .safe_target(query.rd.as_deref(), request_host(&request));
    if let Some(oidc) = &state.oidc {
        let return_to = query.rd.is_some().then(|| target.clone());
        return match oidc
            .sign_in
            .start(target, query.login_hint.as_deref())
            .await
        {
            Ok(started) => Ok(redirect(&started.location).cookie(started.cookie).finish()),
            Err(error) => {
                tracing::warn!(error = %error, "a sign-in could not be started");
                failure(&request, error, return_to.as_ref())
            }
        };
    }
    let context = RequestContext::client(&state, &request);
    if request.headers().get(header::AUTHORIZATION).is_none() {
        return Err(Error::Unauthenticated);
    }
    authenticate(&state, &request, &context).await?;
    Ok(redirect(target.as_str()).finish())
}

/// The host (and port) the browser addressed: `Host`, or the authority of an HTTP/2 request.
/// Never a forwarded header: the browser that follows the redirect is at this host.
pub(crate) fn request_host(request: &HttpRequest) -> Option<&str> {
    request
        .headers()
        .get(header::HOST)
        .and_then(|host| host.to_str().ok())
        .or_else(|| {
            request
                .uri()
                .authority()
                .map(|authority| authority.as_str())
        })
}

/// The provider sends the browser back here.
pub async fn callback(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<CallbackQuery>,
) -> Result<HttpResponse, Error> {
    let Some(oidc) = &state.oidc else {
        return failure(
            &request,
            Error::SignInFailed("OIDC sign-in is not enabled"),
            None,
        );
    };
    let (flow, sessions) = (&oidc.sign_in, &oidc.sessions);
    let context = RequestContext::client(&state, &request);
    let source_ip = context.source();
    metrics::increment(metrics::AUTH_ATTEMPTS);
    // Every cookie of that name the browser sent (an older one on a wider path may come too).
    let state_cookies: Vec<String> = request
        .cookies()
        .map(|cookies| {
            cookies
                .iter()
                .filter(|cookie| cookie.name() == flow.state_cookie_name())
                .map(|cookie| cookie.value().to_owned())
                .collect()
        })
        .unwrap_or_default();
    let finished = match flow
        .finish(&query, state_cookies.iter().map(String::as_str))
        .await
    {
        Ok(finished) => finished,
        Err(Failed { error, return_to }) => {
            metrics::increment(metrics::AUTH_FAILURES);
            tracing::warn!(
                username = "-",
                method = %AuthMethod::Oidc,
                source_ip = %source_ip,
                reason = %error,
                "authentication failed"
            );
            return failure(&request, error, return_to.as_ref());
        }
    };
    let session_cookie = match sessions
        .create(&finished.identity, Some(finished.id_token), finished.tokens)
        .await
    {
        Ok(cookie) => cookie,
        Err(error) => return failure(&request, error, Some(&finished.return_to)),
    };
    metrics::increment(metrics::AUTH_SUCCESSES);
    tracing::info!(
        username = %finished.identity.username,
        method = %AuthMethod::Oidc,
        source_ip = %source_ip,
        "authentication succeeded"
    );
    Ok(redirect(finished.return_to.as_str())
        .cookie(session_cookie)
        .cookie(flow.state_cookie_removal())
        .finish())
}

/// A failed step of OIDC sign-in: a page for a browser (same status), the common error body
/// (`Err`) for any other client.
fn failure(
    request: &HttpRequest,
    error: Error,
    return_to: Option<&SafeTarget>,
) -> Result<HttpResponse, Error> {
    if wants_html(request) {
        Ok(failure_page(&error, return_to))
    } else {
        Err(error)
    }
}

/// What a browser is shown when sign-in fails: what happened in plain words (never the error's
/// source) and a link that starts the sign-in again toward the same target.
fn failure_page(error: &Error, return_to: Option<&SafeTarget>) -> HttpResponse {
    let detail;
    let (title, paragraphs): (&str, [&str; 2]) = match error {
        Error::ProviderUnavailable(_) => (
            "Sign-in unavailable",
            [
                "The identity provider cannot be reached right now, so you cannot sign in.",
                "Try again in a moment. If this goes on, tell the application's owner.",
            ],
        ),
        Error::StoreUnavailable(_) => (
            "Sign-in unavailable",
            [
                "The session store is unavailable, so you cannot be signed in right now.",
                "Try again in a moment. If this goes on, tell the application's owner.",
            ],
        ),
        Error::SignInFailed(reason) => {
            detail = format!("The sign-in could not be completed: {reason}.");
            (
                "Sign-in failed",
                [
                    &detail,
                    "Start again; if it keeps failing, tell the application's owner.",
                ],
            )
        }
        other => {
            detail = other.to_string();
            ("Sign-in failed", [&detail, "Start again."])
        }
    };
    let href = retry_href(return_to);
    let mut response = pages::error_page(
        error.status_code(),
        title,
        &paragraphs,
        Some(Link {
            href: &href,
            label: "Try again",
        }),
    );
    if let Some(seconds) = error.retry_after_secs()
        && let Ok(value) = header::HeaderValue::from_str(&seconds.to_string())
    {
        response.headers_mut().insert(header::RETRY_AFTER, value);
    }
    response
}

/// Where "try again" leads after a failed sign-in: a new sign-in that returns to `return_to`
/// (already checked by the redirect policy), or the site's root when there was none.
fn retry_href(return_to: Option<&SafeTarget>) -> String {
    let Some(target) = return_to else {
        return "/".to_owned();
    };
    let mut url = reqwest::Url::parse("http://authproxy.invalid").expect("a valid base");
    url.set_path(SIGN_IN_PATH);
    url.query_pairs_mut().append_pair("rd", target.as_str());
    format!("{}?{}", url.path(), url.query().unwrap_or_default())
}

/// Ends the session (store and cookie), then sends the browser to the provider's
/// `end_session_endpoint` when it has one, else to `rd`. Only for a request from this service's
/// own pages (or a script's POST): a link or form on another site gets a page that asks to
/// confirm with a same-origin POST, and nothing changes.
pub async fn logout(
    state: web::Data<AppState>,
    request: HttpRequest,
    query: web::Query<LogoutQuery>,
) -> Result<HttpResponse, Error> {
    let host = request_host(&request);
    let target = state.redirects.safe_target(query.rd.as_deref(), host);
    let public_origin = state
        .oidc
        .as_ref()
        .map(|oidc| oidc.sign_in.provider.public_origin());
    if !is_same_origin(
        request.method(),
        request.headers(),
        host,
        public_origin.as_deref(),
    ) {
        return Ok(logout_confirmation(&target));
    }
    let Some(oidc) = &state.oidc else {
        return Ok(redirect(target.as_str()).finish());
    };
    let sessions = &oidc.sessions;
    let record = match request.cookie(sessions.cookie_name()) {
        Some(cookie) => sessions.remove(cookie.value()).await?,
        None => None,
    };
    if let Some(record) = &record {
        tracing::info!(
            username = %record.username,
            method = %AuthMethod::Oidc,
            "signed out"
        );
    }
    let provider_logout = match &record {
        Some(record) => {
            (oidc.sign_in.provider)
                .logout_url(record.id_token.as_deref())
                .await
        }
        None => None,
    };
    let location = provider_logout.unwrap_or_else(|| target.to_string());
    Ok(redirect(&location)
        .cookie(sessions.removal_cookie())
        .finish())
}

/// A page with one button that logs out by a same-origin POST to `/auth/logout?rd=<target>`.
/// It cannot be framed (no clickjacking of the button) and runs no script.
fn logout_confirmation(target: &SafeTarget) -> HttpResponse {
    let mut url = reqwest::Url::parse("http://authproxy.invalid").expect("a valid base");
    url.set_path(LOGOUT_PATH);
    url.query_pairs_mut().append_pair("rd", target.as_str());
    let action = format!("{}?{}", url.path(), url.query().unwrap_or_default());
    let page = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>Sign out</title></head>\
         <body><form method=\"post\" action=\"{}\"><p>Sign out of this site?</p>\
         <button type=\"submit\">Sign out</button></form></body></html>\n",
        pages::html_escape(&action)
    );
    pages::page_response(actix_web::http::StatusCode::OK).body(page)
}

fn redirect(location: &str) -> actix_web::HttpResponseBuilder {
    let mut response = HttpResponse::Found();
    response
        .insert_header((header::LOCATION, location))
        .insert_header((header::CACHE_CONTROL, "no-store"));
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_is_a_new_sign_in_to_the_same_target_or_the_root() {
        assert_eq!(retry_href(None), "/");
        let target = SafeTarget::from_sealed("/app?x=1&y=2".to_owned());
        assert_eq!(
            retry_href(Some(&target)),
            "/auth/start?rd=%2Fapp%3Fx%3D1%26y%3D2"
        );
    }
}
