//! Each failure path of a namespace's watch, with the events its stream client receives.

use std::time::{Duration, Instant};

use kube_test_server::sample;
use serde_json::{Value, json};

use super::{View, server_state};
use crate::app::{SseReader, within};
use crate::real_kube::{INGRESS, INGRESSES_ONLY, RealApp, scoped, spawn_proxied};

/// The app watching `namespace` only with `kube_yaml` and `resilience_yaml` (keys continuing
/// the harness's `resilience:` section), 6 ingresses in `namespace`, and a stream client of it
/// whose snapshot is read and whose watch is open.
async fn watched(
    namespace: &str,
    kube_yaml: &str,
    resilience_yaml: &str,
) -> (RealApp, SseReader, View) {
    // Ingresses only: the tests count and break the ingress watch (the other kinds' loops are
    // the same loop, tested in the crate).
    let app = spawn_proxied(
        &format!("{}{kube_yaml}", scoped(&[namespace])),
        &format!("{resilience_yaml}rate_limit:\n  enabled: false\n{INGRESSES_ONLY}"),
    )
    .await;
    app.kube.populate(&[namespace], 6).await;
    let mut stream = app.stream(&format!("?namespaces={namespace}"), None).await;
    let mut view = View::default();
    view.read_until(&mut stream, 10, "the snapshot", |view| {
        !view.events.is_empty()
    })
    .await;
    assert_eq!(view.events, ["snapshot"]);
    assert_eq!(view.records, server_state(&app.kube, namespace).await);
    let faults = app.kube.faults();
    within(10, "the watch is open", || faults.open_watches() == 1).await;
    (app, stream, view)
}

/// Changes `name` in `namespace` (a new label value), so its resourceVersion moves.
async fn touch(app: &RealApp, namespace: &str, name: &str, value: &str) {
    let mut ingress = sample::ingress(namespace, name, 1);
    ingress["metadata"]["labels"]["touched"] = json!(value);
    app.kube.put_ingress(ingress).await;
}

