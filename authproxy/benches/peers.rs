//! authproxy beside oauth2-proxy, its anchor among the peers, in one run on one machine (issue
//! 37). Both sit behind the same real nginx with `auth_request` (one nginx, a front server for
//! each), sign in at the same OpenID provider (test-support's npm `oidc-provider`), keep their
//! sessions in the same Redis (one database each) and check the same Basic user (one bcrypt
//! hash, cost 10, in authproxy's `basic_auth.users` and in oauth2-proxy's `--htpasswd-file`).
//! authproxy runs without `user_management` (no search cluster): an identity-headers check, the
//! work oauth2-proxy does.
//!
//! Each figure is printed beside oauth2-proxy's from the same run, with the ratio
//! authproxy / oauth2-proxy and which one is ahead:
//!
//! 1. a signed-in request (the session cookie each got by a real sign-in at the provider)
//!    through nginx: requests per second, p50, p99;
//! 2. a Basic request through nginx: the same;
//! 3. decisions per second at the check itself, the signed-in request's (what nginx's
//!    sub-request asks, without nginx);
//! 4. memory: VmRSS at idle (signed in, before the load), the highest VmRSS seen under load
//!    (sampled every 100 ms) and VmHWM at the end;
//! 5. cold start: the process started until its health endpoint answers 200 (`/healthz`,
//!    `/ping`), and until its first Basic decision answers 2xx (one bcrypt check), median of 5.
//!
//! The load rows alternate the two proxies (which goes first changes every round) for
//! `BENCH_ROUNDS` rounds (wrk, `-t2`, `BENCH_CONNECTIONS` connections, `BENCH_SECONDS` each,
//! `--timeout 10s`); each figure is the median over the rounds. After each run the bench waits
//! until both proxies are idle.
//!
//! `cargo bench -p authproxy --bench peers` (the release build, as shipped; `--profile fast` for
//! a quicker build). Needs `wrk`, `nginx`, `redis-server`, Node with test-support's
//! `oidc-provider` and Go: it runs `scripts/install-bench-tools.sh`, which builds oauth2-proxy
//! (`OAUTH2_PROXY_VERSION` in versions.env) once into `.cache/bench/`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use test_support::{
    ChildGuard, OidcProvider, RedisServer, TempDir, free_port, http_get, repo_root, wait_until,
};

const USER: &str = "bench";
const PASSWORD: &str = "bench-password";
const CLIENT_SECRET: &str = "bench-client-secret";
const AUTHPROXY_COOKIE: &str = "_authproxy_session";
const OAUTH2_PROXY_COOKIE: &str = "_oauth2_proxy";

#[derive(Clone, Copy, Default)]
struct Figures {
    requests_per_second: f64,
    p50_ms: f64,
    p99_ms: f64,
    /// wrk's non-2xx answers and socket errors (timeouts included), summed.
    errors: u64,
}

/// The two proxies, in the order every row prints them.
#[derive(Clone, Copy)]
enum Peer {
    Authproxy,
    Oauth2Proxy,
}

/// What a run needs to know of one proxy.
struct Running {
    guard: ChildGuard,
    /// The nginx front server guarding the application with this proxy's check.
    front_port: u16,
    /// The check as nginx asks it: URL and headers (besides the credential).
    check_url: String,
    check_headers: Vec<String>,
    /// Where a browser signs in: authproxy's public port, oauth2-proxy's only one.
    sign_in_port: u16,
    /// `Cookie: <name>=<value>` from a real sign-in.
    cookie: String,
}

