//! The viewer's set of console calls: an explicit list of (method, path, body rule), every entry
//! of which reaches the cluster for a viewer, and everything else needs a higher role: clearing
//! every scroll or point in time (`_all` in the path, the query or the body), a synced flush
//! sent as `GET`, reads that are not on the list. Against the shared real OpenSearch 2 node
//! through a recording proxy of each test's own: what reached the node is the proxy's record,
//! and what the node makes of it (an unknown scroll id, an Elasticsearch-only path) is its own
//! business, so a call let through is one the console did not answer 403.

use admin_console::{BodyRule, VIEWER_CALLS, ViewerCall};
use reqwest::Method;
use serde_json::{Value, json};

use crate::access::{OPERATOR, VIEWER, as_caller, trusted_yaml};
use search_test_server::{Proxy, Recorded};
use test_support::Distribution;

use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{proxy_before, shared};

/// The console in trusted-headers mode with cluster `prod` at a recording proxy of its own
/// before the shared OpenSearch 2 node.
async fn console() -> (TestApp, Proxy) {
    let recorder = proxy_before(shared(Distribution::OpenSearch2).await);
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &recorder.url))).await;
    (app, recorder)
}

/// What reached the node by `method` at exactly `path` (the console's own polls are GETs of
/// other paths).
fn reached(recorder: &Proxy, method: &Method, path: &str) -> Vec<Recorded> {
    recorder
        .requests()
        .into_iter()
        .filter(|r| r.method == method.as_str() && r.path == path)
        .collect()
}

/// What reached the node other than the console's own polls (GETs of `/`, `/_cluster/…` and
/// `/_nodes/…`, which no test here calls).
fn reached_any(recorder: &Proxy) -> Vec<Recorded> {
    recorder
        .requests()
        .into_iter()
        .filter(|r| {
            let poll =
                r.path == "/" || r.path.starts_with("/_cluster/") || r.path.starts_with("/_nodes");
            r.method != "GET" || !poll
        })
        .collect()
}

