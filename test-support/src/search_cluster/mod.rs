//! Real search servers: the distributions pinned in `versions.env`, fetched from Maven by
//! `scripts/install-servers.sh` into `.cache/servers/`, each started here on free loopback ports
//! with a 512 MB heap, waited for with a deadline and killed with its test process.
//!
//! OpenSearch and Elasticsearch refuse to run as root: when the tests run as root, the server
//! runs as the unprivileged `SEARCH_SERVER_USER` (made by the install script) from a copy of the
//! distribution in its own scratch folder. Every server is started by one long-lived spawner
//! thread under `setpriv --pdeathsig KILL`, so a server outlives neither its test process nor
//! (for one owned by a test) its [`SearchCluster`] value: a process-wide server from
//! [`SearchCluster::shared`] is never dropped, and the kernel kills it when the tests exit.
//!
//! [`Distribution::OpenSearch2Secured`] is OpenSearch with its security plugin: HTTPS with the
//! demo CA and an admin with a password ([`Security`], module `secured`).
//! [`Distribution::Elasticsearch8Secured`] is Elasticsearch 8 with x-pack security: HTTPS with a
//! CA the harness makes at each start and the `elastic` password it bootstraps.
//!
//! [`SearchNodes`] (module `nodes`) is a cluster of several nodes on loopback, for shards that
//! need somewhere to go.

mod nodes;
mod secured;

use std::collections::HashMap;
use std::hash::Hash;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use crate::process::{self, ChildGuard, free_port, http_get, repo_root};

pub use nodes::{SearchNode, SearchNodes, TIERED_ROLES};
pub use secured::Security;

/// How long a node may take to answer its first request (a cold JVM on a busy 2-core machine).
const START_DEADLINE: Duration = Duration::from_secs(180);

/// A distribution pinned in `versions.env`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distribution {
    /// OpenSearch 2.19 (`OPENSEARCH_2_*`), on OpenJDK 17.
    OpenSearch2,
    /// Elasticsearch 7.10.2 (`ELASTICSEARCH_7_*`), the last Apache-2.0 release, on OpenJDK 17.
    Elasticsearch7,
    /// OpenSearch 2.19.4 (`OPENSEARCH_2_SECURED_*`, the newest the security plugin on Maven
    /// Central is built for) with the security plugin and its demo configuration, made by
    /// `scripts/install-servers.sh`: HTTPS only, every request authenticated.
    OpenSearch2Secured,
    /// Elasticsearch 8.19 (`ELASTICSEARCH_8_SECURED_*`, the newest integ-test zip on Maven
    /// Central) with x-pack security and the native realm, on OpenJDK 17, made by
    /// `scripts/install-servers.sh` (with the analysis components its security index needs):
    /// HTTPS only with a CA made at each start, every request authenticated. The zip has no
    /// `rest-root` module: `GET /` comes from the script's small `root-info` plugin
    /// (`test-support/elasticsearch/RootInfo.java`), with the node's own name, cluster and version.
    Elasticsearch8Secured,
    /// OpenSearch 3 (`OPENSEARCH_3_*`), on Temurin 25 (3.x needs Java 21 or newer).
    OpenSearch3,
    /// Elasticsearch 8.19 without security: the secured distribution's copy (its `root-info`
    /// plugin answers `GET /`) with x-pack security switched off, plain HTTP, so several nodes
    /// can form a cluster. The Elasticsearch with data tier roles (`data_hot`…): the 7.10 zip
    /// has no x-pack and so no tier roles. See [`SearchNodes::tiered`].
    Elasticsearch8,
}

