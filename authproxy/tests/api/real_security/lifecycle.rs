//! The managed-user lifecycle (`user_management.lifecycle`) against the real secured clusters:
//! an idle user is disabled then deleted (Elasticsearch) or deleted (OpenSearch, which cannot
//! disable), and comes back on its next request; users the proxy did not make, or has no record
//! of, are never touched; two replicas on one Redis take turns (one sweep at a time); roles
//! added by hand in the cluster are removed, none taken away by hand is given back.

use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest::Method;
use serde_json::json;
use test_support::eventually;

use super::{Flavor, Node, node, proxy, through};
use crate::app::TestApp;

/// Sweeps every second; idle for 2 s: disabled, for 5 s: deleted.
const LIFECYCLE: &str = "{enabled: true, interval: 1s, disable_after: 2s, delete_after: 5s}";
/// Sweeps every second, nobody idle for long: only drift repair.
const REPAIR_ONLY: &str = "{enabled: true, interval: 1s, disable_after: 1h, delete_after: 2h}";
/// Long enough for a few sweeps past `delete_after`.
const WITHIN: Duration = Duration::from_secs(30);

/// A standalone proxy towards `node` with the local users `(name, group)` and `lifecycle`, its
/// store on `redis` (the lifecycle refuses the memory store; replicas share one Redis).
async fn lifecycle_proxy(
    node: &Node,
    lifecycle: &str,
    users: &[(&str, &str)],
    redis: &test_support::RedisServer,
) -> TestApp {
    // Appended to `user_management.role_mappings`: the lifecycle beside it, and at the top
    // level the cache section.
    let mappings = format!(
        "{}\n  lifecycle: {lifecycle}\ncache: {{backend: redis, redis_url: \"{}\", \
         encryption_key: 0123456789abcdef0123456789abcdef}}",
        node.flavor.mappings(),
        redis.url()
    );
    proxy(node, "standalone", users, &mappings).await
}

/// Removes `name` from the cluster (a run before may have left it).
async fn clean(node: &Node, name: &str) {
    let (status, body) = node
        .admin(Method::DELETE, &node.flavor.user_path(name), None)
        .await;
    assert!([200, 404].contains(&status), "{body}");
}

/// `PUT`s the user `name` by hand with the admin role and `metadata`: the status.
async fn by_hand(node: &Node, name: &str, metadata: serde_json::Value) -> u16 {
    let flavor = node.flavor;
    let body = flavor.user_body(
        "Quiet-Harbor-Lamp-2931",
        json!([flavor.admin_role()]),
        metadata,
    );
    let (status, answer) = node
        .admin(Method::PUT, &flavor.user_path(name), Some(body))
        .await;
    assert!(status < 300, "{answer}");
    status
}

/// Disables the Elasticsearch user `name` by hand, as an operator locking it out.
async fn disable_by_hand(node: &Node, name: &str) {
    let path = format!("/_security/user/{name}/_disable");
    let (status, body) = node.admin(Method::PUT, &path, None).await;
    assert_eq!(status, 200, "{body}");
}

async fn use_once(app: &TestApp, node: &Node, name: &str) {
    let (status, info) = through(app, name, Method::GET, node.flavor.who_path(), None).await;
    assert_eq!(
        (status, node.flavor.who_name(&info)),
        (200, json!(name)),
        "{info}"
    );
}

async fn wait_until_gone(node: &Node, name: &str) {
    eventually(&format!("{name} is deleted"), WITHIN, async || {
        node.user(name).await.0 == 404
    })
    .await;
}

