//! Where a browser may be sent after sign-in or logout (`rd`): a path on this host, or an
//! http(s) URL whose host is inside `session.cookie_domain`. Anything else, including every
//! trick that makes a browser read a "path" as another host (`//evil`, `/\evil`, `https:evil`,
//! percent-encoded or mixed-case variants, userinfo, other schemes, control characters), falls
//! back to `/`: no open redirect.

use percent_encoding::percent_decode_str;
use reqwest::Url;

/// Longest `rd` accepted; browsers and proxies cap URLs around here anyway.
const MAX_TARGET_LEN: usize = 4096;
/// A base for resolving paths; never shown to anyone.
const LOCAL_BASE: &str = "http://authproxy.invalid/";

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

    /// `rd` when it is a safe target (normalised), else `/`.
    pub fn safe_target(&self, rd: Option<&str>) -> String {
        rd.and_then(|rd| self.check(rd))
            .unwrap_or_else(|| "/".to_owned())
    }

    /// The normalised target, or `None` when `rd` is not allowed.
    pub fn check(&self, rd: &str) -> Option<String> {
        if rd.is_empty() || rd.len() > MAX_TARGET_LEN || !plain(rd) {
            return None;
        }
        // What a proxy or server that decodes once (or twice) would see must be safe too.
        let once = percent_decode(rd)?;
        let twice = percent_decode(&once)?;
        if !plain(&once) || !plain(&twice) {
            return None;
        }
        if rd.starts_with('/') {
            return local_path(rd, &once, &twice);
        }
        self.inside_cookie_domain(rd)
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

    fn inside_cookie_domain(&self, rd: &str) -> Option<String> {
        self.cookie_domain.as_ref()?;
        // Exactly `http://` or `https://` followed by a host: `https:evil`, `https:/evil`,
        // `https:///evil` parse as URLs too, but browsers differ on them.
        let lower = rd.get(..8)?.to_ascii_lowercase();
        let rest = if lower.starts_with("https://") {
            &rd[8..]
        } else if lower.starts_with("http://") {
            &rd[7..]
        } else {
            return None;
        };
        if rest.starts_with(['/', '\\']) || rest.contains('@') {
            return None;
        }
        let url = Url::parse(rd).ok()?;
        let host = match url.host()? {
            openidconnect::url::Host::Domain(host) => host.to_owned(),
            _ => return None,
        };
        (url.username().is_empty()
            && url.password().is_none()
            && self.is_inside_cookie_domain(&host))
        .then(|| url.to_string())
    }
}

/// No control characters, whitespace or backslashes (browsers read `\` as `/`).
fn plain(text: &str) -> bool {
    !text
        .chars()
        .any(|c| c.is_control() || c.is_whitespace() || c == '\\')
}

fn local_path(raw: &str, once: &str, twice: &str) -> Option<String> {
    for form in [raw, once, twice] {
        if !form.starts_with('/') || form.starts_with("//") {
            return None;
        }
    }
    let base = Url::parse(LOCAL_BASE).expect("a valid base");
    let resolved = base.join(raw).ok()?;
    if resolved.host_str() != base.host_str() || resolved.scheme() != base.scheme() {
        return None;
    }
    let mut target = resolved.path().to_owned();
    if let Some(query) = resolved.query() {
        target.push('?');
        target.push_str(query);
    }
    if let Some(fragment) = resolved.fragment() {
        target.push('#');
        target.push_str(fragment);
    }
    Some(target)
}

/// `%XX` decoded (invalid escapes kept as they are); `None` when the result is not UTF-8.
fn percent_decode(text: &str) -> Option<String> {
    percent_decode_str(text)
        .decode_utf8()
        .ok()
        .map(|decoded| decoded.into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_paths_and_cookie_domain_urls_are_allowed() {
        let policy = RedirectPolicy::new(".example.com");
        assert_eq!(policy.check("/").as_deref(), Some("/"));
        assert_eq!(
            policy.check("/logs/_search?q=1#top").as_deref(),
            Some("/logs/_search?q=1#top")
        );
        assert_eq!(policy.check("/a/../b").as_deref(), Some("/b"));
        assert_eq!(
            policy
                .check("https://kibana.example.com/app?x=1")
                .as_deref(),
            Some("https://kibana.example.com/app?x=1")
        );
        assert!(policy.check("http://example.com:8080/").is_some());
    }

    #[test]
    fn everything_else_falls_back_to_the_root() {
        let policy = RedirectPolicy::new("example.com");
        for bad in [
            "//evil.example",
            "/\\evil.example",
            "/%2Fevil.example",
            "/%252Fevil.example",
            "/%5Cevil.example",
            "https:evil.example",
            "https://evil.example",
            "https://example.com.evil.example/",
            "https://notexample.com/",
            "https://user@example.com/",
            "https://example.com@evil.example/",
            "javascript:alert(1)",
            "/\t/evil.example",
            "/a\r\nSet-Cookie: x=1",
            "evil.example",
            "",
        ] {
            assert_eq!(policy.safe_target(Some(bad)), "/", "{bad}");
        }
        assert_eq!(
            RedirectPolicy::new("").safe_target(Some("https://example.com/")),
            "/",
            "host-only cookies allow paths only"
        );
    }
}
