//! The human report: miette's graphical rendering with the code, a labelled snippet
//! whose header is `path:line:column`, and the help; then a summary line.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::fmt::Write;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, SourceCode};
use owo_colors::OwoColorize;

use super::source_code::IndexedSource;
use super::terminal::{escape_controls, mask_controls};
use crate::check::Summary;
use crate::diag::{Diagnostic, Severity};
use crate::source::SourceFile;

/// Wraps our diagnostic for miette.
struct Report<'a> {
    diagnostic: &'a Diagnostic,
    source: Option<IndexedSource<'a>>,
    /// The message, the help and the labels as printed: control characters escaped.
    message: String,
    help: Option<String>,
}

impl fmt::Debug for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Display for Report<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Report<'_> {}

impl miette::Diagnostic for Report<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.diagnostic.code))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diagnostic.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn SourceCode> {
        self.source.as_ref().map(|s| s as &dyn SourceCode)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        self.source.as_ref()?;
        let span = self.diagnostic.span?;
        let primary = LabeledSpan::new_primary_with_span(
            Some(escape_controls(&self.primary_label()).into_owned()),
            (span.start, span.len()),
        );
        let related = self.diagnostic.related.iter().map(|l| {
            LabeledSpan::new_with_span(
                Some(escape_controls(&l.message).into_owned()),
                (l.span.start, l.span.len()),
            )
        });
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

impl Report<'_> {
    /// The label under the snippet: explicit text, else the reason, else the code.
    fn primary_label(&self) -> String {
        let d = self.diagnostic;
        if let Some(label) = &d.label {
            return label.clone();
        }
        match (d.reason, &d.field) {
            (Some(reason), Some(field)) => format!("{field}: {}", reason_words(reason)),
            (None, Some(field)) => field.clone(),
            _ => "here".to_string(),
        }
    }
}

fn reason_words(reason: &str) -> &str {
    match reason {
        "FieldValueRequired" => "required value",
        "FieldValueInvalid" => "invalid value",
        "FieldValueForbidden" => "forbidden",
        "FieldValueNotSupported" => "unsupported value",
        "FieldValueDuplicate" => "duplicate value",
        "FieldValueTooLong" => "too long",
        "FieldValueTooMany" => "too many",
        "FieldValueTypeInvalid" => "wrong type",
        "FieldValueNotFound" => "not found",
        "InternalError" => "internal error",
        other => other,
    }
}

pub fn render(diagnostics: &[Diagnostic], summary: &Summary, color: bool) -> String {
    let mut out = String::new();
    let _ = each_part(diagnostics, summary, color, |part| {
        out.push_str(part);
        Ok(())
    });
    out
}

/// Writes the report to `out` one finding at a time: a run with millions of findings
/// does not hold its whole report (1 GB of text for 3.7 million findings) in memory.
pub fn write(
    diagnostics: &[Diagnostic],
    summary: &Summary,
    color: bool,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    each_part(diagnostics, summary, color, |part| {
        out.write_all(part.as_bytes())
    })
}

/// The report, one finding (then the summary line) at a time.
fn each_part(
    diagnostics: &[Diagnostic],
    summary: &Summary,
    color: bool,
    mut emit: impl FnMut(&str) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let theme = if color {
        GraphicalTheme::unicode()
    } else {
        GraphicalTheme::unicode_nocolor()
    };
    let handler = GraphicalReportHandler::new_themed(theme)
        .with_links(false)
        .with_width(terminal_width())
        .with_context_lines(1);
    let mut out = String::new();
    // Each file is scanned for control characters once, not once per finding in it.
    let mut masked: HashMap<*const SourceFile, Cow<'_, str>> = HashMap::new();
    for d in diagnostics {
        let snippet = d.span.is_some() && d.file.as_deref().is_some_and(|f| snippet_fits(f, d));
        let message = match (&d.file, d.span) {
            // Without a snippet the file would not show: say it in the message.
            (Some(file), None) => format!("{}: {}", file.path, d.message),
            (Some(file), Some(span)) if !snippet => {
                let at = file.position(span.start);
                format!("{}:{}:{}: {}", file.path, at.line, at.column, d.message)
            }
            _ => d.message.clone(),
        };
        let source = d.file.as_deref().filter(|_| snippet).map(|file| {
            let text: &Cow<'_, str> = masked
                .entry(file as *const SourceFile)
                .or_insert_with(|| mask_controls(&file.text));
            IndexedSource {
                file,
                text: text.as_ref(),
                name: escape_controls(&file.path).into_owned(),
            }
        });
        let report = Report {
            diagnostic: d,
            source,
            message: escape_controls(&message).into_owned(),
            help: d.help.as_deref().map(|h| escape_controls(h).into_owned()),
        };
        if handler.render_report(&mut out, &report).is_err() {
            // A span the source cannot serve (should not happen): fall back to a line.
            let _ = writeln!(out, "{}", super::short::line(d));
        }
        out.push('\n');
        emit(&out)?;
        out.clear();
    }
    let line = super::summary_line(summary);
    if color {
        let styled = if summary.errors > 0 {
            line.red().bold().to_string()
        } else if summary.warnings > 0 {
            line.yellow().bold().to_string()
        } else {
            line.green().bold().to_string()
        };
        let _ = writeln!(out, "{styled}");
    } else {
        let _ = writeln!(out, "{line}");
    }
    emit(&out)
}

/// Lines longer than this (in bytes) are not shown in snippets: the report would repeat
/// a megabyte-long line (minified JSON) for every finding on it, and miette cannot pad
/// labels past 65,535 columns. Such findings print `path:line:column: message` instead.
const MAX_SNIPPET_LINE: usize = 1024;
/// Spans over more lines than this are not shown in snippets either.
const MAX_SNIPPET_LINES: usize = 500;

/// Whether every line a snippet of `d` would show (its spans' lines and one line of
/// context around them) is short enough to print.
fn snippet_fits(file: &SourceFile, d: &Diagnostic) -> bool {
    let lines = file.lines();
    let last = lines.line_count() - 1;
    let line_len = |l: usize| {
        let end = if l < last {
            lines.line_start(l + 1)
        } else {
            file.text.len()
        };
        end - lines.line_start(l)
    };
    d.span
        .into_iter()
        .chain(d.related.iter().map(|l| l.span))
        .all(|span| {
            let first = lines
                .line_of(span.start.min(file.text.len()))
                .saturating_sub(1);
            let end = lines.line_of(span.end.min(file.text.len()));
            let end = (end + 1).min(last);
            // miette shows every line of a span: a huge span gets no snippet either.
            end - first <= MAX_SNIPPET_LINES
                && (first..=end).all(|l| line_len(l) <= MAX_SNIPPET_LINE)
        })
}

/// The terminal width when stdout is one, else 100 columns so output is stable.
fn terminal_width() -> usize {
    std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.parse().ok())
        .filter(|w: &usize| *w >= 40)
        .unwrap_or(100)
}
