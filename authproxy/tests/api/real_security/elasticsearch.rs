//! The suite against Elasticsearch 8 with x-pack security (flavor `elasticsearch`): native users
//! through `_security/user`, the cluster's `_security/_authenticate`, roles of the suite's own
//! for writers and readers; and what only Elasticsearch has: the realm, the reserved `elastic`,
//! user names it refuses, users an operator disables.

use reqwest::Method;
use serde_json::json;

use super::{Flavor, node, proxy, suite, through};

const FLAVOR: Flavor = Flavor::Elasticsearch;

#[tokio::test]
async fn a_first_request_creates_the_native_user_and_is_relayed_as_it() {
    let (_, app, info, user) =
        suite::a_first_request_creates_the_user_and_is_relayed_as_it(FLAVOR).await;
    // The managed user is one of the native realm, with the local user's details.
    assert_eq!(info["authentication_realm"]["type"], "native", "{info}");
    assert_eq!(info["email"], "wanda@example.com", "{info}");
    assert_eq!(info["full_name"], "wanda Real", "{info}");
    assert_eq!(user["enabled"], true, "{user}");
    assert_eq!(
        user["metadata"],
        json!({"managed_by": "authproxy", "managed_source": "basic"})
    );
    // Outside its index pattern the writer role grants nothing (not even making the index).
    let answer = through(
        &app,
        "wanda",
        Method::PUT,
        "/elsewhere/_doc/1",
        Some(json!({"title": "refused"})),
    )
    .await;
    FLAVOR.assert_refused(&answer, "indices:admin/auto_create", "wanda", "elsewhere");
}

suite::tests_of_the_same_name!(FLAVOR);

#[tokio::test]
async fn a_cluster_user_authproxy_did_not_make_is_never_overwritten() {
    // `elastic` is a reserved user of the cluster: a local user of that name must not take it.
    let node = suite::a_cluster_user_authproxy_did_not_make_is_never_overwritten(
        FLAVOR,
        &[("elastic", "readers")],
    )
    .await;
    let (status, info) = node.who(&node.security.admin_authorization()).await;
    assert_eq!(
        (status, &info["roles"]),
        (200, &json!(["superuser"])),
        "{info}"
    );
}

#[tokio::test]
async fn without_the_ca_the_node_is_not_trusted_and_nothing_is_made() {
    suite::without_the_ca_the_node_is_not_trusted_and_nothing_is_made(FLAVOR).await;
}

/// Different users at once (each a document of the security index), and one user from several
/// requests at once: every request is relayed as its own user.
#[tokio::test]
async fn concurrent_first_requests_all_get_their_users() {
    suite::concurrent_first_requests_all_get_their_users(FLAVOR, 4).await;
}

#[tokio::test]
async fn a_name_the_cluster_refuses_is_answered_with_the_clusters_reason() {
    let node = node(FLAVOR).await;
    // Elasticsearch allows printable ASCII only in user names: an identity named `josé` (a
    // local user here; an OIDC user's claim alike) cannot have a native user.
    let app = proxy(
        &node,
        "standalone",
        &[("josé", "readers")],
        &FLAVOR.mappings(),
    )
    .await;
    let (status, body) = through(&app, "josé", Method::GET, FLAVOR.who_path(), None).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(body["error"]["code"], "search_bad_response", "{body}");
    // The cluster's own reason, so that the person and the operator learn why.
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("400 Bad Request"), "{message}");
    assert!(
        message.contains("printable symbols in the Basic Latin (ASCII) block"),
        "{message}"
    );
    assert_eq!(node.user("jos%C3%A9").await.0, 404);
}

#[tokio::test]
async fn a_managed_user_disabled_on_the_cluster_stays_disabled() {
    let node = node(FLAVOR).await;
    let app = proxy(
        &node,
        "standalone",
        &[("dina", "readers")],
        &FLAVOR.mappings(),
    )
    .await;
    let (status, info) = through(&app, "dina", Method::GET, FLAVOR.who_path(), None).await;
    assert_eq!((status, &info["username"]), (200, &json!("dina")), "{info}");

    // The operator locks the user out on the cluster.
    let (status, body) = node
        .admin(Method::PUT, "/_security/user/dina/_disable", None)
        .await;
    assert_eq!(status, 200, "{body}");

    // The cluster refuses the cached credential; the proxy must not undo the operator's
    // decision by upserting the user with `enabled: true`.
    let (status, body) = through(&app, "dina", Method::GET, FLAVOR.who_path(), None).await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "search_user_disabled", "{body}");
    let (_, user) = node.user("dina").await;
    assert_eq!(user["enabled"], false, "{user}");
}
