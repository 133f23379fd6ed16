//! The actix server every service runs: request metrics, the common error body for extractor
//! rejections and unknown routes, liveness, and graceful shutdown; on two listeners:
//!
//! - the public one (`server.port`): liveness and the service's routes, what callers reach
//!   (through an Ingress, the front door or a published port);
//! - the internal one (`server.internal_port`): liveness, `/_metrics` and the service's
//!   internal routes (authproxy's forward_auth check), for the scraper and the front door
//!   only. Series name clusters, namespaces, ingresses and Secrets of every caller, and the
//!   check answers with identities and credentials: none of it belongs where callers reach.
//!   It is bound only when it has something to serve (metrics enabled or internal routes).
//!
//! Signals are handled here rather than by actix so that long-lived responses (Server-Sent
//! Events) can learn of the shutdown through [`ShutdownNotice`] and end: otherwise every open
//! stream holds the process for the whole shutdown time-out, and its clients reconnect only when
//! the process is killed.

use std::net::TcpListener;
use std::time::Duration;

use actix_web::body::MessageBody;
use actix_web::dev::{Server, ServiceFactory, ServiceRequest, ServiceResponse};
use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};
use metrics_exporter_prometheus::PrometheusHandle;
use tokio::sync::watch;

use crate::http::{ServiceVersion, configure_extractors, liveness, route_not_found};
use crate::metrics::{metrics_endpoint, prometheus_handle, record_request};

/// What differs between the services' servers, apart from their routes.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub host: String,
    /// 0 picks a free port; [`RunningServer::port`] tells which.
    pub port: u16,
    /// The internal listener's port (on `host`); 0 picks a free port,
    /// [`RunningServer::internal_port`] tells which.
    pub internal_port: u16,
    /// How long in-flight requests may go on after SIGTERM.
    pub shutdown_timeout: Duration,
    pub metrics_enabled: bool,
    pub version: &'static str,
    /// Liveness path, e.g. `/healthz` or `/api/live`.
    pub liveness_path: &'static str,
    /// Time a client has to send a request's head; `None` keeps actix's 5 s.
    pub client_request_timeout: Option<Duration>,
    /// How many bytes of a response a connection gathers before it writes them; `None` keeps
    /// actix's 32 KiB. A connection's write buffer starts at 8 KiB and keeps whatever it grew to
    /// (up to 128 KiB) for as long as the connection lives, so a service that holds thousands of
    /// long-lived responses (Server-Sent Events) sets this low and writes small chunks: each
    /// connection then stays within its first 8 KiB.
    pub write_buffer_bytes: Option<usize>,
}

pub struct RunningServer {
    port: u16,
    server: Server,
    /// The internal listener and its port, when it has something to serve.
    internal: Option<(u16, Server)>,
    stopping: watch::Sender<bool>,
}

/// What both listeners' apps have: request metrics, the common extractor errors, the version,
/// the recorder's handle, the shutdown notice and liveness.
#[derive(Clone)]
struct Shared {
    version: web::Data<ServiceVersion>,
    prometheus: web::Data<PrometheusHandle>,
    liveness_path: &'static str,
}

impl Shared {
    fn app(
        self,
        notice: web::Data<ShutdownNotice>,
    ) -> App<
        impl ServiceFactory<
            ServiceRequest,
            Config = (),
            Response = ServiceResponse<impl MessageBody>,
            Error = actix_web::Error,
            InitError = (),
        >,
    > {
        App::new()
            .wrap(from_fn(record_request))
            .configure(configure_extractors)
            .app_data(self.version)
            .app_data(self.prometheus)
            .app_data(notice)
            .route(self.liveness_path, web::get().to(liveness))
    }
}

/// App data every route can extract (`web::Data<ShutdownNotice>`) to learn that the server is
/// stopping, e.g. to end a stream so the client reconnects elsewhere.
#[derive(Debug, Clone)]
pub struct ShutdownNotice(watch::Receiver<bool>);

impl ShutdownNotice {
    /// A notice and the sender that sets it off (`send_replace(true)`); the server makes its
    /// own, tests of stream code make one by hand.
    pub fn channel() -> (watch::Sender<bool>, Self) {
        let (sender, receiver) = watch::channel(false);
        (sender, Self(receiver))
    }

    /// Resolves once SIGTERM or SIGINT has been received (or the server is gone).
    pub async fn stopping(&self) {
        let mut receiver = self.0.clone();
        let _ = receiver.wait_for(|stopping| *stopping).await;
    }
}

