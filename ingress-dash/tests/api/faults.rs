//! Faults under load: the Kubernetes API refusing connections, timing out, answering 5xx and
//! 410, and cutting and dropping watch connections while several SSE clients are connected,
//! ingresses churn and other requests flow. The API is the real API server through the fault
//! proxy (`real_kube::spawn_proxied`), in namespaces of the test's own; the churn is real
//! writes. Every client's view (snapshot plus applied events) must end equal to the server's
//! state, with no update lost or duplicated; the breaker opens, rejects fast, probes and closes
//! as specified. (Real 410s after compaction are `real_kube::expiry`'s.)

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use kube_test_server::sample;
use serde_json::{Value, json};

use crate::app::{SseEvent, SseReader, within};
use crate::real_kube::{INGRESS, INGRESSES_ONLY, Real, scoped, spawn_proxied};

const NAMESPACES: [&str; 3] = ["fl-team-000", "fl-team-001", "fl-team-002"];

/// One SSE client's view: `namespace/name` → resourceVersion, and the first rule it saw broken.
#[derive(Default)]
struct View {
    records: BTreeMap<String, String>,
    /// The whole record of each: a `modified` may keep the resourceVersion (a backend or a
    /// certificate changed), never the whole record.
    bodies: BTreeMap<String, Value>,
    violation: Option<String>,
    events: u64,
}

impl View {
    fn apply(&mut self, event: &SseEvent) {
        self.events += 1;
        let key = |record: &Value| {
            format!(
                "{}/{}",
                record["namespace"].as_str().unwrap_or_default(),
                record["name"].as_str().unwrap_or_default()
            )
        };
        let version = |record: &Value| record["resourceVersion"].as_str().map(str::to_owned);
        let problem = match event.event.as_str() {
            "snapshot" => {
                self.records.clear();
                self.bodies.clear();
                for record in event.data["items"].as_array().into_iter().flatten() {
                    self.bodies.insert(key(record), record.clone());
                    self.records
                        .insert(key(record), version(record).unwrap_or_default());
                }
                None
            }
            "added" => {
                self.bodies.insert(key(&event.data), event.data.clone());
                let previous = self
                    .records
                    .insert(key(&event.data), version(&event.data).unwrap_or_default());
                previous.map(|_| format!("duplicate add of {}", key(&event.data)))
            }
            "modified" => {
                let new = version(&event.data).unwrap_or_default();
                let old_body = self.bodies.insert(key(&event.data), event.data.clone());
                match self.records.insert(key(&event.data), new.clone()) {
                    None => Some(format!("modify of unknown {}", key(&event.data))),
                    Some(_) if old_body.as_ref() == Some(&event.data) => {
                        Some(format!("duplicate update of {} ({new})", key(&event.data)))
                    }
                    Some(_) => None,
                }
            }
            "deleted" => self
                .bodies
                .remove(&key(&event.data))
                .and(self.records.remove(&key(&event.data)))
                .is_none()
                .then(|| format!("delete of unknown {}", key(&event.data))),
            // error/recovered/resync carry no records; a resync is followed by a snapshot.
            _ => None,
        };
        if self.violation.is_none() {
            self.violation = problem;
        }
    }
}

/// The cluster's ingresses in `namespaces` (all the test's when empty): `namespace/name` →
/// version.
async fn server_state(kube: &Real, namespaces: &[&str]) -> BTreeMap<String, String> {
    let namespaces = if namespaces.is_empty() {
        &NAMESPACES[..]
    } else {
        namespaces
    };
    kube.ingress_versions(namespaces).await
}

/// Reads `stream` into `view` until the stream ends or `stop` is set.
fn spawn_reader(
    mut stream: SseReader,
    view: Arc<Mutex<View>>,
    stop: Arc<AtomicBool>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while !stop.load(Ordering::SeqCst) {
            match stream.next_event(Duration::from_millis(200)).await {
                Some(event) => view.lock().unwrap().apply(&event),
                None => continue,
            }
        }
    })
}

