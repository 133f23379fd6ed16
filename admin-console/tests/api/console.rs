//! The console's `GET` with a body: `POST` + `X-Console-Method: GET` on the relay reaches the
//! cluster as a `GET` carrying the body, is judged by the role check and recorded by the audit
//! log as that `GET`, and means nothing anywhere else. Against the shared real OpenSearch 2 node
//! through a recording proxy that shows what reached it; each test keeps to index names of its
//! own (`console-…`).

use std::time::Duration;

use reqwest::RequestBuilder;
use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::TestApp;
use crate::support::real::{real, real_with};
use crate::support::{seed_indices, send, wait_until};

const METHOD_HEADER: &str = "x-console-method";

fn proxy(app: &TestApp, cluster: &str, tail: &str) -> String {
    app.url(&format!("/api/clusters/{cluster}/proxy{tail}"))
}

/// `POST tail` with the method header and a JSON body.
fn get_with_body(app: &TestApp, cluster: &str, tail: &str, body: &Value) -> RequestBuilder {
    app.client
        .post(proxy(app, cluster, tail))
        .header(METHOD_HEADER, "GET")
        .json(body)
}

fn audit_lines(path: &std::path::Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is JSON"))
        .collect()
}

/// A plain `GET` of the node itself (not through the proxy).
async fn direct(url: &str) -> reqwest::Response {
    test_support::http_client().get(url).send().await.unwrap()
}

#[tokio::test]
async fn the_cluster_receives_a_get_with_the_body() {
    let f = real(Distribution::OpenSearch2).await;
    seed_indices(&f.cluster.url, "console-books", 1, |_| 3).await;
    let app = &f.app;
    let query = json!({"query": {"term": {"n": 1}}});
    let (status, found) = send(get_with_body(
        app,
        "main",
        "/console-books-0000/_search?size=1",
        &query,
    ))
    .await;
    assert_eq!(status, 200, "{found}");
    let sent = f.sent("/console-books-0000/_search");
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].method, "GET");
    assert_eq!(sent[0].query, "size=1");
    assert_eq!(sent[0].body, Some(query.clone()));
    assert_eq!(sent[0].header("content-type"), Some("application/json"));
    assert_eq!(
        sent[0].header(METHOD_HEADER),
        None,
        "the header stays on this side: {sent:?}"
    );
    // The node used the body: the query finds one document of three.
    assert_eq!(found["hits"]["total"]["value"], 1, "{found}");
    assert_eq!(found["hits"]["hits"][0]["_source"]["n"], 1);

    // NDJSON (a GET _msearch) keeps its content type.
    let ndjson = "{}\n{\"query\":{\"match_all\":{}}}\n";
    let (status, answer) = send(
        app.client
            .post(proxy(app, "main", "/console-books-0000/_msearch"))
            .header(METHOD_HEADER, "GET")
            .header("content-type", "application/x-ndjson")
            .body(ndjson),
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["responses"][0]["hits"]["total"]["value"], 3);
    let sent = f.sent("/console-books-0000/_msearch");
    assert_eq!(sent[0].method, "GET");
    assert_eq!(sent[0].body, Some(Value::String(ndjson.to_owned())));
    assert_eq!(sent[0].header("content-type"), Some("application/x-ndjson"));
    // Without the header a POST stays a POST.
    f.proxy.clear_requests();
    send(
        app.client
            .post(proxy(app, "main", "/console-books-0000/_search"))
            .json(&query),
    )
    .await;
    let sent = f.sent("/console-books-0000/_search");
    assert_eq!(sent[0].method, "POST", "{sent:?}");
}

