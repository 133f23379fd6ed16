//! Shared watchers and the event log every stream client reads.
//!
//! One kube-runtime watcher runs per watched scope (a namespace, or the whole cluster), however
//! many clients want it; it stops a grace period after its last subscriber left. Each change
//! gets a global, monotonic id and goes into a bounded replay buffer (for `Last-Event-ID`) and a
//! bounded broadcast channel (a client too slow to keep up lags and is resynced, so it never
//! blocks the others nor grows memory). Events are published under the hub's lock, which is also
//! held while a client takes its snapshot and subscribes, so a snapshot plus the events after it
//! is exactly the state.

pub mod snapshot_body;
mod watcher_task;

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use actix_web::web::Bytes;
use serde::Serialize;
use tokio::sync::{broadcast, watch};

use crate::kube_api::SharedKubeApi;
use crate::namespaces::Selection;
use crate::records::StoredRecord;
use crate::redaction::Redaction;

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
pub struct NamespaceError {
    pub namespace: String,
    pub code: String,
    pub message: String,
}

/// `Snapshot` of the API contract.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Snapshot {
    pub items: Vec<Arc<StoredRecord>>,
    pub errors: Vec<NamespaceError>,
}

/// One published event, its data already serialised once for every client.
#[derive(Debug)]
pub struct HubEvent {
    pub id: u64,
    pub scope: Scope,
    pub namespace: String,
    pub kind: EventKind,
    pub data: Bytes,
}

#[derive(Debug, Clone, PartialEq)]
enum Status {
    Syncing,
    Ready,
    Failed(NamespaceError),
}

struct Watcher {
    subscribers: usize,
    /// Shared with snapshots, which then copy pointers, not records.
    records: BTreeMap<String, Arc<StoredRecord>>,
    status: Status,
    /// Flips to true once the first list completed or failed.
    settled: watch::Sender<bool>,
    /// The last id once the first list was applied: a resume from an earlier id could have
    /// missed changes (or would see the first list again).
    synced_through: Option<u64>,
    /// A client saw this watcher still syncing (empty): its first list must then be published
    /// as events; otherwise it is applied silently, sparing other clients a flood.
    seen_syncing: bool,
    task: tokio::task::JoinHandle<()>,
    /// Bumped on every release, so a stale grace timer does nothing.
    generation: u64,
}

struct State {
    last_id: u64,
    /// Id of the newest event dropped from the replay buffer.
    evicted_through: u64,
    replay: VecDeque<Arc<HubEvent>>,
    watchers: HashMap<Scope, Watcher>,
}

#[derive(Debug, Clone)]
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
}

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

