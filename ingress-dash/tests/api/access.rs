//! `access:` (issue 18): the identity only from trusted proxies, and namespace visibility per
//! group in snapshots, streams and `/api/namespaces`, on one shared watcher. Against a real API
//! server of the suite's own (a cluster-wide watcher must see these namespaces only, and the
//! server's own: `default`, `kube-*`), the stream test on one of its own (it writes).

use std::sync::OnceLock;
use std::time::Duration;

use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use crate::app::{SseEvent, SseReader, TestApp, eventually};
use crate::real_kube::{Cluster, INGRESS, RealApp, spawn_proxied_to, spawn_real_server};

const WAIT: Duration = Duration::from_secs(10);

/// The test client (127.0.0.1) plays the sign-in proxy.
const LOOPBACK_IS_TRUSTED: &str = "  trusted_proxies: [127.0.0.0/8, \"::1\"]\n";

const SHOP_MAPPING: &str = "access:\n  mode: trusted_headers\n  namespaces_by_group:\n    shop: [\"shop-*\"]\n    sre: [\"*\"]\n";

fn ingress(namespace: &str, name: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"rules": [{"host": format!("{name}.{namespace}.example.com")}]},
    })
}

/// What a real API server has before any write: its own namespaces.
const SYSTEM_NAMESPACES: [&str; 4] = ["default", "kube-node-lease", "kube-public", "kube-system"];

/// The suite's namespaces, as `/api/namespaces` lists them for a user who sees everything.
fn every_namespace() -> Value {
    let mut names: Vec<&str> = SYSTEM_NAMESPACES.to_vec();
    names.extend(["secret", "shop-eu", "shop-us"]);
    names.sort_unstable();
    json!(names)
}

/// Namespaces `shop-eu`, `shop-us` and `secret`, one ingress `web` each, with kubectl.
fn populate(cluster: &KubeCluster) {
    let yaml: String = ["shop-eu", "shop-us", "secret"]
        .iter()
        .map(|namespace| {
            format!(
                "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n---\n\
                 apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  \
                 namespace: {namespace}\nspec:\n  rules:\n  - host: web.{namespace}.example.com\n---\n"
            )
        })
        .collect();
    cluster.apply(&yaml);
}

/// The suite's cluster: [`populate`]d once, only read by the tests.
fn access_cluster() -> &'static KubeCluster {
    static CLUSTER: OnceLock<KubeCluster> = OnceLock::new();
    CLUSTER.get_or_init(|| {
        let cluster = KubeCluster::start();
        populate(&cluster);
        cluster
    })
}

/// The application against the suite's cluster, with `server_yaml` and `overrides_yaml`.
async fn spawn_app_server(server_yaml: &str, overrides_yaml: &str) -> RealApp {
    spawn_real_server(
        Cluster::Shared(access_cluster()),
        None,
        server_yaml,
        "",
        overrides_yaml,
    )
    .await
}

fn as_user(app: &RealApp, path: &str, user: &str, groups: &str) -> reqwest::RequestBuilder {
    app.client
        .get(format!("{}{path}", app.address))
        .header("X-Auth-Request-User", user)
        .header("X-Auth-Request-Email", format!("{user}@example.com"))
        .header("X-Auth-Request-Groups", groups)
}

async fn json_of(request: reqwest::RequestBuilder) -> (u16, Value) {
    let response = request.send().await.expect("request sent");
    let status = response.status().as_u16();
    (status, response.json().await.expect("a JSON body"))
}

fn namespaces_of(items: &Value) -> Vec<String> {
    items
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["namespace"].as_str().unwrap().to_owned())
        .collect()
}

fn event_namespace(event: &SseEvent) -> &str {
    event.data["namespace"].as_str().unwrap_or_default()
}

