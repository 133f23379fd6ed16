//! The refresh-token grant (RFC 6749 §6, OIDC Core 12): new tokens for a signed-in session, and
//! its claims read again from the new ID token (verified like the sign-in's, without a nonce,
//! for the same `sub`) and userinfo, so group changes at the provider reach the session. The
//! claims are replaced, never merged over the old ones: a group the user left goes. Without a
//! new ID token the userinfo answer alone is the fresh source; without that either, nothing is
//! fresh and the refresh fails (`Incomplete`). A token request is worth another try only when
//! it never reached the provider (`Unreached`): one that may have (timed out, cut off, answered
//! unreadably) may have rotated the token there, and a second spend can get the grant revoked.

use openidconnect::core::CoreErrorResponseType;
use openidconnect::{
    Nonce, OAuth2TokenResponse, RefreshToken, RequestTokenError, StandardErrorResponse,
};
use serde_json::{Map, Value};

use super::http::ProviderHttpError;
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
    /// The token request never reached the provider (its metadata could not be fetched, the
    /// connection was not made): the refresh token is unspent, worth one more try.
    Unreached(String),
    /// The token request may have reached the provider but no usable answer came back (timed
    /// out, cut off, unreadable): the token may be spent, so it is not tried again.
    Unavailable(String),
    /// The token endpoint answered (the refresh token is spent, maybe rotated) but the new
    /// claims could not be read: no ID token and no userinfo answer, or the keys to verify the
    /// ID token could not be fetched. Not tried again (that would spend the old token twice).
    Incomplete(String),
}

impl RefreshFailure {
    /// Its `outcome` in `proxy_session_refreshes_total`.
    pub(crate) fn outcome(&self) -> &'static str {
        match self {
            Self::Rejected(_) => "rejected",
            Self::Unreached(_) | Self::Unavailable(_) => "unavailable",
            Self::Incomplete(_) => "incomplete",
        }
    }

    /// Only a request that never reached the provider: its refresh token is surely unspent.
    pub(crate) fn worth_another_try(&self) -> bool {
        matches!(self, Self::Unreached(_))
    }
}

impl std::fmt::Display for RefreshFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Rejected(reason) => write!(f, "refused: {reason}"),
            Self::Unreached(reason) => write!(f, "provider unreached: {reason}"),
            Self::Unavailable(reason) => write!(f, "provider unavailable: {reason}"),
            Self::Incomplete(reason) => write!(f, "no fresh claims: {reason}"),
        }
    }
}

