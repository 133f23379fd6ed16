//! The `_analyze` tester and the cat-API browser, against the real shared nodes (OpenSearch
//! 2.19 on HTTP, Elasticsearch 8.19 with security on HTTPS) through a recording proxy of each
//! test's own. The integ-test zips carry no analysis-common module: only the core analyzers
//! (`standard`, `simple`, `whitespace`, `stop`, `keyword`), the `standard` tokenizer and the
//! `lowercase` filter are there, so those are what the tests use. Names `h6an…` of their own.

use reqwest::Method;
use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{VIEWER, as_caller, trusted_yaml};
use crate::app::{cluster_yaml, spawn_app};
use crate::support::real::{
    REAL, Real, direct, direct_json, proxy_before, real, real_with, shared,
};
use crate::support::send;

/// An index `name` with a `title` field analysed by `whitespace` and an analyzer `h6_lower` of
/// its own (standard tokenizer, lowercase filter); made directly on the node, kept if it is
/// there from an earlier run.
async fn analysed_index(f: &Real, name: &str) {
    let answer = direct(f.cluster, Method::PUT, &format!("/{name}"))
        .json(&json!({
            "settings": {"number_of_replicas": 0, "analysis": {"analyzer": {"h6_lower":
                {"type": "custom", "tokenizer": "standard", "filter": ["lowercase"]}}}},
            "mappings": {"properties": {"title": {"type": "text", "analyzer": "whitespace"}}}
        }))
        .send()
        .await
        .unwrap();
    let status = answer.status().as_u16();
    let body: Value = answer.json().await.unwrap_or(Value::Null);
    assert!(
        status == 200 || body["error"]["type"] == "resource_already_exists_exception",
        "{status} {body}"
    );
}

/// What the console asked the node besides its own background measurements: analyses, cat
/// calls and anything else outside `_cluster/health`, `_cluster/stats` and `_nodes/stats`.
fn asked(f: &Real) -> Vec<String> {
    f.proxy
        .requests()
        .into_iter()
        .map(|r| r.path)
        .filter(|path| {
            !["/_cluster/health", "/_cluster/stats", "/_nodes/stats"]
                .iter()
                .any(|background| path.starts_with(background))
        })
        .collect()
}

fn tokens(body: &Value) -> Vec<&str> {
    body["tokens"]
        .as_array()
        .unwrap_or_else(|| panic!("{body}"))
        .iter()
        .map(|token| token["token"].as_str().unwrap())
        .collect()
}

