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
use crate::store::KeyValueStore;

/// What is stored per session (encrypted).
#[derive(Debug, Clone, Serialize, Deserialize)]
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
        };
        let key = store_key(&id);
        let plaintext = serde_json::to_vec(&record).expect("a session serializes");
        let sealed = self.cipher.seal(&key, &plaintext);
        self.store.set(&key, sealed, self.ttl).await?;
        metrics::increment(metrics::SESSION_CREATES);
        Ok(self.signer.signed(&self.cookie_name, &id, self.ttl))
    }

    /// The session a cookie value names. A store failure is an error (fail closed).
    pub async fn lookup(&self, raw_cookie: &str) -> Result<SessionLookup, Error> {
        let Some(id) = self.signer.verify(&self.cookie_name, raw_cookie) else {
            return Ok(SessionLookup::BadSignature);
        };
        let key = store_key(&id);
        let Some(sealed) = self.store.get(&key).await? else {
            return Ok(SessionLookup::Ended);
        };
        let record = self
            .cipher
            .open(&key, &sealed)
            .and_then(|plaintext| serde_json::from_slice::<SessionRecord>(&plaintext).ok());
        Ok(match record {
            Some(record) if record.expires_at > unix_now() => {
                SessionLookup::Valid(Box::new(record))
            }
            _ => SessionLookup::Ended,
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
