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

/// Pages of Gateways read per namespace at most.
const GATEWAY_PAGES: usize = 40;

/// Gateways read per namespace at most ([`GATEWAY_PAGES`] pages of [`GRANT_PAGE_SIZE`]).
pub const MAX_GATEWAYS: usize = GATEWAY_PAGES * GRANT_PAGE_SIZE as usize;

/// The Gateways of one namespace as read.
#[derive(Debug, Default)]
pub struct GatewayList {
    pub items: Vec<serde_json::Value>,
    /// A `continue` token remained after the last page read: the namespace has more than
    /// [`MAX_GATEWAYS`] Gateways and those past them were not read.
    pub not_all_read: bool,
}

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
/// each, following the continue token, at most [`GATEWAY_PAGES`] pages), as JSON, and whether
/// some were left unread.
pub async fn list_gateways(api: &dyn KubeApi, namespace: &str) -> Result<GatewayList, KubeError> {
    let gvk = GroupVersionKind::gvk("gateway.networking.k8s.io", "v1", "Gateway");
    let gvk = &gvk;
    read_pages(GATEWAY_PAGES, |token: Option<String>| async move {
        list_page_of(api, namespace, gvk, "gateways", token.as_deref()).await
    })
    .await
}

/// At most `pages` pages from `page` (called with the continue token of the page before,
/// `None` first), and whether a continue token remained after the last one read.
async fn read_pages<F, Fut>(pages: usize, mut page: F) -> Result<GatewayList, KubeError>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<serde_json::Value>, Option<String>), KubeError>>,
{
    let mut list = GatewayList::default();
    let mut continue_token = None;
    for _ in 0..pages {
        let (items, next) = page(continue_token.take()).await?;
        list.items.extend(items);
        match next {
            Some(next) => continue_token = Some(next),
            None => return Ok(list),
        }
    }
    list.not_all_read = continue_token.is_some();
    Ok(list)
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Pages of one item each, `total` of them, through [`read_pages`] with at most `pages`.
    async fn paged(total: usize, pages: usize) -> (GatewayList, usize) {
        let mut calls = 0;
        let list = read_pages(pages, |token: Option<String>| {
            calls += 1;
            let at: usize = token
                .as_deref()
                .map_or(0, |t| t.parse().unwrap_or(usize::MAX));
            async move {
                let next = (at + 1 < total).then(|| (at + 1).to_string());
                Ok((vec![json!({"at": at})], next))
            }
        })
        .await
        .expect("no error");
        (list, calls)
    }

    #[tokio::test]
    async fn gateways_past_the_last_page_read_are_said_not_all_read() {
        let (all, calls) = paged(3, 40).await;
        assert_eq!((all.items.len(), calls, all.not_all_read), (3, 3, false));
        let (exactly, calls) = paged(40, 40).await;
        assert_eq!(
            (exactly.items.len(), calls, exactly.not_all_read),
            (40, 40, false)
        );
        let (cut, calls) = paged(41, 40).await;
        assert_eq!((cut.items.len(), calls, cut.not_all_read), (40, 40, true));
        assert_eq!(cut.items[39], json!({"at": 39}), "each token followed");
        assert_eq!(MAX_GATEWAYS, 10_000);
    }
}
