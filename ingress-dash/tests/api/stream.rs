//! `GET /api/ingresses/stream`: wire format, isolation, resume, recovery, shared watchers,
//! against the real API server through the fault proxy (`real_kube::spawn_proxied`): each test
//! in namespaces of its own on the shared cluster, real writes, a namespace forbidden and then
//! allowed by real RBAC, watches dropped and expired by the proxy, whose counters say how many
//! watches are open and how many lists and watches were asked for.

use std::collections::BTreeMap;
use std::time::Duration;

use kube_test_server::sample;
use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use crate::app::{SseEvent, within};
use crate::real_kube::{
    Cluster, INGRESS, INGRESSES_ONLY, reader_role, reader_token, scoped, spawn_proxied, spawn_real,
};

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
    let ns = "st-wire";
    // Without Gateway API routes: whether the shared cluster has their CRDs depends on which
    // tests ran before, and their absence would be a notice.
    let app = spawn_proxied(
        &scoped(&[ns]),
        "stream:\n  heartbeat_interval: 1s\ngateway_api:\n  enabled: false\n",
    )
    .await;
    app.kube.namespaces(&[ns]).await;
    let created = app
        .kube
        .put(INGRESS, small_ingress(ns, "web", "a.example.com"))
        .await;
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
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
        .put(INGRESS, small_ingress(ns, "web", "b.example.com"))
        .await;
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
    let (allowed, denied) = ("st-forbid-a", "st-forbid-b");
    let cluster = KubeCluster::shared();
    // Service account `dash` may read `allowed` only, until a Role in `denied` is bound to it.
    let token = reader_token(cluster, &[allowed, denied]);
    // A 403 is tried again after kubernetes.permanent_error_retry (5 minutes by default).
    let app = spawn_real(
        Cluster::Shared(cluster),
        Some(&token),
        &format!(
            "{}  permanent_error_retry: 1s\n",
            scoped(&[allowed, denied])
        ),
        INGRESSES_ONLY,
    )
    .await;
    app.kube.populate(&[allowed, denied], 2).await;
    let mut stream = app
        .stream(&format!("?namespaces={allowed},{denied}"), None)
        .await;
    let snapshot = stream.next_event(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(snapshot.data["items"].as_array().unwrap().len(), 1);
    assert_eq!(snapshot.data["errors"][0]["namespace"], denied);
    assert_eq!(snapshot.data["errors"][0]["code"], "kubernetes_forbidden");
    app.kube
        .put_ingress(sample::ingress(allowed, "late", 3))
        .await;
    let added = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        (added.event.as_str(), &added.data["name"]),
        ("added", &json!("late"))
    );

    // When the namespace works again, clients hear so even if nothing in it changed.
    cluster.apply(&reader_role(denied, allowed));
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
        json!({"namespace": denied}),
        "after {seen:?}"
    );
    let added = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        (added.event.as_str(), &added.data["namespace"]),
        ("added", &json!(denied))
    );
}

