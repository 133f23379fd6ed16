//! The hub's state transitions, with no task, lock or channel: the watchers' records and
//! statuses, and the event log (ids, replay buffer). Each transition (a watcher's list, change,
//! deletion or failure) returns the events it published, which the hub then broadcasts.
//!
//! A re-list (after 410 Gone, a dropped connection or a restart) is diffed against what clients
//! already have, so nothing is lost or sent twice.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::sync::Arc;

use actix_web::web::Bytes;

use super::events::{
    EventKind, HubEvent, NamespaceError, Notice, RecoveredNotice, Scope, Snapshot, SnapshotInfo,
    Start,
};
use crate::hub::selection::Selection;
use crate::records::{RecordKind, StoredRecord};

/// What a watcher reports: `Listed` for each complete (re-)list, then `Apply` and `Delete` for
/// the changes its watches saw; `Failed` when it gave up retrying for now (a 410 or a retried
/// transient error is never reported).
#[derive(Debug)]
pub enum Input {
    Listed(Vec<Arc<StoredRecord>>),
    Apply(Arc<StoredRecord>),
    Delete(Arc<StoredRecord>),
    /// Records changed by what is behind them (a backend, a certificate), and HTTPRoutes:
    /// published as they differ from what clients have, without touching the scope's status
    /// (only the ingresses' list+watch says whether the namespace works).
    Update {
        upserts: Vec<Arc<StoredRecord>>,
        deletes: Vec<Arc<StoredRecord>>,
    },
    Failed(NamespaceError),
}

#[derive(Debug, Clone, PartialEq)]
enum Status {
    Syncing,
    Ready,
    Failed(NamespaceError),
}

/// One watched scope.
struct Watched {
    /// Shared with snapshots, which then copy pointers, not records.
    records: BTreeMap<Key, Arc<StoredRecord>>,
    status: Status,
    first_list: FirstList,
    /// The id of this scope's last change (an event published for it, or a silent change):
    /// its part of the position of the selections it serves.
    changed: u64,
}

/// Whether the first list of a scope has been applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FirstList {
    /// Not yet. `seen_empty`: a client saw this scope still syncing (empty), so its first list
    /// must be published as events; otherwise it is applied silently, sparing other clients a
    /// flood.
    Pending { seen_empty: bool },
    /// Applied when the log's last id was this: a resume from an earlier id could have missed
    /// changes (or would see the first list again).
    AppliedThrough(u64),
}

/// Ids and the bounded replay buffer.
struct Log {
    last_id: u64,
    /// The id of the last change of the state (an event's, or [`Log::touch`]'s): the position a
    /// snapshot shows. Ids given to what is not a change (a `snapshot` or `resync` event's) do
    /// not move it, so a stream client connecting does not make every cached body stale.
    changed: u64,
    /// Id of the newest event dropped from the replay buffer.
    evicted_through: u64,
    replay: VecDeque<Arc<HubEvent>>,
    replay_limit: usize,
}

impl Log {
    fn next_id(&mut self) -> u64 {
        self.last_id += 1;
        self.last_id
    }

    /// A change of the state that publishes no event (a first list applied silently, the
    /// notices): it gets an id of its own, so the position moves.
    fn touch(&mut self) -> u64 {
        self.changed = self.next_id();
        self.changed
    }

    fn publish(
        &mut self,
        scope: &Scope,
        namespace: &str,
        kind: EventKind,
        data: Bytes,
    ) -> Arc<HubEvent> {
        let id = self.next_id();
        self.changed = id;
        let event = Arc::new(HubEvent {
            id,
            scope: scope.clone(),
            namespace: namespace.to_owned(),
            kind,
            data,
            frame: Default::default(),
        });
        self.replay.push_back(event.clone());
        while self.replay.len() > self.replay_limit {
            if let Some(evicted) = self.replay.pop_front() {
                self.evicted_through = evicted.id;
            }
        }
        event
    }

