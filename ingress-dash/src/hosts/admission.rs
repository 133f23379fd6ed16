//! Whether a Gateway listener accepts a route, as the Gateway API says a controller decides it:
//! the kinds of its protocol (HTTPRoute and GRPCRoute for HTTP and HTTPS, TLSRoute for TLS),
//! narrowed by its `allowedRoutes.kinds` when it lists some (a listed kind its protocol does not
//! take is `InvalidRouteKinds`: not accepted), its `allowedRoutes.namespaces.from` (`Same` by default,
//! `All`, or `Selector`, which is not checked: the dashboard does not read namespace labels)
//! and its `hostname` intersected with the route's hostnames (a wildcard `*.example.com`
//! matches every name below `example.com`). Plain functions, called by `listeners`.

use crate::kube::kind_types::GatewayListener;
use crate::records::RecordKind;

/// The Gateway API group, what a `RouteGroupKind` without a group means.
pub(super) const GATEWAY_GROUP: &str = "gateway.networking.k8s.io";

/// What a listener says to a route.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Admission {
    /// Accepted; `note` says what was not checked.
    Accepted { note: Option<String> },
    /// Refused, with why in words.
    Refused(String),
}

/// The route as a listener judges it.
#[derive(Debug, Clone, Copy)]
pub(super) struct RouteSide<'a> {
    pub kind: RecordKind,
    pub namespace: &'a str,
    /// As written; empty: the route takes the listener's hostname.
    pub hostnames: &'a [String],
}

/// Where a listener takes routes from.
#[derive(Debug, Clone, PartialEq, Eq)]
enum From<'a> {
    Same,
    All,
    Selector,
    Unknown(&'a str),
}

fn from_of(listener: &GatewayListener) -> From<'_> {
    let from = listener
        .allowed_routes
        .as_ref()
        .and_then(|allowed| allowed.namespaces.as_ref())
        .and_then(|namespaces| namespaces.from.as_deref());
    match from {
        None | Some("Same") => From::Same,
        Some("All") => From::All,
        Some("Selector") => From::Selector,
        Some(other) => From::Unknown(other),
    }
}

/// Whether a listener of `protocol` can take routes of `kind` at all: HTTPRoute and GRPCRoute
/// on HTTP and HTTPS, TLSRoute on TLS.
fn protocol_takes(protocol: &str, kind: RecordKind) -> bool {
    match kind {
        RecordKind::HttpRoute | RecordKind::GrpcRoute => matches!(protocol, "HTTP" | "HTTPS"),
        RecordKind::TlsRoute => protocol == "TLS",
        RecordKind::Ingress => false,
    }
}

/// Whether `listener`'s `allowedRoutes.kinds` lists `kind` (in the Gateway API group).
fn lists_kind(listener: &GatewayListener, kind: RecordKind) -> bool {
    listener
        .allowed_routes
        .iter()
        .flat_map(|allowed| &allowed.kinds)
        .any(|allowed| {
            allowed.group.as_deref().unwrap_or(GATEWAY_GROUP) == GATEWAY_GROUP
                && allowed.kind == kind.as_str()
        })
}

/// Whether `listener` takes routes of `kind`: one its protocol takes and, when it lists
/// `allowedRoutes.kinds`, one it lists (a listed kind its protocol does not take is an
/// `InvalidRouteKinds`, not accepted).
pub(super) fn allows_kind(listener: &GatewayListener, kind: RecordKind) -> bool {
    let lists_kinds = listener
        .allowed_routes
        .as_ref()
        .is_some_and(|allowed| !allowed.kinds.is_empty());
    protocol_takes(&listener.protocol, kind) && (!lists_kinds || lists_kind(listener, kind))
}

/// Whether hostname `a` and `b` (either may be a wildcard `*.suffix`) name a host in common.
pub(super) fn intersects(a: &str, b: &str) -> bool {
    let fold = |host: &str| host.trim().trim_end_matches('.').to_ascii_lowercase();
    let (a, b) = (fold(a), fold(b));
    match (a.strip_prefix("*."), b.strip_prefix("*.")) {
        (None, None) => a == b,
        (Some(suffix), None) => below(&b, suffix),
        (None, Some(suffix)) => below(&a, suffix),
        (Some(one), Some(other)) => one == other || below(one, other) || below(other, one),
    }
}

