//! A fault-injecting proxy before the real API server, for what kube-apiserver will not do on
//! demand: a burst of 5xx answers, watch requests refused with a chosen status while lists go
//! on working, watches answered as from a compacted version (one `ERROR` event with a 410
//! `Expired` Status), watch streams cut in the middle of an event line, added latency, and a
//! count of list and watch requests. Everything else goes to the API server unchanged and
//! streams back as it comes (watches included). The client talks plain HTTP on loopback to the
//! proxy and brings its own bearer token, which the proxy passes on over HTTPS.
//!
//! The Status bodies are the API server's own wire format (`metav1.Status`: kind, apiVersion,
//! status, message, reason, code, details).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use actix_web::http::StatusCode;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use futures_util::StreamExt;
use serde_json::{Value, json};

use super::KubeCluster;

/// The faults to inject, set by the test at any time.
#[derive(Debug, Default)]
pub struct Faults {
    failing: AtomicU64,
    failing_code: AtomicU64,
    failing_watches: AtomicU64,
    failing_watches_code: AtomicU64,
    expiring_watches: AtomicU64,
    cut_events: AtomicU64,
    latency_ms: AtomicU64,
    list_requests: AtomicU64,
    watch_requests: AtomicU64,
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

    /// Watch requests seen so far.
    pub fn watch_requests(&self) -> u64 {
        self.watch_requests.load(Ordering::SeqCst)
    }
}

/// The proxy; dropping it stops it.
pub struct KubeFaultProxy {
    /// `http://127.0.0.1:<port>`
    pub url: String,
    pub faults: Arc<Faults>,
    handle: actix_web::dev::ServerHandle,
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
        let handle = receiver.recv().expect("the proxy's server started");
        Self {
            url,
            faults,
            handle,
        }
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
        drop(self.handle.stop(false));
    }
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
    let latency = faults.latency_ms.load(Ordering::SeqCst);
    if latency > 0 {
        tokio::time::sleep(Duration::from_millis(latency)).await;
    }
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
    // without the chunked body's end.
    let faults = upstream.faults.clone();
    let events = answer.bytes_stream().flat_map(move |chunk| {
        let cut = matches!(&chunk, Ok(chunk) if chunk.len() > 1 && take_one(&faults.cut_events));
        let (now, then) = match chunk {
            Err(error) => (Err(std::io::Error::other(error)), None),
            Ok(chunk) if cut => (Ok(chunk.slice(..chunk.len() / 2)), Some(())),
            Ok(chunk) => (Ok(chunk), None),
        };
        // After half an event, the connection drops without the chunked body's end; a moment
        // later, so that the half is on the wire first.
        let drop_after = then.map(|()| async {
            tokio::time::sleep(Duration::from_millis(100)).await;
            Err(std::io::Error::new(
                std::io::ErrorKind::ConnectionReset,
                "watch cut mid-event by the fault proxy",
            ))
        });
        futures_util::stream::iter([now])
            .chain(futures_util::stream::iter(drop_after).then(|drop| drop))
    });
    response.streaming(events)
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
