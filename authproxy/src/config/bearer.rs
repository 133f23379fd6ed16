//! `oidc.bearer:` — API clients that send `Authorization: Bearer <JWT access token>` issued by
//! the configured provider (typically through the client-credentials grant), and its validation.

use std::time::Duration;

use serde::Deserialize;
use service_kit::config::ConfigProblems;

use super::Settings;

/// Largest clock skew accepted: more would keep expired tokens alive for long.
const MAX_CLOCK_SKEW: Duration = Duration::from_secs(300);

/// `oidc.bearer`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BearerSettings {
    pub enabled: bool,
    /// The token's `aud` must contain one of these (the resource indicator or API identifier
    /// the provider issues tokens for); required when enabled.
    pub audiences: Vec<String>,
    /// How far the provider's clock may be off this one, for `exp`, `nbf` and `iat`.
    #[serde(with = "humantime_serde")]
    pub clock_skew: Duration,
    /// The claim that names the search-cluster user (`sub`, or `client_id` / `azp` for
    /// client-credentials tokens); `sub` when absent from a token. Groups come from
    /// `oidc.groups_claim`.
    pub username_claim: String,
}

impl Default for BearerSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            audiences: Vec::new(),
            clock_skew: Duration::from_secs(60),
            username_claim: "sub".to_owned(),
        }
    }
}

pub(super) fn validate(settings: &Settings, problems: &mut ConfigProblems) {
    let bearer = &settings.oidc.bearer;
    if !bearer.enabled {
        return;
    }
    problems.check(
        settings.oidc.enabled,
        "oidc.bearer.enabled",
        "needs oidc.enabled: tokens are verified with that provider's keys",
    );
    problems.check(
        !bearer.audiences.is_empty(),
        "oidc.bearer.audiences",
        "is required when oidc.bearer.enabled is true: the audience (resource or API \
         identifier) the provider issues this proxy's tokens for",
    );
    for (index, audience) in bearer.audiences.iter().enumerate() {
        let key = format!("oidc.bearer.audiences[{index}]");
        if audience.trim().is_empty() || audience.chars().any(char::is_control) {
            problems.push(key, "must not be empty or contain control characters");
        } else if audience == settings.oidc.client_id.trim() {
            problems.push(
                key,
                "must not be oidc.client_id: every ID token of a browser sign-in names that \
                 audience, so it would be accepted as a bearer token",
            );
        }
    }
    problems.check(
        bearer.clock_skew <= MAX_CLOCK_SKEW,
        "oidc.bearer.clock_skew",
        format!("must be at most {}s", MAX_CLOCK_SKEW.as_secs()),
    );
    problems.check(
        !bearer.username_claim.trim().is_empty(),
        "oidc.bearer.username_claim",
        "must name a claim, such as sub, client_id or azp",
    );
}

#[cfg(test)]
mod tests {
    use service_kit::config::ConfigLoader;

    use super::*;

    /// The keys of the `oidc.bearer` problems `--validate-config` reports for `yaml`.
    fn bearer_problems(yaml: &str) -> Vec<String> {
        match ConfigLoader::new("AUTHPROXY_BEARER_TEST").load_str::<Settings>(yaml) {
            Ok(_) => Vec::new(),
            Err(problems) => problems
                .iter()
                .map(|problem| problem.key.clone())
                .filter(|key| key.starts_with("oidc.bearer"))
                .collect(),
        }
    }

    #[test]
    fn each_bad_value_is_named_by_its_key() {
        let keys = bearer_problems(
            "oidc: {bearer: {enabled: true, clock_skew: 10m, username_claim: ' '}}",
        );
        assert_eq!(
            keys,
            [
                "oidc.bearer.audiences",
                "oidc.bearer.clock_skew",
                "oidc.bearer.enabled",
                "oidc.bearer.username_claim"
            ],
            "sorted by key"
        );
        let keys = bearer_problems(
            "oidc: {enabled: true, client_id: proxy, bearer: {enabled: true, \
             audiences: ['urn:search', '', proxy]}}",
        );
        assert_eq!(
            keys,
            ["oidc.bearer.audiences[1]", "oidc.bearer.audiences[2]"]
        );
    }

    #[test]
    fn with_bearer_tokens_a_bare_allowed_user_must_name_its_source() {
        let problems = ConfigLoader::new("AUTHPROXY_BEARER_TEST")
            .load_str::<Settings>(
                "oidc: {enabled: true, issuer_url: 'http://127.0.0.1:1', client_id: proxy, \
                 client_secret: s, redirect_url: 'http://127.0.0.1:9000/auth/callback', \
                 bearer: {enabled: true, audiences: [api]}}\n\
                 session: {secret: 0123456789abcdef0123456789abcdef}\n\
                 authorization: {allowed_users: [svc, 'bearer:svc']}\n",
            )
            .unwrap_err()
            .to_string();
        assert!(
            problems.contains(
                "authorization.allowed_users[0]: names no source, and oidc, bearer are \
                 configured: write oidc:svc or bearer:svc"
            ),
            "{problems}"
        );
        assert!(!problems.contains("allowed_users[1]"), "{problems}");
    }

    #[test]
    fn off_by_default_and_nothing_to_check_then() {
        assert!(bearer_problems("oidc: {bearer: {audiences: []}}").is_empty());
        let settings = BearerSettings::default();
        assert!(!settings.enabled);
        assert_eq!(settings.username_claim, "sub");
        assert_eq!(settings.clock_skew, Duration::from_secs(60));
    }
}
