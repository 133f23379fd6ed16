//! Tasks as the task management API describes them (Elasticsearch 7/8 and OpenSearch 1/2/3 answer
//! the same shapes), the filters of the list, and what a cancellation answered.
//!
//! - `GET _tasks?detailed=true[&actions=][&nodes=]` (grouped by node, the default):
//!   `{"nodes": {"<node id>": {"name", "tasks": {"<task id>": {node, id, type, action,
//!   description, start_time_in_millis, running_time_in_nanos, cancellable, cancelled,
//!   parent_task_id, headers, status}}}}, "node_failures": [...]}`;
//! - `GET _tasks/<task id>`: `{"completed", "task": {...}, "response"?, "error"?}`;
//! - `POST _tasks/<task id>/_cancel`: the cancelled tasks grouped by node as in the list, and
//!   `node_failures` / `task_failures` when the cluster would not cancel.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// One running task.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Task {
    /// `node_id:number`, as the cancel and get calls take it.
    pub id: String,
    pub node: String,
    /// The node's name, when the answer gives it (the list does).
    pub node_name: Option<String>,
    pub action: String,
    /// `transport`, `direct`, `persistent`…
    #[serde(rename = "type")]
    pub kind: String,
    pub description: Option<String>,
    pub start_time_millis: Option<u64>,
    pub running_time_nanos: u64,
    pub cancellable: bool,
    pub cancelled: bool,
    pub parent_task_id: Option<String>,
    pub headers: BTreeMap<String, String>,
    /// The action's own progress report (a reindex's counts, a recovery's stage), as given.
    #[cfg_attr(test, ts(type = "unknown"))]
    pub status: Option<Value>,
}

impl Task {
    /// A task object of an answer; `None` when it lacks its node or number.
    pub fn from_wire(value: &Value, node_name: Option<&str>) -> Option<Self> {
        let node = value["node"].as_str()?.to_owned();
        let number = value["id"].as_u64()?;
        Some(Self {
            id: format!("{node}:{number}"),
            node_name: node_name.map(str::to_owned),
            node,
            action: value["action"].as_str().unwrap_or_default().to_owned(),
            kind: value["type"].as_str().unwrap_or_default().to_owned(),
            description: value["description"]
                .as_str()
                .filter(|text| !text.is_empty())
                .map(str::to_owned),
            start_time_millis: value["start_time_in_millis"].as_u64(),
            running_time_nanos: value["running_time_in_nanos"].as_u64().unwrap_or(0),
            cancellable: value["cancellable"].as_bool().unwrap_or(false),
            cancelled: value["cancelled"].as_bool().unwrap_or(false),
            parent_task_id: value["parent_task_id"].as_str().map(str::to_owned),
            headers: value["headers"]
                .as_object()
                .map(|headers| {
                    headers
                        .iter()
                        .filter_map(|(name, value)| {
                            Some((name.clone(), value.as_str()?.to_owned()))
                        })
                        .collect()
                })
                .unwrap_or_default(),
            status: value
                .get("status")
                .filter(|status| !status.is_null())
                .cloned(),
        })
    }
}

/// Every task of an answer grouped by node (the list's and the cancellation's shape).
pub fn tasks_by_node(answer: &Value) -> Vec<Task> {
    let mut tasks: Vec<Task> = answer["nodes"]
        .as_object()
        .into_iter()
        .flatten()
        .flat_map(|(_, node)| {
            let name = node["name"].as_str();
            node["tasks"]
                .as_object()
                .into_iter()
                .flatten()
                .filter_map(move |(_, task)| Task::from_wire(task, name))
        })
        .collect();
    // Longest running first: what an operator looks for.
    tasks.sort_by(|a, b| {
        b.running_time_nanos
            .cmp(&a.running_time_nanos)
            .then_with(|| a.id.cmp(&b.id))
    });
    tasks
}

/// The reasons of `node_failures` and `task_failures` (the innermost cause's reason first: the
/// outer one of a node failure only says "Failed node [...]").
pub fn failures(answer: &Value) -> Vec<String> {
    let reason = |failure: &Value| -> Option<String> {
        let mut innermost = failure;
        while innermost["caused_by"].is_object() {
            innermost = &innermost["caused_by"];
        }
        innermost["reason"]
            .as_str()
            .or_else(|| innermost["reason"]["reason"].as_str())
            .or_else(|| failure["reason"].as_str())
            .map(str::to_owned)
    };
    ["node_failures", "task_failures"]
        .iter()
        .flat_map(|field| answer[field].as_array().into_iter().flatten())
        .filter_map(reason)
        .collect()
}

/// `GET /tasks`: the tasks matching the filters, longest running first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TaskList {
    pub tasks: Vec<Task>,
    /// Nodes that did not answer (the list is then partial).
    pub node_failures: Vec<String>,
}

/// `GET /tasks/{taskId}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TaskDetail {
    pub completed: bool,
    pub task: Task,
    /// The result of a finished task kept by the cluster (`.tasks` index), as given.
    #[cfg_attr(test, ts(type = "unknown"))]
    pub response: Option<Value>,
    #[cfg_attr(test, ts(type = "unknown"))]
    pub error: Option<Value>,
}

