//! Snapshot repositories and snapshots, kept in memory: a snapshot captures each index's
//! settings, mappings, aliases and documents from osmem; a restore creates the (renamed)
//! indices in osmem again and bulk-loads the documents. The API is `_snapshot` as documented.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{Map, Value, json};

use crate::snapshot_restore::{CapturedIndex, snapshot_missing};
use crate::wire::{Call, Reply, es_error, iso_millis, now_millis, ok, wildcard};
use crate::{Flavor, Shared, cat, lock, snapshot_restore};

#[derive(Debug, Clone)]
pub(crate) struct Repository {
    kind: String,
    settings: Map<String, Value>,
}

#[derive(Debug, Clone)]
pub(crate) struct Snapshot {
    pub(crate) name: String,
    pub(crate) uuid: String,
    pub(crate) repository: String,
    pub(crate) indices: Vec<CapturedIndex>,
    pub(crate) include_global_state: bool,
    pub(crate) metadata: Option<Value>,
    start_millis: u64,
    started: Instant,
    duration: Duration,
}

impl Snapshot {
    pub(crate) fn done(&self) -> bool {
        self.started.elapsed() >= self.duration
    }

    /// The fraction done, 0 to 1.
    fn progress(&self) -> f64 {
        (self.started.elapsed().as_secs_f64() / self.duration.as_secs_f64().max(1e-9)).min(1.0)
    }

    fn total_shards(&self) -> u32 {
        self.indices.iter().map(|index| index.shards).sum()
    }

    /// The snapshot info of the get snapshot API.
    fn info(&self, flavor: Flavor, version: &str) -> Value {
        let done = self.done();
        let end = self.start_millis + self.duration.as_millis() as u64;
        let total = self.total_shards();
        let mut info = json!({
            "snapshot": self.name,
            "uuid": self.uuid,
            "indices": self.indices.iter().map(|i| i.name.clone()).collect::<Vec<_>>(),
            "data_streams": [],
            "include_global_state": self.include_global_state,
            "state": if done { "SUCCESS" } else { "IN_PROGRESS" },
            "start_time": iso_millis(self.start_millis),
            "start_time_in_millis": self.start_millis,
            "failures": [],
            "shards": if done {
                json!({"total": total, "failed": 0, "successful": total})
            } else {
                json!({"total": 0, "failed": 0, "successful": 0})
            },
        });
        if done {
            info["end_time"] = json!(iso_millis(end));
            info["end_time_in_millis"] = json!(end);
            info["duration_in_millis"] = json!(end - self.start_millis);
        } else {
            info["end_time_in_millis"] = json!(0);
            info["duration_in_millis"] = json!(0);
        }
        if let Some(metadata) = &self.metadata {
            info["metadata"] = metadata.clone();
        }
        match flavor {
            Flavor::Elasticsearch8 => {
                info["repository"] = json!(self.repository);
                info["version_id"] = json!(version_id(version, 0));
                info["version"] = json!(version);
                info["feature_states"] = json!([]);
            }
            Flavor::OpenSearch2 => {
                // OpenSearch's ids are Elasticsearch's scheme with bit 27 flipped.
                info["version_id"] = json!(version_id(version, 0x0800_0000));
                info["version"] = json!(version);
                info["remote_store_index_shallow_copy"] = json!(false);
            }
        }
        info
    }

