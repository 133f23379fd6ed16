use serde_json::json;

use super::*;

/// `GET _tasks?detailed=true` as documented (grouped by node).
fn list_answer() -> Value {
    json!({"nodes": {
        "oTUltX4IQMOUUVeiohTt8A": {
            "name": "node-1", "transport_address": "127.0.0.1:9300", "host": "127.0.0.1",
            "ip": "127.0.0.1:9300", "roles": ["data"],
            "tasks": {
                "oTUltX4IQMOUUVeiohTt8A:124": {
                    "node": "oTUltX4IQMOUUVeiohTt8A", "id": 124, "type": "direct",
                    "action": "cluster:monitor/tasks/lists[n]", "start_time_in_millis": 1458585884904u64,
                    "running_time_in_nanos": 47402, "cancellable": false,
                    "parent_task_id": "oTUltX4IQMOUUVeiohTt8A:123", "headers": {}
                },
                "oTUltX4IQMOUUVeiohTt8A:123": {
                    "node": "oTUltX4IQMOUUVeiohTt8A", "id": 123, "type": "transport",
                    "action": "indices:data/write/reindex", "description": "reindex from [a] to [b]",
                    "status": {"total": 6154, "updated": 3500, "created": 0},
                    "start_time_in_millis": 1458585884904u64, "running_time_in_nanos": 236042000000u64,
                    "cancellable": true, "cancelled": false,
                    "headers": {"X-Opaque-Id": "123456"}
                }
            }
        }
    }})
}

#[test]
fn listed_tasks_carry_their_node_name_longest_running_first() {
    let tasks = tasks_by_node(&list_answer());
    assert_eq!(tasks.len(), 2);
    let reindex = &tasks[0];
    assert_eq!(reindex.id, "oTUltX4IQMOUUVeiohTt8A:123");
    assert_eq!(reindex.node_name.as_deref(), Some("node-1"));
    assert_eq!(reindex.kind, "transport");
    assert_eq!(
        reindex.description.as_deref(),
        Some("reindex from [a] to [b]")
    );
    assert!(reindex.cancellable && !reindex.cancelled);
    assert_eq!(reindex.headers["X-Opaque-Id"], "123456");
    assert_eq!(reindex.status.as_ref().unwrap()["total"], 6154);
    assert_eq!(reindex.start_time_millis, Some(1458585884904));
    let child = &tasks[1];
    assert_eq!(
        child.parent_task_id.as_deref(),
        Some("oTUltX4IQMOUUVeiohTt8A:123")
    );
    assert_eq!(child.description, None);
    assert_eq!(child.status, None);
    assert!(tasks_by_node(&json!({})).is_empty());
}

#[test]
fn filters_go_to_the_cluster_or_apply_here() {
    let filter = TaskFilter::parse(&TaskParams {
        actions: Some(" indices:data/write/*, *reindex ".to_owned()),
        nodes: Some("node-1,data:true".to_owned()),
        cancellable: Some("true".to_owned()),
        min_running_ms: Some("1000".to_owned()),
    })
    .unwrap();
    assert_eq!(
        filter.cluster_path(),
        "_tasks?detailed=true&actions=indices:data/write/*,*reindex&nodes=node-1,data:true"
    );
    let tasks = tasks_by_node(&list_answer());
    assert!(filter.keeps(&tasks[0]));
    assert!(!filter.keeps(&tasks[1]), "not cancellable, 47 µs");
    let none = TaskFilter::parse(&TaskParams::default()).unwrap();
    assert_eq!(none.cluster_path(), "_tasks?detailed=true");
    assert!(tasks.iter().all(|task| none.keeps(task)));
    let slow = TaskFilter::parse(&TaskParams {
        min_running_ms: Some("300000".to_owned()),
        ..TaskParams::default()
    })
    .unwrap();
    assert!(!slow.keeps(&tasks[0]), "236 s is under 300 s");
}