pub fn detail(answer: &Value) -> Result<TaskDetail, Error> {
    let task = Task::from_wire(&answer["task"], None)
        .ok_or_else(|| Error::upstream("The _tasks answer has no task.".to_owned()))?;
    Ok(TaskDetail {
        completed: answer["completed"].as_bool().unwrap_or(false),
        task,
        response: answer.get("response").cloned(),
        error: answer.get("error").cloned(),
    })
}

/// `POST /tasks/{taskId}/cancel`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct CancelResult {
    /// The tasks the cluster marked cancelled (the task and, with it, its children).
    pub cancelled: Vec<Task>,
}

/// The cancellation's answer: the cancelled tasks, or the cluster's reason for not cancelling
/// (a task that is not cancellable, one that has finished) as `rejected_by_cluster`.
pub fn cancel_result(task_id: &str, answer: &Value) -> Result<CancelResult, Error> {
    let reasons = failures(answer);
    if !reasons.is_empty() {
        return Err(Error::RejectedByCluster {
            status: StatusCode::CONFLICT,
            message: format!(
                "The cluster did not cancel task {task_id}: {}",
                reasons.join("; ")
            ),
        });
    }
    let cancelled = tasks_by_node(answer);
    if cancelled.is_empty() {
        return Err(Error::RejectedByCluster {
            status: StatusCode::NOT_FOUND,
            message: format!(
                "The cluster cancelled nothing: task {task_id} is not running (it may have \
                 finished)."
            ),
        });
    }
    Ok(CancelResult { cancelled })
}

/// `GET /tasks` query parameters.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskParams {
    pub actions: Option<String>,
    pub nodes: Option<String>,
    pub cancellable: Option<String>,
    pub min_running_ms: Option<String>,
}

/// The list's filters: `actions` and `nodes` go to the cluster, the others are applied here
/// (the API has no such parameters).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TaskFilter {
    /// Comma-separated action patterns with `*` (`indices:data/write/*,*reindex`).
    pub actions: Option<String>,
    /// Comma-separated node ids, names or selectors (`_local`, `data:true`).
    pub nodes: Option<String>,
    pub cancellable_only: bool,
    pub min_running_nanos: u64,
}

/// A query value: commas, `*`, `:` and `/` stay readable.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'*')
    .remove(b':')
    .remove(b',')
    .remove(b'/');

fn list_of(
    name: &str,
    value: Option<&str>,
    allowed: impl Fn(char) -> bool,
) -> Result<Option<String>, Error> {
    let Some(value) = value.map(str::trim).filter(|value| !value.is_empty()) else {
        return Ok(None);
    };
    if value.len() > 1024 {
        return Err(Error::BadRequest(format!(
            "{name} is longer than 1024 bytes."
        )));
    }
    let items: Vec<&str> = value.split(',').map(str::trim).collect();
    if items.iter().any(|item| item.is_empty()) {
        return Err(Error::BadRequest(format!(
            "{name} has an empty item: separate the items with single commas."
        )));
    }
    if let Some(c) = value.chars().find(|&c| c != ',' && c != ' ' && !allowed(c)) {
        return Err(Error::BadRequest(format!("{name} must not contain {c:?}.")));
    }
    Ok(Some(items.join(",")))
}

impl TaskFilter {
    pub fn parse(params: &TaskParams) -> Result<Self, Error> {
        let actions = list_of("actions", params.actions.as_deref(), |c| {
            c.is_ascii_alphanumeric() || matches!(c, ':' | '/' | '*' | '_' | '-' | '.' | '[' | ']')
        })?;
        let nodes = list_of("nodes", params.nodes.as_deref(), |c| {
            c.is_ascii_alphanumeric() || matches!(c, ':' | '*' | '_' | '-' | '.')
        })?;
        let cancellable_only = match params.cancellable.as_deref() {
            None | Some("") | Some("false") => false,
            Some("true") => true,
            Some(other) => {
                return Err(Error::BadRequest(format!(
                    "cancellable must be true or false, not \"{}\".",
                    other.escape_debug()
                )));
            }
        };
        let min_running_nanos = match params.min_running_ms.as_deref() {
            None | Some("") => 0,
            Some(text) => text
                .parse::<u64>()
                .ok()
                .and_then(|ms| ms.checked_mul(1_000_000))
                .ok_or_else(|| {
                    Error::BadRequest(format!(
                        "minRunningMs must be a whole number of milliseconds, not \"{}\".",
                        text.escape_debug()
                    ))
                })?,
        };
        Ok(Self {
            actions,
            nodes,
            cancellable_only,
            min_running_nanos,
        })
    }

    /// The cluster path: `detailed` for descriptions, grouped by node for the node names.
    pub fn cluster_path(&self) -> String {
        let mut path = "_tasks?detailed=true".to_owned();
        for (name, value) in [("actions", &self.actions), ("nodes", &self.nodes)] {
            if let Some(value) = value {
                path.push_str(&format!(
                    "&{name}={}",
                    utf8_percent_encode(value, QUERY_VALUE)
                ));
            }
        }
        path
    }

    pub fn keeps(&self, task: &Task) -> bool {
        (!self.cancellable_only || task.cancellable)
            && task.running_time_nanos >= self.min_running_nanos
    }
}

#[cfg(test)]
mod tests;
