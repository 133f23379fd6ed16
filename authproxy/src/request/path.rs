//! A request path as the search cluster will read it, for `authorization.request_rules`: the
//! segments between `/`, each percent-decoded once (Elasticsearch and OpenSearch decode path
//! components once: `/%5Fsecurity/user` is `/_security/user` to them). The query is not part
//! of the path.
//!
//! Only paths with one reading are normalised; anything that one component of the chain (a
//! front proxy, the cluster's router) might read differently from another is [`Ambiguous`],
//! and a request with such a path is refused whenever a request rule applies to the caller:
//! - dot segments `.` and `..` (also encoded, `%2e%2e`): nginx resolves them, the cluster does
//!   not;
//! - empty segments (`//`) other than one trailing slash;
//! - an encoded `/` or `\` (`%2F`, `%5C`), a `%` left after decoding (`%255F`, a second
//!   decoding would change the path), `;` (path parameters to some proxies), `\`;
//! - a `%` not followed by two hex digits, decoded bytes that are not UTF-8, control
//!   characters, anything outside visible ASCII in the raw path, and a path not starting with
//!   `/`.

/// The path cannot be read unambiguously (the reason, for the log record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("ambiguous path: {0}")]
pub struct Ambiguous(pub &'static str);

/// The decoded segments of `raw` (a path, or a path with `?query`/`#fragment`, which is cut
/// off), without the trailing slash; `/` is no segment at all.
pub fn normalise(raw: &str) -> Result<Vec<String>, Ambiguous> {
    let path = raw.split(['?', '#']).next().unwrap_or(raw);
    let Some(rest) = path.strip_prefix('/') else {
        return Err(Ambiguous("does not start with '/'"));
    };
    if !path.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(Ambiguous("a character outside visible ASCII"));
    }
    if path.contains([';', '\\']) {
        return Err(Ambiguous("';' or '\\'"));
    }
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    if rest.is_empty() {
        return Ok(Vec::new());
    }
    rest.split('/').map(decode_segment).collect()
}

fn decode_segment(raw: &str) -> Result<String, Ambiguous> {
    if raw.is_empty() {
        return Err(Ambiguous("an empty segment"));
    }
    let bytes = raw.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = |b: Option<&u8>| b.and_then(|b| (*b as char).to_digit(16));
            match (hex(bytes.get(i + 1)), hex(bytes.get(i + 2))) {
                (Some(high), Some(low)) => decoded.push((high * 16 + low) as u8),
                _ => return Err(Ambiguous("a '%' without two hex digits")),
            }
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    let segment = String::from_utf8(decoded).map_err(|_| Ambiguous("decoded bytes not UTF-8"))?;
    if segment
        .chars()
        .any(|c| c.is_control() || matches!(c, '/' | '\\' | '%' | ';'))
    {
        return Err(Ambiguous(
            "an encoded '/', '\\', '%', ';' or control character",
        ));
    }
    if segment == "." || segment == ".." {
        return Err(Ambiguous("a dot segment"));
    }
    Ok(segment)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn canonical_paths_are_read_as_the_cluster_reads_them() {
        assert_eq!(normalise("/").unwrap(), Vec::<String>::new());
        assert_eq!(normalise("/_security/user").unwrap(), ["_security", "user"]);
        assert_eq!(
            normalise("/%5Fsecurity/user").unwrap(),
            ["_security", "user"]
        );
        assert_eq!(
            normalise("/%5fsecurity/%75ser").unwrap(),
            ["_security", "user"]
        );
        assert_eq!(normalise("/_security/").unwrap(), ["_security"]);
        assert_eq!(
            normalise("/logs/_search?q=a/../b;c").unwrap(),
            ["logs", "_search"]
        );
        assert_eq!(normalise("/logs#/_security").unwrap(), ["logs"]);
        assert_eq!(normalise("/caf%C3%A9").unwrap(), ["café"]);
    }

    #[test]
    fn paths_with_two_readings_are_ambiguous() {
        for raw in [
            "",
            "_security",
            "*",
            "http://x/_security",
            "//_security",
            "/_security//user",
            "/./_security",
            "/x/../_security",
            "/x/%2e%2e/_security",
            "/x/%2E./_security",
            "/.",
            "/..",
            "/_security/user/..",
            "/x%2F_security",
            "/x%2f..%2f_security",
            "/%255Fsecurity",
            "/_security;x=1/user",
            "/x;/../_security",
            "/x\\..\\_security",
            "/x%5C_security",
            "/%5",
            "/%zz_security",
            "/%C3",
            "/%00_security",
            "/a%0Ab",
            "/a b",
            "/caf\u{e9}",
            "/a\tb",
        ] {
            assert!(normalise(raw).is_err(), "{raw:?} was {:?}", normalise(raw));
        }
    }

    proptest! {
        /// Whatever the input: no panic; a normalised path has no empty, dot, `/`, `%` or `;`
        /// segment; and encoding every byte of a canonical path decodes to the same segments.
        #[test]
        fn normalising_is_total_and_canonical(raw in "[/%.;a-zA-Z0-9_\\\\?#\\x00-\\x7f]{0,40}") {
            if let Ok(segments) = normalise(&raw) {
                for segment in &segments {
                    prop_assert!(!segment.is_empty() && segment != "." && segment != "..");
                    prop_assert!(!segment.contains(['/', '%', ';', '\\']));
                }
                let encoded: String = segments
                    .iter()
                    .map(|segment| {
                        let bytes: String = segment.bytes().map(|b| format!("%{b:02X}")).collect();
                        format!("/{bytes}")
                    })
                    .collect();
                let encoded = if encoded.is_empty() { "/".to_owned() } else { encoded };
                prop_assert_eq!(normalise(&encoded).unwrap(), segments);
            }
        }
    }
}
