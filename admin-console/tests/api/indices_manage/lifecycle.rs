//! An index created, shown, edited and deleted; the names and bodies refused before any call.

use super::*;

#[tokio::test]
async fn an_index_is_created_shown_edited_and_deleted_by_its_typed_name() {
    for distribution in REAL {
        created_shown_edited_and_deleted(distribution).await;
    }
}

async fn created_shown_edited_and_deleted(distribution: Distribution) {
    let f = real(distribution).await;
    // The list is read (and cached) before the create: the create must make it fresh.
    assert!(f.statuses("orders-").await.is_empty());
    f.proxy.clear_requests();
    let (status, body) = f
        .post(
            "/indices",
            json!({
                "name": "orders-1",
                "shards": 2,
                "replicas": 0,
                "settings": {"index": {"refresh_interval": "5s"}},
                "mappings": {"properties": {"sku": {"type": "keyword"}}},
                "aliases": {"orders": {}}
            }),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"index": "orders-1", "acknowledged": true, "shardsAcknowledged": true})
    );
    assert_eq!(
        f.writes(),
        [(
            "PUT".to_owned(),
            "/orders-1".to_owned(),
            String::new(),
            Some(json!({
                "settings": {"index": {"refresh_interval": "5s"},
                             "index.number_of_shards": 2, "index.number_of_replicas": 0},
                "mappings": {"properties": {"sku": {"type": "keyword"}}},
                "aliases": {"orders": {}}
            }))
        )]
    );
    assert_eq!(
        f.statuses("orders-").await,
        [("orders-1".to_owned(), "open".to_owned())]
    );

    // The page of the index.
    let (status, page) = f.app.get_json("/api/clusters/main/indices/orders-1").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["name"], "orders-1");
    assert_eq!(page["status"], "open");
    assert_eq!(page["health"], "green");
    let setting = |key: &str| {
        page["settings"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["key"] == key)
            .cloned()
            .unwrap_or(Value::Null)
    };
    assert_eq!(
        setting("index.refresh_interval"),
        json!({"key": "index.refresh_interval", "value": "5s", "dynamic": true})
    );
    assert_eq!(setting("index.number_of_shards")["dynamic"], false);
    assert_eq!(
        page["mappings"],
        json!({"properties": {"sku": {"type": "keyword"}}})
    );
    assert_eq!(page["stats"]["docsCount"], 0);
    let shards = page["shards"].as_array().unwrap();
    assert_eq!(shards.len(), 2, "{page}");
    assert_eq!(shards[0]["shard"], 0);
    assert_eq!(shards[0]["primary"], true);
    assert_eq!(shards[0]["state"], "STARTED");
    assert_eq!(page["aliases"][0]["alias"], "orders");
    assert!(
        page["addableSettings"]
            .as_array()
            .unwrap()
            .contains(&json!("index.max_result_window"))
    );

    // A dynamic setting changes; a static one is refused before the cluster hears of it; the
    // cluster's own refusal comes back with its reason.
    f.proxy.clear_requests();
    let put = |settings: Value| {
        send(
            f.app
                .client
                .put(f.url("/indices/orders-1/settings"))
                .json(&json!({ "settings": settings })),
        )
    };
    let (status, body) = put(json!({"index.max_result_window": 20000})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"index": "orders-1", "acknowledged": true}));
    assert_eq!(
        f.writes(),
        [(
            "PUT".to_owned(),
            "/orders-1/_settings".to_owned(),
            String::new(),
            Some(json!({"index.max_result_window": 20000}))
        )]
    );
    let (status, body) = put(json!({"number_of_shards": 3})).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "bad_request");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("index.number_of_shards is not a dynamic setting")
    );
    let (status, body) = put(json!({"number_of_replicas": "many"})).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"]["code"], "rejected_by_cluster");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Failed to parse value [many]"),
        "{body}"
    );
    assert_eq!(
        f.writes().len(),
        2,
        "the static key never reached the cluster"
    );

    // Delete: the typed name, exactly.
    f.proxy.clear_requests();
    for (query, expected) in [
        ("", "needs confirm to be its exact name"),
        ("?confirm=orders", "needs confirm to be its exact name"),
    ] {
        let (status, body) = send(
            f.app
                .client
                .delete(f.url(&format!("/indices/orders-1{query}"))),
        )
        .await;
        assert_eq!(status, 400, "{query}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains(expected)
        );
    }
    assert!(f.writes().is_empty());
    let (status, body) = send(
        f.app
            .client
            .delete(f.url("/indices/orders-1?confirm=orders-1")),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"index": "orders-1", "acknowledged": true}));
    assert_eq!(
        f.writes(),
        [(
            "DELETE".to_owned(),
            "/orders-1".to_owned(),
            String::new(),
            None
        )]
    );
    assert!(f.statuses("orders-").await.is_empty());
    let (status, body) = f.app.get_json("/api/clusters/main/indices/orders-1").await;
    assert_eq!(status, 404, "{body}");
    assert_eq!(body["error"]["code"], "rejected_by_cluster");
}