async fn breaker_state(app: &RealApp) -> String {
    let (_, body) = app.get_json("/api/health").await;
    body["checks"]["kubernetes"]["circuitBreaker"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn transient_watch_failures_are_retried_and_the_client_sees_no_error() {
    let ns = "rs-transient";
    // The server ends each watch after 1 s, as it does at `timeoutSeconds`: routine, and the
    // watcher watches again at once. Half of the calls fail here: the breaker (tested below)
    // is kept out of the way with a high minimum of calls.
    let (app, mut stream, mut view) =
        watched(ns, "  watch_timeout: 1s\n", "  breaker_min_calls: 1000\n").await;
    let faults = app.kube.faults();
    for (round, status) in [503, 429, 500].into_iter().enumerate() {
        let watches = faults.watch_requests();
        // The next two watches fail; the third works (3 attempts in total).
        faults.fail_next_watches(2, status);
        within(10, "the failed watches", || {
            faults.watch_requests() >= watches + 2
        })
        .await;
        touch(&app, ns, "app-00001", &format!("outage-{round}")).await;
        let expected = server_state(&app.kube, ns).await;
        view.read_until(&mut stream, 10, "the change", |view| {
            view.records == expected
        })
        .await;
        assert!(
            faults.watch_requests() >= watches + 3,
            "the failed watches were not retried ({status})"
        );
    }
    touch(&app, ns, "app-00002", "after").await;
    let expected = server_state(&app.kube, ns).await;
    view.read_until(&mut stream, 10, "a change after", |view| {
        view.records == expected
    })
    .await;
    assert_eq!(view.violation, None);
    assert!(
        !view.events.iter().any(|event| event == "error"),
        "{:?}",
        view.events
    );
    assert_eq!(breaker_state(&app).await, "closed");
}

#[tokio::test]
async fn used_up_attempts_report_the_namespace_and_resume_on_the_breaker_schedule() {
    let ns = "rs-used-up";
    // The breaker opens at half failures over 4 calls and stays open 2 s.
    let (app, mut stream, mut view) =
        watched(ns, "", "  breaker_min_calls: 4\n  breaker_open_for: 2s\n").await;
    let faults = app.kube.faults();
    faults.fail_next_watches(u64::MAX, 503);
    faults.drop_watches();
    let read = view
        .read_until(&mut stream, 10, "the error event", |view| {
            view.events.last().is_some_and(|event| event == "error")
        })
        .await;
    let error = &read.last().unwrap().data;
    assert_eq!(error["namespace"], ns);
    assert_eq!(error["code"], "kubernetes_error");
    assert_eq!(error["status"], 503);
    assert!(
        error["message"].as_str().unwrap().contains("Retrying in"),
        "{error}"
    );
    let failed_at = Instant::now();
    // The watch failures count: the breaker opened, and health and the metrics say so.
    assert_eq!(breaker_state(&app).await, "open");
    let metrics = app.get("/_metrics").await.text().await.unwrap();
    let value = |name: &str| {
        metrics
            .lines()
            .find_map(|line| line.strip_prefix(name)?.trim().parse::<f64>().ok())
    };
    assert_eq!(
        value("ingress_dash_circuit_breaker_state "),
        Some(1.0),
        "{metrics}"
    );
    assert!(
        value("ingress_dash_watch_restarts_total{reason=\"retry\"} ").is_some_and(|n| n >= 2.0),
        "{metrics}"
    );
    // On the breaker's schedule: each round (a probe list, then the watch's 3 attempts) waits
    // for the breaker's 2 s; three more rounds take at least 4 s and make at most 3 watch
    // calls each, never a tight loop.
    let (lists, watches) = (faults.list_requests(), faults.watch_requests());
    // The client's stream is read meanwhile: the failure is told once, not once per round,
    // and a working list alone is no recovery while the watch still fails.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while faults.list_requests() < lists + 3 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "three more rounds: {view:?}"
        );
        if let Some(event) = stream.next_event(Duration::from_millis(50)).await {
            view.apply(&event);
        }
    }
    let elapsed = failed_at.elapsed();
    let made = faults.watch_requests() - watches;
    assert!(elapsed >= Duration::from_millis(3900), "{elapsed:?}");
    assert!(
        (3..=12).contains(&made),
        "{made} watch calls in {elapsed:?}"
    );
    assert_eq!(view.events, ["snapshot", "error"]);
    // The API recovers: the next round relists and the client hears so.
    faults.fail_next_watches(0, 503);
    touch(&app, ns, "app-00003", "after-the-outage").await;
    let expected = server_state(&app.kube, ns).await;
    view.read_until(&mut stream, 20, "recovery", |view| {
        view.events.iter().any(|event| event == "recovered") && view.records == expected
    })
    .await;
    assert_eq!(view.violation, None);
    within(10, "the breaker closes", || faults.open_watches() == 1).await;
    assert_eq!(breaker_state(&app).await, "closed");
}

#[tokio::test]
async fn a_forbidden_watch_is_reported_with_its_status_and_retried_only_after_the_interval() {
    let ns = "rs-forbidden";
    let (app, mut stream, mut view) = watched(ns, "  permanent_error_retry: 3s\n", "").await;
    let faults = app.kube.faults();
    faults.fail_next_watches(1, 403);
    faults.drop_watches();
    let read = view
        .read_until(&mut stream, 10, "the error event", |view| {
            view.events.last().is_some_and(|event| event == "error")
        })
        .await;
    let failed_at = Instant::now();
    let (lists, watches) = (faults.list_requests(), faults.watch_requests());
    let error: &Value = &read.last().unwrap().data;
    assert_eq!(error["namespace"], ns);
    assert_eq!(error["code"], "kubernetes_forbidden");
    assert_eq!(error["status"], 403);
    let message = error["message"].as_str().unwrap();
    for part in [
        "403",
        &format!("may not list or watch ingresses in {ns}"),
        "Not retried for 3s",
    ] {
        assert!(message.contains(part), "{part:?} not in {message:?}");
    }
    // Nothing is called again until the interval has passed: a 403 is not retried.
    touch(&app, ns, "app-00004", "while-forbidden").await;
    let mut recovered = None;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(15);
    while recovered.is_none() {
        assert!(
            tokio::time::Instant::now() < deadline,
            "never retried: {view:#?}"
        );
        if failed_at.elapsed() < Duration::from_millis(2500) {
            assert_eq!(
                (faults.list_requests(), faults.watch_requests()),
                (lists, watches),
                "called again {:?} after a 403",
                failed_at.elapsed()
            );
        }
        if let Some(event) = stream.next_event(Duration::from_millis(100)).await {
            view.apply(&event);
            if event.event == "recovered" {
                recovered = Some(failed_at.elapsed());
            }
        }
    }
    let recovered = recovered.unwrap();
    assert!(recovered >= Duration::from_millis(2500), "{recovered:?}");
    // The relist after the interval brings what changed meanwhile, once.
    let expected = server_state(&app.kube, ns).await;
    view.read_until(&mut stream, 10, "the missed change", |view| {
        view.records == expected
    })
    .await;
    assert_eq!(view.violation, None);
    assert_eq!(
        view.events.iter().filter(|event| *event == "error").count(),
        1
    );
    assert_eq!(breaker_state(&app).await, "closed", "a 403 is an answer");
}