    /// The snapshot status API's entry, progress proportional to the time elapsed.
    fn status(&self) -> Value {
        let done = self.done();
        let progress = self.progress();
        let elapsed = self.started.elapsed().as_millis() as u64;
        let stats = |bytes: u64, files: u64| {
            json!({
                "incremental": {"file_count": files, "size_in_bytes": bytes},
                "processed": {"file_count": (files as f64 * progress) as u64,
                    "size_in_bytes": (bytes as f64 * progress) as u64},
                "total": {"file_count": files, "size_in_bytes": bytes},
                "start_time_in_millis": self.start_millis,
                "time_in_millis": elapsed.min(self.duration.as_millis() as u64)
            })
        };
        let shard_counts = |total: u32, finished: u32| {
            json!({"initializing": 0, "started": total - finished, "finalizing": 0,
                "done": finished, "failed": 0, "total": total})
        };
        let mut indices = Map::new();
        let (mut all_bytes, mut all_files, mut all_done) = (0, 0, 0);
        for index in &self.indices {
            let finished = if done {
                index.shards
            } else {
                ((index.shards as f64) * progress) as u32
            };
            let per_shard = index.bytes / u64::from(index.shards.max(1));
            let shards: Map<String, Value> = (0..index.shards)
                .map(|shard| {
                    let stage = if shard < finished { "DONE" } else { "STARTED" };
                    (
                        shard.to_string(),
                        json!({"stage": stage, "stats": stats(per_shard, 3)}),
                    )
                })
                .collect();
            let files = 3 * u64::from(index.shards);
            (all_bytes, all_files, all_done) = (
                all_bytes + index.bytes,
                all_files + files,
                all_done + finished,
            );
            indices.insert(
                index.name.clone(),
                json!({
                    "shards_stats": shard_counts(index.shards, finished),
                    "stats": stats(index.bytes, files),
                    "shards": shards
                }),
            );
        }
        json!({
            "snapshot": self.name,
            "repository": self.repository,
            "uuid": self.uuid,
            "state": if done { "SUCCESS" } else { "STARTED" },
            "include_global_state": self.include_global_state,
            "shards_stats": shard_counts(self.total_shards(), all_done),
            "stats": stats(all_bytes, all_files),
            "indices": indices
        })
    }
}

/// The numeric id of a version as the products encode it (`8.15.3` is 8150399).
fn version_id(version: &str, mask: u64) -> u64 {
    let mut parts = version
        .split('.')
        .map(|part| part.parse::<u64>().unwrap_or(0));
    let (major, minor, revision) = (
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    );
    (major * 1_000_000 + minor * 10_000 + revision * 100 + 99) ^ mask
}

#[derive(Default)]
pub(crate) struct Snapshots {
    repositories: BTreeMap<String, Repository>,
    snapshots: Vec<Snapshot>,
    next_uuid: u64,
}

impl Snapshots {
    /// Registers a repository without the checks of the API (for `--seed`).
    pub(crate) fn register(&mut self, name: &str, kind: &str, settings: Value) {
        self.repositories.insert(
            name.to_owned(),
            Repository {
                kind: kind.to_owned(),
                settings: settings.as_object().cloned().unwrap_or_default(),
            },
        );
    }

    pub(crate) fn find(&self, repository: &str, name: &str) -> Option<&Snapshot> {
        self.snapshots
            .iter()
            .find(|s| s.repository == repository && s.name == name)
    }
}

fn repository_missing(name: &str) -> Reply {
    crate::wire::es_error_with(
        404,
        "repository_missing_exception",
        &format!("[{name}] missing"),
        json!({}),
    )
}

pub(crate) async fn handle(shared: &Shared, call: &Call, rest: &[&str]) -> Option<Reply> {
    let method = call.method.as_str();
    Some(match (rest, method) {
        ([] | ["_all"] | ["*"], "GET") => get_repositories(shared, None),
        (["_status"], "GET") => status(shared, None, None),
        ([repo], "GET") => get_repositories(shared, Some(repo)),
        ([repo], "PUT" | "POST") => put_repository(shared, call, repo),
        ([repo], "DELETE") => {
            let removed = lock(&shared.snapshots).repositories.remove(*repo);
            match removed {
                Some(_) => ok(&json!({"acknowledged": true})),
                None => repository_missing(repo),
            }
        }
        ([repo, "_verify"], "POST") => {
            if !lock(&shared.snapshots).repositories.contains_key(*repo) {
                return Some(repository_missing(repo));
            }
            let nodes: Map<String, Value> = shared
                .nodes
                .iter()
                .map(|node| (node.id.clone(), json!({"name": node.name})))
                .collect();
            ok(&json!({"nodes": nodes}))
        }
        ([repo, "_status"], "GET") => status(shared, Some(repo), None),
        ([repo, names], "GET") => get_snapshots(shared, repo, names),
        ([repo, name], "PUT" | "POST") => create(shared, call, repo, name).await,
        ([repo, names], "DELETE") => delete(shared, repo, names),
        ([repo, name, "_status"], "GET") => status(shared, Some(repo), Some(name)),
        ([repo, name, "_restore"], "POST") => {
            snapshot_restore::restore(shared, call, repo, name).await
        }
        _ => return None,
    })
}

