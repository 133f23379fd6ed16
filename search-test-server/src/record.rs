//! The requests the server received, for tests to assert what a client sent.

use actix_web::HttpRequest;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

/// One request as received.
#[derive(Debug, Clone, PartialEq)]
pub struct Recorded {
    pub method: String,
    /// The path as sent, percent-encoding kept (`/_tasks/node-1:5/_cancel`).
    pub path: String,
    /// The raw query string without `?` (empty when there is none).
    pub query: String,
    /// The body: its JSON when it is JSON, its text otherwise (NDJSON), `None` when empty.
    pub body: Option<Value>,
    /// Every header as received, in order: the name in lower case, the value (lossy UTF-8).
    pub headers: Vec<(String, String)>,
}

impl Recorded {
    pub(crate) fn of(request: &HttpRequest, body: &[u8]) -> Self {
        let body = if body.iter().all(u8::is_ascii_whitespace) {
            None
        } else {
            Some(
                serde_json::from_slice(body)
                    .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned())),
            )
        };
        Self {
            method: request.method().as_str().to_owned(),
            path: request.path().to_owned(),
            query: request.query_string().to_owned(),
            body,
            headers: request
                .headers()
                .iter()
                .map(|(name, value)| {
                    let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                    (name.as_str().to_owned(), value)
                })
                .collect(),
        }
    }

    /// The first value of the header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.as_str())
    }

    /// The user of the request's `authorization: Basic` credential: who the upstream was asked
    /// to authenticate (`None` without one).
    pub fn basic_user(&self) -> Option<String> {
        basic_user(self.header("authorization")?)
    }

    /// The value of a query parameter, percent-decoded (`Some("")` for a bare `?flag`).
    pub fn param(&self, name: &str) -> Option<String> {
        crate::wire::parse_query(&self.query).remove(name)
    }
}

/// The user name in a `Basic` authorization value.
pub(crate) fn basic_user(authorization: &str) -> Option<String> {
    let encoded = authorization.strip_prefix("Basic ")?;
    let decoded = String::from_utf8(STANDARD.decode(encoded.trim()).ok()?).ok()?;
    Some(decoded.split_once(':')?.0.to_owned())
}
