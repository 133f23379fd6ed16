//! Data streams: the list with backing indices, generation, template and health; create from an
//! index template with `data_stream`, roll over, delete by the typed name; who may do which; the
//! production guard and the audit. Against the real shared nodes through a recording proxy of
//! each test's own (names `ds…` of each test's own). OpenSearch 2.19 has the data stream API;
//! Elasticsearch 7.10.2 (OSS) and the Elasticsearch 8.19 integ-test build (no data-streams
//! module) do not, and get the console's clear answer.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use test_support::{Distribution, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller, trusted_yaml};
use crate::app::{cluster_yaml, spawn_app};
use crate::audit::lines_of;
use crate::support::real::{Real, direct, proxy_before, real, real_with, shared};
use crate::support::send;
use crate::support::wait_until;

/// An index template `name` for `pattern` with `data_stream`, made through the console's
/// templates route (which takes and shows the option).
async fn data_stream_template(f: &Real, name: &str, pattern: &str, priority: u64) {
    let (status, body) = send(
        f.app
            .client
            .put(f.url(&format!("/templates/index/{name}")))
            .json(
                &json!({"definition": {"index_patterns": [pattern], "data_stream": {},
                "priority": priority,
                "template": {"settings": {"number_of_replicas": 0}}}}),
            ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // As the cluster keeps it (OpenSearch fills in the timestamp field).
    assert!(body["definition"]["data_stream"].is_object(), "{body}");
}

/// `method tail` on the console's cluster `main`, as the open-mode caller.
async fn call(f: &Real, method: Method, tail: &str) -> (u16, Value) {
    send(f.app.client.request(method, f.url(tail))).await
}

/// The console's row of `name`, if it lists one.
async fn row(f: &Real, name: &str) -> Option<Value> {
    let (status, list) = f.app.get_json("/api/clusters/main/data_streams").await;
    assert_eq!(status, 200, "{list}");
    list["dataStreams"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == name)
        .cloned()
}

#[tokio::test]
async fn a_data_stream_is_created_listed_rolled_over_and_deleted_by_its_typed_name() {
    let f = real(Distribution::OpenSearch2).await;
    data_stream_template(&f, "dsapi", "dsapi-*", 301).await;
    let (_, templates) = f.app.get_json("/api/clusters/main/templates").await;
    let ours = templates["index"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == "dsapi")
        .cloned();
    assert_eq!(ours.unwrap()["dataStream"], true, "{templates}");
    f.proxy.clear_requests();

    // Create: one PUT; the list shows it with its first backing index.
    let (status, body) = call(&f, Method::PUT, "/data_streams/dsapi-web").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"name": "dsapi-web", "acknowledged": true}));
    let row1 = row(&f, "dsapi-web").await.expect("listed");
    assert_eq!(row1["generation"], 1, "{row1}");
    assert_eq!(row1["template"], "dsapi", "{row1}");
    assert_eq!(row1["timestampField"], "@timestamp", "{row1}");
    assert_eq!(row1["health"], "green", "no replicas: {row1}");
    assert_eq!(row1["backingIndices"][0]["name"], ".ds-dsapi-web-000001");
    assert!(row1["storeSizeBytes"].as_u64().is_some(), "{row1}");
    // Creating it again: the cluster's refusal with its reason.
    let (status, body) = call(&f, Method::PUT, "/data_streams/dsapi-web").await;
    assert_eq!(status, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("data_stream [dsapi-web] already exists"),
        "{body}"
    );

    // Rollover: the next generation, a new write index.
    let (status, body) = call(&f, Method::POST, "/data_streams/dsapi-web/_rollover").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({"name": "dsapi-web", "oldIndex": ".ds-dsapi-web-000001",
               "newIndex": ".ds-dsapi-web-000002", "rolledOver": true})
    );
    let row2 = row(&f, "dsapi-web").await.unwrap();
    assert_eq!(row2["generation"], 2, "{row2}");
    let backing: Vec<&str> = row2["backingIndices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|index| index["name"].as_str().unwrap())
        .collect();
    assert_eq!(backing, [".ds-dsapi-web-000001", ".ds-dsapi-web-000002"]);

    // Delete: only with the typed name; nothing sent before.
    f.proxy.clear_requests();
    for query in ["", "?confirm=dsapi", "?confirm=DSAPI-WEB"] {
        let (status, body) = call(
            &f,
            Method::DELETE,
            &format!("/data_streams/dsapi-web{query}"),
        )
        .await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("confirm=dsapi-web"),
            "{body}"
        );
    }
    assert!(f.writes().is_empty(), "{:?}", f.writes());
    let (status, body) = call(
        &f,
        Method::DELETE,
        "/data_streams/dsapi-web?confirm=dsapi-web",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"name": "dsapi-web", "acknowledged": true}));
    let writes = f.writes();
    assert_eq!(
        writes
            .iter()
            .map(|w| (w.0.as_str(), w.1.as_str()))
            .collect::<Vec<_>>(),
        [("DELETE", "/_data_stream/dsapi-web")]
    );
    assert!(row(&f, "dsapi-web").await.is_none());
    let (status, _) = send(direct(
        f.cluster,
        reqwest::Method::GET,
        "/.ds-dsapi-web-000002",
    ))
    .await;
    assert_eq!(status, 404, "its backing indices are gone");

    // A stream that does not exist: 404 for rollover and delete on every cluster (OpenSearch
    // itself acknowledges deleting one), never a rollover of an alias of that name.
    for request in [
        f.app
            .client
            .post(f.url("/data_streams/dsapi-web/_rollover")),
        f.app
            .client
            .delete(f.url("/data_streams/dsapi-web?confirm=dsapi-web")),
    ] {
        let (status, body) = send(request).await;
        assert_eq!(status, 404, "{body}");
        assert_eq!(
            body["error"]["message"],
            "The cluster has no data stream named \"dsapi-web\"."
        );
    }
}