#[tokio::test]
async fn analyzers_fields_and_chains_are_analysed_on_both_dialects() {
    for distribution in REAL {
        let f = real(distribution).await;
        analysed_index(&f, "h6an-fields").await;
        f.proxy.clear_requests();

        // A built-in analyzer: the tokens with offsets, positions and types.
        let (status, body) = f
            .post(
                "/analyze",
                json!({"text": "Hello World", "analyzer": "standard"}),
            )
            .await;
        assert_eq!(status, 200, "{distribution:?}: {body}");
        assert_eq!(
            body["tokens"][1],
            json!({"token": "world", "startOffset": 6, "endOffset": 11, "position": 1,
                "type": "<ALPHANUM>"}),
            "{distribution:?}"
        );
        assert_eq!(body["steps"], json!([]));
        let sent = f.sent("/_analyze");
        assert_eq!(sent.len(), 1, "{distribution:?}");
        assert_eq!(sent[0].method, "POST");
        assert_eq!(
            sent[0].body,
            Some(json!({"text": "Hello World", "analyzer": "standard"}))
        );
        for (analyzer, expected) in [
            ("simple", vec!["the", "quick", "fox"]),
            ("whitespace", vec!["The", "quick", "fox"]),
            ("stop", vec!["quick", "fox"]),
            ("keyword", vec!["The quick fox"]),
        ] {
            let (status, body) = f
                .post(
                    "/analyze",
                    json!({"text": "The quick fox", "analyzer": analyzer}),
                )
                .await;
            assert_eq!(status, 200, "{distribution:?} {analyzer}: {body}");
            assert_eq!(tokens(&body), expected, "{distribution:?} {analyzer}");
        }

        // A chain with explain: each step's tokens; the final tokens are the last step's.
        let (status, body) = f
            .post(
                "/analyze",
                json!({"text": "Hello World", "tokenizer": "standard",
                    "filters": ["lowercase"], "explain": true}),
            )
            .await;
        assert_eq!(status, 200, "{distribution:?}: {body}");
        let steps: Vec<(&str, &str)> = body["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| (s["kind"].as_str().unwrap(), s["name"].as_str().unwrap()))
            .collect();
        assert_eq!(
            steps,
            [("tokenizer", "standard"), ("tokenFilter", "lowercase")]
        );
        assert_eq!(body["steps"][0]["tokens"][0]["token"], "Hello");
        assert_eq!(tokens(&body), ["hello", "world"]);

        // A field of an index: its mapping's analyzer (whitespace keeps the capitals).
        let (status, body) = f
            .post(
                "/analyze",
                json!({"text": "Hello World", "index": "h6an-fields", "field": "title"}),
            )
            .await;
        assert_eq!(status, 200, "{distribution:?}: {body}");
        assert_eq!(tokens(&body), ["Hello", "World"], "{distribution:?}");
        // An analyzer the index defines.
        let (status, body) = f
            .post(
                "/analyze",
                json!({"text": "Hello World", "index": "h6an-fields", "analyzer": "h6_lower",
                    "explain": true}),
            )
            .await;
        assert_eq!(status, 200, "{distribution:?}: {body}");
        assert_eq!(tokens(&body), ["hello", "world"], "{distribution:?}");
        assert_eq!(f.sent("/h6an-fields/_analyze").len(), 2, "{distribution:?}");

        // The cluster's refusals: its status and reason.
        let (status, body) = f
            .post("/analyze", json!({"text": "x", "analyzer": "h6nope"}))
            .await;
        assert_eq!(status, 400, "{distribution:?}: {body}");
        assert_eq!(body["error"]["code"], "rejected_by_cluster");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("[h6nope]"), "{distribution:?}: {message}");
        let (status, body) = f
            .post(
                "/analyze",
                json!({"text": "x", "index": "h6an-missing", "analyzer": "standard"}),
            )
            .await;
        assert_eq!(status, 404, "{distribution:?}: {body}");
        assert_eq!(body["error"]["code"], "rejected_by_cluster");
        // Nothing but analyses was sent.
        let others: Vec<_> = asked(&f)
            .into_iter()
            .filter(|path| !path.ends_with("/_analyze"))
            .collect();
        assert!(others.is_empty(), "{others:?}");
    }
}

#[tokio::test]
async fn hostile_analyze_requests_are_refused_before_the_cluster() {
    let f = real(Distribution::OpenSearch2).await;
    f.proxy.clear_requests();
    let many: Vec<&str> = vec!["lowercase"; 21];
    for (body, code, says) in [
        (
            json!({"text": "a", "analyzer": "standard", "script": "x"}),
            "invalid_body",
            "unknown field",
        ),
        (
            json!({"text": "a".repeat(10_001), "analyzer": "standard"}),
            "bad_request",
            "the limit is 10000",
        ),
        (
            json!({"text": "a".repeat(3_000_000), "analyzer": "standard"}),
            "invalid_body",
            "not valid",
        ),
        (
            json!({"text": "a", "index": "../_cluster", "analyzer": "standard"}),
            "bad_request",
            "index name",
        ),
        (
            json!({"text": "a", "index": "_all", "analyzer": "standard"}),
            "bad_request",
            "index name",
        ),
        (
            json!({"text": "a", "analyzer": {"type": "custom", "tokenizer": "standard"}}),
            "invalid_body",
            "invalid type",
        ),
        (
            json!({"text": "a", "tokenizer": "standard", "filters": many}),
            "bad_request",
            "the limit is 20",
        ),
        (
            json!({"text": "a", "tokenizer": "standard", "filters": ["x/../y"]}),
            "bad_request",
            "not a name",
        ),
        (
            json!({"text": "a", "field": "title"}),
            "bad_request",
            "name the index",
        ),
        (json!({"text": "a"}), "bad_request", "exactly one"),
    ] {
        let (status, answer) = f.post("/analyze", body).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["error"]["code"], code, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(says), "{says}: {message}");
    }
    assert!(asked(&f).is_empty(), "{:?}", asked(&f));
}

