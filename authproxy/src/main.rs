fn main() -> std::process::ExitCode {
    service_kit::app::main::<authproxy::Authproxy>()
}
