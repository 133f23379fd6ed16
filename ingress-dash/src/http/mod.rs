//! Thin handlers: parse, call the state, answer.

use std::collections::HashMap;
use std::convert::Infallible;
use std::time::Duration;

use actix_web::http::header::{self, ContentType};
use actix_web::middleware::{Compress, from_fn};
use actix_web::web::Bytes;
use actix_web::{HttpRequest, HttpResponse, web};
use service_kit::server::ShutdownNotice;

use crate::access::Viewer;
use crate::error::Error;
use crate::hub::selection::Selection;
use snapshot_body::Layout;
use state::AppState;
use stream::StreamOptions;
pub(crate) mod health;
pub(crate) mod hosts;
pub(crate) mod migration;
pub(crate) mod objects;
pub(crate) mod rate_limit;
pub(crate) mod snapshot_body;
pub(crate) mod snapshot_cache;
pub mod state;
pub(crate) mod static_files;
pub mod stream;
#[cfg(test)]
mod wire_types;

/// The body of `GET /api/namespaces`: the namespaces a client may ask for, sorted.
#[derive(Debug, serde::Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct NamespaceList {
    pub namespaces: Vec<String>,
}

pub fn configure(config: &mut web::ServiceConfig, static_dir: Option<std::path::PathBuf>) {
    config
        .route("/api/health", web::get().to(health_check))
        .service(
            web::scope("/api")
                .wrap(from_fn(rate_limit::limit))
                .wrap(Compress::default())
                .route("/whoami", web::get().to(whoami))
                .route("/namespaces", web::get().to(namespaces))
                .route("/ingresses", web::get().to(ingresses))
                .route("/ingresses/stream", web::get().to(ingress_stream))
                .route(
                    "/objects/{kind}/{namespace}/{name}/events",
                    web::get().to(objects::events),
                )
                .route(
                    "/objects/{kind}/{namespace}/{name}/yaml",
                    web::get().to(objects::object_yaml),
                )
                .route(
                    "/objects/ingresses/{namespace}/{name}/annotations",
                    web::get().to(objects::object_annotations),
                )
                .route(
                    "/objects/{kind}/{namespace}/{name}/diagnosis",
                    web::get().to(objects::route_diagnosis),
                )
                .route("/migration", web::get().to(migration::report))
                .route("/hosts", web::get().to(hosts::report)),
        );
    static_files::configure(config, static_dir);
}

type Query = web::Query<HashMap<String, String>>;

/// The caller, left by `access::require_identity`.
type Caller = web::ReqData<Viewer>;

async fn selection(state: &AppState, query: &Query, viewer: &Viewer) -> Result<Selection, Error> {
    let result = state
        .selection(
            query.get("namespaces").map(String::as_str),
            &viewer.visibility,
        )
        .await;
    if let Err(Error::NamespaceNotVisible(hidden)) = &result {
        metrics::counter!("ingress_dash_access_denials_total", "reason" => "namespace_not_visible")
            .increment(1);
        tracing::warn!(
            user = viewer.user.as_deref().unwrap_or(""),
            namespaces = hidden.join(","),
            "namespaces not visible to the caller; request refused"
        );
    }
    result
}

async fn health_check(state: web::Data<AppState>) -> HttpResponse {
    let body = health::check(
        state.api.as_ref(),
        &state.settings.kubernetes.namespaces,
        state.settings.kubernetes.health_timeout,
        state.resilience.breaker.state(),
    )
    .await;
    let mut response = if body.is_healthy() {
        HttpResponse::Ok()
    } else {
        HttpResponse::ServiceUnavailable()
    };
    response
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(body)
}

/// `GET /api/whoami`: who the front door says the caller is, and what it may see.
async fn whoami(viewer: Caller) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(viewer.whoami())
}

async fn namespaces(state: web::Data<AppState>, viewer: Caller) -> Result<HttpResponse, Error> {
    let namespaces = state.visible_namespaces(&viewer.visibility).await?;
    Ok(HttpResponse::Ok()
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .json(NamespaceList { namespaces }))
}

