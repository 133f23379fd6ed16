//! The cluster views of the web app (summary, overview, nodes), built from a
//! few light cluster calls made concurrently. Elasticsearch 8 and OpenSearch 2 answer these
//! calls in the same documented shapes.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::client::ClusterApi;
use super::tiers::{DataRoles, Tier, roles_of};
use crate::error::Error;
use crate::numbers::{disk_used_percent, percent_of};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum Health {
    Green,
    Yellow,
    Red,
}

impl Health {
    pub fn parse(text: &str) -> Option<Self> {
        match text.to_ascii_lowercase().as_str() {
            "green" => Some(Self::Green),
            "yellow" => Some(Self::Yellow),
            "red" => Some(Self::Red),
            _ => None,
        }
    }
}

/// What `GET /` says about the software.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub number: Option<String>,
    pub distribution: &'static str,
}

impl Version {
    pub fn from_root(root: &Value) -> Self {
        let distribution = match root["version"]["distribution"].as_str() {
            Some("opensearch") => "opensearch",
            _ => "elasticsearch",
        };
        Self {
            number: root["version"]["number"].as_str().map(str::to_owned),
            distribution,
        }
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Overview {
    pub cluster_id: String,
    pub name: String,
    pub cluster_name: String,
    pub health: Health,
    pub version: Option<String>,
    #[cfg_attr(test, ts(type = "\"elasticsearch\" | \"opensearch\" | null"))]
    pub distribution: Option<&'static str>,
    pub node_count: u64,
    pub data_node_count: u64,
    pub index_count: u64,
    pub shard_count: u64,
    pub primary_shard_count: u64,
    pub replica_shard_count: u64,
    pub unassigned_shards: u64,
    pub relocating_shards: u64,
    pub initializing_shards: u64,
    pub document_count: u64,
    pub store_size_bytes: u64,
}

/// Reads a required field of a cluster answer.
pub(crate) fn required_u64(value: &Value, pointer: &str, what: &str) -> Result<u64, Error> {
    value
        .pointer(pointer)
        .and_then(Value::as_u64)
        .ok_or_else(|| Error::upstream(format!("The {what} answer has no {pointer}.")))
}

pub(crate) fn health_of(health: &Value) -> Result<Health, Error> {
    health["status"]
        .as_str()
        .and_then(Health::parse)
        .ok_or_else(|| Error::upstream("The _cluster/health answer has no status.".to_owned()))
}

/// Three concurrent calls: `/`, `_cluster/health`, `_cluster/stats` (filtered to what is used).
pub async fn overview(cluster: &impl ClusterApi, id: &str, name: &str) -> Result<Overview, Error> {
    let (root, health, stats) = futures_util::join!(
        cluster.get_json("/"),
        cluster.get_json("_cluster/health"),
        cluster.get_json(
            "_cluster/stats?filter_path=cluster_name,indices.count,indices.docs.count,indices.store.size_in_bytes"
        ),
    );
    let (health, stats) = (health?, stats?);
    let version = root.ok().map(|root| Version::from_root(&root));
    let shards = required_u64(&health, "/active_shards", "_cluster/health")?;
    let primaries = required_u64(&health, "/active_primary_shards", "_cluster/health")?;
    Ok(Overview {
        cluster_id: id.to_owned(),
        name: name.to_owned(),
        cluster_name: health["cluster_name"]
            .as_str()
            .or_else(|| stats["cluster_name"].as_str())
            .unwrap_or_default()
            .to_owned(),
        health: health_of(&health)?,
        version: version.as_ref().and_then(|version| version.number.clone()),
        distribution: version.as_ref().map(|version| version.distribution),
        node_count: required_u64(&health, "/number_of_nodes", "_cluster/health")?,
        data_node_count: required_u64(&health, "/number_of_data_nodes", "_cluster/health")?,
        index_count: required_u64(&stats, "/indices/count", "_cluster/stats")?,
        shard_count: shards,
        primary_shard_count: primaries,
        replica_shard_count: shards.saturating_sub(primaries),
        unassigned_shards: required_u64(&health, "/unassigned_shards", "_cluster/health")?,
        relocating_shards: required_u64(&health, "/relocating_shards", "_cluster/health")?,
        initializing_shards: required_u64(&health, "/initializing_shards", "_cluster/health")?,
        document_count: stats
            .pointer("/indices/docs/count")
            .and_then(Value::as_u64)
            .unwrap_or(0),
        store_size_bytes: stats
            .pointer("/indices/store/size_in_bytes")
            .and_then(Value::as_u64)
            .unwrap_or(0),
    })
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
#[cfg_attr(test, ts(rename = "ClusterNode"))]
pub struct Node {
    pub id: String,
    pub name: String,
    pub ip: Option<String>,
    pub version: Option<String>,
    pub roles: Vec<String>,
    /// Its data tier roles, in the order hot, warm, cold, frozen, content.
    pub tiers: Vec<Tier>,
    /// Holds shards: the role `data` or any `data_*` (tier) role.
    pub data_node: bool,
    pub is_master: bool,
    pub heap_percent: Option<f64>,
    pub disk_used_percent: Option<f64>,
    pub cpu_percent: Option<f64>,
}

/// Three concurrent calls: `_nodes` (names, roles, versions), `_nodes/stats/jvm,os,fs`
/// (usage; a cluster that refuses it still lists its nodes, without usage) and `_cat/master`.
pub async fn nodes(cluster: &impl ClusterApi) -> Result<Vec<Node>, Error> {
    let (info, stats, master) = futures_util::join!(
        cluster.get_json("_nodes?filter_path=nodes.*.name,nodes.*.ip,nodes.*.version,nodes.*.roles,nodes.*.host"),
        cluster.get_json("_nodes/stats/jvm,os,fs?filter_path=nodes.*.jvm.mem,nodes.*.os.cpu.percent,nodes.*.fs.total"),
        cluster.get_json("_cat/master?format=json&h=id"),
    );
    let info = info?;
    let stats = stats.unwrap_or(Value::Null);
    let master_id = master
        .ok()
        .and_then(|master| master[0]["id"].as_str().map(str::to_owned));
    let Some(entries) = info["nodes"].as_object() else {
        return Ok(Vec::new());
    };
    let mut nodes: Vec<Node> = entries
        .iter()
        .map(|(id, node)| {
            let stat = &stats["nodes"][id];
            let roles = roles_of(node);
            let data = DataRoles::of(roles.as_deref());
            Node {
                id: id.clone(),
                name: node["name"].as_str().unwrap_or(id).to_owned(),
                ip: node["ip"]
                    .as_str()
                    .or_else(|| node["host"].as_str())
                    .map(str::to_owned),
                version: node["version"].as_str().map(str::to_owned),
                roles: roles.unwrap_or_default(),
                tiers: data.tiers,
                data_node: data.data_node,
                is_master: master_id.as_deref() == Some(id.as_str()),
                heap_percent: percent_of(
                    &stat["jvm"]["mem"]["heap_used_in_bytes"],
                    &stat["jvm"]["mem"]["heap_max_in_bytes"],
                ),
                disk_used_percent: disk_used_percent(&stat["fs"]["total"]),
                cpu_percent: stat["os"]["cpu"]["percent"].as_f64(),
            }
        })
        .collect();
    nodes.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(nodes)
}
