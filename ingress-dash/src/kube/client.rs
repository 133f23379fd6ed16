//! The Kubernetes API behind a narrow trait: list namespaces, list ingresses (whole, or a page
//! with the list's resourceVersion), and watch ingresses from a resourceVersion. The real
//! implementation uses kube's `Api`; the list+watch loop with its retries and breaker is the
//! hub's (`hub::watch_loop`). Errors are classified once, here.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::networking::v1::Ingress;
use kube::api::{Api, ListParams, WatchEvent, WatchParams};

use crate::config::KubernetesSettings;

/// Whether an error is worth retrying (specification section 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Connection reset or refused, time-out, 429, 5xx: retried with backoff.
    Transient,
    /// 401, 403, 404, other 4xx, bad answers, missing configuration: returned at once.
    Permanent,
}

/// What caused a [`KubeError`]: the client's own error, kept for logs and `source()` chains.
pub type Cause = Arc<dyn std::error::Error + Send + Sync>;

/// A cause that is only a sentence (a configuration that names no URL, a broken answer).
pub fn message_cause(message: impl Into<String>) -> Cause {
    Arc::from(Box::<dyn std::error::Error + Send + Sync>::from(
        message.into(),
    ))
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum KubeError {
    #[error("The Kubernetes API answered {status} {reason}: {message}")]
    Api {
        status: u16,
        reason: String,
        message: String,
    },
    #[error("The Kubernetes API could not be reached: {}", error_chain(.0.as_ref()))]
    Unreachable(#[source] Cause),
    /// The time the call was allowed (the configured time-out that ran out).
    #[error("The Kubernetes API did not answer within {0:?}.")]
    Timeout(Duration),
    #[error("The Kubernetes API sent an answer that could not be read: {0}")]
    BadAnswer(#[source] Cause),
    #[error("No Kubernetes API is configured: {0}")]
    NotConfigured(#[source] Cause),
}

impl KubeError {
    pub fn class(&self) -> ErrorClass {
        match self {
            KubeError::Api { status, .. } if *status == 429 || *status >= 500 => {
                ErrorClass::Transient
            }
            KubeError::Unreachable(_) | KubeError::Timeout(_) => ErrorClass::Transient,
            KubeError::Api { .. } | KubeError::BadAnswer(_) | KubeError::NotConfigured(_) => {
                ErrorClass::Permanent
            }
        }
    }

    /// 410 Gone: the watched resourceVersion (or a continue token) is too old; the watcher
    /// lists again, which is routine and no failure.
    pub fn is_expired(&self) -> bool {
        matches!(self, KubeError::Api { status: 410, .. })
    }

    /// The HTTP status the API answered, when it answered one.
    pub fn status(&self) -> Option<u16> {
        match self {
            KubeError::Api { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// What a person should check, for the errors that need one (permanent ones), about the
    /// ingresses of `namespace` (`None`: every namespace).
    pub fn advice(&self, namespace: Option<&str>) -> Option<String> {
        let place = match namespace {
            Some(namespace) => format!("in {namespace}"),
            None => "cluster-wide".to_owned(),
        };
        let binding = match namespace {
            Some(namespace) => format!("a Role and RoleBinding in {namespace}"),
            None => "a ClusterRole and ClusterRoleBinding".to_owned(),
        };
        match self {
            KubeError::Api { status: 401, .. } => Some(
                "The API server did not accept ingress-dash's credentials: check that the service \
                 account token is mounted and not expired, or the user of the kubeconfig context."
                    .to_owned(),
            ),
            KubeError::Api { status: 403, .. } => Some(format!(
                "The service account may not list or watch ingresses {place}: grant get, list \
                 and watch on ingresses.networking.k8s.io with {binding}, or stop watching it."
            )),
            KubeError::Api { status: 404, .. } => Some(format!(
                "The API server does not serve ingresses {place}: check the namespace name and \
                 that the cluster serves networking.k8s.io/v1 (Kubernetes 1.19 or later)."
            )),
            KubeError::Api { .. } if self.class() == ErrorClass::Permanent => Some(format!(
                "The API server refused the request for ingresses {place}: check its message."
            )),
            KubeError::NotConfigured(_) => Some(
                "Set kubernetes.api_url or kubernetes.kubeconfig, or run in a pod with a \
                 service account."
                    .to_owned(),
            ),
            _ => None,
        }
    }

    /// A stable snake_case code for error bodies and `error` stream events.
    pub fn code(&self) -> &'static str {
        match self {
            KubeError::Api { status: 401, .. } => "kubernetes_unauthorized",
            KubeError::Api { status: 403, .. } => "kubernetes_forbidden",
            KubeError::Api { status: 404, .. } => "kubernetes_not_found",
            KubeError::Api { status: 410, .. } => "kubernetes_expired",
            KubeError::Api { status: 429, .. } => "kubernetes_throttled",
            KubeError::Api { .. } => "kubernetes_error",
            KubeError::Unreachable(_) => "kubernetes_unreachable",
            KubeError::Timeout(_) => "kubernetes_timeout",
            KubeError::BadAnswer(_) => "kubernetes_bad_answer",
            KubeError::NotConfigured(_) => "kubernetes_not_configured",
        }
    }

    fn api(status: &kube::core::Status) -> Self {
        KubeError::Api {
            status: status.code,
            reason: status.reason.clone(),
            message: status.message.clone(),
        }
    }

    /// Classifies a kube error by its type. `timeout` is the connect time-out the client was
    /// built with: a timed-out I/O operation anywhere in the chain is that time-out running out.
    pub fn from_kube(error: kube::Error, timeout: Duration) -> Self {
        match error {
            kube::Error::Api(status) => KubeError::api(&status),
            kube::Error::SerdeError(error) => KubeError::BadAnswer(Arc::new(error)),
            kube::Error::FromUtf8(error) => KubeError::BadAnswer(Arc::new(error)),
            kube::Error::LinesCodecMaxLineLengthExceeded => {
                KubeError::BadAnswer(message_cause("a watch line is too long"))
            }
            kube::Error::InferConfig(error) => KubeError::NotConfigured(Arc::new(error)),
            kube::Error::InferKubeconfig(error) => KubeError::NotConfigured(Arc::new(error)),
            // Connection refused/reset and time-outs come as hyper or tower errors.
            other if timed_out(&other) => KubeError::Timeout(timeout),
            other => KubeError::Unreachable(Arc::new(other)),
        }
    }
}

/// The error and its causes, each once (`source()` chain).
fn causes<'a>(
    error: &'a (dyn std::error::Error + 'static),
) -> impl Iterator<Item = &'a (dyn std::error::Error + 'static)> {
    std::iter::successors(Some(error), |error| error.source())
}

/// Whether an I/O operation in the chain timed out (hyper-timeout's connect and read time-outs
/// are `io::ErrorKind::TimedOut`).
fn timed_out(error: &kube::Error) -> bool {
    causes(error).any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
    })
}

fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    causes(error)
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(": ")
}

