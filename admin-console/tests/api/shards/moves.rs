//! The grid, an unassignable replica explained and retried, a copy moved.

use super::*;

#[tokio::test]
async fn the_grid_is_one_routing_table_read_without_metadata_in_both_flavors() {
    for distribution in DISTRIBUTIONS {
        let stack = stack(distribution, "shgrid", 3).await;
        stack.warm().await;
        let grid = stack.grid().await;

        let requests = stack.proxy.requests();
        assert_eq!(
            requests.len(),
            1,
            "one cluster call per grid load: {requests:#?}"
        );
        let read = &requests[0];
        assert_eq!(read.method, "GET");
        assert_eq!(
            read.path,
            format!(
                "/_cluster/state/routing_table,nodes,blocks,{}_node",
                manager_word(distribution)
            )
        );
        assert!(!read.path.contains("metadata") && !read.query.contains("metadata"));
        let filter = read.param("filter_path").unwrap();
        assert!(
            filter.contains("routing_table.indices.*.shards.*.relocating_node"),
            "{filter}"
        );

        let nodes = grid["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 3, "{grid}");
        let mut ids: Vec<&str> = nodes.iter().map(|n| n["id"].as_str().unwrap()).collect();
        ids.sort_unstable();
        let mut real = stack.node_ids().await;
        real.sort_unstable();
        assert_eq!(ids, real, "the cluster's nodes");
        assert_eq!(
            nodes.iter().filter(|n| n["elected"] == true).count(),
            1,
            "the elected {} is marked: {grid}",
            manager_word(distribution)
        );
        for index in ["shgrid-0000", "shgrid-0001", "shgrid-0002"] {
            let copies = copies(&grid, index);
            assert_eq!(copies.len(), 2, "{index}: {copies:?}");
            assert_eq!(copies[0]["primary"], true);
            assert_eq!(copies[1]["primary"], false);
            assert!(copies.iter().all(|c| c["state"] == "started"), "{copies:?}");
            assert_ne!(
                copies[0]["node"], copies[1]["node"],
                "never two copies on one node"
            );
        }

        // A closed index stays in the grid (Elasticsearch 7.2+ and OpenSearch keep the routing
        // of closed indices), and does not break the read.
        stack.ok("POST", "/shgrid-0002/_close", None).await;
        let grid = stack.grid().await;
        assert_eq!(copies(&grid, "shgrid-0002").len(), 2, "{grid}");
        stack.delete("shgrid-*").await;
    }
}

#[tokio::test]
async fn an_unassignable_replica_is_explained_in_words_and_retried() {
    for distribution in DISTRIBUTIONS {
        let stack = stack(distribution, "shpinned", 1).await;
        let index = "shpinned-0000";
        // Pinned to the primary's node, where its replica may not be: no node takes it.
        let grid = stack.grid().await;
        let primary = copies(&grid, index)
            .iter()
            .find(|c| c["primary"] == true)
            .unwrap()
            .clone();
        let home = node_name(&grid, &primary);
        // Its replica dropped, then added back: it has nowhere to go.
        for settings in [
            json!({"index.number_of_replicas": 0}),
            json!({"index.routing.allocation.require._name": home}),
            json!({"index.number_of_replicas": 1}),
        ] {
            stack
                .ok("PUT", &format!("/{index}/_settings"), Some(settings))
                .await;
        }
        stack
            .grid_until("the replica is unassigned", index, |_, copies| {
                copies
                    .iter()
                    .any(|c| c["primary"] == false && c["state"] == "unassigned")
            })
            .await;
        stack.warm().await;
        let grid = stack.grid().await;
        let replica = copies(&grid, index)
            .iter()
            .find(|c| c["primary"] == false)
            .unwrap()
            .clone();
        assert_eq!(replica["state"], "unassigned", "{grid}");
        assert!(replica["unassigned"]["reason"].is_string(), "{replica}");
        assert!(grid["unassigned"].as_u64().unwrap() >= 1, "{grid}");

        stack.proxy.clear_requests();
        let (status, explained) = stack
            .app
            .get_json(&format!(
                "/api/clusters/c/shards/explain?index={index}&shard=0&primary=false"
            ))
            .await;
        assert_eq!(status, 200, "{explained}");
        let sent = cluster_calls(&stack.proxy.requests(), "/_cluster/allocation/explain");
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "POST");
        assert_eq!(
            sent[0].body,
            Some(json!({"index": index, "shard": 0, "primary": false}))
        );
        assert_eq!(explained["currentState"], "unassigned");
        let headline = explained["headline"].as_str().unwrap();
        assert!(
            headline.starts_with(&format!("The replica of {index} shard 0 is unassigned")),
            "{headline}"
        );
        let nodes = explained["nodes"].as_array().unwrap();
        assert_eq!(nodes.len(), 3, "a decision per node: {explained}");
        for (decider, words) in [
            (
                "same_shard",
                "says no because a copy of this shard is already on this node",
            ),
            ("filter", "says no"),
        ] {
            let refusal = nodes
                .iter()
                .find(|n| {
                    n["deciders"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|d| d["decider"] == decider)
                })
                .unwrap_or_else(|| panic!("{decider} says no: {explained}"));
            assert!(
                refusal["sentence"].as_str().unwrap().contains(words),
                "{decider}: {refusal}"
            );
        }

        stack.proxy.clear_requests();
        let (status, answer) = stack
            .post("/api/clusters/c/shards/retry", json!(null))
            .await;
        assert_eq!((status, &answer), (200, &json!({"acknowledged": true})));
        let sent = cluster_calls(&stack.proxy.requests(), "/_cluster/reroute");
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].method, "POST");
        assert_eq!(sent[0].param("retry_failed").as_deref(), Some("true"));
        // Neither OpenSearch nor Elasticsearch 7 documents a `none` metric.
        assert_eq!(sent[0].param("metric"), None);

        // The pin lifted, the replica starts.
        stack
            .ok(
                "PUT",
                &format!("/{index}/_settings"),
                Some(json!({"index.routing.allocation.require._name": null})),
            )
            .await;
        stack
            .grid_until("the replica starts", index, |_, copies| {
                copies.len() == 2 && copies.iter().all(|c| c["state"] == "started")
            })
            .await;
        stack.delete("shpinned-*").await;
    }
}

