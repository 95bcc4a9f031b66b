//! `crdlint dry-run`: print custom resources as the API server would store them.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::{ColorChoice, exit};
use crate::check::{CheckOptions, policy};
use crate::diag::Severity;
use crate::dryrun;
use crate::report;
use crate::source::walk::WalkOptions;
use crate::source::yaml::Limits;

#[derive(Args, Debug)]
#[command(
    after_help = "Examples:\n  crdlint dry-run --crd crontab-crd.yaml my-crontab.yaml\n  crdlint dry-run --crd crds/ -o json samples/\n  crdlint dry-run --crd crds/ --diff my-crontab.yaml   show what pruning and defaulting change\n\nThe objects go to stdout; findings and notes go to stderr. Invalid objects are not\nprinted and make the exit status 1. Unknown fields are pruned with a warning."
)]
pub struct DryRunArgs {
    /// Files or directories holding the custom resources (and possibly their CRDs);
    /// `-` reads stdin.
    #[arg(value_name = "FILE", required = true)]
    pub paths: Vec<PathBuf>,

    /// Load CRDs from PATH (repeatable).
    #[arg(long = "crd", visible_alias = "crds", value_name = "PATH")]
    pub crds: Vec<PathBuf>,

    /// Objects as currently stored (e.g. the previous revision of the manifests): a
    /// custom resource with the same API group, kind, namespace and name (in any version) is stored as an
    /// update of it (status and generation from the old object, ratcheting). Repeatable.
    #[arg(long = "old", value_name = "PATH")]
    pub old: Vec<PathBuf>,

    /// Output format of the stored objects (several objects become a v1 List).
    #[arg(short, long, value_enum, default_value_t = DryRunFormat::Yaml)]
    pub output: DryRunFormat,

    /// Show a unified diff from each object as written to the object as stored.
    #[arg(long)]
    pub diff: bool,

    /// When to use colour (diff and findings).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,

    /// Kubernetes version whose CEL libraries are available (e.g. 1.30).
    #[arg(long, value_name = "VERSION", value_parser = policy::parse_kube_version)]
    pub kube_version: Option<policy::KubeVersion>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DryRunFormat {
    Yaml,
    Json,
}

pub fn run(args: &DryRunArgs) -> u8 {
    let options = CheckOptions {
        paths: args.paths.clone(),
        crd_paths: args.crds.clone(),
        old_paths: args.old.clone(),
        walk: WalkOptions::default(),
        limits: Limits::default(),
        kube_version: args.kube_version,
        exit_after: true,
        ..CheckOptions::default()
    };
    let outcome = crate::check::dry_run(&options);
    let result = &outcome.result;

    // Findings and notes on stderr, so stdout stays a clean YAML/JSON stream.
    let mut stderr = std::io::stderr().lock();
    let findings: Vec<_> = result.diagnostics.clone();
    if !findings.is_empty() {
        let color = match args.color {
            ColorChoice::Auto => {
                std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                    && std::io::stderr().is_terminal()
            }
            other => other.enabled(),
        };
        let text = report::render(report::Format::Human, &findings, &result.summary, color);
        let _ = stderr.write_all(text.as_bytes());
    }
    for note in &result.notes {
        let _ = writeln!(stderr, "{}", report::terminal::escape_controls(note));
    }
    for object in outcome.objects.iter().filter(|o| o.webhook_conversion) {
        let api_version = object
            .stored
            .get("apiVersion")
            .and_then(|n| n.as_str())
            .unwrap_or_default();
        let note = format!(
            "note: {}: the CRD converts with a webhook, which crdlint does not run; the object is shown in the request version {api_version}",
            object.file.path
        );
        let _ = writeln!(stderr, "{}", report::terminal::escape_controls(&note));
    }

    let mut stdout = std::io::stdout().lock();
    let written = if args.diff {
        let color = args.color.enabled();
        outcome.objects.iter().try_for_each(|object| {
            let label = format!("{}#{}", object.file.path, object.document);
            let text = dryrun::diff(&object.original, &object.stored, &label, color);
            stdout.write_all(text.as_bytes())
        })
    } else {
        let stored: Vec<&crate::source::Node> = outcome.objects.iter().map(|o| &o.stored).collect();
        let format = match args.output {
            DryRunFormat::Yaml => dryrun::Format::Yaml,
            DryRunFormat::Json => dryrun::Format::Json,
        };
        stdout.write_all(dryrun::render(&stored, format).as_bytes())
    };
    let written = written.and_then(|()| stdout.flush());

    if super::output_failed(written) || result.io_error {
        exit::TROUBLE
    } else if result
        .diagnostics
        .iter()
        .any(|d| d.severity == Severity::Error)
    {
        exit::FINDINGS
    } else {
        exit::CLEAN
    }
}
