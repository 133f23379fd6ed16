//! One list+watch loop of one kind in one scope (ingresses, and beside them the kinds of
//! [`WatchedKind`]), under the same rules as every other call to the Kubernetes
//! API (specification sections 7 and 8):
//!
//! - It lists (page by page), then watches from the list's resourceVersion with bookmarks, and
//!   watches again from the last resourceVersion it saw whenever the API server ends a watch
//!   (its `timeoutSeconds`, a load balancer): that is routine, not a failure. A watch that ends
//!   before it delivered anything paces the next one with the retry waits, so a server that
//!   closes watches at once never gets a tight loop.
//! - 410 Gone (an `ERROR` event, an answer to the watch, or an expired continue token) makes it
//!   list again at once (paced by the retry waits when 410s repeat with nothing delivered in
//!   between): no failure, no retry counted; the hub diffs the new list against what clients
//!   have, so nothing is lost or sent twice.
//! - Transient errors (connection reset or refused, time-out, 429, 5xx, a watch that goes
//!   silent past its time-out) are retried with the policy's waits (1 s, 2 s, ... capped at
//!   30 s). When the attempts are used up, the scope is reported failed and the loop waits for
//!   the breaker (its open period, or until it lets a probe through) before it lists again.
//! - Permanent errors (401, 403, 404, other 4xx, an answer that cannot be read) are reported at
//!   once with what to check, and tried again only after `permanent_error_retry`.
//! - Every list page and every watch request is one attempt under the shared circuit breaker:
//!   an established watch is a success, a transient error a failure. An open breaker is no
//!   call: the loop waits until it lets one through (and reports the scope failed meanwhile).
//! - After any reported failure the loop lists again and, once a watch from that list is
//!   established, hands the list over, so the hub publishes `recovered` and every change missed
//!   meanwhile (a namespace whose lists work but whose watches fail stays failed).

use std::time::Duration;

use backon::ExponentialBackoff;
use futures_util::StreamExt;
use kube::api::WatchEvent;

use super::{NamespaceError, Scope};
use crate::kube::client::{ErrorClass, KubeError, SharedKubeApi};
use crate::kube::kind_calls;
use crate::kube::resilience::{CallError, Resilience};
use crate::kube::watched_kinds::{Object, WatchedKind};

/// The watchers' own settings (the retry policy and breaker are the [`Resilience`]'s).
#[derive(Debug, Clone)]
pub struct WatchSettings {
    /// How long a scope whose calls got a permanent error waits before it tries again.
    pub permanent_error_retry: Duration,
    /// A watch that sends nothing for this long (longer than its `timeoutSeconds`, after which
    /// the API server ends it) is a dead connection.
    pub idle_timeout: Duration,
}

/// What the loop tells its watcher task.
#[derive(Debug)]
pub enum Report {
    /// One page of a list as it arrives, to be turned into records and dropped (a large
    /// cluster's list is never held whole). `first`: a new list starts, and the pages of an
    /// earlier list that did not complete are void.
    Page {
        items: Vec<Object>,
        first: bool,
    },
    /// The list whose pages came is complete: what it did not hold is gone.
    Listed,
    Applied(Object),
    Deleted(Object),
    /// The scope failed; the loop tries again later by itself.
    Failed(NamespaceError),
}

/// What the loop does next.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Next {
    List,
    /// Watch from this resourceVersion.
    Watch(String),
}

/// How a watch ended.
enum WatchEnd {
    /// The server ended it; watch again from `resource_version`.
    Closed {
        resource_version: String,
        delivered: bool,
    },
    Failed {
        resource_version: String,
        error: CallError,
    },
    /// The receiver of the reports is gone.
    Stop,
}

pub struct WatchLoop {
    pub kind: WatchedKind,
    pub api: SharedKubeApi,
    pub resilience: Resilience,
    pub scope: Scope,
    pub settings: WatchSettings,
}

/// Transient failures in a row, and whether the scope is reported failed.
struct Episode {
    retries: ExponentialBackoff,
    /// The last transient error being retried, told if the breaker stops the retries.
    last_error: Option<KubeError>,
    /// Watches in a row that ended before delivering anything, or 410s in a row.
    pacing: ExponentialBackoff,
    /// A 410 came and no watch has delivered anything since.
    expired_since_progress: bool,
    reported: bool,
    /// A list made while the scope is reported failed (its pages went out): completed (with
    /// `recovered`) only once a watch from it is established, so a namespace whose lists work
    /// but whose watches fail stays failed instead of flapping between `error` and `recovered`.
    unreported_list: bool,
}

