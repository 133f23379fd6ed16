//! Managed search-cluster users: for each identity a cluster user with a generated password and
//! the mapped roles, created on first use and whenever its cached credential is gone or was made
//! for other roles. The credential lives in the store, encrypted, for
//! `min(cache.credential_ttl, user_management.credential_ttl)`, under a key that names the
//! identity's source ([`ManagedUser`]), so local and OIDC users never share one. Concurrent
//! first requests for one identity make one upsert (service-kit's single flight).

use std::collections::HashSet;
use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::Duration;

use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use rand::RngExt;
use rand::distr::Alphanumeric;
use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};
use service_kit::byte_store::Bytes;
use service_kit::single_flight::SingleFlight;

use crate::authn::basic::basic_header_value;
use crate::authz::roles::RoleMapper;
use crate::crypto::CredentialCipher;
use crate::error::ClusterError;
use crate::error::Error;
use crate::identity::{AuthMethod, Identity, ManagedUser};
use crate::metrics;
use crate::store::{KeyValueStore, StoreError};
use crate::upstream::cluster::{SearchUsers, UserSpec};

pub(crate) mod lifecycle;
mod usage;

use crate::config::lifecycle::LifecycleSettings;
use usage::Usage;

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
    /// Names of the configured local users: an OIDC identity never takes over an unmarked
    /// (older) managed user with one of these names.
    local_names: HashSet<String>,
    /// At most one refresh after a 401 per managed user per `min_refresh_interval`, so a
    /// cluster that rejects everything cannot make every request upsert a user.
    refreshes: DefaultKeyedRateLimiter<String>,
    /// The upserts in progress, by store key: requests for one managed user share one.
    upserts: SingleFlight<String, Option<Arc<ManagedCredential>>, UpsertError>,
    /// The credential last opened for each store key, with the sealed bytes it came from.
    /// The store is still read on every request, so an expired, deleted or replaced
    /// credential is noticed at once; only when the sealed value is byte for byte the one
    /// opened before is the decryption skipped (it was a third of a cache hit's CPU).
    opened: moka::sync::Cache<String, Arc<OpenedCredential>>,
    /// Records each managed user's last use when `user_management.lifecycle` is on.
    usage: Option<Usage>,
}

struct OpenedCredential {
    sealed: Bytes,
    credential: Arc<ManagedCredential>,
}

/// Identities whose opened credential is kept; beyond this the least used are dropped (and
/// simply decrypted again).
const OPENED_CAPACITY: u64 = 10_000;

/// Managed users whose refresh limit is tracked before old, refilled ones are dropped.
const PRUNE_REFRESHES_ABOVE: usize = 10_000;

/// How managed users are made, from `user_management` and `cache`.
pub struct ManagedOptions {
    /// How long a credential is cached.
    pub ttl: Duration,
    pub password_length: usize,
    /// Least time between two refreshes of one managed user after the cluster's 401.
    pub min_refresh_interval: Duration,
    /// The configured local (Basic) user names.
    pub local_names: HashSet<String>,
    /// `user_management.lifecycle` when enabled: last use is recorded for its sweep.
    pub lifecycle: Option<LifecycleSettings>,
}

impl ManagedUsers {
    /// The claim-to-role mapping (`GET /auth/explain`).
    pub fn roles(&self) -> &RoleMapper {
        &self.roles
    }

    pub fn new(
        store: Arc<dyn KeyValueStore>,
        cipher: CredentialCipher,
        cluster: Arc<dyn SearchUsers>,
        roles: RoleMapper,
        options: ManagedOptions,
    ) -> Self {
        let period = options.min_refresh_interval.max(Duration::from_millis(1));
        let quota = Quota::with_period(period)
            .unwrap_or_else(|| Quota::per_second(NonZeroU32::MIN))
            .allow_burst(NonZeroU32::MIN);
        Self {
            store: store.clone(),
            cipher,
            cluster,
            roles,
            ttl: options.ttl,
            password_length: options.password_length,
            local_names: options.local_names,
            refreshes: RateLimiter::keyed(quota),
            upserts: SingleFlight::new(),
            usage: options
                .lifecycle
                .as_ref()
                .map(|lifecycle| Usage::new(store.clone(), lifecycle)),
            opened: moka::sync::Cache::builder()
                .max_capacity(OPENED_CAPACITY)
                .time_to_live(options.ttl)
                .build(),
        }
    }

