//! A real OpenID provider (panva's `oidc-provider`, npm) run by Node from `test-support/oidc`.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::process::{ChildGuard, http_get, repo_root, wait_until};

/// The provider, with the clients and users given to [`OidcProvider::start`]. Signing in needs no
/// form: the user named by the authorization request's `login_hint` is signed in and every
/// requested scope granted. PKCE (S256) is required.
pub struct OidcProvider {
    /// `http://127.0.0.1:<port>`; discovery is at `<issuer>/.well-known/openid-configuration`.
    pub issuer: String,
    config: serde_json::Value,
    guard: ChildGuard,
}

impl OidcProvider {
    /// `config` is `{"clients": [{"client_id", "client_secret", "redirect_uris",
    /// "post_logout_redirect_uris"}], "users": {"<login>": {"email", "name", "groups"}}}`.
    pub fn start(config: &serde_json::Value) -> Self {
        let (guard, issuer) = Self::spawn(config);
        Self {
            issuer,
            config: config.clone(),
            guard,
        }
    }

    /// Stops the provider and starts it again on the same port, with the same issuer, clients
    /// and users, and a new signing key under the same key id (`test-rsa`), as a provider
    /// restarted without persistent keys would. Sessions at the provider are lost.
    pub fn restart(&mut self) {
        let host_port = self.issuer.trim_start_matches("http://").to_owned();
        let child = self.guard.child_mut();
        let _ = child.kill();
        let _ = child.wait();
        let mut config = self.config.clone();
        config["listen"] = serde_json::Value::String(host_port);
        config["issuer"] = serde_json::Value::String(self.issuer.clone());
        let (guard, issuer) = Self::spawn(&config);
        assert_eq!(
            issuer, self.issuer,
            "the provider came back under another issuer"
        );
        self.guard = guard;
    }

    fn spawn(config: &serde_json::Value) -> (ChildGuard, String) {
        let dir = repo_root().join("test-support/oidc");
        assert!(
            dir.join("node_modules/oidc-provider").exists(),
            "oidc-provider is not installed in {}; run `make test` (or `make deps`)",
            dir.display()
        );
        // On a loaded machine a Node process was seen, a few times in hundreds of starts, never
        // to print its start-up line (cause not found; the same tests passed when run again). A
        // provider that does not come up within 20 s is started again (three tries in all), so
        // only a provider that never starts fails the test.
        let mut problems = Vec::new();
        let (mut guard, issuer) = loop {
            let mut guard = ChildGuard::spawn(
                "oidc-provider",
                Command::new("node")
                    .arg(dir.join("server.js"))
                    .env("OIDC_TEST_CONFIG", config.to_string())
                    .stdout(Stdio::piped())
                    // Its development-mode warnings are expected; keep them out of test output.
                    .stderr(Stdio::null()),
            );
            match guard.announced_within("issuer", Duration::from_secs(20)) {
                Ok(issuer) => break (guard, issuer),
                Err(problem) if problems.len() < 2 => {
                    eprintln!("{problem}; starting it again");
                    problems.push(problem);
                }
                Err(problem) => {
                    problems.push(problem);
                    panic!("oidc-provider did not start: {}", problems.join("; "))
                }
            }
        };
        let host_port = issuer.trim_start_matches("http://").to_owned();
        wait_until("oidc-provider", Duration::from_secs(30), || {
            guard.assert_running();
            matches!(
                http_get(&host_port, "/.well-known/openid-configuration"),
                Some((200, _))
            )
        });
        (guard, issuer)
    }

    pub fn pid(&self) -> u32 {
        self.guard.pid()
    }

    /// A client-credentials access token (a JWT, RS256, `typ: at+jwt`) for `client_id` (a client
    /// with `grant_types: ["client_credentials"]`), for the resource server `resource` (one of the
    /// config's `resource_servers`; `None`: the first).
    pub async fn client_credentials_token(
        &self,
        client_id: &str,
        client_secret: &str,
        resource: Option<&str>,
    ) -> String {
        let mut form = "grant_type=client_credentials".to_owned();
        if let Some(resource) = resource {
            form.push_str("&resource=");
            for byte in resource.bytes() {
                if byte.is_ascii_alphanumeric() {
                    form.push(char::from(byte));
                } else {
                    form.push_str(&format!("%{byte:02X}"));
                }
            }
        }
        let response = crate::http_client()
            .post(format!("{}/token", self.issuer))
            .basic_auth(client_id, Some(client_secret))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .await
            .expect("the provider answers");
        let body: serde_json::Value = response.json().await.expect("a JSON token response");
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no access token: {body}"))
            .to_owned()
    }

    /// Makes the provider's next token response carry a forged ID token (or, in a response
    /// without one, a forged JWT access token) in place of the genuine one (built from it, nonce
    /// included). `kind` is one of those `test-support/oidc/server.js` lists: `resign` (a
    /// control, validly signed), `wrong_aud`, `wrong_iss`, `expired`, `other_client`,
    /// `other_azp`, `extra_audience`, `alg_none`, `hs256_public_key`, `hs256_client_secret`,
    /// `foreign_key`, `unknown_kid`, `tampered`, `not_yet_valid`.
    pub async fn forge_next_id_token(&self, kind: &str) {
        self.test_hook("forge-next-id-token", serde_json::json!({ "kind": kind }))
            .await;
    }

    /// Changes `login`'s groups at the provider: the next token (a refresh's too) shows them.
    pub async fn set_groups(&self, login: &str, groups: &[&str]) {
        self.test_hook(
            "set-groups",
            serde_json::json!({ "login": login, "groups": groups }),
        )
        .await;
    }

    /// Revokes every refresh token the provider issued so far (as an administrator would).
    pub async fn revoke_refresh_tokens(&self) {
        self.test_hook("revoke-refresh-tokens", serde_json::json!({}))
            .await;
    }

    /// Refresh-token grants answered so far: (accepted, refused).
    pub async fn refresh_grants(&self) -> (u64, u64) {
        let body: serde_json::Value = crate::http_client()
            .get(format!("{}/__test/refresh-grants", self.issuer))
            .send()
            .await
            .expect("the provider answers")
            .json()
            .await
            .expect("JSON counts");
        (
            body["ok"].as_u64().unwrap_or_default(),
            body["failed"].as_u64().unwrap_or_default(),
        )
    }

    async fn test_hook(&self, name: &str, body: serde_json::Value) {
        let response = crate::http_client()
            .post(format!("{}/__test/{name}", self.issuer))
            .json(&body)
            .send()
            .await
            .expect("the provider answers");
        assert_eq!(
            response.status().as_u16(),
            204,
            "{name} refused: {:?}",
            response.text().await
        );
    }
}
