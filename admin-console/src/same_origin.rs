//! Cross-site request refusal. The console calls the clusters with its own server-side
//! credentials, so any request a browser sends on behalf of another site (an auto-submitted
//! form, an `<img>` pointing at the relay) would act with those credentials. Every
//! state-changing request, and every relayed request whatever its method, must come from the
//! console's own pages:
//!
//! 1. `Sec-Fetch-Site` (sent by every current browser): `same-origin` or `none` (typed into the
//!    address bar) passes; `same-site`, `cross-site` or anything else is refused.
//! 2. Without it, `Origin`: its host and port must be the request's own `Host` (the scheme is
//!    not compared, so the console works behind a TLS-terminating ingress); any other origin,
//!    `null` included, is refused.
//!
//! Steps 1 and 2 are `service_kit::same_origin`, shared with authproxy's logout check.
//! 3. Without either, the [`CONSOLE_HEADER`] the web app always sends (any value): a plain form
//!    or tag cannot set a custom header, and a cross-origin `fetch` that does needs a CORS
//!    preflight the console never grants. Scripts and `curl` send it too.
//!
//! Anything else is refused with 403 `cross_site_request`.

use actix_web::ResponseError;
use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{self, HeaderMap};
use actix_web::middleware::Next;
use service_kit::same_origin::{Provenance, provenance};

use crate::error::Error;

/// The header the web app sends with every API call, as scripts should (any value passes).
pub const CONSOLE_HEADER: &str = "x-requested-by";

/// Which requests a wrapped route checks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Guarded {
    /// Every method but GET, HEAD and OPTIONS: the JSON API.
    StateChanging,
    /// Every method, reads included: the relay, whose GETs read cluster data with the
    /// console's credentials.
    Everything,
}

/// The decision, as a plain function: `Ok` lets the request through.
pub fn check(
    guarded: Guarded,
    method: &Method,
    headers: &HeaderMap,
    own_host: Option<&str>,
) -> Result<(), Error> {
    let read_only = matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS);
    if guarded == Guarded::StateChanging && read_only {
        return Ok(());
    }
    match provenance(headers, own_host) {
        Provenance::OwnPage => Ok(()),
        Provenance::OtherSite(site) => Err(refusal(&format!(
            "the browser says it comes from a {site} page"
        ))),
        Provenance::OtherOrigin(origin) => {
            Err(refusal(&format!("it comes from the origin {origin}")))
        }
        Provenance::Unknown => {
            let sent = headers
                .get(header::HeaderName::from_static(CONSOLE_HEADER))
                .map(|value| value.to_str().unwrap_or("\u{fffd}").trim());
            if sent.is_some_and(|value| !value.is_empty()) {
                Ok(())
            } else {
                Err(refusal(
                    "nothing shows it comes from the console's own page",
                ))
            }
        }
    }
}

fn refusal(why: &str) -> Error {
    Error::CrossSiteRequest(format!(
        "Refused: this request could change a cluster and {why}. The console accepts such \
         requests only from its own pages; scripts and curl send the header \
         \"X-Requested-By: admin-console\"."
    ))
}

/// The middleware:
/// `.wrap(from_fn(|request, next| require_same_origin(Guarded::Everything, request, next)))`.
pub async fn require_same_origin<B: MessageBody>(
    guarded: Guarded,
    request: ServiceRequest,
    next: Next<B>,
) -> Result<ServiceResponse<EitherBody<B>>, actix_web::Error> {
    // The Host header as the client sent it, never X-Forwarded-Host, which a caller controls.
    let own_host = request
        .headers()
        .get(header::HOST)
        .and_then(|value| value.to_str().ok())
        .map(str::to_owned)
        .or_else(|| request.uri().authority().map(|a| a.as_str().to_owned()));
    match check(
        guarded,
        request.method(),
        request.headers(),
        own_host.as_deref(),
    ) {
        Ok(()) => Ok(next.call(request).await?.map_into_left_body()),
        Err(error) => {
            tracing::warn!(
                method = %request.method(),
                path = request.path(),
                "{error}"
            );
            let response = error.error_response();
            Ok(request.into_response(response).map_into_right_body())
        }
    }
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        map
    }

    const HOST: Option<&str> = Some("console.example.com");

    fn passes(guarded: Guarded, method: Method, pairs: &[(&'static str, &'static str)]) -> bool {
        check(guarded, &method, &headers(pairs), HOST).is_ok()
    }

    #[test]
    fn sec_fetch_site_decides_first() {
        use Guarded::*;
        for site in ["same-origin", "none", "Same-Origin"] {
            assert!(passes(
                Everything,
                Method::POST,
                &[("sec-fetch-site", site)]
            ));
        }
        for site in ["cross-site", "same-site", "bogus", ""] {
            assert!(!passes(
                Everything,
                Method::POST,
                &[("sec-fetch-site", site)]
            ));
            // Neither a matching Origin nor the header overrules the browser.
            assert!(!passes(
                Everything,
                Method::POST,
                &[
                    ("sec-fetch-site", site),
                    ("origin", "https://console.example.com"),
                    (CONSOLE_HEADER, "admin-console"),
                ]
            ));
        }
    }

    #[test]
    fn origin_decides_when_sec_fetch_site_is_absent() {
        use Guarded::*;
        for origin in [
            "https://console.example.com",
            "http://console.example.com",
            "https://CONSOLE.example.com:443",
        ] {
            assert!(
                passes(Everything, Method::PUT, &[("origin", origin)]),
                "{origin}"
            );
        }
        for origin in [
            "https://evil.example",
            "https://console.example.com.evil.example",
            "https://console.example.com:8443",
            "null",
            "console.example.com",
            "https://user@console.example.com",
        ] {
            assert!(
                !passes(
                    Everything,
                    Method::PUT,
                    &[("origin", origin), (CONSOLE_HEADER, "admin-console")]
                ),
                "{origin}"
            );
        }
        assert!(
            check(
                Everything,
                &Method::POST,
                &headers(&[("origin", "https://console.example.com")]),
                None
            )
            .is_err(),
            "no Host to compare with"
        );
        assert!(
            check(
                Everything,
                &Method::POST,
                &headers(&[("origin", "http://127.0.0.1:8080")]),
                Some("127.0.0.1:8080")
            )
            .is_ok()
        );
    }

    #[test]
    fn the_custom_header_is_the_fallback_and_reads_are_free_outside_the_relay() {
        use Guarded::*;
        assert!(passes(
            Everything,
            Method::DELETE,
            &[(CONSOLE_HEADER, "curl")]
        ));
        assert!(!passes(Everything, Method::DELETE, &[(CONSOLE_HEADER, "")]));
        assert!(!passes(Everything, Method::POST, &[]));
        assert!(!passes(Everything, Method::GET, &[]));
        assert!(!passes(
            Everything,
            Method::GET,
            &[("sec-fetch-site", "cross-site")]
        ));
        for method in [Method::GET, Method::HEAD, Method::OPTIONS] {
            assert!(passes(
                StateChanging,
                method,
                &[("sec-fetch-site", "cross-site")]
            ));
        }
        for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            assert!(!passes(StateChanging, method, &[]));
        }
        let error = check(StateChanging, &Method::POST, &headers(&[]), HOST).unwrap_err();
        assert_eq!(error.status_code(), 403);
    }
}
