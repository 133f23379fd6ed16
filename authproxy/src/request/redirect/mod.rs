//! Where a browser may be sent after sign-in or logout (`rd`).
//!
//! The target is judged on what the browser would finally go to, never on the text it arrives
//! as: `rd` is resolved the way a browser resolves a link (WHATWG URL parsing with the `url`
//! crate: tabs and newlines removed, `\` read as `/`, `.`, `..` and their percent-encoded forms
//! applied) against the request's own origin, and the RESULT must be http(s), carry no userinfo,
//! and name the request's own host or a host inside `session.cookie_domain`. The browser is then
//! sent to exactly that checked result as the parser serialises it: a path on this host (so a
//! TLS-terminating proxy in front keeps its scheme) or an absolute URL. Anything else falls back
//! to `/`: no open redirect.

use std::fmt;

use openidconnect::url::Host;
use percent_encoding::percent_decode_str;
use reqwest::Url;

/// Longest `rd` accepted, and longest target sent; it must fit in the sign-in cookie (browsers
/// keep cookies up to 4096 bytes).
pub const MAX_TARGET_LEN: usize = 2048;
/// The origin paths are resolved against when the request names no usable host of its own.
const UNKNOWN_ORIGIN: &str = "http://authproxy.invalid/";

/// A target the policy checked: a path on the request's host (`/…`, never `//…`) or an absolute
/// http(s) URL on an allowed host, as the URL parser serialised it. Only the policy makes one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafeTarget(String);

impl SafeTarget {
    /// `/`, where every refused target goes.
    pub fn root() -> Self {
        Self("/".to_owned())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// A target that was checked earlier and kept where nobody could change it (inside the
    /// authenticated, encrypted sign-in cookie).
    pub(crate) fn from_sealed(target: String) -> Self {
        Self(target)
    }
}

impl fmt::Display for SafeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, Default)]
pub struct RedirectPolicy {
    /// `session.cookie_domain`, lower case, without its leading dot; `None` when host-only.
    cookie_domain: Option<String>,
}

impl RedirectPolicy {
    pub fn new(cookie_domain: &str) -> Self {
        let domain = cookie_domain
            .trim()
            .trim_start_matches('.')
            .to_ascii_lowercase();
        Self {
            cookie_domain: (!domain.is_empty()).then_some(domain),
        }
    }

    /// `rd` resolved and checked, else `/`. `request_host` is the request's `Host` (with its
    /// port, if any).
    pub fn safe_target(&self, rd: Option<&str>, request_host: Option<&str>) -> SafeTarget {
        rd.and_then(|rd| self.check(rd, request_host))
            .unwrap_or_else(SafeTarget::root)
    }

    /// The checked target, or `None` when `rd` does not resolve to an allowed place.
    pub fn check(&self, rd: &str, request_host: Option<&str>) -> Option<SafeTarget> {
        if rd.is_empty() || rd.len() > MAX_TARGET_LEN {
            return None;
        }
        let origin = request_origin(request_host);
        let resolved = origin.join(rd).ok()?;
        if !matches!(resolved.scheme(), "http" | "https")
            || !resolved.username().is_empty()
            || resolved.password().is_some()
        {
            return None;
        }
        let host = resolved.host()?;
        let target = if same_origin(&resolved, &origin) {
            local_path(&resolved)?
        } else if same_host(&host, &origin) || self.allows_host(&host) {
            resolved.to_string()
        } else {
            return None;
        };
        (target.len() <= MAX_TARGET_LEN).then_some(SafeTarget(target))
    }

    pub fn is_inside_cookie_domain(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        self.cookie_domain.as_deref().is_some_and(|domain| {
            host == domain
                || host
                    .strip_suffix(domain)
                    .is_some_and(|prefix| prefix.ends_with('.'))
        })
    }

    /// Domain names only: an IP address is never "inside" a cookie domain.
    fn allows_host(&self, host: &Host<&str>) -> bool {
        matches!(host, Host::Domain(name) if self.is_inside_cookie_domain(name))
    }
}

/// `http://<Host>/` when the header is a plain `host[:port]`, else a placeholder no absolute
/// target can match (paths still resolve against it).
fn request_origin(request_host: Option<&str>) -> Url {
    let unknown = || Url::parse(UNKNOWN_ORIGIN).expect("a valid URL");
    let Some(host) = request_host.map(str::trim).filter(|host| !host.is_empty()) else {
        return unknown();
    };
    if host.contains(['/', '\\', '@', '?', '#', '%']) || host.chars().any(char::is_control) {
        return unknown();
    }
    match Url::parse(&format!("http://{host}/")) {
        Ok(url) if url.host().is_some() && url.path() == "/" => url,
        _ => unknown(),
    }
}

fn same_origin(url: &Url, origin: &Url) -> bool {
    url.scheme() == origin.scheme()
        && url.host() == origin.host()
        && url.port_or_known_default() == origin.port_or_known_default()
}

fn same_host(host: &Host<&str>, origin: &Url) -> bool {
    origin.host().as_ref() == Some(host)
}

/// `path?query#fragment` of a URL on the request's own origin. The path must read as a path to
/// every reader: never `//…` (a network-path reference), also not once a proxy or application
/// percent-decodes it (once or twice), nor with `\` read as `/`.
fn local_path(url: &Url) -> Option<String> {
    let path = url.path();
    let once = percent_decode_str(path).decode_utf8_lossy();
    let twice = percent_decode_str(&once).decode_utf8_lossy().into_owned();
    for form in [path, &once, &twice] {
        let form = form.replace('\\', "/");
        if !form.starts_with('/') || form.starts_with("//") {
            return None;
        }
    }
    let mut target = path.to_owned();
    if let Some(query) = url.query() {
        target.push('?');
        target.push_str(query);
    }
    if let Some(fragment) = url.fragment() {
        target.push('#');
        target.push_str(fragment);
    }
    Some(target)
}

#[cfg(test)]
mod tests;
