//! The situations of ingress-dash's Hosts view, set up around the existing sample ingresses
//! (none added, so the counts of ingresses stay; namespace `gateway-system` with Gateway
//! `public`, one HTTPRoute, one GRPCRoute, two TLSRoutes and two Secrets are added):
//!
//! - Gateway `gateway-system/public`, the parent of the sample's routes: listeners `https`
//!   (HTTPS 443, certificate `public-tls`, routes from every namespace) and `grpc` (HTTP 80,
//!   HTTPRoutes only); no `tls` listener.
//! - a host served by an Ingress and an HTTPRoute, with a conflict between them: HTTPRoute
//!   `app-00020-gateway` (Gateway `gateway-system/public`, listener `https`) takes
//!   `app-00020.<ns>.example.com` `PathPrefix /api`, which Ingress `app-00020` still routes
//!   (a migration half done), and adds `/v2`, twice (a duplicate rule). GRPCRoute
//!   `app-00020-grpc` serves method `shop.Cart/AddItem` on the same host through listener
//!   `grpc`, which does not allow it (`Accepted: False`, `NotAllowedByListeners`).
//! - two TLSRoutes claiming one SNI hostname, `db.<ns>.example.com` (a conflict), through
//!   listener `tls`, which Gateway `public` does not have (no such listener): `db` to Service
//!   `app-00020`, `db-replica` to Service `db-replica`, which does not exist; no controller has
//!   reported on either (never attached).
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
    cluster.add_namespace("gateway-system");
    cluster.put(Kind::Gateway, public_gateway());
    let (name, namespace) = sample(20, namespaces);
    cluster.put(Kind::HttpRoute, gateway_route(&namespace, &name));
    cluster.put(Kind::GrpcRoute, grpc_route(&namespace, &name));
    for (route, service) in [("db", name.as_str()), ("db-replica", "db-replica")] {
        cluster.put(Kind::TlsRoute, tls_route(&namespace, route, service));
    }
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

/// A parentRef to listener `section` of Gateway `gateway-system/public`.
fn public_listener(section: &str) -> Value {
    json!({
        "group": "gateway.networking.k8s.io", "kind": "Gateway",
        "namespace": "gateway-system", "name": "public", "sectionName": section,
    })
}

/// The GRPCRoute on Ingress `name`'s host that its listener does not allow.
fn grpc_route(namespace: &str, name: &str) -> Value {
    let parent = public_listener("grpc");
    json!({
        "metadata": {
            "name": format!("{name}-grpc"),
            "namespace": namespace,
            "labels": {"app.kubernetes.io/name": name},
        },
        "spec": {
            "parentRefs": [parent],
            "hostnames": [format!("{name}.{namespace}.example.com")],
            "rules": [{
                "matches": [{"method": {"type": "Exact", "service": "shop.Cart", "method": "AddItem"}}],
                "backendRefs": [{"group": "", "kind": "Service", "name": name, "port": 80, "weight": 1}],
            }],
        },
        "status": {"parents": [{
            "parentRef": parent,
            "controllerName": GATEWAY_CONTROLLER,
            "conditions": [{
                "type": "Accepted", "status": "False", "reason": "NotAllowedByListeners",
                "message": "listener grpc allows kinds HTTPRoute only",
                "observedGeneration": 1, "lastTransitionTime": "2026-01-01T00:00:00Z",
            }],
        }]},
    })
}

/// A TLSRoute `name` for SNI hostname `db.<namespace>.example.com` to `service`:80, without
/// status (no controller has reported on it).
fn tls_route(namespace: &str, name: &str, service: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "parentRefs": [public_listener("tls")],
            "hostnames": [format!("db.{namespace}.example.com")],
            "rules": [{
                "backendRefs": [{"group": "", "kind": "Service", "name": service, "port": 80, "weight": 1}],
            }],
        },
    })
}

/// Gateway `gateway-system/public`: listeners `https` (routes from every namespace) and `grpc`
/// (HTTPRoutes only).
fn public_gateway() -> Value {
    let from_all = json!({"namespaces": {"from": "All"}});
    json!({
        "metadata": {"name": "public", "namespace": "gateway-system"},
        "spec": {
            "gatewayClassName": "example",
            "listeners": [
                {"name": "https", "port": 443, "protocol": "HTTPS", "allowedRoutes": from_all,
                 "tls": {"mode": "Terminate", "certificateRefs": [{"kind": "Secret", "name": "public-tls"}]}},
                {"name": "grpc", "port": 80, "protocol": "HTTP",
                 "allowedRoutes": {"namespaces": {"from": "All"}, "kinds": [{"kind": "HTTPRoute"}]}},
            ],
        },
    })
}
