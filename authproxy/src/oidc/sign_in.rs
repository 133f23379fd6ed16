//! The browser side of OIDC sign-in. `start` remembers the sign-in server-side (nonce, PKCE
//! verifier, return target) under its `state` for a few minutes and binds the `state` to the
//! browser with a signed, short-lived cookie; `finish` accepts a callback only when its `state`
//! matches that cookie and the remembered sign-in is still there, and forgets it at once, so a
//! callback cannot be replayed or completed in another browser.

use std::sync::Arc;
use std::time::Duration;

use actix_web::cookie::Cookie;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use super::{OidcProvider, identity_from_claims};
use crate::cookies::CookieSigner;
use crate::crypto::CredentialCipher;
use crate::error::Error;
use crate::identity::Identity;
use crate::redirect::{RedirectPolicy, SafeTarget};
use crate::session::hex_sha256;
use crate::store::{KeyValueStore, StoreError};

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

#[derive(Serialize, Deserialize)]
struct PendingSignIn {
    state: String,
    nonce: String,
    pkce_verifier: String,
    return_to: String,
}

pub struct Started {
    /// The provider's authorization URL.
    pub location: String,
    /// Binds the sign-in to this browser.
    pub cookie: Cookie<'static>,
}

pub struct Finished {
    pub identity: Identity,
    pub id_token: String,
    pub return_to: SafeTarget,
}

pub struct SignInFlow {
    pub provider: OidcProvider,
    store: Arc<dyn KeyValueStore>,
    cipher: CredentialCipher,
    signer: CookieSigner,
    state_cookie: String,
    pub redirects: RedirectPolicy,
}

impl SignInFlow {
    pub fn new(
        provider: OidcProvider,
        store: Arc<dyn KeyValueStore>,
        cipher: CredentialCipher,
        signer: CookieSigner,
        session_cookie: &str,
        redirects: RedirectPolicy,
    ) -> Self {
        Self {
            provider,
            store,
            cipher,
            signer,
            state_cookie: format!("{session_cookie}_csrf"),
            redirects,
        }
    }

    pub fn state_cookie_name(&self) -> &str {
        &self.state_cookie
    }

    pub fn state_cookie_removal(&self) -> Cookie<'static> {
        self.signer.removal(&self.state_cookie)
    }

    /// Starts a sign-in that returns to `return_to` (checked by the redirect policy).
    pub async fn start(
        &self,
        return_to: SafeTarget,
        login_hint: Option<&str>,
    ) -> Result<Started, Error> {
        let return_to = return_to.to_string();
        let authorization = self.provider.start(login_hint).await?;
        let pending = PendingSignIn {
            state: authorization.state.clone(),
            nonce: authorization.nonce,
            pkce_verifier: authorization.pkce_verifier,
            return_to,
        };
        let key = pending_key(&authorization.state);
        let plaintext = serde_json::to_vec(&pending).expect("a sign-in serializes");
        let sealed = self
            .cipher
            .seal(&key, &plaintext)
            .map_err(|error| StoreError(error.to_string()))?;
        self.store.set(&key, sealed, SIGN_IN_TTL).await?;
        Ok(Started {
            location: authorization.url,
            cookie: self
                .signer
                .signed(&self.state_cookie, &authorization.state, SIGN_IN_TTL),
        })
    }

    /// Verifies the callback against this browser's cookie and the remembered sign-in, then
    /// exchanges the code and verifies the ID token.
    pub async fn finish(
        &self,
        query: &CallbackQuery,
        state_cookie: Option<&str>,
    ) -> Result<Finished, Error> {
        if query.error.is_some() {
            return Err(Error::SignInFailed(
                "the identity provider refused the sign-in",
            ));
        }
        if let Some(iss) = &query.iss
            && iss.trim_end_matches('/') != self.provider.issuer().trim_end_matches('/')
        {
            return Err(Error::SignInFailed(
                "the callback comes from another issuer",
            ));
        }
        let (Some(code), Some(state)) = (query.code.as_deref(), query.state.as_deref()) else {
            return Err(Error::SignInFailed("the callback lacks code or state"));
        };
        let bound = state_cookie
            .and_then(|raw| self.signer.verify(&self.state_cookie, raw))
            .ok_or(Error::SignInFailed(
                "this browser did not start the sign-in, or it took too long",
            ))?;
        if !bool::from(bound.as_bytes().ct_eq(state.as_bytes())) {
            return Err(Error::SignInFailed(
                "the state does not match this browser's sign-in",
            ));
        }
        let key = pending_key(state);
        // Taken, not read: whatever happens next, it cannot be used twice.
        let sealed = self.store.take(&key).await?;
        let pending = sealed
            .and_then(|sealed| self.cipher.open(&key, &sealed))
            .and_then(|plaintext| serde_json::from_slice::<PendingSignIn>(&plaintext).ok())
            .filter(|pending| bool::from(pending.state.as_bytes().ct_eq(state.as_bytes())))
            .ok_or(Error::SignInFailed(
                "the sign-in was already completed or has expired",
            ))?;
        let signed_in = self
            .provider
            .finish(code, &pending.pkce_verifier, &pending.nonce)
            .await?;
        let identity = identity_from_claims(
            signed_in.claims,
            &self.provider.username_claim,
            &self.provider.groups_claim,
        )
        .ok_or(Error::SignInFailed("the ID token names no usable user"))?;
        Ok(Finished {
            identity,
            id_token: signed_in.id_token,
            return_to: SafeTarget::from_sealed(pending.return_to),
        })
    }
}

fn pending_key(state: &str) -> String {
    format!("authproxy:signin:{}", hex_sha256(state))
}
