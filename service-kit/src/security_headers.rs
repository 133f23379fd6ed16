//! Response headers that keep a service's pages to themselves in a browser: a
//! Content-Security-Policy (this origin's scripts, styles, images and connections only, no
//! plugins, never framed), no MIME sniffing, no referrer, no framing by older browsers, and no
//! use of the responses by other origins.
//!
//! Wrap the routes with `from_fn(security_headers)` outermost, so refusals made by other
//! middleware carry the headers too. A header a handler already set is left as it is.

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::{HeaderMap, HeaderName, HeaderValue};
use actix_web::middleware::Next;

/// The policy both web apps run under. Vite emits module scripts under `/assets/` and no inline
/// script, so scripts are `'self'` only. Styles allow `'unsafe-inline'` because CodeMirror and
/// uPlot set inline styles (no script can run from a style). Favicons are `data:` URLs.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self'; \
     connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; \
     frame-ancestors 'none'";

/// Every header this middleware adds, with its value.
pub const SECURITY_HEADERS: [(&str, &str); 6] = [
    ("content-security-policy", CONTENT_SECURITY_POLICY),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("x-frame-options", "DENY"),
    ("cross-origin-opener-policy", "same-origin"),
    ("cross-origin-resource-policy", "same-origin"),
];

/// Adds [`SECURITY_HEADERS`] that are not already there.
pub fn add_security_headers(headers: &mut HeaderMap) {
    for (name, value) in SECURITY_HEADERS {
        let name = HeaderName::from_static(name);
        if !headers.contains_key(&name) {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
}

/// The middleware: `.wrap(from_fn(security_headers))`.
pub async fn security_headers(
    request: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let mut response = next.call(request).await?;
    add_security_headers(response.headers_mut());
    Ok(response)
}

#[cfg(test)]
mod tests {
    use actix_web::middleware::from_fn;
    use actix_web::test::{TestRequest, call_service, init_service};
    use actix_web::{App, HttpResponse, web};

    use super::*;

    #[actix_web::test]
    async fn every_answer_gets_the_headers_and_a_handler_may_set_its_own() {
        let app = init_service(
            App::new()
                .wrap(from_fn(security_headers))
                .route("/", web::get().to(HttpResponse::Ok))
                .route(
                    "/framed",
                    web::get().to(|| async {
                        HttpResponse::Ok()
                            .insert_header(("x-frame-options", "SAMEORIGIN"))
                            .finish()
                    }),
                ),
        )
        .await;
        for path in ["/", "/missing"] {
            let response = call_service(&app, TestRequest::get().uri(path).to_request()).await;
            for (name, value) in SECURITY_HEADERS {
                assert_eq!(
                    response.headers().get(name).unwrap(),
                    value,
                    "{path} {name}"
                );
            }
        }
        let framed = call_service(&app, TestRequest::get().uri("/framed").to_request()).await;
        assert_eq!(
            framed.headers().get("x-frame-options").unwrap(),
            "SAMEORIGIN"
        );
    }

    #[test]
    fn the_policy_has_the_directives_that_matter() {
        for directive in [
            "default-src 'self'",
            "script-src 'self';",
            "frame-ancestors 'none'",
            "object-src 'none'",
            "base-uri 'self'",
        ] {
            assert!(CONTENT_SECURITY_POLICY.contains(directive), "{directive}");
        }
        assert!(!CONTENT_SECURITY_POLICY.contains("unsafe-eval"));
    }
}
