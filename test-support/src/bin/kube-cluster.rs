//! `kube-cluster`: a real Kubernetes control plane (etcd and kube-apiserver of
//! `test_support::kube_cluster::KubeCluster`) for tests that are not written in Rust, such as
//! ingress-dash's browser tests and the soak run.
//!
//! Starts a cluster of its own on free loopback ports, installs the Gateway API CRDs and the
//! shape of cert-manager's Certificate CRD (each can be left out: `--no-gateway-api`,
//! `--no-cert-manager`), then prints one JSON line:
//! `{"url", "caFile", "token", "kubeconfig", "kubectl"}` (the API server's HTTPS URL, the file of
//! the CA that signed its certificate, the admin's bearer token, an admin kubeconfig, the
//! pinned kubectl).
//!
//! With `--fault-proxy` it also starts `KubeFaultProxy` before the API server (plain HTTP on
//! loopback; the client brings the token) and a control listener for it, and the line carries
//! `proxyUrl` and `controlUrl`. The control listener answers `POST /__test/faults` (every field
//! optional: `fail_next` with `status`, default 503; `latency_ms`; `expire_next_watches`;
//! `cut_next_events`; `drop_watches` and `compact`, booleans: `compact` compacts etcd to its
//! current revision) and `GET /__test/stats` (`open_watches`, `list_requests`,
//! `watch_requests`, counted at the proxy), both with the stats.
//!
//! It stops the cluster and removes its scratch folder when its standard input closes (unless
//! `--until-signal`) or on SIGTERM or SIGINT; killed outright, the servers die with it (they run
//! under `setpriv --pdeathsig KILL`).

use std::io::{Read, Write};
use std::sync::Arc;
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use serde_json::{Value, json};
use test_support::kube_cluster::{KubeCluster, KubeFaultProxy};
use test_support::pinned;
use test_support::repo_root;

const USAGE: &str =
    "usage: kube-cluster [--no-gateway-api] [--no-cert-manager] [--fault-proxy] [--until-signal]";

#[derive(Default)]
struct Flags {
    no_gateway_api: bool,
    no_cert_manager: bool,
    fault_proxy: bool,
    until_signal: bool,
}

fn main() {
    let mut flags = Flags::default();
    for argument in std::env::args().skip(1) {
        match argument.as_str() {
            "--no-gateway-api" => flags.no_gateway_api = true,
            "--no-cert-manager" => flags.no_cert_manager = true,
            "--fault-proxy" => flags.fault_proxy = true,
            "--until-signal" => flags.until_signal = true,
            "--help" | "-h" => {
                println!("{USAGE}");
                return;
            }
            other => {
                eprintln!("unknown argument {other}\n{USAGE}");
                std::process::exit(2);
            }
        }
    }
    test_support::install_crypto_provider();
    let cluster = KubeCluster::start();
    if !flags.no_gateway_api {
        cluster.install_gateway_api_crds();
    }
    if !flags.no_cert_manager {
        cluster.install_cert_manager_crd();
    }
    let kubectl = repo_root()
        .join(".cache/kube")
        .join(format!("kubectl-{}", pinned("KUBERNETES_VERSION")));
    let mut line = json!({
        "url": cluster.url(),
        "caFile": cluster.ca_file(),
        "token": cluster.admin_token(),
        "kubeconfig": cluster.kubeconfig_path(),
        "kubectl": kubectl,
    });
    actix_web::rt::System::new().block_on(async {
        let mut control = None;
        let proxy = flags.fault_proxy.then(|| KubeFaultProxy::start(&cluster));
        if let Some(proxy) = &proxy {
            let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a loopback port");
            line["proxyUrl"] = json!(proxy.url);
            line["controlUrl"] = json!(format!(
                "http://{}",
                listener.local_addr().expect("its address")
            ));
            let state = web::Data::new(Control {
                proxy: proxy.faults.clone(),
                etcd_url: cluster.etcd_url().to_owned(),
                client: reqwest::Client::new(),
            });
            let server = HttpServer::new(move || {
                App::new()
                    .app_data(state.clone())
                    .route("/__test/faults", web::post().to(inject))
                    .route("/__test/stats", web::get().to(stats))
            })
            .workers(1)
            .disable_signals()
            .listen(listener)
            .expect("the control listener")
            .run();
            control = Some(server.handle());
            actix_web::rt::spawn(server);
        }
        let mut stdout = std::io::stdout();
        let _ = writeln!(stdout, "{line}");
        let _ = stdout.flush();
        until_stopped(flags.until_signal).await;
        if let Some(control) = control {
            control.stop(false).await;
        }
        drop(proxy);
    });
    drop(cluster);
}

