//! The wire helpers of the proxy: query parameters as the clusters read them, and the answers
//! it makes itself (the clusters' error body, a cluster whose state is not recovered).

use std::collections::HashMap;

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use serde_json::{Value, json};

pub(crate) fn parse_query(query: &str) -> HashMap<String, String> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (
                percent_decode(&name.replace('+', " ")),
                percent_decode(&value.replace('+', " ")),
            )
        })
        .collect()
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && bytes[i + 1].is_ascii_hexdigit()
            && bytes[i + 2].is_ascii_hexdigit()
        {
            let hex = |b: u8| (b as char).to_digit(16).unwrap_or(0) as u8;
            out.push(hex(bytes[i + 1]) * 16 + hex(bytes[i + 2]));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A JSON answer with `status`, as the clusters send it.
pub(crate) fn json_response(status: u16, body: &Value) -> HttpResponse {
    HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK))
        .content_type("application/json; charset=UTF-8")
        .body(body.to_string())
}

/// The clusters' error body: `{"error":{"root_cause":[..],"type","reason"},"status"}`.
pub(crate) fn es_error(status: u16, kind: &str, reason: &str) -> HttpResponse {
    let cause = json!({"type": kind, "reason": reason});
    let mut error = cause.clone();
    error["root_cause"] = json!([cause]);
    json_response(status, &json!({"error": error, "status": status}))
}

/// The documented answer of a cluster whose state is not recovered yet.
pub(crate) fn not_recovered() -> Value {
    let reason = "blocked by: [SERVICE_UNAVAILABLE/1/state not recovered / initialized];";
    json!({
        "error": {
            "root_cause": [{"type": "cluster_block_exception", "reason": reason}],
            "type": "cluster_block_exception",
            "reason": reason
        },
        "status": 503
    })
}
