//! Cluster settings: persistent and transient settings as flat keys, defaults on request, one
//! setting set or reset through `/api/clusters/:id/settings`, against real nodes of OpenSearch 2
//! and Elasticsearch 8 (secured) through a recording proxy that shows what the console sent;
//! consistent with the allocation lock; and only an admin may write. The nodes are shared with
//! other suites: each test keeps to settings of its own and resets them, and the allocation
//! lock is only ever moved between `all` and `primaries` (on one node neither stops a test
//! elsewhere from creating or reopening an index).

use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::support::real::{REAL, real, real_with};
use crate::support::send;
use crate::templates::audit_lines;

#[tokio::test]
async fn settings_are_read_flat_set_one_at_a_time_and_reset_with_null() {
    for distribution in REAL {
        let f = real(distribution).await;
        let url = f.url("/settings");
        let (status, first) = send(f.app.client.get(&url)).await;
        assert_eq!(status, 200, "{first}");
        assert!(first["persistent"].is_object(), "{first}");
        assert!(first["transient"].is_object(), "{first}");
        assert_eq!(first["defaults"], Value::Null, "{first}");
        assert_eq!(first["persistent"]["search.max_buckets"], Value::Null);
        let read = f.sent("/_cluster/settings");
        assert_eq!(read[0].method, "GET");
        assert_eq!(read[0].param("flat_settings").as_deref(), Some("true"));
        assert_eq!(read[0].param("include_defaults"), None);

        let (status, set) = send(f.app.client.put(&url).json(&json!({
            "scope": "persistent", "key": "search.max_buckets", "value": 20000
        })))
        .await;
        assert_eq!(status, 200, "{distribution:?}: {set}");
        assert_eq!(set["persistent"]["search.max_buckets"], "20000", "{set}");
        // Transient settings are deprecated on Elasticsearch 8, still accepted.
        let (status, set) = send(f.app.client.put(&url).json(&json!({
            "scope": "transient", "key": "cluster.info.update.interval", "value": "45s"
        })))
        .await;
        assert_eq!(status, 200, "{distribution:?}: {set}");
        assert_eq!(set["transient"]["cluster.info.update.interval"], "45s");
        let puts: Vec<Value> = f
            .sent("/_cluster/settings")
            .into_iter()
            .filter(|r| r.method == "PUT")
            .map(|r| r.body.unwrap())
            .collect();
        assert_eq!(
            puts,
            vec![
                json!({"persistent": {"search.max_buckets": 20000}}),
                json!({"transient": {"cluster.info.update.interval": "45s"}}),
            ]
        );

        let (status, all) = send(f.app.client.get(format!("{url}?includeDefaults=true"))).await;
        assert_eq!(status, 200);
        assert_eq!(all["persistent"]["search.max_buckets"], "20000");
        let defaults = all["defaults"].as_object().unwrap();
        assert!(defaults.len() > 50, "{}", defaults.len());
        assert!(defaults.contains_key("action.auto_create_index"));
        // Flat: no object values (a real node has a few undotted top-level keys, `processors`).
        let nested: Vec<&String> = defaults
            .iter()
            .filter(|(_, value)| value.is_object())
            .map(|(key, _)| key)
            .collect();
        assert!(nested.is_empty(), "flat keys: {nested:?}");
        assert!(defaults.contains_key("search.default_keep_alive"), "dotted");
        let with_defaults = f
            .sent("/_cluster/settings")
            .into_iter()
            .filter(|r| r.param("include_defaults").is_some())
            .count();
        assert_eq!(with_defaults, 1);

        for (scope, key) in [
            ("persistent", "search.max_buckets"),
            ("transient", "cluster.info.update.interval"),
        ] {
            let (status, reset) = send(f.app.client.put(&url).json(&json!({
                "scope": scope, "key": key, "value": null
            })))
            .await;
            assert_eq!(status, 200, "{reset}");
            assert_eq!(reset[scope][key], Value::Null, "{reset}");
        }
    }
}

#[tokio::test]
async fn bad_settings_are_refused_and_the_cluster_reason_passes_through() {
    for distribution in REAL {
        bad_settings(distribution).await;
    }
}

