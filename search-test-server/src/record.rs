//! The requests the server received, for tests to assert what a client sent.

use actix_web::HttpRequest;
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
        }
    }

    /// The value of a query parameter, percent-decoded (`Some("")` for a bare `?flag`).
    pub fn param(&self, name: &str) -> Option<String> {
        crate::wire::parse_query(&self.query).remove(name)
    }
}
