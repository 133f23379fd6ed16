//! Personal access tokens (`personal_tokens`): a user signed in through OIDC creates tokens on
//! `/auth/tokens` and uses one as the Basic password from a CLI (`curl -u alice:apt_…`); it maps
//! to the same identity, so to the same managed cluster user. A token is `apt_<id>_<secret>`
//! (64-bit id, 256-bit secret); the store keeps, encrypted under its key, the token's name,
//! owner (the identity at creation), expiry and the SHA-256 of the secret, never the secret, with
//! the store's TTL at the expiry; a per-owner index lists the ids. Revoking deletes the record.

use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;

use crate::authn::session::{SessionRecord, hex_sha256, unix_now};
use crate::crypto::CredentialCipher;
use crate::error::Error;
use crate::identity::Identity;
use crate::store::KeyValueStore;

/// Every token starts with this, so a Basic password is known to be one without a look-up.
pub const TOKEN_PREFIX: &str = "apt_";
/// Longest token name.
pub const MAX_NAME_LEN: usize = 100;

/// What is stored per token (encrypted; the secret only as its SHA-256).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct TokenRecord {
    id: String,
    name: String,
    owner: SessionRecord,
    created_at: u64,
    expires_at: u64,
    secret_sha256: String,
}

/// A token as its owner sees it in the list: never the secret.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TokenInfo {
    pub id: String,
    pub name: String,
    /// Unix seconds.
    pub created_at: u64,
    pub expires_at: u64,
}

/// A new token: shown once.
pub struct NewToken {
    pub info: TokenInfo,
    pub token: String,
}

/// Why a token could not be created.
#[derive(Debug, PartialEq, Eq)]
pub enum CreateRefusal {
    BadName,
    BadTtl,
    TooMany,
}

pub struct PersonalTokens {
    store: Arc<dyn KeyValueStore>,
    cipher: CredentialCipher,
    pub max_ttl: Duration,
    pub default_ttl: Duration,
    max_per_user: usize,
    /// Index updates (create, revoke) one at a time in this process.
    index_lock: tokio::sync::Mutex<()>,
}

fn record_key(id: &str) -> String {
    format!("authproxy:token:{id}")
}

fn index_key(username: &str) -> String {
    format!("authproxy:tokens:oidc:{username}")
}

/// `(id, secret)` of a well-formed token.
fn split(token: &str) -> Option<(&str, &str)> {
    let (id, secret) = token.strip_prefix(TOKEN_PREFIX)?.split_once('_')?;
    let id_ok = id.len() == 16 && id.bytes().all(|b| b.is_ascii_hexdigit());
    let secret_ok = secret.len() == 43
        && secret
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    (id_ok && secret_ok).then_some((id, secret))
}

impl PersonalTokens {
    pub fn new(
        store: Arc<dyn KeyValueStore>,
        cipher: CredentialCipher,
        settings: &crate::config::PersonalTokensSettings,
    ) -> Self {
        Self {
            store,
            cipher,
            max_ttl: settings.max_ttl,
            default_ttl: settings.default_ttl.min(settings.max_ttl),
            max_per_user: settings.max_per_user,
            index_lock: tokio::sync::Mutex::new(()),
        }
    }

    async fn read<T: for<'de> Deserialize<'de>>(&self, key: &str) -> Result<Option<T>, Error> {
        let Some(sealed) = self.store.get(key).await? else {
            return Ok(None);
        };
        Ok(self
            .cipher
            .open(key, &sealed)
            .and_then(|plaintext| serde_json::from_slice(&plaintext).ok()))
    }

    async fn write<T: Serialize>(&self, key: &str, value: &T, ttl: Duration) -> Result<(), Error> {
        let plaintext = serde_json::to_vec(value).expect("a token record serializes");
        let sealed = self.cipher.seal(key, &plaintext);
        self.store.set(key, sealed, ttl).await?;
        Ok(())
    }

    /// The owner's tokens that still exist, oldest first.
    pub async fn list(&self, owner: &Identity) -> Result<Vec<TokenInfo>, Error> {
        let ids: Vec<String> = self
            .read(&index_key(&owner.username))
            .await?
            .unwrap_or_default();
        let mut tokens = Vec::new();
        for id in ids {
            if let Some(record) = self.read::<TokenRecord>(&record_key(&id)).await?
                && record.owner.username == owner.username
                && record.expires_at > unix_now()
            {
                tokens.push(TokenInfo {
                    id: record.id,
                    name: record.name,
                    created_at: record.created_at,
                    expires_at: record.expires_at,
                });
            }
        }
        Ok(tokens)
    }

    /// A new token for `owner`, valid for `ttl` (at most `max_ttl`).
    pub async fn create(
        &self,
        owner: &Identity,
        name: &str,
        ttl: Duration,
    ) -> Result<Result<NewToken, CreateRefusal>, Error> {
        let name = name.trim();
        if name.is_empty() || name.len() > MAX_NAME_LEN || name.chars().any(char::is_control) {
            return Ok(Err(CreateRefusal::BadName));
        }
        if ttl.is_zero() || ttl > self.max_ttl {
            return Ok(Err(CreateRefusal::BadTtl));
        }
        let _guard = self.index_lock.lock().await;
        let existing = self.list(owner).await?;
        if existing.len() >= self.max_per_user {
            return Ok(Err(CreateRefusal::TooMany));
        }
        let id: String = rand::random::<[u8; 8]>()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let secret = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
        let now = unix_now();
        let record = TokenRecord {
            id: id.clone(),
            name: name.to_owned(),
            owner: SessionRecord {
                username: owner.username.clone(),
                email: owner.email.clone(),
                name: owner.name.clone(),
                groups: owner.groups.clone(),
                claims: owner.claims.clone(),
                id_token: None,
                expires_at: now + ttl.as_secs(),
                refresh_token: None,
                access_expires_at: None,
            },
            created_at: now,
            expires_at: now + ttl.as_secs(),
            secret_sha256: hex_sha256(&secret),
        };
        self.write(&record_key(&id), &record, ttl).await?;
        let mut ids: Vec<String> = existing.into_iter().map(|token| token.id).collect();
        ids.push(id.clone());
        self.write(&index_key(&owner.username), &ids, self.max_ttl)
            .await?;
        Ok(Ok(NewToken {
            info: TokenInfo {
                id: id.clone(),
                name: record.name,
                created_at: now,
                expires_at: record.expires_at,
            },
            token: format!("{TOKEN_PREFIX}{id}_{secret}"),
        }))
    }