#[tokio::test]
async fn cat_apis_are_listed_and_read_as_tables_on_both_dialects() {
    for distribution in REAL {
        let f = real(distribution).await;
        analysed_index(&f, "h6an-cat").await;
        f.proxy.clear_requests();

        let (status, list) = f.app.get_json("/api/clusters/main/cat").await;
        assert_eq!(status, 200, "{distribution:?}: {list}");
        let names: Vec<&str> = list["apis"]
            .as_array()
            .unwrap()
            .iter()
            .map(|api| api["name"].as_str().unwrap())
            .collect();
        for expected in [
            "indices",
            "health",
            "nodes",
            "shards",
            "aliases",
            "snapshots",
        ] {
            assert!(names.contains(&expected), "{distribution:?}: {names:?}");
        }
        let snapshots = list["apis"]
            .as_array()
            .unwrap()
            .iter()
            .find(|api| api["name"] == "snapshots")
            .unwrap();
        assert_eq!(snapshots["needsRepository"], true);

        // Health: one row, the columns in the help's order with their descriptions.
        let (status, table) = f.app.get_json("/api/clusters/main/cat/health").await;
        assert_eq!(status, 200, "{distribution:?}: {table}");
        assert_eq!(table["api"], "health");
        assert_eq!(
            (table["totalRows"].as_u64(), table["cutRows"].as_u64()),
            (Some(1), Some(0))
        );
        let columns = table["columns"].as_array().unwrap();
        let status_at = columns
            .iter()
            .position(|column| column["name"] == "status")
            .unwrap_or_else(|| panic!("{table}"));
        assert_eq!(columns[status_at]["description"], "health status");
        assert!(
            columns[status_at]["aliases"]
                .as_array()
                .unwrap()
                .contains(&json!("st"))
        );
        let health = direct_json(f.cluster, "/_cluster/health").await;
        // The node's own cluster name; its status one of the three (other suites move it).
        let cluster_at = columns
            .iter()
            .position(|column| column["name"] == "cluster")
            .unwrap();
        assert_eq!(
            table["rows"][0][cluster_at], health["cluster_name"],
            "{distribution:?}"
        );
        let shown = table["rows"][0][status_at].as_str().unwrap();
        assert!(["green", "yellow", "red"].contains(&shown), "{shown}");
        let sent: Vec<(String, String)> = f
            .sent("/_cat/health")
            .into_iter()
            .map(|r| (r.method, r.query))
            .collect();
        assert!(
            sent.contains(&("GET".to_owned(), "format=json&v".to_owned())),
            "{sent:?}"
        );
        assert!(
            sent.contains(&("GET".to_owned(), "help".to_owned())),
            "{sent:?}"
        );

        // Indices: our index is a row.
        let (status, table) = f.app.get_json("/api/clusters/main/cat/indices").await;
        assert_eq!(status, 200, "{distribution:?}: {table}");
        let index_at = table["columns"]
            .as_array()
            .unwrap()
            .iter()
            .position(|column| column["name"] == "index")
            .unwrap();
        assert!(
            table["rows"]
                .as_array()
                .unwrap()
                .iter()
                .any(|row| row[index_at] == "h6an-cat"),
            "{distribution:?}: {table}"
        );

        // Snapshots of a repository: the columns in the help's order (asked without the
        // repository, which the cluster refuses beside `?help`).
        let location = f.cluster.repo_path().join("h6an-repo");
        let (status, body) = send(direct(f.cluster, Method::PUT, "/_snapshot/h6an-repo").json(
            &json!({"type": "fs", "settings": {"location": location.display().to_string()}}),
        ))
        .await;
        assert_eq!(status, 200, "{body}");
        let (status, body) = send(
            direct(
                f.cluster,
                Method::PUT,
                "/_snapshot/h6an-repo/h6an-snap?wait_for_completion=true",
            )
            .json(&json!({"indices": "h6an-cat", "include_global_state": false})),
        )
        .await;
        assert!(
            status == 200 || body.to_string().contains("already exists"),
            "{status} {body}"
        );
        let (status, table) = f
            .app
            .get_json("/api/clusters/main/cat/snapshots?repository=h6an-repo")
            .await;
        assert_eq!(status, 200, "{distribution:?}: {table}");
        let names: Vec<&str> = table["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|column| column["name"].as_str().unwrap())
            .collect();
        assert_eq!(names.first(), Some(&"id"), "{distribution:?}: {names:?}");
        assert!(
            table["columns"][0]["description"]
                .as_str()
                .unwrap()
                .contains("snapshot"),
            "{table}"
        );
        let sent: Vec<(String, String)> = f
            .sent("/_cat/snapshots")
            .into_iter()
            .map(|r| (r.path, r.query))
            .collect();
        assert!(
            sent.contains(&(
                "/_cat/snapshots/h6an-repo".to_owned(),
                "format=json&v".to_owned()
            )) && sent.contains(&("/_cat/snapshots".to_owned(), "help".to_owned())),
            "{sent:?}"
        );

        // A repository that does not exist: the cluster's 404 with its reason.
        let (status, body) = f
            .app
            .get_json("/api/clusters/main/cat/snapshots?repository=h6an-none")
            .await;
        assert_eq!(status, 404, "{distribution:?}: {body}");
        assert_eq!(body["error"]["code"], "rejected_by_cluster");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("h6an-none"),
            "{body}"
        );
        let writes = f.writes();
        assert!(writes.is_empty(), "{writes:?}");
    }
}

