//! The JSON output contract of DESIGN.md: one object with `version`, `diagnostics`
//! and `summary`. Integrations parse it; change it only with a new `version`.

use std::io::Write;

use serde_json::{Value, json};

use crate::check::Summary;
use crate::diag::Diagnostic;
use crate::source::Span;

pub const VERSION: u64 = 1;

pub fn render(diagnostics: &[Diagnostic], summary: &Summary) -> String {
    let mut out = Vec::new();
    // Writing into a Vec cannot fail, and JSON text is UTF-8.
    let _ = write(&mut out, diagnostics, summary);
    String::from_utf8(out).unwrap_or_default()
}

/// Writes the report to `out` one diagnostic at a time: the same bytes as pretty-printing
/// the whole report as one value, without holding that value (several kilobytes per
/// finding) in memory.
pub fn write(
    out: &mut impl Write,
    diagnostics: &[Diagnostic],
    summary: &Summary,
) -> std::io::Result<()> {
    write!(out, "{{\n  \"version\": {VERSION},\n  \"diagnostics\": [")?;
    for (i, d) in diagnostics.iter().enumerate() {
        out.write_all(if i == 0 { b"\n    " } else { b",\n    " })?;
        pretty(&mut Indented { out, indent: 4 }, &diagnostic(d))?;
    }
    if !diagnostics.is_empty() {
        out.write_all(b"\n  ")?;
    }
    out.write_all(b"],\n  \"summary\": ")?;
    let summary = json!({
        "files": summary.files,
        "documents": summary.documents,
        "crds": summary.crds,
        "resources": summary.resources,
        "errors": summary.errors,
        "warnings": summary.warnings,
    });
    pretty(&mut Indented { out, indent: 2 }, &summary)?;
    out.write_all(b"\n}\n")
}

pub(super) fn pretty(out: &mut impl Write, value: &Value) -> std::io::Result<()> {
    serde_json::to_writer_pretty(out, value).map_err(std::io::Error::other)
}

/// Indents every line after the first by `indent` spaces: a value pretty-printed on its
/// own, nested at that depth. (Line breaks only ever come from the printer: JSON
/// strings escape theirs.)
pub(super) struct Indented<'a, W> {
    pub(super) out: &'a mut W,
    pub(super) indent: usize,
}

impl<W: Write> Write for Indented<'_, W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        const SPACES: &[u8] = b"        ";
        let mut rest = buf;
        while let Some(n) = memchr::memchr(b'\n', rest) {
            self.out.write_all(&rest[..=n])?;
            self.out
                .write_all(&SPACES[..self.indent.min(SPACES.len())])?;
            rest = &rest[n + 1..];
        }
        self.out.write_all(rest)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

pub fn diagnostic(d: &Diagnostic) -> Value {
    let object = d.object.as_ref().map(|o| {
        json!({
            "apiVersion": o.api_version,
            "kind": o.kind,
            "name": o.name,
            "namespace": o.namespace,
        })
    });
    json!({
        "code": d.code,
        "severity": d.severity.as_str(),
        "message": d.message,
        "field": d.field,
        "reason": d.reason,
        "detail": d.detail,
        "file": d.file.as_ref().map(|f| f.path.clone()),
        "document": d.document,
        "span": match (&d.file, d.span) {
            (Some(file), Some(span)) => span_json(file, span),
            _ => Value::Null,
        },
        "object": object,
        "help": d.help,
    })
}

fn span_json(file: &crate::source::SourceFile, span: Span) -> Value {
    let (start, end) = file.range(span);
    json!({
        "start": {"line": start.line, "column": start.column, "offset": start.offset},
        "end": {"line": end.line, "column": end.column, "offset": end.offset},
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceFile;

    /// The report as one value, pretty-printed whole: what `write` streams.
    fn whole(diagnostics: &[Diagnostic], summary: &Summary) -> String {
        let doc = json!({
            "version": VERSION,
            "diagnostics": diagnostics.iter().map(diagnostic).collect::<Vec<_>>(),
            "summary": {
                "files": summary.files,
                "documents": summary.documents,
                "crds": summary.crds,
                "resources": summary.resources,
                "errors": summary.errors,
                "warnings": summary.warnings,
            },
        });
        let mut out = serde_json::to_string_pretty(&doc).unwrap();
        out.push('\n');
        out
    }

    #[test]
    fn streamed_report_equals_the_whole_value_pretty_printed() {
        let file = SourceFile::new(
            "a.yaml",
            "kind: X\nspec:\n  a: 'multi\n    line'\n".to_string(),
        );
        let summary = Summary {
            files: 1,
            documents: 2,
            crds: 0,
            resources: 1,
            errors: 1,
            warnings: 1,
        };
        let first = Diagnostic::error("schema-violation", "line one\nline \"two\"\t\u{1F600}")
            .in_file(&file)
            .with_span(Span::new(8, 30))
            .with_field("spec.a".to_string());
        let second = Diagnostic::warning("missing-crd", "{\n  not: json\n}");
        for diagnostics in [vec![], vec![first.clone()], vec![first, second]] {
            assert_eq!(
                render(&diagnostics, &summary),
                whole(&diagnostics, &summary)
            );
        }
    }
}
