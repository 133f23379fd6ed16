//! `GET /api/ingresses/stream`: wire format, isolation, resume, recovery, shared watchers.

use std::collections::BTreeMap;
use std::time::Duration;

use kube_test_server::sample;
use serde_json::{Value, json};

use crate::app::{SseEvent, eventually, spawn_app};

const WAIT: Duration = Duration::from_secs(10);

fn small_ingress(namespace: &str, name: &str, host: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"rules": [{"host": host, "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}
        ]}}]},
    })
}

fn expected_record(object: &Value, host: &str) -> String {
    let metadata = &object["metadata"];
    format!(
        concat!(
            // Empty parts are left out (docs/api/ingress-dash.md, "Absent fields").
            r#"{{"kind":"Ingress","uid":"{uid}","name":"{name}","namespace":"{namespace}","#,
            r#""hosts":["{host}"],"rules":[{{"host":"{host}","paths":[{{"path":"/","pathType":"Prefix","backend":{{"service":{{"name":"web","port":80}}}}}}]}}],"#,
            r#""tls":[],"#,
            r#""createdAt":"{created}","resourceVersion":"{rv}","links":[{{"host":"{host}","url":"http://{host}/"}}],"#,
            r#""backends":[{{"service":"web","namespace":"{namespace}","port":80,"state":"missing_service","readyEndpoints":0,"totalEndpoints":0}}]}}"#
        ),
        uid = metadata["uid"].as_str().unwrap(),
        name = metadata["name"].as_str().unwrap(),
        namespace = metadata["namespace"].as_str().unwrap(),
        created = metadata["creationTimestamp"].as_str().unwrap(),
        rv = metadata["resourceVersion"].as_str().unwrap(),
        host = host,
    )
}

#[tokio::test]
async fn wire_format_is_exact_byte_for_byte() {
    let app = spawn_app("", "stream:\n  heartbeat_interval: 1s\n").await;
    app.kube.cluster.add_namespace("shop");
    let created = app
        .kube
        .cluster
        .put_ingress(small_ingress("shop", "web", "a.example.com"));
    let mut stream = app.stream("?namespaces=shop", None).await;
    assert_eq!(stream.next_block(WAIT).await.unwrap(), "retry: 3000");
    let snapshot = stream.next_block(WAIT).await.unwrap();
    let snapshot_id: u64 = snapshot
        .lines()
        .nth(1)
        .unwrap()
        .strip_prefix("id: ")
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        snapshot,
        format!(
            "event: snapshot\nid: {snapshot_id}\ndata: {{\"items\":[{}],\"errors\":[],\"notices\":[],\"expiryWarningDays\":14}}",
            expected_record(&created, "a.example.com")
        )
    );
    let modified = app
        .kube
        .cluster
        .put_ingress(small_ingress("shop", "web", "b.example.com"));
    let block = loop {
        let block = stream.next_block(WAIT).await.unwrap();
        if block != ": heartbeat" {
            break block;
        }
    };
    let id: u64 = block
        .lines()
        .nth(1)
        .unwrap()
        .strip_prefix("id: ")
        .unwrap()
        .parse()
        .unwrap();
    assert!(id > snapshot_id);
    assert_eq!(
        block,
        format!(
            "event: modified\nid: {id}\ndata: {}",
            expected_record(&modified, "b.example.com")
        )
    );
    // A heartbeat comment within the (test) interval of 1 s.
    assert_eq!(stream.next_block(WAIT).await.unwrap(), ": heartbeat");
    let raw = String::from_utf8(stream.raw.clone()).unwrap();
    assert!(raw.starts_with("retry: 3000\n\nevent: snapshot\nid: "));
    assert!(raw.contains("\n\n: heartbeat\n\n"));
}

#[tokio::test]
async fn a_forbidden_namespace_is_an_error_while_the_others_stream() {
    // A 403 is tried again after kubernetes.permanent_error_retry (5 minutes by default).
    let app = spawn_app("  permanent_error_retry: 1s\n", "").await;
    sample::populate(&app.kube.cluster, 2, 2);
    app.kube.cluster.faults.forbid_namespace("team-001");
    let mut stream = app.stream("?namespaces=team-000,team-001", None).await;
    let snapshot = stream.next_event(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(snapshot.data["items"].as_array().unwrap().len(), 1);
    assert_eq!(snapshot.data["errors"][0]["namespace"], "team-001");
    assert_eq!(snapshot.data["errors"][0]["code"], "kubernetes_forbidden");
    app.kube
        .cluster
        .put_ingress(sample::ingress("team-000", "late", 3));
    let added = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        (added.event.as_str(), &added.data["name"]),
        ("added", &json!("late"))
    );

    // When the namespace works again, clients hear so even if nothing in it changed.
    app.kube.cluster.faults.allow_namespace("team-001");
    let mut seen = Vec::new();
    let recovered = loop {
        let event = stream.next_event(Duration::from_secs(30)).await.unwrap();
        if event.event == "recovered" {
            break event;
        }
        seen.push(event.event);
    };
    assert_eq!(
        recovered.data,
        json!({"namespace": "team-001"}),
        "after {seen:?}"
    );
    let added = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        (added.event.as_str(), &added.data["namespace"]),
        ("added", &json!("team-001"))
    );
}

