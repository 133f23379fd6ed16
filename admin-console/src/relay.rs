//! The console relay: `ANY /api/clusters/:id/proxy/*path` sends the browser's request to the
//! cluster with the configured credentials and streams both bodies through unchanged.

use std::time::Instant;

use actix_web::http::Method;
use actix_web::http::header::{self, HeaderName};
use actix_web::{HttpRequest, HttpResponse, ResponseError, web};
use percent_encoding::percent_decode_str;
use service_kit::relay_client::{RelayedAnswer, empty_body, streamed_body};

use crate::error::Error;
use crate::registry::Cluster;

/// Request headers that describe the body or the wanted answer; everything else (cookies,
/// the browser's own Authorization, Origin…) stays on this side.
const FORWARDED_REQUEST_HEADERS: &[&str] = &[
    "accept",
    "accept-encoding",
    "content-encoding",
    "content-length",
    "content-type",
    "traceparent",
    "tracestate",
    "x-opaque-id",
];

/// The header by which the web app asks for a `GET` with a body, which browsers cannot send:
/// it sends `POST` with `X-Console-Method: GET` and the cluster receives `GET` with the body.
/// Honoured only here, on the relay; the role check and the audit log judge and record the
/// method the cluster receives ([`effective_method`]).
pub(crate) const METHOD_HEADER: &str = "x-console-method";

/// The method the cluster receives: the request's own, or `GET` for a `POST` that carries
/// [`METHOD_HEADER`] with exactly the value `GET`. Any other value, the header on another
/// method, or the header sent twice is a 400: the request is not relayed as something else
/// than it asked.
pub(crate) fn effective_method(
    method: &Method,
    headers: &header::HeaderMap,
) -> Result<Method, Error> {
    let mut values = headers.get_all(HeaderName::from_static(METHOD_HEADER));
    let Some(value) = values.next() else {
        return Ok(method.clone());
    };
    if values.next().is_some() {
        return Err(Error::BadRequest(
            "X-Console-Method is given more than once; send it once, with the value GET."
                .to_owned(),
        ));
    }
    if value.as_bytes() != b"GET" {
        let shown = value.to_str().unwrap_or("(not text)");
        return Err(Error::BadRequest(format!(
            "X-Console-Method accepts only the value GET (a GET with a body, sent as POST), not \"{}\".",
            shown.chars().take(32).collect::<String>()
        )));
    }
    if *method != Method::POST {
        return Err(Error::BadRequest(format!(
            "X-Console-Method: GET is honoured only on a POST (it carries the body of a GET), not on {method}."
        )));
    }
    Ok(Method::GET)
}

const RELAYED_METHODS: [Method; 6] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::PATCH,
    Method::HEAD,
];

/// The path after `/proxy`, checked: it must stay on the cluster. Returns the path (starting
/// with `/`, or empty for the cluster root).
pub fn checked_tail(raw_tail: &str) -> Result<&str, Error> {
    let refuse = |why: &str| {
        Error::ForbiddenPath(format!(
            "The console path is refused: {why}. Give a path on the cluster, such as /_cluster/health."
        ))
    };
    if raw_tail.is_empty() || raw_tail == "/" {
        return Ok(raw_tail);
    }
    let decoded = percent_decode(raw_tail);
    if decoded.contains('\\') {
        return Err(refuse("it contains a backslash"));
    }
    if decoded.starts_with("//") {
        return Err(refuse("it starts with // (a host, not a path)"));
    }
    if decoded.contains("://") {
        return Err(refuse("it contains an absolute URL"));
    }
    let mut segments = decoded.trim_start_matches('/').split('/');
    if segments
        .clone()
        .any(|segment| segment == ".." || segment == ".")
    {
        return Err(refuse("it contains a . or .. segment"));
    }
    if let Some(first) = segments.next() {
        let scheme = first
            .split(':')
            .next()
            .unwrap_or_default()
            .to_ascii_lowercase();
        if first.ends_with(':')
            || (first.contains(':')
                && matches!(
                    scheme.as_str(),
                    "http" | "https" | "file" | "ftp" | "data" | "javascript"
                ))
        {
            return Err(refuse("it starts with a URL scheme"));
        }
    }
    Ok(raw_tail)
}

/// `%XX` decoded for the checks above (invalid escapes are kept as they are), repeatedly:
/// `%252e%252e` becomes `..` on a server that decodes twice.
pub(crate) fn percent_decode(text: &str) -> String {
    let mut decoded = text.to_owned();
    loop {
        let once = percent_decode_str(&decoded)
            .decode_utf8_lossy()
            .into_owned();
        if once == decoded {
            return decoded;
        }
        decoded = once;
    }
}

