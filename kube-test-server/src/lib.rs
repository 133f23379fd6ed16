//! A faithful in-memory Kubernetes API server for tests and for `make run`. It holds namespaces,
//! ingresses, services, secrets, events, endpoint slices and two custom resources, Gateway API
//! `HTTPRoute`s and cert-manager `Certificate`s (see [`Kind`]; both CRDs always installed), in
//! the official wire formats. Every kind: get, list and watch per namespace and
//! across namespaces, create/replace/delete, `labelSelector` and `fieldSelector` (with the
//! field labels the API server supports, such as the events' `involvedObject.*` and `type`), list
//! with `resourceVersion`, `resourceVersionMatch`, `limit`/`continue`; watch
//! with `resourceVersion`, `allowWatchBookmarks`, `timeoutSeconds`, `sendInitialEvents`; 410 Gone
//! for compacted versions; `Status` bodies for errors; discovery and `Table` output so kubectl
//! works against it; and request counters (the benchmark's). No fault injection and no RBAC:
//! ingress-dash's tests and the soak run use the real API server behind
//! `test_support::kube_cluster::KubeFaultProxy` for that.
//!
//! [`sample`] fills a cluster with the sample set `make run` shows, situations included.

mod admission;
pub mod cert_manager;
mod collection;
mod counters;
mod discovery;
pub mod gateway;
mod gateway_defaults;
mod http;
mod kind;
pub mod sample;
mod select;
mod store;
mod table;
pub mod tls;
mod wire;
mod writes;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

pub use counters::Counters;
pub use kind::{Crd, Kind};
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

/// The cluster's state and counters, shared by the HTTP handlers and the code driving them.
#[derive(Clone)]
pub struct Cluster {
    store: Arc<Mutex<Store>>,
    pub(crate) counters: Arc<Counters>,
    options: Options,
}

impl Cluster {
    pub fn new(options: Options) -> Self {
        Self {
            store: Arc::new(Mutex::new(Store::new(options.history_limit))),
            counters: Arc::new(Counters::default()),
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
        self.list(Kind::Ingress, None)
    }

    /// Creates or replaces an object of any kind, as a controller or `kubectl apply` would
    /// leave it (status included): JSON in the kind's wire format, with `metadata.name` (and
    /// `metadata.namespace` for namespaced kinds; `default` if absent). `kind`/`apiVersion` in
    /// the object are ignored. A typed object goes in as `serde_json::to_value(&object)`.
    /// Watches see ADDED or MODIFIED. No admission runs: what is given is stored.
    pub fn put(&self, kind: Kind, object: Value) -> Arc<Value> {
        self.store().put(kind, object)
    }

    /// Deletes an object (`namespace` is ignored for cluster-scoped kinds); whether it existed.
    /// Deleting a namespace deletes every object in it first.
    pub fn delete(&self, kind: Kind, namespace: Option<&str>, name: &str) -> bool {
        self.store()
            .delete(kind, &object_key(kind, namespace, name))
    }

    /// One object as stored (no `kind`/`apiVersion`).
    pub fn get(&self, kind: Kind, namespace: Option<&str>, name: &str) -> Option<Arc<Value>> {
        self.store().get(kind, &object_key(kind, namespace, name))
    }

    /// The objects of `kind` now, in `namespace` or (`None`) everywhere, sorted by namespace
    /// and name.
    pub fn list(&self, kind: Kind, namespace: Option<&str>) -> Vec<Arc<Value>> {
        let scope = store::Scope {
            kind,
            namespace: namespace.map(str::to_owned),
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

    /// Watch connections open now.
    pub fn open_watches(&self) -> usize {
        self.store().open_watches()
    }

    /// List requests served (any status) since start, for tests of caching and deduplication.
    pub fn list_requests(&self) -> u64 {
        self.counters.list_requests.load(Ordering::SeqCst)
    }

    /// Watch requests received since start.
    pub fn watch_requests(&self) -> u64 {
        self.counters.watch_requests.load(Ordering::SeqCst)
    }
}

/// The store key: `namespace/name` for namespaced kinds, `name` otherwise.
fn object_key(kind: Kind, namespace: Option<&str>, name: &str) -> String {
    match kind.namespaced() {
        true => format!("{}/{name}", namespace.unwrap_or("default")),
        false => name.to_owned(),
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

/// The listen backlog: a burst of watchers connecting at once (a dashboard with a thousand
/// clients starting a hundred namespace watches) must queue, not be reset; std listens with 128.
const LISTEN_BACKLOG: i32 = 4096;

/// A listener on `host:port` with [`LISTEN_BACKLOG`] (the kernel caps it at
/// `net.core.somaxconn`).
fn listen(host: &str, port: u16) -> std::io::Result<std::net::TcpListener> {
    use std::net::ToSocketAddrs;

    let address = (host, port).to_socket_addrs()?.next().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{host}:{port} names no address"),
        )
    })?;
    let socket = socket2::Socket::new(
        socket2::Domain::for_address(address),
        socket2::Type::STREAM,
        Some(socket2::Protocol::TCP),
    )?;
    socket.set_reuse_address(true)?;
    socket.bind(&address.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

impl KubeTestServer {
    pub fn start(options: Options) -> std::io::Result<Self> {
        Self::start_on(options, "127.0.0.1", 0)
    }

    pub fn start_on(options: Options, host: &str, port: u16) -> std::io::Result<Self> {
        let cluster = Cluster::new(options);
        let listener = listen(host, port)?;
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
