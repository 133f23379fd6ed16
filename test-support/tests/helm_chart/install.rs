//! `helm install` (server-side dry run, then for real) and `helm upgrade` of the value sets.

use std::collections::BTreeSet;
use std::sync::OnceLock;

use test_support::kube_cluster::KubeCluster;
use test_support::{pinned, repo_root};

use crate::{chart, ci_file, ok};

/// The upstream CRDs the rendered objects need, once per cluster: the Gateway API (standard
/// channel), Traefik's (the front door's Middleware, traefik.io/v1alpha1) and the
/// prometheus-operator's ServiceMonitor, as `scripts/install-kube.sh` copied them from their
/// Go modules (versions.env).
fn install_crds(cluster: &KubeCluster) {
    static DONE: OnceLock<()> = OnceLock::new();
    DONE.get_or_init(|| {
        cluster.install_gateway_api_crds();
        let files = [
            format!("traefik-crds-{}/crds.yaml", pinned("TRAEFIK_VERSION")),
            format!(
                "prometheus-operator-crds-{}/servicemonitors.yaml",
                pinned("PROMETHEUS_OPERATOR_VERSION")
            ),
        ];
        for file in files {
            let path = repo_root().join(".cache/kube").join(&file);
            assert!(
                path.is_file(),
                "{} is missing; `make test` (scripts/install-kube.sh) copies it",
                path.display()
            );
            let applied = ok(
                &cluster.kubectl(&[
                    "apply",
                    "--server-side",
                    "-o",
                    "name",
                    "-f",
                    path.to_str().unwrap(),
                ]),
                &format!("kubectl apply of {file}"),
            );
            let mut args = vec!["wait", "--for=condition=Established", "--timeout=60s"];
            args.extend(applied.lines().filter(|name| name.contains("definition")));
            ok(&cluster.kubectl(&args), "kubectl wait for the CRDs");
        }
    });
}

/// What `helm install` left in the cluster: the release's manifest and the names of its
/// objects as the API server holds them.
pub struct Installed {
    pub namespace: String,
    pub release: String,
    pub manifest: String,
    pub objects: BTreeSet<String>,
}

/// Creates `namespace` (and `extra_namespaces`, e.g. watched ones) and installs the umbrella
/// chart there as `release` with `values` (a ci file, or the defaults): first
/// `--dry-run=server` (the API server validates and admits each object, stores nothing), then
/// for real, without waiting (no pod runs). Every object of the manifest must then exist.
pub fn install(
    cluster: &KubeCluster,
    namespace: &str,
    release: &str,
    values: Option<&str>,
    extra_namespaces: &[&str],
) -> Installed {
    install_crds(cluster);
    cluster.create_namespaces(&[namespace]);
    cluster.create_namespaces(extra_namespaces);
    let chart = chart();
    let values = values.map(ci_file);
    let mut args = vec![
        "install",
        release,
        chart.to_str().unwrap(),
        "--namespace",
        namespace,
    ];
    if let Some(file) = &values {
        args.extend(["--values", file.to_str().unwrap()]);
    }
    let mut dry_run = args.clone();
    dry_run.push("--dry-run=server");
    ok(
        &cluster.helm(&dry_run),
        &format!("helm {}", dry_run.join(" ")),
    );
    ok(&cluster.helm(&args), &format!("helm {}", args.join(" ")));
    let manifest = ok(
        &cluster.helm(&["get", "manifest", release, "--namespace", namespace]),
        "helm get manifest",
    );
    // kubectl get -f wants each object's namespace given: the Roles of watched namespaces
    // carry theirs, the rest are the release's.
    let documents: Vec<&str> = manifest
        .split("\n---")
        .filter(|document| document.contains("\nkind: "))
        .collect();
    let mut by_namespace: std::collections::BTreeMap<&str, Vec<&str>> = Default::default();
    for document in &documents {
        let own = document
            .split("\n  namespace: ")
            .nth(1)
            .and_then(|rest| rest.lines().next())
            .unwrap_or(namespace);
        by_namespace.entry(own).or_default().push(document);
    }
    let mut objects = BTreeSet::new();
    for (own, group) in by_namespace {
        let file = cluster
            .dir()
            .join(format!("{namespace}-{release}-{own}.yaml"));
        std::fs::write(&file, group.join("\n---\n")).unwrap();
        let listed = ok(
            &cluster.kubectl(&[
                "get",
                "--namespace",
                own,
                "-f",
                file.to_str().unwrap(),
                "-o",
                "name",
            ]),
            "kubectl get of the release's objects",
        );
        // Objects of other namespaces as `<kind>/<name> in <namespace>`.
        objects.extend(listed.lines().map(|name| match own == namespace {
            true => name.to_owned(),
            false => format!("{name} in {own}"),
        }));
    }
    assert_eq!(objects.len(), documents.len(), "{objects:?}\n{manifest}");
    Installed {
        namespace: namespace.to_owned(),
        release: release.to_owned(),
        manifest,
        objects,
    }
}

