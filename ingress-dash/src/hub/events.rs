//! What the hub publishes and serves: scopes, events, namespace errors and snapshots.

use std::sync::Arc;
use std::time::Duration;

use actix_web::web::Bytes;
use serde::Serialize;

use crate::hub::selection::Selection;
use crate::kube::client::ErrorClass;
use crate::kube::resilience::CallError;
use crate::records::StoredRecord;

/// What one watcher watches.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Scope {
    Cluster,
    Namespace(String),
}

impl Scope {
    /// The namespace name its errors carry (`*` for the whole cluster).
    pub fn label(&self) -> &str {
        match self {
            Scope::Cluster => "*",
            Scope::Namespace(namespace) => namespace,
        }
    }

    /// The namespace its API calls name (`None`: every namespace).
    pub fn namespace(&self) -> Option<String> {
        match self {
            Scope::Cluster => None,
            Scope::Namespace(namespace) => Some(namespace.clone()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventKind {
    Added,
    Modified,
    Deleted,
    Error,
    /// A watcher that had failed works again; clients clear that namespace's error.
    Recovered,
}

impl EventKind {
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Added => "added",
            EventKind::Modified => "modified",
            EventKind::Deleted => "deleted",
            EventKind::Error => "error",
            EventKind::Recovered => "recovered",
        }
    }
}

/// `NamespaceError` of the API contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(serde::Deserialize, ts_rs::TS))]
pub struct NamespaceError {
    pub namespace: String,
    pub code: String,
    pub message: String,
    /// The HTTP status the Kubernetes API answered, when it answered one (403, 503, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, serde(default), ts(optional))]
    pub status: Option<u16>,
}

impl NamespaceError {
    /// The error of `scope`'s failed call, with what a person should check and, when known,
    /// when the dashboard tries again.
    pub fn from_call(scope: &Scope, error: &CallError, retry_in: Option<Duration>) -> Self {
        let mut message = error.to_string();
        let mut status = None;
        if let CallError::Kube(error) = error {
            status = error.status();
            if let Some(advice) = error.advice(scope.namespace().as_deref()) {
                message.push(' ');
                message.push_str(&advice);
            }
            if let Some(retry_in) = retry_in {
                // Whole seconds: "59s", not "59s 988ms 463us".
                let retry_in = if retry_in >= Duration::from_secs(1) {
                    Duration::from_secs(retry_in.as_secs_f64().ceil() as u64)
                } else {
                    Duration::from_millis(retry_in.as_millis() as u64)
                };
                let when = humantime_serde::re::humantime::format_duration(retry_in);
                message.push_str(&match error.class() {
                    ErrorClass::Permanent => format!(
                        " Not retried for {when} (kubernetes.permanent_error_retry), or until \
                         ingress-dash restarts."
                    ),
                    ErrorClass::Transient => format!(" Retrying in {when}."),
                });
            }
        }
        Self {
            namespace: scope.label().to_owned(),
            code: error.code().to_owned(),
            message,
            status,
        }
    }
}

/// `Snapshot` of the API contract. Its items are stored records, written as the JSON of
/// their [`IngressRecord`](crate::records::IngressRecord)s; a snapshot body is written by hand
/// (`snapshot_body`), and its tests parse those bytes back into this type.
#[derive(Debug, Clone, Default, Serialize)]
#[cfg_attr(test, derive(serde::Deserialize, ts_rs::TS))]
#[cfg_attr(test, serde(deny_unknown_fields))]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    #[cfg_attr(test, ts(as = "Vec<crate::records::IngressRecord>"))]
    pub items: Vec<Arc<StoredRecord>>,
    pub errors: Vec<NamespaceError>,
    /// Notices about the whole installation the web app shows once, above the table (e.g. the
    /// Gateway API is not installed, so HTTPRoutes are not shown). Not errors: nothing failed.
    pub notices: Vec<Notice>,
    /// `certificates.expiry_warning_days`: the web app's default for "certificate expires
    /// within N days".
    pub expiry_warning_days: u32,
    /// The id of the last stream event whose effect this snapshot shows: a client opens the
    /// stream with `lastEventId` set to it and gets every later change exactly once. Only in
    /// `GET /api/ingresses` bodies made from the watchers' memory with every watcher of the
    /// selection past its first list, and without `search` (the stream has no search).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, serde(default), ts(optional))]
    pub event_id: Option<u64>,
    /// The position of the hub's state the snapshot was made at (`Hub::position`), when it was
    /// made from the watchers' memory: what the gzip body cache is keyed by. Not on the wire.
    #[serde(skip)]
    pub position: Option<u64>,
}

/// A notice about the installation (not a namespace's failure).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(serde::Deserialize, ts_rs::TS))]
pub struct Notice {
    /// Stable, snake_case: `gateway_api_not_installed`.
    pub code: String,
    /// One sentence for people.
    pub message: String,
}

/// What every snapshot carries beside its items and errors.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SnapshotInfo {
    pub notices: Vec<Notice>,
    pub expiry_warning_days: u32,
}

impl Snapshot {
    /// An empty snapshot carrying `info`.
    pub fn with_info(info: &SnapshotInfo) -> Self {
        Self {
            notices: info.notices.clone(),
            expiry_warning_days: info.expiry_warning_days,
            ..Self::default()
        }
    }
}

/// Data of a `recovered` event: the failed watcher of `namespace` works again.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RecoveredNotice<'a> {
    pub namespace: &'a str,
}

/// Data of a `resync` event: why the client gets a fresh snapshot instead of the missed events.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ResyncNotice<'a> {
    pub reason: &'a str,
}

impl Snapshot {
    /// Items in the contract's order: by namespace, then name (an ingress before an HTTPRoute
    /// of the same name).
    pub fn sort(&mut self) {
        self.items
            .sort_by(|a, b| (&a.namespace, &a.name, a.kind).cmp(&(&b.namespace, &b.name, b.kind)));
    }
}

/// One published event, its data already serialised once for every client.
#[derive(Debug)]
pub struct HubEvent {
    pub id: u64,
    pub scope: Scope,
    pub namespace: String,
    pub kind: EventKind,
    pub data: Bytes,
    /// The whole SSE frame (`event:`, `id:`, `data:`), built by the first client that writes
    /// the event and shared by the others.
    pub frame: std::sync::OnceLock<Bytes>,
}

impl HubEvent {
    /// Whether this event belongs to a client of `scopes` and `selection`.
    pub fn is_for(&self, scopes: &[Scope], selection: &Selection) -> bool {
        scopes.contains(&self.scope)
            && (matches!(self.kind, EventKind::Error | EventKind::Recovered)
                || selection.contains(&self.namespace))
    }
}

/// What a stream client gets when it (re)connects.
pub enum Start {
    /// A `snapshot` event, after a `resync` event when a resume was asked for but the missed
    /// events are gone.
    Snapshot {
        resync_id: Option<u64>,
        id: u64,
        snapshot: Snapshot,
    },
    Replay(Vec<Arc<HubEvent>>),
}
