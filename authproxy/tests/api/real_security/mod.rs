//! Managed users against real clusters with security, not the stand-in, in both flavours the
//! proxy speaks:
//!
//! - [`opensearch`]: the secured OpenSearch pinned in versions.env (the security plugin installed
//!   offline, its demo configuration, HTTPS with the demo CA); the proxy (flavor `opensearch`)
//!   creates and updates internal users through `_plugins/_security/api/internalusers`.
//! - [`elasticsearch`]: the secured Elasticsearch 8 (x-pack security, the native realm, HTTPS
//!   with a CA the harness makes, the `elastic` superuser's password bootstrapped into the
//!   keystore); the proxy (flavor `elasticsearch`, the default) creates and updates native users
//!   through `_security/user`, with roles of this suite's own made with `_security/role`.
//!
//! In both the proxy uses the admin credential, relays as the managed users, and the cluster
//! itself enforces the mapped roles. The tests both flavours share are in [`suite`], run by each
//! flavour's module with its [`Flavor`]; what only one flavour has stays in its module. One node
//! per flavour is shared by the tests; each keeps to user and index names of its own.

mod elasticsearch;
mod lifecycle;
mod opensearch;
mod suite;

use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster, Security};

use crate::app::{TestApp, spawn_app};
use crate::support::{basic, bcrypt_hash};

/// Every local user's password at the proxy.
const PASSWORD: &str = "local-password-1";
/// A role of this suite's own: writes to the flavour's indices ([`Flavor::index`]).
const WRITER: &str = "authproxy_real_writer";

/// A role of the other suites' stacks (`crate::app::Stack`): reads every index, monitors the
/// cluster; their default role.
pub(crate) const STACK_READER: &str = "authproxy_stack_reader";

/// What differs between the two clusters' security APIs, and the names each flavour's tests
/// keep to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    /// OpenSearch 2 with the security plugin.
    OpenSearch,
    /// Elasticsearch 8 with x-pack security.
    Elasticsearch,
}

impl Flavor {
    pub(crate) fn distribution(self) -> Distribution {
        match self {
            Self::OpenSearch => Distribution::OpenSearch2Secured,
            Self::Elasticsearch => Distribution::Elasticsearch8Secured,
        }
    }

