//! One grep-friendly line per diagnostic: `path:line:col: severity[code]: message`.

use std::fmt::Write;

use crate::check::Summary;
use crate::diag::Diagnostic;

pub fn render(diagnostics: &[Diagnostic], summary: &Summary) -> String {
    let mut out = String::new();
    for d in diagnostics {
        let _ = writeln!(out, "{}", line(d));
    }
    let _ = writeln!(out, "{}", super::summary_line(summary));
    out
}

/// [`render`] written to `out` a line at a time.
pub fn write(
    diagnostics: &[Diagnostic],
    summary: &Summary,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    for d in diagnostics {
        writeln!(out, "{}", line(d))?;
    }
    writeln!(out, "{}", super::summary_line(summary))
}

/// The location prefix: `path:line:col`, or just `path` for whole-file findings. A line
/// feed in the path is written `\n`, as Go's `%q` writes it: one finding, one line,
/// whatever the file is called.
pub fn location(d: &Diagnostic) -> String {
    let path = |file: &crate::source::SourceFile| file.path.replace('\n', "\\n");
    match (&d.file, d.span) {
        (Some(file), Some(span)) => {
            let p = file.position(span.start);
            format!("{}:{}:{}", path(file), p.line, p.column)
        }
        (Some(file), None) => path(file),
        (None, _) => "crdlint".to_string(),
    }
}

pub fn line(d: &Diagnostic) -> String {
    // Multi-line messages (CEL carets) keep their first line: one finding, one line.
    let message = d.message.lines().next().unwrap_or_default();
    let line = format!(
        "{}: {}[{}]: {}",
        location(d),
        d.severity.as_str(),
        d.code,
        message
    );
    // The path and the message may carry control characters (`terminal.rs`).
    super::terminal::escape_controls(&line).into_owned()
}
