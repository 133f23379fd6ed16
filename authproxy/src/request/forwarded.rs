//! What the reverse proxy in front says about the original request, believed only when the
//! peer is a configured trusted proxy: the client address (`X-Forwarded-For`) and, in
//! forward_auth mode, the request it is asking about, by the one contract of
//! `server.front_proxy` (`X-Forwarded-Method/-Proto/-Host/-Uri` from Traefik,
//! `X-Original-Method/-URL` from nginx), its host parsed strictly as `host[:port]`.

use std::fmt;
use std::net::IpAddr;

use actix_web::http::header::HeaderMap;
use serde::Deserialize;
pub use service_kit::client_address::TrustedProxies;

/// `server.front_proxy`: which reverse proxy asks the forward_auth check, and so the one header
/// contract that names the original request. The other contract's headers are never read: a
/// client's copy of them (Traefik passes client headers on; nginx passes `X-Forwarded-*` on)
/// names nothing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FrontProxy {
    /// `X-Forwarded-Method/-Proto/-Host/-Uri` (Traefik's ForwardAuth): a 302 from the check is
    /// passed on to the browser.
    #[default]
    Traefik,
    /// `X-Original-URL/-Method` (nginx `auth_request`, ingress-nginx): the check may answer only
    /// 2xx, 401 or 403; nginx turns the 401 into the redirect (`error_page 401`,
    /// ingress-nginx's `auth-signin`).
    Nginx,
}

/// A host as a reverse proxy reports it, parsed strictly as `host[:port]`: a DNS name or IPv4
/// address (letters, digits, `-`, `_`, dots; no empty label), or `[IPv6]`, then optionally `:`
/// and a decimal port. The name is in lower case without a trailing dot, the form nginx and the
/// `authorization.hosts` patterns use; anything else (user-info, a port that is not a number,
/// `%`, `/`, spaces) is refused rather than guessed at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OriginalHost {
    name: String,
    port: Option<u16>,
    bracketed: bool,
}

/// A host value that is not `host[:port]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the original host is not host[:port]")]
pub struct InvalidHost;

impl OriginalHost {
    pub fn parse(text: &str) -> Result<Self, InvalidHost> {
        let (name, port, bracketed) = if let Some(rest) = text.strip_prefix('[') {
            let (inside, after) = rest.split_once(']').ok_or(InvalidHost)?;
            inside
                .parse::<std::net::Ipv6Addr>()
                .map_err(|_| InvalidHost)?;
            (inside, after, true)
        } else {
            match text.split_once(':') {
                Some((name, port)) => (name, port, false),
                None => (text, "", false),
            }
        };
        let port = if bracketed {
            match port {
                "" => None,
                port => Some(parse_port(port.strip_prefix(':').ok_or(InvalidHost)?)?),
            }
        } else if text.contains(':') {
            Some(parse_port(port)?)
        } else {
            None
        };
        let name = if bracketed {
            name.to_ascii_lowercase()
        } else {
            let name = name.strip_suffix('.').unwrap_or(name);
            if !is_dns_name(name) {
                return Err(InvalidHost);
            }
            name.to_ascii_lowercase()
        };
        Ok(Self {
            name,
            port,
            bracketed,
        })
    }

    /// The host name (an IPv6 address without its brackets), what `authorization.hosts`
    /// patterns match.
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// At most 253 characters of dot-separated labels, each 1 to 63 letters, digits, `-` or `_`.
pub(crate) fn is_dns_name(name: &str) -> bool {
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
    };
    name.len() <= 253 && name.split('.').all(label_ok)
}

fn parse_port(text: &str) -> Result<u16, InvalidHost> {
    if text.is_empty() || text.len() > 5 || !text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(InvalidHost);
    }
    text.parse().map_err(|_| InvalidHost)
}

impl fmt::Display for OriginalHost {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.bracketed {
            write!(f, "[{}]", self.name)?;
        } else {
            f.write_str(&self.name)?;
        }
        match self.port {
            Some(port) => write!(f, ":{port}"),
            None => Ok(()),
        }
    }
}

/// The request the reverse proxy asks about, from a trusted peer's headers of the contract of
/// `front`; `None` from an untrusted peer or when the contract's headers are absent. A host
/// that is not `host[:port]` (or an `X-Original-URL` that is not `http(s)://host[:port]/...`)
/// is an error: the request is refused, never judged under a guessed host.
pub fn original_request(
    front: FrontProxy,
    trusted: &TrustedProxies,
    peer: Option<IpAddr>,
    headers: &HeaderMap,
) -> Result<Option<OriginalRequest>, InvalidHost> {
    if !peer.is_some_and(|peer| trusted.contains(peer)) {
        return Ok(None);
    }
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|value| value.to_str().ok())
            .map(str::trim)
            .filter(|value| !value.is_empty())
            .map(str::to_owned)
    };
    match front {
        FrontProxy::Nginx => {
            // `$scheme://$http_host$request_uri`; nginx refuses a Host with `/`, so the
            // authority ends at the first `/`.
            let Some(url) = header("x-original-url") else {
                return Ok(None);
            };
            let (proto, host, uri) = if url.starts_with('/') {
                (None, None, url)
            } else {
                let (scheme, rest) = url.split_once("://").ok_or(InvalidHost)?;
                let scheme = scheme.to_ascii_lowercase();
                if !matches!(scheme.as_str(), "http" | "https") {
                    return Err(InvalidHost);
                }
                let (authority, uri) = match rest.find('/') {
                    Some(index) => (&rest[..index], rest[index..].to_owned()),
                    None => (rest, "/".to_owned()),
                };
                (Some(scheme), Some(OriginalHost::parse(authority)?), uri)
            };
            Ok(Some(OriginalRequest {
                contract: FrontProxy::Nginx,
                method: header("x-original-method"),
                proto,
                host,
                uri: Some(uri),
            }))
        }
        FrontProxy::Traefik => {
            let original = OriginalRequest {
                contract: FrontProxy::Traefik,
                method: header("x-forwarded-method"),
                proto: header("x-forwarded-proto"),
                host: header("x-forwarded-host")
                    .map(|host| OriginalHost::parse(&host))
                    .transpose()?,
                uri: header("x-forwarded-uri").filter(|uri| uri.starts_with('/')),
            };
            Ok((original != OriginalRequest::default()).then_some(original))
        }
    }
}

