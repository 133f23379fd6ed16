//! `GET /api/ingresses` and `GET /api/namespaces` against the real API server, mostly through
//! the fault proxy (`real_kube::spawn_proxied`), whose counters say how many lists the
//! application asked for; a namespace and the cluster-wide scope forbidden by real RBAC. Each
//! test keeps to namespaces of its own on the shared cluster.

use std::time::Duration;

use kube_test_server::sample;
use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use crate::app::eventually;
use crate::real_kube::{
    Cluster, INGRESSES_ONLY, RealApp, reader_token, scoped, spawn_proxied, spawn_real,
};

/// Whether `body` (of `/api/namespaces`) names each of `namespaces`.
fn lists_namespaces(body: &Value, namespaces: &[&str]) -> bool {
    let listed = body["namespaces"].as_array().expect("namespaces");
    namespaces
        .iter()
        .all(|namespace| listed.iter().any(|name| name == namespace))
}

#[tokio::test]
async fn snapshot_merges_namespaces_and_isolates_a_forbidden_one() {
    let namespaces = ["sn-merge-0", "sn-merge-1", "sn-merge-2"];
    // The service account reads the first two; a Role in the third it never gets.
    let cluster = KubeCluster::shared();
    let token = reader_token(cluster, &namespaces);
    cluster.apply(&crate::real_kube::reader_role(namespaces[1], namespaces[0]));
    let app = spawn_real(
        Cluster::Shared(cluster),
        Some(&token),
        &scoped(&namespaces),
        "",
    )
    .await;
    app.kube.populate(&namespaces, 6).await;
    let (status, body) = app
        .get_json(&format!(
            "/api/ingresses?namespaces={}",
            namespaces.join(",")
        ))
        .await;
    assert_eq!(status, 200);
    let names: Vec<(&str, &str)> = body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["namespace"].as_str().unwrap(),
                item["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("sn-merge-0", "app-00000"),
            ("sn-merge-0", "app-00003"),
            ("sn-merge-1", "app-00001"),
            ("sn-merge-1", "app-00004"),
        ]
    );
    let errors = body["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["namespace"], "sn-merge-2");
    assert_eq!(errors[0]["code"], "kubernetes_forbidden");
    // Payloads carry the record, never the raw object.
    let first = &body["items"][0];
    assert!(first.get("metadata").is_none() && first.get("managedFields").is_none());
    assert!(
        first["annotations"]
            .get("kubectl.kubernetes.io/last-applied-configuration")
            .is_none()
    );
    assert_eq!(first["ingressClassName"], "nginx");
    assert_eq!(
        first["links"][0],
        json!({"host": "app-00000.sn-merge-0.example.com", "url": "https://app-00000.sn-merge-0.example.com/"})
    );
}

#[tokio::test]
async fn steady_state_snapshots_come_from_the_watchers_memory() {
    let namespaces = ["sn-steady-0", "sn-steady-1"];
    // Ingresses only: the test counts the ingress watches.
    let app = spawn_proxied(&scoped(&namespaces), INGRESSES_ONLY).await;
    app.kube.populate(&namespaces, 20).await;
    let (status, body) = app.get_json("/api/ingresses").await;
    assert_eq!(status, 200);
    assert_eq!(body["items"].as_array().unwrap().len(), 20);
    // Once the watchers have listed, requests cost no API call. A watcher watches only after
    // its list has been applied, so open watches mean the lists are in memory.
    let faults = app.kube.faults();
    assert!(
        eventually(async || faults.open_watches() == 2).await,
        "the watchers never listed"
    );
    let lists = faults.list_requests();
    for _ in 0..10 {
        let (_, body) = app.get_json("/api/ingresses?search=APP-0001").await;
        assert_eq!(body["items"].as_array().unwrap().len(), 10);
    }
    assert_eq!(faults.list_requests(), lists);
}

#[tokio::test]
async fn concurrent_identical_requests_share_one_upstream_list() {
    let namespaces = ["sn-shared-0", "sn-shared-1", "sn-shared-2"];
    let app = spawn_proxied("", "").await;
    app.kube.namespaces(&namespaces).await;
    let faults = app.kube.faults();
    faults.set_latency(Duration::from_millis(200));
    let requests = (0..100).map(|_| app.get_json("/api/namespaces"));
    let answers = futures_util::future::join_all(requests).await;
    // The shared cluster's namespaces: ours among them, the same in every answer.
    assert!(lists_namespaces(&answers[0].1, &namespaces), "{answers:?}");
    for (status, body) in &answers {
        assert_eq!((*status, body), (200, &answers[0].1));
    }
    assert_eq!(faults.list_requests(), 1);
    // And the cache answers the next one.
    app.get_json("/api/namespaces").await;
    assert_eq!(faults.list_requests(), 1);
}