/// One page of a list.
#[derive(Debug, Default)]
pub struct ListPage<K> {
    pub items: Vec<K>,
    /// The list's resourceVersion: a watch from it misses nothing and repeats nothing.
    pub resource_version: String,
    /// Where the next page starts; `None` on the last page.
    pub continue_token: Option<String>,
}

/// One page of an ingress list.
pub type IngressPage = ListPage<Ingress>;

/// The events of one established watch, until the API server ends it (`None`) or it fails.
pub type Events<K> = BoxStream<'static, Result<WatchEvent<K>, KubeError>>;

/// The events of one established ingress watch.
pub type WatchEvents = Events<Ingress>;

/// `call`, given at most `timeout`, its error classified.
pub(crate) async fn timed<T>(
    timeout: Duration,
    call: impl Future<Output = Result<T, kube::Error>>,
) -> Result<T, KubeError> {
    match tokio::time::timeout(timeout, call).await {
        Ok(result) => result.map_err(|error| KubeError::from_kube(error, timeout)),
        Err(_) => Err(KubeError::Timeout(timeout)),
    }
}

/// The `Api` of a namespaced kind in `namespace` (`None`: every namespace).
pub(crate) fn api_in<K>(client: kube::Client, namespace: Option<&str>) -> Api<K>
where
    K: kube::core::Resource<DynamicType = (), Scope = k8s_openapi::NamespaceResourceScope>,
{
    match namespace {
        Some(namespace) => Api::namespaced(client, namespace),
        None => Api::all(client),
    }
}

/// One page of `api`'s objects (`source`'s page size at most, `fields` a field selector), from
/// the start or from `continue_token`, within `source`'s time-out. A list answer without a
/// resourceVersion is refused: no watch could follow it.
pub(crate) async fn list_page<K, A>(
    source: &A,
    api: &Api<K>,
    continue_token: Option<&str>,
    fields: Option<&str>,
) -> Result<ListPage<K>, KubeError>
where
    K: kube::core::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    A: KubeApi + ?Sized,
{
    let mut params = ListParams::default().limit(source.page_size());
    if let Some(fields) = fields {
        params = params.fields(fields);
    }
    if let Some(token) = continue_token {
        params = params.continue_token(token);
    }
    let page = timed(source.request_timeout(), api.list(&params)).await?;
    let resource_version = page.metadata.resource_version.unwrap_or_default();
    if resource_version.is_empty() {
        return Err(KubeError::BadAnswer(message_cause(
            "a list answer had no resourceVersion",
        )));
    }
    Ok(ListPage {
        items: page.items,
        resource_version,
        continue_token: page.metadata.continue_.filter(|token| !token.is_empty()),
    })
}

