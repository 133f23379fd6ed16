//! The audit log: one JSON line per state-changing request (relay calls outside the read-only
//! set, the allocation lock, every management route, the metrics server validation, which
//! makes the console call a URL the caller chose), refused ones included. Each event goes to
//! the logs (tracing target `audit`) and, with `audit.file`, is appended to that file by a
//! background thread, so a slow or full disk never holds a request up: when the writer falls
//! behind, events for the file are dropped and counted. Bodies and credentials never go in; a
//! change on a production cluster carries the reason its caller gave.

use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use serde::Serialize;

use crate::config::AuditSettings;

/// Events waiting for the file writer at most.
const QUEUE: usize = 8192;

/// How the request ended, for the counter's `outcome` label.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Outcome {
    /// Answered below 400.
    Success,
    /// Let through, answered 400 or more (by the console or the cluster).
    Failure,
    /// Refused by the access rules (403).
    Denied,
}

impl Outcome {
    pub(crate) fn of_status(status: u16) -> Self {
        if status < 400 {
            Self::Success
        } else {
            Self::Failure
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Failure => "failure",
            Self::Denied => "denied",
        }
    }
}

/// One audit event, as written (field order kept).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AuditEvent<'a> {
    /// RFC 3339, UTC, milliseconds.
    pub(crate) time: String,
    /// `null` in open mode (anonymous).
    pub(crate) user: Option<&'a str>,
    pub(crate) groups: &'a [String],
    /// The client's address (behind `server.trusted_proxies`).
    pub(crate) source: Option<String>,
    /// `null` for a call on no cluster (the metrics server validation).
    pub(crate) cluster: Option<&'a str>,
    pub(crate) method: &'a str,
    /// Path and query as received; never the body.
    pub(crate) path: &'a str,
    pub(crate) status: u16,
    pub(crate) outcome: Outcome,
    /// The caller's role on the cluster.
    pub(crate) role: &'static str,
    /// Until the answer's head (a relayed body streams on afterwards).
    pub(crate) duration_ms: u64,
    pub(crate) request_id: &'a str,
    /// The URL the console was made to call (the metrics server validation), without
    /// credentials; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) url: Option<&'a str>,
    /// What that call found (`success`, `no_data`, `error`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) result: Option<&'a str>,
    /// The caller's reason for a change on a production cluster (`X-Change-Reason`, checked:
    /// one line of plain text, at most 500 characters); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<&'a str>,
}

/// Where events go: the logs always, the file when configured.
pub(crate) struct AuditLog {
    file: Option<SyncSender<String>>,
}

impl AuditLog {
    /// Opens `audit.file` (append, created when missing) once, and starts its writer thread.
    pub(crate) fn new(settings: &AuditSettings) -> anyhow::Result<Self> {
        let Some(path) = &settings.file else {
            return Ok(Self { file: None });
        };
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("cannot open audit.file {}", path.display()))?;
        let (sender, receiver) = sync_channel(QUEUE);
        std::thread::Builder::new()
            .name("audit-file".to_owned())
            .spawn(move || write_lines(file, receiver))
            .context("cannot start the audit file writer")?;
        Ok(Self { file: Some(sender) })
    }

    /// Records `event`: the log line, the counter and the file.
    pub(crate) fn record(&self, event: &AuditEvent<'_>) {
        metrics::counter!(
            "admin_console_audit_events_total",
            "cluster" => event.cluster.unwrap_or_default().to_owned(),
            "outcome" => event.outcome.as_str()
        )
        .increment(1);
        tracing::info!(
            target: "audit",
            user = event.user,
            groups = ?event.groups,
            source = event.source.as_deref(),
            cluster = event.cluster,
            method = event.method,
            path = event.path,
            status = event.status,
            outcome = event.outcome.as_str(),
            role = event.role,
            duration_ms = event.duration_ms,
            request_id = event.request_id,
            url = event.url,
            result = event.result,
            reason = event.reason,
            "audit"
        );
        let Some(file) = &self.file else {
            return;
        };
        let line = match serde_json::to_string(event) {
            Ok(line) => line,
            Err(error) => {
                write_failed(&format!("cannot encode the event: {error}"));
                return;
            }
        };
        match file.try_send(line) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => write_failed("the writer is behind; event dropped"),
            Err(TrySendError::Disconnected(_)) => write_failed("the writer stopped"),
        }
    }
}