/// `GET /api/ingresses`. A client that accepts gzip gets the body compressed once per state of
/// the watchers and request ([`snapshot_cache`]): when the body for the hub's current position
/// is kept, it is sent without building the snapshot. Any other client gets the JSON written in
/// chunks from the stored records. While the watchers are still listing, the body is compressed
/// per request by the Compress middleware as before (it changes from one request to the next).
async fn ingresses(
    state: web::Data<AppState>,
    query: Query,
    viewer: Caller,
    request: HttpRequest,
) -> Result<HttpResponse, Error> {
    let selection = selection(&state, &query, &viewer).await?;
    let search = query
        .get("search")
        .map(|term| term.trim().to_lowercase())
        .filter(|term| !term.is_empty());
    let gzip = request
        .headers()
        .get(header::ACCEPT_ENCODING)
        .and_then(|value| value.to_str().ok())
        .is_some_and(snapshot_cache::accepts_gzip);
    let mut response = HttpResponse::Ok();
    response
        .content_type(ContentType::json())
        .insert_header((header::CACHE_CONTROL, "no-store"));
    let key = snapshot_cache::RequestKey {
        selection: selection.clone(),
        search: search.clone(),
    };
    if gzip {
        // Holding and releasing keeps the watchers alive for another grace period, as a
        // request that builds its snapshot does.
        let _hold = state.hub.subscribe(&selection)?;
        if let Some(position) = state.hub.position(&selection)
            && let Some(body) = state.snapshots.cached(&key, position).await
        {
            return Ok(gzip_body(&mut response, body));
        }
    }
    let snapshot = state.snapshot(&selection, search.as_deref()).await?;
    if gzip && snapshot.position.is_some() {
        return Ok(match state.snapshots.gzip(key, snapshot) {
            snapshot_cache::GzipBody::Whole(body) => gzip_body(&mut response, body),
            // Built for this request: sent as it is compressed.
            building => gzip_headers(&mut response).streaming(building.into_stream()),
        });
    }
    if !gzip {
        // Compress adds Vary only to what it compresses.
        response.insert_header((header::VARY, "Accept-Encoding"));
    }
    let chunks = snapshot
        .into_json_chunks(Layout::LinePerItem)
        .map(Ok::<_, Infallible>);
    Ok(response.streaming(futures_util::stream::iter(chunks)))
}

fn gzip_body(response: &mut actix_web::HttpResponseBuilder, body: Bytes) -> HttpResponse {
    gzip_headers(response).body(body)
}

fn gzip_headers(
    response: &mut actix_web::HttpResponseBuilder,
) -> &mut actix_web::HttpResponseBuilder {
    // Compress leaves a response that has its Content-Encoding alone.
    response
        .insert_header((header::CONTENT_ENCODING, "gzip"))
        .insert_header((header::VARY, "Accept-Encoding"))
}

async fn ingress_stream(
    state: web::Data<AppState>,
    query: Query,
    request: HttpRequest,
    shutdown: web::Data<ShutdownNotice>,
    viewer: Caller,
) -> Result<HttpResponse, Error> {
    let selection = selection(&state, &query, &viewer).await?;
    // Browsers resend the last id as a header; `lastEventId` serves clients that cannot.
    let last_event_id = match request.headers().get("Last-Event-ID") {
        Some(value) => value.to_str().ok().and_then(stream::parse_event_id),
        None => query
            .get("lastEventId")
            .and_then(|id| stream::parse_event_id(id)),
    };
    let slot = state
        .clients
        .try_acquire(state.settings.stream.max_clients)
        .ok_or(Error::TooManyStreams)?;
    // Before the 200: a request past the watcher limit gets its error status.
    let subscription = state.hub.subscribe(&selection)?;
    let options = StreamOptions {
        heartbeat: state.settings.stream.heartbeat_interval,
        retry: state.settings.stream.retry,
        settle_timeout: state
            .settings
            .kubernetes
            .request_timeout
            .min(Duration::from_secs(10)),
        max_lifetime: state.settings.stream.max_lifetime,
    };
    let body = stream::open(
        state.hub.clone(),
        selection,
        subscription,
        last_event_id,
        options,
        slot,
        shutdown.get_ref().clone(),
    );
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        // Not compressed (Compress skips it) and not buffered by nginx.
        .insert_header((header::CONTENT_ENCODING, "identity"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(body))
}
