//! Gateway API v1 `HTTPRoute` (gateway.networking.k8s.io/v1, standard channel) as serde types,
//! field for field as the Gateway API v1 reference and its CRD define them (k8s-openapi has no
//! Gateway API types). The server checks written HTTPRoutes against them (a body that does not
//! fit answers 400, as the CRD's schema would) and the sample data is built with them.
//! Optional fields are omitted when `None`, so a serialised route is what a client would send.
//! Filters, timeouts and retries are kept as JSON: this server does not interpret them.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// `apiVersion` of every object here.
pub const API_VERSION: &str = "gateway.networking.k8s.io/v1";

/// An `HTTPRoute`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpRoute {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: HttpRouteSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<HttpRouteStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteSpec {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_refs: Option<Vec<ParentReference>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hostnames: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rules: Option<Vec<HttpRouteRule>>,
}

/// A parent (usually a `Gateway`) the route attaches to. `group` defaults to
/// `gateway.networking.k8s.io` and `kind` to `Gateway`; `namespace` to the route's.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParentReference {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteRule {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Absent: one match of path prefix `/`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matches: Option<Vec<HttpRouteMatch>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<Value>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend_refs: Option<Vec<HttpBackendRef>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeouts: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_persistence: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteMatch {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<HttpPathMatch>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headers: Option<Vec<HttpHeaderMatch>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query_params: Option<Vec<HttpQueryParamMatch>>,
    /// `GET`, `POST`, ...
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
}

/// `type`: `Exact`, `PathPrefix` (the default) or `RegularExpression`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpPathMatch {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub match_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// `type`: `Exact` (the default) or `RegularExpression`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpHeaderMatch {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub match_type: Option<String>,
    pub name: String,
    pub value: String,
}

/// `type`: `Exact` (the default) or `RegularExpression`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpQueryParamMatch {
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub match_type: Option<String>,
    pub name: String,
    pub value: String,
}

/// A backend: `group` `""` and `kind` `Service` unless given; `port` is required for Services;
/// `weight` defaults to 1.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpBackendRef {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filters: Option<Vec<Value>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpRouteStatus {
    #[serde(default)]
    pub parents: Vec<RouteParentStatus>,
}

/// What one controller says about the route's attachment to one parent: conditions `Accepted`
/// (reasons `Accepted`, `NotAllowedByListeners`, `NoMatchingListenerHostname`, ...) and
/// `ResolvedRefs` (reasons `ResolvedRefs`, `RefNotPermitted`, `InvalidKind`,
/// `BackendNotFound`, ...), as `metav1.Condition`s.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteParentStatus {
    pub parent_ref: ParentReference,
    pub controller_name: String,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_route_from_the_reference_round_trips() {
        let route = serde_json::json!({
            "apiVersion": API_VERSION, "kind": "HTTPRoute",
            "metadata": {"name": "shop", "namespace": "team-a"},
            "spec": {
                "parentRefs": [{"name": "public", "namespace": "gateways", "sectionName": "https"}],
                "hostnames": ["shop.example.com"],
                "rules": [{
                    "matches": [{"path": {"type": "PathPrefix", "value": "/"}, "headers": [{"name": "x-canary", "value": "1"}]}],
                    "backendRefs": [{"name": "shop", "port": 80, "weight": 90}],
                }],
            },
            "status": {"parents": [{
                "parentRef": {"name": "public", "namespace": "gateways"},
                "controllerName": "example.com/gateway-controller",
                "conditions": [{"type": "Accepted", "status": "True", "reason": "Accepted", "message": "", "lastTransitionTime": "2026-01-01T00:00:00Z", "observedGeneration": 1}],
            }]},
        });
        let parsed: HttpRoute = serde_json::from_value(route.clone()).unwrap();
        assert_eq!(
            parsed.spec.rules.as_ref().unwrap()[0]
                .backend_refs
                .as_ref()
                .unwrap()[0]
                .port,
            Some(80)
        );
        assert_eq!(serde_json::to_value(&parsed).unwrap(), route);
        assert!(
            serde_json::from_value::<HttpRoute>(serde_json::json!({"spec": {"hostnames": "x"}}))
                .is_err()
        );
    }
}
