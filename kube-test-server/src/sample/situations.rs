//! The situations a newcomer must see on `make run`, set up around the existing sample
//! ingresses (none is added or changed, so counts stay as they were):
//!
//! - `app-00000`: its TLS Secret `app-00000-tls` holds a real certificate expiring in 5 days for
//!   `app-00000.<ns>.example.com` only, so the ingress's wildcard rule host
//!   `*.<ns>.example.com` is not covered (a mismatch); a cert-manager `Certificate` `app-00000`
//!   manages that Secret.
//! - `app-00001`: a broken backend: Service `app-00001` exists but none of its endpoints is
//!   ready (pods crash-looping); Warning events on the ingress say so.
//! - `app-00002`: Service `app-00002-api` does not exist (nor its EndpointSlice); a Warning
//!   event says so; its TLS Secret holds a certificate valid for 80 days.
//! - every other TLS ingress: a valid certificate for its host (30 to 89 days left).
//! - in the first namespace, two HTTPRoutes attached to Gateway `gateway-system/public`:
//!   `storefront` (Accepted and ResolvedRefs True, backend Service `storefront` with ready
//!   endpoints) and `checkout` (Accepted True, ResolvedRefs False with reason
//!   `BackendNotFound`: its backendRef `checkout-v2` names no Service).

use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::{Event, EventSource, ObjectReference};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use k8s_openapi::jiff::Timestamp;
use serde_json::Value;

use super::backends::{put_service_with_endpoints, suffix};
use crate::cert_manager::{
    Certificate, CertificateCondition, CertificateSpec, CertificateStatus, IssuerReference,
};
use crate::gateway::{
    HttpBackendRef, HttpPathMatch, HttpRoute, HttpRouteMatch, HttpRouteRule, HttpRouteSpec,
    HttpRouteStatus, ParentReference, RouteParentStatus,
};
use crate::tls::{CertificateAuthority, rfc3339, tls_secret};
use crate::{Cluster, Kind};

const DAY: Duration = Duration::from_secs(86_400);
/// The controller that writes the sample HTTPRoutes' status.
pub const GATEWAY_CONTROLLER: &str = "gateway.envoyproxy.io/gatewayclass-controller";

fn time_ago(ago: Duration) -> Time {
    let seconds = (SystemTime::now() - ago)
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64);
    Time(Timestamp::from_second(seconds).unwrap_or(Timestamp::UNIX_EPOCH))
}

/// A core/v1 Event about `object` (as stored) of `kind`, as a controller records it:
/// `event_type` `Warning` or `Normal`, seen `count` times, first `first_seen` ago and last
/// `last_seen` ago, reported by `component`.
#[allow(clippy::too_many_arguments)]
pub fn event(
    kind: Kind,
    object: &Value,
    event_type: &str,
    reason: &str,
    message: &str,
    count: i32,
    first_seen: Duration,
    last_seen: Duration,
    component: &str,
) -> Value {
    let metadata = &object["metadata"];
    let text = |value: &Value| value.as_str().map(str::to_owned);
    let name = metadata["name"].as_str().unwrap_or_default();
    let namespace = metadata["namespace"].as_str().unwrap_or("default");
    let event = Event {
        metadata: ObjectMeta {
            name: Some(format!(
                "{name}.{}",
                suffix(&format!("{namespace}/{name}/{reason}"))
            )),
            namespace: Some(namespace.to_owned()),
            ..ObjectMeta::default()
        },
        involved_object: ObjectReference {
            api_version: Some(kind.api_version().to_owned()),
            kind: Some(kind.name().to_owned()),
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            uid: text(&metadata["uid"]),
            resource_version: text(&metadata["resourceVersion"]),
            ..ObjectReference::default()
        },
        type_: Some(event_type.to_owned()),
        reason: Some(reason.to_owned()),
        message: Some(message.to_owned()),
        count: Some(count),
        first_timestamp: Some(time_ago(first_seen)),
        last_timestamp: Some(time_ago(last_seen)),
        source: Some(EventSource {
            component: Some(component.to_owned()),
            host: None,
        }),
        reporting_component: Some(component.to_owned()),
        reporting_instance: Some(format!("{component}-7d9f8c6b5-x2k4q")),
        ..Event::default()
    };
    serde_json::to_value(event).expect("k8s-openapi types serialise")
}

fn name_of(index: usize) -> String {
    format!("app-{index:05}")
}

fn host_of(index: usize, namespace: &str) -> String {
    format!("{}.{namespace}.example.com", name_of(index))
}

