// crdlint allocates many small, short-lived values (spanned trees, paths, schema
// types); mimalloc does this with a fraction of glibc malloc's instructions and scales
// across rayon workers.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(crdlint::cli::main())
}