#[tokio::test]
async fn an_idle_user_is_disabled_then_deleted_on_elasticsearch() {
    let node = node(Flavor::Elasticsearch).await;
    let name = "lc-idle-es";
    clean(&node, name).await;
    let redis = test_support::RedisServer::start();
    let app = lifecycle_proxy(&node, LIFECYCLE, &[(name, "readers")], &redis).await;
    use_once(&app, &node, name).await;

    let counts = app.state.lifecycle_counts().unwrap();
    // Counted once the sweep also dropped the credential.
    eventually("the idle user's disable is counted", WITHIN, async || {
        counts.disabled.load(Ordering::Relaxed) == 1
    })
    .await;
    let (_, user) = node.user(name).await;
    assert_eq!(user["enabled"], false, "{user}");
    // Its next request enables it again (the sweep disabled it, not an operator).
    use_once(&app, &node, name).await;
    let (_, user) = node.user(name).await;
    assert_eq!(user["enabled"], true, "{user}");

    wait_until_gone(&node, name).await;
    // Counted once the sweep also dropped the user's record.
    eventually("the delete is counted", WITHIN, async || {
        counts.deleted.load(Ordering::Relaxed) == 1
    })
    .await;
    assert_eq!(counts.disabled.load(Ordering::Relaxed), 2, "{counts:?}");
    assert_eq!(counts.failed.load(Ordering::Relaxed), 0, "{counts:?}");
    // And after the delete the next request creates it again.
    use_once(&app, &node, name).await;
    assert_eq!(node.user(name).await.0, 200);
}

#[tokio::test]
async fn an_idle_user_is_deleted_on_opensearch() {
    let node = node(Flavor::OpenSearch).await;
    let name = "lc-idle-os";
    clean(&node, name).await;
    let redis = test_support::RedisServer::start();
    let app = lifecycle_proxy(&node, LIFECYCLE, &[(name, "readers")], &redis).await;
    use_once(&app, &node, name).await;

    wait_until_gone(&node, name).await;
    let counts = app.state.lifecycle_counts().unwrap();
    eventually("the delete is counted", WITHIN, async || {
        counts.deleted.load(Ordering::Relaxed) == 1
    })
    .await;
    assert_eq!(counts.disabled.load(Ordering::Relaxed), 0, "{counts:?}");
    use_once(&app, &node, name).await;
    assert_eq!(node.user(name).await.0, 200);
}

/// An attacker (or an operator) makes users under the names the proxy uses: one without the
/// mark under the name of a local user who then signs in (so the proxy has a record of the
/// name: its upsert is refused, 409), one that copies the mark. On Elasticsearch the copy is
/// also disabled and its name signs in too (refused, 403: the proxy never enables a user an
/// operator disabled), so that sign-in leaves the proxy a record of use for it; on OpenSearch
/// (no disabling) the proxy would adopt it, so its name does not sign in. Neither is disabled
/// or deleted, however long idle, while the proxy's own idle user in the same sweeps is.
async fn users_the_proxy_did_not_make_are_never_touched(flavor: Flavor, suffix: &str) {
    let node = node(flavor).await;
    let own = format!("lc-own-{suffix}");
    let taken = format!("lc-taken-{suffix}");
    let forged = format!("lc-forged-{suffix}");
    for name in [&own, &taken, &forged] {
        clean(&node, name).await;
    }
    for (name, metadata) in [
        (&taken, json!({"team": "ops"})),
        (
            &forged,
            json!({"managed_by": "authproxy", "managed_source": "basic"}),
        ),
    ] {
        assert_eq!(by_hand(&node, name, metadata).await, flavor.user_created());
    }
    let signs_in_forged = flavor == Flavor::Elasticsearch;
    if signs_in_forged {
        disable_by_hand(&node, &forged).await;
    }
    let redis = test_support::RedisServer::start();
    let app = lifecycle_proxy(
        &node,
        LIFECYCLE,
        &[(&own, "readers"), (&taken, "readers"), (&forged, "readers")],
        &redis,
    )
    .await;
    use_once(&app, &node, &own).await;
    let (status, body) = through(&app, &taken, Method::GET, flavor.who_path(), None).await;
    assert_eq!(status, 409, "{body}");
    if signs_in_forged {
        let (status, body) = through(&app, &forged, Method::GET, flavor.who_path(), None).await;
        assert_eq!(status, 403, "{body}");
    }

    wait_until_gone(&node, &own).await;
    let counts = app.state.lifecycle_counts().unwrap();
    eventually("the delete is counted", WITHIN, async || {
        counts.deleted.load(Ordering::Relaxed) == 1
    })
    .await;
    // Sweeps keep running past delete_after.
    let start = counts.sweeps.load(Ordering::Relaxed);
    eventually("six more sweeps", WITHIN, async || {
        counts.sweeps.load(Ordering::Relaxed) >= start + 6
    })
    .await;
    for (name, enabled) in [(&taken, true), (&forged, !signs_in_forged)] {
        let (status, user) = node.user(name).await;
        assert_eq!(status, 200, "{name}: {user}");
        assert_eq!(user["enabled"] != false, enabled, "{name}: {user}");
        assert_eq!(flavor.user_roles(&user), json!([flavor.admin_role()]));
    }
    assert_eq!(counts.deleted.load(Ordering::Relaxed), 1, "{counts:?}");
    assert_eq!(counts.failed.load(Ordering::Relaxed), 0, "{counts:?}");
    for name in [&taken, &forged] {
        clean(&node, name).await;
    }
}

