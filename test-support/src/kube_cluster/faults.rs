//! A fault-injecting proxy before the real API server, for what kube-apiserver will not do on
//! demand: a burst of 5xx answers, watch requests refused with a chosen status while lists go
//! on working, watches answered as from a compacted version (one `ERROR` event with a 410
//! `Expired` Status), watch streams cut in the middle of an event line, every open watch dropped
//! at once, connections refused for a while (nothing listens on the proxy's port), added
//! latency, and counts of list and watch requests and of the watch streams open through it. Everything else goes to the API server unchanged and
//! streams back as it comes (watches included). The client talks plain HTTP on loopback to the
//! proxy and brings its own bearer token, which the proxy passes on over HTTPS.
//!
//! The Status bodies are the API server's own wire format (`metav1.Status`: kind, apiVersion,
//! status, message, reason, code, details).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use futures_util::StreamExt;
use serde_json::{Value, json};

use super::KubeCluster;

/// The faults to inject, set by the test at any time.
#[derive(Debug)]
pub struct Faults {
    failing: AtomicU64,
    failing_code: AtomicU64,
    failing_watches: AtomicU64,
    failing_watches_code: AtomicU64,
    expiring_watches: AtomicU64,
    cut_events: AtomicU64,
    latency_ms: AtomicU64,
    list_requests: AtomicU64,
    /// The path of each list request, in order.
    list_paths: Mutex<Vec<String>>,
    watch_requests: AtomicU64,
    open_watches: AtomicU64,
    /// Bumped to drop every watch open at the time.
    drops: tokio::sync::watch::Sender<u64>,
}

impl Default for Faults {
    fn default() -> Self {
        Self {
            failing: AtomicU64::default(),
            failing_code: AtomicU64::default(),
            failing_watches: AtomicU64::default(),
            failing_watches_code: AtomicU64::default(),
            expiring_watches: AtomicU64::default(),
            cut_events: AtomicU64::default(),
            latency_ms: AtomicU64::default(),
            list_requests: AtomicU64::default(),
            list_paths: Mutex::default(),
            watch_requests: AtomicU64::default(),
            open_watches: AtomicU64::default(),
            drops: tokio::sync::watch::Sender::new(0),
        }
    }
}

impl Faults {
    /// The next `count` requests answer `code` (500, 502, 503, 504) with the API server's
    /// Status for it.
    pub fn fail_next(&self, count: u64, code: u16) {
        self.failing_code.store(u64::from(code), Ordering::SeqCst);
        self.failing.store(count, Ordering::SeqCst);
    }

    /// The next `count` watch requests (not lists) answer `code`: 401, 403, 404, 429 (with
    /// `Retry-After: 1`) or a 5xx, each with the API server's Status.
    pub fn fail_next_watches(&self, count: u64, code: u16) {
        self.failing_watches_code
            .store(u64::from(code), Ordering::SeqCst);
        self.failing_watches.store(count, Ordering::SeqCst);
    }

    /// The next `count` watch requests get 200 and one `ERROR` event with a 410 `Expired`
    /// Status, then the end of the stream: how the API server answers a watch from a version
    /// older than its history.
    pub fn expire_next_watches(&self, count: u64) {
        self.expiring_watches.store(count, Ordering::SeqCst);
    }

    /// The next `count` events on open watches are cut in the middle of their line and the
    /// connection is dropped, as a load balancer dropping it mid-stream would.
    pub fn cut_next_events(&self, count: u64) {
        self.cut_events.store(count, Ordering::SeqCst);
    }

    /// Every request waits this long before it is forwarded.
    pub fn set_latency(&self, latency: Duration) {
        self.latency_ms
            .store(latency.as_millis() as u64, Ordering::SeqCst);
    }

    /// Collection reads without `watch` seen so far.
    pub fn list_requests(&self) -> u64 {
        self.list_requests.load(Ordering::SeqCst)
    }

