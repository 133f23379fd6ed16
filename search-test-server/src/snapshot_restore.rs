//! The data side of snapshots: capturing indices from osmem and restoring them into it.

use serde_json::{Map, Value, json};

use crate::wire::{Call, Reply, es_error, es_error_with, ok, wildcard};
use crate::{Shared, cluster, forward, lock};

/// Settings that belong to one index's life and are not restored.
const PRIVATE_SETTINGS: [&str; 6] = [
    "index.uuid",
    "index.creation_date",
    "index.provided_name",
    "index.version.created",
    "index.version.upgraded",
    "index.history.uuid",
];

fn flatten(prefix: &str, value: &Value, out: &mut Map<String, Value>) {
    match value {
        Value::Object(fields) => {
            for (key, child) in fields {
                let name = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(&name, child, out);
            }
        }
        _ if prefix.is_empty() => {}
        other => {
            out.insert(prefix.to_owned(), other.clone());
        }
    }
}

/// A snapshot or restore body's `indices`: a comma-separated string or an array of names and
/// patterns; absent, every index (`*`).
pub(crate) fn requested_indices(body: &Value) -> Vec<String> {
    match &body["indices"] {
        Value::String(list) => list.split(',').map(|p| p.trim().to_owned()).collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => vec!["*".to_owned()],
    }
}

fn index_error(name: &str) -> Reply {
    es_error_with(
        404,
        "index_not_found_exception",
        &format!("no such index [{name}]"),
        json!({"index": name, "resource.id": name, "resource.type": "index_or_alias", "index_uuid": "_na_"}),
    )
}

/// Reads the indices `wanted` names (patterns; `*` is every index not starting with `.`).
pub(crate) async fn capture(
    shared: &Shared,
    wanted: &[String],
    ignore_unavailable: bool,
) -> Result<Vec<CapturedIndex>, Reply> {
    cluster::synced(shared).await?;
    let known: Vec<(String, bool, u32, u64)> = {
        let routing = lock(&shared.routing);
        routing
            .indices
            .iter()
            .map(|(name, meta)| {
                let bytes = routing
                    .copies_of(Some(std::slice::from_ref(name)))
                    .iter()
                    .filter(|c| c.primary)
                    .filter_map(|c| c.store)
                    .sum();
                (name.clone(), meta.open, meta.shards, bytes)
            })
            .collect()
    };
    let mut names: Vec<&(String, bool, u32, u64)> = Vec::new();
    for pattern in wanted.iter().filter(|p| !p.is_empty()) {
        let matched: Vec<&(String, bool, u32, u64)> = known
            .iter()
            .filter(|(name, ..)| {
                wildcard(pattern, name) && (pattern.starts_with('.') || !name.starts_with('.'))
                    || (pattern == "_all" && !name.starts_with('.'))
            })
            .collect();
        if matched.is_empty() && !pattern.contains('*') && pattern != "_all" && !ignore_unavailable
        {
            return Err(index_error(pattern));
        }
        for entry in matched {
            if !names.iter().any(|n| n.0 == entry.0) {
                names.push(entry);
            }
        }
    }
    let mut captured = Vec::new();
    for (name, open, shards, bytes) in names {
        let index = forward::get_ok(shared, &format!("/{name}")).await?;
        let index = &index[name.as_str()];
        let mut settings = Map::new();
        flatten("", &index["settings"], &mut settings);
        for private in PRIVATE_SETTINGS {
            settings.remove(private);
        }
        let mut documents = Vec::new();
        if *open {
            let search = json!({"size": 10_000, "query": {"match_all": {}}});
            let found =
                forward::call(shared, "POST", &format!("/{name}/_search"), Some(&search)).await?;
            for hit in found.body["hits"]["hits"].as_array().into_iter().flatten() {
                if let Some(id) = hit["_id"].as_str() {
                    documents.push((id.to_owned(), hit["_source"].clone()));
                }
            }
        }
        let bytes = if *bytes > 0 {
            *bytes
        } else {
            documents
                .iter()
                .map(|(_, doc)| doc.to_string().len() as u64)
                .sum::<u64>()
                + 208
        };
        captured.push(CapturedIndex {
            name: name.clone(),
            settings: Value::Object(settings),
            mappings: index["mappings"].clone(),
            aliases: index["aliases"].clone(),
            documents,
            shards: *shards,
            bytes,
        });
    }
    Ok(captured)
}

