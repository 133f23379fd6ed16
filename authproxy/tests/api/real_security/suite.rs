//! The tests both flavours share, each run by [`super::opensearch`] and
//! [`super::elasticsearch`] with its [`Flavor`] (under each flavour's own test name). Where a
//! flavour checks more, the function hands back what it needs.

use reqwest::Method;
use serde_json::{Value, json};

use super::{Flavor, Node, WRITER, managed_credential, node, proxy, proxy_with_tls, through};
use crate::app::TestApp;
use crate::support::basic;

/// The tests of this module that have the same name in both flavours, each a `#[tokio::test]`
/// of the flavour module that invokes this with its [`Flavor`].
macro_rules! tests_of_the_same_name {
    ($flavor:expr) => {
        #[tokio::test]
        async fn a_read_only_user_gets_the_clusters_own_403_for_writes() {
            super::suite::a_read_only_user_gets_the_clusters_own_403_for_writes($flavor).await;
        }

        #[tokio::test]
        async fn a_changed_role_mapping_replaces_the_roles_and_the_password() {
            super::suite::a_changed_role_mapping_replaces_the_roles_and_the_password($flavor).await;
        }

        #[tokio::test]
        async fn a_user_deleted_on_the_cluster_is_made_again_after_its_401() {
            super::suite::a_user_deleted_on_the_cluster_is_made_again_after_its_401($flavor).await;
        }
    };
}
pub(super) use tests_of_the_same_name;

