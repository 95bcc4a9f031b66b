//! `...` lines, as kubectl reads them.
//!
//! kubectl cuts a stream into chunks at `---` lines and converts each chunk with
//! sigs.k8s.io/yaml, which decodes the chunk's first YAML document and reads no further.
//! So after a `...` (document end) line, the rest of its chunk is never read: kubectl
//! applies nothing from it, right or wrong. The same holds after a document that ends
//! without `...`: a line less indented than a root collection, or more content after a
//! root scalar or flow collection. And a chunk whose first token is `...` fails: go-yaml
//! wants a node before it ("did not find expected node content").
//!
//! saphyr reads on after `...`, and refuses content after an implicit document end ("did
//! not find expected <document start>"). The loader gives saphyr spaces for what kubectl
//! does not read (after an implicit end, once saphyr has said where it is), reports that
//! content with a warning, and fails a chunk that starts with `...`.
//! (Recorded with the 1.35 libraries behind kubectl-validate's chunk reader.)

use super::Span;

pub(super) const EMPTY_DOCUMENT: &str = "did not find expected node content";

pub(super) const IGNORED_CONTENT: &str = "kubectl never reads this: it reads one document per `---` section, and this is after the first";

pub(super) struct DocumentEnd {
    /// Offset of the `...` line.
    pub marker: usize,
    /// What saphyr is given as spaces: the rest of the chunk after the marker line, or
    /// the whole chunk when it has no content before the marker.
    pub blanked: Span,
    /// The first content kubectl never reads (not a blank or comment line).
    pub ignored_content: Option<usize>,
    /// No content before the marker in its chunk: go-yaml fails the chunk.
    pub without_content: bool,
    /// The marker is a `---` after a lone CR: saphyr is given `...` for it (the end of
    /// the document, without the empty one a `---` would start), and comment lines for
    /// the rest (see [`blank_as_comments`]).
    pub start_marker: bool,
}

impl DocumentEnd {
    pub fn blank(&self, text: &mut [u8]) {
        if self.start_marker {
            // The marker becomes `...`: saphyr ends the document there, as go-yaml does
            // at the `---`, and closes a root block scalar, which would take the
            // comment lines below for content (yaml_spans finding: `|` then `\r---\r`).
            text[self.marker..self.marker + 3].copy_from_slice(b"...");
            blank_as_comments(text, Span::new(self.marker + 3, self.blanked.end));
        } else {
            blank(text, self.blanked);
        }
    }
}

/// Spaces for everything in `span` but line breaks.
pub(super) fn blank(text: &mut [u8], span: Span) {
    for b in &mut text[span.start..span.end] {
        if !matches!(*b, b'\n' | b'\r') {
            *b = b' ';
        }
    }
}

/// Blanks content after a document that ended without `...`: each whole line becomes a
/// comment (`#` and spaces). Spaces alone would not do: a block scalar still open in
/// saphyr's view would take long blank lines as content lines.
pub(super) fn blank_as_comments(text: &mut [u8], span: Span) {
    blank(text, span);
    let mut line = span.start;
    while line < span.end {
        let at_line_start = line == 0 || matches!(text[line - 1], b'\n' | b'\r');
        if at_line_start && !matches!(text[line], b'\n' | b'\r') {
            text[line] = b'#';
        }
        // A lone CR ends a line for saphyr too.
        line =
            memchr::memchr2(b'\n', b'\r', &text[line..span.end]).map_or(span.end, |i| line + i + 1);
    }
}

/// Whether `at` is the start of a line kubectl's reader cuts the stream at (`---` at the
/// start of a line that begins after an LF, or the text).
pub(super) fn is_marker_line(text: &str, at: usize) -> bool {
    let b = text.as_bytes();
    (at == 0 || b.get(at - 1) == Some(&b'\n')) && b[at.min(b.len())..].starts_with(b"---")
}

/// Where the `---` section holding `at` ends: at the next line that starts with `---`.
pub(super) fn section_end(text: &str, at: usize) -> usize {
    let b = text.as_bytes();
    let mut line = memchr::memchr(b'\n', &b[at.min(b.len())..]).map_or(b.len(), |i| at + i + 1);
    while line < b.len() {
        if b[line..].starts_with(b"---") {
            return line;
        }
        line = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |i| line + i + 1);
    }
    b.len()
}

