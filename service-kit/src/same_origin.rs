//! Where a browser request comes from, by the headers only the browser sets: the one decision
//! behind admin-console's cross-site refusal and authproxy's logout check. Each service decides
//! what to do with a request that carries neither header.
//!
//! 1. `Sec-Fetch-Site` (every current browser sends it): `same-origin` or `none` (typed into the
//!    address bar, a bookmark) is the service's own page; any other value is another site.
//! 2. Without it, `Origin`: its host and port must be the request's own `Host` (the scheme is not
//!    compared, so a service behind a TLS-terminating proxy works; a scheme's default port is
//!    ignored); any other origin, `null` included, is another origin.
//! 3. Neither: an older browser's plain navigation, or a script.

use actix_web::http::header::{self, HeaderMap, HeaderName};

/// What the browser's headers say about a request's origin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provenance {
    /// The service's own page (or the address bar).
    OwnPage,
    /// `Sec-Fetch-Site` names another site; its value as sent.
    OtherSite(String),
    /// No `Sec-Fetch-Site`, and `Origin` is not the request's own host; its value as sent.
    OtherOrigin(String),
    /// Neither header.
    Unknown,
}

const SEC_FETCH_SITE: HeaderName = HeaderName::from_static("sec-fetch-site");

/// Judges a request from its headers and its own `Host` (`host[:port]`, never a forwarded
/// header: a caller controls those).
pub fn provenance(headers: &HeaderMap, own_host: Option<&str>) -> Provenance {
    let text = |name| {
        headers
            .get(name)
            .map(|value| value.to_str().unwrap_or("\u{fffd}").trim())
    };
    if let Some(site) = text(SEC_FETCH_SITE) {
        return if site.eq_ignore_ascii_case("same-origin") || site.eq_ignore_ascii_case("none") {
            Provenance::OwnPage
        } else {
            Provenance::OtherSite(site.to_owned())
        };
    }
    match text(header::ORIGIN) {
        Some(origin) if own_host.is_some_and(|host| same_host(origin, host)) => Provenance::OwnPage,
        Some(origin) => Provenance::OtherOrigin(origin.to_owned()),
        None => Provenance::Unknown,
    }
}

/// Whether `origin` (`scheme://host[:port]`, http or https) names `host` (`host[:port]`),
/// ignoring case and the scheme's default port.
fn same_host(origin: &str, host: &str) -> bool {
    let Some((scheme, authority)) = origin.split_once("://") else {
        return false;
    };
    if authority.is_empty() || authority.contains(['/', '@', '?', '#']) {
        return false;
    }
    let default_port = match scheme.to_ascii_lowercase().as_str() {
        "https" => ":443",
        "http" => ":80",
        _ => return false,
    };
    let normal = |text: &str| {
        let text = text.to_ascii_lowercase();
        match text.strip_suffix(default_port) {
            Some(bare) => bare.to_owned(),
            None => text,
        }
    };
    normal(authority) == normal(host)
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::HeaderValue;

    use super::*;

    fn judge(pairs: &[(&'static str, &'static str)], host: Option<&str>) -> Provenance {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.insert(
                HeaderName::from_static(name),
                HeaderValue::from_static(value),
            );
        }
        provenance(&headers, host)
    }

    const HOST: Option<&str> = Some("app.example.com");

    #[test]
    fn sec_fetch_site_decides_first() {
        for site in ["same-origin", "none", "Same-Origin", " none "] {
            assert_eq!(
                judge(&[("sec-fetch-site", site)], HOST),
                Provenance::OwnPage
            );
        }
        for site in ["cross-site", "same-site", "bogus", ""] {
            assert_eq!(
                judge(
                    &[
                        ("sec-fetch-site", site),
                        ("origin", "https://app.example.com")
                    ],
                    HOST
                ),
                Provenance::OtherSite(site.to_owned())
            );
        }
    }

    #[test]
    fn otherwise_the_origin_must_name_the_own_host() {
        for origin in [
            "https://app.example.com",
            "http://app.example.com",
            "https://APP.example.com:443",
        ] {
            assert_eq!(
                judge(&[("origin", origin)], HOST),
                Provenance::OwnPage,
                "{origin}"
            );
        }
        for origin in [
            "https://evil.example",
            "https://app.example.com.evil.example",
            "https://app.example.com:8443",
            "https://user@app.example.com",
            "https://app.example.com/",
            "null",
            "javascript:x",
            "app.example.com",
        ] {
            assert_eq!(
                judge(&[("origin", origin)], HOST),
                Provenance::OtherOrigin(origin.to_owned()),
                "{origin}"
            );
        }
        assert_eq!(
            judge(
                &[("origin", "http://127.0.0.1:8080")],
                Some("127.0.0.1:8080")
            ),
            Provenance::OwnPage
        );
        assert_eq!(
            judge(&[("origin", "https://app.example.com")], None),
            Provenance::OtherOrigin("https://app.example.com".to_owned()),
            "no Host to compare with"
        );
    }

    #[test]
    fn neither_header_is_unknown() {
        assert_eq!(judge(&[], HOST), Provenance::Unknown);
        assert_eq!(judge(&[("x-requested-by", "x")], HOST), Provenance::Unknown);
    }
}
