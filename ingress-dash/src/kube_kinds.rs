//! Lists, watches and discovery of the kinds read beside ingresses ([`WatchedKind`]), through
//! the same client, time-outs and error classes as the ingress calls of [`KubeApi`]. Ingresses
//! themselves go through the trait's own methods (which test doubles implement).

use std::fmt::Debug;

use futures_util::stream::BoxStream;
use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{Api, ListParams, WatchEvent, WatchParams};
use serde::de::DeserializeOwned;

use crate::kinds::{CertManagerCertificate, HttpRoute, Object, TlsSecret, WatchedKind};
use crate::kube_api::{KubeApi, KubeError, message_cause};

/// Only TLS Secrets are read (an opaque Secret holds nothing the dashboard shows).
const TLS_SECRETS: &str = "type=kubernetes.io/tls";

/// One page of a list of any watched kind.
#[derive(Debug, Default)]
pub struct ObjectPage {
    pub items: Vec<Object>,
    /// The list's resourceVersion: a watch from it misses nothing and repeats nothing.
    pub resource_version: String,
    /// Where the next page starts; `None` on the last page.
    pub continue_token: Option<String>,
}

/// The events of one established watch of any kind.
pub type ObjectEvents = BoxStream<'static, Result<WatchEvent<Object>, KubeError>>;

fn api<K, A>(api: &A, namespace: Option<&str>) -> Result<Api<K>, KubeError>
where
    K: kube::core::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>,
    A: KubeApi + ?Sized,
{
    let client = api.kube_client()?;
    Ok(match namespace {
        Some(namespace) => Api::namespaced(client, namespace),
        None => Api::all(client),
    })
}

async fn timed<T, A: KubeApi + ?Sized>(
    api: &A,
    call: impl Future<Output = Result<T, kube::Error>>,
) -> Result<T, KubeError> {
    let timeout = api.request_timeout();
    match tokio::time::timeout(timeout, call).await {
        Ok(result) => result.map_err(|error| KubeError::from_kube(error, timeout)),
        Err(_) => Err(KubeError::Timeout(timeout)),
    }
}

async fn page_of<K, A>(
    source: &A,
    namespace: Option<&str>,
    continue_token: Option<String>,
    fields: Option<&str>,
    wrap: fn(K) -> Object,
) -> Result<ObjectPage, KubeError>
where
    K: kube::core::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug,
    A: KubeApi + ?Sized,
{
    let api: Api<K> = api(source, namespace)?;
    let mut params = ListParams::default().limit(source.page_size());
    if let Some(fields) = fields {
        params = params.fields(fields);
    }
    if let Some(token) = &continue_token {
        params = params.continue_token(token);
    }
    let page = timed(source, api.list(&params)).await?;
    let resource_version = page.metadata.resource_version.unwrap_or_default();
    if resource_version.is_empty() {
        return Err(KubeError::BadAnswer(message_cause(
            "a list answer had no resourceVersion",
        )));
    }
    Ok(ObjectPage {
        items: page.items.into_iter().map(wrap).collect(),
        resource_version,
        continue_token: page.metadata.continue_.filter(|token| !token.is_empty()),
    })
}

async fn watch_of<K, A>(
    source: &A,
    namespace: Option<&str>,
    resource_version: &str,
    fields: Option<&str>,
    wrap: fn(K) -> Object,
) -> Result<ObjectEvents, KubeError>
where
    K: kube::core::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Debug
        + Send
        + 'static,
    A: KubeApi + ?Sized,
{
    let api: Api<K> = api(source, namespace)?;
    // kube refuses 295 s and more (the API server's own limit is the reason).
    let seconds = source.watch_timeout().as_secs().clamp(1, 294) as u32;
    let mut params = WatchParams::default().timeout(seconds);
    if let Some(fields) = fields {
        params = params.fields(fields);
    }
    let timeout = source.request_timeout();
    let events = timed(source, api.watch(&params, resource_version)).await?;
    Ok(events
        .map_err(move |error| KubeError::from_kube(error, timeout))
        .map_ok(move |event| match event {
            WatchEvent::Added(object) => WatchEvent::Added(wrap(object)),
            WatchEvent::Modified(object) => WatchEvent::Modified(wrap(object)),
            WatchEvent::Deleted(object) => WatchEvent::Deleted(wrap(object)),
            WatchEvent::Bookmark(bookmark) => WatchEvent::Bookmark(bookmark),
            WatchEvent::Error(status) => WatchEvent::Error(status),
        })
        .boxed())
}

