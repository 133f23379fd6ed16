/// mimalloc instead of glibc's malloc: freed pages go back to the system shortly after a large
/// (re)list, where glibc kept the peak of the first list resident (docs/dependencies.md).
#[cfg(feature = "mimalloc")]
#[global_allocator]
static ALLOCATOR: ingress_dash::alloc::Allocator = ingress_dash::alloc::Allocator;

fn main() -> std::process::ExitCode {
    service_kit::app::main::<ingress_dash::IngressDash>()
}
