//! Faults under load: a cluster down and back on the same port while the relay and the views
//! are in use and the internal sampler runs; Prometheus down under the statistics. The cluster
//! is the shared real OpenSearch 2 node behind a recording proxy of the test's own: the node
//! cannot be stopped under other suites, so "down" is the proxy dropped (its port refuses
//! connections) and "back" a new proxy on the same port. Index names are the suite's own
//! (`faults-…`).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use search_test_server::{Proxy, Upstream};
use serde_json::{Value, json};
use test_support::{Distribution, Prometheus, eventually};

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::shared;

#[derive(Debug, Clone)]
struct Answer {
    path: &'static str,
    sent: Instant,
    status: u16,
    code: String,
}

fn epoch_seconds() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Relay reads and writes and view requests in a loop until `stop`.
fn spawn_load(
    app: &TestApp,
    stop: Arc<AtomicBool>,
) -> (Arc<Mutex<Vec<Answer>>>, Vec<tokio::task::JoinHandle<()>>) {
    let answers = Arc::new(Mutex::new(Vec::new()));
    let requests: [(&'static str, reqwest::Method, Option<Value>); 4] = [
        (
            "/api/clusters/direct/proxy/_cluster/health",
            reqwest::Method::GET,
            None,
        ),
        (
            "/api/clusters/direct/proxy/faults-soak/_doc?refresh=true",
            reqwest::Method::POST,
            Some(json!({"message": "under load"})),
        ),
        ("/api/clusters/direct/overview", reqwest::Method::GET, None),
        ("/api/clusters/direct/indices", reqwest::Method::GET, None),
    ];
    let mut tasks = Vec::new();
    for (path, method, body) in requests {
        let (client, url) = (app.client.clone(), app.url(path));
        let (answers, stop) = (answers.clone(), stop.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let sent = Instant::now();
                let mut request = client
                    .request(method.clone(), &url)
                    .timeout(Duration::from_secs(30));
                if let Some(body) = &body {
                    request = request.json(body);
                }
                let response = request.send().await.expect("the console answers");
                let status = response.status().as_u16();
                let body: Value = response.json().await.unwrap_or_default();
                let code = body["error"]["code"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                answers.lock().unwrap().push(Answer {
                    path,
                    sent,
                    status,
                    code,
                });
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        }));
    }
    (answers, tasks)
}

