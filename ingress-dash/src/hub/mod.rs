//! Shared watchers and the event log every stream client reads.
//!
//! One watcher (a list+watch loop under the retry policy and the circuit breaker, see
//! [`watch_loop`]) runs per watched scope (a namespace, or the whole cluster), however many
//! clients want it; it stops a grace period after its last subscriber left. Each change
//! gets a global, monotonic id and goes into a bounded replay buffer (for `Last-Event-ID`) and a
//! bounded broadcast channel (a client too slow to keep up lags and is resynced, so it never
//! blocks the others nor grows memory). Events are published under the hub's lock, which is also
//! held while a client takes its snapshot and subscribes, so a snapshot plus the events after it
//! is exactly the state.
//!
//! The transitions themselves (list, change, delete, failure → events) are in [`machine`], with
//! no task or lock; this module runs the watcher tasks, the grace timers and the channels.

mod discovery;
mod events;
mod expiry_metric;
mod join;
mod machine;
pub mod selection;
mod watch_loop;
mod watcher_task;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use tokio::sync::{broadcast, watch};

pub use discovery::Discovered;
/// Stream tests build events by hand.
#[cfg(test)]
pub use events::EventKind;
/// The `recovered` event's data is written by the machine; the wire types test names it.
#[cfg(test)]
pub use events::RecoveredNotice;
pub use events::{
    HubEvent, NamespaceError, Notice, ResyncNotice, Scope, Snapshot, SnapshotInfo, Start,
};
pub use watch_loop::WatchSettings;

use crate::access::redaction::Redaction;
use crate::hub::expiry_metric::ExpiryGauges;
use crate::hub::selection::Selection;
use crate::kube::client::SharedKubeApi;
use crate::kube::resilience::Resilience;
use crate::kube::watched_kinds::WatchedKind;
use machine::{Input, Machine};

/// A running watcher task and who holds it.
struct Watcher {
    subscribers: usize,
    /// Flips to true once the first list completed or failed.
    settled: watch::Sender<bool>,
    /// When the last page of the first lists arrived (or the watcher started).
    progress: watch::Sender<tokio::time::Instant>,
    task: tokio::task::JoinHandle<()>,
    /// Bumped on every release, so a stale grace timer does nothing.
    generation: u64,
}

struct State {
    machine: Machine,
    watchers: HashMap<Scope, Watcher>,
}

#[derive(Clone)]
pub struct HubSettings {
    pub grace_period: Duration,
    pub replay_buffer: usize,
    pub client_buffer: usize,
    /// Configured namespaces (namespace-scoped install); empty: cluster-wide.
    pub namespaces: Vec<String>,
    /// Watchers running at once, over every client.
    pub max_watchers: usize,
    /// Applied to every record before it is stored.
    pub redaction: Arc<Redaction>,
    /// The retry policy and the circuit breaker, shared with the list calls.
    pub resilience: Resilience,
    pub watch: WatchSettings,
    /// What is read beside ingresses.
    pub features: Features,
}

/// What is read beside ingresses (`backends:`, `certificates:`, `gateway_api:`).
#[derive(Debug, Clone, Copy)]
pub struct Features {
    /// Services and EndpointSlices.
    pub backends: bool,
    /// `kubernetes.io/tls` Secrets.
    pub read_secrets: bool,
    /// Detect and read cert-manager Certificates.
    pub cert_manager: bool,
    /// Detect and show HTTPRoutes.
    pub gateway_api: bool,
    /// `certificates.expiry_warning_days`, carried by every snapshot.
    pub expiry_warning_days: u32,
}

impl Default for Features {
    fn default() -> Self {
        Self {
            backends: true,
            read_secrets: false,
            cert_manager: true,
            gateway_api: true,
            expiry_warning_days: 14,
        }
    }
}

/// How long a new client waits at most for first lists that keep making progress.
pub const FIRST_LIST_WAIT: Duration = Duration::from_secs(30);

/// Starting the watchers a request needs would exceed `kubernetes.max_watchers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("at most {max} watchers may run at once")]
pub struct WatcherLimit {
    pub max: usize,
    /// When idle watchers will have stopped: the grace period.
    pub retry_after: Duration,
}

impl From<WatcherLimit> for crate::error::Error {
    fn from(limit: WatcherLimit) -> Self {
        Self::TooManyWatchers {
            max: limit.max,
            retry_after: limit.retry_after,
        }
    }
}

