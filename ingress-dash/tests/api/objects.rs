//! One object on demand (issue 20 section 2): `GET /api/objects/{kind}/{namespace}/{name}/events`
//! and `.../yaml` against `make run`'s sample situations written into a real API server
//! (`real_kube::sample_cluster`), with the access rules, the retry policy and the breaker (the
//! API server's 503s from the fault proxy before it). The events, their limits, the YAML and
//! the 403s of a Role run against the real API server too (`real_kube::events`,
//! `real_kube::rbac`, `real_kube::gateway`, which also asks for an HTTPRoute of a cluster
//! without the Gateway API).

use serde_json::Value;

use crate::real_kube::sample_cluster::sample_cluster;
use crate::real_kube::{Cluster, RealApp, spawn_proxied_to};

/// `app-00001` (team-001) has Warning events `NoReadyEndpoints` (last seen 40 s ago, 42 times)
/// and `UpstreamUnhealthy` (95 s ago) and a Normal `Sync` (2 h ago).
const BROKEN: &str = "/api/objects/ingresses/team-001/app-00001";

/// The application before the sample cluster through a fault proxy of its own.
async fn app_with(overrides: &str) -> RealApp {
    spawn_proxied_to(Cluster::Shared(sample_cluster()), "", "", overrides).await
}

#[tokio::test]
async fn calls_are_retried_and_counted_by_the_shared_breaker() {
    // The breaker opens at half of at least 10 calls failing within 30 s.
    let app = app_with("  breaker_min_calls: 10\n  breaker_window: 30s\n").await;
    // Two transient failures: the third attempt answers.
    app.kube.faults().fail_next(2, 503);
    assert_eq!(app.get(&format!("{BROKEN}/events")).await.status(), 200);
    // Failing for good: 503 after three attempts each, then the breaker opens and the
    // dashboard answers without calling.
    app.kube.faults().fail_next(1_000, 503);
    let mut codes = Vec::new();
    for _ in 0..5 {
        let response = app.get(&format!("{BROKEN}/yaml")).await;
        let status = response.status().as_u16();
        let retry_after = response.headers().get("retry-after").cloned();
        let body: Value = response.json().await.unwrap();
        codes.push((status, body["error"]["code"].as_str().unwrap().to_owned()));
        if status == 503 && body["error"]["code"] == "circuit_open" {
            assert!(retry_after.is_some());
        }
    }
    assert_eq!(codes[0], (503, "kubernetes_error".to_owned()), "{codes:?}");
    assert_eq!(
        codes.last().unwrap(),
        &(503, "circuit_open".to_owned()),
        "{codes:?}"
    );
    let (status, body) = app.get_json(&format!("{BROKEN}/events")).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (503, Some("circuit_open"))
    );
    // The breaker is the one the watchers and the health endpoint share.
    let (_, health) = app.get_json("/api/health").await;
    assert_eq!(
        health["checks"]["kubernetes"]["circuitBreaker"], "open",
        "{health}"
    );
}

/// The test client (127.0.0.1) plays the sign-in proxy; `shop` sees team-000 only.
const TEAM_000_ONLY: &str = "access:\n  mode: trusted_headers\n  namespaces_by_group:\n    shop: [\"team-000\"]\n    sre: [\"*\"]\n";

async fn as_user(app: &RealApp, path: &str, groups: &str) -> (u16, Value, String) {
    let response = app
        .client
        .get(format!("{}{path}", app.address))
        .header("X-Auth-Request-User", "ann")
        .header("X-Auth-Request-Groups", groups)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let text = response.text().await.unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    (status, body, text)
}

