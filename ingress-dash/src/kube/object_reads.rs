//! The Kubernetes calls of `GET /api/objects/...` (`http::objects`): one object read whole (GET, as
//! the API server stores it, unknown fields included) and one page of the core/v1 events about
//! an object (list with a field selector). They use the client of [`KubeApi::kube_client`]
//! with its request time-out; retries and the breaker are the caller's
//! ([`crate::kube::resilience::Resilience::call`], per call).

use k8s_openapi::api::core::v1::Event;
use kube::api::{Api, ApiResource, DynamicObject, GroupVersionKind, ListParams};

use crate::kube::client::{KubeApi, KubeError};

/// The kinds whose objects may be read: what the dashboard lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectKind {
    Ingress,
    HttpRoute,
    GrpcRoute,
    TlsRoute,
}

impl ObjectKind {
    /// The path segment (`ingresses`, `httproutes`, `grpcroutes`, `tlsroutes`); anything else
    /// is no kind of ours.
    pub fn from_plural(plural: &str) -> Option<Self> {
        match plural {
            "ingresses" => Some(Self::Ingress),
            "httproutes" => Some(Self::HttpRoute),
            "grpcroutes" => Some(Self::GrpcRoute),
            "tlsroutes" => Some(Self::TlsRoute),
            _ => None,
        }
    }

    pub fn plural(self) -> &'static str {
        match self {
            Self::Ingress => "ingresses",
            Self::HttpRoute => "httproutes",
            Self::GrpcRoute => "grpcroutes",
            Self::TlsRoute => "tlsroutes",
        }
    }

    /// The kind as `involvedObject.kind` and `kind:` name it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ingress => "Ingress",
            Self::HttpRoute => "HTTPRoute",
            Self::GrpcRoute => "GRPCRoute",
            Self::TlsRoute => "TLSRoute",
        }
    }

    /// `plural.group`, as RBAC rules and the API server's messages name the resource.
    pub fn resource(self) -> &'static str {
        match self {
            Self::Ingress => "ingresses.networking.k8s.io",
            Self::HttpRoute => "httproutes.gateway.networking.k8s.io",
            Self::GrpcRoute => "grpcroutes.gateway.networking.k8s.io",
            Self::TlsRoute => "tlsroutes.gateway.networking.k8s.io",
        }
    }

    fn api_resource(self) -> ApiResource {
        let gvk = match self {
            Self::Ingress => GroupVersionKind::gvk("networking.k8s.io", "v1", "Ingress"),
            Self::HttpRoute | Self::GrpcRoute | Self::TlsRoute => {
                GroupVersionKind::gvk("gateway.networking.k8s.io", "v1", self.name())
            }
        };
        ApiResource::from_gvk_with_plural(&gvk, self.plural())
    }
}

/// One page of events.
#[derive(Debug, Default)]
pub struct EventPage {
    pub items: Vec<Event>,
    /// Where the next page starts; `None` on the last page.
    pub continue_token: Option<String>,
}

/// Events per list call.
const EVENT_PAGE_SIZE: u32 = 250;

/// `GET` of one object, as JSON (apiVersion, kind, metadata, spec, status, unknown fields kept).
pub async fn get_object(
    api: &dyn KubeApi,
    kind: ObjectKind,
    namespace: &str,
    name: &str,
) -> Result<serde_json::Value, KubeError> {
    let timeout = api.request_timeout();
    let objects: Api<DynamicObject> =
        Api::namespaced_with(api.kube_client()?, namespace, &kind.api_resource());
    let object = timed(timeout, objects.get(name)).await?;
    serde_json::to_value(object).map_err(|error| KubeError::BadAnswer(std::sync::Arc::new(error)))
}

