//! One index's page: its settings (which of them may be edited), mappings, stats, shards and
//! aliases, from six light calls made concurrently; and the edit of its dynamic settings.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cluster::client::ClusterApi;
use crate::cluster::views::Health;
use crate::error::Error;
use crate::manage::names::IndexName;

/// The dynamic index settings (Elasticsearch 8 and OpenSearch 2 "index settings", dynamic
/// ones): exact keys, and prefixes ending in `.` whose every key is dynamic. Everything else is
/// shown read-only and refused by the edit route (static settings are fixed at creation).
pub(crate) const DYNAMIC_SETTINGS: &[&str] = &[
    "index.number_of_replicas",
    "index.auto_expand_replicas",
    "index.refresh_interval",
    "index.search.idle.after",
    "index.max_result_window",
    "index.max_inner_result_window",
    "index.max_rescore_window",
    "index.max_docvalue_fields_search",
    "index.max_script_fields",
    "index.max_ngram_diff",
    "index.max_shingle_diff",
    "index.max_refresh_listeners",
    "index.max_terms_count",
    "index.max_regex_length",
    "index.max_slices_per_scroll",
    "index.analyze.max_token_count",
    "index.highlight.max_analyzed_offset",
    "index.query.default_field",
    "index.default_pipeline",
    "index.final_pipeline",
    "index.hidden",
    "index.priority",
    "index.gc_deletes",
    "index.routing.allocation.enable",
    "index.routing.rebalance.enable",
    "index.routing.allocation.total_shards_per_node",
    "index.unassigned.node_left.delayed_timeout",
    "index.mapping.total_fields.limit",
    "index.mapping.depth.limit",
    "index.mapping.nested_fields.limit",
    "index.mapping.nested_objects.limit",
    "index.mapping.field_name_length.limit",
    "index.translog.durability",
    "index.translog.sync_interval",
    "index.translog.flush_threshold_size",
    "index.write.wait_for_active_shards",
    "index.blocks.",
    "index.routing.allocation.include.",
    "index.routing.allocation.exclude.",
    "index.routing.allocation.require.",
    "index.search.slowlog.",
    "index.indexing.slowlog.",
    "index.merge.policy.",
    "index.lifecycle.",
    "index.plugins.index_state_management.",
];

/// The editable settings offered for adding on the index page (the common ones).
pub(crate) const COMMON_DYNAMIC: &[&str] = &[
    "index.number_of_replicas",
    "index.refresh_interval",
    "index.max_result_window",
    "index.auto_expand_replicas",
    "index.blocks.write",
    "index.blocks.read_only",
    "index.blocks.read_only_allow_delete",
    "index.routing.allocation.enable",
    "index.mapping.total_fields.limit",
    "index.translog.durability",
];

