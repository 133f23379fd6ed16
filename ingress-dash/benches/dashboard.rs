//! Benchmark of issue 7 item 8: `cargo bench -p ingress-dash --bench dashboard`.
//!
//! Starts a kube-test-server in-process with 10,000 ingresses in 500 namespaces and the release
//! `ingress-dash` binary against it, then measures, next to each goal:
//! resident memory idle and with the cluster-wide watcher loaded; the all-ingresses snapshot
//! (p95, gzip size, API calls in steady state); event latency to 1,000 SSE clients (API change to
//! bytes received); upstream watches for 100 clients on two namespaces, and after they left.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use kube_test_server::{KubeTestServer, Options, sample};
use tokio::sync::Mutex;

const INGRESSES: usize = 10_000;
const NAMESPACES: usize = 500;
const SSE_CLIENTS: usize = 1_000;
const CHANGES: usize = 20;

/// Per SSE client: each change's tag and when its bytes arrived.
type Arrivals = Vec<(String, Instant)>;

struct Row {
    name: &'static str,
    measured: String,
    goal: &'static str,
    ok: bool,
}

fn rss_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches(" kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .map_or(0.0, |kib| kib / 1024.0)
}

fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    samples.sort();
    let index = ((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len()) - 1;
    samples[index]
}

struct Service(Child);

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_service(kube_url: &str, port: u16, dir: &std::path::Path) -> Service {
    let config = dir.join("ingress-dash-bench.yaml");
    std::fs::write(
        &config,
        format!(
            "server:\n  host: 127.0.0.1\n  port: {port}\nkubernetes:\n  api_url: {kube_url}\n  watch_grace_period: 2s\n  page_size: 500\nrate_limit:\n  enabled: false\nstream:\n  heartbeat_interval: 1s\n  max_clients: 5000\nobservability:\n  log_level: warn\n  log_format: json\n"
        ),
    )
    .expect("writing the configuration");
    let child = Command::new(env!("CARGO_BIN_EXE_ingress-dash"))
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("starting ingress-dash");
    Service(child)
}