    /// Tells clients that the failed watcher of `scope` works again, so its error banner goes
    /// even when nothing changed in the namespace meanwhile.
    fn recovered(&mut self, scope: &Scope) -> Arc<HubEvent> {
        tracing::info!(scope = scope.label(), "watcher recovered");
        let data = json(&RecoveredNotice {
            namespace: scope.label(),
        });
        self.publish(scope, scope.label(), EventKind::Recovered, data)
    }
}

/// The watched scopes and the event log.
pub struct Machine {
    log: Log,
    scopes: HashMap<Scope, Watched>,
    /// Carried by every snapshot (the notices are changed by [`Machine::set_notices`]).
    pub info: SnapshotInfo,
    /// The id of the last change of the notices: they are not sent as events, so a resume from
    /// before it gets a fresh snapshot.
    notices_changed: u64,
}

/// Where the state of a selection stands (see [`Machine::position`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    /// The id of the last change: equal positions show equal snapshots.
    pub id: u64,
    /// Whether a stream resumed from `id` replays every later change (every scope's first list
    /// applied by then), so the id may be handed to clients as `eventId`.
    pub resumable: bool,
}

/// A record by kind, namespace and name: the stored record's own (shared) strings.
type Key = (RecordKind, Arc<str>, Arc<str>);

fn key(record: &StoredRecord) -> Key {
    (record.kind, record.namespace.clone(), record.name.clone())
}

/// An event's data (not a record's: `StoredRecord::json_bytes`), held at its exact size (a
/// serialiser's buffer has up to twice the capacity).
fn json(value: &impl serde::Serialize) -> Bytes {
    Bytes::copy_from_slice(&serde_json::to_vec(value).expect("records serialise"))
}

impl Machine {
    /// Ids continue from `last_id`; `replay_limit` events are kept for resumes.
    pub fn new(last_id: u64, replay_limit: usize) -> Self {
        Self {
            log: Log {
                last_id,
                changed: last_id,
                evicted_through: 0,
                replay: VecDeque::new(),
                replay_limit,
            },
            scopes: HashMap::new(),
            info: SnapshotInfo::default(),
            notices_changed: 0,
        }
    }

    /// Starts tracking `scope`, syncing and empty (no position includes it until it listed).
    pub fn watch(&mut self, scope: Scope) {
        self.scopes.entry(scope).or_insert_with(|| Watched {
            records: BTreeMap::new(),
            status: Status::Syncing,
            first_list: FirstList::Pending { seen_empty: false },
            changed: 0,
        });
    }

    /// Stops tracking `scope`. No position moves: the selections it served have none until it
    /// is watched and listed again, and the others do not show it.
    pub fn forget(&mut self, scope: &Scope) {
        self.scopes.remove(scope);
    }

    /// Replaces the notices every snapshot carries; a change moves the position.
    pub fn set_notices(&mut self, notices: Vec<Notice>) {
        if self.info.notices != notices {
            self.info.notices = notices;
            self.notices_changed = self.log.touch();
        }
    }

    /// Where the state of the selection served by `scopes` stands: `None` while one of them is
    /// still syncing (or not watched), when its snapshot is not made from memory alone.
    /// It is the id of the last change of those scopes or of the notices, so a change elsewhere
    /// (another namespace's watcher, one stopping) leaves it, and a body cached for it, alone.
    pub fn position(&self, scopes: &[Scope]) -> Option<Position> {
        let mut resumable = true;
        let mut id = self.notices_changed;
        for scope in scopes {
            let watched = self.scopes.get(scope)?;
            if watched.status == Status::Syncing {
                return None;
            }
            resumable &= matches!(watched.first_list, FirstList::AppliedThrough(_));
            id = id.max(watched.changed);
        }
        Some(Position { id, resumable })
    }

    /// Whether `scope` has finished its first list or failed.
    pub fn is_settled(&self, scope: &Scope) -> bool {
        self.scopes
            .get(scope)
            .is_some_and(|watched| watched.status != Status::Syncing)
    }

    /// Whether `scope` has finished its first list and is not failed.
    pub fn is_ready(&self, scope: &Scope) -> bool {
        self.scopes
            .get(scope)
            .is_some_and(|watched| watched.status == Status::Ready)
    }

