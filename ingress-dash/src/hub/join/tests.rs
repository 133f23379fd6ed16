//! The joiner's lists taken page by page: what a relist removes, what it answers, and changes
//! behind records that arrive while a list is in progress.

use serde_json::{Value, json};

use super::holders::Holders;
use super::*;
use crate::kube::watched_kinds::Object;

fn ingress(name: &str, version: u32, service: &str) -> Object {
    Object::Ingress(Box::new(
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "shop", "uid": name,
                         "resourceVersion": version.to_string()},
            "spec": {"rules": [{"host": format!("{name}.example.com"), "http": {"paths": [
                {"path": "/", "pathType": "Prefix",
                 "backend": {"service": {"name": service, "port": {"number": 80}}}},
            ]}}]},
        }))
        .unwrap(),
    ))
}

fn service(name: &str) -> Object {
    Object::Service(Box::new(
        serde_json::from_value(json!({"metadata": {"name": name, "namespace": "shop"}})).unwrap(),
    ))
}

fn slice(name: &str, service: &str, ready: &[bool]) -> Object {
    let endpoints: Vec<Value> = ready
        .iter()
        .map(|ready| json!({"addresses": ["10.0.0.1"], "conditions": {"ready": ready}}))
        .collect();
    Object::EndpointSlice(Box::new(
        serde_json::from_value(json!({
            "metadata": {"name": name, "namespace": "shop",
                         "labels": {"kubernetes.io/service-name": service}},
            "addressType": "IPv4",
            "endpoints": endpoints,
        }))
        .unwrap(),
    ))
}

fn names(records: &[Arc<StoredRecord>]) -> Vec<String> {
    let mut names: Vec<String> = records.iter().map(|r| r.name.to_string()).collect();
    names.sort();
    names
}

/// (state, ready, total) of the record's first backend.
fn backend(joiner: &Joiner, name: &str) -> (String, u64, u64) {
    let record = joiner
        .all()
        .into_iter()
        .find(|record| &*record.name == name)
        .expect("the record is held");
    let value: Value = serde_json::from_str(&record.json()).unwrap();
    let backend = &value["backends"][0];
    (
        backend["state"].as_str().unwrap().to_owned(),
        backend["readyEndpoints"].as_u64().unwrap(),
        backend["totalEndpoints"].as_u64().unwrap(),
    )
}

fn joiner(kinds: &[WatchedKind]) -> Joiner {
    Joiner::new(Arc::new(Redaction::none()), kinds)
}

#[test]
fn a_relist_in_pages_removes_what_it_did_not_hold_and_answers_only_changes() {
    let mut joiner = joiner(&[]);
    let first = joiner.listed(
        WatchedKind::Ingresses,
        &[
            ingress("a", 1, "web"),
            ingress("b", 1, "web"),
            ingress("c", 1, "web"),
        ],
    );
    assert_eq!(names(&first.upserts), ["a", "b", "c"]);
    joiner.begin(WatchedKind::Ingresses);
    let page1 = joiner.page(WatchedKind::Ingresses, &[ingress("a", 1, "web")]);
    let page2 = joiner.page(
        WatchedKind::Ingresses,
        &[ingress("b", 2, "web"), ingress("d", 2, "web")],
    );
    // Nothing is removed before the list completes.
    assert_eq!(names(&joiner.all()), ["a", "b", "c", "d"]);
    let finished = joiner.finish(WatchedKind::Ingresses);
    assert!(
        page1.upserts.is_empty(),
        "an unchanged record is not answered"
    );
    assert_eq!(names(&page2.upserts), ["b", "d"]);
    assert_eq!(names(&finished.deletes), ["c"]);
    assert!(finished.upserts.is_empty());
    assert_eq!(names(&joiner.all()), ["a", "b", "d"]);
    // The gone ingress's certificate expiries are cleared.
    assert!(
        finished
            .expiries
            .iter()
            .any(|((_, name), expiries)| name == "c" && expiries.is_empty())
    );
}

#[test]
fn a_list_started_again_voids_the_pages_of_the_unfinished_one() {
    let mut joiner = joiner(&[]);
    joiner.listed(
        WatchedKind::Ingresses,
        &[ingress("a", 1, "web"), ingress("b", 1, "web")],
    );
    // A list that fails after its first page (held: "z", new) ...
    joiner.begin(WatchedKind::Ingresses);
    joiner.page(
        WatchedKind::Ingresses,
        &[
            ingress("a", 1, "web"),
            ingress("b", 1, "web"),
            ingress("z", 1, "web"),
        ],
    );
    // ... and the list made again, which holds only "a".
    joiner.begin(WatchedKind::Ingresses);
    joiner.page(WatchedKind::Ingresses, &[ingress("a", 1, "web")]);
    let finished = joiner.finish(WatchedKind::Ingresses);
    assert_eq!(names(&finished.deletes), ["b", "z"]);
    assert_eq!(names(&joiner.all()), ["a"]);
    // A completion without a list in progress changes nothing.
    assert!(joiner.finish(WatchedKind::Ingresses).deletes.is_empty());
}

