use std::io::Read;
use std::time::Duration;

use k8s_openapi::api::networking::v1::Ingress;
use serde_json::json;

use super::*;
use crate::http::snapshot_body::Layout;
use crate::hub::NamespaceError;
use crate::records::{IngressRecord, StoredRecord};

fn record(name: &str, version: u32) -> Arc<StoredRecord> {
    let ingress: Ingress = serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "shop", "resourceVersion": version.to_string()},
        "spec": {"rules": [{"host": format!("{name}.example.com")}]},
    }))
    .unwrap();
    Arc::new(StoredRecord::new(&IngressRecord::from_ingress(
        &ingress,
        &crate::access::redaction::Redaction::none(),
    )))
}

fn snapshot(items: &[Arc<StoredRecord>]) -> Snapshot {
    at(items, 1)
}

/// A snapshot of `items` made at the hub's `position`.
fn at(items: &[Arc<StoredRecord>], position: u64) -> Snapshot {
    Snapshot {
        items: items.to_vec(),
        expiry_warning_days: 14,
        position: Some(position),
        ..Snapshot::default()
    }
}

fn key(search: Option<&str>) -> RequestKey {
    RequestKey {
        selection: Selection::All,
        search: search.map(str::to_owned),
    }
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .read_to_end(&mut out)
        .unwrap();
    out
}

fn uncached(items: &[Arc<StoredRecord>]) -> Vec<u8> {
    snapshot(items)
        .into_json_chunks(Layout::LinePerItem)
        .flatten()
        .collect()
}

