//! Item 6: `_nodes/stats` with every documented section, metric filters and filter_path.

use search_test_server::Flavor;
use serde_json::json;

use crate::Fixture;

#[tokio::test]
async fn every_node_has_the_documented_sections() {
    let f = Fixture::start(3, Flavor::OpenSearch2);
    f.create_index("orders", 1, 2).await;
    for n in 0..4 {
        let (status, _) = f
            .call("POST", "/orders/_doc?refresh=true", Some(json!({"n": n})))
            .await;
        assert_eq!(status, 201);
    }
    let stats = f.get("/_nodes/stats").await;
    assert_eq!(
        stats["_nodes"],
        json!({"total": 3, "successful": 3, "failed": 0})
    );
    let nodes = f.server.nodes();
    let mut docs = 0;
    for node in &nodes {
        let entry = &stats["nodes"][&node.id];
        assert_eq!(entry["name"], node.name.as_str());
        let jvm = &entry["jvm"];
        assert_eq!(jvm["mem"]["heap_max_in_bytes"], 1u64 << 30);
        assert!(jvm["mem"]["heap_used_in_bytes"].as_u64().unwrap() > 0);
        assert!(jvm["gc"]["collectors"]["young"]["collection_count"].is_u64());
        assert!(jvm["gc"]["collectors"]["old"]["collection_time_in_millis"].is_u64());
        assert!(jvm["uptime_in_millis"].is_u64());
        assert_eq!(entry["os"]["cpu"]["percent"], 7);
        assert!(entry["os"]["mem"]["total_in_bytes"].is_u64());
        assert!(entry["process"]["open_file_descriptors"].is_u64());
        assert!(entry["fs"]["total"]["total_in_bytes"].is_u64());
        assert_eq!(entry["fs"]["data"].as_array().unwrap().len(), 1);
        for pool in ["search", "write", "get", "management"] {
            for field in [
                "threads",
                "queue",
                "active",
                "rejected",
                "largest",
                "completed",
            ] {
                assert!(entry["thread_pool"][pool][field].is_u64(), "{pool}.{field}");
            }
        }
        assert!(entry["thread_pool"]["write"]["rejected"].as_u64().unwrap() > 0);
        assert_eq!(entry["thread_pool"]["search"]["rejected"], 0);
        assert!(entry["breakers"]["parent"]["limit_size_in_bytes"].is_u64());
        assert!(entry["transport"]["rx_count"].is_u64());
        assert!(entry["http"]["current_open"].is_u64());
        assert!(entry["indices"]["search"]["query_total"].is_u64());
        assert!(entry["indices"]["indexing"]["index_total"].is_u64());
        assert!(entry["indices"]["store"]["size_in_bytes"].is_u64());
        docs += entry["indices"]["docs"]["count"].as_u64().unwrap();
    }
    // One primary and two replicas of 4 documents, one copy per node.
    assert_eq!(docs, 12);

    let only = f.get("/_nodes/stats/thread_pool").await;
    let entry = &only["nodes"][&nodes[0].id];
    assert!(entry.get("thread_pool").is_some() && entry.get("jvm").is_none());
    let breakers = f.get("/_nodes/stats/breaker").await;
    let entry = &breakers["nodes"][&nodes[0].id];
    assert!(entry["breakers"]["parent"]["limit_size_in_bytes"].is_u64());
    assert!(entry.get("jvm").is_none());
    // The answer's section name is not a metric: the clusters refuse it, and so does the front.
    let (status, refused) = f.call("GET", "/_nodes/stats/breakers", None).await;
    assert_eq!(status, 400, "{refused}");
    assert_eq!(refused["error"]["type"], "illegal_argument_exception");
    assert!(
        refused["error"]["reason"]
            .as_str()
            .unwrap()
            .contains("unrecognized metric: [breakers]"),
        "{refused}"
    );
    let one = f.get("/_nodes/node-2/stats/jvm").await;
    assert_eq!(one["nodes"].as_object().unwrap().len(), 1);
    assert!(one["nodes"][&nodes[1].id]["jvm"].is_object());
    let docs_only = f.get("/_nodes/stats/indices/docs").await;
    let indices = docs_only["nodes"][&nodes[0].id]["indices"]
        .as_object()
        .unwrap();
    assert_eq!(indices.keys().collect::<Vec<_>>(), vec!["docs"]);
    let filtered = f
        .get("/_nodes/stats?filter_path=nodes.*.thread_pool.write.rejected")
        .await;
    assert_eq!(
        filtered["nodes"][&nodes[0].id],
        json!({"thread_pool": {"write": {"rejected": 17}}})
    );
}
