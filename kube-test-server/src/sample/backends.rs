//! What stands behind the sample ingresses: a Service for each backend they name and an
//! EndpointSlice per Service, as the Service and EndpointSlice controllers would leave them, in
//! the wire format of k8s-openapi's types (checked by the tests below).

use serde_json::{Value, json};

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

/// A ClusterIP Service `name` with one TCP port `http` (`port` → `target_port`), selecting the
/// pods labelled `app.kubernetes.io/name: <name>`, as the API server stores it. Written as
/// JSON (typed construction costs five times as much, which tens of thousands of sample
/// objects feel); the tests check it is exactly what k8s-openapi's `Service` serialises.
pub fn service(namespace: &str, name: &str, port: i32, target_port: i32) -> Value {
    let ip = cluster_ip(namespace, name);
    json!({
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/name": name},
        },
        "spec": {
            "clusterIP": ip,
            "clusterIPs": [ip],
            "internalTrafficPolicy": "Cluster",
            "ipFamilies": ["IPv4"],
            "ipFamilyPolicy": "SingleStack",
            "ports": [{"name": "http", "port": port, "protocol": "TCP", "targetPort": target_port}],
            "selector": {"app.kubernetes.io/name": name},
            "sessionAffinity": "None",
            "type": "ClusterIP",
        },
        "status": {"loadBalancer": {}},
    })
}

/// The EndpointSlice of Service `service` (as stored, so its uid can be the owner's) with
/// `pods` endpoints on port `http`/`target_port`, all ready or none: a Service whose pods
/// crash-loop keeps its endpoints, not ready and not serving. JSON checked against
/// k8s-openapi's `EndpointSlice` by the tests, as [`service`].
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
    let subnet = seed.bytes().fold(0u32, |sum, byte| {
        sum.wrapping_mul(31).wrapping_add(u32::from(byte))
    }) % 250;
    let endpoints: Vec<Value> = (0..pods)
        .map(|pod| {
            json!({
                "addresses": [format!("10.244.{subnet}.{}", 10 + pod)],
                "conditions": {"ready": ready, "serving": ready, "terminating": false},
                "nodeName": format!("node-{}", pod % 3 + 1),
                "targetRef": {
                    "kind": "Pod",
                    "name": format!("{service_name}-{template_hash}-{}", suffix(&format!("{seed}/{pod}"))),
                    "namespace": namespace,
                },
                "zone": format!("zone-{}", ["a", "b", "c"][pod % 3]),
            })
        })
        .collect();
    let mut labels = json!({
        SERVICE_NAME_LABEL: service_name,
        "endpointslice.kubernetes.io/managed-by": "endpointslice-controller.k8s.io",
    });
    for (key, value) in service["metadata"]["labels"]
        .as_object()
        .into_iter()
        .flatten()
    {
        labels[key] = value.clone();
    }
    json!({
        "addressType": "IPv4",
        "endpoints": endpoints,
        "metadata": {
            "generateName": format!("{service_name}-"),
            "labels": labels,
            "name": format!("{service_name}-{}", suffix(&seed)),
            "namespace": namespace,
            "ownerReferences": [{
                "apiVersion": "v1",
                "blockOwnerDeletion": true,
                "controller": true,
                "kind": "Service",
                "name": service_name,
                "uid": service["metadata"]["uid"].as_str().unwrap_or_default(),
            }],
        },
        "ports": [{"name": "http", "port": target_port, "protocol": "TCP"}],
    })
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

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::Service;
    use k8s_openapi::api::discovery::v1::EndpointSlice;

    use super::*;

    /// The JSON is exactly what the official types read and write: nothing misnamed, nothing
    /// of the wrong type, nothing the type does not have.
    fn round_trips<T: serde::de::DeserializeOwned + serde::Serialize>(object: &Value) {
        let typed: T = serde_json::from_value(object.clone()).unwrap();
        let mut written = serde_json::to_value(typed).unwrap();
        // The typed value adds its type meta, which stored objects do not carry.
        let fields = written.as_object_mut().unwrap();
        assert!(fields.remove("kind").is_some() && fields.remove("apiVersion").is_some());
        assert_eq!(&written, object);
    }

    #[test]
    fn sample_services_and_slices_are_k8s_openapi_objects() {
        let mut service = service("team-a", "web", 80, 8080);
        round_trips::<Service>(&service);
        service["metadata"]["uid"] = json!("0000-1111");
        let slice = endpoint_slice("team-a", &service, 8080, 3, false);
        round_trips::<EndpointSlice>(&slice);
        assert_eq!(slice["metadata"]["labels"][SERVICE_NAME_LABEL], "web");
        assert_eq!(slice["endpoints"].as_array().unwrap().len(), 3);
        assert_eq!(slice["endpoints"][2]["conditions"]["ready"], false);
        assert_eq!(slice["metadata"]["ownerReferences"][0]["uid"], "0000-1111");
    }
}
