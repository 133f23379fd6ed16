//! The parsers of untrusted input, exposed for the fuzz targets in `fuzz/` and their regression
//! tests (`tests/fuzz_regressions.rs`). Each function takes the fuzzer's bytes, runs the
//! production parser on them and panics when an oracle (a round trip or an invariant) fails, so
//! the fuzzer and the replayed regressions check exactly the same thing.

use std::collections::{BTreeSet, HashMap};

use actix_web::http::header::HeaderValue;
use actix_web::web::Query;

use crate::error::Error;
use crate::http::stream::parse_event_id;
use crate::hub::selection::Selection;
use crate::names::is_dns1123_label;

/// The input cut at NUL bytes into `N` texts (the last one takes the rest; missing ones are
/// empty), so one byte string carries several structured fields.
fn fields<const N: usize>(data: &[u8]) -> [String; N] {
    let mut parts = data.splitn(N, |byte| *byte == 0);
    std::array::from_fn(|_| String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned())
}

/// RFC 1123 label, written apart from the production check: `[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?`.
fn label_model(name: &str) -> bool {
    let alnum = |c: char| c.is_ascii_digit() || c.is_ascii_lowercase();
    let chars: Vec<char> = name.chars().collect();
    match chars.as_slice() {
        [] => false,
        [only] => alnum(*only),
        [first, middle @ .., last] => {
            chars.len() <= 63
                && alnum(*first)
                && alnum(*last)
                && middle.iter().all(|c| alnum(*c) || *c == '-')
        }
    }
}

/// Kubernetes names (namespaces, label values in the configuration): the production check
/// agrees with the model on the input and on its pieces.
pub fn labels(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for name in std::iter::once(text.as_ref()).chain(text.split([',', '/', '=', ' '])) {
        assert_eq!(is_dns1123_label(name), label_model(name), "{name:?}");
    }
}

/// The `namespaces` parameter of `/api/ingresses` and the stream: `query NUL watched NUL max`,
/// the query read as actix reads it. Every outcome is explained by the names in the list: a
/// selection holds exactly the (valid, watched, few enough) names given, a refusal names a
/// name that is invalid or not watched, or there were too many.
pub fn namespaces(data: &[u8]) {
    let [query, watched, max] = fields::<3>(data);
    let watched: Vec<String> = watched
        .split(',')
        .filter(|name| !name.is_empty())
        .map(str::to_owned)
        .collect();
    let max = max.trim().parse::<usize>().map_or(50, |max| max % 200);
    let Ok(query) = Query::<HashMap<String, String>>::from_query(&query) else {
        return;
    };
    let parameter = query.get("namespaces").map(String::as_str);
    let text = parameter.map(str::trim).unwrap_or_default();
    let names: Vec<&str> = text
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .collect();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    match Selection::parse(parameter, &watched, max) {
        Ok(Selection::All) => assert!(text == "*" || names.is_empty(), "{text:?}"),
        Ok(Selection::Visible(_)) => panic!("parsing never limits a selection: {text:?}"),
        Ok(Selection::Only(selected)) => {
            assert_eq!(
                selected.iter().map(String::as_str).collect::<BTreeSet<_>>(),
                distinct
            );
            assert!(!selected.is_empty() && selected.len() <= max);
            for name in &selected {
                assert!(label_model(name), "{name:?}");
                assert!(watched.is_empty() || watched.contains(name), "{name:?}");
                assert!(
                    selected.contains(name) && Selection::Only(selected.clone()).contains(name)
                );
            }
            let again = selected.iter().cloned().collect::<Vec<_>>().join(",");
            assert_eq!(
                Selection::parse(Some(&again), &watched, max).ok(),
                Some(Selection::Only(selected)),
                "a selection written out reads back the same"
            );
        }
        Err(Error::InvalidNamespace(name)) => {
            assert!(
                names.contains(&name.as_str()) && !label_model(&name),
                "{name:?}"
            );
        }
        Err(Error::NamespaceNotWatched(name)) => {
            assert!(names.contains(&name.as_str()) && label_model(&name));
            assert!(!watched.is_empty() && !watched.contains(&name));
        }
        Err(Error::TooManyNamespaces { max: limit }) => {
            assert_eq!(limit, max);
            assert!(distinct.len() > max && distinct.iter().all(|name| label_model(name)));
        }
        Err(other) => panic!("unexpected refusal {other:?}"),
    }
}

/// `Last-Event-ID` as a header value and as the `lastEventId` parameter: an id is accepted
/// exactly when the text (blanks aside) is the decimal form of a u64, and every id written by
/// the stream reads back as itself.
pub fn last_event_id(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let digits = text.trim_matches([' ', '\t']);
    let expected = (!digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.trim_start_matches('0'))
        .and_then(|significant| {
            if significant.is_empty() {
                return Some(0);
            }
            (significant.len() < 20
                || (significant.len() == 20 && significant <= "18446744073709551615"))
                .then(|| significant.parse::<u64>().expect("fits"))
        });
    assert_eq!(parse_event_id(&text), expected, "{text:?}");
    if let Ok(header) = HeaderValue::from_bytes(data)
        && let Ok(value) = header.to_str()
    {
        assert_eq!(parse_event_id(value), expected);
    }
    let mut id = [0u8; 8];
    for (slot, byte) in id.iter_mut().zip(data) {
        *slot = *byte;
    }
    let id = u64::from_le_bytes(id);
    assert_eq!(parse_event_id(&id.to_string()), Some(id));
    assert_eq!(parse_event_id(&format!(" {id}\t")), Some(id));
}

/// Where the configuration oracle's equivalence check puts a value (`@`): strings, numbers,
/// durations, lists and enums, at the top and inside list items.
const CONFIG_TEMPLATES: &[&str] = &[
    "server:\n  host: @\n",
    "server:\n  port: @\n",
    "kubernetes:\n  namespaces: [@]\n",
    "kubernetes:\n  api_url: @\n",
    "annotations:\n  redact: [@]\n",
    "stream:\n  retry: @\n",
    "rate_limit:\n  per_second: @\n",
    "resilience:\n  breaker_failure_rate: @\n",
];

/// Configuration loading (`service_kit::config::oracle::load`): `yaml NUL NAME=value NUL …`.
pub fn config(data: &[u8]) {
    service_kit::config::oracle::load::<crate::Settings>("INGRESS_DASH", CONFIG_TEMPLATES, data);
}
