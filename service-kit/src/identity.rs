//! Who a request is from, when a service sits behind authproxy (or another forward-auth proxy)
//! that signs users in and passes their identity in `X-Auth-Request-User`,
//! `X-Auth-Request-Email` and `X-Auth-Request-Groups`.
//!
//! Those headers are believed only when the TCP peer is one of `server.trusted_proxies`: anyone
//! else could simply send them. In `trusted_headers` mode a request from any other peer, or one
//! from a trusted peer without a user, is refused with 401 `unauthenticated`; in `open` mode no
//! header is read at all and everyone is anonymous.
//!
//! Use [`identify`] from plain code, or take [`Identity`] as an actix extractor after adding
//! [`IdentitySource`] as app data (`web::Data<IdentitySource>`).

use std::future::{Ready, ready};
use std::net::IpAddr;

use actix_web::dev::Payload;
use actix_web::http::StatusCode;
use actix_web::http::header::HeaderMap;
use actix_web::{FromRequest, HttpRequest, web};
use serde::{Deserialize, Serialize};

use crate::client_address::TrustedProxies;
use crate::http::Rejection;

/// The user name header.
pub const USER_HEADER: &str = "x-auth-request-user";
/// The e-mail address header.
pub const EMAIL_HEADER: &str = "x-auth-request-email";
/// The groups header: names joined by `,`.
pub const GROUPS_HEADER: &str = "x-auth-request-groups";

/// Longest user name or address believed (authproxy never sends longer).
const MAX_VALUE_BYTES: usize = 512;
/// Longest group name kept.
const MAX_GROUP_BYTES: usize = 256;
/// At most this many groups are kept (authproxy sends at most 2048 bytes of them).
const MAX_GROUPS: usize = 1024;

/// How a service learns who is calling (`access.mode`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessMode {
    /// No sign-in in front of the service: every caller is anonymous.
    #[default]
    Open,
    /// A trusted reverse proxy (authproxy's forward_auth) signs users in and sends the
    /// `X-Auth-Request-*` headers.
    TrustedHeaders,
}

impl AccessMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::TrustedHeaders => "trusted_headers",
        }
    }

    /// The warning of every service with an `access.mode`: `trusted_headers` without
    /// `server.trusted_proxies` refuses every caller.
    pub fn warn_without_trusted_proxies(
        self,
        trusted_proxies: &TrustedProxies,
        warnings: &mut crate::config::ConfigProblems,
    ) {
        warnings.check(
            self != Self::TrustedHeaders || !trusted_proxies.is_empty(),
            "server.trusted_proxies",
            "is empty with access.mode trusted_headers: every request is refused with 401 \
             (identity headers are believed only from trusted proxies); list authproxy's or \
             the reverse proxy's addresses",
        );
    }
}

/// The caller. Anonymous (no user) only in `open` mode; in `trusted_headers` mode `user` is
/// always set.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Identity {
    pub user: Option<String>,
    pub email: Option<String>,
    /// Each once, in the order the proxy sent them.
    pub groups: Vec<String>,
}

impl Identity {
    /// Nobody in particular (`open` mode).
    pub fn anonymous() -> Self {
        Self::default()
    }

    pub fn is_anonymous(&self) -> bool {
        self.user.is_none()
    }
}

/// What [`Identity`]'s extractor needs, as app data (`web::Data<IdentitySource>`).
#[derive(Debug, Clone, Default)]
pub struct IdentitySource {
    pub mode: AccessMode,
    pub trusted_proxies: TrustedProxies,
}

impl IdentitySource {
    pub fn new(mode: AccessMode, trusted_proxies: TrustedProxies) -> Self {
        Self {
            mode,
            trusted_proxies,
        }
    }

    /// [`identify`] with this source.
    pub fn identify(
        &self,
        peer: Option<IpAddr>,
        headers: &HeaderMap,
    ) -> Result<Identity, Unauthenticated> {
        identify(self.mode, &self.trusted_proxies, peer, headers)
    }
}

/// Why a request has no identity in `trusted_headers` mode; answers 401 `unauthenticated`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Unauthenticated {
    #[error("This service accepts only requests passed on by its trusted sign-in proxy.")]
    UntrustedPeer,
    #[error("The request carries no signed-in user.")]
    NoUser,
    #[error("The request's identity headers are not valid.")]
    InvalidHeaders,
}

impl Unauthenticated {
    pub const CODE: &'static str = "unauthenticated";

    /// The common error body with status 401.
    pub fn rejection(self) -> Rejection {
        Rejection::new(StatusCode::UNAUTHORIZED, Self::CODE, self.to_string())
    }
}

impl From<Unauthenticated> for actix_web::Error {
    fn from(reason: Unauthenticated) -> Self {
        reason.rejection().into()
    }
}

