//! The browser side of OIDC sign-in. `start` keeps the pending sign-in (its `state`, `nonce`,
//! PKCE verifier, return target and expiry) in the browser, in a cookie sealed with a key derived
//! from `SESSION_SECRET`, short-lived, HttpOnly, SameSite=Lax, Secure on https and sent to the
//! callback path only; nothing is written to the session store before someone has signed in, so
//! anonymous `/auth/start` requests cannot fill it. `finish` accepts a callback only when this
//! browser's cookie opens, has not expired and was made for the callback's `state`; the cookie is
//! removed by the answer, and the provider accepts its authorization code once, so a callback
//! cannot be replayed or completed in another browser.

use std::sync::Arc;
use std::time::Duration;

use actix_web::cookie::Cookie;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use super::{OidcProvider, identity_from_claims};
use crate::authn::cookies::CookieSigner;
use crate::authn::session::{SessionTokens, unix_now};
use crate::error::Error;
use crate::identity::Identity;
use crate::request::redirect::SafeTarget;

/// How long a started sign-in may take to come back (the provider's login page included).
pub const SIGN_IN_TTL: Duration = Duration::from_secs(600);

/// What the provider sends to the callback (RFC 6749 §4.1.2).
#[derive(Debug, Default, Deserialize)]
pub struct CallbackQuery {
    pub code: Option<String>,
    pub state: Option<String>,
    pub error: Option<String>,
    /// RFC 9207: which provider answered; when present it must be ours (mix-up defence).
    pub iss: Option<String>,
}

/// The pending sign-in, sealed in the browser's sign-in cookie.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct PendingSignIn {
    state: String,
    nonce: String,
    pkce_verifier: String,
    return_to: String,
    /// Unix seconds: a cookie kept (or replayed) past its Max-Age is still refused.
    expires_at: u64,
}

impl PendingSignIn {
    /// The sign-in a sealed cookie holds, if it is for `state` and not expired at `now`.
    fn open(signer: &CookieSigner, name: &str, raw: &str, state: &str, now: u64) -> Option<Self> {
        let plaintext = signer.open_sealed(name, raw)?;
        let pending: Self = serde_json::from_slice(&plaintext).ok()?;
        (bool::from(pending.state.as_bytes().ct_eq(state.as_bytes())) && now < pending.expires_at)
            .then_some(pending)
    }
}

pub struct Started {
    /// The provider's authorization URL.
    pub location: String,
    /// The sealed pending sign-in, which also binds it to this browser.
    pub cookie: Cookie<'static>,
}

pub struct Finished {
    pub identity: Identity,
    pub id_token: String,
    pub tokens: SessionTokens,
    pub return_to: SafeTarget,
}

/// A callback that did not complete a sign-in, and where that sign-in was to return (when this
/// browser's sign-in cookie opened), for the "try again" link of the error page.
pub struct Failed {
    pub error: Error,
    pub return_to: Option<SafeTarget>,
}

impl From<Error> for Failed {
    fn from(error: Error) -> Self {
        Self {
            error,
            return_to: None,
        }
    }
}

pub struct SignInFlow {
    /// Shared with the session refreshes' own tasks.
    pub provider: Arc<OidcProvider>,
    signer: CookieSigner,
    state_cookie: String,
    /// The callback path: the only one the sign-in cookie is sent to.
    cookie_path: String,
}

impl SignInFlow {
    pub(crate) fn new(provider: OidcProvider, signer: CookieSigner, session_cookie: &str) -> Self {
        let cookie_path = provider.callback_path();
        Self {
            provider: Arc::new(provider),
            signer,
            state_cookie: format!("{session_cookie}_csrf"),
            cookie_path,
        }
    }

    pub(crate) fn state_cookie_name(&self) -> &str {
        &self.state_cookie
    }

