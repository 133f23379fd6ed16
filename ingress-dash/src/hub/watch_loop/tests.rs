//! The watch loop against a scripted API, in paused time: when each call is made, and what is
//! reported.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use futures_util::{FutureExt, StreamExt};
use k8s_openapi::api::networking::v1::Ingress;
use kube::core::Status;
use serde_json::json;
use tokio::time::Instant;

use super::*;
use crate::config::ResilienceSettings;
use crate::kube::client::{IngressPage, KubeApi, WatchEvents};
use crate::kube::resilience::BreakerState;

/// What the scripted API answers to its next call.
enum Answer {
    List(Result<IngressPage, KubeError>),
    /// An established watch sending these events, then ending (`true`) or staying open.
    Watch(Vec<Result<WatchEvent<Ingress>, KubeError>>, bool),
    WatchRefused(KubeError),
}

#[derive(Default)]
struct ScriptedApi {
    answers: Mutex<VecDeque<Answer>>,
    /// `("list" | "watch <resourceVersion>", when)` of each call.
    calls: Mutex<Vec<(String, Duration)>>,
    start: Mutex<Option<Instant>>,
}

impl ScriptedApi {
    fn new(answers: Vec<Answer>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.into()),
            start: Mutex::new(Some(Instant::now())),
            ..Self::default()
        })
    }

    fn next(&self, call: String) -> Option<Answer> {
        let at = self.start.lock().unwrap().unwrap().elapsed();
        self.calls.lock().unwrap().push((call, at));
        self.answers.lock().unwrap().pop_front()
    }

    fn calls(&self) -> Vec<(String, Duration)> {
        self.calls.lock().unwrap().clone()
    }
}

impl KubeApi for ScriptedApi {
    fn list_namespaces(&self, _: Option<u32>) -> BoxFuture<'_, Result<Vec<String>, KubeError>> {
        async { Ok(Vec::new()) }.boxed()
    }

    fn list_ingresses(&self, _: Option<String>) -> BoxFuture<'_, Result<Vec<Ingress>, KubeError>> {
        async { Ok(Vec::new()) }.boxed()
    }

    fn list_ingress_page(
        &self,
        _: Option<String>,
        _: Option<String>,
    ) -> BoxFuture<'_, Result<IngressPage, KubeError>> {
        match self.next("list".into()) {
            Some(Answer::List(answer)) => async move { answer }.boxed(),
            None => futures_util::future::pending().boxed(),
            Some(_) => panic!("a watch answer where a list was made"),
        }
    }

    fn watch_ingresses(
        &self,
        _: Option<String>,
        resource_version: String,
    ) -> BoxFuture<'_, Result<WatchEvents, KubeError>> {
        match self.next(format!("watch {resource_version}")) {
            Some(Answer::Watch(events, ends)) => {
                let events = futures_util::stream::iter(events);
                let stream = if ends {
                    events.boxed()
                } else {
                    events.chain(futures_util::stream::pending()).boxed()
                };
                async move { Ok(stream) }.boxed()
            }
            Some(Answer::WatchRefused(error)) => async move { Err(error) }.boxed(),
            None => futures_util::future::pending().boxed(),
            Some(Answer::List(_)) => panic!("a list answer where a watch was made"),
        }
    }
}

fn ingress(name: &str, version: u32) -> Ingress {
    serde_json::from_value(json!({
        "metadata": {"name": name, "namespace": "team-a", "resourceVersion": version.to_string()},
    }))
    .unwrap()
}

fn listed(version: u32, names: &[&str]) -> Answer {
    Answer::List(Ok(IngressPage {
        items: names.iter().map(|name| ingress(name, version)).collect(),
        resource_version: version.to_string(),
        continue_token: None,
    }))
}

fn api_error(status: u16) -> KubeError {
    KubeError::Api {
        status,
        reason: String::new(),
        message: format!("answered {status}"),
    }
}

fn error_event(status: u16) -> Result<WatchEvent<Ingress>, KubeError> {
    Ok(WatchEvent::Error(Box::new(
        Status::failure("too old resource version", "Expired").with_code(status),
    )))
}

/// Runs a loop on namespace `team-a` against `api` (specified retry policy and breaker,
/// permanent errors retried after 300 s); the reports, as `(kind, detail)`, come on the
/// returned channel.
fn start(
    api: Arc<ScriptedApi>,
) -> (
    tokio::sync::mpsc::UnboundedReceiver<(String, String)>,
    Resilience,
) {
    let resilience = Resilience::new(&ResilienceSettings::default());
    let watch = WatchLoop {
        kind: crate::kube::watched_kinds::WatchedKind::Ingresses,
        api,
        resilience: resilience.clone(),
        scope: Scope::Namespace("team-a".into()),
        settings: WatchSettings {
            permanent_error_retry: Duration::from_secs(300),
            idle_timeout: Duration::from_secs(600),
        },
    };
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
    // The pages of a list are counted and told with its completion.
    let mut paged = 0;
    tokio::spawn(watch.run(move |report| {
        let summary = match report {
            Report::Page { items, first } => {
                paged = if first { 0 } else { paged } + items.len();
                return true;
            }
            Report::Listed => ("listed".into(), std::mem::take(&mut paged).to_string()),
            Report::Applied(object) => ("applied".into(), object.name().to_owned()),
            Report::Deleted(object) => ("deleted".into(), object.name().to_owned()),
            Report::Failed(error) => (
                "failed".into(),
                format!("{} {:?} {}", error.code, error.status, error.message),
            ),
        };
        sender.send(summary).is_ok()
    }));
    (receiver, resilience)
}

