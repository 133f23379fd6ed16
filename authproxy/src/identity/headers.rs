//! The identity headers of a forward_auth answer, which the applications behind the reverse
//! proxy read: `X-Auth-Request-User`, `X-Auth-Request-Email`, `X-Auth-Request-Groups`.
//!
//! Format (what docs/access-control.md promises):
//! - values are the identity's own text (UTF-8), never rewritten or encoded;
//! - `X-Auth-Request-Groups` is the groups joined by `,` without spaces, in the identity's
//!   order, each at most once;
//! - a value that cannot be carried unambiguously is left out, never altered: a user name or
//!   address with a control character (CR, LF, NUL, ...) or longer than [`MAX_VALUE_BYTES`]
//!   leaves its header out; a group that is empty, contains a comma or a control character,
//!   starts or ends with white space, or is longer than [`MAX_GROUP_BYTES`] is dropped from the
//!   list (so `ops,admin` can never read as the two groups `ops` and `admin`);
//! - the groups header stays under [`MAX_GROUPS_BYTES`] (nginx keeps the whole header of its
//!   auth sub-request's answer in one buffer, `proxy_buffer_size`, 4 KiB on most systems, and
//!   answers 502 when it overflows): groups that no longer fit are dropped.
//!
//! Dropping only ever removes a group, so it can withhold access downstream, never grant it.
//! An application must treat a missing `X-Auth-Request-User` as "not signed in".

use actix_web::http::header::{HeaderName, HeaderValue};

use super::Identity;

pub const USER: HeaderName = HeaderName::from_static("x-auth-request-user");
pub const EMAIL: HeaderName = HeaderName::from_static("x-auth-request-email");
pub const GROUPS: HeaderName = HeaderName::from_static("x-auth-request-groups");

/// Longest user name or address passed on.
pub const MAX_VALUE_BYTES: usize = 512;
/// Longest single group passed on.
pub const MAX_GROUP_BYTES: usize = 256;
/// Longest `X-Auth-Request-Groups` value.
pub const MAX_GROUPS_BYTES: usize = 2048;

/// The headers for one identity and what had to be left out.
#[derive(Debug, Default)]
pub struct IdentityHeaders {
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The user name or address was left out.
    pub omitted_values: usize,
    /// Groups dropped as unsafe or because the header was full.
    pub dropped_groups: usize,
}

impl IdentityHeaders {
    pub fn of(identity: &Identity) -> Self {
        let mut out = Self::default();
        for (name, value) in [(USER, &identity.username), (EMAIL, &identity.email)] {
            if value.is_empty() {
                continue;
            }
            match carried(value, MAX_VALUE_BYTES) {
                Some(value) => out.headers.push((name, value)),
                None => out.omitted_values += 1,
            }
        }
        let mut groups = String::new();
        let mut seen = std::collections::HashSet::new();
        for group in &identity.groups {
            if !is_carried_group(group) {
                out.dropped_groups += 1;
                continue;
            }
            if !seen.insert(group.as_str()) {
                continue;
            }
            let needed = group.len() + usize::from(!groups.is_empty());
            if groups.len() + needed > MAX_GROUPS_BYTES {
                out.dropped_groups += 1;
                continue;
            }
            if !groups.is_empty() {
                groups.push(',');
            }
            groups.push_str(group);
        }
        if !groups.is_empty()
            && let Ok(value) = HeaderValue::from_str(&groups)
        {
            out.headers.push((GROUPS, value));
        }
        out
    }
}

/// A header value for `text` as it is, if it can be one unambiguously.
fn carried(text: &str, limit: usize) -> Option<HeaderValue> {
    if text.len() > limit || text.chars().any(char::is_control) {
        return None;
    }
    HeaderValue::from_str(text).ok()
}

