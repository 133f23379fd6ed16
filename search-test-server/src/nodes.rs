//! The simulated nodes: the root document, `_nodes` (info) and `_cat/nodes`.

use serde_json::{Map, Value, json};

use crate::wire::{Call, Reply, ok};
use crate::{Flavor, NodeUsage, Options, Shared, cat, forward};

/// The version an Elasticsearch 8 flavoured server announces.
pub(crate) const ES8_VERSION: &str = "8.15.3";

/// One simulated node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimNode {
    /// Position in the cluster (0 is the elected master).
    pub index: usize,
    pub id: String,
    pub name: String,
    pub ip: String,
    /// `ip:port` of the transport layer.
    pub transport_address: String,
    /// `ip:port` of HTTP (this server's own address).
    pub http_address: String,
    pub roles: Vec<String>,
    /// The product version the node announces (osmem's for OpenSearch, 8.x for Elasticsearch).
    pub version: String,
}

/// The cluster's name and nodes: osmem's own node when there is one, else `node-1`… with
/// deterministic ids.
pub(crate) async fn simulated(
    client: &reqwest::Client,
    osmem: &str,
    options: &Options,
    http_address: &str,
) -> anyhow::Result<(String, Vec<SimNode>)> {
    let info: Value = client
        .get(format!("{osmem}/_nodes"))
        .send()
        .await
        .map_err(|error| anyhow::anyhow!("osmem at {osmem} does not answer: {error}"))?
        .json()
        .await?;
    let cluster_name = info["cluster_name"].as_str().unwrap_or("osmem").to_owned();
    let (osmem_id, osmem_node) = info["nodes"]
        .as_object()
        .and_then(|nodes| nodes.iter().next())
        .map(|(id, node)| (id.clone(), node.clone()))
        .ok_or_else(|| anyhow::anyhow!("osmem's _nodes lists no node"))?;
    let roles: Vec<String> = match options.flavor {
        Flavor::Elasticsearch8 => ES8_ROLES.iter().map(|role| role.to_string()).collect(),
        Flavor::OpenSearch2 if options.nodes == 1 => {
            serde_json::from_value(osmem_node["roles"].clone()).unwrap_or_default()
        }
        Flavor::OpenSearch2 => OS_ROLES.iter().map(|role| role.to_string()).collect(),
    };
    let version = match options.flavor {
        Flavor::Elasticsearch8 => ES8_VERSION.to_owned(),
        Flavor::OpenSearch2 => osmem_node["version"]
            .as_str()
            .unwrap_or("2.19.0")
            .to_owned(),
    };
    if options.nodes == 1 {
        let ip = osmem_node["ip"].as_str().unwrap_or("127.0.0.1").to_owned();
        return Ok((
            cluster_name,
            vec![SimNode {
                index: 0,
                name: osmem_node["name"].as_str().unwrap_or(&osmem_id).to_owned(),
                id: osmem_id,
                transport_address: osmem_node["transport_address"]
                    .as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("{ip}:9300")),
                ip,
                http_address: http_address.to_owned(),
                roles,
                version,
            }],
        ));
    }
    let nodes = (0..options.nodes)
        .map(|index| SimNode {
            index,
            id: node_id(index),
            name: format!("node-{}", index + 1),
            ip: "127.0.0.1".to_owned(),
            transport_address: format!("127.0.0.1:{}", 9300 + index),
            http_address: http_address.to_owned(),
            roles: roles.clone(),
            version: version.clone(),
        })
        .collect();
    Ok((cluster_name, nodes))
}

const ES8_ROLES: [&str; 11] = [
    "data",
    "data_cold",
    "data_content",
    "data_frozen",
    "data_hot",
    "data_warm",
    "ingest",
    "master",
    "ml",
    "remote_cluster_client",
    "transform",
];
const OS_ROLES: [&str; 4] = ["cluster_manager", "data", "ingest", "remote_cluster_client"];

/// A 22-character URL-safe id like the clusters' (random there, derived from the position here).
fn node_id(index: usize) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut state = 0x9E37_79B9_7F4A_7C15u64.wrapping_mul(index as u64 + 1);
    (0..22)
        .map(|_| {
            state ^= state >> 33;
            state = state.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
            state ^= state >> 29;
            ALPHABET[(state % 64) as usize] as char
        })
        .collect()
}

/// The abbreviation `_cat/nodes` shows in `node.role`.
pub(crate) fn role_letters(roles: &[String]) -> String {
    let mut letters: Vec<char> = roles
        .iter()
        .map(|role| match role.as_str() {
            "data_cold" => 'c',
            "data" => 'd',
            "data_frozen" => 'f',
            "data_hot" => 'h',
            "ingest" => 'i',
            "ml" => 'l',
            "master" | "cluster_manager" => 'm',
            "remote_cluster_client" => 'r',
            "data_content" => 's',
            "transform" => 't',
            "voting_only" => 'v',
            "data_warm" => 'w',
            _ => '-',
        })
        .collect();
    letters.sort_unstable();
    letters.into_iter().collect()
}

