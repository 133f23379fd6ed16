//! Load benchmark, one run, figures side by side with their baselines (wrk on loopback):
//!
//! 1. forward-auth decisions per second with Basic credentials on a cache hit, against a bare
//!    actix handler on the same machine (goal: ≥ 0.7×, p99 < 5 ms at 64 connections);
//! 2. standalone proxy throughput against nginx `proxy_pass` to the same upstream (goal: ≥ 0.8×).
//!
//! A third row, without a goal, measures the floor of the stack: a minimal relay built from the
//! same parts as standalone mode (an actix-web handler sending through service-kit's hyper
//! client) that checks nothing and copies no header. It shows how much of standalone's distance
//! to nginx is authproxy's own work and how much is actix-web and hyper themselves.
//!
//! `cargo bench -p authproxy --bench load` (release build). Needs `wrk` and `nginx` (Debian).
//! `BENCH_SECONDS` (default 10), `BENCH_CONNECTIONS` (default 64) and `BENCH_ROUNDS` (default 3)
//! tune the runs; `BENCH_HOLD=forward_auth` (or `standalone`, `bare`, `nginx`, `minimal_relay`) keeps only that
//! server under load for that many seconds instead, for profiling (`perf record -p <pid>`) and
//! CPU per request.

use std::net::TcpListener;
use std::process::Command;
use std::time::Duration;

use actix_web::{App, HttpResponse, HttpServer, web};
use authproxy::{Application, Settings};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use service_kit::client_tls::{ClientTls, ClientTlsSettings};
use service_kit::config::ConfigLoader;
use service_kit::relay_client::{RelayClient, collect_body, empty_body};
use test_support::free_port;
use test_support::nginx::{self, Workers};

const PASSWORD: &str = "bench-password";
/// What the upstream answers: the size of a typical `_cluster/health` body.
const UPSTREAM_BODY: &str = r#"{"cluster_name":"bench","status":"green","timed_out":false,"number_of_nodes":3,"number_of_data_nodes":3,"active_primary_shards":10,"active_shards":20,"relocating_shards":0,"initializing_shards":0,"unassigned_shards":0,"delayed_unassigned_shards":0,"number_of_pending_tasks":0,"number_of_in_flight_fetch":0,"task_max_waiting_in_queue_millis":0,"active_shards_percent_as_number":100.0}"#;

struct Figures {
    requests_per_second: f64,
    p99_ms: f64,
}

fn main() {
    let seconds: u64 = env_or("BENCH_SECONDS", 10);
    let connections: u64 = env_or("BENCH_CONNECTIONS", 64);
    let rounds_count: u64 = env_or("BENCH_ROUNDS", 3).max(1);
    for tool in ["wrk", "nginx"] {
        if Command::new("which")
            .arg(tool)
            .output()
            .map_or(true, |o| !o.status.success())
        {
            eprintln!("{tool} is not installed: apt-get install -y wrk nginx-light");
            std::process::exit(2);
        }
    }
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let _guard = runtime.enter();
    let bare_port = start_bare_handler();
    let upstream_port = start_upstream();
    let forward_auth_port = runtime.block_on(start_authproxy("forward_auth", upstream_port));
    let standalone_port = runtime.block_on(start_authproxy("standalone", upstream_port));
    let nginx = Nginx::start(upstream_port);
    let minimal_relay_port = start_minimal_relay(upstream_port);

    let authorization = format!("Basic {}", STANDARD.encode(format!("bench:{PASSWORD}")));
    let header = format!("Authorization: {authorization}");
    // Warm-up: the first request runs bcrypt and the upsert; the rest are cache hits.
    for port in [forward_auth_port, standalone_port] {
        let (status, _) = get_status(port, "/_cluster/health", &authorization);
        assert_eq!(status, 200, "authproxy on {port} answered {status}");
    }

    if let Ok(target) = std::env::var("BENCH_HOLD") {
        let port = match target.as_str() {
            "standalone" => standalone_port,
            "bare" => bare_port,
            "nginx" => nginx.port,
            "minimal_relay" => minimal_relay_port,
            _ => forward_auth_port,
        };
        let held = wrk(
            port,
            "/_cluster/health",
            Some(&header),
            seconds,
            connections,
        );
        println!(
            "{target}: {:.0} req/s, p99 {:.2} ms",
            held.requests_per_second, held.p99_ms
        );
        return;
    }
    // Rounds alternate the four servers, so a slow stretch of the shared machine hits every
    // figure alike; each figure is the median over the rounds.
    let run =
        |port: u16, path: &str, header: Option<&str>| wrk(port, path, header, seconds, connections);
    let mut rounds: [Vec<Figures>; 5] = Default::default();
    for _ in 0..rounds_count {
        rounds[0].push(run(bare_port, "/auth", None));
        rounds[1].push(run(forward_auth_port, "/_cluster/health", Some(&header)));
        rounds[2].push(run(nginx.port, "/_cluster/health", None));
        rounds[3].push(run(standalone_port, "/_cluster/health", Some(&header)));
        rounds[4].push(run(minimal_relay_port, "/_cluster/health", None));
    }
    let [
        bare,
        decisions,
        through_nginx,
        through_proxy,
        through_minimal,
    ] = rounds.map(|figures| median(&figures));

    println!();
    println!(
        "authproxy load benchmark: wrk, {connections} connections, {seconds} s each, median of {rounds_count} alternating rounds, 127.0.0.1"
    );
    println!(
        "{:<44} {:>12} {:>10} | {:<26} {:>12} {:>10} | {:>6} {:>6}",
        "measured", "req/s", "p99 ms", "baseline", "req/s", "p99 ms", "ratio", "goal"
    );
    print_row(
        "forward_auth, Basic, cache hit",
        &decisions,
        "bare actix handler",
        &bare,
        Some(0.7),
    );
    print_row(
        "standalone proxy, Basic, cache hit",
        &through_proxy,
        "nginx proxy_pass",
        &through_nginx,
        Some(0.8),
    );
    print_row(
        "minimal actix-web + hyper relay",
        &through_minimal,
        "nginx proxy_pass",
        &through_nginx,
        None,
    );
    println!(
        "standalone / minimal relay: {:.2}x (what authproxy's own work leaves of the stack's floor)",
        through_proxy.requests_per_second / through_minimal.requests_per_second
    );
    println!(
        "forward_auth p99 goal: < 5 ms at 64 connections -> {:.2} ms ({})",
        decisions.p99_ms,
        if decisions.p99_ms < 5.0 {
            "met"
        } else {
            "missed"
        }
    );
    drop(nginx);
}