impl Installed {
    pub fn has(&self, object: &str) -> bool {
        self.objects.contains(object)
    }

    pub fn kinds(&self, kind: &str) -> Vec<&str> {
        self.objects
            .iter()
            .filter(|name| name.starts_with(&format!("{kind}/")))
            .map(String::as_str)
            .collect()
    }

    /// `kubectl get <object> -o jsonpath=<path>` in the release's namespace.
    pub fn jsonpath(&self, cluster: &KubeCluster, object: &str, path: &str) -> String {
        ok(
            &cluster.kubectl(&[
                "get",
                object,
                "--namespace",
                &self.namespace,
                "-o",
                &format!("jsonpath={path}"),
            ]),
            &format!("kubectl get {object}"),
        )
    }

    /// The service accounts the release created.
    pub fn service_accounts(&self, cluster: &KubeCluster) -> BTreeSet<String> {
        let names = ok(
            &cluster.kubectl(&[
                "get",
                "serviceaccounts",
                "--namespace",
                &self.namespace,
                "-l",
                &format!("app.kubernetes.io/instance={}", self.release),
                "-o",
                "name",
            ]),
            "kubectl get serviceaccounts",
        );
        names.lines().map(str::to_owned).collect()
    }
}

#[test]
fn the_ingress_nginx_front_door_installs_with_its_annotations() {
    let cluster = KubeCluster::shared();
    let installed = install(
        cluster,
        "chart-front-door-nginx",
        "sp",
        Some("front-door-nginx-values.yaml"),
        &[],
    );
    let annotations = installed.jsonpath(
        cluster,
        "ingress.networking.k8s.io/sp-ingress-dash",
        "{.metadata.annotations}",
    );
    assert!(
        annotations.contains(
            "http://sp-authproxy.chart-front-door-nginx.svc.cluster.local:9001/auth/check"
        ),
        "{annotations}"
    );
    // NetworkPolicies are rendered (the services trust a network range); stored, not enforced.
    assert_eq!(
        installed.kinds("networkpolicy.networking.k8s.io").len(),
        3,
        "{:?}",
        installed.objects
    );
}

#[test]
fn the_traefik_front_door_installs_its_middleware_with_the_upstream_crd() {
    let cluster = KubeCluster::shared();
    let installed = install(
        cluster,
        "chart-front-door-traefik",
        "sp",
        Some("front-door-traefik-values.yaml"),
        &[],
    );
    let middleware = "middleware.traefik.io/sp-authproxy-forward-auth";
    assert!(installed.has(middleware), "{:?}", installed.objects);
    let address = installed.jsonpath(cluster, middleware, "{.spec.forwardAuth.address}");
    assert_eq!(
        address,
        "http://sp-authproxy.chart-front-door-traefik.svc.cluster.local:9001/auth/check"
    );
    // Each protected Ingress names that Middleware as Traefik looks it up:
    // <namespace>-<name>@kubernetescrd.
    for ingress in ["sp-admin-console", "sp-ingress-dash"] {
        let named = installed.jsonpath(
            cluster,
            &format!("ingress.networking.k8s.io/{ingress}"),
            "{.metadata.annotations.traefik\\.ingress\\.kubernetes\\.io/router\\.middlewares}",
        );
        assert_eq!(
            named, "chart-front-door-traefik-sp-authproxy-forward-auth@kubernetescrd",
            "{ingress}"
        );
    }
}

#[test]
fn access_open_installs() {
    let cluster = KubeCluster::shared();
    let installed = install(
        cluster,
        "chart-access-open",
        "sp",
        Some("access-open-values.yaml"),
        &[],
    );
    let config = installed.jsonpath(
        cluster,
        "configmap/sp-ingress-dash",
        "{.data.config\\.yaml}",
    );
    assert!(config.contains("mode: open"), "{config}");
}

