//! A front for osmem-server that adds the one API the console needs and osmem lacks:
//! `_nodes/stats` (all four documented path forms), answered in the documented Elasticsearch 8 /
//! OpenSearch 2 format for osmem's real nodes (ids, names and roles come from osmem's own
//! `_nodes`), with `filter_path` applied as the clusters apply it. Every other request is
//! forwarded to osmem unchanged. It can also play a cluster whose state is not recovered
//! (every call answers 503 with the documented `cluster_block_exception` body).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use serde_json::{Map, Value, json};

/// The usage figures the stub reports for every node.
#[derive(Debug, Clone, Copy)]
pub struct NodeUsage {
    pub heap_used_bytes: u64,
    pub heap_max_bytes: u64,
    pub disk_total_bytes: u64,
    pub disk_available_bytes: u64,
    pub cpu_percent: u64,
}

impl Default for NodeUsage {
    /// 25% heap, 60% disk, 7% CPU.
    fn default() -> Self {
        Self {
            heap_used_bytes: 256 << 20,
            heap_max_bytes: 1 << 30,
            disk_total_bytes: 100 << 30,
            disk_available_bytes: 40 << 30,
            cpu_percent: 7,
        }
    }
}

pub struct ClusterStub {
    pub url: String,
    unavailable: Arc<AtomicBool>,
    /// Calls answered 503 while unavailable.
    refused: Arc<AtomicUsize>,
    handle: actix_web::dev::ServerHandle,
}

struct StubState {
    osmem: String,
    client: reqwest::Client,
    usage: NodeUsage,
    unavailable: Arc<AtomicBool>,
    refused: Arc<AtomicUsize>,
}

impl ClusterStub {
    pub fn start(osmem_url: &str, usage: NodeUsage) -> Self {
        test_support::install_crypto_provider();
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let unavailable = Arc::new(AtomicBool::new(false));
        let refused = Arc::new(AtomicUsize::new(0));
        let state = web::Data::new(StubState {
            osmem: osmem_url.trim_end_matches('/').to_owned(),
            client: reqwest::Client::new(),
            usage,
            unavailable: unavailable.clone(),
            refused: refused.clone(),
        });
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = HttpServer::new(move || {
                    App::new()
                        .app_data(state.clone())
                        .app_data(web::PayloadConfig::new(256 << 20))
                        .default_service(web::to(handle))
                })
                .workers(2)
                .disable_signals()
                .listen(listener)
                .unwrap()
                .run();
                sender.send(server.handle()).unwrap();
                let _ = server.await;
            });
        });
        let handle = receiver.recv().unwrap();
        Self {
            url: format!("http://127.0.0.1:{port}"),

            unavailable,
            refused,
            handle,
        }
    }

    /// How many calls were answered 503 so far, readable from another thread.
    pub fn refused_calls(&self) -> impl Fn() -> usize + Send + 'static {
        let refused = self.refused.clone();
        move || refused.load(Ordering::SeqCst)
    }

    /// From now on every call answers 503 like a cluster whose state is not recovered.
    pub fn set_unavailable(&self, unavailable: bool) {
        self.unavailable.store(unavailable, Ordering::SeqCst);
    }
}

