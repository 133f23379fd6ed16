//! The Kubernetes harness against itself: the real kube-apiserver and etcd built by
//! `scripts/install-kube.sh` start, report the pinned version, store and list objects, enforce
//! RBAC on a service account's real token, take the Gateway API CRDs; helm runs.

use reqwest::StatusCode;
use serde_json::Value;
use test_support::kube_cluster::KubeCluster;

fn stdout(output: &std::process::Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}): {}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn kubectl_reports_the_pinned_server_version() {
    let cluster = KubeCluster::shared();
    let version: Value = serde_json::from_str(&stdout(
        &cluster.kubectl(&["version", "-o", "json"]),
        "kubectl version",
    ))
    .unwrap();
    let pinned = format!("v{}", KubeCluster::version());
    assert_eq!(
        version["serverVersion"]["gitVersion"],
        pinned.as_str(),
        "{version}"
    );
    assert_eq!(
        version["clientVersion"]["gitVersion"],
        pinned.as_str(),
        "{version}"
    );
}

#[tokio::test]
async fn an_applied_ingress_is_listed_through_the_rest_api() {
    let cluster = KubeCluster::shared();
    cluster.apply(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: smoke-ingress\n---\n\
         apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: web\n  \
         namespace: smoke-ingress\nspec:\n  rules:\n  - host: web.example.test\n    http:\n      \
         paths:\n      - path: /\n        pathType: Prefix\n        backend:\n          \
         service:\n            name: web\n            port:\n              number: 80\n",
    );
    let url = format!(
        "{}/apis/networking.k8s.io/v1/namespaces/smoke-ingress/ingresses",
        cluster.url()
    );
    let response = cluster.admin_client().get(&url).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let list: Value = response.json().await.unwrap();
    assert_eq!(list["kind"], "IngressList");
    let items = list["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{list}");
    assert_eq!(items[0]["metadata"]["name"], "web");
    assert_eq!(items[0]["spec"]["rules"][0]["host"], "web.example.test");
    // Without a credential the request is anonymous, and anonymous may not list.
    let anonymous = cluster.client().get(&url).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn a_namespaced_role_lets_its_service_account_list_there_only() {
    let cluster = KubeCluster::shared();
    cluster.apply(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: rbac-a\n---\n\
         apiVersion: v1\nkind: Namespace\nmetadata:\n  name: rbac-b\n---\n\
         apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: reader\n  namespace: rbac-a\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: ingress-reader\n  \
         namespace: rbac-a\nrules:\n- apiGroups: [networking.k8s.io]\n  resources: [ingresses]\n  \
         verbs: [list, watch]\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  \
         name: reader\n  namespace: rbac-a\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  \
         kind: Role\n  name: ingress-reader\nsubjects:\n- kind: ServiceAccount\n  name: reader\n  \
         namespace: rbac-a\n",
    );
    let token = cluster.create_token("rbac-a", "reader");
    assert_eq!(token.split('.').count(), 3, "a JWT: {token}");
    let client = cluster.client_with_token(&token);
    let list = |namespace: &str| {
        format!(
            "{}/apis/networking.k8s.io/v1/namespaces/{namespace}/ingresses",
            cluster.url()
        )
    };
    let allowed = client.get(list("rbac-a")).send().await.unwrap();
    assert_eq!(allowed.status(), StatusCode::OK);
    let denied = client.get(list("rbac-b")).send().await.unwrap();
    assert_eq!(denied.status(), StatusCode::FORBIDDEN);
    let status: Value = denied.json().await.unwrap();
    assert_eq!(status["reason"], "Forbidden", "{status}");
    let message = status["message"].as_str().unwrap();
    assert!(
        message.contains("system:serviceaccount:rbac-a:reader"),
        "{message}"
    );
    // The Role grants list and watch, not create.
    let create = client
        .post(list("rbac-a"))
        .json(&serde_json::json!({
            "apiVersion": "networking.k8s.io/v1",
            "kind": "Ingress",
            "metadata": {"name": "nope"},
            "spec": {"defaultBackend": {"service": {"name": "x", "port": {"number": 80}}}}
        }))
        .send()
        .await
        .unwrap();
    assert_eq!(create.status(), StatusCode::FORBIDDEN);
}

#[tokio::test]
async fn gateway_api_crds_install_and_take_an_httproute() {
    let cluster = KubeCluster::shared();
    cluster.install_gateway_api_crds();
    cluster.apply(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: smoke-gateway\n---\n\
         apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: web\n  \
         namespace: smoke-gateway\nspec:\n  parentRefs:\n  - name: edge\n  hostnames:\n  \
         - web.example.test\n  rules:\n  - backendRefs:\n    - name: web\n      port: 80\n",
    );
    let url = format!(
        "{}/apis/gateway.networking.k8s.io/v1/namespaces/smoke-gateway/httproutes/web",
        cluster.url()
    );
    let response = cluster.admin_client().get(&url).send().await.unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let route: Value = response.json().await.unwrap();
    assert_eq!(route["spec"]["hostnames"][0], "web.example.test", "{route}");
    // The CRD's schema is enforced: a backend port out of range is refused.
    let invalid = serde_json::json!({
        "apiVersion": "gateway.networking.k8s.io/v1",
        "kind": "HTTPRoute",
        "metadata": {"name": "invalid"},
        "spec": {"rules": [{"backendRefs": [{"name": "web", "port": 70000}]}]}
    });
    let refused = cluster
        .admin_client()
        .post(format!(
            "{}/apis/gateway.networking.k8s.io/v1/namespaces/smoke-gateway/httproutes",
            cluster.url()
        ))
        .json(&invalid)
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::UNPROCESSABLE_ENTITY);
}

