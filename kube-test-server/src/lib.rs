//! A faithful in-memory Kubernetes API server for namespaces and ingresses, for tests and for
//! `make run`: list with `resourceVersion`, `resourceVersionMatch`, `limit`/`continue`; watch
//! with `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`, `sendInitialEvents`; 410 Gone
//! for compacted versions; `Status` bodies for errors; discovery and `Table` output so kubectl
//! works against it; and fault injection (403 per namespace or at cluster scope, 5xx bursts,
//! latency, dropped watch connections, watches cut mid-event, forced 410 on watch, compaction,
//! refused connections by serving a cluster again on the same port), also reachable over HTTP
//! at `POST /__test/faults` for runs that drive the binary.

mod faults;
mod http;
mod kind;
pub mod sample;
mod store;
mod wire;
mod writes;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

pub use faults::Faults;
use kind::Kind;
use store::Store;

/// How the server behaves where the API server's behaviour is a setting.
#[derive(Debug, Clone)]
pub struct Options {
    /// Changes kept for watches and paginated lists before older versions answer 410.
    pub history_limit: usize,
    /// Period of BOOKMARK events for watches that allow them.
    pub bookmark_interval: Duration,
    /// Watch duration when the client sends no `timeoutSeconds`.
    pub default_watch_timeout: Duration,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            history_limit: 10_000,
            bookmark_interval: Duration::from_secs(5),
            default_watch_timeout: Duration::from_secs(1800),
        }
    }
}

/// The cluster's state and faults, shared by the HTTP handlers and the test driving them.
#[derive(Clone)]
pub struct Cluster {
    store: Arc<Mutex<Store>>,
    pub faults: Arc<Faults>,
    options: Options,
}

impl Cluster {
    pub fn new(options: Options) -> Self {
        Self {
            store: Arc::new(Mutex::new(Store::new(options.history_limit))),
            faults: Arc::new(Faults::default()),
            options,
        }
    }

    fn store(&self) -> std::sync::MutexGuard<'_, Store> {
        self.store
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The current resourceVersion of the cluster.
    pub fn revision(&self) -> u64 {
        self.store().revision()
    }

    pub fn add_namespace(&self, name: &str) -> Arc<Value> {
        self.store().put(
            Kind::Namespace,
            json!({
                "metadata": {"name": name, "labels": {"kubernetes.io/metadata.name": name}},
                "spec": {"finalizers": ["kubernetes"]},
                "status": {"phase": "Active"},
            }),
        )
    }

    /// Creates or replaces an ingress (a JSON `Ingress` with metadata.name and namespace).
    pub fn put_ingress(&self, ingress: Value) -> Arc<Value> {
        self.store().put(Kind::Ingress, ingress)
    }

    pub fn delete_ingress(&self, namespace: &str, name: &str) -> bool {
        self.store()
            .delete(Kind::Ingress, &format!("{namespace}/{name}"))
    }

    pub fn ingress(&self, namespace: &str, name: &str) -> Option<Arc<Value>> {
        self.store()
            .get(Kind::Ingress, &format!("{namespace}/{name}"))
    }

    /// Every ingress now, sorted by namespace and name.
    pub fn ingresses(&self) -> Vec<Arc<Value>> {
        let scope = store::Scope {
            kind: Kind::Ingress,
            namespace: None,
        };
        self.store()
            .snapshot(&scope, None)
            .map(|snapshot| snapshot.items.into_iter().map(|(_, item)| item).collect())
            .unwrap_or_default()
    }

    /// Forgets the change history: older resourceVersions answer 410 and open watches get an
    /// ERROR 410 event.
    pub fn compact(&self) {
        self.store().compact();
    }

    /// Breaks every open watch connection without a final event.
    pub fn drop_watches(&self) {
        self.store().drop_watches();
    }

    /// Watch connections open now.
    pub fn open_watches(&self) -> usize {
        self.store().open_watches()
    }

    /// List requests served (any status) since start, for tests of caching and deduplication.
    pub fn list_requests(&self) -> u64 {
        self.faults.list_requests.load(Ordering::SeqCst)
    }

    /// Watch requests received since start.
    pub fn watch_requests(&self) -> u64 {
        self.faults.watch_requests.load(Ordering::SeqCst)
    }
}

/// A running server on a loopback port, on its own thread and runtime so it is unaffected by
/// the caller's runtime (paused time included). Stopped on drop.
pub struct KubeTestServer {
    pub cluster: Cluster,
    url: String,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl KubeTestServer {
    pub fn start(options: Options) -> std::io::Result<Self> {
        Self::start_on(options, "127.0.0.1", 0)
    }

    pub fn start_on(options: Options, host: &str, port: u16) -> std::io::Result<Self> {
        Self::serve(Cluster::new(options), host, port)
    }

    /// Serves an existing cluster (its objects, history and faults) on `host:port`. A test
    /// drops a server and serves its cluster again on the same port to have the API refuse
    /// connections for a while and then come back with its state.
    pub fn serve(cluster: Cluster, host: &str, port: u16) -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind((host, port))?;
        let address = listener.local_addr()?;
        let (started, receiver) = std::sync::mpsc::channel();
        let (stop, stop_requested) = tokio::sync::oneshot::channel();
        let served = cluster.clone();
        let thread = std::thread::Builder::new()
            .name("kube-test-server".into())
            .spawn(move || {
                let system = actix_web::rt::System::new();
                let result = system.block_on(async move {
                    match http::server(served, listener) {
                        Ok(server) => {
                            let handle = server.handle();
                            actix_web::rt::spawn(async move {
                                let _ = stop_requested.await;
                                handle.stop(false).await;
                            });
                            let _ = started.send(Ok(()));
                            server.await
                        }
                        Err(error) => {
                            let _ = started.send(Err(error));
                            Ok(())
                        }
                    }
                });
                if let Err(error) = result {
                    eprintln!("kube-test-server stopped: {error}");
                }
            })?;
        match receiver.recv() {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return Err(error),
            Err(_) => return Err(std::io::Error::other("kube-test-server failed to start")),
        };
        Ok(Self {
            cluster,
            url: format!("http://{address}"),
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// A kubeconfig for this server over plain HTTP, for kubectl and kube clients.
    pub fn kubeconfig(&self) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {url}\ncontexts:\n- name: test\n  context:\n    cluster: test\n    user: test\ncurrent-context: test\nusers:\n- name: test\n  user:\n    token: test-token\n",
            url = self.url
        )
    }
}

impl Drop for KubeTestServer {
    fn drop(&mut self) {
        // The server runs on its own thread and runtime, so waiting for it here cannot
        // deadlock the caller's runtime.
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
