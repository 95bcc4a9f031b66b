//! The server's field errors as crdlint collects them, each with its code and help,
//! turned into diagnostics with spans at the end.

use crate::diag::{Diagnostic, FieldError, Severity};
use crate::source::{Node, Span};

use super::locate;

#[derive(Clone, Debug)]
pub struct Finding {
    pub code: &'static str,
    pub error: FieldError,
    /// Where to point; resolved from the field path when `None`.
    pub span: Option<Span>,
    pub help: Option<String>,
    pub severity: Severity,
}

/// Collects findings in the server's order.
#[derive(Debug, Default)]
pub struct Findings {
    pub items: Vec<Finding>,
    /// Diagnostics built elsewhere (CEL compilation), reported after the items as the
    /// server reports CEL errors after schema errors.
    pub prebuilt: Vec<Diagnostic>,
}

impl Findings {
    pub fn push(&mut self, code: &'static str, error: FieldError, help: &str) -> &mut Finding {
        self.items.push(Finding {
            code,
            error,
            span: None,
            help: (!help.is_empty()).then(|| help.to_string()),
            severity: Severity::Error,
        });
        let last = self.items.len() - 1;
        &mut self.items[last]
    }

    /// Adds a finding pointing at `span`.
    pub fn push_at(&mut self, code: &'static str, error: FieldError, span: Span, help: &str) {
        self.push(code, error, help).span = Some(span);
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    pub fn extend(&mut self, other: Findings) {
        self.items.extend(other.items);
        self.prebuilt.extend(other.prebuilt);
    }

    /// Whether any finding is an error (the server then rejects the object).
    pub fn has_errors(&self) -> bool {
        self.items.iter().any(|f| f.severity == Severity::Error)
            || self.prebuilt.iter().any(|d| d.severity == Severity::Error)
    }

    /// Diagnostics with spans resolved against the document.
    pub fn into_diagnostics(self, root: &Node) -> Vec<Diagnostic> {
        let prebuilt = self.prebuilt;
        let locator = locate::Locator::new(root);
        self.items
            .into_iter()
            .map(|f| {
                let span = f.span.unwrap_or_else(|| {
                    let path = file_path_for_lookup(f.error.field.as_str());
                    locator.span_for(&path, f.error.error_type)
                });
                let mut d = Diagnostic::from_field_error(f.code, &f.error, span);
                d.severity = f.severity;
                if let Some(help) = f.help {
                    d = d.with_help(help);
                }
                d
            })
            .chain(prebuilt)
            .collect()
    }
}

/// Some server paths name fields differently from the v1 document (the internal types'
/// names); translate them to find the node in the file.
fn file_path_for_lookup(path: &str) -> String {
    let mut p = path.to_string();
    for (from, to) in [
        (
            "spec.conversion.webhookClientConfig",
            "spec.conversion.webhook.clientConfig",
        ),
        (
            "spec.conversion.conversionReviewVersions",
            "spec.conversion.webhook.conversionReviewVersions",
        ),
        // The shared schema as the selectable fields' check names it.
        (
            "spec.schema.openAPIV3Schema",
            "spec.versions[0].schema.openAPIV3Schema",
        ),
    ] {
        if let Some(rest) = p.strip_prefix(from) {
            p = format!("{to}{rest}");
        }
    }
    if p == "spec.version" {
        p = "spec.versions[0].name".to_string();
    }
    p.replace(".JSONPath", ".jsonPath")
}