/// The first `...` line of each chunk (a JSON stream, which kubectl does not read in
/// chunks, has none).
///
/// Chunks are cut at `---` lines as kubectl's reader cuts them, at LF line breaks; a
/// `...` marker is found where go-yaml finds one, at the start of any line, also after a
/// lone CR (found by fuzzing: `\r...\r%😀` left a directive to saphyr that kubectl never
/// reads, and saphyr misplaced every later span). A `---` after a lone CR (classic Mac
/// line ends) does not cut a chunk: to go-yaml it starts the chunk's document when none
/// has begun, else it ends the first document like `...`, and kubectl reads nothing
/// after it up to the next chunk.
pub(super) fn document_ends(text: &str) -> Vec<DocumentEnd> {
    let b = text.as_bytes();
    if !b.starts_with(b"...")
        && !b.starts_with("\u{FEFF}...".as_bytes())
        && memchr::memmem::find(b, b"\n...").is_none()
        && memchr::memmem::find(b, b"\r...").is_none()
        && memchr::memmem::find(b, b"\r---").is_none()
    {
        return Vec::new();
    }
    // A JSON stream is not read in chunks (a text that starts with `{` and is not JSON
    // throughout is YAML to kubectl from where JSON fails: see `json_stream`).
    if super::json_stream::is_json(text) {
        return Vec::new();
    }
    let mut out: Vec<DocumentEnd> = Vec::new();
    let mut chunk_start = 0;
    // kubectl's YAMLReader keeps a `---` line it reads into an empty buffer (the first
    // line of the file, or the second of two separator lines): that chunk starts with an
    // explicit document start, and `...` right after it ends an empty document.
    let mut buffer_empty = true;
    let mut explicit_start = false;
    let mut content_before = false;
    let mut ended = false;
    let mut line = 0;
    // Whether `line` starts a line of kubectl's reader (after an LF, or the first).
    let mut reader_line = true;
    while line < b.len() {
        let next = memchr::memchr2(b'\n', b'\r', &b[line..]).map_or(b.len(), |i| {
            let at = line + i;
            if b[at] == b'\r' && b.get(at + 1) == Some(&b'\n') {
                at + 2
            } else {
                at + 1
            }
        });
        let rest = &text[line..next];
        let trimmed = rest.trim_start();
        // A directive before the chunk's first content is its prologue, not content
        // (kubectl fails it unless a `---` after a lone CR follows in the same chunk).
        let directive = !content_before && rest.trim_start_matches('\u{FEFF}').starts_with('%');
        let is_content = !trimmed.is_empty() && !trimmed.starts_with('#') && !directive;
        // A byte order mark at the start of the file takes no column: go-yaml strips
        // it before reading (found by fuzzing: `\u{FEFF}...\r%│` left a directive to
        // saphyr). Later in the stream go-yaml skips one at the start of a line but
        // counts its column, so `...` after it is no marker (see `directive_lines`).
        let bom = if line == 0 && rest.starts_with('\u{FEFF}') {
            3
        } else {
            0
        };
        let is_marker = rest[bom..].starts_with("...")
            && matches!(
                b.get(line + bom + 3),
                None | Some(b' ' | b'\t' | b'\r' | b'\n')
            );
        let separator = reader_line && rest.starts_with("---");
        let start_marker = !reader_line
            && rest.starts_with("---")
            && matches!(b.get(line + 3), None | Some(b' ' | b'\t' | b'\r' | b'\n'));
        reader_line = b[..next].ends_with(b"\n");
        if separator {
            if buffer_empty {
                explicit_start = true;
                buffer_empty = false;
            } else {
                if ended && let Some(last) = out.last_mut() {
                    last.blanked.end = line;
                }
                chunk_start = next;
                buffer_empty = true;
                explicit_start = false;
                content_before = false;
                ended = false;
            }
        } else if !ended && is_marker {
            buffer_empty = false;
            let without_content = !content_before && !explicit_start;
            // Content on the marker's own line (`... x`) is never read either: go-yaml
            // stops at the marker, saphyr would refuse it.
            let after = line + bom + 3;
            let blanked_start = if without_content { chunk_start } else { after };
            let rest_of_line = &text[after..next];
            let content = rest_of_line.trim_start();
            let ignored_content =
                (!without_content && !content.is_empty() && !content.starts_with('#'))
                    .then(|| after + (rest_of_line.len() - content.len()));
            out.push(DocumentEnd {
                marker: line + bom,
                blanked: Span::new(blanked_start, b.len()),
                ignored_content,
                without_content,
                start_marker: false,
            });
            ended = true;
        } else if !ended && start_marker {
            buffer_empty = false;
            if content_before || explicit_start {
                // Content on the marker's own line is the first kubectl never reads.
                let after = &rest[3..];
                let content = after.trim_start();
                let ignored_content = (!content.is_empty() && !content.starts_with('#'))
                    .then(|| line + 3 + (after.len() - content.len()));
                out.push(DocumentEnd {
                    marker: line,
                    blanked: Span::new(line, b.len()),
                    ignored_content,
                    without_content: false,
                    start_marker: true,
                });
                ended = true;
            } else {
                explicit_start = true;
            }
        } else {
            buffer_empty = false;
            if ended {
                if let Some(last) = out.last_mut()
                    && last.ignored_content.is_none()
                    && is_content
                    && !is_marker
                    && !last.without_content
                {
                    last.ignored_content = Some(line + (rest.len() - trimmed.len()));
                }
            } else if is_content {
                content_before = true;
            }
        }
        line = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_after_a_document_end_is_ignored() {
        let text = "a: 1\n...\n# c\nb: 2\n---\nc: 3\n";
        let ends = document_ends(text);
        assert_eq!(ends.len(), 1);
        let end = &ends[0];
        assert_eq!(end.marker, 5);
        // From the end of the marker: the rest of its line is not read either.
        assert_eq!(end.blanked, Span::new(8, 18));
        assert_eq!(end.ignored_content, Some(13));
        assert!(!end.without_content);
        // Content on the marker's line is the first kubectl never reads.
        let ends = document_ends("a: 1\n... x\nb: 2\n");
        assert_eq!(ends[0].blanked, Span::new(8, 16));
        assert_eq!(ends[0].ignored_content, Some(9));
        assert_eq!(document_ends("a: 1\n... # c\n")[0].ignored_content, None);
    }

    #[test]
    fn a_chunk_that_starts_with_a_document_end_fails() {
        let ends = document_ends("a: 1\n---\n# c\n...\nb: 2\n");
        assert_eq!(ends.len(), 1);
        assert!(ends[0].without_content);
        assert_eq!(ends[0].blanked, Span::new(9, 22));
        assert_eq!(ends[0].ignored_content, None);
    }

    #[test]
    fn a_document_end_after_an_explicit_start_ends_an_empty_document() {
        // kubectl's reader keeps the file's first `---` line in the chunk: `---` then
        // `...` is an empty document, and what follows is never read.
        let ends = document_ends("---\n...\na: 1\n");
        assert_eq!(ends.len(), 1);
        assert!(!ends[0].without_content);
        assert_eq!(ends[0].ignored_content, Some(8));
        // After a separator that ended a chunk, `...` starts the next one: it fails.
        assert!(document_ends("x: 1\n---\n...\n")[0].without_content);
    }

    #[test]
    fn a_marker_after_a_lone_carriage_return_counts_but_a_separator_does_not() {
        // go-yaml breaks lines at a lone CR: `...` there ends the document.
        let ends = document_ends("a: 1\r...\rb: 2\n");
        assert_eq!(ends.len(), 1);
        assert_eq!(ends[0].marker, 5);
        assert_eq!(ends[0].ignored_content, Some(9));
        // kubectl's reader cuts chunks at LF lines only: this `---` is inside the chunk
        // kubectl never reads after `...`, so there is one chunk and one marker.
        let ends = document_ends("a: 1\n...\n\r---\n...\nb: 2\n");
        assert_eq!(ends.len(), 1);
        assert_eq!(ends[0].blanked, Span::new(8, 23));
    }

    #[test]
    fn a_separator_after_a_lone_carriage_return_starts_or_ends_the_document() {
        // No document has begun: it starts one (a directive before it is a prologue).
        assert!(document_ends("\r---\ra: 1\r").is_empty());
        let ends = document_ends("%YAML 1.1\r---\rk: 1\r---\ry\r");
        assert_eq!(ends.len(), 1);
        assert_eq!(ends[0].marker, 19);
        assert_eq!(ends[0].ignored_content, Some(23));
        assert!(ends[0].start_marker);
        // After content it ends the document; content on its own line is ignored too,
        // and the next LF separator starts a chunk kubectl reads.
        let ends = document_ends("a: 1\r--- b: 2\r\n---\nc: 3\n");
        assert_eq!(ends.len(), 1);
        assert_eq!(ends[0].ignored_content, Some(9));
        assert_eq!(ends[0].blanked, Span::new(5, 15));
    }

    #[test]
    fn only_markers_count() {
        assert!(document_ends("a: ...\n....\n...x\n").is_empty());
        // After a JSON value kubectl reads on as YAML, where `...` is a marker.
        assert_eq!(document_ends("{\"a\": 1}\n...\n").len(), 1);
        // One per chunk: the second `...` is in the part already ignored.
        let ends = document_ends("a: 1\n...\n...\nb: 2\n");
        assert_eq!(ends.len(), 1);
        assert_eq!(ends[0].ignored_content, Some(13));
    }
}