#[tokio::test]
async fn hostile_cat_names_are_refused_before_the_cluster() {
    let f = real(Distribution::OpenSearch2).await;
    f.proxy.clear_requests();
    for (tail, code) in [
        ("/cat/nope", "bad_request"),
        ("/cat/INDICES", "bad_request"),
        ("/cat/..%2F_cluster%2Fsettings", "bad_request"),
        ("/cat/indices%3Fv", "bad_request"),
        ("/cat/indices%2F..%2F..%2F_nodes", "bad_request"),
        ("/cat/ml", "bad_request"),
        ("/cat/indices?h=index", "invalid_query"),
        ("/cat/health?repository=r1", "bad_request"),
        ("/cat/snapshots?repository=..%2Fx", "bad_request"),
        ("/cat/snapshots?repository=a,b", "bad_request"),
    ] {
        let (status, body) = send(f.app.client.get(f.url(tail))).await;
        assert_eq!(status, 400, "{tail}: {body}");
        assert_eq!(body["error"]["code"], code, "{tail}: {body}");
    }
    // A path that leaves the route is not a cat API either.
    let (status, _) = send(f.app.client.get(f.url("/cat/indices/extra"))).await;
    assert_eq!(status, 404);
    assert!(asked(&f).is_empty(), "{:?}", asked(&f));
}

#[tokio::test]
async fn viewers_analyse_and_browse_cat_apis() {
    let f = real_with(Distribution::OpenSearch2, trusted_yaml).await;
    let (status, body) = send(as_caller(
        f.app
            .client
            .post(f.url("/analyze"))
            .json(&json!({"text": "Hello", "analyzer": "standard"})),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(tokens(&body), ["hello"]);
    for tail in ["/cat", "/cat/nodes"] {
        let (status, body) = send(as_caller(f.app.client.get(f.url(tail)), &VIEWER)).await;
        assert_eq!(status, 200, "{tail}: {body}");
    }
}

#[tokio::test]
async fn on_a_production_cluster_analysing_needs_no_reason_and_is_not_audited() {
    let cluster = shared(Distribution::OpenSearch2).await;
    let proxy = proxy_before(cluster);
    let dir = TempDir::new("analysis-production");
    let audit = dir.path().join("audit.log");
    let app = spawn_app(&format!(
        "audit:\n  file: {}\nclusters:\n{}    environment: production\n",
        audit.display(),
        cluster_yaml("main", &proxy.url)
    ))
    .await;
    let (status, body) = send(
        app.client
            .post(app.url("/api/clusters/main/analyze"))
            .json(&json!({"text": "Hello", "analyzer": "standard"})),
    )
    .await;
    assert_eq!(status, 200, "a read needs no reason: {body}");
    assert_eq!(tokens(&body), ["hello"]);
    let (status, body) = send(app.client.get(app.url("/api/clusters/main/cat/health"))).await;
    assert_eq!(status, 200, "{body}");
    let audited = std::fs::read_to_string(&audit).unwrap_or_default();
    assert!(!audited.contains("analyze"), "{audited}");
}
