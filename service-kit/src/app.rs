//! The application shell every service runs: a service says what is its own (name, settings,
//! state, routes, background tasks) by implementing [`Service`]; [`Application`] builds and
//! binds it, and [`main`] is the whole `main` of its binary.
//!
//! ```text
//! main::<S>()  ─ cli::run: --version, --healthcheck, load + validate settings, logging
//!   └ Application::<S>::build(settings)
//!       ├ crypto provider, Prometheus recorder   (before the service registers metrics)
//!       ├ S::connect(&settings)                  (clients the service needs first)
//!       └ build_with(service, settings)
//!           ├ service.prepare(settings) → Prepared { state, routes, background }
//!           └ server::RunningServer::start       (bind: public listener with liveness and
//!                                                 routes; internal one with liveness,
//!                                                 /_metrics and internal routes)
//!   └ run_until_stopped()                        (until SIGTERM/SIGINT, then abort background)
//! ```

use std::future::Future;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use actix_web::web;
use tokio::task::JoinHandle;

use crate::server::{RunningServer, ServerOptions};
use crate::settings::ServiceSettings;

/// The service's routes and app data, added to the shell's on every worker.
type Routes = Arc<dyn Fn(&mut web::ServiceConfig) + Send + Sync>;

/// One service: what the shell cannot know.
pub trait Service: Sized + 'static {
    /// The binary's name, in `--version`, log lines and error messages; in upper case with `_`
    /// for `-`, the prefix of its environment overrides (`ADMIN_CONSOLE_SERVER__PORT`).
    const NAME: &'static str;
    const VERSION: &'static str;
    /// The liveness route, e.g. `/healthz` or `/api/live`.
    const LIVENESS_PATH: &'static str;

    type Settings: ServiceSettings;
    /// What [`Application::state`] hands to tests (`()` when they need nothing).
    type State: Clone + Send + 'static;

    /// Makes the service value from its settings, reaching what it needs before it can start
    /// (tests that bring their own pass a value to [`Application::build_with`] instead).
    fn connect(settings: &Self::Settings) -> impl Future<Output = anyhow::Result<Self>>;

    /// Builds the state, the routes and the background tasks. Runs after the crypto provider
    /// and the metrics recorder are installed, before the listener is bound.
    fn prepare(
        self,
        settings: Self::Settings,
    ) -> impl Future<Output = anyhow::Result<Prepared<Self::State>>>;

    /// Time a client has to send a request's head; `None` keeps actix's 5 s.
    fn client_request_timeout(_settings: &Self::Settings) -> Option<Duration> {
        None
    }

    /// How many bytes of a response a connection gathers before it writes them; `None` keeps
    /// actix's 32 KiB. See [`ServerOptions::write_buffer_bytes`].
    const WRITE_BUFFER_BYTES: Option<usize> = None;
}

/// What [`Service::prepare`] hands to the shell.
pub struct Prepared<State> {
    state: State,
    routes: Routes,
    internal_routes: Option<Routes>,
    background: Vec<JoinHandle<()>>,
}

impl<State> Prepared<State> {
    /// `routes` adds the service's routes and app data (called once per worker).
    pub fn new(
        state: State,
        routes: impl Fn(&mut web::ServiceConfig) + Send + Sync + 'static,
    ) -> Self {
        Self {
            state,
            routes: Arc::new(routes),
            internal_routes: None,
            background: Vec::new(),
        }
    }

    /// Routes and app data of the internal listener (`server.internal_port`), beside liveness
    /// and `/_metrics`: what only the front door may ask (authproxy's forward_auth check).
    pub fn with_internal_routes(
        mut self,
        routes: impl Fn(&mut web::ServiceConfig) + Send + Sync + 'static,
    ) -> Self {
        self.internal_routes = Some(Arc::new(routes));
        self
    }

    /// Tasks that run as long as the server and are aborted when it has stopped.
    pub fn with_background(mut self, tasks: Vec<JoinHandle<()>>) -> Self {
        self.background = tasks;
        self
    }
}

/// A service bound to its port and serving.
pub struct Application<S: Service> {
    server: RunningServer,
    state: S::State,
    background: Vec<JoinHandle<()>>,
}

impl<S: Service> Application<S> {
    /// Builds the service from its settings and binds the listener (port 0 picks a free one,
    /// so tests start the whole service in-process).
    pub async fn build(settings: S::Settings) -> anyhow::Result<Self> {
        crate::install_crypto_provider();
        let service = S::connect(&settings).await?;
        Self::build_with(service, settings).await
    }

    /// Builds from a service value made by hand (tests pass their own clients).
    pub async fn build_with(service: S, settings: S::Settings) -> anyhow::Result<Self> {
        crate::install_crypto_provider();
        // The recorder is process-wide and installed on first use: before the service
        // registers its metrics or sets its first gauge.
        let _recorder = crate::metrics::prometheus_handle();
        let (server, observability) = (settings.server(), settings.observability());
        let options = ServerOptions {
            host: server.host().to_owned(),
            port: server.port(),
            internal_port: server.internal_port(),
            shutdown_timeout: server.shutdown_timeout(),
            metrics_enabled: observability.metrics_enabled(),
            version: S::VERSION,
            liveness_path: S::LIVENESS_PATH,
            client_request_timeout: S::client_request_timeout(&settings),
            write_buffer_bytes: S::WRITE_BUFFER_BYTES,
        };
        let Prepared {
            state,
            routes,
            internal_routes,
            background,
        } = service.prepare(settings).await?;
        let internal_routes =
            internal_routes.map(|routes| move |config: &mut web::ServiceConfig| routes(config));
        let server =
            match RunningServer::start(options, move |config| routes(config), internal_routes) {
                Ok(server) => server,
                Err(error) => {
                    abort(background);
                    return Err(error.into());
                }
            };
        Ok(Self {
            server,
            state,
            background,
        })
    }

    /// The port listened on.
    pub fn port(&self) -> u16 {
        self.server.port()
    }

    /// The internal listener's port (`/_metrics`, internal routes), when it is bound.
    pub fn internal_port(&self) -> Option<u16> {
        self.server.internal_port()
    }

    /// The service's state, for tests.
    pub fn state(&self) -> S::State {
        self.state.clone()
    }

    /// Serves until SIGTERM/SIGINT, lets in-flight requests finish, then aborts the background
    /// tasks.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let result = self.server.run_until_stopped().await;
        abort(self.background);
        result
    }
}

fn abort(tasks: Vec<JoinHandle<()>>) {
    for task in tasks {
        task.abort();
    }
}

/// The whole `main` of a service's binary: the command line ([`crate::cli::run`]), then the
/// application until it is stopped.
pub fn main<S: Service>() -> ExitCode {
    let env_prefix = env_prefix(S::NAME);
    crate::cli::run::<S::Settings, _, _>(S::NAME, S::VERSION, &env_prefix, |settings| async move {
        let app = Application::<S>::build(settings).await?;
        tracing::info!(
            port = app.port(),
            internal_port = ?app.internal_port(),
            "{} listening",
            S::NAME
        );
        app.run_until_stopped().await?;
        Ok(())
    })
}

/// The prefix of a service's environment overrides: its name in upper case, `_` for `-`.
fn env_prefix(name: &str) -> String {
    name.to_uppercase().replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::env_prefix;

    #[test]
    fn the_environment_prefix_is_the_name_in_upper_case() {
        assert_eq!(env_prefix("admin-console"), "ADMIN_CONSOLE");
        assert_eq!(env_prefix("authproxy"), "AUTHPROXY");
        assert_eq!(env_prefix("ingress-dash"), "INGRESS_DASH");
    }
}
