//! The console's `GET` with a body: `POST` + `X-Console-Method: GET` on the relay reaches the
//! cluster as a `GET` carrying the body, is judged by the role check and recorded by the audit
//! log as that `GET`, and means nothing anywhere else.

use std::time::Duration;

use reqwest::RequestBuilder;
use serde_json::{Value, json};
use test_support::{Osmem, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::echo::EchoServer;
use crate::support::{seed_indices, wait_until};

const METHOD_HEADER: &str = "x-console-method";

fn proxy(app: &TestApp, cluster: &str, tail: &str) -> String {
    app.url(&format!("/api/clusters/{cluster}/proxy{tail}"))
}

async fn status_and_body(request: RequestBuilder) -> (u16, Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
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

#[tokio::test]
async fn the_cluster_receives_a_get_with_the_body() {
    let echo = EchoServer::start();
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("echo", &echo.url))).await;
    let query = json!({"query": {"term": {"n": 1}}});
    let (status, seen) =
        status_and_body(get_with_body(&app, "echo", "/books/_search?size=1", &query)).await;
    assert_eq!(status, 200, "{seen}");
    assert_eq!(seen["method"], "GET");
    assert_eq!(seen["path"], "/books/_search");
    assert_eq!(seen["query"], "size=1");
    assert_eq!(seen["bodyLength"], query.to_string().len());
    assert_eq!(seen["headers"]["content-type"], "application/json");
    assert!(
        seen["headers"].get(METHOD_HEADER).is_none(),
        "the header stays on this side: {seen}"
    );
    // NDJSON (a GET _msearch) keeps its content type.
    let ndjson = "{}\n{\"query\":{\"match_all\":{}}}\n";
    let (status, seen) = status_and_body(
        app.client
            .post(proxy(&app, "echo", "/_msearch"))
            .header(METHOD_HEADER, "GET")
            .header("content-type", "application/x-ndjson")
            .body(ndjson),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(seen["method"], "GET");
    assert_eq!(seen["bodyLength"], ndjson.len());
    assert_eq!(seen["headers"]["content-type"], "application/x-ndjson");
    // Without the header a POST stays a POST.
    let (_, seen) = status_and_body(
        app.client
            .post(proxy(&app, "echo", "/_search"))
            .json(&query),
    )
    .await;
    assert_eq!(seen["method"], "POST");

    // Against osmem the body is used: the query finds one document of three.
    let osmem = Osmem::start();
    seed_indices(&osmem.url, "books", 1, |_| 3).await;
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("os", &osmem.url))).await;
    let (status, found) =
        status_and_body(get_with_body(&app, "os", "/books-0000/_search", &query)).await;
    assert_eq!(status, 200, "{found}");
    assert_eq!(found["hits"]["total"]["value"], 1, "{found}");
    assert_eq!(found["hits"]["hits"][0]["_source"]["n"], 1);
}

#[tokio::test]
async fn other_values_and_other_methods_are_refused_and_nothing_is_relayed() {
    let osmem = Osmem::start();
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("os", &osmem.url))).await;
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
        let (status, body) = status_and_body(
            app.client
                .request(method.clone(), proxy(&app, "os", "/victim"))
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
        .post(proxy(&app, "os", "/victim"))
        .header(METHOD_HEADER, "GET")
        .header(METHOD_HEADER, "GET")
        .send()
        .await
        .unwrap();
    assert_eq!(twice.status(), 400);
    // `PUT /victim` with the header would have created the index: it does not exist.
    let direct = reqwest::get(format!("{}/victim", osmem.url)).await.unwrap();
    assert_eq!(direct.status(), 404);
}

