//! The shard routing the server owns: osmem's indices (names, shard and replica counts, open or
//! closed) placed on the simulated nodes round-robin, never two copies of a shard on one node;
//! copies that fit nowhere stay unassigned. Moves and retries progress with real time.

use std::collections::{BTreeMap, HashMap};
use std::time::Instant;

use serde_json::{Value, json};

use crate::nodes::SimNode;
use crate::wire::{iso_millis, now_millis};
use crate::{Shared, forward, lock};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Started,
    Relocating,
    Initializing,
    Unassigned,
}

impl State {
    pub(crate) fn name(self) -> &'static str {
        match self {
            State::Started => "STARTED",
            State::Relocating => "RELOCATING",
            State::Initializing => "INITIALIZING",
            State::Unassigned => "UNASSIGNED",
        }
    }

    pub(crate) fn active(self) -> bool {
        matches!(self, State::Started | State::Relocating)
    }
}

#[derive(Debug, Clone)]
pub(crate) struct UnassignedInfo {
    pub(crate) reason: &'static str,
    pub(crate) at_millis: u64,
    pub(crate) failed_attempts: u32,
    pub(crate) details: Option<String>,
    pub(crate) failed_nodes: Vec<String>,
}

impl UnassignedInfo {
    pub(crate) fn new(reason: &'static str) -> Self {
        Self {
            reason,
            at_millis: now_millis(),
            failed_attempts: 0,
            details: None,
            failed_nodes: Vec::new(),
        }
    }

    /// The `unassigned_info` object of the routing table and allocation explain.
    pub(crate) fn to_json(&self, allocation_status: &str) -> Value {
        let mut info = json!({
            "reason": self.reason,
            "at": iso_millis(self.at_millis),
            "delayed": false,
            "allocation_status": allocation_status
        });
        if self.failed_attempts > 0 {
            info["failed_attempts"] = json!(self.failed_attempts);
        }
        if let Some(details) = &self.details {
            info["details"] = json!(details);
        }
        info
    }
}

/// One copy of a shard.
#[derive(Debug, Clone)]
pub(crate) struct ShardCopy {
    pub(crate) index: String,
    pub(crate) shard: u32,
    pub(crate) primary: bool,
    pub(crate) state: State,
    pub(crate) node: Option<usize>,
    /// The target of a relocation.
    pub(crate) relocating_to: Option<usize>,
    /// When a relocation or an initialisation completes.
    pub(crate) until: Option<Instant>,
    pub(crate) unassigned: Option<UnassignedInfo>,
    pub(crate) allocation_id: String,
    pub(crate) docs: Option<u64>,
    pub(crate) store: Option<u64>,
}

impl ShardCopy {
    /// Whether this copy is on, or moving to, `node`.
    pub(crate) fn occupies(&self, node: usize) -> bool {
        self.node == Some(node) || self.relocating_to == Some(node)
    }

    /// The routing-table entry as the clusters show it.
    pub(crate) fn to_json(&self, nodes: &[SimNode]) -> Value {
        let id = |node: Option<usize>| node.map(|n| nodes[n].id.clone());
        let mut entry = json!({
            "state": self.state.name(),
            "primary": self.primary,
            "node": id(self.node),
            "relocating_node": id(self.relocating_to),
            "shard": self.shard,
            "index": self.index
        });
        match self.state {
            State::Unassigned => {
                entry["recovery_source"] =
                    json!({"type": if self.primary { "EMPTY_STORE" } else { "PEER" }});
                if let Some(info) = &self.unassigned {
                    let status = if info.failed_attempts > 0 {
                        "no"
                    } else {
                        "no_attempt"
                    };
                    entry["unassigned_info"] = info.to_json(status);
                }
            }
            State::Relocating => {
                entry["allocation_id"] = json!({"id": self.allocation_id,
                    "relocation_id": format!("{}-r", self.allocation_id)});
                entry["expected_shard_size_in_bytes"] = json!(self.store.unwrap_or(0));
            }
            State::Initializing => {
                entry["allocation_id"] = json!({"id": self.allocation_id});
                entry["recovery_source"] = json!({"type": "PEER"});
                entry["expected_shard_size_in_bytes"] = json!(self.store.unwrap_or(0));
            }
            State::Started => entry["allocation_id"] = json!({"id": self.allocation_id}),
        }
        entry
    }
}

