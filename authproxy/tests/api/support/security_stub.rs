//! The search-cluster security user APIs osmem lacks, in the official wire formats, in front of
//! a real osmem-server:
//!
//! - Elasticsearch: `GET /_security/user/<name>` (200 `{"<name>": {username, roles, full_name,
//!   email, metadata, enabled}}`, 404 `{}`), `PUT|POST /_security/user/<name>` (body `password`,
//!   `roles`, `full_name`, `email`, `metadata`, `enabled`; 200 `{"created": bool}`).
//! - OpenSearch: `GET /_plugins/_security/api/internalusers/<name>` (200 `{"<name>": {hash,
//!   reserved, hidden, backend_roles, attributes, opendistro_security_roles, static}}`, 404
//!   `{"status":"NOT_FOUND","message":"user '<name>' not found."}`), `PUT` (body `password`
//!   or `hash`, `backend_roles`, `opendistro_security_roles`, `attributes`; 201
//!   `{"status":"CREATED","message":"'<name>' created."}` or 200 `{"status":"OK", ...}`).
//!
//! Like a secured cluster, every request needs Basic credentials of the admin or of a user
//! created here (401 with Elasticsearch's `security_exception` body otherwise); every other path
//! is forwarded, streamed, to osmem.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use actix_web::http::StatusCode;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use futures_util::StreamExt;
use serde_json::{Value, json};

pub const ADMIN_USER: &str = "admin";
pub const ADMIN_PASSWORD: &str = "admin-password-for-tests";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    Elasticsearch,
}

#[derive(Debug, Clone)]
pub struct StubUser {
    pub password: String,
    pub roles: Vec<String>,
    /// Elasticsearch `metadata` or OpenSearch `attributes`.
    pub marks: Value,
    pub email: String,
    pub full_name: String,
}

/// A forwarded request as the stub saw it.
#[derive(Debug, Clone)]
pub struct Forwarded {
    pub user: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
}

#[derive(Default)]
struct Inner {
    users: HashMap<String, StubUser>,
    puts: usize,
    forwarded: Vec<Forwarded>,
    /// Users whose every request is refused (a broken or hostile cluster).
    rejected: std::collections::HashSet<String>,
}

#[derive(Clone)]
pub struct SecurityStub {
    pub url: String,
    inner: Arc<Mutex<Inner>>,
    _server: Arc<ServerHandle>,
}

struct ServerHandle(actix_web::dev::ServerHandle);

impl Drop for ServerHandle {
    fn drop(&mut self) {
        let handle = self.0.clone();
        // Stopping is async; fire and forget (the runtime may already be shutting down).
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            drop(runtime.spawn(async move { handle.stop(false).await }));
        }
    }
}

struct StubState {
    inner: Arc<Mutex<Inner>>,
    upstream: String,
    http: reqwest::Client,
}

