//! The parsers of untrusted input, exposed for the fuzz targets in `fuzz/` and their regression
//! tests (`tests/fuzz_regressions.rs`). Each function takes the fuzzer's bytes, runs the
//! production parser on them and panics when an oracle (a round trip or an invariant) fails, so
//! the fuzzer and the replayed regressions check exactly the same thing.

use actix_web::http::header::{COOKIE, HeaderValue};
use actix_web::test::TestRequest;
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use reqwest::Url;
use secrecy::ExposeSecret;

use crate::authn::basic::{AuthorizationHeader, basic_header_value, parse_authorization};
use crate::authn::cookies::CookieSigner;
use crate::request::redirect::{MAX_TARGET_LEN, RedirectPolicy};

/// The input cut at NUL bytes into `N` texts (the last one takes the rest; missing ones are
/// empty), so one byte string carries several structured fields.
fn fields<const N: usize>(data: &[u8]) -> [String; N] {
    let mut parts = data.splitn(N, |byte| *byte == 0);
    std::array::from_fn(|_| String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned())
}

/// `Authorization` parsing: accepted credentials are exactly what the header's canonical
/// base64 holds and survive a round trip; another scheme is reported only when the scheme
/// really is another. The input is also read as `user NUL password` for the round trip.
pub fn basic(data: &[u8]) {
    match parse_authorization(data) {
        AuthorizationHeader::Basic(credentials) => {
            let text = std::str::from_utf8(data)
                .expect("accepted headers are UTF-8")
                .trim();
            let (scheme, token) = text.split_once(' ').expect("a scheme and a token");
            assert!(scheme.eq_ignore_ascii_case("basic"), "{text:?}");
            let password = credentials.password.expose_secret();
            assert!(!credentials.username.is_empty() && !credentials.username.contains(':'));
            assert_eq!(
                STANDARD.encode(format!("{}:{password}", credentials.username)),
                token.trim(),
                "one header value per credential: only the canonical encoding is accepted"
            );
            round_trip(&credentials.username, password);
        }
        AuthorizationHeader::Bearer(token) => {
            let scheme = data.trim_ascii().get(..6).expect("a scheme");
            assert!(scheme.eq_ignore_ascii_case(b"bearer"), "{data:?}");
            assert_eq!(token, token.trim(), "the token is passed on trimmed");
        }
        AuthorizationHeader::OtherScheme => {
            let text = std::str::from_utf8(data)
                .expect("other schemes are UTF-8")
                .trim();
            let scheme = text.split(' ').next().unwrap_or_default();
            assert!(!scheme.eq_ignore_ascii_case("basic"), "{text:?}");
        }
        AuthorizationHeader::Malformed => {}
    }
    let [username, password] = fields::<2>(data);
    if !username.is_empty() && !username.contains(':') {
        round_trip(&username, &password);
    }
}

fn round_trip(username: &str, password: &str) {
    let value = basic_header_value(username, password);
    if value.len() > 4096 {
        return;
    }
    let AuthorizationHeader::Basic(again) = parse_authorization(value.as_bytes()) else {
        panic!("{value:?} was not read back");
    };
    assert_eq!(again.username, username);
    assert_eq!(again.password.expose_secret(), password);
}

const SECRET: &[u8] = b"fuzzing-secret-fuzzing-secret-32";
const SESSION: &str = "_authproxy_session";

/// The `Cookie` header as actix parses it, then the session cookie's signature and the sealed
/// sign-in cookie: `before NUL value NUL after` becomes `before; <session>=<signed value>; after`.
/// The genuine cookie verifies to exactly its value; nothing else ever verifies or opens.
pub fn cookies(data: &[u8]) {
    let [before, value, after] = fields::<3>(data);
    let signer =
        CookieSigner::new(SECRET, "", "https://auth.example.com/cb").expect("a long secret");
    // Session ids are cookie-octets (RFC 6265 §4.1.1); keep the fuzzer's value to those.
    let value: String = value
        .chars()
        .filter(
            |c| matches!(*c as u32, 0x21 | 0x23..=0x2b | 0x2d..=0x3a | 0x3c..=0x5b | 0x5d..=0x7e),
        )
        .collect();
    let genuine = signer.signed(SESSION, &value, std::time::Duration::from_secs(60));
    let set_cookie = genuine.to_string();
    let reparsed =
        actix_web::cookie::Cookie::parse(set_cookie.as_str()).expect("Set-Cookie parses");
    assert_eq!(
        (reparsed.name(), reparsed.value()),
        (SESSION, genuine.value())
    );

    let header = format!("{before}; {SESSION}={}; {after}", genuine.value());
    if let Ok(header) = HeaderValue::from_str(&header) {
        let request = TestRequest::default()
            .insert_header((COOKIE, header))
            .to_http_request();
        if let Ok(cookies) = request.cookies() {
            for cookie in cookies.iter() {
                assert_only_genuine_verifies(&signer, cookie.name(), cookie.value());
                if cookie.name() == SESSION && cookie.value() == genuine.value() {
                    let verified = signer.verify(SESSION, cookie.value());
                    assert_eq!(verified.as_deref(), Some(value.as_str()));
                }
            }
        }
        if let Some(found) = request.cookie(SESSION) {
            assert_only_genuine_verifies(&signer, SESSION, found.value());
        }
    }

    assert_only_genuine_verifies(&signer, SESSION, &before);
    assert_eq!(signer.open_sealed("p", &before), None);
    let sealed = signer.sealed(
        "p",
        before.as_bytes(),
        std::time::Duration::from_secs(60),
        "/",
    );
    let opened = signer.open_sealed("p", sealed.value());
    if sealed.value().len() <= 4096 {
        assert_eq!(opened.as_deref(), Some(before.as_bytes()));
    } else {
        assert_eq!(opened, None, "longer than a browser keeps");
    }
    assert_eq!(signer.open_sealed("q", sealed.value()), None);
}

