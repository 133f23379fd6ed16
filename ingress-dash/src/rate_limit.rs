//! Per-client token bucket (governor) on `/api/`: 429 with `Retry-After` and the common body.

use std::net::IpAddr;
use std::num::NonZeroU32;
use std::sync::Arc;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web;
use governor::clock::{Clock, DefaultClock};
use governor::{DefaultKeyedRateLimiter, Quota, RateLimiter};

use crate::config::RateLimitSettings;
use crate::error::Error;

/// Above this many tracked clients, buckets that are full again are forgotten.
const RETAIN_THRESHOLD: usize = 10_000;

pub struct ClientRateLimiter {
    limiter: DefaultKeyedRateLimiter<IpAddr>,
    clock: DefaultClock,
}

impl ClientRateLimiter {
    pub fn new(settings: &RateLimitSettings) -> Option<Arc<Self>> {
        let burst = NonZeroU32::new(settings.burst)?;
        let rate = NonZeroU32::new(settings.per_second)?;
        settings.enabled.then(|| {
            Arc::new(Self {
                limiter: RateLimiter::keyed(Quota::per_second(rate).allow_burst(burst)),
                clock: DefaultClock::default(),
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

/// Middleware: the peer address is the client (a proxy in front should limit by itself).
pub async fn limit(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<impl MessageBody + 'static>, actix_web::Error> {
    if let Some(limiter) = request.app_data::<web::Data<ClientRateLimiter>>()
        && let Some(peer) = request.peer_addr()
        && let Err(error) = limiter.check(peer.ip())
    {
        metrics::counter!("ingress_dash_rate_limited_total").increment(1);
        return Err(error.into());
    }
    next.call(request).await
}