    /// A fresh id for an event that is not in the log (a `resync`).
    pub fn next_id(&mut self) -> u64 {
        self.log.next_id()
    }

    /// Applies what the watcher of `scope` reported; the events published, in order.
    pub fn handle(&mut self, scope: &Scope, input: Input) -> Vec<Arc<HubEvent>> {
        let Some(watched) = self.scopes.get_mut(scope) else {
            return Vec::new();
        };
        let before = self.log.changed;
        let events = match input {
            Input::Listed(records) => {
                let listed = records
                    .into_iter()
                    .map(|record| (key(&record), record))
                    .collect();
                relist(&mut self.log, scope, watched, listed)
            }
            Input::Apply(record) => apply(&mut self.log, scope, watched, record),
            Input::Delete(record) => {
                let Some(record) = watched.records.remove(&key(&record)) else {
                    return Vec::new();
                };
                let data = record.json_bytes();
                vec![
                    self.log
                        .publish(scope, &record.namespace, EventKind::Deleted, data),
                ]
            }
            Input::Update { upserts, deletes } => {
                let mut events = Vec::new();
                for record in deletes {
                    if let Some(record) = watched.records.remove(&key(&record)) {
                        let data = record.json_bytes();
                        events.push(self.log.publish(
                            scope,
                            &record.namespace,
                            EventKind::Deleted,
                            data,
                        ));
                    }
                }
                for record in upserts {
                    let kind = match watched.records.get(&key(&record)) {
                        Some(old) if old.same_json(&record) => continue,
                        Some(_) => EventKind::Modified,
                        None => EventKind::Added,
                    };
                    watched.records.insert(key(&record), record.clone());
                    events.push(self.log.publish(
                        scope,
                        &record.namespace,
                        kind,
                        record.json_bytes(),
                    ));
                }
                events
            }
            Input::Failed(error) => fail(&mut self.log, scope, watched, error),
        };
        // Whatever changed while handling this input was this scope's.
        if self.log.changed != before {
            watched.changed = self.log.changed;
        }
        events
    }

    /// The current snapshot of `selection` (served by `scopes`).
    pub fn snapshot(
        &mut self,
        scopes: &[Scope],
        selection: &Selection,
        search: Option<&str>,
    ) -> Snapshot {
        let mut snapshot = Snapshot::with_info(&self.info);
        for scope in scopes {
            let Some(watched) = self.scopes.get_mut(scope) else {
                continue;
            };
            match &watched.status {
                Status::Failed(error) => snapshot.errors.push(error.clone()),
                Status::Syncing => {
                    if let FirstList::Pending { seen_empty } = &mut watched.first_list {
                        *seen_empty = true;
                    }
                    snapshot.errors.push(NamespaceError {
                        namespace: scope.label().to_owned(),
                        code: "syncing".into(),
                        message: "The first list of this namespace has not completed yet.".into(),
                        status: None,
                    });
                }
                Status::Ready => {}
            }
            snapshot.items.extend(
                watched
                    .records
                    .values()
                    .filter(|record| selection.contains(&record.namespace))
                    .filter(|record| search.is_none_or(|term| record.matches(term)))
                    .cloned(),
            );
        }
        snapshot.sort();
        snapshot
    }

    /// Where a (re)connecting client starts. `resume_after`: the client's `Last-Event-ID`.
    pub fn start(
        &mut self,
        scopes: &[Scope],
        selection: &Selection,
        resume_after: Option<u64>,
    ) -> Start {
        if let Some(after) = resume_after
            && let Some(events) = self.replay_after(scopes, selection, after)
        {
            return Start::Replay(events);
        }
        let snapshot = self.snapshot(scopes, selection, None);
        let resync_id = resume_after.map(|_| self.log.next_id());
        Start::Snapshot {
            resync_id,
            id: self.log.next_id(),
            snapshot,
        }
    }

