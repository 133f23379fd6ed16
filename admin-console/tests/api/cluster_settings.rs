//! Cluster settings (issue 19): persistent and transient settings as flat keys, defaults on
//! request, one setting set or reset through `/api/clusters/:id/settings`, against osmem-server
//! behind search-test-server; consistent with the allocation lock; and only an admin may write.

use search_test_server::Options;
use serde_json::{Value, json};
use test_support::{Osmem, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller};
use crate::templates::{audit_lines, fixture, send, sent, trusted_app};

#[tokio::test]
async fn settings_are_read_flat_set_one_at_a_time_and_reset_with_null() {
    let f = fixture(Options::default()).await;
    let url = f.app.url("/api/clusters/main/settings");
    let (status, empty) = send(f.app.client.get(&url)).await;
    assert_eq!(status, 200);
    assert_eq!(
        empty,
        json!({"persistent": {}, "transient": {}, "defaults": null})
    );
    let read = sent(&f.front, "/_cluster/settings");
    assert_eq!(read[0].method, "GET");
    assert_eq!(read[0].param("flat_settings").as_deref(), Some("true"));
    assert_eq!(read[0].param("include_defaults"), None);

    let (status, set) = send(f.app.client.put(&url).json(&json!({
        "scope": "persistent", "key": "cluster.max_shards_per_node", "value": 2000
    })))
    .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(set["persistent"]["cluster.max_shards_per_node"], "2000");
    let (status, set) = send(f.app.client.put(&url).json(&json!({
        "scope": "transient", "key": "indices.recovery.max_bytes_per_sec", "value": "50mb"
    })))
    .await;
    assert_eq!(status, 200, "{set}");
    assert_eq!(
        set["transient"]["indices.recovery.max_bytes_per_sec"],
        "50mb"
    );
    let puts: Vec<Value> = sent(&f.front, "/_cluster/settings")
        .into_iter()
        .filter(|r| r.method == "PUT")
        .map(|r| r.body.unwrap())
        .collect();
    assert_eq!(
        puts,
        vec![
            json!({"persistent": {"cluster.max_shards_per_node": 2000}}),
            json!({"transient": {"indices.recovery.max_bytes_per_sec": "50mb"}}),
        ]
    );

    let (status, all) = send(f.app.client.get(format!("{url}?includeDefaults=true"))).await;
    assert_eq!(status, 200);
    assert_eq!(all["persistent"]["cluster.max_shards_per_node"], "2000");
    let defaults = all["defaults"].as_object().unwrap();
    assert!(defaults.len() > 50, "{}", defaults.len());
    assert!(defaults.contains_key("action.auto_create_index"));
    assert!(defaults.keys().all(|key| key.contains('.')), "flat keys");
    let with_defaults = sent(&f.front, "/_cluster/settings")
        .into_iter()
        .filter(|r| r.param("include_defaults").is_some())
        .count();
    assert_eq!(with_defaults, 1);

    let (status, reset) = send(f.app.client.put(&url).json(&json!({
        "scope": "persistent", "key": "cluster.max_shards_per_node", "value": null
    })))
    .await;
    assert_eq!(status, 200);
    assert_eq!(reset["persistent"], json!({}));
}

#[tokio::test]
async fn bad_settings_are_refused_and_the_cluster_reason_passes_through() {
    let f = fixture(Options::default()).await;
    let url = f.app.url("/api/clusters/main/settings");
    for (body, expected) in [
        (
            json!({"scope": "persistent", "key": "cluster.*", "value": 1}),
            "wildcards",
        ),
        (
            json!({"scope": "persistent", "key": "cluster", "value": 1}),
            "dotted words",
        ),
        (
            json!({"scope": "persistent", "key": "a.b", "value": {"c": 1}}),
            "set each key",
        ),
        (
            json!({"scope": "forever", "key": "a.b", "value": 1}),
            "unknown variant",
        ),
        (
            json!({"scope": "persistent", "key": "a.b"}),
            "missing field `value`",
        ),
        (
            json!({"scope": "persistent", "key": "cluster.routing.allocation.enable", "value": "everything"}),
            "all, primaries, new_primaries, none",
        ),
    ] {
        let (status, answer) = send(f.app.client.put(&url).json(&body)).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(expected),
            "{expected}: {answer}"
        );
    }
    let (status, answer) = send(f.app.client.get(format!("{url}?includeDefaults=yes"))).await;
    assert_eq!(status, 400, "{answer}");
    assert!(sent(&f.front, "/_cluster/settings").is_empty());
    let (status, answer) = send(f.app.client.put(&url).json(&json!({
        "scope": "persistent", "key": "no.such.setting", "value": "x"
    })))
    .await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["code"], "rejected_by_cluster");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not recognized"),
        "{answer}"
    );
}

#[tokio::test]
async fn the_allocation_lock_reads_what_the_settings_editor_writes() {
    let f = fixture(Options::default()).await;
    let url = f.app.url("/api/clusters/main/settings");
    let allocation = f.app.url("/api/clusters/main/allocation");
    let (status, _) = send(f.app.client.put(&url).json(&json!({
        "scope": "persistent", "key": "cluster.routing.allocation.enable", "value": "primaries"
    })))
    .await;
    assert_eq!(status, 200);
    let (_, lock) = send(f.app.client.get(&allocation)).await;
    assert_eq!(lock, json!({"enable": "primaries", "locked": true}));
    // The lock writes the same persistent key the editor shows.
    let (status, _) = send(
        f.app
            .client
            .put(&allocation)
            .json(&json!({"enable": "none"})),
    )
    .await;
    assert_eq!(status, 200);
    let (_, settings) = send(f.app.client.get(&url)).await;
    assert_eq!(
        settings["persistent"]["cluster.routing.allocation.enable"],
        "none"
    );
    let (status, _) = send(f.app.client.put(&url).json(&json!({
        "scope": "persistent", "key": "cluster.routing.allocation.enable", "value": null
    })))
    .await;
    assert_eq!(status, 200);
    let (_, lock) = send(f.app.client.get(&allocation)).await;
    assert_eq!(lock, json!({"enable": "all", "locked": false}));
}

#[tokio::test]
async fn only_an_admin_edits_cluster_settings() {
    let osmem = Osmem::start();
    let front = search_test_server::SearchTestServer::start(Options {
        osmem_url: osmem.url.clone(),
        ..Options::default()
    });
    let dir = TempDir::new("settings-roles");
    let (app, file) = trusted_app(&front.url, &dir).await;
    let url = app.url("/api/clusters/main/settings");
    let body = json!({"scope": "persistent", "key": "cluster.max_shards_per_node", "value": 10});
    for caller in [&VIEWER, &OPERATOR] {
        let (status, answer) = send(as_caller(app.client.put(&url).json(&body), caller)).await;
        assert_eq!(status, 403, "{answer}");
    }
    assert!(
        sent(&front, "/_cluster/settings").is_empty(),
        "a refused call reaches nothing"
    );
    let (status, _) = send(as_caller(app.client.get(&url), &VIEWER)).await;
    assert_eq!(status, 200);
    let (status, answer) = send(as_caller(app.client.put(&url).json(&body), &ADMIN)).await;
    assert_eq!(status, 200, "{answer}");
    let lines = audit_lines(&file, 3).await;
    assert_eq!(
        lines
            .iter()
            .map(|line| (
                line["user"].as_str().unwrap(),
                line["outcome"].as_str().unwrap()
            ))
            .collect::<Vec<_>>(),
        vec![("vera", "denied"), ("otto", "denied"), ("ada", "success")]
    );
}
