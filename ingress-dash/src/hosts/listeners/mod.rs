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

/// The Gateways read, by (namespace, name), and per namespace whether they were read or why not.
#[derive(Debug, Default)]
pub(crate) struct KnownGateways {
    /// Each namespace asked for: read, or why not.
    namespaces: BTreeMap<String, Result<(), String>>,
    /// Each Gateway read (the first of a name), by (namespace, name).
    gateways: BTreeMap<(String, String), Gateway>,
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

    /// The Gateways of `namespace` as `read`, or why they were not.
    pub(crate) fn insert(&mut self, namespace: String, read: Result<Vec<Gateway>, String>) {
        let read = read.map(|gateways| {
            for gateway in gateways {
                if let Some(name) = gateway.metadata.name.clone() {
                    self.gateways
                        .entry((namespace.clone(), name))
                        .or_insert(gateway);
                }
            }
        });
        self.namespaces.insert(namespace, read);
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
    match gateways.namespaces.get(&attachment.gateway_namespace) {
        Some(Ok(())) => {}
        Some(Err(reason)) => {
            attachment.problem = Some(format!(
                "the Gateways of {} were not read: {reason}",
                attachment.gateway_namespace
            ));
            return;
        }
        None => return,
    }
    let key = (
        attachment.gateway_namespace.clone(),
        attachment.gateway.clone(),
    );
    let Some(gateway) = gateways.gateways.get(&key) else {
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
mod tests;
