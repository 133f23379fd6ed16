//! `GET /_nodes/stats` in its four documented path forms, for the simulated nodes, with
//! metric filters and `filter_path` applied as the clusters apply them.

use serde_json::{Map, Value, json};

use crate::nodes::{SimNode, nodes_answer, select};
use crate::wire::{Call, Reply, apply_filter_path, es_error, now_millis};
use crate::{NodeUsage, Shared, lock};

/// The metrics `_nodes/stats/<metric>` documents (Elasticsearch 8 and OpenSearch 2 both name
/// the circuit breakers `breaker`, though the answer's section is `breakers`).
const METRICS: &[&str] = &[
    "_all",
    "_none",
    "indices",
    "os",
    "process",
    "jvm",
    "thread_pool",
    "fs",
    "transport",
    "http",
    "breaker",
    "script",
    "discovery",
    "ingest",
    "adaptive_selection",
    "script_cache",
    "indexing_pressure",
    "repositories",
    "allocations",
];

pub(crate) async fn handle(shared: &Shared, _call: &Call, segments: &[&str]) -> Reply {
    let (selector, metrics, index_metrics) = match segments {
        ["_nodes", "stats"] => ("_all", "_all", "_all"),
        ["_nodes", "stats", metrics] => ("_all", *metrics, "_all"),
        ["_nodes", "stats", metrics, index_metrics, ..] => ("_all", *metrics, *index_metrics),
        ["_nodes", node, "stats"] => (*node, "_all", "_all"),
        ["_nodes", node, "stats", metrics] => (*node, *metrics, "_all"),
        ["_nodes", node, "stats", metrics, index_metrics, ..] => (*node, *metrics, *index_metrics),
        _ => ("_all", "_all", "_all"),
    };
    // As the clusters do: an unknown metric is a 400, not an empty answer.
    if let Some(unknown) = metrics.split(',').find(|m| !METRICS.contains(m)) {
        let hint = if unknown == "breakers" {
            " -> did you mean [breaker]?"
        } else {
            ""
        };
        return es_error(
            400,
            "illegal_argument_exception",
            &format!(
                "request [/{}] contains unrecognized metric: [{unknown}]{hint}",
                segments.join("/")
            ),
        );
    }
    let wanted = |metric: &str| metrics == "_all" || metrics.split(',').any(|m| m == metric);
    // The shards each node holds, for its `indices` section.
    let mut held = vec![(0u64, 0u64, 0u64); shared.nodes.len()];
    if wanted("indices") && crate::routing::sync(shared).await.is_ok() {
        let routing = lock(&shared.routing);
        for copy in &routing.copies {
            if let Some(node) = copy.node {
                held[node].0 += copy.docs.unwrap_or(0);
                held[node].1 += copy.store.unwrap_or(0);
                held[node].2 += 1;
            }
        }
    }
    let now_ms = now_millis();
    let mut nodes = Map::new();
    for node in select(&shared.nodes, selector) {
        let mut entry = node_stats(node, shared.options.usage, now_ms, &wanted);
        if let Some(fields) = entry.as_object_mut() {
            add_more_stats(fields, node, shared.options.usage, now_ms, &wanted);
            if wanted("indices") {
                let (docs, store, shards) = held[node.index];
                fields.insert(
                    "indices".into(),
                    indices_stats(docs, store, shards, index_metrics),
                );
            }
        }
        nodes.insert(node.id.clone(), entry);
    }
    nodes_answer(shared, nodes)
}

/// The `indices` section for what a node holds (`docs`, `store`, `indexing`, `search`, …),
/// reduced to the asked index metrics.
fn indices_stats(docs: u64, store: u64, shards: u64, index_metrics: &str) -> Value {
    let all = json!({
        "docs": {"count": docs, "deleted": 0},
        "shard_stats": {"total_count": shards},
        "store": {"size_in_bytes": store, "total_data_set_size_in_bytes": store, "reserved_in_bytes": 0},
        "indexing": {
            "index_total": docs, "index_time_in_millis": docs / 4, "index_current": 0,
            "index_failed": 0, "delete_total": 0, "delete_time_in_millis": 0, "delete_current": 0,
            "noop_update_total": 0, "is_throttled": false, "throttle_time_in_millis": 0
        },
        "get": {"total": 12, "time_in_millis": 3, "exists_total": 11, "exists_time_in_millis": 3,
            "missing_total": 1, "missing_time_in_millis": 0, "current": 0},
        "search": {
            "open_contexts": 0, "query_total": 1500 + shards * 10, "query_time_in_millis": 2100,
            "query_current": 0, "fetch_total": 1400, "fetch_time_in_millis": 380, "fetch_current": 0,
            "scroll_total": 4, "scroll_time_in_millis": 90, "scroll_current": 0,
            "suggest_total": 0, "suggest_time_in_millis": 0, "suggest_current": 0
        },
        "merges": {"current": 0, "current_docs": 0, "current_size_in_bytes": 0, "total": 3,
            "total_time_in_millis": 40, "total_docs": docs, "total_size_in_bytes": store},
        "refresh": {"total": 40, "total_time_in_millis": 120, "external_total": 38,
            "external_total_time_in_millis": 110, "listeners": 0},
        "flush": {"total": 5, "periodic": 0, "total_time_in_millis": 30},
        "query_cache": {"memory_size_in_bytes": 0, "total_count": 0, "hit_count": 0,
            "miss_count": 0, "cache_size": 0, "cache_count": 0, "evictions": 0},
        "fielddata": {"memory_size_in_bytes": 0, "evictions": 0},
        "segments": {"count": shards * 2, "memory_in_bytes": 0}
    });
    if index_metrics == "_all" {
        return all;
    }
    apply_filter_path(&all, index_metrics)
}

