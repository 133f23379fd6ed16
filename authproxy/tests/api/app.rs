//! The application started in-process on a free port, with the servers it talks to: the real
//! secured node of a flavour (Elasticsearch 8 or OpenSearch 2, shared by the tests of this
//! binary, started on first use) behind a recording proxy.
//!
//! The tests share the nodes, so each stack's users have names of their own ([`unique`]); they
//! run in parallel, and a test sees only its own cluster users. Serialising the tests and
//! deleting the users first would also work, but would keep ~60 tests waiting on one another
//! for nothing they share.

use std::collections::HashMap;

use authproxy::{Application, Settings};
use service_kit::config::ConfigLoader;

use std::sync::atomic::{AtomicUsize, Ordering};

use search_test_server::{Proxy, Recorded, Upstream};

use crate::real_security::{Flavor, Node, STACK_READER, node};
use crate::support::{basic, bcrypt_hash};

pub struct TestApp {
    /// The public listener: sign-in, callback, logout, `/_health`, liveness (and in standalone
    /// mode the proxied cluster).
    pub address: String,
    /// The internal listener (`server.internal_port`): `/_metrics` and, in forward_auth mode,
    /// the check; empty when it is not bound.
    pub internal: String,
    /// `server.mode: forward_auth`.
    forward_auth: bool,
    pub client: reqwest::Client,
    pub state: actix_web::web::Data<authproxy::AppState>,
}

/// Starts the application on 127.0.0.1 with a free port and `overrides_yaml` on top of the
/// defaults, the way `main` would.
pub async fn spawn_app(overrides_yaml: &str) -> TestApp {
    spawn_app_with_env(overrides_yaml, HashMap::new()).await
}

pub async fn spawn_app_with_env(overrides_yaml: &str, env: HashMap<String, String>) -> TestApp {
    // A configuration with its own `server:` section sets host and port itself.
    let yaml = if overrides_yaml.contains("server:") {
        overrides_yaml.to_owned()
    } else {
        format!("server:\n  host: 127.0.0.1\n  port: 0\n{overrides_yaml}")
    };
    let mut settings: Settings = ConfigLoader::new("TEST_UNUSED_PREFIX")
        .with_env(env)
        .load_str(&yaml)
        .unwrap_or_else(|problems| panic!("test configuration is invalid:\n{problems}"));
    // A free port for the internal listener too, unless the test chose one.
    if !yaml.contains("internal_port") {
        settings.server.internal_port = 0;
    }
    let forward_auth = format!("{:?}", settings.server.mode) == "ForwardAuth";
    let app = Application::build(settings)
        .await
        .expect("application starts");
    let address = format!("http://127.0.0.1:{}", app.port());
    let internal = app
        .internal_port()
        .map(|port| format!("http://127.0.0.1:{port}"))
        .unwrap_or_default();
    let state = app.state();
    tokio::spawn(app.run_until_stopped());
    TestApp {
        address,
        internal,
        forward_auth,
        client: no_redirects(),
        state,
    }
}

