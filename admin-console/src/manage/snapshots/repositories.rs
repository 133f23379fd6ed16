//! Snapshot repositories: the list (`GET _snapshot`), registering a shared file system (`fs`) or
//! read-only URL (`url`) repository (`PUT _snapshot/<repo>`), verifying one
//! (`POST _snapshot/<repo>/_verify`) and unregistering one (`DELETE _snapshot/<repo>`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::error::Error;

/// One registered repository as `GET _snapshot` describes it.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Repository {
    pub name: String,
    /// `fs`, `url`, or another type a plugin adds (`s3`, `gcs`, `azure`…).
    #[serde(rename = "type")]
    pub kind: String,
    /// Its settings as the cluster keeps them (`location`, `url`, `compress`…).
    #[cfg_attr(test, ts(type = "Record<string, unknown>"))]
    pub settings: BTreeMap<String, Value>,
}

/// `GET /repositories`.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RepositoryList {
    pub repositories: Vec<Repository>,
}

/// The answer of `GET _snapshot`: `{"<name>": {"type": "fs", "settings": {...}}, ...}`, sorted
/// by name.
pub(crate) fn repositories_of(answer: &Value) -> Result<RepositoryList, Error> {
    let Some(map) = answer.as_object() else {
        return Err(Error::upstream(
            "The cluster's repository list is not a JSON object.".to_owned(),
        ));
    };
    let mut repositories: Vec<Repository> = map
        .iter()
        .map(|(name, repository)| Repository {
            name: name.clone(),
            kind: repository["type"].as_str().unwrap_or("unknown").to_owned(),
            settings: repository["settings"]
                .as_object()
                .map(|settings| {
                    settings
                        .iter()
                        .map(|(key, value)| (key.clone(), value.clone()))
                        .collect()
                })
                .unwrap_or_default(),
        })
        .collect();
    repositories.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(RepositoryList { repositories })
}

/// The repository types this console registers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum RepositoryType {
    /// A shared file system: `settings.location` must be listed in every node's `path.repo`.
    Fs,
    /// A read-only repository at a URL (`settings.url`, within `repositories.url.allowed_urls`).
    Url,
}

/// `PUT /repositories/{repo}`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RepositoryRegisterBody {
    #[serde(rename = "type")]
    pub kind: RepositoryType,
    #[cfg_attr(test, ts(type = "Record<string, string | number | boolean>"))]
    pub settings: Map<String, Value>,
}

/// The schemes a `url` repository reads (the documented list).
const URL_SCHEMES: &[&str] = &["file", "ftp", "http", "https", "jar"];

impl RepositoryRegisterBody {
    /// The body of `PUT _snapshot/<repo>`, after checking the settings: `location` (fs) or
    /// `url` (url) present and a non-empty string; every setting a string, number or boolean.
    pub(crate) fn cluster_body(&self) -> Result<Value, Error> {
        for (key, value) in &self.settings {
            if key.is_empty() || key.len() > 200 {
                return Err(Error::BadRequest(
                    "A repository setting's name must have 1 to 200 characters.".to_owned(),
                ));
            }
            if !(value.is_string() || value.is_number() || value.is_boolean()) {
                return Err(Error::BadRequest(format!(
                    "The repository setting \"{key}\" must be a string, a number or a boolean."
                )));
            }
        }
        let text = |key: &str| -> Result<&str, Error> {
            match self
                .settings
                .get(key)
                .and_then(Value::as_str)
                .map(str::trim)
            {
                Some(text) if !text.is_empty() => Ok(text),
                _ => Err(Error::BadRequest(format!(
                    "A {} repository needs settings.{key} (a non-empty string).",
                    self.kind_word()
                ))),
            }
        };
        match self.kind {
            RepositoryType::Fs => {
                text("location")?;
                if self.settings.contains_key("url") {
                    return Err(Error::BadRequest(
                        "An fs repository takes settings.location, not settings.url.".to_owned(),
                    ));
                }
            }
            RepositoryType::Url => {
                let url = text("url")?;
                let parsed = reqwest::Url::parse(url).map_err(|error| {
                    Error::BadRequest(format!("settings.url \"{url}\" is not a URL: {error}."))
                })?;
                if !URL_SCHEMES.contains(&parsed.scheme()) {
                    return Err(Error::BadRequest(format!(
                        "settings.url must use one of the schemes {}; \"{}\" is not one.",
                        URL_SCHEMES.join(", "),
                        parsed.scheme()
                    )));
                }
                if self.settings.contains_key("location") {
                    return Err(Error::BadRequest(
                        "A url repository takes settings.url, not settings.location.".to_owned(),
                    ));
                }
            }
        }
        Ok(json!({"type": self.kind_word(), "settings": self.settings}))
    }

