//! The API paths: discovery, get, list and watch of namespaces and ingresses.

use std::collections::HashMap;
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::web::{self, Bytes};
use actix_web::{App, HttpRequest, HttpResponse, HttpServer};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use crate::kind::Kind;
use crate::store::{Scope, WatchMessage};
use crate::{Cluster, wire, writes};

pub fn server(cluster: Cluster, listener: TcpListener) -> std::io::Result<Server> {
    let data = web::Data::new(cluster);
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .route("/version", web::get().to(version))
            .route("/api", web::get().to(core_versions))
            .route("/apis", web::get().to(groups))
            .route("/api/v1", web::get().to(core_resources))
            .route(
                "/apis/networking.k8s.io/v1",
                web::get().to(networking_resources),
            )
            .route("/api/v1/namespaces", web::get().to(namespaces))
            .route("/api/v1/namespaces/{namespace}", web::get().to(namespace))
            .route(
                "/apis/networking.k8s.io/v1/ingresses",
                web::get().to(all_ingresses),
            )
            .route(
                "/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses",
                web::get().to(namespace_ingresses),
            )
            .route(
                "/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses",
                web::post().to(writes::create_ingress),
            )
            .route(
                "/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}",
                web::get().to(ingress),
            )
            .route(
                "/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}",
                web::put().to(writes::replace_ingress),
            )
            .route(
                "/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses/{name}",
                web::delete().to(writes::delete_ingress),
            )
            .route("/__test/faults", web::post().to(inject_faults))
            .route("/__test/stats", web::get().to(stats))
            .default_service(web::to(|request: HttpRequest| async move {
                wire::status_response(wire::status(
                    404,
                    "NotFound",
                    &format!(
                        "the server could not find the requested resource ({})",
                        request.path()
                    ),
                    None,
                ))
            }))
    })
    .workers(2)
    .shutdown_timeout(1)
    .disable_signals()
    .listen(listener)?
    .run())
}

type Query = web::Query<HashMap<String, String>>;

async fn version() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "major": "1", "minor": "33", "gitVersion": "v1.33.0", "gitCommit": "kube-test-server",
        "gitTreeState": "clean", "buildDate": "2025-04-23T00:00:00Z", "goVersion": "go1.24.2",
        "compiler": "gc", "platform": "linux/amd64",
    }))
}

async fn core_versions(request: HttpRequest) -> HttpResponse {
    let address = request.connection_info().host().to_owned();
    HttpResponse::Ok().json(json!({
        "kind": "APIVersions",
        "versions": ["v1"],
        "serverAddressByClientCIDRs": [{"clientCIDR": "0.0.0.0/0", "serverAddress": address}],
    }))
}

async fn groups() -> HttpResponse {
    let version = json!({"groupVersion": "networking.k8s.io/v1", "version": "v1"});
    HttpResponse::Ok().json(json!({
        "kind": "APIGroupList",
        "apiVersion": "v1",
        "groups": [{"name": "networking.k8s.io", "versions": [version], "preferredVersion": version}],
    }))
}

fn resource(name: &str, kind: &str, namespaced: bool, short: &[&str]) -> Value {
    json!({
        "name": name, "singularName": kind.to_lowercase(), "namespaced": namespaced, "kind": kind,
        "verbs": ["get", "list", "watch"], "shortNames": short,
    })
}

async fn core_resources() -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "kind": "APIResourceList", "groupVersion": "v1",
        "resources": [resource("namespaces", "Namespace", false, &["ns"])],
    }))
}

async fn networking_resources() -> HttpResponse {
    let mut ingresses = resource("ingresses", "Ingress", true, &["ing"]);
    ingresses["verbs"] = json!(["create", "delete", "get", "list", "update", "watch"]);
    HttpResponse::Ok().json(json!({
        "kind": "APIResourceList", "apiVersion": "v1", "groupVersion": "networking.k8s.io/v1",
        "resources": [ingresses],
    }))
}

async fn namespaces(
    cluster: web::Data<Cluster>,
    query: Query,
    request: HttpRequest,
) -> HttpResponse {
    let scope = Scope {
        kind: Kind::Namespace,
        namespace: None,
    };
    collection(&cluster, scope, &query, &request).await
}

async fn all_ingresses(
    cluster: web::Data<Cluster>,
    query: Query,
    request: HttpRequest,
) -> HttpResponse {
    let scope = Scope {
        kind: Kind::Ingress,
        namespace: None,
    };
    collection(&cluster, scope, &query, &request).await
}

