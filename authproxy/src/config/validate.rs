//! The semantic rules serde cannot express. Every rule pushes its problem and goes on, so one
//! `--validate-config` run lists them all. Messages name keys, never values (they may be secrets).

use std::collections::HashSet;
use std::time::Duration;

use secrecy::{ExposeSecret, SecretString};
use service_kit::config::ConfigProblems;
use service_kit::settings::ServerSection;

use super::{CacheBackend, ForwardAuthCallers, ServerMode, Settings};
use crate::config::glob::Glob;
use crate::request::redirect::RedirectPolicy;

/// Shortest generated password accepted: both clusters accept 6, but a machine password this
/// short would be weak.
const MIN_PASSWORD_LENGTH: usize = 16;
const MAX_PASSWORD_LENGTH: usize = 256;
/// Longest `/_health` may reuse a report.
const MAX_HEALTH_CACHE_TTL: Duration = Duration::from_secs(300);

pub(super) fn validate(settings: &Settings, problems: &mut ConfigProblems) {
    validate_server(settings, problems);
    validate_oidc(settings, problems);
    super::bearer::validate(settings, problems);
    super::refresh::validate(settings, problems);
    super::lifecycle::validate(settings, problems);
    super::personal_tokens::validate(settings, problems);
    validate_session(settings, problems);
    validate_cache(settings, problems);
    validate_user_management(settings, problems);
    validate_search(settings, problems);
    validate_basic_auth(settings, problems);
    validate_observability(settings, problems);
    super::authorization::validate(settings, problems);
}

/// Valid settings that are probably a mistake; `--validate-config` prints them as warnings.
pub(super) fn warnings(settings: &Settings, warnings: &mut ConfigProblems) {
    super::authorization::warnings(settings, warnings);
    let server = &settings.server;
    if server.mode == ServerMode::ForwardAuth && server.trusted_proxies.is_empty() {
        let message = match server.forward_auth_callers {
            ForwardAuthCallers::TrustedProxies => {
                "is empty in forward_auth mode: every check is refused with 403 (only trusted \
                 proxies are answered); list the reverse proxy's addresses"
            }
            ForwardAuthCallers::Any => {
                "is empty in forward_auth mode: the reverse proxy's X-Forwarded-For is not \
                 believed, so every Basic attempt is charged to the proxy's address; list the \
                 reverse proxy's addresses"
            }
        };
        warnings.push("server.trusted_proxies", message);
    }
}

fn validate_server(settings: &Settings, problems: &mut ConfigProblems) {
    let server = &settings.server;
    server.validate_listen(problems);
    positive(server.read_timeout, "server.read_timeout", problems);
    positive(server.write_timeout, "server.write_timeout", problems);
}

fn validate_oidc(settings: &Settings, problems: &mut ConfigProblems) {
    let oidc = &settings.oidc;
    if !oidc.enabled {
        return;
    }
    http_url(&oidc.issuer_url, "oidc.issuer_url", problems);
    http_url(&oidc.redirect_url, "oidc.redirect_url", problems);
    problems.check(
        !oidc.client_id.trim().is_empty(),
        "oidc.client_id",
        "is required when oidc.enabled is true",
    );
    problems.check(
        !is_empty(oidc.client_secret.as_ref()),
        "oidc.client_secret",
        "is required when oidc.enabled is true (or set OIDC_CLIENT_SECRET)",
    );
    problems.check(
        !is_empty(settings.session.secret.as_ref()),
        "session.secret",
        "is required when oidc.enabled is true (or set SESSION_SECRET)",
    );
    problems.check(
        !oidc.username_claim.trim().is_empty(),
        "oidc.username_claim",
        "must name a claim, such as preferred_username or email",
    );
    if !oidc.post_logout_redirect_url.is_empty() {
        http_url(
            &oidc.post_logout_redirect_url,
            "oidc.post_logout_redirect_url",
            problems,
        );
        let host = |url: &str| {
            reqwest::Url::parse(url)
                .ok()
                .and_then(|url| url.host_str().map(str::to_ascii_lowercase))
        };
        if let Some(target) = host(&oidc.post_logout_redirect_url) {
            let policy = RedirectPolicy::new(&settings.session.cookie_domain);
            problems.check(
                policy.is_inside_cookie_domain(&target) || host(&oidc.redirect_url) == Some(target),
                "oidc.post_logout_redirect_url",
                "must be on the host of oidc.redirect_url or inside session.cookie_domain",
            );
        }
    }
    for (index, scope) in oidc.scopes.iter().enumerate() {
        problems.check(
            !scope.is_empty()
                && scope
                    .bytes()
                    .all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\'),
            &format!("oidc.scopes[{index}]"),
            "must be a scope token (printable ASCII, no spaces)",
        );
    }
}

