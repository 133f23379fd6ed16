//! A namespace-scoped Role for ingress-dash's service account (a real token from the
//! TokenRequest API): the API server's own 403s for the namespace it may not read and for
//! cluster-wide lists become that scope's error state, while the allowed namespace works.

use std::time::Duration;

use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

use super::{Cluster, INGRESS, RealApp, WAIT, ingress, names, spawn_real};

const ALLOWED: &str = "rk-rbac-a";
const DENIED: &str = "rk-rbac-b";

/// Service account `dash` in `rk-rbac-a` with a Role there that reads ingresses, Services,
/// EndpointSlices and HTTPRoutes (not Events); its token.
fn service_account(cluster: &KubeCluster) -> String {
    cluster.install_gateway_api_crds();
    cluster.apply(&format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ALLOWED}\n---\n\
         apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {DENIED}\n---\n\
         apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: dash\n  namespace: {ALLOWED}\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: dash\n  \
         namespace: {ALLOWED}\nrules:\n\
         - apiGroups: [networking.k8s.io]\n  resources: [ingresses]\n  verbs: [get, list, watch]\n\
         - apiGroups: [\"\"]\n  resources: [services]\n  verbs: [get, list, watch]\n\
         - apiGroups: [discovery.k8s.io]\n  resources: [endpointslices]\n  verbs: [get, list, watch]\n\
         - apiGroups: [gateway.networking.k8s.io]\n  resources: [httproutes]\n  verbs: [get, list, watch]\n\
         ---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: dash\n  \
         namespace: {ALLOWED}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  \
         name: dash\nsubjects:\n- kind: ServiceAccount\n  name: dash\n  namespace: {ALLOWED}\n",
    ));
    cluster.create_token(ALLOWED, "dash")
}

async fn app_as_service_account(kube_yaml: &str) -> RealApp {
    let cluster = KubeCluster::shared();
    let token = service_account(cluster);
    let app = spawn_real(Cluster::Shared(cluster), Some(&token), kube_yaml, "").await;
    for (namespace, name) in [(ALLOWED, "shop"), (DENIED, "secret-shop")] {
        let host = format!("{name}.example.com");
        app.kube
            .put(INGRESS, ingress(namespace, name, &host, "web"))
            .await;
    }
    app
}

fn forbidden_error(errors: &Value, namespace: &str) -> Value {
    let errors = errors.as_array().expect("errors");
    assert_eq!(errors.len(), 1, "{errors:?}");
    let error = &errors[0];
    assert_eq!(error["namespace"], namespace, "{error}");
    assert_eq!(error["code"], "kubernetes_forbidden", "{error}");
    assert_eq!(error["status"], 403, "{error}");
    error.clone()
}

#[tokio::test]
async fn a_namespace_the_role_does_not_cover_is_a_403_error_and_the_other_streams() {
    let app = app_as_service_account(&format!("  namespaces: [{ALLOWED}, {DENIED}]\n")).await;
    let mut stream = app
        .stream(&format!("?namespaces={ALLOWED},{DENIED}"), None)
        .await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.event, "snapshot");
    assert_eq!(names(&first.data), ["shop"]);
    let error = forbidden_error(&first.data["errors"], DENIED);
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("may not list or watch ingresses in {DENIED}")),
        "{message}"
    );
    // The allowed namespace's backends were read (Services allowed there), not `unknown`.
    assert_eq!(
        first.data["items"][0]["backends"][0]["state"],
        "missing_service"
    );

    // The allowed namespace streams on.
    app.kube
        .put(INGRESS, ingress(ALLOWED, "api", "api.example.com", "web"))
        .await;
    let added = stream.next_event(WAIT).await.expect("an event");
    assert_eq!(
        (added.event.as_str(), added.data["name"].as_str()),
        ("added", Some("api"))
    );
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={ALLOWED},{DENIED}"))
        .await;
    assert_eq!(status, 200);
    assert_eq!(names(&body), ["api", "shop"]);
    forbidden_error(&body["errors"], DENIED);

    // On demand: the YAML where the Role allows get; a 403 that names what is missing where
    // it does not (Events are not in the Role).
    let yaml = app
        .get(&format!("/api/objects/ingresses/{ALLOWED}/shop/yaml"))
        .await;
    assert_eq!(yaml.status(), 200);
    let (status, body) = app
        .get_json(&format!("/api/objects/ingresses/{ALLOWED}/shop/events"))
        .await;
    assert_eq!(status, 403, "{body}");
    assert_eq!(body["error"]["code"], "kubernetes_forbidden");
    let message = body["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(&format!(
            "The service account may not list events in {ALLOWED}"
        )),
        "{message}"
    );
    let (status, body) = app
        .get_json(&format!("/api/objects/ingresses/{DENIED}/secret-shop/yaml"))
        .await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!(
                "The service account may not get ingresses.networking.k8s.io in {DENIED}"
            )),
        "{body}"
    );
}

#[tokio::test]
async fn cluster_wide_lists_are_a_403_error_of_the_cluster_wide_scope() {
    let app = app_as_service_account("").await;
    let mut stream = app.stream("", None).await;
    let first = stream.next_event(WAIT).await.expect("a first event");
    let errors = match first.event.as_str() {
        "snapshot" => first.data["errors"].clone(),
        "error" => json!([first.data]),
        other => panic!("{other}: {:?}", first.data),
    };
    let error = forbidden_error(&errors, "*");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains("cluster-wide"), "{message}");
    assert!(
        first.data["items"]
            .as_array()
            .is_none_or(|items| items.is_empty()),
        "{}",
        first.data
    );
    let (status, body) = app.get_json("/api/health").await;
    assert_eq!(status, 503, "listing namespaces is forbidden: {body}");
    assert_eq!(body["checks"]["kubernetes"]["status"], "down");
}