async fn namespace_ingresses(
    cluster: web::Data<Cluster>,
    path: web::Path<String>,
    query: Query,
    request: HttpRequest,
) -> HttpResponse {
    let scope = Scope {
        kind: Kind::Ingress,
        namespace: Some(path.into_inner()),
    };
    collection(&cluster, scope, &query, &request).await
}

async fn namespace(cluster: web::Data<Cluster>, path: web::Path<String>) -> HttpResponse {
    if let Some(response) = cluster.faults.injected().await {
        return response;
    }
    let name = path.into_inner();
    if cluster.faults.is_cluster_scope_forbidden() {
        return wire::status_response(wire::forbidden("get", Kind::Namespace, None));
    }
    match cluster.store().get(Kind::Namespace, &name) {
        Some(object) => wire::object_response(Kind::Namespace, &object),
        None => wire::status_response(wire::not_found(Kind::Namespace, &name)),
    }
}

async fn ingress(cluster: web::Data<Cluster>, path: web::Path<(String, String)>) -> HttpResponse {
    if let Some(response) = cluster.faults.injected().await {
        return response;
    }
    let (namespace, name) = path.into_inner();
    if cluster.faults.is_namespace_forbidden(&namespace) {
        return wire::status_response(wire::forbidden("get", Kind::Ingress, Some(&namespace)));
    }
    match cluster.ingress(&namespace, &name) {
        Some(object) => wire::object_response(Kind::Ingress, &object),
        None => wire::status_response(wire::not_found(Kind::Ingress, &name)),
    }
}

fn is_true(query: &Query, name: &str) -> bool {
    matches!(query.get(name).map(String::as_str), Some("true" | "1"))
}

/// List or watch of a collection, after the faults and RBAC checks.
async fn collection(
    cluster: &Cluster,
    scope: Scope,
    query: &Query,
    request: &HttpRequest,
) -> HttpResponse {
    let watch = is_true(query, "watch");
    let counter = if watch {
        &cluster.faults.watch_requests
    } else {
        &cluster.faults.list_requests
    };
    counter.fetch_add(1, Ordering::SeqCst);
    if let Some(response) = cluster.faults.injected().await {
        return response;
    }
    let verb = if watch { "watch" } else { "list" };
    let forbidden = match &scope.namespace {
        Some(namespace) => cluster.faults.is_namespace_forbidden(namespace),
        None => cluster.faults.is_cluster_scope_forbidden(),
    };
    if forbidden {
        return wire::status_response(wire::forbidden(
            verb,
            scope.kind,
            scope.namespace.as_deref(),
        ));
    }
    if watch {
        watch_response(cluster, scope, query)
    } else {
        list_response(cluster, scope, query, request)
    }
}

