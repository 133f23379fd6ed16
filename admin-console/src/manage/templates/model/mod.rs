//! Templates as the cluster describes them, read into the rows the web app lists, and the checks
//! made before anything is sent: the name rules the cluster applies to template names, and the
//! shape of a definition.
//!
//! The three kinds and their APIs (Elasticsearch 7.8+/8 and OpenSearch 1/2/3 answer the same):
//! - composable index templates, `_index_template`: `{"index_templates": [{"name", "index_template":
//!   {index_patterns, template: {settings, mappings, aliases}, composed_of, priority, version,
//!   _meta, data_stream}}]}`;
//! - component templates, `_component_template`: `{"component_templates": [{"name",
//!   "component_template": {template, version, _meta}}]}`;
//! - legacy templates, `_template` (deprecated, still served): `{"<name>": {order, version,
//!   index_patterns, settings, mappings, aliases}}`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;

/// Which template API a route addresses (`/templates/{kind}/{name}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "TemplateKind"))]
pub enum Kind {
    /// A composable index template (`_index_template`).
    Index,
    /// A component template (`_component_template`).
    Component,
    /// A legacy template (`_template`, deprecated in Elasticsearch 7.8 and OpenSearch).
    Legacy,
}

impl Kind {
    pub fn parse(text: &str) -> Result<Self, Error> {
        match text {
            "index" => Ok(Self::Index),
            "component" => Ok(Self::Component),
            "legacy" => Ok(Self::Legacy),
            other => Err(Error::BadRequest(format!(
                "The template kind \"{}\" is not known: use index, component or legacy.",
                other.escape_debug()
            ))),
        }
    }

    /// The API root on the cluster.
    pub fn api(self) -> &'static str {
        match self {
            Self::Index => "_index_template",
            Self::Component => "_component_template",
            Self::Legacy => "_template",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Self::Index => "index template",
            Self::Component => "component template",
            Self::Legacy => "legacy template",
        }
    }
}

/// Checks a definition before it is sent: a JSON object, with the fields its kind requires in
/// the types the cluster reads (the cluster checks the rest and its refusal passes through).
pub fn check_definition(kind: Kind, definition: &Value) -> Result<(), Error> {
    let Some(object) = definition.as_object() else {
        return Err(Error::BadRequest(format!(
            "The {} definition must be a JSON object, not {}.",
            kind.label(),
            json_type(definition)
        )));
    };
    let object_field = |field: &str| -> Result<(), Error> {
        match object.get(field) {
            None | Some(Value::Object(_)) => Ok(()),
            Some(other) => Err(Error::BadRequest(format!(
                "The {} field \"{field}\" must be a JSON object, not {}.",
                kind.label(),
                json_type(other)
            ))),
        }
    };
    match kind {
        Kind::Index | Kind::Legacy => {
            let patterns = object.get("index_patterns");
            let valid = match patterns {
                Some(Value::String(pattern)) => !pattern.is_empty(),
                Some(Value::Array(items)) => {
                    !items.is_empty()
                        && items
                            .iter()
                            .all(|item| item.as_str().is_some_and(|p| !p.is_empty()))
                }
                _ => false,
            };
            if !valid {
                return Err(Error::BadRequest(format!(
                    "The {} needs \"index_patterns\": a non-empty list of index patterns.",
                    kind.label()
                )));
            }
            if kind == Kind::Index {
                object_field("template")?;
                object_field("data_stream")?;
                if let Some(composed) = object.get("composed_of")
                    && !composed
                        .as_array()
                        .is_some_and(|items| items.iter().all(Value::is_string))
                {
                    return Err(Error::BadRequest(
                        "The index template field \"composed_of\" must be a list of component \
                         template names."
                            .to_owned(),
                    ));
                }
                if let Some(priority) = object.get("priority")
                    && priority.as_i64().is_none_or(|p| p < 0)
                {
                    return Err(Error::BadRequest(
                        "The index template field \"priority\" must be a whole number of 0 or more."
                            .to_owned(),
                    ));
                }
            } else {
                for field in ["settings", "mappings", "aliases"] {
                    object_field(field)?;
                }
            }
        }
        Kind::Component => {
            if !object.get("template").is_some_and(Value::is_object) {
                return Err(Error::BadRequest(
                    "The component template needs \"template\": an object with settings, \
                     mappings or aliases."
                        .to_owned(),
                ));
            }
        }
    }
    if let Some(version) = object.get("version")
        && !version.is_i64()
    {
        return Err(Error::BadRequest(format!(
            "The {} field \"version\" must be a whole number.",
            kind.label()
        )));
    }
    object_field("_meta")?;
    Ok(())
}

fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// A composable index template in the list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct IndexTemplateRow {
    pub name: String,
    pub index_patterns: Vec<String>,
    pub priority: Option<i64>,
    pub composed_of: Vec<String>,
    pub version: Option<i64>,
    /// Whether matching names become data streams (`data_stream` is set).
    pub data_stream: bool,
}

/// A component template in the list, with the index templates composed of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ComponentTemplateRow {
    pub name: String,
    pub version: Option<i64>,
    pub has_settings: bool,
    pub has_mappings: bool,
    pub has_aliases: bool,
    pub used_by: Vec<String>,
}

/// A legacy template in the list.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct LegacyTemplateRow {
    pub name: String,
    pub index_patterns: Vec<String>,
    pub order: Option<i64>,
    pub version: Option<i64>,
}

/// A list the cluster did not give (an old version without composable templates, a missing
/// privilege): the other kinds are still listed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "TemplateListError"))]
pub struct ListError {
    pub kind: Kind,
    pub message: String,
}

/// `GET /templates`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TemplateList {
    pub index: Vec<IndexTemplateRow>,
    pub component: Vec<ComponentTemplateRow>,
    pub legacy: Vec<LegacyTemplateRow>,
    pub errors: Vec<ListError>,
}

/// `index_patterns` is a list, or a single string in older answers and in legacy templates.
fn patterns(value: &Value) -> Vec<String> {
    match value {
        Value::String(one) => vec![one.clone()],
        Value::Array(items) => items
            .iter()
            .filter_map(|item| item.as_str().map(str::to_owned))
            .collect(),
        _ => Vec::new(),
    }
}

pub(crate) fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|item| item.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// A non-empty object (an empty `"settings": {}` is nothing set).
fn is_set(value: &Value) -> bool {
    value.as_object().is_some_and(|object| !object.is_empty())
}

pub fn index_rows(answer: &Value) -> Vec<IndexTemplateRow> {
    let mut rows: Vec<IndexTemplateRow> = answer["index_templates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let template = &entry["index_template"];
            Some(IndexTemplateRow {
                name: entry["name"].as_str()?.to_owned(),
                index_patterns: patterns(&template["index_patterns"]),
                priority: template["priority"].as_i64(),
                composed_of: strings(&template["composed_of"]),
                version: template["version"].as_i64(),
                data_stream: template["data_stream"].is_object(),
            })
        })
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows
}

pub fn component_rows(answer: &Value, index: &[IndexTemplateRow]) -> Vec<ComponentTemplateRow> {
    let mut rows: Vec<ComponentTemplateRow> = answer["component_templates"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            let name = entry["name"].as_str()?.to_owned();
            let component = &entry["component_template"];
            let template = &component["template"];
            Some(ComponentTemplateRow {
                used_by: index
                    .iter()
                    .filter(|row| row.composed_of.contains(&name))
                    .map(|row| row.name.clone())
                    .collect(),
                name,
                version: component["version"].as_i64(),
                has_settings: is_set(&template["settings"]),
                has_mappings: is_set(&template["mappings"]),
                has_aliases: is_set(&template["aliases"]),
            })
        })
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows
}

pub fn legacy_rows(answer: &Value) -> Vec<LegacyTemplateRow> {
    let mut rows: Vec<LegacyTemplateRow> = answer
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, template)| LegacyTemplateRow {
            name: name.clone(),
            index_patterns: patterns(&template["index_patterns"]),
            order: template["order"].as_i64(),
            version: template["version"].as_i64(),
        })
        .collect();
    rows.sort_by(|a, b| a.name.cmp(&b.name));
    rows
}

