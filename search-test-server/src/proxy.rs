//! A recording and fault proxy before a real cluster: every request is recorded, then sent on
//! unchanged (method, path, query, body, content type) to the upstream, which may be HTTPS with
//! a CA of its own and basic auth that the proxy adds; the upstream's answer comes back as it
//! was. A test puts it between the client under test and a real node to assert what the client
//! sent, and switches it to answer 503 to see how the client takes a cluster that does not
//! answer, or to refuse one user's requests with 401 the way a cluster refuses a credential it
//! cannot authenticate.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};

use crate::forward::forward_to;
use crate::lock;
use crate::record::Recorded;
use crate::wire::{es_error, json_response, not_recovered};

/// Where a [`Proxy`] sends what it receives.
#[derive(Debug, Clone, Default)]
pub struct Upstream {
    /// `http://host:port` or `https://host:port`.
    pub url: String,
    /// The PEM CA that signed an HTTPS upstream's certificate (the only one trusted).
    pub ca_file: Option<PathBuf>,
    /// `(user, password)` sent as basic auth with every request that has no `authorization`
    /// of its own.
    pub basic_auth: Option<(String, String)>,
}

struct State {
    upstream: Upstream,
    client: reqwest::Client,
    recorder: Mutex<Vec<Recorded>>,
    unavailable: AtomicBool,
    refused: Arc<AtomicUsize>,
    rejected_users: Mutex<HashSet<String>>,
}

/// A running proxy; dropping it stops it.
pub struct Proxy {
    /// `http://127.0.0.1:<port>`
    pub url: String,
    state: Arc<State>,
    handle: actix_web::dev::ServerHandle,
}

impl Proxy {
    /// Starts on a free loopback port. Panics on a set-up error (an unreadable CA file).
    pub fn start(upstream: Upstream) -> Self {
        Self::try_start(upstream).expect("starting the recording proxy")
    }

    pub fn try_start(upstream: Upstream) -> anyhow::Result<Self> {
        Self::try_start_on(upstream, 0)
    }

    /// As [`Proxy::start`], on `port` of the loopback: a proxy started again on the port of one
    /// that was dropped is a cluster down (its port refuses connections) and back.
    pub fn start_on(upstream: Upstream, port: u16) -> Self {
        Self::try_start_on(upstream, port).expect("starting the recording proxy")
    }

    /// As [`Proxy::try_start`], on `port` of the loopback (0: a free one).
    pub fn try_start_on(upstream: Upstream, port: u16) -> anyhow::Result<Self> {
        crate::install_crypto_provider();
        let mut client = reqwest::Client::builder();
        if let Some(ca_file) = &upstream.ca_file {
            let pem = std::fs::read(ca_file)
                .map_err(|error| anyhow::anyhow!("reading {}: {error}", ca_file.display()))?;
            client = client.tls_certs_only([reqwest::Certificate::from_pem(&pem)?]);
        }
        let state = Arc::new(State {
            upstream: Upstream {
                url: upstream.url.trim_end_matches('/').to_owned(),
                ..upstream
            },
            client: client.build()?,
            recorder: Mutex::new(Vec::new()),
            unavailable: AtomicBool::new(false),
            refused: Arc::new(AtomicUsize::new(0)),
            rejected_users: Mutex::new(HashSet::new()),
        });
        let listener = std::net::TcpListener::bind(("127.0.0.1", port))?;
        let url = format!("http://{}", listener.local_addr()?);
        let (sender, receiver) = std::sync::mpsc::channel();
        let data = web::Data::from(state.clone());
        std::thread::spawn(move || {
            actix_web::rt::System::new().block_on(async move {
                let server = match HttpServer::new(move || {
                    App::new()
                        .app_data(data.clone())
                        .app_data(web::PayloadConfig::new(256 << 20))
                        .default_service(web::to(handle))
                })
                .workers(2)
                .disable_signals()
                .listen(listener)
                {
                    Ok(server) => server.run(),
                    Err(error) => {
                        let _ = sender.send(Err(anyhow::Error::from(error)));
                        return;
                    }
                };
                let _ = sender.send(Ok(server.handle()));
                let _ = server.await;
            });
        });
        let handle = receiver
            .recv()
            .map_err(|_| anyhow::anyhow!("the proxy thread ended"))??;
        Ok(Self { url, state, handle })
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state.recorder).clone()
    }

    /// Forgets the recorded requests.
    pub fn clear_requests(&self) {
        lock(&self.state.recorder).clear();
    }

    /// From now on every call answers 503 like a cluster whose state is not recovered, without
    /// reaching the upstream.
    pub fn set_unavailable(&self, unavailable: bool) {
        self.state.unavailable.store(unavailable, Ordering::SeqCst);
    }

    /// From now on every request with the Basic credential of `user` (whatever its password)
    /// answers 401 with the clusters' `security_exception`, without reaching the upstream: a
    /// cluster that refuses a user, even after its password was set again.
    pub fn reject_user(&self, user: &str) {
        lock(&self.state.rejected_users).insert(user.to_owned());
    }

    /// How many calls were answered 503 so far, readable from another thread.
    pub fn refused_calls(&self) -> impl Fn() -> usize + Send + 'static {
        let refused = self.state.refused.clone();
        move || refused.load(Ordering::SeqCst)
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        drop(self.handle.stop(false));
    }
}

async fn handle(request: HttpRequest, body: web::Bytes, state: web::Data<State>) -> HttpResponse {
    let recorded = Recorded::of(&request, &body);
    let user = recorded.basic_user();
    lock(&state.recorder).push(recorded);
    if state.unavailable.load(Ordering::SeqCst) {
        state.refused.fetch_add(1, Ordering::SeqCst);
        return json_response(503, &not_recovered());
    }
    if let Some(user) = user
        && lock(&state.rejected_users).contains(&user)
    {
        let reason = format!(
            "unable to authenticate user [{user}] for REST request [{}]",
            request.path()
        );
        let mut answer = es_error(401, "security_exception", &reason);
        answer.headers_mut().insert(
            actix_web::http::header::WWW_AUTHENTICATE,
            actix_web::http::header::HeaderValue::from_static(
                "Basic realm=\"security\" charset=\"UTF-8\"",
            ),
        );
        return answer;
    }
    forward_to(
        &state.client,
        &state.upstream.url,
        state.upstream.basic_auth.as_ref(),
        &request,
        body,
    )
    .await
}
