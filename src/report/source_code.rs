//! A miette `SourceCode` over our line index: miette's own `NamedSource` rescans the
//! file from its start for every label, which is quadratic on big files.
//!
//! The text served is the file's with control characters masked (`terminal.rs`): same
//! bytes apart from them, so the file's line index serves it too.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

use crate::source::SourceFile;

pub(crate) struct IndexedSource<'a> {
    pub file: &'a SourceFile,
    /// `file.text` with control characters masked, byte for byte the same length.
    pub text: &'a str,
    /// `file.path` with control characters escaped.
    pub name: String,
}

impl SourceCode for IndexedSource<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let file = self.file;
        let text = self.text;
        debug_assert_eq!(text.len(), file.text.len());
        let start = span.offset();
        let end = start + span.len();
        if end > text.len() {
            return Err(MietteError::OutOfBounds);
        }
        let lines = file.lines();
        let start_line = lines.line_of(start);
        let end_line = lines.line_of(end.saturating_sub(1).max(start));
        let first_line = start_line.saturating_sub(context_lines_before);
        let last_line = (end_line + context_lines_after).min(lines.line_count() - 1);
        // Without leading context the contents start at the span itself, so that the
        // reported line and column are the span's (miette uses them for the header).
        let (data_start, line, column) = if context_lines_before == 0 {
            (start, start_line, file.position(start).column - 1)
        } else {
            (lines.line_start(first_line), first_line, 0)
        };
        let data_end = if last_line + 1 < lines.line_count() {
            lines.line_start(last_line + 1)
        } else {
            text.len()
        }
        .max(end);
        let contents = MietteSpanContents::new_named(
            self.name.clone(),
            &text.as_bytes()[data_start..data_end],
            (data_start, data_end - data_start).into(),
            line,
            column,
            last_line - line + 1,
        );
        Ok(Box::new(contents))
    }
}
