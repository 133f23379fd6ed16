//! `user_management.lifecycle:` — the periodic sweep that disables and deletes managed
//! search-cluster users nobody used for a while, and its validation.

use std::time::Duration;

use serde::Deserialize;
use service_kit::config::ConfigProblems;

use super::Settings;

/// Shortest `interval`: a sweep lists every cluster user.
const MIN_INTERVAL: Duration = Duration::from_secs(1);

/// `user_management.lifecycle`. Off by default: disabling and deleting cluster users is a
/// decision for the operator, and the defaults below are only the durations it then gets.
#[derive(Debug, Clone, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct LifecycleSettings {
    pub enabled: bool,
    /// Time between two sweeps (of one replica; a lease in the store lets one sweep at a time).
    #[serde(with = "humantime_serde")]
    pub interval: Duration,
    /// A managed user unused this long is disabled (Elasticsearch) or deleted (OpenSearch,
    /// which cannot disable an internal user).
    #[serde(with = "humantime_serde")]
    pub disable_after: Duration,
    /// A managed user unused this long is deleted; at least `disable_after`.
    #[serde(with = "humantime_serde")]
    pub delete_after: Duration,
}

impl Default for LifecycleSettings {
    fn default() -> Self {
        Self {
            enabled: false,
            interval: Duration::from_secs(3600),
            disable_after: Duration::from_secs(30 * 86_400),
            delete_after: Duration::from_secs(90 * 86_400),
        }
    }
}

impl LifecycleSettings {
    /// How often a replica records that a managed user was used: a store write at most this
    /// often per user, an hour or a quarter of `disable_after` when that is shorter.
    pub fn touch_every(&self) -> Duration {
        (self.disable_after / 4).min(Duration::from_secs(3600))
    }
}

pub(super) fn validate(settings: &Settings, problems: &mut ConfigProblems) {
    let lifecycle = &settings.user_management.lifecycle;
    if !settings.user_management.enabled || !lifecycle.enabled {
        return;
    }
    problems.check(
        lifecycle.interval >= MIN_INTERVAL,
        "user_management.lifecycle.interval",
        "must be at least 1s",
    );
    problems.check(
        lifecycle.disable_after >= MIN_INTERVAL,
        "user_management.lifecycle.disable_after",
        "must be at least 1s",
    );
    problems.check(
        lifecycle.delete_after >= lifecycle.disable_after,
        "user_management.lifecycle.delete_after",
        "must be at least user_management.lifecycle.disable_after",
    );
}

#[cfg(test)]
mod tests {
    use service_kit::config::ConfigLoader;

    use super::*;

    /// The cache section the lifecycle needs (a store all replicas share).
    const REDIS: &str = "cache: {backend: redis, redis_url: \"redis://127.0.0.1:6379\", \
                         encryption_key: 0123456789abcdef0123456789abcdef}";

    fn problems(lifecycle: &str) -> Vec<String> {
        problems_with(lifecycle, REDIS)
    }

    fn problems_with(lifecycle: &str, cache: &str) -> Vec<String> {
        let yaml = format!("user_management: {{lifecycle: {lifecycle}}}\n{cache}\n");
        match ConfigLoader::new("AUTHPROXY_LIFECYCLE_TEST").load_str::<Settings>(&yaml) {
            Ok(_) => Vec::new(),
            Err(problems) => problems
                .iter()
                .map(|problem| problem.key.clone())
                .filter(|key| key.starts_with("user_management.lifecycle"))
                .collect(),
        }
    }

    #[test]
    fn it_is_off_by_default_with_long_durations() {
        let defaults = LifecycleSettings::default();
        assert!(!defaults.enabled);
        assert_eq!(defaults.interval, Duration::from_secs(3600));
        assert!(defaults.disable_after < defaults.delete_after);
        assert_eq!(defaults.touch_every(), Duration::from_secs(3600));
        assert!(problems("{enabled: true}").is_empty());
    }

    #[test]
    fn durations_are_checked_only_when_enabled() {
        assert!(
            problems("{enabled: true, interval: 1s, disable_after: 2s, delete_after: 4s}")
                .is_empty()
        );
        assert!(problems("{enabled: false, interval: 0s, delete_after: 0s}").is_empty());
        assert_eq!(
            problems("{enabled: true, interval: 0s}"),
            ["user_management.lifecycle.interval"]
        );
        assert_eq!(
            problems("{enabled: true, disable_after: 0s, delete_after: 0s}"),
            ["user_management.lifecycle.disable_after"]
        );
        assert_eq!(
            problems("{enabled: true, disable_after: 3d, delete_after: 2d}"),
            ["user_management.lifecycle.delete_after"]
        );
        let short = LifecycleSettings {
            disable_after: Duration::from_secs(2),
            ..LifecycleSettings::default()
        };
        assert_eq!(short.touch_every(), Duration::from_millis(500));
    }

    #[test]
    fn a_duration_that_does_not_parse_is_named() {
        let loaded = ConfigLoader::new("AUTHPROXY_LIFECYCLE_TEST").load_str::<Settings>(&format!(
            "user_management: {{lifecycle: {{enabled: true, interval: soon}}}}\n{REDIS}\n"
        ));
        let Err(problems) = loaded else {
            panic!("an interval of \"soon\" was accepted");
        };
        let named = problems
            .iter()
            .any(|problem| format!("{} {}", problem.key, problem.message).contains("interval"));
        assert!(named, "{problems:?}");
    }

    /// Each replica would keep its own records of use in memory and sweep users busy on
    /// another one.
    #[test]
    fn the_memory_store_is_refused() {
        assert_eq!(
            problems_with("{enabled: true}", ""),
            ["user_management.lifecycle.enabled"]
        );
        assert!(problems_with("{enabled: false}", "").is_empty());
    }
}