#[tokio::test]
async fn a_namespace_the_caller_may_not_see_answers_as_a_missing_object() {
    let app = spawn_proxied_to(
        Cluster::Shared(sample_cluster()),
        "  trusted_proxies: [127.0.0.0/8, \"::1\"]\n",
        "",
        TEAM_000_ONLY,
    )
    .await;
    // team-001/app-00001 exists but ann may not see team-001.
    for suffix in ["events", "yaml"] {
        let hidden = as_user(&app, &format!("{BROKEN}/{suffix}"), "shop").await;
        let missing = as_user(
            &app,
            &format!("/api/objects/ingresses/team-000/no-such-ingress/{suffix}"),
            "shop",
        )
        .await;
        assert_eq!(hidden.0, 404, "{suffix}");
        assert_eq!(missing.0, 404, "{suffix}");
        assert_eq!(hidden.1["error"]["code"], missing.1["error"]["code"]);
        assert_eq!(
            hidden.1["error"]["message"],
            "Ingress team-001/app-00001 was not found."
        );
        assert_eq!(
            missing.1["error"]["message"],
            "Ingress team-000/no-such-ingress was not found."
        );
        // Its own namespace and a group that sees everything work.
        assert_eq!(
            as_user(
                &app,
                &format!("/api/objects/ingresses/team-000/app-00000/{suffix}"),
                "shop"
            )
            .await
            .0,
            200
        );
        assert_eq!(
            as_user(&app, &format!("{BROKEN}/{suffix}"), "sre").await.0,
            200
        );
    }
    // Without an identity: 401 as everywhere.
    assert_eq!(app.get(&format!("{BROKEN}/yaml")).await.status(), 401);
}

#[tokio::test]
async fn bad_kinds_names_and_types_are_400_and_missing_objects_404() {
    let app = app_with("").await;
    let requests_before = app.kube.faults().list_requests();
    for (path, code) in [
        (
            "/api/objects/pods/team-001/app-00001/events",
            "invalid_kind",
        ),
        (
            "/api/objects/secrets/team-001/app-00001-tls/yaml",
            "invalid_kind",
        ),
        (
            "/api/objects/ingresses/Team-001/app-00001/yaml",
            "invalid_namespace",
        ),
        (
            "/api/objects/ingresses/team-001/App_00001/yaml",
            "invalid_name",
        ),
        (
            "/api/objects/ingresses/team-001/app..1/events",
            "invalid_name",
        ),
        (
            "/api/objects/ingresses/team-001/app-00001%2Cx%3Dy/events",
            "invalid_name",
        ),
        (
            "/api/objects/ingresses/team-001/app-00001/events?type=error",
            "invalid_parameter",
        ),
    ] {
        let (status, body) = app.get_json(path).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some(code)),
            "{path}: {body}"
        );
        assert!(
            body["error"]["message"]
                .as_str()
                .is_some_and(|m| m.ends_with('.'))
        );
    }
    assert_eq!(app.kube.faults().list_requests(), requests_before);
    let (_, body) = app.get_json("/api/objects/pods/team-001/x/yaml").await;
    assert_eq!(
        body["error"]["message"],
        "\"pods\" is not a kind of object the dashboard shows: use ingresses or httproutes."
    );
    for path in [
        "/api/objects/ingresses/team-001/gone/yaml",
        "/api/objects/ingresses/team-001/gone/events",
        "/api/objects/ingresses/no-such-namespace/app-00001/yaml",
        "/api/objects/httproutes/team-000/gone/yaml",
    ] {
        let (status, body) = app.get_json(path).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (404, Some("not_found")),
            "{path}"
        );
    }
}

#[tokio::test]
async fn the_reads_count_against_the_clients_rate_limit() {
    let app = app_with("rate_limit:\n  burst: 3\n  per_second: 1\n").await;
    let mut statuses = Vec::new();
    for path in ["yaml", "events", "yaml", "events", "yaml", "events"] {
        let response = app.get(&format!("{BROKEN}/{path}")).await;
        let status = response.status().as_u16();
        if status == 429 {
            assert!(response.headers().contains_key("retry-after"));
            let body: Value = response.json().await.unwrap();
            assert_eq!(body["error"]["code"], "rate_limited");
        }
        statuses.push(status);
    }
    assert_eq!(statuses[0], 200, "{statuses:?}");
    assert!(statuses.contains(&429), "{statuses:?}");
}

#[tokio::test]
async fn a_namespace_scoped_install_answers_unwatched_namespaces_as_missing_objects() {
    let app = spawn_proxied_to(
        Cluster::Shared(sample_cluster()),
        "",
        "  namespaces: [team-000]\n",
        "",
    )
    .await;
    let (status, body) = app.get_json(&format!("{BROKEN}/yaml")).await;
    assert_eq!(
        (status, body["error"]["message"].as_str()),
        (404, Some("Ingress team-001/app-00001 was not found."))
    );
    let (status, _) = app.get_json(&format!("{BROKEN}/events")).await;
    assert_eq!(status, 404);
    let response = app
        .get("/api/objects/ingresses/team-000/app-00000/yaml")
        .await;
    assert_eq!(response.status(), 200);
}
