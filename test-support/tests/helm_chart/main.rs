//! The umbrella chart helm/search-platform with the real helm and a real kube-apiserver
//! ([`KubeCluster`]): `helm lint --strict` for the default values and every file in
//! helm/search-platform/ci/; `helm install` (server-side dry run, then for real) of each value set
//! into a namespace of its own, so the API server's schema validation and admission see every
//! rendered object; and what each service account the chart creates may do, asked with
//! `kubectl auth can-i` as that service account (exact sets: a permission added to the chart
//! fails here). The CRDs the rendered objects need are the upstream ones
//! (`scripts/install-kube.sh`: Gateway API, Traefik, the prometheus-operator's ServiceMonitor).
//!
//! There is no kubelet, scheduler or controller manager: the Deployments are stored and
//! validated but no pod runs, so no image is pulled, no probe runs and no NetworkPolicy is
//! enforced (ingress-dash/tests/api/helm_rbac.rs runs the binary with the chart's RBAC).

mod install;
mod lint;
mod rbac;

use std::path::PathBuf;

pub use test_support::kube_cluster::ok;
use test_support::repo_root;

/// The value sets in helm/search-platform/ci/ these tests install; a file added there must be
/// added here (the lint test checks the list).
pub const CI_FILES: [&str; 6] = [
    "access-open-values.yaml",
    "all-options-values.yaml",
    "front-door-nginx-values.yaml",
    "front-door-traefik-values.yaml",
    "network-policy-values.yaml",
    "saved-queries-pvc-values.yaml",
];

pub fn chart() -> PathBuf {
    repo_root().join("helm/search-platform")
}

pub fn ci_file(name: &str) -> PathBuf {
    chart().join("ci").join(name)
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
