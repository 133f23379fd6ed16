//! The middleware: who is calling ([`authenticate`], every route), and whether they may make
//! this call on this cluster ([`authorize`], the cluster routes and the relay), with the audit
//! event of every state-changing call. Future management routes under `/api/clusters/{id}` get
//! both by being in that scope.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Instant;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, BytesMut};
use actix_web::{HttpMessage, HttpRequest, ResponseError};
use futures_util::StreamExt;
use service_kit::client_address::TrustedProxies;
use service_kit::http::ApiError;
use service_kit::identity::{Identity, IdentitySource};

use super::action::{RelayCall, view_needs};
use super::reason::change_reason;
use super::sql::MAX_SQL_BODY;
use super::{AccessPolicy, denial_message};
use crate::audit::{AuditEvent, AuditLog, Outcome, rfc3339_now};
use crate::config::Role;
use crate::error::Error;
use crate::relay::effective_method;

/// Everything the middleware needs, built once.
pub(crate) struct AccessGuard {
    pub(crate) policy: AccessPolicy,
    pub(crate) identities: IdentitySource,
    pub(crate) trusted_proxies: TrustedProxies,
    pub(crate) audit: AuditLog,
}

/// Which routes [`authorize`] guards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Guarded {
    /// `/api/clusters/{id}/proxy/…`.
    Relay,
    /// `/api/clusters/{id}/…` (views, the allocation lock, management).
    Views,
}

type Answer<B> = Result<ServiceResponse<EitherBody<B>>, actix_web::Error>;

fn peer(request: &HttpRequest) -> Option<IpAddr> {
    request.peer_addr().map(|socket| socket.ip())
}

/// The caller, kept in the request's extensions for the handlers ([`Identity`] via
/// `web::ReqData`); 401 `unauthenticated` when `trusted_headers` cannot name one.
pub(crate) async fn authenticate<B: MessageBody>(
    guard: Arc<AccessGuard>,
    request: ServiceRequest,
    next: Next<B>,
) -> Answer<B> {
    match guard
        .identities
        .identify(peer(request.request()), request.headers())
    {
        Ok(identity) => {
            request.extensions_mut().insert(identity);
            Ok(next.call(request).await?.map_into_left_body())
        }
        Err(reason) => {
            tracing::warn!(
                method = %request.method(),
                path = request.path(),
                peer = ?peer(request.request()),
                "{reason}"
            );
            let response = reason.rejection().error_response();
            Ok(request.into_response(response).map_into_right_body())
        }
    }
}

/// The caller's role on the cluster against the role the call needs: 404 `unknown_cluster` for
/// a cluster the caller may not see (role `none`), 403 `forbidden` naming both roles when it is
/// too low; state-changing calls (those needing more than viewer) are audited, refused or not,
/// and on a production cluster need a reason ([`change_reason`]; 428 `change_reason_required`).
pub(crate) async fn authorize<B: MessageBody>(
    guard: Arc<AccessGuard>,
    guarded: Guarded,
    mut request: ServiceRequest,
    next: Next<B>,
) -> Answer<B> {
    let started = Instant::now();
    let identity = match request.extensions().get::<Identity>().cloned() {
        Some(identity) => Ok(identity),
        None => guard
            .identities
            .identify(peer(request.request()), request.headers()),
    };
    let identity = match identity {
        Ok(identity) => identity,
        Err(reason) => {
            let response = reason.rejection().error_response();
            return Ok(request.into_response(response).map_into_right_body());
        }
    };
    let Some(cluster) = request.match_info().get("cluster_id").map(str::to_owned) else {
        return Ok(next.call(request).await?.map_into_left_body());
    };
    if !guard.policy.knows(&cluster) {
        // The handler's `RequestedCluster` argument answers 404 unknown_cluster.
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let role = guard.policy.role(&cluster, &identity);
    if role == Role::None {
        let response = Error::UnknownCluster(cluster).error_response();
        return Ok(request.into_response(response).map_into_right_body());
    }
    // The method the cluster receives, which is the one judged and recorded: on the relay a
    // POST with `X-Console-Method: GET` is a GET (and is judged as one, `GET /_refresh`
    // included); elsewhere the header means nothing and the method is the request's own.
    let method = match guarded {
        Guarded::Views => request.method().clone(),
        Guarded::Relay => match effective_method(request.method(), request.headers()) {
            Ok(method) => method,
            Err(error) => {
                let response = error.error_response();
                return Ok(request.into_response(response).map_into_right_body());
            }
        },
    };
    let needed = match guarded {
        Guarded::Views => {
            // `cluster` is the router's decoded segment; a path that spells it otherwise
            // (`/api/clusters/m%61in/…`) has no rest to judge, so it needs admin (fail closed).
            let prefix = format!("/api/clusters/{cluster}");
            match request.path().strip_prefix(&prefix) {
                Some(rest) => view_needs(&method, rest),
                None => Role::Admin,
            }
        }
        Guarded::Relay => relay_needs(&mut request, &cluster, role, &method).await,
    };
    let audited = needed > Role::Viewer;
    if role < needed {
        let error = Error::Forbidden(denial_message(needed, &cluster, role));
        tracing::warn!(
            user = identity.user.as_deref(),
            cluster,
            method = %method,
            path = request.path(),
            "{error}"
        );
        if audited {
            let call = Call::of(&guard, request.request(), &method);
            call.record(
                &guard,
                &identity,
                Some(&cluster),
                role,
                403,
                Outcome::Denied,
                started,
            );
        }
        let response = error.error_response();
        return Ok(request.into_response(response).map_into_right_body());
    }
    if !audited {
        return Ok(next.call(request).await?.map_into_left_body());
    }
    let mut call = Call::of(&guard, request.request(), &method);
    if guard.policy.is_production(&cluster) && changes_something(guarded, &method) {
        match change_reason(request.headers(), &cluster) {
            Ok(reason) => call.reason = Some(reason),
            Err(error) => {
                // The header's value is never logged: it may be what the check refused.
                tracing::warn!(
                    user = identity.user.as_deref(),
                    cluster,
                    method = %method,
                    path = request.path(),
                    code = error.code(),
                    "a change to a production cluster was refused: no acceptable reason"
                );
                let status = error.status_code().as_u16();
                call.record(
                    &guard,
                    &identity,
                    Some(&cluster),
                    role,
                    status,
                    Outcome::Denied,
                    started,
                );
                let response = error.error_response();
                return Ok(request.into_response(response).map_into_right_body());
            }
        }
    }
    let answer = next.call(request).await;
    let status = match &answer {
        Ok(response) => response.status().as_u16(),
        Err(error) => error.as_response_error().status_code().as_u16(),
    };
    let outcome = Outcome::of_status(status);
    call.record(
        &guard,
        &identity,
        Some(&cluster),
        role,
        status,
        outcome,
        started,
    );
    Ok(answer?.map_into_left_body())
}

/// Whether an audited call needs a reason on a production cluster: every audited management
/// call but a read (the only audited reads are the admin's of the cluster's own security), and
/// relayed calls other than reads (`GET`, `HEAD`, `OPTIONS`; a `GET` outside the viewer set,
/// such as reading users, changes nothing).
fn changes_something(guarded: Guarded, method: &Method) -> bool {
    match guarded {
        Guarded::Views => !matches!(*method, Method::GET | Method::HEAD),
        Guarded::Relay => !matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS),
    }
}