#[test]
fn network_policies_install() {
    let cluster = KubeCluster::shared();
    let installed = install(
        cluster,
        "chart-network-policy",
        "sp",
        Some("network-policy-values.yaml"),
        &[],
    );
    assert_eq!(
        installed.kinds("networkpolicy.networking.k8s.io").len(),
        3,
        "{:?}",
        installed.objects
    );
}

/// admin-console's saved queries on the chart's PersistentVolumeClaim: the claim as the values
/// ask, mounted at the data directory, the Deployment rolling with Recreate.
#[test]
fn saved_queries_persistence_installs_its_claim() {
    let cluster = KubeCluster::shared();
    let installed = install(
        cluster,
        "chart-saved-queries-pvc",
        "sp",
        Some("saved-queries-pvc-values.yaml"),
        &[],
    );
    let claim = "persistentvolumeclaim/sp-admin-console-saved-queries";
    assert!(installed.has(claim), "{:?}", installed.objects);
    let spec = installed.jsonpath(
        cluster,
        claim,
        "{.spec.storageClassName} {.spec.accessModes} {.spec.resources.requests.storage}",
    );
    assert_eq!(spec, r#"standard ["ReadWriteOnce"] 2Gi"#);
    let deployment = "deployment.apps/sp-admin-console";
    let pod = installed.jsonpath(
        cluster,
        deployment,
        "{.spec.strategy.type} {.spec.template.spec.volumes[?(@.name==\"saved-queries\")].persistentVolumeClaim.claimName} {.spec.template.spec.containers[0].volumeMounts[?(@.name==\"saved-queries\")].mountPath}",
    );
    assert_eq!(
        pod,
        "Recreate sp-admin-console-saved-queries /var/lib/admin-console"
    );
}

/// One release upgraded through the value sets and back (`helm upgrade`, server-side): each
/// step's changes are accepted by the API server (no immutable field changed, such as a
/// Deployment's selector), and the objects a step drops are deleted.
#[test]
fn one_release_upgrades_through_the_value_sets_and_back() {
    let cluster = KubeCluster::shared();
    let namespace = "chart-upgrade";
    let installed = install(cluster, namespace, "sp", None, &[]);
    let chart = chart();
    let steps = [
        Some("front-door-nginx-values.yaml"),
        Some("front-door-traefik-values.yaml"),
        Some("network-policy-values.yaml"),
        Some("access-open-values.yaml"),
        Some("saved-queries-pvc-values.yaml"),
        None,
    ];
    for values in steps {
        let file = values.map(ci_file);
        let mut args = vec![
            "upgrade",
            "sp",
            chart.to_str().unwrap(),
            "--namespace",
            namespace,
        ];
        if let Some(file) = &file {
            args.extend(["--values", file.to_str().unwrap()]);
        }
        ok(&cluster.helm(&args), &format!("helm {}", args.join(" ")));
    }
    let history = ok(
        &cluster.helm(&["history", "sp", "--namespace", namespace, "-o", "json"]),
        "helm history",
    );
    let history: serde_json::Value = serde_json::from_str(&history).unwrap();
    assert_eq!(history.as_array().unwrap().len(), 7, "{history}");
    assert_eq!(history[6]["status"], "deployed", "{history}");
    // Back at the defaults: the front door's Middleware and Ingresses are gone again.
    let left = ok(
        &cluster.kubectl(&[
            "get",
            "ingresses.networking.k8s.io,middlewares.traefik.io,networkpolicies",
            "--namespace",
            namespace,
            "-o",
            "name",
        ]),
        "kubectl get",
    );
    assert_eq!(left.trim(), "", "{left}");
    // The saved queries' claim outlives the step that made it (the ci set annotates it
    // helm.sh/resource-policy: keep).
    let claims = ok(
        &cluster.kubectl(&["get", "pvc", "--namespace", namespace, "-o", "name"]),
        "kubectl get pvc",
    );
    assert_eq!(
        claims.trim(),
        "persistentvolumeclaim/sp-admin-console-saved-queries"
    );
    assert!(installed.has("deployment.apps/sp-ingress-dash"));
}
