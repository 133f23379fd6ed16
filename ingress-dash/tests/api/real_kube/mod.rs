//! ingress-dash against the real kube-apiserver and etcd of `test_support::kube_cluster`
//! (built from source, RBAC on): the application reaches it through a kubeconfig with a bearer
//! token and the API server's CA, as in a cluster. Objects are written with server-side apply
//! through the REST API, so each write is one request and the server stores, validates and
//! versions them itself. Tests on the shared cluster keep to namespaces of their own; those
//! that change cluster-wide state (CRDs, compaction) start a cluster of their own.
//!
//! [`spawn_proxied`] puts `test_support::kube_cluster::KubeFaultProxy` between the application
//! and the API server, for the suites that need what a real server will not do on demand
//! (5xx, refused watches, 410s, dropped watches, refused connections, latency) and that count
//! the application's list and watch requests.

mod annotations;
mod certificates;
mod events;
mod expiry;
mod gateway;
mod gateway_reads;
mod gateway_routes;
mod rbac;
mod resume;
mod route_secrets;
pub mod sample_cluster;
mod stream_lifetime;
mod watch;

use std::collections::BTreeMap;
use std::ops::Deref;
use std::path::PathBuf;
use std::time::Duration;

use kube_test_server::{Kind, sample};
use serde_json::{Value, json};
use test_support::TempDir;
use test_support::kube_cluster::{Faults, KubeCluster, KubeFaultProxy};

use crate::app::{TestApp, build_app};

pub const WAIT: Duration = Duration::from_secs(20);

/// The overrides of an application that watches ingresses only (no backends, certificates or
/// routes): for tests that count, drop or expire the ingress watches.
pub const INGRESSES_ONLY: &str = "backends:\n  enabled: false\ncertificates:\n  cert_manager: false\ngateway_api:\n  enabled: false\n";

/// A kind as the REST API names it.
#[derive(Debug, Clone, Copy)]
pub struct Resource {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
}

pub const NAMESPACE: Resource = Resource {
    api_version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    namespaced: false,
};
pub const INGRESS: Resource = Resource {
    api_version: "networking.k8s.io/v1",
    kind: "Ingress",
    plural: "ingresses",
    namespaced: true,
};
pub const SERVICE: Resource = Resource {
    api_version: "v1",
    kind: "Service",
    plural: "services",
    namespaced: true,
};
pub const ENDPOINT_SLICE: Resource = Resource {
    api_version: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    namespaced: true,
};
pub const EVENT: Resource = Resource {
    api_version: "v1",
    kind: "Event",
    plural: "events",
    namespaced: true,
};
pub const SECRET: Resource = Resource {
    api_version: "v1",
    kind: "Secret",
    plural: "secrets",
    namespaced: true,
};
pub const HTTP_ROUTE: Resource = Resource {
    api_version: "gateway.networking.k8s.io/v1",
    kind: "HTTPRoute",
    plural: "httproutes",
    namespaced: true,
};
pub const GRPC_ROUTE: Resource = Resource {
    api_version: "gateway.networking.k8s.io/v1",
    kind: "GRPCRoute",
    plural: "grpcroutes",
    namespaced: true,
};
pub const TLS_ROUTE: Resource = Resource {
    api_version: "gateway.networking.k8s.io/v1",
    kind: "TLSRoute",
    plural: "tlsroutes",
    namespaced: true,
};
pub const CERTIFICATE: Resource = Resource {
    api_version: "cert-manager.io/v1",
    kind: "Certificate",
    plural: "certificates",
    namespaced: true,
};
pub const GATEWAY: Resource = Resource {
    api_version: "gateway.networking.k8s.io/v1",
    kind: "Gateway",
    plural: "gateways",
    namespaced: true,
};

