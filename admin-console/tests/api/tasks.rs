//! Tasks: the running tasks with filters, a task's detail and cancelling one through
//! `/api/clusters/:id/tasks…`, against real nodes in both flavors, through a recording proxy of
//! each test's own; and who may cancel. The long-running tasks are real: on OpenSearch (3.8, whose
//! zip has the reindex module) a `_reindex` throttled to one document a second; on the secured
//! Elasticsearch 8.19 (no reindex module in its zip) a task listing waiting for a hot threads
//! task to complete, which Elasticsearch cancels at once (a waiting `_cluster/health` is
//! cancellable too, but ends only at its timeout). The task neither can cancel is that
//! `_nodes/hot_threads` sampling for minutes. Each is tagged with an `X-Opaque-Id` of the
//! test's own, which finds it among the tasks of the tests sharing the node.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster, TempDir};

use crate::access::{ADMIN, OPERATOR, VIEWER, as_caller};
use crate::app::{TestApp, cluster_yaml, spawn_app};
use crate::support::real::{direct, direct_json, proxy_before, sent, shared};
use crate::support::send;
use crate::templates::{audit_lines, trusted_app};

struct Fixture {
    app: TestApp,
    proxy: search_test_server::Proxy,
    cluster: &'static SearchCluster,
}

/// The shared node of `distribution`, a proxy of the test's own before it, the console in open
/// mode with one cluster `main` at the proxy.
async fn fixture(distribution: Distribution) -> Fixture {
    let cluster = shared(distribution).await;
    let proxy = proxy_before(cluster);
    let app = spawn_app(&format!("clusters:\n{}", cluster_yaml("main", &proxy.url))).await;
    Fixture {
        app,
        proxy,
        cluster,
    }
}

/// Sends `method path` (with `body`) to `cluster` tagged `X-Opaque-Id: tag`, without waiting
/// for its answer (it runs until cancelled or for minutes), and answers the id of its task
/// (`action`, no parent) once the node lists it.
async fn start_task(
    cluster: &'static SearchCluster,
    action: &str,
    tag: &str,
    method: Method,
    path: &str,
    body: Option<Value>,
) -> String {
    let mut request = direct(cluster, method, path).header("X-Opaque-Id", tag);
    if let Some(body) = body {
        request = request.json(&body);
    }
    tokio::spawn(async move {
        let _ = request.send().await;
    });
    let listing = format!("/_tasks?detailed=true&actions={action}");
    test_support::eventually_with(
        "the node lists the task",
        Duration::from_secs(30),
        async || {
            let listed = direct_json(cluster, &listing).await;
            listed["nodes"]
                .as_object()
                .into_iter()
                .flat_map(|nodes| nodes.values())
                .flat_map(|node| node["tasks"].as_object().into_iter().flatten())
                .find(|(_, task)| {
                    task["headers"]["X-Opaque-Id"] == tag && task.get("parent_task_id").is_none()
                })
                .map(|(id, _)| id.clone())
                .ok_or_else(|| format!("no task {tag} in {listed}"))
        },
    )
    .await
}

/// A task that runs until cancelled, and its kind; on Elasticsearch it waits for a stuck task
/// (see [`stuck_task`]) tagged `<tag>-stuck`, which it starts.
async fn cancellable_task(distribution: Distribution, tag: &str) -> (String, &'static str) {
    let cluster = shared(distribution).await;
    match distribution {
        Distribution::OpenSearch3 => {
            let source = format!("{tag}-orders");
            let bulk: String = (0..1000)
                .map(|n| {
                    format!(
                        "{{\"index\":{{\"_index\":\"{source}\",\"_id\":\"{n}\"}}}}\n{{\"n\":{n}}}\n"
                    )
                })
                .collect();
            let seeded = direct(cluster, Method::POST, "/_bulk?refresh=true")
                .header("content-type", "application/x-ndjson")
                .body(bulk)
                .send()
                .await
                .unwrap();
            assert!(seeded.status().is_success(), "{}", seeded.status());
            let id = start_task(
                cluster,
                "indices:data/write/reindex",
                tag,
                Method::POST,
                "/_reindex?wait_for_completion=false&requests_per_second=1",
                Some(json!({
                    "source": {"index": source, "size": 10},
                    "dest": {"index": format!("{tag}-archive")},
                })),
            )
            .await;
            (id, "reindex")
        }
        _ => {
            stuck_task(cluster, &format!("{tag}-stuck")).await;
            let id = start_task(
                cluster,
                "cluster:monitor/tasks/lists",
                tag,
                Method::GET,
                "/_tasks?wait_for_completion=true&timeout=300s&actions=cluster:monitor/nodes/hot_threads",
                None,
            )
            .await;
            (id, "wait")
        }
    }
}

