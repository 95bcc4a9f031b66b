//! Dropping the documents of the `---` chunks kubectl fails (a directive, a tab go-yaml
//! refuses, a bad anchor name, an empty document, a control character), with one error
//! per cause.
//!
//! kubectl's reader splits the stream at lines starting with `---` and converts each
//! chunk on its own, so an error fails the documents of its chunk only. Each drop used
//! to scan the whole text and every document: 50,000 tab errors in a 550 KB file took
//! 40 s. Here the separator lines are found once and every lookup is a binary search;
//! the results are those of applying the drops one after the other (the document an
//! error is charged to depends on the drops before it).

use std::collections::{BTreeMap, HashSet};

use super::{ParseOutput, Span, YamlError, YamlErrorKind};

/// One cause of a failed chunk: where, which kind, the message.
pub(super) type Drop<'m> = (usize, YamlErrorKind, &'m str);

/// Applies `drops` in order: the documents of each one's chunk leave `out.documents`,
/// and an error at its position names the document it stands for.
pub(super) fn drop_documents_at(out: &mut ParseOutput, text: &str, drops: &[Drop<'_>]) {
    if drops.is_empty() {
        return;
    }
    let starts: Vec<usize> = out.documents.iter().map(|d| d.root.span.start).collect();
    let errors_sorted = out
        .errors
        .windows(2)
        .all(|w| w[0].span.start <= w[1].span.start);
    if !starts.windows(2).all(|w| w[0] <= w[1]) || !errors_sorted {
        // Not produced by the parser (documents and errors come in text order); the
        // direct way is then the only safe one.
        for &(at, kind, message) in drops {
            drop_one(out, text, at, kind, message);
        }
        return;
    }
    let mut state = Drops::new(text, out, starts);
    let new_errors: Vec<YamlError> = drops
        .iter()
        .map(|&(at, kind, message)| YamlError {
            kind,
            message: message.to_string(),
            span: Span::point(at),
            document: state.drop_chunk_of(at),
        })
        .collect();
    let removed = state.removed;
    let mut index = 0;
    out.documents.retain(|_| {
        index += 1;
        !removed[index - 1]
    });
    out.errors.extend(new_errors);
    // Stable: among errors at one position, the parser's come first, then the drops in
    // order (as when each drop sorted the list after adding its error).
    out.errors.sort_by_key(|e| e.span.start);
}

struct Drops<'o> {
    text: &'o str,
    /// Starts of the lines that begin with `---` (kubectl's chunk boundaries).
    separators: Vec<usize>,
    /// `root.span.start` of each document, in order.
    starts: Vec<usize>,
    /// `index` of each document.
    indices: Vec<usize>,
    removed: Vec<bool>,
    /// Chunks (by start) whose documents are gone.
    emptied: HashSet<usize>,
    /// For each document position, the nearest document at or before it still kept
    /// (`None`: none); path-compressed as documents go.
    kept_before: Vec<Option<usize>>,
    /// The parser's errors' positions and documents, in order.
    errors: Vec<(usize, usize)>,
    /// The errors added so far: (position, order added) → document.
    added: BTreeMap<(usize, usize), usize>,
}

impl<'o> Drops<'o> {
    fn new(text: &'o str, out: &ParseOutput, starts: Vec<usize>) -> Self {
        let bytes = text.as_bytes();
        let first = is_separator(text, 0).then_some(0);
        let rest = memchr::memchr_iter(b'\n', bytes)
            .map(|i| i + 1)
            .filter(|&line| is_separator(text, line));
        let n = starts.len();
        Drops {
            text,
            separators: first.into_iter().chain(rest).collect(),
            indices: out.documents.iter().map(|d| d.index).collect(),
            starts,
            removed: vec![false; n],
            emptied: HashSet::new(),
            kept_before: (0..n).map(Some).collect(),
            errors: out
                .errors
                .iter()
                .map(|e| (e.span.start, e.document))
                .collect(),
            added: BTreeMap::new(),
        }
    }

