use std::process::ExitCode;

use authproxy::{Application, Settings};

fn main() -> ExitCode {
    service_kit::cli::run(
        "authproxy",
        authproxy::VERSION,
        "AUTHPROXY",
        |settings: Settings| async move {
            let app = Application::build(settings).await?;
            tracing::info!(port = app.port(), "authproxy listening");
            app.run_until_stopped().await?;
            Ok(())
        },
    )
}