fn main() {
    let seconds: u64 = env_or("BENCH_SECONDS", 10);
    let connections: u64 = env_or("BENCH_CONNECTIONS", 64);
    let rounds_count: u64 = env_or("BENCH_ROUNDS", 3).max(1);
    for tool in ["wrk", "nginx", "redis-server", "node", "go"] {
        if Command::new("which")
            .arg(tool)
            .output()
            .map_or(true, |o| !o.status.success())
        {
            eprintln!("{tool} is not installed (README: make deps; apt-get install -y wrk)");
            std::process::exit(2);
        }
    }
    let oauth2_proxy = oauth2_proxy_binary();
    let authproxy = PathBuf::from(env!("CARGO_BIN_EXE_authproxy"));
    let runtime = tokio::runtime::Runtime::new().unwrap();

    let dir = TempDir::new("bench-peers");
    let redis = RedisServer::start();
    let hash = bcrypt::hash(PASSWORD, 10).unwrap();
    let (ap_port, ap_internal, o2_port) = (free_port(), free_port(), free_port());
    let provider = OidcProvider::start(&serde_json::json!({
        "clients": [
            {
                "client_id": "authproxy",
                "client_secret": CLIENT_SECRET,
                "redirect_uris": [format!("http://127.0.0.1:{ap_port}/auth/callback")],
                "post_logout_redirect_uris": [format!("http://127.0.0.1:{ap_port}/")],
            },
            {
                "client_id": "oauth2-proxy",
                "client_secret": CLIENT_SECRET,
                "redirect_uris": [format!("http://127.0.0.1:{o2_port}/oauth2/callback")],
                "post_logout_redirect_uris": [format!("http://127.0.0.1:{o2_port}/")],
            },
        ],
        "users": {USER: {"email": "bench@example.com", "name": "Bench User", "groups": ["ops"]}},
    }));
    let setup = Setup {
        dir: dir.path().to_path_buf(),
        issuer: provider.issuer.clone(),
        redis_url: redis.url(),
        hash,
        authproxy,
        oauth2_proxy,
    };
    let (front_ap, front_o2) = (free_port(), free_port());
    let nginx = Nginx::start(front_ap, ap_internal, front_o2, o2_port);

    let mut peers = [
        setup.start_authproxy(ap_port, ap_internal, front_ap),
        setup.start_oauth2_proxy(o2_port, front_o2),
    ];
    let basic = format!(
        "Authorization: Basic {}",
        STANDARD.encode(format!("{USER}:{PASSWORD}"))
    );
    runtime.block_on(async {
        for (peer, running) in [Peer::Authproxy, Peer::Oauth2Proxy]
            .into_iter()
            .zip(peers.iter_mut())
        {
            running.cookie = sign_in(peer, &provider.issuer, running).await;
            // Both credentials pass through nginx (and warm authproxy's Basic cache, as any
            // first request does).
            for header in [&running.cookie, &basic] {
                let url = format!("http://127.0.0.1:{}/", running.front_port);
                let (name, value) = header.split_once(": ").unwrap();
                let answer = client().get(&url).header(name, value).send().await.unwrap();
                assert_eq!(
                    answer.status(),
                    200,
                    "{} through nginx with {name}: {:?}",
                    peer.name(),
                    answer.text().await
                );
            }
        }
    });
    let pids = [peers[0].guard.pid(), peers[1].guard.pid()];
    let idle = pids.map(|pid| status_kib(pid, "VmRSS"));

    // Under load: every 100 ms the larger VmRSS of each so far.
    let sampling = Arc::new(AtomicBool::new(true));
    let sampler = {
        let sampling = sampling.clone();
        std::thread::spawn(move || {
            let mut highest = [0u64; 2];
            while sampling.load(Ordering::Relaxed) {
                for (slot, pid) in highest.iter_mut().zip(pids) {
                    *slot = (*slot).max(status_kib(pid, "VmRSS"));
                }
                std::thread::sleep(Duration::from_millis(100));
            }
            highest
        })
    };
    // After each run both proxies finish what is still queued before the next starts: a Go
    // server goes on with a request whose client has gone (oauth2-proxy's bcrypt checks of the
    // Basic row kept both cores busy into the next row).
    let load = |url: &str, headers: &[&str]| {
        let figures = wrk(url, headers, seconds, connections);
        for pid in pids {
            settle(pid);
        }
        figures
    };
    let run = |port: u16, path: &str, headers: &[&str]| {
        load(&format!("http://127.0.0.1:{port}{path}"), headers)
    };
    // [row][peer] -> one figure per round.
    let mut rounds: [[Vec<Figures>; 2]; 3] = Default::default();
    for round in 1..=rounds_count {
        // Which of the two goes first changes every round.
        let order = if round % 2 == 1 { [0, 1] } else { [1, 0] };
        for index in order {
            let running = &peers[index];
            rounds[0][index].push(run(running.front_port, "/", &[&running.cookie]));
        }
        for index in order {
            rounds[1][index].push(run(peers[index].front_port, "/", &[&basic]));
        }
        for index in order {
            let running = &peers[index];
            let mut headers: Vec<&str> = running.check_headers.iter().map(String::as_str).collect();
            headers.push(&running.cookie);
            rounds[2][index].push(load(&running.check_url, &headers));
        }
        // Each round's own figures, to show what a median hides (a stall in one round).
        for (row, name) in [
            "signed-in via nginx",
            "Basic via nginx",
            "signed-in at check",
        ]
        .iter()
        .enumerate()
        {
            let [ap, o2] = [&rounds[row][0], &rounds[row][1]].map(|f| f[f.len() - 1]);
            println!(
                "round {round} {name:<20} authproxy {:>7.0} req/s p50 {:>8.2} p99 {:>8.2} ms {:>5} errors | \
                 oauth2-proxy {:>7.0} req/s p50 {:>8.2} p99 {:>8.2} ms {:>5} errors",
                ap.requests_per_second,
                ap.p50_ms,
                ap.p99_ms,
                ap.errors,
                o2.requests_per_second,
                o2.p50_ms,
                o2.p99_ms,
                o2.errors,
            );
        }
    }
    sampling.store(false, Ordering::Relaxed);
    let loaded = sampler.join().unwrap();
    let peak = pids.map(|pid| status_kib(pid, "VmHWM"));
    drop(peers);
    drop(nginx);

    let cold = setup.cold_starts(5);

    let [cookie_row, basic_row, check_row] = rounds.map(|row| row.map(|figures| median(&figures)));
    println!();
    println!(
        "authproxy beside oauth2-proxy {}: wrk -t2, {connections} connections, {seconds} s \
         each, median of {rounds_count} alternating rounds, 127.0.0.1; nginx auth_request in \
         front of both; one Redis; one OpenID provider",
        pinned_version(),
    );
    println!(
        "{:<46} {:>13} {:>13} {:>8}  {:<12}",
        "measured", "authproxy", "oauth2-proxy", "ratio", "ahead"
    );
    for (name, [ap, o2]) in [
        ("signed-in request through nginx", cookie_row),
        ("Basic request through nginx", basic_row),
        ("signed-in decision at the check", check_row),
    ] {
        print_figure(
            &format!("{name}, req/s"),
            ap.requests_per_second,
            o2.requests_per_second,
            "",
            true,
        );
        print_figure(&format!("{name}, p50"), ap.p50_ms, o2.p50_ms, " ms", false);
        print_figure(&format!("{name}, p99"), ap.p99_ms, o2.p99_ms, " ms", false);
        if ap.errors + o2.errors > 0 {
            println!(
                "{:<46} {:>13} {:>13}",
                format!("{name}, errors (non-2xx, timeouts)"),
                ap.errors,
                o2.errors
            );
        }
    }
    let mib = |kib: u64| kib as f64 / 1024.0;
    print_figure(
        "memory at idle (VmRSS)",
        mib(idle[0]),
        mib(idle[1]),
        " MiB",
        false,
    );
    print_figure(
        "memory under load (highest VmRSS)",
        mib(loaded[0]),
        mib(loaded[1]),
        " MiB",
        false,
    );
    print_figure(
        "memory peak (VmHWM)",
        mib(peak[0]),
        mib(peak[1]),
        " MiB",
        false,
    );
    print_figure(
        "cold start to health 200",
        cold[0].0,
        cold[1].0,
        " ms",
        false,
    );
    print_figure(
        "cold start to first Basic decision",
        cold[0].1,
        cold[1].1,
        " ms",
        false,
    );
    drop(provider);
    drop(redis);
}