/// The caller of a request that came from `peer` with `headers`.
///
/// `open`: anonymous, headers not read. `trusted_headers`: the peer must be a trusted proxy
/// (identity headers from anyone else are never believed), and it must name a user; a header
/// sent twice, or a user or address with a control character, is refused rather than guessed at.
pub fn identify(
    mode: AccessMode,
    trusted_proxies: &TrustedProxies,
    peer: Option<IpAddr>,
    headers: &HeaderMap,
) -> Result<Identity, Unauthenticated> {
    if mode == AccessMode::Open {
        return Ok(Identity::anonymous());
    }
    match peer {
        Some(peer) if trusted_proxies.contains(peer) => {}
        _ => return Err(Unauthenticated::UntrustedPeer),
    }
    let user = single_value(headers, USER_HEADER)?.ok_or(Unauthenticated::NoUser)?;
    let email = single_value(headers, EMAIL_HEADER)?;
    let groups = match single_raw(headers, GROUPS_HEADER)? {
        Some(raw) => parse_groups(raw),
        None => Vec::new(),
    };
    Ok(Identity {
        user: Some(user),
        email,
        groups,
    })
}

/// The header's one value as UTF-8 text; `None` when absent (or empty). Sent more than once, not
/// UTF-8, too long or with a control character: refused.
fn single_value(headers: &HeaderMap, name: &str) -> Result<Option<String>, Unauthenticated> {
    let Some(raw) = single_raw(headers, name)? else {
        return Ok(None);
    };
    let text = raw.trim();
    if text.is_empty() {
        return Ok(None);
    }
    if text.len() > MAX_VALUE_BYTES || text.chars().any(char::is_control) {
        return Err(Unauthenticated::InvalidHeaders);
    }
    Ok(Some(text.to_owned()))
}

fn single_raw<'a>(headers: &'a HeaderMap, name: &str) -> Result<Option<&'a str>, Unauthenticated> {
    let mut values = headers.get_all(name);
    let Some(first) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(Unauthenticated::InvalidHeaders);
    }
    std::str::from_utf8(first.as_bytes())
        .map(Some)
        .map_err(|_| Unauthenticated::InvalidHeaders)
}

/// `a,b,c` → each group once; empty names, names with a control character and overlong names
/// are dropped (authproxy never sends them).
fn parse_groups(raw: &str) -> Vec<String> {
    let mut groups: Vec<String> = Vec::new();
    for group in raw.split(',').map(str::trim) {
        if group.is_empty()
            || group.len() > MAX_GROUP_BYTES
            || group.chars().any(char::is_control)
            || groups.iter().any(|known| known == group)
        {
            continue;
        }
        if groups.len() == MAX_GROUPS {
            break;
        }
        groups.push(group.to_owned());
    }
    groups
}