fn get_repositories(shared: &Shared, names: Option<&str>) -> Reply {
    let snapshots = lock(&shared.snapshots);
    let mut answer = Map::new();
    for part in names.unwrap_or("*").split(',') {
        let matched: Vec<(&String, &Repository)> = snapshots
            .repositories
            .iter()
            .filter(|(name, _)| part == "_all" || wildcard(part, name))
            .collect();
        if matched.is_empty() && !part.contains('*') && part != "_all" {
            return repository_missing(part);
        }
        for (name, repository) in matched {
            let settings: Map<String, Value> = repository
                .settings
                .iter()
                .map(|(key, value)| {
                    let text = match value {
                        Value::String(text) => json!(text),
                        Value::Object(_) | Value::Array(_) => value.clone(),
                        other => json!(other.to_string()),
                    };
                    (key.clone(), text)
                })
                .collect();
            answer.insert(
                name.clone(),
                json!({"type": repository.kind, "settings": settings}),
            );
        }
    }
    ok(&Value::Object(answer))
}

fn put_repository(shared: &Shared, call: &Call, name: &str) -> Reply {
    let body = match call.json() {
        Ok(body) => body.unwrap_or_else(|| json!({})),
        Err(reply) => return reply,
    };
    let repository_error =
        |reason: &str| es_error(500, "repository_exception", &format!("[{name}] {reason}"));
    let Some(kind) = body["type"].as_str() else {
        return es_error(
            400,
            "action_request_validation_exception",
            "Validation Failed: 1: type is missing;",
        );
    };
    let settings = body["settings"].as_object().cloned().unwrap_or_default();
    let setting = |key: &str| {
        settings
            .get(key)
            .and_then(Value::as_str)
            .filter(|v| !v.is_empty())
    };
    match kind {
        "fs" if setting("location").is_none() => return repository_error("missing location"),
        "url" => match setting("url") {
            None => return repository_error("missing url"),
            Some(url)
                if !["http:", "https:", "ftp:", "file:", "jar:"]
                    .iter()
                    .any(|p| url.starts_with(p)) =>
            {
                return repository_error(&format!("unsupported url protocol from URL [{url}]"));
            }
            _ => {}
        },
        "fs" => {}
        other => return repository_error(&format!("repository type [{other}] does not exist")),
    }
    lock(&shared.snapshots).register(name, kind, Value::Object(settings));
    ok(&json!({"acknowledged": true}))
}

fn get_snapshots(shared: &Shared, repo: &str, names: &str) -> Reply {
    let snapshots = lock(&shared.snapshots);
    if !snapshots.repositories.contains_key(repo) {
        return repository_missing(repo);
    }
    let mut chosen: Vec<&Snapshot> = Vec::new();
    for part in names.split(',') {
        let matched: Vec<&Snapshot> = snapshots
            .snapshots
            .iter()
            .filter(|s| s.repository == repo)
            .filter(|s| match part {
                "_all" => true,
                "_current" => !s.done(),
                _ => wildcard(part, &s.name),
            })
            .collect();
        if matched.is_empty() && !part.contains('*') && !part.starts_with('_') {
            return snapshot_missing(repo, part);
        }
        for snapshot in matched {
            if !chosen.iter().any(|c| c.uuid == snapshot.uuid) {
                chosen.push(snapshot);
            }
        }
    }
    chosen.sort_by_key(|s| (s.start_millis, s.name.clone()));
    let flavor = shared.options.flavor;
    let list: Vec<Value> = chosen
        .iter()
        .map(|s| s.info(flavor, &shared.nodes[0].version))
        .collect();
    let mut answer = json!({"snapshots": list});
    if flavor == Flavor::Elasticsearch8 {
        answer["total"] = json!(chosen.len());
        answer["remaining"] = json!(0);
    }
    ok(&answer)
}