#[test]
fn changes_behind_records_during_their_list_are_sent_once_it_completes() {
    let kinds = [WatchedKind::Services, WatchedKind::EndpointSlices];
    let mut joiner = joiner(&kinds);
    joiner.listed(WatchedKind::Services, &[service("web")]);
    joiner.listed(
        WatchedKind::EndpointSlices,
        &[slice("web-1", "web", &[true])],
    );
    joiner.listed(WatchedKind::Ingresses, &[ingress("a", 1, "web")]);
    joiner.flush();
    assert_eq!(backend(&joiner, "a"), ("ready".into(), 1, 1));
    joiner.begin(WatchedKind::Ingresses);
    assert!(
        joiner
            .page(WatchedKind::Ingresses, &[ingress("a", 1, "web")])
            .upserts
            .is_empty()
    );
    // The slice loses its ready endpoint while the ingress list is in progress.
    joiner.changed(&slice("web-1", "web", &[false]), false);
    assert!(
        joiner.flush().upserts.is_empty(),
        "held until the list completes"
    );
    assert!(joiner.has_dirty());
    assert!(joiner.finish(WatchedKind::Ingresses).deletes.is_empty());
    let changes = joiner.flush();
    assert_eq!(names(&changes.upserts), ["a"]);
    assert_eq!(backend(&joiner, "a"), ("no_ready_endpoints".into(), 0, 1));
}

#[test]
fn backend_counts_follow_slices_listed_in_pages() {
    let kinds = [WatchedKind::Services, WatchedKind::EndpointSlices];
    let mut joiner = joiner(&kinds);
    joiner.listed(WatchedKind::Ingresses, &[ingress("a", 1, "web")]);
    joiner.begin(WatchedKind::Services);
    joiner.page(WatchedKind::Services, &[service("web")]);
    joiner.finish(WatchedKind::Services);
    joiner.begin(WatchedKind::EndpointSlices);
    joiner.page(
        WatchedKind::EndpointSlices,
        &[slice("web-1", "web", &[true, false])],
    );
    // Before the slices' list completes, the counts are not known yet.
    joiner.flush();
    assert_eq!(backend(&joiner, "a").0, "unknown");
    joiner.page(
        WatchedKind::EndpointSlices,
        &[slice("web-2", "web", &[true])],
    );
    joiner.finish(WatchedKind::EndpointSlices);
    joiner.flush();
    assert_eq!(backend(&joiner, "a"), ("degraded".into(), 2, 3));
    // A relist without web-1: only web-2 counts; a relist without the Service: missing.
    joiner.listed(
        WatchedKind::EndpointSlices,
        &[slice("web-2", "web", &[true])],
    );
    joiner.flush();
    assert_eq!(backend(&joiner, "a"), ("ready".into(), 1, 1));
    joiner.listed(WatchedKind::Services, &[]);
    let changes = joiner.flush();
    assert_eq!(names(&changes.upserts), ["a"]);
    assert_eq!(backend(&joiner, "a"), ("missing_service".into(), 0, 0));
    // A slice moved to another Service stops counting for the first one.
    joiner.listed(WatchedKind::Services, &[service("web"), service("api")]);
    joiner.changed(&slice("web-2", "api", &[true]), false);
    joiner.flush();
    assert_eq!(backend(&joiner, "a"), ("no_ready_endpoints".into(), 0, 0));
}

#[test]
fn a_service_holds_its_records_in_place_then_in_a_list_and_forgets_the_last() {
    let key =
        |name: &str| -> RecordKey { (RecordKind::Ingress, Arc::from("shop"), Arc::from(name)) };
    let mut holders = Holders::One(key("a"));
    holders.insert(&key("a"));
    assert!(matches!(holders, Holders::One(_)));
    holders.insert(&key("b"));
    holders.insert(&key("b"));
    assert_eq!(holders.keys(), [key("a"), key("b")]);
    assert!(!holders.remove(&key("c")));
    assert!(!holders.remove(&key("a")));
    assert!(matches!(&holders, Holders::One(only) if *only == key("b")));
    assert!(!holders.remove(&key("a")));
    assert!(holders.remove(&key("b")));
}

#[test]
fn a_kind_failing_again_with_the_same_code_re_sends_nothing() {
    let mut joiner = joiner(&[WatchedKind::Services, WatchedKind::EndpointSlices]);
    joiner.listed(WatchedKind::Ingresses, &[ingress("a", 1, "web")]);
    joiner.failed(
        WatchedKind::Services,
        "circuit_open".into(),
        "calls are paused for 59s".into(),
    );
    let first = joiner.flush();
    assert_eq!(names(&first.upserts), ["a"]);
    // The breaker's countdown changes the message, not the failure: no record is re-sent.
    joiner.failed(
        WatchedKind::Services,
        "circuit_open".into(),
        "calls are paused for 41s".into(),
    );
    assert!(!joiner.has_dirty());
    assert!(joiner.flush().upserts.is_empty());
    // Another failure is shown.
    joiner.failed(
        WatchedKind::Services,
        "forbidden".into(),
        "may not list services".into(),
    );
    let other = joiner.flush();
    assert_eq!(names(&other.upserts), ["a"]);
    assert!(other.upserts[0].json().contains("may not list services"));
}
