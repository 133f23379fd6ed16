//! The dashboard's benchmark at 10k and 50k ingresses side by side: `make bench-ingress-dash`,
//! or `BENCH_SCALES=10000,50000 cargo bench --profile fast -p ingress-dash --bench dashboard`.
//!
//! For each scale N (default 10,000 then 50,000): starts a kube-test-server in-process with N
//! sample ingresses in 500 namespaces and, bulk-loaded beside them, one Service and one
//! EndpointSlice per ingress (its backend `app-N`; its `app-N-api` backend has no Service), and
//! the `ingress-dash` binary of this build against it, serving the built web app; then measures,
//! next to each goal: resident memory idle, with everything watched, after the snapshots and with
//! 1,000 SSE clients; the all-ingresses snapshot (p50/p95, sizes, API calls in steady state);
//! event latency to 1,000 SSE clients (API change to bytes received, p50/p99); first render of
//! the table in headless Chromium (web/bench/first-render.mjs); upstream watches shared by 100
//! clients and gone after the grace period. Prints each scale's table, then the scales side by
//! side with their ratio.

mod measure;
mod report;
mod sse;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use kube_test_server::{KubeTestServer, Options, sample};

use measure::{Keeper, percentile, rss_mib, settled_rss_mib};
use report::{Browser, Figures};

const NAMESPACES: usize = 500;
const SSE_CLIENTS: usize = 1_000;
const CHANGES: usize = 20;
const SNAPSHOTS: usize = 40;
const BROWSER_RUNS: usize = 3;

fn scales() -> Vec<usize> {
    let text = std::env::var("BENCH_SCALES").unwrap_or_else(|_| "10000,50000".to_owned());
    let scales: Vec<usize> = text
        .split(',')
        .map(|part| {
            part.trim()
                .parse()
                .unwrap_or_else(|_| panic!("BENCH_SCALES: {part:?} is not a number of ingresses"))
        })
        .collect();
    assert!(
        scales.iter().all(|&n| n > 0),
        "BENCH_SCALES: every scale must be at least 1"
    );
    scales
}

/// The sample ingresses, and a Service with an EndpointSlice (2-3 ready endpoints) for each
/// one's first backend: N ingresses + N EndpointSlices. Straight into the store, as the sample
/// set is built (the binary's `--sample` adds 2 Services per ingress and a certificate per TLS
/// ingress: 30 s at 50k in a debug build).
fn bulk_load(kube: &KubeTestServer, ingresses: usize) -> Duration {
    let started = Instant::now();
    sample::populate(&kube.cluster, ingresses, NAMESPACES);
    for index in 0..ingresses {
        let namespace = sample::namespace_name(index % NAMESPACES);
        let name = format!("app-{index:05}");
        sample::put_service_with_endpoints(
            &kube.cluster,
            &namespace,
            &name,
            80,
            2 + index % 2,
            true,
        );
    }
    started.elapsed()
}

/// Size and time of the body gzip-compressed at a few levels (flate2 as the service builds it).
fn gzip_levels(body: &[u8]) -> String {
    use std::io::Write;
    [1, 2, 3, 6]
        .into_iter()
        .map(|level| {
            let started = Instant::now();
            let mut encoder =
                flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(level));
            encoder.write_all(body).unwrap();
            let size = encoder.finish().unwrap().len();
            format!(
                "level {level} {:.0} KiB in {:.0} ms",
                size as f64 / 1024.0,
                measure::ms(started.elapsed())
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// How many records of the snapshot carry each backend state (0 before backends exist).
fn backend_states(snapshot: &str) -> Vec<(&'static str, usize)> {
    [
        "ready",
        "degraded",
        "no_ready_endpoints",
        "missing_service",
        "unknown",
    ]
    .into_iter()
    .map(|state| {
        (
            state,
            snapshot.matches(&format!("\"state\":\"{state}\"")).count(),
        )
    })
    .collect()
}

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("web")
}

/// Why the browser cannot be run here, if it cannot.
fn browser_missing() -> Option<String> {
    let web = web_dir();
    let chromium = std::env::var("CHROMIUM_BIN").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if std::env::var("BENCH_BROWSER").is_ok_and(|v| v == "0") {
        Some("BENCH_BROWSER=0".into())
    } else if !web.join("dist/index.html").exists() {
        Some("web/dist is missing: npm run build".into())
    } else if !web.join("node_modules/playwright-core").exists() {
        Some("web/node_modules is missing: npm ci".into())
    } else if !Path::new(&chromium).exists() {
        Some(format!("{chromium} is missing"))
    } else {
        None
    }
}

async fn first_render(base: &str, rows: usize) -> Result<Browser, String> {
    if let Some(reason) = browser_missing() {
        return Err(format!("skipped: {reason}"));
    }
    let web = web_dir();
    let url = format!("{base}/");
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new("node")
            .arg("bench/first-render.mjs")
            .arg(url)
            .arg(rows.to_string())
            .arg(BROWSER_RUNS.to_string())
            .current_dir(web)
            .output()
    })
    .await
    .map_err(|e| e.to_string())?
    .map_err(|e| format!("node: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        return Err(format!(
            "failed: {}",
            stderr.lines().take(5).collect::<Vec<_>>().join(" / ")
        ));
    }
    serde_json::from_str(line).map_err(|e| format!("unreadable output {line:?}: {e}"))
}

