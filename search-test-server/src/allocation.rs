//! `_cluster/allocation/explain` and `_cluster/reroute` over the simulated routing, with the
//! deciders a real cluster would consult here (`same_shard`, `max_retry`) and its messages.

use std::time::Instant;

use serde_json::{Value, json};

use crate::cluster::{nodes_json, routing_nodes_json, routing_table_json, synced};
use crate::nodes::{SimNode, role_letters};
use crate::routing::{Routing, ShardCopy, State, UnassignedInfo};
use crate::wire::{Call, Reply, es_error, iso_millis, ok};
use crate::{Flavor, Shared, lock};

/// `{node-1}{id}{ephemeral}{host}{address}{transport}{roles}`, as a node prints in messages.
fn describe_node(node: &SimNode) -> String {
    format!(
        "{{{}}}{{{}}}{{{}-e}}{{{}}}{{{}}}{{{}}}{{{}}}",
        node.name,
        node.id,
        node.id,
        node.ip,
        node.ip,
        node.transport_address,
        role_letters(&node.roles)
    )
}

/// `[index][0], node[id], [P], s[STARTED], a[id=…]`, as a shard routing prints.
fn describe_copy(copy: &ShardCopy, nodes: &[SimNode]) -> String {
    format!(
        "[{}][{}], node[{}], {}, s[{}], a[id={}]",
        copy.index,
        copy.shard,
        copy.node.map(|n| nodes[n].id.as_str()).unwrap_or("null"),
        if copy.primary { "[P]" } else { "[R]" },
        copy.state.name(),
        copy.allocation_id
    )
}

/// The deciders' NO decisions for putting `copy` on `node`.
fn deciders_no(routing: &Routing, copy: &ShardCopy, node: usize, nodes: &[SimNode]) -> Vec<Value> {
    let mut no = Vec::new();
    if let Some(info) = &copy.unassigned
        && info.failed_attempts >= 5
    {
        no.push(json!({
            "decider": "max_retry",
            "decision": "NO",
            "explanation": format!(
                "shard has exceeded the maximum number of retries [5] on failed allocation attempts - manually call [/_cluster/reroute?retry_failed=true] to retry, [unassigned_info[[reason={}], at[{}], failed_attempts[{}], failed_nodes[[{}]], delayed=false, details[{}], allocation_status[deciders_no]]]",
                info.reason,
                iso_millis(info.at_millis),
                info.failed_attempts,
                info.failed_nodes.join(", "),
                info.details.clone().unwrap_or_default()
            )
        }));
    }
    if let Some(held) = routing.copies.iter().find(|other| {
        other.index == copy.index
            && other.shard == copy.shard
            && other.allocation_id != copy.allocation_id
            && other.occupies(node)
    }) {
        no.push(json!({
            "decider": "same_shard",
            "decision": "NO",
            "explanation": format!(
                "a copy of this shard is already allocated to this node [{}]",
                describe_copy(held, nodes)
            )
        }));
    }
    if !copy.primary
        && !routing.copies.iter().any(|c| {
            c.index == copy.index && c.shard == copy.shard && c.primary && c.state.active()
        })
    {
        no.push(json!({
            "decider": "replica_after_primary_active",
            "decision": "NO",
            "explanation": "primary shard for this replica is not yet active"
        }));
    }
    no
}

/// The deciders shown for one node: the NO ones, and with `include_yes_decisions` the YES ones
/// of the deciders modelled here too. Also whether any said NO.
fn shown_deciders(
    routing: &Routing,
    copy: &ShardCopy,
    node: usize,
    nodes: &[SimNode],
    include_yes: bool,
) -> (Vec<Value>, bool) {
    let no = deciders_no(routing, copy, node, nodes);
    let refused = !no.is_empty();
    if !include_yes {
        return (no, refused);
    }
    let mut all = no.clone();
    let mut yes = |decider: &str, explanation: &str| {
        if !no.iter().any(|d| d["decider"] == decider) {
            all.push(json!({"decider": decider, "decision": "YES", "explanation": explanation}));
        }
    };
    yes("max_retry", "shard has no previous failures");
    yes("same_shard", "this node does not hold a copy of this shard");
    if !copy.primary {
        yes(
            "replica_after_primary_active",
            "primary shard for this replica is already active",
        );
    }
    (all, refused)
}

fn node_header(node: &SimNode, flavor: Flavor) -> Value {
    let mut header = json!({
        "node_id": node.id,
        "node_name": node.name,
        "transport_address": node.transport_address,
        "node_attributes": {},
    });
    if flavor == Flavor::Elasticsearch8 {
        header["roles"] = json!(node.roles);
    }
    header
}