#[tokio::test]
async fn last_event_id_resumes_from_the_replay_buffer_or_resyncs() {
    let app = spawn_app("", "").await;
    sample::populate(&app.kube.cluster, 2, 1);
    let mut first = app.stream("?namespaces=team-000", None).await;
    let snapshot = first.next_event(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    let mut second = app.stream("?namespaces=team-000", None).await;
    second.next_event(WAIT).await.unwrap();
    drop(first);
    // Changes while the first client is away (the second keeps the watcher alive).
    app.kube
        .cluster
        .put_ingress(sample::ingress("team-000", "new", 5));
    app.kube.cluster.delete_ingress("team-000", "app-00000");
    second.events_until(WAIT, |events| events.len() == 2).await;
    let mut resumed = app.stream("?namespaces=team-000", Some(&snapshot.id)).await;
    let events = resumed.events_until(WAIT, |events| events.len() == 2).await;
    let kinds: Vec<(&str, &Value)> = events
        .iter()
        .map(|e| (e.event.as_str(), &e.data["name"]))
        .collect();
    assert_eq!(
        kinds,
        [("added", &json!("new")), ("deleted", &json!("app-00000"))]
    );
    assert!(events[0].id.parse::<u64>().unwrap() > snapshot.id.parse::<u64>().unwrap());
    // An id the buffer no longer covers: resync, then a fresh snapshot.
    let mut stale = app.stream("?namespaces=team-000", Some("1")).await;
    let resync = stale.next_event(WAIT).await.unwrap();
    assert_eq!(resync.event, "resync");
    assert!(resync.data["reason"].is_string());
    let fresh = stale.next_event(WAIT).await.unwrap();
    assert_eq!(fresh.event, "snapshot");
    assert!(fresh.id.parse::<u64>().unwrap() > resync.id.parse::<u64>().unwrap());
    assert_eq!(fresh.data["items"].as_array().unwrap().len(), 2);
}

/// The client's view: snapshot plus events, refusing duplicates.
fn apply(state: &mut BTreeMap<String, String>, event: &SseEvent) {
    let key = |record: &Value| {
        format!(
            "{}/{}",
            record["namespace"].as_str().unwrap(),
            record["name"].as_str().unwrap()
        )
    };
    let version = |record: &Value| record["resourceVersion"].as_str().unwrap().to_owned();
    match event.event.as_str() {
        "snapshot" => {
            state.clear();
            for record in event.data["items"].as_array().unwrap() {
                state.insert(key(record), version(record));
            }
        }
        "added" => {
            let previous = state.insert(key(&event.data), version(&event.data));
            assert!(previous.is_none(), "duplicate add of {}", key(&event.data));
        }
        "modified" => {
            let previous = state.insert(key(&event.data), version(&event.data));
            assert_ne!(
                previous,
                Some(version(&event.data)),
                "duplicate update of {}",
                key(&event.data)
            );
        }
        "deleted" => {
            assert!(
                state.remove(&key(&event.data)).is_some(),
                "delete of unknown {}",
                key(&event.data)
            );
        }
        _ => {}
    }
}

fn server_state(app: &crate::app::TestApp) -> BTreeMap<String, String> {
    app.kube
        .cluster
        .ingresses()
        .iter()
        .map(|object| {
            let metadata = &object["metadata"];
            (
                format!(
                    "{}/{}",
                    metadata["namespace"].as_str().unwrap(),
                    metadata["name"].as_str().unwrap()
                ),
                metadata["resourceVersion"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn dropped_watches_and_410_lose_and_duplicate_nothing() {
    // Ingresses only: the test drops the one ingress watch.
    let app = spawn_app("", "backends:\n  enabled: false\ncertificates:\n  cert_manager: false\ngateway_api:\n  enabled: false\n").await;
    sample::populate(&app.kube.cluster, 30, 3);
    let mut stream = app.stream("", None).await;
    let lists_before = app.kube.cluster.list_requests();
    let mut client = BTreeMap::new();
    apply(&mut client, &stream.next_event(WAIT).await.unwrap());
    assert_eq!(client, server_state(&app));
    let cluster = &app.kube.cluster;
    for round in 0..3 {
        // A watch is open (the first, or the one after the last round's re-list) to drop.
        assert!(
            eventually(async || cluster.open_watches() == 1).await,
            "round {round}: the watcher did not watch again"
        );
        cluster.put_ingress(sample::ingress(
            "team-001",
            &format!("round-{round}"),
            round,
        ));
        cluster.drop_watches();
        // Changes while the watch is down.
        cluster.put_ingress(sample::ingress("team-002", &format!("gap-{round}"), round));
        cluster.delete_ingress("team-000", &format!("app-{:05}", round * 3));
        // Expire the history while the watch is down: the next watch from the old version
        // gets 410 and re-lists.
        cluster.compact();
        let mut modified = sample::ingress("team-001", &format!("app-{:05}", round * 3 + 1), 1);
        modified["metadata"]["labels"]["round"] = json!(round.to_string());
        cluster.put_ingress(modified);
    }
    let expected = server_state(&app);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while client != expected {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let event = stream
            .next_event(left)
            .await
            .unwrap_or_else(|| panic!("client never converged: {client:#?} vs {expected:#?}"));
        apply(&mut client, &event);
    }
    // Nothing more arrives that would change the state (no late duplicates).
    while let Some(event) = stream.next_event(Duration::from_secs(2)).await {
        apply(&mut client, &event);
    }
    assert_eq!(client, expected);
    // The 410s made the watcher re-list.
    assert!(
        app.kube.cluster.list_requests() > lists_before,
        "no re-list happened"
    );
}

#[tokio::test]
async fn watches_are_shared_and_stop_after_the_grace_period() {
    // actix notices a closed SSE connection at its next write: a 1 s heartbeat bounds that.
    // Ingresses only: the test counts the ingress watches.
    let app = spawn_app("", "stream:\n  heartbeat_interval: 1s\nbackends:\n  enabled: false\ncertificates:\n  cert_manager: false\ngateway_api:\n  enabled: false\n").await;
    sample::populate(&app.kube.cluster, 4, 4);
    let mut clients = Vec::new();
    for _ in 0..10 {
        let mut stream = app.stream("?namespaces=team-000,team-001", None).await;
        assert_eq!(stream.next_event(WAIT).await.unwrap().event, "snapshot");
        clients.push(stream);
    }
    assert_eq!(app.kube.cluster.open_watches(), 2);
    assert_eq!(app.state.hub.watcher_count(), 2);
    drop(clients);
    // Grace period of 1 s in tests.
    assert!(
        eventually(async || app.kube.cluster.open_watches() == 0).await,
        "watches still open: {} at the server, {} watchers, {} clients",
        app.kube.cluster.open_watches(),
        app.state.hub.watcher_count(),
        app.state.clients.open()
    );
    assert_eq!(app.state.hub.watcher_count(), 0);
}

#[tokio::test]
async fn stream_clients_are_capped() {
    let app = spawn_app("", "stream:\n  max_clients: 1\n").await;
    let mut first = app.stream("", None).await;
    first.next_event(WAIT).await.unwrap();
    let (status, body) = app.get_json("/api/ingresses/stream").await;
    assert_eq!(status, 503);
    assert_eq!(body["error"]["code"], "too_many_streams");
}

#[tokio::test]
async fn watches_that_time_out_are_resumed_without_a_relist() {
    let app = spawn_app("  watch_timeout: 1s\n", "").await;
    sample::populate(&app.kube.cluster, 2, 1);
    let mut stream = app.stream("", None).await;
    assert_eq!(stream.next_event(WAIT).await.unwrap().event, "snapshot");
    let lists = app.kube.cluster.list_requests();
    assert!(
        eventually(async || app.kube.cluster.watch_requests() >= 3).await,
        "the watch was not renewed"
    );
    app.kube
        .cluster
        .put_ingress(sample::ingress("team-000", "after-timeout", 1));
    let event = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        (event.event.as_str(), &event.data["name"]),
        ("added", &json!("after-timeout"))
    );
    assert_eq!(
        app.kube.cluster.list_requests(),
        lists,
        "a time-out needs no re-list"
    );
}
