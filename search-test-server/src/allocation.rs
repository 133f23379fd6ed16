//! `_cluster/allocation/explain` over the simulated routing, with the deciders a real cluster
//! would consult here (`same_shard`, `max_retry`, `replica_after_primary_active`) and its
//! messages; the deciders serve `_cluster/reroute` too.

use serde_json::{Value, json};

use crate::cluster::synced;
use crate::nodes::{SimNode, role_letters};
use crate::routing::{Routing, ShardCopy, State, UnassignedInfo};
use crate::wire::{Call, Reply, es_error, iso_millis, ok};
use crate::{Flavor, Shared, lock};

/// `{node-1}{id}{ephemeral}{host}{address}{transport}{roles}`, as a node prints in messages.
pub(crate) fn describe_node(node: &SimNode) -> String {
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
pub(crate) fn deciders_no(
    routing: &Routing,
    copy: &ShardCopy,
    node: usize,
    nodes: &[SimNode],
) -> Vec<Value> {
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
