//! What is refused before any call, and who may look, move or retry.

use super::*;

#[tokio::test]
async fn bad_input_is_refused_before_any_cluster_call_and_refusals_pass_through() {
    let stack = stack(Distribution::OpenSearch2, "shbad", 1).await;
    stack.warm().await;
    let grid = stack.grid().await;
    let copies = copies(&grid, "shbad-0000").clone();
    let (primary, replica) = (
        node_id(&grid, &copies[0], "node").unwrap(),
        node_id(&grid, &copies[1], "node").unwrap(),
    );
    stack.proxy.clear_requests();
    for (body, code, message) in [
        (
            json!({"index": "shbad-0000", "shard": 0, "fromNode": primary, "toNode": primary}),
            "bad_request",
            "toNode must differ from fromNode",
        ),
        (
            json!({"index": "shbad-*", "shard": 0, "fromNode": primary, "toNode": replica}),
            "bad_request",
            "The index name \"shbad-*\" contains \"*\"",
        ),
        (
            json!({"index": "shbad-0000", "shard": 0, "fromNode": "_local", "toNode": replica}),
            "bad_request",
            "fromNode must be one node id",
        ),
        (
            json!({"index": "shbad-0000", "shard": -1, "fromNode": primary, "toNode": replica}),
            "bad_request",
            "shard must be a whole number from 0",
        ),
        (
            json!({"index": "shbad-0000", "shard": 0}),
            "invalid_body",
            "fromNode",
        ),
    ] {
        let (status, answer) = stack
            .post("/api/clusters/c/shards/move", body.clone())
            .await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["error"]["code"], code, "{body}");
        let text = answer["error"]["message"].as_str().unwrap();
        assert!(text.contains(message), "{body}: {text}");
    }
    for query in [
        "index=shbad-0000&shard=0",
        "index=shbad-0000&shard=x&primary=true",
        "index=_all&shard=0&primary=true",
        "shard=0&primary=true",
        "index=shbad-0000&shard=0&primary=true&node=a%2Cb",
    ] {
        let (status, answer) = stack
            .app
            .get_json(&format!("/api/clusters/c/shards/explain?{query}"))
            .await;
        assert_eq!(status, 400, "{query}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_request");
    }
    let sent = stack.proxy.requests();
    assert!(sent.is_empty(), "nothing reached the cluster: {sent:#?}");

    // The cluster refuses a move onto the node that holds the other copy: its reason, its
    // status.
    let (status, answer) = stack
        .post(
            "/api/clusters/c/shards/move",
            json!({"index": "shbad-0000", "shard": 0, "fromNode": primary, "toNode": replica}),
        )
        .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], "rejected_by_cluster");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("refused the call"),
        "{answer}"
    );
    stack.delete("shbad-*").await;
}

#[tokio::test]
async fn a_viewer_may_look_but_not_move_or_retry_and_the_refusal_is_audited() {
    let dir = TempDir::new("shards-audit");
    let file = dir.path().join("audit.log");
    let stack = stack_with(Distribution::OpenSearch2, "shroles", 1, |clusters| {
        format!(
            "{}audit:\n  file: {}\n",
            trusted_yaml(&clusters.replace("id: c\n", "id: guarded\n")),
            file.display()
        )
    })
    .await;
    let app = &stack.app;
    let url = |tail: &str| app.url(&format!("/api/clusters/guarded{tail}"));
    let grid: Value = as_caller(app.client.get(url("/shards")), &VIEWER)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let copies = copies(&grid, "shroles-0000").clone();
    let from = node_id(&grid, &copies[0], "node").unwrap();
    let holders: Vec<String> = copies
        .iter()
        .filter_map(|c| node_id(&grid, c, "node"))
        .collect();
    let to = stack
        .node_ids()
        .await
        .into_iter()
        .find(|id| !holders.contains(id))
        .unwrap();
    let explain = as_caller(
        app.client.get(url(
            "/shards/explain?index=shroles-0000&shard=0&primary=true",
        )),
        &VIEWER,
    )
    .send()
    .await
    .unwrap();
    assert_eq!(explain.status(), 200, "a viewer may read the explanation");
    let node_page = as_caller(app.client.get(url(&format!("/nodes/{from}"))), &VIEWER)
        .send()
        .await
        .unwrap();
    assert_eq!(node_page.status(), 200, "a viewer may read a node's page");

    let move_body = json!({"index": "shroles-0000", "shard": 0, "fromNode": from, "toNode": to});
    stack.proxy.clear_requests();
    for (path, body) in [
        ("/shards/move", move_body.clone()),
        ("/shards/retry", json!({})),
    ] {
        let refused = as_caller(app.client.post(url(path)).json(&body), &VIEWER)
            .send()
            .await
            .unwrap();
        assert_eq!(refused.status(), 403, "{path}");
        let answer: Value = refused.json().await.unwrap();
        assert_eq!(answer["error"]["code"], "forbidden");
    }
    assert!(
        cluster_calls(&stack.proxy.requests(), "/_cluster/reroute").is_empty(),
        "a refused call sends nothing"
    );
    for (path, body, caller) in [
        ("/shards/move", move_body, &OPERATOR),
        ("/shards/retry", json!({}), &ADMIN),
    ] {
        let done = as_caller(app.client.post(url(path)).json(&body), caller)
            .send()
            .await
            .unwrap();
        assert_eq!(done.status(), 200, "{path}");
    }
    assert_eq!(
        cluster_calls(&stack.proxy.requests(), "/_cluster/reroute").len(),
        2
    );

    let path = file.clone();
    wait_until("four audit lines", Duration::from_secs(10), move || {
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .count()
            >= 4
    })
    .await;
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let outcomes: Vec<(&str, &str, &str)> = lines
        .iter()
        .map(|line| {
            (
                line["user"].as_str().unwrap(),
                line["path"].as_str().unwrap(),
                line["outcome"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("vera", "/api/clusters/guarded/shards/move", "denied"),
            ("vera", "/api/clusters/guarded/shards/retry", "denied"),
            ("otto", "/api/clusters/guarded/shards/move", "success"),
            ("ada", "/api/clusters/guarded/shards/retry", "success"),
        ],
        "reads are not audited"
    );
    // The operator's move relocates the primary: wait until the cluster is green before the
    // index goes (and the next test's turn begins).
    stack
        .ok("GET", "/_cluster/health/shroles-*?wait_for_status=green&wait_for_no_relocating_shards=true&timeout=120s", None)
        .await;
    stack.delete("shroles-*").await;
}