/// Creates, modifies and deletes ingresses in the three namespaces until `stop`; `made` counts
/// the changes as they are made. The number of changes.
async fn churn(kube: &Real, stop: &AtomicBool, made: &AtomicU64) -> u64 {
    let mut changes = 0u64;
    let mut tick = 0usize;
    while !stop.load(Ordering::SeqCst) {
        let namespace = NAMESPACES[tick % NAMESPACES.len()];
        let name = format!("churn-{:02}", tick % 17);
        if tick % 5 == 4 {
            kube.delete(INGRESS, namespace, &name).await;
        } else {
            let mut ingress = sample::ingress(namespace, &name, tick);
            ingress["metadata"]["labels"]["tick"] = json!(tick.to_string());
            kube.put_ingress(ingress).await;
        }
        changes += 1;
        made.store(changes, Ordering::SeqCst);
        tick += 1;
        // Pacing of the load, not a wait for a condition.
        tokio::time::sleep(Duration::from_millis(15)).await;
    }
    changes
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn every_client_view_matches_the_server_after_api_faults_under_churn() {
    let app = spawn_proxied(
        &format!("{}  request_timeout: 1s\n", scoped(&NAMESPACES)),
        // The harness's configuration ends inside `resilience:`; these keys continue it.
        "  breaker_open_for: 1s\nstream:\n  heartbeat_interval: 1s\nrate_limit:\n  enabled: false\n",
    )
    .await;
    app.kube.populate(&NAMESPACES, 30).await;
    let stop_readers = Arc::new(AtomicBool::new(false));
    let selections: [&[&str]; 4] = [&[], &[], &NAMESPACES[..2], &NAMESPACES[2..]];
    let mut clients = Vec::new();
    for namespaces in selections {
        let query = if namespaces.is_empty() {
            String::new()
        } else {
            format!("?namespaces={}", namespaces.join(","))
        };
        let stream = app.stream(&query, None).await;
        let view = Arc::new(Mutex::new(View::default()));
        let reader = spawn_reader(stream, view.clone(), stop_readers.clone());
        clients.push((namespaces, view, reader));
    }
    for (namespaces, view, _) in &clients {
        within(10, &format!("{namespaces:?} snapshot"), || {
            view.lock().unwrap().events > 0
        })
        .await;
    }

    // Snapshot and health requests beside the streams; none may be a 500.
    let stop_load = Arc::new(AtomicBool::new(false));
    let statuses = Arc::new(Mutex::new(BTreeMap::<u16, u64>::new()));
    let mut loaders = Vec::new();
    for path in [
        format!("/api/ingresses?namespaces={}", NAMESPACES[1]),
        "/api/ingresses".to_owned(),
        "/api/health".to_owned(),
    ] {
        let (client, url) = (app.client.clone(), format!("{}{path}", app.address));
        let (stop, statuses) = (stop_load.clone(), statuses.clone());
        loaders.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                if let Ok(response) = client
                    .get(&url)
                    .timeout(Duration::from_secs(15))
                    .send()
                    .await
                {
                    *statuses
                        .lock()
                        .unwrap()
                        .entry(response.status().as_u16())
                        .or_default() += 1;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }));
    }
    let stop_churn = AtomicBool::new(false);
    let made = AtomicU64::new(0);
    let faults = app.kube.faults();
    let proxy = app.kube.proxy();
    let watch_requests = || faults.watch_requests();
    // Watches again: at least one watch request since `before` and one open.
    let watches_back = async |what: &str, before: u64| {
        within(30, what, || {
            faults.watch_requests() > before && faults.open_watches() >= 1
        })
        .await
    };
    let under_faults = async {
        // 5xx answers of every kind the API server sends, on lists and watches.
        for code in [500, 502, 503, 504] {
            let before = watch_requests();
            faults.fail_next(4, code);
            faults.drop_watches();
            within(30, "the watches were retried after the 5xx", || {
                watch_requests() >= before + 2
            })
            .await;
            watches_back("watches after 5xx", before).await;
        }
        // Time-outs: every answer slower than the 1 s request time-out for a while.
        faults.set_latency(Duration::from_millis(1500));
        let before = watch_requests();
        faults.drop_watches();
        within(30, "watches attempted under latency", || {
            watch_requests() >= before + 3
        })
        .await;
        faults.set_latency(Duration::ZERO);
        watches_back("watches after time-outs", before).await;
        // Watch connections cut in the middle of an event line.
        let before = watch_requests();
        faults.cut_next_events(3);
        within(30, "watches resumed after cut events", || {
            watch_requests() >= before + 3
        })
        .await;
        watches_back("watches after cuts", before).await;
        // 410 Gone: the next watches answered with ERROR 410 after every watch was dropped.
        let before = watch_requests();
        faults.expire_next_watches(2);
        faults.drop_watches();
        watches_back("watches after forced 410", before + 2).await;
        // Connections refused: nothing listens for a while, churn going on, then back.
        let lists_before = faults.list_requests();
        let before = watch_requests();
        proxy.refuse_connections().await;
        refuse_until_seen(&app.client, &app.address).await;
        proxy.accept_connections().await;
        watches_back("watches after refused connections", before).await;
        assert!(faults.list_requests() >= lists_before);

        // Enough churn across the faults to matter, whatever the machine's speed (the faults
        // above can pass in under a second on an idle machine).
        within(60, "the churn made 50 changes", || {
            made.load(Ordering::SeqCst) > 50
        })
        .await;
        stop_churn.store(true, Ordering::SeqCst);
    };
    let (changes, ()) = tokio::join!(churn(&app.kube, &stop_churn, &made), under_faults);
    stop_load.store(true, Ordering::SeqCst);
    for loader in loaders {
        loader.await.unwrap();
    }
    // A last change in each namespace after the faults: a view that has it has every event
    // before it (each namespace's events come in order), a late duplicate included.
    for namespace in NAMESPACES {
        app.kube
            .put_ingress(sample::ingress(namespace, "after-the-faults", 1))
            .await;
    }

    for (namespaces, view, _) in &clients {
        let expected = server_state(&app.kube, namespaces).await;
        test_support::eventually_with(
            &format!("client {namespaces:?} converges"),
            Duration::from_secs(30),
            async || {
                let records = view.lock().unwrap().records.clone();
                let differing: BTreeSet<_> = expected
                    .iter()
                    .filter(|(key, version)| records.get(*key) != Some(version))
                    .collect();
                match records == expected {
                    true => Ok(()),
                    false => Err(format!(
                        "differing or missing: {differing:?}; {} records, {} expected",
                        records.len(),
                        expected.len()
                    )),
                }
            },
        )
        .await;
    }
    stop_readers.store(true, Ordering::SeqCst);
    for (namespaces, view, reader) in clients {
        reader.await.unwrap();
        let expected = server_state(&app.kube, namespaces).await;
        let view = view.lock().unwrap();
        assert_eq!(view.violation, None, "client {namespaces:?}");
        assert_eq!(view.records, expected, "client {namespaces:?}");
    }
    let statuses = statuses.lock().unwrap().clone();
    assert!(changes > 50, "the churn made only {changes} changes");
    assert!(statuses.get(&200).copied().unwrap_or(0) > 0, "{statuses:?}");
    for status in statuses.keys() {
        assert!(
            matches!(status, 200 | 502 | 503 | 504),
            "a request answered {status}: {statuses:?}"
        );
    }
}

