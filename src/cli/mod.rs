//! The command line: clap definitions, one file per subcommand. Each subcommand turns
//! its arguments into library options, runs, prints, and returns the exit code.

pub mod check;
pub mod completions;
pub mod cost;
pub mod dryrun;
pub mod explain;
pub mod rules;

use clap::{Parser, Subcommand, ValueEnum};

/// Exit codes, as documented in the README.
pub mod exit {
    /// Nothing at or above the failure threshold.
    pub const CLEAN: u8 = 0;
    /// Findings at error severity (or warnings with --warnings-as-errors).
    pub const FINDINGS: u8 = 1;
    /// Usage or I/O error.
    pub const TROUBLE: u8 = 2;
}

#[derive(Parser, Debug)]
#[command(
    name = "crdlint",
    version,
    about = "Validate Kubernetes CustomResourceDefinitions and custom resources offline, with the API server's verdicts",
    long_about = None,
    after_help = "Examples:\n  crdlint check config/crd/          check every CRD and resource under a directory\n  crdlint check --crds crds/ examples/  check resources against CRDs kept elsewhere\n  kustomize build . | crdlint check -   check a rendered stream from stdin",
    propagate_version = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Check CRDs and custom resources for everything the API server would reject.
    Check(check::CheckArgs),
    /// Print custom resources as the API server would store them: pruned, defaulted,
    /// in the storage version.
    DryRun(dryrun::DryRunArgs),
    /// Show the API server's estimated CEL cost of every rule, and bounds that fix breaches.
    Cost(cost::CostArgs),
    /// List the diagnostic codes, or print the documentation of one.
    Rules(rules::RulesArgs),
    /// Describe the fields of a custom resource from local CRDs, like `kubectl explain`.
    Explain(explain::ExplainArgs),
    /// Print a shell completion script (bash, zsh, fish, powershell, elvish).
    Completions(completions::CompletionsArgs),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    Auto,
    Always,
    Never,
}

impl ColorChoice {
    pub fn enabled(self) -> bool {
        use std::io::IsTerminal;
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stdout().is_terminal()
            }
        }
    }
}

/// Whether writing a command's output (stdout) failed in a way the user must hear of.
/// A closed pipe (`crdlint check | head`) is the reader's choice, not a failure. Any
/// other error (a full disk behind `> report.sarif`, an I/O error) lost output that was
/// asked for: it is said on stderr, and the command exits with [`exit::TROUBLE`] rather
/// than let a CI step pass with a truncated report.
pub fn output_failed(written: std::io::Result<()>) -> bool {
    match written {
        Ok(()) => false,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => false,
        Err(e) => {
            crate::report::to_stderr(&format!(
                "error: cannot write the output: {}",
                crate::source::walk::describe_io_error(&e)
            ));
            true
        }
    }
}

/// Prints a command's whole output: [`exit::CLEAN`], or [`exit::TROUBLE`] when it could
/// not be written (see [`output_failed`]).
pub fn print_all(bytes: &[u8]) -> u8 {
    use std::io::Write as _;
    let mut stdout = std::io::stdout().lock();
    if output_failed(stdout.write_all(bytes).and_then(|()| stdout.flush())) {
        exit::TROUBLE
    } else {
        exit::CLEAN
    }
}

/// Parses arguments, runs the subcommand, returns the exit code.
pub fn main() -> u8 {
    let cli = Cli::parse();
    match cli.command {
        Command::Check(args) => check::run(&args),
        Command::DryRun(args) => dryrun::run(&args),
        Command::Cost(args) => cost::run(&args),
        Command::Rules(args) => rules::run(&args),
        Command::Explain(args) => explain::run(&args),
        Command::Completions(args) => completions::run(&args),
    }
}