fn ingress(object: k8s_openapi::api::networking::v1::Ingress) -> Object {
    Object::Ingress(Box::new(object))
}
fn service(object: Service) -> Object {
    Object::Service(Box::new(object))
}
fn endpoint_slice(object: EndpointSlice) -> Object {
    Object::EndpointSlice(Box::new(object))
}
fn secret(object: TlsSecret) -> Object {
    Object::Secret(Box::new(object))
}
fn certificate(object: CertManagerCertificate) -> Object {
    Object::Certificate(Box::new(object))
}
fn http_route(object: HttpRoute) -> Object {
    Object::HttpRoute(Box::new(object))
}

/// One page of `kind` in `namespace` (`None`: every namespace).
pub async fn list_page<A: KubeApi + ?Sized>(
    source: &A,
    kind: WatchedKind,
    namespace: Option<String>,
    continue_token: Option<String>,
) -> Result<ObjectPage, KubeError> {
    let namespace = namespace.as_deref();
    match kind {
        WatchedKind::Ingresses => {
            let page = source
                .list_ingress_page(namespace.map(str::to_owned), continue_token)
                .await?;
            Ok(ObjectPage {
                items: page.items.into_iter().map(ingress).collect(),
                resource_version: page.resource_version,
                continue_token: page.continue_token,
            })
        }
        WatchedKind::Services => page_of(source, namespace, continue_token, None, service).await,
        WatchedKind::EndpointSlices => {
            page_of(source, namespace, continue_token, None, endpoint_slice).await
        }
        WatchedKind::Secrets => {
            page_of(source, namespace, continue_token, Some(TLS_SECRETS), secret).await
        }
        WatchedKind::Certificates => {
            page_of(source, namespace, continue_token, None, certificate).await
        }
        WatchedKind::HttpRoutes => {
            page_of(source, namespace, continue_token, None, http_route).await
        }
    }
}

/// A watch of `kind` after `resource_version`, with bookmarks.
pub async fn watch<A: KubeApi + ?Sized>(
    source: &A,
    kind: WatchedKind,
    namespace: Option<String>,
    resource_version: String,
) -> Result<ObjectEvents, KubeError> {
    let namespace_ref = namespace.as_deref();
    let from = resource_version.as_str();
    match kind {
        WatchedKind::Ingresses => {
            let events = source.watch_ingresses(namespace, resource_version).await?;
            Ok(events
                .map_ok(|event| match event {
                    WatchEvent::Added(object) => WatchEvent::Added(ingress(object)),
                    WatchEvent::Modified(object) => WatchEvent::Modified(ingress(object)),
                    WatchEvent::Deleted(object) => WatchEvent::Deleted(ingress(object)),
                    WatchEvent::Bookmark(bookmark) => WatchEvent::Bookmark(bookmark),
                    WatchEvent::Error(status) => WatchEvent::Error(status),
                })
                .boxed())
        }
        WatchedKind::Services => watch_of(source, namespace_ref, from, None, service).await,
        WatchedKind::EndpointSlices => {
            watch_of(source, namespace_ref, from, None, endpoint_slice).await
        }
        WatchedKind::Secrets => {
            watch_of(source, namespace_ref, from, Some(TLS_SECRETS), secret).await
        }
        WatchedKind::Certificates => watch_of(source, namespace_ref, from, None, certificate).await,
        WatchedKind::HttpRoutes => watch_of(source, namespace_ref, from, None, http_route).await,
    }
}

/// Whether the API server serves `resource` (a plural) in `group_version`: `Ok(false)` when
/// discovery answers 404 (the CRD is not installed), an error when it could not be asked.
pub async fn serves<A: KubeApi + ?Sized>(
    source: &A,
    group_version: &str,
    resource: &str,
) -> Result<bool, KubeError> {
    let client = source.kube_client()?;
    match timed(source, client.list_api_group_resources(group_version)).await {
        Ok(list) => Ok(list.resources.iter().any(|entry| entry.name == resource)),
        Err(KubeError::Api { status: 404, .. }) => Ok(false),
        Err(error) => Err(error),
    }
}
