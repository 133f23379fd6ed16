//! The umbrella chart helm/search-platform with the real helm and a real kube-apiserver
//! ([`KubeCluster`]): `helm lint --strict` for the default values and every file in
//! helm/search-platform/ci/; `helm install` (server-side dry run, then for real) of each value set
//! into a namespace of its own, so the API server's schema validation and admission see every
//! rendered object; and what each service account the chart creates may do, asked with
//! `kubectl auth can-i` as that service account (exact sets: a permission added to the chart
//! fails here). The CRDs the rendered objects need are the upstream ones
//! (`scripts/install-kube.sh`: Gateway API, Traefik, the prometheus-operator's ServiceMonitor).
//!
//! There is no kubelet, scheduler or controller manager: the Deployments are stored and
//! validated but no pod runs, so no image is pulled, no probe runs and no NetworkPolicy is
//! enforced (ingress-dash/tests/api/helm_rbac.rs runs the binary with the chart's RBAC).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use test_support::kube_cluster::KubeCluster;
use test_support::{TempDir, pinned, repo_root};

/// The value sets in helm/search-platform/ci/ this file installs; a file added there must be
/// added here (the lint test checks the list).
const CI_FILES: [&str; 5] = [
    "access-open-values.yaml",
    "all-options-values.yaml",
    "front-door-nginx-values.yaml",
    "front-door-traefik-values.yaml",
    "network-policy-values.yaml",
];

fn chart() -> PathBuf {
    repo_root().join("helm/search-platform")
}

fn ci_file(name: &str) -> PathBuf {
    chart().join("ci").join(name)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The standard output of a command that must have succeeded; else panics with both outputs.
fn ok(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        text(&output.stdout),
        text(&output.stderr)
    );
    text(&output.stdout)
}

/// `helm lint --strict` needs no cluster: the pinned helm with its folders in a scratch dir.
fn helm_offline(home: &Path, args: &[&str]) -> Output {
    let helm = repo_root()
        .join(".cache/kube")
        .join(format!("helm-{}", pinned("HELM_VERSION")));
    assert!(
        helm.is_file(),
        "{} is not built; `make test` (scripts/install-kube.sh) builds it",
        helm.display()
    );
    Command::new(&helm)
        .args(args)
        .env("HOME", home)
        .env("HELM_CACHE_HOME", home.join("cache"))
        .env("HELM_CONFIG_HOME", home.join("config"))
        .env("HELM_DATA_HOME", home.join("data"))
        .output()
        .expect("running helm")
}