impl Drop for ClusterStub {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

async fn handle(
    request: HttpRequest,
    body: web::Bytes,
    state: web::Data<StubState>,
) -> HttpResponse {
    if state.unavailable.load(Ordering::SeqCst) {
        state.refused.fetch_add(1, Ordering::SeqCst);
        return HttpResponse::ServiceUnavailable()
            .content_type("application/json; charset=UTF-8")
            .body(not_recovered().to_string());
    }
    let segments: Vec<&str> = request.path().trim_matches('/').split('/').collect();
    let metrics = match segments.as_slice() {
        ["_nodes", "stats"] => Some(("_all", "_all")),
        ["_nodes", "stats", metrics] => Some(("_all", *metrics)),
        ["_nodes", node, "stats"] => Some((*node, "_all")),
        ["_nodes", node, "stats", metrics] => Some((*node, *metrics)),
        _ => None,
    };
    match metrics {
        Some((_node_filter, metrics)) if request.method() == actix_web::http::Method::GET => {
            let mut answer = nodes_stats(&state, metrics).await;
            if let Some(filter) = query_param(&request, "filter_path") {
                answer = apply_filter_path(&answer, &filter);
            }
            HttpResponse::Ok()
                .content_type("application/json; charset=UTF-8")
                .body(answer.to_string())
        }
        _ => forward(&request, body, &state).await,
    }
}

fn query_param(request: &HttpRequest, name: &str) -> Option<String> {
    web::Query::<std::collections::HashMap<String, String>>::from_query(request.query_string())
        .ok()
        .and_then(|query| query.get(name).cloned())
}

async fn forward(request: &HttpRequest, body: web::Bytes, state: &StubState) -> HttpResponse {
    let mut url = format!("{}{}", state.osmem, request.path());
    if !request.query_string().is_empty() {
        url = format!("{url}?{}", request.query_string());
    }
    let method = reqwest::Method::from_bytes(request.method().as_str().as_bytes()).unwrap();
    let mut upstream = state.client.request(method, url).body(body.to_vec());
    if let Some(content_type) = request.headers().get("content-type") {
        upstream = upstream.header("content-type", content_type.as_bytes());
    }
    match upstream.send().await {
        Ok(response) => {
            let mut answer = HttpResponse::build(
                actix_web::http::StatusCode::from_u16(response.status().as_u16()).unwrap(),
            );
            if let Some(content_type) = response.headers().get("content-type") {
                answer.insert_header(("content-type", content_type.as_bytes()));
            }
            answer.body(response.bytes().await.unwrap_or_default())
        }
        Err(error) => HttpResponse::BadGateway().body(error.to_string()),
    }
}

/// `GET /_nodes/stats/<metrics>` for osmem's nodes.
async fn nodes_stats(state: &StubState, metrics: &str) -> Value {
    let info: Value = match state
        .client
        .get(format!("{}/_nodes", state.osmem))
        .send()
        .await
    {
        Ok(response) => response.json().await.unwrap_or(Value::Null),
        Err(_) => Value::Null,
    };
    let wanted = |metric: &str| metrics == "_all" || metrics.split(',').any(|m| m == metric);
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64;
    let usage = state.usage;
    let mut nodes = Map::new();
    for (id, node) in info["nodes"].as_object().cloned().unwrap_or_default() {
        let ip = node["ip"].as_str().unwrap_or("127.0.0.1").to_owned();
        let mut entry = json!({
            "timestamp": now_ms,
            "name": node["name"],
            "transport_address": format!("{ip}:9300"),
            "host": ip,
            "ip": format!("{ip}:9300"),
            "roles": node["roles"],
            "attributes": {}
        });
        let fields = entry.as_object_mut().unwrap();
        if wanted("os") {
            let mem_total: u64 = 8 << 30;
            let mem_free: u64 = 3 << 30;
            fields.insert(
                "os".into(),
                json!({
                    "timestamp": now_ms,
                    "cpu": {
                        "percent": usage.cpu_percent,
                        "load_average": {"1m": 0.42, "5m": 0.35, "15m": 0.3}
                    },
                    "mem": {
                        "total_in_bytes": mem_total,
                        "adjusted_total_in_bytes": mem_total,
                        "free_in_bytes": mem_free,
                        "used_in_bytes": mem_total - mem_free,
                        "free_percent": 38,
                        "used_percent": 62
                    },
                    "swap": {"total_in_bytes": 0, "free_in_bytes": 0, "used_in_bytes": 0}
                }),
            );
        }
        if wanted("jvm") {
            fields.insert("jvm".into(), json!({
                "timestamp": now_ms,
                "uptime_in_millis": 3_600_000,
                "mem": {
                    "heap_used_in_bytes": usage.heap_used_bytes,
                    "heap_used_percent": usage.heap_used_bytes * 100 / usage.heap_max_bytes,
                    "heap_committed_in_bytes": usage.heap_max_bytes,
                    "heap_max_in_bytes": usage.heap_max_bytes,
                    "non_heap_used_in_bytes": 150_000_000u64,
                    "non_heap_committed_in_bytes": 160_000_000u64,
                    "pools": {
                        "young": {"used_in_bytes": 50_000_000u64, "max_in_bytes": 0, "peak_used_in_bytes": 60_000_000u64, "peak_max_in_bytes": 0},
                        "old": {"used_in_bytes": usage.heap_used_bytes - 50_000_000, "max_in_bytes": usage.heap_max_bytes, "peak_used_in_bytes": usage.heap_used_bytes, "peak_max_in_bytes": usage.heap_max_bytes},
                        "survivor": {"used_in_bytes": 0, "max_in_bytes": 0, "peak_used_in_bytes": 0, "peak_max_in_bytes": 0}
                    }
                },
                "threads": {"count": 60, "peak_count": 62},
                "gc": {"collectors": {
                    "young": {"collection_count": 12, "collection_time_in_millis": 140},
                    "old": {"collection_count": 0, "collection_time_in_millis": 0}
                }},
                "buffer_pools": {
                    "direct": {"count": 20, "used_in_bytes": 2_000_000, "total_capacity_in_bytes": 2_000_000},
                    "mapped": {"count": 0, "used_in_bytes": 0, "total_capacity_in_bytes": 0}
                },
                "classes": {"current_loaded_count": 20_000, "total_loaded_count": 20_000, "total_unloaded_count": 0}
            }));
        }
        if wanted("fs") {
            let free = usage.disk_available_bytes;
            fields.insert(
                "fs".into(),
                json!({
                    "timestamp": now_ms,
                    "total": {
                        "total_in_bytes": usage.disk_total_bytes,
                        "free_in_bytes": free,
                        "available_in_bytes": usage.disk_available_bytes
                    },
                    "data": [{
                        "path": "/usr/share/elasticsearch/data",
                        "mount": "/ (overlay)",
                        "type": "overlay",
                        "total_in_bytes": usage.disk_total_bytes,
                        "free_in_bytes": free,
                        "available_in_bytes": usage.disk_available_bytes
                    }],
                    "io_stats": {}
                }),
            );
        }
        nodes.insert(id, entry);
    }
    let count = nodes.len();
    json!({
        "_nodes": {"total": count, "successful": count, "failed": 0},
        "cluster_name": info["cluster_name"],
        "nodes": nodes
    })
}

/// `filter_path` as documented: comma-separated dotted paths, `*` matching one key.
fn apply_filter_path(value: &Value, filter: &str) -> Value {
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
    let object = value.as_object()?;
    let mut out = Map::new();
    for (key, child) in object {
        let rest: Vec<&[&str]> = patterns
            .iter()
            .filter(|pattern| pattern[0] == "*" || pattern[0] == key)
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

/// The documented answer of a cluster whose state is not recovered yet.
fn not_recovered() -> Value {
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
