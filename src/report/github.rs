//! GitHub Actions workflow commands: one `::error …::message` line per finding, so the
//! runner turns findings into annotations on the pull request's diff.
//!
//! Escaping follows the Actions toolkit (`@actions/core`): in the message `%`, CR and LF
//! become `%25`, `%0D`, `%0A`; in property values `:` and `,` also become `%3A`, `%2C`.

use std::fmt::Write;

use super::location::RepoPaths;
use super::terminal::escape_controls;
use crate::check::Summary;
use crate::diag::{Diagnostic, Severity};

pub fn render(diagnostics: &[Diagnostic], summary: &Summary, paths: &RepoPaths) -> String {
    let mut out = String::new();
    for d in diagnostics {
        out.push_str(&command(d, paths));
        out.push('\n');
    }
    // A plain line for the log; the runner ignores lines that are not commands.
    let _ = writeln!(out, "{}", super::summary_line(summary));
    out
}

/// [`render`] written to `out` a command at a time.
pub fn write(
    diagnostics: &[Diagnostic],
    summary: &Summary,
    paths: &RepoPaths,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    for d in diagnostics {
        writeln!(out, "{}", command(d, paths))?;
    }
    writeln!(out, "{}", super::summary_line(summary))
}

/// The workflow command for one diagnostic.
pub fn command(d: &Diagnostic, paths: &RepoPaths) -> String {
    let name = match d.severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "notice",
    };
    let mut properties: Vec<(&str, String)> = Vec::new();
    if let Some(file) = &d.file
        && let Some(path) = paths
            .relative(&file.path)
            .or_else(|| (file.path != "-").then(|| file.path.clone()))
    {
        properties.push(("file", path));
        if let Some(span) = d.span {
            let (start, end) = file.range(span);
            properties.push(("line", start.line.to_string()));
            // GitHub takes columns only for a range on one line.
            if start.line == end.line {
                properties.push(("col", start.column.to_string()));
                properties.push(("endLine", end.line.to_string()));
                properties.push(("endColumn", end.column.to_string()));
            } else {
                properties.push(("endLine", end.line.to_string()));
            }
        }
    }
    properties.push(("title", format!("crdlint({})", d.code)));

    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }

    let properties = properties
        .iter()
        .map(|(key, value)| format!("{key}={}", escape_property(&escape_controls(value))))
        .collect::<Vec<_>>()
        .join(",");
    // The log shows the line, and interprets escape sequences (`terminal.rs`).
    format!(
        "::{name} {properties}::{}",
        escape_data(&escape_controls(&message))
    )
}

/// `escapeData` of the Actions toolkit.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// `escapeProperty` of the Actions toolkit.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{SourceFile, Span};

    #[test]
    fn escapes_like_the_actions_toolkit() {
        assert_eq!(escape_data("50%\r\nnext: a,b"), "50%25%0D%0Anext: a,b");
        assert_eq!(
            escape_property("50%\r\nnext: a,b"),
            "50%25%0D%0Anext%3A a%2Cb"
        );
        // `%` first, so escapes are not escaped twice.
        assert_eq!(escape_data("%0A"), "%250A");
    }

    #[test]
    fn annotation_is_byte_exact() {
        let text = "apiVersion: v1\nkind: X\nspec:\n  replicas: 15\n";
        let file = SourceFile::new("deploy/a,b:c.yaml", text.to_string());
        let at = text.find("15").unwrap();
        let d = Diagnostic::error(
            "schema-violation",
            "spec.replicas: Invalid value: 15: must be <= 10, 100% sure\nsecond line",
        )
        .with_span(Span::new(at, at + 2))
        .with_help("lower it")
        .in_document(&file, 0);
        assert_eq!(
            command(&d, &RepoPaths::fixed("/repo")),
            "::error file=deploy/a%2Cb%3Ac.yaml,line=4,col=13,endLine=4,endColumn=15,title=crdlint(schema-violation)::spec.replicas: Invalid value: 15: must be <= 10, 100%25 sure%0Asecond line%0Ahelp: lower it"
        );
    }

    #[test]
    fn multi_line_ranges_drop_columns_and_whole_file_findings_have_no_line() {
        let text = "a:\n  b: 1\nc: 2\n";
        let file = SourceFile::new("x.yaml", text.to_string());
        let d = Diagnostic::warning("duplicate-crd", "m")
            .with_span(Span::new(0, 9))
            .in_document(&file, 0);
        assert_eq!(
            command(&d, &RepoPaths::fixed("/repo")),
            "::warning file=x.yaml,line=1,endLine=2,title=crdlint(duplicate-crd)::m"
        );
        let whole = Diagnostic::error("binary-file", "binary").in_file(&file);
        assert_eq!(
            command(&whole, &RepoPaths::fixed("/repo")),
            "::error file=x.yaml,title=crdlint(binary-file)::binary"
        );
        let stdin = SourceFile::new("-", String::new());
        let info = Diagnostic::new("x", Severity::Info, "note")
            .with_span(Span::new(0, 0))
            .in_file(&stdin);
        assert_eq!(
            command(&info, &RepoPaths::fixed("/repo")),
            "::notice title=crdlint(x)::note"
        );
    }
}
