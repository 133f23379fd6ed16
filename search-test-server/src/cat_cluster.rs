//! The `_cat` tables that depend on the routing: `_cat/shards`, `_cat/allocation` and
//! `_cat/indices` (osmem's table with the routing's health).

use serde_json::{Map, Value, json};

use crate::cluster::{resolve, status, synced};
use crate::routing::ShardCopy;
use crate::wire::{Call, Reply};
use crate::{Flavor, Shared, cat, forward, lock};

/// `GET /_cat/shards[/<indices>]`.
pub(crate) async fn cat_shards(shared: &Shared, call: &Call, segments: &[&str]) -> Reply {
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let routing = lock(&shared.routing);
    let indices = match resolve(&routing, segments.get(2).copied()) {
        Ok(indices) => indices,
        Err(reply) => return reply,
    };
    let nodes = &shared.nodes;
    let rows: Vec<Map<String, Value>> = routing
        .copies_of(indices.as_deref())
        .into_iter()
        .map(|copy| {
            let mut row = Map::new();
            let text = |value: Option<String>| value.map_or(Value::Null, Value::String);
            let node = copy.node.map(|n| &nodes[n]);
            let node_column = match (node, copy.relocating_to.map(|n| &nodes[n])) {
                (Some(from), Some(to)) => {
                    Some(format!("{} -> {} {} {}", from.name, to.ip, to.id, to.name))
                }
                (Some(node), None) => Some(node.name.clone()),
                _ => None,
            };
            let store = copy.store.map(|bytes| cat::bytes(bytes, call));
            row.insert("index".into(), json!(copy.index));
            row.insert("shard".into(), json!(copy.shard.to_string()));
            row.insert("prirep".into(), json!(if copy.primary { "p" } else { "r" }));
            row.insert("state".into(), json!(copy.state.name()));
            row.insert("docs".into(), text(copy.docs.map(|d| d.to_string())));
            row.insert("store".into(), text(store.clone()));
            row.insert("dataset".into(), text(store));
            row.insert("ip".into(), text(node.map(|n| n.ip.clone())));
            row.insert("id".into(), text(node.map(|n| n.id.clone())));
            row.insert("node".into(), text(node_column));
            let info = copy.unassigned.as_ref();
            row.insert(
                "unassigned.reason".into(),
                text(info.map(|i| i.reason.to_owned())),
            );
            row.insert(
                "unassigned.at".into(),
                text(info.map(|i| crate::wire::iso_millis(i.at_millis))),
            );
            row.insert(
                "unassigned.for".into(),
                text(info.map(|i| {
                    format!(
                        "{}s",
                        crate::wire::now_millis().saturating_sub(i.at_millis) / 1000
                    )
                })),
            );
            row.insert(
                "unassigned.details".into(),
                text(info.and_then(|i| i.details.clone())),
            );
            row.insert("sync_id".into(), Value::Null);
            row
        })
        .collect();
    let mut defaults = vec!["index", "shard", "prirep", "state", "docs", "store"];
    if shared.options.flavor == Flavor::Elasticsearch8 {
        defaults.push("dataset");
    }
    defaults.extend(["ip", "node"]);
    let aliases: &[(&str, &str)] = &[
        ("i", "index"),
        ("idx", "index"),
        ("s", "shard"),
        ("sh", "shard"),
        ("p", "prirep"),
        ("pr", "prirep"),
        ("primaryOrReplica", "prirep"),
        ("st", "state"),
        ("d", "docs"),
        ("dc", "docs"),
        ("sto", "store"),
        ("n", "node"),
        ("ur", "unassigned.reason"),
        ("ua", "unassigned.at"),
        ("uf", "unassigned.for"),
        ("ud", "unassigned.details"),
    ];
    cat::render(call, &rows, &defaults, aliases)
}

/// `GET /_cat/allocation`: shards and disk per node, and a row for the unassigned copies.
pub(crate) async fn cat_allocation(shared: &Shared, call: &Call) -> Reply {
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let usage = shared.options.usage;
    let routing = lock(&shared.routing);
    let text = |value: String| Value::String(value);
    let used = usage.disk_total_bytes - usage.disk_available_bytes;
    let mut rows: Vec<Map<String, Value>> = shared
        .nodes
        .iter()
        .map(|node| {
            let held: Vec<&ShardCopy> = routing
                .copies
                .iter()
                .filter(|c| c.node == Some(node.index))
                .collect();
            let indices_bytes: u64 = held.iter().filter_map(|c| c.store).sum();
            let mut row = Map::new();
            row.insert("shards".into(), text(held.len().to_string()));
            row.insert("disk.indices".into(), text(cat::bytes(indices_bytes, call)));
            row.insert("disk.used".into(), text(cat::bytes(used, call)));
            row.insert(
                "disk.avail".into(),
                text(cat::bytes(usage.disk_available_bytes, call)),
            );
            row.insert(
                "disk.total".into(),
                text(cat::bytes(usage.disk_total_bytes, call)),
            );
            row.insert(
                "disk.percent".into(),
                text((used * 100 / usage.disk_total_bytes.max(1)).to_string()),
            );
            row.insert("host".into(), text(node.ip.clone()));
            row.insert("ip".into(), text(node.ip.clone()));
            row.insert("node".into(), text(node.name.clone()));
            row.insert(
                "node.role".into(),
                text(crate::nodes::role_letters(&node.roles)),
            );
            row
        })
        .collect();
    let unassigned = routing.copies.iter().filter(|c| c.node.is_none()).count();
    if unassigned > 0 {
        let mut row: Map<String, Value> = rows
            .first()
            .map(|first| first.keys().map(|key| (key.clone(), Value::Null)).collect())
            .unwrap_or_default();
        row.insert("shards".into(), text(unassigned.to_string()));
        row.insert("node".into(), text("UNASSIGNED".to_owned()));
        rows.push(row);
    }
    let defaults = [
        "shards",
        "disk.indices",
        "disk.used",
        "disk.avail",
        "disk.total",
        "disk.percent",
        "host",
        "ip",
        "node",
    ];
    let aliases: &[(&str, &str)] = &[
        ("s", "shards"),
        ("di", "disk.indices"),
        ("du", "disk.used"),
        ("da", "disk.avail"),
        ("dt", "disk.total"),
        ("dp", "disk.percent"),
        ("h", "host"),
        ("n", "node"),
        ("r", "node.role"),
    ];
    cat::render(call, &rows, &defaults, aliases)
}

