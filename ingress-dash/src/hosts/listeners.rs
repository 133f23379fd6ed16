//! The Gateway listeners each route of a Hosts answer attaches to: its parentRefs (with their
//! `sectionName` and `port`) joined to the listeners of the Gateways read for the answer that
//! accept it (`admission`: allowed kinds and namespaces, hostnames), or in words why none: no
//! such Gateway, no such listener, a listener that does not accept the route and why, or the
//! Gateways of that namespace not read.
//!
//! A listener that terminates TLS brings its certificates' Secrets to the hosts of the routes it
//! accepts ([`listener_secrets`]): they count in a host's TLS overlap like an Ingress's.
//!
//! Plain functions over the routes and the Gateways read ([`KnownGateways`]); `http::hosts`
//! reads the Gateways (on demand, like a route diagnosis's ReferenceGrants) between the answer's
//! scan and its flags (`hosts::scan`, `hosts::finish`).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::ANY_HOST;
use super::admission::{self, Admission, RouteSide};
use crate::kube::kind_types::{Gateway, GatewayListener};
use crate::kube::object_reads::MAX_GATEWAYS;
use crate::records::{IngressRecord, ParentRef, RecordKind};

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
    /// The listeners the parentRef selects that accept the route (empty: see `problem`, or
    /// the Gateways not read).
    pub listeners: Vec<AttachedListener>,
    /// Why no listener: `no such Gateway`, `no such listener`, why each listener it selects
    /// does not accept the route, or why the Gateways of its namespace were not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The route's namespace and hostnames, which the listeners judge.
    #[serde(skip)]
    route_namespace: String,
    #[serde(skip)]
    route_hostnames: Vec<String>,
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
    /// What was not checked: `namespace selector not checked`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// (namespace, name) of each Secret its certificateRefs name when it terminates TLS.
    #[serde(skip)]
    secrets: Vec<(String, String)>,
}

/// A Secret a listener that accepts a route terminates TLS for one of its hosts with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ListenerSecret {
    pub namespace: String,
    pub name: String,
    /// `namespace/gateway/listener`.
    pub listener: String,
}

/// The Gateways read per namespace, or why that namespace's were not.
#[derive(Debug, Default)]
pub(crate) struct KnownGateways {
    pub namespaces: BTreeMap<String, Result<Vec<Gateway>, String>>,
    /// (namespace, name) of each Gateway read that does not decode, with why.
    undecodable: BTreeMap<(String, String), String>,
    /// The namespaces with more Gateways than are read: one not among those read may exist.
    not_all_read: BTreeSet<String>,
}

/// At most this much of a decoding error is shown (it may quote the object).
const MAX_REASON_CHARS: usize = 160;

impl KnownGateways {
    /// The Gateways of `namespace` among `items` (as listed); those that do not decode are
    /// kept by name with why.
    pub(crate) fn decode(
        &mut self,
        namespace: &str,
        items: Vec<serde_json::Value>,
    ) -> Vec<Gateway> {
        let mut gateways = Vec::with_capacity(items.len());
        for item in items {
            let name = item["metadata"]["name"].as_str().map(str::to_owned);
            match serde_json::from_value::<Gateway>(item) {
                Ok(gateway) => gateways.push(gateway),
                Err(error) => {
                    if let Some(name) = name {
                        let why: String =
                            error.to_string().chars().take(MAX_REASON_CHARS).collect();
                        self.undecodable.insert((namespace.to_owned(), name), why);
                    }
                }
            }
        }
        gateways
    }

    /// Says that `namespace` has more Gateways than were read: a Gateway not among them is
    /// not said to be missing.
    pub(crate) fn not_all_read(&mut self, namespace: &str) {
        self.not_all_read.insert(namespace.to_owned());
    }
}

/// An attachment of `parent` (a Gateway parentRef of `record`), before the Gateways are read.
pub(super) fn attachment(record: &IngressRecord, parent: &ParentRef) -> Attachment {
    Attachment {
        gateway_namespace: parent.namespace.clone(),
        gateway: parent.name.clone(),
        section_name: parent.section_name.clone(),
        port: parent.port,
        listeners: Vec::new(),
        problem: None,
        route_namespace: record.namespace.clone(),
        route_hostnames: record.hosts.clone(),
    }
}

