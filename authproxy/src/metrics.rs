//! The seven counters of the specification (section 4), exactly these names, the refusals of
//! the `authorization` rules and the checks refused for an invalid original host. The request duration histogram (`http_request_duration_seconds`)
//! comes from service-kit's middleware.

use std::sync::OnceLock;

use metrics::Counter;

pub const AUTH_ATTEMPTS: &str = "proxy_auth_attempts_total";
pub const AUTH_SUCCESSES: &str = "proxy_auth_successes_total";
pub const AUTH_FAILURES: &str = "proxy_auth_failures_total";
pub const SESSION_CREATES: &str = "proxy_session_creates_total";
pub const USER_UPSERTS: &str = "proxy_user_upserts_total";
pub const CRED_CACHE_HITS: &str = "proxy_cred_cache_hits_total";
pub const CRED_CACHE_MISSES: &str = "proxy_cred_cache_misses_total";
/// Signed-in identities the `authorization` rules refused (labels `rule`, `reason`).
pub const AUTH_DENIALS: &str = "proxy_auth_denials_total";
/// Requests refused by `authorization.request_rules` (labels `rule`, `reason`).
pub const REQUEST_RULE_DENIALS: &str = "proxy_request_rule_denials_total";
/// Session refreshes by `outcome`: `refreshed`, `shared` (another request or replica renewed
/// it), `wait_timeout` (another replica's refresh was waited for in vain: the session as it is),
/// `rejected` (the provider refused: sign in again), `unavailable` (not reached after a retry,
/// a token answer that timed out or could not be read, which is never retried since the token
/// may be spent, or slower than the refresh's time limit: sign in again), `incomplete` (the provider renewed
/// the tokens but sent neither an ID token nor a userinfo answer: sign in again).
pub const SESSION_REFRESHES: &str = "proxy_session_refreshes_total";
/// forward_auth checks refused because the proxy's original host is not `host[:port]`.
pub const INVALID_HOSTS: &str = "proxy_invalid_hosts_total";

const ALL: [(&str, &str); 8] = [
    (AUTH_ATTEMPTS, "Authentication attempts"),
    (AUTH_SUCCESSES, "Successful authentications"),
    (AUTH_FAILURES, "Failed authentications"),
    (SESSION_CREATES, "Sessions created"),
    (USER_UPSERTS, "Search-cluster user upserts"),
    (CRED_CACHE_HITS, "Credential cache hits"),
    (CRED_CACHE_MISSES, "Credential cache misses"),
    (
        INVALID_HOSTS,
        "forward_auth checks refused: the original host is not host[:port]",
    ),
];

/// One refusal by the `authorization` rules. Labels stay bounded: `rule` is `global` or
/// `hosts[<index>]` (the configuration's size), `reason` one of two values; never a user name.
pub fn denied(rule: &str, reason: &'static str) {
    metrics::counter!(AUTH_DENIALS, "rule" => rule.to_owned(), "reason" => reason).increment(1);
}

/// One refusal by a request rule. Labels stay bounded: `rule` is `request_rules[<index>]`,
/// `reason` `denied` or `ambiguous_request`; never a path or a user name.
pub fn request_denied(rule: usize, reason: &'static str) {
    metrics::counter!(REQUEST_RULE_DENIALS, "rule" => format!("request_rules[{rule}]"), "reason" => reason)
        .increment(1);
}

/// One session refresh (or the failure of one); `outcome` is one of those above.
pub fn refreshed(outcome: &'static str) {
    metrics::counter!(SESSION_REFRESHES, "outcome" => outcome).increment(1);
}

const REFRESH_OUTCOMES: [&str; 6] = [
    "refreshed",
    "shared",
    "wait_timeout",
    "rejected",
    "unavailable",
    "incomplete",
];

static DENIALS_REGISTERED: OnceLock<()> = OnceLock::new();

/// Handles resolved once: a `counter!` look-up per event would hash the name on every request
/// of the hot path.
static HANDLES: OnceLock<Vec<(&'static str, Counter)>> = OnceLock::new();

/// Describes the counters and registers them at 0, so `/_metrics` lists all eight before the
/// first event (a scrape that sees a counter appear later loses its first increments). Call
/// after the process's recorder is installed.
pub fn register() {
    HANDLES.get_or_init(|| {
        ALL.iter()
            .map(|(name, help)| {
                metrics::describe_counter!(*name, *help);
                let counter = metrics::counter!(*name);
                counter.increment(0);
                (*name, counter)
            })
            .collect()
    });
    metrics::describe_counter!(
        AUTH_DENIALS,
        "Signed-in identities refused by the authorization rules"
    );
    metrics::describe_counter!(
        REQUEST_RULE_DENIALS,
        "Requests refused by authorization.request_rules before the cluster saw them"
    );
    metrics::describe_counter!(
        LIFECYCLE_ACTIONS,
        "Managed search-cluster users the lifecycle sweep disabled, deleted, repaired or failed on"
    );
    metrics::describe_counter!(
        SESSION_REFRESHES,
        "Session refreshes with the refresh token, by outcome"
    );
    // Listed from the start for the global rule (a dashboard's rate() sees the first refusal).
    DENIALS_REGISTERED.get_or_init(|| {
        for reason in ["user_not_allowed", "group_not_allowed"] {
            metrics::counter!(AUTH_DENIALS, "rule" => "global", "reason" => reason).increment(0);
        }
        for outcome in REFRESH_OUTCOMES {
            metrics::counter!(SESSION_REFRESHES, "outcome" => outcome).increment(0);
        }
        for action in LIFECYCLE_LABELS {
            metrics::counter!(LIFECYCLE_ACTIONS, "action" => action).increment(0);
        }
    });
}

pub fn increment(name: &'static str) {
    match HANDLES
        .get()
        .and_then(|handles| handles.iter().find(|(known, _)| *known == name))
    {
        Some((_, counter)) => counter.increment(1),
        None => metrics::counter!(name).increment(1),
    }
}

/// Actions of the managed-user lifecycle sweep (label `action`).
pub const LIFECYCLE_ACTIONS: &str = "proxy_managed_users_lifecycle_total";

const LIFECYCLE_LABELS: [&str; 4] = ["disabled", "deleted", "repaired", "failed"];

/// One action of the lifecycle sweep: `disabled`, `deleted`, `repaired` or `failed`.
pub fn lifecycle_action(action: &'static str) {
    metrics::counter!(LIFECYCLE_ACTIONS, "action" => action).increment(1);
}
