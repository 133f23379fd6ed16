use serde_json::json;

use super::*;

/// `GET _index_template` as documented (Elasticsearch 8 and OpenSearch 2 answer the same).
fn index_answer() -> Value {
    json!({"index_templates": [
        {"name": "logs", "index_template": {
            "index_patterns": ["logs-*"], "priority": 200, "composed_of": ["base", "logs-mappings"],
            "version": 3, "data_stream": {"hidden": false, "allow_custom_routing": false},
            "template": {"settings": {"index": {"number_of_replicas": "0"}}}}},
        {"name": "catch-all", "index_template": {"index_patterns": "*", "composed_of": []}}
    ]})
}

#[test]
fn index_templates_become_rows_sorted_by_name() {
    let rows = index_rows(&index_answer());
    assert_eq!(
        rows,
        vec![
            IndexTemplateRow {
                name: "catch-all".to_owned(),
                index_patterns: vec!["*".to_owned()],
                priority: None,
                composed_of: vec![],
                version: None,
                data_stream: false,
            },
            IndexTemplateRow {
                name: "logs".to_owned(),
                index_patterns: vec!["logs-*".to_owned()],
                priority: Some(200),
                composed_of: vec!["base".to_owned(), "logs-mappings".to_owned()],
                version: Some(3),
                data_stream: true,
            },
        ]
    );
    assert!(index_rows(&json!({})).is_empty());
}

#[test]
fn component_templates_say_what_they_set_and_who_uses_them() {
    let index = index_rows(&index_answer());
    let answer = json!({"component_templates": [
        {"name": "base", "component_template": {"version": 1, "_meta": {"team": "sre"},
            "template": {"settings": {"index": {"number_of_shards": "1"}}, "mappings": {}}}},
        {"name": "unused", "component_template": {"template": {"aliases": {"all": {}}}}}
    ]});
    let rows = component_rows(&answer, &index);
    assert_eq!(rows[0].name, "base");
    assert_eq!(rows[0].version, Some(1));
    assert!(rows[0].has_settings && !rows[0].has_mappings && !rows[0].has_aliases);
    assert_eq!(rows[0].used_by, vec!["logs".to_owned()]);
    assert!(rows[1].has_aliases && rows[1].used_by.is_empty());
}

#[test]
fn legacy_templates_are_keyed_by_name() {
    let answer = json!({
        "old": {"order": 1, "version": 7, "index_patterns": ["old-*"], "settings": {}, "mappings": {}, "aliases": {}},
        "ancient": {"order": 0, "index_patterns": "anc-*", "settings": {}}
    });
    let rows = legacy_rows(&answer);
    assert_eq!(rows[0].name, "ancient");
    assert_eq!(rows[0].index_patterns, vec!["anc-*".to_owned()]);
    assert_eq!(rows[1].order, Some(1));
    assert_eq!(rows[1].version, Some(7));
}

#[test]
fn the_detail_is_the_named_definition() {
    assert_eq!(
        definition_of(Kind::Index, "logs", &index_answer()).unwrap()["priority"],
        200
    );
    assert_eq!(definition_of(Kind::Index, "nope", &index_answer()), None);
    let legacy = json!({"old": {"index_patterns": ["old-*"]}});
    assert!(definition_of(Kind::Legacy, "old", &legacy).is_some());
    assert_eq!(definition_of(Kind::Legacy, "new", &json!({})), None);
    let component =
        json!({"component_templates": [{"name": "c", "component_template": {"template": {}}}]});
    assert_eq!(
        definition_of(Kind::Component, "c", &component),
        Some(json!({"template": {}}))
    );
}