/// `helm lint --strict` of the umbrella chart, which renders every subchart's templates with the
/// umbrella's values (their schemas included). Each subchart alone (`--with-subcharts`) cannot
/// render: its templates call platform-common's named templates, which only the umbrella brings.
#[test]
fn helm_lint_strict_passes_for_the_default_values_and_every_ci_file() {
    let mut found: Vec<String> = std::fs::read_dir(chart().join("ci"))
        .expect("reading helm/search-platform/ci")
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    found.sort();
    assert_eq!(found, CI_FILES, "install every ci file in this test file");
    let home = TempDir::new("helm-lint");
    let chart = chart();
    let chart = chart.to_str().unwrap();
    let mut failures = Vec::new();
    let mut sets: Vec<Option<PathBuf>> = vec![None];
    sets.extend(CI_FILES.iter().map(|name| Some(ci_file(name))));
    for values in &sets {
        let mut args = vec!["lint", "--strict", chart];
        if let Some(file) = values {
            args.extend(["--values", file.to_str().unwrap()]);
        }
        let output = helm_offline(home.path(), &args);
        let all = format!("{}{}", text(&output.stdout), text(&output.stderr));
        if !output.status.success() || all.contains("[ERROR]") || all.contains("[WARNING]") {
            failures.push(format!("helm {}:\n{all}", args.join(" ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

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
struct Installed {
    namespace: String,
    release: String,
    manifest: String,
    objects: BTreeSet<String>,
}

/// Creates `namespace` (and `extra_namespaces`, e.g. watched ones) and installs the umbrella
/// chart there as `release` with `values` (a ci file, or the defaults): first
/// `--dry-run=server` (the API server validates and admits each object, stores nothing), then
/// for real, without waiting (no pod runs). Every object of the manifest must then exist.
fn install(
    cluster: &KubeCluster,
    namespace: &str,
    release: &str,
    values: Option<&str>,
    extra_namespaces: &[&str],
) -> Installed {
    install_crds(cluster);
    for name in std::iter::once(&namespace).chain(extra_namespaces) {
        ok(
            &cluster.kubectl(&["create", "namespace", name]),
            "kubectl create namespace",
        );
    }
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
    fn has(&self, object: &str) -> bool {
        self.objects.contains(object)
    }

    fn kinds(&self, kind: &str) -> Vec<&str> {
        self.objects
            .iter()
            .filter(|name| name.starts_with(&format!("{kind}/")))
            .map(String::as_str)
            .collect()
    }

    /// `kubectl get <object> -o jsonpath=<path>` in the release's namespace.
    fn jsonpath(&self, cluster: &KubeCluster, object: &str, path: &str) -> String {
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
    fn service_accounts(&self, cluster: &KubeCluster) -> BTreeSet<String> {
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

/// The rules `kubectl auth can-i --list` shows for service account `namespace:name` (its
/// groups too, as its token has them) in namespace `scope`: one line each, `resource
/// [resource names] [verbs]` or `non-resource-URL [verbs]`.
fn rules(cluster: &KubeCluster, namespace: &str, name: &str, scope: &str) -> BTreeSet<String> {
    let user = format!("--as=system:serviceaccount:{namespace}:{name}");
    let group = format!("--as-group=system:serviceaccounts:{namespace}");
    let listed = ok(
        &cluster.kubectl(&[
            "auth",
            "can-i",
            "--list",
            "--namespace",
            scope,
            &user,
            "--as-group=system:serviceaccounts",
            "--as-group=system:authenticated",
            &group,
        ]),
        "kubectl auth can-i --list",
    );
    listed
        .lines()
        .skip(1)
        .map(|line| {
            // Resources, Non-Resource URLs, Resource Names, Verbs; the last three in brackets.
            let (resource, rest) = match line.find('[') {
                Some(at) => (line[..at].trim(), &line[at..]),
                None => panic!("no brackets in {line:?}"),
            };
            let groups: Vec<&str> = rest
                .split(']')
                .map(|part| part.trim().trim_start_matches('['))
                .take(3)
                .collect();
            if resource.is_empty() {
                format!("{} [{}]", groups[0], groups[2])
            } else {
                format!("{resource} [{}] [{}]", groups[1], groups[2])
            }
        })
        .collect()
}

/// What every service account may do without any binding of the chart (discovery, its own
/// reviews), asked of a bare service account created for the purpose.
fn baseline(cluster: &KubeCluster, namespace: &str, scope: &str) -> BTreeSet<String> {
    ok(
        &cluster.kubectl(&["create", "serviceaccount", "bare", "--namespace", namespace]),
        "kubectl create serviceaccount",
    );
    let bare = rules(cluster, namespace, "bare", scope);
    assert!(
        bare.iter()
            .any(|rule| rule.starts_with("selfsubjectaccessreviews")),
        "{bare:?}"
    );
    bare
}

/// `kubectl auth can-i <verb> <resource>` as the service account, across namespaces when
/// `scope` is `None`: true for yes.
fn can_i(
    cluster: &KubeCluster,
    account: &str,
    verb: &str,
    resource: &str,
    scope: Option<&str>,
) -> bool {
    let user = format!("--as={account}");
    let mut args = vec!["auth", "can-i", verb, resource, &user];
    match scope {
        Some(namespace) => args.extend(["--namespace", namespace]),
        None => args.push("--all-namespaces"),
    }
    let output = cluster.kubectl(&args);
    match text(&output.stdout).trim() {
        "yes" => true,
        "no" => false,
        other => panic!(
            "kubectl {}: {other} {}",
            args.join(" "),
            text(&output.stderr)
        ),
    }
}

fn expected(baseline: &BTreeSet<String>, granted: &[&str]) -> BTreeSet<String> {
    let mut all = baseline.clone();
    all.extend(granted.iter().map(|rule| (*rule).to_owned()));
    all
}

/// What ingress-dash's chart grants for its default configuration (templates/rbac.yaml):
/// reads of ingresses, services, endpointslices, cert-manager Certificates and HTTPRoutes,
/// list of events; cluster-wide, namespaces too.
const INGRESS_DASH_DEFAULT: [&str; 6] = [
    "ingresses.networking.k8s.io [] [get list watch]",
    "events [] [list]",
    "services [] [get list watch]",
    "endpointslices.discovery.k8s.io [] [get list watch]",
    "certificates.cert-manager.io [] [get list watch]",
    "httproutes.gateway.networking.k8s.io [] [get list watch]",
];

const WRITES: [&str; 6] = [
    "create",
    "update",
    "patch",
    "delete",
    "deletecollection",
    "escalate",
];

#[test]
fn the_default_values_install_and_each_service_account_has_exactly_what_it_needs() {
    let cluster = KubeCluster::shared();
    let installed = install(cluster, "chart-default", "sp", None, &[]);
    for object in [
        "deployment.apps/sp-admin-console",
        "deployment.apps/sp-authproxy",
        "deployment.apps/sp-ingress-dash",
        "service/sp-ingress-dash",
        "configmap/sp-ingress-dash",
    ] {
        assert!(installed.has(object), "{object}: {:?}", installed.objects);
    }
    assert_eq!(
        installed.service_accounts(cluster),
        BTreeSet::from(
            ["sp-admin-console", "sp-authproxy", "sp-ingress-dash"]
                .map(|name| format!("serviceaccount/{name}"))
        )
    );
    // The cluster-wide ClusterRole and its binding.
    assert_eq!(
        installed
            .kinds("clusterrole.rbac.authorization.k8s.io")
            .len(),
        1
    );
    assert_eq!(
        installed
            .kinds("clusterrolebinding.rbac.authorization.k8s.io")
            .len(),
        1
    );
    let namespace = "chart-default";
    let elsewhere = "kube-public";
    let bare = baseline(cluster, namespace, elsewhere);
    // admin-console and authproxy talk to no Kubernetes API: nothing beyond the baseline, here
    // or anywhere.
    for account in ["sp-admin-console", "sp-authproxy"] {
        for scope in [namespace, elsewhere] {
            assert_eq!(
                rules(cluster, namespace, account, scope),
                bare,
                "{account} in {scope}"
            );
        }
    }
    let mut granted = INGRESS_DASH_DEFAULT.to_vec();
    granted.push("namespaces [] [get list watch]");
    assert_eq!(
        rules(cluster, namespace, "sp-ingress-dash", elsewhere),
        expected(&bare, &granted)
    );
    let account = format!("system:serviceaccount:{namespace}:sp-ingress-dash");
    for (verb, resource) in [
        ("list", "ingresses.networking.k8s.io"),
        ("watch", "ingresses.networking.k8s.io"),
        ("list", "httproutes.gateway.networking.k8s.io"),
        ("watch", "httproutes.gateway.networking.k8s.io"),
        ("watch", "services"),
        ("list", "endpointslices.discovery.k8s.io"),
        ("list", "events"),
        ("list", "namespaces"),
    ] {
        assert!(
            can_i(cluster, &account, verb, resource, None),
            "{verb} {resource}"
        );
    }
    for resource in ["secrets", "configmaps", "pods"] {
        assert!(
            !can_i(cluster, &account, "get", resource, None),
            "get {resource}"
        );
        assert!(
            !can_i(cluster, &account, "list", resource, None),
            "list {resource}"
        );
    }
    for verb in WRITES {
        for resource in [
            "ingresses.networking.k8s.io",
            "httproutes.gateway.networking.k8s.io",
            "services",
            "events",
            "namespaces",
            "roles.rbac.authorization.k8s.io",
        ] {
            assert!(
                !can_i(cluster, &account, verb, resource, None),
                "{verb} {resource}"
            );
        }
    }
    for account in ["sp-admin-console", "sp-authproxy"] {
        let account = format!("system:serviceaccount:{namespace}:{account}");
        for (verb, resource) in [
            ("list", "ingresses"),
            ("get", "secrets"),
            ("create", "pods"),
        ] {
            assert!(
                !can_i(cluster, &account, verb, resource, None),
                "{account}: {verb} {resource}"
            );
        }
    }
}

/// all-options: ingress-dash watches team-a and team-b only (a Role in each, no cluster-wide
/// grant), reads TLS Secrets there (`read_secrets: true`), no Gateway API; ServiceMonitors and
/// PodDisruptionBudgets; the Ingress with TLS.
#[test]
fn all_options_install_and_ingress_dash_may_read_its_two_namespaces_only() {
    let cluster = KubeCluster::shared();
    let installed = install(
        cluster,
        "chart-all-options",
        "sp",
        Some("all-options-values.yaml"),
        &["team-a", "team-b"],
    );
    assert_eq!(
        installed
            .kinds("servicemonitor.monitoring.coreos.com")
            .len(),
        2,
        "{:?}",
        installed.objects
    );
    assert_eq!(installed.kinds("poddisruptionbudget.policy").len(), 2);
    assert!(
        installed
            .kinds("clusterrole.rbac.authorization.k8s.io")
            .is_empty()
    );
    // The Roles live in the watched namespaces, which `kubectl get -f` found there.
    assert!(installed.manifest.contains("namespace: team-a"));
    // ingress-dash is told to watch exactly those namespaces (with only Roles there, a
    // cluster-wide list of namespaces would be refused).
    let config = installed.jsonpath(
        cluster,
        "configmap/sp-ingress-dash",
        "{.data.config\\.yaml}",
    );
    assert!(
        config.contains("kubernetes:\n  namespaces:\n  - team-a\n  - team-b\n"),
        "{config}"
    );
    let namespace = "chart-all-options";
    let bare = baseline(cluster, namespace, "team-c-none");
    let mut granted: Vec<&str> = INGRESS_DASH_DEFAULT
        .iter()
        .copied()
        .filter(|rule| !rule.starts_with("httproutes"))
        .collect();
    granted.push("secrets [] [get list watch]");
    for watched in ["team-a", "team-b"] {
        assert_eq!(
            rules(cluster, namespace, "sp-ingress-dash", watched),
            expected(&bare, &granted),
            "in {watched}"
        );
    }
    for other in [namespace, "default"] {
        assert_eq!(
            rules(cluster, namespace, "sp-ingress-dash", other),
            bare,
            "in {other}"
        );
    }
    for account in ["sp-admin-console", "sp-authproxy"] {
        assert_eq!(
            rules(cluster, namespace, account, "team-a"),
            bare,
            "{account}"
        );
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
