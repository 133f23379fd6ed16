//! Writes through the API: kubectl create/replace/delete against the stand-in (the answers to
//! conflicting or refused writes are compared with the real API server in `conformance`).

use std::process::Command;

use kube_test_server::{KubeTestServer, Options, sample};
use test_support::TempDir;

fn kubectl(server: &KubeTestServer, dir: &TempDir, args: &[&str]) -> std::process::Output {
    let config = dir.path().join("kubeconfig");
    std::fs::write(&config, server.kubeconfig()).unwrap();
    Command::new("/usr/bin/kubectl")
        .arg("--kubeconfig")
        .arg(&config)
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args(args)
        .env_remove("KUBECONFIG")
        .output()
        .expect("running kubectl")
}

fn manifest(host: &str) -> String {
    format!(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: shop\n  namespace: team-000\nspec:\n  rules:\n  - host: {host}\n    http:\n      paths:\n      - path: /\n        pathType: Prefix\n        backend:\n          service:\n            name: shop\n            port:\n              number: 80\n"
    )
}

#[test]
fn kubectl_creates_replaces_and_deletes_an_ingress() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 0, 1);
    let dir = TempDir::new("kubectl-writes");
    let file = dir.path().join("ingress.yaml");
    let file = file.to_str().unwrap();

    std::fs::write(file, manifest("shop.example.com")).unwrap();
    let output = kubectl(&server, &dir, &["create", "--validate=false", "-f", file]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let created = server.cluster.ingress("team-000", "shop").expect("created");
    assert_eq!(created["spec"]["rules"][0]["host"], "shop.example.com");
    assert!(created["metadata"]["uid"].is_string());

    std::fs::write(file, manifest("shop2.example.com")).unwrap();
    let output = kubectl(&server, &dir, &["replace", "--validate=false", "-f", file]);
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let replaced = server.cluster.ingress("team-000", "shop").unwrap();
    assert_eq!(replaced["spec"]["rules"][0]["host"], "shop2.example.com");
    assert_eq!(replaced["metadata"]["uid"], created["metadata"]["uid"]);
    assert_eq!(replaced["metadata"]["generation"], 2);

    let output = kubectl(
        &server,
        &dir,
        &["delete", "ingress", "shop", "-n", "team-000"],
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(server.cluster.ingress("team-000", "shop").is_none());
}