/// A client that shows redirects instead of following them.
pub fn no_redirects() -> reqwest::Client {
    test_support::install_crypto_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// The routes of authproxy's public listener; the tests' sign-in flows use `/auth/callback`.
const PUBLIC_ROUTES: [&str; 5] = [
    "/auth/start",
    "/auth/callback",
    "/auth/logout",
    "/_health",
    "/healthz",
];

impl TestApp {
    /// `path` on the listener it is served on, as the front door and the scraper reach it:
    /// `/_metrics`, and in forward_auth mode every path but the public routes (the check), on
    /// the internal listener; the rest on the public one.
    pub fn url(&self, path: &str) -> String {
        let route = path.split('?').next().unwrap_or(path);
        let internal =
            route == "/_metrics" || (self.forward_auth && !PUBLIC_ROUTES.contains(&route));
        if internal {
            format!("{}{path}", self.internal)
        } else {
            self.public_url(path)
        }
    }

    /// `path` on the public listener, whatever it is.
    pub fn public_url(&self, path: &str) -> String {
        format!("{}{path}", self.address)
    }

    pub async fn get_as(&self, path: &str, user: &str, password: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .header("authorization", basic(user, password))
            .send()
            .await
            .unwrap()
    }

    /// `GET path` without credentials: the status and the JSON body (null if not JSON).
    pub async fn get_json(&self, path: &str) -> (u16, serde_json::Value) {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or_default())
    }

    /// The text of `/_metrics`.
    pub async fn metrics_text(&self) -> String {
        self.client
            .get(self.url("/_metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }

    /// The value of one counter (without labels) on `/_metrics`.
    pub async fn counter(&self, name: &str) -> f64 {
        let text = self.metrics_text().await;
        text.lines()
            .find_map(|line| {
                let (metric, value) = line.rsplit_once(' ')?;
                (metric == name).then(|| value.parse().ok())?
            })
            .unwrap_or_else(|| panic!("{name} is not on /_metrics:\n{text}"))
    }
}

/// The local users' passwords (bcrypt cost 4 in the configurations).
pub const ANN_PASSWORD: &str = "ann-password-1";
pub const BOB_PASSWORD: &str = "bob-password-2";

/// `name-<n>` with a number no other call in this process gets: the tests share one node per
/// flavour, and a cluster user of the same name would be another test's (its password changed
/// under it, its upserts counted twice).
pub fn unique(name: &str) -> String {
    static NEXT: AtomicUsize = AtomicUsize::new(1);
    format!("{name}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// One test's local users under names of their own ([`unique`]): ann (groups `admins` and
/// `staff`, an `example.com` address) and bob (no group, another domain).
pub struct Users {
    pub ann: String,
    pub bob: String,
}

impl Users {
    pub fn new() -> Self {
        Self {
            ann: unique("ann"),
            bob: unique("bob"),
        }
    }

    /// The users at the proxy (at most 3 failures per user), role mappings of `flavor`
    /// (`admin*` groups → [`Flavor::admin_role`], `*@example.com` → `kibana_user`, otherwise
    /// [`STACK_READER`]) and the cluster at `search_url` with `admin`.
    pub fn yaml(&self, search_url: &str, flavor: Flavor, admin: (&str, &str)) -> String {
        format!(
            r#"basic_auth:
  users:
    - {{username: {ann}, password_hash: "{ann_hash}", email: ann@example.com, name: Ann Example, groups: [admins, staff]}}
    - {{username: {bob}, password_hash: "{bob_hash}", email: bob@example.org}}
  max_failures_per_user: 3
  max_failures_per_address: 1000
user_management:
  role_mappings:
    - {{claim: groups, pattern: "admin*", search_roles: [{admin_role}]}}
    - {{claim: email, pattern: "*@example.com", es_roles: [kibana_user]}}
  default_search_roles: [{STACK_READER}]
search:
  url: {search_url}
  flavor: {flavor}
  admin_user: {admin_user}
  admin_password: "{admin_password}"
"#,
            ann = self.ann,
            bob = self.bob,
            ann_hash = bcrypt_hash(ANN_PASSWORD),
            bob_hash = bcrypt_hash(BOB_PASSWORD),
            admin_role = flavor.admin_role(),
            flavor = flavor.name(),
            admin_user = admin.0,
            admin_password = admin.1,
        )
    }

    /// [`Self::yaml`] towards a cluster at `search_url` the test never lets the proxy reach
    /// (closed, or never asked), with a made-up admin.
    pub fn yaml_towards(&self, search_url: &str) -> String {
        self.yaml(
            search_url,
            Flavor::Elasticsearch,
            ("admin", "admin-password"),
        )
    }
}

/// The real secured node of a flavour with a recording proxy of its own in front: what a proxy
/// under test sent through [`Self::recorder`], as whom, is recorded there; the cluster users it
/// made are read back from the node's security API with the admin credential.
pub struct Cluster {
    pub node: Node,
    pub recorder: Proxy,
}

impl Cluster {
    /// The shared node of `flavor` (started on first use) and a new recorder before it.
    pub async fn of(flavor: Flavor) -> Self {
        let node = node(flavor).await;
        let recorder = Proxy::start(Upstream {
            url: node.url.to_owned(),
            ca_file: Some(node.security.ca_file.clone()),
            basic_auth: None,
        });
        Self { node, recorder }
    }

    /// `users` and the cluster sections towards the recorder, with the node's admin.
    pub fn search_yaml(&self, users: &Users) -> String {
        let security = self.node.security;
        users.yaml(
            &self.recorder.url,
            self.node.flavor,
            (&security.admin_user, &security.admin_password),
        )
    }

    /// The cluster user `name` as the security API has it; `None` when there is none.
    pub async fn cluster_user(&self, name: &str) -> Option<serde_json::Value> {
        match self.node.user(name).await {
            (200, user) => Some(user),
            (404, _) => None,
            (status, body) => panic!("reading the cluster user {name}: {status} {body}"),
        }
    }

    /// The requests that reached the cluster as someone other than the admin: what a proxy
    /// forwarded as a managed user (or with a caller's own credential).
    pub fn forwarded(&self) -> Vec<Recorded> {
        let admin = &self.node.security.admin_user;
        self.recorder
            .requests()
            .into_iter()
            .filter(|request| request.basic_user().as_ref() != Some(admin))
            .collect()
    }

    /// How many times a proxy created or changed the cluster user `name` (`PUT` or `POST`).
    pub fn upserts(&self, name: &str) -> usize {
        let path = self.node.flavor.user_path(name);
        self.recorder
            .requests()
            .iter()
            .filter(|request| request.path == path && ["PUT", "POST"].contains(&&*request.method))
            .count()
    }
}

/// A proxy in a mode in front of a [`Cluster`], with [`Users`] of its own.
pub struct Stack {
    pub app: TestApp,
    pub users: Users,
    pub cluster: Cluster,
}

impl std::ops::Deref for Stack {
    type Target = Cluster;

    fn deref(&self) -> &Cluster {
        &self.cluster
    }
}

impl Stack {
    /// The stack's users and cluster sections, for another proxy towards the same recorder.
    pub fn search_yaml(&self) -> String {
        self.cluster.search_yaml(&self.users)
    }
}

/// A proxy in `mode` towards the shared node of `flavor`, with `extra_yaml` appended.
pub async fn spawn_stack(mode: &str, flavor: Flavor, extra_yaml: &str) -> Stack {
    spawn_stack_with(mode, flavor, "", extra_yaml).await
}

/// [`spawn_stack`] with `server_yaml` (indented lines) added to the `server:` section.
pub async fn spawn_stack_with(
    mode: &str,
    flavor: Flavor,
    server_yaml: &str,
    extra_yaml: &str,
) -> Stack {
    spawn_stack_of(Users::new(), mode, flavor, server_yaml, extra_yaml).await
}

/// [`spawn_stack_with`] for `users` made by the test, whose names its `extra_yaml` may name.
pub async fn spawn_stack_of(
    users: Users,
    mode: &str,
    flavor: Flavor,
    server_yaml: &str,
    extra_yaml: &str,
) -> Stack {
    let cluster = Cluster::of(flavor).await;
    let yaml = format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  mode: {mode}\n  trusted_proxies: [127.0.0.1]\n\
         {server_yaml}{}{extra_yaml}",
        cluster.search_yaml(&users)
    );
    let app = spawn_app(&yaml).await;
    Stack {
        app,
        users,
        cluster,
    }
}

#[tokio::test]
async fn liveness_reports_healthy_with_the_version() {
    let app = spawn_app("").await;
    let response = app.client.get(app.url("/healthz")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(
        body,
        serde_json::json!({"status": "healthy", "version": authproxy::VERSION})
    );
}
