//! The hub's transitions, driven by hand: no runtime, no watcher, no channel.

use std::collections::BTreeSet;
use std::time::Duration;

use k8s_openapi::api::networking::v1::Ingress;
use serde_json::json;

use super::*;
use crate::access::redaction::Redaction;
use crate::kube::client::KubeError;
use crate::kube::resilience::CallError;
use crate::records::IngressRecord;

const A: &str = "team-a";

fn scope() -> Scope {
    Scope::Namespace(A.into())
}

fn record(name: &str, version: u32) -> Arc<StoredRecord> {
    let ingress: Ingress = serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": A, "uid": name, "resourceVersion": version.to_string()},
        "spec": {"rules": [{"host": format!("{name}.example.com")}]},
    }))
    .unwrap();
    Arc::new(StoredRecord::new(&IngressRecord::from_ingress(
        &ingress,
        &Redaction::none(),
    )))
}

fn only_a() -> Selection {
    Selection::Only(BTreeSet::from([A.to_owned()]))
}

/// A machine watching `team-a`, its first list (`names` at version 1) applied.
fn listed(names: &[&str]) -> Machine {
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    list(&mut machine, names.iter().map(|name| record(name, 1)));
    machine
}

fn list(
    machine: &mut Machine,
    records: impl IntoIterator<Item = Arc<StoredRecord>>,
) -> Vec<Arc<HubEvent>> {
    machine.handle(&scope(), Input::Listed(records.into_iter().collect()))
}

/// `(kind, name or namespace)` of each event, for short assertions.
fn summary(events: &[Arc<HubEvent>]) -> Vec<(&'static str, String)> {
    events
        .iter()
        .map(|event| {
            let data: serde_json::Value = serde_json::from_slice(&event.data).unwrap();
            let name = data["name"].as_str().or(data["namespace"].as_str());
            (event.kind.name(), name.unwrap_or_default().to_owned())
        })
        .collect()
}

fn names(snapshot: &Snapshot) -> Vec<&str> {
    snapshot.items.iter().map(|item| &*item.name).collect()
}

fn failure(error: KubeError) -> NamespaceError {
    NamespaceError::from_call(&scope(), &CallError::Kube(error), None)
}

fn forbidden() -> NamespaceError {
    failure(KubeError::Api {
        status: 403,
        reason: "Forbidden".into(),
        message: "ingresses is forbidden".into(),
    })
}

#[test]
fn the_first_list_is_applied_silently_and_settles_the_scope() {
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    assert!(!machine.is_settled(&scope()));
    let events = list(&mut machine, [record("web", 1), record("api", 1)]);
    assert!(events.is_empty(), "{:?}", summary(&events));
    assert!(machine.is_settled(&scope()));
    let snapshot = machine.snapshot(&[scope()], &only_a(), None);
    assert_eq!(names(&snapshot), ["api", "web"]);
    assert!(snapshot.errors.is_empty());
}

#[test]
fn a_first_list_a_client_waited_for_is_published() {
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    let syncing = machine.snapshot(&[scope()], &only_a(), None);
    assert_eq!(syncing.errors[0].code, "syncing");
    let events = list(&mut machine, [record("web", 1)]);
    assert_eq!(summary(&events), [("added", "web".to_owned())]);
    assert_eq!(events[0].id, 101);
}

#[test]
fn changes_are_published_once_and_deletes_of_unknown_records_are_not() {
    let mut machine = listed(&["web"]);
    let added = machine.handle(&scope(), Input::Apply(record("api", 2)));
    assert_eq!(summary(&added), [("added", "api".to_owned())]);
    assert!(
        machine
            .handle(&scope(), Input::Apply(record("api", 2)))
            .is_empty(),
        "same resourceVersion: nothing new"
    );
    let modified = machine.handle(&scope(), Input::Apply(record("api", 3)));
    assert_eq!(summary(&modified), [("modified", "api".to_owned())]);
    let deleted = machine.handle(&scope(), Input::Delete(record("web", 4)));
    assert_eq!(summary(&deleted), [("deleted", "web".to_owned())]);
    assert!(
        machine
            .handle(&scope(), Input::Delete(record("web", 4)))
            .is_empty()
    );
    assert_eq!(
        names(&machine.snapshot(&[scope()], &only_a(), None)),
        ["api"]
    );
}