impl Peer {
    fn name(self) -> &'static str {
        match self {
            Peer::Authproxy => "authproxy",
            Peer::Oauth2Proxy => "oauth2-proxy",
        }
    }
}

/// One figure of each with the ratio authproxy / oauth2-proxy; `higher_is_better` says which
/// way is ahead. NaN is a latency of a run in which no request was answered ("none").
fn print_figure(name: &str, authproxy: f64, oauth2_proxy: f64, unit: &str, higher_is_better: bool) {
    let ratio = authproxy / oauth2_proxy;
    let ahead = match (authproxy.is_nan(), oauth2_proxy.is_nan()) {
        (false, true) => "authproxy",
        (true, false) => "oauth2-proxy",
        (true, true) => "-",
        _ if (authproxy > oauth2_proxy) == higher_is_better => "authproxy",
        _ => "oauth2-proxy",
    };
    let value = |v: f64| {
        if v.is_nan() {
            "none".to_owned()
        } else if v >= 100.0 {
            format!("{v:.0}{unit}")
        } else {
            format!("{v:.2}{unit}")
        }
    };
    let ratio = if ratio.is_finite() && ratio > 0.0 {
        format!("{ratio:.2}x")
    } else {
        "-".to_owned()
    };
    println!(
        "{:<46} {:>13} {:>13} {:>8}  {}",
        name,
        value(authproxy),
        value(oauth2_proxy),
        ratio,
        ahead
    );
}

