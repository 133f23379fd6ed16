fn main() -> std::process::ExitCode {
    service_kit::app::main::<ingress_dash::IngressDash>()
}
