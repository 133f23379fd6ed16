//! The Prometheus endpoint and the request metrics every service exports.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};
use metrics::{Counter, Histogram};
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

/// Series a service writes itself, in the text format, after the recorder's: series that come
/// and go with objects (ingress-dash: a gauge per certificate), which the `metrics` facade
/// cannot remove once set.
pub trait MetricsText: Send + Sync {
    fn write_metrics(&self, out: &mut String);
}

fn metrics_texts() -> &'static std::sync::Mutex<Vec<std::sync::Weak<dyn MetricsText>>> {
    static TEXTS: OnceLock<std::sync::Mutex<Vec<std::sync::Weak<dyn MetricsText>>>> =
        OnceLock::new();
    TEXTS.get_or_init(Default::default)
}

/// Adds `source` to every `/_metrics` answer while it is alive.
pub fn add_metrics_text(source: std::sync::Weak<dyn MetricsText>) {
    let mut texts = metrics_texts()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    texts.retain(|text| text.strong_count() > 0);
    texts.push(source);
}

/// `GET /_metrics` in the Prometheus text format.
pub async fn metrics_endpoint(handle: web::Data<PrometheusHandle>) -> HttpResponse {
    let mut body = handle.render();
    let sources: Vec<_> = metrics_texts()
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .iter()
        .filter_map(std::sync::Weak::upgrade)
        .collect();
    for source in sources {
        source.write_metrics(&mut body);
    }
    HttpResponse::Ok()
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(body)
}

/// Middleware: `http_requests_total` and `http_request_duration_seconds` by method, route
/// template (not the raw path, which would explode cardinality) and status.
pub async fn record_request(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let method = method_label(request.method());
    let response = next.call(request).await?;
    // Asked after routing: actix then looks the pattern up by the matched resource's position
    // instead of running every route's regex against the path again (5% of a relay's CPU).
    let route = response
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let (requests, duration) = request_handles(method, route, response.status().as_u16());
    requests.increment(1);
    duration.record(started.elapsed().as_secs_f64());
    Ok(response)
}

/// The method as a label: the standard ones by name, anything else as `OTHER`, so a client
/// inventing methods cannot create series without bound.
fn method_label(method: &Method) -> &'static str {
    const KNOWN: [&str; 9] = [
        "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT", "TRACE",
    ];
    KNOWN
        .into_iter()
        .find(|known| *known == method.as_str())
        .unwrap_or("OTHER")
}

type RequestSeries = (&'static str, String, u16);

thread_local! {
    /// The counter and histogram of each series this worker has served: `counter!` and
    /// `histogram!` would build, allocate and hash the labelled key again on every request.
    /// Bounded by methods x routes x statuses.
    static REQUEST_HANDLES: RefCell<HashMap<RequestSeries, (Counter, Histogram)>> =
        RefCell::new(HashMap::new());
}

fn request_handles(method: &'static str, route: String, status: u16) -> (Counter, Histogram) {
    REQUEST_HANDLES.with(|handles| {
        handles
            .borrow_mut()
            .entry((method, route, status))
            .or_insert_with_key(|(method, route, status)| {
                let labels = [
                    ("method", (*method).to_owned()),
                    ("route", route.clone()),
                    ("status", status.to_string()),
                ];
                (
                    metrics::counter!("http_requests_total", &labels),
                    metrics::histogram!("http_request_duration_seconds", &labels),
                )
            })
            .clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invented_methods_share_one_label() {
        assert_eq!(method_label(&Method::GET), "GET");
        assert_eq!(method_label(&Method::PATCH), "PATCH");
        for invented in ["FOO", "PROPFIND", "get"] {
            assert_eq!(
                method_label(&Method::from_bytes(invented.as_bytes()).unwrap()),
                "OTHER"
            );
        }
    }
}