    /// Revokes the owner's token `id`; false when the owner has no such token.
    pub async fn revoke(&self, owner: &Identity, id: &str) -> Result<bool, Error> {
        let _guard = self.index_lock.lock().await;
        let tokens = self.list(owner).await?;
        if !tokens.iter().any(|token| token.id == id) {
            return Ok(false);
        }
        self.store.delete(&record_key(id)).await?;
        let ids: Vec<&str> = tokens
            .iter()
            .map(|token| token.id.as_str())
            .filter(|other| *other != id)
            .collect();
        self.write(&index_key(&owner.username), &ids, self.max_ttl)
            .await?;
        Ok(true)
    }

    /// The identity of `username` with `token` as the password; `None` for a token that is
    /// malformed, unknown, revoked, expired or another user's.
    pub async fn verify(&self, username: &str, token: &str) -> Result<Option<Identity>, Error> {
        let Some((id, secret)) = split(token) else {
            return Ok(None);
        };
        let Some(record) = self.read::<TokenRecord>(&record_key(id)).await? else {
            return Ok(None);
        };
        let secret_ok: bool = hex_sha256(secret)
            .as_bytes()
            .ct_eq(record.secret_sha256.as_bytes())
            .into();
        Ok(
            (secret_ok && record.owner.username == username && record.expires_at > unix_now())
                .then(|| record.owner.identity()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::PersonalTokensSettings;
    use crate::store::MemoryStore;

    fn tokens(max_per_user: usize) -> PersonalTokens {
        PersonalTokens::new(
            Arc::new(MemoryStore::default()),
            CredentialCipher::ephemeral(),
            &PersonalTokensSettings {
                max_per_user,
                ..PersonalTokensSettings::default()
            },
        )
    }

    fn alice() -> Identity {
        let mut identity = Identity::local("alice", "a@example.com", "Alice", &["ops".to_owned()]);
        identity.method = crate::identity::AuthMethod::Oidc;
        identity
    }

    #[tokio::test]
    async fn a_token_verifies_for_its_owner_only_until_revoked() {
        let tokens = tokens(5);
        let new = tokens
            .create(&alice(), "laptop", Duration::from_secs(60))
            .await
            .unwrap()
            .unwrap();
        assert!(new.token.starts_with("apt_"));
        let identity = tokens.verify("alice", &new.token).await.unwrap().unwrap();
        assert_eq!(identity.username, "alice");
        assert_eq!(identity.method, crate::identity::AuthMethod::Oidc);
        assert!(tokens.verify("bob", &new.token).await.unwrap().is_none());
        let mut changed = new.token.clone();
        changed.pop();
        changed.push(if new.token.ends_with('A') { 'B' } else { 'A' });
        assert!(tokens.verify("alice", &changed).await.unwrap().is_none());
        assert_eq!(tokens.list(&alice()).await.unwrap().len(), 1);
        assert!(tokens.revoke(&alice(), &new.info.id).await.unwrap());
        assert!(tokens.verify("alice", &new.token).await.unwrap().is_none());
        assert!(tokens.list(&alice()).await.unwrap().is_empty());
        assert!(!tokens.revoke(&alice(), &new.info.id).await.unwrap());
    }

    #[tokio::test]
    async fn names_lifetimes_and_counts_are_bounded() {
        let tokens = tokens(1);
        let create = |name: &'static str, secs: u64| {
            let tokens = &tokens;
            async move {
                tokens
                    .create(&alice(), name, Duration::from_secs(secs))
                    .await
                    .unwrap()
                    .err()
            }
        };
        assert_eq!(create(" ", 60).await, Some(CreateRefusal::BadName));
        assert_eq!(create("a\nb", 60).await, Some(CreateRefusal::BadName));
        assert_eq!(create("x", 0).await, Some(CreateRefusal::BadTtl));
        assert_eq!(create("x", 400 * 86_400).await, Some(CreateRefusal::BadTtl));
        assert_eq!(create("x", 60).await, None);
        assert_eq!(create("y", 60).await, Some(CreateRefusal::TooMany));
    }

    #[test]
    fn only_well_formed_tokens_are_looked_up() {
        let secret = "a".repeat(43);
        assert!(split(&format!("apt_0123456789abcdef_{secret}")).is_some());
        for bad in [
            format!("apt_0123456789abcdeg_{secret}"),
            format!("apt_0123456789abcdef_{}", "a".repeat(42)),
            format!("apt_0123456789abcdef_{}!", "a".repeat(42)),
            format!("xpt_0123456789abcdef_{secret}"),
            "apt_".to_owned(),
        ] {
            assert!(split(&bad).is_none(), "{bad}");
        }
    }
}
