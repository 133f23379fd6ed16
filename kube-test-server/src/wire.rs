//! Kubernetes wire formats: `Status` bodies, `List` kinds, watch events, continue tokens and
//! the Accept header of server-side printing
//! (https://kubernetes.io/docs/reference/using-api/api-concepts/).

use std::sync::Arc;

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use k8s_openapi::jiff::{Timestamp, Unit};
use serde_json::{Value, json};

use crate::kind::Kind;

/// Now as RFC 3339 at second precision, formatted once per second (sample sets write tens of
/// thousands of objects in a few seconds).
pub fn now_rfc3339() -> String {
    static LAST: std::sync::Mutex<(i64, String)> = std::sync::Mutex::new((i64::MIN, String::new()));
    let now = now();
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if last.0 != now.as_second() {
        *last = (now.as_second(), format_time(now));
    }
    last.1.clone()
}

pub(crate) fn now() -> Timestamp {
    let seconds = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64);
    Timestamp::from_second(seconds).unwrap_or(Timestamp::UNIX_EPOCH)
}

pub(crate) fn format_time(time: Timestamp) -> String {
    time.round(Unit::Second)
        .unwrap_or(time)
        .strftime("%Y-%m-%dT%H:%M:%SZ")
        .to_string()
}

/// A Status's `details`: the API server leaves out the core group's empty name.
pub fn details(group: &str, kind: &str, name: Option<&str>) -> Value {
    let mut details = json!({"kind": kind});
    if let Some(name) = name {
        details["name"] = json!(name);
    }
    if !group.is_empty() {
        details["group"] = json!(group);
    }
    details
}

/// The `Status` a delete answers once the object is gone (no finalizers to wait for).
pub fn deleted(kind: Kind, name: &str, uid: &Value) -> HttpResponse {
    let mut details = details(kind.group(), kind.plural(), Some(name));
    if !uid.is_null() {
        details["uid"] = uid.clone();
    }
    let body = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Success",
        "details": details,
    });
    HttpResponse::Ok()
        .content_type("application/json")
        .body(body.to_string())
}

/// A `metav1.Status` failure body.
pub fn status(code: u16, reason: &str, message: &str, details: Option<Value>) -> Value {
    let mut body = json!({
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": message,
        "reason": reason,
        "code": code,
    });
    if let Some(details) = details {
        body["details"] = details;
    }
    body
}

pub fn status_response(body: Value) -> HttpResponse {
    let code = body["code"].as_u64().unwrap_or(500) as u16;
    HttpResponse::build(StatusCode::from_u16(code).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .content_type("application/json")
        .body(body.to_string())
}

/// A single object with its type meta, as a get, create, replace or delete answers.
pub fn object_response(kind: Kind, object: &Value) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("application/json")
        .body(with_type_meta(kind, object).to_string())
}

/// 410 Gone with reason `Expired`, for a resourceVersion or continue token older than the
/// compacted history.
pub fn expired(oldest: u64, requested: &str) -> Value {
    status(
        410,
        "Expired",
        &format!("too old resource version: {requested} ({oldest})"),
        None,
    )
}

/// `Ingress.networking.k8s.io "web"`, `Service "web"`: how validation messages name an object.
pub fn qualified_name(kind: Kind, name: &str) -> String {
    match kind.group() {
        "" => format!("{} \"{name}\"", kind.name()),
        group => format!("{}.{group} \"{name}\"", kind.name()),
    }
}

pub fn not_found(kind: Kind, name: &str) -> Value {
    let (group, resource) = (kind.group(), kind.qualified_resource());
    status(
        404,
        "NotFound",
        &format!("{resource} \"{name}\" not found"),
        Some(details(group, kind.plural(), Some(name))),
    )
}

pub fn bad_request(message: &str) -> Value {
    status(400, "BadRequest", message, None)
}

/// A `<Kind>List`. Items carry no `kind`/`apiVersion`, as the API server sends them.
pub fn list(
    kind: Kind,
    revision: u64,
    continue_token: Option<String>,
    remaining: Option<usize>,
    items: &[Arc<Value>],
) -> Value {
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if let Some(token) = continue_token {
        metadata["continue"] = json!(token);
        metadata["remainingItemCount"] = json!(remaining.unwrap_or(0));
    }
    let items: Vec<&Value> = items.iter().map(|item| item.as_ref()).collect();
    json!({
        "kind": format!("{}List", kind.name()),
        "apiVersion": kind.api_version(),
        "metadata": metadata,
        "items": items,
    })
}

/// One line of a watch stream: `{"type": ..., "object": ...}` and a newline.
pub fn watch_event(event_type: &str, object: &Value) -> String {
    let mut line = json!({"type": event_type, "object": object}).to_string();
    line.push('\n');
    line
}

/// A watch object with `kind` and `apiVersion` (which watch events carry, unlike list items).
pub fn with_type_meta(kind: Kind, object: &Value) -> Value {
    let mut typed = json!({"kind": kind.name(), "apiVersion": kind.api_version()});
    if let (Some(typed), Some(fields)) = (typed.as_object_mut(), object.as_object()) {
        for (name, value) in fields {
            typed.insert(name.clone(), value.clone());
        }
    }
    typed
}

pub fn bookmark(kind: Kind, revision: u64, initial_events_end: bool) -> Value {
    let mut metadata = json!({"resourceVersion": revision.to_string()});
    if initial_events_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    json!({"kind": kind.name(), "apiVersion": kind.api_version(), "metadata": metadata})
}

/// An opaque continue token: the snapshot revision and the last key served, hex-encoded JSON.
pub fn encode_continue(revision: u64, last_key: &str) -> String {
    json!({"rv": revision, "start": last_key})
        .to_string()
        .bytes()
        .map(|byte| format!("{byte:02x}"))
        .collect()
}

pub fn decode_continue(token: &str) -> Option<(u64, String)> {
    if !token.len().is_multiple_of(2) {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..token.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(token.get(i..i + 2)?, 16).ok())
        .collect();
    let value: Value = serde_json::from_slice(&bytes?).ok()?;
    Some((value["rv"].as_u64()?, value["start"].as_str()?.to_owned()))
}

/// Whether the client asked for server-side printing (`as=Table`), as kubectl does.
pub fn wants_table(accept: &str) -> bool {
    accept
        .split(',')
        .next()
        .is_some_and(|first| first.contains("as=Table") && first.contains("g=meta.k8s.io"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continue_tokens_round_trip_and_reject_garbage() {
        let token = encode_continue(42, "team-a/web");
        assert_eq!(decode_continue(&token), Some((42, "team-a/web".into())));
        assert_eq!(decode_continue("zz"), None);
        assert_eq!(decode_continue("abc"), None);
    }

    #[test]
    fn kubectl_table_accept_header_is_recognised() {
        assert!(wants_table(
            "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
        ));
        assert!(!wants_table("application/json"));
    }
}
