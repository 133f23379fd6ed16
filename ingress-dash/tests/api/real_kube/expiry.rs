//! Watches on a cluster whose API server compacts etcd every second: a watcher that re-watches
//! from an old resourceVersion gets a real 410 Gone, lists again and stays consistent; with
//! bookmarks (a watch longer than 2 s: the API server sends one 2 s before its end) it keeps a
//! fresh resourceVersion.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;
use test_support::kube_cluster::KubeCluster;

use super::{Cluster, INGRESS, RealApp, WAIT, ingress, spawn_real};
use crate::app::SseEvent;

/// Changes ingresses in `busy` every 200 ms for `duration`, then calls `change(i)`. The API
/// server's watch cache keeps, per resource, the changes since the last compaction: changes of
/// ingresses elsewhere move that window past a quiet namespace's resourceVersion (changes of
/// other resources do not: a ConfigMap written leaves the ingresses' window as it is).
async fn churn(app: &RealApp, busy: &str, duration: Duration, mut change: impl AsyncFnMut(u32)) {
    let deadline = tokio::time::Instant::now() + duration;
    let mut i = 0u32;
    while tokio::time::Instant::now() < deadline {
        let host = format!("busy{i}.example.com");
        app.kube
            .put(INGRESS, ingress(busy, &format!("c{}", i % 5), &host, "web"))
            .await;
        change(i).await;
        i += 1;
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// name → resourceVersion after the snapshot and the events; panics on an event that repeats
/// what the client already has (an `added` of a known record, a change to the same version, a
/// `deleted` of an unknown one).
fn replay(snapshot: &Value, events: &[SseEvent]) -> BTreeMap<String, String> {
    let mut state: BTreeMap<String, String> = snapshot["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["name"].as_str().unwrap().to_owned(),
                item["resourceVersion"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    for event in events {
        let name = event.data["name"].as_str().unwrap_or_default().to_owned();
        let version = event.data["resourceVersion"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        match event.event.as_str() {
            "added" => assert!(state.insert(name, version).is_none(), "{event:?}"),
            "modified" => {
                let before = state.insert(name, version.clone());
                assert!(before.is_some_and(|before| before != version), "{event:?}");
            }
            "deleted" => assert!(state.remove(&name).is_some(), "{event:?}"),
            other => panic!("unexpected {other}: {event:?}"),
        }
    }
    state
}

/// What the API server has: name → resourceVersion.
async fn stored(app: &RealApp, namespace: &str) -> BTreeMap<String, String> {
    let list: Value = app
        .kube
        .admin
        .get(format!(
            "{}/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses",
            app.kube.cluster.url()
        ))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["metadata"]["name"].as_str().unwrap().to_owned(),
                item["metadata"]["resourceVersion"]
                    .as_str()
                    .unwrap()
                    .to_owned(),
            )
        })
        .collect()
}

/// Reads events until the stream is quiet for 3 s.
async fn drain(stream: &mut crate::app::SseReader) -> Vec<SseEvent> {
    let mut events = Vec::new();
    while let Some(event) = stream.next_event(Duration::from_secs(3)).await {
        events.push(event);
    }
    events
}

#[tokio::test]
async fn after_a_real_410_the_watcher_lists_again_and_loses_or_repeats_nothing() {
    // Without the watch cache every watch is etcd's: one from a compacted revision gets 410 at
    // once (the watch cache would serve it from its own window for minutes).
    let cluster = KubeCluster::start_with_apiserver_args(
        Duration::from_secs(1),
        &["--watch-cache=false".to_owned()],
    );
    // A watch of 1 s gets no bookmark: the watcher re-watches from the resourceVersion of the
    // last change in its namespace, which the compactor soon passes.
    let app = spawn_real(
        Cluster::Own(Box::new(cluster)),
        None,
        "  watch_timeout: 1s\n",
        "",
    )
    .await;
    let ns = "rk-expiry";
    app.kube.namespaces(&[ns, "rk-busy"]).await;
    for name in ["a", "b", "c"] {
        let host = format!("{name}.example.com");
        app.kube.put(INGRESS, ingress(ns, name, &host, "web")).await;
    }
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let snapshot = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(snapshot.event, "snapshot");
    let lists_before = app.kube.request_count("LIST", "ingresses").await;

    let kube = &app.kube;
    churn(&app, "rk-busy", Duration::from_secs(12), async |i| {
        if i % 10 == 5 {
            let name = format!("n{i}");
            let host = format!("{name}.example.com");
            kube.put(INGRESS, ingress(ns, &name, &host, "web")).await;
        }
        if i == 25 {
            kube.put(INGRESS, ingress(ns, "b", "b2.example.com", "web"))
                .await;
            kube.delete(INGRESS, ns, "c").await;
        }
    })
    .await;
    let events = drain(&mut stream).await;
    let relists = app.kube.request_count("LIST", "ingresses").await - lists_before;
    assert!(
        relists >= 2,
        "{relists} lists: no 410 made the watcher list again; events: {events:#?}"
    );
    assert_eq!(replay(&snapshot.data, &events), stored(&app, ns).await);
}

/// The watch requests for ingresses in `namespace` the audit log holds, by their query.
fn audited_watches(log: &std::path::Path, namespace: &str) -> Vec<String> {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let path = format!("/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses?");
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|entry| entry["verb"] == "watch")
        .filter_map(|entry| {
            let uri = entry["requestURI"].as_str()?;
            uri.strip_prefix(&path).map(str::to_owned)
        })
        .collect()
}

fn query_value<'a>(query: &'a str, key: &str) -> Option<&'a str> {
    query
        .split('&')
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
}

