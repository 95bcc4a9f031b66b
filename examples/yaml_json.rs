//! What crdlint's YAML loader reads, for differential tests against kubectl's reader:
//! for each JSON line `{"text": "..."}` on stdin, prints one JSON line with the documents
//! kept (as JSON) and the errors (kind, message, offset, document). Texts get the final
//! line break kubectl's line reader gives them, as `crdlint check` does.
//!
//! `cargo run --release --example yaml_json < cases.jsonl`

use std::io::{BufRead, Write};

use crdlint::source::yaml::{Limits, parse};

fn main() {
    let stdin = std::io::stdin();
    let mut out = std::io::BufWriter::new(std::io::stdout());
    for line in stdin.lock().lines() {
        let line = line.unwrap_or_else(|e| fail(&e.to_string()));
        let request: serde_json::Value =
            serde_json::from_str(&line).unwrap_or_else(|e| fail(&e.to_string()));
        let Some(text) = request.get("text").and_then(|t| t.as_str()) else {
            fail("each line needs a \"text\" string")
        };
        let mut text = text.to_string();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        let parsed = parse(&text, &Limits::default());
        let docs: Vec<serde_json::Value> =
            parsed.documents.iter().map(|d| d.root.to_json()).collect();
        let errors: Vec<serde_json::Value> = parsed
            .errors
            .iter()
            .map(|e| {
                serde_json::json!({
                    "kind": format!("{:?}", e.kind),
                    "message": e.message,
                    "offset": e.span.start,
                    "document": e.document,
                })
            })
            .collect();
        let result = serde_json::json!({ "docs": docs, "errors": errors });
        writeln!(out, "{result}").unwrap_or_else(|e| fail(&e.to_string()));
    }
}

fn fail(message: &str) -> ! {
    eprintln!("error: {message}");
    std::process::exit(2)
}
