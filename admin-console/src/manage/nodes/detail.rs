//! One node's page: `_nodes/<id>/stats/jvm,os,fs,thread_pool,breaker` (JVM heap and GC, OS CPU
//! and memory, file systems per path, thread pools, circuit breakers) read into plain rows, and
//! the node's shards from the routing table the shard grid reads.

use serde::Serialize;
use serde_json::Value;

use crate::cluster::dialect::Dialect;
use crate::cluster::tiers::{DataRoles, Tier, roles_of};
use crate::error::Error;
use crate::manage::names::NodeId;
use crate::manage::shards::grid::{ShardGrid, ShardState};
use crate::numbers::{percent_of, round2};

/// The stats call for `id`.
pub(crate) fn stats_path(id: &NodeId) -> String {
    format!(
        "_nodes/{}/stats/jvm,os,fs,thread_pool,breaker",
        id.segment()
    )
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct GcCollector {
    pub name: String,
    pub count: u64,
    pub time_ms: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct JvmStats {
    pub heap_used_bytes: u64,
    pub heap_max_bytes: u64,
    pub heap_used_percent: Option<f64>,
    pub non_heap_used_bytes: Option<u64>,
    pub threads: Option<u64>,
    pub uptime_ms: Option<u64>,
    pub gc: Vec<GcCollector>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct OsStats {
    pub cpu_percent: Option<f64>,
    /// 1, 5 and 15 minutes (absent on Windows).
    pub load_average: Vec<f64>,
    pub mem_total_bytes: Option<u64>,
    pub mem_used_bytes: Option<u64>,
    pub mem_used_percent: Option<f64>,
    pub swap_used_bytes: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct FileSystem {
    pub path: String,
    pub mount: Option<String>,
    pub kind: Option<String>,
    pub total_bytes: u64,
    pub available_bytes: u64,
    pub used_percent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ThreadPool {
    pub name: String,
    pub threads: u64,
    pub active: u64,
    pub queue: u64,
    pub rejected: u64,
    pub largest: u64,
    pub completed: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Breaker {
    pub name: String,
    pub limit_bytes: u64,
    pub estimated_bytes: u64,
    pub used_percent: Option<f64>,
    pub overhead: Option<f64>,
    pub tripped: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NodeShard {
    pub index: String,
    pub shard: u32,
    pub primary: bool,
    pub state: ShardState,
    /// Relocating away: the target node id.
    pub relocating_to: Option<String>,
    /// Being filled by a relocation: the source node id.
    pub relocating_from: Option<String>,
}

/// `GET /api/clusters/:id/nodes/:nodeId`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NodeDetail {
    pub id: String,
    pub name: String,
    pub host: Option<String>,
    pub ip: Option<String>,
    pub transport_address: Option<String>,
    pub roles: Vec<String>,
    /// Its data tier roles, in the order hot, warm, cold, frozen, content.
    pub tiers: Vec<Tier>,
    /// Holds shards: the role `data` or any `data_*` (tier) role.
    pub data_node: bool,
    /// The manager role's name in this cluster's dialect (`master` or `cluster_manager`).
    pub manager_role: String,
    pub manager_eligible: bool,
    pub jvm: Option<JvmStats>,
    pub os: Option<OsStats>,
    pub file_systems: Vec<FileSystem>,
    /// Pools with rejections first, then by name.
    pub thread_pools: Vec<ThreadPool>,
    pub breakers: Vec<Breaker>,
    pub shards: Vec<NodeShard>,
}

fn u64_at(value: &Value, pointer: &str) -> Option<u64> {
    value.pointer(pointer).and_then(Value::as_u64)
}

fn f64_at(value: &Value, pointer: &str) -> Option<f64> {
    value.pointer(pointer).and_then(Value::as_f64)
}

fn jvm_of(jvm: &Value) -> Option<JvmStats> {
    let heap_used = u64_at(jvm, "/mem/heap_used_in_bytes")?;
    let heap_max = u64_at(jvm, "/mem/heap_max_in_bytes").unwrap_or(0);
    let mut gc: Vec<GcCollector> = jvm
        .pointer("/gc/collectors")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
        .map(|(name, collector)| GcCollector {
            name: name.clone(),
            count: u64_at(collector, "/collection_count").unwrap_or(0),
            time_ms: u64_at(collector, "/collection_time_in_millis").unwrap_or(0),
        })
        .collect();
    gc.sort_by(|a, b| a.name.cmp(&b.name));
    Some(JvmStats {
        heap_used_bytes: heap_used,
        heap_max_bytes: heap_max,
        heap_used_percent: f64_at(jvm, "/mem/heap_used_percent")
            .or_else(|| percent_of(&heap_used.into(), &heap_max.into())),
        non_heap_used_bytes: u64_at(jvm, "/mem/non_heap_used_in_bytes"),
        threads: u64_at(jvm, "/threads/count"),
        uptime_ms: u64_at(jvm, "/uptime_in_millis"),
        gc,
    })
}

fn os_of(os: &Value) -> Option<OsStats> {
    os.as_object()?;
    let load = &os["cpu"]["load_average"];
    Some(OsStats {
        cpu_percent: f64_at(os, "/cpu/percent"),
        load_average: ["1m", "5m", "15m"]
            .iter()
            .filter_map(|key| load[key].as_f64())
            .collect(),
        mem_total_bytes: u64_at(os, "/mem/total_in_bytes"),
        mem_used_bytes: u64_at(os, "/mem/used_in_bytes"),
        mem_used_percent: f64_at(os, "/mem/used_percent"),
        swap_used_bytes: u64_at(os, "/swap/used_in_bytes"),
    })
}

fn file_systems_of(fs: &Value) -> Vec<FileSystem> {
    fs["data"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|data| {
            let total = u64_at(data, "/total_in_bytes").unwrap_or(0);
            let available = u64_at(data, "/available_in_bytes").unwrap_or(0);
            FileSystem {
                path: data["path"].as_str().unwrap_or("?").to_owned(),
                mount: data["mount"].as_str().map(str::to_owned),
                kind: data["type"].as_str().map(str::to_owned),
                total_bytes: total,
                available_bytes: available,
                used_percent: (total > 0)
                    .then(|| round2(100.0 * (total - available.min(total)) as f64 / total as f64)),
            }
        })
        .collect()
}

fn thread_pools_of(pools: &Value) -> Vec<ThreadPool> {
    let mut pools: Vec<ThreadPool> = pools
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, pool)| {
            let n = |key: &str| pool[key].as_u64().unwrap_or(0);
            ThreadPool {
                name: name.clone(),
                threads: n("threads"),
                active: n("active"),
                queue: n("queue"),
                rejected: n("rejected"),
                largest: n("largest"),
                completed: n("completed"),
            }
        })
        .collect();
    pools.sort_by(|a, b| {
        (b.rejected > 0)
            .cmp(&(a.rejected > 0))
            .then_with(|| a.name.cmp(&b.name))
    });
    pools
}

fn breakers_of(breakers: &Value) -> Vec<Breaker> {
    let mut list: Vec<Breaker> = breakers
        .as_object()
        .into_iter()
        .flatten()
        .map(|(name, breaker)| {
            let limit = breaker["limit_size_in_bytes"].as_u64().unwrap_or(0);
            let estimated = breaker["estimated_size_in_bytes"].as_u64().unwrap_or(0);
            Breaker {
                name: name.clone(),
                limit_bytes: limit,
                estimated_bytes: estimated,
                used_percent: percent_of(&estimated.into(), &limit.into()),
                overhead: breaker["overhead"].as_f64(),
                tripped: breaker["tripped"].as_u64().unwrap_or(0),
            }
        })
        .collect();
    list.sort_by(|a, b| a.name.cmp(&b.name));
    list
}

/// The shards on `id`: the copies it holds and the ones relocating onto it.
pub(crate) fn shards_of(grid: &ShardGrid, id: &str) -> Vec<NodeShard> {
    let Some(position) = grid.nodes.iter().position(|node| node.id == id) else {
        return Vec::new();
    };
    let position = Some(position as u32);
    let id_of = |position: Option<u32>| {
        position
            .and_then(|p| grid.nodes.get(p as usize))
            .map(|node| node.id.clone())
    };
    let mut shards = Vec::new();
    for index in &grid.indices {
        for copy in &index.shards {
            let here = copy.node.is_some() && copy.node == position;
            let arriving = copy.relocating_node.is_some() && copy.relocating_node == position;
            if !here && !arriving {
                continue;
            }
            shards.push(NodeShard {
                index: index.name.clone(),
                shard: copy.shard,
                primary: copy.primary,
                state: if arriving {
                    ShardState::Initializing
                } else {
                    copy.state
                },
                relocating_to: if here {
                    id_of(copy.relocating_node)
                } else {
                    None
                },
                relocating_from: if arriving { id_of(copy.node) } else { None },
            });
        }
    }
    shards
}

impl NodeDetail {
    /// From the stats answer (which must list exactly the node asked for) and the grid.
    pub(crate) fn build(
        id: &str,
        stats: &Value,
        grid: &ShardGrid,
        dialect: Dialect,
    ) -> Result<Self, Error> {
        let nodes = stats["nodes"].as_object().ok_or_else(|| {
            Error::upstream("The _nodes/stats answer has no nodes object.".to_owned())
        })?;
        // A node is named by id or by name; the answer is keyed by id.
        let (node_id, node) = nodes
            .iter()
            .next()
            .ok_or_else(|| Error::RejectedByCluster {
                status: actix_web::http::StatusCode::NOT_FOUND,
                message: format!("The cluster has no node \"{id}\"."),
            })?;
        let text = |key: &str| node[key].as_str().map(str::to_owned);
        let roles = roles_of(node);
        let data = DataRoles::of(roles.as_deref());
        let roles = roles.unwrap_or_default();
        let manager_role = dialect.manager_word();
        Ok(Self {
            id: node_id.clone(),
            name: text("name").unwrap_or_else(|| node_id.clone()),
            host: text("host"),
            ip: text("ip"),
            transport_address: text("transport_address"),
            manager_eligible: roles.iter().any(|role| role == manager_role),
            manager_role: manager_role.to_owned(),
            roles,
            tiers: data.tiers,
            data_node: data.data_node,
            jvm: jvm_of(&node["jvm"]),
            os: os_of(&node["os"]),
            file_systems: file_systems_of(&node["fs"]),
            thread_pools: thread_pools_of(&node["thread_pool"]),
            breakers: breakers_of(&node["breakers"]),
            shards: shards_of(grid, node_id),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::cluster::dialect::Distribution;

    const OS2: Dialect = Dialect {
        distribution: Distribution::OpenSearch,
        major: 2,
    };

    /// The documented `_nodes/<id>/stats/jvm,os,fs,thread_pool,breaker` answer, trimmed.
    fn stats() -> Value {
        json!({
            "_nodes": {"total": 1, "successful": 1, "failed": 0},
            "cluster_name": "prod",
            "nodes": {"n2": {
                "timestamp": 1, "name": "os-2", "transport_address": "10.0.0.2:9300",
                "host": "10.0.0.2", "ip": "10.0.0.2:9300",
                "roles": ["cluster_manager", "data", "ingest"],
                "jvm": {"uptime_in_millis": 3600000,
                    "mem": {"heap_used_in_bytes": 268435456, "heap_used_percent": 25, "heap_max_in_bytes": 1073741824, "non_heap_used_in_bytes": 150000000},
                    "threads": {"count": 60},
                    "gc": {"collectors": {"young": {"collection_count": 12, "collection_time_in_millis": 140}, "old": {"collection_count": 1, "collection_time_in_millis": 30}}}},
                "os": {"cpu": {"percent": 7, "load_average": {"1m": 0.42, "5m": 0.35, "15m": 0.3}},
                    "mem": {"total_in_bytes": 8589934592u64, "used_in_bytes": 5368709120u64, "used_percent": 62},
                    "swap": {"used_in_bytes": 0}},
                "fs": {"total": {"total_in_bytes": 100}, "data": [
                    {"path": "/data/a", "mount": "/data (/dev/sdb)", "type": "ext4", "total_in_bytes": 200, "free_in_bytes": 60, "available_in_bytes": 50}
                ]},
                "thread_pool": {
                    "search": {"threads": 4, "queue": 0, "active": 1, "rejected": 0, "largest": 4, "completed": 100},
                    "write": {"threads": 2, "queue": 200, "active": 2, "rejected": 17, "largest": 2, "completed": 50}
                },
                "breakers": {
                    "parent": {"limit_size_in_bytes": 1000, "limit_size": "1000b", "estimated_size_in_bytes": 250, "estimated_size": "250b", "overhead": 1.0, "tripped": 2}
                }
            }}
        })
    }

    fn grid() -> ShardGrid {
        ShardGrid::from_state(
            &json!({"nodes": {"n1": {"name": "os-1"}, "n2": {"name": "os-2"}},
                "routing_table": {"indices": {"logs": {"shards": {
                    "0": [{"state": "RELOCATING", "primary": true, "node": "n1", "relocating_node": "n2", "shard": 0}],
                    "1": [{"state": "STARTED", "primary": false, "node": "n2", "relocating_node": null, "shard": 1}],
                    "2": [{"state": "STARTED", "primary": true, "node": "n1", "relocating_node": null, "shard": 2}]
                }}}}}),
            OS2,
        )
        .unwrap()
    }

    #[test]
    fn the_stats_become_rows_with_rejections_first() {
        let detail = NodeDetail::build("n2", &stats(), &grid(), OS2).unwrap();
        assert_eq!(detail.name, "os-2");
        assert_eq!(detail.manager_role, "cluster_manager");
        assert!(detail.manager_eligible);
        let jvm = detail.jvm.unwrap();
        assert_eq!(jvm.heap_used_percent, Some(25.0));
        assert_eq!(
            jvm.gc,
            [
                GcCollector {
                    name: "old".into(),
                    count: 1,
                    time_ms: 30
                },
                GcCollector {
                    name: "young".into(),
                    count: 12,
                    time_ms: 140
                }
            ]
        );
        let os = detail.os.unwrap();
        assert_eq!(os.load_average, [0.42, 0.35, 0.3]);
        assert_eq!(os.mem_used_percent, Some(62.0));
        assert_eq!(detail.file_systems[0].used_percent, Some(75.0));
        assert_eq!(detail.thread_pools[0].name, "write", "rejections first");
        assert_eq!(detail.thread_pools[0].rejected, 17);
        assert_eq!(detail.breakers[0].used_percent, Some(25.0));
        assert_eq!(detail.breakers[0].tripped, 2);
    }

    #[test]
    fn the_node_shards_include_the_ones_relocating_onto_it() {
        let detail = NodeDetail::build("n2", &stats(), &grid(), OS2).unwrap();
        let shards: Vec<(u32, ShardState, Option<&str>)> = detail
            .shards
            .iter()
            .map(|s| (s.shard, s.state, s.relocating_from.as_deref()))
            .collect();
        assert_eq!(
            shards,
            [
                (0, ShardState::Initializing, Some("n1")),
                (1, ShardState::Started, None)
            ]
        );
        let n1 = shards_of(&grid(), "n1");
        assert_eq!(n1[0].relocating_to.as_deref(), Some("n2"));
        assert_eq!(n1.len(), 2);
    }

    #[test]
    fn an_unknown_node_is_a_404_and_a_manager_word_follows_the_dialect() {
        let empty = json!({"_nodes": {"total": 0}, "nodes": {}});
        let error = NodeDetail::build("nope", &empty, &grid(), OS2).unwrap_err();
        assert!(matches!(error, Error::RejectedByCluster { status, .. } if status == 404));
        assert!(error.to_string().contains("no node \"nope\""));
        let es8 = Dialect {
            distribution: Distribution::Elasticsearch,
            major: 8,
        };
        let mut es_stats = stats();
        es_stats["nodes"]["n2"]["roles"] = json!(["master", "data_hot"]);
        let detail = NodeDetail::build("n2", &es_stats, &grid(), es8).unwrap();
        assert_eq!(detail.manager_role, "master");
        assert!(detail.manager_eligible);
        assert!(detail.data_node, "a node with only data_hot holds shards");
        assert_eq!(detail.tiers, [Tier::Hot]);
        assert!(detail.jvm.is_some() && NodeDetail::build("n2", &json!({}), &grid(), es8).is_err());
    }
}