/// A watch of `api`'s objects after `resource_version`, with bookmarks (kube asks for them:
/// they keep the resourceVersion fresh on a quiet scope), ended by the API server after
/// `source`'s watch time-out. Resolves once the API server has answered.
pub(crate) async fn watch<K, A>(
    source: &A,
    api: &Api<K>,
    resource_version: &str,
    fields: Option<&str>,
) -> Result<Events<K>, KubeError>
where
    K: kube::core::Resource
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug
        + Send
        + 'static,
    A: KubeApi + ?Sized,
{
    // kube refuses 295 s and more (the API server's own limit is the reason).
    let seconds = source.watch_timeout().as_secs().clamp(1, 294) as u32;
    let mut params = WatchParams::default().timeout(seconds);
    if let Some(fields) = fields {
        params = params.fields(fields);
    }
    let timeout = source.request_timeout();
    let events = timed(timeout, api.watch(&params, resource_version)).await?;
    Ok(events
        .map(move |event| event.map_err(|error| KubeError::from_kube(error, timeout)))
        .boxed())
}

/// What ingress-dash needs from the Kubernetes API.
pub trait KubeApi: Send + Sync + 'static {
    /// Namespace names, sorted; `limit` keeps the answer small for health checks.
    fn list_namespaces(&self, limit: Option<u32>) -> BoxFuture<'_, Result<Vec<String>, KubeError>>;

    /// Ingresses of one namespace, or of every namespace with `None`.
    fn list_ingresses(
        &self,
        namespace: Option<String>,
    ) -> BoxFuture<'_, Result<Vec<Ingress>, KubeError>>;

    /// One page of the ingresses of a namespace (`None`: every namespace), from the start or
    /// from `continue_token`.
    fn list_ingress_page(
        &self,
        namespace: Option<String>,
        continue_token: Option<String>,
    ) -> BoxFuture<'_, Result<IngressPage, KubeError>>;

    /// A watch of the changes after `resource_version`, with bookmarks. Resolves once the API
    /// server has answered (the watch is established, or refused with its status); the events
    /// follow on the stream.
    fn watch_ingresses(
        &self,
        namespace: Option<String>,
        resource_version: String,
    ) -> BoxFuture<'_, Result<WatchEvents, KubeError>>;

    /// The client for the on-demand object reads of [`super::object_reads`]; test doubles that serve
    /// none answer `NotConfigured`.
    fn kube_client(&self) -> Result<kube::Client, KubeError> {
        Err(KubeError::NotConfigured(message_cause(
            "this Kubernetes API serves no object reads",
        )))
    }

    /// How long one call may take (`kubernetes.request_timeout`).
    fn request_timeout(&self) -> Duration {
        Duration::from_secs(10)
    }

    /// Page size of the watchers' lists (`kubernetes.page_size`), for the kinds of
    /// [`super::kind_calls`].
    fn page_size(&self) -> u32 {
        500
    }

    /// Server-side time-out of each watch (`kubernetes.watch_timeout`).
    fn watch_timeout(&self) -> Duration {
        Duration::from_secs(290)
    }
}

/// The real API through kube. Without a usable configuration every call answers
/// `NotConfigured`, so the service still starts and reports itself unhealthy.
pub struct KubeClient {
    client: Result<kube::Client, KubeError>,
    request_timeout: Duration,
    page_size: u32,
    watch_timeout: Duration,
}

impl KubeClient {
    pub async fn connect(settings: &KubernetesSettings) -> Self {
        let client = Self::client(settings).await;
        if let Err(error) = &client {
            tracing::warn!(%error, "no Kubernetes API configuration; health will report down");
        }
        Self {
            client,
            request_timeout: settings.request_timeout,
            page_size: settings.page_size,
            watch_timeout: settings.watch_timeout,
        }
    }

    async fn client(settings: &KubernetesSettings) -> Result<kube::Client, KubeError> {
        let mut config = if let Some(url) = &settings.api_url {
            let uri = url.parse().map_err(|_| {
                KubeError::NotConfigured(message_cause(format!("{url} is not a URL")))
            })?;
            kube::Config::new(uri)
        } else if let Some(path) = &settings.kubeconfig {
            let kubeconfig = kube::config::Kubeconfig::read_from(path)
                .map_err(|error| KubeError::NotConfigured(Arc::new(error)))?;
            let options = kube::config::KubeConfigOptions {
                context: settings.context.clone(),
                ..Default::default()
            };
            kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|error| KubeError::NotConfigured(Arc::new(error)))?
        } else {
            kube::Config::infer()
                .await
                .map_err(|error| KubeError::NotConfigured(Arc::new(error)))?
        };
        config.connect_timeout = Some(settings.request_timeout);
        // Retries are ours (backon, with the specified numbers), not kube's built-in layer.
        config.default_retry = false;
        kube::Client::try_from(config)
            .map_err(|error| KubeError::from_kube(error, settings.request_timeout))
    }

    fn client_or_error(&self) -> Result<kube::Client, KubeError> {
        self.client.clone()
    }

    fn ingresses(&self, namespace: Option<&str>) -> Result<Api<Ingress>, KubeError> {
        Ok(api_in(self.client_or_error()?, namespace))
    }
}

