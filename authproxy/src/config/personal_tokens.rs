//! `personal_tokens:` — tokens a user signed in through OIDC creates on `/auth/tokens` and uses
//! as the Basic password from a CLI, and their validation.

use std::time::Duration;

use serde::Deserialize;
use service_kit::config::ConfigProblems;

use super::Settings;

/// Longest lifetime a configuration may allow.
const MAX_MAX_TTL: Duration = Duration::from_secs(366 * 86_400);

/// `personal_tokens`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PersonalTokensSettings {
    pub enabled: bool,
    /// Longest lifetime a user may give a token.
    #[serde(with = "humantime_serde")]
    pub max_ttl: Duration,
    /// The lifetime of a token created without one (at most `max_ttl`).
    #[serde(with = "humantime_serde")]
    pub default_ttl: Duration,
    /// Most live tokens per user.
    pub max_per_user: usize,
}

impl Default for PersonalTokensSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            max_ttl: Duration::from_secs(90 * 86_400),
            default_ttl: Duration::from_secs(30 * 86_400),
            max_per_user: 20,
        }
    }
}

pub(super) fn validate(settings: &Settings, problems: &mut ConfigProblems) {
    let tokens = &settings.personal_tokens;
    if !tokens.enabled {
        return;
    }
    problems.check(
        settings.oidc.enabled,
        "personal_tokens.enabled",
        "needs oidc.enabled: tokens are created by users signed in through OIDC",
    );
    problems.check(
        !tokens.max_ttl.is_zero() && tokens.max_ttl <= MAX_MAX_TTL,
        "personal_tokens.max_ttl",
        "must be between 1s and 366d",
    );
    problems.check(
        !tokens.default_ttl.is_zero(),
        "personal_tokens.default_ttl",
        "must be positive",
    );
    problems.check(
        (1..=1000).contains(&tokens.max_per_user),
        "personal_tokens.max_per_user",
        "must be between 1 and 1000",
    );
}

#[cfg(test)]
mod tests {
    use service_kit::config::ConfigLoader;

    use super::*;

    #[test]
    fn each_bad_value_is_named_by_its_key() {
        let problems = ConfigLoader::new("AUTHPROXY_TOKENS_TEST")
            .load_str::<Settings>(
                "personal_tokens: {enabled: true, max_ttl: 400d, default_ttl: 0s, \
                 max_per_user: 0}",
            )
            .unwrap_err();
        let keys: Vec<String> = problems
            .iter()
            .map(|problem| problem.key.clone())
            .filter(|key| key.starts_with("personal_tokens"))
            .collect();
        assert_eq!(
            keys,
            [
                "personal_tokens.default_ttl",
                "personal_tokens.enabled",
                "personal_tokens.max_per_user",
                "personal_tokens.max_ttl"
            ]
        );
    }
}
