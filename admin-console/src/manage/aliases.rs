//! Management: aliases. Routes under `/api/clusters/{cluster_id}`; the scope's guard
//! authorises and audits every call (`access::action::view_needs`).
//!
//! `GET /aliases` lists every alias of every index from one `GET /_alias` (its filter whole,
//! which `_cat/aliases` only marks with `*`); `POST /aliases` applies a batch of adds and
//! removes as one `POST /_aliases`, which the cluster applies atomically: all or nothing.

use actix_web::{HttpResponse, web};
use reqwest::Method;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::cluster::client::ClusterApi;
use crate::error::Error;
use crate::handlers::{RequestedCluster, fresh};
use crate::manage::indices::detail::IndexAlias;
use crate::manage::names::{AliasName, IndexName};

/// This capability's routes, added to the cluster scope (paths relative to it).
pub(crate) fn routes(config: &mut web::ServiceConfig) {
    config
        .route("/aliases", web::get().to(list))
        .route("/aliases", web::post().to(apply));
}

/// One alias of one index.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AliasRow {
    pub(crate) index: String,
    #[serde(flatten)]
    #[cfg_attr(test, ts(flatten))]
    pub(crate) alias: IndexAlias,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AliasList {
    pub(crate) aliases: Vec<AliasRow>,
}

/// The documented `GET /_alias` answer (`{"<index>": {"aliases": {"<alias>": {...}}}}`) as rows,
/// sorted by alias then index; indices without aliases give none.
pub(crate) fn alias_rows(answer: &Value) -> Result<Vec<AliasRow>, Error> {
    let indices = answer
        .as_object()
        .ok_or_else(|| Error::upstream("The _alias answer is not a JSON object.".to_owned()))?;
    let mut rows: Vec<AliasRow> =
        indices
            .iter()
            .flat_map(|(index, entry)| {
                entry["aliases"].as_object().into_iter().flatten().map(
                    move |(alias, properties)| AliasRow {
                        index: index.clone(),
                        alias: IndexAlias::from_entry(alias, properties),
                    },
                )
            })
            .collect();
    rows.sort_by(|a, b| {
        a.alias
            .alias
            .cmp(&b.alias.alias)
            .then_with(|| a.index.cmp(&b.index))
    });
    Ok(rows)
}

async fn list(cluster: RequestedCluster) -> Result<HttpResponse, Error> {
    // Hidden indices' aliases too (system indices stay the cluster's business).
    let answer = cluster
        .api()
        .call(Method::GET, "_alias?expand_wildcards=all", None)
        .await?;
    Ok(fresh(&AliasList {
        aliases: alias_rows(&answer)?,
    }))
}

/// Adds `alias` to `index`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AddAlias {
    pub(crate) index: String,
    pub(crate) alias: String,
    /// A query (Query DSL object) the alias filters its documents by.
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub(crate) filter: Option<Value>,
    #[cfg_attr(test, ts(optional))]
    pub(crate) index_routing: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub(crate) search_routing: Option<String>,
    #[cfg_attr(test, ts(optional))]
    pub(crate) is_write_index: Option<bool>,
}

/// Removes `alias` from `index`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct RemoveAlias {
    pub(crate) index: String,
    pub(crate) alias: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) enum AliasAction {
    Add(AddAlias),
    Remove(RemoveAlias),
}

/// `POST /api/clusters/:id/aliases`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AliasBatch {
    pub(crate) actions: Vec<AliasAction>,
}

#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AliasesApplied {
    pub(crate) acknowledged: bool,
    /// How many actions the one `_aliases` call carried.
    pub(crate) applied: usize,
}

/// The most actions one batch may carry.
pub(crate) const MAX_ACTIONS: usize = 1000;

fn routing(value: Option<String>, name: &str) -> Result<Option<String>, Error> {
    match value.map(|text| text.trim().to_owned()) {
        None => Ok(None),
        Some(text) if text.is_empty() => Ok(None),
        Some(text) if text.len() > 512 || text.chars().any(char::is_control) => {
            Err(Error::BadRequest(format!(
                "{name} must be a short routing value (at most 512 bytes, no control characters)."
            )))
        }
        Some(text) => Ok(Some(text)),
    }
}

impl AliasBatch {
    /// The body of the one `POST /_aliases`, every name and filter checked first.
    pub(crate) fn into_body(self) -> Result<Value, Error> {
        if self.actions.is_empty() {
            return Err(Error::BadRequest(
                "actions is empty: add or remove at least one alias.".to_owned(),
            ));
        }
        if self.actions.len() > MAX_ACTIONS {
            return Err(Error::BadRequest(format!(
                "actions has {} entries; one batch may carry at most {MAX_ACTIONS}.",
                self.actions.len()
            )));
        }
        let mut actions = Vec::with_capacity(self.actions.len());
        for (position, action) in self.actions.into_iter().enumerate() {
            let at = |error: Error| match error {
                Error::BadRequest(message) => {
                    Error::BadRequest(format!("actions[{position}]: {message}"))
                }
                other => other,
            };
            actions.push(match action {
                AliasAction::Add(add) => {
                    let index = IndexName::parse(&add.index).map_err(at)?;
                    let alias = AliasName::parse(&add.alias).map_err(at)?;
                    let mut body = Map::new();
                    body.insert("index".to_owned(), index.as_str().into());
                    body.insert("alias".to_owned(), alias.as_str().into());
                    match add.filter {
                        None | Some(Value::Null) => {}
                        Some(Value::Object(filter)) if filter.is_empty() => {}
                        Some(Value::Object(filter)) => {
                            body.insert("filter".to_owned(), Value::Object(filter));
                        }
                        Some(_) => {
                            return Err(at(Error::BadRequest(
                                "filter must be a JSON object (a query such as {\"term\": {\"user.id\": \"kimchy\"}}).".to_owned(),
                            )));
                        }
                    }
                    if let Some(value) = routing(add.index_routing, "indexRouting").map_err(at)? {
                        body.insert("index_routing".to_owned(), value.into());
                    }
                    if let Some(value) = routing(add.search_routing, "searchRouting").map_err(at)? {
                        body.insert("search_routing".to_owned(), value.into());
                    }
                    if let Some(flag) = add.is_write_index {
                        body.insert("is_write_index".to_owned(), flag.into());
                    }
                    json!({ "add": body })
                }
                AliasAction::Remove(remove) => {
                    let index = IndexName::parse(&remove.index).map_err(at)?;
                    let alias = AliasName::parse(&remove.alias).map_err(at)?;
                    json!({"remove": {"index": index.as_str(), "alias": alias.as_str()}})
                }
            });
        }
        Ok(json!({ "actions": actions }))
    }
}