/// Whether `key` (with its `index.` prefix) may be changed on an open index.
pub(crate) fn is_dynamic(key: &str) -> bool {
    DYNAMIC_SETTINGS.iter().any(|known| {
        if known.ends_with('.') {
            key.starts_with(known) && key.len() > known.len()
        } else {
            key == *known
        }
    })
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct SettingRow {
    pub(crate) key: String,
    /// As the cluster shows it (settings are strings; lists stay lists).
    #[cfg_attr(test, ts(type = "unknown"))]
    pub(crate) value: Value,
    pub(crate) dynamic: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct IndexStats {
    pub(crate) docs_count: u64,
    pub(crate) docs_deleted: u64,
    pub(crate) store_bytes: u64,
    pub(crate) primary_store_bytes: u64,
    pub(crate) indexing_total: u64,
    pub(crate) indexing_time_ms: u64,
    pub(crate) indexing_failed: u64,
    pub(crate) search_query_total: u64,
    pub(crate) search_query_time_ms: u64,
    pub(crate) search_fetch_total: u64,
    pub(crate) segments_count: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct IndexShard {
    pub(crate) shard: u32,
    pub(crate) primary: bool,
    pub(crate) state: String,
    pub(crate) docs: Option<u64>,
    pub(crate) store_bytes: Option<u64>,
    pub(crate) node: Option<String>,
    pub(crate) unassigned_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct IndexAlias {
    pub(crate) alias: String,
    #[cfg_attr(test, ts(type = "Record<string, unknown> | null"))]
    pub(crate) filter: Option<Value>,
    pub(crate) index_routing: Option<String>,
    pub(crate) search_routing: Option<String>,
    pub(crate) is_write_index: Option<bool>,
    pub(crate) is_hidden: Option<bool>,
}

impl IndexAlias {
    /// From one entry of a `GET /<index>/_alias` (or `GET /_alias`) answer.
    pub(crate) fn from_entry(alias: &str, properties: &Value) -> Self {
        let text = |key: &str| properties[key].as_str().map(str::to_owned);
        Self {
            alias: alias.to_owned(),
            filter: properties.get("filter").filter(|f| !f.is_null()).cloned(),
            index_routing: text("index_routing"),
            search_routing: text("search_routing"),
            is_write_index: properties["is_write_index"].as_bool(),
            is_hidden: properties["is_hidden"].as_bool(),
        }
    }
}

/// `GET /api/clusters/:id/indices/{index}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct IndexDetail {
    pub(crate) name: String,
    pub(crate) uuid: Option<String>,
    pub(crate) health: Option<Health>,
    /// `open` or `close`, as `_cat/indices` says.
    pub(crate) status: String,
    pub(crate) settings: Vec<SettingRow>,
    /// Dynamic settings the index does not set yet, offered for adding.
    pub(crate) addable_settings: Vec<String>,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub(crate) mappings: Value,
    /// None for a closed index (a closed index has no stats).
    pub(crate) stats: Option<IndexStats>,
    pub(crate) shards: Vec<IndexShard>,
    pub(crate) aliases: Vec<IndexAlias>,
}

/// The entry of `index` in a per-index answer (`{"<index>": {...}}`); an alias name resolves
/// to another key, which is not this index.
fn entry<'a>(answer: &'a Value, index: &str, what: &str) -> Result<&'a Value, Error> {
    answer.get(index).ok_or_else(|| {
        if answer.as_object().is_some_and(|map| !map.is_empty()) {
            Error::RejectedByCluster {
                status: actix_web::http::StatusCode::NOT_FOUND,
                message: format!("\"{index}\" is an alias or a pattern, not an index."),
            }
        } else {
            Error::upstream(format!("The {what} answer has no entry for {index}."))
        }
    })
}

fn cat_number(value: &Value) -> Option<u64> {
    match value {
        Value::String(text) => text.parse().ok(),
        Value::Number(number) => number.as_u64(),
        _ => None,
    }
}

pub(crate) fn settings_rows(settings: &Value) -> (Vec<SettingRow>, Vec<String>) {
    let rows: Vec<SettingRow> = settings
        .as_object()
        .map(|map| {
            map.iter()
                .map(|(key, value)| SettingRow {
                    key: key.clone(),
                    value: value.clone(),
                    dynamic: is_dynamic(key),
                })
                .collect()
        })
        .unwrap_or_default();
    let addable = COMMON_DYNAMIC
        .iter()
        .filter(|key| !rows.iter().any(|row| row.key == **key))
        .map(|key| (*key).to_owned())
        .collect();
    (rows, addable)
}

pub(crate) fn stats_of(index_stats: &Value) -> IndexStats {
    let n = |pointer: &str| {
        index_stats
            .pointer(pointer)
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    IndexStats {
        docs_count: n("/primaries/docs/count"),
        docs_deleted: n("/primaries/docs/deleted"),
        store_bytes: n("/total/store/size_in_bytes"),
        primary_store_bytes: n("/primaries/store/size_in_bytes"),
        indexing_total: n("/total/indexing/index_total"),
        indexing_time_ms: n("/total/indexing/index_time_in_millis"),
        indexing_failed: n("/total/indexing/index_failed"),
        search_query_total: n("/total/search/query_total"),
        search_query_time_ms: n("/total/search/query_time_in_millis"),
        search_fetch_total: n("/total/search/fetch_total"),
        segments_count: n("/total/segments/count"),
    }
}

pub(crate) fn shard_copies(rows: &Value) -> Vec<IndexShard> {
    let text = |row: &Value, key: &str| {
        row[key]
            .as_str()
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    };
    let mut copies: Vec<IndexShard> = rows
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|row| IndexShard {
                    shard: cat_number(&row["shard"]).unwrap_or(0) as u32,
                    primary: row["prirep"].as_str() == Some("p"),
                    state: row["state"].as_str().unwrap_or("UNKNOWN").to_owned(),
                    docs: cat_number(&row["docs"]),
                    store_bytes: cat_number(&row["store"]),
                    node: text(row, "node"),
                    unassigned_reason: text(row, "unassigned.reason"),
                })
                .collect()
        })
        .unwrap_or_default();
    copies.sort_by_key(|copy| (copy.shard, !copy.primary));
    copies
}

/// The paths the detail reads (the index checked, encoded).
pub(crate) fn detail_paths(index: &IndexName) -> [String; 6] {
    let segment = index.segment();
    [
        format!(
            "_cat/indices/{segment}?format=json&bytes=b&expand_wildcards=all&h=health,status,index,uuid"
        ),
        format!("{segment}/_settings?flat_settings=true"),
        format!("{segment}/_mapping"),
        format!("{segment}/_stats/docs,store,indexing,search,segments"),
        format!(
            "_cat/shards/{segment}?format=json&bytes=b&h=index,shard,prirep,state,docs,store,node,unassigned.reason"
        ),
        format!("{segment}/_alias"),
    ]
}