impl Distribution {
    /// The `versions.env` prefix of its keys, and the folder under `.cache/servers/` before and
    /// after the version.
    fn keys(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::OpenSearch2 => ("OPENSEARCH_2", "opensearch", ""),
            Self::Elasticsearch7 => ("ELASTICSEARCH_7", "elasticsearch", ""),
            Self::Elasticsearch8Secured => {
                ("ELASTICSEARCH_8_SECURED", "elasticsearch", "-security")
            }
            Self::OpenSearch2Secured => ("OPENSEARCH_2_SECURED", "opensearch", "-security"),
            Self::OpenSearch3 => ("OPENSEARCH_3", "opensearch", ""),
            Self::Elasticsearch8 => ("ELASTICSEARCH_8_SECURED", "elasticsearch", "-security"),
        }
    }

    /// Runs with its security plugin: HTTPS with certificates made for one node.
    fn secured(self) -> bool {
        matches!(self, Self::OpenSearch2Secured | Self::Elasticsearch8Secured)
    }

    /// Makes the copy of the distribution in `home` ready to start: for
    /// [`Self::Elasticsearch8`], a configuration that switches security off (every other setting
    /// is given on the command line).
    fn prepare_home(self, home: &Path) {
        if self == Self::Elasticsearch8 {
            std::fs::write(
                home.join("config/elasticsearch.yml"),
                "xpack.security.enabled: false\n",
            )
            .expect("writing elasticsearch.yml");
        }
    }

    /// The start script under `bin/` and the prefix of its environment (`<P>_JAVA_HOME`,
    /// `<P>_JAVA_OPTS`, `<P>_TMPDIR`).
    fn launcher(self) -> (&'static str, &'static str) {
        match self {
            Self::OpenSearch2 | Self::OpenSearch2Secured | Self::OpenSearch3 => {
                ("opensearch", "OPENSEARCH")
            }
            Self::Elasticsearch7 | Self::Elasticsearch8Secured | Self::Elasticsearch8 => {
                ("elasticsearch", "ES")
            }
        }
    }

    /// The pinned version, e.g. `2.19.6`.
    pub fn version(self) -> String {
        let (prefix, _, _) = self.keys();
        pinned(&format!("{prefix}_VERSION"))
    }

    fn install_dir(self) -> PathBuf {
        let (_, folder, suffix) = self.keys();
        let dir = repo_root()
            .join(".cache/servers")
            .join(format!("{folder}-{}{suffix}", self.version()));
        assert!(
            dir.join("bin").is_dir(),
            "{} is not installed; `make test` (scripts/install-servers.sh) fetches it",
            dir.display()
        );
        dir
    }

    fn java_home(self) -> String {
        let (prefix, _, _) = self.keys();
        pinned(&format!("{prefix}_JAVA_HOME"))
    }
}

/// A value of `versions.env` (`KEY=value` lines, `#` comments).
pub fn pinned(key: &str) -> String {
    static VALUES: OnceLock<HashMap<String, String>> = OnceLock::new();
    let values = VALUES.get_or_init(|| {
        let path = repo_root().join("versions.env");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("reading {}: {error}", path.display()));
        text.lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .filter_map(|line| line.split_once('='))
            .map(|(key, value)| (key.trim().to_owned(), value.trim().to_owned()))
            .collect()
    });
    values
        .get(key)
        .cloned()
        .unwrap_or_else(|| panic!("versions.env has no {key}"))
}

/// Process-wide servers by key, each started on first use and never dropped.
type Shared<K, V> = OnceLock<Mutex<HashMap<K, &'static V>>>;

/// The server of `shared` for `key`, started by `start` on first use (under the lock: callers
/// for the same key wait for the one start).
fn shared_entry<K: Eq + Hash, V: Sync>(
    shared: &Shared<K, V>,
    key: K,
    start: impl FnOnce() -> V,
) -> &'static V {
    let mut shared = shared
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    shared
        .entry(key)
        .or_insert_with(|| Box::leak(Box::new(start())))
}

/// One search node, killed and its scratch folder removed on drop.
pub struct SearchCluster {
    /// `http://127.0.0.1:<port>` without the security plugin (plain HTTP, no credentials);
    /// `https://127.0.0.1:<port>` with it.
    pub url: String,
    pub distribution: Distribution,
    /// The admin credential and the demo CA, with the security plugin.
    pub security: Option<Security>,
    child: ChildGuard,
    dir: PathBuf,
}

impl SearchCluster {
    /// A single node of its own (`discovery.type: single-node`), for a test that changes
    /// cluster-wide state.
    pub fn start(distribution: Distribution) -> Self {
        let dir = scratch_dir(distribution);
        let home = dir.join("home");
        copy_tree(&distribution.install_dir(), &home);
        distribution.prepare_home(&home);
        let security = match distribution {
            Distribution::OpenSearch2Secured => Some(Security::of_home(&home)),
            Distribution::Elasticsearch8Secured => {
                Some(Security::bootstrap_elasticsearch(&home, distribution))
            }
            _ => None,
        };
        let (http_port, transport_port) = (free_port(), free_port());
        let mut child = launch(
            distribution,
            &dir,
            &dir.join("repo"),
            vec![
                "discovery.type=single-node".to_owned(),
                format!("http.port={http_port}"),
                format!("transport.port={transport_port}"),
                format!("cluster.name=test-{http_port}"),
                format!("node.name=node-{http_port}"),
            ],
        );
        let host_port = format!("127.0.0.1:{http_port}");
        // With the security plugin, the HTTP port opens before the security index is
        // initialised: the admin's authenticated health check answers 200 only after it.
        let answers = |host_port: &str| match &security {
            Some(security) => security.get(host_port, "/_cluster/health"),
            None => http_get(host_port, "/_cluster/health"),
        };
        child.wait_ready(
            &dir.join("console.log"),
            START_DEADLINE,
            Duration::from_millis(100),
            || matches!(answers(&host_port), Some((200, _))),
        );
        let scheme = if security.is_some() { "https" } else { "http" };
        Self {
            url: format!("{scheme}://{host_port}"),
            distribution,
            security,
            child,
            dir,
        }
    }

