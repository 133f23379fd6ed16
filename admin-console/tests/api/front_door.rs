//! Behind the shipped front door (real nginx with the repository's `authproxy-gate.conf`, as
//! `make run` and the compose stack include it): the request id in the audit log is the
//! front's own, never one the client sent (issue 31, item 6).

use std::time::Duration;

use test_support::{GateFront, TempDir, repo_root};

use crate::access::trusted_yaml;
use crate::app::{cluster_yaml, console_client, spawn_app};
use crate::audit::lines_of;
use crate::support::echo::EchoServer;
use crate::support::wait_until;

#[tokio::test]
async fn a_client_request_id_never_reaches_the_audit_log_through_the_front_door() {
    let echo = EchoServer::start();
    for snippet in [
        "scripts/run-local/authproxy-gate.conf",
        "docker/config/authproxy-gate.conf",
    ] {
        let dir = TempDir::new("front-door-audit");
        let file = dir.path().join("audit.log");
        // The console believes headers from 127.0.0.1: nginx, its trusted proxy.
        let app = spawn_app(&format!(
            "{}audit:\n  file: {}\n",
            trusted_yaml(&cluster_yaml("prod", &echo.url)),
            file.display()
        ))
        .await;
        let front = GateFront::start(
            &repo_root().join(snippet),
            &app.address,
            "otto",
            "sre-oncall",
        );
        let client = console_client();
        for forged in ["forged-by-the-client", "a-second, forged"] {
            let response = client
                .post(format!("{}/api/clusters/prod/proxy/logs/_close", front.url))
                .header("x-request-id", forged)
                .send()
                .await
                .unwrap();
            assert_eq!(response.status(), 200, "{snippet}: {}", front.error_log());
        }
        let path = file.clone();
        wait_until("two audit lines", Duration::from_secs(10), move || {
            lines_of(&path).len() >= 2
        })
        .await;
        let lines = lines_of(&file);
        let ids: Vec<&str> = lines
            .iter()
            .map(|line| line["request_id"].as_str().unwrap())
            .collect();
        for (line, id) in lines.iter().zip(&ids) {
            assert_eq!(line["user"], "otto", "{snippet}");
            assert!(
                !id.contains("forged"),
                "{snippet}: the client's id was recorded: {id}"
            );
            assert!(
                id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()),
                "{snippet}: {id} is not nginx's $request_id"
            );
        }
        assert_ne!(ids[0], ids[1], "{snippet}: one id per request");
    }
}
