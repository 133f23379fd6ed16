//! Browser sessions after OIDC sign-in: a random id in a signed cookie, the record (identity,
//! claims, ID token for logout) encrypted in the same store as the credential cache under a hash
//! of the id, with the store's per-key TTL `session.ttl`. Whoever reads the store sees neither
//! usable ids nor identities.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use actix_web::cookie::Cookie;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::authn::cookies::CookieSigner;
use crate::crypto::CredentialCipher;
use crate::error::Error;
use crate::identity::{AuthMethod, Identity};
use crate::metrics;
use crate::store::{KeyValueStore, StoreError};

/// What is stored per session (encrypted).
#[derive(Clone, Serialize, Deserialize)]
pub struct SessionRecord {
    pub username: String,
    pub email: String,
    pub name: String,
    pub groups: Vec<String>,
    pub claims: Map<String, Value>,
    /// For `id_token_hint` at logout.
    pub id_token: Option<String>,
    /// Unix seconds; checked as well as the store's TTL.
    pub expires_at: u64,
    /// For renewing the session (`oidc.refresh`); never logged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refresh_token: Option<String>,
    /// When the provider's access token expires (Unix seconds), when it said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_expires_at: Option<u64>,
}

impl std::fmt::Debug for SessionRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRecord")
            .field("username", &self.username)
            .field("groups", &self.groups)
            .field("expires_at", &self.expires_at)
            .field("access_expires_at", &self.access_expires_at)
            .finish_non_exhaustive()
    }
}

/// The provider's tokens a new session keeps besides the ID token.
#[derive(Default)]
pub struct SessionTokens {
    pub refresh_token: Option<String>,
    pub access_expires_at: Option<u64>,
}

impl SessionRecord {
    pub fn identity(&self) -> Identity {
        Identity {
            username: self.username.clone(),
            email: self.email.clone(),
            name: self.name.clone(),
            groups: self.groups.clone(),
            method: AuthMethod::Oidc,
            claims: self.claims.clone(),
        }
    }
}

/// The result of looking a session cookie up.
#[derive(Debug)]
pub enum SessionLookup {
    Valid(Box<SessionRecord>),
    /// The cookie's signature does not verify: tampered, truncated or signed elsewhere.
    BadSignature,
    /// Signed by us, but the session ended (expired, logged out, store flushed).
    Ended,
}

/// Cloned into a session refresh's own task (the store is shared, the rest is small).
#[derive(Clone)]
pub struct Sessions {
    store: Arc<dyn KeyValueStore>,
    cipher: CredentialCipher,
    signer: CookieSigner,
    cookie_name: String,
    ttl: Duration,
}

impl Sessions {
    pub fn new(
        store: Arc<dyn KeyValueStore>,
        cipher: CredentialCipher,
        signer: CookieSigner,
        cookie_name: &str,
        ttl: Duration,
    ) -> Self {
        Self {
            store,
            cipher,
            signer,
            cookie_name: cookie_name.to_owned(),
            ttl,
        }
    }

    pub fn cookie_name(&self) -> &str {
        &self.cookie_name
    }

