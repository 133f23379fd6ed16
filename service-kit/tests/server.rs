//! The shared server: liveness, `/_metrics` and internal routes on the internal listener only,
//! and the common error body for everything actix rejects before a handler runs.

use std::time::Duration;

use actix_web::{HttpResponse, web};
use serde::Deserialize;
use service_kit::server::{RunningServer, ServerOptions};

#[derive(Deserialize)]
struct Page {
    size: u32,
}

fn routes(config: &mut web::ServiceConfig) {
    config
        .route(
            "/api/items",
            web::get().to(|page: web::Query<Page>| async move {
                HttpResponse::Ok().json(serde_json::json!({"size": page.size}))
            }),
        )
        .route(
            "/api/items",
            web::post().to(|body: web::Json<Page>| async move {
                HttpResponse::Ok().json(serde_json::json!({"size": body.size}))
            }),
        )
        .service(
            web::scope("/api/shelves/{shelf}")
                .route("/books/{tail:.*}", web::get().to(HttpResponse::NoContent)),
        );
}

/// The internal listener's routes in these tests: one path only it answers.
fn internal_routes(config: &mut web::ServiceConfig) {
    config.route("/check", web::get().to(HttpResponse::NoContent));
}

/// The public listener's address and the internal one's, when it is bound.
struct Addresses {
    public: String,
    internal: Option<String>,
}

async fn start(metrics_enabled: bool) -> String {
    start_with(metrics_enabled, None::<fn(&mut web::ServiceConfig)>)
        .await
        .public
}

async fn start_with(
    metrics_enabled: bool,
    internal: Option<impl Fn(&mut web::ServiceConfig) + Clone + Send + 'static>,
) -> Addresses {
    let options = ServerOptions {
        host: "127.0.0.1".into(),
        port: 0,
        internal_port: 0,
        shutdown_timeout: Duration::from_secs(1),
        metrics_enabled,
        version: "9.8.7",
        liveness_path: "/live",
        client_request_timeout: None,
        write_buffer_bytes: None,
    };
    let server = RunningServer::start(options, routes, internal).expect("server starts");
    let addresses = Addresses {
        public: format!("http://127.0.0.1:{}", server.port()),
        internal: server
            .internal_port()
            .map(|port| format!("http://127.0.0.1:{port}")),
    };
    tokio::spawn(server.run_until_stopped());
    addresses
}

async fn status_of(url: String) -> u16 {
    test_support::http_client()
        .get(url)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn error_of(response: reqwest::Response) -> (u16, serde_json::Value) {
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON error body"))
}

#[tokio::test]
async fn liveness_answers_healthy_and_the_version() {
    let address = start(true).await;
    let body: serde_json::Value = test_support::http_client()
        .get(format!("{address}/live"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        body,
        serde_json::json!({"status": "healthy", "version": "9.8.7"})
    );
}

#[tokio::test]
async fn unknown_routes_get_the_common_404_body() {
    let address = start(true).await;
    let (status, body) = error_of(
        test_support::http_client()
            .get(format!("{address}/nowhere"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "not_found");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/nowhere")
    );
}

#[tokio::test]
async fn bad_query_and_body_get_the_common_400_body() {
    let address = start(true).await;
    let (status, body) = error_of(
        test_support::http_client()
            .get(format!("{address}/api/items?size=big"))
            .send()
            .await
            .unwrap(),
    )
    .await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("invalid_query"))
    );

    let response = test_support::http_client()
        .post(format!("{address}/api/items"))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let (status, body) = error_of(response).await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("invalid_body"))
    );
}

#[tokio::test]
async fn metrics_and_internal_routes_are_served_on_the_internal_listener_only() {
    let Addresses { public, internal } = start_with(true, Some(internal_routes)).await;
    let internal = internal.expect("the internal listener is bound");
    assert_ne!(public, internal);
    for path in ["/_metrics", "/check"] {
        assert_eq!(status_of(format!("{public}{path}")).await, 404, "{path}");
    }
    assert_eq!(status_of(format!("{internal}/_metrics")).await, 200);
    assert_eq!(status_of(format!("{internal}/check")).await, 204);
    // Liveness on both (probes may use either); the service's public routes only on its own.
    assert_eq!(status_of(format!("{internal}/live")).await, 200);
    assert_eq!(status_of(format!("{internal}/api/items?size=1")).await, 404);
}

#[tokio::test]
async fn without_metrics_or_internal_routes_no_internal_listener_is_bound() {
    let addresses = start_with(false, None::<fn(&mut web::ServiceConfig)>).await;
    assert!(addresses.internal.is_none());
    let with_routes = start_with(false, Some(internal_routes)).await;
    let internal = with_routes.internal.expect("bound for its routes");
    assert_eq!(status_of(format!("{internal}/_metrics")).await, 404);
    assert_eq!(status_of(format!("{internal}/check")).await, 204);
}

#[tokio::test]
async fn metrics_endpoint_exports_request_metrics_by_route_template() {
    let Addresses { public, internal } =
        start_with(true, None::<fn(&mut web::ServiceConfig)>).await;
    let address = public;
    for path in ["/api/items?size=3", "/api/shelves/s1/books/a/b", "/nowhere"] {
        test_support::http_client()
            .get(format!("{address}{path}"))
            .send()
            .await
            .unwrap();
    }
    let response = test_support::http_client()
        .get(format!(
            "{}/_metrics",
            internal.expect("metrics are enabled")
        ))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/plain")
    );
    let text = response.text().await.unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("http_requests_total{")
            && l.contains("route=\"/api/items\"")
            && l.contains("status=\"200\"")),
        "{text}"
    );
    // Nested scopes give the whole template; unknown paths one label, not one per path.
    for (route, status) in [
        ("/api/shelves/{shelf}/books/{tail:.*}", "204"),
        ("unmatched", "404"),
    ] {
        assert!(
            text.lines().any(|l| l.starts_with("http_requests_total{")
                && l.contains(&format!("route=\"{route}\""))
                && l.contains(&format!("status=\"{status}\""))),
            "{route}: {text}"
        );
    }
    assert!(
        text.contains("http_request_duration_seconds_bucket{"),
        "{text}"
    );
}