#[test]
fn helm_runs() {
    let cluster = KubeCluster::shared();
    let version = stdout(&cluster.helm(&["version", "--short"]), "helm version");
    let pinned = format!("v{}", test_support::pinned("HELM_VERSION"));
    assert!(version.starts_with(&pinned), "{version}");
}

#[tokio::test]
async fn compact_discards_etcd_history() {
    let cluster = KubeCluster::shared();
    let revision = cluster.compact();
    assert!(revision > 1, "{revision}");
    // Reading etcd at a revision before the compaction now fails.
    let answer = test_support::http_client()
        .post(format!("{}/v3/kv/range", cluster.etcd_url()))
        .body(format!(r#"{{"key":"AA==","revision":"{}"}}"#, revision - 1))
        .send()
        .await
        .unwrap();
    let status = answer.status();
    let body = answer.text().await.unwrap();
    assert!(
        !status.is_success() && body.contains("compacted"),
        "{status}: {body}"
    );
}

/// The API server's own compactor (every second here) tells its watch cache, which then
/// refuses a list at an old `resourceVersion` and an old page's continue token with 410 Gone.
#[tokio::test]
async fn compaction_by_the_api_server_expires_old_resource_versions() {
    let cluster = KubeCluster::start_with_compaction_interval(std::time::Duration::from_secs(1));
    cluster.apply(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: default\n---\n\
         apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: default\n",
    );
    let client = cluster.admin_client();
    let base = format!("{}/api/v1/namespaces/default/configmaps", cluster.url());
    let page: Value = client
        .get(format!("{base}?limit=1"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let resource_version = page["metadata"]["resourceVersion"]
        .as_str()
        .unwrap()
        .to_owned();
    let token = page["metadata"]["continue"].as_str().unwrap().to_owned();
    cluster.apply("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: default\n");
    let exact = format!("{base}?resourceVersion={resource_version}&resourceVersionMatch=Exact");
    let status: Value = test_support::eventually_with(
        &format!("resourceVersion {resource_version} compacted"),
        std::time::Duration::from_secs(60),
        async || {
            let answer = client.get(&exact).send().await.unwrap();
            match answer.status() {
                StatusCode::GONE => Ok(answer.json().await.unwrap()),
                other => Err(other),
            }
        },
    )
    .await;
    assert_eq!(status["reason"], "Expired", "{status}");
    let next = client
        .get(format!("{base}?limit=1&continue={token}"))
        .send()
        .await
        .unwrap();
    assert_eq!(next.status(), StatusCode::GONE);
}