#[test]
fn a_relist_publishes_only_the_differences() {
    let mut machine = listed(&["same", "changed", "gone"]);
    let events = list(
        &mut machine,
        [record("same", 1), record("changed", 2), record("new", 2)],
    );
    let mut got = summary(&events);
    got.sort();
    assert_eq!(
        got,
        [
            ("added", "new".to_owned()),
            ("deleted", "gone".to_owned()),
            ("modified", "changed".to_owned())
        ]
    );
}

#[test]
fn errors_are_told_once_per_episode_and_recovery_is_published() {
    let mut machine = listed(&["web"]);
    let failed = machine.handle(&scope(), Input::Failed(forbidden()));
    assert_eq!(summary(&failed), [("error", A.to_owned())]);
    assert!(
        machine
            .handle(&scope(), Input::Failed(forbidden()))
            .is_empty()
    );
    let snapshot = machine.snapshot(&[scope()], &only_a(), None);
    assert_eq!(snapshot.errors[0].code, "kubernetes_forbidden");
    // The re-list after the failure: recovered, then what changed meanwhile.
    let events = list(&mut machine, [record("web", 1), record("api", 5)]);
    assert_eq!(
        summary(&events),
        [("recovered", A.to_owned()), ("added", "api".to_owned())]
    );
    assert!(
        machine
            .snapshot(&[scope()], &only_a(), None)
            .errors
            .is_empty()
    );
    // A change also ends a failure.
    machine.handle(&scope(), Input::Failed(forbidden()));
    let events = machine.handle(&scope(), Input::Apply(record("api", 6)));
    assert_eq!(
        summary(&events),
        [("recovered", A.to_owned()), ("modified", "api".to_owned())]
    );
}

#[test]
fn a_failure_settles_the_scope_with_its_status_and_advice() {
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    assert!(!machine.is_settled(&scope()));
    let timeout = failure(KubeError::Timeout(Duration::from_secs(10)));
    assert_eq!(timeout.status, None);
    assert_eq!(machine.handle(&scope(), Input::Failed(timeout)).len(), 1);
    assert!(machine.is_settled(&scope()), "a failure settles the scope");
    let events = machine.handle(&scope(), Input::Failed(forbidden()));
    let data: serde_json::Value = serde_json::from_slice(&events[0].data).unwrap();
    assert_eq!(data["status"], 403);
    assert_eq!(data["code"], "kubernetes_forbidden");
    let message = data["message"].as_str().unwrap();
    assert!(
        message.contains("may not list or watch ingresses in team-a"),
        "{message}"
    );
}

#[test]
fn resumes_replay_what_followed_or_resync_when_it_is_gone() {
    let mut machine = listed(&["web"]);
    let first = machine.handle(&scope(), Input::Apply(record("a1", 2)));
    machine.handle(&scope(), Input::Apply(record("a2", 2)));
    let Start::Replay(events) = machine.start(&[scope()], &only_a(), Some(first[0].id)) else {
        panic!("the events after the id are all kept");
    };
    assert_eq!(summary(&events), [("added", "a2".to_owned())]);
    // An id from before the first list (or a later process) gets a resync and a snapshot.
    let Start::Snapshot {
        resync_id: Some(resync),
        id,
        snapshot,
    } = machine.start(&[scope()], &only_a(), Some(50))
    else {
        panic!("a resume from before the list is refused");
    };
    assert_eq!((resync + 1, snapshot.items.len()), (id, 3));
    // Evicted events: a buffer of 2 no longer holds the first of 3 changes.
    let mut machine = Machine::new(100, 2);
    machine.watch(scope());
    list(&mut machine, []);
    let first = machine.handle(&scope(), Input::Apply(record("b1", 2)));
    for name in ["b2", "b3", "b4"] {
        machine.handle(&scope(), Input::Apply(record(name, 2)));
    }
    assert!(matches!(
        machine.start(&[scope()], &only_a(), Some(first[0].id)),
        Start::Snapshot {
            resync_id: Some(_),
            ..
        }
    ));
}

