//! The position of the state (`Machine::position`): every change a snapshot shows moves it, and a
//! stream resumed from it replays exactly the later changes.

use std::collections::BTreeSet;

use k8s_openapi::api::networking::v1::Ingress;
use serde_json::json;

use super::*;
use crate::access::redaction::Redaction;
use crate::records::IngressRecord;

const A: &str = "team-a";

fn scope() -> Scope {
    Scope::Namespace(A.into())
}

fn only_a() -> Selection {
    Selection::Only(BTreeSet::from([A.to_owned()]))
}

fn record(name: &str, version: u32) -> Arc<StoredRecord> {
    let ingress: Ingress = serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": A, "uid": name, "resourceVersion": version.to_string()},
    }))
    .unwrap();
    Arc::new(StoredRecord::new(&IngressRecord::from_ingress(
        &ingress,
        &Redaction::none(),
    )))
}

fn position(machine: &Machine) -> Option<Position> {
    machine.position(&[scope()])
}

fn replayed(machine: &mut Machine, after: u64) -> Option<Vec<u64>> {
    match machine.start(&[scope()], &only_a(), Some(after)) {
        Start::Replay(events) => Some(events.iter().map(|event| event.id).collect()),
        Start::Snapshot { .. } => None,
    }
}

#[test]
fn no_position_until_the_first_list_then_every_change_moves_it() {
    let mut machine = Machine::new(100, 16);
    assert_eq!(position(&machine), None, "not watched");
    machine.watch(scope());
    assert_eq!(position(&machine), None, "syncing");
    // The first list is applied silently, and still moves the position.
    machine.handle(&scope(), Input::Listed(vec![record("web", 1)]));
    let listed = position(&machine).expect("listed");
    assert!(listed.resumable && listed.id > 100, "{listed:?}");
    // A stream client connecting (its snapshot event's id) changes nothing.
    machine.start(&[scope()], &only_a(), None);
    assert_eq!(position(&machine), Some(listed));
    // A change does, to its event's id.
    let events = machine.handle(&scope(), Input::Apply(record("web", 2)));
    assert_eq!(position(&machine).unwrap().id, events[0].id);
    // A namespace error does.
    let error = NamespaceError {
        namespace: A.into(),
        code: "kubernetes_forbidden".into(),
        message: "no".into(),
        status: Some(403),
    };
    let events = machine.handle(&scope(), Input::Failed(error.clone()));
    assert_eq!(position(&machine).unwrap().id, events[0].id);
    // The same error again shows nothing new: no move.
    assert!(machine.handle(&scope(), Input::Failed(error)).is_empty());
    assert_eq!(position(&machine).unwrap().id, events[0].id);
    // The notices do, once.
    let before = position(&machine).unwrap().id;
    let notice = Notice {
        code: "gateway_api_not_installed".into(),
        message: "Gateway API is not installed.".into(),
    };
    machine.set_notices(vec![notice.clone()]);
    let after = position(&machine).unwrap().id;
    assert!(after > before);
    machine.set_notices(vec![notice]);
    assert_eq!(position(&machine).unwrap().id, after);
}

#[test]
fn a_resume_from_the_position_replays_exactly_the_later_changes() {
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    machine.handle(&scope(), Input::Listed(vec![record("web", 1)]));
    let at = position(&machine).unwrap().id;
    assert_eq!(replayed(&mut machine, at), Some(vec![]));
    let changed = machine.handle(&scope(), Input::Apply(record("web", 2)));
    let added = machine.handle(&scope(), Input::Apply(record("api", 1)));
    assert_eq!(
        replayed(&mut machine, at),
        Some(vec![changed[0].id, added[0].id])
    );
    // From before the first list was applied: a snapshot.
    assert_eq!(replayed(&mut machine, at - 1), None);
}

#[test]
fn a_resume_from_before_a_change_of_the_notices_gets_a_snapshot() {
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    machine.handle(&scope(), Input::Listed(vec![record("web", 1)]));
    let at = position(&machine).unwrap().id;
    machine.set_notices(vec![Notice {
        code: "gateway_api_not_installed".into(),
        message: "Gateway API is not installed.".into(),
    }]);
    assert_eq!(replayed(&mut machine, at), None);
    let now = position(&machine).unwrap().id;
    assert_eq!(replayed(&mut machine, now), Some(vec![]));
}

#[test]
fn a_scope_whose_first_list_failed_has_a_position_but_no_resume() {
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    machine.handle(
        &scope(),
        Input::Failed(NamespaceError {
            namespace: A.into(),
            code: "kubernetes_forbidden".into(),
            message: "no".into(),
            status: Some(403),
        }),
    );
    let failed = position(&machine).expect("settled: its snapshot is the error");
    assert!(!failed.resumable);
    // Stopped and forgotten: no position; a restarted scope has one once it lists, a later one.
    machine.forget(&scope());
    assert_eq!(position(&machine), None);
    machine.watch(scope());
    machine.handle(&scope(), Input::Listed(vec![]));
    assert!(position(&machine).unwrap().id > failed.id);
}

/// A selection's position follows its own scopes and the notices, not the others: a busy or
/// stopped watcher elsewhere leaves the body cached for it (and its `eventId`) alone.
#[test]
fn changes_in_another_scope_leave_the_position_alone() {
    let other = Scope::Namespace("team-b".into());
    let in_b = |name: &str, version: u32| {
        let ingress: Ingress = serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "team-b", "uid": name, "resourceVersion": version.to_string()},
        }))
        .unwrap();
        Arc::new(StoredRecord::new(&IngressRecord::from_ingress(
            &ingress,
            &Redaction::none(),
        )))
    };
    let mut machine = Machine::new(100, 16);
    machine.watch(scope());
    machine.watch(other.clone());
    machine.handle(&scope(), Input::Listed(vec![record("web", 1)]));
    machine.handle(&other, Input::Listed(vec![in_b("api", 1)]));
    let at = position(&machine).unwrap();
    let b_events = machine.handle(&other, Input::Apply(in_b("api", 2)));
    assert_eq!(b_events.len(), 1);
    assert_eq!(position(&machine), Some(at), "a change in team-b");
    assert_eq!(
        machine.position(std::slice::from_ref(&other)).unwrap().id,
        b_events[0].id
    );
    assert!(machine.position(&[scope(), other.clone()]).unwrap().id > at.id);
    machine.forget(&other);
    assert_eq!(position(&machine), Some(at), "team-b's watcher stopped");
    // Resumed from there, team-a's stream replays nothing: nothing of team-a changed.
    assert_eq!(replayed(&mut machine, at.id), Some(vec![]));
    // Its own changes and the notices still move it.
    let events = machine.handle(&scope(), Input::Apply(record("web", 2)));
    assert_eq!(position(&machine).unwrap().id, events[0].id);
    machine.set_notices(vec![Notice {
        code: "gateway_api_not_installed".into(),
        message: "Gateway API is not installed.".into(),
    }]);
    assert!(position(&machine).unwrap().id > events[0].id);
}