/// The shared control plane, or one of the test's own (stopped when the test ends).
pub enum Cluster {
    Shared(&'static KubeCluster),
    Own(Box<KubeCluster>),
}

impl Deref for Cluster {
    type Target = KubeCluster;
    fn deref(&self) -> &KubeCluster {
        match self {
            Cluster::Shared(cluster) => cluster,
            Cluster::Own(cluster) => cluster,
        }
    }
}

/// What serves the Kubernetes API of a [`TestApp<Real>`]: the cluster, an admin client to
/// write objects with, and the folder of the application's kubeconfig.
pub struct Real {
    pub cluster: Cluster,
    pub admin: reqwest::Client,
    /// The fault proxy the application reaches the API server through ([`spawn_proxied`]).
    pub proxy: Option<KubeFaultProxy>,
    _dir: TempDir,
}

/// An application against the real API server.
pub type RealApp = TestApp<Real>;

/// A kubeconfig for `cluster` with `token` (the API server's URL and CA file) in `dir`; its path.
pub fn write_kubeconfig(dir: &TempDir, cluster: &KubeCluster, token: &str) -> PathBuf {
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: real\n  cluster:\n    \
             server: {}\n    certificate-authority: {}\nusers:\n- name: ingress-dash\n  user:\n    \
             token: {token}\ncontexts:\n- name: real\n  context:\n    cluster: real\n    \
             user: ingress-dash\ncurrent-context: real\n",
            cluster.url(),
            cluster.ca_file().display(),
        ),
    )
    .expect("writing the kubeconfig");
    kubeconfig
}

/// The application against `cluster`, authenticated with `token` (the admin's when `None`),
/// with `kube_yaml` (more `kubernetes:` keys, indented) and `overrides_yaml`.
pub async fn spawn_real(
    cluster: Cluster,
    token: Option<&str>,
    kube_yaml: &str,
    overrides_yaml: &str,
) -> RealApp {
    spawn_real_server(cluster, token, "", kube_yaml, overrides_yaml).await
}

/// [`spawn_real`] with `server_yaml` (keys of `server:`, indented) too.
pub async fn spawn_real_server(
    cluster: Cluster,
    token: Option<&str>,
    server_yaml: &str,
    kube_yaml: &str,
    overrides_yaml: &str,
) -> RealApp {
    let dir = TempDir::new("ingress-dash-kubeconfig");
    let token = token.unwrap_or(cluster.admin_token()).to_owned();
    let kubeconfig = write_kubeconfig(&dir, &cluster, &token);
    let admin = cluster.admin_client();
    let kube_yaml = format!("  kubeconfig: {}\n{kube_yaml}", kubeconfig.display());
    let real = Real {
        cluster,
        admin,
        proxy: None,
        _dir: dir,
    };
    build_app(real, server_yaml, &kube_yaml, overrides_yaml).await
}

/// The application against the shared cluster as its admin, through a fault proxy of its own
/// (`app.kube.faults()`), with `kube_yaml` and `overrides_yaml` as [`spawn_real`].
pub async fn spawn_proxied(kube_yaml: &str, overrides_yaml: &str) -> RealApp {
    spawn_proxied_to(
        Cluster::Shared(KubeCluster::shared()),
        "",
        kube_yaml,
        overrides_yaml,
    )
    .await
}

/// [`spawn_proxied`] before `cluster`, with `server_yaml` (keys of `server:`, indented) too.
pub async fn spawn_proxied_to(
    cluster: Cluster,
    server_yaml: &str,
    kube_yaml: &str,
    overrides_yaml: &str,
) -> RealApp {
    let proxy = KubeFaultProxy::start(&cluster);
    let dir = TempDir::new("ingress-dash-kubeconfig");
    let kubeconfig = dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, proxy.kubeconfig(cluster.admin_token()))
        .expect("writing the kubeconfig");
    let kube_yaml = format!("  kubeconfig: {}\n{kube_yaml}", kubeconfig.display());
    let admin = cluster.admin_client();
    let real = Real {
        cluster,
        admin,
        proxy: Some(proxy),
        _dir: dir,
    };
    build_app(real, server_yaml, &kube_yaml, overrides_yaml).await
}

