//! `crdlint check`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{ColorChoice, exit};
use crate::check::{CheckOptions, MissingCrdPolicy};
use crate::diag::Severity;
use crate::report::{self, Format};
use crate::source::walk::WalkOptions;
use crate::source::yaml::Limits;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  crdlint check                        check the current directory\n  crdlint check crds/ samples/ -o short\n  crdlint check --crds vendor/crds/ my-resources.yaml\n  crdlint check -o json . > report.json\n\nExit status: 0 clean, 1 findings (errors, or warnings with --warnings-as-errors), 2 usage or I/O error."
)]
pub struct CheckArgs {
    /// Files or directories to check (`-` reads stdin). Directories are walked for
    /// .yaml, .yml and .json files, honouring .gitignore.
    #[arg(value_name = "PATH", default_value = ".")]
    pub paths: Vec<PathBuf>,

    /// Load CRDs from PATH to resolve custom resources, without reporting on them.
    #[arg(long = "crds", value_name = "PATH")]
    pub crds: Vec<PathBuf>,

    /// Leave out paths matching GLOB (gitignore syntax; repeatable).
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Do not honour .gitignore and .ignore files.
    #[arg(long)]
    pub no_ignore: bool,

    /// Output format.
    #[arg(short, long, value_enum, default_value_t = OutputFormat::Human)]
    pub output: OutputFormat,

    /// When to use colour.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Severity of documents whose kind no CRD in the run defines.
    #[arg(long, value_enum, default_value_t = MissingCrd::Warn)]
    pub missing_crd: MissingCrd,

    /// Exit with status 1 on warnings too.
    #[arg(long)]
    pub warnings_as_errors: bool,

    /// Refuse files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 32 * 1024 * 1024)]
    pub max_file_size: u64,

    /// Refuse documents nested deeper than this (at most 1000: the checks after
    /// loading stop there, and deeper trees would overflow the stack).
    #[arg(
        long,
        value_name = "N",
        default_value_t = Limits::default().max_depth,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000)
    )]
    pub max_depth: usize,

    /// Refuse documents whose aliases expand to more nodes than this.
    #[arg(long, value_name = "N", default_value_t = Limits::default().max_alias_nodes)]
    pub max_alias_nodes: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Graphical report with source snippets.
    Human,
    /// One line per finding: path:line:col: severity[code]: message.
    Short,
    /// One JSON object (see docs/usage.md for the contract).
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MissingCrd {
    Error,
    Warn,
    Ignore,
}

pub fn run(args: &CheckArgs) -> u8 {
    let options = CheckOptions {
        paths: args.paths.clone(),
        crd_paths: args.crds.clone(),
        walk: WalkOptions {
            exclude: args.exclude.clone(),
            no_ignore: args.no_ignore,
        },
        max_file_size: args.max_file_size,
        limits: Limits {
            max_depth: args.max_depth,
            max_alias_nodes: args.max_alias_nodes,
        },
        missing_crd: match args.missing_crd {
            MissingCrd::Error => MissingCrdPolicy::Error,
            MissingCrd::Warn => MissingCrdPolicy::Warn,
            MissingCrd::Ignore => MissingCrdPolicy::Ignore,
        },
    };
    let result = crate::check::run(&options);
    let format = match args.output {
        OutputFormat::Human => Format::Human,
        OutputFormat::Short => Format::Short,
        OutputFormat::Json => Format::Json,
    };
    let color = format == Format::Human && args.color.enabled();
    let text = report::render(format, &result.diagnostics, &result.summary, color);
    let mut stdout = std::io::stdout().lock();
    // A closed pipe (`crdlint check | head`) is not an error worth a panic.
    let _ = stdout.write_all(text.as_bytes());
    let _ = stdout.flush();

    if result.io_error {
        return exit::TROUBLE;
    }
    let failing = result.diagnostics.iter().any(|d| {
        d.severity == Severity::Error
            || (args.warnings_as_errors && d.severity == Severity::Warning)
    });
    if failing { exit::FINDINGS } else { exit::CLEAN }
}
