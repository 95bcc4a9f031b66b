fn main() -> std::process::ExitCode {
    std::process::ExitCode::from(crdlint::cli::main())
}