fn status(shared: &Shared, repo: Option<&str>, names: Option<&str>) -> Reply {
    let snapshots = lock(&shared.snapshots);
    if let Some(repo) = repo
        && !snapshots.repositories.contains_key(repo)
    {
        return repository_missing(repo);
    }
    let mut list = Vec::new();
    match names {
        None => list.extend(
            snapshots
                .snapshots
                .iter()
                .filter(|s| !s.done() && repo.is_none_or(|r| s.repository == r))
                .map(Snapshot::status),
        ),
        Some(names) => {
            for name in names.split(',') {
                match snapshots.find(repo.unwrap_or_default(), name) {
                    Some(snapshot) => list.push(snapshot.status()),
                    None => return snapshot_missing(repo.unwrap_or_default(), name),
                }
            }
        }
    }
    ok(&json!({"snapshots": list}))
}

fn delete(shared: &Shared, repo: &str, names: &str) -> Reply {
    let mut snapshots = lock(&shared.snapshots);
    if !snapshots.repositories.contains_key(repo) {
        return repository_missing(repo);
    }
    for name in names.split(',') {
        let before = snapshots.snapshots.len();
        snapshots
            .snapshots
            .retain(|s| !(s.repository == repo && wildcard(name, &s.name)));
        if snapshots.snapshots.len() == before && !name.contains('*') {
            return snapshot_missing(repo, name);
        }
    }
    ok(&json!({"acknowledged": true}))
}

/// `PUT|POST /_snapshot/<repo>/<snap>`: captures the indices from osmem now; the snapshot is
/// `IN_PROGRESS` for `Options.snapshot_duration`.
async fn create(shared: &Shared, call: &Call, repo: &str, name: &str) -> Reply {
    let body = match call.json() {
        Ok(body) => body.unwrap_or_else(|| json!({})),
        Err(reply) => return reply,
    };
    {
        let snapshots = lock(&shared.snapshots);
        if !snapshots.repositories.contains_key(repo) {
            return repository_missing(repo);
        }
        let invalid = |why: &str| {
            es_error(
                400,
                "invalid_snapshot_name_exception",
                &format!("[{repo}:{name}] Invalid snapshot name [{name}], {why}"),
            )
        };
        if name.chars().any(|c| c.is_uppercase()) {
            return invalid("must be lowercase");
        }
        if name.starts_with('_') {
            return invalid("must not start with '_'");
        }
        if name.contains([' ', ',', '#', '/', '\\', '*', '?', '"', '<', '>', '|']) {
            return invalid(
                "must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?]",
            );
        }
        if snapshots.find(repo, name).is_some() {
            return invalid("snapshot with the same name already exists");
        }
    }
    let wanted = snapshot_restore::requested_indices(&body);
    let ignore_unavailable = body["ignore_unavailable"].as_bool().unwrap_or(false);
    let indices = match snapshot_restore::capture(shared, &wanted, ignore_unavailable).await {
        Ok(indices) => indices,
        Err(reply) => return reply,
    };
    let snapshot = {
        let mut snapshots = lock(&shared.snapshots);
        snapshots.next_uuid += 1;
        let snapshot = Snapshot {
            name: name.to_owned(),
            uuid: format!("sNaPsHoT{:014}", snapshots.next_uuid),
            repository: repo.to_owned(),
            indices,
            include_global_state: body["include_global_state"].as_bool().unwrap_or(true),
            metadata: body.get("metadata").cloned(),
            start_millis: now_millis(),
            started: Instant::now(),
            duration: shared.options.snapshot_duration,
        };
        snapshots.snapshots.push(snapshot.clone());
        snapshot
    };
    if call.flag("wait_for_completion") {
        tokio::time::sleep(snapshot.duration.saturating_sub(snapshot.started.elapsed())).await;
        return ok(
            &json!({"snapshot": snapshot.info(shared.options.flavor, &shared.nodes[0].version)}),
        );
    }
    ok(&json!({"accepted": true}))
}

