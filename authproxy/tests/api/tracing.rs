//! Tracing of the real binary against a real OTLP/HTTP receiver (oteltap): an incoming W3C
//! `traceparent` or B3 context is continued, passed on to the search cluster, nothing is
//! exported at ratio 0.0, and no exported span holds a query string.

use std::time::Duration;

use test_support::OtlpReceiver;
use test_support::binary::{RunningBinary, ServiceBinary};

use crate::app::{ANN_PASSWORD, Cluster, Users, no_redirects};
use crate::real_security::Flavor;
use crate::support::basic;

const W3C_TRACE: &str = "0af7651916cd43dd8448eb211c80319c";
const W3C_PARENT: &str = "b7ad6b7169203331";
const B3_TRACE: &str = "463ac35c9f6413ad48485a3953bb6124";
const B3_PARENT: &str = "a2fb4a1d1a96d312";
const B3_SINGLE_TRACE: &str = "80f198ee56343ba864fe8b2a57d3eff7";
const B3_SINGLE_PARENT: &str = "e457b5a2e4d86bd1";
const QUERY_TRACE: &str = "5b8efff798038103d269b633813fc60c";
const CALLBACK_TRACE: &str = "6e0c63257de34c926f9efcd03927272e";
const ANY_PARENT: &str = "eee19b7ec3c1b174";

struct Traced {
    running: RunningBinary,
    url: String,
    /// The local user ann's name.
    ann: String,
    _binary: ServiceBinary,
}

/// The OTLP receiver and the search cluster (the real Elasticsearch 8 node behind the recording
/// proxy).
async fn backends() -> (OtlpReceiver, Cluster) {
    let receiver = OtlpReceiver::start();
    (receiver, Cluster::of(Flavor::Elasticsearch).await)
}

fn start(receiver: &OtlpReceiver, cluster: &Cluster, ratio: f64) -> Traced {
    let users = Users::new();
    let binary = ServiceBinary::new(env!("CARGO_BIN_EXE_authproxy"), "authproxy", "/healthz");
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, mode: standalone, shutdown_timeout: 5s}}\n\
         observability:\n  log_level: info\n  otel_enabled: true\n  otel_endpoint: {}\n  \
         otel_service_name: authproxy-test\n  otel_trace_ratio: {ratio}\n{}",
        receiver.endpoint,
        cluster.search_yaml(&users)
    );
    let path = binary.config_file("tracing.yaml", &yaml);
    let running = binary.start(&path);
    Traced {
        url: format!("http://{}", running.host_port),
        running,
        ann: users.ann,
        _binary: binary,
    }
}

async fn search(traced: &Traced, headers: &[(&str, String)]) {
    let mut request = no_redirects()
        .get(format!("{}/_cluster/health", traced.url))
        .header("authorization", basic(&traced.ann, ANN_PASSWORD));
    for (name, value) in headers {
        request = request.header(*name, value);
    }
    assert_eq!(request.send().await.unwrap().status(), 200);
}

/// SIGTERM flushes the exporter's batch.
fn stop(mut traced: Traced) {
    traced
        .running
        .terminate(Duration::from_secs(15))
        .expect("stops on SIGTERM");
}

#[tokio::test]
async fn incoming_w3c_and_b3_contexts_are_continued_and_passed_to_the_cluster() {
    let (receiver, cluster) = backends().await;
    let traced = start(&receiver, &cluster, 1.0);

    search(
        &traced,
        &[("traceparent", format!("00-{W3C_TRACE}-{W3C_PARENT}-01"))],
    )
    .await;
    search(
        &traced,
        &[
            ("x-b3-traceid", B3_TRACE.to_owned()),
            ("x-b3-spanid", B3_PARENT.to_owned()),
            ("x-b3-sampled", "1".to_owned()),
        ],
    )
    .await;
    search(
        &traced,
        &[("b3", format!("{B3_SINGLE_TRACE}-{B3_SINGLE_PARENT}-1"))],
    )
    .await;

    // The cluster saw each trace continued (W3C and B3 both injected).
    let forwarded = cluster.forwarded();
    for trace in [W3C_TRACE, B3_TRACE, B3_SINGLE_TRACE] {
        let request = forwarded
            .iter()
            .find(|request| {
                request
                    .header("traceparent")
                    .is_some_and(|value| value.contains(trace))
            })
            .unwrap_or_else(|| panic!("no forwarded request carries trace {trace}"));
        assert!(
            request.header("b3").is_some_and(|b3| b3.starts_with(trace)),
            "{:?}",
            request.headers
        );
        assert_eq!(request.header("x-b3-traceid"), Some(trace));
    }

    stop(traced);
    for (trace, parent) in [
        (W3C_TRACE, W3C_PARENT),
        (B3_TRACE, B3_PARENT),
        (B3_SINGLE_TRACE, B3_SINGLE_PARENT),
    ] {
        let span = receiver
            .wait_for(Duration::from_secs(10), |span| {
                span.trace_id == trace && span.parent_span_id == parent
            })
            .unwrap_or_else(|| {
                panic!(
                    "no span of trace {trace} with parent {parent}: {:?}",
                    receiver.spans()
                )
            });
        assert!(!span.span_id.is_empty());
    }
}

#[tokio::test]
async fn ratio_zero_exports_nothing() {
    let (receiver, cluster) = backends().await;
    let traced = start(&receiver, &cluster, 0.0);
    for _ in 0..3 {
        search(
            &traced,
            &[("traceparent", format!("00-{W3C_TRACE}-{W3C_PARENT}-01"))],
        )
        .await;
    }
    stop(traced);
    assert!(
        receiver
            .wait_for(Duration::from_secs(2), |_| true)
            .is_none(),
        "spans were exported at ratio 0.0: {:?}",
        receiver.spans()
    );
}

#[tokio::test]
async fn exported_spans_never_hold_a_query_string() {
    let (receiver, cluster) = backends().await;
    let traced = start(&receiver, &cluster, 1.0);
    let client = no_redirects();
    for (trace, path) in [
        (QUERY_TRACE, "/_cluster/health"),
        (CALLBACK_TRACE, "/auth/callback"),
    ] {
        // Only the exchange matters here, whatever the status.
        client
            .get(format!(
                "{}{path}?code=SECRET-CODE&state=SECRET-STATE&access_token=SECRET-TOKEN",
                traced.url
            ))
            .header("authorization", basic(&traced.ann, ANN_PASSWORD))
            .header("traceparent", format!("00-{trace}-{ANY_PARENT}-01"))
            .send()
            .await
            .unwrap();
    }
    stop(traced);
    for trace in [QUERY_TRACE, CALLBACK_TRACE] {
        receiver
            .wait_for(Duration::from_secs(10), |span| span.trace_id == trace)
            .unwrap_or_else(|| panic!("no span of trace {trace}: {:?}", receiver.raw_lines()));
    }
    let leaks: Vec<String> = receiver
        .raw_lines()
        .into_iter()
        .filter(|line| line.contains("SECRET"))
        .collect();
    assert!(leaks.is_empty(), "a span holds the query: {leaks:#?}");
}