#[tokio::test]
async fn the_cached_body_is_the_snapshot_and_follows_the_position() {
    let cache = SnapshotCache::default();
    let mut items = vec![record("a", 1), record("b", 1)];
    assert_eq!(cache.cached(&key(None), 1).await, None, "nothing kept yet");
    let first = cache.gzip(key(None), at(&items, 1)).whole().await.unwrap();
    assert_eq!(gunzip(&first), uncached(&items));
    // The same position: served from the cache without a snapshot.
    assert_eq!(cache.cached(&key(None), 1).await, Some(first.clone()));
    let again = cache.gzip(key(None), at(&items, 1)).whole().await.unwrap();
    assert_eq!((again, cache.builds()), (first.clone(), 1));
    // A record changed: a new position, a new body, and the old one is gone.
    items[1] = record("b", 2);
    assert_eq!(cache.cached(&key(None), 2).await, None);
    let changed = cache.gzip(key(None), at(&items, 2)).whole().await.unwrap();
    assert_eq!(gunzip(&changed), uncached(&items));
    assert_ne!(gunzip(&changed), gunzip(&first));
    assert_eq!(cache.builds(), 2);
    assert_eq!(cache.cached(&key(None), 1).await, None);
    // A request that made its snapshot before the change does not replace the newer body.
    let late = cache
        .gzip(key(None), at(&items[..1], 1))
        .whole()
        .await
        .unwrap();
    assert_eq!(gunzip(&late), uncached(&items[..1]));
    assert_eq!(cache.cached(&key(None), 2).await, Some(changed));
    // An error appearing is a change too; its body carries it.
    let mut failing = at(&items, 3);
    failing.errors.push(NamespaceError {
        namespace: "team-a".into(),
        code: "kubernetes_forbidden".into(),
        message: "no".into(),
        status: Some(403),
    });
    let expected: Vec<u8> = failing
        .clone()
        .into_json_chunks(Layout::LinePerItem)
        .flatten()
        .collect();
    assert_eq!(
        gunzip(&cache.gzip(key(None), failing).whole().await.unwrap()),
        expected
    );
    // A snapshot without a position (made from a list) is encoded and not kept.
    let mut listed = snapshot(&items);
    listed.position = None;
    cache
        .gzip(key(Some("listed")), listed)
        .whole()
        .await
        .unwrap();
    assert_eq!(cache.entries.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn a_build_that_fails_is_an_error_not_a_panic() {
    let cache = SnapshotCache::default();
    let result = cache
        .get_or_build(key(None), snapshot(&[]), |_, _| {
            panic!("the encoder failed")
        })
        .whole()
        .await;
    assert!(
        matches!(result, Err(Error::SnapshotEncoding(_))),
        "{result:?}"
    );
    // Nothing is kept: the next request builds again.
    assert_eq!(cache.cached(&key(None), 1).await, None);
    assert!(cache.gzip(key(None), snapshot(&[])).whole().await.is_ok());
}

#[tokio::test]
async fn keys_are_cached_apart_and_bounded() {
    let cache = SnapshotCache::default();
    let items = vec![record("a", 1)];
    for round in 0..2 {
        for term in 0..MAX_ENTRIES {
            let term = term.to_string();
            cache
                .gzip(key(Some(&term)), snapshot(&items))
                .whole()
                .await
                .unwrap();
        }
        assert_eq!(cache.builds(), MAX_ENTRIES as u64, "round {round}");
    }
    // One more key pushes the least recently used one out.
    cache
        .gzip(key(Some("new")), snapshot(&items))
        .whole()
        .await
        .unwrap();
    assert_eq!(cache.entries.lock().unwrap().len(), MAX_ENTRIES);
    cache
        .gzip(key(Some("0")), snapshot(&items))
        .whole()
        .await
        .unwrap();
    assert_eq!(cache.builds(), MAX_ENTRIES as u64 + 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_identical_requests_share_one_build() {
    let cache = Arc::new(SnapshotCache::default());
    let items = vec![record("a", 1), record("b", 1)];
    // The build waits until every request is waiting for it.
    let (release, gate) = std::sync::mpsc::channel::<()>();
    let gate = Arc::new(Mutex::new(gate));
    let requests = 8;
    let tasks: Vec<_> = (0..requests)
        .map(|_| {
            let (cache, snapshot, gate) = (cache.clone(), snapshot(&items), gate.clone());
            tokio::spawn(async move {
                cache
                    .get_or_build(key(None), snapshot, move |snapshot, part| {
                        gate.lock().unwrap().recv().unwrap();
                        gzip_snapshot_in_parts(snapshot, part)
                    })
                    .whole()
                    .await
                    .unwrap()
            })
        })
        .collect();
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while cache.waiting() < requests {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the requests did not all wait"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // A request that only looks the body up waits for the same build.
    let looker = {
        let cache = cache.clone();
        tokio::spawn(async move { cache.cached(&key(None), 1).await })
    };
    while cache.waiting() < requests + 1 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "the lookup did not wait"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    release.send(()).unwrap();
    let mut bodies = vec![looker.await.unwrap().expect("the lookup got the body")];
    for task in tasks {
        bodies.push(task.await.unwrap());
    }
    assert_eq!(cache.builds(), 1);
    assert!(bodies.iter().all(|body| *body == bodies[0]));
    assert_eq!(gunzip(&bodies[0]), uncached(&items));
}

/// The request that starts a build reads the body while it is compressed; one that goes away
/// does not stop the build, which is kept for the next requests.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_building_request_gets_the_parts_as_they_are_compressed() {
    let items: Vec<_> = (0..20_000)
        .map(|i| record(&format!("app-{i}"), 1))
        .collect();
    for stays in [true, false] {
        let cache = SnapshotCache::default();
        // The build stops after its first part until released.
        let (release, gate) = std::sync::mpsc::channel::<()>();
        let body = cache.get_or_build(key(None), at(&items, 1), move |snapshot, part| {
            let mut first = true;
            gzip_snapshot_in_parts(snapshot, &mut |bytes| {
                part(bytes);
                if std::mem::take(&mut first) {
                    gate.recv().unwrap();
                }
            })
        });
        let GzipBody::Building(mut parts) = body else {
            panic!("a new body is built for this request")
        };
        let first = tokio::time::timeout(Duration::from_secs(10), parts.recv())
            .await
            .expect("the first part came while the build waits")
            .unwrap()
            .unwrap();
        assert_eq!((first[0], first[1]), (0x1f, 0x8b), "a gzip stream's start");
        if !stays {
            drop(parts);
            release.send(()).unwrap();
            let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
            while cache.waiting() > 0 {
                assert!(
                    tokio::time::Instant::now() < deadline,
                    "the build did not end"
                );
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            let kept = cache.cached(&key(None), 1).await.expect("kept");
            assert_eq!(gunzip(&kept), uncached(&items));
            assert_eq!(cache.builds(), 1);
            continue;
        }
        release.send(()).unwrap();
        let mut body = first.to_vec();
        let mut count = 1;
        while let Some(part) = parts.recv().await {
            body.extend_from_slice(&part.unwrap());
            count += 1;
        }
        assert!(count > 1, "{} bytes came in one part", body.len());
        assert_eq!(gunzip(&body), uncached(&items));
        assert_eq!(
            cache.cached(&key(None), 1).await.as_deref(),
            Some(&body[..])
        );
    }
}

#[test]
fn accept_encoding_is_read_with_q_values() {
    for (header, gzip) in [
        ("gzip", true),
        ("gzip, deflate, br", true),
        ("br;q=1.0, GZIP;q=0.5", true),
        ("*", true),
        ("identity", false),
        ("", false),
        ("gzip;q=0", false),
        ("gzip;q=0, *", false),
        ("*;q=0", false),
        ("deflate", false),
    ] {
        assert_eq!(accepts_gzip(header), gzip, "{header:?}");
    }
}