/// `GET /_cat/indices[/<indices>]`: osmem's table with the health the routing gives.
pub(crate) async fn cat_indices(shared: &Shared, call: &Call, segments: &[&str]) -> Reply {
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let mut path = format!(
        "/_cat/indices{}",
        segments.get(2).map(|i| format!("/{i}")).unwrap_or_default()
    );
    let query = call.query_without(&["format", "h", "v", "s", "health", "filter_path", "help"]);
    path.push_str(if query.is_empty() { "?format=json" } else { "" });
    if !query.is_empty() {
        path.push_str(&query);
        path.push_str("&format=json");
    }
    let rows = match forward::get_ok(shared, &path).await {
        Ok(rows) => rows,
        Err(reply) => return reply,
    };
    let routing = lock(&shared.routing);
    let wanted = call.param("health");
    let rows: Vec<Map<String, Value>> = rows
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|row| {
            let mut row = row.as_object()?.clone();
            let name = row.get("index")?.as_str()?.to_owned();
            let copies = routing.copies_of(Some(std::slice::from_ref(&name)));
            let health = status(&copies);
            row.insert("health".into(), json!(health));
            // The total size counts every active copy, as the clusters count it.
            if row.get("store.size").is_some_and(|size| !size.is_null()) {
                let total: u64 = copies
                    .iter()
                    .filter(|c| c.state.active())
                    .filter_map(|c| c.store)
                    .sum();
                row.insert("store.size".into(), json!(cat::bytes(total, call)));
            }
            wanted.is_none_or(|wanted| wanted == health).then_some(row)
        })
        .collect();
    let defaults = [
        "health",
        "status",
        "index",
        "uuid",
        "pri",
        "rep",
        "docs.count",
        "docs.deleted",
        "store.size",
        "pri.store.size",
    ];
    let aliases: &[(&str, &str)] = &[
        ("h", "health"),
        ("s", "status"),
        ("i", "index"),
        ("idx", "index"),
        ("id", "uuid"),
        ("p", "pri"),
        ("shards.primary", "pri"),
        ("r", "rep"),
        ("shards.replica", "rep"),
        ("dc", "docs.count"),
        ("docsCount", "docs.count"),
        ("dd", "docs.deleted"),
        ("ss", "store.size"),
        ("storeSize", "store.size"),
        ("cd", "creation.date"),
        ("cds", "creation.date.string"),
    ];
    cat::render(call, &rows, &defaults, aliases)
}

/// `GET /_cat/health`: the same figures as `_cluster/health`.
pub(crate) async fn cat_health(shared: &Shared, call: &Call) -> Reply {
    let template = match forward::get_ok(shared, "/_cluster/health").await {
        Ok(template) => template,
        Err(reply) => return reply,
    };
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let health = match crate::cluster::health_now(shared, call, &template, None) {
        Ok(health) => health,
        Err(reply) => return reply,
    };
    let now = crate::wire::now_millis();
    let field = |key: &str| match &health[key] {
        Value::String(text) => text.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    };
    let mut row = Map::new();
    let mut put = |name: &str, value: String| {
        row.insert(name.to_owned(), json!(value));
    };
    put("epoch", (now / 1000).to_string());
    put("timestamp", crate::wire::iso_millis(now)[11..19].to_owned());
    put("cluster", field("cluster_name"));
    put("status", field("status"));
    put("node.total", field("number_of_nodes"));
    put("node.data", field("number_of_data_nodes"));
    put("shards", field("active_shards"));
    put("pri", field("active_primary_shards"));
    put("relo", field("relocating_shards"));
    put("init", field("initializing_shards"));
    put("unassign", field("unassigned_shards"));
    put("pending_tasks", field("number_of_pending_tasks"));
    put("max_task_wait_time", "-".to_owned());
    put(
        "active_shards_percent",
        format!(
            "{:.1}%",
            health["active_shards_percent_as_number"]
                .as_f64()
                .unwrap_or(100.0)
        ),
    );
    let defaults = [
        "epoch",
        "timestamp",
        "cluster",
        "status",
        "node.total",
        "node.data",
        "shards",
        "pri",
        "relo",
        "init",
        "unassign",
        "pending_tasks",
        "max_task_wait_time",
        "active_shards_percent",
    ];
    let aliases: &[(&str, &str)] = &[
        ("t", "epoch"),
        ("time", "epoch"),
        ("ts", "timestamp"),
        ("hms", "timestamp"),
        ("cl", "cluster"),
        ("st", "status"),
        ("nt", "node.total"),
        ("nodeTotal", "node.total"),
        ("nd", "node.data"),
        ("sh", "shards"),
        ("p", "pri"),
        ("r", "relo"),
        ("i", "init"),
        ("u", "unassign"),
        ("pt", "pending_tasks"),
        ("mtwt", "max_task_wait_time"),
        ("asp", "active_shards_percent"),
    ];
    cat::render(call, &[row], &defaults, aliases)
}