#[tokio::test]
async fn last_event_id_resumes_from_the_replay_buffer_or_resyncs() {
    let ns = "st-resume";
    let app = spawn_proxied(&scoped(&[ns]), "").await;
    app.kube.populate(&[ns], 2).await;
    let query = format!("?namespaces={ns}");
    let mut first = app.stream(&query, None).await;
    let snapshot = first.next_event(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    let mut second = app.stream(&query, None).await;
    second.next_event(WAIT).await.unwrap();
    drop(first);
    // Changes while the first client is away (the second keeps the watcher alive).
    app.kube.put_ingress(sample::ingress(ns, "new", 5)).await;
    app.kube.delete(INGRESS, ns, "app-00000").await;
    second.events_until(WAIT, |events| events.len() == 2).await;
    let mut resumed = app.stream(&query, Some(&snapshot.id)).await;
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
    let mut stale = app.stream(&query, Some("1")).await;
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

#[tokio::test]
async fn dropped_watches_and_410_lose_and_duplicate_nothing() {
    let namespaces = ["st-drop-0", "st-drop-1", "st-drop-2"];
    // Ingresses only: the test drops the one ingress watch (cluster-wide in the scope).
    let app = spawn_proxied(&scoped(&namespaces), INGRESSES_ONLY).await;
    app.kube.populate(&namespaces, 30).await;
    let faults = app.kube.faults();
    let mut stream = app.stream("", None).await;
    let lists_before = faults.list_requests();
    let mut client = BTreeMap::new();
    apply(&mut client, &stream.next_event(WAIT).await.unwrap());
    assert_eq!(client, app.kube.ingress_versions(&namespaces).await);
    for round in 0..3 {
        // The watches are open (the first, or those after the last round's re-list) to drop.
        let watching = faults.watch_requests();
        within(10, &format!("round {round}: watching again"), || {
            faults.open_watches() == namespaces.len() as u64
        })
        .await;
        app.kube
            .put_ingress(sample::ingress(
                namespaces[1],
                &format!("round-{round}"),
                round,
            ))
            .await;
        // The watches are dropped, and the next is answered as from a compacted version (one
        // ERROR event with a 410), so the watcher re-lists.
        faults.expire_next_watches(1);
        faults.drop_watches();
        // Changes while the watch is down.
        app.kube
            .put_ingress(sample::ingress(
                namespaces[2],
                &format!("gap-{round}"),
                round,
            ))
            .await;
        app.kube
            .delete(INGRESS, namespaces[0], &format!("app-{:05}", round * 3))
            .await;
        let mut modified = sample::ingress(namespaces[1], &format!("app-{:05}", round * 3 + 1), 1);
        modified["metadata"]["labels"]["round"] = json!(round.to_string());
        app.kube.put_ingress(modified).await;
        within(10, &format!("round {round}: watched again"), || {
            faults.watch_requests() > watching
        })
        .await;
    }
    let expected = app.kube.ingress_versions(&namespaces).await;
    // A last change after the faults: once it is seen, so is everything before it.
    let last = app
        .kube
        .put_ingress(sample::ingress(namespaces[0], "after-the-faults", 1))
        .await;
    let mut expected = expected;
    expected.insert(
        format!("{}/after-the-faults", namespaces[0]),
        last["metadata"]["resourceVersion"]
            .as_str()
            .unwrap()
            .to_owned(),
    );
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while client != expected {
        let left = deadline.saturating_duration_since(tokio::time::Instant::now());
        let event = stream
            .next_event(left)
            .await
            .unwrap_or_else(|| panic!("client never converged: {client:#?} vs {expected:#?}"));
        apply(&mut client, &event);
    }
    assert_eq!(client, app.kube.ingress_versions(&namespaces).await);
    // The 410s made the watcher re-list.
    assert!(faults.list_requests() > lists_before, "no re-list happened");
}

#[tokio::test]
async fn watches_are_shared_and_stop_after_the_grace_period() {
    let namespaces = ["st-shared-0", "st-shared-1", "st-shared-2", "st-shared-3"];
    // actix notices a closed SSE connection at its next write: a 1 s heartbeat bounds that.
    // Ingresses only: the test counts the ingress watches.
    let app = spawn_proxied(
        &scoped(&namespaces),
        &format!("stream:\n  heartbeat_interval: 1s\n{INGRESSES_ONLY}"),
    )
    .await;
    app.kube.populate(&namespaces, 4).await;
    let faults = app.kube.faults();
    let mut clients = Vec::new();
    for _ in 0..10 {
        let mut stream = app
            .stream(
                &format!("?namespaces={},{}", namespaces[0], namespaces[1]),
                None,
            )
            .await;
        assert_eq!(stream.next_event(WAIT).await.unwrap().event, "snapshot");
        clients.push(stream);
    }
    within(10, "two watches open", || faults.open_watches() == 2).await;
    assert_eq!(faults.watch_requests(), 2, "one watch per namespace");
    assert_eq!(app.state.hub.watcher_count(), 2);
    drop(clients);
    // Grace period of 1 s in tests. The proxy learns that a watch was left at its next write
    // to it: a change in each namespace every round.
    let mut round = 0;
    test_support::eventually_with("the watches closed", Duration::from_secs(20), async || {
        round += 1;
        for namespace in &namespaces[..2] {
            let mut ingress = sample::ingress(namespace, "app-00000", 0);
            ingress["metadata"]["labels"]["round"] = json!(round.to_string());
            app.kube.put_ingress(ingress).await;
        }
        match faults.open_watches() {
            0 => Ok(()),
            open => Err(format!(
                "{open} open at the server, {} watchers, {} clients",
                app.state.hub.watcher_count(),
                app.state.clients.open()
            )),
        }
    })
    .await;
    assert_eq!(app.state.hub.watcher_count(), 0);
    assert_eq!(faults.watch_requests(), 2, "no watch again");
}

#[tokio::test]
async fn stream_clients_are_capped() {
    let ns = "st-capped";
    let app = spawn_proxied(&scoped(&[ns]), "stream:\n  max_clients: 1\n").await;
    app.kube.namespaces(&[ns]).await;
    let mut first = app.stream("", None).await;
    first.next_event(WAIT).await.unwrap();
    let (status, body) = app.get_json("/api/ingresses/stream").await;
    assert_eq!(status, 503);
    assert_eq!(body["error"]["code"], "too_many_streams");
}

#[tokio::test]
async fn watches_that_time_out_are_resumed_without_a_relist() {
    let ns = "st-timeout";
    // The API server ends each watch after the 1 s it was asked for (`timeoutSeconds`).
    let app = spawn_proxied(
        &format!("{}  watch_timeout: 1s\n", scoped(&[ns])),
        INGRESSES_ONLY,
    )
    .await;
    app.kube.populate(&[ns], 2).await;
    let faults = app.kube.faults();
    let mut stream = app.stream("", None).await;
    assert_eq!(stream.next_event(WAIT).await.unwrap().event, "snapshot");
    let lists = faults.list_requests();
    within(10, "the watch was renewed", || faults.watch_requests() >= 3).await;
    app.kube
        .put_ingress(sample::ingress(ns, "after-timeout", 1))
        .await;
    let event = stream.next_event(WAIT).await.unwrap();
    assert_eq!(
        (event.event.as_str(), &event.data["name"]),
        ("added", &json!("after-timeout"))
    );
    assert_eq!(faults.list_requests(), lists, "a time-out needs no re-list");
}