/// Creates `namespace` and service account `name` in it, which may get, list and watch
/// `resources` (plural names, any API group) there and nothing else: a Role that leaves out
/// one kind gives that kind's real 403; its token.
pub fn token_for_resources(
    cluster: &KubeCluster,
    namespace: &str,
    name: &str,
    resources: &[&str],
) -> String {
    let resources = resources.join(", ");
    cluster.apply(&format!(
        "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {namespace}\n---\n\
         apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: {name}\n  namespace: {namespace}\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: {name}\n  \
         namespace: {namespace}\nrules:\n\
         - apiGroups: [\"*\"]\n  resources: [{resources}]\n  verbs: [get, list, watch]\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: {name}\n  \
         namespace: {namespace}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  \
         name: {name}\nsubjects:\n- kind: ServiceAccount\n  name: {name}\n  namespace: {namespace}\n"
    ));
    cluster.create_token(namespace, name)
}

/// A Role reading everything in `namespace`, bound to service account `dash` of `home`: what
/// [`reader_token`] applies, and what a test applies later to allow one more namespace.
pub fn reader_role(namespace: &str, home: &str) -> String {
    format!(
        "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: dash\n  \
         namespace: {namespace}\nrules:\n\
         - apiGroups: [\"*\"]\n  resources: [\"*\"]\n  verbs: [get, list, watch]\n---\n\
         apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: dash\n  \
         namespace: {namespace}\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  \
         name: dash\nsubjects:\n- kind: ServiceAccount\n  name: dash\n  namespace: {home}\n"
    )
}

/// Creates `namespaces` and service account `dash` in the first, which may read everything in
/// the first and nothing else (no cluster-wide permission); its token.
pub fn reader_token(cluster: &KubeCluster, namespaces: &[&str]) -> String {
    let home = namespaces[0];
    let mut yaml: String = namespaces
        .iter()
        .map(|name| format!("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: {name}\n---\n"))
        .collect();
    yaml.push_str(&format!(
        "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: dash\n  namespace: {home}\n---\n{}",
        reader_role(home, home)
    ));
    cluster.apply(&yaml);
    cluster.create_token(home, "dash")
}

/// The `kubernetes.namespaces` key of an application watching `namespaces` only.
pub fn scoped(namespaces: &[&str]) -> String {
    format!("  namespaces: [{}]\n", namespaces.join(", "))
}

/// [`spawn_real`] on the shared cluster as its admin.
pub async fn spawn_shared(kube_yaml: &str, overrides_yaml: &str) -> RealApp {
    spawn_real(
        Cluster::Shared(KubeCluster::shared()),
        None,
        kube_yaml,
        overrides_yaml,
    )
    .await
}

impl Real {
    /// The fault proxy before the API server (an application of [`spawn_proxied`]).
    pub fn proxy(&self) -> &KubeFaultProxy {
        self.proxy
            .as_ref()
            .expect("an application of spawn_proxied")
    }

    /// The proxy's faults and counters.
    pub fn faults(&self) -> &Faults {
        &self.proxy().faults
    }

    /// Creates `namespaces` and `ingresses` sample ingresses (`app-00000`, ...) spread evenly
    /// over them, as `sample::populate` spreads them.
    pub async fn populate(&self, namespaces: &[&str], ingresses: usize) {
        self.namespaces(namespaces).await;
        for index in 0..ingresses {
            let namespace = namespaces[index % namespaces.len()];
            self.put_ingress(sample::ingress(
                namespace,
                &format!("app-{index:05}"),
                index,
            ))
            .await;
        }
    }

    /// Creates or updates a sample ingress (of `sample::ingress`; the fields the server sets
    /// itself, managedFields and status, left out).
    pub async fn put_ingress(&self, mut ingress: Value) -> Value {
        let object = ingress.as_object_mut().expect("an object");
        object.remove("status");
        object["metadata"]
            .as_object_mut()
            .expect("metadata")
            .remove("managedFields");
        self.put(INGRESS, ingress).await
    }

