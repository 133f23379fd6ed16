//! `kube-test-server`: the in-memory Kubernetes API server with sample data, for `make run` and
//! manual testing of ingress-dash. Prints its URL (and writes a kubeconfig when asked).

use std::io::Write;
use std::time::Duration;

use clap::Parser;
use kube_test_server::{KubeTestServer, Options, sample};

#[derive(Parser)]
#[command(name = "kube-test-server", version, about)]
struct Args {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 6443)]
    port: u16,
    /// Number of sample ingresses.
    #[arg(long, default_value_t = 200)]
    sample: usize,
    /// Number of namespaces the sample ingresses are spread over.
    #[arg(long, default_value_t = 10)]
    namespaces: usize,
    /// Modify one sample ingress this often (e.g. 2s) so the stream has something to show.
    #[arg(long, value_parser = humantime_duration)]
    churn: Option<Duration>,
    /// Sample ingresses and namespaces only: no Services, EndpointSlices, Secrets, Events,
    /// HTTPRoutes or Certificates.
    #[arg(long)]
    only_ingresses: bool,
    /// Write a kubeconfig for this server to this file.
    #[arg(long)]
    kubeconfig_out: Option<std::path::PathBuf>,
    /// Print the sample objects as JSON, one a line (namespaces first, without the fields an
    /// API server sets itself), and exit without serving: for writing the same sample into a
    /// real API server (ingress-dash's browser tests).
    #[arg(long)]
    print_objects: bool,
}

fn humantime_duration(text: &str) -> Result<Duration, String> {
    let (number, unit) = text.split_at(
        text.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(text.len()),
    );
    let number: u64 = number
        .parse()
        .map_err(|_| format!("not a duration: {text}"))?;
    match unit {
        "ms" => Ok(Duration::from_millis(number)),
        "s" | "" => Ok(Duration::from_secs(number)),
        "m" => Ok(Duration::from_secs(number * 60)),
        _ => Err(format!("unknown unit in {text} (use ms, s or m)")),
    }
}

fn populate(cluster: &kube_test_server::Cluster, args: &Args) -> anyhow::Result<()> {
    if args.only_ingresses {
        sample::populate(cluster, args.sample, args.namespaces);
    } else {
        sample::populate_everything(cluster, args.sample, args.namespaces)?;
    }
    Ok(())
}

/// `--print-objects`: the sample of a cluster that is never served.
fn print_objects(args: &Args, options: Options) -> anyhow::Result<()> {
    let cluster = kube_test_server::Cluster::new(options);
    populate(&cluster, args)?;
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    for object in sample::api_objects(&cluster) {
        writeln!(stdout, "{object}")?;
    }
    stdout.flush()?;
    Ok(())
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    // As PID 1 in a container a process has no default action for SIGTERM.
    service_kit::server::exit_on_signal().map_err(|error| {
        anyhow::anyhow!("could not install the SIGTERM/SIGINT handlers: {error}")
    })?;
    let options = Options::default();
    if args.print_objects {
        return print_objects(&args, options);
    }
    let server = KubeTestServer::start_on(options, &args.host, args.port)?;
    populate(&server.cluster, &args)?;
    if let Some(path) = &args.kubeconfig_out {
        std::fs::write(path, server.kubeconfig())?;
    }
    // Whoever reads these lines may close the pipe after the first: the server keeps serving.
    let mut stdout = std::io::stdout();
    let _ = writeln!(stdout, "kube-test-server listening on {}", server.url());
    let _ = writeln!(
        stdout,
        "{} ingresses in {} namespaces",
        args.sample,
        args.namespaces.max(1)
    );
    let _ = stdout.flush();
    let mut tick = 0usize;
    loop {
        match args.churn {
            Some(period) if args.sample > 0 => {
                std::thread::sleep(period);
                let index = tick % args.sample;
                let namespace = sample::namespace_name(index % args.namespaces.max(1));
                let mut ingress = sample::ingress(&namespace, &format!("app-{index:05}"), index);
                ingress["metadata"]["labels"]["churn"] = serde_json::json!(tick.to_string());
                server.cluster.put_ingress(ingress);
                tick += 1;
            }
            _ => std::thread::park(),
        }
    }
}
