//! Discovery documents: `/version`, `/api`, `/apis`, `/apis/<group>`, `/api/v1` and
//! `/apis/<group>/<version>`, listing the kinds served now (a custom resource only while its
//! CRD is installed), with verbs, kinds, short names and categories as the real server gives
//! them. Verbs are the ones this server implements (no patch or deletecollection). kubectl asks
//! for aggregated discovery first and falls back to these documents when given them.

use actix_web::web;
use actix_web::{HttpRequest, HttpResponse};
use serde_json::{Value, json};

use crate::kind::Kind;
use crate::wire;

pub async fn version() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "major": "1", "minor": "33", "gitVersion": "v1.33.0", "gitCommit": "kube-test-server",
        "gitTreeState": "clean", "buildDate": "2025-04-23T00:00:00Z", "goVersion": "go1.24.2",
        "compiler": "gc", "platform": "linux/amd64",
    }))
}

pub async fn core_versions(request: HttpRequest) -> HttpResponse {
    let address = request.connection_info().host().to_owned();
    HttpResponse::Ok().json(json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}],
    }))
}

/// The non-core groups, in the order the API server lists them (built-in groups
/// first, then CRD groups).
fn served_groups() -> Vec<&'static str> {
    let mut groups: Vec<&'static str> = Vec::new();
    for kind in Kind::ALL {
        if kind.group().is_empty() {
            continue;
        }
        if !groups.contains(&kind.group()) {
            groups.push(kind.group());
        }
    }
    groups
}

fn group_document(group: &str) -> Value {
    let version = json!({"groupVersion": format!("{group}/v1"), "version": "v1"});
    json!({"name": group, "versions": [version], "preferredVersion": version})
}

pub async fn groups() -> HttpResponse {
    let groups: Vec<Value> = served_groups().into_iter().map(group_document).collect();
    HttpResponse::Ok().json(json!({"kind": "APIGroupList", "apiVersion": "v1", "groups": groups}))
}

pub async fn group(path: web::Path<String>) -> HttpResponse {
    let group = path.into_inner();
    if !served_groups().contains(&group.as_str()) {
        return not_found(&format!("/apis/{group}"));
    }
    let mut document = group_document(&group);
    document["kind"] = json!("APIGroup");
    document["apiVersion"] = json!("v1");
    HttpResponse::Ok().json(document)
}

fn resource(kind: Kind) -> Value {
    let verbs = if kind.namespaced() {
        json!(["create", "delete", "get", "list", "update", "watch"])
    } else {
        json!(["get", "list", "watch"])
    };
    let mut resource = json!({
        "name": kind.plural(), "singularName": kind.singular(), "namespaced": kind.namespaced(),
        "kind": kind.name(), "verbs": verbs,
    });
    if !kind.short_names().is_empty() {
        resource["shortNames"] = json!(kind.short_names());
    }
    if !kind.categories().is_empty() {
        resource["categories"] = json!(kind.categories());
    }
    resource
}

fn resource_list(group: &str, version: &str) -> Option<Value> {
    let resources: Vec<Value> = Kind::ALL
        .into_iter()
        .filter(|kind| kind.group() == group && kind.version() == version)
        .map(resource)
        .collect();
    if resources.is_empty() {
        return None;
    }
    let group_version = match group {
        "" => version.to_owned(),
        group => format!("{group}/{version}"),
    };
    Some(json!({
        "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": group_version,
        "resources": resources,
    }))
}

pub async fn core_resources() -> HttpResponse {
    match resource_list("", "v1") {
        Some(list) => HttpResponse::Ok().json(list),
        None => not_found("/api/v1"),
    }
}

pub async fn group_resources(path: web::Path<(String, String)>) -> HttpResponse {
    let (group, version) = path.into_inner();
    match resource_list(&group, &version) {
        Some(list) => HttpResponse::Ok().json(list),
        None => not_found(&format!("/apis/{group}/{version}")),
    }
}

/// The API server's 404 for a path it does not serve.
pub fn not_found(path: &str) -> HttpResponse {
    wire::status_response(wire::status(
        404,
        "NotFound",
        &format!("the server could not find the requested resource ({path})"),
        None,
    ))
}
