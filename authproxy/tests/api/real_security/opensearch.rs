//! The suite against OpenSearch 2 with the security plugin (flavor `opensearch`): internal users
//! through `_plugins/_security/api/internalusers`, the cluster's `authinfo`, the built-in
//! `readall` role for readers.

use serde_json::json;

use super::{Flavor, suite};

const FLAVOR: Flavor = Flavor::OpenSearch;

#[tokio::test]
async fn a_first_request_creates_the_managed_user_and_is_relayed_as_it() {
    let (_, _, _, user) =
        suite::a_first_request_creates_the_user_and_is_relayed_as_it(FLAVOR).await;
    assert_eq!(user["backend_roles"], json!([]), "{user}");
    assert_eq!(
        user["attributes"],
        json!({
            "managed_by": "authproxy",
            "managed_source": "basic",
            "email": "wanda@example.com",
            "full_name": "wanda Real"
        })
    );
}

suite::tests_of_the_same_name!(FLAVOR);

#[tokio::test]
async fn a_cluster_user_authproxy_did_not_make_is_never_overwritten() {
    suite::a_cluster_user_authproxy_did_not_make_is_never_overwritten(FLAVOR, &[]).await;
}

#[tokio::test]
async fn without_the_demo_ca_the_node_is_not_trusted_and_nothing_is_made() {
    suite::without_the_ca_the_node_is_not_trusted_and_nothing_is_made(FLAVOR).await;
}

/// The security plugin writes all internal users as one document under optimistic concurrency:
/// at once, all upserts but one are refused with 409 and must be tried again.
#[tokio::test]
async fn concurrent_first_requests_of_different_users_all_get_their_users() {
    suite::concurrent_first_requests_all_get_their_users(FLAVOR, 0).await;
}
