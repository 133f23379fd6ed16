//! Whether a browser request comes from this service's own pages, for requests that change state
//! (logout): `Sec-Fetch-Site` when the browser sends it (`same-origin`, or `none` for a typed URL
//! or bookmark), else an `Origin` equal to the request's own origin. A request with neither is a
//! plain navigation from an older browser when it is a GET (refused: a link on any site can make
//! one) and a script or `curl` when it is a POST (allowed: browsers send `Origin` on every POST).

use actix_web::http::{Method, header::HeaderMap};
use reqwest::Url;
use service_kit::same_origin::{Provenance, provenance};

/// `request_host` is the request's `Host` (with its port, if any); `public_origin` the service's
/// configured public origin (`scheme://host[:port]` of `oidc.redirect_url`), also accepted.
pub fn is_same_origin(
    method: &Method,
    headers: &HeaderMap,
    request_host: Option<&str>,
    public_origin: Option<&str>,
) -> bool {
    match provenance(headers, request_host) {
        Provenance::OwnPage => true,
        Provenance::OtherSite(_) => false,
        Provenance::OtherOrigin(origin) => {
            public_origin.is_some_and(|public| is_public_origin(&origin, public))
        }
        Provenance::Unknown => *method == Method::POST,
    }
}

/// Whether `origin` is the configured public origin (scheme, host and port).
fn is_public_origin(origin: &str, public_origin: &str) -> bool {
    let Ok(url) = Url::parse(origin) else {
        // `null` (sandboxed frames, some redirects) and anything unparsable.
        return false;
    };
    matches!(url.scheme(), "http" | "https")
        && url.username().is_empty()
        && matches!(url.path(), "" | "/")
        && public_origin.trim_end_matches('/') == url.origin().ascii_serialization()
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

    fn same(method: Method, pairs: &[(&'static str, &'static str)]) -> bool {
        is_same_origin(
            &method,
            &headers(pairs),
            Some("auth.example.com"),
            Some("https://auth.example.com"),
        )
    }

    #[test]
    fn fetch_metadata_decides_when_present() {
        assert!(same(Method::GET, &[("sec-fetch-site", "same-origin")]));
        assert!(same(Method::GET, &[("sec-fetch-site", "none")]));
        assert!(!same(Method::GET, &[("sec-fetch-site", "same-site")]));
        assert!(!same(Method::GET, &[("sec-fetch-site", "cross-site")]));
        assert!(!same(
            Method::POST,
            &[
                ("sec-fetch-site", "cross-site"),
                ("origin", "https://auth.example.com")
            ]
        ));
    }

    #[test]
    fn otherwise_the_origin_must_be_this_one() {
        assert!(same(Method::GET, &[("origin", "https://auth.example.com")]));
        assert!(same(Method::GET, &[("origin", "http://auth.example.com")]));
        assert!(!same(Method::GET, &[("origin", "https://evil.example")]));
        assert!(!same(
            Method::GET,
            &[("origin", "https://auth.example.com.evil.example")]
        ));
        assert!(!same(
            Method::GET,
            &[("origin", "https://auth.example.com:8443")]
        ));
        assert!(!same(Method::POST, &[("origin", "null")]));
        assert!(!same(Method::POST, &[("origin", "javascript:x")]));
        assert!(
            is_same_origin(
                &Method::GET,
                &headers(&[("origin", "http://127.0.0.1:9000")]),
                Some("127.0.0.1:9000"),
                None
            ),
            "host with port"
        );
    }

    #[test]
    fn neither_header_is_a_get_from_anywhere_or_a_post_from_a_script() {
        assert!(!same(Method::GET, &[]));
        assert!(same(Method::POST, &[]));
    }
}
