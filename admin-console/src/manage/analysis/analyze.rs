//! The `_analyze` tester: the typed request the web app sends, checked and turned into the
//! cluster's body, and the cluster's answer read into tokens and, with `explain`, the steps.
//!
//! The cluster's answer (Elasticsearch 7/8 and OpenSearch 1/2/3 share it):
//! - without `explain`: `{"tokens": [{"token", "start_offset", "end_offset", "type",
//!   "position"}]}`;
//! - with `explain`: `{"detail": {"custom_analyzer", "charfilters": [{"name", "filtered_text":
//!   [..]}], "tokenizer": {"name", "tokens"}, "tokenfilters": [{"name", "tokens"}]}}` for a chain
//!   (or a custom analyzer of an index), `{"detail": {"custom_analyzer": false, "analyzer":
//!   {"name", "tokens"}}}` for a built-in analyzer.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::manage::names::IndexName;

/// Longest text analysed, in characters.
pub(crate) const MAX_TEXT_CHARS: usize = 10_000;
/// Most token filters, and most char filters, in a chain.
pub(crate) const MAX_FILTERS: usize = 20;
/// Longest analyzer, tokenizer, filter or field name, in bytes.
const MAX_NAME_BYTES: usize = 255;

/// `POST /analyze`: the text, and one of an analyzer name, a field of `index` (its mapping's
/// analyzer) or a chain (a tokenizer, token filters and char filters, by name). `index` may also
/// go with an analyzer or a chain, to use the analysis components the index defines.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct AnalyzeRequest {
    pub(crate) text: String,
    #[serde(default)]
    pub(crate) index: Option<String>,
    #[serde(default)]
    pub(crate) analyzer: Option<String>,
    #[serde(default)]
    pub(crate) field: Option<String>,
    #[serde(default)]
    pub(crate) tokenizer: Option<String>,
    #[serde(default)]
    pub(crate) filters: Vec<String>,
    #[serde(default)]
    pub(crate) char_filters: Vec<String>,
    /// Every step's output (`explain: true`).
    #[serde(default)]
    pub(crate) explain: bool,
}

/// An [`AnalyzeRequest`] that passed every check: the cluster path and body.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AnalyzeCall {
    pub(crate) path: String,
    pub(crate) body: Value,
}

impl AnalyzeRequest {
    /// Checks the request and builds the call; every refusal is a 400 saying which rule.
    pub(crate) fn checked(&self) -> Result<AnalyzeCall, Error> {
        let bad = |message: String| Err(Error::BadRequest(message));
        let chars = self.text.chars().count();
        if chars == 0 {
            return bad("The text to analyse is empty.".to_owned());
        }
        if chars > MAX_TEXT_CHARS {
            return bad(format!(
                "The text is {chars} characters long; the limit is {MAX_TEXT_CHARS}."
            ));
        }
        let index = self.index.as_deref().map(IndexName::parse).transpose()?;
        let modes = [
            self.analyzer.is_some(),
            self.field.is_some(),
            self.tokenizer.is_some(),
        ];
        if modes.iter().filter(|on| **on).count() != 1 {
            return bad(
                "Name exactly one of analyzer, field (with index) or tokenizer (with filters and \
                 charFilters)."
                    .to_owned(),
            );
        }
        if self.field.is_some() && index.is_none() {
            return bad(
                "A field is analysed by its index's mapping: name the index too.".to_owned(),
            );
        }
        if self.tokenizer.is_none() && !(self.filters.is_empty() && self.char_filters.is_empty()) {
            return bad("Filters and charFilters go with a tokenizer.".to_owned());
        }
        for (word, list) in [
            ("filters", &self.filters),
            ("charFilters", &self.char_filters),
        ] {
            if list.len() > MAX_FILTERS {
                return bad(format!(
                    "{} {word} were given; the limit is {MAX_FILTERS}.",
                    list.len()
                ));
            }
        }
        let mut body = Map::new();
        body.insert("text".to_owned(), json!(self.text));
        if let Some(analyzer) = &self.analyzer {
            body.insert(
                "analyzer".to_owned(),
                json!(component("analyzer", analyzer)?),
            );
        }
        if let Some(field) = &self.field {
            body.insert("field".to_owned(), json!(field_name(field)?));
        }
        if let Some(tokenizer) = &self.tokenizer {
            body.insert(
                "tokenizer".to_owned(),
                json!(component("tokenizer", tokenizer)?),
            );
            let names = |word, list: &[String]| -> Result<Vec<String>, Error> {
                list.iter()
                    .map(|name| component(word, name).map(str::to_owned))
                    .collect()
            };
            if !self.filters.is_empty() {
                body.insert("filter".to_owned(), json!(names("filter", &self.filters)?));
            }
            if !self.char_filters.is_empty() {
                body.insert(
                    "char_filter".to_owned(),
                    json!(names("char filter", &self.char_filters)?),
                );
            }
        }
        if self.explain {
            body.insert("explain".to_owned(), json!(true));
        }
        let path = match &index {
            Some(index) => format!("{}/_analyze", index.segment()),
            None => "_analyze".to_owned(),
        };
        Ok(AnalyzeCall {
            path,
            body: Value::Object(body),
        })
    }
}