async fn bad_settings(distribution: Distribution) {
    let f = real(distribution).await;
    let url = f.url("/settings");
    for (body, expected) in [
        (
            json!({"scope": "persistent", "key": "cluster.*", "value": 1}),
            "wildcards",
        ),
        (
            json!({"scope": "persistent", "key": "cluster", "value": 1}),
            "dotted words",
        ),
        (
            json!({"scope": "persistent", "key": "a.b", "value": {"c": 1}}),
            "set each key",
        ),
        (
            json!({"scope": "forever", "key": "a.b", "value": 1}),
            "unknown variant",
        ),
        (
            json!({"scope": "persistent", "key": "a.b"}),
            "missing field `value`",
        ),
        (
            json!({"scope": "persistent", "key": "cluster.routing.allocation.enable", "value": "everything"}),
            "all, primaries, new_primaries, none",
        ),
    ] {
        let (status, answer) = send(f.app.client.put(&url).json(&body)).await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert!(
            answer["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains(expected),
            "{expected}: {answer}"
        );
    }
    let (status, answer) = send(f.app.client.get(format!("{url}?includeDefaults=yes"))).await;
    assert_eq!(status, 400, "{answer}");
    assert!(f.sent("/_cluster/settings").is_empty());
    let (status, answer) = send(f.app.client.put(&url).json(&json!({
        "scope": "persistent", "key": "no.such.setting", "value": "x"
    })))
    .await;
    assert_eq!(status, 400, "{distribution:?}: {answer}");
    assert_eq!(answer["error"]["code"], "rejected_by_cluster");
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not recognized"),
        "{answer}"
    );
}

#[tokio::test]
async fn the_allocation_lock_reads_what_the_settings_editor_writes() {
    for distribution in REAL {
        let f = real(distribution).await;
        let url = f.url("/settings");
        let allocation = f.url("/allocation");
        let (status, body) = send(f.app.client.put(&url).json(&json!({
            "scope": "persistent", "key": "cluster.routing.allocation.enable", "value": "primaries"
        })))
        .await;
        assert_eq!(status, 200, "{body}");
        let (_, lock) = send(f.app.client.get(&allocation)).await;
        assert_eq!(
            lock,
            json!({"enable": "primaries", "locked": true, "excluded": {"names": [], "ips": [], "hosts": []}}),
            "{distribution:?}"
        );
        // The lock writes the same persistent key the editor shows.
        let (status, body) = send(
            f.app
                .client
                .put(&allocation)
                .json(&json!({"enable": "all"})),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            f.writes().last().unwrap().3,
            Some(json!({"persistent": {"cluster.routing.allocation.enable": "all"}}))
        );
        let (_, settings) = send(f.app.client.get(&url)).await;
        assert_eq!(
            settings["persistent"]["cluster.routing.allocation.enable"], "all",
            "{settings}"
        );
        let (_, lock) = send(f.app.client.get(&allocation)).await;
        assert_eq!(
            lock,
            json!({"enable": "all", "locked": false, "excluded": {"names": [], "ips": [], "hosts": []}})
        );
        let (status, _) = send(f.app.client.put(&url).json(&json!({
            "scope": "persistent", "key": "cluster.routing.allocation.enable", "value": null
        })))
        .await;
        assert_eq!(status, 200);
        let (_, lock) = send(f.app.client.get(&allocation)).await;
        assert_eq!(
            lock,
            json!({"enable": "all", "locked": false, "excluded": {"names": [], "ips": [], "hosts": []}})
        );
    }
}

#[tokio::test]
async fn only_an_admin_edits_cluster_settings() {
    let dir = TempDir::new("settings-roles");
    let file = dir.path().join("audit.log");
    let f = real_with(Distribution::OpenSearch2, |clusters| {
        format!(
            "{}audit:\n  file: {}\n",
            trusted_yaml(clusters),
            file.display()
        )
    })
    .await;
    let url = f.url("/settings");
    let body =
        json!({"scope": "persistent", "key": "search.default_search_timeout", "value": "50s"});
    for caller in [&VIEWER, &OPERATOR] {
        let (status, answer) = send(as_caller(f.app.client.put(&url).json(&body), caller)).await;
        assert_eq!(status, 403, "{answer}");
    }
    assert!(
        f.sent("/_cluster/settings").is_empty(),
        "a refused call reaches nothing"
    );
    let (status, _) = send(as_caller(f.app.client.get(&url), &VIEWER)).await;
    assert_eq!(status, 200);
    let (status, answer) = send(as_caller(f.app.client.put(&url).json(&body), &ADMIN)).await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["persistent"]["search.default_search_timeout"], "50s",
        "{answer}"
    );
    let lines = audit_lines(&file, 3).await;
    assert_eq!(
        lines
            .iter()
            .map(|line| (
                line["user"].as_str().unwrap(),
                line["outcome"].as_str().unwrap()
            ))
            .collect::<Vec<_>>(),
        vec![("vera", "denied"), ("otto", "denied"), ("ada", "success")]
    );
    let reset =
        json!({"scope": "persistent", "key": "search.default_search_timeout", "value": null});
    let (status, answer) = send(as_caller(f.app.client.put(&url).json(&reset), &ADMIN)).await;
    assert_eq!(status, 200, "{answer}");
}
