use std::process::ExitCode;

use ingress_dash::{Application, Settings};

fn main() -> ExitCode {
    service_kit::cli::run(
        "ingress-dash",
        ingress_dash::VERSION,
        "INGRESS_DASH",
        |settings: Settings| async move {
            let app = Application::build(settings).await?;
            tracing::info!(port = app.port(), "ingress-dash listening");
            app.run_until_stopped().await?;
            Ok(())
        },
    )
}
