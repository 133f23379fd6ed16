use std::collections::HashMap;

use secrecy::ExposeSecret;
use service_kit::config::{ConfigLoader, ConfigProblems};
use service_kit::settings::ServiceSettings;

use super::*;

fn load(yaml: &str, env: &[(&str, &str)]) -> Result<Settings, ConfigProblems> {
    let env: HashMap<String, String> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    ConfigLoader::new("AUTHPROXY_TEST")
        .with_env(env)
        .load_str(yaml)
}

fn problem_keys(problems: &ConfigProblems) -> Vec<String> {
    problems.iter().map(|p| p.key.clone()).collect()
}

#[test]
fn defaults_are_the_specification_examples() {
    let settings = load("", &[]).unwrap();
    assert_eq!(settings.server.port, 9000);
    assert_eq!(settings.server.mode, ServerMode::ForwardAuth);
    assert_eq!(settings.server.read_timeout.as_secs(), 30);
    assert_eq!(settings.server.write_timeout.as_secs(), 30);
    assert_eq!(settings.session.ttl.as_secs(), 24 * 3600);
    assert_eq!(settings.cache.credential_ttl.as_secs(), 3600);
    assert_eq!(settings.user_management.credential_ttl.as_secs(), 3600);
    assert_eq!(settings.user_management.password_length, 32);
    assert_eq!(settings.cache.backend, CacheBackend::Memory);
    assert!(!settings.oidc.enabled);
}

const FULL: &str = r#"
server: {port: 9002, mode: standalone, read_timeout: 10s, write_timeout: 1m, trusted_proxies: [10.0.0.0/8, 127.0.0.1]}
oidc:
  enabled: true
  issuer_url: https://idp.example.com/realms/x
  client_id: authproxy
  client_secret: ${OIDC_SECRET}
  redirect_url: https://search.example.com/auth/callback
session: {ttl: 12h, cookie_name: _sp, cookie_domain: .example.com}
cache: {backend: redis, credential_ttl: 30m}
user_management:
  enabled: true
  password_length: 40
  credential_ttl: 2h
  role_mappings:
    - {claim: groups, pattern: "admins", es_roles: [superuser]}
    - {claim: email, pattern: "*@example.com", search_roles: [reader]}
  default_es_roles: [viewer]
elasticsearch: {url: "http://es:9200", admin_user: elastic, flavor: opensearch}
observability: {log_level: debug, log_format: text, metrics_enabled: false, otel_enabled: true, otel_endpoint: "http://otel:4318", otel_service_name: ap, otel_trace_ratio: 0.25}
"#;

#[test]
fn every_key_and_the_aliases_load_with_secrets_from_the_environment() {
    let settings = load(
        FULL,
        &[
            ("OIDC_SECRET", "from-substitution"),
            ("SESSION_SECRET", &"s".repeat(32)),
            ("CACHE_ENCRYPTION_KEY", &"k".repeat(32)),
            ("SEARCH_ADMIN_PASSWORD", "admin-pw"),
            ("REDIS_URL", "redis://127.0.0.1:6379/0"),
        ],
    )
    .unwrap();
    assert_eq!(settings.server.mode, ServerMode::Standalone);
    assert_eq!(settings.search.url, "http://es:9200");
    assert_eq!(settings.search.flavor, SearchFlavor::Opensearch);
    assert_eq!(
        settings.search.admin_password.unwrap().expose_secret(),
        "admin-pw"
    );
    assert_eq!(settings.cache.redis_url, "redis://127.0.0.1:6379/0");
    assert_eq!(
        settings.oidc.client_secret.unwrap().expose_secret(),
        "from-substitution"
    );
    assert_eq!(
        settings.user_management.role_mappings[0].search_roles,
        ["superuser"]
    );
    assert_eq!(settings.user_management.default_search_roles, ["viewer"]);
    assert_eq!(settings.observability.otel_trace_ratio, 0.25);
}

