//! `crdlint check`.

use std::io::Write;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{ColorChoice, exit};
use crate::check::policy::{self, KubeVersion, UnknownFieldPolicy};
use crate::check::{CheckOptions, MissingCrdPolicy};
use crate::config::{self, Config};
use crate::diag::Severity;
use crate::report::{self, Format};
use crate::source::walk::WalkOptions;
use crate::source::yaml::Limits;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  crdlint check                        check the current directory\n  crdlint check crds/ samples/ -o short\n  crdlint check --crds vendor/crds/ my-resources.yaml\n  crdlint check -o json . > report.json\n  crdlint check -o sarif > crdlint.sarif   for GitHub code scanning\n  crdlint check -o github                  annotations in a GitHub Actions job\n\nConfiguration: .crdlint.yaml in the current directory or a parent (or --config) sets default paths, excludes, --crds, --kube-version, --unknown-fields and per-code severities; flags win. A `# crdlint-ignore: CODE reason` comment silences CODE on its line (trailing) or the next line (own line).\n\nExit status: 0 clean, 1 findings (errors, or warnings with --warnings-as-errors), 2 usage or I/O error."
)]
pub struct CheckArgs {
    /// Files or directories to check (`-` reads stdin). Directories are walked for
    /// .yaml, .yml and .json files, honouring .gitignore. Default: the configuration's
    /// `paths`, else `.`.
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Load CRDs from PATH to resolve custom resources, without reporting on them.
    #[arg(long = "crds", visible_alias = "crd", value_name = "PATH")]
    pub crds: Vec<PathBuf>,

    /// Objects as currently stored (e.g. the previous revision of the manifests): a
    /// custom resource with the same API group, kind, namespace and name (in any version) is checked
    /// as an update of it (metadata update rules, ratcheting, CEL oldSelf). Repeatable.
    #[arg(long = "old", value_name = "PATH")]
    pub old: Vec<PathBuf>,

    /// Leave out paths matching GLOB (gitignore syntax; repeatable).
    #[arg(long, value_name = "GLOB", value_parser = crate::source::walk::parse_exclude_glob)]
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

    /// Severity of documents whose kind no CRD in the run defines [default: warn].
    #[arg(long, value_enum)]
    pub missing_crd: Option<MissingCrd>,

    /// Follow the API server of this Kubernetes version (e.g. 1.35) [default: the newest
    /// crdlint knows].
    #[arg(long, value_name = "VERSION", value_parser = policy::parse_kube_version)]
    pub kube_version: Option<KubeVersion>,

    /// Fields of custom resources that no schema declares: rejected (`error`, like
    /// kubectl's --validate=strict), `warn`, or dropped silently (`ignore`) [default: error].
    #[arg(long, value_enum)]
    pub unknown_fields: Option<UnknownFields>,

    /// Read settings from this file instead of looking for .crdlint.yaml.
    #[arg(long, value_name = "FILE", conflicts_with = "no_config")]
    pub config: Option<PathBuf>,

    /// Do not read any configuration file.
    #[arg(long)]
    pub no_config: bool,

    /// Exit with status 1 on warnings too.
    #[arg(long)]
    pub warnings_as_errors: bool,

    /// Refuse files larger than this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 32 * 1024 * 1024)]
    pub max_file_size: u64,