/// Whether `host` is a name strictly below `suffix` (`a.example.com` below `example.com`).
fn below(host: &str, suffix: &str) -> bool {
    host.strip_suffix(suffix)
        .is_some_and(|head| head.len() > 1 && head.ends_with('.'))
}

/// What `listener` of a Gateway in `gateway_namespace` says to `route`.
pub(super) fn admit(
    listener: &GatewayListener,
    gateway_namespace: &str,
    route: RouteSide<'_>,
) -> Admission {
    let name = &listener.name;
    if !allows_kind(listener, route.kind) {
        let kind = route.kind.as_str();
        if lists_kind(listener, route.kind) {
            let protocol: String = listener.protocol.chars().take(64).collect();
            return Admission::Refused(format!(
                "listener {name} does not allow {kind}: InvalidRouteKinds ({kind} is listed but \
                 a {protocol} listener does not take it)"
            ));
        }
        return Admission::Refused(format!("listener {name} does not allow {kind}"));
    }
    let mut note = None;
    match from_of(listener) {
        From::All => {}
        From::Same if route.namespace == gateway_namespace => {}
        From::Same => {
            return Admission::Refused(format!(
                "listener {name}: namespace not allowed ({} is not the Gateway's namespace \
                 {gateway_namespace}, and the listener takes routes from it only)",
                route.namespace
            ));
        }
        From::Selector => note = Some("namespace selector not checked".to_owned()),
        From::Unknown(from) => {
            let from: String = from.chars().take(64).collect();
            return Admission::Refused(format!(
                "listener {name}: namespace not allowed (unknown namespaces.from {from:?})"
            ));
        }
    }
    if let Some(hostname) = &listener.hostname
        && !route.hostnames.is_empty()
        && !route
            .hostnames
            .iter()
            .any(|host| intersects(host, hostname))
    {
        return Admission::Refused(format!(
            "not accepted by listener {name}: hostname (no hostname of the route matches \
             {hostname})"
        ));
    }
    Admission::Accepted { note }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn listener(spec: serde_json::Value) -> GatewayListener {
        serde_json::from_value(spec).unwrap()
    }

    fn route<'a>(kind: RecordKind, namespace: &'a str, hostnames: &'a [String]) -> RouteSide<'a> {
        RouteSide {
            kind,
            namespace,
            hostnames,
        }
    }

    #[test]
    fn without_kinds_the_protocol_decides_http_and_https_take_grpc_routes_too() {
        let http = listener(json!({"name": "web", "port": 80, "protocol": "HTTP"}));
        let tls = listener(json!({"name": "db", "port": 8443, "protocol": "TLS"}));
        assert!(allows_kind(&http, RecordKind::HttpRoute));
        assert!(allows_kind(&http, RecordKind::GrpcRoute));
        assert!(!allows_kind(&http, RecordKind::TlsRoute));
        assert!(allows_kind(&tls, RecordKind::TlsRoute));
        assert!(!allows_kind(&tls, RecordKind::HttpRoute));
    }

    #[test]
    fn listed_kinds_allow_only_themselves_in_the_gateway_group() {
        let only_http = listener(json!({"name": "grpc", "port": 80, "protocol": "HTTP",
            "allowedRoutes": {"kinds": [{"kind": "HTTPRoute"}], "namespaces": {"from": "All"}}}));
        assert!(allows_kind(&only_http, RecordKind::HttpRoute));
        assert_eq!(
            admit(
                &only_http,
                "infra",
                route(RecordKind::GrpcRoute, "shop", &[])
            ),
            Admission::Refused("listener grpc does not allow GRPCRoute".into())
        );
        let other_group = listener(json!({"name": "x", "port": 80, "protocol": "HTTP",
            "allowedRoutes": {"kinds": [{"group": "example.com", "kind": "HTTPRoute"}]}}));
        assert!(!allows_kind(&other_group, RecordKind::HttpRoute));
    }

    #[test]
    fn routes_come_from_the_gateways_namespace_unless_all_and_a_selector_is_not_checked() {
        let same = listener(json!({"name": "web", "port": 80, "protocol": "HTTP"}));
        let accepted = Admission::Accepted { note: None };
        assert_eq!(
            admit(&same, "infra", route(RecordKind::HttpRoute, "infra", &[])),
            accepted
        );
        let Admission::Refused(why) =
            admit(&same, "infra", route(RecordKind::HttpRoute, "shop", &[]))
        else {
            panic!("another namespace is refused")
        };
        assert!(
            why.starts_with("listener web: namespace not allowed"),
            "{why}"
        );
        let all = listener(json!({"name": "web", "port": 80, "protocol": "HTTP",
            "allowedRoutes": {"namespaces": {"from": "All"}}}));
        assert_eq!(
            admit(&all, "infra", route(RecordKind::HttpRoute, "shop", &[])),
            accepted
        );
        let selector = listener(json!({"name": "web", "port": 80, "protocol": "HTTP",
            "allowedRoutes": {"namespaces": {"from": "Selector",
                "selector": {"matchLabels": {"shared-gateway": "true"}}}}}));
        assert_eq!(
            admit(
                &selector,
                "infra",
                route(RecordKind::HttpRoute, "shop", &[])
            ),
            Admission::Accepted {
                note: Some("namespace selector not checked".into())
            }
        );
    }

    #[test]
    fn a_listener_hostname_intersects_the_routes_wildcards_included() {
        assert!(intersects("api.example.com", "*.example.com"));
        assert!(intersects("a.b.example.com", "*.example.com"));
        assert!(!intersects("example.com", "*.example.com"));
        assert!(!intersects("api.example.org", "*.example.com"));
        assert!(!intersects("badexample.com", "*.example.com"));
        assert!(intersects("*.example.com", "API.example.com."));
        assert!(intersects("*.a.example.com", "*.example.com"));
        assert!(!intersects("*.example.org", "*.example.com"));
        assert!(intersects("api.example.com", "api.example.com"));

        let https = listener(json!({"name": "https", "port": 443, "protocol": "HTTPS",
            "hostname": "*.example.com", "allowedRoutes": {"namespaces": {"from": "All"}}}));
        let hosts = ["shop.example.org".to_owned()];
        assert_eq!(
            admit(
                &https,
                "infra",
                route(RecordKind::HttpRoute, "shop", &hosts)
            ),
            Admission::Refused(
                "not accepted by listener https: hostname (no hostname of the route matches \
                 *.example.com)"
                    .into()
            )
        );
        let both = ["shop.example.org".to_owned(), "shop.example.com".to_owned()];
        assert_eq!(
            admit(&https, "infra", route(RecordKind::HttpRoute, "shop", &both)),
            Admission::Accepted { note: None }
        );
        assert_eq!(
            admit(&https, "infra", route(RecordKind::HttpRoute, "shop", &[])),
            Admission::Accepted { note: None },
            "a route without hostnames takes the listener's"
        );
    }

    #[test]
    fn a_listed_kind_the_protocol_does_not_take_is_invalid_not_accepted() {
        let tls = listener(json!({"name": "db", "port": 8443, "protocol": "TLS",
            "allowedRoutes": {"kinds": [{"kind": "HTTPRoute"}, {"kind": "TLSRoute"}]}}));
        assert!(!allows_kind(&tls, RecordKind::HttpRoute));
        assert!(allows_kind(&tls, RecordKind::TlsRoute));
        assert_eq!(
            admit(&tls, "infra", route(RecordKind::HttpRoute, "infra", &[])),
            Admission::Refused(
                "listener db does not allow HTTPRoute: InvalidRouteKinds (HTTPRoute is listed \
                 but a TLS listener does not take it)"
                    .into()
            )
        );
        let https = listener(json!({"name": "web", "port": 443, "protocol": "HTTPS",
            "allowedRoutes": {"kinds": [{"kind": "GRPCRoute"}, {"kind": "TLSRoute"}]}}));
        assert!(allows_kind(&https, RecordKind::GrpcRoute));
        assert!(!allows_kind(&https, RecordKind::TlsRoute));
        assert!(!allows_kind(&https, RecordKind::HttpRoute), "not listed");
    }
}