/// A call as `caller`: the status and the JSON answer (the console's error, or the node's).
async fn call(
    app: &TestApp,
    method: Method,
    tail: &str,
    body: Option<String>,
    caller: &crate::access::Caller,
) -> (u16, Value) {
    let mut request = app
        .client
        .request(method, app.url(&format!("/api/clusters/prod/proxy{tail}")));
    if let Some(body) = body {
        request = request
            .header("content-type", "application/json")
            .body(body);
    }
    let response = as_caller(request, caller).send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

/// One concrete call of `entry` by `method`: its path and body.
fn example_of(entry: &ViewerCall, method: &str) -> (String, Option<String>) {
    let path = entry
        .path
        .trim_end_matches("/**")
        .replace("{index}", "books-*,logs")
        .replace("{ids}", "c2Nyb2xsLTE=,c2Nyb2xsLTI=")
        .replace("{id}", "1");
    let body = match entry.body {
        BodyRule::Any if method == "POST" => Some(json!({"query": {"match_all": {}}})),
        BodyRule::Any => None,
        BodyRule::SqlRead => Some(json!({"query": "SELECT * FROM books LIMIT 5"})),
        BodyRule::ReleaseIds(_) if path.ends_with("=") => None,
        BodyRule::ReleaseIds(field) => Some(json!({ field: ["c2Nyb2xsLTE="] })),
    };
    (path, body.map(|body| body.to_string()))
}

#[tokio::test]
async fn every_entry_of_the_viewer_set_reaches_the_cluster_for_a_viewer() {
    let (app, recorder) = console().await;
    let mut tried = 0;
    for entry in VIEWER_CALLS {
        for method in entry.methods {
            let (path, body) = example_of(entry, method);
            let method = Method::from_bytes(method.as_bytes()).unwrap();
            recorder.clear_requests();
            let (status, seen) = call(&app, method.clone(), &path, body, &VIEWER).await;
            assert_ne!(status, 403, "{method} {path} ({}): {seen}", entry.path);
            let on_node = if path.is_empty() { "/" } else { &path };
            assert_eq!(
                reached(&recorder, &method, on_node).len(),
                1,
                "{method} {path} reached the node: {:?}",
                recorder.requests()
            );
            tried += 1;
        }
    }
    assert!(tried > VIEWER_CALLS.len(), "{tried}");
}

#[tokio::test]
async fn a_viewer_cannot_clear_every_scroll_or_point_in_time() {
    let (app, recorder) = console().await;
    let escapes: &[(&str, Option<Value>)] = &[
        ("/_search/scroll", Some(json!({"scroll_id": ["_all"]}))),
        ("/_search/scroll", Some(json!({"scroll_id": "_all"}))),
        ("/_search/scroll", Some(json!({"scroll_id": ["a", "_all"]}))),
        ("/_search/scroll", Some(json!({"scroll_id": "a,_all"}))),
        ("/_search/scroll", Some(json!({"scroll_id": []}))),
        ("/_search/scroll", Some(json!({"scroll_id": "a", "x": 1}))),
        ("/_search/scroll", None),
        ("/_search/scroll?scroll_id=_all", None),
        (
            "/_search/scroll?scroll_id=a",
            Some(json!({"scroll_id": "b"})),
        ),
        (
            "/_search/scroll?source=%7B%22scroll_id%22%3A%22_all%22%7D&source_content_type=application/json",
            None,
        ),
        ("/_search/scroll/_all", None),
        ("/_search/scroll/a,_all", None),
        ("/_search/scroll/%5Fall", None),
        ("/_search/scroll/a", Some(json!({"scroll_id": ["_all"]}))),
        ("/_pit", Some(json!({"id": "_all"}))),
        ("/_pit", None),
        ("/_search/point_in_time", Some(json!({"pit_id": ["_all"]}))),
        ("/_search/point_in_time", Some(json!({"pit_id": "_all"}))),
        ("/_search/point_in_time/_all", None),
        (
            "/_plugins/_sql/close",
            Some(json!({"cursor": "_all", "query": "DELETE FROM x"})),
        ),
    ];
    for (tail, body) in escapes {
        let method = if tail.contains("_sql") {
            Method::POST
        } else {
            Method::DELETE
        };
        let (status, answer) = call(
            &app,
            method.clone(),
            tail,
            body.as_ref().map(Value::to_string),
            &VIEWER,
        )
        .await;
        assert_eq!(status, 403, "{method} {tail} {body:?}: {answer}");
        assert_eq!(answer["error"]["code"], "forbidden", "{tail}");
    }
    // A body given twice in one object: the cluster would read the last one.
    let (status, _) = call(
        &app,
        Method::DELETE,
        "/_search/scroll",
        Some(r#"{"scroll_id":"a","scroll_id":"_all"}"#.to_owned()),
        &VIEWER,
    )
    .await;
    assert_eq!(status, 403, "a field given twice is refused");
    let sent = reached_any(&recorder);
    assert!(sent.is_empty(), "refused, yet sent: {sent:?}");
    // Releasing the scrolls and points in time one names still works.
    for (tail, body) in [
        (
            "/_search/scroll",
            json!({"scroll_id": ["c2Nyb2xsLTE=", "c2Nyb2xsLTI="]}),
        ),
        ("/_search/scroll", json!({"scroll_id": "c2Nyb2xsLTE="})),
        ("/_pit", json!({"id": "cGl0LTE="})),
        ("/_search/point_in_time", json!({"pit_id": ["cGl0LTE="]})),
    ] {
        recorder.clear_requests();
        let (status, answer) =
            call(&app, Method::DELETE, tail, Some(body.to_string()), &VIEWER).await;
        assert_ne!(status, 403, "{tail} {body}: {answer}");
        let sent = reached(&recorder, &Method::DELETE, tail);
        assert_eq!(sent.len(), 1, "{tail}: {sent:?}");
        assert_eq!(
            sent[0].body,
            Some(body.clone()),
            "the body is relayed whole"
        );
    }
    let (status, answer) = call(
        &app,
        Method::DELETE,
        "/_search/scroll/c2Nyb2xsLTE=",
        None,
        &VIEWER,
    )
    .await;
    assert_ne!(status, 403, "{answer}");
    assert_eq!(
        reached(&recorder, &Method::DELETE, "/_search/scroll/c2Nyb2xsLTE=").len(),
        1
    );
}

#[tokio::test]
async fn a_synced_flush_sent_as_get_is_not_a_read() {
    let (app, recorder) = console().await;
    for tail in ["/_flush/synced", "/books/_flush/synced", "/_fl%75sh/synced"] {
        for method in [Method::GET, Method::HEAD, Method::POST] {
            let (status, answer) = call(&app, method.clone(), tail, None, &VIEWER).await;
            assert_eq!(status, 403, "{method} {tail}: {answer}");
            if method != Method::HEAD {
                assert_eq!(
                    answer["error"]["message"],
                    "This needs the operator role on cluster prod; you have viewer.",
                    "{method} {tail}"
                );
            }
            let sent = reached_any(&recorder);
            assert!(sent.is_empty(), "refused, yet sent: {sent:?}");
            let (status, answer) = call(&app, method.clone(), tail, None, &OPERATOR).await;
            assert_ne!(status, 403, "an operator may: {method} {tail}: {answer}");
            assert_eq!(
                reached(&recorder, &method, tail).len(),
                1,
                "{method} {tail} reached the node"
            );
            recorder.clear_requests();
        }
    }
}

#[tokio::test]
async fn a_read_that_is_not_on_the_list_needs_admin() {
    let (app, recorder) = console().await;
    for tail in [
        "/_plugins/_security/api/internalusers",
        "/_opendistro/_security/api/internalusers",
        "/_security/user",
        "/_some_future_api",
        "/logs/_doc/1?refresh=true",
        "/_cat/indices?refresh=true",
    ] {
        let (status, answer) = call(&app, Method::GET, tail, None, &VIEWER).await;
        assert_eq!(status, 403, "GET {tail}: {answer}");
        assert_eq!(
            answer["error"]["message"],
            "This needs the admin role on cluster prod; you have viewer.",
            "GET {tail}"
        );
    }
    let sent = reached_any(&recorder);
    assert!(sent.is_empty(), "refused, yet sent: {sent:?}");
}