    fn kind_word(&self) -> &'static str {
        match self.kind {
            RepositoryType::Fs => "fs",
            RepositoryType::Url => "url",
        }
    }
}

/// A node that verified a repository.
#[derive(Debug, Serialize, PartialEq)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct VerifiedNode {
    pub id: String,
    pub name: String,
}

/// `POST /repositories/{repo}/verify`: the nodes that could use the repository, or, when the
/// cluster's verification failed, its reason.
#[derive(Debug, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct RepositoryVerification {
    pub verified: bool,
    pub nodes: Vec<VerifiedNode>,
    pub error: Option<String>,
}

impl RepositoryVerification {
    /// The answer of `POST _snapshot/<repo>/_verify`: `{"nodes": {"<id>": {"name": "..."}}}`.
    pub(crate) fn of(answer: &Value) -> Self {
        let mut nodes: Vec<VerifiedNode> = answer["nodes"]
            .as_object()
            .map(|nodes| {
                nodes
                    .iter()
                    .map(|(id, node)| VerifiedNode {
                        id: id.clone(),
                        name: node["name"].as_str().unwrap_or(id).to_owned(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        nodes.sort_by(|a, b| a.name.cmp(&b.name));
        Self {
            verified: true,
            nodes,
            error: None,
        }
    }

    /// The cluster answered that verification failed (a node cannot write to the location).
    pub(crate) fn failed(message: String) -> Self {
        Self {
            verified: false,
            nodes: Vec::new(),
            error: Some(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_list_becomes_rows_sorted_by_name() {
        let answer = json!({
            "nightly": {"type": "fs", "settings": {"location": "/mnt/backups", "compress": "true"}},
            "archive": {"type": "url", "settings": {"url": "https://example.com/repo"}},
            "odd": {}
        });
        let list = repositories_of(&answer).unwrap();
        let names: Vec<&str> = list.repositories.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(names, ["archive", "nightly", "odd"]);
        assert_eq!(list.repositories[1].kind, "fs");
        assert_eq!(list.repositories[1].settings["location"], "/mnt/backups");
        assert_eq!(list.repositories[2].kind, "unknown");
        assert!(repositories_of(&json!([])).is_err());
        assert!(repositories_of(&json!({})).unwrap().repositories.is_empty());
    }

    fn body(value: Value) -> Result<RepositoryRegisterBody, serde_json::Error> {
        serde_json::from_value(value)
    }

    fn refusal(value: Value) -> String {
        match body(value).unwrap().cluster_body() {
            Err(Error::BadRequest(message)) => message,
            other => panic!("expected a bad request, got {other:?}"),
        }
    }

    #[test]
    fn registering_checks_the_settings_of_each_type() {
        let fs = body(json!({"type": "fs", "settings": {"location": "/mnt/b", "compress": true}}))
            .unwrap();
        assert_eq!(
            fs.cluster_body().unwrap(),
            json!({"type": "fs", "settings": {"location": "/mnt/b", "compress": true}})
        );
        let url =
            body(json!({"type": "url", "settings": {"url": "https://example.com/r"}})).unwrap();
        assert_eq!(url.cluster_body().unwrap()["type"], "url");
        for (value, says) in [
            (
                json!({"type": "fs", "settings": {}}),
                "needs settings.location",
            ),
            (
                json!({"type": "fs", "settings": {"location": "  "}}),
                "needs settings.location",
            ),
            (
                json!({"type": "fs", "settings": {"location": "/a", "url": "http://x"}}),
                "not settings.url",
            ),
            (
                json!({"type": "url", "settings": {"url": "not a url"}}),
                "is not a URL",
            ),
            (
                json!({"type": "url", "settings": {"url": "gopher://x/"}}),
                "must use one of the schemes",
            ),
            (
                json!({"type": "fs", "settings": {"location": "/a", "x": {"y": 1}}}),
                "must be a string, a number or a boolean",
            ),
        ] {
            let message = refusal(value.clone());
            assert!(message.contains(says), "{value}: {message}");
        }
        assert!(body(json!({"type": "s3", "settings": {}})).is_err());
        assert!(body(json!({"type": "fs", "settings": {}, "verify": false})).is_err());
    }

    #[test]
    fn verification_lists_the_nodes_by_name() {
        let answer = json!({"nodes": {
            "b7x": {"name": "node-2"},
            "a1y": {"name": "node-1"}
        }});
        let verification = RepositoryVerification::of(&answer);
        assert!(verification.verified);
        assert_eq!(
            verification.nodes,
            [
                VerifiedNode {
                    id: "a1y".into(),
                    name: "node-1".into()
                },
                VerifiedNode {
                    id: "b7x".into(),
                    name: "node-2".into()
                }
            ]
        );
    }
}