/// `process`, `thread_pool`, `transport`, `http` and `breakers` (metric `breaker`), as
/// documented.
fn add_more_stats(
    fields: &mut Map<String, Value>,
    node: &SimNode,
    usage: NodeUsage,
    now_ms: u64,
    wanted: &dyn Fn(&str) -> bool,
) {
    if wanted("process") {
        fields.insert(
            "process".into(),
            json!({
                "timestamp": now_ms,
                "open_file_descriptors": 512,
                "max_file_descriptors": 1_048_576,
                "cpu": {"percent": usage.cpu_percent, "total_in_millis": 180_000},
                "mem": {"total_virtual_in_bytes": 6_000_000_000u64}
            }),
        );
    }
    if wanted("thread_pool") {
        // (name, threads, queue, active, completed); `write` has rejections.
        let pools: [(&str, u64, u64, u64, u64); 10] = [
            ("analyze", 0, 0, 0, 0),
            ("flush", 1, 0, 0, 5),
            ("force_merge", 1, 0, 0, 2),
            ("generic", 8, 0, 1, 9_200),
            ("get", 2, 0, 0, 120),
            ("management", 2, 0, 1, 4_800),
            ("refresh", 1, 0, 0, 3_600),
            ("search", 4, 2, 1, 15_000),
            ("snapshot", 1, 0, 0, 3),
            ("write", 2, 5, 2, 42_000),
        ];
        let mut thread_pool = Map::new();
        for (name, threads, queue, active, completed) in pools {
            let rejected = if name == "write" {
                17 * (node.index as u64 + 1)
            } else {
                0
            };
            thread_pool.insert(
                name.to_owned(),
                json!({"threads": threads, "queue": queue, "active": active,
                    "rejected": rejected, "largest": threads, "completed": completed}),
            );
        }
        fields.insert("thread_pool".into(), Value::Object(thread_pool));
    }
    if wanted("transport") {
        fields.insert(
            "transport".into(),
            json!({"server_open": 13, "total_outbound_connections": 12, "rx_count": 24_000,
                "rx_size_in_bytes": 18_000_000, "tx_count": 24_000, "tx_size_in_bytes": 21_000_000}),
        );
    }
    if wanted("http") {
        fields.insert(
            "http".into(),
            json!({"current_open": 4, "total_opened": 230}),
        );
    }
    if wanted("breaker") {
        let breaker = |limit: u64, estimated: u64, overhead: f64| {
            json!({"limit_size_in_bytes": limit, "limit_size": human(limit),
                "estimated_size_in_bytes": estimated, "estimated_size": human(estimated),
                "overhead": overhead, "tripped": 0})
        };
        let heap = usage.heap_max_bytes;
        fields.insert(
            "breakers".into(),
            json!({
                "request": breaker(heap * 6 / 10, 0, 1.0),
                "fielddata": breaker(heap * 4 / 10, 0, 1.03),
                "in_flight_requests": breaker(heap, 1_024, 2.0),
                "parent": breaker(heap * 95 / 100, usage.heap_used_bytes, 1.0)
            }),
        );
    }
}

fn human(bytes: u64) -> String {
    for (unit, size) in [("gb", 1u64 << 30), ("mb", 1 << 20), ("kb", 1 << 10)] {
        if bytes >= size {
            let text = format!("{:.1}", bytes as f64 / size as f64);
            return format!("{}{unit}", text.trim_end_matches(".0"));
        }
    }
    format!("{bytes}b")
}

fn node_stats(
    node: &SimNode,
    usage: NodeUsage,
    now_ms: u64,
    wanted: &dyn Fn(&str) -> bool,
) -> Value {
    let mut entry = json!({
        "timestamp": now_ms,
        "name": node.name,
        "transport_address": node.transport_address,
        "host": node.ip,
        "ip": node.transport_address,
        "roles": node.roles,
        "attributes": {}
    });
    let fields = entry.as_object_mut().expect("an object");
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
        let young_used = 50_000_000u64.min(usage.heap_used_bytes);
        fields.insert("jvm".into(), json!({
            "timestamp": now_ms,
            "uptime_in_millis": 3_600_000,
            "mem": {
                "heap_used_in_bytes": usage.heap_used_bytes,
                "heap_used_percent": usage.heap_used_bytes * 100 / usage.heap_max_bytes.max(1),
                "heap_committed_in_bytes": usage.heap_max_bytes,
                "heap_max_in_bytes": usage.heap_max_bytes,
                "non_heap_used_in_bytes": 150_000_000u64,
                "non_heap_committed_in_bytes": 160_000_000u64,
                "pools": {
                    "young": {"used_in_bytes": young_used, "max_in_bytes": 0, "peak_used_in_bytes": 60_000_000u64, "peak_max_in_bytes": 0},
                    "old": {"used_in_bytes": usage.heap_used_bytes - young_used, "max_in_bytes": usage.heap_max_bytes, "peak_used_in_bytes": usage.heap_used_bytes, "peak_max_in_bytes": usage.heap_max_bytes},
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
    entry
}