#[tokio::test]
async fn patterns_and_bad_bodies_are_refused_before_anything_is_sent() {
    let f = real(Distribution::OpenSearch2).await;
    crate::support::seed_indices(&f.proxy.url, "keep", 2, |_| 1).await;
    f.proxy.clear_requests();
    for (method, tail, body, expected) in [
        (
            "DELETE",
            "/indices/keep-*?confirm=keep-*",
            None,
            "contains \"*\"",
        ),
        (
            "DELETE",
            "/indices/_all?confirm=_all",
            None,
            "must not start with",
        ),
        (
            "DELETE",
            "/indices/keep-0000,keep-0001?confirm=keep-0000,keep-0001",
            None,
            "contains \",\"",
        ),
        (
            "DELETE",
            "/indices/..%2F_all?confirm=..%2F_all",
            None,
            "contains \"/\"",
        ),
        ("GET", "/indices/keep-*", None, "contains \"*\""),
        (
            "POST",
            "/indices/_actions/delete",
            Some(json!({"indices": ["keep-*"], "confirm": "delete 1 index"})),
            "contains \"*\"",
        ),
        (
            "POST",
            "/indices/_actions/delete",
            Some(json!({"indices": ["keep-0000", "keep-0001"], "confirm": "delete 1 index"})),
            "exactly \"delete 2 indices\"",
        ),
        (
            "POST",
            "/indices/_actions/shrink",
            Some(json!({"indices": ["keep-0000"]})),
            "does not exist",
        ),
        (
            "POST",
            "/indices/_actions/forcemerge",
            Some(json!({"indices": ["keep-0000"], "maxNumSegments": 0})),
            "maxNumSegments must be between 1 and 1024",
        ),
        (
            "POST",
            "/indices",
            Some(json!({"name": "Orders"})),
            "must be lowercase",
        ),
        (
            "POST",
            "/indices",
            Some(json!({"name": "o", "shards": 0})),
            "shards must be between 1 and 1024, not 0.",
        ),
        (
            "POST",
            "/indices",
            Some(json!({"name": "o", "settings": "{not json"})),
            "settings must be a JSON object.",
        ),
        (
            "POST",
            "/indices",
            Some(json!({"name": "a+b"})),
            "which OpenSearch does not accept",
        ),
        (
            "PUT",
            "/indices/keep-0000/settings",
            Some(json!({"settings": {"index.codec": "best_compression"}})),
            "not a dynamic setting",
        ),
    ] {
        let mut request = f.app.client.request(method.parse().unwrap(), f.url(tail));
        if let Some(body) = &body {
            request = request.json(body);
        }
        let (status, answer) = send(request).await;
        assert_eq!(status, 400, "{method} {tail}: {answer}");
        assert_eq!(answer["error"]["code"], "bad_request", "{method} {tail}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{method} {tail}: {message}");
    }
    let (status, answer) = f.post("/indices", json!({"name": "o", "shard": 1})).await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["code"], "invalid_body");
    assert!(f.writes().is_empty(), "{:?}", f.writes());
    assert_eq!(f.statuses("keep-").await.len(), 2, "nothing was deleted");
}

#[tokio::test]
async fn elasticsearch_accepts_a_plus_where_opensearch_does_not() {
    let f = real(Distribution::Elasticsearch8Secured).await;
    let (status, body) = f.post("/indices", json!({"name": "a+b"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        f.writes(),
        [(
            "PUT".to_owned(),
            "/a%2Bb".to_owned(),
            String::new(),
            Some(json!({}))
        )]
    );
    let (status, body) = send(f.app.client.delete(f.url("/indices/a+b?confirm=a%2Bb"))).await;
    assert_eq!(status, 200, "{body}");
}
