//! Faults under load (issue 22): Redis stopped and restarted on the same port, the identity
//! provider down, the search cluster down, each while requests flow from concurrent tasks.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::app::{
    ANN_PASSWORD, BOB_PASSWORD, Cluster, Stack, TestApp, Users, spawn_app, spawn_stack,
};
use crate::oidc::{COOKIE, spawn_oidc_stack};
use crate::real_security::Flavor;
use crate::support::basic;
use crate::support::browser::Browser;

/// One answer seen by a load task: when it was sent, its status, its error code (JSON
/// bodies) and whether it carried an Authorization header for the cluster.
#[derive(Debug, Clone)]
struct Answer {
    sent: Instant,
    status: u16,
    code: String,
    authorized: bool,
}

/// Tasks sending `GET path` as each of `users` in a loop until `stop`.
fn spawn_load(
    app: &TestApp,
    path: &str,
    users: &[(&str, &'static str)],
    stop: Arc<AtomicBool>,
) -> (Arc<Mutex<Vec<Answer>>>, Vec<tokio::task::JoinHandle<()>>) {
    let answers = Arc::new(Mutex::new(Vec::new()));
    let mut tasks = Vec::new();
    for &(user, password) in users {
        for _ in 0..2 {
            let (client, url) = (app.client.clone(), app.url(path));
            let user = user.to_owned();
            let (answers, stop) = (answers.clone(), stop.clone());
            tasks.push(tokio::spawn(async move {
                while !stop.load(Ordering::SeqCst) {
                    let sent = Instant::now();
                    let response = client
                        .get(&url)
                        .header("authorization", basic(&user, password))
                        .timeout(Duration::from_secs(30))
                        .send()
                        .await
                        .expect("the proxy answers");
                    let status = response.status().as_u16();
                    let authorized = response.headers().contains_key("authorization");
                    let body: serde_json::Value = response.json().await.unwrap_or_default();
                    let code = body["error"]["code"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned();
                    answers.lock().unwrap().push(Answer {
                        sent,
                        status,
                        code,
                        authorized,
                    });
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }));
        }
    }
    (answers, tasks)
}

async fn wait_for(seconds: u64, what: &str, mut condition: impl FnMut() -> bool) {
    test_support::eventually(what, Duration::from_secs(seconds), async || condition()).await;
}

fn statuses(answers: &[Answer]) -> BTreeMap<u16, usize> {
    let mut counts = BTreeMap::new();
    for answer in answers {
        *counts.entry(answer.status).or_default() += 1;
    }
    counts
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn redis_restarted_on_its_port_under_load_fails_closed_then_recovers_by_itself() {
    let mut redis_server = test_support::RedisServer::start();
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, trusted_proxies: [127.0.0.1]}}\n\
         cache: {{backend: redis, redis_url: \"{}\", encryption_key: 0123456789abcdef0123456789abcdef}}\n{}",
        redis_server.url(),
        cluster.search_yaml(&users)
    );
    let app = spawn_app(&yaml).await;
    let port = redis_server.port;
    let stop = Arc::new(AtomicBool::new(false));
    let (answers, tasks) = spawn_load(
        &app,
        "/x",
        &[(&users.ann, ANN_PASSWORD), (&users.bob, BOB_PASSWORD)],
        stop.clone(),
    );
    wait_for(20, "answers before the fault", || {
        answers
            .lock()
            .unwrap()
            .iter()
            .filter(|a| a.status == 200)
            .count()
            >= 20
    })
    .await;

    redis_server.stop();
    let stopped = Instant::now();
    wait_for(20, "503s while Redis is down", || {
        let answers = answers.lock().unwrap();
        answers
            .iter()
            .filter(|a| a.sent > stopped && a.status == 503)
            .count()
            >= 20
    })
    .await;
    redis_server.restart();
    assert_eq!(redis_server.port, port, "restarted on the same port");
    let restarted = Instant::now();
    wait_for(30, "only 200s again after the restart", || {
        let answers = answers.lock().unwrap();
        let recent: Vec<&Answer> = answers.iter().filter(|a| a.sent > restarted).collect();
        recent.len() >= 8 && recent.iter().rev().take(8).all(|a| a.status == 200)
    })
    .await;
    stop.store(true, Ordering::SeqCst);
    for task in tasks {
        task.await.unwrap();
    }

    let answers = answers.lock().unwrap().clone();
    let counts = statuses(&answers);
    for answer in &answers {
        assert!(
            matches!(answer.status, 200 | 503),
            "an answer was {}: {counts:?}",
            answer.status
        );
        if answer.status == 503 {
            assert_eq!(answer.code, "session_store_unavailable", "{answer:?}");
            assert!(!answer.authorized, "a 503 carried credentials: {answer:?}");
        }
    }
    // Sent while Redis was down (after the stop and before the restart): fail closed.
    let while_down: Vec<&Answer> = answers
        .iter()
        .filter(|a| a.sent > stopped && a.sent + Duration::from_millis(50) < restarted)
        .collect();
    assert!(!while_down.is_empty());
    for answer in while_down {
        assert_eq!(answer.status, 503, "let through while Redis was down");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn identity_provider_down_keeps_sessions_and_a_new_sign_in_is_a_clear_503() {
    let stack = spawn_oidc_stack("").await;
    let signed_in = Arc::new(Browser::new());
    stack.sign_in(&signed_in, "/", &stack.alice).await;
    // A second sign-in gets as far as the provider's redirect back, while it is up.
    let late = Browser::new();
    let callback = stack.until_callback(&late, "/", &stack.bob).await;

    let stop = Arc::new(AtomicBool::new(false));
    let seen = Arc::new(Mutex::new(Vec::<(Instant, u16)>::new()));
    let mut tasks = Vec::new();
    for _ in 0..3 {
        let (browser, url) = (signed_in.clone(), stack.app.url("/_cluster/health"));
        let (stop, seen) = (stop.clone(), seen.clone());
        tasks.push(tokio::spawn(async move {
            while !stop.load(Ordering::SeqCst) {
                let status = browser.get(&url).await.status().as_u16();
                seen.lock().unwrap().push((Instant::now(), status));
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }));
    }
    wait_for(20, "session traffic", || seen.lock().unwrap().len() >= 10).await;
    let fresh_start = stack.start_url("/", &stack.bob);
    let provider_pid = stack.provider.pid();
    drop(stack.provider);
    let down = Instant::now();
    assert!(
        !std::path::Path::new(&format!("/proc/{provider_pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{provider_pid}/status"))
                .is_ok_and(|status| status.contains("State:\tZ")),
        "the provider still runs"
    );

    // The sign-in that was under way cannot finish: a clear 503, not a 500 or a trace. An API
    // client (no text/html in Accept) gets the common error body...
    let sign_in_cookie = format!("{COOKIE}_csrf");
    let response = crate::app::no_redirects()
        .get(callback.as_str())
        .header("accept", "application/json")
        .header(
            "cookie",
            format!("{sign_in_cookie}={}", late.cookie(&sign_in_cookie).unwrap()),
        )
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    assert_eq!(status, 503, "{text}");
    let body: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(body["error"]["code"], "oidc_provider_unavailable");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(message.contains("identity provider"), "{message}");
    for leak in ["panicked", "backtrace", "src/", "reqwest", "Error {"] {
        assert!(!text.contains(leak), "{leak} in {text}");
    }
    // ...and a browser a page that says so, with a link that starts the sign-in again.
    let response = late.get(callback.as_str()).await;
    assert_eq!(response.status(), 503);
    crate::sign_in_pages::assert_error_page(response, "identity provider", "/auth/start?rd=%2F")
        .await;
    // A new sign-in from scratch either is sent to the provider (discovery was cached) or
    // gets the same clear 503; never a 500.
    let fresh = Browser::new();
    let start = fresh.get(&fresh_start).await;
    assert!(
        matches!(start.status().as_u16(), 302 | 303 | 503),
        "{}",
        start.status()
    );

    wait_for(20, "session traffic with the provider down", || {
        seen.lock()
            .unwrap()
            .iter()
            .filter(|(at, _)| *at > down)
            .count()
            >= 20
    })
    .await;
    stop.store(true, Ordering::SeqCst);
    for task in tasks {
        task.await.unwrap();
    }
    let seen = seen.lock().unwrap();
    assert!(
        seen.iter().all(|(_, status)| *status == 200),
        "an existing session failed: {:?}",
        seen.iter().filter(|(_, s)| *s != 200).collect::<Vec<_>>()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn search_cluster_down_standalone_is_503_and_forward_auth_serves_cached_users() {
    let standalone = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let forward = spawn_stack("forward_auth", Flavor::Elasticsearch, "").await;
    let stop = Arc::new(AtomicBool::new(false));
    let (proxied, mut tasks) = spawn_load(
        &standalone.app,
        "/_cluster/health",
        &[(&standalone.users.ann, ANN_PASSWORD)],
        stop.clone(),
    );
    let (checked, more) = spawn_load(
        &forward.app,
        "/x",
        &[(&forward.users.ann, ANN_PASSWORD)],
        stop.clone(),
    );
    tasks.extend(more);
    wait_for(20, "traffic before the fault", || {
        proxied
            .lock()
            .unwrap()
            .iter()
            .filter(|a| a.status == 200)
            .count()
            >= 10
            && checked
                .lock()
                .unwrap()
                .iter()
                .filter(|a| a.status == 200)
                .count()
                >= 10
    })
    .await;

    // Both proxies' cluster goes away: the way to the shared node (each stack's recorder) is
    // closed; the node itself stays for the other tests.
    let Stack {
        app: standalone_app,
        cluster: standalone_cluster,
        ..
    } = standalone;
    let Stack {
        app: forward_app,
        cluster: forward_cluster,
        ..
    } = forward;
    drop(standalone_cluster.recorder);
    drop(forward_cluster.recorder);
    let down = Instant::now();
    wait_for(20, "answers with the cluster down", || {
        let count = |answers: &Mutex<Vec<Answer>>| {
            answers
                .lock()
                .unwrap()
                .iter()
                .filter(|a| a.sent > down)
                .count()
        };
        count(&proxied) >= 20 && count(&checked) >= 20
    })
    .await;
    stop.store(true, Ordering::SeqCst);
    for task in tasks {
        task.await.unwrap();
    }
    let after = |answers: &Mutex<Vec<Answer>>| -> Vec<Answer> {
        answers
            .lock()
            .unwrap()
            .iter()
            .filter(|a| a.sent > down + Duration::from_millis(100))
            .cloned()
            .collect()
    };
    for answer in after(&proxied) {
        assert!(
            matches!(answer.status, 502..=504),
            "standalone answered {answer:?}"
        );
        assert!(answer.code.starts_with("search_"), "{answer:?}");
    }
    for answer in after(&checked) {
        assert_eq!(
            answer.status, 200,
            "forward_auth refused a cached user: {answer:?}"
        );
        assert!(answer.authorized, "{answer:?}");
    }
    drop((standalone_app, forward_app));
}

#[test]
fn sigterm_under_load_finishes_in_flight_proxying_refuses_new_ones_and_exits_0() {
    use test_support::binary::ServiceBinary;
    use test_support::shutdown::{
        SLOW_BODY, ShutdownPlan, SlowUpstream, assert_sigterm_under_load,
    };

    let upstream = SlowUpstream::start(Duration::from_secs(2));
    let binary = ServiceBinary::new(env!("CARGO_BIN_EXE_authproxy"), "authproxy", "/healthz");
    let config = binary.config_file(
        "sigterm.yaml",
        &format!(
            "server: {{host: 127.0.0.1, port: 0, mode: standalone, shutdown_timeout: 10s}}\n\
             user_management: {{enabled: false}}\n\
             search: {{url: \"{}\"}}\n\
             basic_auth:\n  users: [{{username: ann, password_hash: \"{}\"}}]\n",
            upstream.url,
            crate::support::bcrypt_hash(ANN_PASSWORD)
        ),
    );
    let mut running = binary.start(&config);
    let plan = ShutdownPlan {
        slow_path: "/_cluster/health".to_owned(),
        slow_headers: format!("authorization: {}\r\n", basic("ann", ANN_PASSWORD)),
        slow_answer_contains: SLOW_BODY.to_owned(),
        in_flight: 4,
        fast_path: "/healthz".to_owned(),
        shutdown_timeout: Duration::from_secs(10),
    };
    assert_sigterm_under_load(&mut running, &plan, || upstream.received() >= 4);
}
