//! Item 4: repositories, snapshots capturing osmem's data, status, restore with rename.

use search_test_server::Flavor;
use serde_json::{Value, json};

use crate::{Fixture, eventually};

async fn seed_orders(f: &Fixture) {
    let (status, body) = f
        .call(
            "PUT",
            "/orders",
            Some(json!({
                "settings": {"number_of_shards": 2, "number_of_replicas": 0},
                "mappings": {"properties": {"item": {"type": "keyword"}, "qty": {"type": "integer"}}}
            })),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    for (id, item) in [("1", "book"), ("2", "pen"), ("3", "lamp")] {
        let (status, _) = f
            .call(
                "PUT",
                &format!("/orders/_doc/{id}?refresh=true"),
                Some(json!({"item": item, "qty": 1})),
            )
            .await;
        assert_eq!(status, 201);
    }
}

#[tokio::test]
async fn repositories_are_registered_listed_verified_and_checked() {
    let f = Fixture::start(2, Flavor::Elasticsearch8);
    let (status, body) = f
        .call(
            "PUT",
            "/_snapshot/backups",
            Some(json!({"type": "fs", "settings": {"location": "/mnt/backups", "compress": true}})),
        )
        .await;
    assert_eq!((status, body), (200, json!({"acknowledged": true})));
    let (status, _) = f
        .call(
            "PUT",
            "/_snapshot/remote",
            Some(json!({"type": "url", "settings": {"url": "https://example.com/snapshots"}})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        f.get("/_snapshot/backups").await,
        json!({"backups": {"type": "fs", "settings": {"location": "/mnt/backups", "compress": "true"}}})
    );
    assert_eq!(f.get("/_snapshot").await.as_object().unwrap().len(), 2);

    let verify = f.call("POST", "/_snapshot/backups/_verify", None).await.1;
    let nodes = f.server.nodes();
    assert_eq!(verify["nodes"][&nodes[1].id], json!({"name": "node-2"}));

    for (body, reason) in [
        (
            json!({"type": "fs", "settings": {}}),
            "[bad] missing location",
        ),
        (json!({"type": "url", "settings": {}}), "[bad] missing url"),
        (
            json!({"type": "s4", "settings": {}}),
            "[bad] repository type [s4] does not exist",
        ),
    ] {
        let (status, answer) = f.call("PUT", "/_snapshot/bad", Some(body)).await;
        assert_eq!(status, 500);
        assert_eq!(answer["error"]["type"], "repository_exception");
        assert_eq!(answer["error"]["reason"], reason);
    }
    let (status, answer) = f.call("GET", "/_snapshot/nope", None).await;
    assert_eq!(status, 404);
    assert_eq!(answer["error"]["type"], "repository_missing_exception");
    assert_eq!(f.call("DELETE", "/_snapshot/remote", None).await.0, 200);
    assert_eq!(f.call("DELETE", "/_snapshot/remote", None).await.0, 404);
}

#[tokio::test]
async fn a_snapshot_is_in_progress_then_succeeds_and_restores_renamed_with_its_documents() {
    let f = Fixture::start(1, Flavor::OpenSearch2);
    seed_orders(&f).await;
    f.call(
        "PUT",
        "/_snapshot/backups",
        Some(json!({"type": "fs", "settings": {"location": "/tmp/b"}})),
    )
    .await;
    let (status, body) = f
        .call(
            "PUT",
            "/_snapshot/backups/nightly-1",
            Some(json!({"indices": "orders", "include_global_state": false, "metadata": {"taken_by": "test"}})),
        )
        .await;
    assert_eq!((status, body), (200, json!({"accepted": true})));
    let listed = f.get("/_snapshot/backups/nightly-1").await;
    assert_eq!(listed["snapshots"][0]["state"], "IN_PROGRESS");
    let status_now = f.get("/_snapshot/backups/nightly-1/_status").await;
    assert_eq!(status_now["snapshots"][0]["state"], "STARTED");
    assert_eq!(status_now["snapshots"][0]["shards_stats"]["total"], 2);
    assert_eq!(
        f.get("/_snapshot/_status").await["snapshots"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    eventually("the snapshot to succeed", || async {
        f.get("/_snapshot/backups/_all").await["snapshots"][0]["state"] == "SUCCESS"
    })
    .await;
    let info = &f.get("/_snapshot/backups/*").await["snapshots"][0];
    assert_eq!(info["snapshot"], "nightly-1");
    assert_eq!(info["indices"], json!(["orders"]));
    assert_eq!(info["include_global_state"], false);
    assert_eq!(info["metadata"], json!({"taken_by": "test"}));
    assert_eq!(
        info["shards"],
        json!({"total": 2, "failed": 0, "successful": 2})
    );
    assert!(info["end_time_in_millis"].as_u64() >= info["start_time_in_millis"].as_u64());
    let root: Value = f
        .client
        .get(format!("{}/", f.osmem.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(info["version"], root["version"]["number"]);
    let done = &f.get("/_snapshot/backups/nightly-1/_status").await["snapshots"][0];
    assert_eq!(done["state"], "SUCCESS");
    assert_eq!(done["shards_stats"]["done"], 2);
    assert_eq!(done["indices"]["orders"]["shards"]["0"]["stage"], "DONE");
    assert!(done["stats"]["total"]["size_in_bytes"].as_u64().unwrap() > 0);

    // Restoring over the open index is refused as documented.
    let (status, body) = f
        .call("POST", "/_snapshot/backups/nightly-1/_restore", None)
        .await;
    assert_eq!(status, 500);
    assert_eq!(body["error"]["type"], "snapshot_restore_exception");
    assert!(body["error"]["reason"].as_str().unwrap().contains(
        "cannot restore index [orders] because an open index with same name already exists in the cluster"
    ));

    let (status, body) = f
        .call(
            "POST",
            "/_snapshot/backups/nightly-1/_restore?wait_for_completion=true",
            Some(json!({"indices": "orders", "rename_pattern": "(.+)", "rename_replacement": "restored-$1",
                "index_settings": {"index.number_of_replicas": 0}})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["snapshot"]["indices"], json!(["restored-orders"]));
    let count = f.get("/restored-orders/_count").await;
    assert_eq!(count["count"], 3);
    let doc = f.get("/restored-orders/_doc/2").await;
    assert_eq!(doc["_source"], json!({"item": "pen", "qty": 1}));
    let mapping = f.get("/restored-orders/_mapping").await;
    assert_eq!(
        mapping["restored-orders"]["mappings"]["properties"]["item"]["type"],
        "keyword"
    );
    let settings = f.get("/restored-orders/_settings").await;
    assert_eq!(
        settings["restored-orders"]["settings"]["index"]["number_of_shards"],
        "2"
    );

    // A closed index of the same name is replaced.
    assert_eq!(f.call("POST", "/orders/_close", None).await.0, 200);
    let (status, body) = f
        .call(
            "POST",
            "/_snapshot/backups/nightly-1/_restore?wait_for_completion=true",
            Some(json!({"indices": ["orders"]})),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(f.get("/orders/_count").await["count"], 3);

    let (status, body) = f.call("PUT", "/_snapshot/backups/nightly-1", None).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "invalid_snapshot_name_exception");
    assert_eq!(
        f.call("DELETE", "/_snapshot/backups/nightly-1", None)
            .await
            .0,
        200
    );
    let (status, body) = f.call("GET", "/_snapshot/backups/nightly-1", None).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["type"], "snapshot_missing_exception");
}

#[tokio::test]
async fn wait_for_completion_answers_the_finished_snapshot_and_unknown_indices_fail() {
    let f = Fixture::start(1, Flavor::Elasticsearch8);
    seed_orders(&f).await;
    f.call(
        "PUT",
        "/_snapshot/backups",
        Some(json!({"type": "fs", "settings": {"location": "/tmp/b"}})),
    )
    .await;
    let (status, body) = f
        .call(
            "PUT",
            "/_snapshot/backups/s1?wait_for_completion=true",
            Some(json!({"indices": ["orders"]})),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["snapshot"]["state"], "SUCCESS");
    assert_eq!(body["snapshot"]["repository"], "backups");
    assert!(
        body["snapshot"]["version"]
            .as_str()
            .unwrap()
            .starts_with("8.")
    );
    assert_eq!(body["snapshot"]["version_id"], 8_15_03_99);
    let listed = f.get("/_snapshot/backups/_all").await;
    assert_eq!(listed["total"], 1);
    let cat = f
        .get("/_cat/snapshots/backups?format=json&h=id,repository,status,total_shards")
        .await;
    assert_eq!(
        cat,
        json!([{"id": "s1", "repository": "backups", "status": "SUCCESS", "total_shards": "2"}])
    );
    let repositories = f.get("/_cat/repositories?format=json").await;
    assert_eq!(repositories, json!([{"id": "backups", "type": "fs"}]));
    let (status, body) = f
        .call(
            "PUT",
            "/_snapshot/backups/s2",
            Some(json!({"indices": "missing"})),
        )
        .await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["type"], "index_not_found_exception");
    let recorded: Vec<Value> = f
        .server
        .requests()
        .into_iter()
        .filter(|r| r.path == "/_snapshot/backups/s1")
        .filter_map(|r| r.body)
        .collect();
    assert_eq!(recorded, vec![json!({"indices": ["orders"]})]);
}
