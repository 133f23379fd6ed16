//! Item 3: the simulated topology, shard routing, health, allocation explain and reroute.

use search_test_server::Flavor;
use serde_json::{Value, json};

use crate::{Fixture, eventually};

async fn shards(f: &Fixture, index: &str) -> Vec<Value> {
    f.get(&format!(
        "/_cat/shards/{index}?format=json&h=index,shard,prirep,state,node,id,unassigned.reason"
    ))
    .await
    .as_array()
    .unwrap()
    .clone()
}

#[tokio::test]
async fn copies_spread_over_nodes_and_every_view_agrees() {
    let f = Fixture::start(3, Flavor::OpenSearch2);
    f.create_index("orders", 2, 1).await;
    f.create_index("wide", 1, 3).await;
    let orders = shards(&f, "orders").await;
    assert_eq!(orders.len(), 4);
    for shard in ["0", "1"] {
        let copies: Vec<&Value> = orders.iter().filter(|row| row["shard"] == shard).collect();
        assert_eq!(copies.len(), 2);
        assert!(copies.iter().all(|row| row["state"] == "STARTED"));
        assert_ne!(
            copies[0]["node"], copies[1]["node"],
            "two copies on one node"
        );
    }
    let wide = shards(&f, "wide").await;
    let unassigned: Vec<&Value> = wide
        .iter()
        .filter(|row| row["state"] == "UNASSIGNED")
        .collect();
    assert_eq!(unassigned.len(), 1);
    assert_eq!(unassigned[0]["prirep"], "r");
    assert_eq!(unassigned[0]["node"], Value::Null);
    assert_eq!(unassigned[0]["unassigned.reason"], "INDEX_CREATED");
    let mut used: Vec<&str> = wide.iter().filter_map(|row| row["node"].as_str()).collect();
    used.sort();
    assert_eq!(used, ["node-1", "node-2", "node-3"]);

    let health = f.get("/_cluster/health").await;
    assert_eq!(health["status"], "yellow");
    assert_eq!(health["number_of_nodes"], 3);
    assert_eq!(health["number_of_data_nodes"], 3);
    assert_eq!(health["active_primary_shards"], 3);
    assert_eq!(health["active_shards"], 7);
    assert_eq!(health["unassigned_shards"], 1);
    let by_index = f.get("/_cluster/health?level=indices").await;
    assert_eq!(by_index["indices"]["orders"]["status"], "green");
    assert_eq!(by_index["indices"]["wide"]["status"], "yellow");
    assert_eq!(by_index["indices"]["wide"]["number_of_replicas"], 3);
    assert_eq!(f.get("/_cluster/health/orders").await["status"], "green");

    let indices = f
        .get("/_cat/indices?format=json&h=index,health&s=index")
        .await;
    assert_eq!(
        indices,
        json!([{"index": "orders", "health": "green"}, {"index": "wide", "health": "yellow"}])
    );
    let sizes = f
        .get("/_cat/indices/orders?format=json&bytes=b&h=store.size,pri.store.size")
        .await;
    let size = |key: &str| sizes[0][key].as_str().unwrap().parse::<u64>().unwrap();
    assert_eq!(size("store.size"), 2 * size("pri.store.size"), "{sizes}");
    let yellow = f
        .get("/_cat/indices?format=json&health=yellow&h=index")
        .await;
    assert_eq!(yellow, json!([{"index": "wide"}]));

    let cat_health = f
        .get("/_cat/health?format=json&h=status,node.total,shards,unassign")
        .await;
    assert_eq!(
        cat_health,
        json!([{"status": "yellow", "node.total": "3", "shards": "7", "unassign": "1"}])
    );
    let master = f.get("/_cat/cluster_manager?format=json&h=node").await;
    assert_eq!(master, json!([{"node": "node-1"}]));
    let nodes = f.server.nodes();
    let state = f
        .get("/_cluster/state/routing_table,nodes,master_node")
        .await;
    assert_eq!(state["master_node"], nodes[0].id.as_str());
    assert_eq!(state["nodes"].as_object().unwrap().len(), 3);
    let table = &state["routing_table"]["indices"]["orders"]["shards"]["0"];
    assert_eq!(table.as_array().unwrap().len(), 2);
    assert!(
        nodes
            .iter()
            .any(|node| table[0]["node"] == node.id.as_str())
    );
    let stats = f.get("/_cluster/stats").await;
    assert_eq!(stats["nodes"]["count"]["total"], 3);
    assert_eq!(stats["nodes"]["count"]["data"], 3);
    assert_eq!(stats["indices"]["shards"]["total"], 7);

    let allocation = f.get("/_cat/allocation?format=json&h=node,shards").await;
    assert_eq!(allocation.as_array().unwrap().len(), 4);
    assert_eq!(allocation[3], json!({"node": "UNASSIGNED", "shards": "1"}));
    let held: u64 = allocation.as_array().unwrap()[..3]
        .iter()
        .map(|row| row["shards"].as_str().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(held, 7);

    // A closed index keeps its (replicated) copies, as since Elasticsearch 7.2.
    assert_eq!(f.call("POST", "/orders/_close", None).await.0, 200);
    let closed = shards(&f, "orders").await;
    assert_eq!(closed.len(), 4);
    assert!(closed.iter().all(|row| row["state"] == "STARTED"));
    // ...and carries the documented closed-index block; an open one carries none.
    let state = f
        .get("/_cluster/state/blocks?filter_path=blocks.indices")
        .await;
    assert_eq!(
        state["blocks"]["indices"]["orders"]["4"],
        json!({"description": "index closed", "retryable": false, "levels": ["read", "write"]})
    );
    assert!(state["blocks"]["indices"].get("wide").is_none(), "{state}");
    let only_wide = f.get("/_cluster/state/blocks/wide").await;
    assert!(
        only_wide["blocks"]["indices"].get("orders").is_none(),
        "{only_wide}"
    );
    assert_eq!(f.call("POST", "/orders/_open", None).await.0, 200);
    let reopened = f.get("/_cluster/state/blocks").await;
    assert!(
        reopened["blocks"]["indices"].get("orders").is_none(),
        "{reopened}"
    );

    // A replica count change is followed.
    let (status, _) = f
        .call(
            "PUT",
            "/wide/_settings",
            Some(json!({"index": {"number_of_replicas": 1}})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(f.get("/_cluster/health").await["status"], "green");
}

#[tokio::test]
async fn one_node_matches_osmem() {
    let f = Fixture::start(1, Flavor::OpenSearch2);
    f.create_index("logs", 1, 1).await;
    let rows = shards(&f, "logs").await;
    assert_eq!(rows[0]["node"], "osmem-node");
    assert_eq!(rows[0]["state"], "STARTED");
    assert_eq!(rows[1]["state"], "UNASSIGNED");
    let ours = f.get("/_cluster/health").await;
    let osmem: Value = f
        .client
        .get(format!("{}/_cluster/health", f.osmem.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(ours, osmem);
}

#[tokio::test]
async fn explain_gives_the_documented_answers() {
    let f = Fixture::start(3, Flavor::Elasticsearch8);
    f.create_index("orders", 1, 1).await;
    let (status, body) = f.call("GET", "/_cluster/allocation/explain", None).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "illegal_argument_exception");
    assert!(
        body["error"]["reason"]
            .as_str()
            .unwrap()
            .contains("there are no unassigned shards")
    );

    f.create_index("wide", 1, 3).await;
    let (status, body) = f.call("POST", "/_cluster/allocation/explain", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["index"], "wide");
    assert_eq!(body["shard"], 0);
    assert_eq!(body["primary"], false);
    assert_eq!(body["current_state"], "unassigned");
    assert_eq!(body["unassigned_info"]["reason"], "INDEX_CREATED");
    assert_eq!(body["can_allocate"], "no");
    assert!(
        body["allocate_explanation"]
            .as_str()
            .unwrap()
            .starts_with("Elasticsearch isn't allowed")
    );
    let decisions = body["node_allocation_decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 3);
    for decision in decisions {
        assert_eq!(decision["node_decision"], "no");
        assert_eq!(decision["deciders"][0]["decider"], "same_shard");
        assert_eq!(decision["deciders"][0]["decision"], "NO");
        assert!(
            decision["deciders"][0]["explanation"]
                .as_str()
                .unwrap()
                .starts_with("a copy of this shard is already allocated to this node [[wide][0]")
        );
        assert!(decision["node_id"].is_string() && decision["node_name"].is_string());
    }

    let nodes = f.server.nodes();
    let primary = shards(&f, "orders")
        .await
        .into_iter()
        .find(|r| r["prirep"] == "p")
        .unwrap();
    let (status, body) = f
        .call(
            "GET",
            "/_cluster/allocation/explain",
            Some(json!({"index": "orders", "shard": 0, "primary": true})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["current_state"], "started");
    assert_eq!(body["current_node"]["name"], primary["node"]);
    assert_eq!(body["can_remain_on_current_node"], "yes");
    assert_eq!(
        body["node_allocation_decisions"].as_array().unwrap().len(),
        2
    );
    assert!(
        body["current_node"]["id"]
            .as_str()
            .is_some_and(|id| nodes.iter().any(|n| n.id == id))
    );

    let (status, body) = f
        .call(
            "GET",
            "/_cluster/allocation/explain",
            Some(json!({"index": "orders"})),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "action_request_validation_exception");
    let (status, _) = f
        .call(
            "GET",
            "/_cluster/allocation/explain",
            Some(json!({"index": "nope", "shard": 0, "primary": true})),
        )
        .await;
    assert_eq!(status, 404);
}

#[tokio::test]
async fn a_moved_shard_relocates_then_starts_on_the_target() {
    let f = Fixture::start(3, Flavor::OpenSearch2);
    f.create_index("orders", 1, 1).await;
    let rows = shards(&f, "orders").await;
    let primary_node = rows[0]["node"].as_str().unwrap().to_owned();
    let replica_node = rows[1]["node"].as_str().unwrap().to_owned();
    let free = ["node-1", "node-2", "node-3"]
        .into_iter()
        .find(|n| *n != primary_node && *n != replica_node)
        .unwrap();
    let nodes = f.server.nodes();
    let free_id = nodes.iter().find(|n| n.name == free).unwrap().id.clone();

    // Refusals, with the clusters' messages.
    let mv = |from: &str, to: &str| json!({"commands": [{"move": {"index": "orders", "shard": 0, "from_node": from, "to_node": to}}]});
    let (status, body) = f
        .call(
            "POST",
            "/_cluster/reroute",
            Some(mv(&primary_node, "ghost")),
        )
        .await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "illegal_argument_exception");
    assert_eq!(
        body["error"]["reason"],
        "failed to resolve [ghost], no matching nodes"
    );
    let (status, body) = f
        .call("POST", "/_cluster/reroute", Some(mv(free, &primary_node)))
        .await;
    assert_eq!(status, 400);
    assert!(
        body["error"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("[move_allocation] can't move [orders][0], failed to find it on node {")
    );
    let (status, body) = f
        .call(
            "POST",
            "/_cluster/reroute",
            Some(mv(&primary_node, &replica_node)),
        )
        .await;
    assert_eq!(status, 400);
    let reason = body["error"]["reason"].as_str().unwrap();
    assert!(reason.contains("since its not allowed, reason: [NO(a copy of this shard is already allocated to this node"), "{reason}");

    // dry_run changes nothing.
    let (status, body) = f
        .call(
            "POST",
            "/_cluster/reroute?dry_run=true",
            Some(mv(&primary_node, free)),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["acknowledged"], true);
    assert_eq!(shards(&f, "orders").await[0]["state"], "STARTED");

    // The move, by node id for the target, with explain.
    f.server.clear_requests();
    let (status, body) = f
        .call(
            "POST",
            "/_cluster/reroute?explain=true",
            Some(mv(&primary_node, &free_id)),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["explanations"][0]["command"], "move");
    assert_eq!(body["explanations"][0]["decisions"][0]["decision"], "YES");
    let table = &body["state"]["routing_table"]["indices"]["orders"]["shards"]["0"];
    let moving = table
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["primary"] == true)
        .unwrap();
    assert_eq!(moving["state"], "RELOCATING");
    assert_eq!(moving["relocating_node"], free_id.as_str());
    assert_eq!(
        f.server.requests()[0].body,
        Some(mv(&primary_node, &free_id))
    );
    let rows = shards(&f, "orders").await;
    assert_eq!(rows[0]["state"], "RELOCATING");
    assert!(
        rows[0]["node"]
            .as_str()
            .unwrap()
            .ends_with(&format!("{free_id} {free}"))
    );
    assert_eq!(f.get("/_cluster/health").await["relocating_shards"], 1);
    eventually("the relocation to finish", || async {
        let rows = shards(&f, "orders").await;
        rows[0]["state"] == "STARTED" && rows[0]["node"] == free
    })
    .await;
    let health = f
        .get("/_cluster/health?wait_for_no_relocating_shards=true&timeout=5s")
        .await;
    assert_eq!(health["relocating_shards"], 0);
    assert_eq!(health["status"], "green");
}

#[tokio::test]
async fn a_failed_allocation_is_explained_and_retried() {
    let f = Fixture::start(2, Flavor::OpenSearch2);
    f.create_index("orders", 1, 1).await;
    f.server.fail_allocation("orders", 0).unwrap();
    let rows = shards(&f, "orders").await;
    assert_eq!(rows[1]["state"], "UNASSIGNED");
    assert_eq!(rows[1]["unassigned.reason"], "ALLOCATION_FAILED");
    let (status, body) = f.call("GET", "/_cluster/allocation/explain", None).await;
    assert_eq!(status, 200);
    assert_eq!(body["unassigned_info"]["reason"], "ALLOCATION_FAILED");
    assert_eq!(body["unassigned_info"]["failed_allocation_attempts"], 5);
    assert_eq!(body["can_allocate"], "no");
    let deciders: Vec<&str> = body["node_allocation_decisions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|d| {
            d["deciders"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x["decider"].as_str().unwrap())
        })
        .collect();
    assert!(deciders.contains(&"max_retry"), "{deciders:?}");
    assert_eq!(f.get("/_cluster/health").await["status"], "yellow");

    let (status, body) = f
        .call(
            "POST",
            "/_cluster/reroute?retry_failed=true&metric=none",
            None,
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"acknowledged": true}));
    assert_eq!(shards(&f, "orders").await[1]["state"], "INITIALIZING");
    eventually("the retried replica to start", || async {
        shards(&f, "orders").await[1]["state"] == "STARTED"
    })
    .await;
    assert_eq!(f.get("/_cluster/health").await["status"], "green");
}

#[tokio::test]
async fn explain_takes_query_parameters_and_shows_yes_decisions_when_asked() {
    let f = Fixture::start(2, Flavor::OpenSearch2);
    f.create_index("orders", 1, 1).await;
    let answer = f
        .get("/_cluster/allocation/explain?index=orders&shard=0&primary=false&include_yes_decisions=true")
        .await;
    assert_eq!(answer["primary"], false);
    assert_eq!(answer["current_state"], "started");
    let deciders = &answer["node_allocation_decisions"][0]["deciders"];
    assert!(
        deciders
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["decider"] == "same_shard" && d["decision"] == "NO")
    );
    assert!(
        deciders
            .as_array()
            .unwrap()
            .iter()
            .any(|d| d["decider"] == "max_retry" && d["decision"] == "YES")
    );
    let (status, body) = f
        .call("POST", "/_cluster/allocation/explain", Some(json!([1])))
        .await;
    assert_eq!(status, 400, "{body}");
}
