//! Comparing two clusters (`GET /api/clusters/{left}/compare/{right}`) on the shared real nodes
//! of OpenSearch 2 and Elasticsearch 8 (secured), each behind a recording proxy of the test's
//! own: templates of the test's own names (`cmp-…`) on one side or both, differences first, a
//! lifecycle API a node lacks as that side's error, and a second cluster the caller may not see
//! answered like an unknown one. Nothing but reads reaches the clusters.

use serde_json::{Value, json};
use test_support::Distribution;

use crate::access::{VIEWER, as_caller, trusted_yaml};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{proxy_before, shared};
use crate::support::send;

/// `PUT` (or `DELETE` with no body) straight to a node through its proxy.
async fn on_node(
    app: &TestApp,
    url: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) {
    let mut request = app.client.request(method, format!("{url}{path}"));
    if let Some(body) = body {
        request = request.json(&body);
    }
    let (status, body) = send(request).await;
    assert!(status == 200 || status == 404, "{path}: {status} {body}");
}

fn section<'a>(comparison: &'a Value, kind: &str) -> &'a Value {
    comparison["sections"]
        .as_array()
        .unwrap()
        .iter()
        .find(|section| section["kind"] == kind)
        .unwrap_or_else(|| panic!("no section {kind} in {comparison}"))
}

fn entry<'a>(section: &'a Value, name: &str) -> &'a Value {
    section["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["name"] == name)
        .unwrap_or_else(|| panic!("no entry {name} in {section}"))
}

#[tokio::test]
async fn two_clusters_side_by_side_with_their_differences_first() {
    let left = proxy_before(shared(Distribution::OpenSearch2).await);
    let right = proxy_before(shared(Distribution::Elasticsearch8Secured).await);
    let clusters = format!(
        "{}{}",
        cluster_yaml("os", &left.url),
        cluster_yaml("es", &right.url)
    );
    let app = spawn_app(&format!("clusters:\n{clusters}")).await;
    let template = |priority: u32| json!({"index_patterns": [format!("cmp-{priority}-*")], "priority": 900 + priority});
    for url in [&left.url, &right.url] {
        on_node(
            &app,
            url,
            reqwest::Method::PUT,
            "/_index_template/cmp-both-same",
            Some(template(1)),
        )
        .await;
    }
    on_node(
        &app,
        &left.url,
        reqwest::Method::PUT,
        "/_index_template/cmp-both-changed",
        Some(template(2)),
    )
    .await;
    on_node(
        &app,
        &right.url,
        reqwest::Method::PUT,
        "/_index_template/cmp-both-changed",
        Some(template(3)),
    )
    .await;
    on_node(
        &app,
        &left.url,
        reqwest::Method::PUT,
        "/_index_template/cmp-only-left",
        Some(template(4)),
    )
    .await;
    left.clear_requests();
    right.clear_requests();

    let (status, comparison) = send(app.client.get(app.url("/api/clusters/os/compare/es"))).await;
    assert_eq!(status, 200, "{comparison}");
    assert_eq!(
        (&comparison["left"], &comparison["right"]),
        (&json!("os"), &json!("es"))
    );
    let kinds: Vec<&str> = comparison["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|section| section["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "persistentSettings",
            "transientSettings",
            "indexTemplates",
            "componentTemplates",
            "legacyTemplates",
            "lifecyclePolicies"
        ]
    );
    let templates = section(&comparison, "indexTemplates");
    assert_eq!(templates["leftError"], Value::Null, "{templates}");
    assert_eq!(templates["rightError"], Value::Null, "{templates}");
    let same = entry(templates, "cmp-both-same");
    assert_eq!(same["state"], "same", "{same}");
    let changed = entry(templates, "cmp-both-changed");
    assert_eq!(changed["state"], "different");
    assert_eq!(changed["left"]["priority"], 902);
    assert_eq!(changed["right"]["priority"], 903);
    let only_left = entry(templates, "cmp-only-left");
    assert_eq!(
        (&only_left["state"], &only_left["right"]),
        (&json!("onlyLeft"), &Value::Null)
    );
    // Differences first: no entry that differs comes after one that is the same.
    let states: Vec<&str> = templates["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["state"].as_str().unwrap())
        .collect();
    let first_same = states.iter().position(|state| *state == "same").unwrap();
    assert!(
        states[first_same..].iter().all(|state| *state == "same"),
        "{states:?}"
    );
    let differing = states.iter().filter(|state| **state != "same").count();
    assert_eq!(templates["differences"], differing);

    // The lifecycle section: policies, or in words which API the node lacks.
    let lifecycle = section(&comparison, "lifecyclePolicies");
    for (side, api) in [("leftError", "ISM"), ("rightError", "ILM")] {
        if let Some(error) = lifecycle[side].as_str() {
            assert!(error.contains(&format!("no {api} API")), "{side}: {error}");
        }
    }
    // Only reads reached the nodes.
    for proxy in [&left, &right] {
        let writes: Vec<_> = proxy
            .requests()
            .into_iter()
            .filter(|request| request.method != "GET")
            .collect();
        assert!(writes.is_empty(), "{writes:?}");
    }
    for url in [&left.url, &right.url] {
        for name in ["cmp-both-same", "cmp-both-changed", "cmp-only-left"] {
            on_node(
                &app,
                url,
                reqwest::Method::DELETE,
                &format!("/_index_template/{name}"),
                None,
            )
            .await;
        }
    }
}

#[tokio::test]
async fn a_second_cluster_the_caller_may_not_see_is_unknown() {
    let node = proxy_before(shared(Distribution::OpenSearch2).await);
    let clusters = format!(
        "{}{}    access:\n      default_role: none\n      roles: [{{group: dba, role: viewer}}]\n",
        cluster_yaml("shared", &node.url),
        cluster_yaml("hidden", &node.url),
    );
    let app = spawn_app(&trusted_yaml(&clusters)).await;
    let get = |path: &str| as_caller(app.client.get(app.url(path)), &VIEWER);
    let (status, body) = send(get("/api/clusters/shared/compare/hidden")).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (404, &json!("unknown_cluster")),
        "{body}"
    );
    let (status, body) = send(get("/api/clusters/shared/compare/nowhere")).await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (404, &json!("unknown_cluster")),
        "{body}"
    );
    node.clear_requests();
    let (status, body) = send(get("/api/clusters/hidden/compare/shared")).await;
    assert_eq!(status, 404, "{body}");
    assert!(
        node.requests().is_empty(),
        "nothing was read for a refused comparison"
    );
    let (status, body) = send(get("/api/clusters/shared/compare/shared")).await;
    assert_eq!(status, 200, "a cluster compared with itself: {body}");
}