/// Reads the page of one (checked) index.
pub(crate) async fn detail(
    cluster: &impl ClusterApi,
    index: &IndexName,
) -> Result<IndexDetail, Error> {
    let [cat, settings, mapping, stats, shards, aliases] = detail_paths(index);
    let index = index.as_str();
    let get = |path: String| async move { cluster.call(reqwest::Method::GET, &path, None).await };
    // The row first: a missing index is one clear 404.
    let cat = get(cat).await?;
    let row = cat
        .as_array()
        .and_then(|rows| rows.iter().find(|row| row["index"] == index))
        .ok_or_else(|| Error::RejectedByCluster {
            status: actix_web::http::StatusCode::NOT_FOUND,
            message: format!("\"{index}\" is an alias or a pattern, not an index."),
        })?;
    let status = row["status"].as_str().unwrap_or("open").to_owned();
    let closed = status == "close";
    let (settings, mapping, stats, shards, aliases) = futures_util::join!(
        get(settings),
        get(mapping),
        get(stats),
        get(shards),
        get(aliases)
    );
    let settings = settings?;
    let (settings, addable_settings) =
        settings_rows(&entry(&settings, index, "_settings")?["settings"]);
    let mapping = mapping?;
    let mappings = entry(&mapping, index, "_mapping")?["mappings"].clone();
    let stats = match stats {
        Ok(stats) => Some(stats_of(&stats["indices"][index])),
        // A closed index has no stats: the cluster says index_closed_exception.
        Err(_) if closed => None,
        Err(error) => return Err(error),
    };
    let aliases = aliases?;
    let mut alias_rows: Vec<IndexAlias> = aliases[index]["aliases"]
        .as_object()
        .map(|map| {
            map.iter()
                .map(|(alias, properties)| IndexAlias::from_entry(alias, properties))
                .collect()
        })
        .unwrap_or_default();
    alias_rows.sort_by(|a, b| a.alias.cmp(&b.alias));
    Ok(IndexDetail {
        name: index.to_owned(),
        uuid: row["uuid"].as_str().map(str::to_owned),
        health: row["health"].as_str().and_then(Health::parse),
        status,
        settings,
        addable_settings,
        mappings: if mappings.is_null() {
            Value::Object(Map::new())
        } else {
            mappings
        },
        stats,
        shards: match shards {
            Ok(shards) => shard_copies(&shards),
            // Some versions refuse the shards of a closed index (index_closed_exception).
            Err(_) if closed => Vec::new(),
            Err(error) => return Err(error),
        },
        aliases: alias_rows,
    })
}

/// `PUT /api/clusters/:id/indices/{index}/settings`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct PutSettings {
    /// Flat keys (`index.refresh_interval` or `refresh_interval`) → value; null resets the
    /// setting to its default.
    #[cfg_attr(test, ts(type = "Record<string, string | number | boolean | null>"))]
    pub(crate) settings: Map<String, Value>,
}

/// The most settings one edit may change.
const MAX_SETTINGS: usize = 100;

