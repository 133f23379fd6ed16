//! Managed users against real Elasticsearch 8 with x-pack security (the secured Elasticsearch
//! pinned in versions.env: the native realm, HTTPS with a CA the harness makes, the `elastic`
//! superuser's password bootstrapped into the keystore), not the stand-in: the proxy (flavor
//! `elasticsearch`, the default) creates and updates native users through `_security/user` with
//! the admin credential, relays as them, and the cluster itself enforces the mapped roles. The
//! roles are this suite's own, made with `_security/role`. One node is shared by the tests of
//! this module; each keeps to user and index names of its own.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster, Security};

use crate::app::{TestApp, spawn_app};
use crate::support::{basic, bcrypt_hash};

/// Who the cluster authenticated, with which roles.
const AUTHENTICATE: &str = "/_security/_authenticate";
/// Every local user's password at the proxy.
const PASSWORD: &str = "local-password-1";
/// Reads and writes `real-es-security-*`, and may create those indices.
const WRITER: &str = "authproxy_real_writer";
/// Reads `real-es-security-*` only.
const READER: &str = "authproxy_real_reader";
/// Group `writers` → the writer role, group `readers` → the reader role.
const MAPPINGS: &str = r#"
    - {claim: groups, pattern: writers, search_roles: [authproxy_real_writer]}
    - {claim: groups, pattern: readers, search_roles: [authproxy_real_reader]}"#;

/// The shared secured node, its security settings and a client that trusts its CA.
struct Node {
    url: &'static str,
    security: &'static Security,
    client: reqwest::Client,
}

async fn node() -> Node {
    let cluster =
        tokio::task::spawn_blocking(|| SearchCluster::shared(Distribution::Elasticsearch8Secured))
            .await
            .unwrap();
    let security = cluster
        .security
        .as_ref()
        .expect("the secured distribution has security");
    let node = Node {
        url: &cluster.url,
        security,
        client: security.client(),
    };
    static ROLES: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    ROLES
        .get_or_init(|| async {
            for (role, privileges) in [
                (
                    WRITER,
                    json!(["read", "write", "create_index", "view_index_metadata"]),
                ),
                (READER, json!(["read", "view_index_metadata"])),
            ] {
                let (status, body) = node
                    .admin(
                        Method::PUT,
                        &format!("/_security/role/{role}"),
                        Some(json!({
                            "cluster": ["monitor"],
                            "indices": [{
                                "names": ["real-es-security-*"],
                                "privileges": privileges
                            }]
                        })),
                    )
                    .await;
                assert_eq!(status, 200, "{body}");
            }
        })
        .await;
    node
}

impl Node {
    /// `method path` straight to the cluster with `authorization`: the status and the JSON body
    /// (null when it is not JSON).
    async fn call(
        &self,
        authorization: &str,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.url))
            .header("authorization", authorization);
        if let Some(body) = body {
            request = request.json(&body);
        }
        send(request).await
    }

    /// As the `elastic` superuser.
    async fn admin(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let authorization = self.security.admin_authorization();
        self.call(&authorization, method, path, body).await
    }

    /// The native user as `_security/user` has it (404 when there is none).
    async fn native_user(&self, name: &str) -> (u16, Value) {
        let path = format!("/_security/user/{name}");
        let (status, body) = self.admin(Method::GET, &path, None).await;
        (status, body[name].clone())
    }

    /// The cluster's `_authenticate` for `authorization`: who it authenticated, with which
    /// roles, in which realm.
    async fn who(&self, authorization: &str) -> (u16, Value) {
        self.call(authorization, Method::GET, AUTHENTICATE, None)
            .await
    }
}

async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

/// A proxy in `mode` towards the node (flavor `elasticsearch`, the `elastic` credential, the
/// harness's CA as `search.tls`), with the local users `(name, group)`, all with [`PASSWORD`],
/// and `mappings` as its role mappings.
async fn proxy(node: &Node, mode: &str, users: &[(&str, &str)], mappings: &str) -> TestApp {
    proxy_with_tls(node, mode, users, mappings, true).await
}