#[tokio::test]
async fn other_values_and_other_methods_are_refused_and_nothing_is_relayed() {
    let f = real(Distribution::OpenSearch2).await;
    let app = &f.app;
    for (method, value, needle) in [
        (
            reqwest::Method::POST,
            "DELETE",
            "accepts only the value GET",
        ),
        (reqwest::Method::POST, "get", "accepts only the value GET"),
        (reqwest::Method::POST, "PUT", "accepts only the value GET"),
        (reqwest::Method::PUT, "GET", "only on a POST"),
        (reqwest::Method::DELETE, "GET", "only on a POST"),
    ] {
        let (status, body) = send(
            app.client
                .request(method.clone(), proxy(app, "main", "/console-victim"))
                .header(METHOD_HEADER, value)
                .json(&json!({})),
        )
        .await;
        assert_eq!(status, 400, "{method} {value}: {body}");
        assert_eq!(body["error"]["code"], "bad_request");
        assert!(
            body["error"]["message"].as_str().unwrap().contains(needle),
            "{method} {value}: {body}"
        );
    }
    let twice = app
        .client
        .post(proxy(app, "main", "/console-victim"))
        .header(METHOD_HEADER, "GET")
        .header(METHOD_HEADER, "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(twice.status(), 400);
    assert!(
        f.sent("/console-victim").is_empty(),
        "nothing reached the node"
    );
    // `PUT /console-victim` with the header would have created the index: it does not exist.
    let direct = direct(&format!("{}/console-victim", f.cluster.url)).await;
    assert_eq!(direct.status(), 404);
}

/// The attack tests: a viewer who dresses a call up as a GET gets exactly what a GET gives, and
/// `GET` on `_close`/`_refresh`/`_flush`/`_forcemerge`/`_cache/clear` is operator's (they act on
/// the cluster), so the header opens nothing. A write sent as POST + header arrives as a GET,
/// which the cluster refuses: nothing is written.
#[tokio::test]
async fn a_viewer_gains_nothing_with_the_header_and_the_audit_log_records_the_get() {
    let dir = TempDir::new("console-audit");
    let file = dir.path().join("audit.log");
    let f = real_with(Distribution::OpenSearch2, |main| {
        format!("{}audit:\n  file: {}\n", trusted_yaml(main), file.display())
    })
    .await;
    seed_indices(&f.cluster.url, "console-guarded", 1, |_| 2).await;
    let app = &f.app;
    let empty = json!({});
    let operator_calls = [
        "/console-guarded-0000/_close",
        "/console-guarded-0000/_open",
        "/_refresh",
        "/console-guarded-0000/_refresh",
        "/_flush",
        "/console-guarded-0000/_flush",
        "/_forcemerge",
        "/console-guarded-0000/_cache/clear",
        "/console-guarded-0000/_cl%6fse",
    ];
    for tail in operator_calls {
        let (status, body) =
            send(as_caller(get_with_body(app, "main", tail, &empty), &VIEWER)).await;
        assert_eq!(status, 403, "{tail}: {body}");
        assert_eq!(
            body["error"]["message"],
            "This needs the operator role on cluster main; you have viewer.",
            "{tail}"
        );
    }
    // Admin's calls stay admin's: the guard judges the GET, which no viewer entry lists.
    for tail in [
        "/console-guarded-0000/_doc",
        "/_bulk",
        "/console-guarded-0000/_delete_by_query",
    ] {
        let (status, body) = send(as_caller(
            get_with_body(
                app,
                "main",
                tail,
                &json!({"n": 99, "query": {"match_all": {}}}),
            ),
            &VIEWER,
        ))
        .await;
        // Judged as the GET it is: not on the viewer's list, so admin's.
        assert_eq!(status, 403, "{tail}: {body}");
        assert_eq!(
            body["error"]["message"], "This needs the admin role on cluster main; you have viewer.",
            "{tail}"
        );
    }
    let count = direct(&format!("{}/console-guarded-0000/_count", f.cluster.url))
        .await
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(count["count"], 2, "nothing was written or deleted: {count}");
    // SQL stays judged by its body.
    let (status, _) = send(as_caller(
        get_with_body(
            app,
            "main",
            "/_plugins/_sql",
            &json!({"query": "DELETE FROM console-guarded-0000"}),
        ),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 403);
    let denied_sent: Vec<_> = f
        .proxy
        .requests()
        .into_iter()
        .filter(|r| r.path.contains("console-guarded") || r.path.starts_with("/_plugins"))
        .collect();
    assert!(denied_sent.is_empty(), "denied, yet sent: {denied_sent:?}");
    // A viewer's read with a body passes; an operator's GET /_refresh passes and is audited.
    let (status, found) = send(as_caller(
        get_with_body(
            app,
            "main",
            "/console-guarded-0000/_search",
            &json!({"query": {"term": {"n": 1}}}),
        ),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200);
    assert_eq!(found["hits"]["total"]["value"], 1);
    let (status, body) = send(as_caller(
        get_with_body(app, "main", "/console-guarded-0000/_refresh", &empty),
        &OPERATOR,
    ))
    .await;
    assert_eq!(status, 200, "{body}");
    let refresh = f.sent("/console-guarded-0000/_refresh");
    assert_eq!(refresh.len(), 1, "{refresh:?}");
    assert_eq!(refresh[0].method, "GET", "the node received the GET");

    // The denied operator calls, the three denied admin calls, the denied SQL, the operator's
    // refresh.
    let expected = operator_calls.len() + 3 + 2;
    let path = file.clone();
    wait_until("the audit lines", Duration::from_secs(10), move || {
        audit_lines(&path).len() >= expected
    })
    .await;
    let lines = audit_lines(&file);
    assert_eq!(lines.len(), expected, "{lines:?}");
    let close = &lines[0];
    assert_eq!(close["method"], "GET", "{close}");
    assert_eq!(
        close["path"],
        "/api/clusters/main/proxy/console-guarded-0000/_close"
    );
    assert_eq!(close["outcome"], "denied");
    assert_eq!(close["user"], "vera");
    let refresh = lines
        .iter()
        .find(|line| line["user"] == "otto")
        .expect("the operator's refresh is audited");
    assert_eq!(refresh["method"], "GET");
    assert_eq!(refresh["outcome"], "success");
    assert!(
        lines.iter().all(|line| line["method"] == "GET"),
        "every line records the method the cluster received: {lines:?}"
    );
}

/// The allocation lock is cluster-wide on a node other suites share: the operator's `PUT` is
/// seen at the proxy, which answers 503 for it instead of letting it reach the node.
#[tokio::test]
async fn the_header_means_nothing_outside_the_relay_and_the_same_origin_rule_holds() {
    let f = real_with(Distribution::OpenSearch2, trusted_yaml).await;
    let app = &f.app;
    let allocation = |caller| {
        as_caller(
            app.client
                .put(app.url("/api/clusters/main/allocation"))
                .header(METHOD_HEADER, "GET")
                .json(&json!({"enable": "primaries"})),
            caller,
        )
    };
    // Judged as the PUT it is: a viewer is refused, an operator's PUT is sent.
    let (status, body) = send(allocation(&VIEWER)).await;
    assert_eq!(status, 403, "{body}");
    assert!(f.sent("/_cluster/settings").is_empty());
    f.proxy.set_unavailable(true);
    let (status, body) = send(allocation(&OPERATOR)).await;
    f.proxy.set_unavailable(false);
    assert_ne!(status, 403, "{body}");
    let sent: Vec<_> = f
        .sent("/_cluster/settings")
        .into_iter()
        .filter(|r| r.method != "GET")
        .collect();
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].method, "PUT", "the PUT was sent as a PUT");
    assert!(
        sent[0]
            .body
            .as_ref()
            .unwrap()
            .to_string()
            .contains("primaries"),
        "{sent:?}"
    );
    let (status, _) = send(as_caller(
        app.client
            .post(app.url("/api/clusters/main/indices/_actions/close"))
            .header(METHOD_HEADER, "GET")
            .json(&json!({"indices": ["console-x"]})),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 403, "a management POST stays a POST");

    // A cross-site page cannot use it either (no console header, a foreign Origin).
    let foreign = reqwest::Client::new()
        .post(proxy(app, "main", "/_search"))
        .header(METHOD_HEADER, "GET")
        .header("origin", "https://evil.example")
        .header("x-auth-request-user", ADMIN.user)
        .header("x-auth-request-groups", ADMIN.groups)
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(foreign.status(), 403);
    let body: Value = foreign.json().await.unwrap();
    assert_eq!(body["error"]["code"], "cross_site_request");
}