    /// `search.flavor` in the proxy's configuration.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::OpenSearch => "opensearch",
            Self::Elasticsearch => "elasticsearch",
        }
    }

    /// Who the cluster authenticated, with which roles.
    pub(crate) fn who_path(self) -> &'static str {
        match self {
            Self::OpenSearch => "/_plugins/_security/authinfo",
            Self::Elasticsearch => "/_security/_authenticate",
        }
    }

    /// The security API's path of the user `name`.
    pub(crate) fn user_path(self, name: &str) -> String {
        match self {
            Self::OpenSearch => format!("/_plugins/_security/api/internalusers/{name}"),
            Self::Elasticsearch => format!("/_security/user/{name}"),
        }
    }

    /// The index `real-security-<suffix>` (OpenSearch) or `real-es-security-<suffix>`
    /// (Elasticsearch): the suite's roles cover these.
    fn index(self, suffix: &str) -> String {
        match self {
            Self::OpenSearch => format!("real-security-{suffix}"),
            Self::Elasticsearch => format!("real-es-security-{suffix}"),
        }
    }

    /// The role group `readers` maps to: the built-in `readall` (OpenSearch), or the suite's
    /// own reader of its indices (Elasticsearch).
    fn reader(self) -> &'static str {
        match self {
            Self::OpenSearch => "readall",
            Self::Elasticsearch => "authproxy_real_reader",
        }
    }

    /// A built-in role that may do anything: `superuser` (Elasticsearch), `all_access`
    /// (OpenSearch).
    pub(crate) fn admin_role(self) -> &'static str {
        match self {
            Self::OpenSearch => "all_access",
            Self::Elasticsearch => "superuser",
        }
    }

    /// Group `writers` → [`WRITER`], group `readers` → [`Self::reader`].
    fn mappings(self) -> String {
        format!(
            "\n    - {{claim: groups, pattern: writers, search_roles: [{WRITER}]}}\
             \n    - {{claim: groups, pattern: readers, search_roles: [{}]}}",
            self.reader()
        )
    }

    /// The user name in the answer of [`Self::who_path`].
    pub(crate) fn who_name(self, info: &Value) -> Value {
        match self {
            Self::OpenSearch => info["user_name"].clone(),
            Self::Elasticsearch => info["username"].clone(),
        }
    }

    /// The roles in the answer of [`Self::who_path`]; on OpenSearch without `own_index`, which
    /// the demo configuration maps to every user (`users: ["*"]`).
    pub(crate) fn who_roles(self, info: &Value) -> Value {
        let roles = info["roles"].as_array().cloned().unwrap_or_default();
        match self {
            Self::OpenSearch => Value::Array(
                roles
                    .into_iter()
                    .filter(|role| role != "own_index")
                    .collect(),
            ),
            Self::Elasticsearch => Value::Array(roles),
        }
    }

    /// The roles of a user as the security API has it.
    pub(crate) fn user_roles(self, user: &Value) -> Value {
        match self {
            Self::OpenSearch => user["opendistro_security_roles"].clone(),
            Self::Elasticsearch => user["roles"].clone(),
        }
    }

    /// The e-mail address of a user as the security API has it (OpenSearch keeps it with the
    /// attributes).
    pub(crate) fn user_email(self, user: &Value) -> Value {
        match self {
            Self::OpenSearch => user["attributes"]["email"].clone(),
            Self::Elasticsearch => user["email"].clone(),
        }
    }

    /// The full name of a user as the security API has it.
    pub(crate) fn user_full_name(self, user: &Value) -> Value {
        match self {
            Self::OpenSearch => user["attributes"]["full_name"].clone(),
            Self::Elasticsearch => user["full_name"].clone(),
        }
    }

    /// The free-form data of a user as the security API has it (where the proxy marks its own).
    pub(crate) fn user_metadata(self, user: &Value) -> Value {
        match self {
            Self::OpenSearch => user["attributes"].clone(),
            Self::Elasticsearch => user["metadata"].clone(),
        }
    }

    /// A user's body for the security API: `password`, `roles` and `metadata`.
    pub(crate) fn user_body(self, password: &str, roles: Value, metadata: Value) -> Value {
        match self {
            Self::OpenSearch => json!({
                "password": password,
                "opendistro_security_roles": roles,
                "attributes": metadata
            }),
            Self::Elasticsearch => json!({
                "password": password,
                "roles": roles,
                "metadata": metadata
            }),
        }
    }

    /// The status of a `PUT` that made a new user: 201 (OpenSearch), 200 (Elasticsearch).
    pub(crate) fn user_created(self) -> u16 {
        match self {
            Self::OpenSearch => 201,
            Self::Elasticsearch => 200,
        }
    }

    /// Asserts that `answer` is the cluster's own 403 (its body, not the proxy's) for `action`
    /// by `user`; `what` names the request in the message.
    fn assert_refused(self, answer: &(u16, Value), action: &str, user: &str, what: &str) {
        let (status, body) = answer;
        assert_eq!(*status, 403, "{what}: {body}");
        assert_eq!(body["status"], 403, "{what}: {body}");
        assert_eq!(
            body["error"]["type"], "security_exception",
            "{what}: {body}"
        );
        let reason = body["error"]["reason"].as_str().unwrap_or_default();
        let named = match self {
            Self::OpenSearch => {
                reason.contains(&format!("no permissions for [{action}")) && reason.contains(user)
            }
            Self::Elasticsearch => reason.contains(&format!(
                "action [{action}] is unauthorized for user [{user}]"
            )),
        };
        assert!(named, "{what}: {reason}");
    }
}

/// The shared secured node of a flavour, its security settings and a client that trusts its CA.
pub(crate) struct Node {
    pub(crate) flavor: Flavor,
    pub(crate) url: &'static str,
    pub(crate) security: &'static Security,
    client: reqwest::Client,
}

