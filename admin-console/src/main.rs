fn main() -> std::process::ExitCode {
    service_kit::app::main::<admin_console::AdminConsole>()
}
