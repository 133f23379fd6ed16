//! The loops of the kinds beside ingresses against kube-test-server: every list and watch is
//! an attempt under the shared breaker, like the ingress loop's, and a failure reports what
//! cannot be read with the grant it needs.

use std::sync::Arc;
use std::time::Duration;

use kube_test_server::{Kind, KubeTestServer, Options};

use super::*;
use crate::config::{KubernetesSettings, ResilienceSettings};
use crate::kube::client::KubeClient;
use crate::kube::resilience::BreakerState;

async fn services_loop(server: &KubeTestServer, resilience: &Resilience) -> WatchLoop {
    let api = KubeClient::connect(&KubernetesSettings {
        api_url: Some(server.url().to_owned()),
        ..KubernetesSettings::default()
    })
    .await;
    WatchLoop {
        kind: WatchedKind::Services,
        api: Arc::new(api),
        resilience: resilience.clone(),
        scope: Scope::Namespace("shop".into()),
        settings: WatchSettings {
            permanent_error_retry: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(60),
        },
    }
}

#[tokio::test]
async fn failing_service_watches_open_the_shared_breaker() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    server.cluster.add_namespace("shop");
    let resilience = Resilience::new(&ResilienceSettings {
        retry_max_attempts: 5,
        retry_initial_delay: Duration::from_millis(10),
        retry_max_delay: Duration::from_millis(20),
        breaker_min_calls: 4,
        breaker_open_for: Duration::from_secs(60),
        ..ResilienceSettings::default()
    });
    // Lists work, every watch of services answers 503.
    server.cluster.faults.fail_next_watches(1_000, 503);
    let (sender, mut reports) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(
        services_loop(&server, &resilience)
            .await
            .run(move |report| sender.send(report).is_ok()),
    );
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
            .starts_with("services could not be read in shop"),
        "{}",
        failure.message
    );
}

#[tokio::test]
async fn a_forbidden_kind_says_which_grant_it_needs() {
    let server = KubeTestServer::start(Options::default()).unwrap();
    server.cluster.add_namespace("shop");
    server.cluster.forbid(Kind::Service, Some("shop"));
    let resilience = Resilience::new(&ResilienceSettings::default());
    let (sender, mut reports) = tokio::sync::mpsc::unbounded_channel();
    let task = tokio::spawn(
        services_loop(&server, &resilience)
            .await
            .run(move |report| sender.send(report).is_ok()),
    );
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
            "ingress-dash may not list or watch services in shop: grant get, list and watch on services"
        ),
        "{}",
        failure.message
    );
    // A permanent error is an answer: the breaker stays closed.
    assert_eq!(resilience.breaker.state(), BreakerState::Closed);
}