/// Waits until the API server's open watches stop changing for a second, at most `limit`.
async fn settled_watches(kube: &KubeTestServer, limit: Duration) -> usize {
    let deadline = Instant::now() + limit;
    let mut previous = kube.cluster.open_watches();
    let mut steady = Instant::now();
    while Instant::now() < deadline && steady.elapsed() < Duration::from_secs(1) {
        tokio::time::sleep(Duration::from_millis(100)).await;
        let now = kube.cluster.open_watches();
        if now != previous {
            previous = now;
            steady = Instant::now();
        }
    }
    previous
}

async fn run_scale(ingresses: usize, commit: &str) -> Figures {
    let load_before = measure::load_average();
    // Bookmarks every second: the server notices a closed watch at its next write.
    let kube = KubeTestServer::start(Options {
        bookmark_interval: Duration::from_secs(1),
        ..Options::default()
    })
    .expect("kube-test-server");
    let populate = bulk_load(&kube, ingresses);
    let dir = test_support::TempDir::new("ingress-dash-bench");
    let (port, internal_port) = (test_support::free_port(), test_support::free_port());
    let dist = web_dir().join("dist");
    let service = measure::start_service(
        kube.url(),
        (port, internal_port),
        dir.path(),
        dist.join("index.html").exists().then_some(dist.as_path()),
    );
    let pid = service.0.id();
    let base = format!("http://127.0.0.1:{port}");
    // `/_metrics` is on the internal listener only.
    let metrics_base = format!("http://127.0.0.1:{internal_port}");
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(2000)
        .build()
        .unwrap();
    measure::wait_live(&http, &base).await;

    // 1. Idle: no watcher runs before the first client.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle_mib = rss_mib(pid);

    // 2. Everything watched (kept alive by one stream client that has read its whole snapshot).
    let load_started = Instant::now();
    let keeper = Keeper::open(&http, &base, ingresses).await;
    let first_snapshot = load_started.elapsed();
    let complete_deadline = Instant::now() + Duration::from_secs(120);
    while keeper.complete.get().is_none() && Instant::now() < complete_deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let first_complete = keeper
        .complete
        .get()
        .map(|at| at.duration_since(load_started));
    let watched_mib = settled_rss_mib(pid, Duration::from_secs(30)).await;
    measure::allocator_probe(pid, "all watched", idle_mib);
    let first_events: Vec<String> = keeper
        .seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(_, count)| **count > 0)
        .map(|(kind, count)| format!("{count} {kind}"))
        .collect();
    let keeper_snapshot_bytes = keeper.snapshot.len();
    let (keeper_items, keeper_errors) = measure::snapshot_contents(&keeper.snapshot);

    // 3. The snapshot from memory.
    let lists_before = kube.cluster.list_requests();
    let mut samples = Vec::new();
    let mut gzip_bytes = 0;
    for _ in 0..SNAPSHOTS {
        let started = Instant::now();
        let response = http
            .get(format!("{base}/api/ingresses"))
            .header("Accept-Encoding", "gzip")
            .send()
            .await
            .unwrap();
        let compressed = response
            .headers()
            .get("content-encoding")
            .is_some_and(|v| v == "gzip");
        let body = response.bytes().await.unwrap();
        samples.push(started.elapsed());
        assert!(compressed, "the snapshot was not gzip-compressed");
        gzip_bytes = body.len();
    }
    let body = http
        .get(format!("{base}/api/ingresses"))
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let raw_bytes = body.len();
    // The first request of the steady state compresses the body; the others are served from
    // the cache of encoded snapshots while nothing changes.
    eprintln!(
        "  snapshot: first (compressed for the cache) {:.1} ms; gzip levels on this body: {}",
        measure::ms(samples[0]),
        gzip_levels(&body)
    );
    let states = backend_states(&String::from_utf8_lossy(&body));
    let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let items = value["items"].as_array().map_or(0, Vec::len);
    drop((value, body));
    let api_calls = kube.cluster.list_requests() - lists_before;
    let snapshots_mib = rss_mib(pid);
    let trimmed_mib = measure::rss_after_trim_mib(pid);
    let snapshot_p50 = percentile(&mut samples, 0.50);
    let snapshot_p95 = percentile(&mut samples, 0.95);

    // 4. 1,000 SSE clients: memory once connected, API change to bytes received.
    let latency = sse::latency(&http, &base, &kube, pid, SSE_CLIENTS, CHANGES).await;
    let mut latencies = latency.latencies.clone();
    let sse_p50 = percentile(&mut latencies, 0.50);
    let sse_p99 = percentile(&mut latencies, 0.99);

    // 5. First render in the browser, the watchers warm (the keeper is still connected).
    let watched = [
        "ingress_dash_snapshot_cache_total",
        "ingress_dash_stream_events_sent_total",
    ];
    eprintln!(
        "  before the browser: {}",
        measure::metric_lines(&http, &metrics_base, &watched).await
    );
    let browser = first_render(&base, ingresses).await;
    eprintln!(
        "  after the browser: {}",
        measure::metric_lines(&http, &metrics_base, &watched).await
    );
    if let Ok(browser) = &browser {
        for run in &browser.runs {
            eprintln!("  first render (ms from navigation): {}", run.breakdown());
        }
    }

    // 6. Shared watches: 1 then 100 clients on two namespaces, then none.
    drop(keeper);
    let gone_deadline = Instant::now() + Duration::from_secs(30);
    while kube.cluster.open_watches() > 0 && Instant::now() < gone_deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut clients = Vec::new();
    let mut watches_one = 0;
    for client in 0..100 {
        let response = http
            .get(format!(
                "{base}/api/ingresses/stream?namespaces=team-001,team-002"
            ))
            .send()
            .await
            .unwrap();
        let mut body = response.bytes_stream();
        let _ = body.next().await;
        clients.push(body);
        if client == 0 {
            watches_one = settled_watches(&kube, Duration::from_secs(10)).await;
        }
    }
    let watches_hundred = settled_watches(&kube, Duration::from_secs(10)).await;
    let gauge_hundred = measure::watcher_gauge(&http, &metrics_base).await;
    drop(clients);
    let closed = Instant::now();
    let gone_deadline = closed + Duration::from_secs(30);
    while kube.cluster.open_watches() > 0 && Instant::now() < gone_deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let watches_after = kube.cluster.open_watches();
    let gone_after = closed.elapsed();
    let gauge_after = measure::watcher_gauge(&http, &metrics_base).await;
    drop(service);

    Figures {
        ingresses,
        namespaces: NAMESPACES,
        commit: commit.to_owned(),
        load_before,
        load_after: measure::load_average(),
        populate,
        idle_mib,
        first_snapshot,
        first_complete,
        first_events,
        watched_mib,
        keeper_snapshot_bytes,
        keeper_items,
        keeper_errors,
        states,
        snapshot_p50,
        snapshot_p95,
        snapshots: SNAPSHOTS,
        items,
        gzip_bytes,
        raw_bytes,
        api_calls,
        snapshots_mib,
        trimmed_mib,
        connected_mib: latency.rss_connected_mib,
        clients: SSE_CLIENTS,
        connected: latency.connected,
        received: latency.latencies.len(),
        expected: latency.expected,
        sse_p50,
        sse_p99,
        browser,
        watches_one,
        watches_hundred,
        gauge_hundred,
        watches_after,
        gone_after,
        gauge_after,
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    test_support::install_crypto_provider();
    let mut all = Vec::new();
    // The service binary was built from the tree as it is now.
    let commit = measure::commit();
    for ingresses in scales() {
        eprintln!(
            "ingress-dash benchmark: {ingresses} ingresses + {ingresses} EndpointSlices (load {})",
            measure::load_average()
        );
        let figures = run_scale(ingresses, &commit).await;
        report::print_scale(&figures);
        all.push(figures);
    }
    if all.len() > 1 {
        report::print_side_by_side(&all);
    }
}
