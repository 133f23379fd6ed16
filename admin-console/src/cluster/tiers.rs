//! Data tiers: which roles make a node hold shards. Elasticsearch 7.10+ splits the `data` role
//! into tier roles (`data_hot`, `data_warm`, `data_cold`, `data_frozen`, `data_content`), and a
//! node with only tier roles holds shards like a `data` node: a check for the role `data` alone
//! hides it (Cerebro's failure on Elasticsearch 8). OpenSearch has no tier roles. Every place
//! that asks "is this a data node" (the node list, the shard grid's rows and move targets, a
//! node's page) asks [`DataRoles::of`].

use serde::Serialize;

/// A data tier, in the order hot, warm, cold, frozen, content (the order lists and groups use).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "DataTier"))]
pub enum Tier {
    Hot,
    Warm,
    Cold,
    Frozen,
    Content,
}

impl Tier {
    /// The tier a role names (`data_hot` → hot); `None` for every other role.
    pub(crate) fn of_role(role: &str) -> Option<Self> {
        match role {
            "data_hot" => Some(Self::Hot),
            "data_warm" => Some(Self::Warm),
            "data_cold" => Some(Self::Cold),
            "data_frozen" => Some(Self::Frozen),
            "data_content" => Some(Self::Content),
            _ => None,
        }
    }
}

/// What a node's roles say about the data it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DataRoles {
    /// Its tier roles, in [`Tier`] order, each once.
    pub tiers: Vec<Tier>,
    /// Holds shards: the role `data` or any `data_*` role.
    pub data_node: bool,
}

impl DataRoles {
    /// From a node's roles; `None` when the cluster does not list them (then the node counts as
    /// a data node, as every node was before roles existed).
    pub(crate) fn of<S: AsRef<str>>(roles: Option<&[S]>) -> Self {
        let Some(roles) = roles else {
            return Self {
                tiers: Vec::new(),
                data_node: true,
            };
        };
        let mut tiers: Vec<Tier> = roles
            .iter()
            .filter_map(|role| Tier::of_role(role.as_ref()))
            .collect();
        tiers.sort_unstable();
        tiers.dedup();
        let data_node = roles.iter().any(|role| {
            let role = role.as_ref();
            role == "data" || role.starts_with("data_")
        });
        Self { tiers, data_node }
    }
}

/// The roles listed in a node's JSON (`roles: [..]`), `None` without that field; roles that are
/// not strings are left out.
pub(crate) fn roles_of(node: &serde_json::Value) -> Option<Vec<String>> {
    node["roles"].as_array().map(|roles| {
        roles
            .iter()
            .filter_map(|role| role.as_str().map(str::to_owned))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_node_with_only_a_tier_role_is_a_data_node() {
        let hot = DataRoles::of(Some(&["data_hot"]));
        assert_eq!(hot.tiers, [Tier::Hot]);
        assert!(hot.data_node);
        let frozen = DataRoles::of(Some(&["master", "data_frozen"]));
        assert_eq!(frozen.tiers, [Tier::Frozen]);
        assert!(frozen.data_node);
    }

    #[test]
    fn tiers_come_in_hot_warm_cold_frozen_content_order_each_once() {
        let roles = [
            "data_content",
            "ingest",
            "data_cold",
            "data_hot",
            "data_warm",
            "data_frozen",
            "data_hot",
        ];
        assert_eq!(
            DataRoles::of(Some(&roles)).tiers,
            [
                Tier::Hot,
                Tier::Warm,
                Tier::Cold,
                Tier::Frozen,
                Tier::Content
            ]
        );
        assert_eq!(
            serde_json::to_value(Tier::Content).unwrap(),
            json!("content")
        );
    }

    #[test]
    fn the_plain_data_role_is_a_data_node_without_tiers_and_others_are_not() {
        let opensearch = DataRoles::of(Some(&["cluster_manager", "data", "ingest"]));
        assert!(opensearch.data_node && opensearch.tiers.is_empty());
        for roles in [
            &["master"][..],
            &["cluster_manager", "ingest", "search"][..],
            &["ml", "database"][..],
            &[][..],
        ] {
            let node = DataRoles::of(Some(roles));
            assert!(!node.data_node, "{roles:?}");
            assert!(node.tiers.is_empty());
        }
    }

    #[test]
    fn roles_not_listed_count_as_a_data_node_and_non_strings_are_left_out() {
        assert!(DataRoles::of::<&str>(None).data_node);
        assert_eq!(roles_of(&json!({"name": "a"})), None);
        assert_eq!(
            roles_of(&json!({"roles": ["data_warm", 3, null]})),
            Some(vec!["data_warm".to_owned()])
        );
    }
}
