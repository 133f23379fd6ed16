//! Sample data: a realistic spread of ingresses over namespaces, for `make run`, the tests and
//! the benchmark ([`populate`]), what stands behind them ([`populate_backends`]: Services and
//! EndpointSlices), TLS Secrets with real certificates ([`populate_tls`]) and the situations a
//! newcomer must see ([`situations`]); [`populate_everything`] does all of it, as `make run`.

mod backends;
pub mod hosts;
pub mod situations;

use serde_json::{Value, json};

pub use backends::{
    SERVICE_NAME_LABEL, backend_services, endpoint_slice, populate_backends,
    put_service_with_endpoints, service,
};
pub use hosts::populate_hosts;
pub use situations::{event, populate_broken_backends, populate_routes, populate_tls};

use crate::tls::CertificateAuthority;
use crate::{Cluster, Kind};

/// Namespace `index` of the sample set: `team-000`, `team-001`, ...
pub fn namespace_name(index: usize) -> String {
    format!("team-{index:03}")
}

/// An ingress with the variety a dashboard must handle: class by field or legacy annotation,
/// TLS for some hosts, a wildcard host, a resource backend, load-balancer addresses, and the
/// noise (managedFields, last-applied-configuration) that must never reach the browser.
pub fn ingress(namespace: &str, name: &str, index: usize) -> Value {
    let host = format!("{name}.{namespace}.example.com");
    let mut spec = json!({
        "rules": [{
            "host": host,
            "http": {"paths": [
                {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": name, "port": {"number": 80}}}},
                {"path": "/api", "pathType": "Prefix", "backend": {"service": {"name": format!("{name}-api"), "port": {"name": "http"}}}},
            ]},
        }],
    });
    let mut annotations = json!({
        "kubectl.kubernetes.io/last-applied-configuration": "{\"apiVersion\":\"networking.k8s.io/v1\"}",
        "nginx.ingress.kubernetes.io/proxy-body-size": "8m",
    });
    match index % 4 {
        0 => spec["ingressClassName"] = json!("nginx"),
        1 => annotations["kubernetes.io/ingress.class"] = json!("traefik"),
        2 => spec["ingressClassName"] = json!("haproxy"),
        _ => {}
    }
    if index.is_multiple_of(2) {
        spec["tls"] = json!([{"hosts": [host], "secretName": format!("{name}-tls")}]);
    }
    if index.is_multiple_of(5) {
        spec["rules"].as_array_mut().expect("rules is an array").push(json!({
            "host": format!("*.{namespace}.example.com"),
            "http": {"paths": [{"path": "/", "pathType": "ImplementationSpecific", "backend": {"resource": {"apiGroup": "k8s.example.com", "kind": "StorageBucket", "name": "static-assets"}}}]},
        }));
    }
    if index.is_multiple_of(7) {
        spec["defaultBackend"] =
            json!({"service": {"name": "default-http-backend", "port": {"number": 8080}}});
    }
    let load_balancer = if index.is_multiple_of(3) {
        json!({"ingress": [{"ip": format!("10.0.{}.{}", (index / 250) % 250, index % 250 + 1)}]})
    } else {
        json!({"ingress": [{"hostname": format!("lb-{index}.elb.example.com")}]})
    };
    json!({
        "metadata": {
            "name": name,
            "namespace": namespace,
            "labels": {"app.kubernetes.io/name": name, "app.kubernetes.io/part-of": namespace},
            "annotations": annotations,
            "managedFields": [{"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "networking.k8s.io/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:spec": {}}}],
        },
        "spec": spec,
        "status": {"loadBalancer": load_balancer},
    })
}

/// The sample's IngressClasses (name, `spec.controller`): the classes [`ingress`] names, by
/// `spec.ingressClassName` (nginx, haproxy) or the legacy annotation (traefik); `nginx` is the
/// default class, which the Ingresses naming none get.
pub const INGRESS_CLASSES: [(&str, &str); 3] = [
    ("nginx", "k8s.io/ingress-nginx"),
    ("traefik", "traefik.io/ingress-controller"),
    ("haproxy", "haproxy.org/ingress-controller/haproxy"),
];

/// An IngressClass `name` of `controller`, marked as the default class when `default`.
pub fn ingress_class(name: &str, controller: &str, default: bool) -> Value {
    let mut class = json!({"metadata": {"name": name}, "spec": {"controller": controller}});
    if default {
        class["metadata"]["annotations"] =
            json!({"ingressclass.kubernetes.io/is-default-class": "true"});
    }
    class
}

/// Adds [`INGRESS_CLASSES`], the first the default.
pub fn populate_ingress_classes(cluster: &Cluster) {
    for (index, (name, controller)) in INGRESS_CLASSES.into_iter().enumerate() {
        cluster.put(
            Kind::IngressClass,
            ingress_class(name, controller, index == 0),
        );
    }
}

/// The ingress that shows the annotation explainer's other cases: `app-00004` (class `nginx`).
const LEGACY_INGRESS: usize = 4;

/// Gives `app-00004` (if the sample has it) ingress-nginx annotations of the classifications
/// `proxy-body-size` (every ingress's, `implementation_specific`) does not show:
/// `rewrite-target` (`gateway_api`), `configuration-snippet` (`no_equivalent`, a snippet) and
/// `proxy-body-sise` (`unknown`: a typo of `proxy-body-size`).
pub fn populate_migration(cluster: &Cluster, ingresses: usize, namespaces: usize) {
    if ingresses <= LEGACY_INGRESS {
        return;
    }
    let namespace = namespace_name(LEGACY_INGRESS % namespaces.max(1));
    let name = format!("app-{LEGACY_INGRESS:05}");
    let Some(stored) = cluster.get(Kind::Ingress, Some(&namespace), &name) else {
        return;
    };
    let mut ingress = (*stored).clone();
    if let Some(annotations) = ingress["metadata"]["annotations"].as_object_mut() {
        for (key, value) in [
            ("rewrite-target", "/"),
            (
                "configuration-snippet",
                "more_set_headers \"X-Frame-Options: DENY\";",
            ),
            ("proxy-body-sise", "8m"),
        ] {
            annotations.insert(format!("nginx.ingress.kubernetes.io/{key}"), json!(value));
        }
    }
    cluster.put_ingress(ingress);
}

/// Adds `namespaces` namespaces and `ingresses` ingresses spread evenly over them.
pub fn populate(cluster: &Cluster, ingresses: usize, namespaces: usize) {
    let namespaces = namespaces.max(1);
    for index in 0..namespaces {
        cluster.add_namespace(&namespace_name(index));
    }
    for index in 0..ingresses {
        let namespace = namespace_name(index % namespaces);
        let name = format!("app-{index:05}");
        cluster.put_ingress(ingress(&namespace, &name, index));
    }
}

/// The whole sample set `make run` shows: [`populate`], the IngressClasses the ingresses name
/// ([`populate_ingress_classes`]) and `app-00004`'s annotations ([`populate_migration`]), then a Service with ready endpoints for
/// every backend, TLS Secrets with real certificates (signed by a CA made now), and the
/// situations of [`situations`] (broken backends with Warning events, a certificate expiring in
/// 5 days that misses a host, its cert-manager Certificate, two HTTPRoutes, one unresolved)
/// and of [`hosts`] (an HTTPRoute and a GRPCRoute beside an Ingress on one host, two TLSRoutes
/// on one SNI hostname, two Secrets for one wildcard).
/// The ingresses and namespaces are exactly those of [`populate`].
pub fn populate_everything(
    cluster: &Cluster,
    ingresses: usize,
    namespaces: usize,
) -> Result<(), rcgen::Error> {
    populate(cluster, ingresses, namespaces);
    populate_ingress_classes(cluster);
    populate_migration(cluster, ingresses, namespaces);
    populate_backends(cluster, ingresses, namespaces);
    let ca = CertificateAuthority::new("kube-test-server sample CA")?;
    populate_tls(cluster, &ca, ingresses, namespaces)?;
    populate_broken_backends(cluster, ingresses, namespaces);
    populate_routes(cluster);
    populate_hosts(cluster, &ca, ingresses, namespaces)?;
    Ok(())
}

/// Every object of `cluster`, namespaces first (in [`Kind::ALL`]'s order: IngressClasses after
/// the Ingresses, so that a real API server's `DefaultIngressClass` admission leaves the
/// Ingresses without a class as they are), each with its
/// `apiVersion` and `kind`, without what an API server sets itself (uid, resourceVersion,
/// creationTimestamp, generation, managedFields, a Service's cluster IPs): the sample as one
/// would write it into a real API server (`--print-objects`, ingress-dash's tests). The status
/// stays in the object: written by the `status` subresource where the kind has it.
pub fn api_objects(cluster: &Cluster) -> Vec<Value> {
    let mut objects = Vec::new();
    for kind in Kind::ALL {
        for object in cluster.list(kind, None) {
            let mut object = (*object).clone();
            object["apiVersion"] = json!(kind.api_version());
            object["kind"] = json!(kind.name());
            if let Some(metadata) = object["metadata"].as_object_mut() {
                for field in [
                    "uid",
                    "resourceVersion",
                    "creationTimestamp",
                    "generation",
                    "managedFields",
                ] {
                    metadata.remove(field);
                }
            }
            // Allocated by the API server from its own range.
            if let Some(spec) = object.get_mut("spec").and_then(Value::as_object_mut)
                && kind == Kind::Service
            {
                spec.remove("clusterIP");
                spec.remove("clusterIPs");
            }
            objects.push(object);
        }
    }
    objects
}