#[tokio::test]
async fn a_moved_copy_relocates_then_lands_on_the_target_in_both_flavors() {
    for distribution in DISTRIBUTIONS {
        let stack = stack(distribution, "shmoving", 1).await;
        let index = "shmoving-0000";
        // Some kilobytes in segments, and recoveries throttled: the move takes seconds.
        let bulk: String = (0..300)
            .map(|n| format!("{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{n}\"}}}}\n{{\"n\":{n},\"text\":\"document {n} of the index that moves\"}}\n"))
            .collect();
        stack.fill_and_throttle(index, bulk, "2kb").await;
        stack.warm().await;
        let grid = stack.grid().await;
        let copies_before = copies(&grid, index).clone();
        let primary = copies_before.iter().find(|c| c["primary"] == true).unwrap();
        let from = node_id(&grid, primary, "node").unwrap();
        let holders: Vec<String> = copies_before
            .iter()
            .filter_map(|c| node_id(&grid, c, "node"))
            .collect();
        let to = stack
            .node_ids()
            .await
            .into_iter()
            .find(|id| !holders.contains(id))
            .expect("a node without a copy");

        stack.proxy.clear_requests();
        let (status, answer) = stack
            .post(
                "/api/clusters/c/shards/move",
                json!({"index": index, "shard": 0, "fromNode": from, "toNode": to}),
            )
            .await;
        assert_eq!((status, &answer), (200, &json!({"acknowledged": true})));
        let sent = cluster_calls(&stack.proxy.requests(), "/_cluster/reroute");
        assert_eq!(sent.len(), 1);
        assert_eq!(
            sent[0].body,
            Some(json!({"commands": [{"move": {
                "index": index, "shard": 0, "from_node": from, "to_node": to
            }}]}))
        );
        assert_eq!(sent[0].param("metric"), None);

        let relocating = stack.grid().await;
        let copy = copies(&relocating, index)
            .iter()
            .find(|c| c["primary"] == true)
            .unwrap()
            .clone();
        assert_eq!(copy["state"], "relocating", "{relocating}");
        assert_eq!(node_id(&relocating, &copy, "node"), Some(from.clone()));
        assert_eq!(
            node_id(&relocating, &copy, "relocatingNode"),
            Some(to.clone())
        );
        assert!(
            relocating["relocating"].as_u64().unwrap() >= 1,
            "{relocating}"
        );

        let url = stack.app.url("/api/clusters/c/shards");
        let target = to.clone();
        let moving = index.to_owned();
        wait_until(
            "the primary lands on the target",
            Duration::from_secs(120),
            move || {
                get_json_blocking(&url).is_some_and(|grid| {
                    copies(&grid, &moving).iter().any(|c| {
                        c["primary"] == true
                            && c["state"] == "started"
                            && node_id(&grid, c, "node").as_ref() == Some(&target)
                    })
                })
            },
        )
        .await;
        stack.throttle(Value::Null).await;
        stack.delete("shmoving-*").await;
    }
}
