//! The cluster views that depend on the routing: `_cat/shards`, `_cat/indices` (health),
//! `_cluster/health`, `_cluster/state` (nodes, routing) and `_cluster/stats` (counts). osmem
//! answers the rest of each; the routing and node parts are replaced by the simulated ones.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::nodes::SimNode;
use crate::routing::{Routing, ShardCopy, State, sync};
use crate::wire::{Call, Reply, es_error_with, json_response, ok};
use crate::{Flavor, Shared, forward, lock};

/// Syncs the routing with osmem, mapping a failure to a 502.
pub(crate) async fn synced(shared: &Shared) -> Result<(), Reply> {
    sync(shared).await.map_err(crate::wire::upstream_error)
}

/// The index names an expression names (`a,b`, wildcards, `_all`); an unknown concrete name is
/// the documented 404.
pub(crate) fn resolve(
    routing: &Routing,
    expression: Option<&str>,
) -> Result<Option<Vec<String>>, Reply> {
    let Some(expression) = expression.filter(|e| !e.is_empty() && *e != "_all" && *e != "*") else {
        return Ok(None);
    };
    let mut names = Vec::new();
    for part in expression.split(',') {
        let matched: Vec<&String> = routing
            .indices
            .keys()
            .filter(|name| crate::wire::wildcard(part, name))
            .collect();
        if matched.is_empty() && !part.contains('*') {
            return Err(es_error_with(
                404,
                "index_not_found_exception",
                &format!("no such index [{part}]"),
                json!({"index": part, "resource.id": part, "resource.type": "index_or_alias",
                    "index_uuid": "_na_"}),
            ));
        }
        names.extend(matched.into_iter().cloned());
    }
    Ok(Some(names))
}

/// Health of a set of copies: red with an inactive primary, yellow with an inactive replica.
pub(crate) fn status(copies: &[&ShardCopy]) -> &'static str {
    if copies.iter().any(|c| c.primary && !c.state.active()) {
        "red"
    } else if copies.iter().any(|c| !c.state.active()) {
        "yellow"
    } else {
        "green"
    }
}

fn counts(copies: &[&ShardCopy]) -> Value {
    let count = |f: &dyn Fn(&ShardCopy) -> bool| copies.iter().filter(|c| f(c)).count();
    json!({
        "active_primary_shards": count(&|c| c.primary && c.state.active()),
        "active_shards": count(&|c| c.state.active()),
        "relocating_shards": count(&|c| c.state == State::Relocating),
        "initializing_shards": count(&|c| c.state == State::Initializing),
        "unassigned_shards": count(&|c| c.state == State::Unassigned),
    })
}

fn merge(target: &mut Value, fields: Value) {
    if let (Some(target), Some(fields)) = (target.as_object_mut(), fields.as_object()) {
        target.extend(fields.clone());
    }
}

/// The health answer for the routing as it is now.
pub(crate) fn health_now(
    shared: &Shared,
    call: &Call,
    template: &Value,
    index: Option<&str>,
) -> Result<Value, Reply> {
    let routing = lock(&shared.routing);
    let indices = resolve(&routing, index)?;
    let copies = routing.copies_of(indices.as_deref());
    let mut health = template.clone();
    health["cluster_name"] = json!(shared.cluster_name);
    health["status"] = json!(status(&copies));
    health["number_of_nodes"] = json!(shared.nodes.len());
    health["number_of_data_nodes"] = json!(shared.nodes.len());
    merge(&mut health, counts(&copies));
    let active = copies.iter().filter(|c| c.state.active()).count();
    health["active_shards_percent_as_number"] = json!(if copies.is_empty() {
        100.0
    } else {
        active as f64 * 100.0 / copies.len() as f64
    });
    if shared.options.flavor == Flavor::Elasticsearch8
        && let Some(fields) = health.as_object_mut()
    {
        fields.remove("discovered_cluster_manager");
    }
    let level = call.param("level").unwrap_or("cluster");
    if let Some(fields) = health.as_object_mut() {
        fields.remove("indices");
    }
    if level == "indices" || level == "shards" {
        let mut per_index = Map::new();
        for (name, meta) in &routing.indices {
            if indices.as_ref().is_some_and(|names| !names.contains(name)) {
                continue;
            }
            let mine: Vec<&ShardCopy> = copies
                .iter()
                .filter(|c| c.index == *name)
                .copied()
                .collect();
            let mut entry = json!({
                "status": status(&mine),
                "number_of_shards": meta.shards,
                "number_of_replicas": meta.replicas,
            });
            merge(&mut entry, counts(&mine));
            if level == "shards" {
                let mut shards = Map::new();
                for shard in 0..meta.shards {
                    let group: Vec<&ShardCopy> =
                        mine.iter().filter(|c| c.shard == shard).copied().collect();
                    let mut item = json!({
                        "status": status(&group),
                        "primary_active": group.iter().any(|c| c.primary && c.state.active()),
                    });
                    merge(&mut item, counts(&group));
                    if let Some(fields) = item.as_object_mut() {
                        fields.remove("active_primary_shards");
                    }
                    shards.insert(shard.to_string(), item);
                }
                entry["shards"] = Value::Object(shards);
            }
            per_index.insert(name.clone(), entry);
        }
        health["indices"] = Value::Object(per_index);
    }
    Ok(health)
}

