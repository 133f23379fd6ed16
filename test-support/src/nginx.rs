//! One nginx process for the test fronts (TLS termination, the forward-auth front door): the
//! scratch directory with its pid file, error log and temp paths, the start, the wait for its
//! ports and the stop. Each front writes only its own `http { ... }` servers.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::process::{ChildGuard, TempDir, wait_until};

pub(crate) struct Nginx {
    guard: ChildGuard,
    dir: TempDir,
}

impl Nginx {
    /// Starts nginx in a new scratch directory named after `name`, with `servers` (the inside
    /// of its `http` block) after the common settings, and waits until every one of `ports`
    /// accepts connections.
    pub(crate) fn start(name: &str, servers: &str, ports: &[u16]) -> Self {
        let dir = TempDir::new(name);
        let temp = |file: &str| dir.path().join(file).display().to_string();
        let config = format!(
            "worker_processes 1;\n\
             pid {pid};\n\
             error_log {error_log} warn;\n\
             events {{ worker_connections 256; }}\n\
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
        );
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
    pub(crate) fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its worker too (SIGKILL would leave the worker running).
        self.guard.terminate(Duration::from_secs(5));
    }
}
