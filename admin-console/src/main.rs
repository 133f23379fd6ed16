use std::process::ExitCode;

use admin_console::{Application, Settings};

fn main() -> ExitCode {
    service_kit::cli::run(
        "admin-console",
        admin_console::VERSION,
        "ADMIN_CONSOLE",
        |settings: Settings| async move {
            let app = Application::build(settings).await?;
            tracing::info!(port = app.port(), "admin-console listening");
            app.run_until_stopped().await?;
            Ok(())
        },
    )
}
