//! Simulated tasks: `GET /_tasks` (filters and the three groupings), `GET /_tasks/<id>`,
//! `POST /_tasks/<id>/_cancel`, `POST /_tasks/_cancel` and `GET /_cat/tasks`, in the
//! documented formats. The list includes the listing's own tasks, as the clusters' does.

use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::nodes::{SimNode, select};
use crate::wire::{Call, Reply, es_error, iso_millis, now_millis, ok, wildcard};
use crate::{Shared, cat, lock};

/// A simulated running task.
#[derive(Debug, Clone)]
pub struct TaskSpec {
    /// e.g. `indices:data/write/reindex`
    pub action: String,
    pub description: String,
    pub cancellable: bool,
    /// The node it runs on (position in [`crate::SearchTestServer::nodes`]).
    pub node_index: usize,
}

/// How long a cancelled task goes on being listed (with `cancelled: true`) before it ends.
const CANCEL_GRACE: Duration = Duration::from_millis(500);

#[derive(Debug, Clone)]
struct Task {
    node: SimNode,
    id: u64,
    kind: &'static str,
    action: String,
    description: String,
    cancellable: bool,
    cancelled_at: Option<Instant>,
    start_millis: u64,
    started: Instant,
    parent: Option<String>,
}

impl Task {
    fn task_id(&self) -> String {
        format!("{}:{}", self.node.id, self.id)
    }

    fn running_nanos(&self) -> u128 {
        self.started.elapsed().as_nanos().max(1)
    }

    fn to_json(&self, detailed: bool) -> Value {
        let mut task = json!({
            "node": self.node.id,
            "id": self.id,
            "type": self.kind,
            "action": self.action,
            "start_time_in_millis": self.start_millis,
            "running_time_in_nanos": self.running_nanos() as u64,
            "cancellable": self.cancellable,
            "headers": {}
        });
        if self.cancellable {
            task["cancelled"] = json!(self.cancelled_at.is_some());
        }
        if detailed {
            task["description"] = json!(self.description);
            if self.action == "indices:data/write/reindex" {
                // BulkByScrollTask.Status, progressing with the time it has run.
                let done = (self.started.elapsed().as_millis() as u64 / 10).min(99_000);
                task["status"] = json!({
                    "total": 100_000, "updated": 0, "created": done, "deleted": 0,
                    "batches": done / 1000 + 1, "version_conflicts": 0, "noops": 0,
                    "retries": {"bulk": 0, "search": 0}, "throttled_millis": 0,
                    "requests_per_second": -1.0, "throttled_until_millis": 0
                });
            }
        }
        if let Some(parent) = &self.parent {
            task["parent_task_id"] = json!(parent);
        }
        task
    }
}

#[derive(Default)]
pub(crate) struct Tasks {
    next_id: u64,
    list: Vec<Task>,
}

impl Tasks {
    pub(crate) fn add(&mut self, spec: TaskSpec, node: &SimNode) -> String {
        let task = self.push(node, "transport", spec.action, spec.description, None);
        let task = self
            .list
            .iter_mut()
            .find(|t| t.task_id() == task)
            .expect("just added");
        task.cancellable = spec.cancellable;
        task.task_id()
    }

    fn push(
        &mut self,
        node: &SimNode,
        kind: &'static str,
        action: String,
        description: String,
        parent: Option<String>,
    ) -> String {
        self.next_id += 1;
        let task = Task {
            node: node.clone(),
            id: 1000 + self.next_id,
            kind,
            action,
            description,
            cancellable: false,
            cancelled_at: None,
            start_millis: now_millis(),
            started: Instant::now(),
            parent,
        };
        let id = task.task_id();
        self.list.push(task);
        id
    }

    /// Ends the cancelled tasks whose grace has passed.
    fn expire(&mut self) {
        self.list.retain(|task| {
            task.cancelled_at
                .is_none_or(|at| at.elapsed() < CANCEL_GRACE)
        });
    }

    /// The running tasks plus the listing's own (`cluster:monitor/tasks/lists` on the master
    /// and one `[n]` child per node), which end with the call.
    fn snapshot_with_listing(&mut self, nodes: &[SimNode]) -> Vec<Task> {
        self.expire();
        let mut listing = Tasks {
            next_id: self.next_id,
            list: Vec::new(),
        };
        let parent = listing.push(
            &nodes[0],
            "transport",
            "cluster:monitor/tasks/lists".into(),
            String::new(),
            None,
        );
        for node in nodes {
            listing.push(
                node,
                "direct",
                "cluster:monitor/tasks/lists[n]".into(),
                String::new(),
                Some(parent.clone()),
            );
        }
        self.next_id = listing.next_id;
        let mut all = self.list.clone();
        all.extend(listing.list);
        all
    }
}

