//! The benchmark's instruments: resident memory of the service, percentiles, the service process,
//! SSE readers, the machine's load and the commit measured.

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures_util::StreamExt;

/// VmRSS of `pid` in MiB (0 when it cannot be read).
pub fn rss_mib(pid: u32) -> f64 {
    proc_kib_field(&format!("/proc/{pid}/status"), "VmRSS:") / 1024.0
}

/// The value of a `<field> N kB` line of a /proc file, in KiB (0 when it cannot be read).
fn proc_kib_field(path: &str, field: &str) -> f64 {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches(" kB")
                .trim()
                .parse::<f64>()
                .ok()
        })
        .unwrap_or(0.0)
}

/// VmRSS once it has stopped moving (two samples 500 ms apart within 0.25 MiB), at most `limit`
/// later: the watchers of the other kinds may still be loading when the snapshot arrives.
pub async fn settled_rss_mib(pid: u32, limit: Duration) -> f64 {
    let deadline = Instant::now() + limit;
    let mut previous = rss_mib(pid);
    let mut steady = 0;
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = rss_mib(pid);
        steady = if (now - previous).abs() < 0.25 {
            steady + 1
        } else {
            0
        };
        previous = now;
        if steady >= 2 {
            break;
        }
    }
    previous
}

pub fn percentile(samples: &mut [Duration], p: f64) -> Duration {
    if samples.is_empty() {
        return Duration::MAX;
    }
    samples.sort();
    let index = ((samples.len() as f64 * p).ceil() as usize).clamp(1, samples.len()) - 1;
    samples[index]
}

pub fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// The 1, 5 and 15 minute load averages, as /proc/loadavg prints them.
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The commit the service was built from, and whether ingress-dash's sources differ from it
/// (the tree is shared: a figure must say what it measured).
pub fn commit() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|output| output.status.success())
            .map(|output| {
                String::from_utf8_lossy(&output.stdout)
                    .trim_end()
                    .to_owned()
            })
    };
    let head = git(&["log", "-1", "--format=%h %s"]).unwrap_or_else(|| "unknown".to_owned());
    let head: String = head.chars().take(90).collect();
    match git(&["status", "--porcelain", "--", "src", "Cargo.toml"]) {
        Some(dirty) if !dirty.is_empty() => {
            let files: Vec<&str> = dirty
                .lines()
                .filter_map(|line| line.get(3..))
                .map(|path| path.trim().trim_start_matches("ingress-dash/"))
                .collect();
            format!(
                "{head} + {} uncommitted paths of ingress-dash ({})",
                files.len(),
                files.join(" ")
            )
        }
        _ => head,
    }
}

/// The release-like `ingress-dash` binary, killed when dropped; under `BENCH_DASH_WRAPPER` (e.g.
/// `heaptrack -o /tmp/ingress-dash`) in its own process group, ended with SIGTERM so the wrapper
/// can write its results (its resident memory is then the wrapper's, not the service's).
pub struct Service(pub Child, pub bool);

impl Drop for Service {
    fn drop(&mut self) {
        if self.1 {
            // `--`: procps' kill reads `-<pgid>` after a signal as an option, signals nothing
            // and leaves the wait below hanging.
            let _ = Command::new("kill")
                .args(["-TERM", "--"])
                .arg(format!("-{}", self.0.id()))
                .status();
        } else {
            let _ = self.0.kill();
        }
        let _ = self.0.wait();
    }
}

/// `ports`: the public listener's and the internal one's (`/_metrics`).
pub fn start_service(
    kube_url: &str,
    (port, internal_port): (u16, u16),
    dir: &std::path::Path,
    static_dir: Option<&std::path::Path>,
) -> Service {
    let config = dir.join("ingress-dash-bench.yaml");
    // More configuration for a run, e.g. BENCH_DASH_CONFIG=$'backends:\n  enabled: false\n'.
    let extra = std::env::var("BENCH_DASH_CONFIG").unwrap_or_default();
    let static_dir = static_dir
        .map(|path| format!("  static_dir: {:?}\n", path.display().to_string()))
        .unwrap_or_default();
    std::fs::write(
        &config,
        format!(
            "server:\n  host: 127.0.0.1\n  port: {port}\n  internal_port: {internal_port}\n{static_dir}kubernetes:\n  api_url: {kube_url}\n  watch_grace_period: 2s\n  page_size: 500\nrate_limit:\n  enabled: false\nstream:\n  heartbeat_interval: 1s\n  max_clients: 5000\nobservability:\n  log_level: warn\n  log_format: json\n{extra}"
        ),
    )
    .expect("writing the configuration");
    let binary = env!("CARGO_BIN_EXE_ingress-dash");
    let wrapper = std::env::var("BENCH_DASH_WRAPPER").unwrap_or_default();
    let mut words = wrapper.split_whitespace();
    let mut command = match words.next() {
        Some(program) => {
            let mut command = Command::new(program);
            command.args(words).arg(binary).process_group(0);
            command
        }
        None => Command::new(binary),
    };
    let child = command
        .arg("--config")
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("starting ingress-dash");
    Service(child, !wrapper.trim().is_empty())
}