#[tokio::test]
async fn the_real_servers_bookmarks_move_the_watch_on_in_a_quiet_namespace() {
    let audit = test_support::TempDir::new("kube-audit");
    let policy = audit.path().join("policy.yaml");
    std::fs::write(
        &policy,
        "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n\
         - level: Metadata\n  verbs: [watch]\n  resources:\n  - group: networking.k8s.io\n    \
         resources: [ingresses]\n- level: None\n",
    )
    .unwrap();
    let log = audit.path().join("audit.log");
    let cluster = KubeCluster::start_with_apiserver_args(
        Duration::ZERO,
        &[
            format!("--audit-policy-file={}", policy.display()),
            format!("--audit-log-path={}", log.display()),
        ],
    );
    // A watch of 5 s: the watch cache sends a bookmark 2 s before its end.
    let app = spawn_real(
        Cluster::Own(Box::new(cluster)),
        None,
        "  watch_timeout: 5s\n",
        "",
    )
    .await;
    let ns = "rk-bookmarks";
    app.kube.namespaces(&[ns, "rk-busy"]).await;
    let quiet = app
        .kube
        .put(INGRESS, ingress(ns, "a", "a.example.com", "web"))
        .await;
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let snapshot = stream.next_event(WAIT).await.expect("a snapshot");
    // Ingresses change elsewhere only: the namespace's own newest version stays put.
    churn(&app, "rk-busy", Duration::from_secs(12), async |_| {}).await;
    let events = drain(&mut stream).await;
    assert!(events.is_empty(), "{events:#?}");
    assert_eq!(replay(&snapshot.data, &events), stored(&app, ns).await);

    let watches = audited_watches(&log, ns);
    assert!(watches.len() >= 2, "{watches:?}");
    for query in &watches {
        assert_eq!(
            query_value(query, "allowWatchBookmarks"),
            Some("true"),
            "{query}"
        );
    }
    let quiet_version: u64 = quiet["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let versions: Vec<u64> = watches
        .iter()
        .filter_map(|query| query_value(query, "resourceVersion")?.parse().ok())
        .collect();
    let first = versions[0];
    assert!(first >= quiet_version, "{versions:?}");
    // A later watch starts from a version only a bookmark can have told: newer than anything
    // in the namespace and than the list the first watch started from.
    assert!(
        versions.iter().any(|version| *version > first),
        "every watch started from the list's version: {versions:?}"
    );
}
