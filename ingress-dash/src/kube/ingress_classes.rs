//! The cluster's IngressClasses (networking.k8s.io/v1, cluster-scoped), read on demand for the
//! annotation explainer and the migration inventory (`http::migration`): each class's
//! `spec.controller` and whether it is the default class. Retries and the breaker are the
//! caller's ([`crate::kube::resilience::Resilience::call`]).

use k8s_openapi::api::networking::v1::IngressClass;
use kube::api::{Api, ListParams};

use crate::kube::client::{KubeApi, KubeError};

/// Marks the class that Ingresses without a class get.
const DEFAULT_CLASS: &str = "ingressclass.kubernetes.io/is-default-class";

/// At most this many classes are read (a cluster has a handful).
const LIMIT: u32 = 500;

/// One IngressClass.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IngressClassInfo {
    pub name: String,
    /// `spec.controller`, e.g. `k8s.io/ingress-nginx`; empty when unset.
    pub controller: String,
    pub is_default: bool,
}

/// Lists the IngressClasses (one page of at most [`LIMIT`]).
pub async fn list_ingress_classes(api: &dyn KubeApi) -> Result<Vec<IngressClassInfo>, KubeError> {
    let timeout = api.request_timeout();
    let classes: Api<IngressClass> = Api::all(api.kube_client()?);
    let list = match tokio::time::timeout(
        timeout,
        classes.list(&ListParams::default().limit(LIMIT)),
    )
    .await
    {
        Ok(result) => result.map_err(|error| KubeError::from_kube(error, timeout))?,
        Err(_) => return Err(KubeError::Timeout(timeout)),
    };
    Ok(list
        .items
        .into_iter()
        .map(|class| IngressClassInfo {
            is_default: class
                .metadata
                .annotations
                .as_ref()
                .and_then(|annotations| annotations.get(DEFAULT_CLASS))
                .is_some_and(|value| value == "true"),
            name: class.metadata.name.unwrap_or_default(),
            controller: class
                .spec
                .and_then(|spec| spec.controller)
                .unwrap_or_default(),
        })
        .collect())
}