/// A cookie value verifies only when it is exactly what the signer makes for the value it
/// verifies to (the fuzzer may learn a genuine signature from the comparisons it watches).
fn assert_only_genuine_verifies(signer: &CookieSigner, name: &str, raw: &str) {
    if let Some(verified) = signer.verify(name, raw) {
        let made = signer.signed(name, &verified, std::time::Duration::from_secs(60));
        assert_eq!(
            made.value(),
            raw,
            "{raw:?} verified as {verified:?} under {name:?}"
        );
    }
}

/// The redirect policy: `cookie_domain NUL host NUL rd`. A target it keeps is a header-safe
/// path on this host or an absolute http(s) URL on the request's host or inside the cookie
/// domain, and checking it again keeps it unchanged.
pub fn redirect(data: &[u8]) {
    let [domain, host, rd] = fields::<3>(data);
    let policy = RedirectPolicy::new(&domain);
    let host = (!host.is_empty()).then_some(host.as_str());
    let Some(target) = policy.check(&rd, host) else {
        return;
    };
    let target = target.as_str();
    assert!(target.len() <= MAX_TARGET_LEN);
    assert!(
        target.bytes().all(|byte| byte.is_ascii_graphic()),
        "{target:?} is not safe in a Location header"
    );
    assert_eq!(
        policy.check(target, host).as_ref().map(|t| t.as_str()),
        Some(target),
        "a kept target is kept as it is"
    );
    if target.starts_with('/') {
        assert_local_path(target);
        return;
    }
    let url = Url::parse(target).expect("an absolute target is a URL");
    assert!(matches!(url.scheme(), "http" | "https"), "{target}");
    assert!(
        url.username().is_empty() && url.password().is_none(),
        "{target}"
    );
    let url_host = url.host_str().expect("a host").to_owned();
    let domain = domain.trim().trim_start_matches('.').to_ascii_lowercase();
    let in_domain = !domain.is_empty()
        && (url_host == domain || url_host.ends_with(&format!(".{domain}")))
        && url_host.parse::<std::net::IpAddr>().is_err()
        && !url_host.starts_with('[');
    let request_host = host
        .and_then(|host| Url::parse(&format!("http://{}/", host.trim())).ok())
        .and_then(|origin| origin.host_str().map(str::to_owned));
    let own_host =
        request_host.as_deref() == Some(url_host.as_str()) || url_host == "authproxy.invalid";
    assert!(in_domain || own_host, "{target} leaves the allowed hosts");
}

/// A path every reader takes as a path on this host: also once or twice percent-decoded and
/// with `\` read as `/`, and once a browser resolves it.
fn assert_local_path(target: &str) {
    let path = target.split(['?', '#']).next().unwrap_or_default();
    let once = percent_encoding::percent_decode_str(path)
        .decode_utf8_lossy()
        .into_owned();
    let twice = percent_encoding::percent_decode_str(&once)
        .decode_utf8_lossy()
        .into_owned();
    for form in [path, &once, &twice] {
        let form = form.replace('\\', "/");
        assert!(
            form.starts_with('/') && !form.starts_with("//"),
            "{target:?}"
        );
    }
    let base = Url::parse("https://app.example.test/").expect("a URL");
    let resolved = base.join(target).expect("a path resolves");
    assert_eq!(resolved.host_str(), Some("app.example.test"), "{target:?}");
}

/// Where the configuration oracle's equivalence check puts a value (`@`): strings, numbers,
/// durations, lists and enums, at the top and inside list items.
const CONFIG_TEMPLATES: &[&str] = &[
    "server:\n  host: @\n",
    "server:\n  mode: @\n",
    "server:\n  trusted_proxies: [@]\n",
    "session:\n  secret: @\n  cookie_domain: .example.com\n",
    "session:\n  cookie_domain: @\n",
    "oidc:\n  enabled: true\n  issuer_url: @\n  client_id: c\n  redirect_url: https://a.example.com/cb\n",
    "search:\n  url: @\n",
    "cache:\n  credential_ttl: @\n",
];

/// Configuration loading (`service_kit::config::oracle::load`): `yaml NUL NAME=value NUL …`.
pub fn config(data: &[u8]) {
    service_kit::config::oracle::load::<crate::Settings>("AUTHPROXY", CONFIG_TEMPLATES, data);
}
