//! `X-Request-Id` towards the search cluster (issue 31, item 6): a client's id is passed on
//! only from a trusted proxy (`server.trusted_proxies`, judged on the TCP peer); any other
//! caller's request gets an id of the proxy's own, so a client cannot choose the id its request
//! is logged under.

use crate::app::{ANN_PASSWORD, spawn_app};
use crate::support::basic;
use crate::support::security_stub::{Flavor, SecurityStub, spawn_stub_stack, stub_users_yaml};

/// The `x-request-id` values the cluster saw on its last forwarded request.
fn ids_seen(stub: &SecurityStub) -> Vec<String> {
    let forwarded = stub.forwarded();
    forwarded
        .last()
        .unwrap()
        .headers
        .iter()
        .filter(|(name, _)| name == "x-request-id")
        .map(|(_, value)| value.clone())
        .collect()
}

fn is_own_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

#[tokio::test]
async fn a_request_id_from_an_untrusted_client_never_reaches_the_cluster() {
    let osmem = test_support::Osmem::start();
    let stub = SecurityStub::start(Flavor::Elasticsearch, &osmem.url);
    let app = spawn_app(&format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  mode: standalone\n  trusted_proxies: [10.0.0.1]\n{}",
        stub_users_yaml(&stub.url, Flavor::Elasticsearch)
    ))
    .await;
    let mut seen = Vec::new();
    for forged in [Some("forged-by-the-client"), None] {
        let mut request = app
            .client
            .get(app.url("/_cluster/health"))
            .header("authorization", basic("ann", ANN_PASSWORD));
        if let Some(forged) = forged {
            request = request.header("x-request-id", forged);
        }
        assert_eq!(request.send().await.unwrap().status(), 200);
        let ids = ids_seen(&stub);
        assert_eq!(ids.len(), 1, "one id: {ids:?}");
        assert!(
            is_own_id(&ids[0]),
            "the client's id reached the cluster: {ids:?}"
        );
        seen.push(ids[0].clone());
    }
    assert_ne!(seen[0], seen[1], "one id per request");
}

#[tokio::test]
async fn a_trusted_proxy_keeps_its_request_id() {
    let stack = spawn_stub_stack("standalone", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    for (sent, kept) in [("front-door-id-1", true), ("two words", false)] {
        let response = app
            .client
            .get(app.url("/_cluster/health"))
            .header("authorization", basic("ann", ANN_PASSWORD))
            .header("x-request-id", sent)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let ids = ids_seen(&stack.stub);
        assert_eq!(ids.len(), 1, "{ids:?}");
        if kept {
            assert_eq!(ids[0], sent);
        } else {
            assert!(
                is_own_id(&ids[0]),
                "an id that is not sane is replaced: {ids:?}"
            );
        }
    }
}
