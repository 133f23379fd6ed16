//! Comparing two clusters' configuration: the plain types and the diff, which the tests call
//! directly. Each side of a section is what one cluster answered, as named entries (a setting,
//! a template, a lifecycle policy) with their JSON; the comparison lists every name of either
//! side, differences first (only left, only right, different), then the ones that are the same,
//! each group by name.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{Map, Value};

/// What one cluster answered for a section: its named entries, or why it could not tell
/// (a cluster without the lifecycle module, a refused call).
pub(crate) type Side = Result<BTreeMap<String, Value>, String>;

/// The sections, in the order they are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "CompareSectionKind"))]
pub enum SectionKind {
    PersistentSettings,
    TransientSettings,
    IndexTemplates,
    ComponentTemplates,
    LegacyTemplates,
    LifecyclePolicies,
}

impl SectionKind {
    pub(crate) const ALL: [Self; 6] = [
        Self::PersistentSettings,
        Self::TransientSettings,
        Self::IndexTemplates,
        Self::ComponentTemplates,
        Self::LegacyTemplates,
        Self::LifecyclePolicies,
    ];
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "CompareState"))]
pub enum EntryState {
    OnlyLeft,
    OnlyRight,
    Different,
    Same,
}

/// One name of a section, with each side's value (absent on a side that lacks it).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "CompareEntry"))]
pub struct Entry {
    pub name: String,
    pub state: EntryState,
    #[cfg_attr(test, ts(type = "unknown"))]
    pub left: Option<Value>,
    #[cfg_attr(test, ts(type = "unknown"))]
    pub right: Option<Value>,
}

/// One section: each side's error when it could not be read (then it has no entries), the
/// number of differences, and the entries.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS), ts(rename = "CompareSection"))]
pub struct Section {
    pub kind: SectionKind,
    pub left_error: Option<String>,
    pub right_error: Option<String>,
    pub differences: usize,
    pub entries: Vec<Entry>,
}

/// `GET /api/clusters/{left}/compare/{right}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Comparison {
    pub left: String,
    pub right: String,
    pub sections: Vec<Section>,
}

/// The section of `kind` from the two sides. A side that could not be read counts as empty
/// for the entries (so the other side's names still show), with its error beside them.
pub(crate) fn compare(kind: SectionKind, left: Side, right: Side) -> Section {
    let (left_error, left) = split(left);
    let (right_error, right) = split(right);
    let mut names: Vec<&String> = left.keys().chain(right.keys()).collect();
    names.sort();
    names.dedup();
    let mut entries: Vec<Entry> = names
        .into_iter()
        .map(|name| {
            let (l, r) = (left.get(name), right.get(name));
            let state = match (l, r) {
                (Some(l), Some(r)) if l == r => EntryState::Same,
                (Some(_), Some(_)) => EntryState::Different,
                (Some(_), None) => EntryState::OnlyLeft,
                _ => EntryState::OnlyRight,
            };
            Entry {
                name: name.clone(),
                state,
                left: l.cloned(),
                right: r.cloned(),
            }
        })
        .collect();
    // Differences first; within a state, by name (already sorted, and the sort is stable).
    entries.sort_by_key(|entry| entry.state == EntryState::Same);
    Section {
        kind,
        left_error,
        right_error,
        differences: entries
            .iter()
            .filter(|entry| entry.state != EntryState::Same)
            .count(),
        entries,
    }
}

/// A template or policy as compared: members that are `null`, `[]` or `{}` are left out at
/// every depth, since the distributions differ only in writing them or not (Elasticsearch 8
/// answers `"composed_of": []` for a template OpenSearch answers without it).
pub(crate) fn without_empty_members(value: Value) -> Value {
    match value {
        Value::Object(members) => Value::Object(
            members
                .into_iter()
                .map(|(key, member)| (key, without_empty_members(member)))
                .filter(|(_, member)| !is_empty(member))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(without_empty_members).collect()),
        other => other,
    }
}

fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Array(items) => items.is_empty(),
        Value::Object(members) => members.is_empty(),
        _ => false,
    }
}

fn split(side: Side) -> (Option<String>, BTreeMap<String, Value>) {
    match side {
        Ok(entries) => (None, entries),
        Err(error) => (Some(error), BTreeMap::new()),
    }
}

/// `GET _cluster/settings?flat_settings=true`: the persistent and the transient settings.
pub(crate) fn settings(answer: &Value) -> (BTreeMap<String, Value>, BTreeMap<String, Value>) {
    let scope = |name: &str| -> BTreeMap<String, Value> {
        answer[name]
            .as_object()
            .map(|settings| {
                settings
                    .iter()
                    .map(|(key, value)| (key.clone(), value.clone()))
                    .collect()
            })
            .unwrap_or_default()
    };
    (scope("persistent"), scope("transient"))
}

/// `GET _index_template` (`index_templates`) or `GET _component_template`
/// (`component_templates`): `[{name, <body_field>: {...}}]` by name.
pub(crate) fn named_list(answer: &Value, list: &str, body_field: &str) -> BTreeMap<String, Value> {
    answer[list]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let name = item["name"].as_str()?;
            Some((
                name.to_owned(),
                without_empty_members(item[body_field].clone()),
            ))
        })
        .collect()
}

