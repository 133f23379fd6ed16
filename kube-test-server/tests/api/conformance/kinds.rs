//! The other core kinds ingress-dash reads, with the defaults each server adds: a Service
//! (its ClusterIP kept or refused on replace), an EndpointSlice, TLS and stringData Secrets,
//! an Event.

use reqwest::Method;
use serde_json::{Value, json};

use super::Script;

#[tokio::test]
async fn services_slices_secrets_and_events_get_the_real_servers_defaults() {
    let ns = "conformance-kinds";
    let (mut script, _stand_in) = Script::start(ns).await;
    let services = format!("/api/v1/namespaces/{ns}/services");
    let service = json!({"apiVersion": "v1", "kind": "Service", "metadata": {"name": "web"},
        "spec": {"selector": {"app": "web"}, "ports": [{"name": "http", "port": 80}]}});
    let ((_, service_created), (_, real_service_created)) = script
        .step(
            "create a Service",
            Method::POST,
            &services,
            Some(service.clone()),
        )
        .await;
    // A replace without the ClusterIP keeps it; one with another ClusterIP is refused.
    let port_changed = |current: &Value| {
        let mut body = service.clone();
        body["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"].clone();
        body["spec"]["ports"][0]["port"] = json!(8080);
        body
    };
    let ((_, kept), (_, real_kept)) = script
        .step_each(
            "replace a Service without its ClusterIP",
            Method::PUT,
            &format!("{services}/web"),
            [
                port_changed(&service_created),
                port_changed(&real_service_created),
            ],
        )
        .await;
    script.compare_values(
        "the ClusterIP a replace keeps",
        json!(kept["spec"]["clusterIP"] == service_created["spec"]["clusterIP"]),
        json!(real_kept["spec"]["clusterIP"] == real_service_created["spec"]["clusterIP"]),
    );
    let mut other_ip = service.clone();
    other_ip["spec"]["clusterIP"] = json!("10.0.0.1");
    script
        .step(
            "replace a Service with another ClusterIP",
            Method::PUT,
            &format!("{services}/web"),
            Some(other_ip),
        )
        .await;
    script
        .step(
            "create an EndpointSlice",
            Method::POST,
            &format!("/apis/discovery.k8s.io/v1/namespaces/{ns}/endpointslices"),
            Some(
                json!({"apiVersion": "discovery.k8s.io/v1", "kind": "EndpointSlice",
                "metadata": {"name": "web-abcde", "labels": {"kubernetes.io/service-name": "web"}},
                "addressType": "IPv4",
                "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
                "endpoints": [{"addresses": ["10.1.0.7"], "conditions": {"ready": true}}]}),
            ),
        )
        .await;
    script
        .step(
            "create a TLS Secret",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/secrets"),
            Some(
                json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                "metadata": {"name": "web-tls"},
                "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}}),
            ),
        )
        .await;
    script
        .step(
            "create a Secret from stringData",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/secrets"),
            Some(json!({"apiVersion": "v1", "kind": "Secret",
                "metadata": {"name": "creds"}, "stringData": {"user": "admin"}})),
        )
        .await;
    script
        .step(
            "create a TLS Secret without its key",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/secrets"),
            Some(
                json!({"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
                "metadata": {"name": "broken-tls"}, "data": {"tls.crt": "Y2VydA=="}}),
            ),
        )
        .await;
    script
        .step(
            "create an Event",
            Method::POST,
            &format!("/api/v1/namespaces/{ns}/events"),
            Some(json!({"apiVersion": "v1", "kind": "Event",
                "metadata": {"name": "web.1"},
                "involvedObject": {"apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                    "namespace": ns, "name": "web"},
                "reason": "Sync", "message": "Scheduled for sync", "type": "Normal",
                "source": {"component": "ingress-nginx-controller"},
                "firstTimestamp": "2026-11-28T00:00:00Z", "lastTimestamp": "2026-11-28T00:00:00Z",
                "count": 1})),
        )
        .await;
    script.finish();
}
