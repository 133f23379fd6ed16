//! Managed search-cluster users: for each identity a cluster user with a generated password and
//! the mapped roles, created on first use and whenever its cached credential is gone. The
//! credential lives in the store, encrypted, for `min(cache.credential_ttl,
//! user_management.credential_ttl)`. Concurrent first requests for one identity make one upsert.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rand::RngExt;
use rand::distr::Alphanumeric;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use crate::basic::basic_header_value;
use crate::cluster::{SearchUsers, UserSpec};
use crate::crypto::CredentialCipher;
use crate::error::Error;
use crate::identity::Identity;
use crate::metrics;
use crate::roles::RoleMapper;
use crate::store::KeyValueStore;

/// The credential the proxy uses towards the search cluster for one identity.
#[derive(Clone)]
pub struct ManagedCredential {
    pub username: String,
    pub password: SecretString,
    pub roles: Vec<String>,
    /// `Basic base64(username:password)`, built once: it goes out with every request.
    pub authorization: SecretString,
}

impl ManagedCredential {
    fn new(username: String, password: SecretString, roles: Vec<String>) -> Self {
        let authorization =
            SecretString::from(basic_header_value(&username, password.expose_secret()));
        Self {
            username,
            password,
            roles,
            authorization,
        }
    }
}

impl std::fmt::Debug for ManagedCredential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagedCredential")
            .field("username", &self.username)
            .field("roles", &self.roles)
            .finish_non_exhaustive()
    }
}

/// The stored form (encrypted before it reaches the store).
#[derive(Serialize, Deserialize)]
struct StoredCredential {
    username: String,
    password: String,
    roles: Vec<String>,
}

pub struct ManagedUsers {
    store: Arc<dyn KeyValueStore>,
    cipher: CredentialCipher,
    cluster: Arc<dyn SearchUsers>,
    roles: RoleMapper,
    ttl: Duration,
    password_length: usize,
    /// One lock per identity being upserted; entries go when the last waiter is done.
    in_flight: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    /// The credential last opened for each store key, with the sealed bytes it came from.
    /// The store is still read on every request, so an expired, deleted or replaced
    /// credential is noticed at once; only when the sealed value is byte for byte the one
    /// opened before is the decryption skipped (it was a third of a cache hit's CPU).
    opened: moka::sync::Cache<String, Arc<OpenedCredential>>,
}

struct OpenedCredential {
    sealed: Vec<u8>,
    credential: Arc<ManagedCredential>,
}

/// Identities whose opened credential is kept; beyond this the least used are dropped (and
/// simply decrypted again).
const OPENED_CAPACITY: u64 = 10_000;

impl ManagedUsers {
    pub fn new(
        store: Arc<dyn KeyValueStore>,
        cipher: CredentialCipher,
        cluster: Arc<dyn SearchUsers>,
        roles: RoleMapper,
        ttl: Duration,
        password_length: usize,
    ) -> Self {
        Self {
            store,
            cipher,
            cluster,
            roles,
            ttl,
            password_length,
            in_flight: Mutex::new(HashMap::new()),
            opened: moka::sync::Cache::builder()
                .max_capacity(OPENED_CAPACITY)
                .time_to_live(ttl)
                .build(),
        }
    }

    /// The cached credential, else a freshly upserted one. A store failure is an error (fail
    /// closed); an entry that does not decrypt is a miss.
    pub async fn credential_for(
        &self,
        identity: &Identity,
    ) -> Result<Arc<ManagedCredential>, Error> {
        if let Some(credential) = self.cached(&identity.username).await? {
            metrics::increment(metrics::CRED_CACHE_HITS);
            return Ok(credential);
        }
        metrics::increment(metrics::CRED_CACHE_MISSES);
        self.upsert_once(identity, None).await
    }

