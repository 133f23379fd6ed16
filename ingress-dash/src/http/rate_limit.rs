//! Per-client token bucket (governor) on `/api/`: 429 with `Retry-After` and the common body.
//! The client is the TCP peer, or, when the peer is one of `server.trusted_proxies`, the address
//! its `X-Forwarded-For` names (so users behind an ingress controller get a bucket each, and a
//! client that is not a trusted proxy cannot pick a fresh bucket by sending the header).

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use service_kit::client_address::TrustedProxies;

use crate::config::RateLimitSettings;
use crate::error::Error;

/// Above this many tracked clients, buckets that are full again are forgotten.
const RETAIN_THRESHOLD: usize = 10_000;

pub struct ClientRateLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
    trusted: TrustedProxies,
}

impl ClientRateLimiter {
    pub fn new(settings: &RateLimitSettings, trusted: TrustedProxies) -> Option<Arc<Self>> {
        let burst = NonZeroU32::new(settings.burst)?;
        let rate = NonZeroU32::new(settings.per_second)?;
        settings.enabled.then(|| {
            Arc::new(Self {
                limiter: RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst)),
                clock: DefaultClock::default(),
                trusted,
            })
        })
    }

    /// Takes a token for `client`, or says how long until one is available.
    pub fn check(&self, client: IpAddr) -> Result<(), Error> {
        if self.limiter.len() > RETAIN_THRESHOLD {
            self.limiter.retain_recent();
        }
        self.limiter
            .check_key(&client)
            .map_err(|not_until| Error::RateLimited {
                retry_after: not_until.wait_time_from(self.clock.now()),
            })
    }
}

/// Middleware: one bucket per client address (see the module documentation).
pub async fn limit(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    if let Some(limiter) = request.app_data::<web::Data<ClientRateLimiter>>()
        && let Some(client) = limiter
            .trusted
            .client_address(request.peer_addr().map(|peer| peer.ip()), request.headers())
        && let Err(error) = limiter.check(client)
    {
        metrics::counter!("ingress_dash_rate_limited_total").increment(1);
        return Err(error.into());
    }
    next.call(request).await
}