impl FromRequest for Identity {
    type Error = actix_web::Error;
    type Future = Ready<Result<Self, Self::Error>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(source) = request.app_data::<web::Data<IdentitySource>>() else {
            // A service that takes `Identity` without configuring it: fail closed.
            return ready(Err(Rejection::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal",
                "The service's identity settings are missing.",
            )
            .into()));
        };
        let peer = request.peer_addr().map(|socket| socket.ip());
        ready(
            source
                .identify(peer, request.headers())
                .map_err(actix_web::Error::from),
        )
    }
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};

    use super::*;

    fn proxies() -> TrustedProxies {
        TrustedProxies::parse(&["10.0.0.0/8", "::1"]).unwrap()
    }

    fn ip(text: &str) -> Option<IpAddr> {
        Some(text.parse().unwrap())
    }

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.append(
                HeaderName::from_static(name),
                HeaderValue::from_bytes(value.as_bytes()).unwrap(),
            );
        }
        map
    }

    fn full() -> HeaderMap {
        headers(&[
            (USER_HEADER, "alice"),
            (EMAIL_HEADER, "alice@example.com"),
            (GROUPS_HEADER, "ops,admins,ops"),
        ])
    }

    #[test]
    fn identity_open_mode_is_anonymous_and_reads_no_header() {
        let id = identify(AccessMode::Open, &proxies(), ip("10.1.1.1"), &full()).unwrap();
        assert_eq!(id, Identity::anonymous());
        assert!(id.is_anonymous());
    }

    #[test]
    fn identity_headers_from_a_trusted_peer_are_believed() {
        let id = identify(
            AccessMode::TrustedHeaders,
            &proxies(),
            ip("10.1.1.1"),
            &full(),
        )
        .unwrap();
        assert_eq!(id.user.as_deref(), Some("alice"));
        assert_eq!(id.email.as_deref(), Some("alice@example.com"));
        assert_eq!(id.groups, ["ops", "admins"]);
        // IPv4-mapped IPv6 and IPv6 loopback peers.
        assert!(
            identify(
                AccessMode::TrustedHeaders,
                &proxies(),
                ip("::ffff:10.0.0.9"),
                &full()
            )
            .is_ok()
        );
        assert!(identify(AccessMode::TrustedHeaders, &proxies(), ip("::1"), &full()).is_ok());
    }

    #[test]
    fn identity_headers_from_an_untrusted_peer_are_refused() {
        for peer in [ip("8.8.8.8"), ip("127.0.0.1"), None] {
            assert_eq!(
                identify(AccessMode::TrustedHeaders, &proxies(), peer, &full()),
                Err(Unauthenticated::UntrustedPeer)
            );
        }
        // No trusted proxies at all: nobody gets in.
        assert_eq!(
            identify(
                AccessMode::TrustedHeaders,
                &TrustedProxies::default(),
                ip("10.1.1.1"),
                &full()
            ),
            Err(Unauthenticated::UntrustedPeer)
        );
    }

    #[test]
    fn identity_without_a_user_is_refused() {
        let no_user = headers(&[(EMAIL_HEADER, "a@example.com"), (GROUPS_HEADER, "admins")]);
        assert_eq!(
            identify(
                AccessMode::TrustedHeaders,
                &proxies(),
                ip("10.1.1.1"),
                &no_user
            ),
            Err(Unauthenticated::NoUser)
        );
        let empty_user = headers(&[(USER_HEADER, "  ")]);
        assert_eq!(
            identify(
                AccessMode::TrustedHeaders,
                &proxies(),
                ip("10.1.1.1"),
                &empty_user
            ),
            Err(Unauthenticated::NoUser)
        );
    }

    #[test]
    fn identity_ambiguous_or_hostile_headers_are_refused() {
        let twice = headers(&[(USER_HEADER, "alice"), (USER_HEADER, "admin")]);
        let groups_twice = headers(&[
            (USER_HEADER, "alice"),
            (GROUPS_HEADER, "ops"),
            (GROUPS_HEADER, "admins"),
        ]);
        let control = headers(&[(USER_HEADER, "ali\tce")]);
        let long = "a".repeat(MAX_VALUE_BYTES + 1);
        let overlong = headers(&[(USER_HEADER, long.as_str())]);
        for bad in [twice, groups_twice, control, overlong] {
            assert_eq!(
                identify(AccessMode::TrustedHeaders, &proxies(), ip("10.1.1.1"), &bad),
                Err(Unauthenticated::InvalidHeaders)
            );
        }
        let mut not_utf8 = HeaderMap::new();
        not_utf8.insert(
            HeaderName::from_static(USER_HEADER),
            HeaderValue::from_bytes(b"al\xffce").unwrap(),
        );
        assert_eq!(
            identify(
                AccessMode::TrustedHeaders,
                &proxies(),
                ip("10.1.1.1"),
                &not_utf8
            ),
            Err(Unauthenticated::InvalidHeaders)
        );
    }

    #[test]
    fn identity_groups_are_cleaned() {
        let long = "g".repeat(MAX_GROUP_BYTES + 1);
        let raw = format!("ops,, admins ,{long},ops,dev");
        let map = headers(&[(USER_HEADER, "bob"), (GROUPS_HEADER, raw.as_str())]);
        let id = identify(AccessMode::TrustedHeaders, &proxies(), ip("10.0.0.1"), &map).unwrap();
        assert_eq!(id.groups, ["ops", "admins", "dev"]);
        assert_eq!(id.email, None);
        let many = (0..5000)
            .map(|n| format!("g{n}"))
            .collect::<Vec<_>>()
            .join(",");
        let map = headers(&[(USER_HEADER, "bob"), (GROUPS_HEADER, many.as_str())]);
        let id = identify(AccessMode::TrustedHeaders, &proxies(), ip("10.0.0.1"), &map).unwrap();
        assert_eq!(id.groups.len(), MAX_GROUPS);
    }

    #[test]
    fn identity_mode_spelling() {
        let mode: AccessMode = serde_json::from_str("\"trusted_headers\"").unwrap();
        assert_eq!(mode, AccessMode::TrustedHeaders);
        assert_eq!(
            serde_json::to_string(&AccessMode::Open).unwrap(),
            "\"open\""
        );
        assert!(serde_json::from_str::<AccessMode>("\"closed\"").is_err());
        assert_eq!(
            Unauthenticated::NoUser.rejection().to_string(),
            "The request carries no signed-in user."
        );
    }

    #[actix_web::test]
    async fn identity_extractor_answers_401_in_the_common_body() {
        use actix_web::{App, HttpResponse, test};
        let app = test::init_service(
            App::new()
                .app_data(web::Data::new(IdentitySource::new(
                    AccessMode::TrustedHeaders,
                    proxies(),
                )))
                .route(
                    "/",
                    web::get().to(|id: Identity| async move {
                        HttpResponse::Ok().body(id.user.unwrap_or_default())
                    }),
                ),
        )
        .await;
        let untrusted = test::TestRequest::get()
            .uri("/")
            .peer_addr("192.0.2.1:5000".parse().unwrap())
            .insert_header((USER_HEADER, "alice"))
            .to_request();
        let response = test::call_service(&app, untrusted).await;
        assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
        let body: serde_json::Value = test::read_body_json(response).await;
        assert_eq!(body["error"]["code"], "unauthenticated");
        let trusted = test::TestRequest::get()
            .uri("/")
            .peer_addr("10.0.0.1:5000".parse().unwrap())
            .insert_header((USER_HEADER, "alice"))
            .to_request();
        let response = test::call_service(&app, trusted).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(test::read_body(response).await, "alice");
    }
}