#[test]
fn every_violation_is_reported_with_its_key_and_without_values() {
    let yaml = r#"
server: {read_timeout: 0s, trusted_proxies: [not-an-ip]}
oidc: {enabled: true, issuer_url: "not a url", redirect_url: "ftp://x"}
session: {secret: short-secret-value}
cache: {backend: redis, encryption_key: only-31-bytes-long-key-xxxxxxxx}
user_management:
  password_length: 4
  role_mappings: [{claim: groups, pattern: "[unclosed", search_roles: [r]}]
search: {url: "localhost:9200", tls: {ca_file: /nonexistent/ca.pem}}
basic_auth:
  users: [{username: ann, password_hash: plaintext-oops}]
observability: {otel_trace_ratio: 1.5, otel_endpoint: "nope"}
"#;
    let problems = load(yaml, &[]).unwrap_err();
    let keys = problem_keys(&problems);
    for key in [
        "server.read_timeout",
        "server.trusted_proxies[0]",
        "oidc.issuer_url",
        "oidc.redirect_url",
        "oidc.client_id",
        "oidc.client_secret",
        "session.secret",
        "cache.encryption_key",
        "cache.redis_url",
        "user_management.password_length",
        "user_management.role_mappings[0].pattern",
        "search.url",
        "search.tls.ca_file",
        "basic_auth.users[0].password_hash",
        "observability.otel_trace_ratio",
        "observability.otel_endpoint",
    ] {
        assert!(
            keys.iter().any(|k| k == key),
            "{key} missing from {problems}"
        );
    }
    let text = problems.to_string();
    for secret in ["short-secret-value", "only-31-bytes", "plaintext-oops"] {
        assert!(!text.contains(secret), "{secret} leaked: {text}");
    }
}

#[test]
fn bad_enums_and_durations_name_their_keys() {
    let problems = load(
        "server: {mode: sideways, write_timeout: soon}\ncache: {backend: memcached}\nobservability: {log_format: xml}\n",
        &[],
    )
    .unwrap_err();
    let keys = problem_keys(&problems);
    for key in [
        "server.mode",
        "server.write_timeout",
        "cache.backend",
        "observability.log_format",
    ] {
        assert!(
            keys.iter().any(|k| k == key),
            "{key} missing from {problems}"
        );
    }
}

#[test]
fn oidc_keys_have_defaults_and_are_validated() {
    let settings = load("", &[]).unwrap();
    assert_eq!(settings.oidc.scopes, ["openid", "email", "profile"]);
    assert_eq!(settings.oidc.username_claim, "preferred_username");
    assert_eq!(settings.oidc.groups_claim, "groups");
    assert!(settings.tracing().is_none(), "tracing is off by default");

    let yaml = "oidc:\n  enabled: true\n  issuer_url: https://idp.example.com\n  client_id: c\n  \
                redirect_url: https://auth.example.com/auth/callback\n  scopes: [openid, \"bad scope\"]\n  \
                username_claim: \"\"\n  post_logout_redirect_url: not-a-url\n";
    let problems = load(
        yaml,
        &[("OIDC_CLIENT_SECRET", "s"), ("SESSION_SECRET", "short")],
    )
    .unwrap_err();
    let keys = problem_keys(&problems);
    for key in [
        "oidc.scopes[1]",
        "oidc.username_claim",
        "oidc.post_logout_redirect_url",
        "session.secret",
    ] {
        assert!(keys.iter().any(|k| k == key), "{key} not in {keys:?}");
    }

    let traced = load(
        "observability: {otel_enabled: true, otel_endpoint: \"http://c:4318\", otel_trace_ratio: 0.25}",
        &[],
    )
    .unwrap()
    .tracing()
    .expect("tracing on");
    assert_eq!(traced.endpoint, "http://c:4318");
    assert_eq!(traced.service_name, "authproxy");
    assert!((traced.ratio - 0.25).abs() < f64::EPSILON);

    let elsewhere = "oidc:\n  enabled: true\n  issuer_url: https://idp.example.com\n  client_id: c\n  \
                     redirect_url: https://auth.example.com/auth/callback\n  \
                     post_logout_redirect_url: https://evil.example/\n\
                     session: {cookie_domain: .example.com}\n";
    let problems = load(
        elsewhere,
        &[
            ("OIDC_CLIENT_SECRET", "s"),
            ("SESSION_SECRET", "0123456789abcdef0123456789abcdef"),
        ],
    )
    .unwrap_err();
    assert_eq!(problem_keys(&problems), ["oidc.post_logout_redirect_url"]);
    let inside = elsewhere.replace("https://evil.example/", "https://www.example.com/");
    assert!(
        load(
            &inside,
            &[
                ("OIDC_CLIENT_SECRET", "s"),
                ("SESSION_SECRET", "0123456789abcdef0123456789abcdef"),
            ],
        )
        .is_ok()
    );
}
