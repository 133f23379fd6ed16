//! "Why a route does not work": a route's (HTTPRoute, GRPCRoute, TLSRoute, in HTTPRoute's
//! shape) parents' `Accepted` and `ResolvedRefs` conditions and its own spec turned into
//! findings in plain words, per parent.
//!
//! Everything here comes from the cluster and is hostile: a controller's reason and message are
//! quoted bounded (`MAX_REASON`, `MAX_MESSAGE` characters) with control characters dropped, and
//! never interpreted. The web app renders them as text.

use serde::{Deserialize, Serialize};

use crate::kube::kind_types::{Condition, ParentReference};
use crate::kube::watched_kinds::HttpRoute;
use crate::records::{BackendState, BackendStatus, RecordKind};

const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";
/// A reason is a CamelCase word; longer is cut.
const MAX_REASON: usize = 64;
/// A controller's message is cut at this many characters (then `…`).
const MAX_MESSAGE: usize = 256;

/// One thing wrong with a route, for one parent or for the whole route.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS), ts(optional_fields = false))]
#[serde(rename_all = "camelCase")]
pub struct RouteFinding {
    /// The parent as `namespace/name` (with `/section`); absent: the route as a whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    pub severity: FindingSeverity,
    pub code: FindingCode,
    /// In words, with the controller's reason and message quoted where it gave them.
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FindingSeverity {
    /// Traffic does not reach (some of) the route's backends through this parent.
    Error,
    /// Not decided yet, or a part of the route only.
    Warning,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FindingCode {
    /// A parentRef no controller reported on.
    NeverAttached,
    /// `Accepted` is `False`, or `Unknown`/`Pending`.
    NotAccepted,
    /// `ResolvedRefs` is `False`.
    RefsNotResolved,
    /// A backend Service the dashboard watches does not exist.
    ServiceMissing,
    /// A backendRef to another namespace that no ReferenceGrant there allows.
    CrossNamespaceWithoutGrant,
}

/// One `spec.from` or `spec.to` entry of a ReferenceGrant
/// (gateway.networking.k8s.io/v1beta1).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct GrantPeer {
    pub group: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: Option<String>,
}

/// A ReferenceGrant reduced to what the diagnosis needs: its namespace, `from` and `to`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ReferenceGrant {
    pub namespace: String,
    pub from: Vec<GrantPeer>,
    pub to: Vec<GrantPeer>,
}

/// The ReferenceGrants of the namespaces that were read (`namespaces`); a backendRef into
/// another namespace is judged only there.
#[derive(Debug, Clone, Default)]
pub struct KnownGrants {
    pub namespaces: std::collections::BTreeSet<String>,
    pub grants: Vec<ReferenceGrant>,
}

impl ReferenceGrant {
    /// Whether this grant lets a route of kind `from_kind` (`HTTPRoute`, `GRPCRoute`,
    /// `TLSRoute`) in `from_namespace` refer to `kind` `name` (group `group`) in the grant's
    /// namespace.
    fn allows(
        &self,
        from_kind: &str,
        from_namespace: &str,
        group: &str,
        kind: &str,
        name: &str,
    ) -> bool {
        let from = self.from.iter().any(|peer| {
            peer.group == GATEWAY_GROUP
                && peer.kind == from_kind
                && peer.namespace.as_deref() == Some(from_namespace)
        });
        let to = self.to.iter().any(|peer| {
            peer.group == group
                && peer.kind == kind
                && peer.name.as_deref().is_none_or(|only| only == name)
        });
        from && to
    }
}

/// Bounded, without control characters (a reason or message a controller wrote).
fn quoted(text: &str, max: usize) -> String {
    let clean: String = text.chars().filter(|c| !c.is_control()).collect();
    let clean = clean.trim();
    if clean.chars().count() > max {
        let mut cut: String = clean.chars().take(max).collect();
        cut.push('…');
        cut
    } else {
        clean.to_owned()
    }
}

/// `namespace/name[/section]` of a parent reference, its namespace defaulting to the route's.
fn parent_label(reference: &ParentReference, namespace: &str) -> String {
    let parent_namespace = reference.namespace.as_deref().unwrap_or(namespace);
    match &reference.section_name {
        Some(section) => format!("{parent_namespace}/{}/{section}", reference.name),
        None => format!("{parent_namespace}/{}", reference.name),
    }
}

/// Two references name the same parent (defaults filled in).
fn same_parent(a: &ParentReference, b: &ParentReference, namespace: &str) -> bool {
    let group = |r: &ParentReference| r.group.clone().unwrap_or_else(|| GATEWAY_GROUP.into());
    let kind = |r: &ParentReference| r.kind.clone().unwrap_or_else(|| "Gateway".into());
    group(a) == group(b)
        && kind(a) == kind(b)
        && a.namespace.as_deref().unwrap_or(namespace)
            == b.namespace.as_deref().unwrap_or(namespace)
        && a.name == b.name
        && a.section_name == b.section_name
        && a.port == b.port
}

/// What an `Accepted: False` reason means.
fn not_accepted_words(reason: &str) -> &'static str {
    match reason {
        "NotAllowedByListeners" => {
            "no listener of the Gateway allows this route (its namespace or kind is not in the \
             listeners' allowedRoutes)"
        }
        "NoMatchingListenerHostname" => {
            "no listener's hostname matches any of the route's hostnames"
        }
        "NoMatchingParent" => {
            "no such Gateway or listener: the sectionName or port matches no listener"
        }
        "UnsupportedValue" => "the controller does not support a value the route uses",
        "Pending" => "the controller has not decided yet",
        _ => "the parent did not accept the route",
    }
}