/// The sampled points of the last five minutes (a narrow range: one point per sample).
async fn history(app: &TestApp) -> Vec<i64> {
    let now = epoch_seconds();
    let (status, body) = app
        .get_json(&format!(
            "/api/clusters/sampled/metrics/history?start={}&end={}",
            now - 300,
            now + 1
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    body["points"]
        .as_array()
        .unwrap()
        .iter()
        .map(|point| point["timestamp"].as_i64().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cluster_down_and_back_under_load_is_reported_recovers_and_leaves_a_sampling_gap() {
    let node = shared(Distribution::OpenSearch2).await;
    // Plain HTTP: the shared OpenSearch 2 node has no security plugin.
    let upstream = Upstream {
        url: node.url.clone(),
        ..Default::default()
    };
    let proxy = Proxy::start(upstream.clone());
    let port: u16 = proxy.url.rsplit(':').next().unwrap().parse().unwrap();
    // `direct` for the relay and the views, `sampled` for the internal sampler: both at the
    // proxy, both down while it is.
    let app = spawn_app(&format!(
        "internal_history:\n  sample_interval: 1s\n  retention: 1h\nclusters:\n{}{}",
        cluster_yaml("direct", &proxy.url),
        cluster_yaml("sampled", &proxy.url),
    ))
    .await;
    let stop = Arc::new(AtomicBool::new(false));
    let (answers, tasks) = spawn_load(&app, stop.clone());
    let ok_count = |answers: &Mutex<Vec<Answer>>, since: Instant| {
        answers
            .lock()
            .unwrap()
            .iter()
            .filter(|a| a.sent > since && a.status < 300)
            .count()
    };
    let started = Instant::now();
    eventually(
        "traffic and two samples before the fault",
        Duration::from_secs(30),
        async || ok_count(&answers, started) >= 20 && history(&app).await.len() >= 2,
    )
    .await;

    drop(proxy);
    // Down is when its port refuses connections: the proxy's server stops on its own thread.
    eventually(
        "the cluster's port to refuse connections",
        Duration::from_secs(10),
        async || std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
    )
    .await;
    let (down_at, down_epoch) = (Instant::now(), epoch_seconds());
    eventually(
        "the list reports the cluster unreachable",
        Duration::from_secs(30),
        async || {
            let (_, body) = app.get_json("/api/clusters").await;
            body["clusters"]
                .as_array()
                .unwrap()
                .iter()
                .any(|c| c["id"] == "direct" && c["reachable"] == false)
        },
    )
    .await;
    // Down for at least three sampling intervals, with requests flowing.
    eventually(
        "failed requests while down",
        Duration::from_secs(30),
        async || {
            answers
                .lock()
                .unwrap()
                .iter()
                .filter(|a| a.sent > down_at)
                .count()
                >= 20
                && down_at.elapsed() >= Duration::from_secs(4)
        },
    )
    .await;

    let (restarting_at, restarting_epoch) = (Instant::now(), epoch_seconds());
    let proxy = Proxy::start_on(upstream, port);
    let (up_at, up_epoch) = (Instant::now(), epoch_seconds());
    eventually(
        "relay and views answer again",
        Duration::from_secs(30),
        async || {
            let answers = answers.lock().unwrap();
            let recent: Vec<&Answer> = answers.iter().filter(|a| a.sent > up_at).collect();
            recent.len() >= 12 && recent.iter().rev().take(8).all(|a| a.status < 300)
        },
    )
    .await;
    eventually("sampling resumes", Duration::from_secs(30), async || {
        history(&app).await.iter().any(|t| *t > up_epoch)
    })
    .await;
    stop.store(true, Ordering::SeqCst);
    for task in tasks {
        task.await.unwrap();
    }

    let answers = answers.lock().unwrap().clone();
    for answer in &answers {
        assert!(answer.status != 500, "a 500: {answer:?}");
        // The index list is cached for 3 s by design (one `_cat/indices` call per period).
        let settled = match answer.path {
            "/api/clusters/direct/indices" => Duration::from_millis(3_100),
            _ => Duration::from_millis(50),
        };
        if answer.sent > down_at + settled && answer.sent < restarting_at {
            assert_eq!(
                (answer.status, answer.code.as_str()),
                (503, "upstream_unreachable"),
                "while the cluster was down: {answer:?}"
            );
        }
    }
    for path in [
        "/api/clusters/direct/overview",
        "/api/clusters/direct/proxy/_cluster/health",
    ] {
        assert!(
            answers
                .iter()
                .any(|a| a.path == path && a.sent > up_at && a.status == 200),
            "{path} did not recover"
        );
    }
    // The sampler left a gap: no point while the cluster was down, none invented after.
    let points = history(&app).await;
    assert!(points.iter().any(|t| *t < down_epoch), "{points:?}");
    let during: Vec<&i64> = points
        .iter()
        .filter(|t| **t > down_epoch + 1 && **t < restarting_epoch)
        .collect();
    assert!(
        during.is_empty(),
        "points while down: {during:?} in {points:?}"
    );
    assert!(
        points.windows(2).any(|w| w[1] - w[0] >= 3),
        "no gap of the down time: {points:?}"
    );
    drop(proxy);
}

#[tokio::test]
async fn prometheus_down_makes_statistics_say_so_and_back_they_answer_again() {
    let node = shared(Distribution::OpenSearch2).await;
    let prometheus = Prometheus::start(
        |own| {
            format!(
                "global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: self\n    static_configs:\n      - targets: ['{own}']\n        labels:\n          env: test\n"
            )
        },
        None,
    );
    let app = spawn_app(&format!(
        "clusters:\n  - id: stats\n    name: stats\n    url: {}\n    metrics_source: prometheus\n    prometheus_url: {}\n    prometheus_job_name: self\n",
        node.url, prometheus.url
    ))
    .await;
    // Up, Prometheus answers (it has no exporter series for this job: 502 no_metrics_data).
    let (status, body) = app.get_json("/api/clusters/stats/metrics").await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (502, &json!("no_metrics_data")),
        "{body}"
    );
    drop(prometheus);
    for path in [
        "/api/clusters/stats/metrics",
        "/api/clusters/stats/metrics/history",
    ] {
        let (status, body) = app.get_json(path).await;
        assert_eq!(status, 503, "{path}: {body}");
        assert_eq!(body["error"]["code"], "upstream_unreachable", "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.to_lowercase().contains("unreachable"),
            "{path}: {message}"
        );
    }
    // The relay to the cluster itself is unaffected.
    let (status, _) = app
        .get_json("/api/clusters/stats/proxy/_cluster/health")
        .await;
    assert_eq!(status, 200);
}

#[test]
fn sigterm_under_load_finishes_in_flight_relays_refuses_new_ones_and_exits_0() {
    use test_support::binary::ServiceBinary;
    use test_support::shutdown::{ShutdownPlan, SlowUpstream, assert_sigterm_under_load};

    let upstream = SlowUpstream::start(Duration::from_secs(2));
    let binary = ServiceBinary::new(
        env!("CARGO_BIN_EXE_admin-console"),
        "admin-console",
        "/api/live",
    );
    let config = binary.config_file(
        "sigterm.yaml",
        &format!(
            "server:\n  host: 127.0.0.1\n  port: 0\n  shutdown_timeout: 10s\n  static_dir: /nonexistent-admin-console-web\nclusters:\n{}",
            cluster_yaml("slow", &upstream.url)
        ),
    );
    let mut running = binary.start(&config);
    let plan = ShutdownPlan {
        slow_path: "/api/clusters/slow/proxy/_cluster/health".to_owned(),
        slow_headers: "x-requested-by: admin-console\r\n".to_owned(),
        slow_answer_contains: test_support::shutdown::SLOW_BODY.to_owned(),
        in_flight: 4,
        fast_path: "/api/live".to_owned(),
        shutdown_timeout: Duration::from_secs(10),
    };
    assert_sigterm_under_load(&mut running, &plan, || upstream.received() >= 4);
}
