//! Writes through the API: kubectl create/replace/delete, and the API server's answers to
//! conflicting or refused writes.

use std::process::Command;

use kube_test_server::{KubeTestServer, Options, sample};
use serde_json::{Value, json};
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

async fn send(method: reqwest::Method, url: String, body: Option<Value>) -> (u16, Value) {
    let mut request = test_support::http_client().request(method, url);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap())
}

#[tokio::test]
async fn writes_answer_as_the_api_server_does() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    sample::populate(&server.cluster, 0, 2);
    server.cluster.faults.forbid_namespace("team-001");
    let collection = |namespace: &str| {
        format!(
            "{}/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses",
            server.url()
        )
    };
    let ingress = json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "metadata": {"name": "web"}, "spec": {}});

    let (status, created) = send(
        reqwest::Method::POST,
        collection("team-000"),
        Some(ingress.clone()),
    )
    .await;
    assert_eq!(status, 201);
    assert_eq!(created["kind"], "Ingress");
    assert_eq!(created["metadata"]["namespace"], "team-000");
    let (status, body) = send(
        reqwest::Method::POST,
        collection("team-000"),
        Some(ingress.clone()),
    )
    .await;
    assert_eq!(
        (status, body["reason"].as_str()),
        (409, Some("AlreadyExists"))
    );
    let (status, body) = send(
        reqwest::Method::POST,
        collection("team-001"),
        Some(ingress.clone()),
    )
    .await;
    assert_eq!((status, body["reason"].as_str()), (403, Some("Forbidden")));
    let (status, body) = send(
        reqwest::Method::POST,
        collection("nowhere"),
        Some(ingress.clone()),
    )
    .await;
    assert_eq!((status, body["reason"].as_str()), (404, Some("NotFound")));

    let object = format!("{}/web", collection("team-000"));
    let mut stale = ingress.clone();
    stale["metadata"]["resourceVersion"] = json!("1");
    let (status, body) = send(reqwest::Method::PUT, object.clone(), Some(stale)).await;
    assert_eq!((status, body["reason"].as_str()), (409, Some("Conflict")));
    let mut current = ingress.clone();
    current["metadata"]["resourceVersion"] = created["metadata"]["resourceVersion"].clone();
    current["spec"] = json!({"ingressClassName": "nginx"});
    let (status, replaced) = send(reqwest::Method::PUT, object.clone(), Some(current)).await;
    assert_eq!(status, 200);
    assert_eq!(replaced["spec"]["ingressClassName"], "nginx");
    assert_ne!(
        replaced["metadata"]["resourceVersion"],
        created["metadata"]["resourceVersion"]
    );

    let (status, deleted) = send(reqwest::Method::DELETE, object.clone(), None).await;
    assert_eq!(
        (status, deleted["metadata"]["name"].as_str()),
        (200, Some("web"))
    );
    let (status, body) = send(reqwest::Method::DELETE, object, None).await;
    assert_eq!((status, body["reason"].as_str()), (404, Some("NotFound")));
}