/// The role a relayed call made with `method` (the effective one) needs; an SQL call's body is
/// read (bounded) only when the caller is below admin, and put back for the relay.
async fn relay_needs(
    request: &mut ServiceRequest,
    cluster: &str,
    role: Role,
    method: &Method,
) -> Role {
    let prefix = format!("/api/clusters/{cluster}/proxy");
    let path = request.uri().path().to_owned();
    let query = request.uri().query().map(str::to_owned);
    let call = RelayCall {
        method,
        raw_tail: path.strip_prefix(&prefix),
        query: query.as_deref(),
    };
    if !call.needs_body() || role == Role::Admin {
        return call.needs(None);
    }
    let body = read_bounded(request).await;
    RelayCall {
        method,
        raw_tail: path.strip_prefix(&prefix),
        query: query.as_deref(),
    }
    .needs(body.as_deref())
}

/// The body when it is plain (no `Content-Encoding`) and at most [`MAX_SQL_BODY`] bytes; the
/// request gets it back as its payload. `None` otherwise (the call is then refused, so a body
/// read only in part is never relayed).
async fn read_bounded(request: &mut ServiceRequest) -> Option<Bytes> {
    if request.headers().contains_key(header::CONTENT_ENCODING) {
        return None;
    }
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    if declared.is_some_and(|length| length > MAX_SQL_BODY as u64) {
        return None;
    }
    let mut payload = request.take_payload();
    let mut body = BytesMut::new();
    while let Some(chunk) = payload.next().await {
        body.extend_from_slice(&chunk.ok()?);
        if body.len() > MAX_SQL_BODY {
            return None;
        }
    }
    let body = body.freeze();
    request.set_payload(actix_web::dev::Payload::from(body.clone()));
    Some(body)
}

/// What the audit event says about the request, taken before the request goes on.
pub(crate) struct Call {
    /// The method the cluster receives (a relayed POST with `X-Console-Method: GET` is a GET).
    method: String,
    /// Path and query as received.
    path: String,
    source: Option<String>,
    request_id: String,
    /// The URL the request makes the console call (the metrics server validation).
    pub(crate) url: Option<String>,
    /// What that call found.
    pub(crate) result: Option<&'static str>,
    /// The checked reason of a change to a production cluster.
    pub(crate) reason: Option<String>,
}

impl Call {
    pub(crate) fn of(guard: &AccessGuard, request: &HttpRequest, method: &Method) -> Self {
        Self {
            method: method.to_string(),
            path: request
                .uri()
                .path_and_query()
                .map_or_else(|| request.path().to_owned(), |pq| pq.as_str().to_owned()),
            source: guard
                .trusted_proxies
                .client_address(peer(request), request.headers())
                .map(|address| address.to_string()),
            request_id: request_id(guard, request),
            url: None,
            result: None,
            reason: None,
        }
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn record(
        self,
        guard: &AccessGuard,
        identity: &Identity,
        cluster: Option<&str>,
        role: Role,
        status: u16,
        outcome: Outcome,
        started: Instant,
    ) {
        guard.audit.record(&AuditEvent {
            time: rfc3339_now(),
            user: identity.user.as_deref(),
            groups: &identity.groups,
            source: self.source,
            cluster,
            method: &self.method,
            path: &self.path,
            status,
            outcome,
            role: role.as_str(),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            request_id: &self.request_id,
            url: self.url.as_deref(),
            result: self.result,
            reason: self.reason.as_deref(),
        });
    }
}

/// `X-Request-Id` when a trusted proxy sent a sane one, else a new random one (128 bits, hex).
fn request_id(guard: &AccessGuard, request: &HttpRequest) -> String {
    match guard
        .trusted_proxies
        .request_id(peer(request), request.headers())
    {
        Some(id) => id.to_owned(),
        None => {
            let bytes: [u8; 16] = rand::random();
            bytes.iter().map(|byte| format!("{byte:02x}")).collect()
        }
    }
}
