//! Creating an index: the body the browser sends, checked whole before the one
//! `PUT /<index>` call it becomes.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::cluster::dialect::Dialect;
use crate::error::Error;
use crate::manage::names::{AliasName, IndexName};

/// The most primary shards an index may have: 1024 in Elasticsearch and OpenSearch unless the
/// nodes start with a higher `es.index.max_number_of_shards` / `opensearch.index.max_number_of_shards`.
pub(crate) const MAX_SHARDS: u64 = 1024;
/// A bound on replicas that no real cluster reaches; larger numbers are typing mistakes.
pub(crate) const MAX_REPLICAS: u64 = 1024;

/// `POST /api/clusters/:id/indices`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct CreateIndex {
    pub(crate) name: String,
    #[cfg_attr(test, ts(optional))]
    pub(crate) shards: Option<u64>,
    #[cfg_attr(test, ts(optional))]
    pub(crate) replicas: Option<u64>,
    /// Index settings, nested (`{"index": {"refresh_interval": "5s"}}`) or flat.
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub(crate) settings: Option<Value>,
    /// The mappings (`{"properties": {...}}`).
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub(crate) mappings: Option<Value>,
    /// Aliases to create with the index: alias name → alias properties.
    #[cfg_attr(test, ts(optional, type = "Record<string, unknown>"))]
    pub(crate) aliases: Option<Value>,
}

/// The answer of a create.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct Created {
    pub(crate) index: String,
    pub(crate) acknowledged: bool,
    pub(crate) shards_acknowledged: bool,
}

impl Created {
    pub(crate) fn from_answer(index: &str, answer: &Value) -> Self {
        Self {
            index: index.to_owned(),
            acknowledged: answer["acknowledged"].as_bool().unwrap_or(false),
            shards_acknowledged: answer["shards_acknowledged"].as_bool().unwrap_or(false),
        }
    }
}

fn object<'a>(value: &'a Value, what: &str) -> Result<&'a Map<String, Value>, Error> {
    value
        .as_object()
        .ok_or_else(|| Error::BadRequest(format!("{what} must be a JSON object.")))
}

/// Every leaf key of a settings object, dotted (`{"index": {"a": 1}}` → `index.a`).
pub(crate) fn flat_keys(settings: &Map<String, Value>) -> Vec<String> {
    let mut keys = Vec::new();
    for (key, value) in settings {
        match value {
            Value::Object(inner) => keys.extend(
                flat_keys(inner)
                    .into_iter()
                    .map(|tail| format!("{key}.{tail}")),
            ),
            _ => keys.push(key.clone()),
        }
    }
    keys
}

/// A settings key without its optional `index.` prefix.
fn bare(key: &str) -> &str {
    key.strip_prefix("index.").unwrap_or(key)
}

fn bounded(value: Option<u64>, name: &str, min: u64, max: u64) -> Result<Option<u64>, Error> {
    match value {
        Some(number) if number < min || number > max => Err(Error::BadRequest(format!(
            "{name} must be between {min} and {max}, not {number}."
        ))),
        other => Ok(other),
    }
}

