//! The API paths: discovery, and get, list, watch, create, replace and delete of every kind, at
//! `/api/v1/...` (core group) and `/apis/<group>/<version>/...`.

use std::net::TcpListener;

use actix_web::dev::Server;
use actix_web::web::{self, Bytes};
use actix_web::{App, HttpRequest, HttpResponse, HttpServer};

use crate::collection::{self, Query};
use crate::kind::{Kind, Target};
use crate::store::Scope;
use crate::{Cluster, discovery, table, wire, writes};

/// The API server's request body limit.
const BODY_LIMIT: usize = 3 * 1024 * 1024;

pub fn server(cluster: Cluster, listener: TcpListener) -> std::io::Result<Server> {
    let data = web::Data::new(cluster);
    Ok(HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(web::PayloadConfig::new(BODY_LIMIT))
            .route("/version", web::get().to(discovery::version))
            .route("/api", web::get().to(discovery::core_versions))
            .route("/apis", web::get().to(discovery::groups))
            .route("/api/v1", web::get().to(discovery::core_resources))
            .route("/apis/{group}", web::get().to(discovery::group))
            .route(
                "/apis/{group}/{version}",
                web::get().to(discovery::group_resources),
            )
            // Collections across namespaces (or of cluster-scoped kinds), and cluster-scoped
            // objects (namespaces, IngressClasses).
            .route("/api/v1/{resource}", web::get().to(list_or_watch))
            .route("/api/v1/{resource}/{name}", web::get().to(read))
            .route(
                "/apis/{group}/{version}/{resource}",
                web::get().to(list_or_watch),
            )
            .route(
                "/apis/{group}/{version}/{resource}/{name}",
                web::get().to(read),
            )
            // Namespaced collections and objects.
            .route(
                "/api/v1/namespaces/{namespace}/{resource}",
                web::get().to(list_or_watch),
            )
            .route(
                "/api/v1/namespaces/{namespace}/{resource}",
                web::post().to(create),
            )
            .route(
                "/api/v1/namespaces/{namespace}/{resource}/{name}",
                web::get().to(read),
            )
            .route(
                "/api/v1/namespaces/{namespace}/{resource}/{name}",
                web::put().to(replace),
            )
            .route(
                "/api/v1/namespaces/{namespace}/{resource}/{name}",
                web::delete().to(remove),
            )
            .route(
                "/apis/{group}/{version}/namespaces/{namespace}/{resource}",
                web::get().to(list_or_watch),
            )
            .route(
                "/apis/{group}/{version}/namespaces/{namespace}/{resource}",
                web::post().to(create),
            )
            .route(
                "/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}",
                web::get().to(read),
            )
            .route(
                "/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}",
                web::put().to(replace),
            )
            .route(
                "/apis/{group}/{version}/namespaces/{namespace}/{resource}/{name}",
                web::delete().to(remove),
            )
            .default_service(web::to(|request: HttpRequest| async move {
                discovery::not_found(request.path())
            }))
    })
    .workers(2)
    .shutdown_timeout(1)
    .disable_signals()
    .listen(listener)?
    .run())
}

/// Resolves the path: an unknown resource, a namespaced path for a cluster-scoped kind or the
/// reverse answer 404 as the API server does.
fn target(request: &HttpRequest) -> Result<Target, NotServed> {
    let info = request.match_info();
    let namespace = info.get("namespace").map(str::to_owned);
    let name = info.get("name").map(str::to_owned);
    let kind = Kind::from_path(
        info.get("group").unwrap_or(""),
        info.get("version").unwrap_or("v1"),
        info.get("resource").unwrap_or_default(),
    )
    .filter(|kind| match (&namespace, &name) {
        (Some(_), _) => kind.namespaced(),
        (None, Some(_)) => !kind.namespaced(),
        (None, None) => true,
    });
    match kind {
        Some(kind) => Ok(Target {
            kind,
            namespace,
            name,
        }),
        None => Err(NotServed),
    }
}

/// A path the server does not serve (404).
pub(crate) struct NotServed;

async fn list_or_watch(
    cluster: web::Data<Cluster>,
    query: Query,
    request: HttpRequest,
) -> HttpResponse {
    let target = match target(&request) {
        Ok(target) => target,
        Err(NotServed) => return discovery::not_found(request.path()),
    };
    let scope = Scope {
        kind: target.kind,
        namespace: target.namespace,
    };
    collection::collection(&cluster, scope, &query, &request).await
}

async fn read(cluster: web::Data<Cluster>, request: HttpRequest) -> HttpResponse {
    let Target {
        kind,
        namespace,
        name,
    } = match target(&request) {
        Ok(target) => target,
        Err(NotServed) => return discovery::not_found(request.path()),
    };
    let name = name.unwrap_or_default();
    let Some(object) = cluster.get(kind, namespace.as_deref(), &name) else {
        return wire::status_response(wire::not_found(kind, &name));
    };
    let accept = request
        .headers()
        .get("accept")
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    if wire::wants_table(accept) {
        let revision = cluster.revision();
        return HttpResponse::Ok()
            .content_type("application/json;as=Table;v=v1;g=meta.k8s.io")
            .body(table::table(kind, revision, &[object]).to_string());
    }
    wire::object_response(kind, &object)
}

async fn create(cluster: web::Data<Cluster>, request: HttpRequest, body: Bytes) -> HttpResponse {
    match target(&request) {
        Ok(target) => writes::create(&cluster, target, &body).await,
        Err(NotServed) => discovery::not_found(request.path()),
    }
}

async fn replace(cluster: web::Data<Cluster>, request: HttpRequest, body: Bytes) -> HttpResponse {
    match target(&request) {
        Ok(target) => writes::replace(&cluster, target, &body).await,
        Err(NotServed) => discovery::not_found(request.path()),
    }
}

async fn remove(cluster: web::Data<Cluster>, request: HttpRequest) -> HttpResponse {
    match target(&request) {
        Ok(target) => writes::delete(&cluster, target).await,
        Err(NotServed) => discovery::not_found(request.path()),
    }
}
