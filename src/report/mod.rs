//! Renderers: the same diagnostics as a human report (miette), one line each
//! (`short`), or the JSON contract. Renderers know diagnostics; nothing here decides
//! what is wrong.

pub mod docs;
pub mod github;
pub mod human;
pub mod json;
pub mod location;
pub mod sarif;
pub mod short;
mod source_code;
pub mod terminal;

use crate::check::Summary;
use crate::diag::Diagnostic;

/// Output formats of `crdlint check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Human,
    Short,
    Json,
    /// SARIF 2.1.0 for code-scanning services.
    Sarif,
    /// GitHub Actions workflow commands (annotations).
    Github,
}

/// Renders diagnostics and the summary in `format`.
pub fn render(
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    color: bool,
) -> String {
    match format {
        Format::Human => human::render(diagnostics, summary, color),
        Format::Short => short::render(diagnostics, summary),
        Format::Json => json::render(diagnostics, summary),
        Format::Sarif => sarif::render(diagnostics, &location::RepoPaths::from_env()),
        Format::Github => github::render(diagnostics, summary, &location::RepoPaths::from_env()),
    }
}

/// Writes diagnostics and the summary in `format` to `out`; JSON and SARIF are
/// streamed one diagnostic at a time (same bytes as [`render`]).
pub fn write(
    format: Format,
    diagnostics: &[Diagnostic],
    summary: &Summary,
    color: bool,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Json => json::write(out, diagnostics, summary),
        Format::Sarif => sarif::write(out, diagnostics, &location::RepoPaths::from_env()),
        _ => out.write_all(render(format, diagnostics, summary, color).as_bytes()),
    }
}

/// `1 error`, `2 warnings`.
pub(crate) fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The closing line of human and short output.
pub fn summary_line(summary: &Summary) -> String {
    format!(
        "{}, {} ({}, {}): {}, {}",
        plural(summary.files, "file", "files"),
        plural(summary.documents, "document", "documents"),
        plural(summary.crds, "CRD", "CRDs"),
        plural(summary.resources, "custom resource", "custom resources"),
        plural(summary.errors, "error", "errors"),
        plural(summary.warnings, "warning", "warnings"),
    )
}