fn validate_session(settings: &Settings, problems: &mut ConfigProblems) {
    let session = &settings.session;
    positive(session.ttl, "session.ttl", problems);
    problems.check(
        is_cookie_name(&session.cookie_name),
        "session.cookie_name",
        "must be a non-empty cookie name (letters, digits, '-', '_', '.')",
    );
    if let Some(secret) = &session.secret
        && !secret.expose_secret().is_empty()
    {
        problems.check(
            secret.expose_secret().len() >= 32,
            "session.secret",
            "must be at least 32 bytes (SESSION_SECRET)",
        );
    }
}

fn validate_cache(settings: &Settings, problems: &mut ConfigProblems) {
    let cache = &settings.cache;
    positive(cache.credential_ttl, "cache.credential_ttl", problems);
    match &cache.encryption_key {
        Some(key) if !key.expose_secret().is_empty() => problems.check(
            key.expose_secret().len() == 32,
            "cache.encryption_key",
            "must be exactly 32 bytes (CACHE_ENCRYPTION_KEY)",
        ),
        _ => problems.check(
            cache.backend != CacheBackend::Redis,
            "cache.encryption_key",
            "is required with the redis backend, so every replica can read the entries (or set CACHE_ENCRYPTION_KEY)",
        ),
    }
    let lifecycle = settings.user_management.enabled && settings.user_management.lifecycle.enabled;
    problems.check(
        !lifecycle || cache.backend == CacheBackend::Redis,
        "user_management.lifecycle.enabled",
        "needs cache.backend redis: with the memory backend each replica keeps its own records \
         of use and its sweep would disable or delete users busy on another replica",
    );
    if cache.backend == CacheBackend::Redis {
        if cache.redis_url.is_empty() {
            problems.push(
                "cache.redis_url",
                "is required when cache.backend is redis (or set REDIS_URL)",
            );
        } else {
            problems.check(
                is_redis_url(&cache.redis_url),
                "cache.redis_url",
                "must be a redis://, rediss:// or unix:// URL",
            );
        }
    }
}

fn validate_user_management(settings: &Settings, problems: &mut ConfigProblems) {
    let users = &settings.user_management;
    positive(
        users.credential_ttl,
        "user_management.credential_ttl",
        problems,
    );
    positive(
        users.min_refresh_interval,
        "user_management.min_refresh_interval",
        problems,
    );
    problems.check(
        (MIN_PASSWORD_LENGTH..=MAX_PASSWORD_LENGTH).contains(&users.password_length),
        "user_management.password_length",
        format!("must be between {MIN_PASSWORD_LENGTH} and {MAX_PASSWORD_LENGTH}"),
    );
    for (index, rule) in users.role_mappings.iter().enumerate() {
        let key = format!("user_management.role_mappings[{index}]");
        problems.check(
            !rule.claim.trim().is_empty(),
            &format!("{key}.claim"),
            "must name a claim, such as groups or email",
        );
        if let Err(error) = Glob::new(&rule.pattern) {
            problems.push(format!("{key}.pattern"), error.to_string());
        }
        check_roles(&rule.search_roles, &format!("{key}.search_roles"), problems);
    }
    check_roles(
        &users.default_search_roles,
        "user_management.default_search_roles",
        problems,
    );
}

