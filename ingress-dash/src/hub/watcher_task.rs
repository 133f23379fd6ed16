//! One scope's watcher task: runs a [`WatchLoop`] per watched kind (ingresses; Services and
//! EndpointSlices; TLS Secrets when enabled; cert-manager Certificates and HTTP/GRPC/TLSRoutes while
//! their CRD is installed), all under the same retry policy and breaker, and joins what they
//! report ([`Joiner`]) into the hub's [`Input`]s; the hub's [`super::machine`] decides the rest.
//!
//! - The first ingress list waits (at most [`FIRST_JOIN_WAIT`]) for the other kinds' first
//!   lists, so the first snapshot already shows backends and certificates.
//! - Changes of the other kinds are coalesced for [`JOIN_DEBOUNCE`]: an endpoint flapping, or a
//!   rollout replacing many slices, re-sends each affected record once, and not at all when
//!   its JSON did not change.
//! - A kind that fails (forbidden, failing) only makes what it tells `unknown`/`not_read`
//!   with the reason; the namespace's status is the ingresses' alone.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Weak};
use std::time::Duration;

use tokio::sync::{mpsc, watch};
use tokio::task::JoinSet;
use tokio::time::Instant;

use super::join::{Changes, Joiner};
use super::machine::Input;
use super::watch_loop::{Report, WatchLoop, WatchSettings};
use super::{Discovered, Hub, Scope};
use crate::access::redaction::Redaction;
use crate::hub::expiry_metric::ExpiryGauges;
use crate::kube::client::SharedKubeApi;
use crate::kube::resilience::Resilience;
use crate::kube::watched_kinds::WatchedKind;

/// How long the first ingress list waits for the other kinds' first lists.
pub const FIRST_JOIN_WAIT: Duration = Duration::from_secs(3);
/// How long changes of the other kinds are gathered before the records they affect are sent.
pub const JOIN_DEBOUNCE: Duration = Duration::from_millis(200);

/// What a watcher task needs.
pub(super) struct Plan {
    pub api: SharedKubeApi,
    pub resilience: Resilience,
    pub settings: WatchSettings,
    pub redaction: Arc<Redaction>,
    /// Kinds always watched beside ingresses (by configuration).
    pub kinds: Vec<WatchedKind>,
    pub gateway_api: bool,
    pub cert_manager: bool,
    pub discovered: watch::Receiver<Discovered>,
    pub expiry: Arc<ExpiryGauges>,
}

/// The kinds watched only while their CRD is installed.
const CRD_KINDS: [WatchedKind; 4] = [
    WatchedKind::Certificates,
    WatchedKind::HttpRoutes,
    WatchedKind::GrpcRoutes,
    WatchedKind::TlsRoutes,
];

/// The CRD kinds to watch given what discovery found.
fn crd_kinds(plan: &Plan, discovered: &Discovered) -> Vec<WatchedKind> {
    let mut kinds = Vec::new();
    if plan.cert_manager && discovered.cert_manager == Some(true) {
        kinds.push(WatchedKind::Certificates);
    }
    if plan.gateway_api && discovered.gateway_api == Some(true) {
        kinds.push(WatchedKind::HttpRoutes);
    }
    if plan.gateway_api && discovered.grpc_routes == Some(true) {
        kinds.push(WatchedKind::GrpcRoutes);
    }
    if plan.gateway_api && discovered.tls_routes == Some(true) {
        kinds.push(WatchedKind::TlsRoutes);
    }
    kinds
}

struct Task {
    hub: Weak<Hub>,
    scope: Scope,
    joiner: Joiner,
    expiry: Arc<ExpiryGauges>,
    /// Whether the first ingress list went to the hub (until then nothing else does).
    published: bool,
    /// The kinds beside ingresses that have listed or failed once.
    settled: BTreeSet<WatchedKind>,
    /// The first ingress list is complete (in the joiner) and waits for the other kinds.
    waiting: bool,
}

impl Task {
    /// `false` when the hub is gone.
    fn send(&self, input: Input) -> bool {
        let Some(hub) = self.hub.upgrade() else {
            return false;
        };
        hub.handle(&self.scope, input);
        true
    }

    fn record_expiries(&self, changes: &Changes) {
        for ((namespace, ingress), expiries) in &changes.expiries {
            self.expiry
                .set(self.scope.label(), namespace, ingress, expiries.clone());
        }
    }