    /// The cached credential when it was made for the roles `identity` maps to now, else a
    /// freshly upserted one (so a changed group membership gives new roles at once). A store
    /// failure is an error (fail closed); an entry that does not decrypt is a miss.
    pub async fn credential_for(
        &self,
        identity: &Identity,
    ) -> Result<Arc<ManagedCredential>, Error> {
        let user = ManagedUser::of(identity);
        let roles = self.roles.roles_for(identity);
        if let Some(credential) = self.cached(&user).await?
            && credential.roles == roles
        {
            metrics::increment(metrics::CRED_CACHE_HITS);
            if let Some(usage) = &self.usage {
                usage.touch(&user).await;
            }
            return Ok(credential);
        }
        metrics::increment(metrics::CRED_CACHE_MISSES);
        let upserted = self.upsert_once(identity, &user, roles, None).await?;
        upserted.ok_or_else(|| {
            Error::Search(ClusterError::BadResponse(
                "no credential was made".to_owned(),
            ))
        })
    }

    /// After the cluster rejected `stale`: a new password, unless another request already
    /// replaced it (then that one). `None` when this managed user was refreshed less than
    /// `min_refresh_interval` ago: the cluster's answer stands.
    pub async fn refresh(
        &self,
        identity: &Identity,
        stale: &ManagedCredential,
    ) -> Result<Option<Arc<ManagedCredential>>, Error> {
        let user = ManagedUser::of(identity);
        let roles = self.roles.roles_for(identity);
        self.upsert_once(identity, &user, roles, Some(stale)).await
    }

    /// The credential `stale`-less callers want (made for `roles`), or after a 401 one other
    /// than `stale`: from the store when another request (or replica) made it meanwhile, else
    /// upserted once for all the requests that ask at the same time.
    async fn upsert_once(
        &self,
        identity: &Identity,
        user: &ManagedUser,
        roles: Vec<String>,
        stale: Option<&ManagedCredential>,
    ) -> Result<Option<Arc<ManagedCredential>>, Error> {
        let key = user.store_key();
        loop {
            let shared = self
                .upserts
                .run(key.clone(), || async {
                    match self.cached(user).await? {
                        Some(current) if suits(&current, &roles, stale) => Ok(Some(current)),
                        _ if stale.is_some() && !self.may_refresh(&key) => {
                            tracing::warn!(
                                username = %user,
                                method = %user.source(),
                                "the search cluster rejected the managed credential again; not \
                                 refreshed before user_management.min_refresh_interval"
                            );
                            Ok(None)
                        }
                        _ => self.upsert(identity, user, roles.clone()).await.map(Some),
                    }
                })
                .await;
            // A request that joined another one's upsert takes its result unless it was made
            // for other roles (the groups changed meanwhile) or is the credential this request
            // saw rejected: then it asks again (and leads the next upsert if no one else does).
            match shared {
                Ok(Some(credential)) if suits(&credential, &roles, stale) => {
                    return Ok(Some(credential));
                }
                Ok(None) if stale.is_some() => return Ok(None),
                Err(error) => return Err(error.into()),
                Ok(_) => {}
            }
        }
    }

    fn may_refresh(&self, key: &str) -> bool {
        let allowed = self.refreshes.check_key(&key.to_owned()).is_ok();
        if self.refreshes.len() > PRUNE_REFRESHES_ABOVE {
            self.refreshes.retain_recent();
        }
        allowed
    }

