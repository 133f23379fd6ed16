//! Child processes, free ports, readiness polling and scratch directories.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

/// A port that is free on 127.0.0.1 and stays free until the caller binds it, for servers
/// that cannot bind port 0 themselves (Redis, Prometheus) or whose port must be known before
/// they start (an OIDC redirect URL names it).
///
/// Ports come from below the kernel's ephemeral range (32768 and up on Linux): a port the
/// kernel handed out for `bind(0)` would be free again after the check but could be given to
/// the next outgoing connection or port-0 listener before the caller binds it, which made
/// "Address already in use" flakes. Here each test process walks
/// 20000..32000 from an offset derived from its PID and never offers a port twice.
pub fn free_port() -> u16 {
    const FIRST: u32 = 20_000;
    const COUNT: u32 = 12_000;
    static NEXT: OnceLock<AtomicU32> = OnceLock::new();
    let next = NEXT.get_or_init(|| AtomicU32::new(std::process::id().wrapping_mul(197) % COUNT));
    for _ in 0..COUNT {
        let offset = next.fetch_add(1, Ordering::Relaxed) % COUNT;
        let port = (FIRST + offset) as u16;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return port;
        }
    }
    panic!("no free loopback port in {FIRST}..{}", FIRST + COUNT)
}

/// The workspace root (the folder with the top-level Cargo.toml).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test-support sits one level below the workspace root")
        .to_path_buf()
}

/// A running child process, killed and reaped on drop.
pub struct ChildGuard {
    name: String,
    child: Child,
}

impl ChildGuard {
    /// Spawns `command`; panics with the program's name when it cannot start (a missing
    /// binary means `make test` did not install it, which the message says).
    pub fn spawn(name: &str, command: &mut Command) -> Self {
        let child = command.spawn().unwrap_or_else(|error| {
            panic!("cannot start {name} ({error}); `make test` installs it, see the README")
        });
        Self {
            name: name.to_owned(),
            child,
        }
    }

    /// Guards a child spawned elsewhere (a spawner thread); `name` names it in messages.
    pub fn from_child(name: &str, child: Child) -> Self {
        Self {
            name: name.to_owned(),
            child,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Panics if the process has already exited, with its status.
    pub fn assert_running(&mut self) {
        if let Ok(Some(status)) = self.child.try_wait() {
            panic!("{} exited early with {status}", self.name);
        }
    }

    /// Sends SIGTERM and waits for the exit; the exit status, or `None` after `timeout`.
    /// For programs that must stop their own children (nginx's master stops its workers on
    /// SIGTERM; SIGKILL, as on drop, would leave them running).
    pub fn terminate(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let pid = self.pid().to_string();
        let sent = Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .expect("running kill");
        assert!(sent.success(), "kill -TERM {pid} failed");
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    pub fn child_mut(&mut self) -> &mut Child {
        &mut self.child
    }

    /// Polls `ready` every `interval` until it holds; panics with the last lines of `log` (the
    /// child's console) when the child exits first or `deadline` passes.
    pub(crate) fn wait_ready(
        &mut self,
        log: &Path,
        deadline: Duration,
        interval: Duration,
        mut ready: impl FnMut() -> bool,
    ) {
        let started = Instant::now();
        while !ready() {
            if let Ok(Some(status)) = self.child.try_wait() {
                panic!(
                    "{} exited with {status} before it was ready: {}",
                    self.name,
                    tail(log)
                );
            }
            assert!(
                started.elapsed() < deadline,
                "{} was not ready within {deadline:?}: {}",
                self.name,
                tail(log)
            );
            std::thread::sleep(interval);
        }
    }

    /// Reads the JSON line a server prints on start (its address) and returns the string field
    /// `field` of it. The child's stdout must be piped. Panics, naming the server and whether it
    /// is still running, when no line came within a minute: a test run fails, it never hangs.
    pub fn announced(&mut self, field: &str) -> String {
        self.announced_within(field, Duration::from_secs(60))
            .unwrap_or_else(|problem| panic!("{problem}"))
    }

    /// [`Self::announced`], with the problem as an error instead of a panic, for a caller that
    /// starts the server again.
    pub fn announced_within(&mut self, field: &str, deadline: Duration) -> Result<String, String> {
        let stdout = self.child.stdout.take().expect("stdout is piped");
        let (line_sender, line) = std::sync::mpsc::channel();
        // Reads the first line, then keeps draining: a server whose stdout is closed dies on its
        // next write (Node: EPIPE).
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut first_line = String::new();
            let read = reader.read_line(&mut first_line).map(|_| first_line);
            let _ = line_sender.send(read);
            std::io::copy(&mut reader, &mut std::io::sink())
        });
        let first_line = match line.recv_timeout(deadline) {
            Ok(Ok(first_line)) => first_line,
            Ok(Err(error)) => return Err(format!("reading what {} printed: {error}", self.name)),
            Err(_) => {
                let state = match self.child.try_wait() {
                    Ok(Some(status)) => format!("it exited with {status}"),
                    _ => "it is still running".to_owned(),
                };
                return Err(format!(
                    "{} (pid {}) announced nothing within {deadline:?}; {state}",
                    self.name,
                    self.pid()
                ));
            }
        };
        let announced: serde_json::Value = serde_json::from_str(&first_line)
            .map_err(|_| format!("{} printed {first_line:?}, not a JSON line", self.name))?;
        announced[field]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("{} announced no {field}: {first_line}", self.name))
    }
}