    pub(crate) fn state_cookie_removal(&self) -> Cookie<'static> {
        self.signer
            .removal_at(&self.state_cookie, &self.cookie_path)
    }

    /// Starts a sign-in that returns to `return_to` (checked by the redirect policy). Writes
    /// nothing anywhere but into the returned cookie.
    pub(crate) async fn start(
        &self,
        return_to: SafeTarget,
        login_hint: Option<&str>,
    ) -> Result<Started, Error> {
        let authorization = self.provider.start(login_hint).await?;
        let pending = PendingSignIn {
            state: authorization.state,
            nonce: authorization.nonce,
            pkce_verifier: authorization.pkce_verifier,
            return_to: return_to.to_string(),
            expires_at: unix_now() + SIGN_IN_TTL.as_secs(),
        };
        let plaintext = serde_json::to_vec(&pending).expect("a sign-in serializes");
        Ok(Started {
            location: authorization.url,
            cookie: self.signer.sealed(
                &self.state_cookie,
                &plaintext,
                SIGN_IN_TTL,
                &self.cookie_path,
            ),
        })
    }

    /// Verifies the callback against this browser's sign-in cookie (every cookie of that name
    /// it sent), then exchanges the code and verifies the ID token.
    pub(crate) async fn finish<'c>(
        &self,
        query: &CallbackQuery,
        state_cookies: impl IntoIterator<Item = &'c str>,
    ) -> Result<Finished, Failed> {
        if query.error.is_some() {
            return Err(Error::SignInFailed("the identity provider refused the sign-in").into());
        }
        if let Some(iss) = &query.iss
            && iss.trim_end_matches('/') != self.provider.issuer().trim_end_matches('/')
        {
            return Err(Error::SignInFailed("the callback comes from another issuer").into());
        }
        let (Some(code), Some(state)) = (query.code.as_deref(), query.state.as_deref()) else {
            return Err(Error::SignInFailed("the callback lacks code or state").into());
        };
        let now = unix_now();
        let pending = state_cookies
            .into_iter()
            .find_map(|raw| PendingSignIn::open(&self.signer, &self.state_cookie, raw, state, now))
            .ok_or(Error::SignInFailed(
                "this browser did not start this sign-in, or it took too long",
            ))?;
        let return_to = SafeTarget::from_sealed(pending.return_to);
        let failed = |error| Failed {
            error,
            return_to: Some(return_to.clone()),
        };
        let signed_in = self
            .provider
            .finish(code, &pending.pkce_verifier, &pending.nonce)
            .await
            .map_err(failed)?;
        let identity = identity_from_claims(
            signed_in.claims,
            &self.provider.username_claim,
            &self.provider.groups_claim,
        )
        .ok_or_else(|| failed(Error::SignInFailed("the ID token names no usable user")))?;
        Ok(Finished {
            identity,
            id_token: signed_in.id_token,
            tokens: SessionTokens {
                refresh_token: signed_in.refresh_token,
                access_expires_at: signed_in.access_expires_at,
            },
            return_to,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    fn sealed(signer: &CookieSigner, pending: &PendingSignIn) -> String {
        let plaintext = serde_json::to_vec(pending).unwrap();
        signer
            .sealed("c", &plaintext, SIGN_IN_TTL, "/cb")
            .value()
            .to_owned()
    }

    #[test]
    fn a_pending_sign_in_opens_only_for_its_state_before_it_expires() {
        let signer = CookieSigner::new(SECRET, "", "https://auth.example.com/cb").unwrap();
        let pending = PendingSignIn {
            state: "the-state".to_owned(),
            nonce: "n".to_owned(),
            pkce_verifier: "v".to_owned(),
            return_to: "/app".to_owned(),
            expires_at: 1_000,
        };
        let raw = sealed(&signer, &pending);
        assert_eq!(
            PendingSignIn::open(&signer, "c", &raw, "the-state", 999),
            Some(pending)
        );
        assert_eq!(
            PendingSignIn::open(&signer, "c", &raw, "the-state", 1_000),
            None,
            "expired"
        );
        assert_eq!(
            PendingSignIn::open(&signer, "c", &raw, "the-statf", 999),
            None
        );
        assert_eq!(PendingSignIn::open(&signer, "c", &raw, "", 999), None);
        assert_eq!(
            PendingSignIn::open(&signer, "d", &raw, "the-state", 999),
            None
        );
        let other =
            CookieSigner::new(b"another-secret-another-secret-xx", "", "https://a/").unwrap();
        assert_eq!(
            PendingSignIn::open(&other, "c", &raw, "the-state", 999),
            None
        );
    }
}
