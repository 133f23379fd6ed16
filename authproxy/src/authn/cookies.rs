//! The proxy's cookies: the session cookie, signed with a key derived from `SESSION_SECRET`
//! (HMAC-SHA256 compared in constant time by the cookie crate; the cookie name is signed with the
//! value, so one cookie's value does not verify under another name), and the short-lived sign-in
//! cookie, sealed (XChaCha20-Poly1305, a random nonce per cookie, the cookie name as associated
//! data) under the other half of the same derived key, so the browser can neither read nor
//! change it. All are HttpOnly, SameSite=Lax, scoped to `session.cookie_domain`, and Secure
//! unless the service runs on plain http on localhost.

use std::time::Duration;

use actix_web::cookie::{Cookie, CookieJar, Key, SameSite};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::crypto::CredentialCipher;

/// Longest cookie value opened; browsers keep at most 4096 bytes per cookie anyway.
const MAX_SEALED_LEN: usize = 4096;

/// Shortest secret a signing key is derived from (the specification's limit for
/// `SESSION_SECRET`).
pub const MIN_SECRET_LEN: usize = 32;

#[derive(Clone)]
pub struct CookieSigner {
    key: Key,
    /// Seals cookies the browser must not read (under the key's encryption half).
    sealer: CredentialCipher,
    /// `session.cookie_domain`; `None` for host-only cookies.
    domain: Option<String>,
    secure: bool,
}

impl std::fmt::Debug for CookieSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CookieSigner")
            .field("domain", &self.domain)
            .field("secure", &self.secure)
            .finish_non_exhaustive()
    }
}

#[derive(Debug, thiserror::Error)]
#[error("session.secret must be at least {MIN_SECRET_LEN} bytes")]
pub struct ShortSecret;

impl CookieSigner {
    /// `redirect_url` decides `Secure`: only a plain-http callback on localhost (a developer's
    /// machine) gets cookies without it, since browsers drop Secure cookies over http.
    pub fn new(
        secret: &[u8],
        cookie_domain: &str,
        redirect_url: &str,
    ) -> Result<Self, ShortSecret> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(ShortSecret);
        }
        let domain = cookie_domain.trim();
        let key = Key::derive_from(secret);
        Ok(Self {
            sealer: CredentialCipher::new(key.encryption())
                .expect("the derived encryption key has 32 bytes"),
            key,
            domain: (!domain.is_empty()).then(|| domain.to_owned()),
            secure: !is_plain_http_localhost(redirect_url),
        })
    }

    /// A signed cookie living `max_age`.
    pub fn signed(&self, name: &str, value: &str, max_age: Duration) -> Cookie<'static> {
        let mut jar = CookieJar::new();
        jar.signed_mut(&self.key)
            .add(Cookie::new(name.to_owned(), format!("{name}:{value}")));
        let mut cookie = jar.get(name).cloned().expect("the cookie was just added");
        self.scope(&mut cookie, "/");
        let seconds = i64::try_from(max_age.as_secs()).unwrap_or(i64::MAX);
        cookie.set_max_age(actix_web::cookie::time::Duration::seconds(seconds));
        cookie
    }

    /// The value of a cookie this signer signed, or `None` when the signature does not verify
    /// (tampered, truncated, signed with another secret or under another name).
    pub fn verify(&self, name: &str, raw_value: &str) -> Option<String> {
        let mut jar = CookieJar::new();
        jar.add_original(Cookie::new(name.to_owned(), raw_value.to_owned()));
        let verified = jar.signed(&self.key).get(name)?;
        verified
            .value()
            .strip_prefix(name)
            .and_then(|rest| rest.strip_prefix(':'))
            .map(str::to_owned)
    }

    /// A cookie living `max_age` on `path` whose value is `plaintext` sealed: unreadable and
    /// unchangeable by the browser, and valid under this name only.
    pub fn sealed(
        &self,
        name: &str,
        plaintext: &[u8],
        max_age: Duration,
        path: &str,
    ) -> Cookie<'static> {
        let sealed = self.sealer.seal(&sealed_aad(name), plaintext);
        let mut cookie = Cookie::new(name.to_owned(), URL_SAFE_NO_PAD.encode(sealed));
        self.scope(&mut cookie, path);
        let seconds = i64::try_from(max_age.as_secs()).unwrap_or(i64::MAX);
        cookie.set_max_age(actix_web::cookie::time::Duration::seconds(seconds));
        cookie
    }

    /// The plaintext of a cookie [`sealed`](Self::sealed) under `name` with this secret, or
    /// `None` for anything else (tampered, truncated, not base64, another name or secret).
    pub fn open_sealed(&self, name: &str, raw_value: &str) -> Option<Vec<u8>> {
        if raw_value.len() > MAX_SEALED_LEN {
            return None;
        }
        let sealed = URL_SAFE_NO_PAD.decode(raw_value).ok()?;
        self.sealer.open(&sealed_aad(name), &sealed)
    }

    /// A cookie that makes the browser delete `name` (same domain and path as when it was set).
    pub fn removal(&self, name: &str) -> Cookie<'static> {
        self.removal_at(name, "/")
    }

    /// [`removal`](Self::removal) for a cookie set on `path`.
    pub fn removal_at(&self, name: &str, path: &str) -> Cookie<'static> {
        let mut cookie = Cookie::new(name.to_owned(), String::new());
        self.scope(&mut cookie, path);
        cookie.make_removal();
        cookie
    }

    fn scope(&self, cookie: &mut Cookie<'static>, path: &str) {
        cookie.set_path(path.to_owned());
        cookie.set_http_only(true);
        cookie.set_same_site(SameSite::Lax);
        cookie.set_secure(self.secure);
        if let Some(domain) = &self.domain {
            cookie.set_domain(domain.clone());
        }
    }
}

