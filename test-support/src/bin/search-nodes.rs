//! Real search clusters for tests outside Rust (the browser tests): starts the clusters named on
//! the command line with the harness (`SearchNodes`, `SearchCluster`), prints one JSON line
//! describing them once every one answers, and stops them when its standard input closes or it
//! gets SIGTERM (its nodes run under `setpriv --pdeathsig KILL`: they die with it in any case).
//!
//! `search-nodes opensearch2:3 elasticsearch8-secured` starts a three-node OpenSearch 2 cluster
//! and a single secured Elasticsearch 8 node, in parallel, and prints
//! `{"clusters":[{"distribution":"opensearch2","version":"2.19.6","url":"http://127.0.0.1:…",
//! "nodes":[{"name":"node-0","url":…}…],"repo":"/tmp/…/repo"},{…,"user":"elastic",
//! "password":"…","caFile":"/tmp/…/ca.pem"}]}`.
//!
//! `elasticsearch8-tiered` is Elasticsearch 8 without security on three nodes with data tier
//! roles (`SearchNodes::start_tiered`: `node-0` hot and content, `node-1` warm, `node-2` cold);
//! its nodes are described with their `roles`.

use std::io::Read;

use serde_json::{Value, json};
use test_support::{Distribution, SearchCluster, SearchNodes, TIERED_ROLES};

/// The name of the tiered Elasticsearch 8 cluster.
const TIERED: &str = "elasticsearch8-tiered";

/// A started cluster, kept until the end (dropping it stops its nodes).
enum Started {
    Nodes(SearchNodes),
    Single(SearchCluster),
}

impl Started {
    fn describe(&self, name: &str) -> Value {
        match self {
            Self::Nodes(nodes) => {
                let tiered = name == TIERED;
                json!({
                    "distribution": name,
                    "version": nodes.version(),
                    "url": nodes.url(),
                    "nodes": nodes.nodes.iter().zip(0..).map(|(n, i)| {
                        let mut node = json!({"name": n.name, "url": n.url});
                        if tiered {
                            node["roles"] = json!(TIERED_ROLES.get(i).copied());
                        }
                        node
                    }).collect::<Vec<_>>(),
                    "repo": nodes.repo_path(),
                })
            }
            Self::Single(node) => {
                let mut described = json!({
                    "distribution": name,
                    "version": node.version(),
                    "url": node.url,
                    "nodes": [{"url": node.url}],
                    "repo": node.repo_path(),
                });
                if let Some(security) = &node.security {
                    described["user"] = json!(security.admin_user);
                    described["password"] = json!(security.admin_password);
                    described["caFile"] = json!(security.ca_file);
                }
                described
            }
        }
    }
}

fn distribution(name: &str) -> Distribution {
    match name {
        "opensearch2" => Distribution::OpenSearch2,
        "opensearch3" => Distribution::OpenSearch3,
        "elasticsearch7" => Distribution::Elasticsearch7,
        "opensearch2-secured" => Distribution::OpenSearch2Secured,
        "elasticsearch8-secured" => Distribution::Elasticsearch8Secured,
        TIERED => Distribution::Elasticsearch8,
        other => {
            eprintln!(
                "unknown distribution {other}: opensearch2, opensearch3, elasticsearch7, \
                 opensearch2-secured, elasticsearch8-secured or {TIERED}"
            );
            std::process::exit(2);
        }
    }
}

fn main() {
    let wanted: Vec<(String, Distribution, usize)> = std::env::args()
        .skip(1)
        .map(|arg| {
            let (name, count) = arg.split_once(':').unwrap_or((&arg, "1"));
            let count = count.parse().unwrap_or_else(|_| {
                eprintln!("{arg}: expected <distribution>[:<nodes>]");
                std::process::exit(2);
            });
            (name.to_owned(), distribution(name), count)
        })
        .collect();
    if wanted.is_empty() {
        eprintln!("usage: search-nodes <distribution>[:<nodes>]…");
        std::process::exit(2);
    }
    // Started in parallel: the JVMs' start is mostly waiting for each other's cores anyway.
    let started: Vec<Started> = std::thread::scope(|scope| {
        let starts: Vec<_> = wanted
            .iter()
            .map(|(name, distribution, count)| {
                let (distribution, count) = (*distribution, *count);
                let tiered = name == TIERED;
                scope.spawn(move || {
                    if tiered {
                        Started::Nodes(SearchNodes::start_tiered())
                    } else if count > 1 {
                        Started::Nodes(SearchNodes::start(distribution, count))
                    } else {
                        Started::Single(SearchCluster::start(distribution))
                    }
                })
            })
            .collect();
        starts
            .into_iter()
            .map(|start| start.join().unwrap_or_else(|_| std::process::exit(1)))
            .collect()
    });
    let clusters: Vec<Value> = started
        .iter()
        .zip(&wanted)
        .map(|(cluster, (name, _, _))| cluster.describe(name))
        .collect();
    println!("{}", json!({ "clusters": clusters }));
    wait_for_the_end();
    drop(started);
}

/// Until standard input closes or SIGTERM (or SIGINT) comes.
fn wait_for_the_end() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime for the signals");
    runtime.block_on(async {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
        let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
        let stdin_closed = tokio::task::spawn_blocking(|| {
            let mut sink = [0u8; 256];
            let mut stdin = std::io::stdin();
            while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
        });
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
            _ = stdin_closed => {}
        }
    });
    // The blocking stdin reader may still be running: leave it, the process ends next.
    std::mem::forget(runtime);
}