fn check_roles(roles: &[String], key: &str, problems: &mut ConfigProblems) {
    for (index, role) in roles.iter().enumerate() {
        problems.check(
            !role.trim().is_empty(),
            &format!("{key}[{index}]"),
            "must not be empty",
        );
    }
}

fn validate_search(settings: &Settings, problems: &mut ConfigProblems) {
    http_url(&settings.search.url, "search.url", problems);
    settings.search.tls.validate("search.tls", problems);
    if settings.user_management.enabled {
        problems.check(
            !settings.search.admin_user.trim().is_empty(),
            "search.admin_user",
            "is required when user_management.enabled is true",
        );
    }
}

fn validate_basic_auth(settings: &Settings, problems: &mut ConfigProblems) {
    let basic = &settings.basic_auth;
    positive(basic.verified_ttl, "basic_auth.verified_ttl", problems);
    positive(basic.failure_window, "basic_auth.failure_window", problems);
    problems.check(
        basic.max_failures_per_user > 0,
        "basic_auth.max_failures_per_user",
        "must be at least 1",
    );
    problems.check(
        basic.max_failures_per_address > 0,
        "basic_auth.max_failures_per_address",
        "must be at least 1",
    );
    let mut seen = HashSet::new();
    for (index, user) in basic.users.iter().enumerate() {
        let key = format!("basic_auth.users[{index}]");
        problems.check(
            !user.username.is_empty() && !user.username.contains(':'),
            &format!("{key}.username"),
            "must be non-empty and must not contain ':'",
        );
        problems.check(
            seen.insert(user.username.as_str()),
            &format!("{key}.username"),
            "is configured twice",
        );
        problems.check(
            user.password_hash.parse::<bcrypt::HashParts>().is_ok(),
            &format!("{key}.password_hash"),
            "must be a bcrypt hash ($2a$, $2b$ or $2y$), e.g. from `htpasswd -nbB`",
        );
    }
}

fn validate_observability(settings: &Settings, problems: &mut ConfigProblems) {
    let observability = &settings.observability;
    problems.check(
        (0.0..=1.0).contains(&observability.otel_trace_ratio),
        "observability.otel_trace_ratio",
        "must be between 0.0 and 1.0",
    );
    problems.check(
        observability.health_cache_ttl <= MAX_HEALTH_CACHE_TTL,
        "observability.health_cache_ttl",
        "must be at most 5m (a stale report hides an outage)",
    );
    if observability.otel_enabled || !observability.otel_endpoint.is_empty() {
        http_url(
            &observability.otel_endpoint,
            "observability.otel_endpoint",
            problems,
        );
    }
    if observability.otel_enabled {
        problems.check(
            !observability.otel_service_name.trim().is_empty(),
            "observability.otel_service_name",
            "is required when observability.otel_enabled is true",
        );
    }
}

fn is_empty(secret: Option<&SecretString>) -> bool {
    secret.is_none_or(|secret| secret.expose_secret().is_empty())
}

fn positive(duration: Duration, key: &str, problems: &mut ConfigProblems) {
    problems.check(!duration.is_zero(), key, "must be longer than 0s");
}

fn http_url(value: &str, key: &str, problems: &mut ConfigProblems) {
    let ok = reqwest::Url::parse(value)
        .is_ok_and(|url| matches!(url.scheme(), "http" | "https") && url.host().is_some());
    problems.check(ok, key, "must be an http:// or https:// URL");
}

fn is_redis_url(value: &str) -> bool {
    reqwest::Url::parse(value)
        .is_ok_and(|url| matches!(url.scheme(), "redis" | "rediss" | "unix" | "redis+unix"))
}

fn is_cookie_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"-_.".contains(&byte))
}
