//! How the Hosts view reads the Gateways its routes name, against the real API server: every
//! page of a namespace's Gateways (the API server's `continue` token past 250), and none at all
//! where discovery found the Gateway CRD not served (a cluster of its own, through the fault
//! proxy, which counts the application's list requests).

use serde_json::{Value, json};
use test_support::eventually_with;
use test_support::kube_cluster::KubeCluster;

use super::{Cluster, GATEWAY, HTTP_ROUTE, RealApp, WAIT, spawn_proxied_to, spawn_shared};

/// The attachments of route `name` on `host` in `/api/hosts?namespaces=namespace`, once it
/// shows one with a problem or a listener.
async fn attachments(app: &RealApp, namespace: &str, host: &str) -> Value {
    eventually_with("the route's attachments", WAIT, async || {
        let (status, body) = app
            .get_json(&format!("/api/hosts?namespaces={namespace}"))
            .await;
        let found = body["hosts"].as_array().and_then(|hosts| {
            let entry = hosts.iter().find(|entry| entry["host"] == host)?;
            let attachments = &entry["objects"][0]["attachments"];
            let resolved = !attachments[0]["problem"].is_null()
                || attachments[0]["listeners"]
                    .as_array()
                    .is_some_and(|l| !l.is_empty());
            resolved.then(|| attachments.clone())
        });
        match found {
            Some(attachments) if status == 200 => Ok(attachments),
            _ => Err(format!("{status} {body}")),
        }
    })
    .await
}

fn route(namespace: &str, gateway: &str, host: &str) -> Value {
    json!({
        "metadata": {"name": "web", "namespace": namespace},
        "spec": {"parentRefs": [{"name": gateway}], "hostnames": [host],
                 "rules": [{"backendRefs": [{"name": "web", "port": 80}]}]},
    })
}

fn gateway(namespace: &str, name: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"gatewayClassName": "example",
                 "listeners": [{"name": "http", "port": 80, "protocol": "HTTP"}]},
    })
}

#[tokio::test]
async fn a_gateway_past_the_first_page_of_250_is_found() {
    const NS: &str = "rk-gateway-pages";
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    kube.namespaces(&[NS]).await;
    for number in 0..260 {
        kube.put(GATEWAY, gateway(NS, &format!("gw-{number:03}")))
            .await;
    }
    // Listed in name order: the last of 261.
    kube.put(GATEWAY, gateway(NS, "zz-public")).await;
    kube.put(
        HTTP_ROUTE,
        route(NS, "zz-public", "web.rk-gateway-pages.example"),
    )
    .await;

    let found = attachments(&app, NS, "web.rk-gateway-pages.example").await;
    assert_eq!(found[0]["problem"], Value::Null, "{found}");
    assert_eq!(found[0]["listeners"][0]["name"], "http", "{found}");
}

#[tokio::test]
async fn gateways_are_not_listed_where_discovery_found_them_not_served() {
    const NS: &str = "rk-no-gateways";
    let cluster = KubeCluster::start();
    cluster.install_gateway_api_crds();
    let deleted = cluster.kubectl(&["delete", "crd", "gateways.gateway.networking.k8s.io"]);
    assert!(deleted.status.success(), "{deleted:?}");
    let app = spawn_proxied_to(Cluster::Own(Box::new(cluster)), "", "", "").await;
    let kube = &app.kube;
    kube.namespaces(&[NS]).await;
    kube.put(
        HTTP_ROUTE,
        route(NS, "public", "web.rk-no-gateways.example"),
    )
    .await;

    let found = attachments(&app, NS, "web.rk-no-gateways.example").await;
    assert_eq!(
        found[0]["problem"],
        "the Gateways of rk-no-gateways were not read: the API server does not serve \
         gateway.networking.k8s.io/v1 gateways",
        "{found}"
    );
    let lists = kube.faults().list_requests();
    for _ in 0..3 {
        let (status, _) = app.get_json(&format!("/api/hosts?namespaces={NS}")).await;
        assert_eq!(status, 200);
    }
    assert_eq!(
        kube.faults().list_requests(),
        lists,
        "discovery already knows: no list of Gateways per answer"
    );
}
