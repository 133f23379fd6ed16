//! Backends behind ingresses (issue 20 section 2): each record's backend Services with their
//! ready endpoints, from the Services and EndpointSlices watched beside the ingresses, live.
//! The live backend states and switching them off run against the real API server
//! (`real_kube::watch`); here a service account whose Role leaves Services out (the real 403).

use std::time::Duration;

use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use crate::real_kube::{
    Cluster, ENDPOINT_SLICE, INGRESS, SERVICE, endpoint_slice, scoped, service, spawn_real,
    token_for_resources,
};

const WAIT: Duration = Duration::from_secs(10);

pub fn ingress_to(namespace: &str, name: &str, service: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"rules": [{"host": format!("{name}.example.com"), "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": service, "port": {"number": 80}}}},
        ]}}]},
    })
}

/// The item named `name` of a snapshot.
pub fn item<'a>(snapshot: &'a Value, name: &str) -> &'a Value {
    snapshot["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["name"] == name)
        .unwrap_or_else(|| panic!("{name} not in {snapshot}"))
}

#[tokio::test]
async fn forbidden_services_make_backends_unknown_and_keep_the_ingresses() {
    let cluster = KubeCluster::shared();
    let namespace = "be-forbidden";
    // Everything the dashboard reads but Services.
    let token = token_for_resources(
        cluster,
        namespace,
        "dash",
        &[
            "ingresses",
            "endpointslices",
            "events",
            "httproutes",
            "certificates",
        ],
    );
    let app = spawn_real(
        Cluster::Shared(cluster),
        Some(&token),
        &scoped(&[namespace]),
        "",
    )
    .await;
    let kube = &app.kube;
    kube.put(SERVICE, service(namespace, "web")).await;
    kube.put(ENDPOINT_SLICE, endpoint_slice(namespace, "web", 2, true))
        .await;
    kube.put(INGRESS, ingress_to(namespace, "web", "web")).await;
    let mut stream = app.stream(&format!("?namespaces={namespace}"), None).await;
    let first = stream.next_event(WAIT).await.unwrap();
    assert_eq!(first.event, "snapshot");
    assert_eq!(
        first.data["errors"],
        json!([]),
        "the namespace did not fail"
    );
    let backend = &item(&first.data, "web")["backends"][0];
    assert_eq!(backend["state"], "unknown");
    let error = backend["error"].as_str().unwrap();
    assert!(
        error.contains(&format!("may not list or watch services in {namespace}")),
        "{error}"
    );
    // Ingress changes still stream.
    kube.put(INGRESS, ingress_to(namespace, "api", "web")).await;
    let added = stream.next_event(WAIT).await.unwrap();
    assert_eq!(added.event, "added");
    assert_eq!(added.data["backends"][0]["state"], "unknown");
}