/// The node of `flavor`, with the suite's roles made once per process.
pub(crate) async fn node(flavor: Flavor) -> Node {
    let cluster = tokio::task::spawn_blocking(move || SearchCluster::shared(flavor.distribution()))
        .await
        .unwrap();
    let security = cluster
        .security
        .as_ref()
        .expect("the secured distribution has security");
    let node = Node {
        flavor,
        url: &cluster.url,
        security,
        client: security.client(),
    };
    match flavor {
        // Once per process: the security API refuses concurrent changes (409 version conflict).
        Flavor::OpenSearch => {
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
                    let (status, body) = node
                        .admin(
                            Method::PUT,
                            &format!("/_plugins/_security/api/roles/{STACK_READER}"),
                            Some(json!({
                                "cluster_permissions": ["cluster_monitor", "cluster_composite_ops_ro"],
                                "index_permissions": [{
                                    "index_patterns": ["*"],
                                    "allowed_actions": ["read", "indices_monitor"]
                                }]
                            })),
                        )
                        .await;
                    assert_eq!(status, 201, "{body}");
                })
                .await;
        }
        Flavor::Elasticsearch => {
            static ROLES: tokio::sync::OnceCell<()> = tokio::sync::OnceCell::const_new();
            ROLES
                .get_or_init(|| async {
                    for (role, privileges) in [
                        (
                            WRITER,
                            json!(["read", "write", "create_index", "view_index_metadata"]),
                        ),
                        (flavor.reader(), json!(["read", "view_index_metadata"])),
                        (
                            STACK_READER,
                            json!(["read", "view_index_metadata", "monitor"]),
                        ),
                    ] {
                        let (status, body) = node
                            .admin(
                                Method::PUT,
                                &format!("/_security/role/{role}"),
                                Some(json!({
                                    "cluster": ["monitor"],
                                    "indices": [{
                                        "names": [if role == STACK_READER {
                                            "*"
                                        } else {
                                            "real-es-security-*"
                                        }],
                                        "privileges": privileges
                                    }]
                                })),
                            )
                            .await;
                        assert_eq!(status, 200, "{body}");
                    }
                })
                .await;
        }
    }
    node
}

impl Node {
    /// `method path` straight to the cluster with `authorization`: the status and the JSON body
    /// (null when it is not JSON).
    pub(crate) async fn call(
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

    /// As the admin (`admin`; on Elasticsearch the `elastic` superuser). On OpenSearch a change
    /// of the security configuration that another one overtook (409 version conflict: the plugin
    /// writes each kind of configuration as one document) is made again, for up to 30 s.
    pub(crate) async fn admin(
        &self,
        method: Method,
        path: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        let authorization = self.security.admin_authorization();
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let answer = self
                .call(&authorization, method.clone(), path, body.clone())
                .await;
            if self.flavor != Flavor::OpenSearch || answer.0 != 409 || Instant::now() > deadline {
                return answer;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The user as the security API has it (404 when there is none).
    pub(crate) async fn user(&self, name: &str) -> (u16, Value) {
        let path = self.flavor.user_path(name);
        let (status, body) = self.admin(Method::GET, &path, None).await;
        (status, body[name].clone())
    }

    /// The cluster's answer to who `authorization` is: the user, its roles (on Elasticsearch
    /// also its realm).
    pub(crate) async fn who(&self, authorization: &str) -> (u16, Value) {
        self.call(authorization, Method::GET, self.flavor.who_path(), None)
            .await
    }
}

async fn send(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

/// A proxy in `mode` towards the node (its flavour, the admin credential, the node's CA as
/// `search.tls`), with the local users `(name, group)`, all with [`PASSWORD`], and `mappings` as
/// its role mappings.
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
         search:\n  url: {url}\n  flavor: {flavor}\n  admin_user: {admin}\n  \
         admin_password: \"{password}\"\n  tls: {tls}\n",
        url = node.url,
        flavor = node.flavor.name(),
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
