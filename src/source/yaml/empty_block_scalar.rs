//! A block scalar that is a whole document and has no content before the next document
//! marker (`|` then `---`): saphyr takes the marker line and everything after it for the
//! scalar's content (it looks for markers only once content has started), so the
//! documents after it vanished into one string. go-yaml ends the scalar at the marker,
//! empty, and kubectl's reader cuts the stream there anyway.
//!
//! The loader hides such a header from saphyr as a one-word plain scalar of the same
//! length ([`EmptyRootScalar::mask`]), then gives the document back its empty block
//! scalar ([`restore`]). Found by fuzzing (yaml_spans).

use super::super::node::{ScalarStyle, Value};
use super::super::span::Span;
use super::ParseOutput;

/// One header to hide.
pub(super) struct EmptyRootScalar {
    /// Where the `|` or `>` stands.
    indicator: usize,
    literal: bool,
    /// The scalar's value: empty, or the kept line breaks with `+`.
    value: String,
}

impl EmptyRootScalar {
    /// Replaces the indicator with a plain scalar's first character (byte for byte).
    pub(super) fn mask(&self, bytes: &mut [u8]) {
        bytes[self.indicator] = b'x';
    }
}

/// The empty block scalars that open a document and end at a document marker.
pub(super) fn find(text: &str) -> Vec<EmptyRootScalar> {
    let b = text.as_bytes();
    if memchr::memchr2(b'|', b'>', b).is_none() {
        return Vec::new();
    }
    // Documents start at the text's start and after marker lines: only those lines are
    // looked at (a file has far fewer documents than lines).
    let after_markers = memchr::memmem::find_iter(b, b"\n---")
        .chain(memchr::memmem::find_iter(b, b"\n..."))
        .map(|i| i + 1)
        .chain(std::iter::once(0))
        .filter(|&line| is_marker(line_at(text, line).1))
        .map(|line| line_at(text, line).0);
    let mut starts: Vec<usize> = std::iter::once(0).chain(after_markers).collect();
    starts.sort_unstable();
    let mut out = Vec::new();
    for start in starts {
        let mut lines = lines_from(text, start);
        // Comments and blank lines may come first; a marker starts another document.
        let Some((indicator, line)) = lines.find(|(_, l)| {
            let t = l.trim_start_matches([' ', '\t']);
            !t.is_empty() && !t.starts_with('#')
        }) else {
            continue;
        };
        let Some((literal, keep)) = header(line).filter(|_| !is_marker(line)) else {
            continue;
        };
        let mut breaks = 0;
        let ends_at_marker = loop {
            match lines.next() {
                Some((_, l)) if l.bytes().all(|c| c == b' ') => breaks += 1,
                Some((_, l)) => break is_marker(l),
                None => break false,
            }
        };
        if ends_at_marker {
            out.push(EmptyRootScalar {
                indicator,
                literal,
                value: if keep {
                    "\n".repeat(breaks)
                } else {
                    String::new()
                },
            });
        }
    }
    out
}

/// Puts the empty block scalars back as the documents' roots.
pub(super) fn restore(out: &mut ParseOutput, found: &[EmptyRootScalar]) {
    for f in found {
        if let Some(doc) = out
            .documents
            .iter_mut()
            .find(|d| d.root.span.start == f.indicator)
            && matches!(doc.root.value, Value::String(_))
            && doc.root.style == ScalarStyle::Plain
        {
            doc.root.value = Value::String(f.value.clone());
            doc.root.style = if f.literal {
                ScalarStyle::Literal
            } else {
                ScalarStyle::Folded
            };
            doc.root.span = Span::new(f.indicator, doc.root.span.end);
        }
    }
}

/// The line starting at `start`: its end (after the line break) and its text without
/// the line break (and a `\r` before it).
fn line_at(text: &str, start: usize) -> (usize, &str) {
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    (
        (end + 1).min(text.len()),
        text[start..end].trim_end_matches('\r'),
    )
}

/// The lines from `start` on, with their start offsets.
fn lines_from(text: &str, mut start: usize) -> impl Iterator<Item = (usize, &str)> {
    std::iter::from_fn(move || {
        if start >= text.len() {
            return None;
        }
        let (next, line) = line_at(text, start);
        let item = (start, line);
        start = next;
        Some(item)
    })
}

/// A document marker line as go-yaml reads it (`---` or `...` then a blank or the end),
/// or kubectl's separator with a comment (`---#`).
fn is_marker(line: &str) -> bool {
    let b = line.as_bytes();
    (b.starts_with(b"---") || b.starts_with(b"..."))
        && matches!(b.get(3), None | Some(b' ' | b'\t'))
        || b.starts_with(b"---#")
}

/// A block scalar header at the start of a line: `|` or `>`, then chomping and
/// indentation indicators, then blanks and an optional comment. Returns (literal, keep).
fn header(line: &str) -> Option<(bool, bool)> {
    let b = line.as_bytes();
    let literal = match b.first()? {
        b'|' => true,
        b'>' => false,
        _ => return None,
    };
    let mut i = 1;
    let mut keep = false;
    let mut chomping = false;
    let mut indent = false;
    while let Some(&c) = b.get(i) {
        match c {
            b'+' | b'-' if !chomping => {
                chomping = true;
                keep = c == b'+';
            }
            b'1'..=b'9' if !indent => indent = true,
            _ => break,
        }
        i += 1;
    }
    let rest = &line[i..];
    let after = rest.trim_start_matches([' ', '\t']);
    let blank_before_comment = after.len() < rest.len();
    (after.is_empty() || (after.starts_with('#') && blank_before_comment))
        .then_some((literal, keep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_headers_that_open_a_document_and_end_at_a_marker() {
        let at = |t: &str| find(t).iter().map(|f| f.indicator).collect::<Vec<_>>();
        assert_eq!(at("|\n---\ny: 1\n"), vec![0]);
        assert_eq!(at("# c\n>-  # c\n\n...\n"), vec![4]);
        assert_eq!(at("a: 1\n---\n|2\n---#\n"), vec![9]);
        // Content, no marker, or not at a document's start: saphyr is right.
        assert_eq!(at("---\n|\n---\n"), vec![4]);
        assert!(at("|\n x\n---\n").is_empty());
        assert!(at("|\n").is_empty());
        assert!(at("a:\n|\n---\n").is_empty());
        assert!(at("|x\n---\n").is_empty());
        assert_eq!(find("|+\n\n  \n---\n")[0].value, "\n\n");
    }
}
