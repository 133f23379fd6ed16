//! `GET /_nodes/stats` in its four documented path forms, for the simulated nodes, with
//! metric filters and `filter_path` applied as the clusters apply them.

use serde_json::{Map, Value, json};

use crate::http::{Call, Reply, now_millis, ok};
use crate::nodes::{SimNode, select};
use crate::{NodeUsage, Shared};

pub(crate) async fn handle(shared: &Shared, _call: &Call, segments: &[&str]) -> Reply {
    let (selector, metrics) = match segments {
        ["_nodes", "stats"] => ("_all", "_all"),
        ["_nodes", "stats", metrics, ..] => ("_all", *metrics),
        ["_nodes", node, "stats"] => (*node, "_all"),
        ["_nodes", node, "stats", metrics, ..] => (*node, *metrics),
        _ => ("_all", "_all"),
    };
    let wanted = |metric: &str| metrics == "_all" || metrics.split(',').any(|m| m == metric);
    let now_ms = now_millis();
    let mut nodes = Map::new();
    for node in select(&shared.nodes, selector) {
        nodes.insert(
            node.id.clone(),
            node_stats(node, shared.options.usage, now_ms, &wanted),
        );
    }
    let count = nodes.len();
    ok(&json!({
        "_nodes": {"total": count, "successful": count, "failed": 0},
        "cluster_name": shared.cluster_name,
        "nodes": nodes
    }))
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
            .filter(|pattern| crate::http::wildcard(pattern[0], key))
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

/// The `os`, `jvm` and `process` sections of nodes info (`GET /_nodes`), as documented.
pub(crate) fn add_info_metrics(
    fields: &mut Map<String, Value>,
    node: &SimNode,
    usage: NodeUsage,
    wanted: &dyn Fn(&str) -> bool,
) {
    let pid = 1000 + node.index;
    if wanted("os") {
        fields.insert(
            "os".into(),
            json!({
                "refresh_interval_in_millis": 1000,
                "name": "Linux",
                "pretty_name": "Ubuntu 22.04.4 LTS",
                "arch": "amd64",
                "version": "6.1.0",
                "available_processors": 2,
                "allocated_processors": 2
            }),
        );
    }
    if wanted("process") {
        fields.insert(
            "process".into(),
            json!({"refresh_interval_in_millis": 1000, "id": pid, "mlockall": false}),
        );
    }
    if wanted("jvm") {
        fields.insert(
            "jvm".into(),
            json!({
                "pid": pid,
                "version": "21.0.4",
                "vm_name": "OpenJDK 64-Bit Server VM",
                "vm_version": "21.0.4+7-LTS",
                "vm_vendor": "Eclipse Adoptium",
                "bundled_jdk": true,
                "using_bundled_jdk": true,
                "start_time_in_millis": now_millis().saturating_sub(3_600_000),
                "mem": {
                    "heap_init_in_bytes": usage.heap_max_bytes,
                    "heap_max_in_bytes": usage.heap_max_bytes,
                    "non_heap_init_in_bytes": 7_667_712,
                    "non_heap_max_in_bytes": 0,
                    "direct_max_in_bytes": 0
                },
                "gc_collectors": ["G1 Young Generation", "G1 Concurrent GC", "G1 Old Generation"],
                "memory_pools": ["CodeHeap 'non-nmethods'", "Metaspace", "CodeHeap 'profiled nmethods'",
                    "Compressed Class Space", "G1 Eden Space", "G1 Old Gen", "G1 Survivor Space",
                    "CodeHeap 'non-profiled nmethods'"],
                "using_compressed_ordinary_object_pointers": "true",
                "input_arguments": ["-Xms1g", "-Xmx1g", "-XX:+UseG1GC"]
            }),
        );
    }
}