    async fn upsert(
        &self,
        identity: &Identity,
        user: &ManagedUser,
        roles: Vec<String>,
    ) -> Result<Arc<ManagedCredential>, UpsertError> {
        let password = SecretString::from(generate_password(self.password_length));
        let adopt_unmarked = match user.source() {
            AuthMethod::Basic => true,
            AuthMethod::Oidc | AuthMethod::Bearer => !self.local_names.contains(user.name()),
        };
        // Last use is recorded only after the cluster took the upsert (below): a refused
        // request (a user the proxy did not make) leaves no record the sweep would act on.
        let reenable = match &self.usage {
            Some(usage) => usage.disabled_by_sweep(user).await?,
            None => false,
        };
        self.cluster
            .upsert_user(UserSpec {
                reenable,
                user,
                adopt_unmarked,
                password: &password,
                roles: &roles,
                email: &identity.email,
                full_name: &identity.name,
            })
            .await
            .inspect_err(|error| {
                if matches!(
                    error,
                    ClusterError::OtherSource { .. }
                        | ClusterError::ForeignUser(_)
                        | ClusterError::DisabledUser(_)
                ) {
                    tracing::warn!(
                        username = %user,
                        method = %user.source(),
                        reason = %error,
                        "search-cluster user not upserted"
                    );
                }
            })?;
        metrics::increment(metrics::USER_UPSERTS);
        tracing::info!(
            username = %user,
            method = %user.source(),
            roles = %roles.join(","),
            "search-cluster user upserted"
        );
        let credential = Arc::new(ManagedCredential::new(
            user.name().to_owned(),
            password,
            roles,
        ));
        let stored = StoredCredential {
            username: credential.username.clone(),
            password: credential.password.expose_secret().to_owned(),
            roles: credential.roles.clone(),
        };
        let key = user.store_key();
        let plaintext = serde_json::to_vec(&stored).expect("a credential serializes");
        let sealed = self.cipher.seal(&key, &plaintext);
        self.store.set(&key, sealed, self.ttl).await?;
        if let Some(usage) = &self.usage {
            usage.upserted(user, &credential.roles, reenable).await;
        }
        Ok(credential)
    }

    async fn cached(
        &self,
        user: &ManagedUser,
    ) -> Result<Option<Arc<ManagedCredential>>, StoreError> {
        let key = user.store_key();
        let Some(sealed) = self.store.get(&key).await? else {
            return Ok(None);
        };
        if let Some(opened) = self.opened.get(&key)
            && *opened.sealed == *sealed
        {
            return Ok(Some(opened.credential.clone()));
        }
        let stored = self
            .cipher
            .open(&key, &sealed)
            .and_then(|plaintext| serde_json::from_slice::<StoredCredential>(&plaintext).ok());
        match stored {
            Some(stored) if stored.username == user.name() => {
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
                    username = %user,
                    "a cached credential could not be decrypted; it is treated as missing"
                );
                Ok(None)
            }
        }
    }
}

/// Whether `current` is what a request wants: made for `roles`, and after a 401 not the
/// credential the cluster rejected.
fn suits(current: &ManagedCredential, roles: &[String], stale: Option<&ManagedCredential>) -> bool {
    current.roles == roles
        && stale
            .is_none_or(|stale| stale.password.expose_secret() != current.password.expose_secret())
}

/// Why an upsert failed, handed to every request that waited on it (so cloneable; each cause
/// keeps its type) and then turned into the crate's [`Error`].
#[derive(Debug, Clone)]
enum UpsertError {
    Store(StoreError),
    Search(ClusterError),
}

impl From<StoreError> for UpsertError {
    fn from(error: StoreError) -> Self {
        Self::Store(error)
    }
}

impl From<ClusterError> for UpsertError {
    fn from(error: ClusterError) -> Self {
        Self::Search(error)
    }
}

impl From<UpsertError> for Error {
    fn from(error: UpsertError) -> Self {
        match error {
            UpsertError::Store(error) => error.into(),
            UpsertError::Search(error) => error.into(),
        }
    }
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
