//! `X-Request-Id` towards the search cluster: a client's id is passed on only from a trusted
//! proxy (`server.trusted_proxies`, judged on the TCP peer); any other caller's request gets an
//! id of the proxy's own, so a client cannot choose the id its request is logged under.

use crate::app::{ANN_PASSWORD, Cluster, Users, spawn_app, spawn_stack};
use crate::real_security::Flavor;
use crate::support::basic;

/// The `x-request-id` values the cluster (the real node, through the recording proxy) saw on
/// the last request forwarded to it.
fn ids_seen(cluster: &Cluster) -> Vec<String> {
    let last = cluster.forwarded().pop().unwrap();
    last.headers
        .into_iter()
        .filter(|(name, _)| name == "x-request-id")
        .map(|(_, value)| value)
        .collect()
}

fn is_own_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit())
}

#[tokio::test]
async fn a_request_id_from_an_untrusted_client_never_reaches_the_cluster() {
    let cluster = Cluster::of(Flavor::Elasticsearch).await;
    let users = Users::new();
    let app = spawn_app(&format!(
        "server:\n  host: 127.0.0.1\n  port: 0\n  mode: standalone\n  trusted_proxies: [10.0.0.1]\n{}",
        cluster.search_yaml(&users)
    ))
    .await;
    let mut seen = Vec::new();
    for forged in [Some("forged-by-the-client"), None] {
        let mut request = app
            .client
            .get(app.url("/_cluster/health"))
            .header("authorization", basic(&users.ann, ANN_PASSWORD));
        if let Some(forged) = forged {
            request = request.header("x-request-id", forged);
        }
        assert_eq!(request.send().await.unwrap().status(), 200);
        let ids = ids_seen(&cluster);
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
    let stack = spawn_stack("standalone", Flavor::Elasticsearch, "").await;
    let app = &stack.app;
    for (sent, kept) in [("front-door-id-1", true), ("two words", false)] {
        let response = app
            .client
            .get(app.url("/_cluster/health"))
            .header("authorization", basic(&stack.users.ann, ANN_PASSWORD))
            .header("x-request-id", sent)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let ids = ids_seen(&stack);
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
