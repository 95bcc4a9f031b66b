//! A loaded source file: its display path, its text and a line index, shared by every
//! diagnostic that points into it.

use std::sync::Arc;

use super::span::{LineIndex, Position, Span};

#[derive(Debug)]
pub struct SourceFile {
    /// The path as the user gave it (or as found under a directory they gave); `-` for stdin.
    pub path: String,
    pub text: String,
    pub lines: LineIndex,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: String) -> Arc<SourceFile> {
        let lines = LineIndex::new(&text);
        Arc::new(SourceFile {
            path: path.into(),
            text,
            lines,
        })
    }

    pub fn position(&self, offset: usize) -> Position {
        self.lines.position(&self.text, offset)
    }

    /// The start and end positions of a span.
    pub fn range(&self, span: Span) -> (Position, Position) {
        (self.position(span.start), self.position(span.end))
    }
}
