//! The application started in-process on a free port, with the servers it talks to.

use std::collections::HashMap;

use authproxy::{Application, Settings};
use service_kit::config::ConfigLoader;

use crate::support::security_stub::{ADMIN_PASSWORD, ADMIN_USER, Flavor, SecurityStub};
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

    /// The value of one counter (without labels) on `/_metrics`.
    pub async fn counter(&self, name: &str) -> f64 {
        let text = self
            .client
            .get(self.url("/_metrics"))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        text.lines()
            .find_map(|line| {
                let (metric, value) = line.rsplit_once(' ')?;
                (metric == name).then(|| value.parse().ok())?
            })
            .unwrap_or_else(|| panic!("{name} is not on /_metrics:\n{text}"))
    }
}

/// The local users every test configuration has (bcrypt cost 4).
pub const ANN_PASSWORD: &str = "ann-password-1";
pub const BOB_PASSWORD: &str = "bob-password-2";

/// Local users ann (group `admins`) and bob (no group), a role mapping for admins and the
/// default roles, towards `search_url` with the stub's admin.
pub fn users_yaml(search_url: &str, flavor: Flavor) -> String {
    let flavor = match flavor {
        Flavor::Elasticsearch => "elasticsearch",
        Flavor::Opensearch => "opensearch",
    };
    format!(
        r#"basic_auth:
  users:
    - {{username: ann, password_hash: "{ann}", email: ann@example.com, name: Ann Example, groups: [admins, staff]}}
    - {{username: bob, password_hash: "{bob}", email: bob@example.org}}
  max_failures_per_user: 3
  max_failures_per_address: 1000
user_management:
  role_mappings:
    - {{claim: groups, pattern: "admin*", search_roles: [superuser]}}
    - {{claim: email, pattern: "*@example.com", es_roles: [kibana_user]}}
  default_search_roles: [reader]
search:
  url: {search_url}
  flavor: {flavor}
  admin_user: {ADMIN_USER}
  admin_password: {ADMIN_PASSWORD}
"#,
        ann = bcrypt_hash(ANN_PASSWORD),
        bob = bcrypt_hash(BOB_PASSWORD),
    )
}

/// osmem behind the security stub, and the proxy in `mode` in front of them.
pub struct Stack {
    pub app: TestApp,
    pub stub: SecurityStub,
    pub _osmem: test_support::Osmem,
}

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
    let osmem = test_support::Osmem::start();
    let stub = SecurityStub::start(flavor, &osmem.url);
    let yaml = format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  mode: {mode}\n  trusted_proxies: [127.0.0.1]\n{server_yaml}{}{extra_yaml}",
        users_yaml(&stub.url, flavor)
    );
    let app = spawn_app(&yaml).await;
    Stack {
        app,
        stub,
        _osmem: osmem,
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
