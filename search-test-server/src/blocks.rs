//! `PUT /<index>/_block/<block>`: sets `index.blocks.<block>: true` in osmem through
//! `_settings` and answers as the add index block API documents.

use serde_json::json;

use crate::wire::{Reply, es_error, ok};
use crate::{Shared, forward};

const BLOCKS: [&str; 4] = ["metadata", "read", "read_only", "write"];

pub(crate) async fn add(shared: &Shared, index: &str, block: &str) -> Reply {
    if !BLOCKS.contains(&block) {
        return es_error(
            400,
            "illegal_argument_exception",
            &format!("No block found with name {block}"),
        );
    }
    if index.starts_with('_') || index.is_empty() {
        return es_error(
            400,
            "illegal_argument_exception",
            &format!("invalid index expression [{index}]"),
        );
    }
    // The indices the expression names, as osmem resolves them.
    let named = match forward::call(
        shared,
        "GET",
        &format!("/{index}/_settings?filter_path=*.settings.index.uuid"),
        None,
    )
    .await
    {
        Ok(answer) if answer.ok() => answer.body,
        Ok(answer) => return answer.relay(),
        Err(reply) => return reply,
    };
    let setting = json!({ format!("index.blocks.{block}"): true });
    match forward::call(
        shared,
        "PUT",
        &format!("/{index}/_settings"),
        Some(&setting),
    )
    .await
    {
        Ok(answer) if answer.ok() => {}
        Ok(answer) => return answer.relay(),
        Err(reply) => return reply,
    }
    let mut names: Vec<&String> = named
        .as_object()
        .map(|m| m.keys().collect())
        .unwrap_or_default();
    names.sort();
    let indices: Vec<serde_json::Value> = names
        .into_iter()
        .map(|name| json!({"name": name, "blocked": true}))
        .collect();
    ok(&json!({"acknowledged": true, "shards_acknowledged": true, "indices": indices}))
}