#[tokio::test]
async fn users_the_proxy_did_not_make_are_never_touched_on_elasticsearch() {
    users_the_proxy_did_not_make_are_never_touched(Flavor::Elasticsearch, "es").await;
}

#[tokio::test]
async fn users_the_proxy_did_not_make_are_never_touched_on_opensearch() {
    users_the_proxy_did_not_make_are_never_touched(Flavor::OpenSearch, "os").await;
}

/// An operator disables a managed user: the sweep neither deletes it (the next sign-in would
/// make it anew, enabled) nor marks it, however long idle; its sign-in stays refused.
#[tokio::test]
async fn an_operators_lock_out_stays_on_elasticsearch() {
    let node = node(Flavor::Elasticsearch).await;
    let (own, locked) = ("lc-own-lock", "lc-locked");
    for name in [own, locked] {
        clean(&node, name).await;
    }
    let users = [(own, "readers"), (locked, "readers")];
    let redis = test_support::RedisServer::start();
    let app = lifecycle_proxy(&node, LIFECYCLE, &users, &redis).await;
    use_once(&app, &node, own).await;
    use_once(&app, &node, locked).await;
    disable_by_hand(&node, locked).await;
    // The proxy's own idle user is deleted meanwhile, and sweeps go on past delete_after.
    wait_until_gone(&node, own).await;
    let counts = app.state.lifecycle_counts().unwrap();
    let start = counts.sweeps.load(Ordering::Relaxed);
    eventually("six more sweeps", WITHIN, async || {
        counts.sweeps.load(Ordering::Relaxed) >= start + 6
    })
    .await;
    let (status, user) = node.user(locked).await;
    assert_eq!((status, &user["enabled"]), (200, &json!(false)), "{user}");
    let (status, body) = through(&app, locked, Method::GET, "/_security/_authenticate", None).await;
    assert!([401, 403].contains(&status), "{status} {body}");
    clean(&node, locked).await;
}