/// The filters of `GET /_tasks` and `POST /_tasks/_cancel`.
fn matches(task: &Task, call: &Call, nodes: &[SimNode]) -> bool {
    let actions = call.param("actions").filter(|a| !a.is_empty());
    let on_nodes = call.param("nodes").filter(|n| !n.is_empty());
    let parent = call
        .param("parent_task_id")
        .filter(|p| !p.is_empty() && *p != "-1");
    actions.is_none_or(|actions| actions.split(',').any(|p| wildcard(p.trim(), &task.action)))
        && on_nodes.is_none_or(|selector| {
            select(nodes, selector)
                .iter()
                .any(|node| node.id == task.node.id)
        })
        && parent.is_none_or(|parent| task.parent.as_deref() == Some(parent))
}

/// The node header the grouped answers put above a node's tasks.
fn node_entry(node: &SimNode) -> Map<String, Value> {
    let entry = json!({
        "name": node.name,
        "transport_address": node.transport_address,
        "host": node.ip,
        "ip": node.transport_address,
        "roles": node.roles,
        "attributes": {},
        "tasks": {}
    });
    entry.as_object().cloned().unwrap_or_default()
}

fn group_by_nodes(tasks: &[&Task], detailed: bool) -> Value {
    let mut nodes = Map::new();
    for task in tasks {
        let entry = nodes
            .entry(task.node.id.clone())
            .or_insert_with(|| Value::Object(node_entry(&task.node)));
        entry["tasks"][task.task_id()] = task.to_json(detailed);
    }
    json!({"nodes": nodes})
}

pub(crate) fn handle(shared: &Shared, call: &Call, rest: &[&str]) -> Option<Reply> {
    let detailed = call.flag("detailed");
    Some(match (rest, call.method.as_str()) {
        ([], "GET") => {
            let all = lock(&shared.tasks).snapshot_with_listing(&shared.nodes);
            let chosen: Vec<&Task> = all
                .iter()
                .filter(|task| matches(task, call, &shared.nodes))
                .collect();
            match call.param("group_by").unwrap_or("nodes") {
                "nodes" => ok(&group_by_nodes(&chosen, detailed)),
                "none" => ok(
                    &json!({"tasks": chosen.iter().map(|t| t.to_json(detailed)).collect::<Vec<_>>()}),
                ),
                "parents" => ok(&group_by_parents(&chosen, detailed)),
                other => es_error(
                    400,
                    "illegal_argument_exception",
                    &format!("failed to parse value [{other}] for parameter [group_by]"),
                ),
            }
        }
        (["_cancel"], "POST") => {
            let mut tasks = lock(&shared.tasks);
            tasks.expire();
            let now = Instant::now();
            let mut cancelled = Vec::new();
            for task in tasks.list.iter_mut() {
                if task.cancellable && matches(task, call, &shared.nodes) {
                    task.cancelled_at.get_or_insert(now);
                    cancelled.push(task.clone());
                }
            }
            ok(&group_by_nodes(
                &cancelled.iter().collect::<Vec<_>>(),
                detailed,
            ))
        }
        ([task_id], "GET") => {
            let task = parse_id(task_id).map(|_| {
                let mut tasks = lock(&shared.tasks);
                tasks.expire();
                tasks
                    .list
                    .iter()
                    .find(|task| task.task_id() == *task_id)
                    .cloned()
            });
            match task {
                Err(reply) => reply,
                Ok(Some(task)) => ok(&json!({"completed": false, "task": task.to_json(true)})),
                Ok(None) => es_error(
                    404,
                    "resource_not_found_exception",
                    &format!("task [{task_id}] isn't running and hasn't stored its results"),
                ),
            }
        }
        ([task_id, "_cancel"], "POST") => cancel_one(shared, task_id, detailed),
        _ => return None,
    })
}

fn parse_id(task_id: &str) -> Result<(), Reply> {
    match task_id.split_once(':') {
        Some((node, number)) if !node.is_empty() && number.parse::<u64>().is_ok() => Ok(()),
        _ => Err(es_error(
            400,
            "illegal_argument_exception",
            &format!("malformed task id {task_id}"),
        )),
    }
}