async fn apply(
    cluster: RequestedCluster,
    body: web::Json<AliasBatch>,
) -> Result<HttpResponse, Error> {
    let body = body.into_inner().into_body()?;
    let applied = body["actions"].as_array().map_or(0, Vec::len);
    let answer = cluster
        .api()
        .call(Method::POST, "_aliases", Some(&body))
        .await?;
    Ok(fresh(&AliasesApplied {
        acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
        applied,
    }))
}

/// The wire types of this capability, for `web/src/api/wire.ts`.
#[cfg(test)]
pub(crate) const WIRE: &[test_support::wire_types::Declaration] = {
    use ts_rs::TS;
    &[
        AliasRow::decl,
        AliasList::decl,
        AddAlias::decl,
        RemoveAlias::decl,
        AliasAction::decl,
        AliasBatch::decl,
        AliasesApplied::decl,
    ]
};

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(actions: Value) -> Result<Value, Error> {
        serde_json::from_value::<AliasBatch>(json!({ "actions": actions }))
            .map_err(|error| Error::BadRequest(error.to_string()))?
            .into_body()
    }

    #[test]
    fn a_batch_becomes_one_documented_aliases_body() {
        let body = batch(json!([
            {"add": {"index": "logs-2", "alias": "logs", "filter": {"term": {"a": "x"}},
                     "indexRouting": "1", "searchRouting": "1,2", "isWriteIndex": true}},
            {"remove": {"index": "logs-1", "alias": "logs"}},
            {"add": {"index": "logs-2", "alias": "Recent", "filter": {}, "indexRouting": " "}}
        ]))
        .unwrap();
        assert_eq!(
            body,
            json!({"actions": [
                {"add": {"index": "logs-2", "alias": "logs", "filter": {"term": {"a": "x"}},
                         "index_routing": "1", "search_routing": "1,2", "is_write_index": true}},
                {"remove": {"index": "logs-1", "alias": "logs"}},
                {"add": {"index": "logs-2", "alias": "Recent"}}
            ]})
        );
    }

    #[test]
    fn bad_batches_name_the_action_and_the_rule() {
        for (actions, expected) in [
            (json!([]), "actions is empty"),
            (
                json!([{"add": {"index": "logs-*", "alias": "a"}}]),
                "actions[0]: The index name \"logs-*\"",
            ),
            (
                json!([{"remove": {"index": "a", "alias": "_all"}}]),
                "actions[0]: The alias name \"_all\"",
            ),
            (
                json!([{"remove": {"index": "a", "alias": "b"}}, {"add": {"index": "a", "alias": "b", "filter": "x"}}]),
                "actions[1]: filter must be a JSON object",
            ),
            (
                json!([{"add": {"index": "a", "alias": "b", "indexRouting": "a\nb"}}]),
                "indexRouting must be",
            ),
            (json!([{"rename": {"index": "a"}}]), "unknown variant"),
            (
                json!([{"add": {"index": "a", "alias": "b", "routing": "1"}}]),
                "unknown field",
            ),
        ] {
            let message = batch(actions.clone()).unwrap_err().to_string();
            assert!(message.contains(expected), "{actions}: {message}");
        }
    }

    #[test]
    fn the_alias_answer_becomes_sorted_rows() {
        let rows = alias_rows(&json!({
            "logs-2": {"aliases": {"logs": {"is_write_index": true}, "all": {}}},
            "logs-1": {"aliases": {"logs": {"filter": {"term": {"a": "x"}}, "index_routing": "1", "search_routing": "1"}}},
            "empty": {"aliases": {}}
        }))
        .unwrap();
        let pairs: Vec<(&str, &str)> = rows
            .iter()
            .map(|row| (row.alias.alias.as_str(), row.index.as_str()))
            .collect();
        assert_eq!(
            pairs,
            [("all", "logs-2"), ("logs", "logs-1"), ("logs", "logs-2")]
        );
        assert_eq!(rows[1].alias.index_routing.as_deref(), Some("1"));
        assert_eq!(rows[2].alias.is_write_index, Some(true));
        let json = serde_json::to_value(&rows[1]).unwrap();
        assert_eq!(json["alias"], "logs");
        assert_eq!(json["index"], "logs-1");
        assert_eq!(json["filter"], json!({"term": {"a": "x"}}));
        assert!(alias_rows(&json!([])).is_err());
    }
}
