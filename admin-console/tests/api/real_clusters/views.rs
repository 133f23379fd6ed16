//! The views, index management, the relay, an unassigned replica, aliases and templates.

use super::*;

#[tokio::test]
async fn the_views_show_the_real_version_health_and_node() {
    for distribution in DISTRIBUTIONS {
        let (app, cluster) = console(distribution).await;
        let (status, list) = app.get_json("/api/clusters").await;
        assert_eq!(status, 200, "{list}");
        let summary = &list["clusters"][0];
        assert_eq!(summary["reachable"], true, "{summary}");
        assert_eq!(summary["version"], cluster.version().as_str(), "{summary}");
        let expected = match distribution {
            Distribution::OpenSearch2
            | Distribution::OpenSearch2Secured
            | Distribution::OpenSearch3 => ("opensearch", "cluster_manager"),
            Distribution::Elasticsearch7
            | Distribution::Elasticsearch8Secured
            | Distribution::Elasticsearch8 => ("elasticsearch", "master"),
        };
        assert_eq!(summary["distribution"], expected.0, "{summary}");
        assert!(
            ["green", "yellow"].contains(&summary["health"].as_str().unwrap_or("")),
            "{summary}"
        );

        let dialect = get(&app, "/dialect").await;
        let major: u64 = cluster
            .version()
            .split('.')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(
            dialect,
            json!({"distribution": expected.0, "major": major}),
            "read from the node's GET /"
        );
        get(&app, "/overview").await;
        let nodes = get(&app, "/nodes").await;
        let text = nodes.to_string();
        assert!(text.contains(expected.1), "{nodes}");
        let metrics = get(&app, "/metrics").await;
        assert_eq!(metrics["nodeCount"], 1, "{metrics}");
        get(&app, "/settings").await;
        get(&app, "/tasks").await;
        get(&app, "/allocation").await;
    }
}

#[tokio::test]
async fn an_index_is_created_listed_changed_and_deleted() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-orders", 0).await;
        let listed = get(&app, "/indices?size=500").await;
        let row = listed["indices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["name"] == "compat-orders")
            .unwrap_or_else(|| panic!("compat-orders listed: {listed}"))
            .clone();
        assert_eq!(row["status"], "open", "{row}");
        get(&app, "/indices/compat-orders").await;
        put(
            &app,
            "/indices/compat-orders/settings",
            json!({"settings": {"index.refresh_interval": "5s"}}),
        )
        .await;
        for action in ["close", "open"] {
            let answer = post(
                &app,
                &format!("/indices/_actions/{action}"),
                json!({"indices": ["compat-orders"]}),
            )
            .await;
            assert_eq!(answer["results"][0]["ok"], true, "{action}: {answer}");
        }
        let (status, body) = send(
            app.client
                .delete(api(&app, "/indices/compat-orders?confirm=compat-orders")),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        let listed = get(&app, "/indices?size=500").await;
        assert!(!listed.to_string().contains("compat-orders"), "{listed}");
    }
}

#[tokio::test]
async fn the_console_relays_to_the_real_cluster() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-relay", 0).await;
        let (status, body) = send(
            app.client
                .put(api(&app, "/proxy/compat-relay/_doc/1?refresh=true"))
                .json(&json!({"sku": "a-1"})),
        )
        .await;
        assert_eq!(status, 201, "{body}");
        let (status, found) = send(
            app.client
                .post(api(&app, "/proxy/compat-relay/_search"))
                .json(&json!({"query": {"term": {"sku": "a-1"}}})),
        )
        .await;
        assert_eq!(status, 200, "{found}");
        assert_eq!(found["hits"]["total"]["value"], 1, "{found}");
    }
}

#[tokio::test]
async fn an_unassigned_replica_on_one_node_is_shown_and_explained() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-replica", 1).await;
        let grid = get(&app, "/shards").await;
        let entry = grid["indices"]
            .as_array()
            .unwrap()
            .iter()
            .find(|entry| entry["name"] == "compat-replica")
            .unwrap_or_else(|| panic!("compat-replica in {grid}"))
            .clone();
        let copies = entry["shards"].as_array().unwrap();
        assert_eq!(copies.len(), 2, "{entry}");
        assert!(
            copies
                .iter()
                .any(|copy| copy["primary"] == false && copy["state"] == "unassigned"),
            "a replica cannot be on the primary's only node: {entry}"
        );
        let explained = get(
            &app,
            "/shards/explain?index=compat-replica&shard=0&primary=false",
        )
        .await;
        assert!(
            explained.to_string().to_lowercase().contains("same"),
            "the reason names the same-node rule: {explained}"
        );
    }
}

#[tokio::test]
async fn aliases_and_templates_round_trip() {
    for distribution in DISTRIBUTIONS {
        let (app, _cluster) = console(distribution).await;
        create_index(&app, "compat-alias-1", 0).await;
        let applied = post(
            &app,
            "/aliases",
            json!({"actions": [{"add": {"index": "compat-alias-1", "alias": "compat-alias"}}]}),
        )
        .await;
        assert_eq!(applied["acknowledged"], true, "{applied}");
        let aliases = get(&app, "/aliases").await;
        assert!(aliases.to_string().contains("compat-alias"), "{aliases}");

        put(
            &app,
            "/templates/component/compat-base",
            json!({"definition": {"template": {"settings": {"index.number_of_shards": 1}}, "version": 1}, "create": true}),
        )
        .await;
        put(
            &app,
            "/templates/index/compat-logs",
            json!({"definition": {"index_patterns": ["compat-logs-*"], "priority": 7, "composed_of": ["compat-base"]}}),
        )
        .await;
        let template = get(&app, "/templates/index/compat-logs").await;
        assert!(template.to_string().contains("compat-base"), "{template}");
        let simulated = post(
            &app,
            "/templates/simulate",
            json!({"index": "compat-logs-1"}),
        )
        .await;
        assert!(simulated.to_string().contains("compat-logs"), "{simulated}");
        for tail in [
            "/templates/index/compat-logs?confirm=compat-logs",
            "/templates/component/compat-base?confirm=compat-base",
        ] {
            let (status, body) = send(app.client.delete(api(&app, tail))).await;
            assert_eq!(status, 200, "DELETE {tail}: {body}");
        }
    }
}
