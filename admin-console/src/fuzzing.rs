//! The parsers of untrusted input, exposed for the fuzz targets in `fuzz/` and their regression
//! tests (`tests/fuzz_regressions.rs`). Each function takes the fuzzer's bytes, runs the
//! production parser on them and panics when an oracle (a round trip or an invariant) fails, so
//! the fuzzer and the replayed regressions check exactly the same thing.

use std::sync::OnceLock;
use std::time::Duration;

use actix_web::web::Query;
use percent_encoding::percent_decode_str;
use service_kit::client_tls::{ClientTls, ClientTlsSettings};
use service_kit::relay_client::RelayClient;

use crate::error::Error;
use crate::metrics::history::{MAX_POINTS, step_for};
use crate::metrics::time_range::{RangeParams, TimeRange};
use crate::relay::checked_tail;

/// The input cut at NUL bytes into `N` texts (the last one takes the rest; missing ones are
/// empty), so one byte string carries several structured fields.
fn fields<const N: usize>(data: &[u8]) -> [String; N] {
    let mut parts = data.splitn(N, |byte| *byte == 0);
    std::array::from_fn(|_| String::from_utf8_lossy(parts.next().unwrap_or_default()).into_owned())
}

const ROUTE: &str = "/api/clusters/c/proxy";
const CLUSTER: &str = "http://cluster.internal:9200/behind/a/prefix";

/// The relay's path check on a request path as actix hands it over (`/api/clusters/c/proxy`
/// followed by the input). An accepted path, joined to the cluster's URL by the relay's own
/// client, stays on the cluster's host and below its path prefix, and holds nothing the check
/// refuses once fully percent-decoded: no `.`/`..` segment, no `\`, no `//` start, no `://`.
pub fn relay_path(data: &[u8]) {
    let input = String::from_utf8_lossy(data);
    let Ok(uri) = format!("{ROUTE}{input}").parse::<http::Uri>() else {
        return;
    };
    let Some(raw_tail) = uri.path().strip_prefix(ROUTE) else {
        return;
    };
    if !(raw_tail.is_empty() || raw_tail.starts_with('/')) {
        return; // another route
    }
    let Ok(tail) = checked_tail(raw_tail) else {
        return;
    };
    assert_eq!(tail, raw_tail, "the path goes on as it came");
    let upstream = relay_client()
        .uri(tail, uri.query())
        .expect("an accepted path makes a valid upstream URI");
    assert_eq!(
        upstream.authority().map(|a| a.as_str()),
        Some("cluster.internal:9200")
    );
    assert!(
        upstream.path().starts_with("/behind/a/prefix/"),
        "{upstream}"
    );
    let below = &upstream.path()["/behind/a/prefix/".len()..];
    let mut decoded = below.to_owned();
    loop {
        let once = percent_decode_str(&decoded)
            .decode_utf8_lossy()
            .into_owned();
        if once == decoded {
            break;
        }
        decoded = once;
    }
    assert!(!decoded.contains('\\'), "{raw_tail:?}");
    assert!(!decoded.starts_with('/'), "{raw_tail:?} leaves the prefix");
    assert!(!decoded.contains("://"), "{raw_tail:?}");
    for segment in decoded.split('/') {
        assert!(
            segment != "." && segment != "..",
            "{raw_tail:?} has a dot segment"
        );
    }
}

fn relay_client() -> &'static RelayClient {
    static CLIENT: OnceLock<RelayClient> = OnceLock::new();
    CLIENT.get_or_init(|| {
        let settings = ClientTlsSettings {
            insecure_skip_verify: true,
            ..ClientTlsSettings::default()
        };
        let tls = ClientTls::load(&settings).expect("TLS without files");
        RelayClient::new(CLUSTER, &tls, Duration::from_secs(1))
    })
}

/// Below this, seconds; at and past it the parser says "milliseconds".
const LOOKS_LIKE_MILLISECONDS: i64 = 10_000_000_000;

/// `start`/`end` as the metrics handlers read them: `query NUL now NUL min_step`. An accepted
/// range holds the given numbers, or the defaults; the step chosen for it keeps the chart
/// within its number of points. A refusal is a 400 with a bounded message.
pub fn time_range(data: &[u8]) {
    let [query, now, min_step] = fields::<3>(data);
    let now = now
        .trim()
        .parse::<i64>()
        .map_or(1_700_000_000, |n| n.rem_euclid(LOOKS_LIKE_MILLISECONDS));
    let min_step = min_step
        .trim()
        .parse::<i64>()
        .map_or(60, |n| n.clamp(1, 86_400));
    let Ok(params) = Query::<RangeParams>::from_query(&query) else {
        return;
    };
    for default_span in [86_400, 7 * 86_400] {
        match TimeRange::parse(&params, default_span, now) {
            Ok(range) => {
                assert!(0 <= range.start && range.start < range.end, "{range:?}");
                assert!(range.end < LOOKS_LIKE_MILLISECONDS, "{range:?}");
                let given = |text: &Option<String>| {
                    text.as_deref()
                        .map(str::trim)
                        .filter(|text| !text.is_empty())
                        .map(|text| text.parse::<i64>().expect("an accepted value is a number"))
                };
                assert_eq!(range.end, given(&params.end).unwrap_or(now));
                assert_eq!(
                    range.start,
                    given(&params.start).unwrap_or((range.end - default_span).max(0))
                );
                let step = step_for(range, min_step);
                assert!(step >= min_step, "{range:?} {step}");
                assert!(step <= 60 || step % 60 == 0, "{step}");
                let points = (range.span() + step - 1) / step;
                assert!(
                    points <= MAX_POINTS,
                    "{range:?} step {step}: {points} points"
                );
            }
            Err(Error::BadRequest(message)) => {
                assert!(!message.is_empty());
                assert!(message.len() <= 200 + query.len(), "{message}");
            }
            Err(other) => panic!("not a 400: {other:?}"),
        }
    }
}

/// Where the configuration oracle's equivalence check puts a value (`@`): strings, numbers,
/// durations, lists and enums, at the top and inside list items.
const CONFIG_TEMPLATES: &[&str] = &[
    "server:\n  host: @\n",
    "server:\n  port: @\n",
    "server:\n  shutdown_timeout: @\n",
    "clusters:\n  - id: a\n    name: A\n    url: @\n",
    "clusters:\n  - id: @\n    name: A\n    url: http://127.0.0.1:9200\n",
    "clusters:\n  - id: a\n    name: A\n    url: http://127.0.0.1:9200\n    auth:\n      username: u\n      password: @\n",
    "clusters:\n  - id: a\n    name: A\n    url: http://127.0.0.1:9200\n    metrics_source: @\n",
    "internal_history:\n  retention: @\n",
];

/// Configuration loading (`service_kit::config::oracle::load`): `yaml NUL NAME=value NUL …`.
pub fn config(data: &[u8]) {
    service_kit::config::oracle::load::<crate::Settings>("ADMIN_CONSOLE", CONFIG_TEMPLATES, data);
}
