//! The watchers under the resilience rules, against the real API server through the fault
//! proxy (`real_kube::spawn_proxied`): transient failures retried with backoff, used-up
//! attempts reported and resumed on the breaker's schedule, permanent errors reported with their
//! status and retried only after `kubernetes.permanent_error_retry`, 410 and dropped connections
//! resynced without a lost or duplicated update. Each test keeps to a namespace of its own on
//! the shared cluster; counts of calls come from the proxy; waits have deadlines.

mod watches;

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::app::{SseEvent, SseReader};
use crate::real_kube::Real;

/// One client's view: `namespace/name` → resourceVersion, built from the snapshot and the events
/// after it; the first broken rule (a duplicate add or update, an unknown modify or delete).
#[derive(Debug, Default)]
pub struct View {
    pub records: BTreeMap<String, String>,
    pub violation: Option<String>,
    /// Every event name received, in order.
    pub events: Vec<String>,
}

impl View {
    pub fn apply(&mut self, event: &SseEvent) {
        self.events.push(event.event.clone());
        let key = |record: &Value| {
            format!(
                "{}/{}",
                record["namespace"].as_str().unwrap_or_default(),
                record["name"].as_str().unwrap_or_default()
            )
        };
        let version = |record: &Value| {
            record["resourceVersion"]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        let data = &event.data;
        let problem = match event.event.as_str() {
            "snapshot" => {
                self.records.clear();
                for record in data["items"].as_array().into_iter().flatten() {
                    self.records.insert(key(record), version(record));
                }
                None
            }
            "added" => self
                .records
                .insert(key(data), version(data))
                .map(|_| format!("duplicate add of {}", key(data))),
            "modified" => match self.records.insert(key(data), version(data)) {
                None => Some(format!("modify of unknown {}", key(data))),
                Some(old) if old == version(data) => {
                    Some(format!("duplicate update of {} ({old})", key(data)))
                }
                Some(_) => None,
            },
            "deleted" => self
                .records
                .remove(&key(data))
                .is_none()
                .then(|| format!("delete of unknown {}", key(data))),
            _ => None,
        };
        if self.violation.is_none() {
            self.violation = problem;
        }
    }

    /// Reads `stream` into the view until `done` holds, failing after `seconds`; the events read.
    pub async fn read_until(
        &mut self,
        stream: &mut SseReader,
        seconds: u64,
        what: &str,
        mut done: impl FnMut(&View) -> bool,
    ) -> Vec<SseEvent> {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(seconds);
        let mut read = Vec::new();
        while !done(self) {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            let Some(event) = stream.next_event(left).await else {
                panic!("{what}: not within {seconds} s; view {self:#?}");
            };
            self.apply(&event);
            read.push(event);
        }
        read
    }
}

/// The cluster's ingresses in `namespace`: `namespace/name` → resourceVersion.
pub async fn server_state(kube: &Real, namespace: &str) -> BTreeMap<String, String> {
    kube.ingress_versions(&[namespace]).await
}
