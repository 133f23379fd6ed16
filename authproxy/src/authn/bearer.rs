//! API clients with `Authorization: Bearer <JWT access token>` from the OIDC provider
//! (`oidc.bearer`): the token is verified by [`OidcProvider::verify_access_token`] (the sign-in's
//! keys, key cache and re-fetch), its claims become an [`Identity`] like a person's (user name
//! from `oidc.bearer.username_claim`, groups from `oidc.groups_claim`, every claim for role
//! mappings) with the method `bearer`. A verified token is remembered until its `exp` (at most
//! [`MAX_REMEMBERED`], at most [`MAX_ENTRIES`] tokens), keyed by a salted SHA-256 of the token,
//! never the token itself.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use moka::Expiry;
use moka::sync::Cache;
use sha2::{Digest, Sha256};

use crate::authn::oidc::{AccessTokenRules, OidcProvider, identity_from_claims};
use crate::config::OidcSettings;
use crate::error::Error;
use crate::identity::{AuthMethod, Identity};

/// Longest token considered; longer ones are refused before any work (a JWT with a few dozen
/// groups is well under this).
pub const MAX_TOKEN_LEN: usize = 8192;
/// Longest a verified token is remembered, whatever its `exp`.
const MAX_REMEMBERED: Duration = Duration::from_secs(3600);
/// Most tokens remembered at once.
const MAX_ENTRIES: u64 = 10_000;

/// A verified token's identity and when the token expires.
#[derive(Clone)]
struct Remembered {
    identity: Arc<Identity>,
    expires_at: SystemTime,
}

/// Each entry lives until its token's `exp` (bounded by [`MAX_REMEMBERED`]).
struct UntilExpiry;

impl Expiry<[u8; 32], Remembered> for UntilExpiry {
    fn expire_after_create(
        &self,
        _key: &[u8; 32],
        value: &Remembered,
        _created_at: Instant,
    ) -> Option<Duration> {
        let left = value
            .expires_at
            .duration_since(SystemTime::now())
            .unwrap_or(Duration::ZERO);
        Some(left.min(MAX_REMEMBERED))
    }
}

/// An accepted token.
pub struct VerifiedToken {
    pub identity: Arc<Identity>,
    /// True when a recent verification was reused.
    pub from_cache: bool,
}

pub struct BearerTokens {
    rules: AccessTokenRules,
    username_claim: String,
    groups_claim: String,
    salt: [u8; 32],
    verified: Cache<[u8; 32], Remembered>,
}

impl BearerTokens {
    /// From validated settings with `oidc.bearer.enabled`.
    pub fn new(settings: &OidcSettings) -> Self {
        Self {
            rules: AccessTokenRules {
                audiences: settings.bearer.audiences.clone(),
                clock_skew: settings.bearer.clock_skew,
            },
            username_claim: settings.bearer.username_claim.clone(),
            groups_claim: settings.groups_claim.clone(),
            salt: rand::random(),
            verified: Cache::builder()
                .max_capacity(MAX_ENTRIES)
                .expire_after(UntilExpiry)
                .build(),
        }
    }

    /// The identity of `token`, or `Error::InvalidToken` with the reason (the provider
    /// unreachable while keys are needed: `Error::ProviderUnavailable`).
    pub async fn verify(
        &self,
        provider: &OidcProvider,
        token: &str,
    ) -> Result<VerifiedToken, Error> {
        if token.len() > MAX_TOKEN_LEN {
            return Err(Error::InvalidToken("the token is larger than 8192 bytes"));
        }
        let fingerprint = self.fingerprint(token);
        if let Some(remembered) = self.verified.get(&fingerprint)
            && remembered.expires_at > SystemTime::now()
        {
            return Ok(VerifiedToken {
                identity: remembered.identity,
                from_cache: true,
            });
        }
        let claims = provider.verify_access_token(token, &self.rules).await?;
        let expires_at = claims
            .get("exp")
            .and_then(serde_json::Value::as_u64)
            .map(|exp| UNIX_EPOCH + Duration::from_secs(exp))
            .ok_or(Error::InvalidToken("the token's exp is not a number"))?;
        let mut identity = identity_from_claims(claims, &self.username_claim, &self.groups_claim)
            .ok_or(Error::InvalidToken(
            "no claim of the token names a usable user",
        ))?;
        identity.method = AuthMethod::Bearer;
        let identity = Arc::new(identity);
        self.verified.insert(
            fingerprint,
            Remembered {
                identity: identity.clone(),
                expires_at,
            },
        );
        Ok(VerifiedToken {
            identity,
            from_cache: false,
        })
    }

    /// A salted hash of the token: identifies it without keeping it.
    fn fingerprint(&self, token: &str) -> [u8; 32] {
        let mut hasher = Sha256::new();
        hasher.update(self.salt);
        hasher.update(token.as_bytes());
        hasher.finalize().into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remembered(expires_at: SystemTime) -> Remembered {
        Remembered {
            identity: Arc::new(Identity::local("svc", "", "svc", &[])),
            expires_at,
        }
    }

    #[test]
    fn a_token_is_remembered_until_its_expiry_and_at_most_an_hour() {
        let now = SystemTime::now();
        let life = |expires_at| {
            UntilExpiry
                .expire_after_create(&[0; 32], &remembered(expires_at), Instant::now())
                .unwrap()
        };
        let soon = life(now + Duration::from_secs(120));
        assert!(soon <= Duration::from_secs(120) && soon > Duration::from_secs(110));
        assert_eq!(life(now + Duration::from_secs(86_400)), MAX_REMEMBERED);
        assert_eq!(life(now - Duration::from_secs(5)), Duration::ZERO);
    }

    #[test]
    fn the_fingerprint_is_salted_per_process_and_keeps_no_token() {
        let settings = OidcSettings::default();
        let one = BearerTokens::new(&settings);
        let other = BearerTokens::new(&settings);
        assert_eq!(one.fingerprint("a.b.c"), one.fingerprint("a.b.c"));
        assert_ne!(one.fingerprint("a.b.c"), one.fingerprint("a.b.d"));
        assert_ne!(one.fingerprint("a.b.c"), other.fingerprint("a.b.c"));
    }
}