/// The attack tests: a viewer who dresses a call up as a GET gets exactly what a GET gives, and
/// `GET` on `_close`/`_refresh`/`_flush`/`_forcemerge`/`_cache/clear` is operator's (they act on
/// the cluster), so the header opens nothing. A write sent as POST + header arrives as a GET,
/// which the cluster refuses: nothing is written.
#[tokio::test]
async fn a_viewer_gains_nothing_with_the_header_and_the_audit_log_records_the_get() {
    let osmem = Osmem::start();
    seed_indices(&osmem.url, "books", 1, |_| 2).await;
    let dir = TempDir::new("console-audit");
    let file = dir.path().join("audit.log");
    let app = spawn_app(&format!(
        "{}audit:\n  file: {}\n",
        trusted_yaml(&cluster_yaml("guarded", &osmem.url)),
        file.display()
    ))
    .await;
    let empty = json!({});
    let operator_calls = [
        "/books-0000/_close",
        "/books-0000/_open",
        "/_refresh",
        "/books-0000/_refresh",
        "/_flush",
        "/books-0000/_flush",
        "/_forcemerge",
        "/books-0000/_cache/clear",
        "/books-0000/_cl%6fse",
    ];
    for tail in operator_calls {
        let (status, body) = status_and_body(as_caller(
            get_with_body(&app, "guarded", tail, &empty),
            &VIEWER,
        ))
        .await;
        assert_eq!(status, 403, "{tail}: {body}");
        assert_eq!(
            body["error"]["message"],
            "This needs the operator role on cluster guarded; you have viewer.",
            "{tail}"
        );
    }
    // Admin's calls stay admin's: the guard judges the GET, which no viewer entry lists.
    for tail in ["/books-0000/_doc", "/_bulk", "/books-0000/_delete_by_query"] {
        let (status, body) = status_and_body(as_caller(
            get_with_body(
                &app,
                "guarded",
                tail,
                &json!({"n": 99, "query": {"match_all": {}}}),
            ),
            &VIEWER,
        ))
        .await;
        // Judged as the GET it is: not on the viewer's list, so admin's.
        assert_eq!(status, 403, "{tail}: {body}");
        assert_eq!(
            body["error"]["message"],
            "This needs the admin role on cluster guarded; you have viewer.",
            "{tail}"
        );
    }
    let count = reqwest::get(format!("{}/books-0000/_count", osmem.url))
        .await
        .unwrap()
        .json::<Value>()
        .await
        .unwrap();
    assert_eq!(count["count"], 2, "nothing was written or deleted: {count}");
    // SQL stays judged by its body.
    let (status, _) = status_and_body(as_caller(
        get_with_body(
            &app,
            "guarded",
            "/_plugins/_sql",
            &json!({"query": "DELETE FROM books-0000"}),
        ),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 403);
    // A viewer's read with a body passes; an operator's GET /_refresh passes and is audited.
    let (status, found) = status_and_body(as_caller(
        get_with_body(
            &app,
            "guarded",
            "/books-0000/_search",
            &json!({"query": {"term": {"n": 1}}}),
        ),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200);
    assert_eq!(found["hits"]["total"]["value"], 1);
    let (status, body) = status_and_body(as_caller(
        get_with_body(&app, "guarded", "/books-0000/_refresh", &empty),
        &OPERATOR,
    ))
    .await;
    assert_eq!(status, 200, "{body}");

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
        "/api/clusters/guarded/proxy/books-0000/_close"
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

#[tokio::test]
async fn the_header_means_nothing_outside_the_relay_and_the_same_origin_rule_holds() {
    let osmem = Osmem::start();
    let app = spawn_app(&trusted_yaml(&cluster_yaml("prod", &osmem.url))).await;
    let allocation = |caller| {
        as_caller(
            app.client
                .put(app.url("/api/clusters/prod/allocation"))
                .header(METHOD_HEADER, "GET")
                .json(&json!({"enable": "primaries"})),
            caller,
        )
    };
    // Judged as the PUT it is: a viewer is refused, an operator sets the lock.
    let (status, body) = status_and_body(allocation(&VIEWER)).await;
    assert_eq!(status, 403, "{body}");
    let (status, body) = status_and_body(allocation(&OPERATOR)).await;
    assert_eq!(status, 200, "{body}");
    let settings = reqwest::get(format!("{}/_cluster/settings", osmem.url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        settings.contains("primaries"),
        "the PUT happened: {settings}"
    );
    let (status, _) = status_and_body(as_caller(
        app.client
            .post(app.url("/api/clusters/prod/indices/_actions/close"))
            .header(METHOD_HEADER, "GET")
            .json(&json!({"indices": ["x"]})),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 403, "a management POST stays a POST");

    // A cross-site page cannot use it either (no console header, a foreign Origin).
    let foreign = reqwest::Client::new()
        .post(proxy(&app, "prod", "/_search"))
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
