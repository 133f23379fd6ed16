//! The two proxies: their configurations, starts (measured cold starts included) and the
//! oauth2-proxy binary.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use test_support::{ChildGuard, free_port, http_get, repo_root, wait_until};

use crate::{CLIENT_SECRET, PASSWORD, USER};

/// The two proxies, in the order every row prints them.
#[derive(Clone, Copy)]
pub enum Peer {
    Authproxy,
    Oauth2Proxy,
}

/// What a run needs to know of one proxy.
pub struct Running {
    pub guard: ChildGuard,
    /// The nginx front server guarding the application with this proxy's check.
    pub front_port: u16,
    /// The check as nginx asks it: URL and headers (besides the credential).
    pub check_url: String,
    pub check_headers: Vec<String>,
    /// Where a browser signs in: authproxy's public port, oauth2-proxy's only one.
    pub sign_in_port: u16,
    /// `Cookie: <name>=<value>` from a real sign-in.
    pub cookie: String,
}

impl Peer {
    pub fn name(self) -> &'static str {
        match self {
            Peer::Authproxy => "authproxy",
            Peer::Oauth2Proxy => "oauth2-proxy",
        }
    }
}

pub struct Setup {
    pub dir: PathBuf,
    pub issuer: String,
    pub redis_url: String,
    pub hash: String,
    pub authproxy: PathBuf,
    pub oauth2_proxy: PathBuf,
}

impl Setup {
    /// authproxy in forward_auth mode for nginx: the check on `internal_port`, sign-in on `port`.
    fn authproxy_command(&self, port: u16, internal_port: u16) -> Command {
        let config = self.dir.join(format!("authproxy-{port}.yaml"));
        let yaml = format!(
            "server: {{host: 127.0.0.1, port: {port}, internal_port: {internal_port}, \
             mode: forward_auth, trusted_proxies: [127.0.0.1], front_proxy: nginx}}\n\
             oidc:\n  enabled: true\n  issuer_url: {issuer}\n  client_id: authproxy\n  \
             client_secret: {CLIENT_SECRET}\n  \
             redirect_url: http://127.0.0.1:{port}/auth/callback\n  \
             scopes: [openid, email, profile, groups]\n\
             session: {{secret: bench-session-secret-0123456789abcdef}}\n\
             cache: {{backend: redis, redis_url: \"{redis}/0\", \
             encryption_key: bench-cache-key-0123456789abcdef}}\n\
             user_management: {{enabled: false}}\n\
             basic_auth:\n  users: [{{username: {USER}, password_hash: \"{hash}\", \
             email: bench@example.com, groups: [ops]}}]\n",
            issuer = self.issuer,
            redis = self.redis_url,
            hash = self.hash,
        );
        std::fs::write(&config, yaml).unwrap();
        let mut command = Command::new(&self.authproxy);
        command
            .arg("--config")
            .arg(&config)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    }

    /// oauth2-proxy as its documentation sets it up behind nginx `auth_request`: OIDC with PKCE,
    /// sessions in Redis, the htpasswd file for Basic, `X-Auth-Request-*` headers.
    fn oauth2_proxy_command(&self, port: u16) -> Command {
        let htpasswd = self.dir.join("htpasswd");
        std::fs::write(&htpasswd, format!("{USER}:{}\n", self.hash)).unwrap();
        let mut command = Command::new(&self.oauth2_proxy);
        command
            .arg(format!("--http-address=127.0.0.1:{port}"))
            .arg("--provider=oidc")
            .arg(format!("--oidc-issuer-url={}", self.issuer))
            .arg("--client-id=oauth2-proxy")
            .arg(format!("--client-secret={CLIENT_SECRET}"))
            .arg(format!(
                "--redirect-url=http://127.0.0.1:{port}/oauth2/callback"
            ))
            .arg("--scope=openid email profile groups")
            .arg("--code-challenge-method=S256")
            .arg("--cookie-secret=bench-cookie-secret-0123456789ab")
            .arg("--cookie-secure=false")
            .arg("--email-domain=*")
            .arg("--session-store-type=redis")
            .arg(format!("--redis-connection-url={}/1", self.redis_url))
            .arg(format!("--htpasswd-file={}", htpasswd.display()))
            .arg("--htpasswd-user-group=ops")
            .arg("--upstream=static://200")
            .arg("--reverse-proxy=true")
            .arg("--set-xauthrequest=true")
            .arg("--skip-provider-button=true")
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        command
    }

    pub fn start_authproxy(&self, port: u16, internal_port: u16, front_port: u16) -> Running {
        let guard = ChildGuard::spawn(
            "authproxy",
            &mut self.authproxy_command(port, internal_port),
        );
        let mut running = Running {
            guard,
            front_port,
            check_url: format!("http://127.0.0.1:{internal_port}/"),
            check_headers: vec![
                format!("X-Original-URL: http://127.0.0.1:{front_port}/"),
                "X-Original-Method: GET".to_owned(),
                "X-Forwarded-For: 127.0.0.1".to_owned(),
            ],
            sign_in_port: port,
            cookie: String::new(),
        };
        wait_healthy(&mut running.guard, port, "/healthz");
        running
    }

