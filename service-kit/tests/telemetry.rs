//! Tracing end to end: an in-process server with the propagating root span exports to a real
//! OTLP/HTTP receiver (oteltap), continuing W3C and B3 traces of the caller.

use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use service_kit::telemetry::{PropagatingRootSpan, Tracing, TracingSettings};
use test_support::{OtlpReceiver, http_client};
use tracing_actix_web::TracingLogger;
use tracing_subscriber::layer::SubscriberExt;

const TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const PARENT_SPAN_ID: &str = "b7ad6b7169203331";
const B3_TRACE_ID: &str = "463ac35c9f6413ad48485a3953bb6124";
const B3_PARENT_SPAN_ID: &str = "a2fb4a1d1a96d312";

/// Serves one route behind the tracing middleware. The subscriber is global because actix runs
/// handlers on its own worker threads; this binary has this one test.
async fn traced_server(tracing: &Tracing) -> String {
    let subscriber = tracing_subscriber::registry().with(tracing.layer());
    tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
    let server = HttpServer::new(|| {
        App::new()
            .wrap(TracingLogger::<PropagatingRootSpan>::new())
            .route(
                "/traced",
                web::get().to(|| async { HttpResponse::Ok().finish() }),
            )
    })
    .workers(1)
    .bind(("127.0.0.1", 0))
    .unwrap();
    let address = format!("http://{}", server.addrs()[0]);
    tokio::spawn(server.run());
    address
}

#[tokio::test(flavor = "current_thread")]
async fn spans_continue_w3c_and_b3_parents_and_reach_the_collector() {
    let receiver = OtlpReceiver::start();
    let tracing = Tracing::install(&TracingSettings {
        endpoint: receiver.endpoint.clone(),
        service_name: "telemetry-test".into(),
        ratio: 1.0,
    })
    .unwrap();
    let address = traced_server(&tracing).await;
    let client = http_client();
    client
        .get(format!("{address}/traced"))
        .header("traceparent", format!("00-{TRACE_ID}-{PARENT_SPAN_ID}-01"))
        .send()
        .await
        .unwrap();
    client
        .get(format!("{address}/traced"))
        .header("X-B3-TraceId", B3_TRACE_ID)
        .header("X-B3-SpanId", B3_PARENT_SPAN_ID)
        .header("X-B3-Sampled", "1")
        .send()
        .await
        .unwrap();
    tokio::task::spawn_blocking(move || tracing.shutdown())
        .await
        .unwrap();

    for (trace_id, parent) in [(TRACE_ID, PARENT_SPAN_ID), (B3_TRACE_ID, B3_PARENT_SPAN_ID)] {
        let span = receiver
            .wait_for(Duration::from_secs(10), |span| span.trace_id == trace_id)
            .unwrap_or_else(|| panic!("no span for trace {trace_id}: {:?}", receiver.raw_lines()));
        assert_eq!(span.parent_span_id, parent);
        assert_eq!(span.name, "GET /traced");
    }
}