async fn proxy_with_tls(
    node: &Node,
    mode: &str,
    users: &[(&str, &str)],
    mappings: &str,
    trust_the_ca: bool,
) -> TestApp {
    let hash = bcrypt_hash(PASSWORD);
    let users: String = users
        .iter()
        .map(|(name, group)| {
            format!(
                "\n    - {{username: {name}, password_hash: \"{hash}\", \
                 email: {name}@example.com, name: \"{name} Real\", groups: [{group}]}}"
            )
        })
        .collect();
    let tls = if trust_the_ca {
        format!("{{ca_file: \"{}\"}}", node.security.ca_file.display())
    } else {
        "{}".to_owned()
    };
    spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, mode: {mode}, trusted_proxies: [127.0.0.1]}}\n\
         basic_auth:\n  users:{users}\n\
         user_management:\n  role_mappings:{mappings}\n\
         search:\n  url: {url}\n  flavor: elasticsearch\n  admin_user: {admin}\n  \
         admin_password: \"{password}\"\n  tls: {tls}\n",
        url = node.url,
        admin = node.security.admin_user,
        password = node.security.admin_password,
    ))
    .await
}

/// `method path` through the proxy as the local user `user`.
async fn through(
    app: &TestApp,
    user: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut request = app
        .client
        .request(method, app.url(path))
        .header("authorization", basic(user, PASSWORD));
    if let Some(body) = body {
        request = request.json(&body);
    }
    send(request).await
}

/// The managed credential a forward_auth proxy answers the check for `user` with.
async fn managed_credential(app: &TestApp, user: &str) -> String {
    let response = app.get_as("/anything", user, PASSWORD).await;
    assert_eq!(response.status(), 200, "{:?}", response.text().await);
    response.headers()["authorization"]
        .to_str()
        .unwrap()
        .to_owned()
}

/// Asserts that `answer` is the cluster's own 403 (its body, not the proxy's) for `action` by
/// `user`.
fn assert_refused(answer: &(u16, Value), action: &str, user: &str) {
    let (status, body) = answer;
    assert_eq!(*status, 403, "{body}");
    assert_eq!(body["status"], 403, "{body}");
    assert_eq!(body["error"]["type"], "security_exception", "{body}");
    let reason = body["error"]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains(&format!(
            "action [{action}] is unauthorized for user [{user}]"
        )),
        "{reason}"
    );
}