    pub fn start_oauth2_proxy(&self, port: u16, front_port: u16) -> Running {
        let guard = ChildGuard::spawn("oauth2-proxy", &mut self.oauth2_proxy_command(port));
        let mut running = Running {
            guard,
            front_port,
            check_url: format!("http://127.0.0.1:{port}/oauth2/auth"),
            check_headers: vec![
                format!("X-Forwarded-Host: 127.0.0.1:{front_port}"),
                "X-Forwarded-Uri: /".to_owned(),
                "X-Real-IP: 127.0.0.1".to_owned(),
            ],
            sign_in_port: port,
            cookie: String::new(),
        };
        wait_healthy(&mut running.guard, port, "/ping");
        running
    }

    /// Median over `count` alternating starts of each: (ms until the health endpoint answers
    /// 200, ms until the first Basic decision answers 200).
    pub fn cold_starts(&self, count: usize) -> [(f64, f64); 2] {
        let basic = format!("Basic {}", STANDARD.encode(format!("{USER}:{PASSWORD}")));
        let mut times: [Vec<(f64, f64)>; 2] = Default::default();
        for _ in 0..count {
            for peer in [Peer::Authproxy, Peer::Oauth2Proxy] {
                let (port, internal) = (free_port(), free_port());
                let (mut command, health, check) = match peer {
                    Peer::Authproxy => (
                        self.authproxy_command(port, internal),
                        "/healthz",
                        format!("127.0.0.1:{internal}"),
                    ),
                    Peer::Oauth2Proxy => (
                        self.oauth2_proxy_command(port),
                        "/ping",
                        format!("127.0.0.1:{port}"),
                    ),
                };
                let check_path = match peer {
                    Peer::Authproxy => "/",
                    Peer::Oauth2Proxy => "/oauth2/auth",
                };
                let started = Instant::now();
                let mut guard = ChildGuard::spawn(peer.name(), &mut command);
                let host = format!("127.0.0.1:{port}");
                poll(&mut guard, || {
                    matches!(http_get(&host, health), Some((200, _)))
                });
                let healthy = started.elapsed();
                // oauth2-proxy's check answers 202, authproxy's 200: nginx takes any 2xx.
                poll(&mut guard, || {
                    (200..300).contains(&status_with(&check, check_path, &basic, port))
                });
                let decided = started.elapsed();
                times[peer as usize].push((ms(healthy), ms(decided)));
                drop(guard);
            }
        }
        times.map(|mut values| {
            let middle = values.len() / 2;
            values.sort_by(|a, b| a.0.total_cmp(&b.0));
            let health = values[middle].0;
            values.sort_by(|a, b| a.1.total_cmp(&b.1));
            (health, values[middle].1)
        })
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// Polls every 2 ms (a cold start is tens of milliseconds), up to 30 s.
fn poll(guard: &mut ChildGuard, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !ready() {
        guard.assert_running();
        assert!(Instant::now() < deadline, "not ready within 30 s");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn wait_healthy(guard: &mut ChildGuard, port: u16, path: &str) {
    let host = format!("127.0.0.1:{port}");
    wait_until(
        "the proxy's health endpoint",
        Duration::from_secs(30),
        || {
            guard.assert_running();
            matches!(http_get(&host, path), Some((200, _)))
        },
    );
}

/// The status of one GET of `path` at `host_port` with `Authorization`, and the headers nginx
/// would send (both proxies' kinds: each reads its own).
fn status_with(host_port: &str, path: &str, authorization: &str, front_port: u16) -> u16 {
    use std::io::{Read, Write};
    let Ok(mut stream) = std::net::TcpStream::connect(host_port) else {
        return 0;
    };
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host_port}\r\nAuthorization: {authorization}\r\n\
         X-Original-URL: http://127.0.0.1:{front_port}/\r\nX-Original-Method: GET\r\n\
         X-Forwarded-Uri: /\r\nConnection: close\r\n\r\n"
    );
    if stream.write_all(request.as_bytes()).is_err() {
        return 0;
    }
    let mut response = String::new();
    let _ = stream.read_to_string(&mut response);
    response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

pub fn pinned_version() -> String {
    let versions = std::fs::read_to_string(repo_root().join("versions.env")).unwrap();
    versions
        .lines()
        .find_map(|line| line.strip_prefix("OAUTH2_PROXY_VERSION="))
        .expect("OAUTH2_PROXY_VERSION in versions.env")
        .trim()
        .to_owned()
}

/// Builds oauth2-proxy once (the script skips what is there) and gives its path.
pub fn oauth2_proxy_binary() -> PathBuf {
    let root = repo_root();
    let status = Command::new(root.join("scripts/install-bench-tools.sh"))
        .status()
        .expect("running scripts/install-bench-tools.sh");
    assert!(status.success(), "scripts/install-bench-tools.sh failed");
    let path = root.join(format!(".cache/bench/oauth2-proxy-{}", pinned_version()));
    assert!(Path::new(&path).exists(), "{} is missing", path.display());
    path
}