/// What the routing knows of one of osmem's indices.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IndexMeta {
    pub(crate) shards: u32,
    pub(crate) replicas: u32,
    pub(crate) open: bool,
}

#[derive(Default, Clone)]
pub(crate) struct Routing {
    pub(crate) indices: BTreeMap<String, IndexMeta>,
    pub(crate) copies: Vec<ShardCopy>,
    next_node: usize,
    next_allocation: u64,
}

impl Routing {
    /// Brings the routing in line with osmem's indices, then lets time progress.
    fn reconcile(
        &mut self,
        indices: BTreeMap<String, IndexMeta>,
        sizes: &HashMap<(String, u32), (u64, u64)>,
        node_count: usize,
    ) {
        self.copies.retain(|copy| {
            indices
                .get(&copy.index)
                .is_some_and(|meta| copy.shard < meta.shards)
        });
        for (name, meta) in &indices {
            if self.indices.get(name) == Some(meta) {
                // Unchanged since the last sync: its copies are in place.
                continue;
            }
            let known = self.indices.contains_key(name);
            for shard in 0..meta.shards {
                if !self
                    .copies
                    .iter()
                    .any(|c| c.index == *name && c.shard == shard && c.primary)
                {
                    self.add_copy(name, shard, true, "INDEX_CREATED", node_count);
                }
                let replicas = |copies: &[ShardCopy]| {
                    copies
                        .iter()
                        .filter(|c| c.index == *name && c.shard == shard && !c.primary)
                        .count() as u32
                };
                while replicas(&self.copies) < meta.replicas {
                    let reason = if known {
                        "REPLICA_ADDED"
                    } else {
                        "INDEX_CREATED"
                    };
                    self.add_copy(name, shard, false, reason, node_count);
                }
                while replicas(&self.copies) > meta.replicas {
                    // Unassigned replicas go first.
                    let position = self
                        .copies
                        .iter()
                        .rposition(|c| {
                            c.index == *name && c.shard == shard && !c.primary && c.node.is_none()
                        })
                        .or_else(|| {
                            self.copies
                                .iter()
                                .rposition(|c| c.index == *name && c.shard == shard && !c.primary)
                        });
                    if let Some(position) = position {
                        self.copies.remove(position);
                    }
                }
            }
        }
        for copy in &mut self.copies {
            let (docs, store) = sizes
                .get(&(copy.index.clone(), copy.shard))
                .copied()
                .map_or((None, None), |(docs, store)| (Some(docs), Some(store)));
            let open = indices.get(&copy.index).is_some_and(|meta| meta.open);
            (copy.docs, copy.store) = if copy.node.is_some() && open {
                (docs, store)
            } else {
                (None, None)
            };
        }
        self.indices = indices;
        self.advance(Instant::now());
    }

    fn add_copy(
        &mut self,
        index: &str,
        shard: u32,
        primary: bool,
        reason: &'static str,
        nodes: usize,
    ) {
        let node = self.free_node(index, shard, nodes);
        if let Some(node) = node {
            self.next_node = node + 1;
        }
        self.next_allocation += 1;
        self.copies.push(ShardCopy {
            index: index.to_owned(),
            shard,
            primary,
            state: if node.is_some() {
                State::Started
            } else {
                State::Unassigned
            },
            node,
            relocating_to: None,
            until: None,
            unassigned: node.is_none().then(|| UnassignedInfo::new(reason)),
            allocation_id: allocation_id(self.next_allocation),
            docs: None,
            store: None,
        });
    }

    /// The next node, round-robin, that holds no copy of the shard.
    pub(crate) fn free_node(&self, index: &str, shard: u32, nodes: usize) -> Option<usize> {
        (0..nodes)
            .map(|k| (self.next_node + k) % nodes)
            .find(|&node| {
                !self
                    .copies
                    .iter()
                    .any(|c| c.index == index && c.shard == shard && c.occupies(node))
            })
    }

    /// Completes the relocations and initialisations whose time has come.
    pub(crate) fn advance(&mut self, now: Instant) {
        for copy in &mut self.copies {
            if copy.until.is_some_and(|until| until <= now) {
                if copy.state == State::Relocating {
                    copy.node = copy.relocating_to.take();
                }
                copy.state = State::Started;
                copy.until = None;
            }
        }
    }