/// Lets the loop run for `duration` of (paused) time.
async fn run_for(duration: Duration) {
    tokio::time::sleep(duration).await;
}

fn drain(receiver: &mut tokio::sync::mpsc::UnboundedReceiver<(String, String)>) -> Vec<String> {
    let mut reports = Vec::new();
    while let Ok((kind, detail)) = receiver.try_recv() {
        reports.push(format!("{kind} {detail}"));
    }
    reports
}

fn secs(seconds: f64) -> Duration {
    Duration::from_secs_f64(seconds)
}

#[tokio::test(start_paused = true)]
async fn transient_watch_errors_are_retried_after_1s_then_2s_without_a_report() {
    let api = ScriptedApi::new(vec![
        listed(5, &["web"]),
        Answer::WatchRefused(api_error(503)),
        Answer::WatchRefused(KubeError::Unreachable(crate::kube::client::message_cause(
            "connection refused",
        ))),
        Answer::Watch(vec![Ok(WatchEvent::Added(ingress("api", 6)))], false),
    ]);
    let (mut reports, _) = start(api.clone());
    run_for(Duration::from_secs(60)).await;
    assert_eq!(drain(&mut reports), ["listed 1", "applied api"]);
    let calls = api.calls();
    assert_eq!(
        calls,
        [
            ("list".to_owned(), secs(0.0)),
            ("watch 5".to_owned(), secs(0.0)),
            ("watch 5".to_owned(), secs(1.0)),
            ("watch 5".to_owned(), secs(3.0)),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn used_up_attempts_report_the_scope_and_wait_for_the_breaker() {
    let api = ScriptedApi::new(vec![
        listed(5, &[]),
        Answer::WatchRefused(api_error(503)),
        Answer::WatchRefused(api_error(503)),
        Answer::WatchRefused(api_error(503)),
        listed(7, &["late"]),
        Answer::Watch(Vec::new(), false),
    ]);
    let (mut reports, resilience) = start(api.clone());
    run_for(Duration::from_secs(30)).await;
    let failed = drain(&mut reports);
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(
        failed[1].starts_with("failed kubernetes_error Some(503)"),
        "{failed:?}"
    );
    assert!(failed[1].contains("Retrying in 1m."), "{failed:?}");
    // Three failures of four calls: counted, not yet enough to open (10 calls at least).
    assert_eq!(resilience.breaker.state(), BreakerState::Closed);
    assert_eq!(
        api.calls().len(),
        4,
        "nothing between the attempts and the wait"
    );
    run_for(Duration::from_secs(60)).await;
    // The breaker's open period after the report (at 3 s), then a fresh list and watch.
    let calls = api.calls();
    assert_eq!(calls[4], ("list".to_owned(), secs(63.0)));
    assert_eq!(calls[5], ("watch 7".to_owned(), secs(63.0)));
    assert_eq!(drain(&mut reports), ["listed 1"]);
}

#[tokio::test(start_paused = true)]
async fn a_permanent_error_is_reported_at_once_and_retried_after_the_long_interval() {
    let api = ScriptedApi::new(vec![
        listed(5, &[]),
        Answer::WatchRefused(api_error(403)),
        listed(5, &[]),
        Answer::Watch(Vec::new(), false),
    ]);
    let (mut reports, resilience) = start(api.clone());
    run_for(Duration::from_secs(299)).await;
    let failed = drain(&mut reports);
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(
        failed[1].starts_with("failed kubernetes_forbidden Some(403)"),
        "{failed:?}"
    );
    assert!(
        failed[1].contains("may not list or watch ingresses in team-a"),
        "{failed:?}"
    );
    assert_eq!(api.calls().len(), 2, "no retry before the interval");
    // A 403 is an answer: the API is up.
    assert_eq!(resilience.breaker.state(), BreakerState::Closed);
    run_for(Duration::from_secs(2)).await;
    assert_eq!(api.calls()[2], ("list".to_owned(), secs(300.0)));
}

#[tokio::test(start_paused = true)]
async fn a_410_lists_again_and_closed_watches_resume_from_the_last_version() {
    let api = ScriptedApi::new(vec![
        listed(5, &["web"]),
        // Ends normally after a change and a bookmark: watch again from the bookmark.
        Answer::Watch(
            vec![
                Ok(WatchEvent::Modified(ingress("web", 6))),
                Ok(WatchEvent::Bookmark(
                    serde_json::from_value(json!({
                        "apiVersion": "networking.k8s.io/v1", "kind": "Ingress",
                        "metadata": {"resourceVersion": "9"}
                    }))
                    .unwrap(),
                )),
            ],
            true,
        ),
        Answer::Watch(vec![error_event(410)], false),
        listed(12, &["web"]),
        Answer::WatchRefused(api_error(410)),
        listed(13, &["web"]),
        Answer::Watch(Vec::new(), false),
    ]);
    let (mut reports, _) = start(api.clone());
    run_for(Duration::from_secs(10)).await;
    assert_eq!(
        drain(&mut reports),
        ["listed 1", "applied web", "listed 1", "listed 1"]
    );
    let calls: Vec<(String, Duration)> = api.calls();
    let names: Vec<&str> = calls.iter().map(|(call, _)| call.as_str()).collect();
    assert_eq!(
        names,
        [
            "list", "watch 5", "watch 9", "list", "watch 12", "list", "watch 13"
        ]
    );
    // No waits, except after a second 410 with nothing delivered in between (paced).
    let times: Vec<Duration> = calls.iter().map(|(_, at)| *at).collect();
    assert_eq!(times, [0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0].map(secs));
}

#[tokio::test(start_paused = true)]
async fn watches_ended_at_once_are_paced_not_looped() {
    let mut answers = vec![listed(5, &[])];
    answers.extend((0..6).map(|_| Answer::Watch(Vec::new(), true)));
    let api = ScriptedApi::new(answers);
    let (mut reports, _) = start(api.clone());
    run_for(Duration::from_secs(120)).await;
    assert_eq!(drain(&mut reports), ["listed 0"], "no failure reported");
    let times: Vec<Duration> = api.calls().into_iter().skip(1).map(|(_, at)| at).collect();
    // 1 s, 2 s, 4 s, 8 s, 16 s between them, then 30 s (the cap) before the seventh.
    assert_eq!(
        times,
        [0.0, 1.0, 3.0, 7.0, 15.0, 31.0, 61.0].map(secs),
        "watches paced by the retry waits"
    );
}

#[tokio::test(start_paused = true)]
async fn a_dropped_connection_mid_stream_resumes_from_the_last_version() {
    let reset = KubeError::Unreachable(crate::kube::client::message_cause("connection reset"));
    let api = ScriptedApi::new(vec![
        listed(5, &[]),
        Answer::Watch(
            vec![Ok(WatchEvent::Added(ingress("web", 6))), Err(reset)],
            false,
        ),
        Answer::Watch(vec![Ok(WatchEvent::Deleted(ingress("web", 7)))], false),
    ]);
    let (mut reports, _) = start(api.clone());
    run_for(Duration::from_secs(10)).await;
    assert_eq!(
        drain(&mut reports),
        ["listed 0", "applied web", "deleted web"]
    );
    assert_eq!(
        api.calls(),
        [
            ("list".to_owned(), secs(0.0)),
            ("watch 5".to_owned(), secs(0.0)),
            ("watch 6".to_owned(), secs(1.0)),
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn an_open_breaker_is_no_call_and_the_scope_is_told_once() {
    let api = ScriptedApi::new(vec![listed(5, &[]), Answer::Watch(Vec::new(), false)]);
    let (mut reports, resilience) = start(api.clone());
    for _ in 0..10 {
        assert!(resilience.breaker.try_acquire());
        resilience.breaker.record(false);
    }
    assert_eq!(resilience.breaker.state(), BreakerState::Open);
    run_for(Duration::from_secs(30)).await;
    let told = drain(&mut reports);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].starts_with("failed circuit_open None"), "{told:?}");
    assert!(api.calls().is_empty(), "an open breaker called the API");
}

#[tokio::test(start_paused = true)]
async fn a_failed_scope_recovers_only_once_its_watch_works_again() {
    let api = ScriptedApi::new(vec![
        listed(5, &["web"]),
        Answer::WatchRefused(api_error(403)),
        // After the interval: the list works, the watch is still refused.
        listed(6, &["web", "api"]),
        Answer::WatchRefused(api_error(403)),
        listed(7, &["web", "api"]),
        Answer::Watch(Vec::new(), false),
    ]);
    let (mut reports, _) = start(api.clone());
    run_for(Duration::from_secs(400)).await;
    let told = drain(&mut reports);
    assert_eq!(told.len(), 3, "{told:?}");
    assert_eq!(told[0], "listed 1");
    assert!(
        told[1].starts_with("failed kubernetes_forbidden"),
        "{told:?}"
    );
    assert!(
        told[2].starts_with("failed kubernetes_forbidden"),
        "the working list alone is no recovery: {told:?}"
    );
    run_for(Duration::from_secs(300)).await;
    assert_eq!(drain(&mut reports), ["listed 2"]);
    let calls: Vec<String> = api.calls().into_iter().map(|(call, _)| call).collect();
    assert_eq!(
        calls,
        ["list", "watch 5", "list", "watch 6", "list", "watch 7"]
    );
}