/// `POST /_snapshot/<repo>/<snap>/_restore`.
pub(crate) async fn restore(shared: &Shared, call: &Call, repo: &str, name: &str) -> Reply {
    let body = match call.json() {
        Ok(body) => body.unwrap_or_else(|| json!({})),
        Err(reply) => return reply,
    };
    let snapshot = {
        let snapshots = lock(&shared.snapshots);
        match snapshots.find(repo, name) {
            Some(snapshot) => snapshot.clone(),
            None => return snapshot_missing(repo, name),
        }
    };
    let restore_error = |reason: String| {
        es_error(
            500,
            "snapshot_restore_exception",
            &format!("[{repo}:{name}/{}] {reason}", snapshot.uuid),
        )
    };
    if !snapshot.done() {
        return restore_error("unsupported snapshot state [IN_PROGRESS]".to_owned());
    }
    let wanted = requested_indices(&body);
    let chosen: Vec<&CapturedIndex> = snapshot
        .indices
        .iter()
        .filter(|index| {
            wanted
                .iter()
                .any(|p| p == "_all" || wildcard(p, &index.name))
        })
        .collect();
    if let Some(missing) = wanted.iter().find(|p| {
        !p.contains('*') && *p != "_all" && !snapshot.indices.iter().any(|i| i.name == **p)
    }) && !body["ignore_unavailable"].as_bool().unwrap_or(false)
    {
        return restore_error(format!("indices [{missing}] missing"));
    }
    let rename = match (
        body["rename_pattern"].as_str(),
        body["rename_replacement"].as_str(),
    ) {
        (Some(pattern), Some(replacement)) => match regex::Regex::new(pattern) {
            Ok(regex) => Some((regex, java_replacement(replacement))),
            Err(error) => {
                return es_error(
                    400,
                    "illegal_argument_exception",
                    &format!("invalid rename_pattern [{pattern}]: {error}"),
                );
            }
        },
        _ => None,
    };
    let target = |index: &str| match &rename {
        Some((regex, replacement)) => regex.replace_all(index, replacement.as_str()).into_owned(),
        None => index.to_owned(),
    };
    if let Err(reply) = cluster::synced(shared).await {
        return reply;
    }
    let existing: Vec<(String, bool)> = lock(&shared.routing)
        .indices
        .iter()
        .map(|(name, meta)| (name.clone(), meta.open))
        .collect();
    for index in &chosen {
        let new_name = target(&index.name);
        if existing
            .iter()
            .any(|(name, open)| *name == new_name && *open)
        {
            return restore_error(format!(
                "cannot restore index [{new_name}] because an open index with same name already exists in the cluster. Either close or delete the existing index or restore the index under a different name by providing a rename pattern and replacement name"
            ));
        }
    }
    let mut overrides = Map::new();
    flatten("", &body["index_settings"], &mut overrides);
    let ignored: Vec<String> = match &body["ignore_index_settings"] {
        Value::String(list) => list.split(',').map(|s| s.trim().to_owned()).collect(),
        Value::Array(items) => items
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    let with_prefix = |key: &str| {
        if key.starts_with("index.") {
            key.to_owned()
        } else {
            format!("index.{key}")
        }
    };
    let include_aliases = body["include_aliases"].as_bool().unwrap_or(true);
    let mut restored = Vec::new();
    let mut shards = 0;
    for index in chosen {
        let new_name = target(&index.name);
        if existing.iter().any(|(name, _)| *name == new_name) {
            // A closed index of that name is replaced, as the clusters do.
            if let Err(reply) = forward::call(shared, "DELETE", &format!("/{new_name}"), None).await
            {
                return reply;
            }
        }
        let mut settings = index.settings.as_object().cloned().unwrap_or_default();
        for key in &ignored {
            let key = with_prefix(key);
            settings.retain(|name, _| !wildcard(&key, name));
        }
        for (key, value) in &overrides {
            settings.insert(with_prefix(key), value.clone());
        }
        let mut create = json!({"settings": settings, "mappings": index.mappings});
        if include_aliases && index.aliases.as_object().is_some_and(|a| !a.is_empty()) {
            create["aliases"] = index.aliases.clone();
        }
        let created =
            match forward::call(shared, "PUT", &format!("/{new_name}"), Some(&create)).await {
                Ok(created) => created,
                Err(reply) => return reply,
            };
        if !created.ok() {
            return created.relay();
        }
        if !index.documents.is_empty() {
            let mut ndjson = String::new();
            for (id, source) in &index.documents {
                ndjson.push_str(&json!({"index": {"_index": new_name, "_id": id}}).to_string());
                ndjson.push('\n');
                ndjson.push_str(&source.to_string());
                ndjson.push('\n');
            }
            match forward::bulk(shared, ndjson).await {
                Ok(answer) if answer.ok() && answer.body["errors"] != true => {}
                Ok(answer) => return answer.relay(),
                Err(reply) => return reply,
            }
        }
        shards += index.shards;
        restored.push(new_name);
    }
    if call.flag("wait_for_completion") {
        return ok(&json!({"snapshot": {
            "snapshot": name,
            "indices": restored,
            "shards": {"total": shards, "failed": 0, "successful": shards}
        }}));
    }
    ok(&json!({"accepted": true}))
}

/// Java's `$1` group references as the regex crate reads them (`${1}`), so `$1-x` works.
fn java_replacement(replacement: &str) -> String {
    let mut out = String::new();
    let mut chars = replacement.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '$' && chars.peek().is_some_and(char::is_ascii_digit) {
            let mut digits = String::new();
            while let Some(d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                digits.push(*d);
                chars.next();
            }
            out.push_str(&format!("${{{digits}}}"));
        } else if c == '\\' {
            if let Some(next) = chars.next() {
                if next == '$' {
                    out.push_str("$$");
                } else {
                    out.push(next);
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// One captured index.
#[derive(Debug, Clone)]
pub(crate) struct CapturedIndex {
    pub(crate) name: String,
    pub(crate) settings: Value,
    pub(crate) mappings: Value,
    pub(crate) aliases: Value,
    /// `(_id, _source)` of every document.
    pub(crate) documents: Vec<(String, Value)>,
    pub(crate) shards: u32,
    pub(crate) bytes: u64,
}

pub(crate) fn snapshot_missing(repository: &str, name: &str) -> Reply {
    es_error(
        404,
        "snapshot_missing_exception",
        &format!("[{repository}:{name}] is missing"),
    )
}
