//! Property test: malformed `Authorization` headers, cookies and forwarded headers, alone or with
//! valid credentials, never make the service fail (no panic, no 5xx, the connection answers).

use proptest::prelude::*;
use reqwest::header::HeaderValue;

use crate::app::{ANN_PASSWORD, TestApp, spawn_app};
use crate::support::{basic, bcrypt_hash};

/// Header bytes HTTP can carry (no CR, LF or NUL), including obs-text.
fn header_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..200),
        "(Basic|basic|Bearer|Digest)? ?[ -~]{0,120}".prop_map(String::into_bytes),
        "Basic [A-Za-z0-9+/=:]{0,80}".prop_map(String::into_bytes),
    ]
    .prop_map(|bytes| {
        bytes
            .into_iter()
            .filter(|b| !matches!(b, b'\r' | b'\n' | 0))
            .collect()
    })
}

fn value(bytes: &[u8]) -> Option<HeaderValue> {
    HeaderValue::from_bytes(bytes).ok()
}

async fn send(
    app: &TestApp,
    authorization: Option<HeaderValue>,
    cookie: &[u8],
    forwarded: &[u8],
) -> u16 {
    let mut request = app.client.get(app.url("/probe"));
    if let Some(authorization) = authorization {
        request = request.header("authorization", authorization);
    }
    if let Some(cookie) = value(cookie) {
        request = request.header("cookie", cookie);
    }
    if let Some(forwarded) = value(forwarded) {
        for name in [
            "x-forwarded-for",
            "x-forwarded-uri",
            "x-forwarded-host",
            "x-forwarded-method",
            "x-original-url",
        ] {
            request = request.header(name, forwarded.clone());
        }
    }
    request
        .send()
        .await
        .expect("the service answers")
        .status()
        .as_u16()
}

#[test]
fn malformed_headers_never_break_the_service() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let app = runtime.block_on(spawn_app(&format!(
        "server: {{host: 127.0.0.1, port: 0, trusted_proxies: [127.0.0.1]}}\n\
         user_management: {{enabled: false}}\n\
         basic_auth:\n  max_failures_per_user: 100000\n  max_failures_per_address: 100000\n  \
         users: [{{username: ann, password_hash: \"{}\"}}]\n",
        bcrypt_hash(ANN_PASSWORD)
    )));
    let valid = HeaderValue::from_str(&basic("ann", ANN_PASSWORD)).unwrap();
    let config = ProptestConfig {
        cases: 96,
        failure_persistence: None,
        ..ProptestConfig::default()
    };
    proptest!(config, |(authorization in header_bytes(), cookie in header_bytes(), forwarded in header_bytes(), use_valid in any::<bool>())| {
        let authorization = if use_valid { Some(valid.clone()) } else { value(&authorization) };
        let status = runtime.block_on(send(&app, authorization, &cookie, &forwarded));
        // 400 only for a forwarded host that is not host[:port] (X-Forwarded-Host here).
        let forwarded_sent = value(&forwarded).is_some();
        prop_assert!(matches!(status, 200 | 302 | 401 | 400), "status {}", status);
        prop_assert!(status != 400 || forwarded_sent, "status {}", status);
        if use_valid {
            prop_assert!(matches!(status, 200 | 400), "status {}", status);
        }
    });
}