/// One page of the core/v1 events of `namespace` that `field_selector` selects.
pub async fn list_events(
    api: &dyn KubeApi,
    namespace: &str,
    field_selector: &str,
    continue_token: Option<&str>,
) -> Result<EventPage, KubeError> {
    let timeout = api.request_timeout();
    let events: Api<Event> = Api::namespaced(api.kube_client()?, namespace);
    let mut params = ListParams::default()
        .fields(field_selector)
        .limit(EVENT_PAGE_SIZE);
    if let Some(token) = continue_token {
        params = params.continue_token(token);
    }
    let page = timed(timeout, events.list(&params)).await?;
    Ok(EventPage {
        items: page.items,
        continue_token: page.metadata.continue_.filter(|token| !token.is_empty()),
    })
}

/// ReferenceGrants read per namespace at most (one page), and Gateways per page.
const GRANT_PAGE_SIZE: u32 = 250;

/// Pages of Gateways read per namespace at most (10,000 Gateways).
const GATEWAY_PAGES: usize = 40;

/// The gateway.networking.k8s.io/v1beta1 ReferenceGrants of `namespace` (the first
/// [`GRANT_PAGE_SIZE`]), as JSON.
pub async fn list_reference_grants(
    api: &dyn KubeApi,
    namespace: &str,
) -> Result<Vec<serde_json::Value>, KubeError> {
    let gvk = GroupVersionKind::gvk("gateway.networking.k8s.io", "v1beta1", "ReferenceGrant");
    let (items, _) = list_page_of(api, namespace, &gvk, "referencegrants", None).await?;
    Ok(items)
}

/// The gateway.networking.k8s.io/v1 Gateways of `namespace`, page by page ([`GRANT_PAGE_SIZE`]
/// each, following the continue token, at most [`GATEWAY_PAGES`] pages), as JSON.
pub async fn list_gateways(
    api: &dyn KubeApi,
    namespace: &str,
) -> Result<Vec<serde_json::Value>, KubeError> {
    let gvk = GroupVersionKind::gvk("gateway.networking.k8s.io", "v1", "Gateway");
    let mut items = Vec::new();
    let mut continue_token = None;
    for _ in 0..GATEWAY_PAGES {
        let (page, next) =
            list_page_of(api, namespace, &gvk, "gateways", continue_token.as_deref()).await?;
        items.extend(page);
        match next {
            Some(next) => continue_token = Some(next),
            None => break,
        }
    }
    Ok(items)
}

/// One page ([`GRANT_PAGE_SIZE`]) of the objects of `gvk` in `namespace` from
/// `continue_token`, as JSON, and where the next page starts (`None`: the last page).
async fn list_page_of(
    api: &dyn KubeApi,
    namespace: &str,
    gvk: &GroupVersionKind,
    plural: &str,
    continue_token: Option<&str>,
) -> Result<(Vec<serde_json::Value>, Option<String>), KubeError> {
    let timeout = api.request_timeout();
    let resource = ApiResource::from_gvk_with_plural(gvk, plural);
    let objects: Api<DynamicObject> =
        Api::namespaced_with(api.kube_client()?, namespace, &resource);
    let mut params = ListParams::default().limit(GRANT_PAGE_SIZE);
    if let Some(token) = continue_token {
        params = params.continue_token(token);
    }
    let page = timed(timeout, objects.list(&params)).await?;
    let next = page.metadata.continue_.filter(|token| !token.is_empty());
    let items = page
        .items
        .into_iter()
        .map(|object| {
            serde_json::to_value(object)
                .map_err(|error| KubeError::BadAnswer(std::sync::Arc::new(error)))
        })
        .collect::<Result<_, _>>()?;
    Ok((items, next))
}

async fn timed<T>(
    timeout: std::time::Duration,
    call: impl Future<Output = Result<T, kube::Error>>,
) -> Result<T, KubeError> {
    match tokio::time::timeout(timeout, call).await {
        Ok(result) => result.map_err(|error| KubeError::from_kube(error, timeout)),
        Err(_) => Err(KubeError::Timeout(timeout)),
    }
}