/// The namespaces of the Gateways `attachments` name.
pub(super) fn gateway_namespaces<'a>(
    attachments: impl IntoIterator<Item = &'a Attachment>,
) -> BTreeSet<String> {
    attachments
        .into_iter()
        .map(|attachment| attachment.gateway_namespace.clone())
        .collect()
}

/// The Secrets the listeners `attachments` resolved to (a route's) terminate TLS with for
/// `host` (folded; `*`: the route has no hostnames and takes the listener's): each listener
/// without a hostname, or whose hostname `host` intersects; each Secret once.
pub(super) fn listener_secrets(attachments: &[Attachment], host: &str) -> Vec<ListenerSecret> {
    let mut found: Vec<ListenerSecret> = Vec::new();
    for attachment in attachments {
        for listener in &attachment.listeners {
            let covers = host == ANY_HOST
                || listener
                    .hostname
                    .as_deref()
                    .is_none_or(|hostname| admission::intersects(hostname, host));
            if !covers {
                continue;
            }
            for (namespace, name) in &listener.secrets {
                if !found
                    .iter()
                    .any(|known| known.namespace == *namespace && known.name == *name)
                {
                    found.push(ListenerSecret {
                        namespace: namespace.clone(),
                        name: name.clone(),
                        listener: format!(
                            "{}/{}/{}",
                            attachment.gateway_namespace, attachment.gateway, listener.name
                        ),
                    });
                }
            }
        }
    }
    found
}

fn shown(
    listener: &GatewayListener,
    gateway_namespace: &str,
    note: Option<String>,
) -> AttachedListener {
    let tls = listener.tls.clone().unwrap_or_default();
    let terminates = listener.tls.is_some() && tls.mode.as_deref().is_none_or(|m| m == "Terminate");
    let secrets = tls
        .certificate_refs
        .iter()
        .filter(|reference| terminates && reference.kind.as_deref().is_none_or(|k| k == "Secret"))
        .map(|reference| {
            let namespace = reference.namespace.as_deref().unwrap_or(gateway_namespace);
            (namespace.to_owned(), reference.name.clone())
        })
        .collect();
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
        note,
        secrets,
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
        let key = (
            attachment.gateway_namespace.clone(),
            attachment.gateway.clone(),
        );
        attachment.problem = Some(match gateways.undecodable.get(&key) {
            Some(why) => format!("Gateway {label} could not be read: it does not decode ({why})"),
            None if gateways.not_all_read.contains(&key.0) => format!(
                "more than {} Gateways in {}: not all read, and {label} is not among those read",
                thousands(MAX_GATEWAYS),
                key.0
            ),
            None => format!("no such Gateway: {label} does not exist"),
        });
        return;
    };
    // Without a section or a port the parentRef selects every listener that takes its kind.
    let selected: Vec<&GatewayListener> = gateway
        .spec
        .listeners
        .iter()
        .filter(
            |listener| match (&attachment.section_name, attachment.port) {
                (None, None) => admission::allows_kind(listener, kind),
                (section, port) => {
                    section.as_ref().is_none_or(|name| *name == listener.name)
                        && port.is_none_or(|port| port == listener.port)
                }
            },
        )
        .collect();
    if selected.is_empty() {
        let wanted = match (&attachment.section_name, attachment.port) {
            (Some(section), Some(port)) => format!("named {section} on port {port}"),
            (Some(section), None) => format!("named {section}"),
            (None, Some(port)) => format!("on port {port}"),
            (None, None) => format!("that allows {}", kind.as_str()),
        };
        attachment.problem = Some(format!(
            "no such listener: Gateway {label} has no listener {wanted}"
        ));
        return;
    }
    let route = RouteSide {
        kind,
        namespace: &attachment.route_namespace,
        hostnames: &attachment.route_hostnames,
    };
    let mut accepted = Vec::new();
    let mut refusals = Vec::new();
    for listener in selected {
        match admission::admit(listener, &attachment.gateway_namespace, route) {
            Admission::Accepted { note } => {
                accepted.push(shown(listener, &attachment.gateway_namespace, note));
            }
            Admission::Refused(why) => refusals.push(why),
        }
    }
    if accepted.is_empty() {
        attachment.problem = Some(refusals.join("; "));
    }
    attachment.listeners = accepted;
}

