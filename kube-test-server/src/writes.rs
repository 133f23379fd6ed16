//! Writes through the API as kubectl sends them: create (POST on the collection), replace (PUT)
//! and delete (DELETE) of ingresses, with the API server's checks and Status answers. Tests in
//! other languages (the web app's browser tests) change the cluster this way.

use actix_web::HttpResponse;
use actix_web::web::{self, Json};
use serde_json::{Map, Value, json};

use crate::kind::Kind;
use crate::{Cluster, wire};

fn ingress_key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

fn conflict(reason: &str, message: String, name: &str) -> Value {
    wire::status(
        409,
        reason,
        &message,
        Some(json!({"name": name, "group": "networking.k8s.io", "kind": "ingresses"})),
    )
}

/// Checks the type meta and namespace of a written object, drops what the server owns, and
/// returns its metadata.name.
fn prepare(object: &mut Value, namespace: &str) -> Result<String, Value> {
    let Some(fields) = object.as_object_mut() else {
        return Err(wire::bad_request("the body must be a JSON object"));
    };
    for (field, expected) in [("apiVersion", "networking.k8s.io/v1"), ("kind", "Ingress")] {
        match fields.remove(field) {
            None => {}
            Some(Value::String(value)) if value == expected => {}
            Some(other) => {
                return Err(wire::bad_request(&format!(
                    "the API version in the data ({other}) does not match the expected API version (networking.k8s.io/v1, Kind=Ingress)"
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
    match metadata.get("name").and_then(Value::as_str) {
        Some(name) if !name.is_empty() => Ok(name.to_owned()),
        _ => Err(wire::status(
            422,
            "Invalid",
            "Ingress.networking.k8s.io \"\" is invalid: metadata.name: Required value: name or generateName is required",
            None,
        )),
    }
}

/// `POST /apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses`
pub(crate) async fn create_ingress(
    cluster: web::Data<Cluster>,
    path: web::Path<String>,
    body: Json<Value>,
) -> HttpResponse {
    if let Some(response) = cluster.faults.injected().await {
        return response;
    }
    let namespace = path.into_inner();
    if cluster.faults.is_namespace_forbidden(&namespace) {
        return wire::status_response(wire::forbidden("create", Kind::Ingress, Some(&namespace)));
    }
    let mut object = body.into_inner();
    if object["metadata"]["resourceVersion"]
        .as_str()
        .is_some_and(|v| !v.is_empty())
    {
        return wire::status_response(wire::bad_request(
            "resourceVersion should not be set on objects to be created",
        ));
    }
    let name = match prepare(&mut object, &namespace) {
        Ok(name) => name,
        Err(status) => return wire::status_response(status),
    };
    // The ingress strategy resets status on create: only controllers write it.
    if let Some(fields) = object.as_object_mut() {
        fields.remove("status");
    }
    let created = {
        let mut store = cluster.store();
        if store.get(Kind::Namespace, &namespace).is_none() {
            return wire::status_response(wire::not_found(Kind::Namespace, &namespace));
        }
        if store
            .get(Kind::Ingress, &ingress_key(&namespace, &name))
            .is_some()
        {
            let message = format!("ingresses.networking.k8s.io \"{name}\" already exists");
            return wire::status_response(conflict("AlreadyExists", message, &name));
        }
        store.put(Kind::Ingress, object)
    };
    let mut response = wire::object_response(Kind::Ingress, &created);
    *response.status_mut() = actix_web::http::StatusCode::CREATED;
    response
}

/// `PUT /apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}`
pub(crate) async fn replace_ingress(
    cluster: web::Data<Cluster>,
    path: web::Path<(String, String)>,
    body: Json<Value>,
) -> HttpResponse {
    if let Some(response) = cluster.faults.injected().await {
        return response;
    }
    let (namespace, name) = path.into_inner();
    if cluster.faults.is_namespace_forbidden(&namespace) {
        return wire::status_response(wire::forbidden("update", Kind::Ingress, Some(&namespace)));
    }
    let mut object = body.into_inner();
    let given_version = object["metadata"]["resourceVersion"]
        .as_str()
        .filter(|v| !v.is_empty())
        .map(str::to_owned);
    match prepare(&mut object, &namespace) {
        Ok(given) if given == name => {}
        Ok(given) => {
            return wire::status_response(wire::bad_request(&format!(
                "the name of the object ({given}) does not match the name on the URL ({name})"
            )));
        }
        Err(status) => return wire::status_response(status),
    }
    let replaced = {
        let mut store = cluster.store();
        let Some(current) = store.get(Kind::Ingress, &ingress_key(&namespace, &name)) else {
            return wire::status_response(wire::not_found(Kind::Ingress, &name));
        };
        if let Some(given) = given_version
            && current["metadata"]["resourceVersion"].as_str() != Some(given.as_str())
        {
            let message = format!(
                "Operation cannot be fulfilled on ingresses.networking.k8s.io \"{name}\": the object has been modified; please apply your changes to the latest version and try again"
            );
            return wire::status_response(conflict("Conflict", message, &name));
        }
        // Status is a subresource: a PUT on the object keeps it. Generation counts spec changes.
        let generation = current["metadata"]["generation"].as_u64().unwrap_or(1);
        let generation = if current["spec"] == object["spec"] {
            generation
        } else {
            generation + 1
        };
        object["metadata"]["generation"] = json!(generation);
        match current.get("status") {
            Some(status) => object["status"] = status.clone(),
            None => {
                if let Some(fields) = object.as_object_mut() {
                    fields.remove("status");
                }
            }
        }
        store.put(Kind::Ingress, object)
    };
    wire::object_response(Kind::Ingress, &replaced)
}

/// `DELETE /apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}`: answers with
/// the object's last state, as the API server does for objects without finalizers.
pub(crate) async fn delete_ingress(
    cluster: web::Data<Cluster>,
    path: web::Path<(String, String)>,
) -> HttpResponse {
    if let Some(response) = cluster.faults.injected().await {
        return response;
    }
    let (namespace, name) = path.into_inner();
    if cluster.faults.is_namespace_forbidden(&namespace) {
        return wire::status_response(wire::forbidden("delete", Kind::Ingress, Some(&namespace)));
    }
    let key = ingress_key(&namespace, &name);
    let deleted = {
        let mut store = cluster.store();
        let Some(current) = store.get(Kind::Ingress, &key) else {
            return wire::status_response(wire::not_found(Kind::Ingress, &name));
        };
        store.delete(Kind::Ingress, &key);
        current
    };
    wire::object_response(Kind::Ingress, &deleted)
}