impl KubeApi for KubeClient {
    fn kube_client(&self) -> Result<kube::Client, KubeError> {
        self.client_or_error()
    }

    fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    fn page_size(&self) -> u32 {
        self.page_size
    }

    fn watch_timeout(&self) -> Duration {
        self.watch_timeout
    }

    fn list_namespaces(&self, limit: Option<u32>) -> BoxFuture<'_, Result<Vec<String>, KubeError>> {
        async move {
            let api: Api<Namespace> = Api::all(self.client_or_error()?);
            let mut params = ListParams::default();
            if let Some(limit) = limit {
                params = params.limit(limit);
            }
            let list = timed(self.request_timeout, api.list_metadata(&params)).await?;
            let mut names: Vec<String> = list
                .items
                .into_iter()
                .filter_map(|item| item.metadata.name)
                .collect();
            names.sort();
            Ok(names)
        }
        .boxed()
    }

    fn list_ingresses(
        &self,
        namespace: Option<String>,
    ) -> BoxFuture<'_, Result<Vec<Ingress>, KubeError>> {
        async move {
            let api = self.ingresses(namespace.as_deref())?;
            let mut items = Vec::new();
            let mut params = ListParams::default().limit(self.page_size);
            loop {
                let page = timed(self.request_timeout, api.list(&params)).await?;
                items.extend(page.items);
                match page.metadata.continue_.filter(|token| !token.is_empty()) {
                    Some(token) => params = params.continue_token(&token),
                    None => break,
                }
            }
            Ok(items)
        }
        .boxed()
    }

    fn list_ingress_page(
        &self,
        namespace: Option<String>,
        continue_token: Option<String>,
    ) -> BoxFuture<'_, Result<IngressPage, KubeError>> {
        async move {
            let api = self.ingresses(namespace.as_deref())?;
            list_page(self, &api, continue_token.as_deref(), None).await
        }
        .boxed()
    }

    fn watch_ingresses(
        &self,
        namespace: Option<String>,
        resource_version: String,
    ) -> BoxFuture<'_, Result<WatchEvents, KubeError>> {
        async move {
            let api = self.ingresses(namespace.as_deref())?;
            watch(self, &api, &resource_version, None).await
        }
        .boxed()
    }
}

/// Shared handle to whichever implementation runs.
pub type SharedKubeApi = Arc<dyn KubeApi>;

#[cfg(test)]
mod tests {
    use std::io;

    use super::*;

    fn service_error(kind: io::ErrorKind) -> kube::Error {
        kube::Error::Service(Box::new(io::Error::new(kind, "from the connector")))
    }

    #[test]
    fn time_outs_are_told_by_type_with_the_time_allowed() {
        let timeout = Duration::from_secs(7);
        let error = KubeError::from_kube(service_error(io::ErrorKind::TimedOut), timeout);
        assert!(
            matches!(error, KubeError::Timeout(t) if t == timeout),
            "{error:?}"
        );
        assert_eq!(
            error.to_string(),
            "The Kubernetes API did not answer within 7s."
        );
    }

    #[test]
    fn other_transport_errors_are_unreachable_and_keep_their_cause() {
        let error = KubeError::from_kube(
            service_error(io::ErrorKind::ConnectionRefused),
            Duration::from_secs(7),
        );
        assert_eq!(error.code(), "kubernetes_unreachable");
        let refused = causes(&error).find_map(|cause| cause.downcast_ref::<io::Error>());
        assert_eq!(
            refused.map(io::Error::kind),
            Some(io::ErrorKind::ConnectionRefused)
        );
        assert!(error.to_string().contains("from the connector"), "{error}");
    }

    #[test]
    fn api_statuses_keep_their_code_and_410_is_expired() {
        let status = |code| {
            kube::Error::Api(Box::new(
                kube::core::Status::failure("gone", "Expired").with_code(code),
            ))
        };
        let expired = KubeError::from_kube(status(410), Duration::ZERO);
        assert!(expired.is_expired());
        assert_eq!(expired.code(), "kubernetes_expired");
        assert!(!KubeError::from_kube(status(403), Duration::ZERO).is_expired());
    }
}