pub struct Hub {
    api: SharedKubeApi,
    settings: HubSettings,
    /// Which CRDs the API server serves, kept by the discovery task.
    discovered: watch::Sender<Discovered>,
    /// The certificate expiry series, written into `/_metrics`.
    expiry: Arc<ExpiryGauges>,
    state: Mutex<State>,
    events: broadcast::Sender<Arc<HubEvent>>,
    this: Weak<Hub>,
}

/// A client's hold on the watchers of its scopes; releasing starts their grace period.
pub struct Subscription {
    hub: Arc<Hub>,
    pub scopes: Vec<Scope>,
}

impl Drop for Subscription {
    fn drop(&mut self) {
        self.hub.release(&self.scopes);
    }
}

impl Hub {
    pub(crate) fn new(api: SharedKubeApi, settings: HubSettings) -> Arc<Self> {
        let (events, _) = broadcast::channel(settings.client_buffer.max(1));
        // Ids start at the start time in microseconds, so they also grow across restarts and
        // an id from an earlier process is simply too old to resume from.
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_micros() as u64);
        let mut machine = Machine::new(epoch, settings.replay_buffer);
        machine.info.expiry_warning_days = settings.features.expiry_warning_days;
        let expiry = Arc::new(ExpiryGauges::default());
        let metrics_text: Arc<dyn service_kit::metrics::MetricsText> = expiry.clone();
        service_kit::metrics::add_metrics_text(Arc::downgrade(&metrics_text));
        let hub = Arc::new_cyclic(|this| Hub {
            discovered: watch::Sender::new(Discovered::default()),
            expiry,
            api,
            state: Mutex::new(State {
                machine,
                watchers: HashMap::new(),
            }),
            settings,
            events,
            this: this.clone(),
        });
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::spawn(discovery::run(Arc::downgrade(&hub)));
        }
        hub
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn arc(&self) -> Arc<Hub> {
        self.this.upgrade().expect("the hub is alive while used")
    }

    /// The watcher scopes serving `selection`. A limited user's "all" (`Visible`) is served by
    /// the watchers everyone's "all" uses (the cluster-wide one, or the configured namespaces
    /// it may see), filtered: views never get watchers of their own.
    pub(crate) fn scopes_for(&self, selection: &Selection) -> Vec<Scope> {
        match (selection, self.settings.namespaces.is_empty()) {
            (Selection::All, true) => vec![Scope::Cluster],
            (Selection::Visible(filter), true) if filter.is_empty() => Vec::new(),
            (Selection::Visible(_), true) => vec![Scope::Cluster],
            (Selection::All | Selection::Visible(_), false) => self
                .settings
                .namespaces
                .iter()
                .filter(|namespace| selection.contains(namespace))
                .map(|namespace| Scope::Namespace(namespace.clone()))
                .collect(),
            (Selection::Only(namespaces), _) => namespaces
                .iter()
                .map(|namespace| Scope::Namespace(namespace.clone()))
                .collect(),
        }
    }

    /// Holds (and starts where needed) the watchers of `selection`, all or none: when the new
    /// ones would exceed `max_watchers`, nothing starts. Idle watchers (in their grace period)
    /// are not stopped early to make room: that would let a client with many real namespaces
    /// churn watchers (a list and a watch each) as fast as its rate limit allows, while waiting
    /// for them bounds the starts to `max_watchers` per grace period.
    pub(crate) fn subscribe(&self, selection: &Selection) -> Result<Subscription, WatcherLimit> {
        let scopes = self.scopes_for(selection);
        let mut state = self.lock();
        let missing = scopes
            .iter()
            .filter(|scope| !state.watchers.contains_key(scope))
            .count();
        let max = self.settings.max_watchers;
        if state.watchers.len() + missing > max {
            drop(state);
            metrics::counter!("ingress_dash_watchers_refused_total").increment(1);
            tracing::warn!(
                max,
                wanted = missing,
                "watcher limit reached; request refused"
            );
            return Err(WatcherLimit {
                max,
                retry_after: self.settings.grace_period,
            });
        }
        for scope in &scopes {
            if !state.watchers.contains_key(scope) {
                state.machine.watch(scope.clone());
                let watcher = self.start_watcher(scope.clone());
                state.watchers.insert(scope.clone(), watcher);
            }
            let watcher = state.watchers.get_mut(scope).expect("inserted above");
            watcher.subscribers += 1;
            watcher.generation += 1;
        }
        drop(state);
        self.update_watcher_gauge();
        Ok(Subscription {
            hub: self.arc(),
            scopes,
        })
    }

    fn start_watcher(&self, scope: Scope) -> Watcher {
        tracing::info!(scope = scope.label(), "starting watcher");
        let (settled, _) = watch::channel(false);
        let (progress, _) = watch::channel(tokio::time::Instant::now());
        let features = self.settings.features;
        let mut kinds = Vec::new();
        if features.backends {
            kinds.extend([WatchedKind::Services, WatchedKind::EndpointSlices]);
        }
        if features.read_secrets {
            kinds.push(WatchedKind::Secrets);
        }
        let plan = watcher_task::Plan {
            api: self.api.clone(),
            resilience: self.settings.resilience.clone(),
            settings: self.settings.watch.clone(),
            redaction: self.settings.redaction.clone(),
            kinds,
            gateway_api: features.gateway_api,
            cert_manager: features.cert_manager,
            discovered: self.discovered.subscribe(),
            expiry: self.expiry.clone(),
        };
        let task = tokio::spawn(watcher_task::run(self.this.clone(), scope, plan));
        Watcher {
            subscribers: 0,
            settled,
            progress,
            task,
            generation: 0,
        }
    }

    /// Applies what the watcher of `scope` reported and broadcasts the events, under the lock.
    fn handle(&self, scope: &Scope, input: Input) {
        let mut state = self.lock();
        let events = state.machine.handle(scope, input);
        if state.machine.is_settled(scope)
            && let Some(watcher) = state.watchers.get(scope)
        {
            watcher.settled.send_replace(true);
        }
        for event in events {
            // No receiver is not an error: nobody is connected.
            let _ = self.events.send(event);
        }
    }

    fn release(&self, scopes: &[Scope]) {
        let mut state = self.lock();
        for scope in scopes {
            let Some(watcher) = state.watchers.get_mut(scope) else {
                continue;
            };
            watcher.subscribers = watcher.subscribers.saturating_sub(1);
            watcher.generation += 1;
            if watcher.subscribers == 0 {
                let (hub, scope, generation) =
                    (self.this.clone(), scope.clone(), watcher.generation);
                let grace = self.settings.grace_period;
                tokio::spawn(async move {
                    tokio::time::sleep(grace).await;
                    if let Some(hub) = hub.upgrade() {
                        hub.stop_if_idle(&scope, generation);
                    }
                });
            }
        }
    }

    fn stop_if_idle(&self, scope: &Scope, generation: u64) {
        let mut state = self.lock();
        let idle = state
            .watchers
            .get(scope)
            .is_some_and(|watcher| watcher.subscribers == 0 && watcher.generation == generation);
        if idle && let Some(watcher) = state.watchers.remove(scope) {
            tracing::info!(scope = scope.label(), "stopping idle watcher");
            state.machine.forget(scope);
            watcher.task.abort();
            self.expiry.forget(scope.label());
        }
        drop(state);
        self.update_watcher_gauge();
    }

    fn update_watcher_gauge(&self) {
        metrics::gauge!("ingress_dash_watchers").set(self.watcher_count() as f64);
    }

    /// Watchers running now.
    pub fn watcher_count(&self) -> usize {
        self.lock().watchers.len()
    }

    /// A page of the first list of `scope` arrived (see [`Hub::wait_settled`]).
    pub(super) fn first_list_progressed(&self, scope: &Scope) {
        if let Some(watcher) = self.lock().watchers.get(scope) {
            watcher.progress.send_replace(tokio::time::Instant::now());
        }
    }

    /// Waits until every scope finished its first list (or failed): as long as their first
    /// lists make progress (a page at least every `quiet`), at most [`FIRST_LIST_WAIT`] in all.
    /// A large cluster's first list takes longer than `quiet`, and its first client should get
    /// the records rather than an empty `syncing` snapshot.
    pub(crate) async fn wait_settled(&self, scopes: &[Scope], quiet: Duration) {
        let (settled, progress): (Vec<watch::Receiver<bool>>, Vec<_>) = {
            let state = self.lock();
            scopes
                .iter()
                .filter_map(|scope| state.watchers.get(scope))
                .map(|watcher| (watcher.settled.subscribe(), watcher.progress.subscribe()))
                .unzip()
        };
        let all =
            futures_util::future::join_all(settled.into_iter().map(|mut receiver| async move {
                let _ = receiver.wait_for(|settled| *settled).await;
            }));
        tokio::pin!(all);
        let started = tokio::time::Instant::now();
        let deadline = started + FIRST_LIST_WAIT.max(quiet);
        let last_page = || {
            progress
                .iter()
                .map(|receiver| *receiver.borrow())
                .max()
                .unwrap_or(started)
                .max(started)
        };
        loop {
            let seen = last_page();
            tokio::select! {
                _ = &mut all => return,
                _ = tokio::time::sleep_until((seen + quiet).min(deadline)) => {
                    if tokio::time::Instant::now() >= deadline || last_page() == seen {
                        return;
                    }
                }
            }
        }
    }

    /// Whether every scope of `selection` has completed its first list and works now.
    pub(crate) fn is_ready(&self, selection: &Selection) -> bool {
        let state = self.lock();
        self.scopes_for(selection)
            .iter()
            .all(|scope| state.machine.is_ready(scope))
    }

    /// Whether every scope of `selection` has a watcher that has listed (or failed).
    pub(crate) fn is_settled(&self, selection: &Selection) -> bool {
        let state = self.lock();
        self.scopes_for(selection)
            .iter()
            .all(|scope| state.machine.is_settled(scope))
    }

    /// The current snapshot of `selection` from the watchers' memory, with its position and,
    /// when a stream may resume from it (and there is no `search`), its `eventId`.
    pub(crate) fn snapshot(&self, selection: &Selection, search: Option<&str>) -> Snapshot {
        let scopes = self.scopes_for(selection);
        let mut state = self.lock();
        let mut snapshot = state.machine.snapshot(&scopes, selection, search);
        let position = state.machine.position(&scopes);
        snapshot.position = position.map(|position| position.id);
        snapshot.event_id = position
            .filter(|position| position.resumable && search.is_none())
            .map(|position| position.id);
        snapshot
    }

    /// Where the state of `selection` stands: the same position means the same snapshot (the
    /// gzip body cache's key). `None` while one of its watchers has not listed yet.
    pub(crate) fn position(&self, selection: &Selection) -> Option<u64> {
        let scopes = self.scopes_for(selection);
        let state = self.lock();
        state.machine.position(&scopes).map(|position| position.id)
    }

    /// Where a (re)connecting client starts, and its receiver for what follows, taken together
    /// under the lock. `resume_after`: the client's `Last-Event-ID`.
    pub(crate) fn start(
        &self,
        selection: &Selection,
        scopes: &[Scope],
        resume_after: Option<u64>,
    ) -> (Start, broadcast::Receiver<Arc<HubEvent>>) {
        let mut state = self.lock();
        let receiver = self.events.subscribe();
        let start = state.machine.start(scopes, selection, resume_after);
        (start, receiver)
    }

    /// `record` as a snapshot served from a list shows it while the watchers start: its
    /// backends `unknown` and its certificates `not_read`, saying they are not read yet.
    pub(crate) fn unread(
        &self,
        record: crate::records::IngressRecord,
    ) -> crate::records::IngressRecord {
        let features = self.settings.features;
        let mut kinds = Vec::new();
        if features.backends {
            kinds.extend([WatchedKind::Services, WatchedKind::EndpointSlices]);
        }
        if features.read_secrets {
            kinds.push(WatchedKind::Secrets);
        }
        if features.cert_manager && self.discovered.borrow().cert_manager == Some(true) {
            kinds.push(WatchedKind::Certificates);
        }
        join::Joiner::new(self.settings.redaction.clone(), &kinds).join(record)
    }

    /// Whether the API server serves gateway.networking.k8s.io/v1 Gateways, as discovery last
    /// found (`None`: not known, or the Gateway API switched off).
    pub(crate) fn serves_gateways(&self) -> Option<bool> {
        self.discovered.borrow().gateways
    }

    /// What every snapshot carries beside its items (for snapshots made outside the hub).
    pub(crate) fn snapshot_info(&self) -> SnapshotInfo {
        self.lock().machine.info.clone()
    }

    /// A fresh id for an event that is not in the log (a `resync`).
    pub(crate) fn next_id(&self) -> u64 {
        self.lock().machine.next_id()
    }
}
