//! What the reverse proxy in front says about the original request, believed only when the
//! peer is a configured trusted proxy: the client address (`X-Forwarded-For`) and the request it
//! is asking about (`X-Forwarded-Method/-Proto/-Host/-Uri` from Traefik, `X-Original-Method/-URL`
//! from nginx).

use std::net::IpAddr;

use actix_web::http::header::HeaderMap;
pub use service_kit::client_address::TrustedProxies;

/// The request the reverse proxy asks about, from a trusted peer's headers; `None` from an
/// untrusted peer or when no such header is present.
pub fn original_request(
    trusted: &TrustedProxies,
    peer: Option<IpAddr>,
    headers: &HeaderMap,
) -> Option<OriginalRequest> {
    if !peer.is_some_and(|peer| trusted.contains(peer)) {
        return None;
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
    };
    // nginx: X-Original-URL is absolute (`$scheme://$http_host$request_uri`).
    if let Some(url) = header("x-original-url") {
        let parsed = reqwest::Url::parse(&url).ok();
        let uri = match &parsed {
            Some(parsed) => match parsed.query() {
                Some(query) => format!("{}?{query}", parsed.path()),
                None => parsed.path().to_owned(),
            },
            None if url.starts_with('/') => url.clone(),
            None => return None,
        };
        return Some(OriginalRequest {
            contract: ProxyContract::Nginx,
            method: header("x-original-method"),
            proto: parsed.as_ref().map(|p| p.scheme().to_owned()),
            host: parsed
                .as_ref()
                .and_then(|p| p.host_str().map(str::to_owned)),
            uri: Some(uri),
        });
    }
    let original = OriginalRequest {
        contract: ProxyContract::Traefik,
        method: header("x-forwarded-method"),
        proto: header("x-forwarded-proto"),
        host: header("x-forwarded-host"),
        uri: header("x-forwarded-uri").filter(|uri| uri.starts_with('/')),
    };
    (original != OriginalRequest::default()).then_some(original)
}

/// Which reverse-proxy contract the original request came in, which decides how an
/// unauthenticated browser is sent to sign-in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ProxyContract {
    /// `X-Forwarded-Method/-Proto/-Host/-Uri` (Traefik's ForwardAuth): a 302 from the check is
    /// passed on to the browser.
    #[default]
    Traefik,
    /// `X-Original-URL/-Method` (nginx `auth_request`, ingress-nginx): the check may answer only
    /// 2xx, 401 or 403; nginx turns the 401 into the redirect (`error_page 401`,
    /// ingress-nginx's `auth-signin`).
    Nginx,
}

/// The original request as the reverse proxy reports it; absent parts stay `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginalRequest {
    pub contract: ProxyContract,
    pub method: Option<String>,
    pub proto: Option<String>,
    pub host: Option<String>,
    /// Path and query, always starting with `/`.
    pub uri: Option<String>,
}

/// The path of a request URI, without its query or fragment.
pub fn path_of(uri: &str) -> &str {
    uri.split(['?', '#']).next().unwrap_or(uri)
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        map
    }

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    #[test]
    fn original_request_from_traefik_and_nginx() {
        let trusted = TrustedProxies::new(&["127.0.0.1".to_owned()]);
        let traefik = headers(&[
            ("x-forwarded-method", "POST"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "search.example.com"),
            ("x-forwarded-uri", "/logs/_search?q=1"),
        ]);
        let original = original_request(&trusted, ip("127.0.0.1"), &traefik).unwrap();
        assert_eq!(original.method.as_deref(), Some("POST"));
        assert_eq!(original.uri.as_deref().map(path_of), Some("/logs/_search"));
        let nginx = headers(&[
            ("x-original-method", "GET"),
            ("x-original-url", "https://search.example.com/?pretty"),
        ]);
        let original = original_request(&trusted, ip("127.0.0.1"), &nginx).unwrap();
        assert_eq!(original.host.as_deref(), Some("search.example.com"));
        assert_eq!(original.contract, ProxyContract::Nginx);
        assert_eq!(original.uri.as_deref(), Some("/?pretty"));
        assert_eq!(original_request(&trusted, ip("10.0.0.1"), &traefik), None);
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_forwarded_headers_never_panic(
            values in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..120), 6),
            peer_trusted in proptest::prelude::any::<bool>(),
        ) {
            let trusted = TrustedProxies::new(&["127.0.0.1".to_owned(), "10.0.0.0/8".to_owned()]);
            let mut map = HeaderMap::new();
            let names = ["x-forwarded-for", "x-forwarded-uri", "x-forwarded-host", "x-forwarded-method", "x-original-url", "x-original-method"];
            for (name, value) in names.iter().zip(&values) {
                if let Ok(value) = HeaderValue::from_bytes(value) {
                    map.insert(HeaderName::from_static(name), value);
                }
            }
            let peer = if peer_trusted { ip("127.0.0.1") } else { ip("192.0.2.7") };
            let _ = trusted.client_address(peer, &map);
            if let Some(original) = original_request(&trusted, peer, &map) {
                let _ = original.uri.as_deref().map(path_of);
            }
        }
    }
}