    /// Drops the documents of the chunk holding `at`; returns the document its error
    /// names: the chunk's first document, else the document of the chunk's first error,
    /// else the one after the last document kept before the chunk.
    fn drop_chunk_of(&mut self, at: usize) -> usize {
        let text = self.text;
        let here = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let next_line = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        let chunk_start = match self.separators.partition_point(|&s| s <= here) {
            0 => 0,
            i => self.separators[i - 1],
        };
        let chunk_end = self
            .separators
            .get(self.separators.partition_point(|&s| s < next_line))
            .copied()
            .unwrap_or(text.len())
            .max(chunk_start + 1);
        let document = self.empty_chunk(chunk_start, chunk_end);
        let document = document
            .or_else(|| self.first_error_in(chunk_start, chunk_end))
            .unwrap_or_else(|| self.after_kept_before(chunk_start));
        let order = self.added.len();
        self.added.insert((at, order), document);
        document
    }

    /// Removes the documents starting in `[start, end)`; the first one's index.
    fn empty_chunk(&mut self, start: usize, end: usize) -> Option<usize> {
        if !self.emptied.insert(start) {
            return None;
        }
        let from = self.starts.partition_point(|&s| s < start);
        let to = self.starts.partition_point(|&s| s < end);
        let mut first = None;
        for i in from..to {
            if !self.removed[i] {
                self.removed[i] = true;
                self.kept_before[i] = i.checked_sub(1);
                first.get_or_insert(self.indices[i]);
            }
        }
        first
    }

    /// The document of the first error in `[start, end)`, the parser's before the added
    /// ones at the same position.
    fn first_error_in(&self, start: usize, end: usize) -> Option<usize> {
        let parsed = self
            .errors
            .get(self.errors.partition_point(|&(s, _)| s < start))
            .filter(|&&(s, _)| s < end)
            .copied();
        let added = self
            .added
            .range((start, 0)..(end, 0))
            .next()
            .map(|(&(s, _), &d)| (s, d));
        match (parsed, added) {
            (Some(p), Some(a)) if a.0 < p.0 => Some(a.1),
            (Some(p), _) => Some(p.1),
            (None, a) => a.map(|a| a.1),
        }
    }

    /// One past the index of the last document kept that starts before `start` (0 if
    /// there is none).
    fn after_kept_before(&mut self, start: usize) -> usize {
        let i = self.starts.partition_point(|&s| s < start);
        let Some(last) = i.checked_sub(1) else {
            return 0;
        };
        self.kept(last).map_or(0, |k| self.indices[k] + 1)
    }

    /// The nearest kept document at or before position `i`.
    fn kept(&mut self, i: usize) -> Option<usize> {
        let mut root = Some(i);
        while let Some(r) = root {
            if !self.removed[r] {
                break;
            }
            root = self.kept_before[r];
        }
        // Path compression: every removed document on the way points at the answer.
        let mut at = Some(i);
        while let Some(a) = at {
            if !self.removed[a] {
                break;
            }
            at = self.kept_before[a];
            self.kept_before[a] = root;
        }
        root
    }
}

/// Whether the line starting at `line` is a separator kubectl's reader accepts: `---`,
/// then only white space or a comment. A line it refuses (`---n`, `--- {a: 1}`) ends
/// its reading there (`cut_at_separator`): it is no chunk boundary, and a chunk that
/// fails further down fails from its last real separator (yaml_spans finding: a blanked
/// comment read as content after `---n` was charged to a chunk starting at `---n`, and
/// the document holding it stayed).
fn is_separator(text: &str, line: usize) -> bool {
    let bytes = text.as_bytes();
    if !bytes[line..].starts_with(b"---") {
        return false;
    }
    let end = memchr::memchr(b'\n', &bytes[line..]).map_or(text.len(), |i| line + i);
    // Go's strings.TrimSpace and Rust's trim share Unicode's White_Space.
    let rest = text[line + 3..end].trim();
    rest.is_empty() || rest.starts_with('#')
}