    /// Sends `changes` of records (not a list) to the hub.
    fn publish(&mut self, changes: Changes) -> bool {
        self.record_expiries(&changes);
        if !self.published || (changes.upserts.is_empty() && changes.deletes.is_empty()) {
            return true;
        }
        self.send(Input::Update {
            upserts: changes.upserts,
            deletes: changes.deletes,
        })
    }

    /// Sends the waiting first ingress list, its records re-joined where what they show
    /// changed since their page was joined (the other kinds' first lists).
    fn release_first_list(&mut self) -> bool {
        if !std::mem::take(&mut self.waiting) {
            return true;
        }
        let changes = self.joiner.flush();
        self.record_expiries(&changes);
        self.published = true;
        let sent = self.send(Input::Listed(self.joiner.all()));
        crate::alloc::give_back_memory();
        sent
    }

    /// A page of a first list arrived: the hub's clients waiting for it wait on.
    fn progressed(&self) {
        if !self.published
            && let Some(hub) = self.hub.upgrade()
        {
            hub.first_list_progressed(&self.scope);
        }
    }

    fn all_settled(&self) -> bool {
        [
            WatchedKind::Services,
            WatchedKind::EndpointSlices,
            WatchedKind::Secrets,
            WatchedKind::Certificates,
            WatchedKind::HttpRoutes,
            WatchedKind::GrpcRoutes,
            WatchedKind::TlsRoutes,
        ]
        .iter()
        .filter(|kind| self.joiner.is_watched(**kind))
        .all(|kind| self.settled.contains(kind))
    }

    /// Handles one report; `false` when the hub is gone.
    fn handle(&mut self, kind: WatchedKind, report: Report) -> bool {
        if let Report::Page { items, first } = &report {
            // Each page is joined (or gathered) and dropped: a list is never held whole.
            if *first {
                self.joiner.begin(kind);
            }
            let changes = self.joiner.page(kind, items);
            self.progressed();
            if kind == WatchedKind::Ingresses {
                // The hub gets the whole list when it completes.
                self.record_expiries(&changes);
                return true;
            }
            return self.publish(changes);
        }
        if kind == WatchedKind::Ingresses {
            return match report {
                Report::Page { .. } => true,
                Report::Listed if !self.published => {
                    let changes = self.joiner.finish(kind);
                    crate::alloc::give_back_memory();
                    self.record_expiries(&changes);
                    self.waiting = true;
                    !self.all_settled() || self.release_first_list()
                }
                Report::Listed => {
                    let changes = self.joiner.finish(kind);
                    self.record_expiries(&changes);
                    let sent = self.send(Input::Listed(self.joiner.all()));
                    crate::alloc::give_back_memory();
                    sent
                }
                // A change after the list that waits: the list goes first.
                Report::Applied(object) if self.waiting => {
                    self.release_first_list() && self.handle_change(&object, false)
                }
                Report::Deleted(object) if self.waiting => {
                    self.release_first_list() && self.handle_change(&object, true)
                }
                Report::Applied(object) => self.handle_change(&object, false),
                Report::Deleted(object) => self.handle_change(&object, true),
                Report::Failed(error) => self.send(Input::Failed(error)),
            };
        }
        match report {
            Report::Page { .. } => {}
            Report::Listed => {
                let changes = self.joiner.finish(kind);
                crate::alloc::give_back_memory();
                self.settled.insert(kind);
                if !self.publish(changes) {
                    return false;
                }
            }
            Report::Applied(object) => {
                let changes = self.joiner.changed(&object, false);
                if !self.publish(changes) {
                    return false;
                }
            }
            Report::Deleted(object) => {
                let changes = self.joiner.changed(&object, true);
                if !self.publish(changes) {
                    return false;
                }
            }
            Report::Failed(error) => {
                tracing::warn!(
                    scope = self.scope.label(),
                    kind = kind.resource(),
                    code = %error.code,
                    message = %error.message,
                    "a kind beside ingresses cannot be read; what it tells is shown as unknown"
                );
                self.settled.insert(kind);
                self.joiner.failed(kind, error.code, error.message);
            }
        }
        if self.waiting && self.all_settled() {
            return self.release_first_list();
        }
        true
    }

    fn handle_change(
        &mut self,
        object: &crate::kube::watched_kinds::Object,
        deleted: bool,
    ) -> bool {
        let changes = self.joiner.changed(object, deleted);
        self.record_expiries(&changes);
        let mut ok = true;
        for record in changes.deletes {
            ok &= self.send(Input::Delete(record));
        }
        for record in changes.upserts {
            ok &= self.send(Input::Apply(record));
        }
        ok
    }

    fn flush(&mut self) -> bool {
        let changes = self.joiner.flush();
        self.publish(changes)
    }
}