#[test]
fn bad_filters_are_refused_precisely() {
    for (params, expected) in [
        (
            TaskParams {
                actions: Some("a&b=c".to_owned()),
                ..TaskParams::default()
            },
            "actions must not contain '&'",
        ),
        (
            TaskParams {
                actions: Some("a,,b".to_owned()),
                ..TaskParams::default()
            },
            "actions has an empty item",
        ),
        (
            TaskParams {
                nodes: Some("n/1".to_owned()),
                ..TaskParams::default()
            },
            "nodes must not contain '/'",
        ),
        (
            TaskParams {
                cancellable: Some("yes".to_owned()),
                ..TaskParams::default()
            },
            "cancellable must be true or false",
        ),
        (
            TaskParams {
                min_running_ms: Some("-5".to_owned()),
                ..TaskParams::default()
            },
            "minRunningMs must be a whole number",
        ),
        (
            TaskParams {
                min_running_ms: Some("99999999999999999".to_owned()),
                ..TaskParams::default()
            },
            "minRunningMs must be a whole number",
        ),
    ] {
        let message = TaskFilter::parse(&params).unwrap_err().to_string();
        assert!(message.contains(expected), "{message}");
    }
}

#[test]
fn the_detail_reads_the_get_task_answer() {
    let answer = json!({"completed": false, "task": {
        "node": "oTUltX4IQMOUUVeiohTt8A", "id": 12345, "type": "transport",
        "action": "indices:data/write/reindex", "status": {"total": 10},
        "description": "reindex", "start_time_in_millis": 1, "running_time_in_nanos": 2,
        "cancellable": true, "cancelled": true, "headers": {}
    }});
    let detail = detail(&answer).unwrap();
    assert!(!detail.completed);
    assert!(detail.task.cancelled);
    assert_eq!(detail.task.node_name, None);
    assert_eq!(detail.response, None);
    let done = json!({"completed": true, "task": answer["task"].clone(), "response": {"took": 5}});
    assert_eq!(
        super::detail(&done).unwrap().response,
        Some(json!({"took": 5}))
    );
    assert!(super::detail(&json!({})).is_err());
}

#[test]
fn a_cancellation_answers_the_cancelled_tasks_or_the_cluster_reason() {
    let cancelled = json!({"nodes": {"n": {"name": "node-1", "tasks": {"n:5": {
        "node": "n", "id": 5, "type": "transport", "action": "indices:data/write/reindex",
        "start_time_in_millis": 1, "running_time_in_nanos": 2, "cancellable": true, "cancelled": true,
        "headers": {}}}}}});
    let result = cancel_result("n:5", &cancelled).unwrap();
    assert_eq!(result.cancelled[0].id, "n:5");
    assert!(result.cancelled[0].cancelled);
    // A task that cannot be cancelled: the node's failure names the cause.
    let refused = json!({"node_failures": [{
        "type": "failed_node_exception", "reason": "Failed node [n]", "node_id": "n",
        "caused_by": {"type": "illegal_argument_exception", "reason": "task [n:6] doesn't support cancellation"}
    }], "nodes": {}});
    let error = cancel_result("n:6", &refused).unwrap_err();
    assert!(
        matches!(error, Error::RejectedByCluster { status, .. } if status == StatusCode::CONFLICT)
    );
    assert_eq!(
        error.to_string(),
        "The cluster did not cancel task n:6: task [n:6] doesn't support cancellation"
    );
    let task_failure = json!({"task_failures": [{"task_id": 7, "node_id": "n", "status": "INTERNAL_SERVER_ERROR",
        "reason": {"type": "illegal_state_exception", "reason": "task is finishing"}}], "nodes": {}});
    assert!(
        cancel_result("n:7", &task_failure)
            .unwrap_err()
            .to_string()
            .ends_with("task is finishing")
    );
    let nothing = cancel_result("n:8", &json!({"nodes": {}})).unwrap_err();
    assert!(
        matches!(nothing, Error::RejectedByCluster { status, .. } if status == StatusCode::NOT_FOUND)
    );
}
