//! A real Kubernetes control plane for tests: etcd and kube-apiserver, the versions pinned in
//! `versions.env`, built from source by `scripts/install-kube.sh` into `.cache/kube/`, started
//! here the way envtest starts them (no kubelet, no controller manager, no scheduler: objects are
//! stored, validated, admitted and authorised for real, but nothing reconciles them).
//!
//! etcd listens on free loopback ports with a scratch data folder; kube-apiserver serves HTTPS on
//! 127.0.0.1 with a certificate it makes itself in a scratch cert folder, RBAC authorisation
//! (`Node,RBAC`), the default admission plugins, a service-account signing key (so
//! `kubectl create token` mints real, verifiable tokens) and one admin in `system:masters` who
//! authenticates with a static bearer token. The API server's etcd compactor is off
//! ([`KubeCluster::start`]) or runs every few seconds
//! ([`KubeCluster::start_with_compaction_interval`]), so a test can provoke a real `410 Gone`.
//!
//! Both processes are started by one long-lived spawner thread under
//! `setpriv --pdeathsig KILL`: they never outlive the test process, and a cluster of its own
//! ([`KubeCluster::start`]) is stopped on drop; [`KubeCluster::shared`] is never dropped.

mod faults;
mod net;
mod tools;

pub use faults::{Faults, KubeFaultProxy};

pub use tools::ok;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

use crate::pinned;
use crate::process::{
    ChildGuard, free_port, http_get, https_get, repo_root, scratch_dir, spawn_outliving_threads,
};

/// How long etcd and then kube-apiserver may take to be ready (a busy 2-core machine).
const START_DEADLINE: Duration = Duration::from_secs(120);

/// etcd and kube-apiserver, stopped and their scratch folder removed on drop.
pub struct KubeCluster {
    url: String,
    etcd_url: String,
    admin_token: String,
    dir: PathBuf,
    gateway_api: OnceLock<()>,
    apiserver: ChildGuard,
    etcd: ChildGuard,
}

impl KubeCluster {
    /// A control plane of its own, for a test that changes cluster-wide state (CRDs,
    /// compaction, cluster roles).
    pub fn start() -> Self {
        Self::start_with_compaction_interval(Duration::ZERO)
    }

    /// [`Self::start`] with the API server's own etcd compactor on (`--etcd-compaction-interval`;
    /// zero is off): every `interval` it compacts to the revision it saw the tick before, and it
    /// tells its watch cache, so a list, page or watch from a compacted `resourceVersion` gets a
    /// real `410 Gone` (a compaction from outside, [`Self::compact`], the cache does not learn of).
    pub fn start_with_compaction_interval(interval: Duration) -> Self {
        Self::start_with_apiserver_args(interval, &[])
    }

    /// [`Self::start_with_compaction_interval`] with more kube-apiserver flags, e.g.
    /// `--watch-cache=false` (every watch is served by etcd: a watch from a compacted
    /// resourceVersion gets a real 410 at once, where the watch cache goes on serving it from
    /// its own window) or `--audit-log-path=...` with `--audit-policy-file=...` (what each
    /// request asked, its query included).
    pub fn start_with_apiserver_args(interval: Duration, extra_args: &[String]) -> Self {
        let dir = scratch_dir("kube-cluster", None);
        for folder in ["etcd", "certs", "home"] {
            std::fs::create_dir_all(dir.join(folder)).expect("creating the cluster's folders");
        }
        let (etcd, etcd_url) = start_etcd(&dir);
        let admin_token = random_hex(16);
        let secure_port = free_port();
        let url = format!("https://127.0.0.1:{secure_port}");
        let mut apiserver = start_apiserver(
            &dir,
            &etcd_url,
            secure_port,
            &admin_token,
            interval,
            extra_args,
        );
        let ca_file = dir.join("certs/apiserver.crt");
        let host_port = format!("127.0.0.1:{secure_port}");
        let authorization = format!("Bearer {admin_token}");
        apiserver.wait_ready(
            &dir.join("kube-apiserver.log"),
            START_DEADLINE,
            Duration::from_millis(100),
            // The server writes its self-signed certificate before it listens.
            || {
                ca_file.is_file()
                    && matches!(
                        https_get(&ca_file, &host_port, "/readyz", &authorization),
                        Some((200, _))
                    )
            },
        );
        let cluster = Self {
            url,
            etcd_url,
            admin_token,
            dir,
            gateway_api: OnceLock::new(),
            apiserver,
            etcd,
        };
        cluster.write_kubeconfig();
        cluster
    }