/// A task the node cannot cancel: hot threads sampled for two minutes. Started once per tag.
async fn stuck_task(cluster: &'static SearchCluster, tag: &str) -> String {
    start_task(
        cluster,
        "cluster:monitor/nodes/hot_threads",
        tag,
        Method::GET,
        "/_nodes/hot_threads?interval=120s",
        None,
    )
    .await
}

/// The task tagged `tag` that `start_task` started before, by its tag.
async fn tagged_task(cluster: &'static SearchCluster, action: &str, tag: &str) -> Option<String> {
    let listed = direct_json(cluster, &format!("/_tasks?detailed=true&actions={action}")).await;
    listed["nodes"]
        .as_object()
        .into_iter()
        .flat_map(|nodes| nodes.values())
        .flat_map(|node| node["tasks"].as_object().into_iter().flatten())
        .find(|(_, task)| task["headers"]["X-Opaque-Id"] == tag)
        .map(|(id, _)| id.clone())
}

/// Deletes the test's indices (`<tag>-*`) from a node.
async fn delete_indices(cluster: &'static SearchCluster, tag: &str) {
    let _ = direct(
        cluster,
        Method::DELETE,
        &format!("/{tag}-orders,{tag}-archive?ignore_unavailable=true"),
    )
    .send()
    .await;
}

