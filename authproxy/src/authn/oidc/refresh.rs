//! The refresh-token grant (RFC 6749 §6, OIDC Core 12): new tokens for a signed-in session, and
//! its claims read again from the new ID token (verified like the sign-in's, without a nonce,
//! for the same `sub`) and userinfo, so group changes at the provider reach the session.

use openidconnect::{Nonce, OAuth2TokenResponse, RefreshToken, RequestTokenError};
use serde_json::{Map, Value};

use super::{OidcProvider, claims, refusal};
use crate::authn::session::unix_now;

/// New tokens and claims after a refresh.
pub(crate) struct Refreshed {
    pub claims: Map<String, Value>,
    /// A new ID token, when the provider sent one.
    pub id_token: Option<String>,
    /// The rotated refresh token, when the provider sent one (else the old one stays valid).
    pub refresh_token: Option<String>,
    /// Unix seconds; `None` when the provider named no `expires_in`.
    pub access_expires_at: Option<u64>,
}

/// Why a refresh did not happen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RefreshFailure {
    /// The provider refused the refresh token (`invalid_grant`: revoked, expired, already
    /// spent) or sent tokens that do not verify: the session ends.
    Rejected(String),
    /// The provider could not be reached or answered nonsense: worth one more try.
    Unavailable(String),
}

impl std::fmt::Display for RefreshFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rejected(reason) => write!(f, "refused: {reason}"),
            Self::Unavailable(reason) => write!(f, "provider unavailable: {reason}"),
        }
    }
}

impl OidcProvider {
    /// Spends `refresh_token` at the token endpoint. `previous` are the session's claims: their
    /// `sub` must be the new ID token's, and without a new ID token they are the base that
    /// userinfo updates.
    pub(crate) async fn refresh(
        &self,
        refresh_token: &str,
        previous: &Map<String, Value>,
    ) -> Result<Refreshed, RefreshFailure> {
        let discovered = self
            .discovered()
            .await
            .map_err(|error| RefreshFailure::Unavailable(error.to_string()))?;
        let token = discovered
            .client
            .exchange_refresh_token(&RefreshToken::new(refresh_token.to_owned()))
            .map_err(|_| RefreshFailure::Rejected("the provider has no token endpoint".into()))?
            .request_async(&self.http)
            .await
            .map_err(|error| match error {
                RequestTokenError::ServerResponse(response) => RefreshFailure::Rejected(format!(
                    "the provider answered {}",
                    response.error().as_ref()
                )),
                RequestTokenError::Request(error) => {
                    RefreshFailure::Unavailable(format!("token request failed: {error}"))
                }
                RequestTokenError::Parse(..) => {
                    RefreshFailure::Unavailable("the token response cannot be read".into())
                }
                RequestTokenError::Other(message) => RefreshFailure::Unavailable(message),
            })?;
        let sub = previous.get("sub");
        let (mut claims, id_token) = match token.extra_fields().id_token() {
            Some(id_token) => {
                self.with_current_keys(discovered.clone(), |keys| {
                    // OIDC Core 12.2: no nonce is asked for; the other checks are the sign-in's.
                    id_token
                        .claims(&keys.id_token_verifier(), |_: Option<&Nonce>| Ok(()))
                        .map(drop)
                })
                .await
                .map_err(|error| RefreshFailure::Unavailable(error.to_string()))?
                .map_err(|error| RefreshFailure::Rejected(refusal(&error).to_owned()))?;
                let raw = id_token.to_string();
                let claims = claims::payload_of(&raw).ok_or_else(|| {
                    RefreshFailure::Rejected("the ID token's claims cannot be read".into())
                })?;
                if claims.get("sub") != sub {
                    return Err(RefreshFailure::Rejected(
                        "the new ID token names another subject".into(),
                    ));
                }
                (claims, Some(raw))
            }
            None => (previous.clone(), None),
        };
        if let Some(userinfo) = &discovered.userinfo {
            let access_token = token.access_token().secret();
            if id_token.is_some() {
                self.merge_userinfo(userinfo, access_token, &mut claims)
                    .await;
            } else {
                // The old claims are stale: what userinfo says now wins.
                let mut fresh = Map::new();
                if let Some(sub) = sub {
                    fresh.insert("sub".to_owned(), sub.clone());
                }
                self.merge_userinfo(userinfo, access_token, &mut fresh)
                    .await;
                claims.extend(fresh);
            }
        }
        Ok(Refreshed {
            claims,
            id_token,
            refresh_token: token.refresh_token().map(|token| token.secret().clone()),
            access_expires_at: token
                .expires_in()
                .map(|lifetime| unix_now().saturating_add(lifetime.as_secs())),
        })
    }
}