    /// Collection reads without `watch` seen so far whose path ends in the collection
    /// `resource` (`gateways`: `/apis/gateway.networking.k8s.io/v1/namespaces/x/gateways`).
    pub fn list_requests_of(&self, resource: &str) -> u64 {
        let paths = self.list_paths.lock().unwrap_or_else(|e| e.into_inner());
        paths
            .iter()
            .filter(|path| path.trim_end_matches('/').rsplit('/').next() == Some(resource))
            .count() as u64
    }

    /// Watch requests seen so far.
    pub fn watch_requests(&self) -> u64 {
        self.watch_requests.load(Ordering::SeqCst)
    }

    /// Watch streams the API server answered and the proxy is passing on now (a client that
    /// went away counts until the proxy's next write to it fails or its connection closes).
    pub fn open_watches(&self) -> u64 {
        self.open_watches.load(Ordering::SeqCst)
    }

    /// Drops every watch open now, as a load balancer dropping its connections would: the
    /// connection breaks without the chunked body's end. Later watches are not touched.
    pub fn drop_watches(&self) {
        self.drops.send_modify(|generation| *generation += 1);
    }
}

/// One open watch stream, counted while it lives.
struct OpenWatch(Arc<Faults>);

impl OpenWatch {
    fn new(faults: Arc<Faults>) -> Self {
        faults.open_watches.fetch_add(1, Ordering::SeqCst);
        Self(faults)
    }
}

impl Drop for OpenWatch {
    fn drop(&mut self) {
        self.0.open_watches.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The proxy; dropping it stops it.
pub struct KubeFaultProxy {
    /// `http://127.0.0.1:<port>`
    pub url: String,
    pub faults: Arc<Faults>,
    upstream: web::Data<Upstream>,
    /// The running server; `None` while connections are refused.
    handle: Mutex<Option<actix_web::dev::ServerHandle>>,
}

struct Upstream {
    url: String,
    client: reqwest::Client,
    faults: Arc<Faults>,
}

impl KubeFaultProxy {
    /// A proxy before `cluster`'s API server on a free loopback port.
    pub fn start(cluster: &KubeCluster) -> Self {
        let faults = Arc::new(Faults::default());
        let upstream = web::Data::new(Upstream {
            url: cluster.url().to_owned(),
            client: cluster.client(),
            faults: faults.clone(),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
        let url = format!("http://{}", listener.local_addr().expect("its address"));
        let handle = serve(listener, upstream.clone());
        Self {
            url,
            faults,
            upstream,
            handle: Mutex::new(Some(handle)),
        }
    }

    /// Stops listening: connections to the proxy's port are refused (as to an API server that
    /// is down) and the open ones, watches included, are dropped, until
    /// [`Self::accept_connections`].
    pub async fn refuse_connections(&self) {
        let handle = self.handle.lock().expect("the handle").take();
        if let Some(handle) = handle {
            handle.stop(false).await;
        }
    }

    /// Listens again on the same port after [`Self::refuse_connections`].
    pub async fn accept_connections(&self) {
        if self.handle.lock().expect("the handle").is_some() {
            return;
        }
        let address = self.url.trim_start_matches("http://").to_owned();
        // The stopped server's socket may take a moment to be released.
        let listener = crate::eventually_with(
            "the proxy's port is free again",
            Duration::from_secs(10),
            async || std::net::TcpListener::bind(&address),
        )
        .await;
        let handle = serve(listener, self.upstream.clone());
        *self.handle.lock().expect("the handle") = Some(handle);
    }

    /// A kubeconfig for a client of the proxy: its URL and `token`.
    pub fn kubeconfig(&self, token: &str) -> String {
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: proxy\n  cluster:\n    server: {}\ncontexts:\n- name: proxy\n  context:\n    cluster: proxy\n    user: proxy\ncurrent-context: proxy\nusers:\n- name: proxy\n  user:\n    token: {token}\n",
            self.url
        )
    }
}

impl Drop for KubeFaultProxy {
    fn drop(&mut self) {
        // Stopping is asynchronous; the server's own thread finishes it.
        if let Some(handle) = self.handle.lock().expect("the handle").take() {
            drop(handle.stop(false));
        }
    }
}

/// Serves the proxy on `listener` in a thread of its own; the server's handle.
fn serve(
    listener: std::net::TcpListener,
    upstream: web::Data<Upstream>,
) -> actix_web::dev::ServerHandle {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(upstream.clone())
                    .default_service(web::to(forward))
            })
            .workers(2)
            .disable_signals()
            .listen(listener)
            .expect("listening")
            .run();
            let _ = sender.send(server.handle());
            let _ = server.await;
        });
    });
    receiver.recv().expect("the proxy's server started")
}

