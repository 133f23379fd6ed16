//! What each service account the chart creates may do in the Kubernetes API, asked with
//! `kubectl auth can-i` as that service account: exact sets, so a permission added to the chart
//! fails here.

use std::collections::BTreeSet;

use test_support::kube_cluster::KubeCluster;

use crate::install::install;
use crate::{ok, text};

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
/// reads of ingresses, services, endpointslices, cert-manager Certificates and HTTP, GRPC and
/// TLS routes, list of events, ReferenceGrants and Gateways; cluster-wide, namespaces too.
const INGRESS_DASH_DEFAULT: [&str; 10] = [
    "ingresses.networking.k8s.io [] [get list watch]",
    "events [] [list]",
    "services [] [get list watch]",
    "endpointslices.discovery.k8s.io [] [get list watch]",
    "certificates.cert-manager.io [] [get list watch]",
    "httproutes.gateway.networking.k8s.io [] [get list watch]",
    "grpcroutes.gateway.networking.k8s.io [] [get list watch]",
    "tlsroutes.gateway.networking.k8s.io [] [get list watch]",
    "referencegrants.gateway.networking.k8s.io [] [list]",
    "gateways.gateway.networking.k8s.io [] [list]",
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
    // Only ingress-dash's pods get a token mounted.
    for (service, mounted) in [
        ("sp-admin-console", "false"),
        ("sp-authproxy", "false"),
        ("sp-ingress-dash", "true"),
    ] {
        let automount = installed.jsonpath(
            cluster,
            &format!("deployment.apps/{service}"),
            "{.spec.template.spec.automountServiceAccountToken}",
        );
        assert_eq!(automount, mounted, "{service}");
    }
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
    granted.push("ingressclasses.networking.k8s.io [] [list]");
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
        ("list", "referencegrants.gateway.networking.k8s.io"),
        ("watch", "grpcroutes.gateway.networking.k8s.io"),
        ("watch", "tlsroutes.gateway.networking.k8s.io"),
        ("list", "gateways.gateway.networking.k8s.io"),
        ("watch", "services"),
        ("list", "endpointslices.discovery.k8s.io"),
        ("list", "events"),
        ("list", "namespaces"),
        ("list", "ingressclasses.networking.k8s.io"),
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
            "ingressclasses.networking.k8s.io",
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
        .filter(|rule| !rule.contains("gateway.networking.k8s.io"))
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
