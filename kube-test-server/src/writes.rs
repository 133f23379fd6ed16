//! Writes through the API as kubectl sends them: create (POST on the collection), replace (PUT)
//! and delete (DELETE) of any namespaced kind, with the API server's checks and Status answers.
//! Tests in other languages (the web app's browser tests) change the cluster this way.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use serde_json::{Map, Value, json};

use crate::kind::{Kind, Target};
use crate::{Cluster, admission, wire};

fn key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

fn conflict(kind: Kind, reason: &str, message: String, name: &str) -> Value {
    wire::status(
        409,
        reason,
        &message,
        Some(wire::details(kind.group(), kind.plural(), Some(name))),
    )
}

/// Parses the body, checks its type meta and namespace, drops what the server owns, and
/// returns the object and its metadata.name.
fn prepare(kind: Kind, body: &[u8], namespace: &str) -> Result<(Value, String), Value> {
    let mut object: Value = serde_json::from_slice(body).map_err(|error| {
        wire::bad_request(&format!(
            "{} in version \"{}\" cannot be handled as a {}: {error}",
            kind.name(),
            kind.version(),
            kind.name()
        ))
    })?;
    let Some(fields) = object.as_object_mut() else {
        return Err(wire::bad_request("the body must be a JSON object"));
    };
    for (field, expected) in [("apiVersion", kind.api_version()), ("kind", kind.name())] {
        match fields.remove(field) {
            None => {}
            Some(Value::String(value)) if value == expected => {}
            Some(other) => {
                return Err(wire::bad_request(&format!(
                    "the API version in the data ({other}) does not match the expected API version ({}, Kind={})",
                    kind.api_version(),
                    kind.name()
                )));
            }
        }
    }
    let metadata = fields
        .entry("metadata")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(metadata) = metadata.as_object_mut() else {
        return Err(wire::bad_request("metadata must be an object"));
    };
    match metadata.get("namespace") {
        None | Some(Value::Null) => {}
        Some(Value::String(given)) if given == namespace => {}
        Some(_) => {
            return Err(wire::bad_request(
                "the namespace of the provided object does not match the namespace sent on the request",
            ));
        }
    }
    metadata.insert("namespace".into(), json!(namespace));
    for owned in ["uid", "creationTimestamp", "generation", "managedFields"] {
        metadata.remove(owned);
    }
    let name = match metadata.get("name").and_then(Value::as_str) {
        Some(name) if !name.is_empty() => name.to_owned(),
        _ => {
            return Err(wire::status(
                422,
                "Invalid",
                &format!(
                    "{} is invalid: metadata.name: Required value: name or generateName is required",
                    wire::qualified_name(kind, "")
                ),
                None,
            ));
        }
    };
    admission::validate(kind, &object, &name)?;
    Ok((object, name))
}

/// The parts of an object a write changes, for `metadata.generation`.
fn content(object: &Value) -> Value {
    let mut content = object.clone();
    if let Some(fields) = content.as_object_mut() {
        fields.remove("metadata");
        fields.remove("status");
    }
    content
}

/// `POST .../namespaces/{namespace}/{resource}`
pub(crate) async fn create(cluster: &Cluster, target: Target, body: &[u8]) -> HttpResponse {
    let kind = target.kind;
    let namespace = target.namespace.unwrap_or_default();
    let (mut object, name) = match prepare(kind, body, &namespace) {
        Ok(prepared) => prepared,
        Err(status) => return wire::status_response(status),
    };
    if object["metadata"]["resourceVersion"]
        .as_str()
        .is_some_and(|v| !v.is_empty())
    {
        return wire::status_response(wire::bad_request(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    // A status subresource is reset on create: only controllers write it.
    if kind.has_status()
        && let Some(fields) = object.as_object_mut()
    {
        fields.remove("status");
    }
    admission::default_on_create(kind, &mut object, &namespace, &name);
    let created = {
        let mut store = cluster.store();
        if store.get(Kind::Namespace, &namespace).is_none() {
            return wire::status_response(wire::not_found(Kind::Namespace, &namespace));
        }
        if store.get(kind, &key(&namespace, &name)).is_some() {
            let message = format!("{} \"{name}\" already exists", kind.qualified_resource());
            return wire::status_response(conflict(kind, "AlreadyExists", message, &name));
        }
        if kind == Kind::Ingress {
            admission::default_ingress_class(&mut object, &store.all(Kind::IngressClass));
        }
        store.put(kind, object)
    };
    let mut response = wire::object_response(kind, &created);
    *response.status_mut() = StatusCode::CREATED;
    response
}

/// `PUT .../namespaces/{namespace}/{resource}/{name}`
pub(crate) async fn replace(cluster: &Cluster, target: Target, body: &[u8]) -> HttpResponse {
    let kind = target.kind;
    let namespace = target.namespace.unwrap_or_default();
    let name = target.name.unwrap_or_default();
    let mut object = match prepare(kind, body, &namespace) {
        Ok((object, given)) if given == name => object,
        Ok((_, given)) => {
            return wire::status_response(wire::bad_request(&format!(
                "the name of the object ({given}) does not match the name on the URL ({name})"
            )));
        }
        Err(status) => return wire::status_response(status),
    };
    let given_version = object["metadata"]["resourceVersion"]
        .as_str()
        .filter(|v| !v.is_empty())
        .map(str::to_owned);
    let replaced = {
        let mut store = cluster.store();
        let Some(current) = store.get(kind, &key(&namespace, &name)) else {
            return wire::status_response(wire::not_found(kind, &name));
        };
        if let Some(given) = given_version
            && current["metadata"]["resourceVersion"].as_str() != Some(given.as_str())
        {
            let message = format!(
                "Operation cannot be fulfilled on {} \"{name}\": the object has been modified; please apply your changes to the latest version and try again",
                kind.qualified_resource()
            );
            return wire::status_response(conflict(kind, "Conflict", message, &name));
        }
        if let Err(status) = admission::carry_over(kind, &current, &mut object, &name) {
            return wire::status_response(status);
        }
        admission::default_on_write(kind, &mut object);
        if kind.has_generation() {
            let generation = current["metadata"]["generation"].as_u64().unwrap_or(1);
            let changed = content(&current) != content(&object);
            object["metadata"]["generation"] = json!(generation + u64::from(changed));
        }
        // Status is a subresource: a PUT on the object keeps it.
        if kind.has_status() {
            match current.get("status") {
                Some(status) => object["status"] = status.clone(),
                None => {
                    if let Some(fields) = object.as_object_mut() {
                        fields.remove("status");
                    }
                }
            }
        }
        store.put(kind, object)
    };
    wire::object_response(kind, &replaced)
}

/// `DELETE .../namespaces/{namespace}/{resource}/{name}`: answers a `Status` of success naming
/// the object, as the API server does for objects without finalizers.
pub(crate) async fn delete(cluster: &Cluster, target: Target) -> HttpResponse {
    let kind = target.kind;
    let namespace = target.namespace.unwrap_or_default();
    let name = target.name.unwrap_or_default();
    let key = key(&namespace, &name);
    let deleted = {
        let mut store = cluster.store();
        let Some(current) = store.get(kind, &key) else {
            return wire::status_response(wire::not_found(kind, &name));
        };
        store.delete(kind, &key);
        current
    };
    wire::deleted(kind, &name, &deleted["metadata"]["uid"])
}