impl Episode {
    /// A call worked: later failures start their retries afresh.
    fn succeeded(&mut self, resilience: &Resilience) {
        self.retries = resilience.retries();
        self.last_error = None;
    }

    /// A watch delivered something: it works.
    fn progressed(&mut self, resilience: &Resilience) {
        self.succeeded(resilience);
        self.pacing = resilience.pacing();
        self.expired_since_progress = false;
    }
}

impl WatchLoop {
    /// Runs until `report` answers `false` (the hub is gone) or the task is aborted.
    pub async fn run(self, mut report: impl FnMut(Report) -> bool) {
        let mut next = Next::List;
        let mut episode = Episode {
            retries: self.resilience.retries(),
            last_error: None,
            pacing: self.resilience.pacing(),
            expired_since_progress: false,
            reported: false,
            unreported_list: false,
        };
        loop {
            let error = match next.clone() {
                Next::List => match self.list(&mut report).await {
                    Ok(Some(resource_version)) => {
                        episode.succeeded(&self.resilience);
                        if episode.reported {
                            episode.unreported_list = true;
                        } else if !report(Report::Listed) {
                            return;
                        }
                        next = Next::Watch(resource_version);
                        continue;
                    }
                    Ok(None) => return,
                    Err(error) => error,
                },
                Next::Watch(from) => match self.watch(from, &mut report, &mut episode).await {
                    WatchEnd::Stop => return,
                    WatchEnd::Closed {
                        resource_version,
                        delivered,
                    } => {
                        next = Next::Watch(resource_version);
                        restarted("closed");
                        if delivered {
                            episode.progressed(&self.resilience);
                        } else if let Some(wait) = episode.pacing.next() {
                            tokio::time::sleep(wait).await;
                        }
                        continue;
                    }
                    WatchEnd::Failed {
                        resource_version,
                        error,
                    } => {
                        next = Next::Watch(resource_version);
                        error
                    }
                },
            };
            if !self
                .after_error(error, &mut next, &mut episode, &mut report)
                .await
            {
                return;
            }
        }
    }

    /// Handles a failed call (waiting as the rules say); `false` when the hub is gone.
    async fn after_error(
        &self,
        error: CallError,
        next: &mut Next,
        episode: &mut Episode,
        report: &mut impl FnMut(Report) -> bool,
    ) -> bool {
        let scope = self.scope.label();
        let kube = match error {
            CallError::Kube(kube) => kube,
            CallError::CircuitOpen { retry_after } => {
                // No call was made; until one is let through the scope is not live. When the
                // breaker stopped this scope's own retries, their error is the one to tell.
                restarted("circuit_open");
                if !episode.reported {
                    let (error, retry_in) = match episode.last_error.take() {
                        Some(kube) => (CallError::Kube(kube), Some(retry_after)),
                        None => (CallError::CircuitOpen { retry_after }, None),
                    };
                    let error = self.failure(&error, retry_in);
                    if !report(Report::Failed(error)) {
                        return false;
                    }
                    episode.reported = true;
                    *next = Next::List;
                }
                tokio::time::sleep(retry_after).await;
                return true;
            }
        };
        if kube.is_expired() {
            tracing::debug!(scope, "resourceVersion expired (410); listing again");
            restarted("expired");
            *next = Next::List;
            // At once, unless nothing came through since the last 410: then paced, so a
            // history compacted faster than a list completes cannot make a tight loop.
            if std::mem::replace(&mut episode.expired_since_progress, true)
                && let Some(wait) = episode.pacing.next()
            {
                tokio::time::sleep(wait).await;
            }
            return true;
        }
        let transient = kube.class() == ErrorClass::Transient;
        if transient && let Some(wait) = episode.retries.next() {
            restarted("retry");
            let call = if *next == Next::List {
                self.kind.list_call()
            } else {
                self.kind.watch_call()
            };
            metrics::counter!("ingress_dash_kubernetes_retries_total", "call" => call).increment(1);
            tracing::info!(scope, error = %kube, ?wait, call, "retrying a Kubernetes API call");
            episode.last_error = Some(kube);
            tokio::time::sleep(wait).await;
            return true;
        }
        let (wait, reason) = if transient {
            (self.resilience.after_failed_attempts(), "failed")
        } else {
            (self.settings.permanent_error_retry, "permanent")
        };
        restarted(reason);
        let error = self.failure(&CallError::Kube(kube), Some(wait));
        if !report(Report::Failed(error)) {
            return false;
        }
        episode.reported = true;
        episode.succeeded(&self.resilience);
        *next = Next::List;
        tokio::time::sleep(wait).await;
        true
    }