/// Takes one from `remaining` if any is left.
fn take_one(remaining: &AtomicU64) -> bool {
    remaining
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
            left.checked_sub(1)
        })
        .is_ok()
}

/// A `metav1.Status` failure.
fn status(code: u16, reason: &str, message: &str, details: Option<Value>) -> Value {
    let mut body = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": message, "reason": reason, "code": code,
    });
    if let Some(details) = details {
        body["details"] = details;
    }
    body
}

/// The API server's Status for `code`, and a `Retry-After` where it sends one.
fn failure(code: u16) -> HttpResponse {
    let body = match code {
        401 => status(401, "Unauthorized", "Unauthorized", None),
        403 => status(
            403,
            "Forbidden",
            "forbidden: the fault proxy refuses this request",
            None,
        ),
        404 => status(
            404,
            "NotFound",
            "the server could not find the requested resource",
            None,
        ),
        429 => status(
            429,
            "TooManyRequests",
            "Too many requests, please try again later.",
            Some(json!({"retryAfterSeconds": 1})),
        ),
        503 => status(
            503,
            "ServiceUnavailable",
            "the server is currently unable to handle the request",
            None,
        ),
        504 => status(
            504,
            "Timeout",
            "Timeout: request did not complete within the allowed duration",
            None,
        ),
        other => status(
            other,
            "InternalError",
            "an error on the server (\"injected by the fault proxy\") has prevented the request from succeeding",
            None,
        ),
    };
    let mut response =
        HttpResponse::build(StatusCode::from_u16(code).unwrap_or(StatusCode::BAD_GATEWAY));
    if code == 429 {
        response.insert_header(("Retry-After", "1"));
    }
    response.content_type("application/json").json(body)
}

/// Whether `path` names a collection (`/api/v1/<resource>`, `/apis/<group>/<version>/
/// namespaces/<namespace>/<resource>`…), not one object.
fn is_collection(path: &str) -> bool {
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let rest = match segments.as_slice() {
        ["api", _version, rest @ ..] => rest,
        ["apis", _group, _version, rest @ ..] => rest,
        _ => return false,
    };
    rest.len() == 1 || (rest.len() == 3 && rest[0] == "namespaces")
}

