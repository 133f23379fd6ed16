//! The production guard: on a cluster configured with `environment: production`, every
//! state-changing call (the calls the audit log records, reads never) needs a reason typed by
//! the caller, sent in [`CHANGE_REASON_HEADER`] and written into the call's audit event.
//!
//! The header is hostile input: it is percent-decoded (browsers can only send Latin-1 header
//! values, so the web app sends UTF-8 percent-encoded; a plain ASCII reason needs no encoding),
//! must be UTF-8 text of 1 to [`MAX_REASON_CHARS`] characters after trimming, and may hold no
//! control character (line breaks, tabs, escape sequences) nor an invisible or
//! direction-changing one, so it cannot forge or hide anything in a log line. A refused value
//! is never logged or echoed.

use actix_web::http::header::HeaderMap;
use percent_encoding::percent_decode;

use crate::error::Error;

/// The request header carrying the reason.
pub(crate) const CHANGE_REASON_HEADER: &str = "x-change-reason";

/// The longest reason, in characters (after trimming).
pub(crate) const MAX_REASON_CHARS: usize = 500;

/// The reason of a call to the production cluster `cluster`: 428 `change_reason_required` when
/// the header is missing or blank, 400 `invalid_change_reason` when it is not acceptable.
pub(crate) fn change_reason(headers: &HeaderMap, cluster: &str) -> Result<String, Error> {
    let mut values = headers.get_all(CHANGE_REASON_HEADER);
    let Some(raw) = values.next() else {
        return Err(required(cluster, "no X-Change-Reason header was sent"));
    };
    if values.next().is_some() {
        return Err(invalid(
            "X-Change-Reason was sent more than once; send it once",
        ));
    }
    let decoded = percent_decode(raw.as_bytes()).collect::<Vec<u8>>();
    let Ok(text) = String::from_utf8(decoded) else {
        return Err(invalid(
            "X-Change-Reason is not UTF-8 text; send the reason percent-encoded \
             (encodeURIComponent)",
        ));
    };
    let reason = text.trim();
    if reason.is_empty() {
        return Err(required(cluster, "X-Change-Reason is empty"));
    }
    if reason.chars().any(char::is_control) {
        return Err(invalid(
            "X-Change-Reason contains control characters (line breaks, tabs, escapes); \
             write the reason on one line",
        ));
    }
    if reason.chars().any(is_invisible) {
        return Err(invalid(
            "X-Change-Reason contains invisible or direction-changing characters; \
             write the reason as plain text",
        ));
    }
    let length = reason.chars().count();
    if length > MAX_REASON_CHARS {
        return Err(invalid(&format!(
            "X-Change-Reason is {length} characters long; at most {MAX_REASON_CHARS} are kept \
             in the audit log, so shorten it"
        )));
    }
    Ok(reason.to_owned())
}

fn required(cluster: &str, what: &str) -> Error {
    Error::ChangeReasonRequired(format!(
        "Cluster {cluster} is a production cluster and {what}: say why you make this change in \
         the X-Change-Reason header (1 to {MAX_REASON_CHARS} characters, UTF-8 percent-encoded) \
         and send the request again."
    ))
}

fn invalid(what: &str) -> Error {
    Error::InvalidChangeReason(format!("{what}. Nothing was changed."))
}

/// Characters that show nothing or reorder what follows (zero-width, bidirectional controls,
/// line and paragraph separators, the byte-order mark).
fn is_invisible(character: char) -> bool {
    matches!(
        character,
        '\u{200B}'..='\u{200F}'
            | '\u{2028}'..='\u{202E}'
            | '\u{2060}'..='\u{2069}'
            | '\u{FEFF}'
            | '\u{00AD}'
    )
}

#[cfg(test)]
mod tests {
    use actix_web::http::header::{HeaderName, HeaderValue};
    use service_kit::http::ApiError;

    use super::*;

    fn reason_of(values: &[&[u8]]) -> Result<String, Error> {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(
                HeaderName::from_static(CHANGE_REASON_HEADER),
                HeaderValue::from_bytes(value).unwrap(),
            );
        }
        change_reason(&headers, "prod")
    }

    fn code(result: Result<String, Error>) -> &'static str {
        result.unwrap_err().code()
    }

    #[test]
    fn plain_and_encoded_reasons_are_kept_trimmed() {
        assert_eq!(
            reason_of(&[b"  INC-42 disk full "]).unwrap(),
            "INC-42 disk full"
        );
        assert_eq!(
            reason_of(&[b"J%C3%B6rg%3A%20%E7%A3%81%E7%9B%98%20100%25"]).unwrap(),
            "Jörg: 磁盘 100%"
        );
        assert_eq!(reason_of(&["Jörg raw".as_bytes()]).unwrap(), "Jörg raw");
        assert_eq!(reason_of(&[b"100% sure"]).unwrap(), "100% sure");
        let longest = "a".repeat(MAX_REASON_CHARS);
        assert_eq!(reason_of(&[longest.as_bytes()]).unwrap(), longest);
    }

    #[test]
    fn missing_or_blank_reasons_are_required() {
        let missing = reason_of(&[]).unwrap_err();
        assert_eq!(missing.code(), "change_reason_required");
        assert!(missing.to_string().contains("X-Change-Reason"), "{missing}");
        assert!(missing.to_string().contains("prod"), "{missing}");
        assert_eq!(code(reason_of(&[b""])), "change_reason_required");
        assert_eq!(code(reason_of(&[b" %20 "])), "change_reason_required");
    }

    #[test]
    fn hostile_values_are_refused_without_echoing_them() {
        let too_long = "é".repeat(MAX_REASON_CHARS + 1);
        for value in [
            b"line%0Aforged audit line".as_slice(),
            b"tab\there",
            b"nul%00",
            b"esc%1B[31mred",
            b"del%7F",
            b"next%C2%85line",
            b"%E2%80%AEreversed",
            b"zero%E2%80%8Bwidth",
            b"%FF%FE not utf-8",
            b"\xff raw byte",
            too_long.as_bytes(),
        ] {
            let error = reason_of(&[value]).unwrap_err();
            assert_eq!(error.code(), "invalid_change_reason", "{value:?}");
            let message = error.to_string();
            assert!(!message.contains("forged"), "{message}");
            assert!(!message.contains("reversed"), "{message}");
        }
        assert_eq!(code(reason_of(&[b"a", b"b"])), "invalid_change_reason");
        assert!(
            reason_of(&[too_long.as_bytes()])
                .unwrap_err()
                .to_string()
                .contains("501 characters")
        );
    }
}
