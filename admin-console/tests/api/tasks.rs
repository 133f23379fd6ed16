//! Tasks: the running tasks with filters, a task's detail and cancelling one through
//! `/api/clusters/:id/tasks…`, against search-test-server's simulated tasks in both flavors
//! (osmem has no `_tasks`, and a real node has no long-running cancellable task on a chosen node
//! on demand); and who may cancel.

use std::time::Duration;

use search_test_server::{Flavor, Options, Recorded, SearchTestServer, TaskSpec};
use serde_json::{Value, json};
use test_support::{Osmem, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::{get_json_blocking, wait_until};
use crate::templates::{audit_lines, send, trusted_app};

struct Fixture {
    app: TestApp,
    front: SearchTestServer,
    _osmem: Osmem,
}

/// osmem behind search-test-server (`options`' osmem_url is filled in), the console in open mode
/// with one cluster `main`.
async fn fixture(options: Options) -> Fixture {
    let osmem = Osmem::start();
    let front = SearchTestServer::start(Options {
        osmem_url: osmem.url.clone(),
        ..options
    });
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("main", &front.url))).await;
    Fixture {
        app,
        front,
        _osmem: osmem,
    }
}

/// The requests the front received whose path starts with `prefix`.
fn sent(front: &SearchTestServer, prefix: &str) -> Vec<Recorded> {
    front
        .requests()
        .into_iter()
        .filter(|request| request.path.starts_with(prefix))
        .collect()
}

fn reindex(node_index: usize) -> TaskSpec {
    TaskSpec {
        action: "indices:data/write/reindex".to_owned(),
        description: "reindex from [orders] to [orders-archive]".to_owned(),
        cancellable: true,
        node_index,
    }
}

fn bulk(node_index: usize) -> TaskSpec {
    TaskSpec {
        action: "indices:data/write/bulk".to_owned(),
        description: "requests[500], indices[logs]".to_owned(),
        cancellable: false,
        node_index,
    }
}

