//! Item 5: the add index block API.

use search_test_server::Flavor;
use serde_json::json;

use crate::Fixture;

#[tokio::test]
async fn a_write_block_is_set_in_osmem_and_answered_as_documented() {
    let f = Fixture::start(1, Flavor::OpenSearch2);
    f.create_index("logs-1", 1, 0).await;
    f.create_index("logs-2", 1, 0).await;
    let (status, body) = f.call("PUT", "/logs-*/_block/write", None).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"acknowledged": true, "shards_acknowledged": true, "indices": [
            {"name": "logs-1", "blocked": true}, {"name": "logs-2", "blocked": true}]})
    );
    let settings: serde_json::Value = f
        .client
        .get(format!("{}/logs-1/_settings", f.osmem.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        settings["logs-1"]["settings"]["index"]["blocks"]["write"],
        "true"
    );
    let (status, body) = f.call("POST", "/logs-1/_doc", Some(json!({"a": 1}))).await;
    assert_eq!(status, 403, "{body}");

    let (status, body) = f.call("PUT", "/logs-1/_block/everything", None).await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["type"], "illegal_argument_exception");
    let (status, body) = f.call("PUT", "/missing/_block/read_only", None).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["type"], "index_not_found_exception");
}
