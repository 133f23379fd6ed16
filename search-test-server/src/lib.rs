//! Two test servers for the Elasticsearch/OpenSearch APIs.
//!
//! [`Proxy`] records every request and sends it on unchanged to a real node (HTTPS with the
//! node's CA and basic auth when it is secured), or answers 503 on demand: the admin-console
//! suites that run against real clusters assert what the console sent from its record.
//!
//! [`SearchTestServer`] is a front for osmem-server (an in-memory OpenSearch) that answers, in
//! the documented wire formats of Elasticsearch 8 and OpenSearch 2, the APIs osmem lacks or
//! answers as the single node it is: node statistics, tasks, snapshots, and a simulated
//! multi-node topology (shard routing, allocation explain, reroute). Every request it does not
//! answer itself goes to osmem unchanged. Every request it receives is recorded (unless
//! `Options::record_requests` is off, as in the binary), so tests can assert what a client
//! sent. The admin-console suites that still use it start it in-process with
//! [`SearchTestServer::start`]; the browser tests start the `search-test-server` binary.

mod allocation;
mod cat;
mod cat_cluster;
mod cluster;
mod forward;
mod http;
mod nodes;
mod nodes_stats;
mod proxy;
mod record;
mod reroute;
mod routing;
mod snapshot_restore;
mod snapshots;
mod tasks;
mod wire;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use actix_web::{App, HttpServer, web};

pub use nodes::SimNode;
pub use proxy::{Proxy, Upstream};
pub use record::Recorded;
pub use tasks::TaskSpec;

/// Which product the server plays where the documented APIs differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavor {
    /// OpenSearch 2: `cluster_manager` roles and columns, OpenSearch's messages.
    #[default]
    OpenSearch2,
    /// Elasticsearch 8: `master` roles and columns, an Elasticsearch root document.
    Elasticsearch8,
}

impl std::str::FromStr for Flavor {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "opensearch2" => Ok(Self::OpenSearch2),
            "elasticsearch8" => Ok(Self::Elasticsearch8),
            other => Err(format!(
                "unknown flavor {other:?} (use opensearch2 or elasticsearch8)"
            )),
        }
    }
}

/// The usage figures reported for every node (`_nodes/stats`, `_cat/nodes`).
#[derive(Debug, Clone, Copy)]
pub struct NodeUsage {
    pub heap_used_bytes: u64,
    pub heap_max_bytes: u64,
    pub disk_total_bytes: u64,
    pub disk_available_bytes: u64,
    pub cpu_percent: u64,
}

impl Default for NodeUsage {
    /// 25% heap, 60% disk, 7% CPU.
    fn default() -> Self {
        Self {
            heap_used_bytes: 256 << 20,
            heap_max_bytes: 1 << 30,
            disk_total_bytes: 100 << 30,
            disk_available_bytes: 40 << 30,
            cpu_percent: 7,
        }
    }
}

/// How the server is started.
#[derive(Debug, Clone)]
pub struct Options {
    /// The osmem-server every other request goes to.
    pub osmem_url: String,
    /// Simulated data nodes; with 1 the node is osmem's own (its id and name).
    pub nodes: usize,
    pub flavor: Flavor,
    pub usage: NodeUsage,
    /// How long a moved shard stays `RELOCATING` (and a retried one `INITIALIZING`).
    pub relocation: Duration,
    /// How long a snapshot stays `IN_PROGRESS`.
    pub snapshot_duration: Duration,
    /// Record every request for [`SearchTestServer::requests`] (tests). The binary, which runs
    /// for hours under `make run` and nobody asks, records nothing: the list would only grow.
    pub record_requests: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            osmem_url: String::new(),
            nodes: 1,
            flavor: Flavor::default(),
            usage: NodeUsage::default(),
            relocation: Duration::from_secs(1),
            snapshot_duration: Duration::from_millis(300),
            record_requests: true,
        }
    }
}

/// The state the handlers share with the test driving them.
pub(crate) struct Shared {
    pub(crate) osmem: String,
    pub(crate) client: reqwest::Client,
    pub(crate) options: Options,
    pub(crate) cluster_name: String,
    pub(crate) nodes: Vec<SimNode>,
    pub(crate) unavailable: AtomicBool,
    /// Calls answered 503 while unavailable.
    pub(crate) refused: Arc<AtomicUsize>,
    pub(crate) recorder: Mutex<Vec<Recorded>>,
    pub(crate) tasks: Mutex<tasks::Tasks>,
    pub(crate) routing: Mutex<routing::Routing>,
    pub(crate) snapshots: Mutex<snapshots::Snapshots>,
}

