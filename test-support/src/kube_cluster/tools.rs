//! kubectl and helm, the binaries `scripts/install-kube.sh` built, run against a
//! [`KubeCluster`] as its admin; and what tests do with them (apply YAML, mint a service
//! account's token, install the Gateway API CRDs).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use super::{KubeCluster, binary};
use crate::pinned;
use crate::process::repo_root;

impl KubeCluster {
    /// `kubectl <args>` with the admin kubeconfig; its output, whatever the exit status.
    pub fn kubectl(&self, args: &[&str]) -> Output {
        self.run(binary("kubectl", "KUBERNETES_VERSION"), args, None)
    }

    /// `helm <args>` with the admin kubeconfig and Helm's folders in the scratch folder; its
    /// output, whatever the exit status.
    pub fn helm(&self, args: &[&str]) -> Output {
        self.run(binary("helm", "HELM_VERSION"), args, None)
    }

    /// `kubectl apply -f -` of `yaml` (one or more documents); panics with kubectl's answer
    /// when it fails. Returns what kubectl printed.
    pub fn apply(&self, yaml: &str) -> String {
        let output = self.run(
            binary("kubectl", "KUBERNETES_VERSION"),
            &["apply", "-f", "-"],
            Some(yaml),
        );
        ok(&output, "kubectl apply")
    }

    /// `kubectl create namespace` of each of `names`; panics with kubectl's answer when one
    /// fails (one that exists already, too).
    pub fn create_namespaces(&self, names: &[&str]) {
        for name in names {
            ok(
                &self.kubectl(&["create", "namespace", name]),
                "kubectl create namespace",
            );
        }
    }

    /// A token of service account `service_account` in `namespace`, from
    /// `kubectl create token` (the TokenRequest API: signed by the API server, valid an hour).
    pub fn create_token(&self, namespace: &str, service_account: &str) -> String {
        let output = self.kubectl(&[
            "create",
            "token",
            service_account,
            "--namespace",
            namespace,
            "--duration=1h",
        ]);
        ok(&output, "kubectl create token").trim().to_owned()
    }

    /// Installs the standard channel of the Gateway API CRDs pinned in `versions.env`
    /// (`GATEWAY_API_VERSION`, copied by `scripts/install-kube.sh`) and waits until every CRD
    /// is Established. Once per cluster; later calls return at once.
    pub fn install_gateway_api_crds(&self) {
        self.gateway_api.get_or_init(|| {
            let file = gateway_api_file("standard");
            let file = file.to_str().expect("a UTF-8 path");
            // Server-side: the HTTPRoute CRD is too large for client-side apply's annotation.
            let output = self.kubectl(&["apply", "--server-side", "-f", file, "-o", "name"]);
            let applied = ok(&output, "kubectl apply of the Gateway API CRDs");
            let crds: Vec<&str> = applied
                .lines()
                .filter(|name| name.starts_with("customresourcedefinition"))
                .collect();
            assert!(!crds.is_empty(), "no CRD in {file}: {applied}");
            let mut args = vec!["wait", "--for=condition=Established", "--timeout=60s"];
            args.extend(crds);
            ok(
                &self.kubectl(&args),
                "kubectl wait for the Gateway API CRDs",
            );
        });
    }

    /// Installs a CustomResourceDefinition of cert-manager's `Certificate`
    /// (`cert-manager.io/v1`, namespaced, short name `cert`, the `status` subresource) with
    /// the fields a reader of Certificates uses (`spec.secretName`, `spec.dnsNames`,
    /// `spec.issuerRef`, `status.conditions`, `notBefore`, `notAfter`, `renewalTime`), the rest
    /// kept as written, and waits until it is Established. Not cert-manager's own CRD (that
    /// is not pinned here): its shape, for a cluster whose Certificates a test writes itself.
    pub fn install_cert_manager_crd(&self) {
        self.apply(CERT_MANAGER_CRD);
        ok(
            &self.kubectl(&[
                "wait",
                "--for=condition=Established",
                "--timeout=60s",
                "customresourcedefinition/certificates.cert-manager.io",
            ]),
            "kubectl wait for the cert-manager CRD",
        );
    }

    fn run(&self, program: PathBuf, args: &[&str], stdin: Option<&str>) -> Output {
        let home = self.dir.join("home");
        let mut command = Command::new(&program);
        command
            .args(args)
            .env("KUBECONFIG", self.kubeconfig_path())
            .env("HOME", &home)
            .env("HELM_CACHE_HOME", home.join("helm/cache"))
            .env("HELM_CONFIG_HOME", home.join("helm/config"))
            .env("HELM_DATA_HOME", home.join("helm/data"))
            .stdin(if stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = command
            .spawn()
            .unwrap_or_else(|error| panic!("cannot run {} ({error})", program.display()));
        if let Some(input) = stdin {
            let mut pipe = child.stdin.take().expect("stdin is piped");
            pipe.write_all(input.as_bytes()).expect("writing to stdin");
        }
        child
            .wait_with_output()
            .unwrap_or_else(|error| panic!("waiting for {} ({error})", program.display()))
    }
}

/// `.cache/kube/gateway-api-<version>/<channel>-install.yaml`.
fn gateway_api_file(channel: &str) -> PathBuf {
    let path = repo_root()
        .join(".cache/kube")
        .join(format!("gateway-api-{}", pinned("GATEWAY_API_VERSION")))
        .join(format!("{channel}-install.yaml"));
    assert!(
        path.is_file(),
        "{} is missing; `make test` (scripts/install-kube.sh) copies it",
        path.display()
    );
    path
}

/// The standard output of a command that must have succeeded (kubectl's, helm's); panics with
/// both outputs if not, `what` naming the command.
pub fn ok(output: &Output, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The shape of cert-manager's Certificate CRD, see [`KubeCluster::install_cert_manager_crd`].
const CERT_MANAGER_CRD: &str = r#"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.cert-manager.io
spec:
  group: cert-manager.io
  scope: Namespaced
  names:
    kind: Certificate
    listKind: CertificateList
    plural: certificates
    singular: certificate
    shortNames: [cert, certs]
    categories: [cert-manager]
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        required: [spec]
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            required: [issuerRef, secretName]
            x-kubernetes-preserve-unknown-fields: true
            properties:
              secretName: {type: string}
              dnsNames: {type: array, items: {type: string}}
              duration: {type: string}
              renewBefore: {type: string}
              issuerRef:
                type: object
                required: [name]
                properties:
                  name: {type: string}
                  kind: {type: string}
                  group: {type: string}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
            properties:
              notBefore: {type: string, format: date-time}
              notAfter: {type: string, format: date-time}
              renewalTime: {type: string, format: date-time}
              revision: {type: integer}
              conditions:
                type: array
                items:
                  type: object
                  required: [status, type]
                  properties:
                    type: {type: string}
                    status: {type: string, enum: ["True", "False", "Unknown"]}
                    reason: {type: string}
                    message: {type: string}
                    lastTransitionTime: {type: string, format: date-time}
                    observedGeneration: {type: integer, format: int64}
"#;