/// The original request as the reverse proxy reports it; absent parts stay `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OriginalRequest {
    pub contract: FrontProxy,
    pub method: Option<String>,
    pub proto: Option<String>,
    pub host: Option<OriginalHost>,
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
    fn each_contract_reads_only_its_own_headers() {
        let trusted = TrustedProxies::parse(&["127.0.0.1"]).unwrap();
        let both = headers(&[
            ("x-forwarded-method", "POST"),
            ("x-forwarded-proto", "https"),
            ("x-forwarded-host", "search.example.com"),
            ("x-forwarded-uri", "/logs/_search?q=1"),
            ("x-original-method", "GET"),
            ("x-original-url", "https://Other.Example.com./?pretty"),
        ]);
        let traefik = original_request(FrontProxy::Traefik, &trusted, ip("127.0.0.1"), &both)
            .unwrap()
            .unwrap();
        assert_eq!(traefik.method.as_deref(), Some("POST"));
        assert_eq!(
            traefik.host.as_ref().map(OriginalHost::name),
            Some("search.example.com")
        );
        assert_eq!(traefik.uri.as_deref().map(path_of), Some("/logs/_search"));
        let nginx = original_request(FrontProxy::Nginx, &trusted, ip("127.0.0.1"), &both)
            .unwrap()
            .unwrap();
        assert_eq!(
            nginx.host.as_ref().map(OriginalHost::name),
            Some("other.example.com")
        );
        assert_eq!(nginx.contract, FrontProxy::Nginx);
        assert_eq!(nginx.uri.as_deref(), Some("/?pretty"));
        assert_eq!(
            original_request(FrontProxy::Traefik, &trusted, ip("10.0.0.1"), &both),
            Ok(None)
        );
        let bad = headers(&[("x-original-url", "http://admin.test:x@public.test/")]);
        assert_eq!(
            original_request(FrontProxy::Nginx, &trusted, ip("127.0.0.1"), &bad),
            Err(InvalidHost)
        );
        // The other contract's header is not read at all.
        assert_eq!(
            original_request(FrontProxy::Traefik, &trusted, ip("127.0.0.1"), &bad),
            Ok(None)
        );
    }

    #[test]
    fn hosts_are_host_and_numeric_port_only() {
        for (text, name, shown) in [
            ("admin.test", "admin.test", "admin.test"),
            ("ADMIN.Test.:8080", "admin.test", "admin.test:8080"),
            ("127.0.0.1:80", "127.0.0.1", "127.0.0.1:80"),
            ("[::1]:9000", "::1", "[::1]:9000"),
            ("[2001:DB8::1]", "2001:db8::1", "[2001:db8::1]"),
            ("under_score.test", "under_score.test", "under_score.test"),
        ] {
            let host = OriginalHost::parse(text).unwrap();
            assert_eq!(
                (host.name(), host.to_string().as_str()),
                (name, shown),
                "{text}"
            );
        }
        for text in [
            "",
            ":80",
            "admin.test:",
            "admin.test:abc",
            "admin.test:99999",
            "admin.test:80:80",
            "admin.test:x@public.test",
            "public.test@admin.test",
            "admin..test",
            ".admin.test",
            "admin.test..",
            "admin test",
            "admin%2etest",
            "admin.test/",
            "admin.test#x",
            "[::1",
            "[::1]x",
            "[nothost]",
            "admin.test\\x",
            "é.test",
        ] {
            assert_eq!(OriginalHost::parse(text), Err(InvalidHost), "{text:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_forwarded_headers_never_panic(
            values in proptest::collection::vec(proptest::collection::vec(proptest::prelude::any::<u8>(), 0..120), 6),
            peer_trusted in proptest::prelude::any::<bool>(),
        ) {
            let trusted = TrustedProxies::parse(&["127.0.0.1", "10.0.0.0/8"]).unwrap();
            let mut map = HeaderMap::new();
            let names = ["x-forwarded-for", "x-forwarded-uri", "x-forwarded-host", "x-forwarded-method", "x-original-url", "x-original-method"];
            for (name, value) in names.iter().zip(&values) {
                if let Ok(value) = HeaderValue::from_bytes(value) {
                    map.insert(HeaderName::from_static(name), value);
                }
            }
            let peer = if peer_trusted { ip("127.0.0.1") } else { ip("192.0.2.7") };
            let _ = trusted.client_address(peer, &map);
            for front in [FrontProxy::Nginx, FrontProxy::Traefik] {
                if let Ok(Some(original)) = original_request(front, &trusted, peer, &map) {
                    let _ = original.uri.as_deref().map(path_of);
                    if let Some(host) = original.host {
                        // What was accepted reads back as itself.
                        proptest::prop_assert_eq!(OriginalHost::parse(&host.to_string()), Ok(host));
                    }
                }
            }
        }
    }
}