    /// The ingresses in `namespaces` as stored: `namespace/name` → resourceVersion.
    pub async fn ingress_versions(&self, namespaces: &[&str]) -> BTreeMap<String, String> {
        let mut versions = BTreeMap::new();
        for namespace in namespaces {
            let url = self.path(INGRESS, Some(namespace), None);
            let response = self.admin.get(&url).send().await.expect("answered");
            assert!(
                response.status().is_success(),
                "{url}: {}",
                response.status()
            );
            let list: Value = response.json().await.expect("JSON");
            for item in list["items"].as_array().expect("items") {
                let metadata = &item["metadata"];
                versions.insert(
                    format!("{namespace}/{}", metadata["name"].as_str().expect("a name")),
                    metadata["resourceVersion"]
                        .as_str()
                        .expect("a version")
                        .to_owned(),
                );
            }
        }
        versions
    }

    fn path(&self, resource: Resource, namespace: Option<&str>, name: Option<&str>) -> String {
        let group = if resource.api_version == "v1" {
            "/api/v1".to_owned()
        } else {
            format!("/apis/{}", resource.api_version)
        };
        let scope = match namespace {
            Some(namespace) if resource.namespaced => format!("/namespaces/{namespace}"),
            _ => String::new(),
        };
        let name = name.map(|name| format!("/{name}")).unwrap_or_default();
        format!(
            "{}{group}{scope}/{}{name}",
            self.cluster.url(),
            resource.plural
        )
    }

    /// Creates or updates `object` (its `metadata.name` and `namespace`; `apiVersion` and
    /// `kind` are filled in) with server-side apply; the object as stored.
    pub async fn put(&self, resource: Resource, object: Value) -> Value {
        self.apply_to(resource, object, "").await
    }

    /// [`Self::put`] of the `status` subresource (a controller writing its findings).
    pub async fn put_status(&self, resource: Resource, object: Value) -> Value {
        self.apply_to(resource, object, "/status").await
    }

    async fn apply_to(&self, resource: Resource, mut object: Value, subresource: &str) -> Value {
        object["apiVersion"] = json!(resource.api_version);
        object["kind"] = json!(resource.kind);
        let name = object["metadata"]["name"].as_str().expect("a name");
        let namespace = object["metadata"]["namespace"].as_str();
        let url = format!(
            "{}{subresource}?fieldManager=ingress-dash-tests&force=true",
            self.path(resource, namespace, Some(name))
        );
        let response = self
            .admin
            .patch(&url)
            .header("Content-Type", "application/apply-patch+yaml")
            .body(object.to_string())
            .send()
            .await
            .expect("the API server answers");
        let status = response.status();
        let body: Value = response.json().await.expect("a JSON answer");
        assert!(status.is_success(), "apply of {url}: {status} {body}");
        body
    }

    /// Deletes one object; whether it existed.
    pub async fn delete(&self, resource: Resource, namespace: &str, name: &str) -> bool {
        let url = self.path(resource, Some(namespace), Some(name));
        let response = self.admin.delete(&url).send().await.expect("answered");
        let status = response.status();
        assert!(
            status.is_success() || status == 404,
            "delete {url}: {status} {}",
            response.text().await.unwrap_or_default()
        );
        status.is_success()
    }

    /// One object as stored.
    pub async fn get(&self, resource: Resource, namespace: &str, name: &str) -> Value {
        let url = self.path(resource, Some(namespace), Some(name));
        let response = self.admin.get(&url).send().await.expect("answered");
        assert!(
            response.status().is_success(),
            "{url}: {}",
            response.status()
        );
        response.json().await.expect("JSON")
    }