/// Associated data of a sealed cookie: bound to its name, and apart from every store entry.
fn sealed_aad(name: &str) -> String {
    format!("authproxy:cookie:{name}")
}

/// `http://localhost…`, `http://127.0.0.1…`, `http://[::1]…` or `http://*.localhost…`.
fn is_plain_http_localhost(url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(url) else {
        return false;
    };
    if url.scheme() != "http" {
        return false;
    }
    match url.host() {
        Some(openidconnect::url::Host::Domain(host)) => {
            host == "localhost" || host.ends_with(".localhost")
        }
        Some(openidconnect::url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(openidconnect::url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECRET: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn signed_values_verify_and_tampering_does_not() {
        let signer =
            CookieSigner::new(SECRET, ".example.com", "https://auth.example.com/cb").unwrap();
        let cookie = signer.signed("s", "session-id", Duration::from_secs(60));
        assert!(cookie.secure().unwrap());
        assert!(cookie.http_only().unwrap());
        assert_eq!(cookie.same_site(), Some(SameSite::Lax));
        assert_eq!(
            cookie.domain().map(|d| d.trim_start_matches('.')),
            Some("example.com")
        );
        assert_eq!(
            signer.verify("s", cookie.value()).as_deref(),
            Some("session-id")
        );
        assert_eq!(
            signer.verify("other", cookie.value()),
            None,
            "bound to the name"
        );
        let mut tampered = cookie.value().to_owned();
        tampered.push('x');
        assert_eq!(signer.verify("s", &tampered), None);
        assert_eq!(signer.verify("s", &cookie.value()[..20]), None);
        let other =
            CookieSigner::new(b"another-secret-another-secret-xx", "", "https://a/").unwrap();
        assert_eq!(other.verify("s", cookie.value()), None);
    }

    #[test]
    fn sealed_values_open_and_nothing_else_does() {
        let signer =
            CookieSigner::new(SECRET, ".example.com", "https://auth.example.com/cb").unwrap();
        let cookie = signer.sealed("p", b"pending sign-in", Duration::from_secs(600), "/cb");
        assert_eq!(cookie.path(), Some("/cb"));
        assert!(cookie.secure().unwrap() && cookie.http_only().unwrap());
        assert_eq!(cookie.same_site(), Some(SameSite::Lax));
        assert!(!cookie.value().contains("pending"));
        assert_eq!(
            signer.open_sealed("p", cookie.value()).as_deref(),
            Some(&b"pending sign-in"[..])
        );
        assert_eq!(
            signer.open_sealed("q", cookie.value()),
            None,
            "bound to the name"
        );
        let other =
            CookieSigner::new(b"another-secret-another-secret-xx", "", "https://a/").unwrap();
        assert_eq!(other.open_sealed("p", cookie.value()), None);
        assert_eq!(signer.open_sealed("p", &cookie.value()[..30]), None);
        assert_eq!(signer.open_sealed("p", "not base64!"), None);
        let removal = signer.removal_at("p", "/cb");
        assert_eq!(removal.path(), Some("/cb"));
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_cookie_values_never_panic_nor_verify(value in ".{0,300}") {
            let signer = CookieSigner::new(SECRET, "", "https://a/").unwrap();
            proptest::prop_assert_eq!(signer.verify("s", &value), None);
            proptest::prop_assert_eq!(signer.open_sealed("p", &value), None);
        }

        #[test]
        fn every_tampered_cookie_is_refused(
            value in "[ -~]{0,64}",
            position in 0usize..1000,
            replacement in proptest::prelude::any::<u8>(),
        ) {
            let signer = CookieSigner::new(SECRET, "", "https://a/").unwrap();
            for (genuine, opened) in [
                (signer.signed("s", &value, Duration::from_secs(60)).value().to_owned(), true),
                (signer.sealed("p", value.as_bytes(), Duration::from_secs(60), "/").value().to_owned(), false),
            ] {
                let mut bytes = genuine.clone().into_bytes();
                let at = position % bytes.len();
                proptest::prop_assume!(bytes[at] != replacement);
                bytes[at] = replacement;
                let tampered = String::from_utf8_lossy(&bytes).into_owned();
                proptest::prop_assume!(tampered != genuine);
                if opened {
                    proptest::prop_assert_eq!(signer.verify("s", &genuine), Some(value.clone()));
                    proptest::prop_assert_eq!(signer.verify("s", &tampered), None);
                } else {
                    proptest::prop_assert_eq!(signer.open_sealed("p", &genuine), Some(value.clone().into_bytes()));
                    proptest::prop_assert_eq!(signer.open_sealed("p", &tampered), None);
                }
            }
        }
    }

    #[test]
    fn secure_unless_plain_http_on_localhost() {
        for (url, secure) in [
            ("http://localhost:9000/cb", false),
            ("http://127.0.0.1:9000/cb", false),
            ("http://auth.localhost/cb", false),
            ("http://auth.example.com/cb", true),
            ("https://localhost/cb", true),
        ] {
            let signer = CookieSigner::new(SECRET, "", url).unwrap();
            assert_eq!(signer.secure, secure, "{url}");
        }
        assert!(CookieSigner::new(b"short", "", "https://a/").is_err());
    }
}