/// `POST /_tasks/<id>/_cancel`: the task with `cancelled: true`; a task that cannot be
/// cancelled is the node's failure, as the clusters report it; an unknown one is 404.
fn cancel_one(shared: &Shared, task_id: &str, detailed: bool) -> Reply {
    if let Err(reply) = parse_id(task_id) {
        return reply;
    }
    let mut tasks = lock(&shared.tasks);
    tasks.expire();
    let Some(task) = tasks.list.iter_mut().find(|task| task.task_id() == task_id) else {
        return es_error(
            404,
            "resource_not_found_exception",
            &format!("task [{task_id}] is missing"),
        );
    };
    if !task.cancellable {
        let node_id = task.node.id.clone();
        return ok(&json!({
            "node_failures": [{
                "type": "failed_node_exception",
                "reason": format!("Failed node [{node_id}]"),
                "node_id": node_id,
                "caused_by": {
                    "type": "resource_not_found_exception",
                    "reason": format!("task [{task_id}] doesn't support this operation")
                }
            }],
            "nodes": {}
        }));
    }
    task.cancelled_at.get_or_insert_with(Instant::now);
    let task = task.clone();
    ok(&group_by_nodes(&[&task], detailed))
}

fn group_by_parents(tasks: &[&Task], detailed: bool) -> Value {
    let ids: Vec<String> = tasks.iter().map(|task| task.task_id()).collect();
    let mut top = Map::new();
    for task in tasks {
        let orphan = task
            .parent
            .as_ref()
            .is_none_or(|parent| !ids.contains(parent));
        if orphan {
            let mut entry = task.to_json(detailed);
            let children: Vec<Value> = tasks
                .iter()
                .filter(|child| child.parent.as_deref() == Some(&task.task_id()))
                .map(|child| child.to_json(detailed))
                .collect();
            if !children.is_empty() {
                entry["children"] = json!(children);
            }
            top.insert(task.task_id(), entry);
        }
    }
    json!({"tasks": top})
}

/// `GET /_cat/tasks` over the same tasks.
pub(crate) fn cat(shared: &Shared, call: &Call) -> Reply {
    let all = lock(&shared.tasks).snapshot_with_listing(&shared.nodes);
    let rows: Vec<Map<String, Value>> = all
        .iter()
        .filter(|task| matches(task, call, &shared.nodes))
        .map(|task| {
            let nanos = task.running_nanos();
            let start = iso_millis(task.start_millis);
            let mut row = Map::new();
            let mut put = |name: &str, value: String| {
                row.insert(name.to_owned(), json!(value));
            };
            put("id", task.task_id());
            put("action", task.action.clone());
            put("task_id", task.task_id());
            put(
                "parent_task_id",
                task.parent.clone().unwrap_or_else(|| "-".to_owned()),
            );
            put("type", task.kind.to_owned());
            put("start_time", task.start_millis.to_string());
            put("timestamp", start[11..19].to_owned());
            put("running_time_ns", nanos.to_string());
            put("running_time", human_nanos(nanos));
            put("node_id", task.node.id.clone());
            put("ip", task.node.ip.clone());
            put(
                "port",
                task.node
                    .transport_address
                    .rsplit(':')
                    .next()
                    .unwrap_or("9300")
                    .to_owned(),
            );
            put("node", task.node.name.clone());
            put("description", task.description.clone());
            row
        })
        .collect();
    let mut defaults = vec![
        "action",
        "task_id",
        "parent_task_id",
        "type",
        "start_time",
        "timestamp",
        "running_time",
        "ip",
        "node",
    ];
    if call.flag("detailed") {
        defaults.push("description");
    }
    let aliases: &[(&str, &str)] = &[
        ("ac", "action"),
        ("ti", "task_id"),
        ("pti", "parent_task_id"),
        ("ty", "type"),
        ("start", "start_time"),
        ("ts", "timestamp"),
        ("hms", "timestamp"),
        ("hhmmss", "timestamp"),
        ("time", "running_time"),
        ("ni", "node_id"),
        ("i", "ip"),
        ("po", "port"),
        ("n", "node"),
        ("desc", "description"),
    ];
    cat::render(call, &rows, &defaults, aliases)
}

/// A duration as the clusters print it in `_cat` (`850.2micros`, `1.2s`, `3.5m`).
fn human_nanos(nanos: u128) -> String {
    let units: [(&str, f64); 6] = [
        ("d", 86_400e9),
        ("h", 3_600e9),
        ("m", 60e9),
        ("s", 1e9),
        ("ms", 1e6),
        ("micros", 1e3),
    ];
    let value = nanos as f64;
    for (name, size) in units {
        if value >= size {
            let text = format!("{:.1}", value / size);
            return format!("{}{name}", text.trim_end_matches(".0"));
        }
    }
    format!("{nanos}nanos")
}