/// TLS Secrets for every TLS sample ingress (even index) among the first `ingresses`, valid
/// for 30 to 89 days, except the two of the situations (`app-00000`: 5 days and a name
/// mismatch; `app-00002`: 80 days).
pub fn populate_tls(
    cluster: &Cluster,
    ca: &CertificateAuthority,
    ingresses: usize,
    namespaces: usize,
) -> Result<(), rcgen::Error> {
    let namespaces = namespaces.max(1);
    let now = SystemTime::now();
    for index in (0..ingresses).step_by(2) {
        let namespace = super::namespace_name(index % namespaces);
        let host = host_of(index, &namespace);
        let (days_left, valid_for) = match index {
            0 => (5, 90),
            2 => (80, 90),
            _ => (30 + (index as u64 * 7) % 60, 90),
        };
        let not_after = now + DAY * days_left as u32;
        let not_before = not_after - DAY * valid_for;
        let certificate = ca.issue(&[host], not_before, not_after)?;
        let secret = tls_secret(
            &namespace,
            &format!("{}-tls", name_of(index)),
            &certificate,
            Some(ca.certificate_pem()),
        );
        cluster.put(Kind::Secret, secret);
        if index == 0 {
            cluster.put(
                Kind::Certificate,
                certificate_resource(&namespace, &name_of(index), &certificate),
            );
        }
    }
    Ok(())
}

/// The cert-manager Certificate that issued `certificate` into Secret `<name>-tls`.
fn certificate_resource(
    namespace: &str,
    name: &str,
    certificate: &crate::tls::IssuedCertificate,
) -> Value {
    let renewal = certificate.not_after - Duration::from_secs(30 * 86_400);
    let resource = Certificate {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            ..ObjectMeta::default()
        },
        spec: CertificateSpec {
            secret_name: format!("{name}-tls"),
            dns_names: Some(certificate.dns_names.clone()),
            issuer_ref: IssuerReference {
                name: "letsencrypt-prod".to_owned(),
                kind: Some("ClusterIssuer".to_owned()),
                group: Some("cert-manager.io".to_owned()),
            },
            duration: Some("2160h0m0s".to_owned()),
            renew_before: Some("720h0m0s".to_owned()),
            ..CertificateSpec::default()
        },
        status: Some(CertificateStatus {
            conditions: Some(vec![
                CertificateCondition {
                    condition_type: "Ready".to_owned(),
                    status: "True".to_owned(),
                    reason: Some("Ready".to_owned()),
                    message: Some("Certificate is up to date and has not expired".to_owned()),
                    last_transition_time: Some(certificate.not_before_rfc3339()),
                    observed_generation: Some(1),
                },
                CertificateCondition {
                    condition_type: "Issuing".to_owned(),
                    status: "True".to_owned(),
                    reason: Some("Renewing".to_owned()),
                    message: Some(
                        "Renewing certificate as renewal was scheduled at ".to_owned()
                            + &rfc3339(renewal),
                    ),
                    last_transition_time: Some(rfc3339(renewal)),
                    observed_generation: Some(1),
                },
            ]),
            not_before: Some(certificate.not_before_rfc3339()),
            not_after: Some(certificate.not_after_rfc3339()),
            renewal_time: Some(rfc3339(renewal)),
            revision: Some(3),
            ..CertificateStatus::default()
        }),
        ..Certificate::default()
    };
    serde_json::to_value(resource).expect("serde types serialise")
}

