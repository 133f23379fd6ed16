//! `oidc.refresh:` — renewing a browser session's tokens with its refresh token shortly before
//! the access token expires, its validation, and the `offline_access` scope it needs.

use std::time::Duration;

use serde::Deserialize;
use service_kit::config::ConfigProblems;

use super::Settings;

/// Longest `before_expiry`: more would refresh on nearly every request with common token
/// lifetimes (5 min to 1 h).
const MAX_BEFORE_EXPIRY: Duration = Duration::from_secs(30 * 60);

/// `oidc.refresh`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RefreshSettings {
    /// Refresh sessions that hold a refresh token; sign-in then asks for `offline_access` (Dex,
    /// Okta and Auth0 issue one only for it) unless the provider's metadata leaves it out. Off: a
    /// session lasts `session.ttl` with its sign-in's groups.
    pub enabled: bool,
    /// A request of a session whose access token expires within this margin refreshes it.
    #[serde(with = "humantime_serde")]
    pub before_expiry: Duration,
}

impl Default for RefreshSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            before_expiry: Duration::from_secs(60),
        }
    }
}

pub(super) fn validate(settings: &Settings, problems: &mut ConfigProblems) {
    let refresh = &settings.oidc.refresh;
    if !settings.oidc.enabled || !refresh.enabled {
        return;
    }
    problems.check(
        !refresh.before_expiry.is_zero() && refresh.before_expiry <= MAX_BEFORE_EXPIRY,
        "oidc.refresh.before_expiry",
        format!(
            "must be longer than 0s and at most {}s",
            MAX_BEFORE_EXPIRY.as_secs()
        ),
    );
}

/// The scope under which Dex, Okta and Auth0 issue a refresh token (OIDC Core 11).
pub(crate) const OFFLINE_ACCESS: &str = "offline_access";

/// Whether sign-in asks for `offline_access` besides `oidc.scopes`: refresh is on and the
/// scopes lack it. It is asked only from a provider whose metadata lists it (or lists no scopes):
/// Google, for one, refuses a scope it does not know.
pub(crate) fn adds_offline_access(oidc: &super::OidcSettings) -> bool {
    oidc.refresh.enabled && !oidc.scopes.iter().any(|scope| scope == OFFLINE_ACCESS)
}

/// Whether a provider whose metadata lists `scopes_supported` (if any) may be asked for
/// `offline_access`.
pub(crate) fn offers_offline_access<'a>(
    mut scopes_supported: Option<impl Iterator<Item = &'a str>>,
) -> bool {
    scopes_supported
        .as_mut()
        .is_none_or(|scopes| scopes.any(|scope| scope == OFFLINE_ACCESS))
}

#[cfg(test)]
mod tests {
    use service_kit::config::ConfigLoader;

    use super::*;

    fn refresh_problems(refresh: &str) -> Vec<String> {
        let yaml = format!(
            "oidc: {{enabled: true, issuer_url: \"http://idp\", client_id: c, client_secret: s, \
             redirect_url: \"http://a/cb\", refresh: {refresh}}}\n\
             session: {{secret: 0123456789abcdef0123456789abcdef, ttl: 2s}}\n"
        );
        match ConfigLoader::new("AUTHPROXY_REFRESH_TEST").load_str::<Settings>(&yaml) {
            Ok(_) => Vec::new(),
            Err(problems) => problems
                .iter()
                .map(|problem| problem.key.clone())
                .filter(|key| key.starts_with("oidc.refresh"))
                .collect(),
        }
    }

    #[test]
    fn the_margin_is_positive_and_bounded() {
        assert!(refresh_problems("{before_expiry: 2m}").is_empty());
        assert!(refresh_problems("{enabled: false, before_expiry: 0s}").is_empty());
        for bad in ["0s", "31m", "2h"] {
            assert_eq!(
                refresh_problems(&format!("{{before_expiry: {bad}}}"))
                    .first()
                    .map(String::as_str),
                Some("oidc.refresh.before_expiry"),
                "{bad}"
            );
        }
        let defaults = RefreshSettings::default();
        assert!(defaults.enabled);
        assert_eq!(defaults.before_expiry, Duration::from_secs(60));
    }

    #[test]
    fn offline_access_is_asked_for_refresh_when_missing_and_offered() {
        let mut oidc = super::super::OidcSettings::default();
        assert!(adds_offline_access(&oidc), "refresh is on by default");
        oidc.scopes.push(OFFLINE_ACCESS.to_owned());
        assert!(!adds_offline_access(&oidc), "already asked for");
        oidc.scopes.pop();
        oidc.refresh.enabled = false;
        assert!(!adds_offline_access(&oidc), "refresh off");

        assert!(offers_offline_access(
            None::<std::slice::Iter<'_, &str>>.map(|it| it.copied())
        ));
        assert!(offers_offline_access(Some(
            ["openid", OFFLINE_ACCESS].into_iter()
        )));
        assert!(!offers_offline_access(Some(
            ["openid", "email"].into_iter()
        )));
    }
}
