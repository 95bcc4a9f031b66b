//! The JSON output contract of DESIGN.md: one object with `version`, `diagnostics`
//! and `summary`. Integrations parse it; change it only with a new `version`.

use serde_json::{Value, json};

use crate::check::Summary;
use crate::diag::Diagnostic;
use crate::source::Span;

pub const VERSION: u64 = 1;

pub fn render(diagnostics: &[Diagnostic], summary: &Summary) -> String {
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
    let mut out = serde_json::to_string_pretty(&doc).expect("JSON values always serialize");
    out.push('\n');
    out
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
