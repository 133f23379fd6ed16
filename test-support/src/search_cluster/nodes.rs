//! A cluster of several real nodes on loopback, where shards have somewhere to go: each node
//! from its own copy of the distribution with its own data, free HTTP and transport ports, the
//! others as seed hosts and all of them as the first cluster-manager (master) candidates, one
//! `path.repo` folder shared by all (for file system snapshot repositories). Waited
//! for until the cluster is green with every node in it; every node is killed and the scratch
//! folder removed on drop. [`SearchNodes::tiered`] is an Elasticsearch 8 cluster whose nodes
//! have data tier roles ([`TIERED_ROLES`]).

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use super::{Distribution, START_DEADLINE, Shared, copy_tree, launch, scratch_dir, shared_entry};
use crate::process::{ChildGuard, free_port, http_get, tail};

/// The `node.roles` of [`SearchNodes::tiered`]'s nodes, in order: a hot node (which also holds
/// the content tier, where indices without a tier preference go), a warm and a cold node; each
/// may be elected master.
pub const TIERED_ROLES: [&str; 3] = [
    "master,data_hot,data_content,ingest",
    "master,data_warm",
    "master,data_cold",
];

/// One node of a [`SearchNodes`] cluster.
pub struct SearchNode {
    /// `node-0`, `node-1`…
    pub name: String,
    /// `http://127.0.0.1:<port>`.
    pub url: String,
    child: ChildGuard,
    dir: PathBuf,
}

impl SearchNode {
    pub fn pid(&self) -> u32 {
        self.child.pid()
    }
}

/// Several nodes of one distribution forming one cluster (no security plugin).
pub struct SearchNodes {
    pub distribution: Distribution,
    /// In the order started; `nodes[i].name` is `node-i`.
    pub nodes: Vec<SearchNode>,
    dir: PathBuf,
}

impl SearchNodes {
    /// `count` nodes of `distribution` (plain HTTP, without the security plugin), started
    /// together and waited for until the cluster is green with `count` nodes.
    pub fn start(distribution: Distribution, count: usize) -> Self {
        Self::start_nodes(distribution, &vec![None; count])
    }

    /// Three Elasticsearch 8 nodes (without security) with the tier roles of [`TIERED_ROLES`]:
    /// `node-0` hot and content, `node-1` warm, `node-2` cold.
    pub fn start_tiered() -> Self {
        Self::start_nodes(Distribution::Elasticsearch8, &TIERED_ROLES.map(Some))
    }

    /// The tiered cluster of [`Self::start_tiered`] for the whole test process, started on
    /// first use (the same rules as [`Self::shared`]).
    pub fn tiered() -> &'static Self {
        static SHARED: Shared<(), SearchNodes> = OnceLock::new();
        shared_entry(&SHARED, (), Self::start_tiered)
    }

    /// One node per entry of `roles`: its `node.roles`, or the distribution's default roles.
    fn start_nodes(distribution: Distribution, roles: &[Option<&str>]) -> Self {
        let count = roles.len();
        assert!(
            !distribution.secured(),
            "{distribution:?}: a secured distribution's certificates are made for one node"
        );
        let dir = scratch_dir(distribution);
        let ports: Vec<(u16, u16)> = (0..count).map(|_| (free_port(), free_port())).collect();
        let names: Vec<String> = (0..count).map(|i| format!("node-{i}")).collect();
        let seeds = ports
            .iter()
            .map(|(_, transport)| format!("127.0.0.1:{transport}"))
            .collect::<Vec<_>>()
            .join(",");
        let initial = match distribution {
            Distribution::Elasticsearch7 | Distribution::Elasticsearch8 => {
                "cluster.initial_master_nodes"
            }
            _ => "cluster.initial_cluster_manager_nodes",
        };
        let cluster_name = format!("test-{}", ports[0].0);
        // Copies first, then the starts back to back: the nodes find each other sooner.
        let homes: Vec<PathBuf> = names.iter().map(|name| dir.join(name)).collect();
        for home in &homes {
            std::fs::create_dir_all(home).expect("creating the node's scratch folder");
            copy_tree(&distribution.install_dir(), &home.join("home"));
            distribution.prepare_home(&home.join("home"));
        }
        let mut nodes: Vec<SearchNode> = names
            .iter()
            .zip(&ports)
            .zip(homes)
            .zip(roles)
            .map(|(((name, (http, transport)), node_dir), roles)| {
                let mut settings = vec![
                    format!("http.port={http}"),
                    format!("transport.port={transport}"),
                    format!("cluster.name={cluster_name}"),
                    format!("node.name={name}"),
                    format!("discovery.seed_hosts={seeds}"),
                    format!("{initial}={}", names.join(",")),
                ];
                settings.extend(roles.map(|roles| format!("node.roles={roles}")));
                let child = launch(distribution, &node_dir, &dir.join("repo"), settings);
                SearchNode {
                    name: name.clone(),
                    url: format!("http://127.0.0.1:{http}"),
                    child,
                    dir: node_dir,
                }
            })
            .collect();
        let health = format!("/_cluster/health?wait_for_nodes={count}&timeout=1s");
        let first = nodes[0].url.trim_start_matches("http://").to_owned();
        // Several cold JVMs share the cores.
        let deadline = START_DEADLINE * 2;
        let started = Instant::now();
        let mut last = None;
        loop {
            if let Some((_, body)) = http_get(&first, &health) {
                let answer: serde_json::Value = serde_json::from_str(&body).unwrap_or_default();
                if answer["status"] == "green" && answer["number_of_nodes"] == count {
                    break;
                }
                last = Some(body);
            }
            for node in &mut nodes {
                if let Ok(Some(status)) = node.child.child_mut().try_wait() {
                    panic!(
                        "{distribution:?} {} exited with {status}: {}",
                        node.name,
                        tail(&node.dir.join("console.log"))
                    );
                }
            }
            assert!(
                started.elapsed() < deadline,
                "{distribution:?} was not green with {count} nodes within {deadline:?} (last \
                 health: {last:?}): {}",
                tail(&nodes[0].dir.join("console.log"))
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Self {
            distribution,
            nodes,
            dir,
        }
    }

    /// One cluster of `count` nodes per distribution for the whole test process, started on
    /// first use; its nodes are killed when the tests exit. Tests that share it keep to index
    /// names of their own and undo the cluster-wide settings they change.
    pub fn shared(distribution: Distribution, count: usize) -> &'static Self {
        static SHARED: Shared<(Distribution, usize), SearchNodes> = OnceLock::new();
        shared_entry(&SHARED, (distribution, count), || {
            Self::start(distribution, count)
        })
    }

    /// The first node's URL: any node answers for the whole cluster.
    pub fn url(&self) -> &str {
        &self.nodes[0].url
    }

    /// The distribution's version, e.g. `2.19.6`.
    pub fn version(&self) -> String {
        self.distribution.version()
    }

    /// The nodes' shared `path.repo`: a file system snapshot repository's location must be in
    /// it (every node of the cluster reads and writes the same folder).
    pub fn repo_path(&self) -> PathBuf {
        self.dir.join("repo")
    }

    /// The PIDs of the nodes, in the order of [`Self::nodes`].
    pub fn pids(&self) -> Vec<u32> {
        self.nodes.iter().map(SearchNode::pid).collect()
    }
}

impl Drop for SearchNodes {
    fn drop(&mut self) {
        for node in &mut self.nodes {
            let _ = node.child.child_mut().kill();
        }
        for node in &mut self.nodes {
            let _ = node.child.child_mut().wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