/// Waits, connections refused, until the app has seen the API server unreachable (its health
/// check says down).
async fn refuse_until_seen(client: &reqwest::Client, address: &str) {
    test_support::eventually_with(
        "health sees the API down",
        Duration::from_secs(30),
        async || {
            let response = client
                .get(format!("{address}/api/health"))
                .send()
                .await
                .unwrap();
            let status = response.status();
            let body: Value = response.json().await.unwrap();
            match (status.as_u16(), &body["checks"]["kubernetes"]["status"]) {
                (503, down) if down == "down" => Ok(()),
                _ => Err(format!("{status} {body}")),
            }
        },
    )
    .await;
}

#[tokio::test]
async fn the_breaker_opens_rejects_fast_probes_and_closes() {
    let app = spawn_proxied(
        "",
        // The harness's configuration ends inside `resilience:`; these keys continue it. With
        // only Ingresses watched, discovery asks nothing: its retry would otherwise take the
        // breaker's probe as soon as the open period ends, before this test's request.
        &format!(
            "  retry_max_attempts: 1\n  breaker_min_calls: 4\n  breaker_open_for: 2s\n\
             rate_limit:\n  enabled: false\ncache:\n  ttl: 1ms\n{INGRESSES_ONLY}"
        ),
    )
    .await;
    let faults = app.kube.faults();
    let (status, _) = app.get_json("/api/namespaces").await;
    assert_eq!(status, 200);
    faults.fail_next(1_000, 503);
    let breaker_state = async || {
        let (_, body) = app.get_json("/api/health").await;
        body["checks"]["kubernetes"]["circuitBreaker"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    // Failures until the window has at least half failures over at least 4 calls.
    let mut answers = Vec::new();
    for _ in 0..20 {
        let response = app.get("/api/namespaces").await;
        let status = response.status().as_u16();
        let body: Value = response.json().await.unwrap();
        // A 200 is the list cached just before the fault (no code); it calls nothing.
        let code = body["error"]["code"].as_str().unwrap_or_default();
        answers.push((status, code.to_owned()));
        if body["error"]["code"] == "circuit_open" {
            break;
        }
    }
    let (status, code) = answers.last().unwrap().clone();
    assert_eq!(
        (status, code.as_str()),
        (503, "circuit_open"),
        "{answers:?}"
    );
    assert_eq!(breaker_state().await, "open");
    // Open: requests fail fast without reaching the API, with Retry-After.
    let lists = faults.list_requests();
    for _ in 0..5 {
        let response = app.get("/api/namespaces").await;
        assert_eq!(response.status(), 503);
        let retry_after: u64 = response.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!((1..=2).contains(&retry_after), "{retry_after}");
    }
    assert_eq!(
        faults.list_requests(),
        lists,
        "an open breaker called the API"
    );
    // After the open period one probe goes through; it fails, so the breaker opens again.
    let probed = async || {
        let (_, body) = app.get_json("/api/namespaces").await;
        body["error"]["code"] != "circuit_open"
    };
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while !probed().await {
        assert!(tokio::time::Instant::now() < deadline, "no probe after 2 s");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(faults.list_requests(), lists + 1, "exactly one probe");
    assert_eq!(breaker_state().await, "open");
    // The API recovers: the next probe succeeds and closes the breaker.
    faults.fail_next(0, 503);
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let (status, _) = app.get_json("/api/namespaces").await;
        if status == 200 {
            break;
        }
        assert!(tokio::time::Instant::now() < deadline, "never closed");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(breaker_state().await, "closed");
}

#[test]
fn sigterm_under_load_finishes_in_flight_lists_refuses_new_ones_and_exits_0() {
    use test_support::kube_cluster::{KubeCluster, KubeFaultProxy};
    use test_support::shutdown::{ShutdownPlan, assert_sigterm_under_load};

    let cluster = KubeCluster::shared();
    let namespace = "fl-sigterm";
    cluster.create_namespaces(&[namespace]);
    let proxy = KubeFaultProxy::start(cluster);
    let dir = test_support::TempDir::new("ingress-dash-kubeconfig");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, proxy.kubeconfig(cluster.admin_token())).unwrap();
    let (_binary, mut running) = crate::app::start_binary_with(
        &format!("  kubeconfig: {}\n", kubeconfig.display()),
        "10s",
        "rate_limit:\n  enabled: false\n",
    );
    // Every API answer now takes 2 s: the list behind the first snapshot is in flight.
    proxy.faults.set_latency(Duration::from_secs(2));
    let lists = proxy.faults.list_requests();
    let plan = ShutdownPlan {
        slow_path: format!("/api/ingresses?namespaces={namespace}"),
        slow_headers: String::new(),
        slow_answer_contains: "\"items\"".to_owned(),
        in_flight: 3,
        fast_path: "/api/live".to_owned(),
        shutdown_timeout: Duration::from_secs(10),
    };
    let faults = proxy.faults.clone();
    assert_sigterm_under_load(&mut running, &plan, move || faults.list_requests() > lists);
}
