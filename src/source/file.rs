//! A loaded source file: its display path, its text and a line index, shared by every
//! diagnostic that points into it.

use std::sync::{Arc, OnceLock};

use super::span::{LineIndex, Position, Span};

#[derive(Debug)]
pub struct SourceFile {
    /// The path as the user gave it (or as found under a directory they gave); `-` for stdin.
    pub path: String,
    pub text: String,
    /// Built on first use: most files of a run never need a position.
    lines: OnceLock<LineIndex>,
}

impl SourceFile {
    pub fn new(path: impl Into<String>, text: String) -> Arc<SourceFile> {
        Arc::new(SourceFile {
            path: path.into(),
            text,
            lines: OnceLock::new(),
        })
    }

    /// The file's line index.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    pub fn position(&self, offset: usize) -> Position {
        self.lines().position(&self.text, offset)
    }

    /// The start and end positions of a span.
    pub fn range(&self, span: Span) -> (Position, Position) {
        (self.position(span.start), self.position(span.end))
    }
}
