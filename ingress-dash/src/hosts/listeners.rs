//! The Gateway listeners each route of a Hosts answer attaches to: its parentRefs (with their
//! `sectionName` and `port`) joined to the listeners of the Gateways read for the answer, or in
//! words why none: no such Gateway, no such listener, or the Gateways of that namespace not read.
//!
//! Plain functions over the answer and the Gateways read ([`KnownGateways`]); `http::hosts`
//! reads the Gateways (on demand, like a route diagnosis's ReferenceGrants) and calls [`attach`].

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::HostsReport;
use crate::kube::kind_types::{Gateway, GatewayListener};
use crate::records::{ParentRef, RecordKind};

/// One Gateway parentRef of a route and the listeners it attaches to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct Attachment {
    pub gateway_namespace: String,
    pub gateway: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub section_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// The listeners the parentRef selects (empty: see `problem`, or the Gateways not read).
    pub listeners: Vec<AttachedListener>,
    /// Why no listener: `no such Gateway`, `no such listener`, or why the Gateways of its
    /// namespace were not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// A Gateway listener as the Hosts view shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct AttachedListener {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hostname: Option<String>,
    pub port: i32,
    pub protocol: String,
    /// `Terminate` or `Passthrough` (HTTPS and TLS listeners).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tls_mode: Option<String>,
    /// The Secrets (or other objects) its TLS certificates come from, `namespace/name`.
    pub certificate_refs: Vec<String>,
}

/// The Gateways read per namespace, or why that namespace's were not.
#[derive(Debug, Default)]
pub(crate) struct KnownGateways {
    pub namespaces: BTreeMap<String, Result<Vec<Gateway>, String>>,
}

/// An attachment of `parent` (a Gateway parentRef), before the Gateways are read.
pub(super) fn attachment(parent: &ParentRef) -> Attachment {
    Attachment {
        gateway_namespace: parent.namespace.clone(),
        gateway: parent.name.clone(),
        section_name: parent.section_name.clone(),
        port: parent.port,
        listeners: Vec::new(),
        problem: None,
    }
}

/// The namespaces of the Gateways the answer's routes name.
pub(crate) fn gateway_namespaces(report: &HostsReport) -> BTreeSet<String> {
    report
        .hosts
        .iter()
        .flat_map(|entry| &entry.objects)
        .flat_map(|object| &object.attachments)
        .map(|attachment| attachment.gateway_namespace.clone())
        .collect()
}

/// Whether a listener of `protocol` takes routes of `kind` (used when a parentRef names
/// neither a section nor a port: the route attaches to every listener that takes its kind).
fn takes(protocol: &str, kind: RecordKind) -> bool {
    match kind {
        RecordKind::HttpRoute | RecordKind::GrpcRoute => matches!(protocol, "HTTP" | "HTTPS"),
        RecordKind::TlsRoute => protocol == "TLS",
        RecordKind::Ingress => false,
    }
}

fn shown(listener: &GatewayListener, gateway_namespace: &str) -> AttachedListener {
    let tls = listener.tls.clone().unwrap_or_default();
    AttachedListener {
        name: listener.name.clone(),
        hostname: listener.hostname.clone(),
        port: listener.port,
        protocol: listener.protocol.clone(),
        tls_mode: listener
            .tls
            .as_ref()
            .map(|tls| tls.mode.clone().unwrap_or_else(|| "Terminate".to_owned())),
        certificate_refs: tls
            .certificate_refs
            .iter()
            .map(|reference| {
                let namespace = reference.namespace.as_deref().unwrap_or(gateway_namespace);
                format!("{namespace}/{}", reference.name)
            })
            .collect(),
    }
}

/// Fills `attachment`'s listeners (or its problem) for a route of `kind` from `gateways`.
fn resolve(attachment: &mut Attachment, kind: RecordKind, gateways: &KnownGateways) {
    let label = format!("{}/{}", attachment.gateway_namespace, attachment.gateway);
    let read = match gateways.namespaces.get(&attachment.gateway_namespace) {
        Some(Ok(read)) => read,
        Some(Err(reason)) => {
            attachment.problem = Some(format!(
                "the Gateways of {} were not read: {reason}",
                attachment.gateway_namespace
            ));
            return;
        }
        None => return,
    };
    let Some(gateway) = read
        .iter()
        .find(|gateway| gateway.metadata.name.as_deref() == Some(&attachment.gateway))
    else {
        attachment.problem = Some(format!("no such Gateway: {label} does not exist"));
        return;
    };
    let selects = |listener: &&GatewayListener| match (&attachment.section_name, attachment.port) {
        (None, None) => takes(&listener.protocol, kind),
        (section, port) => {
            section.as_ref().is_none_or(|name| *name == listener.name)
                && port.is_none_or(|port| port == listener.port)
        }
    };
    attachment.listeners = gateway
        .spec
        .listeners
        .iter()
        .filter(selects)
        .map(|listener| shown(listener, &attachment.gateway_namespace))
        .collect();
    if attachment.listeners.is_empty() {
        let wanted = match (&attachment.section_name, attachment.port) {
            (Some(section), Some(port)) => format!("named {section} on port {port}"),
            (Some(section), None) => format!("named {section}"),
            (None, Some(port)) => format!("on port {port}"),
            (None, None) => {
                "that takes this kind of route (protocol HTTP, HTTPS or TLS)".to_owned()
            }
        };
        attachment.problem = Some(format!(
            "no such listener: Gateway {label} has no listener {wanted}"
        ));
    }
}