struct Control {
    proxy: Arc<test_support::kube_cluster::Faults>,
    /// etcd's client URL, for `compact` through its JSON gateway.
    etcd_url: String,
    client: reqwest::Client,
}

impl Control {
    /// Compacts etcd's history up to its current revision (as `KubeCluster::compact`).
    async fn compact(&self) -> Result<(), String> {
        let post = |path: &'static str, body: Value| {
            let url = format!("{}{path}", self.etcd_url);
            async move {
                let response = self.client.post(&url).json(&body).send().await;
                let response = response.map_err(|error| format!("{url}: {error}"))?;
                response
                    .json::<Value>()
                    .await
                    .map_err(|error| format!("{url}: {error}"))
            }
        };
        let range = post("/v3/kv/range", json!({"key": "AA=="})).await?;
        let revision = range["header"]["revision"]
            .as_str()
            .ok_or_else(|| format!("no header.revision in {range}"))?
            .to_owned();
        post(
            "/v3/kv/compaction",
            json!({"revision": revision, "physical": true}),
        )
        .await?;
        Ok(())
    }
}

async fn inject(control: web::Data<Control>, body: web::Json<Value>) -> HttpResponse {
    let faults = &control.proxy;
    let number = |name: &str| body.get(name).and_then(Value::as_u64);
    let flag = |name: &str| body.get(name).and_then(Value::as_bool) == Some(true);
    if let Some(count) = number("fail_next") {
        let status = number("status").unwrap_or(503);
        if !(500..600).contains(&status) {
            return HttpResponse::BadRequest().json(json!({"error": "status: a 5xx code"}));
        }
        faults.fail_next(count, status as u16);
    }
    if let Some(latency) = number("latency_ms") {
        faults.set_latency(Duration::from_millis(latency));
    }
    if let Some(count) = number("expire_next_watches") {
        faults.expire_next_watches(count);
    }
    if let Some(count) = number("cut_next_events") {
        faults.cut_next_events(count);
    }
    if flag("drop_watches") {
        faults.drop_watches();
    }
    if flag("compact")
        && let Err(error) = control.compact().await
    {
        return HttpResponse::BadGateway().json(json!({"error": error}));
    }
    stats(control).await
}

async fn stats(control: web::Data<Control>) -> HttpResponse {
    let faults = &control.proxy;
    HttpResponse::Ok().json(json!({
        "open_watches": faults.open_watches(),
        "list_requests": faults.list_requests(),
        "watch_requests": faults.watch_requests(),
    }))
}

/// Returns on SIGTERM or SIGINT, or when standard input reaches its end (or fails) unless
/// `until_signal`.
async fn until_stopped(until_signal: bool) {
    use tokio::signal::unix::{SignalKind, signal};
    let (closed, stdin_closed) = tokio::sync::oneshot::channel::<()>();
    if !until_signal {
        std::thread::spawn(move || {
            let mut sink = [0u8; 256];
            let mut stdin = std::io::stdin();
            while matches!(stdin.read(&mut sink), Ok(read) if read > 0) {}
            let _ = closed.send(());
        });
    }
    let stdin_closed = async move {
        if until_signal {
            std::future::pending::<()>().await;
        }
        let _ = stdin_closed.await;
    };
    let mut terminate = signal(SignalKind::terminate()).expect("a SIGTERM handler");
    let mut interrupt = signal(SignalKind::interrupt()).expect("a SIGINT handler");
    tokio::select! {
        _ = stdin_closed => {}
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
}
