//! The command line every binary has: `--version`, `--config <path>`, `--validate-config`.

use std::future::Future;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::config::ConfigLoader;
use crate::logging;
use crate::settings::ServiceSettings;

#[derive(Debug, Parser)]
#[command(disable_version_flag = true)]
pub struct Cli {
    /// Path of the YAML configuration file. Without it every key takes its default.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,

    /// Check the configuration given by --config, print every problem at once, and exit
    /// (0 when valid).
    #[arg(long, requires = "config")]
    pub validate_config: bool,

    /// Print `<binary> version <semver>` and exit.
    #[arg(long)]
    pub version: bool,

    /// GET this plain-http URL (e.g. http://127.0.0.1:8080/api/live) and exit 0 when it answers
    /// 2xx within 3 s: the container HEALTHCHECK, for images that have no curl.
    #[arg(long, value_name = "URL", conflicts_with_all = ["config", "validate_config"])]
    pub healthcheck: Option<String>,
}

/// Exit status for an invalid configuration (clap uses 2 for usage errors).
const EXIT_INVALID_CONFIG: u8 = 1;

/// The command line of a service: parse it, load and validate the configuration, then either
/// report or start logging and run `serve` on an actix system until it returns
/// (the application shell passes one that builds and runs the service).
/// `env_prefix` prefixes the environment overrides (e.g. `INGRESS_DASH`).
pub fn run<S, F, Fut>(binary: &str, version: &str, env_prefix: &str, serve: F) -> ExitCode
where
    S: ServiceSettings,
    F: FnOnce(S) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    let cli = Cli::parse();
    if cli.version {
        println!("{binary} version {version}");
        return ExitCode::SUCCESS;
    }
    if let Some(url) = &cli.healthcheck {
        return match crate::probe::get_ok(url, std::time::Duration::from_secs(3)) {
            Ok(()) => ExitCode::SUCCESS,
            Err(reason) => {
                eprintln!("{binary}: healthcheck {url} failed: {reason}");
                ExitCode::FAILURE
            }
        };
    }
    let loader = ConfigLoader::new(env_prefix);
    let source = cli
        .config
        .as_ref()
        .map_or_else(|| "defaults".to_owned(), |path| path.display().to_string());
    let loaded = match &cli.config {
        Some(path) => loader.load_file::<S>(path),
        None => loader.load_str::<S>(""),
    };
    let settings = match loaded {
        Ok(settings) => settings,
        Err(problems) => {
            for problem in problems.iter() {
                eprintln!("{source}: {problem}");
            }
            let count = problems.len();
            let noun = if count == 1 { "problem" } else { "problems" };
            eprintln!("{binary}: the configuration is not valid ({count} {noun})");
            return ExitCode::from(EXIT_INVALID_CONFIG);
        }
    };
    let mut warnings = crate::config::ConfigProblems::new();
    settings.warnings(&mut warnings);
    if cli.validate_config {
        for warning in warnings.iter() {
            eprintln!("{source}: warning: {warning}");
        }
        println!("{source}: the configuration is valid");
        return ExitCode::SUCCESS;
    }
    crate::install_crypto_provider();
    #[cfg(feature = "otel")]
    let tracing_pipeline = match start_tracing(&settings) {
        Ok(pipeline) => pipeline,
        Err(error) => {
            eprintln!("{binary}: cannot start tracing: {error:#}");
            return ExitCode::FAILURE;
        }
    };
    #[cfg(not(feature = "otel"))]
    {
        let observability = settings.observability();
        logging::init(observability.log_level(), observability.log_format());
    }
    for warning in warnings.iter() {
        tracing::warn!(key = %warning.key, "configuration: {}", warning.message);
    }
    let outcome = actix_web::rt::System::new().block_on(serve(settings));
    #[cfg(feature = "otel")]
    if let Some(pipeline) = tracing_pipeline {
        pipeline.shutdown();
    }
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            tracing::error!(
                error = format!("{error:#}"),
                "{binary} stopped with an error"
            );
            eprintln!("{binary}: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Installs logging, with the OpenTelemetry layer when the settings ask for traces.
#[cfg(feature = "otel")]
fn start_tracing<S: ServiceSettings>(
    settings: &S,
) -> anyhow::Result<Option<crate::telemetry::Tracing>> {
    let observability = settings.observability();
    let Some(tracing_settings) = settings.tracing() else {
        logging::init(observability.log_level(), observability.log_format());
        return Ok(None);
    };
    let pipeline = crate::telemetry::Tracing::install(&tracing_settings)?;
    logging::init_with_layer(
        observability.log_level(),
        observability.log_format(),
        Some(pipeline.layer()),
    );
    Ok(Some(pipeline))
}
