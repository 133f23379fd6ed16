//! Managing indices: create, the page of one index, its settings, the actions on a selection
//! and delete, against real nodes of OpenSearch 2 and Elasticsearch 8 (secured) through a
//! recording proxy that shows what the console sent; and who may do which. The nodes are shared
//! with other suites: each test keeps to index names of its own.

use std::time::Duration;

use reqwest::RequestBuilder;
use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::support::real::{REAL, Real, real, real_with};
use crate::support::wait_until;

pub(crate) async fn send(request: RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

impl Real {
    pub(crate) async fn post(&self, tail: &str, body: Value) -> (u16, Value) {
        send(self.app.client.post(self.url(tail)).json(&body)).await
    }

    /// The indices named `prefix…` in the console's list, with their status.
    async fn statuses(&self, prefix: &str) -> Vec<(String, String)> {
        let (status, body) = self
            .app
            .get_json("/api/clusters/main/indices?size=500")
            .await;
        assert_eq!(status, 200, "{body}");
        let mut rows: Vec<(String, String)> = body["indices"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|row| {
                row["name"]
                    .as_str()
                    .is_some_and(|name| name.starts_with(prefix))
            })
            .map(|row| {
                (
                    row["name"].as_str().unwrap().to_owned(),
                    row["status"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        rows.sort();
        rows
    }
}

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

#[tokio::test]
async fn actions_on_a_selection_answer_one_result_per_index() {
    for distribution in REAL {
        actions_on_a_selection(distribution).await;
    }
}

async fn actions_on_a_selection(distribution: Distribution) {
    let f = real(distribution).await;
    crate::support::seed_indices(&f.proxy.url, "sel", 2, |_| 2).await;
    assert_eq!(f.statuses("sel-").await.len(), 2);
    f.proxy.clear_requests();

    // Close two indices and one that does not exist: two successes, one failure with the
    // cluster's reason, and the list shows the new status at once.
    let (status, body) = f
        .post(
            "/indices/_actions/close",
            json!({"indices": ["sel-0000", "sel-missing", "sel-0001", "sel-0000"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["action"], "close");
    let results = body["results"].as_array().unwrap();
    assert_eq!(results.len(), 3, "duplicates are dropped: {body}");
    assert_eq!(
        results[0],
        json!({"index": "sel-0000", "ok": true, "message": null})
    );
    assert_eq!(results[1]["index"], "sel-missing");
    assert_eq!(results[1]["ok"], false);
    assert!(
        results[1]["message"]
            .as_str()
            .unwrap()
            .contains("no such index [sel-missing]"),
        "{body}"
    );
    assert_eq!(results[2]["ok"], true);
    assert_eq!(
        f.statuses("sel-").await,
        [
            ("sel-0000".to_owned(), "close".to_owned()),
            ("sel-0001".to_owned(), "close".to_owned())
        ]
    );
    // A closed index's page has no stats.
    let (status, page) = f.app.get_json("/api/clusters/main/indices/sel-0000").await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["status"], "close");
    assert_eq!(page["stats"], Value::Null);

    let (status, body) = f
        .post(
            "/indices/_actions/open",
            json!({"indices": ["sel-0000", "sel-0001"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["ok"] == true)
    );
    assert!(
        f.statuses("sel-")
            .await
            .iter()
            .all(|(_, status)| status == "open")
    );

    for (action, extra) in [
        ("refresh", json!({})),
        ("flush", json!({})),
        ("forcemerge", json!({"maxNumSegments": 1})),
        ("clear_cache", json!({})),
        ("unblock_write", json!({})),
    ] {
        let mut request = json!({"indices": ["sel-0001"]});
        request
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let (status, body) = f
            .post(&format!("/indices/_actions/{action}"), request)
            .await;
        assert_eq!(status, 200, "{action}: {body}");
        assert_eq!(body["results"][0]["ok"], true, "{action}: {body}");
    }
    let writes = f.writes();
    // The calls of one selection run a few at a time: their order is the cluster's.
    let mut calls: Vec<(&str, &str, &str)> = writes
        .iter()
        .map(|(m, p, q, _)| (m.as_str(), p.as_str(), q.as_str()))
        .collect();
    calls.sort();
    let mut expected = vec![
        ("POST", "/sel-0000/_close", ""),
        ("POST", "/sel-missing/_close", ""),
        ("POST", "/sel-0001/_close", ""),
        ("POST", "/sel-0000/_open", ""),
        ("POST", "/sel-0001/_open", ""),
        ("POST", "/sel-0001/_refresh", ""),
        ("POST", "/sel-0001/_flush", ""),
        ("POST", "/sel-0001/_forcemerge", "max_num_segments=1"),
        ("POST", "/sel-0001/_cache/clear", ""),
        ("PUT", "/sel-0001/_settings", ""),
    ];
    expected.sort();
    assert_eq!(calls, expected);
    assert_eq!(
        writes.last().unwrap().3,
        Some(json!({"index.blocks.write": false}))
    );

    // A bulk delete with its typed confirmation.
    f.proxy.clear_requests();
    let (status, body) = f
        .post(
            "/indices/_actions/delete",
            json!({"indices": ["sel-0000", "sel-0001"], "confirm": "delete 2 indices"}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert!(
        body["results"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["ok"] == true)
    );
    assert!(f.statuses("sel-").await.is_empty());
}

#[tokio::test]
async fn a_write_block_is_added_with_the_block_api_and_removed_with_its_setting() {
    for distribution in REAL {
        write_block(distribution).await;
    }
}

async fn write_block(distribution: Distribution) {
    let f = real(distribution).await;
    crate::support::seed_indices(&f.proxy.url, "blk", 1, |_| 0).await;
    f.proxy.clear_requests();
    let (status, body) = f
        .post(
            "/indices/_actions/block_write",
            json!({"indices": ["blk-0000"]}),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["results"][0],
        json!({"index": "blk-0000", "ok": true, "message": null}),
        "{body}"
    );
    let blocked = |value: &'static str| {
        let url = format!("{}/blk-0000/_settings?flat_settings=true", f.proxy.url);
        move || {
            crate::support::get_json_blocking(&url)
                .is_some_and(|s| s["blk-0000"]["settings"]["index.blocks.write"] == value)
        }
    };
    wait_until("the write block", Duration::from_secs(5), blocked("true")).await;
    let (status, unblocked) = f
        .post(
            "/indices/_actions/unblock_write",
            json!({"indices": ["blk-0000"]}),
        )
        .await;
    assert_eq!(status, 200, "{unblocked}");
    assert_eq!(unblocked["results"][0]["ok"], true, "{unblocked}");
    wait_until("no write block", Duration::from_secs(5), blocked("false")).await;
    let writes = f.writes();
    assert_eq!(
        (writes[0].0.as_str(), writes[0].1.as_str()),
        ("PUT", "/blk-0000/_block/write")
    );
    assert_eq!(
        writes[1],
        (
            "PUT".to_owned(),
            "/blk-0000/_settings".to_owned(),
            String::new(),
            Some(json!({"index.blocks.write": false}))
        )
    );
}

#[tokio::test]
async fn a_viewer_is_refused_every_change_an_operator_only_the_admin_ones() {
    let dir = TempDir::new("indices-audit");
    let file = dir.path().join("audit.log");
    let f = real_with(Distribution::OpenSearch2, |clusters| {
        format!(
            "{}audit:\n  file: {}\n",
            trusted_yaml(clusters),
            file.display()
        )
    })
    .await;
    crate::support::seed_indices(&f.proxy.url, "roles", 1, |_| 1).await;
    let app = &f.app;
    let url = |tail: &str| f.url(tail);
    let changes: Vec<(&str, String, Option<Value>)> = vec![
        ("POST", url("/indices"), Some(json!({"name": "roles-new"}))),
        (
            "POST",
            url("/indices/_actions/close"),
            Some(json!({"indices": ["roles-0000"]})),
        ),
        (
            "POST",
            url("/indices/_actions/block_write"),
            Some(json!({"indices": ["roles-0000"]})),
        ),
        (
            "PUT",
            url("/indices/roles-0000/settings"),
            Some(json!({"settings": {"index.number_of_replicas": 0}})),
        ),
        (
            "DELETE",
            url("/indices/roles-0000?confirm=roles-0000"),
            None,
        ),
    ];
    let call = |method: &str, target: &str, body: &Option<Value>, caller| {
        let mut request = app.client.request(method.parse().unwrap(), target);
        if let Some(body) = body {
            request = request.json(body);
        }
        send(as_caller(request, caller))
    };
    for (method, target, body) in &changes {
        let (status, answer) = call(method, target, body, &VIEWER).await;
        assert_eq!(status, 403, "{method} {target}: {answer}");
        assert_eq!(answer["error"]["code"], "forbidden");
    }
    // An operator may close (and reopen) but not create, delete, block or edit settings.
    for (method, target, body) in &changes {
        let (status, answer) = call(method, target, body, &OPERATOR).await;
        let expected = if target.ends_with("/_actions/close") {
            200
        } else {
            403
        };
        assert_eq!(status, expected, "{method} {target}: {answer}");
    }
    let (status, _) = call(
        "POST",
        &url("/indices/_actions/open"),
        &Some(json!({"indices": ["roles-0000"]})),
        &OPERATOR,
    )
    .await;
    assert_eq!(status, 200);
    // Every view stays a viewer's.
    let (status, page) = call("GET", &url("/indices/roles-0000"), &None, &VIEWER).await;
    assert_eq!(status, 200, "{page}");
    // An admin may do everything; the delete goes last.
    for (method, target, body) in &changes {
        let (status, answer) = call(method, target, body, &ADMIN).await;
        assert_eq!(status, 200, "{method} {target}: {answer}");
    }

    let path = file.clone();
    wait_until("the audit lines", Duration::from_secs(10), move || {
        std::fs::read_to_string(&path)
            .unwrap_or_default()
            .lines()
            .count()
            >= 5 + 5 + 1 + 5
    })
    .await;
    let lines: Vec<Value> = std::fs::read_to_string(&file)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let denied: Vec<&Value> = lines.iter().filter(|line| line["user"] == "vera").collect();
    assert_eq!(denied.len(), 5);
    assert!(
        denied
            .iter()
            .all(|line| line["outcome"] == "denied" && line["status"] == 403)
    );
    assert_eq!(denied[4]["method"], "DELETE");
    assert_eq!(
        denied[4]["path"],
        "/api/clusters/main/indices/roles-0000?confirm=roles-0000"
    );
}
