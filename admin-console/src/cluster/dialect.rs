//! Which API dialect a cluster speaks: Elasticsearch 7/8 or OpenSearch 1/2/3. Read once from
//! `GET /` and kept (by the cluster registry); the management calls ask it for
//! the words and paths that differ between the two.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Distribution {
    Elasticsearch,
    OpenSearch,
}

/// The software and its major version, e.g. OpenSearch 2 or Elasticsearch 8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Dialect {
    pub distribution: Distribution,
    pub major: u32,
}

impl Dialect {
    /// From the root document (`GET /`): OpenSearch says `version.distribution: "opensearch"`;
    /// anything else is Elasticsearch. A version that cannot be read counts as the newest
    /// major of its distribution.
    pub fn from_root(root: &Value) -> Self {
        let distribution = match root["version"]["distribution"].as_str() {
            Some("opensearch") => Distribution::OpenSearch,
            _ => Distribution::Elasticsearch,
        };
        let major = root["version"]["number"]
            .as_str()
            .and_then(|number| number.split('.').next())
            .and_then(|major| major.parse().ok())
            .unwrap_or(match distribution {
                Distribution::OpenSearch => 3,
                Distribution::Elasticsearch => 8,
            });
        Self {
            distribution,
            major,
        }
    }

    pub fn is_opensearch(self) -> bool {
        self.distribution == Distribution::OpenSearch
    }

    /// The name of the elected-manager role and `_cat` column: `cluster_manager` on OpenSearch
    /// 2 and later, `master` elsewhere.
    pub fn manager_word(self) -> &'static str {
        if self.is_opensearch() && self.major >= 2 {
            "cluster_manager"
        } else {
            "master"
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_root_document_names_the_dialect() {
        for (root, distribution, major, manager) in [
            (
                json!({"version": {"distribution": "opensearch", "number": "2.19.1"}}),
                Distribution::OpenSearch,
                2,
                "cluster_manager",
            ),
            (
                json!({"version": {"distribution": "opensearch", "number": "1.3.0"}}),
                Distribution::OpenSearch,
                1,
                "master",
            ),
            (
                json!({"version": {"number": "8.15.0", "build_flavor": "default"}}),
                Distribution::Elasticsearch,
                8,
                "master",
            ),
            (
                json!({"version": {"number": "7.17.9"}}),
                Distribution::Elasticsearch,
                7,
                "master",
            ),
            (json!({}), Distribution::Elasticsearch, 8, "master"),
        ] {
            let dialect = Dialect::from_root(&root);
            assert_eq!(dialect.distribution, distribution, "{root}");
            assert_eq!(dialect.major, major, "{root}");
            assert_eq!(dialect.manager_word(), manager, "{root}");
        }
    }
}
