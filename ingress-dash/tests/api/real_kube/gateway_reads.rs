//! How the Hosts view reads the Gateways its routes name, against the real API server: every
//! page of a namespace's Gateways (the API server's `continue` token past 250), and none at all
//! where discovery found the Gateway CRD not served (a cluster of its own, through the fault
//! proxy, which counts the application's list requests of Gateways). A listener's certificate counts in a
//! host's TLS overlap beside an Ingress's TLS Secret, in the flags, the filter and the counts.

use serde_json::{Value, json};
use test_support::eventually_with;
use test_support::kube_cluster::KubeCluster;

use super::{
    Cluster, GATEWAY, HTTP_ROUTE, INGRESS, RealApp, WAIT, ingress, spawn_proxied_to, spawn_shared,
};

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
    // Only Gateway lists count: a watcher relisting its kind meanwhile is no Gateway list.
    let lists = kube.faults().list_requests_of("gateways");
    for _ in 0..3 {
        let (status, _) = app.get_json(&format!("/api/hosts?namespaces={NS}")).await;
        assert_eq!(status, 200);
    }
    assert_eq!(
        kube.faults().list_requests_of("gateways"),
        lists,
        "discovery already knows: no list of Gateways per answer"
    );
}

/// An Ingress with TLS Secret `ingress-tls` and an HTTPRoute through an HTTPS listener whose
/// certificateRef is `gateway-tls`, on one host: two Secrets, a TLS overlap, found with
/// `flagged=true` and counted (the Gateway is read before the flags).
#[tokio::test]
async fn a_listener_certificate_and_an_ingress_secret_overlap() {
    const NS: &str = "rk-listener-tls";
    const HOST: &str = "shop.rk-listener-tls.example";
    KubeCluster::shared().install_gateway_api_crds();
    let app = spawn_shared("", "").await;
    let kube = &app.kube;
    kube.namespaces(&[NS]).await;
    kube.put(
        GATEWAY,
        json!({
            "metadata": {"name": "public", "namespace": NS},
            "spec": {"gatewayClassName": "example", "listeners": [
                {"name": "https", "port": 443, "protocol": "HTTPS",
                 "hostname": "*.rk-listener-tls.example",
                 "tls": {"mode": "Terminate", "certificateRefs": [{"name": "gateway-tls"}]}},
            ]},
        }),
    )
    .await;
    let mut web = ingress(NS, "web", HOST, "web");
    web["spec"]["tls"] = json!([{"hosts": [HOST], "secretName": "ingress-tls"}]);
    kube.put(INGRESS, web).await;
    let mut shop = route(NS, "public", HOST);
    shop["spec"]["parentRefs"][0]["sectionName"] = json!("https");
    // Another path than the Ingress's: no conflict, only the TLS overlap flags the host.
    shop["spec"]["rules"][0]["matches"] =
        json!([{"path": {"type": "PathPrefix", "value": "/shop"}}]);
    kube.put(HTTP_ROUTE, shop).await;

    let path = format!("/api/hosts?namespaces={NS}&flagged=true");
    let body = eventually_with("the host flagged with both Secrets", WAIT, async || {
        let (status, body) = app.get_json(&path).await;
        let both = body["hosts"][0]["objects"]
            .as_array()
            .is_some_and(|objects| objects.len() == 2);
        if status == 200 && both {
            Ok(body)
        } else {
            Err(format!("{status} {body}"))
        }
    })
    .await;
    assert_eq!(body["counts"]["tlsOverlaps"], 1, "{body}");
    assert_eq!(body["counts"]["hosts"], 1, "{body}");
    let entry = &body["hosts"][0];
    assert_eq!(entry["host"], HOST);
    assert_eq!(entry["tlsOverlap"], true, "{entry}");
    assert_eq!(entry["conflict"], false, "{entry}");
    let secrets: Vec<(String, Value)> = entry["tls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|tls| {
            let name = format!(
                "{}/{}",
                tls["namespace"].as_str().unwrap_or(""),
                tls["secretName"].as_str().unwrap_or("")
            );
            (name, tls.get("listener").cloned().unwrap_or(Value::Null))
        })
        .collect();
    assert_eq!(
        secrets,
        [
            ("rk-listener-tls/ingress-tls".to_owned(), Value::Null),
            (
                "rk-listener-tls/gateway-tls".to_owned(),
                json!("rk-listener-tls/public/https")
            ),
        ],
        "{entry}"
    );
}
