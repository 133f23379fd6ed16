//! `make run`'s sample situations (kube-test-server's `sample::populate_everything`: 40 ingresses
//! over team-000 to team-009, Services and EndpointSlices, TLS Secrets with real certificates,
//! broken backends with their Warning events, a certificate expiring in 5 days with its
//! cert-manager Certificate, two HTTPRoutes, one unresolved; for the Hosts view an HTTPRoute in
//! conflict with an Ingress, a GRPCRoute its listener does not allow, two TLSRoutes on one SNI
//! hostname naming a listener Gateway `gateway-system/public` does not have, and two Secrets for
//! one wildcard host) written into a real API server of
//! their own: the Gateway API CRDs and the shape of cert-manager's Certificate CRD installed,
//! every object written with server-side apply and its status by the `status` subresource.
//! Started once for the test process and only read by the tests that use it (a test that writes
//! keeps to a namespace of its own).

use std::sync::OnceLock;

use futures_util::StreamExt;
use kube_test_server::{Options, sample};
use serde_json::{Value, json};
use test_support::kube_cluster::KubeCluster;

/// Sample ingresses and the namespaces they are spread over.
pub const INGRESSES: usize = 40;
pub const NAMESPACES: usize = 10;

/// The cluster with the sample, started and filled on first use.
pub fn sample_cluster() -> &'static KubeCluster {
    static SAMPLE: OnceLock<KubeCluster> = OnceLock::new();
    SAMPLE.get_or_init(|| {
        let cluster = KubeCluster::start();
        cluster.install_gateway_api_crds();
        cluster.install_cert_manager_crd();
        let memory = kube_test_server::Cluster::new(Options::default());
        sample::populate_everything(&memory, INGRESSES, NAMESPACES).expect("sample data");
        let objects = sample::api_objects(&memory);
        // The writes on a runtime of their own: the caller may be any test's runtime, blocked
        // here until the sample is in.
        std::thread::scope(|scope| {
            scope
                .spawn(|| {
                    tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .expect("a runtime")
                        .block_on(write_all(&cluster, objects));
                })
                .join()
                .expect("the sample is written");
        });
        cluster
    })
}

/// Writes `objects` kind by kind in their order (namespaces first), eight at a time.
async fn write_all(cluster: &KubeCluster, objects: Vec<Value>) {
    let client = cluster.admin_client();
    let mut kinds: Vec<String> = Vec::new();
    for object in &objects {
        let kind = object["kind"].as_str().expect("a kind").to_owned();
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    for kind in kinds {
        let of_kind = objects.iter().filter(|object| object["kind"] == kind);
        futures_util::stream::iter(of_kind)
            .for_each_concurrent(8, |object| apply(&client, cluster.url(), object))
            .await;
    }
}

/// Server-side apply of `object`, then of its status for the kinds that have it as a subresource.
async fn apply(client: &reqwest::Client, base: &str, object: &Value) {
    let mut spec = object.clone();
    let status = spec.as_object_mut().expect("an object").remove("status");
    let url = object_url(base, object);
    patch(client, &url, &spec).await;
    let kind = object["kind"].as_str().expect("a kind");
    if let Some(status) = status
        && [
            "Ingress",
            "HTTPRoute",
            "GRPCRoute",
            "TLSRoute",
            "Certificate",
        ]
        .contains(&kind)
    {
        let metadata = &object["metadata"];
        let body = json!({
            "apiVersion": object["apiVersion"],
            "kind": kind,
            "metadata": {"name": metadata["name"], "namespace": metadata["namespace"]},
            "status": status,
        });
        patch(client, &url.replacen('?', "/status?", 1), &body).await;
    }
}

async fn patch(client: &reqwest::Client, url: &str, body: &Value) {
    let response = client
        .patch(url)
        .header("Content-Type", "application/apply-patch+yaml")
        .body(body.to_string())
        .send()
        .await
        .expect("the API server answers");
    let status = response.status();
    assert!(
        status.is_success(),
        "apply of {url}: {status} {}",
        response.text().await.unwrap_or_default()
    );
}

/// `<base>/api[s]/<apiVersion>[/namespaces/<ns>]/<plural>/<name>?fieldManager=...&force=true`.
fn object_url(base: &str, object: &Value) -> String {
    let api_version = object["apiVersion"].as_str().expect("an apiVersion");
    let kind = object["kind"].as_str().expect("a kind");
    let plural = kube_test_server::Kind::ALL
        .into_iter()
        .find(|known| known.name() == kind)
        .unwrap_or_else(|| panic!("no plural known for {kind}"))
        .plural();
    let group = if api_version.contains('/') {
        format!("/apis/{api_version}")
    } else {
        format!("/api/{api_version}")
    };
    let metadata = &object["metadata"];
    let scope = match metadata["namespace"].as_str() {
        Some(namespace) if kind != "Namespace" => format!("/namespaces/{namespace}"),
        _ => String::new(),
    };
    let name = metadata["name"].as_str().expect("a name");
    format!("{base}{group}{scope}/{plural}/{name}?fieldManager=ingress-dash-tests&force=true")
}