impl OidcProvider {
    /// Spends `refresh_token` at the token endpoint. `previous` are the session's claims: their
    /// `sub` must be the new ID token's and the userinfo answer's; nothing else of them is kept.
    pub(crate) async fn refresh(
        &self,
        refresh_token: &str,
        previous: &Map<String, Value>,
    ) -> Result<Refreshed, RefreshFailure> {
        let discovered = self
            .discovered()
            .await
            .map_err(|error| RefreshFailure::Unreached(error.to_string()))?;
        let token = discovered
            .client
            .exchange_refresh_token(&RefreshToken::new(refresh_token.to_owned()))
            .map_err(|_| RefreshFailure::Rejected("the provider has no token endpoint".into()))?
            .request_async(&self.http)
            .await
            .map_err(token_request_failure)?;
        let sub = previous.get("sub");
        // The new ID token verifies (and names the same subject) before the new access token is
        // used for anything: a forged answer gets no request in its name.
        let verified = match token.extra_fields().id_token() {
            Some(id_token) => {
                self.with_current_keys(discovered.clone(), |keys| {
                    // OIDC Core 12.2: no nonce is asked for; the other checks are the sign-in's.
                    id_token
                        .claims(&keys.id_token_verifier(), |_: Option<&Nonce>| Ok(()))
                        .map(drop)
                })
                .await
                .map_err(|error| RefreshFailure::Incomplete(error.to_string()))?
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
                Some((claims, raw))
            }
            None => None,
        };
        let access_token = token.access_token().secret();
        let userinfo = match &discovered.userinfo {
            Some(endpoint) => Some(self.userinfo(endpoint, access_token, sub).await),
            None => None,
        };
        let (claims, id_token) = match verified {
            Some((mut claims, raw)) => {
                // As at sign-in: userinfo adds what the ID token lacks, best effort.
                match userinfo {
                    Some(Ok(userinfo)) => {
                        for (name, value) in userinfo {
                            claims.entry(name).or_insert(value);
                        }
                    }
                    Some(Err(reason)) => tracing::warn!("{reason}; using the ID token alone"),
                    None => {}
                }
                (claims, Some(raw))
            }
            // No new ID token: the userinfo answer is the only fresh source, taken whole.
            None => match userinfo {
                Some(Ok(userinfo)) => (userinfo, None),
                Some(Err(reason)) => return Err(RefreshFailure::Incomplete(reason.to_owned())),
                None => {
                    return Err(RefreshFailure::Incomplete(
                        "no new ID token and no userinfo endpoint".to_owned(),
                    ));
                }
            },
        };
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

type TokenRequestError =
    RequestTokenError<ProviderHttpError, StandardErrorResponse<CoreErrorResponseType>>;

/// What a failed token request means for the refresh token: refused by the provider, never sent
/// (no connection: unspent), or sent without a usable answer (maybe spent and rotated).
fn token_request_failure(error: TokenRequestError) -> RefreshFailure {
    match error {
        RequestTokenError::ServerResponse(response) => RefreshFailure::Rejected(format!(
            "the provider answered {}",
            response.error().as_ref()
        )),
        RequestTokenError::Request(ProviderHttpError::Transport(error)) if error.is_connect() => {
            RefreshFailure::Unreached(format!("token request not sent: {error}"))
        }
        RequestTokenError::Request(error) => {
            RefreshFailure::Unavailable(format!("token request failed: {error}"))
        }
        RequestTokenError::Parse(..) => {
            RefreshFailure::Unavailable("the token response cannot be read".into())
        }
        RequestTokenError::Other(message) => RefreshFailure::Unavailable(message),
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// The transport error of a request to `url` with a client giving up after `timeout`.
    async fn transport_error(url: &str, timeout: Duration) -> TokenRequestError {
        service_kit::install_crypto_provider();
        let client = reqwest::Client::builder().timeout(timeout).build().unwrap();
        let error = client.post(url).send().await.unwrap_err();
        RequestTokenError::Request(ProviderHttpError::Transport(error))
    }

    #[tokio::test]
    async fn only_a_token_request_that_never_reached_the_provider_is_tried_again() {
        // Nobody listens: the connection is refused, the token is unspent.
        let closed = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/token", closed.local_addr().unwrap());
        drop(closed);
        let refused = token_request_failure(transport_error(&url, Duration::from_secs(5)).await);
        assert!(matches!(refused, RefreshFailure::Unreached(_)), "{refused}");
        assert!(refused.worth_another_try());
        assert_eq!(refused.outcome(), "unavailable");

        // The provider took the request and answered too late: it may have rotated the token.
        let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/token", silent.local_addr().unwrap());
        let holding = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = silent.accept().await {
                held.push(socket);
            }
        });
        let late = token_request_failure(transport_error(&url, Duration::from_millis(300)).await);
        holding.abort();
        assert!(matches!(late, RefreshFailure::Unavailable(_)), "{late}");
        assert!(!late.worth_another_try());
        assert_eq!(late.outcome(), "unavailable");

        // An answer that cannot be used: spent, maybe.
        let unreadable = token_request_failure(RequestTokenError::Other("no JSON".into()));
        assert!(!unreadable.worth_another_try());
        for settled in [
            RefreshFailure::Rejected(String::new()),
            RefreshFailure::Incomplete(String::new()),
        ] {
            assert!(!settled.worth_another_try(), "{settled}");
        }
    }
}