/// Locks a mutex, going on after a panic elsewhere (the state stays usable for the test).
pub(crate) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// rustls's `ring` provider as the process default, once (reqwest is built without one).
pub(crate) fn install_crypto_provider() {
    static CRYPTO: std::sync::Once = std::sync::Once::new();
    CRYPTO.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// A running server; dropping it stops it.
pub struct SearchTestServer {
    /// `http://127.0.0.1:<port>`
    pub url: String,
    shared: Arc<Shared>,
    handle: actix_web::dev::ServerHandle,
}

impl SearchTestServer {
    /// Starts on a free loopback port. Panics when osmem does not answer (a test set-up error).
    pub fn start(options: Options) -> Self {
        Self::start_on(options, "127.0.0.1", 0).expect("starting search-test-server")
    }

    /// Starts on `host:port` (0 picks a free port).
    pub fn start_on(options: Options, host: &str, port: u16) -> anyhow::Result<Self> {
        install_crypto_provider();
        anyhow::ensure!(options.nodes >= 1, "--nodes must be at least 1");
        let listener = std::net::TcpListener::bind((host, port))?;
        let address = listener.local_addr()?;
        let url = format!("http://{address}");
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let client = reqwest::Client::new();
                let osmem = options.osmem_url.trim_end_matches('/').to_owned();
                let (cluster_name, nodes) =
                    match nodes::simulated(&client, &osmem, &options, &address.to_string()).await {
                        Ok(simulated) => simulated,
                        Err(error) => {
                            let _ = sender.send(Err(error));
                            return;
                        }
                    };
                let shared = Arc::new(Shared {
                    osmem,
                    client,
                    cluster_name,
                    nodes,
                    unavailable: AtomicBool::new(false),
                    refused: Arc::new(AtomicUsize::new(0)),
                    recorder: Mutex::new(Vec::new()),
                    tasks: Mutex::new(tasks::Tasks::default()),
                    routing: Mutex::new(routing::Routing::default()),
                    snapshots: Mutex::new(snapshots::Snapshots::default()),
                    options,
                });
                let data = web::Data::from(shared.clone());
                let server = match HttpServer::new(move || {
                    App::new()
                        .app_data(data.clone())
                        .app_data(web::PayloadConfig::new(256 << 20))
                        .default_service(web::to(http::handle))
                })
                .workers(2)
                .disable_signals()
                .listen(listener)
                {
                    Ok(server) => server.run(),
                    Err(error) => {
                        let _ = sender.send(Err(error.into()));
                        return;
                    }
                };
                let _ = sender.send(Ok((server.handle(), shared)));
                let _ = server.await;
            });
        });
        let (handle, shared) = receiver
            .recv()
            .map_err(|_| anyhow::anyhow!("the server thread ended"))??;
        Ok(Self {
            url,
            shared,
            handle,
        })
    }

    /// The simulated nodes, in order (`node_index` 0 is the elected master).
    pub fn nodes(&self) -> Vec<SimNode> {
        self.shared.nodes.clone()
    }

    /// Every request received so far (answered here or forwarded), oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.shared.recorder).clone()
    }

    /// Forgets the recorded requests.
    pub fn clear_requests(&self) {
        lock(&self.shared.recorder).clear();
    }

    /// How many calls were answered 503 so far, readable from another thread.
    pub fn refused_calls(&self) -> impl Fn() -> usize + Send + 'static {
        let refused = self.shared.refused.clone();
        move || refused.load(Ordering::SeqCst)
    }

    /// From now on every call answers 503 like a cluster whose state is not recovered.
    pub fn set_unavailable(&self, unavailable: bool) {
        self.shared.unavailable.store(unavailable, Ordering::SeqCst);
    }

    /// Adds a simulated running task; returns its id `node_id:number`.
    pub fn add_task(&self, spec: TaskSpec) -> String {
        let node = &self.shared.nodes[spec.node_index.min(self.shared.nodes.len() - 1)];
        lock(&self.shared.tasks).add(spec, node)
    }

    /// Marks a replica of `index`/`shard` unassigned after failed allocations
    /// (`ALLOCATION_FAILED`, `failed_allocation_attempts: 5`), so that
    /// `_cluster/reroute?retry_failed=true` has something to retry. Reads osmem's indices first.
    pub fn fail_allocation(&self, index: &str, shard: u32) -> anyhow::Result<()> {
        let shared = self.shared.clone();
        let index = index.to_owned();
        let (sender, receiver) = std::sync::mpsc::channel();
        // The routing sync talks to osmem: run it on a runtime of its own (the caller may be
        // inside a test's runtime).
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(anyhow::Error::from);
            let result = runtime.and_then(|runtime| {
                runtime.block_on(async {
                    routing::sync(&shared).await?;
                    lock(&shared.routing).fail_allocation(&index, shard, &shared.nodes)
                })
            });
            let _ = sender.send(result);
        });
        receiver
            .recv()
            .map_err(|_| anyhow::anyhow!("fail_allocation panicked"))?
    }
}

impl SearchTestServer {
    /// The binary's `--seed`: a long-running cancellable reindex task, two non-cancellable
    /// ones, and an fs snapshot repository `backups` (its location under the temporary
    /// directory; nothing is written there).
    pub fn seed(&self) -> anyhow::Result<()> {
        snapshots::seed(&self.shared);
        let last = self.shared.nodes.len() - 1;
        self.add_task(TaskSpec {
            action: "indices:data/write/reindex".to_owned(),
            description: "reindex from [orders] to [orders-archive]".to_owned(),
            cancellable: true,
            node_index: 0,
        });
        self.add_task(TaskSpec {
            action: "indices:data/write/bulk".to_owned(),
            description: "requests[500], indices[logs-2026.11.24]".to_owned(),
            cancellable: false,
            node_index: last.min(1),
        });
        self.add_task(TaskSpec {
            action: "indices:admin/forcemerge".to_owned(),
            description: "Force-merge indices [orders-archive], maxSegments[1], \
                onlyExpungeDeletes[false], flush[true]"
                .to_owned(),
            cancellable: false,
            node_index: last,
        });
        Ok(())
    }
}

impl Drop for SearchTestServer {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

/// The front as the admin-console tests first knew it: one node, `_nodes/stats` with the given
/// usage, and the "not recovered" mode. A thin wrapper of [`SearchTestServer`].
pub struct ClusterStub(SearchTestServer);

impl ClusterStub {
    pub fn start(osmem_url: &str, usage: NodeUsage) -> Self {
        Self(SearchTestServer::start(Options {
            osmem_url: osmem_url.to_owned(),
            usage,
            ..Options::default()
        }))
    }
}

impl std::ops::Deref for ClusterStub {
    type Target = SearchTestServer;
    fn deref(&self) -> &SearchTestServer {
        &self.0
    }
}