#[test]
fn definitions_are_checked_before_sending() {
    let ok = [
        (
            Kind::Index,
            json!({"index_patterns": ["a-*"], "priority": 5, "composed_of": ["c"], "template": {}}),
        ),
        (Kind::Index, json!({"index_patterns": "a-*"})),
        (
            Kind::Component,
            json!({"template": {"settings": {}}, "version": 2, "_meta": {}}),
        ),
        (
            Kind::Legacy,
            json!({"index_patterns": ["a-*"], "order": 0, "settings": {}}),
        ),
    ];
    for (kind, definition) in ok {
        assert!(check_definition(kind, &definition).is_ok(), "{definition}");
    }
    let bad = [
        (Kind::Index, json!([1]), "must be a JSON object, not a list"),
        (Kind::Index, json!("x"), "not a string"),
        (Kind::Index, json!({}), "needs \"index_patterns\""),
        (
            Kind::Index,
            json!({"index_patterns": []}),
            "needs \"index_patterns\"",
        ),
        (
            Kind::Index,
            json!({"index_patterns": [1]}),
            "needs \"index_patterns\"",
        ),
        (
            Kind::Index,
            json!({"index_patterns": ["a"], "template": []}),
            "\"template\" must be a JSON object",
        ),
        (
            Kind::Index,
            json!({"index_patterns": ["a"], "composed_of": "c"}),
            "composed_of",
        ),
        (
            Kind::Index,
            json!({"index_patterns": ["a"], "priority": -1}),
            "priority",
        ),
        (
            Kind::Index,
            json!({"index_patterns": ["a"], "version": "1"}),
            "version",
        ),
        (
            Kind::Component,
            json!({"settings": {}}),
            "needs \"template\"",
        ),
        (
            Kind::Legacy,
            json!({"index_patterns": ["a"], "settings": 1}),
            "\"settings\" must be a JSON object",
        ),
        (
            Kind::Legacy,
            json!({"index_patterns": ["a"], "_meta": []}),
            "\"_meta\"",
        ),
    ];
    for (kind, definition, expected) in bad {
        let message = check_definition(kind, &definition).unwrap_err().to_string();
        assert!(message.contains(expected), "{definition}: {message}");
    }
}

#[test]
fn the_simulation_names_the_winner_the_overlapping_and_legacy_matches() {
    let index = vec![
        IndexTemplateRow {
            name: "low".to_owned(),
            index_patterns: vec!["logs-*".to_owned()],
            priority: Some(1),
            composed_of: vec![],
            version: None,
            data_stream: false,
        },
        IndexTemplateRow {
            name: "high".to_owned(),
            index_patterns: vec!["logs-*".to_owned()],
            priority: Some(10),
            composed_of: vec![],
            version: None,
            data_stream: false,
        },
    ];
    let legacy = legacy_rows(
        &json!({"old": {"index_patterns": ["logs-*"]}, "other": {"index_patterns": ["x-*"]}}),
    );
    // The documented answer of POST _index_template/_simulate_index/<name>.
    let answer = json!({
        "template": {"settings": {"index": {"number_of_shards": "2"}}, "mappings": {"properties": {"a": {"type": "keyword"}}}, "aliases": {"all-logs": {}}},
        "overlapping": [{"name": "low", "index_patterns": ["logs-*"]}]
    });
    let simulated = simulation("logs-1", &answer, &index, &legacy);
    assert_eq!(simulated.template.as_deref(), Some("high"));
    assert_eq!(simulated.settings["index"]["number_of_shards"], "2");
    assert_eq!(simulated.aliases, json!({"all-logs": {}}));
    assert_eq!(simulated.overlapping[0].name, "low");
    assert_eq!(simulated.legacy_matches, vec!["old".to_owned()]);
    // No composable template matches: the cluster answers {}.
    let none = simulation("x-1", &json!({}), &index, &legacy);
    assert_eq!(none.template, None);
    assert_eq!(none.settings, json!({}));
    assert!(none.overlapping.is_empty());
    assert_eq!(none.legacy_matches, vec!["other".to_owned()]);
}

#[test]
fn index_patterns_match_like_the_cluster() {
    for (pattern, name, matches) in [
        ("logs-*", "logs-1", true),
        ("logs-*", "logs-", true),
        ("logs-*", "log", false),
        ("*", "anything", true),
        ("*-prod-*", "a-prod-b", true),
        ("*-prod-*", "a-dev-b", false),
        ("a*b*c", "abc", true),
        ("a*b*c", "acb", false),
        ("ab*ba", "aba", false),
        ("exact", "exact", true),
        ("exact", "exactly", false),
    ] {
        assert_eq!(glob_matches(pattern, name), matches, "{pattern} {name}");
    }
}

#[test]
fn kinds_name_their_api() {
    assert_eq!(Kind::parse("index").unwrap().api(), "_index_template");
    assert_eq!(
        Kind::parse("component").unwrap().api(),
        "_component_template"
    );
    assert_eq!(Kind::parse("legacy").unwrap().api(), "_template");
    assert!(
        Kind::parse("v2")
            .unwrap_err()
            .to_string()
            .contains("index, component or legacy")
    );
}
