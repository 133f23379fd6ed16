//! Issue 31 item 10: identity and groups are checked when a stream opens, so a stream ends
//! after `stream.max_lifetime` and the browser's reconnect passes the front door again; it
//! ends between two events and the reconnect with `Last-Event-ID` resumes it with no event
//! missed or repeated. Against the real API server (moved from kube-test-server).

use std::time::Duration;

use super::{INGRESS, ingress, spawn_shared};
use crate::app::SseEvent;

const WAIT: Duration = Duration::from_secs(10);

fn added_names(events: &[SseEvent]) -> Vec<String> {
    events
        .iter()
        .filter(|event| event.event == "added")
        .map(|event| event.data["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_stream_ends_after_its_lifetime_and_resumes_without_a_gap_or_a_duplicate() {
    let app = spawn_shared("", "stream:\n  max_lifetime: 1s\n").await;
    let kube = &app.kube;
    let ns = "rk-lifetime";
    kube.namespaces(&[ns]).await;
    kube.put(INGRESS, ingress(ns, "one", "one.example.com", "web"))
        .await;
    let mut first = app.stream(&format!("?namespaces={ns}"), None).await;
    let snapshot = first.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(snapshot.event, "snapshot");
    kube.put(INGRESS, ingress(ns, "two", "two.example.com", "web"))
        .await;
    assert!(
        first.ends_within(WAIT).await,
        "the stream did not end after its 1s lifetime: {}",
        String::from_utf8_lossy(&first.raw)
    );
    // It ends after a whole block, telling the browser to come back at once.
    assert!(
        first.raw.ends_with(b"\n\nretry: 100\n\n"),
        "{}",
        String::from_utf8_lossy(&first.raw)
    );
    let mut before_the_end = vec![snapshot];
    while let Some(event) = first.next_event(Duration::ZERO).await {
        before_the_end.push(event);
    }
    // A change while no stream is open.
    kube.put(INGRESS, ingress(ns, "three", "three.example.com", "web"))
        .await;
    let last_id = before_the_end.last().map(|event| event.id.clone()).unwrap();
    let mut resumed = app
        .stream(&format!("?namespaces={ns}"), Some(&last_id))
        .await;
    let after = resumed
        .events_until(WAIT, |events| {
            added_names(events).contains(&"three".to_owned())
        })
        .await;
    assert!(
        after
            .iter()
            .all(|event| event.event != "snapshot" && event.event != "resync"),
        "a resume, not a new start: {after:#?}"
    );
    let mut names = added_names(&before_the_end);
    names.extend(added_names(&after));
    assert_eq!(names, ["two", "three"], "each change once, in order");
}