pub(super) async fn run(hub: Weak<Hub>, scope: Scope, mut plan: Plan) {
    // Each loop's reports carry its generation: a loop stopped when its CRD went away may have
    // reports still queued, which must not bring its objects back (nor reach a later loop's kind).
    let (sender, mut receiver) = mpsc::unbounded_channel::<(WatchedKind, u64, Report)>();
    let mut loops = JoinSet::new();
    let mut running: HashMap<WatchedKind, (u64, tokio::task::AbortHandle)> = HashMap::new();
    let mut generation = 0u64;
    let mut start = |kind: WatchedKind, loops: &mut JoinSet<()>| {
        generation += 1;
        let this = generation;
        let sender = sender.clone();
        let watch = WatchLoop {
            kind,
            api: plan.api.clone(),
            resilience: plan.resilience.clone(),
            scope: scope.clone(),
            settings: plan.settings.clone(),
        };
        let handle =
            loops.spawn(watch.run(move |report| sender.send((kind, this, report)).is_ok()));
        (this, handle)
    };
    let current = |running: &HashMap<WatchedKind, (u64, tokio::task::AbortHandle)>,
                   kind: WatchedKind,
                   generation: u64| {
        running
            .get(&kind)
            .is_some_and(|(this, _)| *this == generation)
    };
    // Which CRDs exist is known within moments of start-up; the first watchers wait for it.
    let _ = tokio::time::timeout(
        FIRST_JOIN_WAIT,
        plan.discovered.wait_for(|discovered| discovered.asked),
    )
    .await;
    let discovered = plan.discovered.borrow_and_update().clone();
    let mut kinds = plan.kinds.clone();
    kinds.extend(crd_kinds(&plan, &discovered));
    let mut task = Task {
        hub,
        scope: scope.clone(),
        joiner: Joiner::new(plan.redaction.clone(), &kinds),
        expiry: plan.expiry.clone(),
        published: false,
        settled: BTreeSet::new(),
        waiting: false,
    };
    running.insert(
        WatchedKind::Ingresses,
        start(WatchedKind::Ingresses, &mut loops),
    );
    for kind in kinds {
        running.insert(kind, start(kind, &mut loops));
    }
    let mut first_deadline: Option<Instant> = None;
    let mut flush_at: Option<Instant> = None;
    loop {
        tokio::select! {
            message = receiver.recv() => {
                let Some((kind, generation, report)) = message else { return };
                if current(&running, kind, generation) && !task.handle(kind, report) {
                    return;
                }
                // Whatever else already arrived is handled before anything is flushed.
                while let Ok((kind, generation, report)) = receiver.try_recv() {
                    if current(&running, kind, generation) && !task.handle(kind, report) {
                        return;
                    }
                }
                if task.waiting && first_deadline.is_none() {
                    first_deadline = Some(Instant::now() + FIRST_JOIN_WAIT);
                }
                if task.joiner.has_dirty() && flush_at.is_none() {
                    flush_at = Some(Instant::now() + JOIN_DEBOUNCE);
                }
            }
            _ = sleep_until(flush_at), if flush_at.is_some() => {
                flush_at = None;
                if !task.flush() {
                    return;
                }
            }
            _ = sleep_until(first_deadline), if first_deadline.is_some() => {
                first_deadline = None;
                if !task.release_first_list() {
                    return;
                }
            }
            changed = plan.discovered.changed() => {
                if changed.is_err() {
                    // The hub is gone.
                    return;
                }
                let discovered = plan.discovered.borrow_and_update().clone();
                let wanted = crd_kinds(&plan, &discovered);
                for kind in CRD_KINDS {
                    let want = wanted.contains(&kind);
                    match (want, running.contains_key(&kind)) {
                        (true, false) => {
                            task.joiner.set_watched(kind, true);
                            running.insert(kind, start(kind, &mut loops));
                        }
                        (false, true) => {
                            if let Some((_, handle)) = running.remove(&kind) {
                                handle.abort();
                            }
                            task.settled.remove(&kind);
                            if kind != WatchedKind::Certificates {
                                // A route kind: its records go with it.
                                let changes = task.joiner.listed(kind, &[]);
                                if !task.publish(changes) {
                                    return;
                                }
                            }
                            task.joiner.set_watched(kind, false);
                        }
                        _ => {}
                    }
                }
                if task.joiner.has_dirty() && flush_at.is_none() {
                    flush_at = Some(Instant::now() + JOIN_DEBOUNCE);
                }
            }
        }
    }
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}