/// An analyzer, tokenizer or filter name: letters, digits, `_`, `-`, `.` (the names clusters
/// register and index settings define); never an inline definition.
fn component<'a>(word: &str, name: &'a str) -> Result<&'a str, Error> {
    let fine = !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'));
    if fine {
        Ok(name)
    } else {
        let shown: String = name.chars().take(80).collect();
        Err(Error::BadRequest(format!(
            "The {word} name \"{shown}\" is not a name: letters, digits, _ - and . only, at most \
             {MAX_NAME_BYTES} bytes."
        )))
    }
}

/// A field path (`title`, `title.raw`): no control characters, no wildcards or lists.
fn field_name(name: &str) -> Result<&str, Error> {
    let fine = !name.is_empty()
        && name.len() <= MAX_NAME_BYTES
        && !name
            .chars()
            .any(|c| c.is_control() || matches!(c, '*' | ','));
    if fine {
        Ok(name)
    } else {
        let shown: String = name.chars().take(80).collect();
        Err(Error::BadRequest(format!(
            "The field name \"{shown}\" is not one field: no wildcards, lists or control \
             characters, at most {MAX_NAME_BYTES} bytes."
        )))
    }
}

/// One token as the cluster gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AnalyzedToken {
    pub(crate) token: String,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub(crate) start_offset: Option<u64>,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub(crate) end_offset: Option<u64>,
    #[cfg_attr(test, ts(type = "number | null"))]
    pub(crate) position: Option<u64>,
    #[serde(rename = "type")]
    pub(crate) kind: Option<String>,
}

/// One step of an explained analysis, in the order the text goes through them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AnalysisStep {
    /// `charFilter`, `tokenizer`, `tokenFilter` or `analyzer` (a built-in analyzer, whose
    /// inner steps the cluster does not show).
    #[cfg_attr(
        test,
        ts(type = "\"charFilter\" | \"tokenizer\" | \"tokenFilter\" | \"analyzer\"")
    )]
    pub(crate) kind: &'static str,
    pub(crate) name: String,
    /// A char filter's output text (empty for the other steps).
    pub(crate) filtered_text: Vec<String>,
    pub(crate) tokens: Vec<AnalyzedToken>,
}

/// `POST /analyze`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub(crate) struct AnalyzeResult {
    /// The final tokens (with `explain`, the last step's).
    pub(crate) tokens: Vec<AnalyzedToken>,
    /// With `explain`: every step; else empty.
    pub(crate) steps: Vec<AnalysisStep>,
}

fn tokens_of(list: &Value) -> Vec<AnalyzedToken> {
    list.as_array()
        .into_iter()
        .flatten()
        .filter_map(|token| {
            Some(AnalyzedToken {
                token: token["token"].as_str()?.to_owned(),
                start_offset: token["start_offset"].as_u64(),
                end_offset: token["end_offset"].as_u64(),
                position: token["position"].as_u64(),
                kind: token["type"].as_str().map(str::to_owned),
            })
        })
        .collect()
}

fn step(kind: &'static str, value: &Value) -> AnalysisStep {
    AnalysisStep {
        kind,
        name: value["name"].as_str().unwrap_or_default().to_owned(),
        filtered_text: value["filtered_text"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|text| text.as_str().map(str::to_owned))
            .collect(),
        tokens: tokens_of(&value["tokens"]),
    }
}