/// `n` with a `,` between thousands (`10,000`).
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// Joins each of `attachments` (a route of `kind`'s) to its Gateway's listeners.
pub(super) fn resolve_all(
    attachments: &mut [Attachment],
    kind: RecordKind,
    gateways: &KnownGateways,
) {
    for attachment in attachments {
        resolve(attachment, kind, gateways);
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
        resolved_from(kind, "infra", &[], namespace, "public", section, port)
    }

    /// A route of `kind` in `route_namespace` with `hostnames` and its parentRef to Gateway
    /// `namespace/name`, resolved.
    fn resolved_from(
        kind: RecordKind,
        route_namespace: &str,
        hostnames: &[&str],
        namespace: &str,
        name: &str,
        section: Option<&str>,
        port: Option<i32>,
    ) -> Attachment {
        let mut attachment = Attachment {
            gateway_namespace: namespace.into(),
            gateway: name.into(),
            section_name: section.map(str::to_owned),
            port,
            listeners: Vec::new(),
            problem: None,
            route_namespace: route_namespace.into(),
            route_hostnames: hostnames.iter().map(|host| (*host).to_owned()).collect(),
        };
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
                note: None,
                secrets: vec![("infra".into(), "wildcard-tls".into())],
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
        let missing = resolved_from(
            RecordKind::HttpRoute,
            "infra",
            &[],
            "infra",
            "private",
            None,
            None,
        );
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

    #[test]
    fn a_listener_that_does_not_accept_the_route_says_why() {
        let grpc = resolved(RecordKind::GrpcRoute, "infra", Some("tls"), None);
        assert!(grpc.listeners.is_empty());
        assert_eq!(
            grpc.problem.as_deref(),
            Some("listener tls does not allow GRPCRoute")
        );
        let elsewhere = resolved_from(
            RecordKind::HttpRoute,
            "shop",
            &[],
            "infra",
            "public",
            None,
            None,
        );
        let problem = elsewhere.problem.unwrap_or_default();
        assert!(
            problem.starts_with("listener http: namespace not allowed")
                && problem.contains("; listener https: namespace not allowed"),
            "{problem}"
        );
        let other_host = resolved_from(
            RecordKind::HttpRoute,
            "infra",
            &["shop.example.org"],
            "infra",
            "public",
            None,
            None,
        );
        assert_eq!(names(&other_host), ["http"], "http has no hostname");
        let only_https = resolved_from(
            RecordKind::HttpRoute,
            "infra",
            &["shop.example.org"],
            "infra",
            "public",
            Some("https"),
            None,
        );
        assert_eq!(
            only_https.problem.as_deref(),
            Some(
                "not accepted by listener https: hostname (no hostname of the route matches \
                 *.example.com)"
            )
        );
    }

    #[test]
    fn a_gateway_that_does_not_decode_is_said_so_not_missing() {
        let mut known = gateways();
        let read = known.decode(
            "broken",
            vec![json!({"metadata": {"name": "public"}, "spec": {"listeners": "none"}})],
        );
        assert!(read.is_empty());
        known.namespaces.insert("broken".into(), Ok(read));
        let mut attachment = Attachment {
            gateway_namespace: "broken".into(),
            gateway: "public".into(),
            section_name: None,
            port: None,
            listeners: Vec::new(),
            problem: None,
            route_namespace: "broken".into(),
            route_hostnames: Vec::new(),
        };
        resolve(&mut attachment, RecordKind::HttpRoute, &known);
        let problem = attachment.problem.unwrap_or_default();
        assert!(
            problem.starts_with("Gateway broken/public could not be read: it does not decode ("),
            "{problem}"
        );
    }

    #[test]
    fn a_gateway_past_those_read_is_not_said_missing() {
        let mut known = gateways();
        known.not_all_read("infra");
        let mut attachment = Attachment {
            gateway_namespace: "infra".into(),
            gateway: "private".into(),
            section_name: None,
            port: None,
            listeners: Vec::new(),
            problem: None,
            route_namespace: "infra".into(),
            route_hostnames: Vec::new(),
        };
        resolve(&mut attachment, RecordKind::HttpRoute, &known);
        assert_eq!(
            attachment.problem.as_deref(),
            Some(
                "more than 10,000 Gateways in infra: not all read, and infra/private is not \
                 among those read"
            )
        );
        let mut read = attachment.clone();
        read.gateway = "public".into();
        read.problem = None;
        resolve(&mut read, RecordKind::HttpRoute, &known);
        assert_eq!(read.problem, None);
        assert_eq!(names(&read), ["http", "https"]);
    }
}
