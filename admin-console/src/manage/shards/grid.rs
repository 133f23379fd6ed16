//! The shard grid: every copy of every shard, by index and node, from ONE routing-table read.
//!
//! The read is `_cluster/state/routing_table,nodes,blocks,<manager>_node` with a `filter_path`
//! that keeps only what the grid shows: node names and roles, each copy's state, node,
//! relocation target and unassigned information, and the index blocks (a closed index carries
//! block 4, "index closed"). No `metadata` metric: that part holds every mapping and setting and
//! is by far the largest part of a cluster state. `_cat/shards` would need a second call for
//! node names (and nodes without shards), and names a relocation target only inside a display
//! string; the routing table gives node ids, targets and unassigned reasons as fields.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;
use serde_json::Value;

use crate::cluster::client::ClusterApi;
use crate::cluster::dialect::Dialect;
use crate::cluster::tiers::{DataRoles, Tier, roles_of};
use crate::error::Error;

/// The metrics read for the grid (never `metadata`).
pub(crate) fn routing_path(dialect: Dialect) -> String {
    let manager = format!("{}_node", dialect.manager_word());
    let copy = "routing_table.indices.*.shards.*";
    format!(
        "_cluster/state/routing_table,nodes,blocks,{manager}?filter_path=cluster_name,{manager},\
         nodes.*.name,nodes.*.roles,{copy}.state,{copy}.primary,{copy}.node,{copy}.relocating_node,\
         {copy}.shard,{copy}.unassigned_info,blocks.indices"
    )
}

/// One routing-table read, parsed.
pub(crate) async fn fetch(cluster: &impl ClusterApi, dialect: Dialect) -> Result<ShardGrid, Error> {
    let state = cluster.get_json(&routing_path(dialect)).await?;
    ShardGrid::from_state(&state, dialect)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum ShardState {
    Started,
    Initializing,
    Relocating,
    Unassigned,
}

impl ShardState {
    fn parse(text: &str) -> Option<Self> {
        match text {
            "STARTED" => Some(Self::Started),
            "INITIALIZING" => Some(Self::Initializing),
            "RELOCATING" => Some(Self::Relocating),
            "UNASSIGNED" => Some(Self::Unassigned),
            _ => None,
        }
    }
}

/// Why a copy is unassigned, as the routing table's `unassigned_info` says.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Unassigned {
    /// The cluster's code, e.g. `NODE_LEFT`.
    pub reason: String,
    /// The same in words.
    pub reason_text: String,
    pub at: Option<String>,
    pub details: Option<String>,
    /// `no_attempt`, `decider_no`, `awaiting_info`, `no_valid_shard_copy`, `throttled`.
    pub allocation_status: Option<String>,
    pub failed_attempts: Option<u64>,
    pub delayed: bool,
}

/// One copy of a shard. Nodes are named by their position in [`ShardGrid::nodes`] and absent
/// fields are left out: at 2,000 indices × 30 nodes the grid holds tens of thousands of copies,
/// and repeating node ids and nulls would more than double the answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct GridCopy {
    pub shard: u32,
    pub primary: bool,
    pub state: ShardState,
    /// The position in `nodes` of the node holding it (the source while relocating); absent
    /// when unassigned.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub node: Option<u32>,
    /// While relocating: the position in `nodes` of the node it moves to.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub relocating_node: Option<u32>,
    /// When unassigned: why.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(test, ts(optional))]
    pub unassigned: Option<Unassigned>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct GridIndex {
    pub name: String,
    /// Carries the "index closed" block.
    pub closed: bool,
    /// A dot-prefixed name (system and internal indices).
    pub system: bool,
    pub shards: Vec<GridCopy>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct GridNode {
    pub id: String,
    pub name: String,
    /// Empty when the cluster does not list roles in its state (then every node counts as a
    /// data node).
    pub roles: Vec<String>,
    /// Its data tier roles, in the order hot, warm, cold, frozen, content.
    pub tiers: Vec<Tier>,
    /// Holds shards: the role `data` or any `data_*` (tier) role, or no roles listed.
    pub data_node: bool,
    /// The elected master / cluster manager.
    pub elected: bool,
}

/// `GET /api/clusters/:id/shards`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ShardGrid {
    pub cluster_name: String,
    /// Data nodes first; among them by first tier (hot, warm, cold, frozen, content, none);
    /// then by name.
    pub nodes: Vec<GridNode>,
    /// By name.
    pub indices: Vec<GridIndex>,
    pub unassigned: u64,
    pub relocating: u64,
    pub initializing: u64,
}