    /// One node per distribution for the whole test process, started on first use; tests that
    /// share it keep to index names of their own.
    pub fn shared(distribution: Distribution) -> &'static Self {
        static SHARED: Shared<Distribution, SearchCluster> = OnceLock::new();
        shared_entry(&SHARED, distribution, || Self::start(distribution))
    }

    pub fn pid(&self) -> u32 {
        self.child.pid()
    }

    /// The distribution's version, e.g. `2.19.6`.
    pub fn version(&self) -> String {
        self.distribution.version()
    }

    /// The node's `path.repo`: a file system snapshot repository's location must be in it.
    pub fn repo_path(&self) -> PathBuf {
        self.dir.join("repo")
    }
}

impl Drop for SearchCluster {
    fn drop(&mut self) {
        let _ = self.child.child_mut().kill();
        let _ = self.child.child_mut().wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Starts one node of `distribution` from the copy of it in `dir/home`, as [`run_as`] says, with
/// the settings every node gets (loopback, its folders under `dir`, `repo` as its `path.repo`, no
/// disk watermarks) and `settings` (ports, names, discovery) after them; its console goes to
/// `dir/console.log`.
fn launch(
    distribution: Distribution,
    dir: &Path,
    repo: &Path,
    settings: Vec<String>,
) -> ChildGuard {
    for folder in ["data", "logs", "tmp"] {
        std::fs::create_dir_all(dir.join(folder)).expect("creating the node's folders");
    }
    std::fs::create_dir_all(repo).expect("creating the node's path.repo");
    let user = run_as();
    if let Some(user) = &user {
        chown(user, dir);
        chown(user, repo);
    }
    let console = std::fs::File::create(dir.join("console.log")).expect("console log");
    let (script, env) = distribution.launcher();
    let mut command = setpriv_as(user.as_deref());
    let common = [
        "network.host=127.0.0.1".to_owned(),
        format!("path.data={}", dir.join("data").display()),
        format!("path.logs={}", dir.join("logs").display()),
        format!("path.repo={}", repo.display()),
        // The test machine's disk may be fuller than the default watermarks allow.
        "cluster.routing.allocation.disk.threshold_enabled=false".to_owned(),
    ];
    command
        .args(["--pdeathsig", "KILL", "--"])
        .arg(dir.join("home").join("bin").join(script))
        .args(
            common
                .into_iter()
                .chain(settings)
                .flat_map(|setting| ["-E".to_owned(), setting]),
        )
        .env(format!("{env}_JAVA_HOME"), distribution.java_home())
        // Elasticsearch before 7.12 reads JAVA_HOME only.
        .env("JAVA_HOME", distribution.java_home())
        .env(format!("{env}_JAVA_OPTS"), "-Xms512m -Xmx512m")
        .env(format!("{env}_TMPDIR"), dir.join("tmp"))
        .stdin(Stdio::null())
        .stdout(console.try_clone().expect("console log"))
        .stderr(console);
    let name = format!("{distribution:?}");
    ChildGuard::from_child(&name, process::spawn_outliving_threads(&name, command))
}

/// `chown -R user path`: the server's user must own what it writes to.
fn chown(user: &str, path: &Path) {
    let status = Command::new("chown")
        .args(["-R", user])
        .arg(path)
        .status()
        .expect("running chown");
    assert!(status.success(), "chown -R {user} {}", path.display());
}

/// `setpriv`, with `user` (from [`run_as`]) as its real and effective user and group and no
/// supplementary groups when there is one; the caller adds the rest of the arguments.
fn setpriv_as(user: Option<&str>) -> Command {
    let mut command = Command::new("setpriv");
    if let Some(user) = user {
        command.args([
            format!("--reuid={user}"),
            format!("--regid={user}"),
            "--clear-groups".to_owned(),
        ]);
    }
    command
}

/// The user to run the server as: `SEARCH_SERVER_USER` when running as root, else `None`.
fn run_as() -> Option<String> {
    let uid = Command::new("id").arg("-u").output().ok()?;
    (String::from_utf8_lossy(&uid.stdout).trim() == "0").then(|| pinned("SEARCH_SERVER_USER"))
}

/// A fresh scratch folder for a node (or the nodes) of `distribution`.
fn scratch_dir(distribution: Distribution) -> PathBuf {
    process::scratch_dir("search-cluster", Some(&format!("{distribution:?}")))
}

/// `cp -a from to`: the server may write into its home (a keystore in config/).
fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .expect("running cp");
    assert!(
        status.success(),
        "cp -a {} {}",
        from.display(),
        to.display()
    );
}