/// Waits (up to two minutes) until `pid` uses less than a tenth of a core: what it still had
/// queued when the load stopped is done.
fn settle(pid: u32) {
    let cpu_ticks = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
        // utime and stime: fields 14 and 15 of the line, 12 and 13 after the name.
        fields.get(11..13).map_or(0u64, |times| {
            times.iter().filter_map(|t| t.parse::<u64>().ok()).sum()
        })
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    let mut last = cpu_ticks();
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(200));
        let now = cpu_ticks();
        // 100 ticks a second: under 2 ticks in 200 ms is under a tenth of a core.
        if now - last < 2 {
            return;
        }
        last = now;
    }
}

struct Setup {
    dir: PathBuf,
    issuer: String,
    redis_url: String,
    hash: String,
    authproxy: PathBuf,
    oauth2_proxy: PathBuf,
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

    fn start_authproxy(&self, port: u16, internal_port: u16, front_port: u16) -> Running {
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

    fn start_oauth2_proxy(&self, port: u16, front_port: u16) -> Running {
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
    fn cold_starts(&self, count: usize) -> [(f64, f64); 2] {
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

fn client() -> reqwest::Client {
    test_support::install_crypto_provider();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A real sign-in, as a browser makes it: the proxy's sign-in start, the provider's
/// authorization endpoint (with `login_hint`, which the test provider signs in without a
/// form), its interactions, the proxy's callback; every redirect followed by hand with the
/// cookies set so far. Returns `Cookie: <session cookie>`.
async fn sign_in(peer: Peer, issuer: &str, running: &Running) -> String {
    let (start, cookie_name) = match peer {
        Peer::Authproxy => (
            format!(
                "http://127.0.0.1:{}/auth/start?rd=http://127.0.0.1:{}/",
                running.sign_in_port, running.front_port
            ),
            AUTHPROXY_COOKIE,
        ),
        Peer::Oauth2Proxy => (
            format!(
                "http://127.0.0.1:{}/oauth2/start?rd=/",
                running.sign_in_port
            ),
            OAUTH2_PROXY_COOKIE,
        ),
    };
    let client = client();
    let mut jar: BTreeMap<String, String> = BTreeMap::new();
    let mut url = reqwest::Url::parse(&start).unwrap();
    for _ in 0..20 {
        if url.as_str().starts_with(issuer) && url.path() == "/auth" {
            url.query_pairs_mut().append_pair("login_hint", USER);
        }
        let cookies: Vec<String> = jar.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let mut request = client.get(url.clone());
        if !cookies.is_empty() {
            request = request.header("cookie", cookies.join("; "));
        }
        let answer = request.send().await.unwrap();
        for value in answer.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                if value.is_empty() {
                    jar.remove(name.trim());
                } else {
                    jar.insert(name.trim().to_owned(), value.to_owned());
                }
            }
        }
        // Signed in: the session cookie is set and the browser is not sent to the provider.
        let leaves_provider = !answer.status().is_redirection()
            || !answer.headers()["location"]
                .to_str()
                .unwrap()
                .contains(issuer);
        if let Some(value) = jar.get(cookie_name).filter(|_| leaves_provider) {
            return format!("Cookie: {cookie_name}={value}");
        }
        assert!(
            answer.status().is_redirection(),
            "{} sign-in stopped at {url}: {} {:?}",
            peer.name(),
            answer.status(),
            answer.text().await
        );
        let location = answer.headers()["location"].to_str().unwrap().to_owned();
        url = url.join(&location).unwrap();
    }
    panic!("{} sign-in did not end within 20 redirects", peer.name());
}

fn status_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find_map(|line| line.strip_prefix(&format!("{field}:")))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn pinned_version() -> String {
    let versions = std::fs::read_to_string(repo_root().join("versions.env")).unwrap();
    versions
        .lines()
        .find_map(|line| line.strip_prefix("OAUTH2_PROXY_VERSION="))
        .expect("OAUTH2_PROXY_VERSION in versions.env")
        .trim()
        .to_owned()
}

/// Builds oauth2-proxy once (the script skips what is there) and gives its path.
fn oauth2_proxy_binary() -> PathBuf {
    let root = repo_root();
    let status = Command::new(root.join("scripts/install-bench-tools.sh"))
        .status()
        .expect("running scripts/install-bench-tools.sh");
    assert!(status.success(), "scripts/install-bench-tools.sh failed");
    let path = root.join(format!(".cache/bench/oauth2-proxy-{}", pinned_version()));
    assert!(Path::new(&path).exists(), "{} is missing", path.display());
    path
}

struct Nginx {
    guard: ChildGuard,
    _dir: TempDir,
}

impl Nginx {
    /// One nginx, two fronts: `front_ap` asks authproxy's check on `ap_check`, `front_o2`
    /// oauth2-proxy's `/oauth2/auth` on `o2_port`, each as its documentation writes the
    /// `auth_request` location; behind both the same application (nginx answering 200).
    /// Keep-alive to every upstream, alike for both.
    fn start(front_ap: u16, ap_check: u16, front_o2: u16, o2_port: u16) -> Self {
        let dir = TempDir::new("bench-peers-nginx");
        let prefix = dir.path().display().to_string();
        let app_port = free_port();
        let guarded = |check: &str| {
            format!(
                "location / {{\n\
                   auth_request {check};\n\
                   auth_request_set $auth_user $upstream_http_x_auth_request_user;\n\
                   auth_request_set $auth_email $upstream_http_x_auth_request_email;\n\
                   auth_request_set $auth_groups $upstream_http_x_auth_request_groups;\n\
                   proxy_set_header X-Auth-Request-User $auth_user;\n\
                   proxy_set_header X-Auth-Request-Email $auth_email;\n\
                   proxy_set_header X-Auth-Request-Groups $auth_groups;\n\
                   proxy_http_version 1.1;\n\
                   proxy_set_header Connection \"\";\n\
                   proxy_pass http://app;\n\
                 }}\n"
            )
        };
        let config = format!(
            "worker_processes auto;\n\
             pid {prefix}/nginx.pid;\n\
             error_log {prefix}/error.log warn;\n\
             events {{ worker_connections 4096; }}\n\
             http {{\n\
               access_log off;\n\
               client_body_temp_path {prefix}/body;\n\
               proxy_temp_path {prefix}/proxy;\n\
               fastcgi_temp_path {prefix}/fastcgi;\n\
               uwsgi_temp_path {prefix}/uwsgi;\n\
               scgi_temp_path {prefix}/scgi;\n\
               upstream app {{ server 127.0.0.1:{app_port}; keepalive 64; }}\n\
               upstream authproxy {{ server 127.0.0.1:{ap_check}; keepalive 64; }}\n\
               upstream oauth2_proxy {{ server 127.0.0.1:{o2_port}; keepalive 64; }}\n\
               server {{\n\
                 listen 127.0.0.1:{app_port};\n\
                 location / {{ return 200 \"ok\\n\"; }}\n\
               }}\n\
               server {{\n\
                 listen 127.0.0.1:{front_ap};\n\
                 location = /_authproxy {{\n\
                   internal;\n\
                   proxy_pass http://authproxy;\n\
                   proxy_http_version 1.1;\n\
                   proxy_set_header Connection \"\";\n\
                   proxy_pass_request_body off;\n\
                   proxy_set_header Content-Length \"\";\n\
                   proxy_set_header X-Original-URL $scheme://$http_host$request_uri;\n\
                   proxy_set_header X-Original-Method $request_method;\n\
                   proxy_set_header X-Forwarded-For $remote_addr;\n\
                 }}\n\
                 {ap}\
               }}\n\
               server {{\n\
                 listen 127.0.0.1:{front_o2};\n\
                 location = /oauth2/auth {{\n\
                   internal;\n\
                   proxy_pass http://oauth2_proxy;\n\
                   proxy_http_version 1.1;\n\
                   proxy_set_header Connection \"\";\n\
                   proxy_pass_request_body off;\n\
                   proxy_set_header Content-Length \"\";\n\
                   proxy_set_header Host $host;\n\
                   proxy_set_header X-Real-IP $remote_addr;\n\
                   proxy_set_header X-Forwarded-Uri $request_uri;\n\
                 }}\n\
                 {o2}\
               }}\n\
             }}\n",
            ap = guarded("/_authproxy"),
            o2 = guarded("/oauth2/auth"),
        );
        let path = dir.path().join("nginx.conf");
        std::fs::write(&path, config).unwrap();
        let mut guard = ChildGuard::spawn(
            "nginx",
            Command::new("nginx")
                .args(["-p", &prefix, "-c", &path.display().to_string()])
                .args(["-g", "daemon off;"])
                .stdout(Stdio::null())
                .stderr(Stdio::null()),
        );
        wait_until("nginx", Duration::from_secs(10), || {
            guard.assert_running();
            [front_ap, front_o2, app_port]
                .iter()
                .all(|port| std::net::TcpStream::connect(("127.0.0.1", *port)).is_ok())
        });
        Self { guard, _dir: dir }
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // Its workers go with the master only on SIGTERM.
        let _ = self.guard.terminate(Duration::from_secs(5));
    }
}

/// The median of each figure on its own.
fn median(figures: &[Figures]) -> Figures {
    let middle = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Figures {
        requests_per_second: middle(figures.iter().map(|f| f.requests_per_second).collect()),
        p50_ms: middle(figures.iter().map(|f| f.p50_ms).collect()),
        p99_ms: middle(figures.iter().map(|f| f.p99_ms).collect()),
        errors: figures.iter().map(|f| f.errors).sum(),
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn wrk(url: &str, headers: &[&str], seconds: u64, connections: u64) -> Figures {
    let report = test_support::wrk::run(url, headers, seconds, connections);
    Figures {
        requests_per_second: report.requests_per_second,
        p50_ms: report.p50_ms,
        p99_ms: report.p99_ms,
        errors: report.non_2xx + report.socket_errors,
    }
}