#[tokio::test]
async fn two_replicas_on_one_redis_sweep_once_per_interval() {
    let node = node(Flavor::Elasticsearch).await;
    let redis = test_support::RedisServer::start();
    let names = ["lc-pair-a", "lc-pair-b", "lc-pair-c"];
    for name in names {
        clean(&node, name).await;
    }
    let users: Vec<(&str, &str)> = names.iter().map(|name| (*name, "readers")).collect();
    let started = std::time::Instant::now();
    let first = lifecycle_proxy(&node, LIFECYCLE, &users, &redis).await;
    for name in names {
        use_once(&first, &node, name).await;
    }
    // The second replica starts once the first has swept, so their ticks are apart by more
    // than a sweep takes (else the second would always find the first one's sweep running).
    let counts = first.state.lifecycle_counts().unwrap();
    eventually("the first replica sweeps", WITHIN, async || {
        counts.sweeps.load(Ordering::Relaxed) >= 1
    })
    .await;
    let second = lifecycle_proxy(&node, LIFECYCLE, &users, &redis).await;
    for name in names {
        wait_until_gone(&node, name).await;
    }
    let first = first.state.lifecycle_counts().unwrap();
    let second = second.state.lifecycle_counts().unwrap();
    let deleted = || first.deleted.load(Ordering::Relaxed) + second.deleted.load(Ordering::Relaxed);
    // Counted once the sweep also dropped the users' records.
    eventually("the deletes are counted", WITHIN, async || deleted() >= 3).await;
    let disabled = first.disabled.load(Ordering::Relaxed) + second.disabled.load(Ordering::Relaxed);
    let deleted = first.deleted.load(Ordering::Relaxed) + second.deleted.load(Ordering::Relaxed);
    assert_eq!((disabled, deleted), (3, 3), "{first:?} {second:?}");
    // One sweep per interval (1 s, the lease kept for 0.9 s of it) among both, not one each.
    let sweeps = || first.sweeps.load(Ordering::Relaxed) + second.sweeps.load(Ordering::Relaxed);
    eventually("twelve sweeps", WITHIN, async || sweeps() >= 12).await;
    let most = started.elapsed().as_secs() * 10 / 9 + 2;
    assert!(sweeps() <= most, "{} sweeps, at most {most}", sweeps());
}

/// An operator (or an intruder with the admin credential) replaces a managed user's roles by
/// hand: the role added (the admin role) is taken away by the next sweep, the role taken away
/// (the mapped reader role: an operator's emergency cut) is not given back by any sweep.
async fn roles_added_by_hand_are_removed_none_restored(flavor: Flavor, name: &str) {
    let node = node(flavor).await;
    clean(&node, name).await;
    let redis = test_support::RedisServer::start();
    let app = lifecycle_proxy(&node, REPAIR_ONLY, &[(name, "readers")], &redis).await;
    use_once(&app, &node, name).await;
    let marks = json!({"managed_by": "authproxy", "managed_source": "basic"});
    assert_eq!(by_hand(&node, name, marks).await, 200);
    let counts = app.state.lifecycle_counts().unwrap();
    eventually("the added role is removed", WITHIN, async || {
        flavor.user_roles(&node.user(name).await.1) == json!([])
            && counts.repaired.load(Ordering::Relaxed) >= 1
    })
    .await;
    // Later sweeps leave the cut as it is.
    let start = counts.sweeps.load(Ordering::Relaxed);
    eventually("three more sweeps", WITHIN, async || {
        counts.sweeps.load(Ordering::Relaxed) >= start + 3
    })
    .await;
    let (_, user) = node.user(name).await;
    assert_eq!(flavor.user_roles(&user), json!([]), "{user}");
    assert_eq!(counts.disabled.load(Ordering::Relaxed), 0, "{counts:?}");
    assert_eq!(counts.deleted.load(Ordering::Relaxed), 0, "{counts:?}");
    // The user is still the proxy's, and its next request works (upserted with its roles).
    assert_eq!(
        flavor.user_metadata(&user)["managed_by"],
        "authproxy",
        "{user}"
    );
    use_once(&app, &node, name).await;
    clean(&node, name).await;
}

#[tokio::test]
async fn roles_added_by_hand_are_removed_none_restored_on_elasticsearch() {
    roles_added_by_hand_are_removed_none_restored(Flavor::Elasticsearch, "lc-drift-es").await;
}

#[tokio::test]
async fn roles_added_by_hand_are_removed_none_restored_on_opensearch() {
    roles_added_by_hand_are_removed_none_restored(Flavor::OpenSearch, "lc-drift-os").await;
}