    /// Stores a new session for `identity` and returns its cookie.
    pub async fn create(
        &self,
        identity: &Identity,
        id_token: Option<String>,
        tokens: SessionTokens,
    ) -> Result<Cookie<'static>, Error> {
        let id = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
        let record = SessionRecord {
            username: identity.username.clone(),
            email: identity.email.clone(),
            name: identity.name.clone(),
            groups: identity.groups.clone(),
            claims: identity.claims.clone(),
            id_token,
            expires_at: unix_now() + self.ttl.as_secs(),
            refresh_token: tokens.refresh_token,
            access_expires_at: tokens.access_expires_at,
        };
        let key = store_key(&id);
        self.write(&key, &record).await?;
        metrics::increment(metrics::SESSION_CREATES);
        Ok(self.signer.signed(&self.cookie_name, &id, self.ttl))
    }

    /// Stores `record` under `key` (encrypted) for the rest of its life; an expired one is
    /// removed instead.
    pub(crate) async fn write(&self, key: &str, record: &SessionRecord) -> Result<(), StoreError> {
        match self.sealed(key, record) {
            Some((sealed, ttl)) => self.store.set(key, sealed, ttl).await,
            None => self.store.delete(key).await,
        }
    }

    /// Replaces the record under `key` like [`Self::write`], but only while the session still
    /// exists (`SET XX`): a sign-out in the meantime is not undone. `false` when it had ended.
    pub(crate) async fn update(
        &self,
        key: &str,
        record: &SessionRecord,
    ) -> Result<bool, StoreError> {
        match self.sealed(key, record) {
            Some((sealed, ttl)) => self.store.set_if_present(key, sealed, ttl).await,
            None => self.store.delete(key).await.map(|()| false),
        }
    }

    /// The encrypted record and the time it has left (never beyond `session.ttl`); `None` once
    /// it expired.
    fn sealed(&self, key: &str, record: &SessionRecord) -> Option<(Vec<u8>, Duration)> {
        let left = record.expires_at.saturating_sub(unix_now());
        if left == 0 {
            return None;
        }
        let plaintext = serde_json::to_vec(record).expect("a session serializes");
        let sealed = self.cipher.seal(key, &plaintext);
        Some((sealed, Duration::from_secs(left).min(self.ttl)))
    }

    /// The store key of the session a cookie value names, when its signature verifies.
    pub(crate) fn key_of(&self, raw_cookie: &str) -> Option<String> {
        self.signer
            .verify(&self.cookie_name, raw_cookie)
            .map(|id| store_key(&id))
    }

    /// The unexpired record under a store key.
    pub(crate) async fn read(&self, key: &str) -> Result<Option<SessionRecord>, StoreError> {
        let Some(sealed) = self.store.get(key).await? else {
            return Ok(None);
        };
        let record = self
            .cipher
            .open(key, &sealed)
            .and_then(|plaintext| serde_json::from_slice::<SessionRecord>(&plaintext).ok());
        Ok(record.filter(|record| record.expires_at > unix_now()))
    }

    /// Ends the session under a store key.
    pub(crate) async fn delete(&self, key: &str) -> Result<(), StoreError> {
        self.store.delete(key).await
    }

    pub(crate) fn store(&self) -> &Arc<dyn KeyValueStore> {
        &self.store
    }

    /// The session a cookie value names. A store failure is an error (fail closed).
    pub async fn lookup(&self, raw_cookie: &str) -> Result<SessionLookup, Error> {
        let Some(id) = self.signer.verify(&self.cookie_name, raw_cookie) else {
            return Ok(SessionLookup::BadSignature);
        };
        Ok(match self.read(&store_key(&id)).await? {
            Some(record) => SessionLookup::Valid(Box::new(record)),
            None => SessionLookup::Ended,
        })
    }

    /// Ends the session a cookie names (when its signature verifies); returns its record.
    pub async fn remove(&self, raw_cookie: &str) -> Result<Option<SessionRecord>, Error> {
        let record = match self.lookup(raw_cookie).await? {
            SessionLookup::Valid(record) => Some(*record),
            _ => None,
        };
        if let Some(id) = self.signer.verify(&self.cookie_name, raw_cookie) {
            self.store.delete(&store_key(&id)).await?;
        }
        Ok(record)
    }

    /// The cookie that deletes the session cookie in the browser.
    pub fn removal_cookie(&self) -> Cookie<'static> {
        self.signer.removal(&self.cookie_name)
    }
}

/// `authproxy:session:<sha256(id) hex>`: the id itself never reaches the store.
pub fn store_key(id: &str) -> String {
    format!("authproxy:session:{}", hex_sha256(id))
}

pub fn hex_sha256(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

pub fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}
