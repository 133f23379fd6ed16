//! The HTTP client of one search cluster: one `reqwest` client (connection pool, TLS settings)
//! per cluster, with its credentials applied to every call and never shown to the browser.

use std::future::Future;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use reqwest::header::HeaderValue;
use reqwest::{Method, RequestBuilder};
use secrecy::ExposeSecret;
use serde_json::Value;
use service_kit::client_tls::ClientTls;
use service_kit::relay_client::RelayClient;

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
    /// A management call: any method, an optional JSON body. A 4xx from the cluster becomes
    /// [`Error::RejectedByCluster`] with the same status and the cluster's reason (the caller
    /// asked for something the cluster refuses); 5xx and transport failures as for `get_json`.
    fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> impl Future<Output = Result<Value, Error>> + Send;
    /// `GET` a path whose answer is text (`_cat` lists and help); a 4xx as for [`Self::call`].
    fn get_text(&self, path: &str) -> impl Future<Output = Result<String, Error>> + Send {
        let _ = path;
        async { Err(Error::upstream("This client reads no text.".to_owned())) }
    }
}

const USER_AGENT: &str = concat!("admin-console/", env!("CARGO_PKG_VERSION"));

#[derive(Clone)]
pub struct ClusterClient {
    /// `cluster "id"`, for messages.
    label: String,
    /// For the views, metrics and settings (the console relay has its own client).
    http: reqwest::Client,
    /// The console relay's client (hyper directly; see service-kit's relay_client). It also
    /// joins every URL on this cluster.
    relay: RelayClient,
    /// The `Authorization` value of the configured credentials, built once and marked
    /// sensitive so it is never logged.
    authorization: Option<HeaderValue>,
    timeouts: ClusterTimeouts,
}

impl ClusterClient {
    pub fn new(settings: &ClusterSettings) -> anyhow::Result<Self> {
        let tls = ClientTls::load(&settings.tls)?;
        if tls.skips_verification() {
            tracing::warn!(cluster = %settings.id, "TLS verification is off for this cluster");
        }
        let connect_timeout = settings.timeouts.connect;
        let base = reqwest::Url::parse(&settings.url)
            .map_err(|error| anyhow::anyhow!("the URL {}: {error}", settings.url))?;
        let relay = RelayClient::new(base.as_str(), &tls, connect_timeout);
        let builder = reqwest::Client::builder()
            .connect_timeout(connect_timeout)
            .pool_idle_timeout(Duration::from_secs(60))
            .redirect(reqwest::redirect::Policy::none())
            // No retries by the client: a PUT must not run twice.
            .retry(reqwest::retry::never().max_retries_per_request(0))
            .user_agent(USER_AGENT);
        Ok(Self {
            label: format!("cluster \"{}\"", settings.id),
            relay,
            http: tls.apply(builder).build()?,
            authorization: settings.auth.as_ref().map(authorization),
            timeouts: settings.timeouts.clone(),
        })
    }

    pub fn label(&self) -> &str {
        &self.label
    }

    pub fn timeouts(&self) -> &ClusterTimeouts {
        &self.timeouts
    }

    /// The URL of `path` (which may carry a query string) on this cluster, below the
    /// configured URL's own path (a cluster behind a path prefix keeps it).
    pub fn url_of(&self, path: &str) -> String {
        match path.split_once('?') {
            Some((path, query)) => self.relay.url(path, Some(query)),
            None => self.relay.url(path, None),
        }
    }

    pub fn relay_client(&self) -> &RelayClient {
        &self.relay
    }

    /// The head of a relayed request to `path` (empty or starting with `/`, already checked
    /// and percent-encoded, as it came in) and `query`, with this cluster's credentials.
    pub fn relay_request(
        &self,
        method: http::Method,
        path: &str,
        query: Option<&str>,
    ) -> Result<http::request::Builder, Error> {
        let uri = self.relay.uri(path, query).map_err(|error| {
            Error::BadRequest(format!("The console path is not valid: {error}."))
        })?;
        let mut builder = http::Request::builder()
            .method(method)
            .uri(uri)
            .header(http::header::USER_AGENT, USER_AGENT);
        if let Some(value) = &self.authorization {
            builder = builder.header(http::header::AUTHORIZATION, value.clone());
        }
        Ok(builder)
    }

