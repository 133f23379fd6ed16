//! Which values an annotation accepts, as the catalogue states them (`value` of an entry), and
//! the check of one value against that. The forms are the controllers' own: nginx sizes (`8m`),
//! plain integers for nginx's timeouts (seconds), HAProxy durations (`30s`), booleans as
//! `"true"`/`"false"`, CIDR lists, `namespace/name` references.

use std::net::IpAddr;

use serde::Deserialize;

/// The form of an annotation's value.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum ValueRule {
    Bool,
    Integer {
        min: i64,
        max: i64,
    },
    /// One of `values` (as written: the controllers compare case-sensitively).
    Enum {
        values: Vec<String>,
    },
    /// Several of `values`, separated by spaces or commas.
    EnumList {
        values: Vec<String>,
    },
    /// An nginx size: digits with an optional `k`, `m` or `g` (either case).
    Size,
    /// A duration: digits with an optional unit (`ms`, `s`, `m`, `h`, `d`).
    Duration,
    /// An absolute http(s) URL.
    Url,
    /// IP addresses or CIDR ranges, comma-separated.
    Cidrs,
    /// `namespace/name` or `name` of an object.
    ObjectRef,
    /// Host names, comma-separated.
    Hosts,
    /// Integers (status codes), comma-separated.
    Integers,
    /// An HTTP header name (an RFC 9110 token).
    HeaderName,
    /// Any text: not checked.
    String,
}

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Checked {
    Valid,
    /// Why not, naming the expected form.
    Invalid(String),
    /// Free text: nothing to check.
    Unchecked,
}

impl ValueRule {
    /// What a valid value looks like, in words.
    pub fn expected(&self) -> String {
        match self {
            Self::Bool => "\"true\" or \"false\"".to_owned(),
            Self::Integer { min, max } => format!("an integer from {min} to {max}"),
            Self::Enum { values } => format!("one of {}", values.join(", ")),
            Self::EnumList { values } => format!("some of {}", values.join(", ")),
            Self::Size => "a size such as 8m, 512k or 1g (0: no limit)".to_owned(),
            Self::Duration => "a duration such as 30s, 500ms or 5m".to_owned(),
            Self::Url => "an absolute http:// or https:// URL".to_owned(),
            Self::Cidrs => "IP addresses or CIDR ranges, comma-separated".to_owned(),
            Self::ObjectRef => "namespace/name or name".to_owned(),
            Self::Hosts => "host names, comma-separated".to_owned(),
            Self::Integers => "integers, comma-separated".to_owned(),
            Self::HeaderName => "an HTTP header name".to_owned(),
            Self::String => "any text".to_owned(),
        }
    }

    pub fn check(&self, value: &str) -> Checked {
        let valid = match self {
            Self::String => return Checked::Unchecked,
            Self::Bool => matches!(value, "true" | "false"),
            Self::Integer { min, max } => value
                .parse::<i64>()
                .is_ok_and(|number| (*min..=*max).contains(&number)),
            Self::Enum { values } => values.iter().any(|allowed| allowed == value),
            Self::EnumList { values } => {
                let mut items = value
                    .split([' ', ','])
                    .filter(|item| !item.is_empty())
                    .peekable();
                items.peek().is_some() && items.all(|item| values.iter().any(|v| v == item))
            }
            Self::Size => is_number_with_unit(value, &["", "k", "K", "m", "M", "g", "G"]),
            Self::Duration => is_number_with_unit(value, &["", "ms", "s", "m", "h", "d"]),
            Self::Url => is_url(value),
            Self::Cidrs => list(value).all(is_cidr),
            Self::ObjectRef => match value.split_once('/') {
                Some((namespace, name)) => is_label(namespace) && is_subdomain(name),
                None => is_subdomain(value),
            },
            Self::Hosts => list(value).all(is_host),
            Self::Integers => list(value).all(|item| item.parse::<u16>().is_ok()),
            Self::HeaderName => is_token(value),
        };
        if valid {
            Checked::Valid
        } else {
            Checked::Invalid(format!("expected {}", self.expected()))
        }
    }
}

/// Comma-separated items, trimmed; an empty value has one empty item (invalid everywhere).
fn list(value: &str) -> impl Iterator<Item = &str> {
    value.split(',').map(str::trim)
}

fn is_number_with_unit(value: &str, units: &[&str]) -> bool {
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    digits > 0 && digits <= 18 && units.contains(&&value[digits..])
}