/// The broken backends of `app-00001` and `app-00002` and their Warning events (after
/// [`super::backends::populate_backends`]).
pub fn populate_broken_backends(cluster: &Cluster, ingresses: usize, namespaces: usize) {
    let namespaces = namespaces.max(1);
    let controller = "ingress-nginx-controller";
    if ingresses > 1 {
        let namespace = super::namespace_name(1 % namespaces);
        let name = name_of(1);
        put_service_with_endpoints(cluster, &namespace, &name, 80, 2, false);
        if let Some(ingress) = cluster.get(Kind::Ingress, Some(&namespace), &name) {
            let host = host_of(1, &namespace);
            for (event_type, reason, message, count, first, last) in [
                (
                    "Warning",
                    "NoReadyEndpoints",
                    format!(
                        "Service \"{namespace}/{name}\" has no ready endpoints: requests for {host}/ answer 503"
                    ),
                    42,
                    7_200,
                    40,
                ),
                (
                    "Warning",
                    "UpstreamUnhealthy",
                    format!(
                        "upstream {namespace}-{name}-80 has 0 of 2 peers up; last probe: connect() failed (111: Connection refused)"
                    ),
                    17,
                    3_600,
                    95,
                ),
                (
                    "Normal",
                    "Sync",
                    "Scheduled for sync".to_owned(),
                    3,
                    86_400,
                    7_200,
                ),
            ] {
                cluster.put(
                    Kind::Event,
                    event(
                        Kind::Ingress,
                        &ingress,
                        event_type,
                        reason,
                        &message,
                        count,
                        Duration::from_secs(first),
                        Duration::from_secs(last),
                        controller,
                    ),
                );
            }
        }
    }
    if ingresses > 2 {
        let namespace = super::namespace_name(2 % namespaces);
        let name = name_of(2);
        let missing = format!("{name}-api");
        for slice in cluster.list(Kind::EndpointSlice, Some(&namespace)) {
            if slice["metadata"]["labels"][super::SERVICE_NAME_LABEL] == missing.as_str()
                && let Some(slice_name) = slice["metadata"]["name"].as_str()
            {
                cluster.delete(Kind::EndpointSlice, Some(&namespace), slice_name);
            }
        }
        cluster.delete(Kind::Service, Some(&namespace), &missing);
        if let Some(ingress) = cluster.get(Kind::Ingress, Some(&namespace), &name) {
            let message = format!(
                "Error obtaining Endpoints for Service \"{namespace}/{missing}\": no object matching key \"{namespace}/{missing}\" in local store"
            );
            cluster.put(
                Kind::Event,
                event(
                    Kind::Ingress,
                    &ingress,
                    "Warning",
                    "ServiceNotFound",
                    &message,
                    9,
                    Duration::from_secs(5_400),
                    Duration::from_secs(120),
                    controller,
                ),
            );
        }
    }
}

fn condition(kind: &str, status: &str, reason: &str, message: &str) -> Condition {
    Condition {
        type_: kind.to_owned(),
        status: status.to_owned(),
        reason: reason.to_owned(),
        message: message.to_owned(),
        observed_generation: Some(1),
        last_transition_time: time_ago(Duration::from_secs(3_600)),
    }
}

fn route(namespace: &str, name: &str, backend: &str, path: &str, resolved: Condition) -> Value {
    let parent = ParentReference {
        group: Some("gateway.networking.k8s.io".to_owned()),
        kind: Some("Gateway".to_owned()),
        namespace: Some("gateway-system".to_owned()),
        name: "public".to_owned(),
        section_name: Some("https".to_owned()),
        port: None,
    };
    let route = HttpRoute {
        metadata: ObjectMeta {
            name: Some(name.to_owned()),
            namespace: Some(namespace.to_owned()),
            labels: Some([("app.kubernetes.io/name".to_owned(), name.to_owned())].into()),
            ..ObjectMeta::default()
        },
        spec: HttpRouteSpec {
            parent_refs: Some(vec![parent.clone()]),
            hostnames: Some(vec![format!("{name}.{namespace}.example.com")]),
            rules: Some(vec![HttpRouteRule {
                matches: Some(vec![HttpRouteMatch {
                    path: Some(HttpPathMatch {
                        match_type: Some("PathPrefix".to_owned()),
                        value: Some(path.to_owned()),
                    }),
                    ..HttpRouteMatch::default()
                }]),
                backend_refs: Some(vec![HttpBackendRef {
                    group: Some(String::new()),
                    kind: Some("Service".to_owned()),
                    name: backend.to_owned(),
                    port: Some(8080),
                    weight: Some(1),
                    ..HttpBackendRef::default()
                }]),
                ..HttpRouteRule::default()
            }]),
        },
        status: Some(HttpRouteStatus {
            parents: vec![RouteParentStatus {
                parent_ref: parent,
                controller_name: GATEWAY_CONTROLLER.to_owned(),
                conditions: vec![
                    condition("Accepted", "True", "Accepted", "Route is accepted"),
                    resolved,
                ],
            }],
        }),
        ..HttpRoute::default()
    };
    serde_json::to_value(route).expect("serde types serialise")
}

/// The two HTTPRoutes in the first namespace and the Service the resolved one sends to.
pub fn populate_routes(cluster: &Cluster) {
    let namespace = super::namespace_name(0);
    put_service_with_endpoints(cluster, &namespace, "storefront", 8080, 2, true);
    let resolved = condition(
        "ResolvedRefs",
        "True",
        "ResolvedRefs",
        "Resolved all the Object references for the Route",
    );
    cluster.put(
        Kind::HttpRoute,
        route(&namespace, "storefront", "storefront", "/", resolved),
    );
    let unresolved = condition(
        "ResolvedRefs",
        "False",
        "BackendNotFound",
        &format!(
            "Failed to process route rule 0 backendRef 0: service {namespace}/checkout-v2 not found."
        ),
    );
    cluster.put(
        Kind::HttpRoute,
        route(
            &namespace,
            "checkout",
            "checkout-v2",
            "/checkout",
            unresolved,
        ),
    );
}