/// `GET|POST /_cluster/allocation/explain`: the shard named in the body (or, as later
/// Elasticsearch 8 releases accept, in the query), else the first unassigned one.
pub(crate) async fn explain(shared: &Shared, call: &Call) -> Reply {
    let mut body = match call.json() {
        Ok(body) => body.unwrap_or_else(|| json!({})),
        Err(reply) => return reply,
    };
    if !body.is_object() {
        return es_error(
            400,
            "x_content_parse_exception",
            "[1:1] [cluster/allocation/explain] expected an object as the request body",
        );
    }
    for key in ["index", "shard", "primary", "current_node"] {
        if let Some(value) = call.param(key) {
            body[key] = match key {
                "shard" => value.parse::<u64>().map_or(json!(value), |n| json!(n)),
                "primary" => json!(value == "true" || value.is_empty()),
                _ => json!(value),
            };
        }
    }
    let include_yes = call.flag("include_yes_decisions");
    if let Err(reply) = synced(shared).await {
        return reply;
    }
    let flavor = shared.options.flavor;
    let nodes = &shared.nodes;
    let routing = lock(&shared.routing);
    let any = body.as_object().is_none_or(|fields| fields.is_empty());
    let copy = if any {
        let first = routing
            .copies_of(None)
            .into_iter()
            .find(|c| c.state == State::Unassigned);
        match first {
            Some(copy) => copy.clone(),
            None => {
                let reason = match flavor {
                    Flavor::Elasticsearch8 => "No shard was specified in the request which means the response should explain a randomly-chosen unassigned shard, but there are no unassigned shards in this cluster. To explain the allocation of an assigned shard you must specify the target shard in the request.".to_owned(),
                    Flavor::OpenSearch2 => "unable to find any unassigned shards to explain [ClusterAllocationExplainRequest[useAnyUnassignedShard=true,includeYesDecisions?=false]".to_owned(),
                };
                return es_error(400, "illegal_argument_exception", &reason);
            }
        }
    } else {
        let index = body["index"].as_str();
        let shard = body["shard"].as_u64();
        let primary = body["primary"].as_bool();
        let mut missing = Vec::new();
        for (name, absent) in [
            ("index", index.is_none()),
            ("shard", shard.is_none()),
            ("primary", primary.is_none()),
        ] {
            if absent {
                missing.push(format!("{}: {name} must be specified;", missing.len() + 1));
            }
        }
        if !missing.is_empty() {
            return es_error(
                400,
                "action_request_validation_exception",
                &format!("Validation Failed: {}", missing.join(" ")),
            );
        }
        let (index, shard, primary) = (
            index.unwrap_or_default(),
            shard.unwrap_or_default() as u32,
            primary.unwrap_or_default(),
        );
        if !routing.indices.contains_key(index) {
            return crate::wire::es_error_with(
                404,
                "index_not_found_exception",
                &format!("no such index [{index}]"),
                json!({"index": index, "resource.id": index, "resource.type": "index_expression", "index_uuid": "_na_"}),
            );
        }
        let current = body["current_node"].as_str();
        let on_current = |c: &&ShardCopy| {
            current.is_none_or(|wanted| {
                c.node
                    .is_some_and(|n| nodes[n].id == wanted || nodes[n].name == wanted)
            })
        };
        let candidates: Vec<&ShardCopy> = routing
            .copies
            .iter()
            .filter(|c| c.index == index && c.shard == shard && c.primary == primary)
            .filter(on_current)
            .collect();
        // An unassigned copy first when there is one, as the clusters pick.
        match candidates
            .iter()
            .find(|c| c.state == State::Unassigned)
            .or(candidates.first())
        {
            Some(copy) => (*copy).clone(),
            None => {
                return es_error(
                    400,
                    "illegal_argument_exception",
                    &format!(
                        "unable to find any shards to explain [ClusterAllocationExplainRequest[index={index},shard={shard},primary?={primary},current_node={},includeYesDecisions?=false]] in the routing table",
                        current.unwrap_or("null")
                    ),
                );
            }
        }
    };
    let mut answer = json!({
        "index": copy.index,
        "shard": copy.shard,
        "primary": copy.primary,
        "current_state": copy.state.name().to_lowercase(),
    });
    if copy.state == State::Unassigned {
        unassigned_explanation(&mut answer, &routing, &copy, nodes, flavor, include_yes);
        if any && flavor == Flavor::Elasticsearch8 {
            answer["note"] = json!(
                "No shard was specified in the explain API request, so this response explains a randomly chosen unassigned shard. There may be other unassigned shards in this cluster which cannot be assigned for different reasons. It may not be possible to assign this shard until one of the other shards is assigned correctly. To learn more about troubleshooting unassigned shards, see https://www.elastic.co/guide/en/elasticsearch/reference/8.15/red-yellow-cluster-status.html"
            );
        }
    } else {
        assigned_explanation(&mut answer, &routing, &copy, nodes, flavor, include_yes);
    }
    ok(&answer)
}