fn print_row(
    name: &str,
    measured: &Figures,
    baseline_name: &str,
    baseline: &Figures,
    goal: Option<f64>,
) {
    let ratio = measured.requests_per_second / baseline.requests_per_second;
    let verdict = match goal {
        Some(goal) if ratio >= goal => format!("{goal:>5.1}x met"),
        Some(goal) => format!("{goal:>5.1}x missed"),
        None => "     -".to_owned(),
    };
    println!(
        "{:<44} {:>12.0} {:>10.2} | {:<26} {:>12.0} {:>10.2} | {:>5.2}x {}",
        name,
        measured.requests_per_second,
        measured.p99_ms,
        baseline_name,
        baseline.requests_per_second,
        baseline.p99_ms,
        ratio,
        verdict
    );
}

/// The median request rate and the median p99 (each on its own).
fn median(figures: &[Figures]) -> Figures {
    let middle = |mut values: Vec<f64>| {
        values.sort_by(f64::total_cmp);
        values[values.len() / 2]
    };
    Figures {
        requests_per_second: middle(figures.iter().map(|f| f.requests_per_second).collect()),
        p99_ms: middle(figures.iter().map(|f| f.p99_ms).collect()),
    }
}

fn env_or(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Starts an actix server with the app `factory` builds on a free loopback port, on the bench's
/// runtime, and gives the port. (A macro: `HttpServer::new`'s bounds are long to spell out.)
macro_rules! serve {
    ($factory:expr) => {{
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = HttpServer::new($factory)
            .disable_signals()
            .listen(listener)
            .unwrap()
            .run();
        tokio::spawn(server);
        port
    }};
}

/// The baseline decision: a bare actix handler answering 200 with a few headers.
fn start_bare_handler() -> u16 {
    serve!(|| {
        App::new().default_service(web::to(|| async {
            HttpResponse::Ok()
                .insert_header(("cache-control", "no-store"))
                .insert_header(("x-auth-request-user", "bench"))
                .insert_header(("authorization", "Basic YmVuY2g6YmVuY2g="))
                .finish()
        }))
    })
}

/// The search cluster stand-in: Elasticsearch's user API (`GET` 404 `{}`, `PUT` `{"created":
/// true}`) and a fixed `_cluster/health` body for every other path.
fn start_upstream() -> u16 {
    serve!(|| {
        App::new()
            .route(
                "/_security/user/{name}",
                web::get().to(|| async { HttpResponse::NotFound().json(serde_json::json!({})) }),
            )
            .route(
                "/_security/user/{name}",
                web::put()
                    .to(|| async { HttpResponse::Ok().json(serde_json::json!({"created": true})) }),
            )
            .default_service(web::to(|| async {
                HttpResponse::Ok()
                    .content_type("application/json")
                    .body(UPSTREAM_BODY)
            }))
    })
}

/// The stack's floor for standalone mode: an actix-web handler that sends every request through
/// service-kit's hyper client with a fixed credential and answers with the upstream's status,
/// content type and body, read whole as standalone mode reads a small body. No authentication,
/// no header copying, no metrics.
fn start_minimal_relay(upstream_port: u16) -> u16 {
    let tls = ClientTls::load(&ClientTlsSettings::default()).unwrap();
    let relay = RelayClient::new(
        &format!("http://127.0.0.1:{upstream_port}"),
        &tls,
        Duration::from_secs(5),
    );
    serve!(move || {
        let relay = relay.clone();
        App::new().default_service(web::to(move |request: actix_web::HttpRequest| {
            let relay = relay.clone();
            async move {
                let uri = relay
                    .uri(request.uri().path(), request.uri().query())
                    .unwrap();
                let outbound = http::Request::get(uri)
                    .header("authorization", "Basic YmVuY2g6YmVuY2g=")
                    .body(empty_body())
                    .unwrap();
                let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
                let answer = relay.send(outbound, deadline).await.unwrap();
                let status = answer.status().as_u16();
                let content_type = answer.headers().get("content-type").cloned();
                let body = collect_body(answer.into_body(), None).await.unwrap();
                let mut response =
                    HttpResponse::build(actix_web::http::StatusCode::from_u16(status).unwrap());
                if let Some(value) = content_type {
                    response.insert_header(("content-type", value.as_bytes()));
                }
                response.body(body)
            }
        }))
    })
}

async fn start_authproxy(mode: &str, upstream_port: u16) -> u16 {
    // Cost 10: what `htpasswd -B` writes by default; only the first request pays it.
    let hash = bcrypt::hash(PASSWORD, 10).unwrap();
    let yaml = format!(
        "server: {{host: 127.0.0.1, port: 0, internal_port: 0, mode: {mode}, trusted_proxies: [127.0.0.1]}}\n\
         observability: {{metrics_enabled: true}}\n\
         search: {{url: \"http://127.0.0.1:{upstream_port}\", admin_user: admin, admin_password: x}}\n\
         basic_auth:\n  users: [{{username: bench, password_hash: \"{hash}\", groups: [ops]}}]\n"
    );
    let settings: Settings = ConfigLoader::new("BENCH_UNUSED")
        .with_env(Default::default())
        .load_str(&yaml)
        .unwrap_or_else(|problems| panic!("{problems}"));
    let app = Application::build(settings).await.unwrap();
    // forward_auth's check is on the internal listener only (the public port answers 404).
    let port = if mode == "forward_auth" {
        app.internal_port().expect("the internal listener is bound")
    } else {
        app.port()
    };
    tokio::spawn(app.run_until_stopped());
    port
}

struct Nginx {
    port: u16,
    _nginx: nginx::Nginx,
}

impl Nginx {
    fn start(upstream_port: u16) -> Self {
        let port = free_port();
        let servers = format!(
            "upstream search {{ server 127.0.0.1:{upstream_port}; keepalive 64; }}\n\
             server {{\n\
               listen 127.0.0.1:{port};\n\
               location / {{\n\
                 proxy_pass http://search;\n\
                 proxy_http_version 1.1;\n\
                 proxy_set_header Connection \"\";\n\
                 proxy_set_header Authorization \"Basic YmVuY2g6YmVuY2g=\";\n\
               }}\n\
             }}\n"
        );
        let nginx = nginx::Nginx::start_with("bench-nginx", Workers::PerCore, &servers, &[port]);
        Self {
            port,
            _nginx: nginx,
        }
    }
}

fn get_status(port: u16, path: &str, authorization: &str) -> (u16, String) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: {authorization}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, response)
}

fn wrk(port: u16, path: &str, header: Option<&str>, seconds: u64, connections: u64) -> Figures {
    let url = format!("http://127.0.0.1:{port}{path}");
    let report = test_support::wrk::run(&url, header.as_slice(), seconds, connections);
    assert_eq!(report.non_2xx, 0, "wrk saw non-2xx answers on port {port}");
    Figures {
        requests_per_second: report.requests_per_second,
        p99_ms: report.p99_ms,
    }
}
