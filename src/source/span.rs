//! Byte spans and the line index that turns them into 1-based line/column positions.

use std::sync::OnceLock;

/// A half-open byte range `[start, end)` into a source file's text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

impl Span {
    pub const fn new(start: usize, end: usize) -> Self {
        Span { start, end }
    }

    /// An empty span at `offset`, used to point at a position rather than a range.
    pub const fn point(offset: usize) -> Self {
        Span {
            start: offset,
            end: offset,
        }
    }

    pub const fn len(&self) -> usize {
        self.end - self.start
    }

    pub const fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The smallest span covering both.
    pub fn join(self, other: Span) -> Span {
        Span::new(self.start.min(other.start), self.end.max(other.end))
    }
}

/// A 1-based line and column (the column counts Unicode scalar values, as editors do),
/// plus the byte offset it was computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Position {
    pub line: usize,
    pub column: usize,
    pub offset: usize,
}

/// Start offsets of every line, computed once per file so that every position lookup
/// is a binary search instead of a scan from the file start. A column is counted on its
/// line; on a line longer than [`LONG_LINE`] bytes (minified JSON with thousands of
/// findings) it is read from the number of characters before every [`CHUNK`]-byte
/// boundary instead, built the first time such a line needs it, so that a column costs
/// at most two chunk scans.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<usize>,
    /// `chars_before_chunk[k]`: characters starting before byte `k * CHUNK`.
    chars_before_chunk: OnceLock<Vec<usize>>,
    /// The text starts with a byte order mark: editors do not count it as a column.
    bom: bool,
}

const CHUNK: usize = 256;

/// Columns further than this from their line start are counted with the chunk table.
const LONG_LINE: usize = 4 * CHUNK;

/// Characters starting in `bytes` (bytes that are not UTF-8 continuation bytes).
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

impl LineIndex {
    pub fn new(text: &str) -> Self {
        let mut line_starts = Vec::with_capacity(text.len() / 32 + 1);
        line_starts.push(0);
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex {
            line_starts,
            chars_before_chunk: OnceLock::new(),
            bom: text.starts_with('\u{FEFF}'),
        }
    }

    /// Characters starting before byte `offset` (`offset <= text.len()`).
    fn chars_before(&self, bytes: &[u8], offset: usize) -> usize {
        let chunks = self.chars_before_chunk.get_or_init(|| {
            let mut chunks = Vec::with_capacity(bytes.len() / CHUNK + 1);
            let mut total = 0;
            chunks.push(0);
            for chunk in bytes.chunks(CHUNK) {
                total += char_starts(chunk);
                chunks.push(total);
            }
            chunks
        });
        let chunk = offset / CHUNK;
        chunks[chunk] + char_starts(&bytes[chunk * CHUNK..offset])
    }

    /// Characters from byte `start` to byte `offset`, both on one line.
    fn chars_between(&self, bytes: &[u8], start: usize, offset: usize) -> usize {
        if offset - start <= LONG_LINE {
            char_starts(&bytes[start..offset])
        } else {
            self.chars_before(bytes, offset) - self.chars_before(bytes, start)
        }
    }

    /// 0-based line number containing `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts[line]
    }

    pub fn line_count(&self) -> usize {
        self.line_starts.len()
    }

    /// The position of a byte offset; offsets past the end clamp to the end and offsets
    /// inside a multi-byte character count as that character.
    pub fn position(&self, text: &str, offset: usize) -> Position {
        let offset = offset.min(text.len());
        let line = self.line_of(offset);
        let start = self.line_starts[line];
        let bytes = text.as_bytes();
        let mut column = self.chars_between(bytes, start, offset);
        // Inside a multi-byte character: count only the characters that end before it.
        if !text.is_char_boundary(offset) {
            column -= 1;
        }
        if self.bom && line == 0 && offset >= 3 {
            column -= 1;
        }
        column += 1;
        Position {
            line: line + 1,
            column,
            offset,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_and_count_characters() {
        let text = "a: 1\nb: \"é\" x\n";
        let index = LineIndex::new(text);
        assert_eq!(
            index.position(text, 0),
            Position {
                line: 1,
                column: 1,
                offset: 0
            }
        );
        let x = text.find('x').unwrap();
        assert_eq!(
            index.position(text, x),
            Position {
                line: 2,
                column: 8,
                offset: x
            }
        );
        assert_eq!(index.position(text, text.len()).line, 3);
    }

    #[test]
    fn columns_on_long_lines_are_exact_across_chunks() {
        let text = format!("{}é{}x\n", "a".repeat(CHUNK - 1), "日".repeat(3000));
        let index = LineIndex::new(&text);
        let x = text.find('x').unwrap();
        assert_eq!(index.position(&text, x).column, CHUNK + 3000 + 1);
        let second = CHUNK - 1 + 'é'.len_utf8() + 3;
        assert_eq!(index.position(&text, second).column, CHUNK + 2);
        assert_eq!(index.position(&text, second + 1).column, CHUNK + 2);
        assert_eq!(index.position(&text, text.len()).column, 1);
    }

    #[test]
    fn short_and_long_column_counts_agree() {
        // Offsets on both sides of LONG_LINE, on a line that starts mid-chunk and
        // mixes one-, two- and three-byte characters.
        let line: String = "aé日".repeat(LONG_LINE / 2);
        let text = format!("xyz\n{line}\n");
        let index = LineIndex::new(&text);
        for offset in 4..text.len() - 1 {
            let naive = text.as_bytes()[4..offset]
                .iter()
                .filter(|&&b| (b & 0xC0) != 0x80)
                .count();
            let expected = if text.is_char_boundary(offset) {
                naive + 1
            } else {
                naive
            };
            assert_eq!(
                index.position(&text, offset).column,
                expected,
                "offset {offset}"
            );
        }
    }

    #[test]
    fn a_byte_order_mark_is_not_a_column() {
        let text = "\u{FEFF}{a: 1}\nb";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 0).column, 1);
        assert_eq!(index.position(text, 3).column, 1);
        assert_eq!(index.position(text, 4).column, 2);
        assert_eq!(index.position(text, text.len()).column, 2);
    }

    #[test]
    fn offset_inside_a_multibyte_character_counts_as_that_character() {
        let text = "é!";
        let index = LineIndex::new(text);
        assert_eq!(index.position(text, 1).column, 1);
        assert_eq!(index.position(text, 2).column, 2);
    }
}