fn list_response(
    cluster: &Cluster,
    scope: Scope,
    query: &Query,
    request: &HttpRequest,
) -> HttpResponse {
    let resource_version = query.get("resourceVersion").filter(|v| !v.is_empty());
    let version_match = query.get("resourceVersionMatch").filter(|v| !v.is_empty());
    let continue_token = query.get("continue").filter(|v| !v.is_empty());
    let limit = match query.get("limit").map(|limit| limit.parse::<usize>()) {
        None => None,
        Some(Ok(0)) => None,
        Some(Ok(limit)) => Some(limit),
        Some(Err(_)) => {
            return wire::status_response(wire::bad_request(
                "limit: Invalid value: must be a non-negative integer",
            ));
        }
    };
    if version_match.is_some() && resource_version.is_none() {
        return wire::status_response(wire::bad_request(
            "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
        ));
    }
    if continue_token.is_some() && resource_version.is_some_and(|v| v != "0") {
        return wire::status_response(wire::bad_request(
            "resourceVersion: Forbidden: specifying resource version is not allowed when using continue",
        ));
    }
    let (revision, start) = match continue_token {
        Some(token) => match wire::decode_continue(token) {
            Some((revision, start)) => (Some(revision), Some(start)),
            None => {
                return wire::status_response(wire::bad_request(
                    "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)",
                ));
            }
        },
        None => {
            let exact = match (resource_version, version_match.map(String::as_str)) {
                (Some(version), Some("Exact")) => match version.parse::<u64>() {
                    Ok(version) => Some(version),
                    Err(_) => {
                        return wire::status_response(wire::bad_request(&format!(
                            "resourceVersion: Invalid value: \"{version}\": must be an integer"
                        )));
                    }
                },
                (_, Some("NotOlderThan" | "Exact") | None) => None,
                (_, Some(other)) => {
                    return wire::status_response(wire::bad_request(&format!(
                        "resourceVersionMatch: Unsupported value: \"{other}\": supported values: \"Exact\", \"NotOlderThan\""
                    )));
                }
            };
            (exact, None)
        }
    };
    let snapshot = match cluster.store().snapshot(&scope, revision) {
        Ok(snapshot) => snapshot,
        Err(expired) => {
            let body = if continue_token.is_some() {
                wire::status(
                    410,
                    "Expired",
                    "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter.",
                    None,
                )
            } else {
                wire::expired(
                    expired.oldest_available,
                    resource_version.map_or("", String::as_str),
                )
            };
            return wire::status_response(body);
        }
    };
    let after: Vec<(String, Arc<Value>)> = snapshot
        .items
        .into_iter()
        .filter(|(key, _)| start.as_ref().is_none_or(|start| key > start))
        .collect();
    let (page, next) = match limit {
        Some(limit) if after.len() > limit => {
            let token = wire::encode_continue(snapshot.revision, &after[limit - 1].0);
            (&after[..limit], Some((token, after.len() - limit)))
        }
        _ => (&after[..], None),
    };
    let items: Vec<Arc<Value>> = page.iter().map(|(_, item)| item.clone()).collect();
    let accept = request
        .headers()
        .get("accept")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if wire::wants_table(accept) {
        let mut table = wire::table(scope.kind, snapshot.revision, &items);
        if let Some((token, remaining)) = next {
            table["metadata"]["continue"] = json!(token);
            table["metadata"]["remainingItemCount"] = json!(remaining);
        }
        return HttpResponse::Ok()
            .content_type("application/json;as=Table;v=v1;g=meta.k8s.io")
            .body(table.to_string());
    }
    let (token, remaining) = next.map_or((None, None), |(token, remaining)| {
        (Some(token), Some(remaining))
    });
    HttpResponse::Ok()
        .content_type("application/json")
        .body(wire::list(scope.kind, snapshot.revision, token, remaining, &items).to_string())
}

