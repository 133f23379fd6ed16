//! The Helm chart's RBAC with the ingress-dash binary: helm/search-platform installed into the
//! real kube-apiserver of `test_support::kube_cluster`, then the built binary started with the
//! configuration the chart rendered (its ConfigMap's config.yaml, only the listening address and
//! the kubeconfig changed) and its service account's token (`kubectl create token`) in a
//! kubeconfig with the API server's CA, as the pod would run. What the chart grants is listed and
//! watched; what it does not grant is the API server's own 403, shown as that namespace's error.
//! Pods never run here (no kubelet): the binary runs on the test machine instead.

use std::path::Path;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::Value;
use test_support::binary::{RunningBinary, ServiceBinary};
use test_support::kube_cluster::{KubeCluster, ok};
use test_support::{TempDir, repo_root};

const WAIT: Duration = Duration::from_secs(30);

/// `helm install <release> helm/search-platform --namespace <namespace> --set <set>...`
/// (no --wait: no pod runs); returns ingress-dash's config.yaml from the installed ConfigMap.
fn install_chart(cluster: &KubeCluster, namespace: &str, release: &str, sets: &[&str]) -> String {
    cluster.install_gateway_api_crds();
    cluster.create_namespaces(&[namespace]);
    let chart = repo_root().join("helm/search-platform");
    let mut args = vec![
        "install",
        release,
        chart.to_str().unwrap(),
        "--namespace",
        namespace,
    ];
    for set in sets {
        args.extend(["--set", set]);
    }
    ok(&cluster.helm(&args), "helm install");
    ok(
        &cluster.kubectl(&[
            "get",
            "configmap",
            &format!("{release}-ingress-dash"),
            "--namespace",
            namespace,
            "-o",
            "jsonpath={.data.config\\.yaml}",
        ]),
        "kubectl get configmap",
    )
}

/// The top-level section `name` of a rendered config.yaml (toYaml: keys at column 0), with
/// its header line; empty when absent.
fn section(config: &str, name: &str) -> String {
    let mut inside = false;
    let mut lines = String::new();
    for line in config.lines() {
        if !line.starts_with(' ') && !line.starts_with('-') {
            inside = line == format!("{name}:");
        }
        if inside {
            lines.push_str(line);
            lines.push('\n');
        }
    }
    lines
}

