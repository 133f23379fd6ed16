//! standalone forwarding to `search.url`: bodies stream both ways (a large `_bulk` request or a
//! large response is never held whole), only an allow-list of request headers is passed on
//! (never the caller's credentials, identity or impersonation headers), the managed credential
//! is added, and a 401 from the cluster refreshes that credential (at most once per managed user
//! per `user_management.min_refresh_interval`) and retries when the body can be replayed.

use actix_web::http::header::HeaderName;
use actix_web::web::{self, Bytes, BytesMut};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::StreamExt;
use secrecy::ExposeSecret;
use service_kit::relay_client::{
    RelayBody, RelayedAnswer, connection_listed, empty_body, full_body, streamed_body,
};

use crate::error::ClusterError;
use crate::error::{BodyError, Error};
use crate::http::gate::RequestContext;
use crate::identity::Identity;
use crate::state::AppState;
use crate::upstream::managed::ManagedCredential;

/// Bodies up to this size are read whole so a request can be retried after a credential
/// refresh; larger or chunked bodies stream and are not retried.
const REPLAYABLE_LIMIT: usize = 1024 * 1024;

/// The only request headers passed on to the cluster: content negotiation, conditional
/// requests, the client's identification and trace context. Everything else stays here,
/// notably whatever changes how the cluster authenticates or authorizes the request
/// (`Authorization`, `Cookie`, `es-security-runas-user`, `es-secondary-authorization`,
/// OpenSearch's `x-proxy-user` / `x-proxy-roles`, `Forwarded`, `X-Forwarded-*`, `X-Real-IP`),
/// hop-by-hop headers, and anything a future cluster version might start to trust.
/// `Content-Length` is set from the body; `X-Forwarded-For/-Proto/-Host` and `X-Request-Id`
/// (a trusted proxy's, else the proxy's own: a client does not choose the id its request is
/// logged under) are written by the proxy itself.
const FORWARDED_REQUEST_HEADERS: &[&str] = &[
    "accept",
    "accept-charset",
    "accept-encoding",
    "accept-language",
    "content-type",
    "content-encoding",
    "user-agent",
    "x-opaque-id",
    // Elasticsearch clients: REST API compatibility, client telemetry, product origin.
    "elastic-api-version",
    "x-elastic-client-meta",
    "x-elastic-product-origin",
    // Conditional requests and caching.
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
    "cache-control",
    "pragma",
    // W3C Trace Context and B3 (replaced by the proxy's own when tracing is on).
    "traceparent",
    "tracestate",
    "b3",
    "x-b3-traceid",
    "x-b3-spanid",
    "x-b3-parentspanid",
    "x-b3-sampled",
    "x-b3-flags",
];

enum OutboundBody {
    Replayable(Bytes),
    Streaming(RelayBody),
}

pub async fn forward(
    state: &AppState,
    request: &HttpRequest,
    payload: web::Payload,
    identity: &Identity,
    context: &RequestContext,
) -> Result<HttpResponse, Error> {
    let mut credential = match &state.managed {
        Some(managed) => Some(managed.credential_for(identity).await?),
        None => None,
    };
    let body = outbound_body(request, payload).await?;
    let replay = match &body {
        OutboundBody::Replayable(bytes) => Some(bytes.clone()),
        OutboundBody::Streaming(_) => None,
    };
    let mut response = send(state, request, context, body, credential.as_deref()).await?;
    if response.status() == http::StatusCode::UNAUTHORIZED
        && let (Some(managed), Some(stale), Some(bytes)) = (&state.managed, &credential, replay)
        && let Some(fresh) = managed.refresh(identity, stale).await?
    {
        tracing::info!(
            username = %identity.username,
            method = %identity.method,
            "the search cluster rejected the managed credential; refreshed it once"
        );
        response = send(
            state,
            request,
            context,
            OutboundBody::Replayable(bytes),
            Some(&fresh),
        )
        .await?;
        credential = Some(fresh);
    }
    drop(credential);
    // The body has no deadline: `server.write_timeout` bounds the wait for the answer to
    // start, and a large answer may take longer than that to arrive.
    RelayedAnswer::new(response)
        .finish(request.method() == actix_web::http::Method::HEAD, None)
        .await
        .map_err(|error| ClusterError::from_relay(error).into())
}

/// Small bodies whole (replayable), the rest streamed.
async fn outbound_body(
    request: &HttpRequest,
    mut payload: web::Payload,
) -> Result<OutboundBody, Error> {
    let headers = request.headers();
    let chunked = headers.contains_key("transfer-encoding");
    let length = headers
        .get("content-length")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<usize>().ok());
    if !chunked && length.unwrap_or(0) <= REPLAYABLE_LIMIT {
        let mut body = BytesMut::with_capacity(length.unwrap_or(0));
        while let Some(chunk) = payload.next().await {
            let chunk = chunk.map_err(|error| Error::InvalidBody(BodyError::Read(error)))?;
            if body.len() + chunk.len() > REPLAYABLE_LIMIT {
                return Err(Error::InvalidBody(BodyError::LongerThanDeclared));
            }
            body.extend_from_slice(&chunk);
        }
        return Ok(OutboundBody::Replayable(body.freeze()));
    }
    Ok(OutboundBody::Streaming(streamed_body(payload)))
}

