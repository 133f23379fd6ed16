//! A cold service whose first list is slow (many pages): its first stream client waits while
//! the pages come and gets every record in its first snapshot, instead of an empty `syncing`
//! one; a snapshot request meanwhile waits for that list instead of listing everything again.
//! The real API server pages the list; the fault proxy before it slows every answer and counts
//! the lists. Each test has a namespace of its own on the shared cluster.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::real_kube::{INGRESSES_ONLY, RealApp, scoped, spawn_proxied};

const INGRESSES: usize = 60;
const PAGE: usize = 4;

/// 60 ingresses listed 4 at a time, each page answered after 250 ms: the first list takes
/// about 3.75 s, longer than the stream's wait without progress (`request_timeout`, 2 s), but
/// a page comes well within it. Ingresses only, in `namespace` only, so the pages are all of
/// one list.
async fn slow_cluster(namespace: &str) -> RealApp {
    let app = spawn_proxied(
        &format!(
            "{}  page_size: {PAGE}\n  request_timeout: 2s\n",
            scoped(&[namespace])
        ),
        INGRESSES_ONLY,
    )
    .await;
    app.kube.populate(&[namespace], INGRESSES).await;
    app.kube.faults().set_latency(Duration::from_millis(250));
    app
}

#[tokio::test]
async fn the_first_client_of_a_slow_paged_first_list_gets_the_records_in_its_first_snapshot() {
    let app = slow_cluster("cs-stream").await;
    let started = Instant::now();
    let mut stream = app.stream("", None).await;
    let snapshot = stream.next_event(Duration::from_secs(40)).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(snapshot.data["errors"], json!([]), "not syncing");
    assert_eq!(snapshot.data["items"].as_array().unwrap().len(), INGRESSES);
    // The list did take longer than a wait without progress.
    assert!(started.elapsed() > Duration::from_secs(2));
}

#[tokio::test]
async fn a_snapshot_during_the_first_list_waits_for_it_instead_of_listing_again() {
    let app = slow_cluster("cs-snapshot").await;
    let (status, body) = app.get_json("/api/ingresses").await;
    assert_eq!(status, 200);
    assert_eq!(body["errors"], json!([]));
    assert_eq!(body["items"].as_array().unwrap().len(), INGRESSES);
    // The watcher's pages only: no second list of every ingress beside it.
    assert_eq!(
        app.kube.faults().list_requests(),
        INGRESSES.div_ceil(PAGE) as u64
    );
}