/// The nodes a selector names (`_all`, `_local`, `_master`, ids, names, wildcards, `role:true`).
pub(crate) fn select<'a>(nodes: &'a [SimNode], selector: &str) -> Vec<&'a SimNode> {
    let mut chosen = vec![false; nodes.len()];
    for part in selector.split(',').map(str::trim) {
        for node in nodes {
            let hit = match part {
                "" | "_all" | "*" => true,
                "_local" | "_master" | "_cluster_manager" => node.index == 0,
                _ => match part.split_once(':') {
                    Some((role, value)) if !part.contains('*') || role.ends_with("true") => {
                        let has = node.roles.iter().any(|r| r == role)
                            || (role == "master"
                                && node.roles.iter().any(|r| r == "cluster_manager"))
                            || (role == "cluster_manager"
                                && node.roles.iter().any(|r| r == "master"));
                        has == (value == "true")
                    }
                    _ => {
                        node.id == part
                            || crate::wire::wildcard(part, &node.name)
                            || crate::wire::wildcard(part, &node.ip)
                    }
                },
            };
            chosen[node.index] |= hit;
        }
    }
    nodes.iter().filter(|node| chosen[node.index]).collect()
}

/// `GET /`: osmem's document, or an Elasticsearch 8 one.
pub(crate) async fn root(shared: &Shared) -> Option<Reply> {
    if shared.options.flavor == Flavor::OpenSearch2 && shared.options.nodes == 1 {
        return None;
    }
    let osmem = match forward::get_ok(shared, "/").await {
        Ok(osmem) => osmem,
        Err(reply) => return Some(reply),
    };
    let name = &shared.nodes[0].name;
    Some(ok(&match shared.options.flavor {
        Flavor::OpenSearch2 => {
            let mut document = osmem;
            document["name"] = json!(name);
            document
        }
        Flavor::Elasticsearch8 => json!({
            "name": name,
            "cluster_name": osmem["cluster_name"],
            "cluster_uuid": osmem["cluster_uuid"],
            "version": {
                "number": ES8_VERSION,
                "build_flavor": "default",
                "build_type": "docker",
                "build_hash": "0b8a09b6d7bd4cc2ad6a8d2e1b81ddb1a49e2a47",
                "build_date": "2024-10-11T08:49:25.125402231Z",
                "build_snapshot": false,
                "lucene_version": "9.11.1",
                "minimum_wire_compatibility_version": "7.17.0",
                "minimum_index_compatibility_version": "7.0.0"
            },
            "tagline": "You Know, for Search"
        }),
    }))
}

const INFO_METRICS: [&str; 13] = [
    "settings",
    "os",
    "process",
    "jvm",
    "thread_pool",
    "transport",
    "http",
    "plugins",
    "ingest",
    "aggregations",
    "indices",
    "_all",
    "_none",
];

/// `GET /_nodes`, `/_nodes/<nodes or metrics>`, `/_nodes/<nodes>/<metrics>`.
pub(crate) async fn info(shared: &Shared, _call: &Call, segments: &[&str]) -> Reply {
    let (selector, metrics) = match segments {
        [_, one] if one.split(',').all(|part| INFO_METRICS.contains(&part)) => ("_all", *one),
        [_, nodes] => (*nodes, "_all"),
        [_, nodes, metrics] => (*nodes, *metrics),
        _ => ("_all", "_all"),
    };
    let template = match forward::get_ok(shared, "/_nodes").await {
        Ok(info) => info["nodes"]
            .as_object()
            .and_then(|nodes| nodes.values().next().cloned())
            .unwrap_or_else(|| json!({})),
        Err(reply) => return reply,
    };
    let wanted = |metric: &str| metrics == "_all" || metrics.split(',').any(|m| m == metric);
    let mut nodes = Map::new();
    for node in select(&shared.nodes, selector) {
        let mut entry = template.clone();
        entry["name"] = json!(node.name);
        entry["transport_address"] = json!(node.transport_address);
        entry["host"] = json!(node.ip);
        entry["ip"] = json!(node.ip);
        entry["roles"] = json!(node.roles);
        if shared.options.flavor == Flavor::Elasticsearch8 {
            entry["version"] = json!(node.version);
            entry["build_flavor"] = json!("default");
            entry["build_type"] = json!("docker");
        }
        if let Some(fields) = entry.as_object_mut() {
            fields.remove("http");
            if wanted("http") {
                fields.insert(
                    "http".into(),
                    json!({
                        "bound_address": [node.http_address],
                        "publish_address": node.http_address,
                        "max_content_length_in_bytes": 104_857_600
                    }),
                );
            }
            add_info_metrics(fields, node, shared.options.usage, &wanted);
        }
        nodes.insert(node.id.clone(), entry);
    }
    nodes_answer(shared, nodes)
}

