//! Distributed tracing (feature `otel`): OTLP/HTTP export, W3C Trace Context and B3 propagation
//! in and out, and the actix root span that continues an incoming trace.
//!
//! A span records the request's path, never its query: a query carries what must not leave the
//! service (the OIDC callback's `code` and `state`, a token a client put in a URL), and a trace
//! backend keeps and shows spans to more people than the service's secrets.
//!
//! When tracing is off nothing here runs: no propagator, no exporter, and the service does not
//! wrap its app in [`tracing_actix_web::TracingLogger`], so the request path costs nothing.

use actix_web::HttpMessage;
use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Version;
use opentelemetry::propagation::{Extractor, Injector, TextMapCompositePropagator};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry::{Context, KeyValue, global};
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_propagator_b3::{B3Encoding, Propagator as B3Propagator};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::propagation::TraceContextPropagator;
use opentelemetry_sdk::trace::{Sampler, SdkTracer, SdkTracerProvider};
use tracing::Span;
use tracing_actix_web::{DefaultRootSpanBuilder, RequestId, RootSpanBuilder};
use tracing_opentelemetry::OpenTelemetrySpanExt;

/// What the service's configuration says about tracing.
#[derive(Debug, Clone)]
pub struct TracingSettings {
    /// OTLP/HTTP collector, e.g. `http://otel-collector:4318`; `/v1/traces` is added when the
    /// URL has no path, as for `OTEL_EXPORTER_OTLP_ENDPOINT`.
    pub endpoint: String,
    pub service_name: String,
    /// Share of new traces sampled, 0.0..=1.0. A trace continued from a caller follows the
    /// caller's sampling decision; 0.0 exports nothing.
    pub ratio: f64,
}

/// The running pipeline; [`Tracing::shutdown`] flushes what is buffered.
pub struct Tracing {
    provider: SdkTracerProvider,
    tracer: SdkTracer,
}

impl Tracing {
    /// Installs the propagators and the exporter. The exporter sends from its own thread with a
    /// blocking client, so it works under any runtime.
    pub fn install(settings: &TracingSettings) -> anyhow::Result<Self> {
        crate::install_crypto_provider();
        install_propagators();
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(traces_url(&settings.endpoint))
            .build()?;
        let sampler = sampler_for(settings.ratio);
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_sampler(sampler)
            .with_resource(
                Resource::builder()
                    .with_attributes([KeyValue::new("service.name", settings.service_name.clone())])
                    .build(),
            )
            .build();
        let tracer = provider.tracer(settings.service_name.clone());
        global::set_tracer_provider(provider.clone());
        Ok(Self { provider, tracer })
    }

    /// The `tracing` layer that turns spans into OpenTelemetry spans.
    pub fn layer<S>(&self) -> tracing_opentelemetry::OpenTelemetryLayer<S, SdkTracer>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        tracing_opentelemetry::layer().with_tracer(self.tracer.clone())
    }

    /// Exports what is still buffered; call once at shutdown.
    pub fn shutdown(&self) {
        if let Err(error) = self.provider.shutdown() {
            tracing::warn!(error = %error, "flushing traces at shutdown failed");
        }
    }
}

/// W3C `traceparent`/`tracestate` and B3 (single `b3` and multi `X-B3-*`) for extraction; both
/// are injected into outgoing requests so either kind of backend continues the trace.
pub fn install_propagators() {
    global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(B3Propagator::with_encoding(
            B3Encoding::SingleAndMultiHeader,
        )),
    ]));
}

/// New traces are sampled at `ratio`; a trace continued from a caller keeps the caller's
/// decision, except that 0.0 exports nothing at all, which is what an operator setting the
/// ratio to zero means.
fn sampler_for(ratio: f64) -> Sampler {
    if ratio <= 0.0 {
        Sampler::AlwaysOff
    } else {
        Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(ratio.min(1.0))))
    }
}

fn traces_url(endpoint: &str) -> String {
    let trimmed = endpoint.trim_end_matches('/');
    let has_path = trimmed
        .split_once("://")
        .is_some_and(|(_, rest)| rest.contains('/'));
    if has_path {
        endpoint.to_owned()
    } else {
        format!("{trimmed}/v1/traces")
    }
}

/// Root span of every request, continuing the caller's trace from its headers.
pub struct PropagatingRootSpan;

impl RootSpanBuilder for PropagatingRootSpan {
    fn on_request_start(request: &ServiceRequest) -> Span {
        let span = request_span(request);
        let parent = global::get_text_map_propagator(|propagator| {
            propagator.extract(&RequestHeaders(request.headers()))
        });
        // A failure only means there is no OpenTelemetry layer: the span stays a plain one.
        let _ = span.set_parent(parent);
        span
    }

    fn on_request_end<B: MessageBody>(
        span: Span,
        outcome: &Result<ServiceResponse<B>, actix_web::Error>,
    ) {
        DefaultRootSpanBuilder::on_request_end(span, outcome);
    }
}

