//! An OTLP/HTTP (protobuf) receiver, PyPI `oteltap`, collecting the spans a service exports.
//! (It answers the export requests as a collector does; what it received is read back from its
//! standard output.)

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::process::{ChildGuard, free_port, repo_root};

/// One received span, ids in lower-case hex as in `traceparent`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceivedSpan {
    pub name: String,
    pub trace_id: String,
    pub span_id: String,
    /// Empty for a root span.
    pub parent_span_id: String,
}

pub struct OtlpReceiver {
    /// Base URL to give an exporter, e.g. `http://127.0.0.1:4318` (traces go to `/v1/traces`).
    pub endpoint: String,
    spans: Arc<Mutex<Vec<ReceivedSpan>>>,
    raw: Arc<Mutex<Vec<String>>>,
    _guard: ChildGuard,
}

impl OtlpReceiver {
    pub fn start() -> Self {
        let port = free_port();
        let binary = repo_root().join(".venv/bin/oteltap");
        let mut guard = ChildGuard::spawn(
            "oteltap",
            Command::new(&binary)
                .args(["--port", &port.to_string()])
                .stdout(Stdio::piped())
                .stderr(Stdio::null()),
        );
        let stdout = guard.child_mut().stdout.take().expect("stdout is piped");
        let mut lines = BufReader::new(stdout).lines();
        let first = lines.next().and_then(Result::ok).unwrap_or_default();
        assert!(first.starts_with("Listening"), "oteltap printed {first:?}");
        let spans = Arc::new(Mutex::new(Vec::new()));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let (collected, raw_lines) = (Arc::clone(&spans), Arc::clone(&raw));
        std::thread::spawn(move || {
            // A line is in the raw list before its span is in the span list, so a test that has
            // waited for a span may read the raw lines that hold it.
            for line in lines.map_while(Result::ok) {
                let export = serde_json::from_str::<serde_json::Value>(&line).ok();
                raw_lines.lock().expect("raw lines").push(line);
                if let Some(export) = export {
                    collected
                        .lock()
                        .expect("span list")
                        .extend(span_of(&export));
                }
            }
        });
        Self {
            endpoint: format!("http://127.0.0.1:{port}"),
            spans,
            raw,
            _guard: guard,
        }
    }

    /// The spans received so far.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        self.spans.lock().expect("span list").clone()
    }

    /// Every line the receiver printed after its banner, for failure messages.
    pub fn raw_lines(&self) -> Vec<String> {
        self.raw.lock().expect("raw lines").clone()
    }

    /// Waits up to `timeout` for a span matching `wanted`.
    pub fn wait_for(
        &self,
        timeout: Duration,
        wanted: impl Fn(&ReceivedSpan) -> bool,
    ) -> Option<ReceivedSpan> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(span) = self.spans().into_iter().find(|span| wanted(span)) {
                return Some(span);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// oteltap prints each span as one line of protobuf JSON, ids already in hex (its resource is
/// not printed, so the service name is not known here).
fn span_of(line: &serde_json::Value) -> Option<ReceivedSpan> {
    Some(ReceivedSpan {
        name: line["name"].as_str()?.to_owned(),
        trace_id: line["traceId"].as_str()?.to_owned(),
        span_id: line["spanId"].as_str()?.to_owned(),
        parent_span_id: line["parentSpanId"].as_str().unwrap_or_default().to_owned(),
    })
}