impl Hub {
    pub fn new(api: SharedKubeApi, settings: HubSettings) -> Arc<Self> {
        let (events, _) = broadcast::channel(settings.client_buffer.max(1));
        // Ids start at the start time in microseconds, so they also grow across restarts and
        // an id from an earlier process is simply too old to resume from.
        let epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |elapsed| elapsed.as_micros() as u64);
        Arc::new_cyclic(|this| Hub {
            api,
            settings,
            state: Mutex::new(State {
                last_id: epoch,
                evicted_through: 0,
                replay: VecDeque::new(),
                watchers: HashMap::new(),
            }),
            events,
            this: this.clone(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn arc(&self) -> Arc<Hub> {
        self.this.upgrade().expect("the hub is alive while used")
    }

    /// The watcher scopes serving `selection`.
    pub fn scopes_for(&self, selection: &Selection) -> Vec<Scope> {
        match (selection, self.settings.namespaces.is_empty()) {
            (Selection::All, true) => vec![Scope::Cluster],
            (Selection::All, false) => self
                .settings
                .namespaces
                .iter()
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
    pub fn subscribe(&self, selection: &Selection) -> Result<Subscription, WatcherLimit> {
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
            let watcher = state
                .watchers
                .entry(scope.clone())
                .or_insert_with(|| self.start_watcher(scope.clone()));
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
        let stream = self.api.watch_ingresses(match &scope {
            Scope::Cluster => None,
            Scope::Namespace(namespace) => Some(namespace.clone()),
        });
        let task = tokio::spawn(watcher_task::run(self.this.clone(), scope, stream));
        Watcher {
            subscribers: 0,
            records: BTreeMap::new(),
            status: Status::Syncing,
            settled,
            synced_through: None,
            seen_syncing: false,
            task,
            generation: 0,
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
            watcher.task.abort();
        }
        drop(state);
        self.update_watcher_gauge();
    }

    fn update_watcher_gauge(&self) {
        let count = self.lock().watchers.len();
        metrics::gauge!("ingress_dash_watchers").set(count as f64);
    }

    /// Watchers running now.
    pub fn watcher_count(&self) -> usize {
        self.lock().watchers.len()
    }

    /// Waits until every scope finished its first list (or failed), at most `timeout`.
    pub async fn wait_settled(&self, scopes: &[Scope], timeout: Duration) {
        let receivers: Vec<watch::Receiver<bool>> = {
            let state = self.lock();
            scopes
                .iter()
                .filter_map(|scope| state.watchers.get(scope))
                .map(|watcher| watcher.settled.subscribe())
                .collect()
        };
        let all =
            futures_util::future::join_all(receivers.into_iter().map(|mut receiver| async move {
                let _ = receiver.wait_for(|settled| *settled).await;
            }));
        let _ = tokio::time::timeout(timeout, all).await;
    }

    /// Whether every scope of `selection` has a watcher that has listed (or failed).
    pub fn is_settled(&self, selection: &Selection) -> bool {
        let state = self.lock();
        self.scopes_for(selection).iter().all(|scope| {
            state
                .watchers
                .get(scope)
                .is_some_and(|watcher| watcher.status != Status::Syncing)
        })
    }

    /// Whether a watcher of `selection` is failing now.
    pub fn has_failed(&self, selection: &Selection) -> bool {
        let state = self.lock();
        self.scopes_for(selection).iter().any(|scope| {
            state
                .watchers
                .get(scope)
                .is_some_and(|watcher| matches!(watcher.status, Status::Failed(_)))
        })
    }

    /// The current snapshot of `selection` from the watchers' memory.
    pub fn snapshot(&self, selection: &Selection, search: Option<&str>) -> Snapshot {
        let mut state = self.lock();
        self.snapshot_locked(&mut state, selection, search)
    }

    fn snapshot_locked(
        &self,
        state: &mut State,
        selection: &Selection,
        search: Option<&str>,
    ) -> Snapshot {
        let mut snapshot = Snapshot::default();
        for scope in self.scopes_for(selection) {
            let Some(watcher) = state.watchers.get_mut(&scope) else {
                continue;
            };
            if watcher.status == Status::Syncing {
                watcher.seen_syncing = true;
            }
            match &watcher.status {
                Status::Failed(error) => snapshot.errors.push(error.clone()),
                Status::Syncing => snapshot.errors.push(NamespaceError {
                    namespace: scope.label().to_owned(),
                    code: "syncing".into(),
                    message: "The first list of this namespace has not completed yet.".into(),
                }),
                Status::Ready => {}
            }
            snapshot.items.extend(
                watcher
                    .records
                    .values()
                    .filter(|record| selection.contains(&record.namespace))
                    .filter(|record| search.is_none_or(|term| record.matches(term)))
                    .cloned(),
            );
        }
        snapshot
            .items
            .sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
        snapshot
    }

    /// Where a (re)connecting client starts, and its receiver for what follows, taken together
    /// under the lock. `resume_after`: the client's `Last-Event-ID`.
    pub fn start(
        &self,
        selection: &Selection,
        scopes: &[Scope],
        resume_after: Option<u64>,
    ) -> (Start, broadcast::Receiver<Arc<HubEvent>>) {
        let mut state = self.lock();
        let receiver = self.events.subscribe();
        if let Some(after) = resume_after
            && let Some(events) = replay_after(&state, scopes, selection, after)
        {
            return (Start::Replay(events), receiver);
        }
        let snapshot = self.snapshot_locked(&mut state, selection, None);
        let resync_id = resume_after.map(|_| {
            state.last_id += 1;
            state.last_id
        });
        state.last_id += 1;
        (
            Start::Snapshot {
                resync_id,
                id: state.last_id,
                snapshot,
            },
            receiver,
        )
    }

    /// A fresh id for an event that is not in the log (a `resync`).
    pub fn next_id(&self) -> u64 {
        let mut state = self.lock();
        state.last_id += 1;
        state.last_id
    }

    /// Publishes under the lock (see the module documentation).
    fn publish(
        &self,
        state: &mut State,
        scope: &Scope,
        namespace: &str,
        kind: EventKind,
        data: Bytes,
    ) {
        state.last_id += 1;
        let event = Arc::new(HubEvent {
            id: state.last_id,
            scope: scope.clone(),
            namespace: namespace.to_owned(),
            kind,
            data,
        });
        state.replay.push_back(event.clone());
        while state.replay.len() > self.settings.replay_buffer {
            if let Some(evicted) = state.replay.pop_front() {
                state.evicted_through = evicted.id;
            }
        }
        // No receiver is not an error: nobody is connected.
        let _ = self.events.send(event);
    }
}

/// The events after `after` for this client, or `None` when some may be missing.
fn replay_after(
    state: &State,
    scopes: &[Scope],
    selection: &Selection,
    after: u64,
) -> Option<Vec<Arc<HubEvent>>> {
    if after > state.last_id {
        return None;
    }
    // Every watcher must have been running, its first list applied, since then.
    let covered = scopes.iter().all(|scope| {
        state
            .watchers
            .get(scope)
            .and_then(|watcher| watcher.synced_through)
            .is_some_and(|synced| synced <= after)
    });
    // The buffer must still hold every event after `after`.
    if !covered || state.evicted_through > after {
        return None;
    }
    Some(
        state
            .replay
            .iter()
            .filter(|event| event.id > after && matches(event, scopes, selection))
            .cloned()
            .collect(),
    )
}

/// Whether `event` belongs to a client of `scopes` and `selection`.
pub fn matches(event: &HubEvent, scopes: &[Scope], selection: &Selection) -> bool {
    scopes.contains(&event.scope)
        && (matches!(event.kind, EventKind::Error | EventKind::Recovered)
            || selection.contains(&event.namespace))
}
