//! How the web app starts: `GET /api/ingresses` (its `eventId`), then the stream from that id
//! (`?lastEventId=`), with every later change exactly once and no second snapshot.

use std::time::Duration;

use kube_test_server::sample;
use serde_json::{Value, json};

use crate::app::{SseEvent, TestApp, eventually, spawn_app};

/// Ingresses only: the tests count ingress changes.
const INGRESSES_ONLY: &str = "backends:\n  enabled: false\ncertificates:\n  cert_manager: false\ngateway_api:\n  enabled: false\n";

/// `GET /api/ingresses{query}` as a browser asks for it (gzip), decoded.
async fn snapshot(app: &TestApp, query: &str) -> Value {
    let response = app
        .client
        .get(format!("{}/api/ingresses{query}", app.address))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let gzip = response.headers().get("content-encoding").is_some();
    let bytes = response.bytes().await.unwrap();
    let body = if gzip {
        use std::io::Read;
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .unwrap();
        out
    } else {
        bytes.to_vec()
    };
    serde_json::from_slice(&body).unwrap()
}

/// The snapshot's `eventId`, once the watchers have listed (a body made from a list has none).
async fn event_id(app: &TestApp, query: &str) -> (Value, u64) {
    let mut found = None;
    let listed = eventually(async || {
        let body = snapshot(app, query).await;
        match body["eventId"].as_u64() {
            Some(id) => {
                found = Some((body, id));
                true
            }
            None => false,
        }
    })
    .await;
    assert!(listed, "no snapshot body carried an eventId");
    found.unwrap()
}

fn relabelled(namespace: &str, name: &str, index: usize, value: &str) -> Value {
    let mut ingress = sample::ingress(namespace, name, index);
    ingress["metadata"]["labels"]["changed"] = json!(value);
    ingress
}

async fn first_event(app: &TestApp, query: &str) -> (SseEvent, crate::app::SseReader) {
    let mut stream = app.stream(query, None).await;
    let event = stream
        .next_event(Duration::from_secs(10))
        .await
        .expect("an event");
    (event, stream)
}

#[tokio::test]
async fn the_stream_resumes_from_the_snapshots_event_id_with_each_later_change_once() {
    let app = spawn_app("", INGRESSES_ONLY).await;
    sample::populate(&app.kube.cluster, 4, 2);
    let (body, id) = event_id(&app, "").await;
    assert_eq!(body["items"].as_array().unwrap().len(), 4);
    // The identity body says the same.
    let (status, plain) = app.get_json("/api/ingresses").await;
    assert_eq!((status, plain["eventId"].as_u64()), (200, Some(id)));
    // A search result is not a state the stream can resume from.
    let (_, searched) = app.get_json("/api/ingresses?search=app-00001").await;
    assert_eq!(searched["items"].as_array().unwrap().len(), 1);
    assert!(searched.get("eventId").is_none(), "{searched}");

    app.kube
        .cluster
        .put_ingress(relabelled("team-000", "app-00000", 0, "yes"));
    let (event, mut stream) = first_event(&app, &format!("?lastEventId={id}")).await;
    assert_eq!(event.event, "modified", "{event:?}");
    assert_eq!(
        (&event.data["name"], &event.data["labels"]["changed"]),
        (&json!("app-00000"), &json!("yes"))
    );
    assert!(event.id.parse::<u64>().unwrap() > id);
    // Once: the next change is the next event, with nothing in between.
    app.kube
        .cluster
        .put_ingress(relabelled("team-001", "app-00001", 1, "too"));
    let next = stream.next_event(Duration::from_secs(10)).await.unwrap();
    assert_eq!(
        (next.event.as_str(), &next.data["name"]),
        ("modified", &json!("app-00001"))
    );
    // The next snapshot shows both, at a later position.
    let (body, later) = event_id(&app, "").await;
    assert!(later > id);
    let labels: Vec<&Value> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| &item["labels"]["changed"])
        .collect();
    assert_eq!(labels.iter().filter(|label| !label.is_null()).count(), 2);
    // A client resuming from the newest position gets nothing but what comes next.
    let mut resumed = app.stream(&format!("?lastEventId={later}"), None).await;
    app.kube
        .cluster
        .put_ingress(relabelled("team-000", "app-00002", 2, "3"));
    let event = resumed.next_event(Duration::from_secs(10)).await.unwrap();
    assert_eq!(
        (event.event.as_str(), &event.data["name"]),
        ("modified", &json!("app-00002"))
    );
}

#[tokio::test]
async fn a_namespace_selection_resumes_with_its_own_changes_only() {
    let app = spawn_app("", INGRESSES_ONLY).await;
    sample::populate(&app.kube.cluster, 4, 2);
    let (body, id) = event_id(&app, "?namespaces=team-001").await;
    assert_eq!(body["items"].as_array().unwrap().len(), 2);
    app.kube
        .cluster
        .put_ingress(relabelled("team-000", "app-00000", 0, "elsewhere"));
    app.kube
        .cluster
        .put_ingress(relabelled("team-001", "app-00003", 3, "here"));
    let (event, _stream) =
        first_event(&app, &format!("?namespaces=team-001&lastEventId={id}")).await;
    assert_eq!(
        (event.event.as_str(), &event.data["name"]),
        ("modified", &json!("app-00003"))
    );
}

#[tokio::test]
async fn an_event_id_older_than_the_replay_buffer_gets_a_fresh_snapshot() {
    let app = spawn_app(
        "",
        &format!("{INGRESSES_ONLY}stream:\n  replay_buffer: 2\n"),
    )
    .await;
    sample::populate(&app.kube.cluster, 4, 2);
    let (_, id) = event_id(&app, "").await;
    for round in 0..4 {
        app.kube.cluster.put_ingress(relabelled(
            "team-000",
            "app-00000",
            0,
            &format!("round-{round}"),
        ));
    }
    // Until the watcher has applied the last change.
    assert!(
        eventually(async || {
            let body = snapshot(&app, "").await;
            body["items"][0]["labels"]["changed"] == json!("round-3")
        })
        .await
    );
    let mut stream = app.stream(&format!("?lastEventId={id}"), None).await;
    let events = stream
        .events_until(Duration::from_secs(10), |events| {
            events.iter().any(|event| event.event == "snapshot")
        })
        .await;
    let names: Vec<&str> = events.iter().map(|event| event.event.as_str()).collect();
    assert_eq!(names, ["resync", "snapshot"]);
    let snapshot = &events[1].data;
    assert_eq!(snapshot["items"].as_array().unwrap().len(), 4);
    assert_eq!(snapshot["items"][0]["labels"]["changed"], "round-3");
}