fn is_url(value: &str) -> bool {
    let rest = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"));
    rest.is_some_and(|rest| {
        let host = rest.split(['/', '?', '#']).next().unwrap_or("");
        !host.is_empty() && !value.chars().any(|c| c.is_whitespace() || c.is_control())
    })
}

fn is_cidr(item: &str) -> bool {
    let (address, bits) = match item.split_once('/') {
        Some((address, bits)) => (address, Some(bits)),
        None => (item, None),
    };
    let Ok(address) = address.parse::<IpAddr>() else {
        return false;
    };
    let longest = if address.is_ipv4() { 32 } else { 128 };
    bits.is_none_or(|bits| bits.parse::<u8>().is_ok_and(|bits| bits <= longest))
}

fn is_label(text: &str) -> bool {
    crate::names::is_dns1123_label(text)
}

fn is_subdomain(text: &str) -> bool {
    text.len() <= 253 && text.split('.').all(is_label)
}

/// A host name, or a wildcard one (`*.example.com`).
fn is_host(text: &str) -> bool {
    is_subdomain(text.strip_prefix("*.").unwrap_or(text))
}

fn is_token(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 256
        && text
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&byte))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(json: &str) -> ValueRule {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn each_form_accepts_its_values_and_refuses_others() {
        let cases: &[(&str, &[&str], &[&str])] = &[
            (
                r#"{"type":"bool"}"#,
                &["true", "false"],
                &["yes", "True", "1", ""],
            ),
            (
                r#"{"type":"integer","min":0,"max":100}"#,
                &["0", "42", "100"],
                &["-1", "101", "4.5", "", "9999999999999999999999"],
            ),
            (
                r#"{"type":"size"}"#,
                &["8m", "512k", "1G", "0", "100"],
                &["8mb", "m", "-1m", "8 m", ""],
            ),
            (
                r#"{"type":"duration"}"#,
                &["30s", "500ms", "5m", "10"],
                &["30 s", "s", "1y"],
            ),
            (
                r#"{"type":"enum","values":["on","off"]}"#,
                &["on", "off"],
                &["On", "yes", ""],
            ),
            (
                r#"{"type":"enum_list","values":["error","timeout","http_502"]}"#,
                &["error timeout", "error,http_502", "timeout"],
                &["", "error nope", " "],
            ),
            (
                r#"{"type":"url"}"#,
                &["https://example.com/x?y=1", "http://auth.svc:8080/"],
                &[
                    "example.com",
                    "ftp://x",
                    "https://",
                    "https://a b",
                    "javascript:alert(1)",
                ],
            ),
            (
                r#"{"type":"cidrs"}"#,
                &["10.0.0.0/8", "10.0.0.1, 192.168.0.0/16", "::1/128"],
                &["10.0.0.0/33", "10.0.0", "", "10.0.0.0/8,"],
            ),
            (
                r#"{"type":"object_ref"}"#,
                &["team-a/basic-auth", "basic-auth"],
                &["a/b/c", "Team/x", "/x", ""],
            ),
            (
                r#"{"type":"hosts"}"#,
                &["a.example.com", "*.example.com, b.example.com"],
                &["a b", "", "A.example.com"],
            ),
            (
                r#"{"type":"integers"}"#,
                &["404", "404,503"],
                &["404,x", "", "70000"],
            ),
            (
                r#"{"type":"header_name"}"#,
                &["X-Canary"],
                &["X Canary", "", "a:b"],
            ),
        ];
        for (json, valid, invalid) in cases {
            let rule = rule(json);
            for value in *valid {
                assert_eq!(rule.check(value), Checked::Valid, "{json} {value:?}");
            }
            for value in *invalid {
                let Checked::Invalid(why) = rule.check(value) else {
                    panic!("{json} accepted {value:?}")
                };
                assert!(why.starts_with("expected "), "{why}");
            }
        }
        assert_eq!(
            rule(r#"{"type":"string"}"#).check("anything"),
            Checked::Unchecked
        );
    }

    #[test]
    fn an_unknown_form_in_a_file_is_refused() {
        assert!(serde_json::from_str::<ValueRule>(r#"{"type":"colour"}"#).is_err());
        assert!(serde_json::from_str::<ValueRule>(r#"{"type":"integer","min":0}"#).is_err());
    }
}
