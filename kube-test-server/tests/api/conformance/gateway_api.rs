//! The Gateway API kinds on the real 1.6.3 CRDs: an HTTPRoute that does not fit the schema, and
//! an HTTPRoute, a GRPCRoute, a TLSRoute and a Gateway with the defaults of their CRDs'
//! `openAPIV3Schema`.

use reqwest::Method;
use serde_json::json;

use super::Script;

#[tokio::test]
async fn gateway_api_objects_get_the_defaults_of_their_crds() {
    let ns = "conformance-gateway";
    let (mut script, _stand_in) = Script::start(ns).await;
    script
        .step(
            "create an HTTPRoute that does not fit the CRD's schema",
            Method::POST,
            &format!("/apis/gateway.networking.k8s.io/v1/namespaces/{ns}/httproutes"),
            Some(
                json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                "metadata": {"name": "bad"}, "spec": {"hostnames": "not-a-list"}}),
            ),
        )
        .await;
    script
        .step(
            "create an HTTPRoute",
            Method::POST,
            &format!("/apis/gateway.networking.k8s.io/v1/namespaces/{ns}/httproutes"),
            Some(
                json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "HTTPRoute",
                "metadata": {"name": "web"},
                "spec": {"parentRefs": [{"name": "gateway"}], "hostnames": ["web.example.com"],
                    "rules": [{"backendRefs": [{"name": "web", "port": 80}]}]}}),
            ),
        )
        .await;

    script
        .step(
            "create a GRPCRoute",
            Method::POST,
            &format!("/apis/gateway.networking.k8s.io/v1/namespaces/{ns}/grpcroutes"),
            Some(
                json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "GRPCRoute",
                "metadata": {"name": "cart"},
                "spec": {"parentRefs": [{"name": "gateway", "sectionName": "grpc"}],
                    "hostnames": ["cart.example.com"],
                    "rules": [{"matches": [{"method": {"service": "shop.Cart", "method": "Add"},
                                            "headers": [{"name": "x-team", "value": "shop"}]}],
                               "backendRefs": [{"name": "cart", "port": 9000}]}]}}),
            ),
        )
        .await;
    script
        .step(
            "create a TLSRoute",
            Method::POST,
            &format!("/apis/gateway.networking.k8s.io/v1/namespaces/{ns}/tlsroutes"),
            Some(
                json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "TLSRoute",
                "metadata": {"name": "db"},
                "spec": {"parentRefs": [{"name": "gateway", "sectionName": "tls"}],
                    "hostnames": ["db.example.com"],
                    "rules": [{"backendRefs": [{"name": "db", "port": 5432}]}]}}),
            ),
        )
        .await;
    script
        .step(
            "create a Gateway",
            Method::POST,
            &format!("/apis/gateway.networking.k8s.io/v1/namespaces/{ns}/gateways"),
            Some(json!({"apiVersion": "gateway.networking.k8s.io/v1", "kind": "Gateway",
                "metadata": {"name": "gateway"},
                "spec": {"gatewayClassName": "example",
                    "addresses": [{"value": "10.0.0.10"}],
                    "listeners": [
                        {"name": "http", "port": 80, "protocol": "HTTP"},
                        {"name": "grpc", "port": 8080, "protocol": "HTTP",
                         "allowedRoutes": {"kinds": [{"kind": "GRPCRoute"}]}},
                        {"name": "https", "port": 443, "protocol": "HTTPS", "hostname": "*.example.com",
                         "allowedRoutes": {"namespaces": {"from": "All"}},
                         "tls": {"certificateRefs": [{"name": "web-tls"}]}},
                        {"name": "tls", "port": 8443, "protocol": "TLS",
                         "tls": {"mode": "Passthrough"}},
                    ]}})),
        )
        .await;
    script.finish();
}