    /// Refuse documents nested deeper than this.
    // At most 1000 (docs/limits.md): the checks after loading stop there, and deeper
    // trees would overflow the stack.
    #[arg(
        long,
        value_name = "N",
        default_value_t = Limits::default().max_depth,
        value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000)
    )]
    pub max_depth: usize,

    /// Budget for matching one regular expression (`pattern`, CEL `matches`), in MiB of
    /// compiled program. A pattern the server accepts but that needs more (large
    /// repeats of Unicode classes) is reported as not evaluated.
    #[arg(long, value_name = "MIB", default_value_t = crate::schema::regex::DEFAULT_MATCH_SIZE_MIB)]
    pub max_regex_size: usize,

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
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum UnknownFields {
    Error,
    Warn,
    Ignore,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum MissingCrd {
    Error,
    Warn,
    Ignore,
}

/// The configuration file of a run: `--config`, else the nearest `.crdlint.yaml`,
/// else none (`--no-config`, or nothing found). Errors go to stderr as exit status 2.
pub fn load_config(explicit: Option<&PathBuf>, disabled: bool) -> Result<Option<Config>, u8> {
    if disabled {
        return Ok(None);
    }
    let path = match explicit {
        Some(path) => path.clone(),
        None => match config::discover(std::path::Path::new(".")) {
            Some(path) => path,
            None => return Ok(None),
        },
    };
    config::load(&path).map(Some).map_err(|e| {
        report::to_stderr(&format!("error: {e}"));
        exit::TROUBLE
    })
}

pub fn run(args: &CheckArgs) -> u8 {
    let config = match load_config(args.config.as_ref(), args.no_config) {
        Ok(config) => config.unwrap_or_default(),
        Err(code) => return code,
    };
    let paths = if !args.paths.is_empty() {
        args.paths.clone()
    } else if !config.paths.is_empty() {
        config.paths.clone()
    } else {
        vec![PathBuf::from(".")]
    };
    let mut severities = config.severities.clone();
    if args.missing_crd.is_some() {
        // The flag is the more specific choice.
        severities.by_code.remove(crate::check::MISSING_CRD);
    }
    let options = CheckOptions {
        paths,
        crd_paths: config.crds.iter().chain(&args.crds).cloned().collect(),
        walk: WalkOptions {
            exclude: config
                .exclude
                .iter()
                .chain(&args.exclude)
                .cloned()
                .collect(),
            no_ignore: args.no_ignore,
        },
        max_file_size: args.max_file_size,
        limits: Limits {
            max_depth: args.max_depth,
            max_alias_nodes: args.max_alias_nodes,
        },
        missing_crd: match args.missing_crd.unwrap_or(MissingCrd::Warn) {
            MissingCrd::Error => MissingCrdPolicy::Error,
            MissingCrd::Warn => MissingCrdPolicy::Warn,
            MissingCrd::Ignore => MissingCrdPolicy::Ignore,
        },
        kube_version: args.kube_version.or(config.kube_version),
        unknown_fields: match args.unknown_fields {
            Some(UnknownFields::Error) => UnknownFieldPolicy::Error,
            Some(UnknownFields::Warn) => UnknownFieldPolicy::Warn,
            Some(UnknownFields::Ignore) => UnknownFieldPolicy::Ignore,
            None => config.unknown_fields.unwrap_or_default(),
        },
        severities,
        old_paths: args.old.clone(),
        exit_after: true,
        kept_text: Default::default(),
    };
    crate::schema::regex::set_match_size_limit_mib(args.max_regex_size);
    let result = crate::check::run(&options);
    for note in &result.notes {
        report::to_stderr(&report::terminal::escape_controls(note));
    }
    let format = match args.output {
        OutputFormat::Human => Format::Human,
        OutputFormat::Short => Format::Short,
        OutputFormat::Json => Format::Json,
        OutputFormat::Sarif => Format::Sarif,
        OutputFormat::Github => Format::Github,
    };
    let color = format == Format::Human && args.color.enabled();
    let render = crate::check::timings::phase("render");
    let mut stdout = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
    let written = report::write(
        format,
        &result.diagnostics,
        &result.summary,
        color,
        &mut stdout,
    )
    .and_then(|()| stdout.flush());
    drop(stdout);
    drop(render);
    crate::check::timings::report();

    if super::output_failed(written) || result.io_error {
        return exit::TROUBLE;
    }
    let failing = result.diagnostics.iter().any(|d| {
        d.severity == Severity::Error
            || (args.warnings_as_errors && d.severity == Severity::Warning)
    });
    if failing { exit::FINDINGS } else { exit::CLEAN }
}
