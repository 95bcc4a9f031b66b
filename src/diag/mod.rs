//! The one diagnostic model every stage reports through, the registry of codes, and
//! the server's field-path and field-error formatting.

pub mod budget;
pub mod codes;
pub mod field;
pub mod gofmt;
pub mod path;

use std::sync::Arc;

pub use codes::CodeInfo;
pub use field::{BadValue, ErrorType, FieldError};
pub use path::{FieldPath, LazyPath, RuleFieldPath};

use crate::source::{SourceFile, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// The Kubernetes object a diagnostic is about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectRef {
    pub api_version: Option<String>,
    pub kind: Option<String>,
    pub name: Option<String>,
    pub namespace: Option<String>,
}

/// A secondary location shown with the main one (e.g. "first defined here").
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// Everything crdlint reports. Built with the constructors and `with_*` methods;
/// the pipeline fills in file, document and object.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Stable kebab-case code, documented in `docs/rules/<code>.md`.
    pub code: &'static str,
    pub severity: Severity,
    /// What a human reads; for server checks, the server's full error text.
    pub message: String,
    /// The field path exactly as the API server prints it.
    pub field: Option<String>,
    /// The server's `metav1.CauseType`, e.g. `FieldValueInvalid`.
    pub reason: Option<&'static str>,
    /// The server's error detail (the part after the value).
    pub detail: Option<String>,
    pub file: Option<Arc<SourceFile>>,
    pub document: Option<usize>,
    /// Where the problem is; `None` for findings about a whole file or run.
    pub span: Option<Span>,
    /// Text of the primary label; defaults to a short form of the message.
    pub label: Option<String>,
    pub related: Vec<Label>,
    /// Shared by the findings of one object (each copied the four strings before).
    pub object: Option<Arc<ObjectRef>>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(code: &'static str, severity: Severity, message: impl Into<String>) -> Self {
        Diagnostic {
            code,
            severity,
            message: message.into(),
            field: None,
            reason: None,
            detail: None,
            file: None,
            document: None,
            span: None,
            label: None,
            related: Vec::new(),
            object: None,
            help: None,
        }
    }

    pub fn error(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(code, Severity::Error, message)
    }

    pub fn warning(code: &'static str, message: impl Into<String>) -> Self {
        Diagnostic::new(code, Severity::Warning, message)
    }

    /// A diagnostic for a server field error: message, field, reason and detail are the
    /// server's.
    pub fn from_field_error(code: &'static str, error: &FieldError, span: Span) -> Self {
        let mut d = Diagnostic::error(code, error.to_string());
        d.field = Some(error.field.to_string());
        d.reason = Some(error.error_type.reason());
        d.detail = Some(error.detail.clone()).filter(|s| !s.is_empty());
        d.span = Some(span);
        d
    }

    pub fn with_span(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub fn with_reason(mut self, reason: &'static str) -> Self {
        self.reason = Some(reason);
        self
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Label {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_severity(mut self, severity: Severity) -> Self {
        self.severity = severity;
        self
    }

    /// Attaches the file and document; used by the pipeline, not by checks.
    pub fn in_document(mut self, file: &Arc<SourceFile>, document: usize) -> Self {
        self.file = Some(file.clone());
        self.document = Some(document);
        self
    }

    pub fn in_file(mut self, file: &Arc<SourceFile>) -> Self {
        self.file = Some(file.clone());
        self
    }

    pub fn for_object(mut self, object: &Arc<ObjectRef>) -> Self {
        self.object = Some(object.clone());
        self
    }

    /// Sort key: file path, then position, then code, so output is deterministic
    /// whatever the thread scheduling.
    pub fn sort_key(&self) -> (&str, usize, usize, usize, &'static str, &str) {
        (
            self.file.as_ref().map(|f| f.path.as_str()).unwrap_or(""),
            self.document.unwrap_or(0),
            self.span.map(|s| s.start).unwrap_or(0),
            self.span.map(|s| s.end).unwrap_or(0),
            self.code,
            self.message.as_str(),
        )
    }
}

/// Sorts diagnostics into the deterministic output order.
pub fn sort(diagnostics: &mut [Diagnostic]) {
    diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
}
