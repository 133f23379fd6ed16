//! A real sign-in at each proxy, followed by hand as a browser would.

use std::collections::BTreeMap;

use crate::proxies::{Peer, Running};
use crate::{AUTHPROXY_COOKIE, OAUTH2_PROXY_COOKIE, USER};

pub fn client() -> reqwest::Client {
    test_support::install_crypto_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A real sign-in, as a browser makes it: the proxy's sign-in start, the provider's
/// authorization endpoint (with `login_hint`, which the test provider signs in without a
/// form), its interactions, the proxy's callback; every redirect followed by hand with the
/// cookies set so far. Returns `Cookie: <session cookie>`.
pub async fn sign_in(peer: Peer, issuer: &str, running: &Running) -> String {
    let (start, cookie_name) = match peer {
        Peer::Authproxy => (
            format!(
                "http://127.0.0.1:{}/auth/start?rd=http://127.0.0.1:{}/",
                running.sign_in_port, running.front_port
            ),
            AUTHPROXY_COOKIE,
        ),
        Peer::Oauth2Proxy => (
            format!(
                "http://127.0.0.1:{}/oauth2/start?rd=/",
                running.sign_in_port
            ),
            OAUTH2_PROXY_COOKIE,
        ),
    };
    let client = client();
    let mut jar: BTreeMap<String, String> = BTreeMap::new();
    let mut url = reqwest::Url::parse(&start).unwrap();
    for _ in 0..20 {
        if url.as_str().starts_with(issuer) && url.path() == "/auth" {
            url.query_pairs_mut().append_pair("login_hint", USER);
        }
        let cookies: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut request = client.get(url.clone());
        if !cookies.is_empty() {
            request = request.header("cookie", cookies.join("; "));
        }
        let answer = request.send().await.unwrap();
        for value in answer.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                if value.is_empty() {
                    jar.remove(name.trim());
                } else {
                    jar.insert(name.trim().to_owned(), value.to_owned());
                }
            }
        }
        // Signed in: the session cookie is set and the browser is not sent to the provider.
        let leaves_provider = !answer.status().is_redirection()
            || !answer.headers()["location"]
                .to_str()
                .unwrap()
                .contains(issuer);
        if let Some(value) = jar.get(cookie_name).filter(|_| leaves_provider) {
            return format!("Cookie: {cookie_name}={value}");
        }
        assert!(
            answer.status().is_redirection(),
            "{} sign-in stopped at {url}: {} {:?}",
            peer.name(),
            answer.status(),
            answer.text().await
        );
        let location = answer.headers()["location"].to_str().unwrap().to_owned();
        url = url.join(&location).unwrap();
    }
    panic!("{} sign-in did not end within 20 redirects", peer.name());
}