    /// One control plane for the whole test process, started on first use; tests that share it
    /// keep to namespaces and names of their own.
    pub fn shared() -> &'static Self {
        static SHARED: OnceLock<KubeCluster> = OnceLock::new();
        SHARED.get_or_init(Self::start)
    }

    /// The pinned Kubernetes version, e.g. `1.36.3` (the server says `v1.36.3`).
    pub fn version() -> String {
        pinned("KUBERNETES_VERSION")
    }

    /// `https://127.0.0.1:<port>`, the API server.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// `http://127.0.0.1:<port>`, etcd's client URL (plain HTTP, no auth).
    pub fn etcd_url(&self) -> &str {
        &self.etcd_url
    }

    /// The API server's self-signed certificate and the CA that signed it (PEM, both blocks):
    /// trust it to reach [`Self::url`].
    pub fn ca_pem(&self) -> String {
        std::fs::read_to_string(self.ca_file()).expect("reading the API server's certificate")
    }

    /// The file [`Self::ca_pem`] reads.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("certs/apiserver.crt")
    }

    /// The bearer token of `admin` (group `system:masters`: every verb on everything).
    pub fn admin_token(&self) -> &str {
        &self.admin_token
    }

    /// An HTTPS client that trusts the API server's certificate only, with no credential.
    pub fn client(&self) -> reqwest::Client {
        self.client_builder().build().expect("an HTTPS client")
    }

    /// [`Self::client`] that sends `Authorization: Bearer <token>` on every request.
    pub fn client_with_token(&self, token: &str) -> reqwest::Client {
        let mut headers = reqwest::header::HeaderMap::new();
        let value = format!("Bearer {token}");
        headers.insert(
            reqwest::header::AUTHORIZATION,
            value.parse().expect("a token is a header value"),
        );
        self.client_builder()
            .default_headers(headers)
            .build()
            .expect("an HTTPS client")
    }

    /// [`Self::client_with_token`] with the admin's token.
    pub fn admin_client(&self) -> reqwest::Client {
        self.client_with_token(&self.admin_token)
    }

    fn client_builder(&self) -> reqwest::ClientBuilder {
        crate::install_crypto_provider();
        let certificates = reqwest::Certificate::from_pem_bundle(self.ca_pem().as_bytes())
            .expect("the API server's certificate is PEM");
        reqwest::Client::builder().tls_certs_only(certificates)
    }

    /// An admin kubeconfig (server, CA file, admin token), for kubectl, helm and clients.
    pub fn kubeconfig_path(&self) -> PathBuf {
        self.dir.join("kubeconfig")
    }

    /// The scratch folder: etcd's data, the certificates, both servers' logs.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The PIDs of etcd and kube-apiserver (each a `setpriv` that exec'd the server).
    pub fn pids(&self) -> (u32, u32) {
        (self.etcd.pid(), self.apiserver.pid())
    }

    /// Compacts etcd's history up to its current revision and returns that revision, through
    /// etcd's JSON gateway (no etcdctl needed). The API server's watch cache does not learn of
    /// a compaction from outside: it goes on serving old lists, pages and watches from its own
    /// window, so this gives a 410 only for what reaches etcd. For a 410 from the API server
    /// itself use [`Self::start_with_compaction_interval`].
    pub fn compact(&self) -> i64 {
        let host_port = self.etcd_url.trim_start_matches("http://");
        let (status, body) = net::http_post(host_port, "/v3/kv/range", r#"{"key":"AA=="}"#)
            .expect("etcd answers /v3/kv/range");
        assert_eq!(status, 200, "etcd /v3/kv/range: {body}");
        let range: serde_json::Value = serde_json::from_str(&body).expect("etcd answers JSON");
        let revision: i64 = range["header"]["revision"]
            .as_str()
            .and_then(|revision| revision.parse().ok())
            .unwrap_or_else(|| panic!("no header.revision in {body}"));
        let request = format!(r#"{{"revision":"{revision}","physical":true}}"#);
        let (status, body) = net::http_post(host_port, "/v3/kv/compaction", &request)
            .expect("etcd answers /v3/kv/compaction");
        assert_eq!(status, 200, "etcd /v3/kv/compaction: {body}");
        revision
    }

    fn write_kubeconfig(&self) {
        let config = format!(
            "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    \
             server: {}\n    certificate-authority: {}\nusers:\n- name: admin\n  user:\n    \
             token: {}\ncontexts:\n- name: test\n  context:\n    cluster: test\n    \
             user: admin\ncurrent-context: test\n",
            self.url,
            self.ca_file().display(),
            self.admin_token
        );
        std::fs::write(self.kubeconfig_path(), config).expect("writing the kubeconfig");
    }
}

impl Drop for KubeCluster {
    fn drop(&mut self) {
        for child in [&mut self.apiserver, &mut self.etcd] {
            let _ = child.child_mut().kill();
            let _ = child.child_mut().wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `.cache/kube/<tool>-<version>`, built by `scripts/install-kube.sh`.
fn binary(tool: &str, version_key: &str) -> PathBuf {
    let path = repo_root()
        .join(".cache/kube")
        .join(format!("{tool}-{}", pinned(version_key)));
    assert!(
        path.is_file(),
        "{} is not built; `make test` (scripts/install-kube.sh) builds it",
        path.display()
    );
    path
}

/// etcd on two free loopback ports (client, peer), single member, waited for on `/health`.
fn start_etcd(dir: &Path) -> (ChildGuard, String) {
    let (client_port, peer_port) = (free_port(), free_port());
    let client_url = format!("http://127.0.0.1:{client_port}");
    let peer_url = format!("http://127.0.0.1:{peer_port}");
    let log = std::fs::File::create(dir.join("etcd.log")).expect("etcd log");
    let mut command = Command::new("setpriv");
    command
        .args(["--pdeathsig", "KILL", "--"])
        .arg(binary("etcd", "ETCD_VERSION"))
        .arg(format!("--data-dir={}", dir.join("etcd").display()))
        .arg("--name=default")
        .arg(format!("--listen-client-urls={client_url}"))
        .arg(format!("--advertise-client-urls={client_url}"))
        .arg(format!("--listen-peer-urls={peer_url}"))
        .arg(format!("--initial-advertise-peer-urls={peer_url}"))
        .arg(format!("--initial-cluster=default={peer_url}"))
        // A test's data need not survive a power cut; fsync would make every write slow.
        .arg("--unsafe-no-fsync=true")
        .arg("--log-level=warn")
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("etcd log"))
        .stderr(log);
    let mut etcd = ChildGuard::from_child("etcd", spawn_outliving_threads("etcd", command));
    let host_port = format!("127.0.0.1:{client_port}");
    etcd.wait_ready(
        &dir.join("etcd.log"),
        START_DEADLINE,
        Duration::from_millis(50),
        || matches!(http_get(&host_port, "/health"), Some((200, _))),
    );
    (etcd, client_url)
}

/// kube-apiserver as envtest runs it, on `secure_port`, with the admin's static token.
fn start_apiserver(
    dir: &Path,
    etcd_url: &str,
    secure_port: u16,
    admin_token: &str,
    compaction_interval: Duration,
    extra_args: &[String],
) -> ChildGuard {
    let certs = dir.join("certs");
    let signing_key = certs.join("service-account.key");
    let status = Command::new("openssl")
        .args([
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
        ])
        .arg("-out")
        .arg(&signing_key)
        .stderr(Stdio::null())
        .status()
        .expect("running openssl");
    assert!(status.success(), "openssl genpkey failed");
    let tokens = certs.join("tokens.csv");
    std::fs::write(
        &tokens,
        format!("{admin_token},admin,admin,\"system:masters\"\n"),
    )
    .expect("writing the token file");
    let log = std::fs::File::create(dir.join("kube-apiserver.log")).expect("apiserver log");
    let mut command = Command::new("setpriv");
    command
        .args(["--pdeathsig", "KILL", "--"])
        .arg(binary("kube-apiserver", "KUBERNETES_VERSION"))
        .arg(format!("--etcd-servers={etcd_url}"))
        .arg(format!(
            "--etcd-compaction-interval={}ms",
            compaction_interval.as_millis()
        ))
        .arg(format!("--cert-dir={}", certs.display()))
        .arg("--bind-address=127.0.0.1")
        .arg("--advertise-address=127.0.0.1")
        .arg(format!("--secure-port={secure_port}"))
        .arg("--authorization-mode=Node,RBAC")
        .arg(format!("--token-auth-file={}", tokens.display()))
        .arg(format!(
            "--service-account-issuer=https://127.0.0.1:{secure_port}"
        ))
        .arg(format!(
            "--service-account-key-file={}",
            signing_key.display()
        ))
        .arg(format!(
            "--service-account-signing-key-file={}",
            signing_key.display()
        ))
        .arg("--service-cluster-ip-range=10.0.0.0/24")
        .arg("--allow-privileged=true")
        .args(extra_args)
        .stdin(Stdio::null())
        .stdout(log.try_clone().expect("apiserver log"))
        .stderr(log);
    ChildGuard::from_child(
        "kube-apiserver",
        spawn_outliving_threads("kube-apiserver", command),
    )
}

/// `bytes` random bytes as hex, from the kernel.
fn random_hex(bytes: usize) -> String {
    use std::io::Read;
    let mut buffer = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut random| random.read_exact(&mut buffer))
        .expect("reading /dev/urandom");
    buffer.iter().map(|byte| format!("{byte:02x}")).collect()
}
