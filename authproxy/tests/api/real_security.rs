//! Managed users against the real OpenSearch security plugin (the secured OpenSearch pinned in
//! versions.env: the plugin installed offline, its demo configuration, HTTPS with the demo CA),
//! not the stand-in: the proxy creates and updates real internal users through
//! `_plugins/_security/api/internalusers` with the admin credential, relays as them, and the
//! cluster itself enforces the mapped roles. One node is shared by the tests of this module;
//! each keeps to user and index names of its own.

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster, Security};

use crate::app::{TestApp, spawn_app};
use crate::support::{basic, bcrypt_hash};

/// Who the cluster authenticated, with which roles.
const AUTHINFO: &str = "/_plugins/_security/authinfo";
/// Every local user's password at the proxy.
const PASSWORD: &str = "local-password-1";
/// A role of this suite's own: writes to `real-security-*` only.
const WRITER: &str = "authproxy_real_writer";
/// Group `writers` → the writer role, group `readers` → the built-in `readall`.
const MAPPINGS: &str = r#"
    - {claim: groups, pattern: writers, search_roles: [authproxy_real_writer]}
    - {claim: groups, pattern: readers, search_roles: [readall]}"#;

/// The shared secured node, its security settings and a client that trusts its CA.
struct Node {
    url: &'static str,
    security: &'static Security,
    client: reqwest::Client,
}