#[tokio::test]
async fn identity_headers_from_an_untrusted_peer_are_ignored() {
    // The sign-in proxy is 10.0.0.0/8; the test client (127.0.0.1) is not it.
    let app = spawn_app_server("  trusted_proxies: [10.0.0.0/8]\n", SHOP_MAPPING).await;
    for path in [
        "/api/whoami",
        "/api/namespaces",
        "/api/ingresses",
        "/api/ingresses?namespaces=shop-eu",
        "/api/ingresses/stream",
        "/",
    ] {
        let (status, body) = json_of(as_user(&app, path, "mallory", "sre")).await;
        assert_eq!(status, 401, "{path}");
        assert_eq!(body["error"]["code"], "unauthenticated", "{path}");
    }
    // Probes stay open: liveness, readiness and metrics.
    for path in ["/api/live", "/api/health", "/_metrics"] {
        assert_eq!(app.get(path).await.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn a_trusted_peer_must_name_a_user() {
    let app = spawn_app_server(LOOPBACK_IS_TRUSTED, SHOP_MAPPING).await;
    let (status, body) = app.get_json("/api/namespaces").await;
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("unauthenticated"))
    );
    let only_groups = app
        .client
        .get(format!("{}/api/namespaces", app.address))
        .header("X-Auth-Request-Groups", "sre");
    assert_eq!(json_of(only_groups).await.0, 401);
}

#[tokio::test]
async fn a_group_limited_user_sees_only_its_namespaces() {
    let app = spawn_app_server(LOOPBACK_IS_TRUSTED, SHOP_MAPPING).await;
    let ann = |path: &str| as_user(&app, path, "ann", "unmapped,shop");

    let (status, body) = json_of(ann("/api/namespaces")).await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"namespaces": ["shop-eu", "shop-us"]}));
    // "all", from the lists and then from the watcher's memory, and with a search.
    for _ in 0..2 {
        let (status, body) = json_of(ann("/api/ingresses")).await;
        assert_eq!(status, 200);
        assert_eq!(namespaces_of(&body["items"]), ["shop-eu", "shop-us"]);
    }
    let (_, found) = json_of(ann("/api/ingresses?search=secret")).await;
    assert_eq!(found["items"], json!([]));
    let (status, body) = json_of(ann("/api/ingresses?namespaces=shop-us")).await;
    assert_eq!(
        (status, namespaces_of(&body["items"])),
        (200, vec!["shop-us".to_owned()])
    );
    // Another namespace is refused, whether it exists or not, in snapshots and streams.
    for path in [
        "/api/ingresses?namespaces=secret",
        "/api/ingresses?namespaces=shop-eu,secret",
        "/api/ingresses?namespaces=no-such-namespace",
        "/api/ingresses/stream?namespaces=secret",
    ] {
        let (status, body) = json_of(ann(path)).await;
        assert_eq!(status, 403, "{path}");
        assert_eq!(body["error"]["code"], "forbidden", "{path}");
    }
    let (_, body) = json_of(ann("/api/ingresses?namespaces=secret")).await;
    assert_eq!(
        body["error"]["message"],
        "Namespace \"secret\" is not among the namespaces your groups may see."
    );
    // A group mapped to "*" sees everything; an unmapped user (no default) sees nothing.
    let (_, body) = json_of(as_user(&app, "/api/ingresses", "sam", "sre")).await;
    assert_eq!(
        namespaces_of(&body["items"]),
        ["secret", "shop-eu", "shop-us"]
    );
    let (_, body) = json_of(as_user(&app, "/api/namespaces", "eve", "interns")).await;
    assert_eq!(body, json!({"namespaces": []}));
    let (status, body) = json_of(as_user(&app, "/api/ingresses", "eve", "interns")).await;
    assert_eq!((status, &body["items"]), (200, &json!([])));
}

/// Events of `reader` until one for `marker` (an ingress name) arrives.
async fn until_marker(reader: &mut SseReader, marker: &str) -> Vec<SseEvent> {
    reader
        .events_until(WAIT, |events| {
            events
                .last()
                .is_some_and(|event| event.data["name"] == marker)
        })
        .await
}

#[tokio::test]
async fn the_stream_shows_a_limited_user_only_its_namespaces_on_the_shared_watcher() {
    // Ingresses only: the test counts the ingress watches.
    let only_ingresses = format!(
        "{SHOP_MAPPING}backends:\n  enabled: false\ncertificates:\n  cert_manager: false\ngateway_api:\n  enabled: false\n"
    );
    // A cluster of its own (the test writes), through a fault proxy that counts the watches.
    let cluster = KubeCluster::start();
    populate(&cluster);
    let app = spawn_proxied_to(
        Cluster::Own(Box::new(cluster)),
        LOOPBACK_IS_TRUSTED,
        "",
        &only_ingresses,
    )
    .await;
    let mut ann = TestApp::open_stream(as_user(&app, "/api/ingresses/stream", "ann", "shop")).await;
    let mut sam = TestApp::open_stream(as_user(&app, "/api/ingresses/stream", "sam", "sre")).await;
    let snapshot = ann.next_event(WAIT).await.unwrap();
    assert_eq!(snapshot.event, "snapshot");
    assert_eq!(
        namespaces_of(&snapshot.data["items"]),
        ["shop-eu", "shop-us"]
    );
    let full = sam.next_event(WAIT).await.unwrap();
    assert_eq!(
        namespaces_of(&full.data["items"]),
        ["secret", "shop-eu", "shop-us"]
    );
    // Both are filtered views of the one cluster-wide watcher.
    assert_eq!(app.state.hub.watcher_count(), 1);
    assert!(eventually(async || app.kube.faults().open_watches() == 1).await);

    // A change in `secret`, then one in `shop-eu`: events arrive in order, so a leaked
    // `secret` event would come first.
    app.kube.put(INGRESS, ingress("secret", "hidden")).await;
    app.kube.put(INGRESS, ingress("shop-eu", "marker-1")).await;
    let seen = until_marker(&mut ann, "marker-1").await;
    assert!(
        seen.iter().all(|event| event_namespace(event) != "secret"),
        "{seen:#?}"
    );
    let everything = until_marker(&mut sam, "marker-1").await;
    assert!(
        everything
            .iter()
            .any(|event| event.data["name"] == "hidden")
    );

    // A reconnect with Last-Event-ID replays the missed events of the visible namespaces only.
    let mut resumed = TestApp::open_stream(
        as_user(&app, "/api/ingresses/stream", "ann", "shop")
            .header("Last-Event-ID", snapshot.id.as_str()),
    )
    .await;
    app.kube.put(INGRESS, ingress("secret", "hidden-2")).await;
    app.kube.put(INGRESS, ingress("shop-us", "marker-2")).await;
    let replayed = until_marker(&mut resumed, "marker-2").await;
    assert!(
        replayed
            .iter()
            .all(|event| event.event != "snapshot" && event_namespace(event) != "secret"),
        "{replayed:#?}"
    );
    assert!(
        replayed
            .iter()
            .any(|event| event.data["name"] == "marker-1")
    );
    // An explicitly named visible namespace streams as before, on its own shared watcher.
    let mut named = TestApp::open_stream(as_user(
        &app,
        "/api/ingresses/stream?namespaces=shop-us",
        "ann",
        "shop",
    ))
    .await;
    let snapshot = named.next_event(WAIT).await.unwrap();
    assert_eq!(
        namespaces_of(&snapshot.data["items"]),
        ["shop-us", "shop-us"]
    );
}

