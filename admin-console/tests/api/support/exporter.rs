//! prometheus-elasticsearch-exporter (Debian's package) scraping a cluster, and history written
//! in OpenMetrics text with the exporter's metric names, backfilled with promtool.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use test_support::{ChildGuard, TempDir, free_port, http_get, wait_until};

pub struct Exporter {
    pub host_port: String,
    _guard: ChildGuard,
}

impl Exporter {
    /// Exports `cluster_url` with the given collector flags (`--es.all`, `--es.indices`…).
    pub fn start(cluster_url: &str, flags: &[&str]) -> Self {
        let port = free_port();
        let host_port = format!("127.0.0.1:{port}");
        let mut guard = ChildGuard::spawn(
            "prometheus-elasticsearch-exporter",
            Command::new("prometheus-elasticsearch-exporter")
                .arg(format!("--es.uri={cluster_url}"))
                .args(flags)
                .arg(format!("--web.listen-address={host_port}"))
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        wait_until("elasticsearch exporter", Duration::from_secs(20), || {
            guard.assert_running();
            matches!(http_get(&host_port, "/metrics"), Some((200, _)))
        });
        Self {
            host_port,
            _guard: guard,
        }
    }
}

/// One backfilled sample of the cluster.
pub struct HistorySample {
    pub timestamp: i64,
    pub color: &'static str,
    pub nodes: u64,
    pub active_shards: u64,
    pub unassigned_shards: u64,
    pub indices: &'static [(&'static str, u64)],
    pub cpu_percent: f64,
}

/// Writes `samples` as OpenMetrics (labels as a Prometheus scrape of job `job` would carry
/// them) and turns them into TSDB blocks in a fresh directory.
pub fn backfill(job: &str, extra_label: (&str, &str), samples: &[HistorySample]) -> TempDir {
    let mut text = String::new();
    let labels = format!(
        "cluster=\"osmem\",instance=\"127.0.0.1:9114\",job=\"{job}\",{}=\"{}\"",
        extra_label.0, extra_label.1
    );
    let gauge = |text: &mut String, name: &str, help: &str| {
        writeln!(text, "# HELP {name} {help}\n# TYPE {name} gauge").unwrap();
    };
    gauge(
        &mut text,
        "elasticsearch_cluster_health_status",
        "Whether all primary and replica shards are allocated.",
    );
    for sample in samples {
        for color in ["green", "yellow", "red"] {
            let value = u8::from(color == sample.color);
            writeln!(
                text,
                "elasticsearch_cluster_health_status{{{labels},color=\"{color}\"}} {value} {}",
                sample.timestamp
            )
            .unwrap();
        }
    }
    type ValueOf = fn(&HistorySample) -> f64;
    let per_sample: [(&str, ValueOf); 4] = [
        ("elasticsearch_cluster_health_number_of_nodes", |s| {
            s.nodes as f64
        }),
        ("elasticsearch_cluster_health_active_shards", |s| {
            s.active_shards as f64
        }),
        ("elasticsearch_cluster_health_unassigned_shards", |s| {
            s.unassigned_shards as f64
        }),
        ("elasticsearch_os_cpu_percent", |s| s.cpu_percent),
    ];
    for (name, value_of) in per_sample {
        gauge(&mut text, name, "Backfilled.");
        for sample in samples {
            writeln!(
                text,
                "{name}{{{labels}}} {} {}",
                value_of(sample),
                sample.timestamp
            )
            .unwrap();
        }
    }
    gauge(
        &mut text,
        "elasticsearch_indices_docs_primary",
        "Count of documents with only primary shards",
    );
    for sample in samples {
        for (index, docs) in sample.indices {
            writeln!(
                text,
                "elasticsearch_indices_docs_primary{{{labels},index=\"{index}\"}} {docs} {}",
                sample.timestamp
            )
            .unwrap();
        }
    }
    text.push_str("# EOF\n");
    let dir = TempDir::new("backfill");
    let input = dir.path().join("history.om");
    std::fs::write(&input, text).unwrap();
    let data: PathBuf = dir.path().join("data");
    let output = Command::new("promtool")
        // Few large blocks instead of one per 2 hours: much faster to write and to open.
        .args([
            "tsdb",
            "create-blocks-from",
            "openmetrics",
            "--max-block-duration=768h",
        ])
        .arg(&input)
        .arg(&data)
        .output()
        .expect("running promtool");
    assert!(
        output.status.success(),
        "promtool failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    dir
}