fn write_failed(reason: &str) {
    metrics::counter!("admin_console_audit_write_errors_total").increment(1);
    tracing::error!(reason, "audit.file: an event was not written");
}

/// Appends each line, flushing when the queue is empty (one `write` per burst).
fn write_lines(file: File, lines: Receiver<String>) {
    let mut out = BufWriter::new(file);
    while let Ok(first) = lines.recv() {
        let mut next = Some(first);
        while let Some(line) = next {
            if let Err(error) = writeln!(out, "{line}") {
                write_failed(&error.to_string());
            }
            next = lines.try_recv().ok();
        }
        if let Err(error) = out.flush() {
            write_failed(&error.to_string());
        }
    }
}

/// `text` as a URL for the audit log: without user name and password, at most 512 characters;
/// `(not an http URL)` when it is not one (it is not written as given: it may hold a secret).
pub(crate) fn url_for_audit(text: &str) -> String {
    let url = reqwest::Url::parse(text)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https"));
    let Some(mut url) = url else {
        return "(not an http URL)".to_owned();
    };
    // Both fail only for URLs that cannot have credentials.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.as_str().chars().take(512).collect()
}

/// `2026-11-24T01:02:03.456Z`.
pub(crate) fn rfc3339_now() -> String {
    let since = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(since.as_secs(), since.subsec_millis())
}

fn rfc3339(seconds: u64, millis: u32) -> String {
    let days = (seconds / 86_400) as i64;
    let in_day = seconds % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        in_day / 3600,
        in_day % 3600 / 60,
        in_day % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(951_782_400, 5), "2000-02-29T00:00:00.005Z");
        assert_eq!(rfc3339(1_795_482_123, 456), "2026-11-24T01:02:03.456Z");
    }

    #[test]
    fn events_are_one_json_line_with_every_field() {
        let groups = vec!["ops".to_owned()];
        let event = AuditEvent {
            time: rfc3339(0, 0),
            user: Some("alice\nforged"),
            groups: &groups,
            source: Some("192.0.2.1".to_owned()),
            cluster: Some("prod"),
            method: "POST",
            path: "/api/clusters/prod/proxy/logs/_close?x=1",
            status: 403,
            outcome: Outcome::Denied,
            role: "viewer",
            duration_ms: 3,
            request_id: "r1",
            url: None,
            result: None,
            reason: None,
        };
        let line = serde_json::to_string(&event).unwrap();
        assert!(!line.contains('\n'), "{line}");
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        for key in [
            "time",
            "user",
            "groups",
            "source",
            "cluster",
            "method",
            "path",
            "status",
            "duration_ms",
            "request_id",
        ] {
            assert!(value.get(key).is_some(), "{key}");
        }
        assert_eq!(value["outcome"], "denied");
        assert!(value.get("url").is_none(), "only for calls to a URL");
        assert!(value.get("reason").is_none(), "only for production changes");
    }

    #[test]
    fn urls_are_recorded_without_credentials() {
        assert_eq!(
            url_for_audit("http://user:pass@127.0.0.1:9090/prom?x=1"),
            "http://127.0.0.1:9090/prom?x=1"
        );
        assert_eq!(url_for_audit("https://a.example"), "https://a.example/");
        assert_eq!(url_for_audit("user:s3cret@host"), "(not an http URL)");
        assert_eq!(url_for_audit("not a url: s3cret"), "(not an http URL)");
        assert_eq!(
            url_for_audit(&format!("http://h/{}", "a".repeat(900))).len(),
            512
        );
    }
}