fn unassigned_explanation(
    answer: &mut Value,
    routing: &Routing,
    copy: &ShardCopy,
    nodes: &[SimNode],
    flavor: Flavor,
    include_yes: bool,
) {
    let info = copy
        .unassigned
        .clone()
        .unwrap_or_else(|| UnassignedInfo::new("INDEX_CREATED"));
    let mut decisions = Vec::new();
    let mut allowed = false;
    for node in nodes {
        let (shown, refused) = shown_deciders(routing, copy, node.index, nodes, include_yes);
        let mut decision = node_header(node, flavor);
        decision["node_decision"] = json!(if refused { "no" } else { "yes" });
        decision["weight_ranking"] = json!(node.index + 1);
        if !shown.is_empty() {
            decision["deciders"] = json!(shown);
        }
        allowed |= !refused;
        decisions.push(decision);
    }
    let mut unassigned_info = json!({
        "reason": info.reason,
        "at": iso_millis(info.at_millis),
        "last_allocation_status": if allowed { "no_attempt" } else { "no" }
    });
    if info.failed_attempts > 0 {
        unassigned_info["failed_allocation_attempts"] = json!(info.failed_attempts);
    }
    if let Some(details) = &info.details {
        unassigned_info["details"] = json!(details);
    }
    answer["unassigned_info"] = unassigned_info;
    answer["can_allocate"] = json!(if allowed { "yes" } else { "no" });
    answer["allocate_explanation"] = json!(match (allowed, flavor) {
        (true, Flavor::Elasticsearch8) => "Elasticsearch can allocate the shard.",
        (true, Flavor::OpenSearch2) => "can allocate the shard",
        (false, Flavor::Elasticsearch8) =>
            "Elasticsearch isn't allowed to allocate this shard to any of the nodes in the cluster. Choose a node to which you expect this shard to be allocated, find this node in the node-by-node explanation, and address the reasons which prevent Elasticsearch from allocating this shard there.",
        (false, Flavor::OpenSearch2) =>
            "cannot allocate because allocation is not permitted to any of the nodes",
    });
    answer["node_allocation_decisions"] = json!(decisions);
}

fn assigned_explanation(
    answer: &mut Value,
    routing: &Routing,
    copy: &ShardCopy,
    nodes: &[SimNode],
    flavor: Flavor,
    include_yes: bool,
) {
    let current = copy.node.unwrap_or(0);
    let node = &nodes[current];
    let mut current_node = json!({
        "id": node.id,
        "name": node.name,
        "transport_address": node.transport_address,
        "attributes": {},
        "weight_ranking": 1
    });
    if flavor == Flavor::Elasticsearch8 {
        current_node["roles"] = json!(node.roles);
    }
    answer["current_node"] = current_node;
    answer["can_remain_on_current_node"] = json!("yes");
    answer["can_rebalance_cluster"] = json!("yes");
    let mut decisions = Vec::new();
    let mut rank = 1;
    for other in nodes.iter().filter(|other| other.index != current) {
        let (shown, refused) = shown_deciders(routing, copy, other.index, nodes, include_yes);
        let mut decision = node_header(other, flavor);
        rank += 1;
        decision["node_decision"] = json!(if refused { "no" } else { "worse_balance" });
        decision["weight_ranking"] = json!(rank);
        if !shown.is_empty() {
            decision["deciders"] = json!(shown);
        }
        decisions.push(decision);
    }
    answer["can_rebalance_to_other_node"] = json!("no");
    answer["rebalance_explanation"] = json!(match flavor {
        Flavor::Elasticsearch8 =>
            "Elasticsearch cannot rebalance this shard to another node since there is no node to which allocation is permitted which would improve the cluster balance. If you expect this shard to be rebalanced to another node, find this node in the node-by-node explanation and address the reasons which prevent Elasticsearch from rebalancing this shard there.",
        Flavor::OpenSearch2 =>
            "cannot rebalance as no target node exists that can both allocate this shard and improve the cluster balance",
    });
    answer["node_allocation_decisions"] = json!(decisions);
}

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