/// `GET _template`: `{name: {...}}`.
pub(crate) fn legacy_templates(answer: &Value) -> BTreeMap<String, Value> {
    answer
        .as_object()
        .map(|templates| {
            templates
                .iter()
                .map(|(name, body)| (name.clone(), without_empty_members(body.clone())))
                .collect()
        })
        .unwrap_or_default()
}

/// Elasticsearch's `GET _ilm/policy`: `{name: {version, modified_date, policy, in_use_by}}`; only
/// `policy` is compared (the rest says when and where, not what).
pub(crate) fn ilm_policies(answer: &Value) -> BTreeMap<String, Value> {
    answer
        .as_object()
        .map(|policies| {
            policies
                .iter()
                .map(|(name, entry)| (name.clone(), without_empty_members(entry["policy"].clone())))
                .collect()
        })
        .unwrap_or_default()
}

/// OpenSearch's `GET _plugins/_ism/policies`: `{policies: [{_id, policy: {...}}]}`; the
/// bookkeeping fields (`policy_id`, `last_updated_time`, `schema_version`, sequence numbers)
/// are left out of the comparison.
pub(crate) fn ism_policies(answer: &Value) -> BTreeMap<String, Value> {
    const BOOKKEEPING: [&str; 3] = ["policy_id", "last_updated_time", "schema_version"];
    answer["policies"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let name = item["_id"].as_str()?;
            let mut policy: Map<String, Value> = item["policy"].as_object()?.clone();
            for field in BOOKKEEPING {
                policy.remove(field);
            }
            Some((
                name.to_owned(),
                without_empty_members(Value::Object(policy)),
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn side(pairs: &[(&str, Value)]) -> Side {
        Ok(pairs
            .iter()
            .map(|(name, value)| ((*name).to_owned(), value.clone()))
            .collect())
    }

    #[test]
    fn differences_come_first_then_the_same_each_by_name() {
        let left = side(&[
            ("b.same", json!("1")),
            ("a.same", json!("1")),
            ("c.changed", json!("1")),
            ("d.left", json!("x")),
        ]);
        let right = side(&[
            ("a.same", json!("1")),
            ("b.same", json!("1")),
            ("c.changed", json!("2")),
            ("0.right", json!("y")),
        ]);
        let section = compare(SectionKind::PersistentSettings, left, right);
        let order: Vec<(&str, EntryState)> = section
            .entries
            .iter()
            .map(|entry| (entry.name.as_str(), entry.state))
            .collect();
        assert_eq!(
            order,
            [
                ("0.right", EntryState::OnlyRight),
                ("c.changed", EntryState::Different),
                ("d.left", EntryState::OnlyLeft),
                ("a.same", EntryState::Same),
                ("b.same", EntryState::Same),
            ]
        );
        assert_eq!(section.differences, 3);
        assert_eq!(section.entries[0].left, None);
        assert_eq!(section.entries[1].right, Some(json!("2")));
    }

    #[test]
    fn a_side_that_could_not_be_read_keeps_its_error_and_the_other_sides_names() {
        let section = compare(
            SectionKind::LifecyclePolicies,
            Err("no ILM".to_owned()),
            side(&[("hot-warm", json!({"phases": {}}))]),
        );
        assert_eq!(section.left_error.as_deref(), Some("no ILM"));
        assert_eq!(section.right_error, None);
        assert_eq!(section.entries[0].state, EntryState::OnlyRight);
    }

    #[test]
    fn templates_and_policies_are_read_by_name_without_bookkeeping() {
        let composable = json!({"index_templates": [
            {"name": "logs", "index_template": {"index_patterns": ["logs-*"]}}, {"no": "name"}]});
        assert_eq!(
            named_list(&composable, "index_templates", "index_template")["logs"],
            json!({"index_patterns": ["logs-*"]})
        );
        let ilm = json!({"hot": {"version": 3, "modified_date": "x", "policy": {"phases": {"hot": {"min_age": "0ms"}}},
            "in_use_by": {"indices": ["a"]}}});
        assert_eq!(
            ilm_policies(&ilm)["hot"],
            json!({"phases": {"hot": {"min_age": "0ms"}}})
        );
        let ism = json!({"policies": [{"_id": "rollover", "_seq_no": 4, "policy": {
            "policy_id": "rollover", "last_updated_time": 17, "schema_version": 21,
            "description": "d", "states": []}}]});
        assert_eq!(ism_policies(&ism)["rollover"], json!({"description": "d"}));
        let (persistent, transient) = settings(&json!({"persistent": {"a.b": "1"}}));
        assert_eq!(persistent["a.b"], json!("1"));
        assert!(transient.is_empty());
        assert!(legacy_templates(&json!([])).is_empty());
    }

    #[test]
    fn empty_members_do_not_make_a_difference() {
        let opensearch = json!({"index_patterns": ["a-*"], "priority": 1});
        let elasticsearch = json!({"index_patterns": ["a-*"], "priority": 1, "composed_of": [],
            "template": {"settings": {}, "aliases": null}});
        assert_eq!(without_empty_members(elasticsearch), opensearch);
        let kept = json!({"index_patterns": ["a-*"], "priority": 0, "enabled": false, "x": ""});
        assert_eq!(without_empty_members(kept.clone()), kept);
    }
}