#[test]
fn snapshots_follow_the_selection_and_search() {
    let mut machine = listed(&["web", "shop"]);
    let other = Selection::Only(BTreeSet::from(["elsewhere".to_owned()]));
    assert!(machine.snapshot(&[scope()], &other, None).items.is_empty());
    let found = machine.snapshot(&[scope()], &Selection::All, Some("shop.example"));
    assert_eq!(names(&found), ["shop"]);
}

#[test]
fn a_forgotten_scope_ignores_its_watcher() {
    let mut machine = listed(&["web"]);
    machine.forget(&scope());
    assert!(
        machine
            .handle(&scope(), Input::Apply(record("api", 2)))
            .is_empty()
    );
    assert!(!machine.is_settled(&scope()));
}

/// A record of `namespace` (the helpers above are all in `team-a`).
fn record_in(namespace: &str, name: &str, version: u32) -> Arc<StoredRecord> {
    let ingress: Ingress = serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": namespace, "uid": format!("{namespace}/{name}"),
                     "resourceVersion": version.to_string()},
    }))
    .unwrap();
    Arc::new(StoredRecord::new(&IngressRecord::from_ingress(
        &ingress,
        &Redaction::none(),
    )))
}

#[test]
fn a_limited_view_of_the_cluster_watcher_never_holds_another_namespace() {
    // One cluster-wide watcher serves everyone; the limited user's selection filters it.
    let cluster = [Scope::Cluster];
    let limited = Selection::Visible(crate::access::NamespaceFilter::of(&["shop-*"]));
    let mut machine = Machine::new(100, 16);
    machine.watch(Scope::Cluster);
    let listed = [("shop-eu", "web"), ("secret", "vault"), ("shop-us", "api")]
        .into_iter()
        .map(|(namespace, name)| record_in(namespace, name, 1))
        .collect();
    let events = machine.handle(&Scope::Cluster, Input::Listed(listed));
    assert!(events.is_empty());
    // Snapshots (on connect, and after a resync, which starts the same way).
    let Start::Snapshot { snapshot, .. } = machine.start(&cluster, &limited, None) else {
        panic!("a new client gets a snapshot");
    };
    assert_eq!(names(&snapshot), ["web", "api"]);
    let Start::Snapshot {
        resync_id: Some(_),
        snapshot,
        ..
    } = machine.start(&cluster, &limited, Some(1))
    else {
        panic!("a resume from too old an id gets a resync and a snapshot");
    };
    assert_eq!(names(&snapshot), ["web", "api"]);
    // Live events and Last-Event-ID replays.
    let seen = machine.handle(
        &Scope::Cluster,
        Input::Apply(record_in("shop-eu", "web", 2)),
    );
    let secret = machine.handle(&Scope::Cluster, Input::Apply(record_in("secret", "key", 2)));
    let hidden_delete = machine.handle(
        &Scope::Cluster,
        Input::Delete(record_in("secret", "vault", 3)),
    );
    assert!(seen[0].is_for(&cluster, &limited));
    assert!(!secret[0].is_for(&cluster, &limited) && !hidden_delete[0].is_for(&cluster, &limited));
    assert!(secret[0].is_for(&cluster, &Selection::All));
    let Start::Replay(replayed) = machine.start(&cluster, &limited, Some(seen[0].id - 1)) else {
        panic!("the events after the id are all kept");
    };
    assert_eq!(summary(&replayed), [("modified", "web".to_owned())]);
    // The search applies within the view only.
    let found = machine.snapshot(&cluster, &limited, Some("key"));
    assert!(found.items.is_empty());
}

#[test]
fn retry_times_in_messages_are_whole_seconds() {
    let error = NamespaceError::from_call(
        &scope(),
        &CallError::Kube(KubeError::Api {
            status: 503,
            reason: "ServiceUnavailable".into(),
            message: "down".into(),
        }),
        Some(Duration::from_millis(59_988)),
    );
    assert_eq!(error.status, Some(503));
    assert!(
        error.message.ends_with(" Retrying in 1m."),
        "{}",
        error.message
    );
    let permanent = NamespaceError::from_call(
        &scope(),
        &CallError::Kube(KubeError::Api {
            status: 401,
            reason: "Unauthorized".into(),
            message: "Unauthorized".into(),
        }),
        Some(Duration::from_secs(300)),
    );
    assert!(
        permanent.message.contains("service account token")
            && permanent.message.contains("Not retried for 5m"),
        "{}",
        permanent.message
    );
}