    /// Marks a replica as failed five times (see `SearchTestServer::fail_allocation`).
    pub(crate) fn fail_allocation(
        &mut self,
        index: &str,
        shard: u32,
        nodes: &[SimNode],
    ) -> anyhow::Result<()> {
        let copy = self
            .copies
            .iter_mut()
            .filter(|c| c.index == index && c.shard == shard && !c.primary)
            .max_by_key(|c| c.node.is_some())
            .ok_or_else(|| anyhow::anyhow!("index {index} has no replica of shard {shard}"))?;
        let failed_on = copy
            .node
            .or(Some(0))
            .map(|n| nodes[n].id.clone())
            .unwrap_or_default();
        copy.state = State::Unassigned;
        copy.node = None;
        copy.relocating_to = None;
        copy.until = None;
        copy.docs = None;
        copy.store = None;
        copy.unassigned = Some(UnassignedInfo {
            reason: "ALLOCATION_FAILED",
            at_millis: now_millis(),
            failed_attempts: 5,
            details: Some(format!(
                "failed shard on node [{failed_on}]: failed recovery, failure RecoveryFailedException[[{index}][{shard}]: Recovery failed on {{{failed_on}}}]; nested: IOException[No space left on device]"
            )),
            failed_nodes: vec![failed_on],
        });
        Ok(())
    }

    /// The copies of the listed indices (all when `None`), in index, shard, primary order.
    pub(crate) fn copies_of(&self, indices: Option<&[String]>) -> Vec<&ShardCopy> {
        let mut copies: Vec<&ShardCopy> = self
            .copies
            .iter()
            .filter(|c| indices.is_none_or(|names| names.contains(&c.index)))
            .collect();
        copies.sort_by(|a, b| {
            (a.index.as_str(), a.shard, !a.primary).cmp(&(b.index.as_str(), b.shard, !b.primary))
        });
        copies
    }
}

fn allocation_id(n: u64) -> String {
    format!("aLl0c{n:017}")
}

/// Reads osmem's indices (and shard sizes) and reconciles the routing with them.
pub(crate) async fn sync(shared: &Shared) -> anyhow::Result<()> {
    // Per-index health is osmem's cheapest listing of its indices with their shard and replica
    // counts (the cluster state's metadata costs several times more with thousands of indices).
    // osmem, a single node, keeps every primary of an open index active: an index without one
    // is closed.
    let path = "/_cluster/health?level=indices&filter_path=indices";
    let health = forward::get_ok(shared, path)
        .await
        .map_err(|_| anyhow::anyhow!("osmem does not answer {path}"))?;
    let mut indices = BTreeMap::new();
    for (name, index) in health["indices"].as_object().into_iter().flatten() {
        let count = |key: &str| index[key].as_u64().unwrap_or(0) as u32;
        indices.insert(
            name.clone(),
            IndexMeta {
                shards: count("number_of_shards").max(1),
                replicas: count("number_of_replicas"),
                open: count("active_primary_shards") > 0,
            },
        );
    }
    let open: Vec<&str> = indices
        .iter()
        .filter(|(_, meta)| meta.open)
        .map(|(name, _)| name.as_str())
        .collect();
    let mut sizes = HashMap::new();
    if !open.is_empty() {
        const COLUMNS: &str = "?format=json&bytes=b&h=index,shard,prirep,docs,store";
        // osmem refuses the whole table while an index is closed: then the open ones by name.
        let rows = match forward::get_ok(shared, &format!("/_cat/shards{COLUMNS}")).await {
            Ok(rows) => Ok(rows),
            Err(_) => {
                forward::get_ok(shared, &format!("/_cat/shards/{}{COLUMNS}", open.join(","))).await
            }
        };
        if let Ok(rows) = rows {
            for row in rows.as_array().into_iter().flatten() {
                let number = |key: &str| row[key].as_str().and_then(|t| t.parse::<u64>().ok());
                if row["prirep"] == "p"
                    && let (Some(index), Some(shard)) = (row["index"].as_str(), number("shard"))
                {
                    sizes.insert(
                        (index.to_owned(), shard as u32),
                        (number("docs").unwrap_or(0), number("store").unwrap_or(0)),
                    );
                }
            }
        }
    }
    lock(&shared.routing).reconcile(indices, &sizes, shared.nodes.len());
    Ok(())
}
