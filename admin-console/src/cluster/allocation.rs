//! Where shards may go: the allocation lock (`cluster.routing.allocation.enable`) and the
//! allocation filters that drain nodes (`cluster.routing.allocation.exclude._name/_ip/_host`).
//! Both are read from `_cluster/settings`, where a transient value wins over a persistent one.
//!
//! Draining a node adds its name to `exclude._name` in the layer the effective value lives in
//! (transient when the cluster has one, else persistent), so the change is never hidden by the
//! other layer; undoing removes that name only, and resets the setting when no name is left.
//! A node name comes from the cluster and is hostile: one holding a list separator or a
//! wildcard (`,`, `*`) would exclude other nodes than the one named, and is refused.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::client::ClusterApi;
use crate::error::Error;

/// The values of `cluster.routing.allocation.enable`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub enum AllocationEnable {
    All,
    Primaries,
    NewPrimaries,
    None,
}

impl AllocationEnable {
    fn as_str(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Primaries => "primaries",
            Self::NewPrimaries => "new_primaries",
            Self::None => "none",
        }
    }
}

/// The nodes the allocation filters keep shards off, as the cluster's effective settings say.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Exclusions {
    /// `cluster.routing.allocation.exclude._name`: node names (the console's drains).
    pub names: Vec<String>,
    /// `cluster.routing.allocation.exclude._ip`.
    pub ips: Vec<String>,
    /// `cluster.routing.allocation.exclude._host`.
    pub hosts: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct Allocation {
    pub enable: AllocationEnable,
    /// Whether shard allocation is restricted (`enable` is not `all`).
    pub locked: bool,
    /// The nodes being drained or kept empty by an allocation filter.
    pub excluded: Exclusions,
}

const ALLOCATION_SETTING: &str = "cluster.routing.allocation.enable";
const EXCLUDE_NAME: &str = "cluster.routing.allocation.exclude._name";
const EXCLUDE_IP: &str = "cluster.routing.allocation.exclude._ip";
const EXCLUDE_HOST: &str = "cluster.routing.allocation.exclude._host";
const SETTINGS_PATH: &str = "_cluster/settings?flat_settings=true";

/// Which layer of cluster settings a value lives in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layer {
    Transient,
    Persistent,
}

impl Layer {
    fn key(self) -> &'static str {
        match self {
            Self::Transient => "transient",
            Self::Persistent => "persistent",
        }
    }
}

/// The effective value of `key` in a flat `_cluster/settings` answer and its layer.
fn effective<'a>(settings: &'a Value, key: &str) -> Option<(&'a str, Layer)> {
    [Layer::Transient, Layer::Persistent]
        .into_iter()
        .find_map(|layer| Some((settings[layer.key()][key].as_str()?, layer)))
}