/// A token the API server does not accept: its real 401 is the scope's error.
#[tokio::test]
async fn a_token_the_server_does_not_accept_is_a_401_error() {
    let cluster = KubeCluster::shared();
    cluster.apply("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: rk-unauthorized\n");
    let app = spawn_real(
        Cluster::Shared(cluster),
        Some("not-a-token"),
        "  namespaces: [rk-unauthorized]\n",
        "",
    )
    .await;
    let mut stream = app.stream("?namespaces=rk-unauthorized", None).await;
    let first = stream.next_event(WAIT).await.expect("a snapshot");
    assert_eq!(first.event, "snapshot");
    let errors = first.data["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0]["code"], "kubernetes_unauthorized", "{errors:?}");
    assert_eq!(errors[0]["status"], 401, "{errors:?}");
    let (status, body) = app.get_json("/api/health").await;
    assert_eq!(status, 503, "{body}");
}

/// A Role that grants list but not watch: the list answers, the watch gets the real 403; the
/// namespace is in error (its records would go stale), once, without flapping back and forth
/// at each retry.
#[tokio::test]
async fn a_role_without_watch_lists_then_reports_the_watchs_403_once() {
    let cluster = KubeCluster::shared();
    let ns = "rk-no-watch";
    cluster.apply(&format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {ns}\n---\n\
         apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: lister\n  namespace: {ns}\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: lister\n  \
         namespace: {ns}\nrules:\n\
         - apiGroups: [networking.k8s.io]\n  resources: [ingresses]\n  verbs: [get, list]\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: lister\n  \
         namespace: {ns}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  \
         name: lister\nsubjects:\n- kind: ServiceAccount\n  name: lister\n  namespace: {ns}\n",
    ));
    let token = cluster.create_token(ns, "lister");
    let app = spawn_real(
        Cluster::Shared(cluster),
        Some(&token),
        &format!("  namespaces: [{ns}]\n  permanent_error_retry: 1s\n"),
        "backends:\n  enabled: false\ngateway_api:\n  enabled: false\n",
    )
    .await;
    app.kube
        .put(INGRESS, ingress(ns, "web", "web.example.com", "web"))
        .await;
    let mut stream = app.stream(&format!("?namespaces={ns}"), None).await;
    let mut events = vec![stream.next_event(WAIT).await.expect("a snapshot")];
    // Retried every second for 5 s.
    while let Some(event) = stream.next_event(Duration::from_secs(5)).await {
        events.push(event);
        assert!(events.len() < 10, "{events:#?}");
    }
    let errors: Vec<Value> = events
        .iter()
        .flat_map(|event| match event.event.as_str() {
            "snapshot" => event.data["errors"].as_array().unwrap().clone(),
            "error" => vec![event.data.clone()],
            _ => Vec::new(),
        })
        .collect();
    assert_eq!(errors.len(), 1, "{events:#?}");
    forbidden_error(&json!(errors), ns);
    assert!(
        events.iter().all(|event| event.event != "recovered"),
        "{events:#?}"
    );
}

/// Moved from kube-test-server (`snapshot.rs`, which forbade every cluster-wide call): a
/// namespace-scoped install whose Roles cover its namespaces only works without any
/// cluster-wide permission, and refuses a namespace it does not watch.
#[tokio::test]
async fn configured_namespaces_work_without_cluster_permissions() {
    let cluster = KubeCluster::shared();
    let (first, second) = ("rk-scoped-a", "rk-scoped-b");
    let mut yaml = format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {first}\n---\n\
         apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: scoped\n  namespace: {first}\n"
    );
    for namespace in [first, second] {
        yaml.push_str(&format!(
            "---\napiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: scoped\n  \
             namespace: {namespace}\nrules:\n\
             - apiGroups: [networking.k8s.io]\n  resources: [ingresses]\n  verbs: [get, list, watch]\n\
             ---\n\
             apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: scoped\n  \
             namespace: {namespace}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  \
             name: scoped\nsubjects:\n- kind: ServiceAccount\n  name: scoped\n  namespace: {first}\n",
        ));
    }
    cluster.apply(&yaml);
    let token = cluster.create_token(first, "scoped");
    let app = spawn_real(
        Cluster::Shared(cluster),
        Some(&token),
        &format!("  namespaces: [{second}, {first}]\n"),
        "backends:\n  enabled: false\ngateway_api:\n  enabled: false\n",
    )
    .await;
    for (namespace, name) in [(first, "web"), (second, "one"), (second, "two")] {
        let host = format!("{name}.{namespace}.example.com");
        app.kube
            .put(INGRESS, ingress(namespace, name, &host, "web"))
            .await;
    }
    let (status, body) = app.get_json("/api/namespaces").await;
    assert_eq!(
        (status, body),
        (200, json!({"namespaces": [first, second]}))
    );
    let (status, body) = app.get_json("/api/ingresses").await;
    assert_eq!(status, 200);
    assert_eq!(body["items"].as_array().unwrap().len(), 3, "{body}");
    assert_eq!(body["errors"], json!([]));
    let (status, body) = app
        .get_json(&format!("/api/ingresses?namespaces={DENIED}"))
        .await;
    assert_eq!(status, 404);
    assert_eq!(body["error"]["code"], "namespace_not_watched");
    let (status, body) = app.get_json("/api/health").await;
    assert_eq!(status, 200, "{body}");
}
