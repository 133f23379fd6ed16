//! The API conventions kube clients rely on, checked on the wire.

use std::time::Duration;

use futures_util::StreamExt;
use kube_test_server::{KubeTestServer, Options, sample};
use serde_json::Value;

async fn get(url: String) -> (u16, Value) {
    let response = test_support::http_client().get(url).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

/// Reads watch lines until `count` events arrived or the stream ends.
async fn watch_lines(url: String, count: usize) -> Vec<Value> {
    let response = test_support::http_client().get(url).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut buffer = Vec::new();
    let mut events = Vec::new();
    while events.len() < count {
        let Ok(Some(Ok(chunk))) = tokio::time::timeout(Duration::from_secs(5), body.next()).await
        else {
            break;
        };
        buffer.extend_from_slice(&chunk);
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            events.push(serde_json::from_slice(&line).unwrap());
        }
    }
    events
}

#[tokio::test]
async fn paginated_list_is_a_consistent_snapshot() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 5, 1);
    let base = format!("{}/apis/networking.k8s.io/v1/ingresses", server.url());
    let (status, first) = get(format!("{base}?limit=2")).await;
    assert_eq!(status, 200);
    assert_eq!(first["kind"], "IngressList");
    assert_eq!(first["apiVersion"], "networking.k8s.io/v1");
    assert_eq!(first["items"].as_array().unwrap().len(), 2);
    assert_eq!(first["metadata"]["remainingItemCount"], 3);
    let revision = first["metadata"]["resourceVersion"].clone();
    // A change after the first page is not in the later pages.
    server.cluster.delete_ingress("team-000", "app-00004");
    let token = first["metadata"]["continue"].as_str().unwrap();
    let (_, second) = get(format!("{base}?limit=2&continue={token}")).await;
    assert_eq!(second["metadata"]["resourceVersion"], revision);
    let token = second["metadata"]["continue"].as_str().unwrap();
    let (_, third) = get(format!("{base}?limit=2&continue={token}")).await;
    let names: Vec<&str> = third["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["metadata"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["app-00004"]);
    assert!(third["metadata"].get("continue").is_none());
}

#[tokio::test]
async fn expired_versions_answer_410_gone_as_a_status() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 3, 1);
    let base = format!("{}/apis/networking.k8s.io/v1/ingresses", server.url());
    let (_, first) = get(format!("{base}?limit=1")).await;
    let token = first["metadata"]["continue"].as_str().unwrap().to_owned();
    server
        .cluster
        .put_ingress(sample::ingress("team-000", "late", 9));
    server.cluster.compact();
    let (status, body) = get(format!("{base}?limit=1&continue={token}")).await;
    assert_eq!(status, 410);
    assert_eq!(body["kind"], "Status");
    assert_eq!(body["status"], "Failure");
    assert_eq!(body["reason"], "Expired");
    assert_eq!(body["code"], 410);
    let (status, _) = get(format!(
        "{base}?resourceVersion=2&resourceVersionMatch=Exact"
    ))
    .await;
    assert_eq!(status, 410);
    // A watch from a compacted version: 200, then one ERROR event with the 410 Status.
    let events = watch_lines(format!("{base}?watch=1&resourceVersion=2"), 2).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["type"], "ERROR");
    assert_eq!(events[0]["object"]["code"], 410);
    assert_eq!(events[0]["object"]["reason"], "Expired");
}

#[tokio::test]
async fn watch_replays_from_a_version_then_streams_with_bookmarks() {
    let server = KubeTestServer::start(Options {
        bookmark_interval: Duration::from_millis(200),
        ..Options::default()
    })
    .unwrap();
    sample::populate(&server.cluster, 1, 1);
    let from = server.cluster.revision();
    server
        .cluster
        .put_ingress(sample::ingress("team-000", "second", 1));
    let url = format!(
        "{}/apis/networking.k8s.io/v1/namespaces/team-000/ingresses?watch=1&resourceVersion={from}&allowWatchBookmarks=true&timeoutSeconds=2",
        server.url()
    );
    let watching = tokio::spawn(watch_lines(url, 100));
    // The delete must come after the watch has started (with a deadline).
    let cluster = server.cluster.clone();
    tokio::task::spawn_blocking(move || {
        test_support::wait_until("the watch", Duration::from_secs(10), || {
            cluster.open_watches() == 1
        })
    })
    .await
    .unwrap();
    server.cluster.delete_ingress("team-000", "second");
    let events = watching.await.unwrap();
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(events[0]["object"]["kind"], "Ingress");
    assert_eq!(events[0]["object"]["metadata"]["name"], "second");
    assert_eq!(events[1]["type"], "DELETED");
    assert!(events.iter().any(|event| event["type"] == "BOOKMARK"
        && event["object"]["metadata"]["resourceVersion"].is_string()));
    // timeoutSeconds=2 ended the stream.
    assert!(events.len() < 100);
}

#[tokio::test]
async fn a_missing_object_answers_a_kubernetes_status_body() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 2, 2);
    let url = |namespace: &str| {
        format!(
            "{}/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses",
            server.url()
        )
    };
    let (status, _) = get(url("team-000")).await;
    assert_eq!(status, 200);
    let (status, body) = get(format!("{}/api/v1/namespaces/nope", server.url())).await;
    assert_eq!((status, body["reason"].as_str()), (404, Some("NotFound")));
}

/// A burst of watchers connecting at once must queue, not be reset: the listener's backlog is
/// well above std's 128 (as `ss` reports it for a listening socket: Send-Q is the backlog).
#[test]
fn the_listener_queues_a_burst_of_connections() {
    let server =
        kube_test_server::KubeTestServer::start(kube_test_server::Options::default()).unwrap();
    let port = server.url().rsplit(':').next().unwrap().to_owned();
    let output = std::process::Command::new("ss")
        .args(["-Hltn", &format!("sport = :{port}")])
        .output()
        .expect("ss (iproute2) is installed by make deps");
    let text = String::from_utf8_lossy(&output.stdout);
    // State Recv-Q Send-Q Local Peer
    let backlog: u32 = text
        .split_whitespace()
        .nth(2)
        .and_then(|field| field.parse().ok())
        .unwrap_or_else(|| panic!("ss said: {text:?}"));
    let somaxconn: u32 = std::fs::read_to_string("/proc/sys/net/core/somaxconn")
        .ok()
        .and_then(|text| text.trim().parse().ok())
        .unwrap_or(4096);
    assert!(
        backlog >= 1024.min(somaxconn) && backlog > 128,
        "backlog {backlog} (somaxconn {somaxconn})"
    );
}