    /// After the cluster rejected `stale`: a new password, unless another request already
    /// replaced it (then that one).
    pub async fn refresh(
        &self,
        identity: &Identity,
        stale: &ManagedCredential,
    ) -> Result<Arc<ManagedCredential>, Error> {
        self.upsert_once(identity, Some(stale)).await
    }

    async fn upsert_once(
        &self,
        identity: &Identity,
        stale: Option<&ManagedCredential>,
    ) -> Result<Arc<ManagedCredential>, Error> {
        let lock = self.lock_for(&identity.username);
        let result = {
            let _guard = lock.lock().await;
            // Whoever held the lock before may have stored a credential meanwhile.
            match self.cached(&identity.username).await? {
                Some(current)
                    if stale.is_none_or(|stale| {
                        stale.password.expose_secret() != current.password.expose_secret()
                    }) =>
                {
                    Ok(current)
                }
                _ => self.upsert(identity).await,
            }
        };
        drop(lock);
        self.release(&identity.username);
        result
    }

    async fn upsert(&self, identity: &Identity) -> Result<Arc<ManagedCredential>, Error> {
        let roles = self.roles.roles_for(identity);
        let password = SecretString::from(generate_password(self.password_length));
        self.cluster
            .upsert_user(UserSpec {
                username: &identity.username,
                password: &password,
                roles: &roles,
                email: &identity.email,
                full_name: &identity.name,
            })
            .await?;
        metrics::increment(metrics::USER_UPSERTS);
        tracing::info!(
            username = %identity.username,
            method = %identity.method,
            roles = %roles.join(","),
            "search-cluster user upserted"
        );
        let credential = Arc::new(ManagedCredential::new(
            identity.username.clone(),
            password,
            roles,
        ));
        let stored = StoredCredential {
            username: credential.username.clone(),
            password: credential.password.expose_secret().to_owned(),
            roles: credential.roles.clone(),
        };
        let key = store_key(&identity.username);
        let plaintext = serde_json::to_vec(&stored).expect("a credential serializes");
        let sealed = self
            .cipher
            .seal(&key, &plaintext)
            .map_err(|error| Error::SearchBadResponse(error.to_string()))?;
        self.store.set(&key, sealed, self.ttl).await?;
        Ok(credential)
    }

    async fn cached(&self, username: &str) -> Result<Option<Arc<ManagedCredential>>, Error> {
        let key = store_key(username);
        let Some(sealed) = self.store.get(&key).await? else {
            return Ok(None);
        };
        if let Some(opened) = self.opened.get(&key)
            && opened.sealed == sealed
        {
            return Ok(Some(opened.credential.clone()));
        }
        let stored = self
            .cipher
            .open(&key, &sealed)
            .and_then(|plaintext| serde_json::from_slice::<StoredCredential>(&plaintext).ok());
        match stored {
            Some(stored) if stored.username == username => {
                let credential = Arc::new(ManagedCredential::new(
                    stored.username,
                    SecretString::from(stored.password),
                    stored.roles,
                ));
                let opened = OpenedCredential {
                    sealed,
                    credential: credential.clone(),
                };
                self.opened.insert(key, Arc::new(opened));
                Ok(Some(credential))
            }
            _ => {
                tracing::warn!(
                    username,
                    "a cached credential could not be decrypted; it is treated as missing"
                );
                Ok(None)
            }
        }
    }

    fn lock_for(&self, username: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        in_flight.entry(username.to_owned()).or_default().clone()
    }

    fn release(&self, username: &str) {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        if in_flight
            .get(username)
            .is_some_and(|lock| Arc::strong_count(lock) == 1)
        {
            in_flight.remove(username);
        }
    }
}

/// The store key of an identity's credential (also the encryption's associated data).
pub fn store_key(username: &str) -> String {
    format!("authproxy:credential:{username}")
}

/// Letters and digits from the thread's CSPRNG: accepted by both clusters and safe in headers.
fn generate_password(length: usize) -> String {
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(length)
        .map(char::from)
        .collect()
}

#[cfg(test)]
mod tests;