pub async fn wait_live(client: &reqwest::Client, base: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
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

/// The service's own count of running watchers, from `/_metrics`. Asked twice at most: a
/// pooled connection the service closes as idle just as it is reused fails the first try
/// (`IncompleteMessage`, seen once); a service that is gone fails both.
pub async fn watcher_gauge(client: &reqwest::Client, base: &str) -> String {
    let url = format!("{base}/_metrics");
    let response = match client.get(&url).send().await {
        Ok(response) => response,
        Err(first) => {
            eprintln!("  /_metrics failed once ({first}); asking again");
            client.get(&url).send().await.unwrap()
        }
    };
    let text = response.text().await.unwrap();
    text.lines()
        .find_map(|line| line.strip_prefix("ingress_dash_watchers "))
        .unwrap_or("?")
        .to_owned()
}

/// The `/_metrics` lines of the series starting with one of `prefixes`, on one line.
pub async fn metric_lines(client: &reqwest::Client, base: &str, prefixes: &[&str]) -> String {
    let Ok(response) = client.get(format!("{base}/_metrics")).send().await else {
        return "(no /_metrics)".to_owned();
    };
    let text = response.text().await.unwrap_or_default();
    text.lines()
        .filter(|line| prefixes.iter().any(|prefix| line.starts_with(prefix)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A stream client kept open for the whole run (it keeps the cluster-wide watchers alive), read
/// continuously; `snapshot` gets the whole first `snapshot` event once it has arrived.
pub struct Keeper {
    /// The first `snapshot` event's lines (`event:`, `id:`, `data:`).
    pub snapshot: String,
    /// When the client held every record: at its snapshot, or (a snapshot sent while the first
    /// list was still running, with a `syncing` error) once the list's records came as `added`.
    pub complete: Arc<OnceLock<Instant>>,
    /// The events received after the first snapshot, by kind.
    pub seen: Arc<std::sync::Mutex<BTreeMap<&'static str, usize>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Keeper {
    /// Opens the all-namespaces stream of a service that should show `records` records.
    pub async fn open(client: &reqwest::Client, base: &str, records: usize) -> Keeper {
        let response = client
            .get(format!("{base}/api/ingresses/stream"))
            .send()
            .await
            .unwrap();
        let mut body = response.bytes_stream();
        let mut buffer: Vec<u8> = Vec::new();
        let mut start = None;
        let (snapshot, rest) = loop {
            let Some(Ok(chunk)) = body.next().await else {
                panic!("the stream ended before its snapshot")
            };
            let scanned = buffer.len();
            buffer.extend_from_slice(&chunk);
            let from = scanned.saturating_sub(20);
            if start.is_none() {
                start = find(&buffer, b"event: snapshot", from);
            }
            if let Some(start) = start
                && let Some(end) = find(&buffer, b"\n\n", from.max(start))
            {
                let snapshot = String::from_utf8_lossy(&buffer[start..end]).into_owned();
                break (snapshot, buffer.split_off(end));
            }
        };
        let complete = Arc::new(OnceLock::new());
        let (items, _) = snapshot_contents(&snapshot);
        if items >= records {
            let _ = complete.set(Instant::now());
        }
        let missing = records.saturating_sub(items);
        let done = complete.clone();
        let seen = Arc::new(std::sync::Mutex::new(BTreeMap::new()));
        let counts = seen.clone();
        let task = tokio::spawn(async move {
            // Counts the events after the first snapshot (across chunk boundaries: the tail of
            // each chunk is kept). Complete once the missing records came as `added`, or a
            // later `snapshot` (a resync) has been read to its end.
            let mut tail = rest;
            // Where the bytes not yet counted start (an event name may straddle two chunks).
            let mut fresh: usize = 0;
            // Where a later `snapshot` event starts in `tail`, until its end has arrived.
            let mut resync: Option<usize> = None;
            loop {
                for kind in EVENT_KINDS {
                    let needle = format!("event: {kind}\n");
                    let from = fresh.saturating_sub(needle.len() - 1);
                    let found = count(&tail[from..], needle.as_bytes());
                    *counts.lock().unwrap().entry(*kind).or_insert(0) += found;
                    if *kind == "snapshot" && found > 0 && resync.is_none() {
                        resync = find(&tail, needle.as_bytes(), from);
                    }
                }
                let added = counts.lock().unwrap().get("added").copied().unwrap_or(0);
                if added >= missing {
                    let _ = done.set(Instant::now());
                }
                if let Some(at) = resync
                    && find(&tail, b"\n\n", at.max(fresh.saturating_sub(1))).is_some()
                {
                    let _ = done.set(Instant::now());
                    resync = None;
                }
                // Keep the last bytes only (a straddling name), unless a resync is being read.
                let drop = if resync.is_some() {
                    0
                } else {
                    tail.len().saturating_sub(20)
                };
                tail.drain(..drop);
                fresh = tail.len();
                let Some(Ok(chunk)) = body.next().await else {
                    break;
                };
                tail.extend_from_slice(&chunk);
            }
        });
        Keeper {
            snapshot,
            complete,
            seen,
            task,
        }
    }
}

const EVENT_KINDS: &[&str] = &[
    "snapshot",
    "added",
    "modified",
    "deleted",
    "error",
    "recovered",
];

/// How often `needle` occurs in `haystack`.
fn count(haystack: &[u8], needle: &[u8]) -> usize {
    haystack
        .windows(needle.len())
        .filter(|window| *window == needle)
        .count()
}

impl Drop for Keeper {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Where `needle` first occurs in `haystack` at or after `from`.
pub fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|at| at + from)
}

/// The items and the errors (their messages) of a `snapshot` event's data.
pub fn snapshot_contents(event: &str) -> (usize, Vec<String>) {
    let data: String = event
        .lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|line| line.strip_prefix(' ').unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n");
    let value: serde_json::Value = serde_json::from_str(&data).unwrap_or_default();
    let items = value["items"].as_array().map_or(0, Vec::len);
    let errors = value["errors"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|error| error.to_string().chars().take(160).collect())
        .collect();
    (items, errors)
}

/// Resident memory after asking the service's allocator to give its free pages back
/// (`BENCH_TRIM_PROBE=1`, through gdb: mimalloc's `mi_collect(true)`, which also purges the
/// free pages of every arena at once, then glibc's `malloc_trim(0)`): what RSS keeps of a
/// transient peak rather than of live data. None when not asked for or gdb cannot attach.
pub fn rss_after_trim_mib(pid: u32) -> Option<f64> {
    if std::env::var("BENCH_TRIM_PROBE").map_or(true, |v| v != "1") {
        return None;
    }
    let status = Command::new("gdb")
        .args([
            "-p",
            &pid.to_string(),
            "-batch",
            // Absent from the glibc build (`--no-default-features`): gdb goes on to the next.
            "-ex",
            "call (void) mi_collect(1)",
            "-ex",
            "call (int) malloc_trim(0)",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .ok()?;
    status.success().then(|| rss_mib(pid))
}

/// Anonymous resident memory of `pid` in MiB (`/proc/PID/smaps_rollup`; 0 when unreadable).
pub fn anonymous_mib(pid: u32) -> f64 {
    proc_kib_field(&format!("/proc/{pid}/smaps_rollup"), "Anonymous:") / 1024.0
}

/// Under `BENCH_TRIM_PROBE=1`, prints where the resident memory of a stage sits: anonymous
/// (heap) and, after [`rss_after_trim_mib`], what the allocator held free (this changes the
/// service's state: later stages start from the trimmed heap).
pub fn allocator_probe(pid: u32, stage: &str, idle_mib: f64) {
    let before = rss_mib(pid);
    let anonymous = anonymous_mib(pid);
    if let Some(after) = rss_after_trim_mib(pid) {
        eprintln!(
            "  allocator probe ({stage}): resident +{:.1} MiB over idle, anonymous {anonymous:.1} MiB; after mi_collect(true)/malloc_trim(0) +{:.1} MiB ({:.1} MiB were free pages)",
            before - idle_mib,
            after - idle_mib,
            before - after
        );
    }
}
