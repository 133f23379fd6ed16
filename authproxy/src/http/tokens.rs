//! `/auth/tokens`: a user signed in through OIDC (the session cookie, never a token or Basic)
//! lists, creates and revokes personal access tokens (`authn::tokens`). Browsers get a plain
//! page (no script; creating and revoking are same-origin form posts), API clients JSON. A new
//! token is shown once.

use std::time::Duration;

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};
use serde::Deserialize;

use crate::authn::tokens::{CreateRefusal, PersonalTokens, TokenInfo};
use crate::error::Error;
use crate::error::pages::{html_escape, page_response};
use crate::http::gate::{RequestContext, authenticate, authorize, is_api_client};
use crate::http::sign_in::request_host;
use crate::identity::{AuthMethod, Identity};
use crate::request::same_origin::is_same_origin;
use crate::state::AppState;

pub const TOKENS_PATH: &str = "/auth/tokens";

/// The create form: a name and an optional lifetime (`30d`, `12h`).
#[derive(Debug, Deserialize)]
pub struct CreateForm {
    name: String,
    #[serde(default)]
    ttl: String,
}

/// The signed-in owner (a session, not a token or Basic credentials) and the token store.
async fn owner<'s>(
    state: &'s AppState,
    request: &HttpRequest,
) -> Result<(&'s PersonalTokens, Identity), Error> {
    let tokens = state
        .oidc
        .as_ref()
        .and_then(|oidc| oidc.tokens.as_ref())
        .ok_or(Error::NotFound)?;
    if request.headers().contains_key(header::AUTHORIZATION) {
        // Tokens are made by a person in a browser session, not by another token.
        return Err(Error::Unauthenticated);
    }
    let context = RequestContext::client(state, request);
    let identity = authenticate(state, request, &context).await?;
    if identity.method != AuthMethod::Oidc {
        return Err(Error::Unauthenticated);
    }
    authorize(state, request, &context, &identity)?;
    Ok((tokens, (*identity).clone()))
}

/// State-changing requests come from this service's own pages (or a script's POST).
fn same_origin(state: &AppState, request: &HttpRequest) -> Result<(), Error> {
    let public_origin = state
        .oidc
        .as_ref()
        .map(|oidc| oidc.sign_in.provider.public_origin());
    if is_same_origin(
        request.method(),
        request.headers(),
        request_host(request),
        public_origin.as_deref(),
    ) {
        Ok(())
    } else {
        Err(Error::CrossSiteRequest)
    }
}

pub async fn list(state: web::Data<AppState>, request: HttpRequest) -> Result<HttpResponse, Error> {
    let (tokens, identity) = owner(&state, &request).await?;
    let listed = tokens.list(&identity).await?;
    if is_api_client(&request) {
        return Ok(HttpResponse::Ok()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(serde_json::json!({ "tokens": listed })));
    }
    Ok(page(
        StatusCode::OK,
        &identity,
        &listed,
        None,
        tokens.default_ttl,
    ))
}

pub async fn create(
    state: web::Data<AppState>,
    request: HttpRequest,
    form: web::Form<CreateForm>,
) -> Result<HttpResponse, Error> {
    same_origin(&state, &request)?;
    let (tokens, identity) = owner(&state, &request).await?;
    let ttl = match form.ttl.trim() {
        "" => tokens.default_ttl,
        text => humantime_serde::re::humantime::parse_duration(text)
            .map_err(|_| Error::InvalidTokenRequest("ttl must be a duration such as 30d or 12h"))?,
    };
    let new = tokens
        .create(&identity, &form.name, ttl)
        .await?
        .map_err(|refusal| {
            Error::InvalidTokenRequest(match refusal {
                CreateRefusal::BadName => {
                    "name must be 1 to 100 characters without control characters"
                }
                CreateRefusal::BadTtl => "ttl must be positive and at most personal_tokens.max_ttl",
                CreateRefusal::TooMany => "this user has personal_tokens.max_per_user tokens",
            })
        })?;
    tracing::info!(
        username = %identity.username,
        method = %identity.method,
        token_id = %new.info.id,
        "personal access token created"
    );
    if is_api_client(&request) {
        return Ok(HttpResponse::Created()
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .json(serde_json::json!({
                "id": new.info.id,
                "name": new.info.name,
                "createdAt": new.info.created_at,
                "expiresAt": new.info.expires_at,
                "token": new.token,
            })));
    }
    let listed = tokens.list(&identity).await?;
    Ok(page(
        StatusCode::CREATED,
        &identity,
        &listed,
        Some(&new.token),
        tokens.default_ttl,
    ))
}

pub async fn revoke(
    state: web::Data<AppState>,
    request: HttpRequest,
    id: web::Path<String>,
) -> Result<HttpResponse, Error> {
    same_origin(&state, &request)?;
    let (tokens, identity) = owner(&state, &request).await?;
    if !tokens.revoke(&identity, &id).await? {
        return Err(Error::NotFound);
    }
    tracing::info!(
        username = %identity.username,
        method = %identity.method,
        token_id = %id,
        "personal access token revoked"
    );
    if is_api_client(&request) {
        return Ok(HttpResponse::NoContent().finish());
    }
    Ok(HttpResponse::SeeOther()
        .insert_header((header::LOCATION, TOKENS_PATH))
        .finish())
}

/// The tokens page: the list with a revoke button each, the create form, and a new token once.
fn page(
    status: StatusCode,
    identity: &Identity,
    tokens: &[TokenInfo],
    new_token: Option<&str>,
    default_ttl: Duration,
) -> HttpResponse {
    let mut body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\">\
         <title>Personal access tokens</title></head><body><h1>Personal access tokens</h1>\
         <p>Signed in as {user}. Use a token as the password of HTTP Basic: \
         <code>curl -u {user}:&lt;token&gt; …</code></p>",
        user = html_escape(&identity.username)
    );
    if let Some(token) = new_token {
        body.push_str(&format!(
            "<p role=\"status\">Your new token (shown once, copy it now): \
             <code id=\"new-token\">{}</code></p>",
            html_escape(token)
        ));
    }
    body.push_str("<table><tr><th>Name</th><th>Created</th><th>Expires</th><th></th></tr>");
    for token in tokens {
        body.push_str(&format!(
            "<tr><td>{name}</td><td>{created}</td><td>{expires}</td><td>\
             <form method=\"post\" action=\"{path}/{id}/revoke\">\
             <button type=\"submit\">Revoke</button></form></td></tr>",
            name = html_escape(&token.name),
            created = date(token.created_at),
            expires = date(token.expires_at),
            path = TOKENS_PATH,
            id = html_escape(&token.id),
        ));
    }
    body.push_str(&format!(
        "</table><h2>New token</h2><form method=\"post\" action=\"{TOKENS_PATH}\">\
         <label>Name <input name=\"name\" required maxlength=\"100\"></label> \
         <label>Valid for <input name=\"ttl\" placeholder=\"{}\"></label> \
         <button type=\"submit\">Create</button></form></body></html>\n",
        humantime_serde::re::humantime::format_duration(default_ttl)
    ));
    page_response(status).body(body)
}

/// Unix seconds as an RFC 3339 UTC time.
fn date(unix: u64) -> String {
    humantime_serde::re::humantime::format_rfc3339_seconds(
        std::time::UNIX_EPOCH + Duration::from_secs(unix),
    )
    .to_string()
}