    /// The events after `after` for this client, or `None` when some may be missing.
    fn replay_after(
        &self,
        scopes: &[Scope],
        selection: &Selection,
        after: u64,
    ) -> Option<Vec<Arc<HubEvent>>> {
        if after > self.log.last_id || after < self.notices_changed {
            return None;
        }
        // Every watcher must have been running, its first list applied, since then.
        let covered = scopes.iter().all(|scope| {
            self.scopes
                .get(scope)
                .is_some_and(|watched| {
                    matches!(watched.first_list, FirstList::AppliedThrough(id) if id <= after)
                })
        });
        // The buffer must still hold every event after `after`.
        if !covered || self.log.evicted_through > after {
            return None;
        }
        Some(
            self.log
                .replay
                .iter()
                .filter(|event| event.id > after && event.is_for(scopes, selection))
                .cloned()
                .collect(),
        )
    }
}

/// A complete (re-)list of `scope`.
fn relist(
    log: &mut Log,
    scope: &Scope,
    watched: &mut Watched,
    listed: BTreeMap<Key, Arc<StoredRecord>>,
) -> Vec<Arc<HubEvent>> {
    let mut events = Vec::new();
    let recovered = matches!(watched.status, Status::Failed(_));
    watched.status = Status::Ready;
    if recovered {
        events.push(log.recovered(scope));
    }
    let first = watched.first_list;
    let previous = std::mem::replace(&mut watched.records, listed);
    // Clients that saw this scope failing, or still syncing, have none of its records: they
    // get them as events. Otherwise the first list is what snapshots are made from.
    if first == (FirstList::Pending { seen_empty: false }) && !recovered {
        // No event says so: the change gets an id of its own (the position moves), and a
        // resume from before it gets a snapshot.
        watched.first_list = FirstList::AppliedThrough(log.touch());
        return events;
    }
    // The differences between what clients have and the new list, as events.
    for (key, record) in &watched.records {
        let kind = match previous.get(key) {
            None => EventKind::Added,
            Some(old) if !old.same_json(record) => EventKind::Modified,
            Some(_) => continue,
        };
        events.push(log.publish(scope, &record.namespace, kind, record.json_bytes()));
    }
    for (key, record) in &previous {
        if !watched.records.contains_key(key) {
            events.push(log.publish(
                scope,
                &record.namespace,
                EventKind::Deleted,
                record.json_bytes(),
            ));
        }
    }
    if let FirstList::Pending { .. } = first {
        // The scope is no longer syncing even when no event was published.
        watched.first_list = FirstList::AppliedThrough(log.touch());
    }
    events
}

/// A record added or changed after the list.
fn apply(
    log: &mut Log,
    scope: &Scope,
    watched: &mut Watched,
    record: Arc<StoredRecord>,
) -> Vec<Arc<HubEvent>> {
    let mut events = Vec::new();
    if matches!(watched.status, Status::Failed(_)) {
        events.push(log.recovered(scope));
    }
    watched.status = Status::Ready;
    let key = key(&record);
    let kind = match watched.records.get(&key) {
        Some(old) if old.same_json(&record) => return events,
        Some(_) => EventKind::Modified,
        None => EventKind::Added,
    };
    watched.records.insert(key, record.clone());
    events.push(log.publish(scope, &record.namespace, kind, record.json_bytes()));
    events
}

/// A watcher that gave up for now: told once per episode (a new code is a new episode).
fn fail(
    log: &mut Log,
    scope: &Scope,
    watched: &mut Watched,
    error: NamespaceError,
) -> Vec<Arc<HubEvent>> {
    metrics::counter!("ingress_dash_watch_errors_total").increment(1);
    let repeated =
        matches!(&watched.status, Status::Failed(previous) if previous.code == error.code);
    if repeated {
        return Vec::new();
    }
    tracing::warn!(scope = scope.label(), code = %error.code, status = ?error.status, message = %error.message, "watcher error");
    let data = json(&error);
    watched.status = Status::Failed(error);
    vec![log.publish(scope, scope.label(), EventKind::Error, data)]
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod position_tests;
