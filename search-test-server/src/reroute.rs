//! `POST /_cluster/reroute`: `move`, `allocate_replica` and `cancel` commands, `retry_failed`,
//! `dry_run`, `explain` and `metric`, validated with the deciders and messages of a real cluster.

use std::time::Instant;

use serde_json::{Value, json};

use crate::allocation::{deciders_no, describe_node};
use crate::cluster::{nodes_json, routing_nodes_json, routing_table_json, synced};
use crate::nodes::SimNode;
use crate::routing::{Routing, State, UnassignedInfo};
use crate::wire::{Call, Reply, es_error, ok};
use crate::{Flavor, Shared, lock};

/// Resolves a node id or name.
fn resolve_node(nodes: &[SimNode], name: &str) -> Result<usize, String> {
    nodes
        .iter()
        .find(|node| node.id == name || node.name == name)
        .map(|node| node.index)
        .ok_or_else(|| format!("failed to resolve [{name}], no matching nodes"))
}

/// One command applied to `routing`: its explanation, or the 400 reason.
fn apply(
    routing: &mut Routing,
    command: &Value,
    shared: &Shared,
    explain: bool,
) -> Result<Value, String> {
    let nodes = &shared.nodes;
    let (name, args) = command
        .as_object()
        .and_then(|fields| fields.iter().next())
        .ok_or_else(|| "an allocation command must be an object with one field".to_owned())?;
    let text = |key: &str| {
        args[key]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("[{name}] missing {key}"))
    };
    let index = text("index")?;
    let shard = args["shard"]
        .as_u64()
        .ok_or_else(|| format!("[{name}] missing shard"))? as u32;
    let until = Instant::now() + shared.options.relocation;
    let explanation = |decision: &str, decider: &str, reason: String| {
        json!({"command": name, "parameters": args, "decisions": [
            {"decider": decider, "decision": decision, "explanation": reason}]})
    };
    let refuse = |reason: String, decider: &str, explanation_text: String| {
        if explain {
            Ok(explanation("NO", decider, explanation_text))
        } else {
            Err(reason)
        }
    };
    match name.as_str() {
        "move" => {
            let from = resolve_node(nodes, &text("from_node")?)?;
            let to = resolve_node(nodes, &text("to_node")?)?;
            let shard_id = format!("[{index}][{shard}]");
            let Some(position) = routing
                .copies
                .iter()
                .position(|c| c.index == index && c.shard == shard && c.node == Some(from))
            else {
                return refuse(
                    format!(
                        "[move_allocation] can't move {shard_id}, failed to find it on node {}",
                        describe_node(&nodes[from])
                    ),
                    "move_allocation_command",
                    format!("shard {shard_id} not found"),
                );
            };
            let copy = routing.copies[position].clone();
            if copy.state != State::Started {
                return refuse(
                    format!(
                        "[move_allocation] can't move {shard_id}, shard is not started (state = {}]",
                        copy.state.name()
                    ),
                    "move_allocation_command",
                    format!("shard {shard_id} has not been started"),
                );
            }
            let no = deciders_no(routing, &copy, to, nodes);
            if let Some(first) = no.first() {
                let reasons: Vec<String> = no
                    .iter()
                    .map(|d| format!("NO({})", d["explanation"].as_str().unwrap_or_default()))
                    .collect();
                return refuse(
                    format!(
                        "[move_allocation] can't move {shard_id}, from {}, to {}, since its not allowed, reason: [{}]",
                        describe_node(&nodes[from]),
                        describe_node(&nodes[to]),
                        reasons.join("; ")
                    ),
                    first["decider"].as_str().unwrap_or("same_shard"),
                    first["explanation"].as_str().unwrap_or_default().to_owned(),
                );
            }
            let moving = &mut routing.copies[position];
            moving.state = State::Relocating;
            moving.relocating_to = Some(to);
            moving.until = Some(until);
            Ok(explanation(
                "YES",
                "move_allocation_command",
                format!(
                    "shard {shard_id} will be moved from {} to {}",
                    nodes[from].name, nodes[to].name
                ),
            ))
        }
        "allocate_replica" => {
            let to = resolve_node(nodes, &text("node")?)?;
            let Some(position) = routing.copies.iter().position(|c| {
                c.index == index && c.shard == shard && !c.primary && c.state == State::Unassigned
            }) else {
                return refuse(
                    format!(
                        "[allocate_replica] all copies of [{index}][{shard}] are already assigned. Use the move allocation command instead"
                    ),
                    "allocate_replica_allocation_command",
                    "all copies are already assigned".to_owned(),
                );
            };
            let mut copy = routing.copies[position].clone();
            copy.unassigned = None; // a manual allocation ignores the retry limit
            let no = deciders_no(routing, &copy, to, nodes);
            if let Some(first) = no.first() {
                return refuse(
                    format!(
                        "[allocate_replica] allocation of [{index}][{shard}] on node {} is not allowed, reason: [NO({})]",
                        describe_node(&nodes[to]),
                        first["explanation"].as_str().unwrap_or_default()
                    ),
                    first["decider"].as_str().unwrap_or("same_shard"),
                    first["explanation"].as_str().unwrap_or_default().to_owned(),
                );
            }
            let target = &mut routing.copies[position];
            (target.state, target.node, target.until, target.unassigned) =
                (State::Initializing, Some(to), Some(until), None);
            Ok(explanation(
                "YES",
                "allocate_replica_allocation_command",
                format!(
                    "shard [{index}][{shard}] will be allocated on {}",
                    nodes[to].name
                ),
            ))
        }
        "cancel" => {
            let on = resolve_node(nodes, &text("node")?)?;
            let allow_primary = args["allow_primary"].as_bool().unwrap_or(false);
            let Some(position) = routing.copies.iter().position(|c| {
                c.index == index
                    && c.shard == shard
                    && (c.node == Some(on) || c.relocating_to == Some(on))
            }) else {
                return refuse(
                    format!(
                        "[cancel_allocation] can't cancel [{index}][{shard}], failed to find it on node {}",
                        describe_node(&nodes[on])
                    ),
                    "cancel_allocation_command",
                    "shard not found".to_owned(),
                );
            };
            let copy = &mut routing.copies[position];
            if copy.primary && !allow_primary {
                return refuse(
                    format!(
                        "[cancel_allocation] can't cancel [{index}][{shard}] on node {}, shard is primary and {}, allow_primary is false",
                        describe_node(&nodes[on]),
                        copy.state.name().to_lowercase()
                    ),
                    "cancel_allocation_command",
                    "shard is primary".to_owned(),
                );
            }
            if copy.state == State::Relocating {
                (copy.state, copy.relocating_to, copy.until) = (State::Started, None, None);
            } else {
                (copy.state, copy.node, copy.until) = (State::Unassigned, None, None);
                copy.unassigned = Some(UnassignedInfo::new("REROUTE_CANCELLED"));
            }
            Ok(explanation(
                "YES",
                "cancel_allocation_command",
                format!(
                    "shard [{index}][{shard}] on node {} can be cancelled",
                    nodes[on].name
                ),
            ))
        }
        other => Err(format!("unknown allocation command [{other}]")),
    }
}