/// `GET /templates/{kind}/{name}`: the definition as the cluster keeps it, in the shape its `PUT`
/// accepts (what the editor starts from).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TemplateDetail {
    pub kind: Kind,
    pub name: String,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub definition: Value,
}

/// The one template named `name` in a `GET <api>/<name>` answer, or `None` when it is not there
/// (the legacy API answers `{}` for a name that matches nothing).
pub fn definition_of(kind: Kind, name: &str, answer: &Value) -> Option<Value> {
    match kind {
        Kind::Index => answer["index_templates"]
            .as_array()?
            .iter()
            .find(|entry| entry["name"] == name)
            .map(|entry| entry["index_template"].clone()),
        Kind::Component => answer["component_templates"]
            .as_array()?
            .iter()
            .find(|entry| entry["name"] == name)
            .map(|entry| entry["component_template"].clone()),
        Kind::Legacy => answer.get(name).cloned(),
    }
}

/// `DELETE /templates/{kind}/{name}?confirm={name}`: what was deleted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct TemplateDeleted {
    pub kind: Kind,
    pub name: String,
}

/// `PUT /templates/{kind}/{name}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct PutTemplateBody {
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub definition: Value,
    /// Refuse (the cluster's 400) when a template of that name exists, instead of replacing it.
    #[serde(default)]
    #[cfg_attr(test, ts(type = "boolean | undefined", optional))]
    pub create: bool,
}

/// `POST /templates/simulate`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct SimulateBody {
    pub index: String,
}

/// A template that also matches the simulated name but does not apply: a lower-priority index
/// template, or a legacy template (the cluster lists both kinds).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OverlappingTemplate {
    pub name: String,
    pub index_patterns: Vec<String>,
}

/// What an index of that name would get.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Simulation {
    pub index: String,
    /// The composable template that would apply, when one matches (the highest priority among
    /// the index templates whose patterns match).
    pub template: Option<String>,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub settings: Value,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub mappings: Value,
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub aliases: Value,
    pub overlapping: Vec<OverlappingTemplate>,
    /// Legacy templates whose patterns match the name: they apply only when no composable
    /// template matches.
    pub legacy_matches: Vec<String>,
}

/// Reads the `_simulate_index` answer (`{"template": {settings, mappings, aliases},
/// "overlapping": [{name, index_patterns}]}`, or `{}` when no composable template matches).
pub fn simulation(
    index: &str,
    answer: &Value,
    index_templates: &[IndexTemplateRow],
    legacy: &[LegacyTemplateRow],
) -> Simulation {
    let template = &answer["template"];
    let object = |value: &Value| {
        if value.is_object() {
            value.clone()
        } else {
            Value::Object(Default::default())
        }
    };
    let overlapping: Vec<OverlappingTemplate> = answer["overlapping"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|entry| {
            Some(OverlappingTemplate {
                name: entry["name"].as_str()?.to_owned(),
                index_patterns: patterns(&entry["index_patterns"]),
            })
        })
        .collect();
    // The answer does not name the winner: it is the best-priority matching template that is
    // not among the overlapping ones.
    let winner = template.is_object().then(|| {
        index_templates
            .iter()
            .filter(|row| row.index_patterns.iter().any(|p| glob_matches(p, index)))
            .filter(|row| !overlapping.iter().any(|o| o.name == row.name))
            .max_by_key(|row| row.priority.unwrap_or(0))
            .map(|row| row.name.clone())
    });
    Simulation {
        index: index.to_owned(),
        template: winner.flatten(),
        settings: object(&template["settings"]),
        mappings: object(&template["mappings"]),
        aliases: object(&template["aliases"]),
        overlapping,
        legacy_matches: legacy
            .iter()
            .filter(|row| row.index_patterns.iter().any(|p| glob_matches(p, index)))
            .map(|row| row.name.clone())
            .collect(),
    }
}

/// An index pattern as the cluster matches it: `*` stands for any run of characters, nothing
/// else is special.
pub fn glob_matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for middle in &parts[1..parts.len() - 1] {
        match rest.find(middle) {
            Some(at) => rest = &rest[at + middle.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests;
