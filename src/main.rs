// crdlint allocates many small, short-lived values (spanned trees, paths, schema
// types); mimalloc does this with a fraction of glibc malloc's instructions and scales
// across rayon workers.
#[global_allocator]
static ALLOCATOR: crdlint::alloc::Allocator = crdlint::alloc::Allocator;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(crdlint::cli::main())
}