async fn wait_live(client: &reqwest::Client, base: &str) {
    for _ in 0..200 {
        if client
            .get(format!("{base}/api/live"))
            .send()
            .await
            .is_ok_and(|r| r.status() == 200)
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("ingress-dash did not start");
}

/// The service's own count of running watchers, from `/_metrics`.
async fn watcher_gauge(client: &reqwest::Client, base: &str) -> String {
    let text = client
        .get(format!("{base}/_metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("ingress_dash_watchers "))
        .unwrap_or("?")
        .to_owned()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    test_support::install_crypto_provider();
    // Bookmarks every second: the server notices a closed watch at its next write.
    let kube = KubeTestServer::start(Options {
        bookmark_interval: Duration::from_secs(1),
        ..Options::default()
    })
    .expect("kube-test-server");
    sample::populate(&kube.cluster, INGRESSES, NAMESPACES);
    let dir = test_support::TempDir::new("ingress-dash-bench");
    let port = test_support::free_port();
    let service = start_service(kube.url(), port, dir.path());
    let pid = service.0.id();
    let base = format!("http://127.0.0.1:{port}");
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(2000)
        .build()
        .unwrap();
    wait_live(&client, &base).await;
    let mut rows = Vec::new();

    // 1. Idle memory.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let idle = rss_mib(pid);
    rows.push(Row {
        name: "idle resident memory",
        measured: format!("{idle:.1} MiB"),
        goal: "<= 25 MiB",
        ok: idle <= 25.0,
    });

    // 2. The cluster-wide watcher loaded (kept alive by one stream client), before any
    // snapshot request; then the snapshot from memory.
    let keeper = client
        .get(format!("{base}/api/ingresses/stream"))
        .send()
        .await
        .unwrap();
    let mut keeper_body = keeper.bytes_stream();
    let mut seen = String::new();
    while !seen.contains("event: snapshot") {
        let Some(Ok(chunk)) = keeper_body.next().await else {
            panic!("stream ended")
        };
        seen.push_str(&String::from_utf8_lossy(&chunk));
    }
    drop(seen);
    tokio::time::sleep(Duration::from_secs(2)).await;
    let synced = rss_mib(pid);
    rows.push(Row {
        name: "memory with the 10k watched (delta, no request yet)",
        measured: format!("{synced:.1} MiB (+{:.1})", synced - idle),
        goal: "<= +30 MiB per 10k",
        ok: synced - idle <= 30.0,
    });
    let lists_before = kube.cluster.list_requests();
    let mut samples = Vec::new();
    let mut gzip_bytes = 0;
    let mut items = 0;
    for _ in 0..40 {
        let started = Instant::now();
        let response = client
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
    {
        let body = client
            .get(format!("{base}/api/ingresses"))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        let value: serde_json::Value = serde_json::from_slice(&body).unwrap();
        items = items.max(value["items"].as_array().map_or(0, Vec::len));
    }
    let api_calls = kube.cluster.list_requests() - lists_before;
    let loaded = rss_mib(pid);
    let p95 = percentile(&mut samples, 0.95);
    rows.push(Row {
        name: "memory after 41 full snapshots (delta)",
        measured: format!("{loaded:.1} MiB (+{:.1})", loaded - idle),
        goal: "<= +30 MiB per 10k",
        ok: loaded - idle <= 30.0,
    });
    rows.push(Row {
        name: "snapshot of all ingresses, p95",
        measured: format!("{:.1} ms ({items} items)", p95.as_secs_f64() * 1000.0),
        goal: "< 150 ms",
        ok: p95 < Duration::from_millis(150) && items == INGRESSES,
    });
    rows.push(Row {
        name: "snapshot gzip size",
        measured: format!("{:.0} KiB", gzip_bytes as f64 / 1024.0),
        goal: "< 1 MB",
        ok: gzip_bytes < 1_000_000,
    });
    rows.push(Row {
        name: "API list calls for 41 steady-state snapshots",
        measured: api_calls.to_string(),
        goal: "0",
        ok: api_calls == 0,
    });

    // 3. 1,000 SSE clients: API change to bytes received.
    let arrivals: Arc<Mutex<Vec<Arrivals>>> = Arc::new(Mutex::new(Vec::new()));
    let mut readers = Vec::new();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(SSE_CLIENTS);
    for _ in 0..SSE_CLIENTS {
        let client = client.clone();
        let url = format!("{base}/api/ingresses/stream?namespaces=team-000");
        let arrivals = arrivals.clone();
        let ready = ready_tx.clone();
        readers.push(tokio::spawn(async move {
            let response = client.get(url).send().await.unwrap();
            let mut body = response.bytes_stream();
            let mut seen = Vec::new();
            let mut buffer = String::new();
            let mut snapshot = false;
            while let Some(Ok(chunk)) = body.next().await {
                let now = Instant::now();
                buffer.push_str(&String::from_utf8_lossy(&chunk));
                while let Some(end) = buffer.find("\n\n") {
                    let block: String = buffer.drain(..end + 2).collect();
                    if block.starts_with("event: snapshot") && !snapshot {
                        snapshot = true;
                        let _ = ready.send(()).await;
                    }
                    if let Some(start) = block.find("\"labels\":{")
                        && let Some(marker) = block[start..].find("\"bench\":\"")
                    {
                        let rest = &block[start + marker + 9..];
                        let tag = rest[..rest.find('"').unwrap_or(0)].to_owned();
                        seen.push((tag, now));
                    }
                }
                if seen.len() >= CHANGES {
                    break;
                }
            }
            arrivals.lock().await.push(seen);
        }));
    }
    drop(ready_tx);
    let mut connected = 0;
    let connect_deadline = Instant::now() + Duration::from_secs(60);
    while connected < SSE_CLIENTS && Instant::now() < connect_deadline {
        if ready_rx.recv().await.is_none() {
            break;
        }
        connected += 1;
    }
    let mut sent_at = Vec::new();
    for change in 0..CHANGES {
        let mut ingress = sample::ingress("team-000", "app-00000", 0);
        ingress["metadata"]["labels"]["bench"] = serde_json::json!(format!("c{change}"));
        sent_at.push((format!("c{change}"), Instant::now()));
        kube.cluster.put_ingress(ingress);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let mut latencies = Vec::new();
    let wait_deadline = Instant::now() + Duration::from_secs(30);
    for reader in readers {
        let left = wait_deadline.saturating_duration_since(Instant::now());
        let _ = tokio::time::timeout(left, reader).await;
    }
    for seen in arrivals.lock().await.iter() {
        for (tag, at) in seen {
            if let Some((_, sent)) = sent_at.iter().find(|(t, _)| t == tag) {
                latencies.push(at.duration_since(*sent));
            }
        }
    }
    let expected = connected * CHANGES;
    let p99 = if latencies.is_empty() {
        Duration::MAX
    } else {
        percentile(&mut latencies, 0.99)
    };
    rows.push(Row {
        name: "SSE event latency p99, 1,000 clients",
        measured: format!(
            "{:.1} ms ({} of {expected} events, {connected} clients)",
            p99.as_secs_f64() * 1000.0,
            latencies.len()
        ),
        goal: "< 50 ms",
        ok: p99 < Duration::from_millis(50)
            && latencies.len() == expected
            && connected == SSE_CLIENTS,
    });
    drop(keeper_body);

    // 4. Shared watches: 100 clients on two namespaces, then none. Gone clients are noticed
    // at a heartbeat write (1 s; the first write after a close may still succeed), then the
    // 2 s grace period runs.
    tokio::time::sleep(Duration::from_secs(8)).await;
    let mut clients = Vec::new();
    for _ in 0..100 {
        let response = client
            .get(format!(
                "{base}/api/ingresses/stream?namespaces=team-001,team-002"
            ))
            .send()
            .await
            .unwrap();
        let mut body = response.bytes_stream();
        let _ = body.next().await;
        clients.push(body);
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let watches = kube.cluster.open_watches();
    let watchers = watcher_gauge(&client, &base).await;
    rows.push(Row {
        name: "upstream watches, 100 clients on 2 namespaces",
        measured: format!("{watches} (ingress_dash_watchers {watchers})"),
        goal: "2",
        ok: watches == 2,
    });
    drop(clients);
    tokio::time::sleep(Duration::from_secs(8)).await;
    let after = kube.cluster.open_watches();
    let watchers_after = watcher_gauge(&client, &base).await;
    rows.push(Row {
        name: "upstream watches after the grace period",
        measured: format!("{after} (ingress_dash_watchers {watchers_after})"),
        goal: "0",
        ok: after == 0,
    });

    println!();
    println!(
        "ingress-dash benchmark: {INGRESSES} ingresses in {NAMESPACES} namespaces (release build, 2 cores shared)"
    );
    println!("{:<52} {:<46} {:<20}", "measure", "measured", "goal");
    for row in &rows {
        println!(
            "{:<52} {:<46} {:<20} {}",
            row.name,
            row.measured,
            row.goal,
            if row.ok { "ok" } else { "MISSED" }
        );
    }
    drop(service);
}