    /// Creates the namespaces (each test's own names).
    pub async fn namespaces(&self, names: &[&str]) {
        for name in names {
            self.put(NAMESPACE, json!({"metadata": {"name": name}}))
                .await;
        }
    }

    /// The API server's counter of `verb` requests on `resource` (summed over codes and scopes),
    /// from its own `/metrics`.
    pub async fn request_count(&self, verb: &str, resource: &str) -> u64 {
        let text = self
            .admin
            .get(format!("{}/metrics", self.cluster.url()))
            .send()
            .await
            .expect("answered")
            .text()
            .await
            .expect("text");
        text.lines()
            .filter(|line| line.starts_with("apiserver_request_total{"))
            .filter(|line| {
                line.contains(&format!("verb=\"{verb}\""))
                    && line.contains(&format!("resource=\"{resource}\""))
            })
            .filter_map(|line| line.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as u64
    }
}

/// The application's answer for the events of `object` (`/api/objects/<plural>/<namespace>/<name>/events`,
/// asserted 200) after one `Warning` `reason` about it (a `kind`, `plural` pair) from
/// `component` whose message is `message`, as a controller writes one that quotes what it could
/// not apply: the raw text, for what must not be in it.
pub async fn events_after_a_warning(
    app: &RealApp,
    (kind, plural): (Kind, &str),
    object: &Value,
    reason: &str,
    message: &str,
    component: &str,
) -> String {
    let event = sample::event(
        kind,
        object,
        "Warning",
        reason,
        message,
        1,
        Duration::from_secs(60),
        Duration::from_secs(30),
        component,
    );
    app.kube.put(EVENT, event).await;
    let metadata = &object["metadata"];
    let (namespace, name) = (
        metadata["namespace"].as_str().expect("a namespace"),
        metadata["name"].as_str().expect("a name"),
    );
    let response = app
        .get(&format!("/api/objects/{plural}/{namespace}/{name}/events"))
        .await;
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// An Ingress `name` in `namespace` routing `host` to Service `service` port 80.
pub fn ingress(namespace: &str, name: &str, host: &str, service: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"rules": [{"host": host, "http": {"paths": [
            {"path": "/", "pathType": "Prefix", "backend": {"service": {"name": service, "port": {"number": 80}}}},
        ]}}]},
    })
}

/// A ClusterIP Service `name` (port 80 → 8080) without a selector: nothing but the test writes
/// its EndpointSlices (there is no controller manager).
pub fn service(namespace: &str, name: &str) -> Value {
    json!({
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"ports": [{"name": "http", "port": 80, "protocol": "TCP", "targetPort": 8080}]},
    })
}

/// The EndpointSlice of Service `service` with `pods` endpoints on 8080, all ready or none.
pub fn endpoint_slice(namespace: &str, service: &str, pods: usize, ready: bool) -> Value {
    let endpoints: Vec<Value> = (0..pods)
        .map(|pod| {
            json!({
                "addresses": [format!("10.244.1.{}", 10 + pod)],
                "conditions": {"ready": ready, "serving": ready, "terminating": false},
            })
        })
        .collect();
    json!({
        "metadata": {
            "name": format!("{service}-abcde"),
            "namespace": namespace,
            "labels": {"kubernetes.io/service-name": service},
        },
        "addressType": "IPv4",
        "endpoints": endpoints,
        "ports": [{"name": "http", "port": 8080, "protocol": "TCP"}],
    })
}

/// The record named `name` (of `kind`) in a snapshot.
pub fn record<'a>(snapshot: &'a Value, kind: &str, name: &str) -> &'a Value {
    snapshot["items"]
        .as_array()
        .expect("items")
        .iter()
        .find(|item| item["name"] == name && item["kind"] == kind)
        .unwrap_or_else(|| panic!("{kind} {name} not in {snapshot}"))
}

/// The names of a snapshot's records, in its order.
pub fn names(snapshot: &Value) -> Vec<String> {
    snapshot["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| item["name"].as_str().unwrap().to_owned())
        .collect()
}