#[tokio::test]
async fn tasks_are_listed_filtered_detailed_and_cancelled_in_both_flavors() {
    for distribution in [
        Distribution::OpenSearch3,
        Distribution::Elasticsearch8Secured,
    ] {
        let f = fixture(distribution).await;
        let tag = format!("tasks-{}", f.proxy.url.rsplit(':').next().unwrap());
        let (task_id, kind) = cancellable_task(distribution, &tag).await;
        let stuck_tag = format!("{tag}-stuck");
        let stuck_id =
            match tagged_task(f.cluster, "cluster:monitor/nodes/hot_threads", &stuck_tag).await {
                Some(id) => id,
                None => stuck_task(f.cluster, &stuck_tag).await,
            };
        let node_id = stuck_id.split(':').next().unwrap().to_owned();
        let url = |tail: &str| f.app.url(&format!("/api/clusters/main/tasks{tail}"));

        let (status, list) = send(f.app.client.get(url(""))).await;
        assert_eq!(status, 200, "{distribution:?}: {list}");
        let tasks = list["tasks"].as_array().unwrap();
        let task = tasks
            .iter()
            .find(|t| t["id"] == task_id.as_str())
            .unwrap_or_else(|| panic!("{task_id} in {list}"));
        assert_eq!(task["cancellable"], true, "{task}");
        assert_eq!(task["cancelled"], false);
        assert!(task["nodeName"].is_string(), "{task}");
        assert!(task["runningTimeNanos"].as_u64().unwrap() > 0);
        if kind == "reindex" {
            assert_eq!(task["action"], "indices:data/write/reindex");
            assert_eq!(
                task["description"],
                format!("reindex from [{tag}-orders] to [{tag}-archive]")
            );
            assert_eq!(task["status"]["total"], 1000, "{task}");
        } else {
            assert_eq!(task["action"], "cluster:monitor/tasks/lists");
        }
        let stuck = tasks.iter().find(|t| t["id"] == stuck_id.as_str()).unwrap();
        assert_eq!(stuck["cancellable"], false, "{stuck}");
        // The listing's own tasks come as parent and child.
        let children: Vec<&Value> = tasks
            .iter()
            .filter(|t| t["parentTaskId"].is_string())
            .collect();
        assert!(!children.is_empty(), "{list}");
        assert_eq!(list["nodeFailures"], json!([]));
        let listed = sent(&f.proxy, "/_tasks");
        assert_eq!(listed[0].method, "GET");
        assert_eq!(listed[0].path, "/_tasks");
        assert_eq!(listed[0].param("detailed").as_deref(), Some("true"));

        // Filters: actions and nodes go to the cluster; cancellable and running time apply here.
        f.proxy.clear_requests();
        let (status, filtered) = send(f.app.client.get(url(&format!(
            "?actions=cluster:monitor/nodes/hot_threads&nodes={node_id}"
        ))))
        .await;
        assert_eq!(status, 200, "{filtered}");
        let ids: Vec<&str> = filtered["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap())
            .collect();
        assert!(ids.contains(&stuck_id.as_str()), "{filtered}");
        assert!(!ids.contains(&task_id.as_str()), "{filtered}");
        let request = &sent(&f.proxy, "/_tasks")[0];
        assert_eq!(
            request.param("actions").as_deref(),
            Some("cluster:monitor/nodes/hot_threads")
        );
        assert_eq!(request.param("nodes").as_deref(), Some(node_id.as_str()));
        let (_, cancellable) = send(f.app.client.get(url("?cancellable=true"))).await;
        let cancellable = cancellable["tasks"].as_array().unwrap();
        assert!(
            cancellable
                .iter()
                .all(|t| t["cancellable"] == true && t["id"] != stuck_id.as_str()),
            "{cancellable:?}"
        );
        assert!(cancellable.iter().any(|t| t["id"] == task_id.as_str()));
        let (_, long) = send(f.app.client.get(url("?minRunningMs=3600000"))).await;
        assert_eq!(long["tasks"], json!([]));

        let (status, detail) = send(f.app.client.get(url(&format!("/{task_id}")))).await;
        assert_eq!(status, 200, "{detail}");
        assert_eq!(detail["completed"], false);
        assert_eq!(detail["task"]["id"], task_id.as_str());
        assert_eq!(detail["task"]["headers"], json!({"X-Opaque-Id": tag}));

        // Cancelling a task that cannot be cancelled: the cluster's reason, 409.
        f.proxy.clear_requests();
        let (status, refused) = send(f.app.client.post(url(&format!("/{stuck_id}/cancel")))).await;
        assert_eq!(status, 409, "{refused}");
        assert_eq!(refused["error"]["code"], "rejected_by_cluster");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with(&format!("The cluster did not cancel task {stuck_id}"))
                && message.contains(&format!("task [{stuck_id}] doesn't support cancellation")),
            "{refused}"
        );
        let request = &sent(&f.proxy, "/_tasks")[0];
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, format!("/_tasks/{stuck_id}/_cancel"));

        let (status, cancelled) = send(f.app.client.post(url(&format!("/{task_id}/cancel")))).await;
        assert_eq!(status, 200, "{cancelled}");
        assert_eq!(cancelled["cancelled"][0]["id"], task_id.as_str());

        // The cancelled task ends: gone from the list (the cluster lists it, cancelled, until then).
        test_support::eventually_with(
            "the cancelled task to end",
            Duration::from_secs(30),
            async || {
                let (_, list) = send(f.app.client.get(url(""))).await;
                let listed = list["tasks"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .any(|t| t["id"] == task_id.as_str());
                if listed {
                    Err(list.to_string())
                } else {
                    Ok(())
                }
            },
        )
        .await;
        // A task that ended: the cluster answers with a node failure (not a 404), which the
        // console passes on as its refusal.
        let (status, missing) = send(f.app.client.post(url(&format!("/{task_id}/cancel")))).await;
        assert_eq!(status, 409, "{missing}");
        assert_eq!(missing["error"]["code"], "rejected_by_cluster");
        assert!(
            missing["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("task [{task_id}] is not found")),
            "{missing}"
        );
        delete_indices(f.cluster, &tag).await;
    }
}

#[tokio::test]
async fn bad_task_input_is_refused_before_the_cluster_sees_it() {
    let f = fixture(Distribution::OpenSearch2).await;
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
        sent(&f.proxy, "/_tasks").is_empty(),
        "{:?}",
        f.proxy.requests()
    );
}

#[tokio::test]
async fn a_viewer_lists_tasks_an_operator_cancels_them() {
    let cluster = shared(Distribution::Elasticsearch8Secured).await;
    let proxy = proxy_before(cluster);
    let tag = format!("roles-{}", proxy.url.rsplit(':').next().unwrap());
    let (first, _) =
        cancellable_task(Distribution::Elasticsearch8Secured, &format!("{tag}-1")).await;
    let (second, _) =
        cancellable_task(Distribution::Elasticsearch8Secured, &format!("{tag}-2")).await;
    let dir = TempDir::new("tasks-roles");
    let (app, file) = trusted_app(&proxy.url, &dir).await;
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
        sent(&proxy, "/_tasks")
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
