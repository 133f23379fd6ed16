//! Lists, watches and discovery of the kinds read beside ingresses ([`WatchedKind`]), through
//! the same client, time-outs and error classes as the ingress calls of [`KubeApi`]. Ingresses
//! themselves go through the trait's own methods (which test doubles implement).

use std::fmt::Debug;

use futures_util::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::Service;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use kube::api::{Api, WatchEvent};
use serde::de::DeserializeOwned;

use crate::kube::client::{self, Events, KubeApi, KubeError, ListPage, api_in};
use crate::kube::watched_kinds::{
    CertManagerCertificate, GrpcRoute, HttpRoute, Object, TlsRoute, TlsSecret, WatchedKind,
};

/// Only TLS Secrets are read (an opaque Secret holds nothing the dashboard shows).
const TLS_SECRETS: &str = "type=kubernetes.io/tls";

/// One page of a list of any watched kind.
pub type ObjectPage = ListPage<Object>;

/// The events of one established watch of any kind.
pub type ObjectEvents = Events<Object>;

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
    let api: Api<K> = api_in(source.kube_client()?, namespace);
    let page = client::list_page(source, &api, continue_token.as_deref(), fields).await?;
    Ok(wrap_page(page, wrap))
}

fn wrap_page<K>(page: ListPage<K>, wrap: fn(K) -> Object) -> ObjectPage {
    ListPage {
        items: page.items.into_iter().map(wrap).collect(),
        resource_version: page.resource_version,
        continue_token: page.continue_token,
    }
}

fn wrap_events<K: Send + 'static>(events: Events<K>, wrap: fn(K) -> Object) -> ObjectEvents {
    events
        .map_ok(move |event| match event {
            WatchEvent::Added(object) => WatchEvent::Added(wrap(object)),
            WatchEvent::Modified(object) => WatchEvent::Modified(wrap(object)),
            WatchEvent::Deleted(object) => WatchEvent::Deleted(wrap(object)),
            WatchEvent::Bookmark(bookmark) => WatchEvent::Bookmark(bookmark),
            WatchEvent::Error(status) => WatchEvent::Error(status),
        })
        .boxed()
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
    let api: Api<K> = api_in(source.kube_client()?, namespace);
    let events = client::watch(source, &api, resource_version, fields).await?;
    Ok(wrap_events(events, wrap))
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
fn grpc_route(object: GrpcRoute) -> Object {
    Object::GrpcRoute(Box::new(object))
}
fn tls_route(object: TlsRoute) -> Object {
    Object::TlsRoute(Box::new(object))
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
            Ok(wrap_page(page, ingress))
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
        WatchedKind::GrpcRoutes => {
            page_of(source, namespace, continue_token, None, grpc_route).await
        }
        WatchedKind::TlsRoutes => page_of(source, namespace, continue_token, None, tls_route).await,
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
            Ok(wrap_events(events, ingress))
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
        WatchedKind::GrpcRoutes => watch_of(source, namespace_ref, from, None, grpc_route).await,
        WatchedKind::TlsRoutes => watch_of(source, namespace_ref, from, None, tls_route).await,
    }
}

/// The resources (plurals, subresources left out) the API server serves in `group_version`:
/// none when discovery answers 404 (no CRD of the group installed), an error when it could not
/// be asked.
pub async fn served<A: KubeApi + ?Sized>(
    source: &A,
    group_version: &str,
) -> Result<Vec<String>, KubeError> {
    let client = source.kube_client()?;
    match client::timed(
        source.request_timeout(),
        client.list_api_group_resources(group_version),
    )
    .await
    {
        Ok(list) => Ok(list
            .resources
            .into_iter()
            .filter(|entry| !entry.name.contains('/'))
            .map(|entry| entry.name)
            .collect()),
        Err(KubeError::Api { status: 404, .. }) => Ok(Vec::new()),
        Err(error) => Err(error),
    }
}
