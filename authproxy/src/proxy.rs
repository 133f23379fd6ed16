//! standalone forwarding to `search.url`: bodies stream both ways (a large `_bulk` request or a
//! large response is never held whole), hop-by-hop headers are removed, the caller's credentials
//! and identity headers are replaced by the managed credential, and a 401 from the cluster
//! refreshes that credential once and retries when the body can be replayed.

use actix_web::http::header::HeaderName;
use actix_web::web::{self, Bytes, BytesMut};
use actix_web::{HttpRequest, HttpResponse};
use futures_util::StreamExt;
use secrecy::ExposeSecret;
use service_kit::relay_client::{
    RelayBody, RelayedAnswer, connection_listed, empty_body, full_body, streamed_body,
};

use crate::cluster::ClusterError;
use crate::error::Error;
use crate::gate::RequestContext;
use crate::identity::Identity;
use crate::managed::ManagedCredential;
use crate::state::AppState;

/// Bodies up to this size are read whole so a request can be retried after a credential
/// refresh; larger or chunked bodies stream and are not retried.
const REPLAYABLE_LIMIT: usize = 1024 * 1024;

/// RFC 9110 §7.6.1 connection-specific headers, plus the ones this proxy replaces.
const NOT_FORWARDED: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "host",
    "authorization",
    "cookie",
    "expect",
    "content-length",
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
    {
        tracing::info!(
            username = %identity.username,
            method = %identity.method,
            "the search cluster rejected the managed credential; refreshing it once"
        );
        let fresh = managed.refresh(identity, stale).await?;
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
            let chunk = chunk.map_err(|error| Error::InvalidBody(error.to_string()))?;
            if body.len() + chunk.len() > REPLAYABLE_LIMIT {
                return Err(Error::InvalidBody(
                    "it is longer than its Content-Length".to_owned(),
                ));
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
        .map_err(|_| Error::InvalidBody("the method is not valid".to_owned()))?;
    let uri = state
        .relay
        .uri(request.uri().path(), request.uri().query())
        .map_err(|error| Error::InvalidBody(format!("the path is not valid: {error}")))?;
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
    for (name, value) in [
        ("x-forwarded-for", client),
        ("x-forwarded-proto", forwarded_proto(context)),
        ("x-forwarded-host", forwarded_host(request, context)),
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
        .map_err(|error| Error::InvalidBody(error.to_string()))?;
    let deadline = tokio::time::Instant::now() + state.upstream_timeout;
    state
        .relay
        .send(outbound, deadline)
        .await
        .map_err(|error| ClusterError::from_relay(error).into())
}

/// The scheme the client used: a trusted proxy's word for it, else this listener's (plain
/// http). actix's `connection_info()` is not used: it believes `X-Forwarded-*` and `Forwarded`
/// from anyone.
fn forwarded_proto(context: &RequestContext) -> String {
    context
        .original
        .as_ref()
        .and_then(|original| original.proto.clone())
        .unwrap_or_else(|| "http".to_owned())
}

/// The host the client asked for: a trusted proxy's word for it, else the `Host` header.
fn forwarded_host(request: &HttpRequest, context: &RequestContext) -> String {
    context
        .original
        .as_ref()
        .and_then(|original| original.host.clone())
        .or_else(|| {
            request
                .headers()
                .get("host")
                .and_then(|host| host.to_str().ok())
                .map(str::to_owned)
        })
        .unwrap_or_default()
}

fn is_forwarded_header(name: &HeaderName) -> bool {
    let name = name.as_str();
    !NOT_FORWARDED.contains(&name)
        && !name.starts_with("x-auth-request-")
        && !name.starts_with("x-forwarded-")
        && !name.starts_with("x-original-")
        && name != "x-real-ip"
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
        ] {
            assert!(
                !is_forwarded_header(&HeaderName::from_static(name)),
                "{name}"
            );
        }
        for name in ["content-type", "accept", "traceparent", "x-opaque-id"] {
            assert!(
                is_forwarded_header(&HeaderName::from_static(name)),
                "{name}"
            );
        }
    }
}