async fn forward(
    request: HttpRequest,
    body: web::Bytes,
    upstream: web::Data<Upstream>,
) -> HttpResponse {
    let faults = &upstream.faults;
    let query = request.query_string();
    let watch = query
        .split('&')
        .any(|pair| pair == "watch=1" || pair == "watch=true");
    let reads_collection =
        request.method() == actix_web::http::Method::GET && is_collection(request.path());
    if reads_collection {
        match watch {
            true => &faults.watch_requests,
            false => &faults.list_requests,
        }
        .fetch_add(1, Ordering::SeqCst);
        if !watch {
            faults
                .list_paths
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(request.path().to_owned());
        }
    }
    // Counted as it comes: a client that gives up during the latency has still asked.
    let latency = faults.latency_ms.load(Ordering::SeqCst);
    if latency > 0 {
        tokio::time::sleep(Duration::from_millis(latency)).await;
    }
    if take_one(&faults.failing) {
        return failure(faults.failing_code.load(Ordering::SeqCst) as u16);
    }
    if watch {
        if take_one(&faults.failing_watches) {
            return failure(faults.failing_watches_code.load(Ordering::SeqCst) as u16);
        }
        if take_one(&faults.expiring_watches) {
            let event = json!({"type": "ERROR", "object": status(
                410,
                "Expired",
                "too old resource version: 1 (2)",
                None,
            )});
            return HttpResponse::Ok()
                .content_type("application/json")
                .body(format!("{event}\n"));
        }
    }
    let mut target = format!("{}{}", upstream.url, request.path());
    if !query.is_empty() {
        target = format!("{target}?{query}");
    }
    let method = reqwest::Method::from_bytes(request.method().as_str().as_bytes())
        .unwrap_or(reqwest::Method::GET);
    let mut outgoing = upstream.client.request(method, target).body(body.to_vec());
    for (name, value) in request.headers() {
        if !matches!(name.as_str(), "host" | "content-length" | "connection") {
            outgoing = outgoing.header(name.as_str(), value.as_bytes());
        }
    }
    let answer = match outgoing.send().await {
        Ok(answer) => answer,
        Err(error) => {
            return HttpResponse::BadGateway()
                .body(format!("the API server did not answer: {error}"));
        }
    };
    let mut response = HttpResponse::build(
        StatusCode::from_u16(answer.status().as_u16()).unwrap_or(StatusCode::BAD_GATEWAY),
    );
    for (name, value) in answer.headers() {
        if !matches!(
            name.as_str(),
            "content-length" | "transfer-encoding" | "connection"
        ) {
            response.insert_header((name.as_str(), value.as_bytes()));
        }
    }
    if !watch {
        return match answer.bytes().await {
            Ok(bytes) => response.body(bytes),
            Err(error) => HttpResponse::BadGateway().body(format!("reading the answer: {error}")),
        };
    }
    // A watch streams; the next event may be cut in its middle, and the connection then drops
    // without the chunked body's end; [`Faults::drop_watches`] drops it between events.
    let faults = upstream.faults.clone();
    let open = OpenWatch::new(faults.clone());
    let mut drops = faults.drops.subscribe();
    drops.mark_unchanged();
    let watch = Watch {
        chunks: Box::pin(answer.bytes_stream()),
        drops,
        open,
        next: Next::Forward,
    };
    response.streaming(futures_util::stream::unfold(watch, Watch::next))
}

/// What a watch stream does next.
enum Next {
    Forward,
    /// Drop the connection after a moment (so that the half event before is on the wire).
    CutAfterHalf,
    End,
}

/// A watch passed on from the API server to the client.
struct Watch {
    chunks: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<web::Bytes>> + Send>>,
    drops: tokio::sync::watch::Receiver<u64>,
    open: OpenWatch,
    next: Next,
}

/// The error that breaks a connection without the chunked body's end.
fn dropped(why: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::ConnectionReset, why.to_owned())
}

impl Watch {
    async fn next(mut self) -> Option<(std::io::Result<web::Bytes>, Self)> {
        match self.next {
            Next::End => return None,
            Next::CutAfterHalf => {
                tokio::time::sleep(Duration::from_millis(100)).await;
                self.next = Next::End;
                return Some((Err(dropped("watch cut mid-event by the fault proxy")), self));
            }
            Next::Forward => {}
        }
        let chunk = tokio::select! {
            chunk = self.chunks.next() => chunk?,
            _ = self.drops.changed() => {
                self.next = Next::End;
                return Some((Err(dropped("watch dropped by the fault proxy")), self));
            }
        };
        match chunk {
            Err(error) => {
                self.next = Next::End;
                Some((Err(std::io::Error::other(error)), self))
            }
            Ok(chunk) if chunk.len() > 1 && take_one(&self.open.0.cut_events) => {
                self.next = Next::CutAfterHalf;
                Some((Ok(chunk.slice(..chunk.len() / 2)), self))
            }
            Ok(chunk) => Some((Ok(chunk), self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_collection;

    #[test]
    fn collections_and_objects_are_told_apart() {
        for collection in [
            "/api/v1/namespaces",
            "/api/v1/services",
            "/api/v1/namespaces/team-a/services",
            "/apis/networking.k8s.io/v1/ingresses",
            "/apis/networking.k8s.io/v1/namespaces/team-a/ingresses",
        ] {
            assert!(is_collection(collection), "{collection}");
        }
        for object in [
            "/api/v1/namespaces/team-a",
            "/api/v1/namespaces/team-a/services/web",
            "/apis/networking.k8s.io/v1/namespaces/team-a/ingresses/web",
            "/apis",
            "/version",
        ] {
            assert!(!is_collection(object), "{object}");
        }
    }
}
