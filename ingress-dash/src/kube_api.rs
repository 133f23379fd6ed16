//! The Kubernetes API behind a narrow trait: list namespaces, list ingresses, watch ingresses.
//! The real implementation uses kube + kube-runtime; errors are classified once, here.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use futures_util::stream::BoxStream;
use futures_util::{FutureExt, StreamExt};
use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::api::networking::v1::Ingress;
use kube::api::{Api, ListParams};
use kube::runtime::WatchStreamExt;
use kube::runtime::watcher::{self, Event};

use crate::config::KubernetesSettings;

/// Whether an error is worth retrying (specification section 7).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorClass {
    /// Connection reset or refused, time-out, 429, 5xx: retried with backoff.
    Transient,
    /// 401, 403, 404, other 4xx, bad answers, missing configuration: returned at once.
    Permanent,
}

#[derive(Debug, Clone, thiserror::Error)]
pub enum KubeError {
    #[error("The Kubernetes API answered {status} {reason}: {message}")]
    Api {
        status: u16,
        reason: String,
        message: String,
    },
    #[error("The Kubernetes API could not be reached: {0}")]
    Unreachable(String),
    #[error("The Kubernetes API did not answer within {0:?}.")]
    Timeout(Duration),
    #[error("The Kubernetes API sent an answer that could not be read: {0}")]
    BadAnswer(String),
    #[error("No Kubernetes API is configured: {0}")]
    NotConfigured(String),
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

    pub fn from_kube(error: kube::Error) -> Self {
        match error {
            kube::Error::Api(status) => KubeError::Api {
                status: status.code,
                reason: status.reason.clone(),
                message: status.message.clone(),
            },
            kube::Error::SerdeError(error) => KubeError::BadAnswer(error.to_string()),
            kube::Error::FromUtf8(error) => KubeError::BadAnswer(error.to_string()),
            kube::Error::LinesCodecMaxLineLengthExceeded => {
                KubeError::BadAnswer("a watch line is too long".into())
            }
            kube::Error::InferConfig(error) => KubeError::NotConfigured(error.to_string()),
            kube::Error::InferKubeconfig(error) => KubeError::NotConfigured(error.to_string()),
            other => {
                // Connection refused/reset and read time-outs come as hyper or tower errors.
                let text = error_chain(&other);
                if text.contains("timed out") || text.contains("elapsed") {
                    KubeError::Timeout(Duration::ZERO)
                } else {
                    KubeError::Unreachable(text)
                }
            }
        }
    }

    pub fn from_watcher(error: watcher::Error) -> Self {
        match error {
            watcher::Error::InitialListFailed(error)
            | watcher::Error::WatchStartFailed(error)
            | watcher::Error::WatchFailed(error) => KubeError::from_kube(error),
            watcher::Error::WatchError(status) => KubeError::Api {
                status: status.code,
                reason: status.reason.clone(),
                message: status.message.clone(),
            },
            watcher::Error::NoResourceVersion => {
                KubeError::BadAnswer("a list or watch answer had no resourceVersion".into())
            }
        }
    }
}

fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
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

    /// A kube-runtime watcher (list, watch, re-list on 410, re-watch on time-out) with backoff
    /// between failures; it yields each error and carries on.
    fn watch_ingresses(
        &self,
        namespace: Option<String>,
    ) -> BoxStream<'static, Result<Event<Ingress>, KubeError>>;
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
            let uri = url
                .parse()
                .map_err(|_| KubeError::NotConfigured(format!("{url} is not a URL")))?;
            kube::Config::new(uri)
        } else if let Some(path) = &settings.kubeconfig {
            let kubeconfig = kube::config::Kubeconfig::read_from(path)
                .map_err(|error| KubeError::NotConfigured(error.to_string()))?;
            let options = kube::config::KubeConfigOptions {
                context: settings.context.clone(),
                ..Default::default()
            };
            kube::Config::from_custom_kubeconfig(kubeconfig, &options)
                .await
                .map_err(|error| KubeError::NotConfigured(error.to_string()))?
        } else {
            kube::Config::infer()
                .await
                .map_err(|error| KubeError::NotConfigured(error.to_string()))?
        };
        config.connect_timeout = Some(settings.request_timeout);
        // Retries are ours (backon, with the specified numbers), not kube's built-in layer.
        config.default_retry = false;
        kube::Client::try_from(config).map_err(KubeError::from_kube)
    }

    fn client_or_error(&self) -> Result<kube::Client, KubeError> {
        self.client.clone()
    }

    async fn timed<T>(
        &self,
        call: impl Future<Output = Result<T, kube::Error>>,
    ) -> Result<T, KubeError> {
        match tokio::time::timeout(self.request_timeout, call).await {
            Ok(result) => result.map_err(KubeError::from_kube),
            Err(_) => Err(KubeError::Timeout(self.request_timeout)),
        }
    }
}

impl KubeApi for KubeClient {
    fn list_namespaces(&self, limit: Option<u32>) -> BoxFuture<'_, Result<Vec<String>, KubeError>> {
        async move {
            let api: Api<Namespace> = Api::all(self.client_or_error()?);
            let mut params = ListParams::default();
            if let Some(limit) = limit {
                params = params.limit(limit);
            }
            let list = self.timed(api.list_metadata(&params)).await?;
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
            let client = self.client_or_error()?;
            let api: Api<Ingress> = match &namespace {
                Some(namespace) => Api::namespaced(client, namespace),
                None => Api::all(client),
            };
            let mut items = Vec::new();
            let mut params = ListParams::default().limit(self.page_size);
            loop {
                let page = self.timed(api.list(&params)).await?;
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

    fn watch_ingresses(
        &self,
        namespace: Option<String>,
    ) -> BoxStream<'static, Result<Event<Ingress>, KubeError>> {
        let client = match self.client_or_error() {
            Ok(client) => client,
            Err(error) => {
                // Report once, then stay silent: nothing will change without a restart.
                return futures_util::stream::once(async move { Err(error) })
                    .chain(futures_util::stream::pending())
                    .boxed();
            }
        };
        let api: Api<Ingress> = match &namespace {
            Some(namespace) => Api::namespaced(client, namespace),
            None => Api::all(client),
        };
        let config = watcher::Config::default()
            .page_size(self.page_size)
            .timeout(self.watch_timeout.as_secs().max(1) as u32);
        watcher::watcher(api, config)
            .default_backoff()
            .map(|result| result.map_err(KubeError::from_watcher))
            .boxed()
    }
}

/// Shared handle to whichever implementation runs.
pub type SharedKubeApi = Arc<dyn KubeApi>;
