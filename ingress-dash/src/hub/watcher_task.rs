//! One watcher's task: applies kube-runtime watcher events to the hub's state and publishes
//! the differences. A re-list (after 410 Gone, a dropped connection or a restart) is diffed
//! against what clients already have, so nothing is lost or sent twice.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::Weak;

use actix_web::web::Bytes;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use k8s_openapi::api::networking::v1::Ingress;
use kube::runtime::watcher::Event;

use super::{EventKind, Hub, NamespaceError, Scope, State, Status};
use crate::kube_api::KubeError;
use crate::records::{IngressRecord, StoredRecord};

fn key(record: &StoredRecord) -> String {
    format!("{}/{}", record.namespace, record.name)
}

fn json(value: &impl serde::Serialize) -> Bytes {
    Bytes::from(serde_json::to_vec(value).expect("records serialise"))
}

fn stored(hub: &Hub, ingress: &Ingress) -> StoredRecord {
    StoredRecord::new(&IngressRecord::from_ingress(
        ingress,
        &hub.settings.redaction,
    ))
}

pub(super) async fn run(
    hub: Weak<Hub>,
    scope: Scope,
    mut stream: BoxStream<'static, Result<Event<Ingress>, KubeError>>,
) {
    // Objects of a re-list in progress.
    let mut relist: Option<BTreeMap<String, Arc<StoredRecord>>> = None;
    while let Some(event) = stream.next().await {
        let Some(hub) = hub.upgrade() else { return };
        match event {
            Ok(Event::Init) => relist = Some(BTreeMap::new()),
            Ok(Event::InitApply(ingress)) => {
                let record = stored(&hub, &ingress);
                relist
                    .get_or_insert_with(BTreeMap::new)
                    .insert(key(&record), Arc::new(record));
            }
            Ok(Event::InitDone) => {
                let listed = relist.take().unwrap_or_default();
                hub.apply_relist(&scope, listed);
            }
            Ok(Event::Apply(ingress)) => hub.apply(&scope, stored(&hub, &ingress)),
            Ok(Event::Delete(ingress)) => hub.delete(&scope, stored(&hub, &ingress)),
            Err(error) => hub.fail(&scope, &error),
        }
    }
}

impl Hub {
    fn apply_relist(&self, scope: &Scope, listed: BTreeMap<String, Arc<StoredRecord>>) {
        let mut state = self.lock();
        let last_id = state.last_id;
        let Some(watcher) = state.watchers.get_mut(scope) else {
            return;
        };
        let recovered = matches!(watcher.status, Status::Failed(_));
        watcher.status = Status::Ready;
        watcher.settled.send_replace(true);
        if recovered {
            self.publish_recovered(&mut state, scope);
        }
        let Some(watcher) = state.watchers.get_mut(scope) else {
            return;
        };
        let first = watcher.synced_through.is_none();
        let previous = std::mem::replace(&mut watcher.records, listed);
        // Clients that saw this scope failing, or still syncing, have none of its records:
        // they get them as events. Otherwise the first list is what snapshots are made from.
        if first && !watcher.seen_syncing && !recovered {
            watcher.synced_through = Some(last_id);
            return;
        }
        // The differences between what clients have and the new list, as events.
        let mut changes = Vec::new();
        for (key, record) in &watcher.records {
            match previous.get(key) {
                None => changes.push((record.namespace.clone(), EventKind::Added, json(record))),
                Some(old) if old.resource_version != record.resource_version => {
                    changes.push((record.namespace.clone(), EventKind::Modified, json(record)))
                }
                Some(_) => {}
            }
        }
        for (key, record) in &previous {
            if !watcher.records.contains_key(key) {
                changes.push((record.namespace.clone(), EventKind::Deleted, json(record)));
            }
        }
        for (namespace, kind, data) in changes {
            self.publish(&mut state, scope, &namespace, kind, data);
        }
        let last_id = state.last_id;
        if first && let Some(watcher) = state.watchers.get_mut(scope) {
            watcher.synced_through = Some(last_id);
        }
    }

    fn apply(&self, scope: &Scope, record: StoredRecord) {
        let mut state = self.lock();
        let Some(watcher) = state.watchers.get_mut(scope) else {
            return;
        };
        if matches!(watcher.status, Status::Failed(_)) {
            watcher.status = Status::Ready;
            self.publish_recovered(&mut state, scope);
        }
        let Some(watcher) = state.watchers.get_mut(scope) else {
            return;
        };
        watcher.status = Status::Ready;
        let key = key(&record);
        let kind = match watcher.records.get(&key) {
            Some(old) if old.resource_version == record.resource_version => return,
            Some(_) => EventKind::Modified,
            None => EventKind::Added,
        };
        let record = Arc::new(record);
        watcher.records.insert(key, record.clone());
        self.publish(&mut state, scope, &record.namespace, kind, json(&record));
    }

    fn delete(&self, scope: &Scope, record: StoredRecord) {
        let mut state = self.lock();
        let Some(watcher) = state.watchers.get_mut(scope) else {
            return;
        };
        if watcher.records.remove(&key(&record)).is_none() {
            return;
        }
        self.publish(
            &mut state,
            scope,
            &record.namespace,
            EventKind::Deleted,
            json(&record),
        );
    }

    /// Tells clients that the failed watcher of `scope` works again, so its error banner goes
    /// even when nothing changed in the namespace meanwhile.
    fn publish_recovered(&self, state: &mut State, scope: &Scope) {
        tracing::info!(scope = scope.label(), "watcher recovered");
        let data = Bytes::from(serde_json::json!({ "namespace": scope.label() }).to_string());
        self.publish(state, scope, scope.label(), EventKind::Recovered, data);
    }

    fn fail(&self, scope: &Scope, error: &KubeError) {
        let mut state = self.lock();
        let Some(watcher) = state.watchers.get_mut(scope) else {
            return;
        };
        metrics::counter!("ingress_dash_watch_errors_total").increment(1);
        // A 410 is routine (the watcher re-lists); other errors are told once per episode.
        if error.is_expired() {
            return;
        }
        let error = NamespaceError {
            namespace: scope.label().to_owned(),
            code: error.code().to_owned(),
            message: error.to_string(),
        };
        let repeated =
            matches!(&watcher.status, Status::Failed(previous) if previous.code == error.code);
        watcher.settled.send_replace(true);
        if repeated {
            return;
        }
        tracing::warn!(scope = scope.label(), code = %error.code, message = %error.message, "watcher error");
        watcher.status = Status::Failed(error.clone());
        let data = json(&error);
        self.publish(&mut state, scope, scope.label(), EventKind::Error, data);
    }
}