impl SecurityStub {
    pub fn start(_flavor: Flavor, upstream: &str) -> Self {
        let inner = Arc::new(Mutex::new(Inner::default()));
        let state = web::Data::new(StubState {
            inner: inner.clone(),
            upstream: upstream.trim_end_matches('/').to_owned(),
            http: test_support::http_client(),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = HttpServer::new(move || {
            App::new()
                .app_data(state.clone())
                .app_data(web::PayloadConfig::new(64 * 1024 * 1024))
                .route("/_security/user/{name}", web::get().to(es_get))
                .route("/_security/user/{name}", web::put().to(es_put))
                .route("/_security/user/{name}", web::post().to(es_put))
                .route(
                    "/_plugins/_security/api/internalusers/{name}",
                    web::get().to(os_get),
                )
                .route(
                    "/_plugins/_security/api/internalusers/{name}",
                    web::put().to(os_put),
                )
                .default_service(web::to(forward))
        })
        .workers(2)
        .disable_signals()
        .listen(listener)
        .unwrap()
        .run();
        let handle = server.handle();
        tokio::spawn(server);
        Self {
            url: format!("http://127.0.0.1:{port}"),
            inner,
            _server: Arc::new(ServerHandle(handle)),
        }
    }

    pub fn user(&self, name: &str) -> Option<StubUser> {
        self.inner.lock().unwrap().users.get(name).cloned()
    }

    /// From now on every request as `name` gets 401, whatever its password (even after an
    /// upsert), as a broken cluster would answer.
    pub fn reject_every_request_of(&self, name: &str) {
        self.inner.lock().unwrap().rejected.insert(name.to_owned());
    }

    pub fn puts(&self) -> usize {
        self.inner.lock().unwrap().puts
    }

    pub fn forwarded(&self) -> Vec<Forwarded> {
        self.inner.lock().unwrap().forwarded.clone()
    }
}

/// The Basic user name when the credentials are the admin's or a stub user's.
fn authenticated(state: &StubState, request: &HttpRequest) -> Option<String> {
    let value = request.headers().get("authorization")?.to_str().ok()?;
    let encoded = value.strip_prefix("Basic ")?;
    let decoded = String::from_utf8(STANDARD.decode(encoded).ok()?).ok()?;
    let (user, password) = decoded.split_once(':')?;
    if user == ADMIN_USER && password == ADMIN_PASSWORD {
        return Some(user.to_owned());
    }
    let inner = state.inner.lock().unwrap();
    if inner.rejected.contains(user) {
        return None;
    }
    (inner.users.get(user)?.password == password).then(|| user.to_owned())
}

/// Elasticsearch's 401 for a request it cannot authenticate.
fn unauthenticated(request: &HttpRequest) -> HttpResponse {
    let reason = format!(
        "unable to authenticate user for REST request [{}]",
        request.path()
    );
    HttpResponse::Unauthorized()
        .insert_header((
            "WWW-Authenticate",
            "Basic realm=\"security\" charset=\"UTF-8\"",
        ))
        .json(json!({
            "error": {
                "root_cause": [{"type": "security_exception", "reason": reason}],
                "type": "security_exception",
                "reason": reason,
            },
            "status": 401
        }))
}

fn forbidden(action: &str, user: &str) -> HttpResponse {
    let reason = format!("action [{action}] is unauthorized for user [{user}]");
    HttpResponse::Forbidden().json(json!({
        "error": {
            "root_cause": [{"type": "security_exception", "reason": reason}],
            "type": "security_exception",
            "reason": reason,
        },
        "status": 403
    }))
}

/// Only the admin may use the user APIs.
fn admin_only(state: &StubState, request: &HttpRequest, action: &str) -> Option<HttpResponse> {
    match authenticated(state, request) {
        None => Some(unauthenticated(request)),
        Some(user) if user != ADMIN_USER => Some(forbidden(action, &user)),
        Some(_) => None,
    }
}

async fn es_get(
    state: web::Data<StubState>,
    request: HttpRequest,
    name: web::Path<String>,
) -> HttpResponse {
    if let Some(refusal) = admin_only(&state, &request, "cluster:admin/xpack/security/user/get") {
        return refusal;
    }
    let inner = state.inner.lock().unwrap();
    match inner.users.get(name.as_str()) {
        None => HttpResponse::NotFound().json(json!({})),
        Some(user) => HttpResponse::Ok().json(json!({
            name.as_str(): {
                "username": name.as_str(),
                "roles": user.roles,
                "full_name": user.full_name,
                "email": user.email,
                "metadata": user.marks,
                "enabled": true,
            }
        })),
    }
}

fn illegal_argument(reason: &str) -> HttpResponse {
    HttpResponse::BadRequest().json(json!({
        "error": {
            "root_cause": [{"type": "illegal_argument_exception", "reason": reason}],
            "type": "illegal_argument_exception",
            "reason": reason,
        },
        "status": 400
    }))
}

async fn es_put(
    state: web::Data<StubState>,
    request: HttpRequest,
    name: web::Path<String>,
    body: web::Json<Value>,
) -> HttpResponse {
    if let Some(refusal) = admin_only(&state, &request, "cluster:admin/xpack/security/user/put") {
        return refusal;
    }
    let mut inner = state.inner.lock().unwrap();
    let existing = inner.users.get(name.as_str()).cloned();
    let password = body["password"].as_str().map(str::to_owned);
    let Some(roles) = body["roles"].as_array() else {
        return illegal_argument("roles is required");
    };
    let password = match (password, &existing) {
        (Some(password), _) if password.len() < 6 => {
            return illegal_argument("passwords must be at least [6] characters long");
        }
        (Some(password), _) => password,
        (None, Some(existing)) => existing.password.clone(),
        (None, None) => return illegal_argument("password must be specified"),
    };
    let user = StubUser {
        password,
        roles: roles
            .iter()
            .filter_map(|r| r.as_str().map(str::to_owned))
            .collect(),
        marks: body.get("metadata").cloned().unwrap_or_else(|| json!({})),
        email: body["email"].as_str().unwrap_or_default().to_owned(),
        full_name: body["full_name"].as_str().unwrap_or_default().to_owned(),
    };
    inner.users.insert(name.into_inner(), user);
    inner.puts += 1;
    HttpResponse::Ok().json(json!({"created": existing.is_none()}))
}

async fn os_get(
    state: web::Data<StubState>,
    request: HttpRequest,
    name: web::Path<String>,
) -> HttpResponse {
    if let Some(refusal) = admin_only(&state, &request, "restapi:admin/internalusers") {
        return refusal;
    }
    let inner = state.inner.lock().unwrap();
    match inner.users.get(name.as_str()) {
        None => HttpResponse::NotFound().json(json!({
            "status": "NOT_FOUND",
            "message": format!("user '{}' not found.", name.as_str()),
        })),
        Some(user) => HttpResponse::Ok().json(json!({
            name.as_str(): {
                "hash": "",
                "reserved": false,
                "hidden": false,
                "backend_roles": [],
                "attributes": user.marks,
                "opendistro_security_roles": user.roles,
                "static": false,
            }
        })),
    }
}

async fn os_put(
    state: web::Data<StubState>,
    request: HttpRequest,
    name: web::Path<String>,
    body: web::Json<Value>,
) -> HttpResponse {
    if let Some(refusal) = admin_only(&state, &request, "restapi:admin/internalusers") {
        return refusal;
    }
    let Some(password) = body["password"].as_str() else {
        return HttpResponse::BadRequest().json(json!({
            "status": "BAD_REQUEST",
            "message": "Please specify either 'hash' or 'password' when creating a new internal user.",
        }));
    };
    let mut inner = state.inner.lock().unwrap();
    let created = !inner.users.contains_key(name.as_str());
    let attributes = body.get("attributes").cloned().unwrap_or_else(|| json!({}));
    let user = StubUser {
        password: password.to_owned(),
        roles: body["opendistro_security_roles"]
            .as_array()
            .map(|roles| {
                roles
                    .iter()
                    .filter_map(|r| r.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default(),
        email: attributes["email"].as_str().unwrap_or_default().to_owned(),
        full_name: attributes["full_name"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        marks: attributes,
    };
    inner.users.insert(name.to_string(), user);
    inner.puts += 1;
    let (status, word, verb) = if created {
        (StatusCode::CREATED, "CREATED", "created")
    } else {
        (StatusCode::OK, "OK", "updated")
    };
    HttpResponse::build(status).json(json!({
        "status": word,
        "message": format!("'{}' {verb}.", name.as_str()),
    }))
}

/// Any other path: authenticated, recorded, then streamed to osmem and back.
async fn forward(
    state: web::Data<StubState>,
    request: HttpRequest,
    mut payload: web::Payload,
) -> HttpResponse {
    let Some(user) = authenticated(&state, &request) else {
        return unauthenticated(&request);
    };
    let mut body = Vec::new();
    while let Some(chunk) = payload.next().await {
        match chunk {
            Ok(chunk) => body.extend_from_slice(&chunk),
            Err(_) => return HttpResponse::BadRequest().finish(),
        }
    }
    let headers: Vec<(String, String)> = request
        .headers()
        .iter()
        .map(|(n, v)| (n.as_str().to_owned(), v.to_str().unwrap_or("").to_owned()))
        .collect();
    state.inner.lock().unwrap().forwarded.push(Forwarded {
        user,
        path: request.path().to_owned(),
        headers,
    });
    let url = format!(
        "{}{}",
        state.upstream,
        request.uri().path_and_query().map_or("/", |pq| pq.as_str())
    );
    let method = reqwest::Method::from_bytes(request.method().as_str().as_bytes()).unwrap();
    let mut outbound = state.http.request(method, url).body(body);
    if let Some(content_type) = request.headers().get("content-type") {
        outbound = outbound.header("content-type", content_type.as_bytes());
    }
    match outbound.send().await {
        Ok(response) => {
            let status = StatusCode::from_u16(response.status().as_u16()).unwrap();
            let mut relayed = HttpResponse::build(status);
            if let Some(content_type) = response.headers().get("content-type") {
                relayed.insert_header(("content-type", content_type.as_bytes()));
            }
            relayed.streaming(response.bytes_stream())
        }
        Err(error) => HttpResponse::BadGateway().body(error.to_string()),
    }
}

/// Local users ann (group `admins`) and bob (no group), a role mapping for admins and the
/// default roles, towards `search_url` with the stub's admin.
pub fn stub_users_yaml(search_url: &str, flavor: Flavor) -> String {
    let flavor = match flavor {
        Flavor::Elasticsearch => "elasticsearch",
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
        ann = crate::support::bcrypt_hash(crate::app::ANN_PASSWORD),
        bob = crate::support::bcrypt_hash(crate::app::BOB_PASSWORD),
    )
}

/// osmem behind the security stub, and the proxy in `mode` in front of them.
pub struct StubStack {
    pub app: crate::app::TestApp,
    pub stub: SecurityStub,
    pub _osmem: test_support::Osmem,
}

pub async fn spawn_stub_stack(mode: &str, flavor: Flavor, extra_yaml: &str) -> StubStack {
    spawn_stub_stack_with(mode, flavor, "", extra_yaml).await
}

/// [`spawn_stub_stack`] with `server_yaml` (indented lines) added to the `server:` section.
pub async fn spawn_stub_stack_with(
    mode: &str,
    flavor: Flavor,
    server_yaml: &str,
    extra_yaml: &str,
) -> StubStack {
    let osmem = test_support::Osmem::start();
    let stub = SecurityStub::start(flavor, &osmem.url);
    let yaml = format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  mode: {mode}\n  trusted_proxies: [127.0.0.1]\n{server_yaml}{}{extra_yaml}",
        stub_users_yaml(&stub.url, flavor)
    );
    let app = crate::app::spawn_app(&yaml).await;
    StubStack {
        app,
        stub,
        _osmem: osmem,
    }
}
