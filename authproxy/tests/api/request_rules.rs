//! `authorization.request_rules` against the real secured clusters: a viewer whose mapped role
//! could do anything on the cluster (its built-in admin role) is refused `DELETE` and the
//! security APIs by authproxy itself, before the cluster sees the request; the index is still
//! there afterwards. Path tricks go over a raw socket (an HTTP client would resolve `..` and
//! `.` before sending). Then the forward_auth check behind a real nginx (`auth_request`).

use reqwest::Method;
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::app::{TestApp, spawn_app, unique};
use crate::real_security::{Flavor, Node, node};
use crate::support::{basic, bcrypt_hash, sample_sum};

const PASSWORD: &str = "rules-password-1";

/// Group `viewers` is refused DELETE, the security APIs and cluster-settings writes; group
/// `admins` has no rule.
const RULES: &str = "authorization:\n  request_rules:\n    - groups: [viewers]\n      deny:\n        \
                     - {methods: [DELETE]}\n        \
                     - {paths: [\"/_security/**\", \"/_plugins/_security/**\"]}\n        \
                     - {methods: [PUT, POST], paths: [\"/_cluster/settings\"]}\n";

/// A proxy in `mode` towards `node` with local users `(name, group)`; both groups map to the
/// flavour's all-powerful role, so only the request rules stand between a viewer and the API.
async fn proxy(node: &Node, server: &str, users: &[(&str, &str)]) -> TestApp {
    let hash = bcrypt_hash(PASSWORD);
    let users: String = users
        .iter()
        .map(|(name, group)| {
            format!(
                "\n    - {{username: {name}, password_hash: \"{hash}\", \
                 email: {name}@example.com, groups: [{group}]}}"
            )
        })
        .collect();
    let admin = node.flavor.admin_role();
    spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, trusted_proxies: [127.0.0.1], {server}}}\n\
         basic_auth:\n  users:{users}\n\
         user_management:\n  role_mappings:\n    \
         - {{claim: groups, pattern: viewers, search_roles: [{admin}]}}\n    \
         - {{claim: groups, pattern: admins, search_roles: [{admin}]}}\n\
         search:\n  url: {url}\n  flavor: {flavor}\n  admin_user: {admin_user}\n  \
         admin_password: \"{password}\"\n  tls: {{ca_file: \"{ca}\"}}\n{RULES}",
        url = node.url,
        flavor = node.flavor.name(),
        admin_user = node.security.admin_user,
        password = node.security.admin_password,
        ca = node.security.ca_file.display(),
    ))
    .await
}

/// `method target` sent byte for byte (no client normalises the target), as `user`: the
/// status and the body.
async fn raw(app: &TestApp, user: &str, method: &str, target: &str, extra: &str) -> (u16, String) {
    let address = app.address.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!(
        "{method} {target} HTTP/1.1\r\nHost: {address}\r\nAuthorization: {}\r\n\
         Accept: application/json\r\nContent-Length: 0\r\n{extra}Connection: close\r\n\r\n",
        basic(user, PASSWORD)
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer).into_owned();
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line: {answer:?}"));
    let body = answer
        .split_once("\r\n\r\n")
        .map_or(String::new(), |(_, body)| body.to_owned());
    (status, body)
}

/// The proxy's own 403 (the common body), not the cluster's.
fn assert_refused_by_proxy(answer: &(u16, String), what: &str) {
    assert_eq!(answer.0, 403, "{what}: {}", answer.1);
    assert!(
        answer.1.contains("\"code\":\"forbidden\""),
        "{what}: not authproxy's body: {}",
        answer.1
    );
}

/// `proxy_request_rule_denials_total{rule="request_rules[0]",reason}` on `/_metrics`.
async fn denials(app: &TestApp, reason: &str) -> f64 {
    sample_sum(
        &app.metrics_text().await,
        "proxy_request_rule_denials_total",
        &[("rule", "request_rules[0]"), ("reason", reason)],
    )
}