/// What a `ResolvedRefs: False` reason means.
fn unresolved_words(reason: &str) -> &'static str {
    match reason {
        "BackendNotFound" => "a backend the route refers to (Service or other) does not exist",
        "RefNotPermitted" => {
            "a cross-namespace reference is not allowed: no ReferenceGrant in the target \
             namespace permits it"
        }
        "InvalidKind" => "a backendRef names a group or kind the controller does not support",
        "UnsupportedProtocol" => "a backend's appProtocol is not supported by the controller",
        _ => "some references of the route could not be resolved",
    }
}

fn with_controller_words(words: &str, condition: &Condition) -> String {
    let reason = quoted(condition.reason.as_deref().unwrap_or(""), MAX_REASON);
    let message = quoted(condition.message.as_deref().unwrap_or(""), MAX_MESSAGE);
    let mut text = format!("{}: {words}", condition.type_);
    if !reason.is_empty() {
        text.push_str(&format!(" (reason {reason})"));
    }
    if !message.is_empty() {
        text.push_str(&format!(". The controller says: {message}"));
    }
    text
}

/// The namespaces, other than the route's, that its backendRefs point to.
pub fn backend_namespaces(route: &HttpRoute) -> std::collections::BTreeSet<String> {
    let namespace = route.metadata.namespace.as_deref().unwrap_or_default();
    route
        .spec
        .rules
        .iter()
        .flat_map(|rule| &rule.backend_refs)
        .filter_map(|backend| backend.namespace.clone())
        .filter(|target| target != namespace)
        .collect()
}

/// The findings of `route` (of kind `route_kind`, in HTTPRoute's shape) from its spec and
/// status. `grants`: the ReferenceGrants of the namespaces its backendRefs point to, where they
/// were read (`None`: not known, no finding about them from the spec; a parent's
/// `RefNotPermitted` still says so); a grant allows a backendRef only `from` the route's kind.
pub fn diagnose(
    route: &HttpRoute,
    route_kind: RecordKind,
    grants: Option<&KnownGrants>,
) -> Vec<RouteFinding> {
    let namespace = route.metadata.namespace.as_deref().unwrap_or_default();
    let statuses = route
        .status
        .as_ref()
        .map(|status| status.parents.as_slice())
        .unwrap_or_default();
    let mut findings = Vec::new();
    for reference in &route.spec.parent_refs {
        if !statuses
            .iter()
            .any(|status| same_parent(&status.parent_ref, reference, namespace))
        {
            findings.push(RouteFinding {
                parent: Some(parent_label(reference, namespace)),
                severity: FindingSeverity::Error,
                code: FindingCode::NeverAttached,
                message: "Never attached: no controller has reported on this parent. The \
                          Gateway may not exist, or no controller owns its GatewayClass."
                    .to_owned(),
            });
        }
    }
    for status in statuses {
        let parent = Some(parent_label(&status.parent_ref, namespace));
        for condition in &status.conditions {
            let reason = condition.reason.as_deref().unwrap_or("");
            let (code, words, severity) =
                match (condition.type_.as_str(), condition.status.as_str()) {
                    ("Accepted", "False") if reason == "Pending" => (
                        FindingCode::NotAccepted,
                        not_accepted_words(reason),
                        FindingSeverity::Warning,
                    ),
                    ("Accepted", "False") => (
                        FindingCode::NotAccepted,
                        not_accepted_words(reason),
                        FindingSeverity::Error,
                    ),
                    ("Accepted", "Unknown") => (
                        FindingCode::NotAccepted,
                        "the controller has not decided yet",
                        FindingSeverity::Warning,
                    ),
                    ("ResolvedRefs", "False") => (
                        FindingCode::RefsNotResolved,
                        unresolved_words(reason),
                        FindingSeverity::Error,
                    ),
                    _ => continue,
                };
            findings.push(RouteFinding {
                parent: parent.clone(),
                severity,
                code,
                message: with_controller_words(words, condition),
            });
        }
    }
    if let Some(grants) = grants {
        for backend in route.spec.rules.iter().flat_map(|rule| &rule.backend_refs) {
            let Some(target) = backend.namespace.as_deref() else {
                continue;
            };
            if target == namespace || !grants.namespaces.contains(target) {
                continue;
            }
            let group = backend.group.as_deref().unwrap_or("");
            let kind = backend.kind.as_deref().unwrap_or("Service");
            let allowed = grants.grants.iter().any(|grant| {
                grant.namespace == target
                    && grant.allows(route_kind.as_str(), namespace, group, kind, &backend.name)
            });
            let finding = RouteFinding {
                parent: None,
                severity: FindingSeverity::Error,
                code: FindingCode::CrossNamespaceWithoutGrant,
                message: format!(
                    "{kind} {target}/{} is in another namespace and no ReferenceGrant in {target} \
                     allows {}s from {namespace} to refer to it",
                    backend.name,
                    route_kind.as_str()
                ),
            };
            if !allowed && !findings.contains(&finding) {
                findings.push(finding);
            }
        }
    }
    findings
}

/// Replaces the `service_missing` findings in `findings` with one per backend of `backends`
/// that is `missing_service` (called whenever a record's backends are joined again).
pub fn set_missing_services(findings: &mut Vec<RouteFinding>, backends: &[BackendStatus]) {
    findings.retain(|finding| finding.code != FindingCode::ServiceMissing);
    for backend in backends {
        if backend.state == BackendState::MissingService {
            findings.push(RouteFinding {
                parent: None,
                severity: FindingSeverity::Error,
                code: FindingCode::ServiceMissing,
                message: format!(
                    "Service {}/{} does not exist: requests routed to it fail",
                    backend.namespace, backend.service
                ),
            });
        }
    }
}

#[cfg(test)]
mod tests;
