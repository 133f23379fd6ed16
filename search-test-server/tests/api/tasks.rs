//! Item 2: simulated tasks in the documented formats.

use search_test_server::{Flavor, TaskSpec};
use serde_json::json;

use crate::Fixture;

fn reindex(node_index: usize) -> TaskSpec {
    TaskSpec {
        action: "indices:data/write/reindex".into(),
        description: "reindex from [a] to [b]".into(),
        cancellable: true,
        node_index,
    }
}

fn bulk(node_index: usize) -> TaskSpec {
    TaskSpec {
        action: "indices:data/write/bulk".into(),
        description: "requests[10], indices[a]".into(),
        cancellable: false,
        node_index,
    }
}

#[tokio::test]
async fn the_list_groups_by_nodes_parents_or_none_and_filters() {
    let f = Fixture::start(3, Flavor::OpenSearch2);
    let nodes = f.server.nodes();
    let reindex_id = f.server.add_task(reindex(1));
    let bulk_id = f.server.add_task(bulk(2));
    assert!(reindex_id.starts_with(&format!("{}:", nodes[1].id)));

    let list = f
        .get("/_tasks?actions=indices:data/write/*&detailed=true")
        .await;
    let on_node_2 = &list["nodes"][&nodes[1].id];
    assert_eq!(on_node_2["name"], "node-2");
    assert_eq!(on_node_2["transport_address"], "127.0.0.1:9301");
    let task = &on_node_2["tasks"][&reindex_id];
    assert_eq!(task["node"], nodes[1].id.as_str());
    assert_eq!(task["type"], "transport");
    assert_eq!(task["action"], "indices:data/write/reindex");
    assert_eq!(task["description"], "reindex from [a] to [b]");
    assert_eq!(task["cancellable"], true);
    assert_eq!(task["cancelled"], false);
    assert!(task["start_time_in_millis"].as_u64().unwrap() > 1_700_000_000_000);
    assert!(task["headers"].is_object());
    assert_eq!(
        list["nodes"][&nodes[2].id]["tasks"][&bulk_id]["cancellable"],
        false
    );
    assert_eq!(
        list["nodes"].as_object().unwrap().len(),
        2,
        "the list task is filtered out"
    );

    // Without `detailed` there is no description; the listing's own tasks are there.
    let all = f.get("/_tasks?group_by=none").await;
    let tasks = all["tasks"].as_array().unwrap();
    assert!(tasks.iter().all(|task| task.get("description").is_none()));
    assert!(
        tasks
            .iter()
            .any(|task| task["action"] == "cluster:monitor/tasks/lists")
    );
    assert_eq!(
        tasks
            .iter()
            .filter(|task| task["action"] == "cluster:monitor/tasks/lists[n]")
            .count(),
        3
    );

    // running_time_in_nanos grows with real time.
    let first = f.get(&format!("/_tasks/{reindex_id}")).await;
    tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    let second = f.get(&format!("/_tasks/{reindex_id}")).await;
    assert_eq!(first["completed"], false);
    assert_eq!(
        first["task"]["id"].as_u64().unwrap().to_string(),
        reindex_id.split(':').nth(1).unwrap()
    );
    assert!(
        second["task"]["running_time_in_nanos"].as_u64()
            > first["task"]["running_time_in_nanos"].as_u64()
    );

    // Node filter by name, and group_by=parents nests the listing's children.
    let by_node = f.get("/_tasks?nodes=node-3&actions=indices:*").await;
    assert_eq!(
        by_node["nodes"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        vec![&nodes[2].id]
    );
    let parents = f
        .get("/_tasks?group_by=parents&actions=cluster:monitor/tasks/lists*")
        .await;
    let top = parents["tasks"].as_object().unwrap();
    assert_eq!(top.len(), 1);
    assert_eq!(
        top.values().next().unwrap()["children"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let (status, body) = f.call("GET", "/_tasks/nosuch:1", None).await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["type"], "resource_not_found_exception");
}

#[tokio::test]
async fn cancel_marks_the_task_cancelled_then_it_ends_and_refusals_are_documented() {
    let f = Fixture::start(2, Flavor::Elasticsearch8);
    let nodes = f.server.nodes();
    let reindex_id = f.server.add_task(reindex(0));
    let bulk_id = f.server.add_task(bulk(1));

    let (status, body) = f
        .call("POST", &format!("/_tasks/{reindex_id}/_cancel"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    let task = &body["nodes"][&nodes[0].id]["tasks"][&reindex_id];
    assert_eq!(task["cancelled"], true);
    assert_eq!(task["action"], "indices:data/write/reindex");
    assert!(
        f.server
            .requests()
            .iter()
            .any(|r| r.method == "POST" && r.path.ends_with("/_cancel"))
    );
    crate::eventually("the cancelled task to end", || async {
        f.call("GET", &format!("/_tasks/{reindex_id}"), None)
            .await
            .0
            == 404
    })
    .await;

    let (status, body) = f
        .call("POST", &format!("/_tasks/{bulk_id}/_cancel"), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(body["nodes"], json!({}));
    assert_eq!(body["node_failures"][0]["type"], "failed_node_exception");
    assert_eq!(body["node_failures"][0]["node_id"], nodes[1].id.as_str());
    assert_eq!(
        body["node_failures"][0]["caused_by"],
        json!({"type": "resource_not_found_exception",
               "reason": format!("task [{bulk_id}] doesn't support this operation")})
    );

    let (status, body) = f
        .call(
            "POST",
            &format!("/_tasks/{}:99999/_cancel", nodes[0].id),
            None,
        )
        .await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["type"], "resource_not_found_exception");
    let (status, _) = f.call("POST", "/_tasks/garbage/_cancel", None).await;
    assert_eq!(status, 400);

    // Cancel by action: only the cancellable matching tasks.
    let second = f.server.add_task(reindex(1));
    let (status, body) = f
        .call("POST", "/_tasks/_cancel?actions=indices:data/write/*", None)
        .await;
    assert_eq!(status, 200);
    let cancelled = &body["nodes"][&nodes[1].id]["tasks"];
    assert_eq!(
        cancelled.as_object().unwrap().keys().collect::<Vec<_>>(),
        vec![&second]
    );
    assert!(
        f.get("/_tasks?actions=indices:data/write/bulk").await["nodes"][&nodes[1].id]["tasks"]
            [&bulk_id]
            .is_object()
    );
}

#[tokio::test]
async fn cat_tasks_shows_the_same_tasks() {
    let f = Fixture::start(2, Flavor::OpenSearch2);
    let id = f.server.add_task(reindex(1));
    let rows = f
        .get("/_cat/tasks?format=json&detailed&actions=*reindex")
        .await;
    assert_eq!(rows.as_array().unwrap().len(), 1);
    let row = &rows[0];
    assert_eq!(row["task_id"], id.as_str());
    assert_eq!(row["action"], "indices:data/write/reindex");
    assert_eq!(row["parent_task_id"], "-");
    assert_eq!(row["type"], "transport");
    assert_eq!(row["node"], "node-2");
    assert_eq!(row["description"], "reindex from [a] to [b]");
    let text = f
        .client
        .get(format!("{}/_cat/tasks?v&h=action,node", f.server.url))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.starts_with("action "), "{text}");
    assert!(text.contains("indices:data/write/reindex"), "{text}");
}
