//! Item 1: forwarding, recording, the "not recovered" mode, flavors, node stats, the binary.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use search_test_server::{ClusterStub, Flavor, NodeUsage};
use serde_json::json;

use crate::Fixture;

#[tokio::test]
async fn unanswered_requests_go_to_osmem_unchanged_and_every_request_is_recorded() {
    let f = Fixture::start(1, Flavor::OpenSearch2);
    f.create_index("orders", 1, 0).await;
    let (status, body) = f
        .call(
            "POST",
            "/orders/_doc/1?refresh=true",
            Some(json!({"item": "book"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    // osmem itself holds the document.
    let direct: serde_json::Value = f
        .client
        .get(format!("{}/orders/_doc/1", f.osmem.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(direct["_source"], json!({"item": "book"}));
    // osmem's errors come back as osmem gave them.
    let (status, body) = f.call("GET", "/missing/_doc/1", None).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["type"], "index_not_found_exception");

    let requests = f.server.requests();
    let post = requests
        .iter()
        .find(|request| request.method == "POST")
        .expect("the POST is recorded");
    assert_eq!(post.path, "/orders/_doc/1");
    assert_eq!(post.query, "refresh=true");
    assert_eq!(post.param("refresh").as_deref(), Some("true"));
    assert_eq!(post.body, Some(json!({"item": "book"})));
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[2].body, None);
    f.server.clear_requests();
    assert!(f.server.requests().is_empty());
}

#[tokio::test]
async fn unavailable_answers_the_documented_503_and_counts_refusals() {
    let osmem = test_support::Osmem::start();
    let stub = ClusterStub::start(&osmem.url, NodeUsage::default());
    let client = test_support::http_client();
    stub.set_unavailable(true);
    let refused = stub.refused_calls();
    let response = client
        .get(format!("{}/_cluster/health", stub.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 503);
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "cluster_block_exception");
    assert_eq!(body["status"], 503);
    assert_eq!(refused(), 1);
    stub.set_unavailable(false);
    let response = client
        .get(format!("{}/_cluster/health", stub.url))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(refused(), 1);
}

#[tokio::test]
async fn one_node_keeps_osmems_node_and_node_stats_have_the_usage() {
    let f = Fixture::start(1, Flavor::OpenSearch2);
    let osmem_nodes: serde_json::Value = f
        .client
        .get(format!("{}/_nodes", f.osmem.url))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let nodes = f.get("/_nodes").await;
    let id = osmem_nodes["nodes"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .unwrap();
    assert_eq!(nodes["nodes"][id]["name"], osmem_nodes["nodes"][id]["name"]);
    assert_eq!(
        nodes["nodes"][id]["roles"],
        osmem_nodes["nodes"][id]["roles"]
    );

    let stats = f.get("/_nodes/stats/jvm,fs").await;
    let node = &stats["nodes"][id];
    assert_eq!(node["jvm"]["mem"]["heap_max_in_bytes"], 1u64 << 30);
    assert_eq!(node["fs"]["total"]["available_in_bytes"], 40u64 << 30);
    assert!(node.get("os").is_none(), "only the asked metrics");
    let filtered = f
        .get("/_nodes/stats/os?filter_path=nodes.*.os.cpu.percent")
        .await;
    assert_eq!(
        filtered,
        json!({"nodes": {id.clone(): {"os": {"cpu": {"percent": 7}}}}})
    );
    let pretty = f
        .client
        .get(format!("{}/_nodes/stats/os?pretty", f.server.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(pretty.starts_with("{\n  \""), "{pretty}");
    // filter_path applies to node info as well.
    let info = f.get("/_nodes?filter_path=nodes.*.name").await;
    assert_eq!(
        info,
        json!({"nodes": {id.clone(): {"name": osmem_nodes["nodes"][id]["name"]}}})
    );
}

#[tokio::test]
async fn the_elasticsearch_flavor_has_an_elasticsearch_root_and_master_roles() {
    let f = Fixture::start(3, Flavor::Elasticsearch8);
    let root = f.get("/").await;
    assert!(
        root["version"]["number"]
            .as_str()
            .unwrap()
            .starts_with("8.")
    );
    assert_eq!(root["version"]["build_flavor"], "default");
    assert!(root["version"].get("distribution").is_none());
    assert_eq!(root["tagline"], "You Know, for Search");

    let nodes = f.get("/_nodes").await;
    assert_eq!(nodes["nodes"].as_object().unwrap().len(), 3);
    for node in nodes["nodes"].as_object().unwrap().values() {
        let roles: Vec<&str> = node["roles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|role| role.as_str().unwrap())
            .collect();
        assert!(roles.contains(&"master") && !roles.contains(&"cluster_manager"));
    }
    let cat = f
        .get("/_cat/nodes?format=json&h=name,master,node.role")
        .await;
    assert_eq!(
        cat,
        json!([
            {"name": "node-1", "master": "*", "node.role": "cdfhilmrstw"},
            {"name": "node-2", "master": "-", "node.role": "cdfhilmrstw"},
            {"name": "node-3", "master": "-", "node.role": "cdfhilmrstw"}
        ])
    );

    let opensearch = Fixture::start(3, Flavor::OpenSearch2);
    let cat = opensearch
        .get("/_cat/nodes?format=json&h=n,cluster_manager")
        .await;
    assert_eq!(cat[0], json!({"name": "node-1", "cluster_manager": "*"}));
    let text = opensearch
        .client
        .get(format!(
            "{}/_cat/nodes?v&h=name,node.role",
            opensearch.server.url
        ))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(
        text,
        "name   node.role\nnode-1 dimr\nnode-2 dimr\nnode-3 dimr\n"
    );
    let one = opensearch
        .get("/_nodes/node-2?filter_path=nodes.*.name")
        .await;
    assert_eq!(one["nodes"].as_object().unwrap().len(), 1);
}

#[tokio::test]
async fn the_binary_announces_its_url_and_exits_when_stdin_closes() {
    let osmem = test_support::Osmem::start();
    let mut child = Command::new(env!("CARGO_BIN_EXE_search-test-server"))
        .args(["--osmem-url", &osmem.url, "--nodes", "3", "--seed"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let announced: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(announced["pid"], child.id());
    let url = announced["url"].as_str().unwrap();
    let health: serde_json::Value = test_support::http_client()
        .get(format!("{url}/_cluster/health"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(health["number_of_nodes"], 3);
    drop(child.stdin.take());
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success());
}

#[tokio::test]
async fn the_binary_exits_0_on_sigterm() {
    let osmem = test_support::Osmem::start();
    let mut child = Command::new(env!("CARGO_BIN_EXE_search-test-server"))
        .args([
            "--osmem-url",
            &osmem.url,
            "--no-stdin-watch",
            "--flavor",
            "elasticsearch8",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let announced: serde_json::Value = serde_json::from_str(&line).unwrap();
    let url = announced["url"].as_str().unwrap();
    // Still serving although its stdin is at EOF.
    let root: serde_json::Value = test_support::http_client()
        .get(format!("{url}/"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(root["tagline"], "You Know, for Search");
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = tokio::task::spawn_blocking(move || child.wait())
        .await
        .unwrap()
        .unwrap();
    assert!(status.success(), "{status}");
}

/// The binary (`make run`, hours of polling) keeps no request list: with recording off the
/// server still answers, and nothing accumulates.
#[tokio::test]
async fn with_recording_off_nothing_accumulates() {
    let osmem = test_support::Osmem::start();
    let server = search_test_server::SearchTestServer::start(search_test_server::Options {
        osmem_url: osmem.url.clone(),
        record_requests: false,
        ..search_test_server::Options::default()
    });
    let client = test_support::http_client();
    for _ in 0..3 {
        let status = client
            .get(format!("{}/_cluster/health", server.url))
            .send()
            .await
            .unwrap()
            .status();
        assert_eq!(status, 200);
    }
    assert!(server.requests().is_empty());
}