impl PutSettings {
    /// The body of `PUT /<index>/_settings`: flat keys with the `index.` prefix, dynamic only.
    pub(crate) fn into_body(self) -> Result<Value, Error> {
        if self.settings.is_empty() {
            return Err(Error::BadRequest(
                "settings is empty: name at least one setting.".to_owned(),
            ));
        }
        if self.settings.len() > MAX_SETTINGS {
            return Err(Error::BadRequest(format!(
                "settings names {} settings; one edit may change at most {MAX_SETTINGS}.",
                self.settings.len()
            )));
        }
        let mut body = Map::new();
        for (key, value) in self.settings {
            let key = if key.starts_with("index.") {
                key
            } else {
                format!("index.{key}")
            };
            if !is_dynamic(&key) {
                return Err(Error::BadRequest(format!(
                    "{key} is not a dynamic setting: it is fixed when the index is created (or \
                     changed on a closed index through the console)."
                )));
            }
            match &value {
                Value::String(_) | Value::Number(_) | Value::Bool(_) | Value::Null => {}
                Value::Array(items) if items.iter().all(|item| item.is_string()) => {}
                _ => {
                    return Err(Error::BadRequest(format!(
                        "The value of {key} must be a string, number, boolean, list of strings or null."
                    )));
                }
            }
            body.insert(key, value);
        }
        Ok(Value::Object(body))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn dynamic_settings_are_known_by_key_and_prefix() {
        for key in [
            "index.number_of_replicas",
            "index.blocks.write",
            "index.routing.allocation.include._name",
            "index.search.slowlog.threshold.query.warn",
        ] {
            assert!(is_dynamic(key), "{key}");
        }
        for key in [
            "index.number_of_shards",
            "index.codec",
            "index.uuid",
            "index.blocks.",
            "index.number_of_replicas_x",
            "index.analysis.analyzer.a.type",
        ] {
            assert!(!is_dynamic(key), "{key}");
        }
    }

    #[test]
    fn settings_edits_are_flat_and_dynamic_only() {
        let body = |settings: Value| {
            serde_json::from_value::<PutSettings>(json!({ "settings": settings }))
                .unwrap()
                .into_body()
        };
        assert_eq!(
            body(json!({"number_of_replicas": 2, "index.refresh_interval": "5s", "index.blocks.write": null}))
                .unwrap(),
            json!({"index.number_of_replicas": 2, "index.refresh_interval": "5s", "index.blocks.write": null})
        );
        for (settings, expected) in [
            (json!({}), "settings is empty"),
            (
                json!({"number_of_shards": 3}),
                "index.number_of_shards is not a dynamic setting",
            ),
            (
                json!({"index.codec": "best_compression"}),
                "not a dynamic setting",
            ),
            (
                json!({"refresh_interval": {"a": 1}}),
                "must be a string, number",
            ),
        ] {
            let message = body(settings).unwrap_err().to_string();
            assert!(message.contains(expected), "{message}");
        }
    }

    #[test]
    fn documented_answers_become_the_page() {
        let (rows, addable) = settings_rows(&json!({
            "index.number_of_shards": "1", "index.number_of_replicas": "1", "index.uuid": "u"
        }));
        assert_eq!(rows.len(), 3);
        assert!(
            rows.iter()
                .find(|r| r.key == "index.number_of_replicas")
                .unwrap()
                .dynamic
        );
        assert!(
            !rows
                .iter()
                .find(|r| r.key == "index.number_of_shards")
                .unwrap()
                .dynamic
        );
        assert!(!addable.contains(&"index.number_of_replicas".to_owned()));
        assert!(addable.contains(&"index.refresh_interval".to_owned()));

        // Elasticsearch 8 index stats (abridged from the documented answer).
        let stats = stats_of(&json!({
            "uuid": "u",
            "primaries": {"docs": {"count": 10, "deleted": 1}, "store": {"size_in_bytes": 100}},
            "total": {"docs": {"count": 20, "deleted": 2}, "store": {"size_in_bytes": 200},
                      "indexing": {"index_total": 20, "index_time_in_millis": 7, "index_failed": 0},
                      "search": {"query_total": 5, "query_time_in_millis": 3, "fetch_total": 4},
                      "segments": {"count": 6}}
        }));
        assert_eq!(
            stats,
            IndexStats {
                docs_count: 10,
                docs_deleted: 1,
                store_bytes: 200,
                primary_store_bytes: 100,
                indexing_total: 20,
                indexing_time_ms: 7,
                indexing_failed: 0,
                search_query_total: 5,
                search_query_time_ms: 3,
                search_fetch_total: 4,
                segments_count: 6,
            }
        );

        let copies = shard_copies(&json!([
            {"index": "i", "shard": "1", "prirep": "r", "state": "UNASSIGNED", "docs": null,
             "store": null, "node": null, "unassigned.reason": "INDEX_CREATED"},
            {"index": "i", "shard": "0", "prirep": "p", "state": "STARTED", "docs": "3",
             "store": "208", "node": "n1", "unassigned.reason": null},
            {"index": "i", "shard": "1", "prirep": "p", "state": "STARTED", "docs": "4",
             "store": "300", "node": "n2", "unassigned.reason": null}
        ]));
        assert_eq!(
            copies
                .iter()
                .map(|c| (c.shard, c.primary))
                .collect::<Vec<_>>(),
            [(0, true), (1, true), (1, false)]
        );
        assert_eq!(
            copies[2].unassigned_reason.as_deref(),
            Some("INDEX_CREATED")
        );
        assert_eq!(copies[0].store_bytes, Some(208));

        let alias = IndexAlias::from_entry(
            "w",
            &json!({"filter": {"term": {"a": "x"}}, "index_routing": "1", "search_routing": "1,2", "is_write_index": true}),
        );
        assert_eq!(alias.search_routing.as_deref(), Some("1,2"));
        assert_eq!(alias.is_write_index, Some(true));
        assert_eq!(alias.filter, Some(json!({"term": {"a": "x"}})));
    }

    #[test]
    fn an_alias_is_not_an_index() {
        let answer = json!({"logs-1": {"settings": {}}});
        let error = entry(&answer, "logs", "_settings").unwrap_err();
        assert!(error.to_string().contains("not an index"));
        assert!(entry(&answer, "logs-1", "_settings").is_ok());
    }
}
