//! One nginx process for the test fronts (TLS termination, the forward-auth front door): the
//! scratch directory with its pid file, error log and temp paths, the start, the wait for its
//! ports and the stop. Each front writes only its own `http { ... }` servers. Public: authproxy's
//! benches start their nginx with it too ([`Nginx::start_with`], a worker per core).

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::process::{ChildGuard, TempDir, wait_until};

/// nginx's worker processes and the connections each may hold.
#[derive(Clone, Copy, Debug)]
pub enum Workers {
    /// One worker of 256 connections: a test front.
    One,
    /// One worker per core (`auto`) of 4096 connections each: a front under load (the benches).
    PerCore,
}

/// An `nginx.conf` that keeps its pid file, error log and temp paths in `dir`, runs `workers`
/// and logs no access, with `servers` as the rest of its `http` block (upstreams, servers).
pub fn config(dir: &Path, workers: Workers, servers: &str) -> String {
    let (processes, connections) = match workers {
        Workers::One => ("1", 256),
        Workers::PerCore => ("auto", 4096),
    };
    let temp = |file: &str| dir.join(file).display().to_string();
    format!(
        "worker_processes {processes};\n\
         pid {pid};\n\
         error_log {error_log} warn;\n\
         events {{ worker_connections {connections}; }}\n\
         http {{\n\
           access_log off;\n\
           client_body_temp_path {body}; proxy_temp_path {proxy};\n\
           fastcgi_temp_path {fastcgi}; uwsgi_temp_path {uwsgi}; scgi_temp_path {scgi};\n\
         {servers}\n\
         }}\n",
        pid = temp("nginx.pid"),
        error_log = temp("error.log"),
        body = temp("body"),
        proxy = temp("proxy"),
        fastcgi = temp("fastcgi"),
        uwsgi = temp("uwsgi"),
        scgi = temp("scgi"),
    )
}

pub struct Nginx {
    guard: ChildGuard,
    dir: TempDir,
}

impl Nginx {
    /// Starts nginx in a new scratch directory named after `name`, with `servers` (the inside
    /// of its `http` block) after the common settings ([`config`], one worker), and waits until
    /// every one of `ports` accepts connections.
    pub fn start(name: &str, servers: &str, ports: &[u16]) -> Self {
        Self::start_with(name, Workers::One, servers, ports)
    }

    /// [`Nginx::start`] with `workers`.
    pub fn start_with(name: &str, workers: Workers, servers: &str, ports: &[u16]) -> Self {
        let dir = TempDir::new(name);
        let config = config(dir.path(), workers, servers);
        let config_path = dir.path().join("nginx.conf");
        std::fs::write(&config_path, config).expect("writing nginx.conf");
        let mut guard = ChildGuard::spawn(
            "nginx",
            Command::new("nginx")
                .arg("-p")
                .arg(dir.path())
                .arg("-c")
                .arg(&config_path)
                .args(["-g", "daemon off;"])
                .stdout(Stdio::null()),
        );
        wait_until("nginx", Duration::from_secs(20), || {
            guard.assert_running();
            ports
                .iter()
                .all(|port| std::net::TcpStream::connect(("127.0.0.1", *port)).is_ok())
        });
        Self { guard, dir }
    }

    /// nginx's error log (why a handshake failed, "auth request unexpected status", ...).
    pub fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its worker too (SIGKILL would leave the worker running).
        self.guard.terminate(Duration::from_secs(5));
    }
}