impl RunningServer {
    /// Binds and starts serving; `routes` adds the service's own routes and app data to the
    /// public listener, `internal_routes` (if any) to the internal one.
    pub fn start<F, G>(
        options: ServerOptions,
        routes: F,
        internal_routes: Option<G>,
    ) -> std::io::Result<Self>
    where
        F: Fn(&mut web::ServiceConfig) + Clone + Send + 'static,
        G: Fn(&mut web::ServiceConfig) + Clone + Send + 'static,
    {
        let listener = TcpListener::bind((options.host.as_str(), options.port))?;
        let port = listener.local_addr()?.port();
        let internal_listener = if options.metrics_enabled || internal_routes.is_some() {
            let listener = TcpListener::bind((options.host.as_str(), options.internal_port))?;
            Some(listener)
        } else {
            None
        };
        let shared = Shared {
            version: web::Data::new(ServiceVersion(options.version)),
            prometheus: web::Data::new(prometheus_handle()),
            liveness_path: options.liveness_path,
        };
        let (stopping, notice) = ShutdownNotice::channel();
        let notice = web::Data::new(notice);
        let public = {
            let (shared, notice) = (shared.clone(), notice.clone());
            HttpServer::new(move || {
                shared
                    .clone()
                    .app(notice.clone())
                    // The common 404 first, so a service whose routes set their own default
                    // service (authproxy standalone forwards every other path) replaces it.
                    .default_service(web::to(route_not_found))
                    .configure(routes.clone())
            })
        };
        let mut public = public
            .shutdown_timeout(options.shutdown_timeout.as_secs())
            .disable_signals();
        if let Some(timeout) = options.client_request_timeout {
            public = public.client_request_timeout(timeout);
        }
        if let Some(bytes) = options.write_buffer_bytes {
            public = public.h1_write_buffer_size(bytes);
        }
        let server = public.listen(listener)?.run();
        let internal = match internal_listener {
            Some(listener) => {
                let internal_port = listener.local_addr()?.port();
                let metrics_enabled = options.metrics_enabled;
                let mut internal = HttpServer::new(move || {
                    let mut app = shared.clone().app(notice.clone());
                    if metrics_enabled {
                        app = app.route("/_metrics", web::get().to(metrics_endpoint));
                    }
                    let app = app.default_service(web::to(route_not_found));
                    match &internal_routes {
                        Some(routes) => app.configure(routes.clone()),
                        None => app,
                    }
                })
                // Scrapes and the front door's checks: one worker is plenty.
                .workers(1)
                .shutdown_timeout(options.shutdown_timeout.as_secs())
                .disable_signals();
                if let Some(timeout) = options.client_request_timeout {
                    internal = internal.client_request_timeout(timeout);
                }
                Some((internal_port, internal.listen(listener)?.run()))
            }
            None => None,
        };
        Ok(Self {
            port,
            server,
            internal,
            stopping,
        })
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// The internal listener's port, when it is bound (metrics enabled or internal routes).
    pub fn internal_port(&self) -> Option<u16> {
        self.internal.as_ref().map(|(port, _)| *port)
    }

    /// Serves until SIGTERM or SIGINT, then stops accepting and lets in-flight requests finish
    /// within the shutdown time-out.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let (handle, stopping) = (self.server.handle(), self.stopping);
        let internal_handle = self.internal.as_ref().map(|(_, server)| server.handle());
        let on_signal = tokio::spawn(async move {
            let signal = shutdown_signal().await;
            tracing::info!(signal, "stopping: finishing in-flight requests");
            stopping.send_replace(true);
            match internal_handle {
                Some(internal) => {
                    tokio::join!(handle.stop(true), internal.stop(true));
                }
                None => handle.stop(true).await,
            }
        });
        let result = match self.internal {
            Some((_, internal)) => {
                let (public, internal) = tokio::join!(self.server, internal);
                public.and(internal)
            }
            None => self.server.await,
        };
        on_signal.abort();
        result
    }
}

/// The name of the first of SIGTERM and SIGINT to arrive (never, when the handlers could not
/// be installed).
async fn shutdown_signal() -> &'static str {
    match signals() {
        Ok(first) => first.await,
        Err(_) => std::future::pending().await,
    }
}

/// Installs the SIGTERM and SIGINT handlers (inside a Tokio runtime) and waits for the first
/// of them, answering its name.
fn signals() -> std::io::Result<impl std::future::Future<Output = &'static str>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = terminate.recv() => "SIGTERM",
                _ = interrupt.recv() => "SIGINT",
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
            "Ctrl-C"
        })
    }
}

/// Ends the process with status 0 at the first SIGTERM or SIGINT, from a thread of its own:
/// for a binary without this shell whose main thread only sleeps or parks (kube-test-server).
/// As PID 1 in a container a process has no default action for SIGTERM,
/// so without this `docker stop` would wait out its whole time-out and kill it.
///
/// # Errors
/// When the thread's runtime or the signal handlers cannot be set up.
pub fn exit_on_signal() -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (registered, ready) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        runtime.block_on(async {
            match signals() {
                Ok(first) => {
                    let _ = registered.send(Ok(()));
                    first.await;
                    std::process::exit(0);
                }
                Err(error) => {
                    let _ = registered.send(Err(error));
                }
            }
        });
    });
    ready
        .recv()
        .unwrap_or_else(|_| Err(std::io::Error::other("the signal thread ended")))
}