/// The envelope of every `_nodes` answer: the `_nodes` counts, the cluster name and `nodes`.
pub(crate) fn nodes_answer(shared: &Shared, nodes: Map<String, Value>) -> Reply {
    let count = nodes.len();
    ok(&json!({
        "_nodes": {"total": count, "successful": count, "failed": 0},
        "cluster_name": shared.cluster_name,
        "nodes": nodes
    }))
}

/// `GET /_cat/nodes` (`format`, `h`, `v`, `s`, `full_id`).
pub(crate) fn cat(shared: &Shared, call: &Call) -> Reply {
    let usage = shared.options.usage;
    let es = shared.options.flavor == Flavor::Elasticsearch8;
    let master_column = if es { "master" } else { "cluster_manager" };
    let heap_percent = usage.heap_used_bytes * 100 / usage.heap_max_bytes.max(1);
    let disk_used = usage.disk_total_bytes - usage.disk_available_bytes;
    let full_id = call.flag("full_id");
    let rows: Vec<Map<String, Value>> = shared
        .nodes
        .iter()
        .map(|node| {
            let id = if full_id {
                node.id.clone()
            } else {
                node.id.chars().take(4).collect()
            };
            let port = node.transport_address.rsplit(':').next().unwrap_or("9300");
            let mut row = Map::new();
            let mut put = |name: &str, value: String| {
                row.insert(name.to_owned(), json!(value));
            };
            put("id", id);
            put("pid", std::process::id().to_string());
            put("ip", node.ip.clone());
            put("port", port.to_owned());
            put("http_address", node.http_address.clone());
            put("version", node.version.clone());
            put("heap.current", cat::bytes(usage.heap_used_bytes, call));
            put("heap.percent", heap_percent.to_string());
            put("heap.max", cat::bytes(usage.heap_max_bytes, call));
            put("ram.current", cat::bytes(5 << 30, call));
            put("ram.percent", "62".to_owned());
            put("ram.max", cat::bytes(8 << 30, call));
            put("file_desc.current", "512".to_owned());
            put("file_desc.percent", "0".to_owned());
            put("file_desc.max", "1048576".to_owned());
            put("cpu", usage.cpu_percent.to_string());
            put("load_1m", "0.42".to_owned());
            put("load_5m", "0.35".to_owned());
            put("load_15m", "0.30".to_owned());
            put("uptime", "1h".to_owned());
            put("node.role", role_letters(&node.roles));
            put("node.roles", node.roles.join(","));
            put(
                master_column,
                if node.index == 0 { "*" } else { "-" }.to_owned(),
            );
            put("name", node.name.clone());
            put("disk.total", cat::bytes(usage.disk_total_bytes, call));
            put("disk.used", cat::bytes(disk_used, call));
            put("disk.avail", cat::bytes(usage.disk_available_bytes, call));
            put(
                "disk.used_percent",
                format!(
                    "{:.2}",
                    disk_used as f64 * 100.0 / usage.disk_total_bytes.max(1) as f64
                ),
            );
            row
        })
        .collect();
    let mut defaults = vec![
        "ip",
        "heap.percent",
        "ram.percent",
        "cpu",
        "load_1m",
        "load_5m",
        "load_15m",
        "node.role",
    ];
    if !es {
        defaults.push("node.roles");
    }
    defaults.extend([master_column, "name"]);
    let aliases: &[(&str, &str)] = &[
        ("nodeId", "id"),
        ("hp", "heap.percent"),
        ("rp", "ram.percent"),
        ("r", "node.role"),
        ("role", "node.role"),
        ("nodeRole", "node.role"),
        ("m", master_column),
        ("n", "name"),
        ("v", "version"),
        ("l", "load_1m"),
        ("dt", "disk.total"),
        ("du", "disk.used"),
        ("d", "disk.avail"),
        ("dup", "disk.used_percent"),
        ("hc", "heap.current"),
        ("hm", "heap.max"),
        ("u", "uptime"),
    ];
    cat::render(call, &rows, &defaults, aliases)
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
                "start_time_in_millis": crate::wire::now_millis().saturating_sub(3_600_000),
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

/// `GET /_cat/master` (and OpenSearch's `_cat/cluster_manager`): the elected node.
pub(crate) fn cat_master(shared: &Shared, call: &Call) -> Reply {
    let node = &shared.nodes[0];
    let mut row = Map::new();
    row.insert("id".into(), json!(node.id));
    row.insert("host".into(), json!(node.ip));
    row.insert("ip".into(), json!(node.ip));
    row.insert("node".into(), json!(node.name));
    cat::render(
        call,
        &[row],
        &["id", "host", "ip", "node"],
        &[("h", "host"), ("n", "node")],
    )
}
