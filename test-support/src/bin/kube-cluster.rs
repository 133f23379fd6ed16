//! `kube-cluster`: a real Kubernetes control plane (etcd and kube-apiserver of
//! `test_support::kube_cluster::KubeCluster`) for tests that are not written in Rust, such as
//! ingress-dash's browser tests.
//!
//! Starts a cluster of its own on free loopback ports, installs the Gateway API CRDs and the
//! shape of cert-manager's Certificate CRD (each can be left out: `--no-gateway-api`,
//! `--no-cert-manager`), then prints one JSON line:
//! `{"url", "caFile", "token", "kubeconfig", "kubectl"}` (the API server's HTTPS URL, the file of
//! the CA that signed its certificate, the admin's bearer token, an admin kubeconfig, the
//! pinned kubectl). It stops the cluster and removes its scratch folder when its standard
//! input closes or on SIGTERM or SIGINT; killed outright, the servers die with it (they run
//! under `setpriv --pdeathsig KILL`).

use std::io::{Read, Write};

use test_support::kube_cluster::KubeCluster;
use test_support::pinned;
use test_support::repo_root;

const USAGE: &str = "usage: kube-cluster [--no-gateway-api] [--no-cert-manager]";

fn main() {
    let (mut gateway_api, mut cert_manager) = (true, true);
    for argument in std::env::args().skip(1) {
        match argument.as_str() {
            "--no-gateway-api" => gateway_api = false,
            "--no-cert-manager" => cert_manager = false,
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
    let cluster = KubeCluster::start();
    if gateway_api {
        cluster.install_gateway_api_crds();
    }
    if cert_manager {
        cluster.install_cert_manager_crd();
    }
    let kubectl = repo_root()
        .join(".cache/kube")
        .join(format!("kubectl-{}", pinned("KUBERNETES_VERSION")));
    let line = serde_json::json!({
        "url": cluster.url(),
        "caFile": cluster.ca_file(),
        "token": cluster.admin_token(),
        "kubeconfig": cluster.kubeconfig_path(),
        "kubectl": kubectl,
    });
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "{line}");
    let _ = stdout.flush();

    actix_web::rt::System::new().block_on(until_stdin_closes_or_signal());
    drop(cluster);
}

/// Returns when standard input reaches its end (or fails) or a SIGTERM or SIGINT arrives.
async fn until_stdin_closes_or_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let (closed, stdin_closed) = tokio::sync::oneshot::channel::<()>();
    std::thread::spawn(move || {
        let mut sink = [0u8; 256];
        let mut stdin = std::io::stdin();
        while matches!(stdin.read(&mut sink), Ok(read) if read > 0) {}
        let _ = closed.send(());
    });
    let mut terminate = signal(SignalKind::terminate()).expect("a SIGTERM handler");
    let mut interrupt = signal(SignalKind::interrupt()).expect("a SIGINT handler");
    tokio::select! {
        _ = stdin_closed => {}
        _ = terminate.recv() => {}
        _ = interrupt.recv() => {}
    }
}