/// `POST /_cluster/reroute` with `commands`, `dry_run`, `explain`, `retry_failed`, `metric`.
pub(crate) async fn reroute(shared: &Shared, call: &Call) -> Reply {
    let body = match call.json() {
        Ok(body) => body.unwrap_or_else(|| json!({})),
        Err(reply) => return reply,
    };
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let commands = body["commands"].as_array().cloned().unwrap_or_default();
    let explain = call.flag("explain");
    let mut routing_guard = lock(&shared.routing);
    let mut routing = Routing::clone(&routing_guard);
    let mut explanations = Vec::new();
    for command in &commands {
        match apply(&mut routing, command, shared, explain) {
            Ok(explanation) => explanations.push(explanation),
            Err(reason) => return es_error(400, "illegal_argument_exception", &reason),
        }
    }
    if call.flag("retry_failed") {
        let until = Instant::now() + shared.options.relocation;
        let node_count = shared.nodes.len();
        for position in 0..routing.copies.len() {
            let copy = &routing.copies[position];
            if copy.state != State::Unassigned
                || copy
                    .unassigned
                    .as_ref()
                    .is_none_or(|i| i.failed_attempts == 0)
            {
                continue;
            }
            let (index, shard) = (copy.index.clone(), copy.shard);
            let free = routing.free_node(&index, shard, node_count);
            let copy = &mut routing.copies[position];
            match free {
                Some(node) => {
                    (copy.state, copy.node, copy.until, copy.unassigned) =
                        (State::Initializing, Some(node), Some(until), None);
                }
                None => {
                    if let Some(info) = copy.unassigned.as_mut() {
                        info.failed_attempts = 0;
                    }
                }
            }
        }
    }
    let dry_run = call.flag("dry_run");
    let mut answer = json!({"acknowledged": true});
    if call.param("metric") != Some("none") {
        let nodes = &shared.nodes;
        let names: Vec<String> = routing.indices.keys().cloned().collect();
        let mut state = json!({
            "cluster_uuid": "osmem-cluster",
            "version": 1,
            "state_uuid": "search-test-server",
            "master_node": nodes[0].id,
            "blocks": {},
            "nodes": nodes_json(nodes),
            "routing_table": routing_table_json(&routing, &names, nodes),
            "routing_nodes": routing_nodes_json(&routing, nodes),
        });
        if shared.options.flavor == Flavor::OpenSearch2 {
            state["cluster_manager_node"] = json!(nodes[0].id);
        }
        answer["state"] = state;
    }
    if explain {
        answer["explanations"] = json!(explanations);
    }
    if !dry_run {
        *routing_guard = routing;
    }
    ok(&answer)
}