#[tokio::test]
async fn bad_namespace_parameters_are_refused_with_the_common_body() {
    let app = spawn_proxied("", "stream:\n  max_namespaces: 2\n").await;
    let (status, body) = app.get_json("/api/ingresses?namespaces=Team_A").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "invalid_namespace");
    let (status, body) = app.get_json("/api/ingresses/stream?namespaces=a,b,c").await;
    assert_eq!(status, 400);
    assert_eq!(body["error"]["code"], "too_many_namespaces");
}

#[tokio::test]
async fn cluster_wide_failure_is_an_error_status() {
    // A service account that may read its own namespace only.
    let cluster = KubeCluster::shared();
    let token = reader_token(cluster, &["sn-cluster-wide"]);
    let app = spawn_real(Cluster::Shared(cluster), Some(&token), "", "").await;
    let (status, body) = app.get_json("/api/ingresses").await;
    assert_eq!(status, 403);
    assert_eq!(body["error"]["code"], "kubernetes_forbidden");
}

#[tokio::test]
async fn rate_limit_answers_429_with_retry_after() {
    let app = spawn_proxied("", "rate_limit:\n  burst: 5\n  per_second: 1\n").await;
    for _ in 0..5 {
        assert_eq!(app.get("/api/namespaces").await.status(), 200);
    }
    let response = app.get("/api/namespaces").await;
    assert_eq!(response.status(), 429);
    let retry_after: u64 = response.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=1).contains(&retry_after), "{retry_after}");
    let body: serde_json::Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "rate_limited");
    // Probes are never limited.
    assert_eq!(app.get("/api/live").await.status(), 200);
}

#[tokio::test]
async fn snapshot_is_gzip_compressed_when_asked() {
    let namespaces = ["sn-gzip-0", "sn-gzip-1"];
    let app = spawn_proxied(&scoped(&namespaces), "").await;
    app.kube.populate(&namespaces, 50).await;
    let response = app
        .client
        .get(format!("{}/api/ingresses", app.address))
        .header("Accept-Encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-encoding"], "gzip");
}

#[tokio::test]
async fn metrics_export_breaker_cache_watchers_clients_and_events() {
    let namespaces = ["sn-metrics"];
    let app = spawn_proxied(&scoped(&namespaces), "").await;
    app.kube.populate(&namespaces, 2).await;
    app.get_json("/api/namespaces").await;
    app.get_json("/api/namespaces").await;
    let mut stream = app.stream("", None).await;
    stream.next_event(Duration::from_secs(10)).await.unwrap();
    let metrics = app.get("/_metrics").await.text().await.unwrap();
    for name in [
        "ingress_dash_circuit_breaker_state",
        "ingress_dash_cache_hits_total",
        "ingress_dash_cache_misses_total",
        "ingress_dash_watchers",
        "ingress_dash_stream_clients",
        "ingress_dash_stream_events_sent_total",
    ] {
        assert!(metrics.contains(name), "{name} missing from:\n{metrics}");
    }
}

#[tokio::test]
async fn redis_cache_serves_repeated_lists_and_survives_redis_going_away() {
    let mut redis = test_support::RedisServer::start();
    let app = spawn_proxied(
        "",
        &format!(
            "cache:\n  backend: redis\n  redis_url: {}\n  ttl: 30s\n",
            redis.url()
        ),
    )
    .await;
    let namespaces = ["sn-redis-0", "sn-redis-1"];
    app.kube.namespaces(&namespaces).await;
    let faults = app.kube.faults();
    let mut first = None;
    for _ in 0..3 {
        let (status, body) = app.get_json("/api/namespaces").await;
        assert_eq!(status, 200);
        assert!(lists_namespaces(&body, &namespaces), "{body}");
        // The same answer each time, from the cache.
        assert_eq!(first.get_or_insert_with(|| body.clone()), &body);
    }
    assert_eq!(faults.list_requests(), 1);
    // Without Redis, requests still work (a miss each time), never fail.
    redis.stop();
    let (status, _) = app.get_json("/api/namespaces").await;
    assert_eq!(status, 200);
    assert_eq!(faults.list_requests(), 2);
}