async fn send(
    state: &AppState,
    request: &HttpRequest,
    context: &RequestContext,
    body: OutboundBody,
    credential: Option<&ManagedCredential>,
) -> Result<http::Response<hyper::body::Incoming>, Error> {
    let method = http::Method::from_bytes(request.method().as_str().as_bytes())
        .map_err(|error| Error::InvalidBody(BodyError::Method(error)))?;
    let uri = state
        .relay
        .uri(request.uri().path(), request.uri().query())
        .map_err(|error| Error::InvalidBody(BodyError::Path(error)))?;
    let mut outbound = http::Request::builder().method(method).uri(uri);
    let headers = outbound
        .headers_mut()
        .expect("a method and URI that parsed make a valid request head");
    let listed = connection_listed(
        request
            .headers()
            .get_all("connection")
            .map(|value| value.as_bytes()),
    );
    for (name, value) in request.headers() {
        if is_forwarded_header(name)
            && !listed.iter().any(|l| l == name.as_str())
            && let (Ok(name), Ok(value)) = (
                http::HeaderName::from_bytes(name.as_str().as_bytes()),
                http::HeaderValue::from_bytes(value.as_bytes()),
            )
        {
            headers.append(name, value);
        }
    }
    let client = context
        .source_ip
        .map_or_else(|| "unknown".to_owned(), |ip| ip.to_string());
    let peer = request.peer_addr().map(|address| address.ip());
    let request_id = state
        .trusted
        .request_id(peer, request.headers())
        .map_or_else(new_request_id, str::to_owned);
    for (name, value) in [
        ("x-forwarded-for", client),
        ("x-forwarded-proto", forwarded_proto(context)),
        ("x-forwarded-host", forwarded_host(request, context)),
        ("x-request-id", request_id),
    ] {
        if let Ok(value) = http::HeaderValue::try_from(value) {
            headers.insert(name, value);
        }
    }
    if state.tracing_enabled {
        service_kit::telemetry::inject_current_context(headers);
    }
    if let Some(credential) = credential
        && let Ok(mut value) = http::HeaderValue::from_str(credential.authorization.expose_secret())
    {
        value.set_sensitive(true);
        headers.insert(http::header::AUTHORIZATION, value);
    }
    let body = match body {
        OutboundBody::Replayable(bytes) if bytes.is_empty() => empty_body(),
        // hyper sets Content-Length from a whole body's size.
        OutboundBody::Replayable(bytes) => full_body(bytes),
        OutboundBody::Streaming(body) => {
            if let Some(length) = request.headers().get("content-length")
                && let Ok(length) = http::HeaderValue::from_bytes(length.as_bytes())
            {
                headers.insert(http::header::CONTENT_LENGTH, length);
            }
            body
        }
    };
    let outbound = outbound
        .body(body)
        .map_err(|error| Error::InvalidBody(BodyError::Request(error)))?;
    let deadline = tokio::time::Instant::now() + state.upstream_timeout;
    state
        .relay
        .send(outbound, deadline)
        .await
        .map_err(|error| ClusterError::from_relay(error).into())
}

/// The scheme the client used: a trusted proxy's word for it (forward_auth only; standalone
/// reads no proxy-contract header, so this listener's plain http), never actix's
/// `connection_info()`, which believes `X-Forwarded-*` and `Forwarded` from anyone.
fn forwarded_proto(context: &RequestContext) -> String {
    context
        .original
        .as_ref()
        .and_then(|original| original.proto.clone())
        .unwrap_or_else(|| "http".to_owned())
}

/// The host the client asked for: a trusted proxy's word for it (forward_auth only), else the
/// `Host` header.
fn forwarded_host(request: &HttpRequest, context: &RequestContext) -> String {
    context
        .original
        .as_ref()
        .and_then(|original| original.host.as_ref().map(ToString::to_string))
        .or_else(|| {
            request
                .headers()
                .get("host")
                .and_then(|host| host.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

/// 128 random bits in hex, as nginx's `$request_id`.
fn new_request_id() -> String {
    let bytes: [u8; 16] = rand::random();
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

fn is_forwarded_header(name: &HeaderName) -> bool {
    FORWARDED_REQUEST_HEADERS.contains(&name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hop_by_hop_and_identity_headers_are_not_forwarded() {
        for name in [
            "connection",
            "transfer-encoding",
            "authorization",
            "x-auth-request-user",
            "x-forwarded-for",
            "cookie",
            "es-security-runas-user",
            "es-secondary-authorization",
            "x-proxy-user",
            "x-proxy-roles",
            "forwarded",
            "x-real-ip",
            "host",
            "content-length",
            "proxy-authorization",
            "x-anything-new",
        ] {
            assert!(
                !is_forwarded_header(&HeaderName::from_static(name)),
                "{name}"
            );
        }
        for name in [
            "content-type",
            "accept",
            "accept-encoding",
            "content-encoding",
            "user-agent",
            "traceparent",
            "b3",
            "x-opaque-id",
            "if-none-match",
        ] {
            assert!(
                is_forwarded_header(&HeaderName::from_static(name)),
                "{name}"
            );
        }
    }
}