/// The block id of a closed index, in Elasticsearch and OpenSearch alike.
const INDEX_CLOSED_BLOCK: &str = "4";

impl ShardGrid {
    pub(crate) fn from_state(state: &Value, dialect: Dialect) -> Result<Self, Error> {
        if !state.is_object() {
            return Err(Error::upstream(
                "The _cluster/state answer is not a JSON object.".to_owned(),
            ));
        }
        let elected = state[format!("{}_node", dialect.manager_word())]
            .as_str()
            .or_else(|| state["master_node"].as_str());
        let mut nodes: Vec<GridNode> = state["nodes"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(id, node)| {
                let roles = roles_of(node);
                let data = DataRoles::of(roles.as_deref());
                GridNode {
                    data_node: data.data_node,
                    tiers: data.tiers,
                    name: node["name"].as_str().unwrap_or(id).to_owned(),
                    elected: elected == Some(id.as_str()),
                    id: id.clone(),
                    roles: roles.unwrap_or_default(),
                }
            })
            .collect();
        nodes.sort_by(|a, b| {
            let key = |node: &GridNode| {
                let tier = node.tiers.first().copied();
                (!node.data_node, tier.is_none(), tier)
            };
            key(a).cmp(&key(b)).then_with(|| a.name.cmp(&b.name))
        });
        let mut positions = Positions::of(nodes);

        let blocks = &state["blocks"]["indices"];
        let closed = |name: &str| {
            blocks[name].as_object().is_some_and(|blocks| {
                blocks.iter().any(|(id, block)| {
                    id == INDEX_CLOSED_BLOCK || block["description"] == "index closed"
                })
            })
        };
        let mut indices: BTreeMap<String, GridIndex> = BTreeMap::new();
        for (name, index) in state["routing_table"]["indices"]
            .as_object()
            .into_iter()
            .flatten()
        {
            let mut shards = Vec::new();
            for (number, copies) in index["shards"].as_object().into_iter().flatten() {
                for copy in copies.as_array().into_iter().flatten() {
                    shards.push(copy_of(name, number, copy, &mut positions)?);
                }
            }
            shards.sort_by_key(|copy| (copy.shard, !copy.primary));
            indices.insert(
                name.clone(),
                GridIndex {
                    name: name.clone(),
                    closed: closed(name),
                    system: name.starts_with('.'),
                    shards,
                },
            );
        }
        // An index closed without a routing table (before replicated closed indices) has
        // blocks only.
        for name in blocks
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, _)| name)
        {
            if closed(name) && !indices.contains_key(name) {
                indices.insert(
                    name.clone(),
                    GridIndex {
                        name: name.clone(),
                        closed: true,
                        system: name.starts_with('.'),
                        shards: Vec::new(),
                    },
                );
            }
        }
        let copies = || indices.values().flat_map(|index| &index.shards);
        let count = |state: ShardState| copies().filter(|copy| copy.state == state).count() as u64;
        Ok(Self {
            cluster_name: state["cluster_name"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
            unassigned: count(ShardState::Unassigned),
            relocating: count(ShardState::Relocating),
            initializing: count(ShardState::Initializing),
            nodes: positions.nodes,
            indices: indices.into_values().collect(),
        })
    }
}

/// Node ids to positions in the node list; a node the routing names but the node list lacks
/// (it left between the two parts of the state) is added by its id.
struct Positions {
    nodes: Vec<GridNode>,
    by_id: HashMap<String, u32>,
}

