//! The HTTP client of one search cluster: one `reqwest` client (connection pool, TLS settings)
//! per cluster, with its credentials applied to every call and never shown to the browser.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderValue};
use reqwest::{Method, RequestBuilder};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use crate::config::{ClusterAuth, ClusterSettings, ClusterTimeouts};
use crate::error::Error;

/// What the cluster views and the metrics need from a cluster: JSON in, JSON out.
pub trait ClusterApi: Send + Sync {
    /// `GET` a path (with its query string) and parse the JSON answer.
    fn get_json(&self, path: &str) -> impl Future<Output = Result<Value, Error>> + Send;
    /// `PUT` a JSON body to a path and parse the JSON answer.
    fn put_json(
        &self,
        path: &str,
        body: &Value,
    ) -> impl Future<Output = Result<Value, Error>> + Send;
}

/// Credentials, already checked by the configuration's validation.
#[derive(Clone)]
enum Credentials {
    Basic {
        username: String,
        password: SecretString,
    },
    /// The complete `Authorization` value, marked sensitive so it is never logged.
    Header(HeaderValue),
}

#[derive(Clone)]
pub struct ClusterClient {
    /// `cluster "id"`, for messages.
    label: String,
    /// The configured URL without its trailing slash; paths are appended after a `/`.
    base: String,
    http: PerThreadClient,
    credentials: Option<Credentials>,
    timeouts: ClusterTimeouts,
}

impl ClusterClient {
    pub fn new(settings: &ClusterSettings) -> anyhow::Result<Self> {
        let tls = TlsMaterial::load(settings)?;
        if settings.tls.insecure_skip_verify {
            tracing::warn!(cluster = %settings.id, "TLS verification is off for this cluster");
        }
        let connect_timeout = settings.timeouts.connect;
        let build = move || -> reqwest::Result<reqwest::Client> {
            let mut builder = reqwest::Client::builder()
                .connect_timeout(connect_timeout)
                .pool_idle_timeout(Duration::from_secs(60))
                .pool_max_idle_per_host(256)
                .redirect(reqwest::redirect::Policy::none())
                .user_agent(concat!("admin-console/", env!("CARGO_PKG_VERSION")));
            if !tls.roots.is_empty() {
                builder = builder.tls_certs_merge(tls.roots.clone());
            }
            if let Some(identity) = &tls.identity {
                builder = builder.identity(identity.clone());
            }
            builder
                .tls_danger_accept_invalid_certs(tls.insecure)
                .build()
        };
        let shared = build()?;
        Ok(Self {
            label: format!("cluster \"{}\"", settings.id),
            base: settings.url.trim_end_matches('/').to_owned(),
            http: PerThreadClient {
                key: NEXT_CLIENT_KEY.fetch_add(1, Ordering::Relaxed),
                shared,
                build: Arc::new(build),
            },
            credentials: settings.auth.as_ref().map(credentials),
            timeouts: settings.timeouts.clone(),
        })
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn timeouts(&self) -> &ClusterTimeouts {
        &self.timeouts
    }

    /// The URL of `path` (which may carry a query string) on this cluster.
    pub fn url_of(&self, path: &str) -> String {
        format!("{}/{}", self.base, path.trim_start_matches('/'))
    }

    /// A request with this cluster's credentials and no time-out of its own.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let builder = self.http.get().request(method, self.url_of(path));
        match &self.credentials {
            None => builder,
            Some(Credentials::Basic { username, password }) => {
                builder.basic_auth(username, Some(password.expose_secret()))
            }
            Some(Credentials::Header(value)) => {
                let mut headers = HeaderMap::new();
                headers.insert(reqwest::header::AUTHORIZATION, value.clone());
                builder.headers(headers)
            }
        }
    }

    /// `GET` with a time-out other than the usual request one (the list's health probe).
    pub async fn get_json_within(&self, path: &str, timeout: Duration) -> Result<Value, Error> {
        let response = self
            .request(Method::GET, path)
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(timeout)
            .send()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, &error))?;
        self.json_of(response).await
    }

    async fn json_of(&self, response: reqwest::Response) -> Result<Value, Error> {
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, &error))?;
        if !status.is_success() {
            return Err(Error::Upstream(format!(
                "The {} answered {status}: {}",
                self.label,
                error_reason(&body)
            )));
        }
        serde_json::from_slice(&body).map_err(|error| {
            Error::Upstream(format!(
                "The {} answered with bad JSON: {error}.",
                self.label
            ))
        })
    }
}

