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

mod figures;
mod front;
mod proxies;
mod sign_in;
mod usage;

use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use test_support::{OidcProvider, RedisServer, TempDir, free_port};

use figures::{Figures, median, print_figure, wrk};
use front::Nginx;
use proxies::{Peer, Setup, oauth2_proxy_binary, pinned_version};
use sign_in::{client, sign_in};
use usage::{settle, status_kib};

const USER: &str = "bench";
const PASSWORD: &str = "bench-password";
const CLIENT_SECRET: &str = "bench-client-secret";
const AUTHPROXY_COOKIE: &str = "_authproxy_session";
const OAUTH2_PROXY_COOKIE: &str = "_oauth2_proxy";

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

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
