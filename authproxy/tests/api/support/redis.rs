//! A redis-server the test can stop and start again on the same port, to check that the proxy
//! fails closed while Redis is away and recovers by itself when it returns. (test-support's
//! `RedisServer` picks a new port on every start, so it cannot do this.)

use std::process::{Command, Stdio};
use std::time::Duration;

use test_support::{ChildGuard, free_port, wait_until};

pub struct RestartableRedis {
    pub port: u16,
    child: Option<ChildGuard>,
}

impl RestartableRedis {
    pub fn start() -> Self {
        let mut redis = Self {
            port: free_port(),
            child: None,
        };
        redis.resume();
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Kills the server (its data goes with it, like a restart without persistence).
    pub fn stop(&mut self) {
        self.child = None;
        wait_until("redis-server to stop", Duration::from_secs(10), || {
            std::net::TcpStream::connect(("127.0.0.1", self.port)).is_err()
        });
    }

    /// Starts the server again on the same port.
    pub fn resume(&mut self) {
        let port = self.port.to_string();
        let mut guard = ChildGuard::spawn(
            "redis-server",
            Command::new("redis-server")
                .args(["--bind", "127.0.0.1", "--port", &port])
                .args(["--save", "", "--appendonly", "no", "--daemonize", "no"])
                .stdout(Stdio::null()),
        );
        wait_until("redis-server", Duration::from_secs(30), || {
            guard.assert_running();
            std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok()
        });
        self.child = Some(guard);
    }
}
