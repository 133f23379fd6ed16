//! The real servers: Redis and Prometheus.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::process::{ChildGuard, TempDir, free_port, http_get, wait_until};

const START_TIMEOUT: Duration = Duration::from_secs(30);

/// `redis-server` on a free port, without persistence. It can be stopped and started again on
/// the same port, to test how a service behaves while Redis is down and after it returns.
pub struct RedisServer {
    pub port: u16,
    guard: Option<ChildGuard>,
}

impl RedisServer {
    pub fn start() -> Self {
        let mut redis = Self {
            port: free_port(),
            guard: None,
        };
        redis.restart();
        redis
    }

    /// Kills the server; connections to it fail until [`RedisServer::restart`].
    pub fn stop(&mut self) {
        self.guard = None;
    }

    /// Starts a fresh (empty) server on the same port; a no-op while it runs.
    pub fn restart(&mut self) {
        if self.guard.is_some() {
            return;
        }
        let port = self.port;
        let mut guard = ChildGuard::spawn(
            "redis-server",
            Command::new("redis-server")
                .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .stdout(Stdio::null()),
        );
        wait_until("redis-server", START_TIMEOUT, || {
            guard.assert_running();
            redis_ping(port)
        });
        self.guard = Some(guard);
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// The running server's PID.
    pub fn pid(&self) -> u32 {
        self.guard.as_ref().expect("redis-server is stopped").pid()
    }
}

fn redis_ping(port: u16) -> bool {
    let Ok(mut stream) = TcpStream::connect(("127.0.0.1", port)) else {
        return false;
    };
    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
    let mut reply = [0u8; 7];
    stream.write_all(b"PING\r\n").is_ok()
        && stream.read_exact(&mut reply).is_ok()
        && &reply == b"+PONG\r\n"
}

/// A Prometheus server with the given scrape configuration and its own storage directory.
pub struct Prometheus {
    pub url: String,
    guard: ChildGuard,
    _storage: TempDir,
}

impl Prometheus {
    /// `config_yaml` gets Prometheus's own `host:port` (to let it scrape itself) and returns a
    /// complete prometheus.yml; `data_dir` is an existing TSDB directory to serve (backfilled
    /// history), or `None` for an empty one.
    pub fn start(config_yaml: impl FnOnce(&str) -> String, data_dir: Option<PathBuf>) -> Self {
        let storage = TempDir::new("prometheus");
        let port = free_port();
        let config_path = storage.path().join("prometheus.yml");
        let config = config_yaml(&format!("127.0.0.1:{port}"));
        std::fs::write(&config_path, config).expect("writing prometheus.yml");
        let tsdb = data_dir.unwrap_or_else(|| storage.path().join("data"));
        let mut guard = ChildGuard::spawn(
            "prometheus",
            Command::new("prometheus")
                .arg(format!("--config.file={}", config_path.display()))
                .arg(format!("--storage.tsdb.path={}", tsdb.display()))
                .arg(format!("--web.listen-address=127.0.0.1:{port}"))
                // Backfilled blocks can be weeks old; keep them all.
                .arg("--storage.tsdb.retention.time=90d")
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        let host_port = format!("127.0.0.1:{port}");
        wait_until("prometheus", START_TIMEOUT, || {
            guard.assert_running();
            matches!(http_get(&host_port, "/-/ready"), Some((200, _)))
        });
        Self {
            url: format!("http://{host_port}"),
            guard,
            _storage: storage,
        }
    }

    pub fn pid(&self) -> u32 {
        self.guard.pid()
    }
}