async fn node() -> Node {
    let cluster =
        tokio::task::spawn_blocking(|| SearchCluster::shared(Distribution::OpenSearch2Secured))
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
    // Once per process: the security API refuses concurrent changes (409 version conflict).
    static WRITER_ROLE: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
    WRITER_ROLE
        .get_or_init(|| async {
            let (status, body) = node
                .admin(
                    Method::PUT,
                    &format!("/_plugins/_security/api/roles/{WRITER}"),
                    Some(json!({
                        "cluster_permissions": ["cluster_composite_ops"],
                        "index_permissions": [{
                            "index_patterns": ["real-security-*"],
                            "allowed_actions": ["crud", "create_index"]
                        }]
                    })),
                )
                .await;
            assert_eq!(status, 201, "{body}");
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

    /// As the admin. A change of the security configuration that another one overtook (409
    /// version conflict: the plugin writes each kind of configuration as one document) is
    /// made again, for up to 30 s.
    async fn admin(&self, method: Method, path: &str, body: Option<Value>) -> (u16, Value) {
        let authorization = self.security.admin_authorization();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let answer = self
                .call(&authorization, method.clone(), path, body.clone())
                .await;
            if answer.0 != 409 || Instant::now() > deadline {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The internal user as the security REST API has it (404 when there is none).
    async fn internal_user(&self, name: &str) -> (u16, Value) {
        let path = format!("/_plugins/_security/api/internalusers/{name}");
        let (status, body) = self.admin(Method::GET, &path, None).await;
        (status, body[name].clone())
    }

    /// The cluster's `authinfo` for `authorization`: who it authenticated, with which roles.
    async fn who(&self, authorization: &str) -> (u16, Value) {
        self.call(authorization, Method::GET, AUTHINFO, None).await
    }
}

/// The security roles `authinfo` lists, but `own_index`: the demo configuration maps that one
/// to every user (`users: ["*"]`).
fn mapped_roles(info: &Value) -> Value {
    let roles = info["roles"].as_array().cloned().unwrap_or_default();
    Value::Array(
        roles
            .into_iter()
            .filter(|role| role != "own_index")
            .collect(),
    )
}

async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

/// A proxy in `mode` towards the node (admin credential, the demo CA as `search.tls`), with the
/// local users `(name, group)`, all with [`PASSWORD`], and `mappings` as its role mappings.
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
         search:\n  url: {url}\n  flavor: opensearch\n  admin_user: {admin}\n  \
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

#[tokio::test]
async fn a_first_request_creates_the_managed_user_and_is_relayed_as_it() {
    let node = node().await;
    assert_eq!(node.internal_user("wanda").await.0, 404);
    let app = proxy(&node, "standalone", &[("wanda", "writers")], MAPPINGS).await;

    let (status, info) = through(&app, "wanda", Method::GET, AUTHINFO, None).await;
    assert_eq!(status, 200, "{info}");
    // The cluster authenticated the request as the managed user, with the mapped role.
    assert_eq!(info["user_name"], "wanda", "{info}");
    assert_eq!(mapped_roles(&info), json!([WRITER]), "{info}");

    let (status, user) = node.internal_user("wanda").await;
    assert_eq!(status, 200);
    assert_eq!(user["opendistro_security_roles"], json!([WRITER]), "{user}");
    assert_eq!(user["backend_roles"], json!([]), "{user}");
    assert_eq!(
        user["attributes"],
        json!({
            "managed_by": "authproxy",
            "managed_source": "basic",
            "email": "wanda@example.com",
            "full_name": "wanda Real"
        })
    );

    // The cluster answers the relayed calls: a document indexed and read back.
    let (status, body) = through(
        &app,
        "wanda",
        Method::PUT,
        "/real-security-wanda/_doc/1?refresh=true",
        Some(json!({"title": "relayed"})),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = through(
        &app,
        "wanda",
        Method::GET,
        "/real-security-wanda/_doc/1",
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["_source"]["title"], "relayed");

    let (_, health) = app.get_json("/_health").await;
    assert_eq!(health["checks"]["search_backend"], "ok", "{health}");
}

#[tokio::test]
async fn a_read_only_user_gets_the_clusters_own_403_for_writes() {
    let node = node().await;
    let (status, body) = node
        .admin(
            Method::PUT,
            "/real-security-rosa/_doc/1?refresh=true",
            Some(json!({"title": "kept"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let app = proxy(&node, "standalone", &[("rosa", "readers")], MAPPINGS).await;

    let (status, body) = through(
        &app,
        "rosa",
        Method::GET,
        "/real-security-rosa/_search",
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hits"]["total"]["value"], 1, "{body}");

    for (path, action) in [
        ("/real-security-rosa/_doc/2", "indices:data/write/index"),
        ("/real-security-rosa-new", "indices:admin/create"),
    ] {
        let document = path.contains("_doc").then(|| json!({"title": "refused"}));
        let (status, body) = through(&app, "rosa", Method::PUT, path, document).await;
        // The cluster's answer (its own body), not one of the proxy's.
        assert_eq!(status, 403, "{path}: {body}");
        assert_eq!(body["status"], 403, "{path}: {body}");
        assert_eq!(
            body["error"]["type"], "security_exception",
            "{path}: {body}"
        );
        let reason = body["error"]["reason"].as_str().unwrap_or_default();
        assert!(
            reason.contains(&format!("no permissions for [{action}")) && reason.contains("rosa"),
            "{path}: {reason}"
        );
    }
    let (status, _) = node
        .admin(Method::GET, "/real-security-rosa/_doc/2", None)
        .await;
    assert_eq!(status, 404, "the refused document was not written");
    assert_eq!(
        node.internal_user("rosa").await.1["opendistro_security_roles"],
        json!(["readall"])
    );
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
    assert_eq!(
        (status, mapped_roles(&info)),
        (200, json!([WRITER])),
        "{info}"
    );
    let (status, body) = node
        .call(
            &first,
            Method::PUT,
            "/real-security-carl/_doc/1",
            Some(json!({"by": "carl"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");

    // The new configuration maps carl's group to readall only.
    let after = proxy(
        &node,
        "forward_auth",
        &[("carl", "staff")],
        &MAPPINGS.replace("readers", "staff"),
    )
    .await;
    let second = managed_credential(&after, "carl").await;
    assert_ne!(second, first, "a new password");
    let (_, user) = node.internal_user("carl").await;
    assert_eq!(
        user["opendistro_security_roles"],
        json!(["readall"]),
        "{user}"
    );
    // The old password is gone at the cluster, the new one has the new role only.
    assert_eq!(node.who(&first).await.0, 401);
    let (status, info) = node.who(&second).await;
    assert_eq!(
        (status, mapped_roles(&info)),
        (200, json!(["readall"])),
        "{info}"
    );
    let (status, body) = node
        .call(
            &second,
            Method::PUT,
            "/real-security-carl/_doc/2",
            Some(json!({"by": "carl"})),
        )
        .await;
    assert_eq!(status, 403, "{body}");
}

#[tokio::test]
async fn a_user_deleted_on_the_cluster_is_made_again_after_its_401() {
    let node = node().await;
    let app = proxy(&node, "standalone", &[("dora", "readers")], MAPPINGS).await;
    let (status, info) = through(&app, "dora", Method::GET, AUTHINFO, None).await;
    assert_eq!(
        (status, &info["user_name"]),
        (200, &json!("dora")),
        "{info}"
    );

    let (status, body) = node
        .admin(
            Method::DELETE,
            "/_plugins/_security/api/internalusers/dora",
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");

    // The cached credential now gets the cluster's 401: the proxy makes the user again and
    // retries once, so the caller sees none of it.
    let (status, info) = through(&app, "dora", Method::GET, AUTHINFO, None).await;
    assert_eq!(
        (status, &info["user_name"]),
        (200, &json!("dora")),
        "{info}"
    );
    let (status, user) = node.internal_user("dora").await;
    assert_eq!(status, 200);
    assert_eq!(user["attributes"]["managed_by"], "authproxy", "{user}");
}

#[tokio::test]
async fn a_cluster_user_authproxy_did_not_make_is_never_overwritten() {
    let node = node().await;
    let own_password = "Quiet-Harbor-Lamp-2931";
    let (status, body) = node
        .admin(
            Method::PUT,
            "/_plugins/_security/api/internalusers/frank",
            Some(json!({
                "password": own_password,
                "opendistro_security_roles": ["readall"],
                "attributes": {"team": "ops"}
            })),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let app = proxy(&node, "standalone", &[("frank", "writers")], MAPPINGS).await;

    let (status, body) = through(&app, "frank", Method::GET, "/", None).await;
    assert_eq!(status, 409, "{body}");
    assert_eq!(body["error"]["code"], "search_user_conflict", "{body}");
    let (_, user) = node.internal_user("frank").await;
    assert_eq!(user["attributes"], json!({"team": "ops"}), "{user}");
    assert_eq!(
        user["opendistro_security_roles"],
        json!(["readall"]),
        "{user}"
    );
    assert_eq!(node.who(&basic("frank", own_password)).await.0, 200);
}

#[tokio::test]
async fn without_the_demo_ca_the_node_is_not_trusted_and_nothing_is_made() {
    let node = node().await;
    let app = proxy_with_tls(&node, "standalone", &[("uma", "readers")], MAPPINGS, false).await;
    let (status, body) = through(&app, "uma", Method::GET, "/", None).await;
    assert_eq!(status, 503, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("search.tls.ca_file"), "{message}");
    assert_eq!(node.internal_user("uma").await.0, 404);
    let (_, health) = app.get_json("/_health").await;
    let check = health["checks"]["search_backend"].to_string();
    assert!(check.contains("not trusted"), "{check}");
}

#[tokio::test]
async fn concurrent_first_requests_of_different_users_all_get_their_users() {
    let node = node().await;
    // The security plugin writes all internal users as one document under optimistic
    // concurrency: at once, all upserts but one are refused with 409 and must be tried again.
    let names = ["ida", "ivo", "ines", "igor", "iris", "ike"];
    let users: Vec<(&str, &str)> = names.iter().map(|name| (*name, "readers")).collect();
    let app = proxy(&node, "standalone", &users, MAPPINGS).await;
    let answers = futures_util::future::join_all(
        names
            .iter()
            .map(|name| through(&app, name, Method::GET, AUTHINFO, None)),
    )
    .await;
    for (name, (status, info)) in names.iter().zip(answers) {
        assert_eq!((status, &info["user_name"]), (200, &json!(name)), "{info}");
        let (status, user) = node.internal_user(name).await;
        assert_eq!(status, 200, "{name}");
        assert_eq!(
            user["opendistro_security_roles"],
            json!(["readall"]),
            "{user}"
        );
    }
}