/// tracing-actix-web's root span (its fields, which [`DefaultRootSpanBuilder::on_request_end`]
/// fills in), except that `http.target` is the path alone: `root_span!` would record the query
/// too.
fn request_span(request: &ServiceRequest) -> Span {
    let method = request.method().as_str();
    let route = request
        .match_pattern()
        .unwrap_or_else(|| "default".to_owned());
    let connection = request.connection_info();
    let user_agent = request
        .headers()
        .get(actix_web::http::header::USER_AGENT)
        .and_then(|value| value.to_str().ok())
        .unwrap_or_default();
    let request_id = request.extensions().get::<RequestId>().copied();
    tracing::info_span!(
        "HTTP request",
        http.method = %method,
        http.route = %route,
        http.flavor = %http_flavor(request.version()),
        http.scheme = %connection.scheme(),
        http.host = %connection.host(),
        http.client_ip = %connection.realip_remote_addr().unwrap_or_default(),
        http.user_agent = %user_agent,
        http.target = %request.path(),
        http.status_code = tracing::field::Empty,
        otel.name = %format_args!("{method} {route}"),
        otel.kind = "server",
        otel.status_code = tracing::field::Empty,
        request_id = request_id.map(tracing::field::display),
        exception.message = tracing::field::Empty,
        exception.details = tracing::field::Empty,
    )
}

fn http_flavor(version: Version) -> &'static str {
    match version {
        Version::HTTP_09 => "0.9",
        Version::HTTP_10 => "1.0",
        Version::HTTP_11 => "1.1",
        Version::HTTP_2 => "2.0",
        Version::HTTP_3 => "3.0",
        _ => "other",
    }
}

struct RequestHeaders<'a>(&'a actix_web::http::header::HeaderMap);

impl Extractor for RequestHeaders<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).and_then(|value| value.to_str().ok())
    }

    fn keys(&self) -> Vec<&str> {
        self.0.keys().map(|name| name.as_str()).collect()
    }
}

/// Adds the current span's trace context to an outgoing request's headers.
pub fn inject_current_context(headers: &mut reqwest::header::HeaderMap) {
    inject_context(&Span::current().context(), headers);
}

pub fn inject_context(context: &Context, headers: &mut reqwest::header::HeaderMap) {
    global::get_text_map_propagator(|propagator| {
        propagator.inject_context(context, &mut OutgoingHeaders(headers));
    });
}

struct OutgoingHeaders<'a>(&'a mut reqwest::header::HeaderMap);

impl Injector for OutgoingHeaders<'_> {
    fn set(&mut self, key: &str, value: String) {
        if let (Ok(name), Ok(value)) = (
            reqwest::header::HeaderName::from_bytes(key.as_bytes()),
            reqwest::header::HeaderValue::from_str(&value),
        ) {
            self.0.insert(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_request_span_records_the_path_without_the_query() {
        let request = actix_web::test::TestRequest::get()
            .uri("/auth/callback?code=SECRET-CODE&state=SECRET-STATE")
            .to_srv_request();
        let record = crate::logging::capture::text_record(|| {
            let span = request_span(&request);
            let _entered = span.enter();
            tracing::info!("inside");
        });
        assert!(record.contains("http.target=/auth/callback "), "{record}");
        assert!(!record.contains("SECRET"), "{record}");
    }

    #[test]
    fn zero_ratio_samples_nothing_even_for_sampled_callers() {
        assert!(matches!(sampler_for(0.0), Sampler::AlwaysOff));
        assert!(matches!(sampler_for(0.5), Sampler::ParentBased(_)));
    }

    #[test]
    fn collector_base_urls_get_the_traces_path() {
        assert_eq!(traces_url("http://c:4318"), "http://c:4318/v1/traces");
        assert_eq!(traces_url("http://c:4318/"), "http://c:4318/v1/traces");
        assert_eq!(
            traces_url("http://c:4318/custom/traces"),
            "http://c:4318/custom/traces"
        );
    }

    #[test]
    fn w3c_and_b3_contexts_are_extracted_and_injected() {
        install_propagators();
        let w3c = actix_web::test::TestRequest::default()
            .insert_header((
                "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            ))
            .to_srv_request();
        let b3 = actix_web::test::TestRequest::default()
            .insert_header(("X-B3-TraceId", "463ac35c9f6413ad48485a3953bb6124"))
            .insert_header(("X-B3-SpanId", "a2fb4a1d1a96d312"))
            .insert_header(("X-B3-Sampled", "1"))
            .to_srv_request();
        for (request, trace_id) in [
            (w3c, "0af7651916cd43dd8448eb211c80319c"),
            (b3, "463ac35c9f6413ad48485a3953bb6124"),
        ] {
            let context =
                global::get_text_map_propagator(|p| p.extract(&RequestHeaders(request.headers())));
            let mut headers = reqwest::header::HeaderMap::new();
            inject_context(&context, &mut headers);
            let traceparent = headers["traceparent"].to_str().unwrap();
            assert!(traceparent.contains(trace_id), "{traceparent}");
            assert!(headers["b3"].to_str().unwrap().starts_with(trace_id));
            assert_eq!(headers["x-b3-traceid"].to_str().unwrap(), trace_id);
        }
    }
}