/// Joins every route of `report` to its Gateways' listeners.
pub(crate) fn attach(report: &mut HostsReport, gateways: &KnownGateways) {
    for object in report.hosts.iter_mut().flat_map(|entry| &mut entry.objects) {
        let kind = object.kind;
        for attachment in &mut object.attachments {
            resolve(attachment, kind, gateways);
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn gateways() -> KnownGateways {
        let gateway: Gateway = serde_json::from_value(json!({
            "metadata": {"name": "public", "namespace": "infra"},
            "spec": {"listeners": [
                {"name": "http", "port": 80, "protocol": "HTTP"},
                {"name": "https", "port": 443, "protocol": "HTTPS", "hostname": "*.example.com",
                 "tls": {"certificateRefs": [{"name": "wildcard-tls"}]}},
                {"name": "tls", "port": 8443, "protocol": "TLS", "tls": {"mode": "Passthrough"}},
            ]},
        }))
        .unwrap();
        let mut known = KnownGateways::default();
        known.namespaces.insert("infra".into(), Ok(vec![gateway]));
        known.namespaces.insert(
            "edge".into(),
            Err("not a namespace this dashboard shows you".into()),
        );
        known
    }

    fn resolved(
        kind: RecordKind,
        namespace: &str,
        section: Option<&str>,
        port: Option<i32>,
    ) -> Attachment {
        let mut attachment = attachment(&ParentRef {
            group: "gateway.networking.k8s.io".into(),
            kind: "Gateway".into(),
            namespace: namespace.into(),
            name: "public".into(),
            section_name: section.map(str::to_owned),
            port,
        });
        resolve(&mut attachment, kind, &gateways());
        attachment
    }

    fn names(attachment: &Attachment) -> Vec<&str> {
        attachment
            .listeners
            .iter()
            .map(|l| l.name.as_str())
            .collect()
    }

    #[test]
    fn a_section_name_or_port_selects_the_listener_with_its_tls() {
        let https = resolved(RecordKind::HttpRoute, "infra", Some("https"), None);
        assert_eq!(https.problem, None);
        assert_eq!(
            https.listeners,
            [AttachedListener {
                name: "https".into(),
                hostname: Some("*.example.com".into()),
                port: 443,
                protocol: "HTTPS".into(),
                tls_mode: Some("Terminate".into()),
                certificate_refs: vec!["infra/wildcard-tls".into()],
            }]
        );
        assert_eq!(
            names(&resolved(RecordKind::TlsRoute, "infra", None, Some(8443))),
            ["tls"]
        );
        assert_eq!(
            resolved(RecordKind::TlsRoute, "infra", Some("tls"), None).listeners[0].tls_mode,
            Some("Passthrough".into())
        );
    }

    #[test]
    fn without_section_or_port_a_route_attaches_to_the_listeners_of_its_protocol() {
        assert_eq!(
            names(&resolved(RecordKind::GrpcRoute, "infra", None, None)),
            ["http", "https"]
        );
        assert_eq!(
            names(&resolved(RecordKind::TlsRoute, "infra", None, None)),
            ["tls"]
        );
    }

    #[test]
    fn no_such_gateway_or_listener_and_unread_namespaces_are_said_in_words() {
        let mut missing = attachment(&ParentRef {
            group: "gateway.networking.k8s.io".into(),
            kind: "Gateway".into(),
            namespace: "infra".into(),
            name: "private".into(),
            section_name: None,
            port: None,
        });
        resolve(&mut missing, RecordKind::HttpRoute, &gateways());
        assert_eq!(
            missing.problem.as_deref(),
            Some("no such Gateway: infra/private does not exist")
        );
        assert_eq!(
            resolved(RecordKind::HttpRoute, "infra", Some("grpc"), None)
                .problem
                .as_deref(),
            Some("no such listener: Gateway infra/public has no listener named grpc")
        );
        assert_eq!(
            resolved(RecordKind::HttpRoute, "infra", Some("https"), Some(80))
                .problem
                .as_deref(),
            Some("no such listener: Gateway infra/public has no listener named https on port 80")
        );
        let unread = resolved(RecordKind::HttpRoute, "edge", Some("https"), None);
        assert_eq!(
            unread.problem.as_deref(),
            Some("the Gateways of edge were not read: not a namespace this dashboard shows you")
        );
        assert!(unread.listeners.is_empty());
    }
}