/// One drop applied directly (for outputs not in text order).
fn drop_one(out: &mut ParseOutput, text: &str, at: usize, kind: YamlErrorKind, message: &str) {
    let line_start = |p: usize| text[..p].rfind('\n').map_or(0, |i| i + 1);
    let separator_lines = |from: usize| {
        let mut line = from;
        std::iter::from_fn(move || {
            while line < text.len() {
                let start = line;
                line = text[start..]
                    .find('\n')
                    .map_or(text.len(), |i| start + i + 1);
                if is_separator(text, start) {
                    return Some(start);
                }
            }
            None
        })
    };
    let here = line_start(at);
    let chunk_start = separator_lines(0)
        .take_while(|&s| s <= here)
        .last()
        .unwrap_or(0);
    let next_line = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
    let chunk_end = separator_lines(next_line).next().unwrap_or(text.len());
    let inside = |p: usize| p >= chunk_start && p < chunk_end.max(chunk_start + 1);
    let mut document = None;
    out.documents.retain(|d| {
        let keep = !inside(d.root.span.start);
        if !keep {
            document.get_or_insert(d.index);
        }
        keep
    });
    let document = document
        .or_else(|| {
            out.errors
                .iter()
                .find(|e| inside(e.span.start))
                .map(|e| e.document)
        })
        .unwrap_or_else(|| {
            out.documents
                .iter()
                .filter(|d| d.root.span.start < chunk_start)
                .map(|d| d.index + 1)
                .max()
                .unwrap_or(0)
        });
    out.errors.push(YamlError {
        kind,
        message: message.to_string(),
        span: Span::point(at),
        document,
    });
    out.errors.sort_by_key(|e| e.span.start);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::yaml::{Limits, parse_attempt};

    /// Chunks start only at the separators kubectl's reader accepts.
    #[test]
    fn refused_separator_lines_are_no_chunk_boundaries() {
        let text = "---\n--- #c\n---\t\n---n\n--- a\n----\n---\u{2003}\n";
        let lines: Vec<usize> = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .filter(|&l| l < text.len())
            .collect();
        let accepted: Vec<bool> = lines.iter().map(|&l| is_separator(text, l)).collect();
        assert_eq!(accepted, [true, true, true, false, false, false, true]);
        // A drop below `---n` fails the chunk from the `---` above it.
        let text = "a: 1\n---\n|\n---n\nc\n";
        let (mut out, _) = parse_attempt(text, &Limits::default());
        assert_eq!(out.documents.len(), 2, "{:?}", out.documents);
        drop_documents_at(&mut out, text, &[(text.len() - 2, YamlErrorKind::Tab, "x")]);
        let left: Vec<usize> = out.documents.iter().map(|d| d.index).collect();
        assert_eq!(left, [0]);
        assert_eq!(out.errors.last().map(|e| e.document), Some(1));
    }

    /// The batch gives what the drops applied one by one give, on texts with chunks
    /// with and without documents, several drops per chunk and parser errors.
    #[test]
    fn batched_drops_match_drops_one_by_one() {
        let texts = [
            "a: 1\n---\nb: 2\n---\n\nc: 3\n...\n---\nd: [\n---\ne: 5\n",
            "---\n---\nx: 1\n---\n---\ny: 2\n",
            "k: v\n",
            "---\na: 1\n...\nb: 2\n---\nc: 3\n",
            "a: 1\n--- \nb: 2\n---x\nc: 3\n",
        ];
        for text in texts {
            let (base, _) = parse_attempt(text, &Limits::default());
            let positions: Vec<usize> = (0..text.len())
                .filter(|&i| text.is_char_boundary(i))
                .collect();
            // Every pair and triple of positions, in both orders.
            for (n, &a) in positions.iter().enumerate() {
                for &b in positions.iter().skip(n / 2) {
                    for &c in [a, b, text.len() / 2].iter() {
                        let drops: Vec<Drop<'_>> = vec![
                            (a, YamlErrorKind::Tab, "t"),
                            (b, YamlErrorKind::AnchorName, "a"),
                            (c, YamlErrorKind::EmptyDocument, "e"),
                        ];
                        let mut batched = base.clone();
                        drop_documents_at(&mut batched, text, &drops);
                        let mut one_by_one = base.clone();
                        for &(at, kind, message) in &drops {
                            drop_one(&mut one_by_one, text, at, kind, message);
                        }
                        assert_eq!(
                            format!("{:?}", batched.errors),
                            format!("{:?}", one_by_one.errors),
                            "{text:?} {drops:?}"
                        );
                        let starts = |o: &ParseOutput| {
                            o.documents
                                .iter()
                                .map(|d| (d.index, d.root.span.start))
                                .collect::<Vec<_>>()
                        };
                        assert_eq!(starts(&batched), starts(&one_by_one), "{text:?} {drops:?}");
                    }
                }
            }
        }
    }
}
