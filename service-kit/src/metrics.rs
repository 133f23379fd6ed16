//! The Prometheus endpoint and the request metrics every service exports.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};

/// Buckets for every `*_seconds` histogram: request latencies from 1 ms to 30 s.
const LATENCY_BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

/// The process-wide recorder's handle. The `metrics` facade is global, so the recorder is
/// installed once per process and shared by every application built in it (tests build many).
pub fn prometheus_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let builder = PrometheusBuilder::new()
                .set_buckets_for_metric(Matcher::Suffix("_seconds".to_owned()), LATENCY_BUCKETS)
                .expect("the bucket list is not empty");
            let recorder = builder.build_recorder();
            let handle = recorder.handle();
            // If something else installed a recorder first we still serve a (empty) page
            // rather than fail start-up.
            let _ = metrics::set_global_recorder(recorder);
            let upkeep = handle.clone();
            // Histograms keep raw samples until upkeep drains them; without this thread an
            // unscraped process would grow.
            std::thread::Builder::new()
                .name("metrics-upkeep".to_owned())
                .spawn(move || {
                    loop {
                        std::thread::sleep(Duration::from_secs(5));
                        upkeep.run_upkeep();
                    }
                })
                .expect("spawning the metrics upkeep thread");
            handle
        })
        .clone()
}

/// `GET /_metrics` in the Prometheus text format.
pub async fn metrics_endpoint(handle: web::Data<PrometheusHandle>) -> HttpResponse {
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(handle.render())
}

/// Middleware: `http_requests_total` and `http_request_duration_seconds` by method, route
/// template (not the raw path, which would explode cardinality) and status.
pub async fn record_request(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = request.method().to_string();
    let route = request
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let response = next.call(request).await?;
    let labels = [
        ("method", method),
        ("route", route),
        ("status", response.status().as_u16().to_string()),
    ];
    metrics::counter!("http_requests_total", &labels).increment(1);
    metrics::histogram!("http_request_duration_seconds", &labels)
        .record(started.elapsed().as_secs_f64());
    Ok(response)
}