/// Reads the cluster's `_analyze` answer.
pub(crate) fn analyzed(answer: &Value) -> Result<AnalyzeResult, Error> {
    let detail = &answer["detail"];
    if !detail.is_object() {
        if !answer["tokens"].is_array() {
            return Err(Error::upstream(
                "The cluster's _analyze answer has neither tokens nor detail.".to_owned(),
            ));
        }
        return Ok(AnalyzeResult {
            tokens: tokens_of(&answer["tokens"]),
            steps: Vec::new(),
        });
    }
    let mut steps = Vec::new();
    let list = |key: &str| detail[key].as_array().cloned().unwrap_or_default();
    for filter in list("charfilters") {
        steps.push(step("charFilter", &filter));
    }
    if detail["tokenizer"].is_object() {
        steps.push(step("tokenizer", &detail["tokenizer"]));
    }
    for filter in list("tokenfilters") {
        steps.push(step("tokenFilter", &filter));
    }
    if detail["analyzer"].is_object() {
        steps.push(step("analyzer", &detail["analyzer"]));
    }
    let tokens = steps
        .iter()
        .rev()
        .find(|step| step.kind != "charFilter")
        .map(|step| step.tokens.clone())
        .unwrap_or_default();
    Ok(AnalyzeResult { tokens, steps })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(value: Value) -> Result<AnalyzeCall, String> {
        let request: AnalyzeRequest =
            serde_json::from_value(value).map_err(|error| error.to_string())?;
        request.checked().map_err(|error| error.to_string())
    }

    #[test]
    fn the_three_modes_become_the_cluster_body() {
        let call = request(json!({"text": "Hello", "analyzer": "standard"})).unwrap();
        assert_eq!(call.path, "_analyze");
        assert_eq!(call.body, json!({"text": "Hello", "analyzer": "standard"}));
        let call = request(json!({"text": "Hi", "index": "logs", "field": "title.raw",
            "explain": true}))
        .unwrap();
        assert_eq!(call.path, "logs/_analyze");
        assert_eq!(
            call.body,
            json!({"text": "Hi", "field": "title.raw", "explain": true})
        );
        let call = request(json!({"text": "Hi", "tokenizer": "standard",
            "filters": ["lowercase", "asciifolding"], "charFilters": ["html_strip"]}))
        .unwrap();
        assert_eq!(
            call.body,
            json!({"text": "Hi", "tokenizer": "standard",
                "filter": ["lowercase", "asciifolding"], "char_filter": ["html_strip"]})
        );
    }

    #[test]
    fn hostile_or_unclear_requests_are_refused() {
        let long = "x".repeat(MAX_TEXT_CHARS + 1);
        let many: Vec<String> = (0..=MAX_FILTERS).map(|_| "lowercase".to_owned()).collect();
        for (body, says) in [
            (
                json!({"text": "a", "analyzer": "standard", "x": 1}),
                "unknown field",
            ),
            (json!({"text": "", "analyzer": "standard"}), "empty"),
            (
                json!({"text": long, "analyzer": "standard"}),
                "10001 characters",
            ),
            (json!({"text": "a"}), "exactly one"),
            (
                json!({"text": "a", "analyzer": "standard", "tokenizer": "standard"}),
                "exactly one",
            ),
            (json!({"text": "a", "field": "title"}), "name the index"),
            (
                json!({"text": "a", "analyzer": "standard", "filters": ["lowercase"]}),
                "go with a tokenizer",
            ),
            (
                json!({"text": "a", "tokenizer": "standard", "filters": many}),
                "21 filters",
            ),
            (
                json!({"text": "a", "analyzer": {"type": "custom"}}),
                "invalid type",
            ),
            (
                json!({"text": "a", "analyzer": "../_cluster"}),
                "not a name",
            ),
            (
                json!({"text": "a", "tokenizer": "standard", "filters": ["a b"]}),
                "not a name",
            ),
            (
                json!({"text": "a", "index": "../x", "analyzer": "standard"}),
                "index name",
            ),
            (
                json!({"text": "a", "index": "a,b", "analyzer": "standard"}),
                "index name",
            ),
            (
                json!({"text": "a", "index": "logs", "field": "*"}),
                "not one field",
            ),
        ] {
            let error = request(body.clone()).unwrap_err();
            assert!(error.contains(says), "{body}: {error}");
        }
        // The limit itself is accepted, counted in characters.
        assert!(
            request(json!({"text": "é".repeat(MAX_TEXT_CHARS), "analyzer": "standard"})).is_ok()
        );
    }

    #[test]
    fn answers_are_read_with_and_without_explain() {
        let plain = json!({"tokens": [{"token": "hello", "start_offset": 0, "end_offset": 5,
            "type": "<ALPHANUM>", "position": 0}, {"no": "token"}]});
        let result = analyzed(&plain).unwrap();
        assert_eq!(
            result.tokens,
            [AnalyzedToken {
                token: "hello".to_owned(),
                start_offset: Some(0),
                end_offset: Some(5),
                position: Some(0),
                kind: Some("<ALPHANUM>".to_owned()),
            }]
        );
        assert!(result.steps.is_empty());
        let token = |text: &str| {
            json!({"token": text, "start_offset": 0, "end_offset": 5,
            "type": "<ALPHANUM>", "position": 0, "bytes": "[..]"})
        };
        let chain = json!({"detail": {"custom_analyzer": true,
            "charfilters": [{"name": "html_strip", "filtered_text": ["Hello"]}],
            "tokenizer": {"name": "standard", "tokens": [token("Hello")]},
            "tokenfilters": [{"name": "lowercase", "tokens": [token("hello")]}]}});
        let result = analyzed(&chain).unwrap();
        let kinds: Vec<_> = result
            .steps
            .iter()
            .map(|s| (s.kind, s.name.as_str()))
            .collect();
        assert_eq!(
            kinds,
            [
                ("charFilter", "html_strip"),
                ("tokenizer", "standard"),
                ("tokenFilter", "lowercase")
            ]
        );
        assert_eq!(result.steps[0].filtered_text, ["Hello"]);
        assert_eq!(result.tokens[0].token, "hello");
        let builtin = json!({"detail": {"custom_analyzer": false,
            "analyzer": {"name": "standard", "tokens": [token("hi")]}}});
        let result = analyzed(&builtin).unwrap();
        assert_eq!(result.steps[0].kind, "analyzer");
        assert_eq!(result.tokens[0].token, "hi");
        assert!(analyzed(&json!({"other": 1})).is_err());
    }
}
