//! Recovery progress (issue 34): a drained node's copy leaves as a peer recovery, which
//! `GET /recoveries` and `GET /indices/{index}/recoveries` report with its stage, nodes and
//! bytes while it runs (recoveries throttled to 100 kB/s over some megabytes), and no more once
//! it is done. The shared three-node clusters, OpenSearch 2.19 and Elasticsearch 7.10.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::{Distribution, eventually};

use super::{DISTRIBUTIONS, cluster_calls, copies, node_id, stack};
use crate::support::{get_json_blocking, wait_until};

/// About 2.4 MB of stored text that does not compress much (hex of a pseudo-random sequence).
fn bulk_body(index: &str) -> String {
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..2_400)
        .map(|n| {
            let text: String = (0..64)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1_442_695_040_888_963_407);
                    format!("{:016x}", seed >> 1)
                })
                .collect();
            format!(
                "{{\"index\":{{\"_index\":\"{index}\",\"_id\":\"{n}\"}}}}\n{{\"text\":\"{text}\"}}\n"
            )
        })
        .collect()
}

/// The recoveries of `index` in a route's answer.
fn of_index<'a>(answer: &'a Value, index: &str) -> Vec<&'a Value> {
    answer["recoveries"]
        .as_array()
        .unwrap_or_else(|| panic!("recoveries in {answer}"))
        .iter()
        .filter(|recovery| recovery["index"] == index)
        .collect()
}

#[tokio::test]
async fn a_draining_nodes_copy_is_reported_as_a_peer_recovery_until_it_lands() {
    for distribution in DISTRIBUTIONS {
        drain_and_watch(distribution).await;
    }
}

async fn drain_and_watch(distribution: Distribution) {
    let stack = stack(distribution, "shrecover", 1).await;
    let index = "shrecover-0000";
    stack
        .fill_and_throttle(index, bulk_body(index), "100kb")
        .await;
    stack.warm().await;

    // Nothing recovers yet.
    let (status, idle) = stack
        .app
        .get_json(&format!("/api/clusters/c/indices/{index}/recoveries"))
        .await;
    assert_eq!(status, 200, "{idle}");
    assert_eq!(idle["recoveries"], json!([]), "{idle}");
    let sent = cluster_calls(&stack.proxy.requests(), &format!("/{index}/_recovery"));
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].param("active_only").as_deref(), Some("true"));

    // The index name is checked before any call; an unknown index is the cluster's 404.
    let (status, refused) = stack
        .app
        .get_json("/api/clusters/c/indices/shrecover-*/recoveries")
        .await;
    assert_eq!(status, 400, "{refused}");
    let (status, missing) = stack
        .app
        .get_json("/api/clusters/c/indices/shrecover-missing/recoveries")
        .await;
    assert_eq!(status, 404, "{missing}");

    // Drain the node of the primary: the copy moves to the node without a copy.
    let grid = stack.grid().await;
    let primary = copies(&grid, index)
        .iter()
        .find(|copy| copy["primary"] == true)
        .unwrap()
        .clone();
    let victim = node_id(&grid, &primary, "node").unwrap();
    let drain = stack
        .app
        .url(&format!("/api/clusters/c/nodes/{victim}/drain"));
    let drained = stack.app.client.put(&drain).send().await.unwrap();
    assert_eq!(drained.status().as_u16(), 200);

    let (all, in_index) = (
        stack.app.url("/api/clusters/c/recoveries"),
        format!("/api/clusters/c/indices/{index}/recoveries"),
    );
    let mut seen = Value::Null;
    eventually(
        "a peer recovery off the drained node, with bytes",
        Duration::from_secs(60),
        async || {
            let Ok(response) = stack.app.client.get(&all).send().await else {
                return false;
            };
            let answer: Value = response.json().await.unwrap_or(Value::Null);
            let found = answer["recoveries"].as_array().and_then(|list| {
                list.iter()
                    .find(|recovery| {
                        recovery["index"] == index
                            && recovery["kind"] == "peer"
                            && recovery["sourceNodeId"] == victim.as_str()
                            && recovery["bytes"]["total"].as_u64().unwrap_or(0) > 1_000_000
                    })
                    .cloned()
            });
            match found {
                Some(recovery) => {
                    seen = recovery;
                    true
                }
                None => false,
            }
        },
    )
    .await;
    eprintln!("{distribution:?}: recovery seen while the node drains: {seen}");
    assert!(
        ["init", "index", "verify_index", "translog", "finalize"]
            .contains(&seen["stage"].as_str().unwrap()),
        "{seen}"
    );
    assert_eq!(seen["primary"], true, "{seen}");
    assert_ne!(seen["targetNodeId"], victim.as_str(), "{seen}");
    assert!(seen["targetNode"].is_string(), "{seen}");
    let percent = seen["bytes"]["percent"].as_f64().unwrap();
    assert!((0.0..=100.0).contains(&percent), "{seen}");
    assert!(seen["files"]["total"].as_u64().unwrap() > 0, "{seen}");
    assert!(seen["elapsedMillis"].is_u64(), "{seen}");

    // The index's own route reports it as well, while it runs.
    let (status, one) = stack.app.get_json(&in_index).await;
    assert_eq!(status, 200, "{one}");
    assert_eq!(of_index(&one, index).len(), 1, "{one}");

    // Once it has landed, nothing is reported.
    eventually(
        "the recovery finished",
        Duration::from_secs(180),
        async || {
            let (status, answer) = stack.app.get_json(&in_index).await;
            status == 200 && of_index(&answer, index).is_empty()
        },
    )
    .await;
    // The hand-off from source to target follows the recovery's end.
    let url = stack.app.url("/api/clusters/c/shards");
    let (moving, left) = (index.to_owned(), victim.clone());
    wait_until(
        "every copy started off the drained node",
        Duration::from_secs(60),
        move || {
            get_json_blocking(&url).is_some_and(|grid| {
                copies(&grid, &moving).iter().all(|copy| {
                    copy["state"] == "started"
                        && node_id(&grid, copy, "node").as_deref() != Some(left.as_str())
                })
            })
        },
    )
    .await;

    stack.throttle(Value::Null).await;
    let undone = stack.app.client.delete(&drain).send().await.unwrap();
    assert_eq!(undone.status().as_u16(), 200);
    stack.delete("shrecover-*").await;
}
