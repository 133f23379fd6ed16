//! How the web app starts: `GET /api/ingresses` (its `eventId`), then the stream from that id
//! (`?lastEventId=`), with every later change exactly once and no second snapshot. Against the
//! real API server (moved from kube-test-server): each test watches two namespaces of its own
//! (`kubernetes.namespaces`, so "all namespaces" is those two on the shared cluster).

use std::time::Duration;

use serde_json::{Value, json};

use super::{INGRESS, INGRESSES_ONLY, RealApp, ingress, spawn_shared};
use crate::app::{SseEvent, eventually};

/// `GET /api/ingresses{query}` as a browser asks for it (gzip), decoded.
async fn snapshot(app: &RealApp, query: &str) -> Value {
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
async fn event_id(app: &RealApp, query: &str) -> (Value, u64) {
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

fn relabelled(namespace: &str, name: &str, value: &str) -> Value {
    let mut ingress = plain(namespace, name);
    ingress["metadata"]["labels"] = json!({"changed": value});
    ingress
}

fn plain(namespace: &str, name: &str) -> Value {
    ingress(
        namespace,
        name,
        &format!("{name}.{namespace}.example.com"),
        "web",
    )
}

/// The application watching `<prefix>-0` and `<prefix>-1`, with `app-00000`..`app-00003`
/// spread over them as kube-test-server's sample puts them (even ones in the first).
async fn app_with(prefix: &str, overrides: &str) -> (RealApp, [String; 2]) {
    let namespaces = [format!("{prefix}-0"), format!("{prefix}-1")];
    let app = spawn_shared(
        &format!("  namespaces: [{}, {}]\n", namespaces[0], namespaces[1]),
        &format!("{INGRESSES_ONLY}{overrides}"),
    )
    .await;
    app.kube.namespaces(&[&namespaces[0], &namespaces[1]]).await;
    for index in 0..4 {
        let name = format!("app-{index:05}");
        app.kube
            .put(INGRESS, plain(&namespaces[index % 2], &name))
            .await;
    }
    (app, namespaces)
}

async fn first_event(app: &RealApp, query: &str) -> (SseEvent, crate::app::SseReader) {
    let mut stream = app.stream(query, None).await;
    let event = stream
        .next_event(Duration::from_secs(10))
        .await
        .expect("an event");
    (event, stream)
}

#[tokio::test]
async fn the_stream_resumes_from_the_snapshots_event_id_with_each_later_change_once() {
    let (app, [ns0, ns1]) = app_with("rk-resume", "").await;
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
        .put(INGRESS, relabelled(&ns0, "app-00000", "yes"))
        .await;
    let (event, mut stream) = first_event(&app, &format!("?lastEventId={id}")).await;
    assert_eq!(event.event, "modified", "{event:?}");
    assert_eq!(
        (&event.data["name"], &event.data["labels"]["changed"]),
        (&json!("app-00000"), &json!("yes"))
    );
    assert!(event.id.parse::<u64>().unwrap() > id);
    // Once: the next change is the next event, with nothing in between.
    app.kube
        .put(INGRESS, relabelled(&ns1, "app-00001", "too"))
        .await;
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
        .put(INGRESS, relabelled(&ns0, "app-00002", "3"))
        .await;
    let event = resumed.next_event(Duration::from_secs(10)).await.unwrap();
    assert_eq!(
        (event.event.as_str(), &event.data["name"]),
        ("modified", &json!("app-00002"))
    );
}

#[tokio::test]
async fn a_namespace_selection_resumes_with_its_own_changes_only() {
    let (app, [ns0, ns1]) = app_with("rk-resume-selection", "").await;
    let (body, id) = event_id(&app, &format!("?namespaces={ns1}")).await;
    assert_eq!(body["items"].as_array().unwrap().len(), 2);
    app.kube
        .put(INGRESS, relabelled(&ns0, "app-00000", "elsewhere"))
        .await;
    app.kube
        .put(INGRESS, relabelled(&ns1, "app-00003", "here"))
        .await;
    let (event, _stream) = first_event(&app, &format!("?namespaces={ns1}&lastEventId={id}")).await;
    assert_eq!(
        (event.event.as_str(), &event.data["name"]),
        ("modified", &json!("app-00003"))
    );
}

#[tokio::test]
async fn an_event_id_older_than_the_replay_buffer_gets_a_fresh_snapshot() {
    let (app, [ns0, _]) = app_with("rk-resume-old", "stream:\n  replay_buffer: 2\n").await;
    let (_, id) = event_id(&app, "").await;
    for round in 0..4 {
        app.kube
            .put(
                INGRESS,
                relabelled(&ns0, "app-00000", &format!("round-{round}")),
            )
            .await;
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