/// A comma-separated filter value as its entries.
fn entries(value: Option<(&str, Layer)>) -> Vec<String> {
    value
        .map(|(list, _)| {
            list.split(',')
                .map(str::trim)
                .filter(|entry| !entry.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

impl Exclusions {
    fn from_settings(settings: &Value) -> Self {
        Self {
            names: entries(effective(settings, EXCLUDE_NAME)),
            ips: entries(effective(settings, EXCLUDE_IP)),
            hosts: entries(effective(settings, EXCLUDE_HOST)),
        }
    }
}

impl Allocation {
    fn from_settings(settings: &Value) -> Result<Self, Error> {
        let value = effective(settings, ALLOCATION_SETTING).map_or("all", |(value, _)| value);
        let enable: AllocationEnable = serde_json::from_value(Value::String(value.to_owned()))
            .map_err(|_| {
                Error::upstream(format!(
                    "The cluster reports {ALLOCATION_SETTING} = \"{}\", which is not a known value.",
                    value.escape_debug()
                ))
            })?;
        Ok(Self {
            enable,
            locked: enable != AllocationEnable::All,
            excluded: Exclusions::from_settings(settings),
        })
    }
}

/// The effective lock and filters.
pub async fn allocation(cluster: &impl ClusterApi) -> Result<Allocation, Error> {
    Allocation::from_settings(&cluster.get_json(SETTINGS_PATH).await?)
}

/// Sets the persistent setting, then reads back the effective value (a transient setting
/// would still override it, and the answer must say so).
pub async fn set_allocation(
    cluster: &impl ClusterApi,
    enable: AllocationEnable,
) -> Result<Allocation, Error> {
    let body = json!({ "persistent": { ALLOCATION_SETTING: enable.as_str() } });
    cluster.put_json("_cluster/settings", &body).await?;
    allocation(cluster).await
}

/// Drain (`true`) or stop draining a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drain {
    Start,
    Undo,
}

/// The `_cluster/settings` body that adds `name` to (or removes it from) the name filter, in
/// the layer of its effective value; `None` when nothing would change.
fn drain_body(settings: &Value, name: &str, drain: Drain) -> Option<Value> {
    let current = effective(settings, EXCLUDE_NAME);
    let layer = current.map_or(Layer::Persistent, |(_, layer)| layer);
    let mut names = entries(current);
    let present = names.iter().any(|entry| entry == name);
    match drain {
        Drain::Start if present => return None,
        Drain::Start => names.push(name.to_owned()),
        Drain::Undo if !present => return None,
        Drain::Undo => names.retain(|entry| entry != name),
    }
    let value = if names.is_empty() {
        Value::Null
    } else {
        Value::String(names.join(","))
    };
    Some(json!({ layer.key(): { EXCLUDE_NAME: value } }))
}

/// A node name the name filter can hold as exactly that node.
fn filterable_name(name: &str) -> Result<&str, Error> {
    let plain = !name.is_empty()
        && name.len() <= 256
        && !name
            .chars()
            .any(|c| matches!(c, ',' | '*') || c.is_control() || c.is_whitespace());
    if plain {
        Ok(name)
    } else {
        Err(Error::upstream(format!(
            "The node is named \"{}\", which an allocation filter cannot name alone (a comma, \
             a wildcard, a space or a control character); drain it by its address in the \
             cluster settings instead.",
            name.escape_debug()
        )))
    }
}

/// Adds (or removes) the node named `name` to the name filter, then reads back the effective
/// lock and filters.
pub async fn drain_node(
    cluster: &impl ClusterApi,
    name: &str,
    drain: Drain,
) -> Result<Allocation, Error> {
    let name = filterable_name(name)?;
    let settings = cluster.get_json(SETTINGS_PATH).await?;
    if let Some(body) = drain_body(&settings, name, drain) {
        cluster.put_json("_cluster/settings", &body).await?;
        return allocation(cluster).await;
    }
    Allocation::from_settings(&settings)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_wins_and_lists_are_split() {
        let settings = json!({
            "persistent": {EXCLUDE_NAME: "a", ALLOCATION_SETTING: "primaries"},
            "transient": {EXCLUDE_NAME: "b, c,", EXCLUDE_IP: "10.0.0.1"},
        });
        let allocation = Allocation::from_settings(&settings).unwrap();
        assert_eq!(allocation.enable, AllocationEnable::Primaries);
        assert!(allocation.locked);
        assert_eq!(allocation.excluded.names, ["b", "c"]);
        assert_eq!(allocation.excluded.ips, ["10.0.0.1"]);
        assert!(allocation.excluded.hosts.is_empty());
    }

    #[test]
    fn an_unknown_lock_value_is_an_upstream_error() {
        let settings = json!({"persistent": {ALLOCATION_SETTING: "sometimes"}});
        assert!(Allocation::from_settings(&settings).is_err());
    }

    #[test]
    fn a_drain_is_written_where_the_effective_value_lives() {
        let none = json!({"persistent": {}, "transient": {}});
        assert_eq!(
            drain_body(&none, "n1", Drain::Start),
            Some(json!({"persistent": {EXCLUDE_NAME: "n1"}}))
        );
        let transient =
            json!({"persistent": {EXCLUDE_NAME: "x"}, "transient": {EXCLUDE_NAME: "n0"}});
        assert_eq!(
            drain_body(&transient, "n1", Drain::Start),
            Some(json!({"transient": {EXCLUDE_NAME: "n0,n1"}}))
        );
        assert_eq!(drain_body(&transient, "n0", Drain::Start), None);
    }

    #[test]
    fn undo_removes_that_name_only_and_resets_an_empty_list() {
        let two = json!({"persistent": {EXCLUDE_NAME: "n0,n1"}});
        assert_eq!(
            drain_body(&two, "n0", Drain::Undo),
            Some(json!({"persistent": {EXCLUDE_NAME: "n1"}}))
        );
        let one = json!({"persistent": {EXCLUDE_NAME: "n1"}});
        assert_eq!(
            drain_body(&one, "n1", Drain::Undo),
            Some(json!({"persistent": {EXCLUDE_NAME: null}}))
        );
        assert_eq!(drain_body(&one, "n2", Drain::Undo), None);
    }

    #[test]
    fn a_name_that_would_filter_other_nodes_is_refused() {
        for hostile in ["*", "a,b", "node-*", "", "a b", "a\nb"] {
            assert!(filterable_name(hostile).is_err(), "{hostile:?}");
        }
        assert_eq!(filterable_name("node-0.eu").unwrap(), "node-0.eu");
    }
}
