//! The situations of ingress-dash's Hosts view, set up around the existing sample ingresses
//! (none added, so the counts of ingresses stay; one HTTPRoute and two Secrets are added):
//!
//! - a host served by an Ingress and an HTTPRoute, with a conflict between them: HTTPRoute
//!   `app-00020-gateway` (Gateway `gateway-system/public`, listener `https`) takes
//!   `app-00020.<ns>.example.com` `PathPrefix /api`, which Ingress `app-00020` still routes
//!   (a migration half done), and adds `/v2`, twice (a duplicate rule).
//! - a TLS overlap: Ingresses `app-00010` and `app-00030` both list the wildcard host
//!   `*.<ns>.example.com` in a TLS entry, with two different Secrets (`wildcard-tls`, valid 60
//!   days, and `wildcard-old-tls`, 12 days).
//! - conflicts on the wildcard hosts are already in the sample: every fifth ingress routes
//!   `*.<ns>.example.com` `/` to a resource backend.

use std::time::{Duration, SystemTime};

use serde_json::{Value, json};

use super::situations::GATEWAY_CONTROLLER;
use crate::tls::{CertificateAuthority, tls_secret};
use crate::{Cluster, Kind};

const DAY: Duration = Duration::from_secs(86_400);

/// The name of sample ingress `index` and its namespace among `namespaces`.
fn sample(index: usize, namespaces: usize) -> (String, String) {
    (
        format!("app-{index:05}"),
        super::namespace_name(index % namespaces.max(1)),
    )
}

/// Adds the Hosts view's situations to a sample of more than 30 ingresses (`make run`'s 200).
pub fn populate_hosts(
    cluster: &Cluster,
    ca: &CertificateAuthority,
    ingresses: usize,
    namespaces: usize,
) -> Result<(), rcgen::Error> {
    // Smaller samples (the browser tests' 30) stay as they were.
    if ingresses <= 30 {
        return Ok(());
    }
    let (name, namespace) = sample(20, namespaces);
    cluster.put(Kind::HttpRoute, gateway_route(&namespace, &name));
    let (first, namespace) = sample(10, namespaces);
    let (second, second_namespace) = sample(30, namespaces);
    if namespace != second_namespace {
        return Ok(());
    }
    let wildcard = format!("*.{namespace}.example.com");
    let now = SystemTime::now();
    for (ingress, secret, days_left) in [
        (&first, "wildcard-tls", 60),
        (&second, "wildcard-old-tls", 12),
    ] {
        let not_after = now + DAY * days_left;
        let certificate = ca.issue(
            std::slice::from_ref(&wildcard),
            not_after - DAY * 90,
            not_after,
        )?;
        cluster.put(
            Kind::Secret,
            tls_secret(&namespace, secret, &certificate, Some(ca.certificate_pem())),
        );
        if let Some(stored) = cluster.get(Kind::Ingress, Some(&namespace), ingress) {
            let mut object = (*stored).clone();
            if let Some(tls) = object["spec"]["tls"].as_array_mut() {
                tls.push(json!({"hosts": [wildcard], "secretName": secret}));
            } else {
                object["spec"]["tls"] = json!([{"hosts": [wildcard], "secretName": secret}]);
            }
            cluster.put_ingress(object);
        }
    }
    Ok(())
}

/// The HTTPRoute that takes over part of Ingress `name`'s host.
fn gateway_route(namespace: &str, name: &str) -> Value {
    let parent = json!({
        "group": "gateway.networking.k8s.io", "kind": "Gateway",
        "namespace": "gateway-system", "name": "public", "sectionName": "https",
    });
    let rule = |path: &str, service: &str| {
        json!({
            "matches": [{"path": {"type": "PathPrefix", "value": path}}],
            "backendRefs": [{"group": "", "kind": "Service", "name": service, "port": 80, "weight": 1}],
        })
    };
    let condition = |kind: &str, reason: &str, message: &str| {
        json!({"type": kind, "status": "True", "reason": reason, "message": message,
            "observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:00:00Z"})
    };
    json!({
        "metadata": {
            "name": format!("{name}-gateway"),
            "namespace": namespace,
            "labels": {"app.kubernetes.io/name": name},
        },
        "spec": {
            "parentRefs": [parent],
            "hostnames": [format!("{name}.{namespace}.example.com")],
            "rules": [
                rule("/api", &format!("{name}-api")),
                rule("/v2", name),
                rule("/v2", name),
            ],
        },
        "status": {"parents": [{
            "parentRef": parent,
            "controllerName": GATEWAY_CONTROLLER,
            "conditions": [
                condition("Accepted", "Accepted", "Route is accepted"),
                condition("ResolvedRefs", "ResolvedRefs", "Resolved all the Object references for the Route"),
            ],
        }]},
    })
}