#[tokio::test]
async fn creating_needs_a_matching_template_with_data_stream_and_a_checked_name() {
    let f = real(Distribution::OpenSearch2).await;
    let (status, body) = send(
        f.app
            .client
            .put(f.url("/templates/index/dsplain"))
            .json(&json!({"definition": {"index_patterns": ["dsplain-*"], "priority": 302}})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    f.proxy.clear_requests();
    for (name, reason) in [
        (
            "dsnomatch-a",
            "no matching index template found for data stream [dsnomatch-a]",
        ),
        (
            "dsplain-a",
            "matching index template [dsplain] for data stream [dsplain-a] has no data stream template",
        ),
    ] {
        let (status, body) = call(&f, Method::PUT, &format!("/data_streams/{name}")).await;
        assert_eq!(status, 400, "{body}");
        assert_eq!(body["error"]["code"], "rejected_by_cluster");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!(
                "No index template with a data_stream matches \"{name}\": first create an index template"
            )) && message.ends_with(reason),
            "{message}"
        );
    }
    assert_eq!(f.writes().len(), 2, "{:?}", f.writes());
    // Names the console refuses before the cluster hears of them.
    f.proxy.clear_requests();
    for (name, rule) in [
        ("DSUPPER", "must be lowercase"),
        ("ds*", "contains \"*\""),
        (".ds-dsx-000001", "must not start with .ds-"),
        ("_all", "must not start with -, _ or +"),
        ("a%2Fb", "contains \"/\""),
    ] {
        let (status, body) = call(&f, Method::PUT, &format!("/data_streams/{name}")).await;
        assert_eq!(status, 400, "{name}: {body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains(rule), "{name}: {message}");
    }
    assert!(f.writes().is_empty(), "{:?}", f.writes());
}

#[tokio::test]
async fn a_cluster_without_the_data_stream_api_gets_a_clear_answer() {
    // What the real servers answer: Elasticsearch 7.10.2 (OSS) reads GET /_data_stream as an
    // index name (400 Invalid index name [_data_stream]) and knows only POST below it (405);
    // the 8.19 integ-test build has no data-streams module and answers the same.
    for distribution in [
        Distribution::Elasticsearch7,
        Distribution::Elasticsearch8Secured,
    ] {
        let f = real(distribution).await;
        for request in [
            f.app.client.get(f.url("/data_streams")),
            f.app.client.put(f.url("/data_streams/dsnone")),
            f.app.client.post(f.url("/data_streams/dsnone/_rollover")),
            f.app
                .client
                .delete(f.url("/data_streams/dsnone?confirm=dsnone")),
        ] {
            let (status, body) = send(request).await;
            assert_eq!(status, 400, "{distribution:?}: {body}");
            assert_eq!(body["error"]["code"], "rejected_by_cluster");
            let message = body["error"]["message"].as_str().unwrap();
            assert!(
                message.starts_with("This cluster has no data stream API (_data_stream)"),
                "{distribution:?}: {message}"
            );
        }
        // Nothing but reads and the one PUT that found out.
        let writes = f.writes();
        assert_eq!(
            writes
                .iter()
                .map(|w| (w.0.as_str(), w.1.as_str()))
                .collect::<Vec<_>>(),
            [("PUT", "/_data_stream/dsnone")],
            "{distribution:?}"
        );
    }
}

#[tokio::test]
async fn viewers_read_operators_roll_over_admins_create_and_delete() {
    let f = real_with(Distribution::OpenSearch2, trusted_yaml).await;
    let (status, body) = send(as_caller(
        f.app.client.put(f.url("/templates/index/dsroles")).json(
            &json!({"definition": {"index_patterns": ["dsroles-*"], "data_stream": {},
                "priority": 303, "template": {"settings": {"number_of_replicas": 0}}}}),
        ),
        &ADMIN,
    ))
    .await;
    assert_eq!(status, 200, "{body}");
    let create = || f.app.client.put(f.url("/data_streams/dsroles-a"));
    let rollover = || {
        f.app
            .client
            .post(f.url("/data_streams/dsroles-a/_rollover"))
    };
    let delete = || {
        f.app
            .client
            .delete(f.url("/data_streams/dsroles-a?confirm=dsroles-a"))
    };
    let refused = |status: u16, body: &Value, role: &str| {
        assert_eq!(status, 403, "{body}");
        let message = body["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("This needs the {role} role on cluster main")),
            "{message}"
        );
    };
    f.proxy.clear_requests();
    for caller in [&VIEWER, &OPERATOR] {
        let (status, body) = send(as_caller(create(), caller)).await;
        refused(status, &body, "admin");
        let (status, body) = send(as_caller(delete(), caller)).await;
        refused(status, &body, "admin");
    }
    let (status, body) = send(as_caller(rollover(), &VIEWER)).await;
    refused(status, &body, "operator");
    assert!(f.writes().is_empty(), "{:?}", f.writes());

    let (status, body) = send(as_caller(create(), &ADMIN)).await;
    assert_eq!(status, 200, "{body}");
    let (status, list) = send(as_caller(f.app.client.get(f.url("/data_streams")), &VIEWER)).await;
    assert_eq!(status, 200, "{list}");
    assert!(
        list["dataStreams"]
            .as_array()
            .unwrap()
            .iter()
            .any(|row| row["name"] == "dsroles-a"),
        "{list}"
    );
    let (status, body) = send(as_caller(rollover(), &OPERATOR)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["newIndex"], ".ds-dsroles-a-000002", "{body}");
    let (status, body) = send(as_caller(delete(), &ADMIN)).await;
    assert_eq!(status, 200, "{body}");
}

#[tokio::test]
async fn on_a_production_cluster_changes_need_a_reason_which_is_audited() {
    let cluster = shared(Distribution::OpenSearch2).await;
    let proxy = proxy_before(cluster);
    let dir = TempDir::new("data-streams-production");
    let audit = dir.path().join("audit.log");
    let app = spawn_app(&format!(
        "audit:\n  file: {}\nclusters:\n{}    environment: production\n",
        audit.display(),
        cluster_yaml("main", &proxy.url)
    ))
    .await;
    let url = |tail: &str| app.url(&format!("/api/clusters/main{tail}"));
    let (status, body) = send(
        app.client
            .put(url("/templates/index/dsprod"))
            .header("x-change-reason", "data stream test")
            .json(
                &json!({"definition": {"index_patterns": ["dsprod-*"], "data_stream": {},
                "priority": 304, "template": {"settings": {"number_of_replicas": 0}}}}),
            ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    proxy.clear_requests();
    let (status, body) = send(app.client.put(url("/data_streams/dsprod-a"))).await;
    assert_eq!(status, 428, "{body}");
    assert_eq!(body["error"]["code"], "change_reason_required");
    assert!(proxy.requests().is_empty(), "nothing sent");
    let (status, body) = send(app.client.get(url("/data_streams"))).await;
    assert_eq!(status, 200, "reads need no reason: {body}");
    for request in [
        app.client.put(url("/data_streams/dsprod-a")),
        app.client.post(url("/data_streams/dsprod-a/_rollover")),
        app.client
            .delete(url("/data_streams/dsprod-a?confirm=dsprod-a")),
    ] {
        let (status, body) = send(request.header("x-change-reason", "INC-9%3A%20rotate")).await;
        assert_eq!(status, 200, "{body}");
    }
    let path = audit.clone();
    wait_until("the audit lines", Duration::from_secs(10), move || {
        lines_of(&path).len() >= 5
    })
    .await;
    let summary: Vec<(String, String, u64, Option<String>)> = lines_of(&audit)
        .iter()
        .map(|line| {
            (
                line["method"].as_str().unwrap().to_owned(),
                line["path"].as_str().unwrap().to_owned(),
                line["status"].as_u64().unwrap(),
                line["reason"].as_str().map(str::to_owned),
            )
        })
        .collect();
    let line = |method: &str, path: &str, status: u64, reason: Option<&str>| {
        (
            method.to_owned(),
            format!("/api/clusters/main{path}"),
            status,
            reason.map(str::to_owned),
        )
    };
    assert_eq!(
        summary[1..],
        [
            line("PUT", "/data_streams/dsprod-a", 428, None),
            line("PUT", "/data_streams/dsprod-a", 200, Some("INC-9: rotate")),
            line(
                "POST",
                "/data_streams/dsprod-a/_rollover",
                200,
                Some("INC-9: rotate")
            ),
            line(
                "DELETE",
                "/data_streams/dsprod-a?confirm=dsprod-a",
                200,
                Some("INC-9: rotate")
            ),
        ]
    );
}
