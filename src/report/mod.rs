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

/// Writes diagnostics and the summary in `format` to `out`, one diagnostic at a time
/// (same bytes as [`render`]).
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
        Format::Human => human::write(diagnostics, summary, color, out),
        Format::Short => short::write(diagnostics, summary, out),
        Format::Github => {
            github::write(diagnostics, summary, &location::RepoPaths::from_env(), out)
        }
    }
}

/// Writes `line` and a line break on stderr, or nothing when stderr cannot take it
/// (closed, or a full disk behind `2>file`): `eprintln!` panics then, and a message
/// nobody can read is no reason to crash. The exit status still tells.
pub fn to_stderr(line: &str) {
    use std::io::Write as _;
    let mut stderr = std::io::stderr().lock();
    let _ = stderr
        .write_all(line.as_bytes())
        .and_then(|()| stderr.write_all(b"\n"));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{SourceFile, Span};

    #[test]
    fn every_format_writes_the_bytes_it_renders() {
        let file = SourceFile::new(
            "a.yaml",
            "kind: X\nspec:\n  a: 'multi\n    line'\n".to_string(),
        );
        let summary = Summary {
            files: 1,
            documents: 1,
            crds: 0,
            resources: 1,
            errors: 2,
            warnings: 1,
        };
        let snippet = Diagnostic::error("schema-violation", "spec.a: Invalid value")
            .in_file(&file)
            .with_span(Span::new(8, 30))
            .with_field("spec.a".to_string())
            .with_help("fix it");
        let whole_file = Diagnostic::error("yaml-syntax", "bad\nfile").in_file(&file);
        let no_file = Diagnostic::warning("missing-crd", "no CRD");
        let all = [snippet, whole_file, no_file];
        for format in [
            Format::Human,
            Format::Short,
            Format::Json,
            Format::Sarif,
            Format::Github,
        ] {
            for color in [false, true] {
                for diagnostics in [&all[..0], &all[..1], &all[..]] {
                    let mut written = Vec::new();
                    write(format, diagnostics, &summary, color, &mut written).unwrap();
                    let rendered = render(format, diagnostics, &summary, color);
                    assert_eq!(
                        String::from_utf8(written).unwrap(),
                        rendered,
                        "{format:?}, color {color}, {} findings",
                        diagnostics.len()
                    );
                    if !diagnostics.is_empty() {
                        assert!(rendered.contains("Invalid value"), "{format:?}: {rendered}");
                    }
                }
            }
        }
    }
}