#[tokio::test]
async fn tasks_are_listed_filtered_detailed_and_cancelled_in_both_flavors() {
    for flavor in [Flavor::OpenSearch2, Flavor::Elasticsearch8] {
        let f = fixture(Options {
            nodes: 3,
            flavor,
            ..Options::default()
        })
        .await;
        let reindex_id = f.front.add_task(reindex(0));
        let bulk_id = f.front.add_task(bulk(2));
        let url = |tail: &str| f.app.url(&format!("/api/clusters/main/tasks{tail}"));

        let (status, list) = send(f.app.client.get(url(""))).await;
        assert_eq!(status, 200, "{flavor:?}: {list}");
        let tasks = list["tasks"].as_array().unwrap();
        let reindex = tasks
            .iter()
            .find(|t| t["id"] == reindex_id.as_str())
            .unwrap();
        assert_eq!(reindex["action"], "indices:data/write/reindex");
        assert_eq!(
            reindex["description"],
            "reindex from [orders] to [orders-archive]"
        );
        assert_eq!(reindex["cancellable"], true);
        assert_eq!(reindex["cancelled"], false);
        assert_eq!(reindex["nodeName"], f.front.nodes()[0].name.as_str());
        assert!(reindex["runningTimeNanos"].as_u64().unwrap() > 0);
        assert!(reindex["status"]["total"].is_u64(), "{reindex}");
        // The listing's own tasks come as parent and child.
        let children: Vec<&Value> = tasks
            .iter()
            .filter(|t| t["parentTaskId"].is_string())
            .collect();
        assert!(!children.is_empty(), "{list}");
        assert_eq!(list["nodeFailures"], json!([]));
        let listed = sent(&f.front, "/_tasks");
        assert_eq!(listed[0].method, "GET");
        assert_eq!(listed[0].path, "/_tasks");
        assert_eq!(listed[0].param("detailed").as_deref(), Some("true"));

        // Filters: actions and nodes go to the cluster; cancellable and running time apply here.
        f.front.clear_requests();
        let node = f.front.nodes()[2].id.clone();
        let (status, filtered) = send(
            f.app
                .client
                .get(url(&format!("?actions=indices:data/write/*&nodes={node}"))),
        )
        .await;
        assert_eq!(status, 200, "{filtered}");
        let ids: Vec<&str> = filtered["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap())
            .collect();
        assert_eq!(ids, vec![bulk_id.as_str()]);
        let request = &sent(&f.front, "/_tasks")[0];
        assert_eq!(
            request.param("actions").as_deref(),
            Some("indices:data/write/*")
        );
        assert_eq!(request.param("nodes").as_deref(), Some(node.as_str()));
        let (_, cancellable) = send(f.app.client.get(url("?cancellable=true"))).await;
        assert!(
            cancellable["tasks"]
                .as_array()
                .unwrap()
                .iter()
                .all(|t| t["cancellable"] == true && t["id"] != bulk_id.as_str()),
            "{cancellable}"
        );
        let (_, long) = send(f.app.client.get(url("?minRunningMs=3600000"))).await;
        assert_eq!(long["tasks"], json!([]));

        let (status, detail) = send(f.app.client.get(url(&format!("/{reindex_id}")))).await;
        assert_eq!(status, 200, "{detail}");
        assert_eq!(detail["completed"], false);
        assert_eq!(detail["task"]["id"], reindex_id.as_str());
        assert_eq!(detail["task"]["headers"], json!({}));

        // Cancelling a task that cannot be cancelled: the cluster's reason, 409.
        f.front.clear_requests();
        let (status, refused) = send(f.app.client.post(url(&format!("/{bulk_id}/cancel")))).await;
        assert_eq!(status, 409, "{refused}");
        assert_eq!(refused["error"]["code"], "rejected_by_cluster");
        assert_eq!(
            refused["error"]["message"],
            format!(
                "The cluster did not cancel task {bulk_id}: task [{bulk_id}] doesn't support this operation"
            )
        );
        let request = &sent(&f.front, "/_tasks")[0];
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, format!("/_tasks/{bulk_id}/_cancel"));

        let (status, cancelled) =
            send(f.app.client.post(url(&format!("/{reindex_id}/cancel")))).await;
        assert_eq!(status, 200, "{cancelled}");
        assert_eq!(cancelled["cancelled"][0]["id"], reindex_id.as_str());
        assert_eq!(cancelled["cancelled"][0]["cancelled"], true);
        // The cancelled task ends: gone from the list (the cluster lists it, cancelled, until then).
        let list_url = url("");
        let ended = reindex_id.clone();
        wait_until(
            "the cancelled task to end",
            Duration::from_secs(10),
            move || {
                get_json_blocking(&list_url).is_some_and(|list| {
                    !list["tasks"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .any(|t| t["id"] == ended.as_str())
                })
            },
        )
        .await;
        let (status, missing) =
            send(f.app.client.post(url(&format!("/{reindex_id}/cancel")))).await;
        assert_eq!(status, 404, "{missing}");
        assert_eq!(missing["error"]["code"], "rejected_by_cluster");
    }
}

#[tokio::test]
async fn bad_task_input_is_refused_before_the_cluster_sees_it() {
    let f = fixture(Options::default()).await;
    let url = |tail: &str| f.app.url(&format!("/api/clusters/main/tasks{tail}"));
    for (request, expected) in [
        (f.app.client.get(url("/nonsense")), "<node id>:<number>"),
        (f.app.client.get(url("/n:1x")), "<node id>:<number>"),
        (
            f.app.client.post(url("/..%2F_cluster:1/cancel")),
            "<node id>:<number>",
        ),
        (
            f.app.client.get(url("?actions=a%26b")),
            "actions must not contain '&'",
        ),
        (
            f.app.client.get(url("?nodes=a,,b")),
            "nodes has an empty item",
        ),
        (
            f.app.client.get(url("?cancellable=maybe")),
            "cancellable must be true or false",
        ),
        (
            f.app.client.get(url("?minRunningMs=soon")),
            "minRunningMs must be a whole number",
        ),
    ] {
        let (status, body) = send(request).await;
        assert_eq!(status, 400, "{body}");
        let message = body["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(expected), "{expected}: {body}");
    }
    assert!(
        sent(&f.front, "/_tasks").is_empty(),
        "{:?}",
        f.front.requests()
    );
}

#[tokio::test]
async fn a_viewer_lists_tasks_an_operator_cancels_them() {
    let osmem = Osmem::start();
    let front = SearchTestServer::start(Options {
        osmem_url: osmem.url.clone(),
        ..Options::default()
    });
    let first = front.add_task(reindex(0));
    let second = front.add_task(reindex(0));
    let dir = TempDir::new("tasks-roles");
    let (app, file) = trusted_app(&front.url, &dir).await;
    let url = |tail: &str| app.url(&format!("/api/clusters/main/tasks{tail}"));
    let (status, _) = send(as_caller(app.client.get(url("")), &VIEWER)).await;
    assert_eq!(status, 200);
    let (status, body) = send(as_caller(
        app.client.post(url(&format!("/{first}/cancel"))),
        &VIEWER,
    ))
    .await;
    assert_eq!(status, 403, "{body}");
    assert!(
        sent(&front, "/_tasks")
            .iter()
            .all(|request| request.method == "GET"),
        "the refused cancel reached nothing"
    );
    for (caller, task) in [(&OPERATOR, &first), (&ADMIN, &second)] {
        let (status, body) = send(as_caller(
            app.client.post(url(&format!("/{task}/cancel"))),
            caller,
        ))
        .await;
        assert_eq!(status, 200, "{body}");
    }
    let lines = audit_lines(&file, 3).await;
    assert_eq!(lines[0]["user"], "vera");
    assert_eq!(lines[0]["outcome"], "denied");
    assert_eq!(
        lines[0]["path"],
        format!("/api/clusters/main/tasks/{first}/cancel")
    );
    assert_eq!(lines[1]["user"], "otto");
    assert_eq!(lines[1]["outcome"], "success");
}