/// The fs repository `--seed` registers.
pub(crate) fn seed(shared: &Shared) {
    let location =
        std::env::temp_dir().join(format!("search-test-server-{}/backups", std::process::id()));
    lock(&shared.snapshots).register(
        "backups",
        "fs",
        json!({"location": location.display().to_string(), "compress": "true"}),
    );
}

/// `GET /_cat/repositories`.
pub(crate) fn cat_repositories(shared: &Shared, call: &Call) -> Reply {
    let snapshots = lock(&shared.snapshots);
    let rows: Vec<Map<String, Value>> = snapshots
        .repositories
        .iter()
        .map(|(name, repository)| {
            let mut row = Map::new();
            row.insert("id".into(), json!(name));
            row.insert("type".into(), json!(repository.kind));
            row
        })
        .collect();
    cat::render(
        call,
        &rows,
        &["id", "type"],
        &[("repoId", "id"), ("t", "type")],
    )
}

/// `GET /_cat/snapshots[/<repository>]`.
pub(crate) fn cat_snapshots(shared: &Shared, call: &Call, repository: Option<&str>) -> Reply {
    let snapshots = lock(&shared.snapshots);
    if let Some(repository) = repository
        && !snapshots.repositories.contains_key(repository)
    {
        return repository_missing(repository);
    }
    let rows: Vec<Map<String, Value>> = snapshots
        .snapshots
        .iter()
        .filter(|s| repository.is_none_or(|r| s.repository == r))
        .map(|snapshot| {
            let done = snapshot.done();
            let end = snapshot.start_millis + snapshot.duration.as_millis() as u64;
            let total = snapshot.total_shards();
            let clock = |millis: u64| iso_millis(millis)[11..19].to_owned();
            let mut row = Map::new();
            let mut put = |name: &str, value: String| {
                row.insert(name.to_owned(), json!(value));
            };
            put("id", snapshot.name.clone());
            put("repository", snapshot.repository.clone());
            put(
                "status",
                if done { "SUCCESS" } else { "IN_PROGRESS" }.to_owned(),
            );
            put("start_epoch", (snapshot.start_millis / 1000).to_string());
            put("start_time", clock(snapshot.start_millis));
            put(
                "end_epoch",
                if done {
                    (end / 1000).to_string()
                } else {
                    "0".to_owned()
                },
            );
            put(
                "end_time",
                if done {
                    clock(end)
                } else {
                    "00:00:00".to_owned()
                },
            );
            put(
                "duration",
                format!(
                    "{}ms",
                    snapshot
                        .started
                        .elapsed()
                        .min(snapshot.duration)
                        .as_millis()
                ),
            );
            put("indices", snapshot.indices.len().to_string());
            put(
                "successful_shards",
                if done { total } else { 0 }.to_string(),
            );
            put("failed_shards", "0".to_owned());
            put("total_shards", if done { total } else { 0 }.to_string());
            row
        })
        .collect();
    let mut defaults = vec!["id"];
    if shared.options.flavor == Flavor::Elasticsearch8 {
        defaults.push("repository");
    }
    defaults.extend([
        "status",
        "start_epoch",
        "start_time",
        "end_epoch",
        "end_time",
        "duration",
        "indices",
        "successful_shards",
        "failed_shards",
        "total_shards",
    ]);
    let aliases: &[(&str, &str)] = &[
        ("snapshot", "id"),
        ("re", "repository"),
        ("repo", "repository"),
        ("s", "status"),
        ("ste", "start_epoch"),
        ("sti", "start_time"),
        ("ete", "end_epoch"),
        ("eti", "end_time"),
        ("dur", "duration"),
        ("i", "indices"),
        ("ss", "successful_shards"),
        ("fs", "failed_shards"),
        ("ts", "total_shards"),
    ];
    cat::render(call, &rows, &defaults, aliases)
}