#[tokio::test]
async fn a_410_on_watch_relists_without_an_error_and_loses_nothing() {
    let ns = "rs-expired";
    let (app, mut stream, mut view) = watched(ns, "", "").await;
    let faults = app.kube.faults();
    let lists = faults.list_requests();
    // The watch is cut; changes happen; the next watch is answered 410 as the API server does
    // (200, then an ERROR event with an Expired Status).
    faults.expire_next_watches(1);
    faults.drop_watches();
    touch(&app, ns, "app-00001", "gap").await;
    app.kube
        .put_ingress(sample::ingress(ns, "added-in-gap", 9))
        .await;
    app.kube.delete(INGRESS, ns, "app-00002").await;
    let expected = server_state(&app.kube, ns).await;
    view.read_until(&mut stream, 10, "convergence", |view| {
        view.records == expected
    })
    .await;
    assert!(faults.list_requests() > lists, "no relist after the 410");
    // After the relist the watch goes on from the list's version.
    within(10, "the watch is open again", || faults.open_watches() == 1).await;
    touch(&app, ns, "app-00003", "after").await;
    let expected = server_state(&app.kube, ns).await;
    view.read_until(&mut stream, 10, "a change after", |view| {
        view.records == expected
    })
    .await;
    assert_eq!(view.violation, None);
    assert!(
        !view
            .events
            .iter()
            .any(|event| event == "error" || event == "resync"),
        "{:?}",
        view.events
    );
}

#[tokio::test]
async fn a_watch_dropped_mid_stream_resumes_from_its_version_without_a_relist() {
    let ns = "rs-cut";
    let (app, mut stream, mut view) = watched(ns, "", "").await;
    let faults = app.kube.faults();
    let lists = faults.list_requests();
    for round in 0..3 {
        // The next change is cut in the middle of its line and the connection reset.
        faults.cut_next_events(1);
        touch(&app, ns, "app-00001", &format!("cut-{round}")).await;
        app.kube
            .put_ingress(sample::ingress(ns, &format!("new-{round}"), round))
            .await;
        let expected = server_state(&app.kube, ns).await;
        view.read_until(&mut stream, 10, "convergence after a cut", |view| {
            view.records == expected
        })
        .await;
        // A drop without any last event.
        within(10, "the watch is open again", || faults.open_watches() == 1).await;
        faults.drop_watches();
        app.kube
            .delete(INGRESS, ns, &format!("app-0000{}", round + 2))
            .await;
        let expected = server_state(&app.kube, ns).await;
        view.read_until(&mut stream, 10, "convergence after a drop", |view| {
            view.records == expected
        })
        .await;
    }
    assert_eq!(view.violation, None);
    assert_eq!(
        faults.list_requests(),
        lists,
        "a dropped watch resumes from its resourceVersion"
    );
    assert!(
        !view.events.iter().any(|event| event == "error"),
        "{:?}",
        view.events
    );
}