impl Positions {
    fn of(nodes: Vec<GridNode>) -> Self {
        let by_id = nodes
            .iter()
            .enumerate()
            .map(|(position, node)| (node.id.clone(), position as u32))
            .collect();
        Self { nodes, by_id }
    }

    fn of_id(&mut self, id: &str) -> u32 {
        if let Some(position) = self.by_id.get(id) {
            return *position;
        }
        let position = self.nodes.len() as u32;
        self.nodes.push(GridNode {
            id: id.to_owned(),
            name: id.to_owned(),
            roles: Vec::new(),
            tiers: Vec::new(),
            data_node: true,
            elected: false,
        });
        self.by_id.insert(id.to_owned(), position);
        position
    }
}

fn copy_of(
    index: &str,
    number: &str,
    copy: &Value,
    positions: &mut Positions,
) -> Result<GridCopy, Error> {
    let bad = |what: &str| {
        Error::upstream(format!(
            "The routing table of index {index}, shard {number}, has {what}."
        ))
    };
    let state = copy["state"]
        .as_str()
        .and_then(ShardState::parse)
        .ok_or_else(|| bad("a copy without a known state"))?;
    let shard = copy["shard"]
        .as_u64()
        .or_else(|| number.parse().ok())
        .and_then(|shard| u32::try_from(shard).ok())
        .ok_or_else(|| bad("a copy without a shard number"))?;
    let text = |value: &Value| value.as_str().map(str::to_owned);
    let info = &copy["unassigned_info"];
    let unassigned = info["reason"].as_str().map(|reason| Unassigned {
        reason: reason.to_owned(),
        reason_text: super::words::unassigned_reason(reason),
        at: text(&info["at"]),
        details: text(&info["details"]),
        allocation_status: text(&info["allocation_status"]),
        failed_attempts: info["failed_attempts"].as_u64(),
        delayed: info["delayed"].as_bool().unwrap_or(false),
    });
    Ok(GridCopy {
        shard,
        primary: copy["primary"].as_bool().unwrap_or(false),
        state,
        node: copy["node"].as_str().map(|id| positions.of_id(id)),
        relocating_node: copy["relocating_node"]
            .as_str()
            .map(|id| positions.of_id(id)),
        // A started copy may keep the info of its last unassignment: only show it when
        // unassigned.
        unassigned: unassigned.filter(|_| state == ShardState::Unassigned),
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cluster::dialect::Distribution;

    const ES8: Dialect = Dialect {
        distribution: Distribution::Elasticsearch,
        major: 8,
    };
    const OS2: Dialect = Dialect {
        distribution: Distribution::OpenSearch,
        major: 2,
    };

    /// The documented shape of `_cluster/state/routing_table,nodes,blocks,master_node` (ES 8),
    /// filtered as [`routing_path`] asks: a relocating primary, a started replica, a replica
    /// unassigned after failed allocations, a closed index.
    fn es8_state() -> Value {
        json!({
            "cluster_name": "prod",
            "master_node": "n1",
            "nodes": {
                "n1": {"name": "es-1", "roles": ["data_content", "data_hot", "ingest", "master"]},
                "n2": {"name": "es-2", "roles": ["data_content", "data_hot", "ingest", "master"]},
                "m3": {"name": "dedicated", "roles": ["master"]}
            },
            "routing_table": {"indices": {
                "logs": {"shards": {
                    "0": [
                        {"state": "RELOCATING", "primary": true, "node": "n1", "relocating_node": "n2", "shard": 0},
                        {"state": "STARTED", "primary": false, "node": "n2", "relocating_node": null, "shard": 0}
                    ],
                    "1": [
                        {"state": "STARTED", "primary": true, "node": "n2", "relocating_node": null, "shard": 1},
                        {"state": "UNASSIGNED", "primary": false, "node": null, "relocating_node": null, "shard": 1,
                         "unassigned_info": {"reason": "ALLOCATION_FAILED", "at": "2026-11-24T04:00:00.000Z",
                            "failed_attempts": 5, "delayed": false,
                            "details": "failed shard on node [n1]: failed recovery",
                            "allocation_status": "no_attempt"}}
                    ]
                }},
                ".kibana_1": {"shards": {"0": [
                    {"state": "STARTED", "primary": true, "node": "n1", "relocating_node": null, "shard": 0}
                ]}},
                "old": {"shards": {"0": [
                    {"state": "STARTED", "primary": true, "node": "n2", "relocating_node": null, "shard": 0}
                ]}}
            }},
            "blocks": {"indices": {
                "old": {"4": {"description": "index closed", "retryable": false, "levels": ["read", "write"]}},
                "archived": {"4": {"description": "index closed", "retryable": false, "levels": ["read", "write"]}},
                "logs": {"8": {"description": "index write (api)", "retryable": false, "levels": ["write"]}}
            }}
        })
    }

    #[test]
    fn the_read_names_the_manager_in_the_dialect_and_never_asks_for_metadata() {
        let es = routing_path(ES8);
        assert!(
            es.starts_with("_cluster/state/routing_table,nodes,blocks,master_node?"),
            "{es}"
        );
        let os = routing_path(OS2);
        assert!(
            os.starts_with("_cluster/state/routing_table,nodes,blocks,cluster_manager_node?"),
            "{os}"
        );
        assert!(os.contains("filter_path=cluster_name,cluster_manager_node,"));
        for path in [es, os] {
            assert!(!path.contains("metadata"), "{path}");
            assert!(path.contains("routing_table.indices.*.shards.*.relocating_node"));
            assert!(path.contains("routing_table.indices.*.shards.*.unassigned_info"));
        }
    }

    #[test]
    fn copies_are_grouped_by_index_with_states_targets_and_reasons() {
        let grid = ShardGrid::from_state(&es8_state(), ES8).unwrap();
        assert_eq!(grid.cluster_name, "prod");
        let names: Vec<&str> = grid.indices.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, [".kibana_1", "archived", "logs", "old"]);
        let logs = &grid.indices[2];
        assert!(!logs.closed && !logs.system);
        assert_eq!(logs.shards.len(), 4);
        assert_eq!(logs.shards[0].state, ShardState::Relocating);
        let id = |position: Option<u32>| position.map(|p| grid.nodes[p as usize].id.as_str());
        assert_eq!(id(logs.shards[0].node), Some("n1"));
        assert_eq!(id(logs.shards[0].relocating_node), Some("n2"));
        assert_eq!(logs.shards[3].node, None);
        let unassigned = logs.shards[3].unassigned.as_ref().unwrap();
        assert_eq!(unassigned.reason, "ALLOCATION_FAILED");
        assert_eq!(unassigned.failed_attempts, Some(5));
        assert!(unassigned.reason_text.contains("failed"));
        assert!(grid.indices[0].system);
        assert!(grid.indices[3].closed, "block 4 marks a closed index");
        assert!(
            grid.indices[1].closed && grid.indices[1].shards.is_empty(),
            "a closed index without routing is listed"
        );
        assert_eq!(
            (grid.unassigned, grid.relocating, grid.initializing),
            (1, 1, 0)
        );
    }

    #[test]
    fn data_nodes_come_first_and_the_elected_manager_is_marked_in_either_dialect() {
        let grid = ShardGrid::from_state(&es8_state(), ES8).unwrap();
        let nodes: Vec<(&str, bool, bool)> = grid
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.data_node, n.elected))
            .collect();
        assert_eq!(
            nodes,
            [
                ("es-1", true, true),
                ("es-2", true, false),
                ("dedicated", false, false)
            ]
        );
        let mut os = es8_state();
        let object = os.as_object_mut().unwrap();
        object.remove("master_node");
        object.insert("cluster_manager_node".into(), json!("n2"));
        let grid = ShardGrid::from_state(&os, OS2).unwrap();
        assert!(grid.nodes.iter().any(|n| n.id == "n2" && n.elected));
    }

    #[test]
    fn copies_name_nodes_by_position_and_leave_absent_fields_out() {
        let grid = ShardGrid::from_state(&es8_state(), ES8).unwrap();
        let answer = serde_json::to_value(&grid).unwrap();
        let logs = &answer["indices"][2]["shards"];
        assert_eq!(
            logs[1],
            json!({"shard": 0, "primary": false, "state": "started", "node": 1})
        );
        assert_eq!(logs[0]["relocatingNode"], 1);
        assert!(logs[3].get("node").is_none() && logs[3]["unassigned"].is_object());
        // A node the routing names but the node list lacks is added by its id.
        let mut state = es8_state();
        state["routing_table"]["indices"]["old"]["shards"]["0"][0]["node"] = json!("gone");
        let grid = ShardGrid::from_state(&state, ES8).unwrap();
        assert_eq!(grid.nodes[3].id, "gone");
        assert_eq!(grid.indices[3].shards[0].node, Some(3));
    }

    /// A tiered Elasticsearch cluster: one node per tier, each with only tier roles, and an
    /// index whose `index.routing.allocation.include._tier_preference` is `data_warm`.
    fn tiered_state() -> Value {
        json!({
            "cluster_name": "tiered",
            "master_node": "h",
            "nodes": {
                "c": {"name": "es-cold", "roles": ["data_cold", "master"]},
                "w": {"name": "es-warm", "roles": ["data_warm", "master"]},
                "h": {"name": "es-hot", "roles": ["data_content", "data_hot", "master"]},
                "f": {"name": "es-frozen", "roles": ["data_frozen"]},
                "d": {"name": "es-any", "roles": ["data"]},
                "v": {"name": "voter", "roles": ["master"]},
                "k": {"name": "coordinating", "roles": []}
            },
            "routing_table": {"indices": {
                "logs-warm": {"shards": {"0": [
                    {"state": "STARTED", "primary": true, "node": "w", "relocating_node": null, "shard": 0}
                ]}}
            }}
        })
    }

    #[test]
    fn a_node_with_only_tier_roles_is_a_data_row_grouped_by_its_first_tier() {
        let grid = ShardGrid::from_state(&tiered_state(), ES8).unwrap();
        let rows: Vec<(&str, bool, &[Tier])> = grid
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.data_node, n.tiers.as_slice()))
            .collect();
        assert_eq!(
            rows,
            [
                ("es-hot", true, &[Tier::Hot, Tier::Content][..]),
                ("es-warm", true, &[Tier::Warm][..]),
                ("es-cold", true, &[Tier::Cold][..]),
                ("es-frozen", true, &[Tier::Frozen][..]),
                ("es-any", true, &[][..]),
                ("coordinating", false, &[][..]),
                ("voter", false, &[][..]),
            ]
        );
        // The index that prefers the warm tier lands in the warm node's row.
        let copy = &grid.indices[0].shards[0];
        assert_eq!(grid.nodes[copy.node.unwrap() as usize].name, "es-warm");
        let answer = serde_json::to_value(&grid).unwrap();
        assert_eq!(answer["nodes"][0]["tiers"], json!(["hot", "content"]));
        assert_eq!(answer["nodes"][1]["dataNode"], true);
    }

    #[test]
    fn a_state_without_roles_counts_every_node_as_a_data_node() {
        let grid = ShardGrid::from_state(
            &json!({"nodes": {"a": {"name": "osmem"}}, "routing_table": {"indices": {}}}),
            OS2,
        )
        .unwrap();
        assert!(grid.nodes[0].data_node);
        assert!(grid.indices.is_empty());
    }

    #[test]
    fn an_answer_that_is_not_a_routing_table_is_an_upstream_error() {
        assert!(ShardGrid::from_state(&json!([1]), ES8).is_err());
        let error = ShardGrid::from_state(
            &json!({"routing_table": {"indices": {"x": {"shards": {"0": [{"state": "WEIRD"}]}}}}}),
            ES8,
        )
        .unwrap_err();
        assert!(error.to_string().contains("index x, shard 0"), "{error}");
    }
}
