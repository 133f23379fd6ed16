//! `search-test-server`: the front for osmem-server, for the browser tests.
//! Prints one JSON line `{"url": ..., "pid": ...}` once listening; exits when its standard
//! input closes (unless `--no-stdin-watch`) or on SIGTERM/SIGINT.

use std::io::Read;

use clap::Parser;
use search_test_server::{Flavor, Options, SearchTestServer};

#[derive(Parser)]
#[command(name = "search-test-server", version, about)]
struct Args {
    /// The osmem-server to put the front before (`http://127.0.0.1:9201`).
    #[arg(long)]
    osmem_url: String,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 0)]
    port: u16,
    /// Simulated data nodes (1: osmem's own node).
    #[arg(long, default_value_t = 1)]
    nodes: usize,
    /// The product played where the APIs differ: opensearch2 or elasticsearch8.
    #[arg(long, default_value = "opensearch2")]
    flavor: Flavor,
    /// How long a shard move stays relocating before it starts on the target, in milliseconds.
    #[arg(long, default_value_t = 1000)]
    relocation_ms: u64,
    /// Sample state: a long-running cancellable reindex task, two non-cancellable tasks, and
    /// an fs snapshot repository `backups`.
    #[arg(long)]
    seed: bool,
    /// Do not exit when standard input closes (for shells that start it with stdin at EOF);
    /// it then runs until SIGTERM/SIGINT.
    #[arg(long)]
    no_stdin_watch: bool,
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // As PID 1 in a container a process has no default action for SIGTERM.
    service_kit::server::exit_on_signal().map_err(|error| {
        anyhow::anyhow!("could not install the SIGTERM/SIGINT handlers: {error}")
    })?;
    let server = SearchTestServer::start_on(
        Options {
            osmem_url: args.osmem_url,
            nodes: args.nodes,
            flavor: args.flavor,
            relocation: std::time::Duration::from_millis(args.relocation_ms),
            record_requests: false,
            ..Options::default()
        },
        &args.host,
        args.port,
    )?;
    if args.seed {
        server.seed()?;
    }
    println!(
        "{}",
        serde_json::json!({"url": server.url, "pid": std::process::id()})
    );
    if args.no_stdin_watch {
        loop {
            std::thread::park();
        }
    }
    // Until standard input closes (the parent is gone).
    let mut sink = [0u8; 1024];
    let mut stdin = std::io::stdin();
    while matches!(stdin.read(&mut sink), Ok(n) if n > 0) {}
    Ok(())
}