fn is_carried_group(group: &str) -> bool {
    !group.is_empty()
        && group.len() <= MAX_GROUP_BYTES
        && !group.contains(',')
        && !group.chars().any(char::is_control)
        && group.trim() == group
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn identity(username: &str, email: &str, groups: &[&str]) -> Identity {
        let groups: Vec<String> = groups.iter().map(|g| (*g).to_owned()).collect();
        Identity::local(username, email, username, &groups)
    }

    fn value(headers: &IdentityHeaders, name: &HeaderName) -> Option<String> {
        headers
            .headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| String::from_utf8(v.as_bytes().to_vec()).unwrap())
    }

    #[test]
    fn plain_values_pass_as_they_are() {
        let headers = IdentityHeaders::of(&identity(
            "ann",
            "ann@example.com",
            &["admins", "staff", "/Équipe A", "admins"],
        ));
        assert_eq!(value(&headers, &USER).as_deref(), Some("ann"));
        assert_eq!(value(&headers, &EMAIL).as_deref(), Some("ann@example.com"));
        assert_eq!(
            value(&headers, &GROUPS).as_deref(),
            Some("admins,staff,/Équipe A")
        );
        assert_eq!(headers.dropped_groups, 0);
    }

    #[test]
    fn hostile_values_are_left_out_never_rewritten() {
        let headers = IdentityHeaders::of(&identity(
            "ann",
            "ann@example.com\r\nX-Injected: 1",
            &[
                "ops,admins",
                "admins\r\nX-Injected: 1",
                "nul\0",
                " padded",
                "",
                "del\u{7f}",
                "next\u{85}line",
                "ok",
            ],
        ));
        assert_eq!(value(&headers, &EMAIL), None);
        assert_eq!(headers.omitted_values, 1);
        assert_eq!(value(&headers, &GROUPS).as_deref(), Some("ok"));
        assert_eq!(headers.dropped_groups, 7);
        let only_bad = IdentityHeaders::of(&identity("bob", "", &["a,b"]));
        assert_eq!(value(&only_bad, &GROUPS), None);
        assert_eq!(value(&only_bad, &EMAIL), None);
    }

    #[test]
    fn ten_thousand_groups_stay_within_the_bound() {
        let groups: Vec<String> = (0..10_000).map(|i| format!("group-{i:05}")).collect();
        let refs: Vec<&str> = groups.iter().map(String::as_str).collect();
        let headers = IdentityHeaders::of(&identity("ann", "", &refs));
        let joined = value(&headers, &GROUPS).unwrap();
        assert!(joined.len() <= MAX_GROUPS_BYTES);
        let kept: Vec<&str> = joined.split(',').collect();
        assert_eq!(kept, refs[..kept.len()]);
        assert_eq!(kept.len() + headers.dropped_groups, 10_000);
    }

    proptest! {
        /// Whatever the claims, every header is valid, bounded, and the groups header splits on
        /// `,` into exactly groups the identity has.
        #[test]
        fn headers_are_always_safe_and_faithful(
            username in "\\PC{0,40}|[\\x00-\\x7f]{0,40}",
            email in ".{0,40}|[\\x00-\\x7f]{0,40}",
            groups in proptest::collection::vec(".{0,12}|[a-z, \\r\\n]{0,12}", 0..400),
        ) {
            let refs: Vec<&str> = groups.iter().map(String::as_str).collect();
            let headers = IdentityHeaders::of(&identity(&username, &email, &refs));
            for (name, value) in &headers.headers {
                let text = std::str::from_utf8(value.as_bytes()).unwrap();
                prop_assert!(!text.chars().any(char::is_control), "{name}: {text:?}");
                let limit = if *name == GROUPS { MAX_GROUPS_BYTES } else { MAX_VALUE_BYTES };
                prop_assert!(text.len() <= limit);
                if *name == GROUPS {
                    for part in text.split(',') {
                        prop_assert!(groups.iter().any(|g| g == part), "{part:?}");
                    }
                }
            }
        }
    }
}
