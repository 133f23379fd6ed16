//! The wire helpers every handler shares: the request as handlers see it, the answers made
//! here (JSON with `filter_path`, or text), the clusters' error body, times and wildcards.

use std::collections::HashMap;

use actix_web::http::StatusCode;
use actix_web::{HttpResponse, web};
use serde_json::{Map, Value, json};

/// A request as the handlers see it.
pub(crate) struct Call {
    pub(crate) method: String,
    /// Percent-decoded path segments, empty ones dropped.
    pub(crate) segments: Vec<String>,
    pub(crate) params: HashMap<String, String>,
    /// The query string as received.
    pub(crate) raw_query: String,
    pub(crate) body: web::Bytes,
}

impl Call {
    /// The query string without the named parameters, with `?` when anything is left.
    pub(crate) fn query_without(&self, names: &[&str]) -> String {
        let kept: Vec<&str> = self
            .raw_query
            .split('&')
            .filter(|pair| {
                let name = pair.split_once('=').map_or(*pair, |(name, _)| name);
                !pair.is_empty() && !names.contains(&percent_decode(name).as_str())
            })
            .collect();
        if kept.is_empty() {
            String::new()
        } else {
            format!("?{}", kept.join("&"))
        }
    }

    pub(crate) fn param(&self, name: &str) -> Option<&str> {
        self.params.get(name).map(String::as_str)
    }

    /// A boolean query parameter as the clusters read it: present without value or `true`.
    pub(crate) fn flag(&self, name: &str) -> bool {
        matches!(self.param(name), Some("" | "true"))
    }

    /// The JSON body; `Ok(None)` when there is none.
    pub(crate) fn json(&self) -> Result<Option<Value>, Reply> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        serde_json::from_slice(&self.body)
            .map(Some)
            .map_err(|error| {
                es_error(
                    400,
                    "x_content_parse_exception",
                    &format!("Failed to parse the request body: {error}"),
                )
            })
    }
}

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

pub(crate) fn percent_decode(text: &str) -> String {
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

/// An answer made here: JSON (to which `filter_path` applies) or text (`_cat` tables).
pub(crate) enum Reply {
    Json(u16, Value),
    Text(u16, String),
}

impl Reply {
    /// The HTTP answer, with `filter_path` applied and indented when `pretty` was asked.
    pub(crate) fn into_response(self, filter_path: Option<&str>, pretty: bool) -> HttpResponse {
        match self {
            Reply::Json(status, mut body) => {
                if let Some(filter) = filter_path
                    && (200..300).contains(&status)
                {
                    body = apply_filter_path(&body, filter);
                }
                HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK))
                    .content_type("application/json; charset=UTF-8")
                    .body(if pretty {
                        serde_json::to_string_pretty(&body).unwrap_or_default() + "\n"
                    } else {
                        body.to_string()
                    })
            }
            Reply::Text(status, text) => {
                HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::OK))
                    .content_type("text/plain; charset=UTF-8")
                    .body(text)
            }
        }
    }
}

pub(crate) fn json_response(status: u16, body: &Value) -> Reply {
    Reply::Json(status, body.clone())
}

pub(crate) fn ok(body: &Value) -> Reply {
    json_response(200, body)
}

/// The clusters' error body: `{"error":{"root_cause":[..],"type","reason"},"status"}`.
pub(crate) fn es_error(status: u16, kind: &str, reason: &str) -> Reply {
    es_error_with(status, kind, reason, json!({}))
}

/// [`es_error`] with extra fields in the error object (`index`, `resource.id`, …).
pub(crate) fn es_error_with(status: u16, kind: &str, reason: &str, extra: Value) -> Reply {
    let mut cause = json!({"type": kind, "reason": reason});
    if let (Some(cause), Some(extra)) = (cause.as_object_mut(), extra.as_object()) {
        cause.extend(extra.clone());
    }
    let mut error = cause.clone();
    error["root_cause"] = json!([cause]);
    json_response(status, &json!({"error": error, "status": status}))
}

/// 502 when osmem cannot be reached or answers nonsense.
pub(crate) fn upstream_error(error: impl std::fmt::Display) -> Reply {
    es_error(502, "osmem_unreachable", &error.to_string())
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

/// Milliseconds since the epoch.
pub(crate) fn now_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|elapsed| elapsed.as_millis() as u64)
        .unwrap_or(0)
}

/// `2026-11-24T04:18:15.347Z` for a time in milliseconds since the epoch.
pub(crate) fn iso_millis(millis: u64) -> String {
    let (seconds, ms) = (millis / 1000, millis % 1000);
    let (days, rest) = (seconds / 86_400, seconds % 86_400);
    let (hour, minute, second) = (rest / 3600, rest % 3600 / 60, rest % 60);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}.{ms:03}Z")
}

/// Whether `name` matches a pattern with `*` wildcards.
pub(crate) fn wildcard(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// `filter_path` as documented: comma-separated dotted paths, `*` matching one key.
pub(crate) fn apply_filter_path(value: &Value, filter: &str) -> Value {
    let patterns: Vec<Vec<&str>> = filter.split(',').map(|p| p.split('.').collect()).collect();
    keep(
        value,
        &patterns.iter().map(Vec::as_slice).collect::<Vec<_>>(),
    )
    .unwrap_or(json!({}))
}

fn keep(value: &Value, patterns: &[&[&str]]) -> Option<Value> {
    if patterns.iter().any(|pattern| pattern.is_empty()) {
        return Some(value.clone());
    }
    if let Some(items) = value.as_array() {
        let kept: Vec<Value> = items
            .iter()
            .filter_map(|item| keep(item, patterns))
            .collect();
        return (!kept.is_empty()).then_some(Value::Array(kept));
    }
    let object = value.as_object()?;
    let mut out = Map::new();
    for (key, child) in object {
        let rest: Vec<&[&str]> = patterns
            .iter()
            .filter(|pattern| wildcard(pattern[0], key))
            .map(|pattern| &pattern[1..])
            .collect();
        if !rest.is_empty()
            && let Some(kept) = keep(child, &rest)
        {
            out.insert(key.clone(), kept);
        }
    }
    (!out.is_empty()).then_some(Value::Object(out))
}