/// The chart's config.yaml for a process on this machine: `server` listens on 127.0.0.1, port 0
/// (host, port, static_dir and internal_port dropped; trusted_proxies and the rest kept), and
/// `kubernetes` is `kubernetes` (the chart's section when `None`) plus the kubeconfig.
fn local_config(chart: &str, kubernetes: Option<&str>, kubeconfig: &Path) -> String {
    let chart = &format!("{}\n", chart.trim_end());
    let config: String = chart
        .split_inclusive('\n')
        .scan(false, |skipping, line| {
            if !line.starts_with(' ') && !line.starts_with('-') {
                let key = line.trim_end();
                *skipping = key == "server:" || key == "kubernetes:";
            }
            Some(if *skipping { "" } else { line })
        })
        .collect();
    let server: String = section(chart, "server")
        .lines()
        .skip(1)
        .filter(|line| {
            !["  host:", "  port:", "  static_dir:", "  internal_port:"]
                .iter()
                .any(|key| line.starts_with(key))
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let kubernetes = match kubernetes {
        Some(own) => own.to_owned(),
        None => section(chart, "kubernetes")
            .lines()
            .skip(1)
            .map(|line| format!("{line}\n"))
            .collect(),
    };
    format!(
        "{config}server:\n  host: 127.0.0.1\n  port: 0\n  shutdown_timeout: 2s\n{server}\
         kubernetes:\n  kubeconfig: {}\n{kubernetes}",
        kubeconfig.display()
    )
}

/// The ingress-dash binary with the chart's rendered configuration and the token of service
/// account `service_account` in `namespace`.
struct Dash {
    _dir: TempDir,
    _binary: ServiceBinary,
    running: RunningBinary,
    client: reqwest::Client,
}

impl Dash {
    fn start(
        cluster: &KubeCluster,
        namespace: &str,
        service_account: &str,
        chart_config: &str,
        kubernetes: Option<&str>,
    ) -> Self {
        let dir = TempDir::new("helm-rbac");
        let token = cluster.create_token(namespace, service_account);
        let ca = dir.path().join("ca.crt");
        std::fs::write(&ca, cluster.ca_pem()).unwrap();
        let kubeconfig = dir.path().join("kubeconfig");
        std::fs::write(
            &kubeconfig,
            format!(
                "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    \
                 server: {}\n    certificate-authority: {}\nusers:\n- name: {service_account}\n  \
                 user:\n    token: {token}\ncontexts:\n- name: test\n  context:\n    \
                 cluster: test\n    user: {service_account}\ncurrent-context: test\n",
                cluster.url(),
                ca.display()
            ),
        )
        .unwrap();
        let binary = ServiceBinary::new(
            env!("CARGO_BIN_EXE_ingress-dash"),
            "ingress-dash",
            "/api/live",
        );
        let config = local_config(chart_config, kubernetes, &kubeconfig);
        let path = binary.config_file("ingress-dash.yaml", &config);
        let running = binary.start(&path);
        // The chart's access.mode trusted_headers believes identity headers from loopback.
        let mut headers = reqwest::header::HeaderMap::new();
        headers.insert("X-Auth-Request-User", "helm-test".parse().unwrap());
        let client = reqwest::Client::builder()
            .default_headers(headers)
            .build()
            .unwrap();
        Self {
            _dir: dir,
            _binary: binary,
            running,
            client,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.running.host_port)
    }

    async fn get_json(&self, path: &str) -> (u16, Value) {
        let response = self.client.get(self.url(path)).send().await.unwrap();
        let status = response.status().as_u16();
        (status, response.json().await.unwrap_or(Value::Null))
    }

    /// Waits for `GET /api/health` to answer 200 (it reads the API with the token).
    async fn healthy(&self) {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let (status, body) = self.get_json("/api/health").await;
            if status == 200 {
                return;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "ingress-dash never became healthy with the chart's RBAC: {status} {body}"
            );
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    async fn stream(&self, namespaces: &str) -> Sse {
        let response = self
            .client
            .get(self.url(&format!("/api/ingresses/stream?namespaces={namespaces}")))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        Sse {
            body: Box::pin(response.bytes_stream()),
            buffer: String::new(),
        }
    }
}

/// A minimal reader of the SSE stream: `(event, data)` per block.
struct Sse {
    body:
        std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<actix_web::web::Bytes>>>>,
    buffer: String,
}

impl Sse {
    async fn next(&mut self) -> (String, Value) {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            while let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                let field = |name: &str| {
                    block
                        .lines()
                        .find_map(|line| line.strip_prefix(name))
                        .map(str::trim)
                        .map(str::to_owned)
                };
                if let (Some(event), Some(data)) = (field("event:"), field("data:")) {
                    return (event, serde_json::from_str(&data).unwrap());
                }
            }
            let chunk = tokio::time::timeout_at(deadline, self.body.next())
                .await
                .expect("an event within the deadline")
                .expect("the stream is open")
                .unwrap();
            self.buffer.push_str(&String::from_utf8_lossy(&chunk));
        }
    }

    /// Events until one `matches`; panics with what came at the deadline.
    async fn until(&mut self, matches: impl Fn(&str, &Value) -> bool) -> Value {
        loop {
            let (event, data) = self.next().await;
            if matches(&event, &data) {
                return data;
            }
        }
    }
}

fn names(snapshot: &Value) -> Vec<(String, String)> {
    snapshot["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| {
            (
                item["kind"].as_str().unwrap().to_owned(),
                item["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn ingress(namespace: &str, name: &str) -> String {
    format!(
        "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: {name}\n  \
         namespace: {namespace}\nspec:\n  rules:\n  - host: {name}.example.test\n    http:\n      \
         paths:\n      - path: /\n        pathType: Prefix\n        backend:\n          \
         service:\n            name: web\n            port:\n              number: 80\n"
    )
}

fn http_route(namespace: &str, name: &str) -> String {
    format!(
        "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: {name}\n  \
         namespace: {namespace}\nspec:\n  parentRefs:\n  - name: edge\n  hostnames:\n  \
         - {name}.example.test\n  rules:\n  - backendRefs:\n    - name: web\n      port: 80\n"
    )
}

/// The default values: a ClusterRole. ingress-dash, with the chart's configuration and its
/// service account's token, is ready (it lists namespaces), streams the Ingresses and HTTPRoutes
/// of any namespace and sees an Ingress created there.
#[tokio::test]
async fn with_the_charts_cluster_role_ingress_dash_lists_and_watches_ingresses_and_routes() {
    let cluster = KubeCluster::shared();
    let config = install_chart(cluster, "helm-rbac-dash", "dash", &[]);
    assert_eq!(section(&config, "kubernetes"), "", "{config}");
    let apps = "helm-rbac-apps";
    cluster.create_namespaces(&[apps]);
    cluster.apply(&format!(
        "{}---\n{}",
        ingress(apps, "before"),
        http_route(apps, "route")
    ));
    let dash = Dash::start(
        cluster,
        "helm-rbac-dash",
        "dash-ingress-dash",
        &config,
        None,
    );
    dash.healthy().await;
    let (status, namespaces) = dash.get_json("/api/namespaces").await;
    assert_eq!(status, 200, "{namespaces}");
    assert!(namespaces.to_string().contains(apps), "{namespaces}");
    let mut stream = dash.stream(apps).await;
    let snapshot = stream.until(|event, _| event == "snapshot").await;
    assert_eq!(snapshot["errors"], serde_json::json!([]), "{snapshot}");
    let mut found = names(&snapshot);
    found.sort();
    assert_eq!(
        found,
        [
            ("HTTPRoute".to_owned(), "route".to_owned()),
            ("Ingress".to_owned(), "before".to_owned())
        ],
        "{snapshot}"
    );
    cluster.apply(&ingress(apps, "after"));
    let added = stream
        .until(|event, data| event == "added" && data["name"] == "after")
        .await;
    assert_eq!(added["kind"], "Ingress");
    assert_eq!(added["namespace"], apps);
    cluster.apply(&http_route(apps, "later"));
    let added = stream
        .until(|event, data| event == "added" && data["name"] == "later")
        .await;
    assert_eq!(added["kind"], "HTTPRoute");
}

/// watchNamespaces: a Role in one namespace. The chart's configuration watches exactly it (the
/// binary is ready and streams it); told to watch a second namespace the chart did not grant,
/// ingress-dash gets the API server's real 403 there and shows it as that namespace's
/// `kubernetes_forbidden` error, while the granted one keeps streaming.
#[tokio::test]
async fn a_namespace_the_chart_did_not_grant_is_a_forbidden_error_there_only() {
    let cluster = KubeCluster::shared();
    let (granted, denied) = ("helm-rbac-granted", "helm-rbac-denied");
    cluster.create_namespaces(&[granted, denied]);
    let config = install_chart(
        cluster,
        "helm-rbac-scoped",
        "scoped",
        &[&format!("ingress-dash.watchNamespaces[0]={granted}")],
    );
    assert_eq!(
        section(&config, "kubernetes"),
        format!("kubernetes:\n  namespaces:\n  - {granted}\n"),
        "{config}"
    );
    cluster.apply(&format!(
        "{}---\n{}",
        ingress(granted, "mine"),
        ingress(denied, "theirs")
    ));
    let account = "scoped-ingress-dash";
    {
        // The chart's configuration as rendered: ready, and its namespace streams.
        let dash = Dash::start(cluster, "helm-rbac-scoped", account, &config, None);
        dash.healthy().await;
        let mut stream = dash.stream(granted).await;
        let snapshot = stream.until(|event, _| event == "snapshot").await;
        assert_eq!(snapshot["errors"], serde_json::json!([]), "{snapshot}");
        assert_eq!(
            names(&snapshot),
            [("Ingress".to_owned(), "mine".to_owned())]
        );
    }
    let both = format!("  namespaces: [{granted}, {denied}]\n");
    let dash = Dash::start(cluster, "helm-rbac-scoped", account, &config, Some(&both));
    dash.healthy().await;
    let mut stream = dash.stream(&format!("{granted},{denied}")).await;
    let forbidden = |data: &Value| -> Option<Value> {
        let errors = match data["errors"].as_array() {
            Some(errors) => errors.clone(),
            None => vec![data.clone()],
        };
        errors
            .into_iter()
            .find(|error| error["namespace"] == denied && error["code"] == "kubernetes_forbidden")
    };
    let event = stream
        .until(|event, data| (event == "error" || event == "snapshot") && forbidden(data).is_some())
        .await;
    let error = forbidden(&event).unwrap();
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("may not list or watch ingresses in {denied}")),
        "{error}"
    );
    let (_, snapshot) = dash
        .get_json(&format!("/api/ingresses?namespaces={granted},{denied}"))
        .await;
    assert_eq!(
        names(&snapshot),
        [("Ingress".to_owned(), "mine".to_owned())],
        "{snapshot}"
    );
    cluster.apply(&ingress(granted, "new"));
    let added = stream
        .until(|event, data| event == "added" && data["name"] == "new")
        .await;
    assert_eq!(added["namespace"], granted);
}