async fn a_viewer_is_refused_before_the_cluster_sees_the_request(flavor: Flavor) {
    let node = node(flavor).await;
    let index = unique("request-rules");
    let (status, body) = node
        .admin(
            Method::PUT,
            &format!("/{index}/_doc/1?refresh=true"),
            Some(json!({"title": "kept"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let (viewer, admin) = (unique("vic"), unique("ada"));
    let app = proxy(
        &node,
        "mode: standalone",
        &[(&viewer, "viewers"), (&admin, "admins")],
    )
    .await;
    let denied_before = denials(&app, "denied").await;
    let ambiguous_before = denials(&app, "ambiguous_request").await;

    // What no entry denies reaches the cluster.
    let (status, body) = raw(&app, &viewer, "GET", &format!("/{index}/_search"), "").await;
    assert_eq!(status, 200, "{body}");
    // (The body may come chunked: read as text.)
    assert!(body.contains("\"total\":{\"value\":1"), "{body}");

    let who = flavor.who_path();
    let encoded = who.replacen("/_security", "/%5Fsecurity", 1);
    for (method, target) in [
        ("DELETE", format!("/{index}")),
        ("DELETE", format!("/{index}/_doc/1")),
        ("GET", who.to_owned()),
        ("GET", encoded.clone()),
        ("GET", who.to_ascii_uppercase()),
        ("PUT", "/_cluster/settings".to_owned()),
    ] {
        let answer = raw(&app, &viewer, method, &target, "").await;
        assert_refused_by_proxy(&answer, &format!("{method} {target}"));
    }
    // Paths with two readings are refused (they match no entry as written).
    for target in [
        format!("/x/..{who}"),
        format!("/.{who}"),
        format!("/{}", who),
        format!("/x/%2e%2e{who}"),
        format!("/x%2F..{}", who),
        format!("{}%2F..%2F{index}", who),
        who.replacen("/_security", "/_security;x=1", 1),
        encoded.replacen("%5F", "%255F", 1),
    ] {
        let answer = raw(&app, &viewer, "GET", &target, "").await;
        assert_refused_by_proxy(&answer, &format!("GET {target}"));
    }
    // A method override header is refused too (the clusters ignore it; a proxy between might not).
    let answer = raw(
        &app,
        &viewer,
        "POST",
        &format!("/{index}/_search"),
        "X-HTTP-Method-Override: DELETE\r\n",
    )
    .await;
    assert_refused_by_proxy(&answer, "X-HTTP-Method-Override");

    // The index and its document are still there: nothing reached the cluster.
    let (status, body) = node
        .admin(Method::GET, &format!("/{index}/_doc/1"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["_source"]["title"], "kept");

    // Counted by rule index, never by path.
    assert!(denials(&app, "denied").await >= denied_before + 6.0);
    assert!(denials(&app, "ambiguous_request").await >= ambiguous_before + 9.0);

    // The clusters' paths are case-sensitive: upper case reaches no security API even for the
    // admin (matching ignores case only to refuse more).
    let (status, body) = node
        .admin(Method::GET, &who.to_ascii_uppercase(), None)
        .await;
    assert_ne!(status, 200, "{body}");
    // ...and dot segments are not resolved by the clusters (nginx resolves them for itself).
    let (status, body) = raw(&app, &admin, "GET", &format!("/x/..{who}"), "").await;
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("no handler found"), "{body}");

    // An identity no rule applies to is not judged: the cluster answers.
    let (status, body) = raw(&app, &admin, "GET", who, "").await;
    assert_eq!(status, 200, "{body}");

    // The caller sees the rules that apply to them.
    let explained: Value = app
        .get_as("/auth/explain", &viewer, PASSWORD)
        .await
        .json()
        .await
        .unwrap();
    let rules = explained["requestRules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(rules.len(), 1, "{explained}");
    assert!(
        rules[0]
            .as_str()
            .unwrap()
            .starts_with("request_rules[0]: groups [\"viewers\"]; deny DELETE;"),
        "{explained}"
    );
    let explained: Value = app
        .get_as("/auth/explain", &admin, PASSWORD)
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(explained["requestRules"], json!([]), "{explained}");

    // The admin may still delete the index.
    let (status, body) = raw(&app, &admin, "DELETE", &format!("/{index}"), "").await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn a_viewer_is_refused_before_elasticsearch_sees_the_request() {
    a_viewer_is_refused_before_the_cluster_sees_the_request(Flavor::Elasticsearch).await;
}

#[tokio::test]
async fn a_viewer_is_refused_before_opensearch_sees_the_request() {
    a_viewer_is_refused_before_the_cluster_sees_the_request(Flavor::OpenSearch).await;
}

/// Behind nginx `auth_request`, the check judges the original request (`X-Original-URL` and
/// `-Method`): refused requests never reach the application behind nginx.
#[tokio::test]
async fn behind_nginx_the_check_refuses_the_original_request() {
    let node = node(Flavor::Elasticsearch).await;
    let viewer = unique("vic");
    let app = proxy(
        &node,
        "mode: forward_auth, front_proxy: nginx",
        &[(&viewer, "viewers")],
    )
    .await;
    let front = test_support::AuthFront::start(&app.url("/auth/check"), &app.address);
    let send = |method: &str, target: &str| {
        let url = format!("{}{target}", front.url);
        let method = Method::from_bytes(method.as_bytes()).unwrap();
        let request = app
            .client
            .request(method, url)
            .header("authorization", basic(&viewer, PASSWORD));
        async move {
            let response = request.send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.text().await.unwrap())
        }
    };
    let (status, body) = send("GET", "/logs/_search?q=1").await;
    assert_eq!(status, 200, "{body}\n{}", front.error_log());
    assert!(body.contains("uri=/logs/_search?q=1"), "{body}");
    assert!(body.contains("authorization=Basic "), "{body}");

    for (method, target) in [
        ("DELETE", "/logs"),
        ("GET", "/_security/_authenticate"),
        ("GET", "/%5Fsecurity/_authenticate"),
        ("POST", "/_cluster/settings"),
    ] {
        let (status, body) = send(method, target).await;
        assert_eq!(status, 403, "{method} {target}: {body}");
        assert!(
            !body.contains("uri="),
            "{method} {target} reached the app: {body}"
        );
    }
    // nginx resolves `..` for itself, but passes the raw target on (X-Original-URL): refused.
    let address = front.url.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(address).await.unwrap();
    let request = format!(
        "GET /logs/../_security/_authenticate HTTP/1.1\r\nHost: {address}\r\n\
         Authorization: {}\r\nConnection: close\r\n\r\n",
        basic(&viewer, PASSWORD)
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    assert!(!answer.contains("uri="), "{answer}");
}

/// `--validate-config` names every bad pattern and method by key and index (exit 1), and echoes
/// no secret of the file.
#[test]
fn validate_config_names_bad_request_rules() {
    let binary = test_support::binary::ServiceBinary::new(
        env!("CARGO_BIN_EXE_authproxy"),
        "authproxy",
        "/healthz",
    );
    let path = binary.config_file(
        "bad-request-rules.yaml",
        "server: {mode: standalone}\nsearch: {admin_password: \"s3cret-admin-pw\"}\n\
         authorization:\n  request_rules:\n    - groups: [viewers]\n      deny:\n        \
         - {methods: [DELETE, FETCH]}\n        \
         - {paths: [\"/_security/**\", \"_cluster/settings\", \"/x/../_security\", \"/%5Fsecurity\"]}\n        \
         - {}\n",
    );
    let output = binary.run(
        &["--config", path.to_str().unwrap(), "--validate-config"],
        &[],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    for expected in [
        "authorization.request_rules[0].deny[0].methods[1]: must be one of GET",
        "authorization.request_rules[0].deny[1].paths[1]: must start with '/'",
        "authorization.request_rules[0].deny[1].paths[2]: has a dot segment",
        "authorization.request_rules[0].deny[1].paths[3]: must not contain '%'",
        "authorization.request_rules[0].deny[2]: needs methods, paths or both",
    ] {
        assert!(
            stderr.contains(expected),
            "{expected} missing in:\n{stderr}"
        );
    }
    assert!(!stderr.contains("s3cret-admin-pw"), "{stderr}");
    assert!(
        !stderr.contains("paths[0]"),
        "a good entry is not named: {stderr}"
    );
}