    /// A request with this cluster's credentials and no time-out of its own.
    pub fn request(&self, method: Method, path: &str) -> RequestBuilder {
        let builder = self.http.request(method, self.url_of(path));
        match &self.authorization {
            None => builder,
            Some(value) => builder.header(reqwest::header::AUTHORIZATION, value.clone()),
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
            .map_err(|error| Error::from_reqwest(&self.label, error))?;
        self.json_of(response).await
    }

    /// A 4xx answer: the cluster refused what was asked, with its status and reason.
    fn refused(&self, status: reqwest::StatusCode, body: &[u8]) -> Error {
        Error::RejectedByCluster {
            status: actix_web::http::StatusCode::from_u16(status.as_u16())
                .unwrap_or(actix_web::http::StatusCode::BAD_REQUEST),
            message: format!(
                "The {} refused the call ({status}): {}",
                self.label,
                error_reason(body)
            ),
        }
    }

    async fn json_of(&self, response: reqwest::Response) -> Result<Value, Error> {
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, error))?;
        if !status.is_success() {
            return Err(Error::upstream(format!(
                "The {} answered {status}: {}",
                self.label,
                error_reason(&body)
            )));
        }
        serde_json::from_slice(&body).map_err(|error| {
            Error::upstream_because(
                format!("The {} answered with bad JSON: {error}.", self.label),
                error,
            )
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
            .map_err(|error| Error::from_reqwest(&self.label, error))?;
        self.json_of(response).await
    }

    async fn call(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value, Error> {
        let mut request = self
            .request(method, path)
            .header(reqwest::header::ACCEPT, "application/json")
            .timeout(self.timeouts.request);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request
            .send()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, error))?;
        let status = response.status();
        if status.is_client_error() {
            let body = response
                .bytes()
                .await
                .map_err(|error| Error::from_reqwest(&self.label, error))?;
            return Err(self.refused(status, &body));
        }
        self.json_of(response).await
    }

    async fn get_text(&self, path: &str) -> Result<String, Error> {
        let response = self
            .request(Method::GET, path)
            .timeout(self.timeouts.request)
            .send()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, error))?;
        let status = response.status();
        let body = response
            .bytes()
            .await
            .map_err(|error| Error::from_reqwest(&self.label, error))?;
        if status.is_client_error() {
            return Err(self.refused(status, &body));
        }
        if !status.is_success() {
            return Err(Error::upstream(format!(
                "The {} answered {status}: {}",
                self.label,
                error_reason(&body)
            )));
        }
        Ok(String::from_utf8_lossy(&body).into_owned())
    }
}

fn authorization(auth: &ClusterAuth) -> HeaderValue {
    let value = if let Some(key) = &auth.api_key {
        format!("ApiKey {}", key.expose_secret())
    } else if let Some(token) = &auth.bearer_token {
        format!("Bearer {}", token.expose_secret())
    } else {
        let username = auth.username.as_deref().unwrap_or_default();
        let password = auth.password.as_ref().map_or("", |p| p.expose_secret());
        format!(
            "Basic {}",
            STANDARD.encode(format!("{username}:{password}"))
        )
    };
    let mut value = HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static(""));
    value.set_sensitive(true);
    value
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

    fn client(url: &str, auth: serde_json::Value) -> ClusterClient {
        service_kit::install_crypto_provider();
        let settings: ClusterSettings = serde_json::from_value(
            serde_json::json!({"id": "c", "name": "C", "url": url, "auth": auth}),
        )
        .unwrap();
        ClusterClient::new(&settings).unwrap()
    }

    #[test]
    fn paths_and_queries_go_below_the_configured_url() {
        let plain = client("http://127.0.0.1:9200", Value::Null);
        let prefixed = client("https://search.example/es/", Value::Null);
        for (cluster, path, url) in [
            (&plain, "", "http://127.0.0.1:9200/"),
            (
                &plain,
                "/_cluster/health",
                "http://127.0.0.1:9200/_cluster/health",
            ),
            (
                &plain,
                "_cat/indices?format=json&h=index",
                "http://127.0.0.1:9200/_cat/indices?format=json&h=index",
            ),
            (
                &plain,
                "/logs-*/_search?q=a%20b",
                "http://127.0.0.1:9200/logs-*/_search?q=a%20b",
            ),
            (&prefixed, "", "https://search.example/es/"),
            (
                &prefixed,
                "/_nodes/stats?level=x?y",
                "https://search.example/es/_nodes/stats?level=x?y",
            ),
        ] {
            assert_eq!(cluster.url_of(path), url, "{path}");
        }
    }

    #[test]
    fn credentials_become_one_sensitive_authorization_value() {
        for (auth, expected) in [
            (
                serde_json::json!({"username": "elastic", "password": "pw"}),
                "Basic ZWxhc3RpYzpwdw==",
            ),
            (serde_json::json!({"api_key": "a2V5"}), "ApiKey a2V5"),
            (serde_json::json!({"bearer_token": "t"}), "Bearer t"),
        ] {
            let value = client("http://h:9200", auth).authorization.unwrap();
            assert_eq!(value.to_str().unwrap(), expected);
            assert!(value.is_sensitive());
        }
    }

    #[test]
    fn error_reasons_come_from_the_documented_error_body() {
        let body = br#"{"error":{"root_cause":[{"type":"x","reason":"inner"}],"type":"x","reason":"outer"},"status":400}"#;
        assert_eq!(error_reason(body), "outer");
        assert_eq!(error_reason(br#"{"error":"plain","status":405}"#), "plain");
        assert_eq!(error_reason(b"oops"), "oops");
        assert_eq!(error_reason(b""), "(empty body)");
    }
}