pub async fn relay(
    request: HttpRequest,
    payload: web::Payload,
    cluster: &Cluster,
) -> Result<HttpResponse, Error> {
    if !RELAYED_METHODS.contains(request.method()) {
        return Err(Error::MethodNotAllowed(format!(
            "The console relays GET, POST, PUT, DELETE, PATCH and HEAD, not {}.",
            request.method()
        )));
    }
    let prefix = format!("/api/clusters/{}/proxy", cluster.id());
    let raw_tail = request
        .uri()
        .path()
        .strip_prefix(&prefix)
        .unwrap_or_default();
    let tail = checked_tail(raw_tail)?;
    let method = effective_method(request.method(), request.headers())?;
    let method = http::Method::from_bytes(method.as_str().as_bytes())
        .map_err(|_| Error::BadRequest("The method is not valid.".to_owned()))?;
    let mut upstream = cluster
        .client
        .relay_request(method, tail, request.uri().query())?;
    if let Some(headers) = upstream.headers_mut() {
        for name in FORWARDED_REQUEST_HEADERS {
            for value in request.headers().get_all(*name) {
                if let Ok(value) = http::HeaderValue::from_bytes(value.as_bytes()) {
                    headers.append(http::HeaderName::from_static(name), value);
                }
            }
        }
    }
    let body = if has_body(&request) {
        streamed_body(payload)
    } else {
        empty_body()
    };
    let upstream = upstream.body(body).map_err(|error| {
        Error::BadRequest(format!("The console request is not valid: {error}."))
    })?;
    let label = cluster.client.label();
    let deadline = tokio::time::Instant::now() + cluster.client.timeouts().relay;
    let started = Instant::now();
    let response = cluster
        .client
        .relay_client()
        .send(upstream, deadline)
        .await
        .map_err(|error| Error::from_relay(label, error))?;
    let elapsed_ms = started.elapsed().as_secs_f64() * 1000.0;
    Ok(relay_response(&request, response, elapsed_ms, label, deadline).await)
}

fn has_body(request: &HttpRequest) -> bool {
    let headers = request.headers();
    let length = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    match length {
        Some(length) => length > 0,
        None => headers.contains_key(header::TRANSFER_ENCODING),
    }
}

/// The cluster's answer with its status, headers (without hop-by-hop ones) and body, plus how
/// long the cluster took to start answering.
async fn relay_response(
    request: &HttpRequest,
    response: http::Response<hyper::body::Incoming>,
    elapsed_ms: f64,
    label: &str,
    deadline: tokio::time::Instant,
) -> HttpResponse {
    let mut answer = RelayedAnswer::new(response);
    answer.response.insert_header((
        HeaderName::from_static("server-timing"),
        format!("upstream;dur={elapsed_ms:.1}"),
    ));
    answer
        .finish(request.method() == Method::HEAD, Some(deadline))
        .await
        .unwrap_or_else(|error| Error::from_relay(label, error).error_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_that_leave_the_cluster_are_refused() {
        for bad in [
            "/../etc/passwd",
            "/a/%2e%2e/b",
            "/a/%252e%252e/b",
            "//evil.example/x",
            "/http://evil.example/",
            "/https:/evil",
            "/a\\b",
            "/./x",
        ] {
            assert!(checked_tail(bad).is_err(), "{bad}");
        }
        for good in [
            "",
            "/",
            "/_cluster/health",
            "/logs-*/_search",
            "/remote:logs/_search",
            "/a%20b",
            "/a%zz/b",
            "/a%2",
        ] {
            assert!(checked_tail(good).is_ok(), "{good}");
        }
    }

    #[test]
    fn the_method_header_turns_only_a_post_into_a_get() {
        let with = |values: &[&str]| {
            let mut headers = header::HeaderMap::new();
            for value in values {
                headers.append(
                    HeaderName::from_static(METHOD_HEADER),
                    header::HeaderValue::from_str(value).unwrap(),
                );
            }
            headers
        };
        assert_eq!(
            effective_method(&Method::POST, &with(&["GET"])).unwrap(),
            Method::GET
        );
        assert_eq!(
            effective_method(&Method::POST, &with(&[])).unwrap(),
            Method::POST
        );
        assert_eq!(
            effective_method(&Method::DELETE, &with(&[])).unwrap(),
            Method::DELETE
        );
        for (method, values) in [
            (Method::POST, &["DELETE"][..]),
            (Method::POST, &["get"][..]),
            (Method::POST, &["GET "][..]),
            (Method::POST, &[""][..]),
            (Method::POST, &["HEAD"][..]),
            (Method::POST, &["GET", "GET"][..]),
            (Method::PUT, &["GET"][..]),
            (Method::GET, &["GET"][..]),
            (Method::DELETE, &["GET"][..]),
        ] {
            let error = effective_method(&method, &with(values)).unwrap_err();
            assert!(
                matches!(error, Error::BadRequest(_)),
                "{method} {values:?}: {error:?}"
            );
        }
    }

    #[test]
    fn decoding_repeats_until_nothing_changes_and_keeps_invalid_escapes() {
        assert_eq!(percent_decode("/a/%25252e%25252e"), "/a/..");
        assert_eq!(percent_decode("/a%zz%2"), "/a%zz%2");
        assert_eq!(percent_decode("/%ff"), "/\u{fffd}");
    }
}