    /// What the report of a failure says: for ingresses, the namespace's error; for the other
    /// kinds, whose failure only degrades what is shown, what cannot be read and why.
    fn failure(&self, error: &CallError, retry_in: Option<Duration>) -> NamespaceError {
        let mut failure = NamespaceError::from_call(&self.scope, error, retry_in);
        if self.kind != WatchedKind::Ingresses {
            let place = match self.scope.namespace() {
                Some(namespace) => format!("in {namespace}"),
                None => "cluster-wide".to_owned(),
            };
            failure.message = self.kind.failure_message(&place, error);
        }
        failure
    }

    /// Lists the scope's objects of this kind, reporting each page as it arrives; the list's
    /// resourceVersion (`None`: the receiver of the reports is gone).
    async fn list(
        &self,
        report: &mut impl FnMut(Report) -> bool,
    ) -> Result<Option<String>, CallError> {
        let mut continue_token = None;
        let mut first = true;
        loop {
            let namespace = self.scope.namespace();
            let token = continue_token.take();
            let page = self
                .resilience
                .attempt(|| kind_calls::list_page(&*self.api, self.kind, namespace, token))
                .await?;
            if !report(Report::Page {
                items: page.items,
                first,
            }) {
                return Ok(None);
            }
            first = false;
            match page.continue_token {
                Some(token) => continue_token = Some(token),
                None => return Ok(Some(page.resource_version)),
            }
        }
    }

    /// One watch from `from`, its changes reported as they come.
    async fn watch(
        &self,
        from: String,
        report: &mut impl FnMut(Report) -> bool,
        episode: &mut Episode,
    ) -> WatchEnd {
        let namespace = self.scope.namespace();
        let established = self
            .resilience
            .attempt(|| kind_calls::watch(&*self.api, self.kind, namespace, from.clone()))
            .await;
        let mut events = match established {
            Ok(events) => events,
            Err(error) => {
                return WatchEnd::Failed {
                    resource_version: from,
                    error,
                };
            }
        };
        // The scope works again: the list the watch starts from ends its failure.
        if std::mem::take(&mut episode.unreported_list) {
            episode.reported = false;
            if !report(Report::Listed) {
                return WatchEnd::Stop;
            }
        }
        let mut resource_version = from;
        let mut delivered = false;
        loop {
            let event = match tokio::time::timeout(self.settings.idle_timeout, events.next()).await
            {
                Err(_) => Err(KubeError::Timeout(self.settings.idle_timeout)),
                Ok(None) => {
                    return WatchEnd::Closed {
                        resource_version,
                        delivered,
                    };
                }
                Ok(Some(event)) => event,
            };
            let report_went = match event {
                Err(error) => {
                    // A line that cannot be read in the middle of a watch is a broken
                    // connection, retried; the list that follows a failure tells whether the
                    // answers themselves are unreadable.
                    let error = match error {
                        KubeError::BadAnswer(cause) => KubeError::Unreachable(cause),
                        other => other,
                    };
                    return WatchEnd::Failed {
                        resource_version,
                        error: CallError::Kube(error),
                    };
                }
                Ok(WatchEvent::Error(status)) => {
                    return WatchEnd::Failed {
                        resource_version,
                        error: CallError::Kube(KubeError::Api {
                            status: status.code,
                            reason: status.reason,
                            message: status.message,
                        }),
                    };
                }
                Ok(WatchEvent::Bookmark(bookmark)) => {
                    resource_version = bookmark.metadata.resource_version;
                    true
                }
                Ok(WatchEvent::Added(object) | WatchEvent::Modified(object)) => {
                    advance(&mut resource_version, &object);
                    report(Report::Applied(object))
                }
                Ok(WatchEvent::Deleted(object)) => {
                    advance(&mut resource_version, &object);
                    report(Report::Deleted(object))
                }
            };
            if !report_went {
                return WatchEnd::Stop;
            }
            // The watch works: a later failure starts its retries afresh.
            delivered = true;
            episode.progressed(&self.resilience);
        }
    }
}

/// The resourceVersion to watch from after `object`'s event.
fn advance(resource_version: &mut String, object: &Object) {
    if let Some(version) = object.resource_version() {
        *resource_version = version.to_owned();
    }
}

fn restarted(reason: &'static str) {
    metrics::counter!("ingress_dash_watch_restarts_total", "reason" => reason).increment(1);
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod kinds_tests;