fn rank(status: &str) -> u8 {
    match status {
        "green" => 0,
        "yellow" => 1,
        _ => 2,
    }
}

/// A time value of the API (`30s`, `500ms`, `1m`).
pub(crate) fn time_value(text: &str) -> Option<Duration> {
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let number: u64 = text[..split].parse().ok()?;
    match &text[split..] {
        "ms" => Some(Duration::from_millis(number)),
        "s" => Some(Duration::from_secs(number)),
        "m" => Some(Duration::from_secs(number * 60)),
        "h" => Some(Duration::from_secs(number * 3600)),
        _ => None,
    }
}

/// `GET /_cluster/health[/<indices>]` with `level` and the `wait_for_*` conditions.
pub(crate) async fn health(shared: &Shared, call: &Call, segments: &[&str]) -> Reply {
    let template = match forward::get_ok(shared, "/_cluster/health").await {
        Ok(template) => template,
        Err(reply) => return reply,
    };
    let timeout = call
        .param("timeout")
        .and_then(time_value)
        .unwrap_or(Duration::from_secs(30));
    let deadline = Instant::now() + timeout;
    loop {
        if let Err(reply) = synced(shared).await {
            return reply;
        }
        let health = match health_now(shared, call, &template, segments.get(2).copied()) {
            Ok(health) => health,
            Err(reply) => return reply,
        };
        let status_met = call
            .param("wait_for_status")
            .is_none_or(|wanted| rank(health["status"].as_str().unwrap_or("red")) <= rank(wanted));
        let relocating_met =
            !call.flag("wait_for_no_relocating_shards") || health["relocating_shards"] == 0;
        let initializing_met =
            !call.flag("wait_for_no_initializing_shards") || health["initializing_shards"] == 0;
        if status_met && relocating_met && initializing_met {
            return ok(&health);
        }
        if Instant::now() >= deadline {
            let mut health = health;
            health["timed_out"] = json!(true);
            return json_response(408, &health);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `GET /_cluster/state[/<metrics>[/<indices>]]`: osmem's answer with the simulated nodes and
/// routing in place of its own.
pub(crate) async fn state(shared: &Shared, call: &Call, segments: &[&str]) -> Reply {
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let path = format!(
        "/{}{}",
        segments.join("/"),
        call.query_without(&["filter_path"])
    );
    let mut state = match forward::get_ok(shared, &path).await {
        Ok(state) => state,
        Err(reply) => return reply,
    };
    let nodes = &shared.nodes;
    let master = json!(nodes[0].id);
    let Some(fields) = state.as_object_mut() else {
        return ok(&state);
    };
    if fields.contains_key("master_node") {
        fields.insert("master_node".into(), master.clone());
    }
    if fields.contains_key("cluster_manager_node") {
        if shared.options.flavor == Flavor::Elasticsearch8 {
            fields.remove("cluster_manager_node");
        } else {
            fields.insert("cluster_manager_node".into(), master);
        }
    }
    if fields.contains_key("nodes") {
        fields.insert("nodes".into(), nodes_json(nodes));
    }
    let routing = lock(&shared.routing);
    let names = match resolve(&routing, segments.get(3).copied()) {
        Ok(Some(names)) => names,
        Ok(None) => routing.indices.keys().cloned().collect(),
        Err(reply) => return reply,
    };
    if fields.contains_key("routing_table") {
        fields.insert(
            "routing_table".into(),
            routing_table_json(&routing, &names, nodes),
        );
    }
    if let Some(blocks) = fields.get_mut("blocks") {
        add_closed_blocks(blocks, &routing, &names);
    }
    if fields.contains_key("routing_nodes") {
        fields.insert("routing_nodes".into(), routing_nodes_json(&routing, nodes));
    }
    ok(&state)
}

/// The block id of a closed index, in Elasticsearch and OpenSearch alike.
const INDEX_CLOSED_BLOCK: &str = "4";

/// Adds the documented closed-index block (`blocks.indices.<index>."4"`, "index closed",
/// read and write refused) for every closed index among `names`, beside the blocks osmem
/// reports.
fn add_closed_blocks(blocks: &mut Value, routing: &Routing, names: &[String]) {
    let Some(blocks) = blocks.as_object_mut() else {
        return;
    };
    for name in names {
        if routing.indices.get(name).is_some_and(|meta| !meta.open) {
            let indices = blocks
                .entry("indices")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Some(indices) = indices.as_object_mut() {
                let index = indices
                    .entry(name.clone())
                    .or_insert_with(|| Value::Object(Map::new()));
                if let Some(index) = index.as_object_mut() {
                    index.insert(
                        INDEX_CLOSED_BLOCK.into(),
                        json!({"description": "index closed", "retryable": false,
                            "levels": ["read", "write"]}),
                    );
                }
            }
        }
    }
}

/// The `nodes` section of the cluster state.
pub(crate) fn nodes_json(nodes: &[SimNode]) -> Value {
    let entries: Map<String, Value> = nodes
        .iter()
        .map(|node| {
            (
                node.id.clone(),
                json!({
                    "name": node.name,
                    "ephemeral_id": format!("{}-e", node.id),
                    "transport_address": node.transport_address,
                    "attributes": {},
                    "roles": node.roles,
                }),
            )
        })
        .collect();
    Value::Object(entries)
}

/// The `routing_table` section for the named indices.
pub(crate) fn routing_table_json(routing: &Routing, names: &[String], nodes: &[SimNode]) -> Value {
    let mut indices = Map::new();
    for copy in routing.copies_of(Some(names)) {
        let entry = indices
            .entry(copy.index.clone())
            .or_insert_with(|| json!({"shards": {}}));
        let shard = &mut entry["shards"][copy.shard.to_string()];
        if shard.is_null() {
            *shard = json!([]);
        }
        if let Some(list) = shard.as_array_mut() {
            list.push(copy.to_json(nodes));
        }
    }
    json!({"indices": indices})
}

/// The `routing_nodes` section: copies per node (a relocation's target as `INITIALIZING` on
/// its node) and the unassigned ones.
pub(crate) fn routing_nodes_json(routing: &Routing, nodes: &[SimNode]) -> Value {
    let mut by_node: Map<String, Value> = nodes
        .iter()
        .map(|node| (node.id.clone(), json!([])))
        .collect();
    let mut unassigned = Vec::new();
    for copy in routing.copies_of(None) {
        let Some(n) = copy.node else {
            unassigned.push(copy.to_json(nodes));
            continue;
        };
        if let Some(list) = by_node[&nodes[n].id].as_array_mut() {
            list.push(copy.to_json(nodes));
        }
        if let Some(target) = copy.relocating_to {
            let mut incoming = copy.clone();
            incoming.state = State::Initializing;
            (incoming.node, incoming.relocating_to) = (Some(target), Some(n));
            let mut entry = incoming.to_json(nodes);
            entry["allocation_id"] = json!({"id": format!("{}-r", copy.allocation_id),
                "relocation_id": copy.allocation_id});
            if let Some(list) = by_node[&nodes[target].id].as_array_mut() {
                list.push(entry);
            }
        }
    }
    json!({"unassigned": unassigned, "nodes": by_node})
}

/// `GET /_cluster/stats`: osmem's answer with the simulated node and shard counts.
pub(crate) async fn stats(shared: &Shared, call: &Call) -> Reply {
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let path = format!("/_cluster/stats{}", call.query_without(&["filter_path"]));
    let mut stats = match forward::get_ok(shared, &path).await {
        Ok(stats) => stats,
        Err(reply) => return reply,
    };
    let n = shared.nodes.len();
    stats["_nodes"] = json!({"total": n, "successful": n, "failed": 0});
    let count = |role: &str| {
        shared
            .nodes
            .iter()
            .filter(|node| node.roles.iter().any(|r| r == role))
            .count()
    };
    if let Some(counts) = stats["nodes"]["count"].as_object_mut() {
        for (role, value) in counts.iter_mut() {
            *value = json!(match role.as_str() {
                "total" => n,
                "coordinating_only" => 0,
                "master" | "cluster_manager" => count("master") + count("cluster_manager"),
                other => count(other),
            });
        }
        if shared.options.flavor == Flavor::Elasticsearch8 {
            counts.remove("cluster_manager");
        }
    }
    let routing = lock(&shared.routing);
    let copies = routing.copies_of(None);
    let active = copies.iter().filter(|c| c.state.active()).count();
    let primaries = copies
        .iter()
        .filter(|c| c.primary && c.state.active())
        .count();
    if stats["indices"]["shards"].is_object() {
        stats["indices"]["shards"]["total"] = json!(active);
        stats["indices"]["shards"]["primaries"] = json!(primaries);
        stats["indices"]["shards"]["replication"] = json!(if primaries == 0 {
            0.0
        } else {
            (active - primaries) as f64 / primaries as f64
        });
    }
    stats["status"] = json!(status(&copies));
    ok(&stats)
}
