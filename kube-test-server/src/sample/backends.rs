//! What stands behind the sample ingresses: a Service for each backend they name and an
//! EndpointSlice per Service, built with k8s-openapi's types as the Service and EndpointSlice
//! controllers would leave them.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    LoadBalancerStatus, ObjectReference, Service, ServicePort, ServiceSpec, ServiceStatus,
};
use k8s_openapi::api::discovery::v1::{Endpoint, EndpointConditions, EndpointPort, EndpointSlice};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use serde_json::Value;

use crate::admission::cluster_ip;
use crate::{Cluster, Kind};

/// The label that ties an EndpointSlice to its Service.
pub const SERVICE_NAME_LABEL: &str = "kubernetes.io/service-name";

/// A five-character suffix derived from `seed`, as the API server's `generateName` adds one.
pub(crate) fn suffix(seed: &str) -> String {
    const ALPHABET: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut hash = seed.bytes().fold(0xcbf2_9ce4_8422_2325u64, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    });
    (0..5)
        .map(|_| {
            let c = ALPHABET[(hash % ALPHABET.len() as u64) as usize] as char;
            hash /= ALPHABET.len() as u64;
            c
        })
        .collect()
}

fn to_json<T: serde::Serialize>(object: &T) -> Value {
    serde_json::to_value(object).expect("k8s-openapi types serialise")
}

/// A ClusterIP Service `name` with one TCP port `http` (`port` → `target_port`), selecting the
/// pods labelled `app.kubernetes.io/name: <name>`.
pub fn service(namespace: &str, name: &str, port: i32, target_port: i32) -> Value {
    let ip = cluster_ip(namespace, name);
    let selector = BTreeMap::from([("app.kubernetes.io/name".to_owned(), name.to_owned())]);
    let service = Service {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            labels: Some(selector.clone()),
            ..ObjectMeta::default()
        },
        spec: Some(ServiceSpec {
            type_: Some("ClusterIP".to_owned()),
            cluster_ip: Some(ip.clone()),
            cluster_ips: Some(vec![ip]),
            ip_families: Some(vec!["IPv4".to_owned()]),
            ip_family_policy: Some("SingleStack".to_owned()),
            internal_traffic_policy: Some("Cluster".to_owned()),
            session_affinity: Some("None".to_owned()),
            selector: Some(selector),
            ports: Some(vec![ServicePort {
                name: Some("http".to_owned()),
                port,
                target_port: Some(IntOrString::Int(target_port)),
                protocol: Some("TCP".to_owned()),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        status: Some(ServiceStatus {
            load_balancer: Some(LoadBalancerStatus::default()),
            ..ServiceStatus::default()
        }),
    };
    to_json(&service)
}

/// The EndpointSlice of Service `service` (as stored, so its uid can be the owner's) with
/// `pods` endpoints on port `http`/`target_port`, all ready or none: a Service whose pods
/// crash-loop keeps its endpoints, not ready and not serving.
pub fn endpoint_slice(
    namespace: &str,
    service: &Value,
    target_port: i32,
    pods: usize,
    ready: bool,
) -> Value {
    let service_name = service["metadata"]["name"].as_str().unwrap_or_default();
    let seed = format!("{namespace}/{service_name}");
    let template_hash =
        suffix(&format!("{seed}/deployment")) + &suffix(&format!("{seed}/replicaset"));
    let subnet = u8::try_from(
        seed.bytes().fold(0u32, |sum, byte| {
            sum.wrapping_mul(31).wrapping_add(u32::from(byte))
        }) % 250,
    )
    .unwrap_or_default();
    let endpoints = (0..pods)
        .map(|pod| {
            let pod_name = format!(
                "{service_name}-{template_hash}-{}",
                suffix(&format!("{seed}/{pod}"))
            );
            Endpoint {
                addresses: vec![format!("10.244.{subnet}.{}", 10 + pod)],
                conditions: Some(EndpointConditions {
                    ready: Some(ready),
                    serving: Some(ready),
                    terminating: Some(false),
                }),
                node_name: Some(format!("node-{}", pod % 3 + 1)),
                zone: Some(format!("zone-{}", ["a", "b", "c"][pod % 3])),
                target_ref: Some(ObjectReference {
                    kind: Some("Pod".to_owned()),
                    namespace: Some(namespace.to_owned()),
                    name: Some(pod_name),
                    ..ObjectReference::default()
                }),
                ..Endpoint::default()
            }
        })
        .collect();
    let mut labels = BTreeMap::from([
        (SERVICE_NAME_LABEL.to_owned(), service_name.to_owned()),
        (
            "endpointslice.kubernetes.io/managed-by".to_owned(),
            "endpointslice-controller.k8s.io".to_owned(),
        ),
    ]);
    if let Some(service_labels) = service["metadata"]["labels"].as_object() {
        for (key, value) in service_labels {
            labels.insert(key.clone(), value.as_str().unwrap_or_default().to_owned());
        }
    }
    let slice = EndpointSlice {
        metadata: ObjectMeta {
            name: Some(format!("{service_name}-{}", suffix(&seed))),
            generate_name: Some(format!("{service_name}-")),
            namespace: Some(namespace.to_owned()),
            labels: Some(labels),
            owner_references: Some(vec![OwnerReference {
                api_version: "v1".to_owned(),
                kind: "Service".to_owned(),
                name: service_name.to_owned(),
                uid: service["metadata"]["uid"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..ObjectMeta::default()
        },
        address_type: "IPv4".to_owned(),
        endpoints,
        ports: Some(vec![EndpointPort {
            name: Some("http".to_owned()),
            port: Some(target_port),
            protocol: Some("TCP".to_owned()),
            ..EndpointPort::default()
        }]),
    };
    to_json(&slice)
}

/// Puts Service `name` (port `http`: `port` → 8080) and its EndpointSlice (`pods` endpoints,
/// ready or not).
pub fn put_service_with_endpoints(
    cluster: &Cluster,
    namespace: &str,
    name: &str,
    port: i32,
    pods: usize,
    ready: bool,
) {
    let stored = cluster.put(Kind::Service, service(namespace, name, port, 8080));
    cluster.put(
        Kind::EndpointSlice,
        endpoint_slice(namespace, &stored, 8080, pods, ready),
    );
}

/// The Services sample ingress `index` sends traffic to (in its rules and default backend),
/// with the port number each exposes, as [`super::ingress`] names them.
pub fn backend_services(name: &str, index: usize) -> Vec<(String, i32)> {
    let mut services = vec![(name.to_owned(), 80), (format!("{name}-api"), 80)];
    if index.is_multiple_of(7) {
        services.push(("default-http-backend".to_owned(), 8080));
    }
    services
}

/// A Service with ready endpoints (two or three pods) for every backend of the first
/// `ingresses` sample ingresses, spread as [`super::populate`] spreads them.
pub fn populate_backends(cluster: &Cluster, ingresses: usize, namespaces: usize) {
    let namespaces = namespaces.max(1);
    for index in 0..ingresses {
        let namespace = super::namespace_name(index % namespaces);
        let name = format!("app-{index:05}");
        for (service, port) in backend_services(&name, index) {
            if service == "default-http-backend"
                && cluster
                    .get(Kind::Service, Some(&namespace), &service)
                    .is_some()
            {
                continue;
            }
            put_service_with_endpoints(cluster, &namespace, &service, port, 2 + index % 2, true);
        }
    }
}
