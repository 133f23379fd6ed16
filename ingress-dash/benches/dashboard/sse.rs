//! Event latency to many SSE clients: from the change written at the API server to the event's
//! bytes received by each client.

use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use kube_test_server::{KubeTestServer, sample};
use tokio::sync::Mutex;

/// Per SSE client: each change's tag and when its bytes arrived.
type Arrivals = Vec<(String, Instant)>;

pub struct Latency {
    pub connected: usize,
    pub expected: usize,
    pub latencies: Vec<Duration>,
    /// Resident memory of the service once every client had its snapshot.
    pub rss_connected_mib: f64,
}

/// Opens `clients` streams on `team-000`, waits for every snapshot, then changes
/// `team-000/app-00000` `changes` times (a label `bench: c<n>`, 250 ms apart).
pub async fn latency(
    http: &reqwest::Client,
    base: &str,
    kube: &KubeTestServer,
    pid: u32,
    clients: usize,
    changes: usize,
) -> Latency {
    let arrivals: Arc<Mutex<Vec<Arrivals>>> = Arc::new(Mutex::new(Vec::new()));
    let mut readers = Vec::new();
    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(clients);
    // Every reader stays connected until all are done (or the deadline): a reader that hung up
    // as soon as it had the last change would make the others' delivery of that change compete
    // with 1,000 disconnects, which is the benchmark's doing, not the service's.
    let (done_tx, done_rx) = tokio::sync::watch::channel(false);
    let finished = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    for _ in 0..clients {
        let http = http.clone();
        let url = format!("{base}/api/ingresses/stream?namespaces=team-000");
        let arrivals = arrivals.clone();
        let ready = ready_tx.clone();
        let mut done = done_rx.clone();
        let finished = finished.clone();
        readers.push(tokio::spawn(async move {
            let Ok(response) = http.get(url).send().await else {
                return;
            };
            let mut body = response.bytes_stream();
            let mut seen = Vec::new();
            let mut buffer = String::new();
            let mut snapshot = false;
            loop {
                let chunk = tokio::select! {
                    chunk = body.next() => chunk,
                    _ = done.wait_for(|done| *done) => break,
                };
                let Some(Ok(chunk)) = chunk else { break };
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
                if seen.len() >= changes {
                    break;
                }
            }
            arrivals.lock().await.push(seen);
            finished.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            // Connected until every reader is done.
            let _ = done.wait_for(|done| *done).await;
            drop(body);
        }));
    }
    drop(ready_tx);
    let mut connected = 0;
    let connect_deadline = Instant::now() + Duration::from_secs(60);
    while connected < clients && Instant::now() < connect_deadline {
        let left = connect_deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, ready_rx.recv()).await {
            Ok(Some(())) => connected += 1,
            _ => break,
        }
    }
    let rss_connected_mib = super::measure::rss_mib(pid);
    let mut sent_at = Vec::new();
    for change in 0..changes {
        let mut ingress = sample::ingress("team-000", "app-00000", 0);
        ingress["metadata"]["labels"]["bench"] = serde_json::json!(format!("c{change}"));
        sent_at.push((format!("c{change}"), Instant::now()));
        kube.cluster.put_ingress(ingress);
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let wait_deadline = Instant::now() + Duration::from_secs(30);
    while finished.load(std::sync::atomic::Ordering::SeqCst) < connected
        && Instant::now() < wait_deadline
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let _ = done_tx.send(true);
    for mut reader in readers {
        let left = wait_deadline.saturating_duration_since(Instant::now());
        if tokio::time::timeout(left, &mut reader).await.is_err() {
            // Still waiting past the deadline: its missing events show in the count.
            reader.abort();
        }
    }
    let mut latencies = Vec::new();
    for seen in arrivals.lock().await.iter() {
        for (tag, at) in seen {
            if let Some((_, sent)) = sent_at.iter().find(|(t, _)| t == tag) {
                latencies.push(at.duration_since(*sent));
            }
        }
    }
    // Per change: where the tail comes from (one slow change, or every change's last clients).
    let per_change: Vec<String> = sent_at
        .iter()
        .map(|(tag, sent)| {
            let mut times: Vec<Duration> = arrivals
                .try_lock()
                .map(|all| {
                    all.iter()
                        .flat_map(|seen| seen.iter().filter(|(t, _)| t == tag))
                        .map(|(_, at)| at.duration_since(*sent))
                        .collect()
                })
                .unwrap_or_default();
            times.sort();
            let at = |p: f64| {
                times
                    .get(((times.len() as f64 * p) as usize).min(times.len().saturating_sub(1)))
                    .map_or(0.0, |d| d.as_secs_f64() * 1000.0)
            };
            format!("{tag} {:.0}/{:.0}/{:.0}", at(0.5), at(0.9), at(1.0))
        })
        .collect();
    eprintln!(
        "  SSE latency per change, p50/p90/max ms: {}",
        per_change.join(", ")
    );
    Latency {
        connected,
        expected: connected * changes,
        latencies,
        rss_connected_mib,
    }
}