#[tokio::test]
async fn a_first_request_creates_the_native_user_and_is_relayed_as_it() {
    let node = node().await;
    assert_eq!(node.native_user("wanda").await.0, 404);
    let app = proxy(&node, "standalone", &[("wanda", "writers")], MAPPINGS).await;

    let (status, info) = through(&app, "wanda", Method::GET, AUTHENTICATE, None).await;
    assert_eq!(status, 200, "{info}");
    // The cluster authenticated the request as the managed user of the native realm, with the
    // mapped role.
    assert_eq!(info["username"], "wanda", "{info}");
    assert_eq!(info["roles"], json!([WRITER]), "{info}");
    assert_eq!(info["authentication_realm"]["type"], "native", "{info}");
    assert_eq!(info["email"], "wanda@example.com", "{info}");
    assert_eq!(info["full_name"], "wanda Real", "{info}");

    let (status, user) = node.native_user("wanda").await;
    assert_eq!(status, 200);
    assert_eq!(user["roles"], json!([WRITER]), "{user}");
    assert_eq!(user["enabled"], true, "{user}");
    assert_eq!(
        user["metadata"],
        json!({"managed_by": "authproxy", "managed_source": "basic"})
    );

    // The cluster answers the relayed calls: an index made, a document indexed and read back.
    let (status, body) = through(
        &app,
        "wanda",
        Method::PUT,
        "/real-es-security-wanda/_doc/1?refresh=true",
        Some(json!({"title": "relayed"})),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = through(
        &app,
        "wanda",
        Method::GET,
        "/real-es-security-wanda/_doc/1",
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["_source"]["title"], "relayed");
    // Outside its index pattern the writer role grants nothing (not even making the index).
    let answer = through(
        &app,
        "wanda",
        Method::PUT,
        "/elsewhere/_doc/1",
        Some(json!({"title": "refused"})),
    )
    .await;
    assert_refused(&answer, "indices:admin/auto_create", "wanda");

    let (_, health) = app.get_json("/_health").await;
    assert_eq!(health["checks"]["search_backend"], "ok", "{health}");
}

#[tokio::test]
async fn a_read_only_user_gets_the_clusters_own_403_for_writes() {
    let node = node().await;
    let (status, body) = node
        .admin(
            Method::PUT,
            "/real-es-security-rosa/_doc/1?refresh=true",
            Some(json!({"title": "kept"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let app = proxy(&node, "standalone", &[("rosa", "readers")], MAPPINGS).await;

    let (status, body) = through(
        &app,
        "rosa",
        Method::GET,
        "/real-es-security-rosa/_search",
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hits"]["total"]["value"], 1, "{body}");

    for (path, action) in [
        ("/real-es-security-rosa/_doc/2", "indices:data/write/index"),
        ("/real-es-security-rosa-new", "indices:admin/create"),
    ] {
        let document = path.contains("_doc").then(|| json!({"title": "refused"}));
        let answer = through(&app, "rosa", Method::PUT, path, document).await;
        assert_refused(&answer, action, "rosa");
    }
    let (status, _) = node
        .admin(Method::GET, "/real-es-security-rosa/_doc/2", None)
        .await;
    assert_eq!(status, 404, "the refused document was not written");
    assert_eq!(node.native_user("rosa").await.1["roles"], json!([READER]));
}

#[tokio::test]
async fn a_changed_role_mapping_replaces_the_roles_and_the_password() {
    let node = node().await;
    let before = proxy(
        &node,
        "forward_auth",
        &[("carl", "staff")],
        &MAPPINGS.replace("writers", "staff"),
    )
    .await;
    let first = managed_credential(&before, "carl").await;
    let (status, info) = node.who(&first).await;
    assert_eq!((status, &info["roles"]), (200, &json!([WRITER])), "{info}");
    let (status, body) = node
        .call(
            &first,
            Method::PUT,
            "/real-es-security-carl/_doc/1",
            Some(json!({"by": "carl"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");

    // The new configuration maps carl's group to the reader role only.
    let after = proxy(
        &node,
        "forward_auth",
        &[("carl", "staff")],
        &MAPPINGS.replace("readers", "staff"),
    )
    .await;
    let second = managed_credential(&after, "carl").await;
    assert_ne!(second, first, "a new password");
    let (_, user) = node.native_user("carl").await;
    assert_eq!(user["roles"], json!([READER]), "{user}");
    // The old password is gone at the cluster, the new one has the new role only.
    assert_eq!(node.who(&first).await.0, 401);
    let (status, info) = node.who(&second).await;
    assert_eq!((status, &info["roles"]), (200, &json!([READER])), "{info}");
    let answer = node
        .call(
            &second,
            Method::PUT,
            "/real-es-security-carl/_doc/2",
            Some(json!({"by": "carl"})),
        )
        .await;
    assert_refused(&answer, "indices:data/write/index", "carl");
}

#[tokio::test]
async fn a_user_deleted_on_the_cluster_is_made_again_after_its_401() {
    let node = node().await;
    let app = proxy(&node, "standalone", &[("dora", "readers")], MAPPINGS).await;
    let (status, info) = through(&app, "dora", Method::GET, AUTHENTICATE, None).await;
    assert_eq!((status, &info["username"]), (200, &json!("dora")), "{info}");

    let (status, body) = node
        .admin(Method::DELETE, "/_security/user/dora", None)
        .await;
    assert_eq!((status, &body["found"]), (200, &json!(true)), "{body}");

    // The cached credential now gets the cluster's 401: the proxy makes the user again and
    // retries once, so the caller sees none of it.
    let (status, info) = through(&app, "dora", Method::GET, AUTHENTICATE, None).await;
    assert_eq!((status, &info["username"]), (200, &json!("dora")), "{info}");
    let (status, user) = node.native_user("dora").await;
    assert_eq!(status, 200);
    assert_eq!(user["metadata"]["managed_by"], "authproxy", "{user}");
}

#[tokio::test]
async fn a_cluster_user_authproxy_did_not_make_is_never_overwritten() {
    let node = node().await;
    let own_password = "quiet-harbor-lamp-2931";
    let (status, body) = node
        .admin(
            Method::PUT,
            "/_security/user/frank",
            Some(json!({
                "password": own_password,
                "roles": [READER],
                "metadata": {"team": "ops"}
            })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // `elastic` is a reserved user of the cluster: a local user of that name must not take it.
    let app = proxy(
        &node,
        "standalone",
        &[("frank", "writers"), ("elastic", "readers")],
        MAPPINGS,
    )
    .await;

    for name in ["frank", "elastic"] {
        let (status, body) = through(&app, name, Method::GET, AUTHENTICATE, None).await;
        assert_eq!(status, 409, "{name}: {body}");
        assert_eq!(body["error"]["code"], "search_user_conflict", "{body}");
    }
    let (_, user) = node.native_user("frank").await;
    assert_eq!(user["metadata"], json!({"team": "ops"}), "{user}");
    assert_eq!(user["roles"], json!([READER]), "{user}");
    assert_eq!(node.who(&basic("frank", own_password)).await.0, 200);
    let (status, info) = node.who(&node.security.admin_authorization()).await;
    assert_eq!(
        (status, &info["roles"]),
        (200, &json!(["superuser"])),
        "{info}"
    );
}

#[tokio::test]
async fn without_the_ca_the_node_is_not_trusted_and_nothing_is_made() {
    let node = node().await;
    let app = proxy_with_tls(&node, "standalone", &[("uma", "readers")], MAPPINGS, false).await;
    let (status, body) = through(&app, "uma", Method::GET, AUTHENTICATE, None).await;
    assert_eq!(status, 503, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("search.tls.ca_file"), "{message}");
    assert_eq!(node.native_user("uma").await.0, 404);
    let (_, health) = app.get_json("/_health").await;
    let check = health["checks"]["search_backend"].to_string();
    assert!(check.contains("not trusted"), "{check}");
}

#[tokio::test]
async fn concurrent_first_requests_all_get_their_users() {
    let node = node().await;
    // Different users at once (each a document of the security index), and one user from
    // several requests at once: every request is relayed as its own user.
    let names = ["ida", "ivo", "ines", "igor", "iris", "ike"];
    let users: Vec<(&str, &str)> = names.iter().map(|name| (*name, "readers")).collect();
    let app = proxy(&node, "standalone", &users, MAPPINGS).await;
    let requests = names.iter().chain(["ida"; 4].iter());
    let started = Instant::now();
    let answers = futures_util::future::join_all(
        requests
            .clone()
            .map(|name| through(&app, name, Method::GET, AUTHENTICATE, None)),
    )
    .await;
    for (name, (status, info)) in requests.zip(answers) {
        assert_eq!((status, &info["username"]), (200, &json!(name)), "{info}");
        assert_eq!(info["roles"], json!([READER]), "{info}");
    }
    for name in names {
        let (status, user) = node.native_user(name).await;
        assert_eq!(status, 200, "{name}");
        assert_eq!(user["roles"], json!([READER]), "{user}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_name_the_cluster_refuses_is_answered_with_the_clusters_reason() {
    let node = node().await;
    // Elasticsearch allows printable ASCII only in user names: an identity named `josé` (a
    // local user here; an OIDC user's claim alike) cannot have a native user.
    let app = proxy(&node, "standalone", &[("josé", "readers")], MAPPINGS).await;
    let (status, body) = through(&app, "josé", Method::GET, AUTHENTICATE, None).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "search_bad_response", "{body}");
    // The cluster's own reason, so that the person and the operator learn why.
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("400 Bad Request"), "{message}");
    assert!(
        message.contains("printable symbols in the Basic Latin (ASCII) block"),
        "{message}"
    );
    assert_eq!(node.native_user("jos%C3%A9").await.0, 404);
}

#[tokio::test]
async fn a_managed_user_disabled_on_the_cluster_stays_disabled() {
    let node = node().await;
    let app = proxy(&node, "standalone", &[("dina", "readers")], MAPPINGS).await;
    let (status, info) = through(&app, "dina", Method::GET, AUTHENTICATE, None).await;
    assert_eq!((status, &info["username"]), (200, &json!("dina")), "{info}");

    // The operator locks the user out on the cluster.
    let (status, body) = node
        .admin(Method::PUT, "/_security/user/dina/_disable", None)
        .await;
    assert_eq!(status, 200, "{body}");

    // The cluster refuses the cached credential; the proxy must not undo the operator's
    // decision by upserting the user with `enabled: true`.
    let (status, body) = through(&app, "dina", Method::GET, AUTHENTICATE, None).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "search_user_disabled", "{body}");
    let (_, user) = node.native_user("dina").await;
    assert_eq!(user["enabled"], false, "{user}");
}