/// `GET /api/ingresses` with `Accept-Encoding`, its status and headers, and the body as sent.
async fn get_encoded(app: &RealApp, accept: Option<&str>) -> (String, String, Vec<u8>) {
    let mut request = app.client.get(format!("{}/api/ingresses", app.address));
    if let Some(accept) = accept {
        request = request.header("Accept-Encoding", accept);
    }
    let response = request.send().await.unwrap();
    assert_eq!(response.status(), 200);
    let header = |name: &str| {
        response
            .headers()
            .get_all(name)
            .iter()
            .map(|value| value.to_str().unwrap().to_owned())
            .collect::<Vec<_>>()
            .join(",")
    };
    let (encoding, vary) = (header("content-encoding"), header("vary"));
    (encoding, vary, response.bytes().await.unwrap().to_vec())
}

fn gunzip(body: &[u8]) -> Vec<u8> {
    use std::io::Read;
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(body)
        .read_to_end(&mut out)
        .expect("a gzip body");
    out
}

#[tokio::test]
async fn the_gzip_snapshot_is_built_once_per_state_and_is_the_plain_body_compressed() {
    let namespaces = ["sn-gzip-once-0", "sn-gzip-once-1"];
    // Ingresses only: the test waits for the ingress watches.
    let app = spawn_proxied(&scoped(&namespaces), INGRESSES_ONLY).await;
    app.kube.populate(&namespaces, 30).await;
    let _ = get_encoded(&app, None).await;
    assert!(
        eventually(async || app.kube.faults().open_watches() == 2).await,
        "the watchers never listed"
    );
    let (encoding, vary, plain) = get_encoded(&app, None).await;
    assert_eq!((encoding.as_str(), vary.as_str()), ("", "Accept-Encoding"));
    let (encoding, vary, gzip) = get_encoded(&app, Some("gzip, deflate")).await;
    assert_eq!(
        (encoding.as_str(), vary.as_str()),
        ("gzip", "Accept-Encoding")
    );
    assert_eq!(gunzip(&gzip), plain, "the same JSON");
    let builds = app.state.snapshots.builds();
    // Unchanged: the same bytes, not compressed again.
    let (_, _, again) = get_encoded(&app, Some("gzip")).await;
    assert_eq!(again, gzip);
    assert_eq!(app.state.snapshots.builds(), builds);
    // An identity client gets identity, whatever is cached.
    for accept in ["identity", "gzip;q=0", "br"] {
        let (encoding, _, body) = get_encoded(&app, Some(accept)).await;
        assert_eq!(
            (encoding.as_str(), body.as_slice()),
            ("", plain.as_slice()),
            "{accept}"
        );
    }
    // A change between two requests: the next gzip body has it.
    let mut changed = sample::ingress(namespaces[0], "app-00000", 0);
    changed["metadata"]["labels"]["changed"] = json!("yes");
    app.kube.put_ingress(changed).await;
    assert!(
        eventually(async || {
            let (_, _, body) = get_encoded(&app, Some("gzip")).await;
            String::from_utf8(gunzip(&body))
                .unwrap()
                .contains("\"changed\":\"yes\"")
        })
        .await,
        "the change never showed"
    );
    let (_, _, gzip) = get_encoded(&app, Some("gzip")).await;
    let (_, _, plain) = get_encoded(&app, None).await;
    assert_eq!(gunzip(&gzip), plain);
    assert!(app.state.snapshots.builds() > builds);
    let metrics = app.get("/_metrics").await.text().await.unwrap();
    assert!(
        metrics.contains("ingress_dash_snapshot_cache_total{result=\"hit\"}"),
        "{metrics}"
    );
}

#[tokio::test]
async fn concurrent_gzip_snapshots_share_one_build() {
    let namespaces = [
        "sn-gzip-shared-0",
        "sn-gzip-shared-1",
        "sn-gzip-shared-2",
        "sn-gzip-shared-3",
    ];
    let app = spawn_proxied(&scoped(&namespaces), INGRESSES_ONLY).await;
    app.kube.populate(&namespaces, 400).await;
    let _ = get_encoded(&app, None).await;
    assert!(
        eventually(async || app.kube.faults().open_watches() == 4).await,
        "the watchers never listed"
    );
    let builds = app.state.snapshots.builds();
    let requests = (0..20).map(|_| get_encoded(&app, Some("gzip")));
    let answers = futures_util::future::join_all(requests).await;
    assert!(answers.iter().all(|answer| answer.2 == answers[0].2));
    assert_eq!(app.state.snapshots.builds(), builds + 1);
}