impl CreateIndex {
    /// The checked name and the body of `PUT /<name>`.
    pub(crate) fn into_call(self, dialect: Dialect) -> Result<(IndexName, Value), Error> {
        let name = IndexName::parse_new(self.name.trim(), dialect)?;
        let shards = bounded(self.shards, "shards", 1, MAX_SHARDS)?;
        let replicas = bounded(self.replicas, "replicas", 0, MAX_REPLICAS)?;
        let mut settings = match &self.settings {
            None | Some(Value::Null) => Map::new(),
            Some(value) => object(value, "settings")?.clone(),
        };
        let keys = flat_keys(&settings);
        for (given, key) in [
            (shards.is_some(), "number_of_shards"),
            (replicas.is_some(), "number_of_replicas"),
        ] {
            if given && keys.iter().any(|k| bare(k) == key) {
                return Err(Error::BadRequest(format!(
                    "{key} is given twice: in the form's field and in the settings JSON; keep one."
                )));
            }
        }
        if let Some(key) = keys.iter().find(|k| bare(k).is_empty() || k.contains("..")) {
            return Err(Error::BadRequest(format!(
                "The settings key \"{key}\" is not a setting name."
            )));
        }
        if let Some(shards) = shards {
            settings.insert("index.number_of_shards".to_owned(), shards.into());
        }
        if let Some(replicas) = replicas {
            settings.insert("index.number_of_replicas".to_owned(), replicas.into());
        }
        let mut body = Map::new();
        if !settings.is_empty() {
            body.insert("settings".to_owned(), Value::Object(settings));
        }
        match &self.mappings {
            None | Some(Value::Null) => {}
            Some(value) => {
                let mappings = object(value, "mappings")?;
                if let Some(properties) = mappings.get("properties")
                    && !properties.is_object()
                {
                    return Err(Error::BadRequest(
                        "mappings.properties must be a JSON object (field name → mapping)."
                            .to_owned(),
                    ));
                }
                if !mappings.is_empty() {
                    body.insert("mappings".to_owned(), value.clone());
                }
            }
        }
        match &self.aliases {
            None | Some(Value::Null) => {}
            Some(value) => {
                let aliases = object(value, "aliases")?;
                for (alias, properties) in aliases {
                    AliasName::parse(alias)?;
                    object(properties, &format!("The properties of alias \"{alias}\""))?;
                }
                if !aliases.is_empty() {
                    body.insert("aliases".to_owned(), value.clone());
                }
            }
        }
        Ok((name, Value::Object(body)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn opensearch() -> Dialect {
        Dialect::from_root(&json!({"version": {"distribution": "opensearch", "number": "2.19.0"}}))
    }

    fn create(body: Value) -> Result<(String, Value), Error> {
        serde_json::from_value::<CreateIndex>(body)
            .unwrap()
            .into_call(opensearch())
            .map(|(name, body)| (name.as_str().to_owned(), body))
    }

    #[test]
    fn the_form_fields_become_documented_settings() {
        let (name, body) = create(json!({
            "name": " logs-1 ",
            "shards": 3,
            "replicas": 0,
            "settings": {"index": {"refresh_interval": "5s"}},
            "mappings": {"properties": {"msg": {"type": "text"}}},
            "aliases": {"logs": {"is_write_index": true}}
        }))
        .unwrap();
        assert_eq!(name, "logs-1");
        assert_eq!(
            body,
            json!({
                "settings": {
                    "index": {"refresh_interval": "5s"},
                    "index.number_of_shards": 3,
                    "index.number_of_replicas": 0
                },
                "mappings": {"properties": {"msg": {"type": "text"}}},
                "aliases": {"logs": {"is_write_index": true}}
            })
        );
        let (_, empty) = create(json!({"name": "x", "settings": {}, "mappings": {}})).unwrap();
        assert_eq!(empty, json!({}));
    }

    #[test]
    fn bad_bodies_say_what_is_wrong() {
        for (body, expected) in [
            (json!({"name": "Logs"}), "must be lowercase"),
            (json!({"name": "logs-*"}), "contains \"*\""),
            (
                json!({"name": "x", "shards": 0}),
                "shards must be between 1 and 1024, not 0.",
            ),
            (
                json!({"name": "x", "shards": 5000}),
                "shards must be between 1 and 1024",
            ),
            (
                json!({"name": "x", "replicas": 2000}),
                "replicas must be between 0 and 1024",
            ),
            (
                json!({"name": "x", "settings": [1]}),
                "settings must be a JSON object.",
            ),
            (
                json!({"name": "x", "settings": "a"}),
                "settings must be a JSON object.",
            ),
            (
                json!({"name": "x", "mappings": 3}),
                "mappings must be a JSON object.",
            ),
            (
                json!({"name": "x", "mappings": {"properties": []}}),
                "mappings.properties must be a JSON object",
            ),
            (
                json!({"name": "x", "shards": 2, "settings": {"index": {"number_of_shards": 1}}}),
                "number_of_shards is given twice",
            ),
            (
                json!({"name": "x", "replicas": 2, "settings": {"number_of_replicas": 1}}),
                "number_of_replicas is given twice",
            ),
            (
                json!({"name": "x", "aliases": {"_bad": {}}}),
                "The alias name \"_bad\"",
            ),
            (
                json!({"name": "x", "aliases": {"a": 1}}),
                "The properties of alias \"a\"",
            ),
            (
                json!({"name": "x", "settings": {"index.": 1}}),
                "is not a setting name",
            ),
        ] {
            let message = create(body.clone()).unwrap_err().to_string();
            assert!(message.contains(expected), "{body}: {message}");
        }
        assert!(
            serde_json::from_value::<CreateIndex>(json!({"name": "x", "shard": 1})).is_err(),
            "unknown fields are refused"
        );
    }
}