impl ClusterApi for ClusterClient {
    async fn get_json(&self, path: &str) -> Result<Value, Error> {
        self.get_json_within(path, self.timeouts.request).await
    }

    async fn put_json(&self, path: &str, body: &Value) -> Result<Value, Error> {
        let response = self
            .request(Method::PUT, path)
            .json(body)
            .timeout(self.timeouts.request)
            .send()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, &error))?;
        self.json_of(response).await
    }
}

/// The CA certificates and client identity, read once at start.
struct TlsMaterial {
    roots: Vec<reqwest::Certificate>,
    identity: Option<reqwest::Identity>,
    insecure: bool,
}

impl TlsMaterial {
    fn load(settings: &ClusterSettings) -> anyhow::Result<Self> {
        let tls = &settings.tls;
        let read = |path: &std::path::Path| {
            std::fs::read(path)
                .map_err(|error| anyhow::anyhow!("reading {}: {error}", path.display()))
        };
        let roots = match &tls.ca_file {
            Some(path) => reqwest::Certificate::from_pem_bundle(&read(path)?)
                .map_err(|error| anyhow::anyhow!("{} is not PEM: {error}", path.display()))?,
            None => Vec::new(),
        };
        let identity = match (&tls.client_cert_file, &tls.client_key_file) {
            (Some(cert), Some(key)) => {
                let mut pem = read(cert)?;
                pem.push(b'\n');
                pem.extend(read(key)?);
                Some(
                    reqwest::Identity::from_pem(&pem)
                        .map_err(|error| anyhow::anyhow!("client certificate or key: {error}"))?,
                )
            }
            _ => None,
        };
        Ok(Self {
            roots,
            identity,
            insecure: tls.insecure_skip_verify,
        })
    }
}

static NEXT_CLIENT_KEY: AtomicU64 = AtomicU64::new(0);

type BuildClient = dyn Fn() -> reqwest::Result<reqwest::Client> + Send + Sync;

/// One reqwest client (and so one connection pool) per thread and cluster. Each actix worker
/// runs its own runtime; a connection opened on one worker and used from another would wake
/// both threads for every request.
#[derive(Clone)]
struct PerThreadClient {
    key: u64,
    shared: reqwest::Client,
    build: Arc<BuildClient>,
}

impl PerThreadClient {
    fn get(&self) -> reqwest::Client {
        thread_local! {
            static CLIENTS: RefCell<HashMap<u64, reqwest::Client>> = RefCell::new(HashMap::new());
        }
        CLIENTS.with(|clients| {
            clients
                .borrow_mut()
                .entry(self.key)
                .or_insert_with(|| (self.build)().unwrap_or_else(|_| self.shared.clone()))
                .clone()
        })
    }
}

fn credentials(auth: &ClusterAuth) -> Credentials {
    let header = |scheme: &str, secret: &SecretString| {
        let mut value = HeaderValue::from_str(&format!("{scheme} {}", secret.expose_secret()))
            .unwrap_or_else(|_| HeaderValue::from_static(""));
        value.set_sensitive(true);
        Credentials::Header(value)
    };
    if let Some(key) = &auth.api_key {
        header("ApiKey", key)
    } else if let Some(token) = &auth.bearer_token {
        header("Bearer", token)
    } else {
        Credentials::Basic {
            username: auth.username.clone().unwrap_or_default(),
            password: auth
                .password
                .clone()
                .unwrap_or_else(|| SecretString::from("")),
        }
    }
}

/// The reason of an Elasticsearch/OpenSearch error body, else a short prefix of the body.
pub fn error_reason(body: &[u8]) -> String {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let reason = parsed.as_ref().and_then(|value| {
        value["error"]["reason"]
            .as_str()
            .or_else(|| value["error"]["root_cause"][0]["reason"].as_str())
            .or_else(|| value["error"].as_str())
            .map(str::to_owned)
    });
    reason.unwrap_or_else(|| {
        let text = String::from_utf8_lossy(body);
        let mut short: String = text.chars().take(200).collect();
        if short.is_empty() {
            short = "(empty body)".to_owned();
        }
        short
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_reasons_come_from_the_documented_error_body() {
        let body = br#"{"error":{"root_cause":[{"type":"x","reason":"inner"}],"type":"x","reason":"outer"},"status":400}"#;
        assert_eq!(error_reason(body), "outer");
        assert_eq!(error_reason(br#"{"error":"plain","status":405}"#), "plain");
        assert_eq!(error_reason(b"oops"), "oops");
        assert_eq!(error_reason(b""), "(empty body)");
    }
}
