use serde_json::json;

use super::*;

/// What OpenSearch 2.19.6 answered for a stream rolled over once.
fn opensearch() -> Value {
    json!({"data_streams": [{"name": "logs-b", "timestamp_field": {"name": "@timestamp"},
        "indices": [{"index_name": ".ds-logs-b-000001", "index_uuid": "u1"},
                    {"index_name": ".ds-logs-b-000002", "index_uuid": "u2"}],
        "generation": 2, "status": "YELLOW", "template": "logs"},
        {"name": "logs-a", "timestamp_field": {"name": "@timestamp"},
         "indices": [{"index_name": ".ds-logs-a-000001", "index_uuid": "u3"}],
         "generation": 1, "status": "GREEN", "template": "logs"}]})
}

#[test]
fn the_answer_becomes_sorted_rows_with_their_sizes() {
    let stats = json!({"data_streams": [
        {"data_stream": "logs-b", "backing_indices": 2, "store_size_bytes": 416, "maximum_timestamp": 0},
        {"data_stream": "logs-a", "backing_indices": 1, "store_size_bytes": 208,
         "maximum_timestamp": 1_764_320_000_000_u64}]});
    let rows = rows(&opensearch(), Some(&stats)).unwrap();
    assert_eq!(rows[0].name, "logs-a");
    assert_eq!(rows[0].maximum_timestamp, Some(1_764_320_000_000));
    let b = &rows[1];
    assert_eq!(b.generation, Some(2));
    assert_eq!(b.health.as_deref(), Some("yellow"));
    assert_eq!(b.template.as_deref(), Some("logs"));
    assert_eq!(b.timestamp_field.as_deref(), Some("@timestamp"));
    assert_eq!(
        b.backing_indices
            .iter()
            .map(|index| index.name.as_str())
            .collect::<Vec<_>>(),
        [".ds-logs-b-000001", ".ds-logs-b-000002"]
    );
    assert_eq!(b.store_size_bytes, Some(416));
    assert_eq!(b.maximum_timestamp, None, "0 is nothing indexed yet");
    assert_eq!(b.ilm_policy, None);
    let wire = serde_json::to_value(b).unwrap();
    assert_eq!(wire["backingIndices"][1]["name"], ".ds-logs-b-000002");
    assert_eq!(wire["timestampField"], "@timestamp");
}

#[test]
fn elasticsearch_adds_its_lifecycle_policy_and_hidden_flag() {
    // The documented Elasticsearch 8 answer (GET _data_stream).
    let answer = json!({"data_streams": [{"name": "my-data-stream",
        "timestamp_field": {"name": "@timestamp"},
        "indices": [{"index_name": ".ds-my-data-stream-2099.03.07-000001", "index_uuid": "x",
                     "prefer_ilm": true, "ilm_policy": "my-lifecycle-policy", "managed_by": "Index Lifecycle Management"}],
        "generation": 1, "_meta": {"my-meta-field": "foo"}, "status": "GREEN",
        "next_generation_managed_by": "Index Lifecycle Management", "prefer_ilm": true,
        "template": "my-index-template", "ilm_policy": "my-lifecycle-policy",
        "hidden": false, "system": false, "allow_custom_routing": false, "replicated": false,
        "rollover_on_write": false}]});
    let rows = rows(&answer, None).unwrap();
    assert_eq!(rows[0].ilm_policy.as_deref(), Some("my-lifecycle-policy"));
    assert_eq!(
        rows[0].backing_indices[0].ilm_policy.as_deref(),
        Some("my-lifecycle-policy")
    );
    assert_eq!(rows[0].health.as_deref(), Some("green"));
    assert_eq!(rows[0].store_size_bytes, None, "no stats: no size");
}

#[test]
fn an_answer_without_a_list_is_the_clusters_fault() {
    assert!(matches!(
        rows(&json!({"acknowledged": true}), None),
        Err(Error::Upstream { .. })
    ));
    assert!(
        rows(&json!({"data_streams": [{"generation": 1}]}), None)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_rollover_answer_names_both_indices() {
    let answer = json!({"acknowledged": true, "shards_acknowledged": true,
        "old_index": ".ds-a-000001", "new_index": ".ds-a-000002", "rolled_over": true,
        "dry_run": false, "conditions": {}});
    assert_eq!(
        rolled_over("a", &answer),
        RolledOver {
            name: "a".to_owned(),
            old_index: Some(".ds-a-000001".to_owned()),
            new_index: Some(".ds-a-000002".to_owned()),
            rolled_over: true
        }
    );
}

fn refused(status: StatusCode, reason: &str) -> Error {
    Error::RejectedByCluster {
        status,
        message: format!("The cluster \"main\" refused the call ({status}): {reason}"),
    }
}

#[test]
fn refusals_are_put_into_words() {
    // Elasticsearch 7.10.2 OSS and an 8.19 build without the data-streams module.
    for error in [
        refused(
            StatusCode::BAD_REQUEST,
            "Invalid index name [_data_stream], must not start with '_'.",
        ),
        refused(
            StatusCode::METHOD_NOT_ALLOWED,
            "Incorrect HTTP method for uri [/_data_stream/a] and method [PUT], allowed: [POST]",
        ),
    ] {
        let explained = explained(error, Some("a"));
        assert!(
            matches!(&explained, Error::RejectedByCluster { status, message }
                if *status == StatusCode::BAD_REQUEST && message.starts_with(NO_API)),
            "{explained:?}"
        );
    }
    for reason in [
        "no matching index template found for data stream [a]",
        "matching index template [plain] for data stream [a] has no data stream template",
    ] {
        let message = explained(refused(StatusCode::BAD_REQUEST, reason), Some("a")).to_string();
        assert!(
            message.starts_with("No index template with a data_stream matches \"a\"")
                && message.ends_with(reason),
            "{message}"
        );
    }
    let missing = explained(
        refused(StatusCode::NOT_FOUND, "no such index [a]"),
        Some("a"),
    );
    assert_eq!(
        missing.to_string(),
        "The cluster has no data stream named \"a\"."
    );
    let exists = refused(StatusCode::BAD_REQUEST, "data_stream [a] already exists");
    assert_eq!(
        explained(exists.clone(), Some("a")).to_string(),
        exists.to_string()
    );
    let down = Error::upstream("answered 500".to_owned());
    assert!(matches!(explained(down, None), Error::Upstream { .. }));
}