/// A first request creates the managed user (none before) with the mapped role and is relayed
/// as it: the cluster authenticates it as that user, a document is indexed and read back, the
/// backend is healthy. Returns the node, the proxy, the cluster's answer to who the user is and
/// the user as the security API has it, for the flavour's own checks.
pub(super) async fn a_first_request_creates_the_user_and_is_relayed_as_it(
    flavor: Flavor,
) -> (Node, TestApp, Value, Value) {
    let node = node(flavor).await;
    assert_eq!(node.user("wanda").await.0, 404);
    let app = proxy(
        &node,
        "standalone",
        &[("wanda", "writers")],
        &flavor.mappings(),
    )
    .await;

    let (status, info) = through(&app, "wanda", Method::GET, flavor.who_path(), None).await;
    assert_eq!(status, 200, "{info}");
    // The cluster authenticated the request as the managed user, with the mapped role.
    assert_eq!(flavor.who_name(&info), "wanda", "{info}");
    assert_eq!(flavor.who_roles(&info), json!([WRITER]), "{info}");

    let (status, user) = node.user("wanda").await;
    assert_eq!(status, 200);
    assert_eq!(flavor.user_roles(&user), json!([WRITER]), "{user}");

    // The cluster answers the relayed calls: an index made, a document indexed and read back.
    let index = flavor.index("wanda");
    let (status, body) = through(
        &app,
        "wanda",
        Method::PUT,
        &format!("/{index}/_doc/1?refresh=true"),
        Some(json!({"title": "relayed"})),
    )
    .await;
    assert_eq!(status, 201, "{body}");
    let (status, body) = through(
        &app,
        "wanda",
        Method::GET,
        &format!("/{index}/_doc/1"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["_source"]["title"], "relayed");

    let (_, health) = app.get_json("/_health").await;
    assert_eq!(health["checks"]["search_backend"], "ok", "{health}");
    (node, app, info, user)
}

pub(super) async fn a_read_only_user_gets_the_clusters_own_403_for_writes(flavor: Flavor) {
    let node = node(flavor).await;
    let index = flavor.index("rosa");
    let (status, body) = node
        .admin(
            Method::PUT,
            &format!("/{index}/_doc/1?refresh=true"),
            Some(json!({"title": "kept"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");
    let app = proxy(
        &node,
        "standalone",
        &[("rosa", "readers")],
        &flavor.mappings(),
    )
    .await;

    let (status, body) = through(
        &app,
        "rosa",
        Method::GET,
        &format!("/{index}/_search"),
        None,
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hits"]["total"]["value"], 1, "{body}");

    for (path, action) in [
        (format!("/{index}/_doc/2"), "indices:data/write/index"),
        (format!("/{index}-new"), "indices:admin/create"),
    ] {
        let document = path.contains("_doc").then(|| json!({"title": "refused"}));
        let answer = through(&app, "rosa", Method::PUT, &path, document).await;
        // The cluster's answer (its own body), not one of the proxy's.
        flavor.assert_refused(&answer, action, "rosa", &path);
    }
    let (status, _) = node
        .admin(Method::GET, &format!("/{index}/_doc/2"), None)
        .await;
    assert_eq!(status, 404, "the refused document was not written");
    assert_eq!(
        flavor.user_roles(&node.user("rosa").await.1),
        json!([flavor.reader()])
    );
}

pub(super) async fn a_changed_role_mapping_replaces_the_roles_and_the_password(flavor: Flavor) {
    let node = node(flavor).await;
    let index = flavor.index("carl");
    let before = proxy(
        &node,
        "forward_auth",
        &[("carl", "staff")],
        &flavor.mappings().replace("writers", "staff"),
    )
    .await;
    let first = managed_credential(&before, "carl").await;
    let (status, info) = node.who(&first).await;
    assert_eq!(
        (status, flavor.who_roles(&info)),
        (200, json!([WRITER])),
        "{info}"
    );
    let (status, body) = node
        .call(
            &first,
            Method::PUT,
            &format!("/{index}/_doc/1"),
            Some(json!({"by": "carl"})),
        )
        .await;
    assert_eq!(status, 201, "{body}");

    // The new configuration maps carl's group to the reader role only.
    let after = proxy(
        &node,
        "forward_auth",
        &[("carl", "staff")],
        &flavor.mappings().replace("readers", "staff"),
    )
    .await;
    let second = managed_credential(&after, "carl").await;
    assert_ne!(second, first, "a new password");
    let (_, user) = node.user("carl").await;
    assert_eq!(flavor.user_roles(&user), json!([flavor.reader()]), "{user}");
    // The old password is gone at the cluster, the new one has the new role only.
    assert_eq!(node.who(&first).await.0, 401);
    let (status, info) = node.who(&second).await;
    assert_eq!(
        (status, flavor.who_roles(&info)),
        (200, json!([flavor.reader()])),
        "{info}"
    );
    let answer = node
        .call(
            &second,
            Method::PUT,
            &format!("/{index}/_doc/2"),
            Some(json!({"by": "carl"})),
        )
        .await;
    flavor.assert_refused(
        &answer,
        "indices:data/write/index",
        "carl",
        "a write as reader",
    );
}

pub(super) async fn a_user_deleted_on_the_cluster_is_made_again_after_its_401(flavor: Flavor) {
    let node = node(flavor).await;
    let app = proxy(
        &node,
        "standalone",
        &[("dora", "readers")],
        &flavor.mappings(),
    )
    .await;
    let (status, info) = through(&app, "dora", Method::GET, flavor.who_path(), None).await;
    assert_eq!(
        (status, flavor.who_name(&info)),
        (200, json!("dora")),
        "{info}"
    );

    let (status, body) = node
        .admin(Method::DELETE, &flavor.user_path("dora"), None)
        .await;
    assert_eq!(status, 200, "{body}");
    if flavor == Flavor::Elasticsearch {
        // Elasticsearch also says whether there was such a user.
        assert_eq!(body["found"], true, "{body}");
    }

    // The cached credential now gets the cluster's 401: the proxy makes the user again and
    // retries once, so the caller sees none of it.
    let (status, info) = through(&app, "dora", Method::GET, flavor.who_path(), None).await;
    assert_eq!(
        (status, flavor.who_name(&info)),
        (200, json!("dora")),
        "{info}"
    );
    let (status, user) = node.user("dora").await;
    assert_eq!(status, 200);
    assert_eq!(
        flavor.user_metadata(&user)["managed_by"],
        "authproxy",
        "{user}"
    );
}

/// `frank`, a user of the cluster's own, is neither overwritten nor used: the proxy answers 409
/// for it, and for each of `reserved` (more local users whose names the cluster keeps for
/// itself). Returns the node for the flavour's own checks.
pub(super) async fn a_cluster_user_authproxy_did_not_make_is_never_overwritten(
    flavor: Flavor,
    reserved: &[(&str, &str)],
) -> Node {
    let node = node(flavor).await;
    let own_password = "Quiet-Harbor-Lamp-2931";
    let (status, body) = node
        .admin(
            Method::PUT,
            &flavor.user_path("frank"),
            Some(flavor.user_body(
                own_password,
                json!([flavor.reader()]),
                json!({"team": "ops"}),
            )),
        )
        .await;
    assert_eq!(status, flavor.user_created(), "{body}");
    let users: Vec<(&str, &str)> = [("frank", "writers")]
        .into_iter()
        .chain(reserved.iter().copied())
        .collect();
    let app = proxy(&node, "standalone", &users, &flavor.mappings()).await;

    for (name, _) in users {
        let (status, body) = through(&app, name, Method::GET, flavor.who_path(), None).await;
        assert_eq!(status, 409, "{name}: {body}");
        assert_eq!(body["error"]["code"], "search_user_conflict", "{body}");
    }
    let (_, user) = node.user("frank").await;
    assert_eq!(
        flavor.user_metadata(&user),
        json!({"team": "ops"}),
        "{user}"
    );
    assert_eq!(flavor.user_roles(&user), json!([flavor.reader()]), "{user}");
    assert_eq!(node.who(&basic("frank", own_password)).await.0, 200);
    node
}

pub(super) async fn without_the_ca_the_node_is_not_trusted_and_nothing_is_made(flavor: Flavor) {
    let node = node(flavor).await;
    let app = proxy_with_tls(
        &node,
        "standalone",
        &[("uma", "readers")],
        &flavor.mappings(),
        false,
    )
    .await;
    let (status, body) = through(&app, "uma", Method::GET, flavor.who_path(), None).await;
    assert_eq!(status, 503, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("search.tls.ca_file"), "{message}");
    assert_eq!(node.user("uma").await.0, 404);
    let (_, health) = app.get_json("/_health").await;
    let check = health["checks"]["search_backend"].to_string();
    assert!(check.contains("not trusted"), "{check}");
}

/// Six users' first requests at once, then `again` more requests of the first of them at the
/// same time: every request is relayed as its own user with the reader role, and every user is
/// made (no time bound: how fast a loaded machine's cluster writes users proves nothing here).
pub(super) async fn concurrent_first_requests_all_get_their_users(flavor: Flavor, again: usize) {
    let node = node(flavor).await;
    let names = ["ida", "ivo", "ines", "igor", "iris", "ike"];
    let users: Vec<(&str, &str)> = names.iter().map(|name| (*name, "readers")).collect();
    let app = proxy(&node, "standalone", &users, &flavor.mappings()).await;
    let requests: Vec<&str> = names
        .iter()
        .copied()
        .chain(std::iter::repeat_n(names[0], again))
        .collect();
    let answers = futures_util::future::join_all(
        requests
            .iter()
            .map(|name| through(&app, name, Method::GET, flavor.who_path(), None)),
    )
    .await;
    for (name, (status, info)) in requests.iter().zip(answers) {
        assert_eq!(
            (status, flavor.who_name(&info)),
            (200, json!(name)),
            "{info}"
        );
        assert_eq!(flavor.who_roles(&info), json!([flavor.reader()]), "{info}");
    }
    for name in names {
        let (status, user) = node.user(name).await;
        assert_eq!(status, 200, "{name}");
        assert_eq!(flavor.user_roles(&user), json!([flavor.reader()]), "{user}");
    }
}