fn watch_response(cluster: &Cluster, scope: Scope, query: &Query) -> HttpResponse {
    let bookmarks = is_true(query, "allowWatchBookmarks");
    let initial_events = is_true(query, "sendInitialEvents");
    let resource_version = query.get("resourceVersion").filter(|v| !v.is_empty());
    let timeout = match query.get("timeoutSeconds").map(|t| t.parse::<u64>()) {
        None => cluster.options.default_watch_timeout,
        Some(Ok(seconds)) => Duration::from_secs(seconds),
        Some(Err(_)) => {
            return wire::status_response(wire::bad_request(
                "timeoutSeconds: Invalid value: must be a non-negative integer",
            ));
        }
    };
    if initial_events
        && (!bookmarks
            || query.get("resourceVersionMatch").map(String::as_str) != Some("NotOlderThan"))
    {
        return wire::status_response(wire::bad_request(
            "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless resourceVersionMatch is set to NotOlderThan and allowWatchBookmarks is true",
        ));
    }
    let kind = scope.kind;
    if cluster.faults.take_expired_watch() {
        let status = wire::expired(cluster.revision(), "injected");
        return HttpResponse::Ok()
            .content_type("application/json")
            .body(wire::watch_event("ERROR", &status));
    }
    let (mut first_lines, replay, receiver) = {
        let mut store = cluster.store();
        // Unset or "0": synthetic ADDED events for the current state, then changes from now.
        let from = match resource_version.map(String::as_str) {
            None | Some("0") => None,
            Some(version) => match version.parse::<u64>() {
                Ok(version) => Some(version),
                Err(_) => {
                    return wire::status_response(wire::bad_request(&format!(
                        "resourceVersion: Invalid value: \"{version}\": must be an integer"
                    )));
                }
            },
        };
        let mut lines = Vec::new();
        let start = match from {
            Some(version) => version,
            None => {
                let snapshot = store
                    .snapshot(&scope, None)
                    .expect("the current revision is never compacted");
                for (_, object) in &snapshot.items {
                    lines.push(wire::watch_event(
                        "ADDED",
                        &wire::with_type_meta(kind, object),
                    ));
                }
                if initial_events {
                    lines.push(wire::watch_event(
                        "BOOKMARK",
                        &wire::bookmark(kind, snapshot.revision, true),
                    ));
                }
                snapshot.revision
            }
        };
        match store.watch(scope, start) {
            Ok((replay, receiver)) => (lines, replay, Some(receiver)),
            Err(expired) => {
                // As the API server: 200, then an ERROR event carrying the 410 Status.
                let status = wire::expired(expired.oldest_available, &start.to_string());
                lines.push(wire::watch_event("ERROR", &status));
                (lines, Vec::new(), None)
            }
        }
    };
    for change in replay {
        first_lines.push(wire::watch_event(
            change.event.as_str(),
            &wire::with_type_meta(kind, &change.object),
        ));
    }
    let (sender, body) = mpsc::channel::<Result<Bytes, std::io::Error>>(64);
    let bookmark_interval = cluster.options.bookmark_interval;
    let cluster = cluster.clone();
    actix_web::rt::spawn(async move {
        for line in first_lines {
            if sender.send(Ok(Bytes::from(line))).await.is_err() {
                return;
            }
        }
        let Some(mut receiver) = receiver else { return };
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let mut ticks = tokio::time::interval_at(
            tokio::time::Instant::now() + bookmark_interval,
            bookmark_interval,
        );
        loop {
            let line = tokio::select! {
                _ = &mut deadline => return,
                _ = sender.closed() => return,
                _ = ticks.tick(), if bookmarks => {
                    wire::watch_event("BOOKMARK", &wire::bookmark(kind, cluster.revision(), false))
                }
                message = receiver.recv() => match message {
                    Some(WatchMessage::Change(change)) => {
                        let line = wire::watch_event(change.event.as_str(), &wire::with_type_meta(kind, &change.object));
                        if cluster.faults.take_cut_event() {
                            let half = Bytes::from(line[..line.len() / 2].to_owned());
                            let _ = sender.send(Ok(half)).await;
                            let _ = sender.send(Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "watch cut mid-event by fault injection"))).await;
                            return;
                        }
                        line
                    }
                    Some(WatchMessage::Expired) => {
                        let status = wire::expired(cluster.revision(), "");
                        let _ = sender.send(Ok(Bytes::from(wire::watch_event("ERROR", &status)))).await;
                        return;
                    }
                    Some(WatchMessage::Drop) | None => {
                        let _ = sender.send(Err(std::io::Error::new(std::io::ErrorKind::ConnectionReset, "watch dropped by fault injection"))).await;
                        return;
                    }
                },
            };
            if sender.send(Ok(Bytes::from(line))).await.is_err() {
                return;
            }
        }
    });
    HttpResponse::Ok()
        .content_type("application/json")
        .streaming(ReceiverStream::new(body))
}

/// `POST /__test/faults` (not a Kubernetes path): fault injection for a test or soak run that
/// drives the binary from outside. Every field is optional: `fail_next` (count) with `status`
/// (default 503), `latency_ms`, `expire_next_watches`, `cut_next_events`, `drop_watches` and
/// `compact` (booleans). Answers the stats of `GET /__test/stats`.
async fn inject_faults(cluster: web::Data<Cluster>, body: web::Json<Value>) -> HttpResponse {
    let faults = &cluster.faults;
    let number = |name: &str| body.get(name).and_then(Value::as_u64);
    if let Some(count) = number("fail_next") {
        let status = number("status").unwrap_or(503);
        if !(500..600).contains(&status) {
            return wire::status_response(wire::bad_request("status: must be a 5xx code"));
        }
        faults.fail_next_with(count, status as u16);
    }
    if let Some(latency) = number("latency_ms") {
        faults.set_latency(Duration::from_millis(latency));
    }
    if let Some(count) = number("expire_next_watches") {
        faults.expire_next_watches(count);
    }
    if let Some(count) = number("cut_next_events") {
        faults.cut_next_events(count);
    }
    if body.get("drop_watches").and_then(Value::as_bool) == Some(true) {
        cluster.drop_watches();
    }
    if body.get("compact").and_then(Value::as_bool) == Some(true) {
        cluster.compact();
    }
    stats(cluster).await
}

/// `GET /__test/stats`: open watches, requests served and the current resourceVersion.
async fn stats(cluster: web::Data<Cluster>) -> HttpResponse {
    HttpResponse::Ok().json(json!({
        "open_watches": cluster.open_watches(),
        "watch_requests": cluster.watch_requests(),
        "list_requests": cluster.list_requests(),
        "revision": cluster.revision(),
        "ingresses": cluster.ingresses().len(),
    }))
}