impl Drop for ChildGuard {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Polls `ready` every 50 ms until it returns true; panics after `timeout` naming `what`.
pub fn wait_until(what: &str, timeout: Duration, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !ready() {
        assert!(
            Instant::now() < deadline,
            "{what} was not ready within {timeout:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A minimal blocking `GET` for readiness checks: `(status, body)`, or `None` when nothing
/// answers. Tests use a real HTTP client; this only keeps the harness free of one.
pub fn http_get(host_port: &str, path: &str) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(host_port).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {host_port}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = String::new();
    stream.read_to_string(&mut response).ok()?;
    status_and_body(&response)
}

/// A blocking `GET path` over HTTPS on `host_port` (`127.0.0.1:<port>`) with
/// `Authorization: <authorization>`, the server's certificate verified for `127.0.0.1` against
/// the PEM certificates in `ca_file`: `(status, body)`, or `None` when nothing answers (yet).
/// For the harness's readiness checks only.
pub(crate) fn https_get(
    ca_file: &Path,
    host_port: &str,
    path: &str,
    authorization: &str,
) -> Option<(u16, String)> {
    crate::install_crypto_provider();
    let mut roots = rustls::RootCertStore::empty();
    for certificate in CertificateDer::pem_file_iter(ca_file).ok()? {
        roots.add(certificate.ok()?).ok()?;
    }
    let config = rustls::ClientConfig::builder()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from("127.0.0.1").ok()?;
    let connection = rustls::ClientConnection::new(Arc::new(config), name).ok()?;
    let socket = TcpStream::connect(host_port).ok()?;
    socket.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let mut stream = rustls::StreamOwned::new(connection, socket);
    write!(
        stream,
        "GET {path} HTTP/1.0\r\nHost: {host_port}\r\nAuthorization: {authorization}\r\n\
         Connection: close\r\n\r\n"
    )
    .ok()?;
    let mut response = Vec::new();
    // A peer that closes without close_notify is an error after the whole answer was read.
    let _ = stream.read_to_end(&mut response);
    status_and_body(&String::from_utf8_lossy(&response))
}

/// `(status, body)` of a whole HTTP/1 response.
pub(crate) fn status_and_body(response: &str) -> Option<(u16, String)> {
    let status = response.split(' ').nth(1)?.parse().ok()?;
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, body)| body.to_owned())
        .unwrap_or_default();
    Some((status, body))
}

/// A scratch directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(prefix: &str) -> Self {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "{prefix}-{}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).expect("creating a scratch directory");
        Self(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh folder `<prefix>-<pid>-[<label>-]<n>` under the temp dir, for a server that may
/// outlive its value (a process-wide one is never dropped); folders with the same prefix of
/// processes that are gone are removed first.
pub(crate) fn scratch_dir(prefix: &str, label: Option<&str>) -> PathBuf {
    let root = std::env::temp_dir();
    let start = format!("{prefix}-");
    if let Ok(entries) = std::fs::read_dir(&root) {
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let pid = name
                .strip_prefix(&start)
                .and_then(|rest| rest.split('-').next())
                .and_then(|pid| pid.parse::<u32>().ok());
            if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let label = label.map(|label| format!("{label}-")).unwrap_or_default();
    let dir = root.join(format!(
        "{start}{}-{label}{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).expect("creating a scratch folder");
    dir
}

/// The last lines of a log, for a failure message.
pub(crate) fn tail(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(30)..].join("\n")
}

/// Spawns `command` (a `setpriv --pdeathsig KILL` wrapper) from one thread that lives as long as
/// the process: `--pdeathsig` fires when the thread that spawned the child ends, and a test's own
/// thread (or a blocking pool's) ends long before the process. `what` names the server when it
/// cannot start.
pub(crate) fn spawn_outliving_threads(what: &str, command: Command) -> Child {
    type Request = (Command, mpsc::Sender<std::io::Result<Child>>);
    static SPAWNER: OnceLock<Mutex<mpsc::Sender<Request>>> = OnceLock::new();
    let sender = SPAWNER.get_or_init(|| {
        let (sender, requests) = mpsc::channel::<Request>();
        std::thread::Builder::new()
            .name("test-support-spawner".to_owned())
            .spawn(move || {
                for (mut command, reply) in requests {
                    let _ = reply.send(command.spawn());
                }
                // The senders live in a static: this loop never ends, and the thread with it.
            })
            .expect("starting the spawner thread");
        Mutex::new(sender)
    });
    let (reply, answer) = mpsc::channel();
    sender
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .send((command, reply))
        .expect("the spawner thread runs");
    answer
        .recv()
        .expect("the spawner thread answers")
        .unwrap_or_else(|error| {
            panic!("cannot start {what} ({error}); `make test` installs setpriv and the server")
        })
}
