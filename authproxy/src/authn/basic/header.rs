//! Parsing `Authorization: Basic <base64(user:password)>` (RFC 7617) without ever panicking,
//! and telling a `Bearer` token (RFC 6750) apart.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use secrecy::SecretString;

/// Decoded Basic credentials. The password never leaves a `SecretString`.
pub struct BasicCredentials {
    pub username: String,
    pub password: SecretString,
}

impl std::fmt::Debug for BasicCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BasicCredentials")
            .field("username", &self.username)
            .finish_non_exhaustive()
    }
}

/// What an `Authorization` header holds.
#[derive(Debug)]
pub enum AuthorizationHeader {
    Basic(BasicCredentials),
    /// `Bearer <token>`: the token as sent (verified by `authn::bearer`, which bounds its size).
    Bearer(String),
    /// Another scheme, which this proxy does not accept.
    OtherScheme,
    /// `Basic` with a value that is not base64 of UTF-8 `user:password`.
    Malformed,
}

/// Longest header value considered; longer ones are malformed (a username plus a password
/// never needs this much, and it bounds the work done on hostile input).
const MAX_HEADER_LEN: usize = 4096;

pub fn parse_authorization(value: &[u8]) -> AuthorizationHeader {
    let trimmed = value.trim_ascii();
    let scheme = trimmed.split(|b| *b == b' ').next().unwrap_or_default();
    if scheme.eq_ignore_ascii_case(b"bearer") {
        // The token is judged (and its size bounded) by the bearer verifier, which answers
        // with an RFC 6750 challenge; only text is passed on.
        return match std::str::from_utf8(&trimmed[scheme.len()..]) {
            Ok(token) => AuthorizationHeader::Bearer(token.trim().to_owned()),
            Err(_) => AuthorizationHeader::Bearer(String::new()),
        };
    }
    if value.len() > MAX_HEADER_LEN {
        return AuthorizationHeader::Malformed;
    }
    let Ok(text) = std::str::from_utf8(value) else {
        return AuthorizationHeader::Malformed;
    };
    let text = text.trim();
    let (scheme, rest) = text.split_once(' ').unwrap_or((text, ""));
    if !scheme.eq_ignore_ascii_case("basic") {
        return AuthorizationHeader::OtherScheme;
    }
    let Ok(decoded) = STANDARD.decode(rest.trim()) else {
        return AuthorizationHeader::Malformed;
    };
    let Ok(decoded) = String::from_utf8(decoded) else {
        return AuthorizationHeader::Malformed;
    };
    match decoded.split_once(':') {
        Some((username, password)) if !username.is_empty() => {
            AuthorizationHeader::Basic(BasicCredentials {
                username: username.to_owned(),
                password: SecretString::from(password),
            })
        }
        _ => AuthorizationHeader::Malformed,
    }
}

/// `Basic base64(user:password)`, for the managed credential sent to the search cluster.
pub fn basic_header_value(username: &str, password: &str) -> String {
    format!(
        "Basic {}",
        STANDARD.encode(format!("{username}:{password}"))
    )
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use secrecy::ExposeSecret;

    use super::*;

    #[test]
    fn parses_basic_and_rejects_the_rest() {
        let value = basic_header_value("ann", "pa:ss wörd");
        let AuthorizationHeader::Basic(credentials) = parse_authorization(value.as_bytes()) else {
            panic!("not basic")
        };
        assert_eq!(credentials.username, "ann");
        assert_eq!(credentials.password.expose_secret(), "pa:ss wörd");
        assert!(matches!(
            parse_authorization(b"bAsIc YW5uOng="),
            AuthorizationHeader::Basic(_)
        ));
        assert!(matches!(
            parse_authorization(b" bEaReR  a.b.c "),
            AuthorizationHeader::Bearer(token) if token == "a.b.c"
        ));
        assert!(matches!(
            parse_authorization(b"Bearer"),
            AuthorizationHeader::Bearer(token) if token.is_empty()
        ));
        assert!(matches!(
            parse_authorization(b"Bearerx abc"),
            AuthorizationHeader::OtherScheme
        ));
        assert!(matches!(
            parse_authorization(b"Digest abc"),
            AuthorizationHeader::OtherScheme
        ));
        for bad in [
            &b"Basic"[..],
            b"Basic !!!",
            b"Basic bm9jb2xvbg==",
            b"Basic OnB3",
            b"\xff\xfe",
        ] {
            assert!(
                matches!(parse_authorization(bad), AuthorizationHeader::Malformed),
                "{bad:?}"
            );
        }
        assert!(!format!("{credentials:?}").contains("wörd"));
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(value in proptest::collection::vec(any::<u8>(), 0..600)) {
            let _ = parse_authorization(&value);
        }

        #[test]
        fn valid_credentials_round_trip(
            username in "[^:\\x00-\\x1f]{1,40}",
            password in "\\PC{0,60}",
            scheme in prop::sample::select(vec!["Basic", "basic", "BASIC", "bAsIc"]),
            spaces in " {0,3}",
        ) {
            let value = basic_header_value(&username, &password);
            let value = format!("{spaces}{scheme}{}{spaces}", &value["Basic".len()..]);
            let AuthorizationHeader::Basic(credentials) = parse_authorization(value.as_bytes())
            else {
                return Err(TestCaseError::fail(format!("{value:?} was not parsed")));
            };
            prop_assert_eq!(credentials.username, username);
            prop_assert_eq!(credentials.password.expose_secret(), password.as_str());
        }

        #[test]
        fn a_changed_header_never_yields_other_credentials_silently(
            username in "[a-z]{1,12}",
            password in "[a-z0-9]{0,12}",
            position in 6usize..200,
            replacement in prop::sample::select(vec![b'!', b'*', b' ', b'.', 0xff]),
        ) {
            // A byte outside the base64 alphabet anywhere in the value makes it malformed: it is
            // never decoded into some other user's credentials.
            let mut value = basic_header_value(&username, &password).into_bytes();
            let at = position % value.len();
            prop_assume!(at >= "Basic ".len() && value[at] != b'=');
            value[at] = replacement;
            prop_assert!(
                matches!(parse_authorization(&value), AuthorizationHeader::Malformed),
                "{:?}",
                String::from_utf8_lossy(&value)
            );
        }

        #[test]
        fn arbitrary_basic_payloads_never_panic(payload in ".{0,200}") {
            let _ = parse_authorization(format!("Basic {payload}").as_bytes());
            let encoded = STANDARD.encode(payload.as_bytes());
            let _ = parse_authorization(format!("Basic {encoded}").as_bytes());
        }
    }
}