#[tokio::test]
async fn whoami_names_the_signed_in_user_and_the_namespaces_of_its_groups() {
    let mapping = format!("{SHOP_MAPPING}    pay: [payments]\n  default_namespaces: [public]\n");
    let app = spawn_app_server(LOOPBACK_IS_TRUSTED, &mapping).await;
    let (status, body) = json_of(as_user(&app, "/api/whoami", "ann", "unmapped,shop,pay")).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({
            "mode": "trusted_headers",
            "user": "ann",
            "email": "ann@example.com",
            "groups": ["unmapped", "shop", "pay"],
            "namespaces": ["payments", "shop-*"],
        })
    );
    // A group mapped to "*" sees everything; a user in no mapped group gets the default.
    let (_, sam) = json_of(as_user(&app, "/api/whoami", "sam", "pay,sre")).await;
    assert_eq!(
        (&sam["user"], &sam["namespaces"]),
        (&json!("sam"), &json!("*"))
    );
    let (_, eve) = json_of(as_user(&app, "/api/whoami", "eve", "interns")).await;
    assert_eq!(eve["namespaces"], json!(["public"]));
    // No identity, no answer.
    let (status, body) = app.get_json("/api/whoami").await;
    assert_eq!(
        (status, &body["error"]["code"]),
        (401, &json!("unauthenticated"))
    );
}

#[tokio::test]
async fn whoami_in_open_mode_is_nobody_seeing_everything() {
    let app = spawn_app_server(LOOPBACK_IS_TRUSTED, "").await;
    // Identity headers are not read in open mode.
    let (status, body) = json_of(as_user(&app, "/api/whoami", "ann", "shop")).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"mode": "open", "user": null, "email": null, "groups": [], "namespaces": "*"})
    );
}

#[tokio::test]
async fn trusted_headers_without_a_mapping_show_everything_as_before() {
    let app = spawn_app_server(LOOPBACK_IS_TRUSTED, "access:\n  mode: trusted_headers\n").await;
    let (status, body) = json_of(as_user(&app, "/api/namespaces", "ann", "shop")).await;
    assert_eq!(status, 200);
    assert_eq!(body["namespaces"], every_namespace());
    let (_, body) = json_of(as_user(&app, "/api/ingresses?namespaces=secret", "ann", "")).await;
    assert_eq!(namespaces_of(&body["items"]), ["secret"]);
    // Still no identity, no answer.
    assert_eq!(app.get("/api/ingresses").await.status(), 401);
}

#[tokio::test]
async fn open_mode_reads_no_identity_header() {
    let app = spawn_app_server(LOOPBACK_IS_TRUSTED, "").await;
    // Identity headers change nothing in open mode (the default).
    let (status, body) = json_of(as_user(&app, "/api/namespaces", "ann", "shop")).await;
    assert_eq!((status, &body["namespaces"]), (200, &every_namespace()));
}

#[tokio::test]
async fn invalid_mapping_entries_are_refused_at_start() {
    let problems = service_kit::config::ConfigLoader::new("TEST_UNUSED_PREFIX")
        .with_env(Default::default())
        .load_str::<ingress_dash::Settings>(
            "access:\n  mode: trusted_headers\n  namespaces_by_group:\n    shop: [Shop, \"shop-*\"]\n",
        )
        .unwrap_err()
        .to_string();
    assert_eq!(
        problems,
        "access.namespaces_by_group.shop[0]: \"Shop\" is not a valid namespace name (a DNS-1123 label) nor a glob"
    );
}
