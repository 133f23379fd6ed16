//! The loops of the kinds beside ingresses against the real API server (the shared cluster of
//! `test_support::kube_cluster`, through its fault proxy): every list and watch is an attempt
//! under the shared breaker, like the ingress loop's, and a failure reports what cannot be read
//! with the grant it needs (a real RBAC 403).

use std::sync::Arc;
use std::time::Duration;

use test_support::TempDir;
use test_support::kube_cluster::{KubeCluster, KubeFaultProxy};

use super::*;
use crate::config::{KubernetesSettings, ResilienceSettings};
use crate::kube::client::KubeClient;
use crate::kube::resilience::BreakerState;

/// The shared cluster with `namespace` and a fault proxy before it; with `reader`, service
/// account `dash` there, which may read ingresses in it but not services, and its token.
async fn cluster(namespace: &'static str, reader: bool) -> (KubeFaultProxy, Option<String>) {
    tokio::task::spawn_blocking(move || {
        let cluster = KubeCluster::shared();
        cluster.create_namespaces(&[namespace]);
        let token = reader.then(|| {
            cluster.apply(&format!(
                "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: dash\n  namespace: {namespace}\n---\n\
                 apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: dash\n  \
                 namespace: {namespace}\nrules:\n\
                 - apiGroups: [networking.k8s.io]\n  resources: [ingresses]\n  verbs: [get, list, watch]\n---\n\
                 apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: dash\n  \
                 namespace: {namespace}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  \
                 name: dash\nsubjects:\n- kind: ServiceAccount\n  name: dash\n  namespace: {namespace}\n"
            ));
            cluster.create_token(namespace, "dash")
        });
        (KubeFaultProxy::start(cluster), token)
    })
    .await
    .unwrap()
}

/// The services loop of `namespace` through `proxy`, as `token` (the admin's when `None`).
async fn services_loop(
    proxy: &KubeFaultProxy,
    token: Option<&str>,
    namespace: &str,
    resilience: &Resilience,
) -> (WatchLoop, TempDir) {
    let dir = TempDir::new("kinds-kubeconfig");
    let kubeconfig = dir.path().join("kubeconfig");
    let token = token.unwrap_or(KubeCluster::shared().admin_token());
    std::fs::write(&kubeconfig, proxy.kubeconfig(token)).unwrap();
    let api = KubeClient::connect(&KubernetesSettings {
        kubeconfig: Some(kubeconfig),
        ..KubernetesSettings::default()
    })
    .await;
    let watch_loop = WatchLoop {
        kind: WatchedKind::Services,
        api: Arc::new(api),
        resilience: resilience.clone(),
        scope: Scope::Namespace(namespace.into()),
        settings: WatchSettings {
            permanent_error_retry: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
        },
    };
    (watch_loop, dir)
}

#[tokio::test]
async fn failing_service_watches_open_the_shared_breaker() {
    let namespace = "kinds-breaker";
    let (proxy, _) = cluster(namespace, false).await;
    let resilience = Resilience::new(&ResilienceSettings {
        retry_max_attempts: 5,
        retry_initial_delay: Duration::from_millis(10),
        retry_max_delay: Duration::from_millis(20),
        breaker_min_calls: 4,
        breaker_open_for: Duration::from_secs(60),
        ..ResilienceSettings::default()
    });
    // Lists work, every watch of services answers 503.
    proxy.faults.fail_next_watches(1_000, 503);
    let (sender, mut reports) = tokio::sync::mpsc::unbounded_channel();
    let (watch_loop, _dir) = services_loop(&proxy, None, namespace, &resilience).await;
    let task = tokio::spawn(watch_loop.run(move |report| sender.send(report).is_ok()));
    let mut listed = false;
    let failure = loop {
        match tokio::time::timeout(Duration::from_secs(20), reports.recv()).await {
            Ok(Some(Report::Listed)) => listed = true,
            Ok(Some(Report::Failed(error))) => break error,
            Ok(Some(_)) => {}
            other => panic!("no failure reported: {other:?}"),
        }
    };
    task.abort();
    assert!(listed, "the list worked");
    assert_eq!(resilience.breaker.state(), BreakerState::Open);
    assert_eq!(failure.status, Some(503));
    assert!(
        failure
            .message
            .starts_with(&format!("services could not be read in {namespace}")),
        "{}",
        failure.message
    );
}

#[tokio::test]
async fn a_forbidden_kind_says_which_grant_it_needs() {
    // Service account `dash` may read ingresses in the namespace, not services.
    let namespace = "kinds-forbidden";
    let (proxy, token) = cluster(namespace, true).await;
    let resilience = Resilience::new(&ResilienceSettings::default());
    let (sender, mut reports) = tokio::sync::mpsc::unbounded_channel();
    let (watch_loop, _dir) = services_loop(&proxy, token.as_deref(), namespace, &resilience).await;
    let task = tokio::spawn(watch_loop.run(move |report| sender.send(report).is_ok()));
    let report = tokio::time::timeout(Duration::from_secs(10), reports.recv())
        .await
        .unwrap()
        .unwrap();
    task.abort();
    let Report::Failed(failure) = report else {
        panic!("{report:?}");
    };
    assert_eq!(failure.status, Some(403));
    assert!(
        failure.message.starts_with(
            &format!("ingress-dash may not list or watch services in {namespace}: grant get, list and watch on services")
        ),
        "{}",
        failure.message
    );
    // A permanent error is an answer: the breaker stays closed.
    assert_eq!(resilience.breaker.state(), BreakerState::Closed);
}
