//! Accepting the flow-context indentation that go-yaml accepts and saphyr 0.3.3 rejects.
//!
//! libyaml (and so go-yaml, and so Kubernetes) does not check indentation inside flow
//! collections or inside quoted scalars. saphyr does, and wrongly rejects common manifests
//! such as
//! ```yaml
//!     args: [
//!       "echo",
//!     ]
//! ```
//! (saphyr-rs/saphyr PR #101/#108, not in 0.3.3), or a quoted scalar continued at the
//! key's column. Indentation there only ever decodes to nothing (leading blanks of a
//! continuation line are dropped), so when saphyr reports such an error we indent the lines
//! concerned, parse again, and map every span of the result back to the original text.
//! Values are unchanged, and `source::inner` still decodes the original bytes.

use super::{Builder, ParseOutput, Span, closing_quote_end, is_blank_or_break, parse_attempt};
use crate::source::node::{Node, Value};
use crate::source::yaml::{Limits, ParseBudget};

/// At most this many corrected attempts per file.
const MAX_ATTEMPTS: usize = 32;

/// At most this many bytes of indentation inserted in all (or an eighth of the text,
/// if more): each attempt parses the whole padded text, and pads accumulate (a fuzzed
/// 22 KB file grew to 12 MB over 32 attempts and took a second). Real manifests need a
/// few columns on a few lines.
const MAX_INSERTED: usize = 64 * 1024;

/// Lines to indent (their start offsets, in the text of the failed attempt) by `pad` spaces.
pub(super) struct Fix {
    line_starts: Vec<usize>,
    pad: usize,
    /// Where the error was (in the failed attempt's text).
    at: usize,
}

/// The fix for an indentation error that go-yaml would not report, if this is one.
pub(super) fn fix_for(builder: &Builder<'_>, info: &str, at: usize) -> Option<Fix> {
    let text = builder.text;
    let b = text.as_bytes();
    let (first_line, end, pad) = match info {
        "invalid indentation" | "invalid indentation in flow construct" => {
            // Only inside a flow collection: find the outermost one still open.
            let is_flow = |start: usize| matches!(b.get(start), Some(b'[' | b'{'));
            let outer = builder.frames.iter().find(|f| is_flow(f.start))?;
            let open = builder.frames.iter().filter(|f| is_flow(f.start)).count();
            let end = flow_end(b, at, open);
            (line_start(b, at), end, column(text, outer.start) + 1)
        }
        "invalid indentation in quoted scalar" => {
            // saphyr marks the opening quote; indent every continuation line.
            if !matches!(b.get(at), Some(b'"' | b'\'')) {
                return None;
            }
            let end = closing_quote_end(b, at, b.len());
            (next_line(b, at)?, end, column(text, at) + 1)
        }
        "simple key expect ':'" => {
            // A block scalar header alone on its line, at the column of the key or `-`
            // it is the value of: go-yaml reads the scalar, saphyr a key.
            let header = header_at_parent_column(b, at)?;
            (header, header, 1)
        }
        _ => return None,
    };
    let mut line_starts = Vec::new();
    let mut p = first_line;
    while p <= end && p < b.len() {
        if !is_document_marker(b, p) {
            line_starts.push(p);
        }
        match next_line(b, p) {
            Some(next) => p = next,
            None => break,
        }
    }
    (!line_starts.is_empty()).then_some(Fix {
        line_starts,
        pad,
        at,
    })
}

/// The start of the line above `at` that holds only a block scalar header (`|`, `>-`,
/// `|2 # c`) at the column of the line above it, a key without a value (`k:`) or a
/// lone `-`; the lines between the header and `at` are its content (more indented, or
/// blank). go-yaml reads such a header as the value (`k:` / `|` / `  a` is
/// `{k: "a\n"}`); saphyr takes it for the start of a key and fails. Indenting the header
/// line by one column changes no value.
fn header_at_parent_column(b: &[u8], at: usize) -> Option<usize> {
    let indentation = |p: usize| b[p..].iter().take_while(|&&c| c == b' ').count();
    let line_end = |p: usize| {
        b[p..]
            .iter()
            .position(|&c| c == b'\n' || c == b'\r')
            .map_or(b.len(), |i| p + i)
    };
    let is_blank = |p: usize| b[p..line_end(p)].iter().all(|&c| c == b' ' || c == b'\t');
    let mut line = line_start(b, at.min(b.len()));
    // Up to 1,000 content lines above the error.
    for _ in 0..1_000 {
        let column = indentation(line);
        let content = &b[line + column..line_end(line)];
        if matches!(content.first(), Some(b'|' | b'>')) && is_header(content) {
            let above = previous_content_line(b, line, &is_blank)?;
            let above_column = indentation(above);
            let above_content = without_comment(&b[above + above_column..line_end(above)]);
            // The key's column, after any `- ` before it (`- k:`).
            let mut key = 0;
            while above_content.len() > key + 1
                && above_content[key] == b'-'
                && matches!(above_content[key + 1], b' ' | b'\t')
            {
                key += 2;
                while matches!(above_content.get(key), Some(b' ' | b'\t')) {
                    key += 1;
                }
            }
            let owner_column = match &above_content[key..] {
                b"-" => Some(above_column + key),
                rest if rest.ends_with(b":") => Some(above_column + key),
                _ => None,
            };
            return (owner_column == Some(column)).then_some(line);
        }
        line = previous_content_line(b, line, &is_blank)?;
    }
    None
}

/// A line's content without a comment after a blank, and without trailing blanks.
fn without_comment(content: &[u8]) -> &[u8] {
    let end = content
        .windows(2)
        .position(|w| matches!(w[0], b' ' | b'\t') && w[1] == b'#')
        .unwrap_or(content.len());
    content[..end].trim_ascii_end()
}

/// Whether `content` (a line after its indentation) is a block scalar header: `|` or
/// `>`, at most one chomping and one indentation indicator, then blanks or a comment.
fn is_header(content: &[u8]) -> bool {
    let mut rest = &content[1..];
    let mut seen_chomping = false;
    let mut seen_indent = false;
    while let Some(&c) = rest.first() {
        match c {
            b'+' | b'-' if !seen_chomping => seen_chomping = true,
            b'1'..=b'9' if !seen_indent => seen_indent = true,
            _ => break,
        }
        rest = &rest[1..];
    }
    let trimmed = rest.trim_ascii_start();
    trimmed.is_empty() || (trimmed.len() < rest.len() && trimmed.first() == Some(&b'#'))
}

/// The start of the nearest line above the one starting at `line` that is not blank.
fn previous_content_line(b: &[u8], line: usize, is_blank: &dyn Fn(usize) -> bool) -> Option<usize> {
    let mut p = line;
    loop {
        p = line_above(b, p)?.0;
        if !is_blank(p) {
            return Some(p);
        }
    }
}

/// saphyr 0.3.3 lets a block scalar that is a whole document, with content at column 0,
/// run on past a `---` or `...` line (`"|\nx\n---\nb\n"` loads as one string), where
/// YAML (and go-yaml) ends the document. Indenting its content lines by one space changes
/// nothing in the value (the indentation is detected from the first line) and makes saphyr
/// stop at the marker. `start..end` is saphyr's span of the scalar: from its first content
/// character to the end of its content.
pub(super) fn root_block_scalar_fix(text: &str, start: usize, end: usize) -> Option<Fix> {
    let b = text.as_bytes();
    let first = line_start(b, start);
    let mut line_starts = Vec::new();
    let mut p = first;
    while p < end.min(b.len()) {
        if is_document_marker(b, p) {
            // Without content lines to indent there is nothing to fix (and no progress).
            return (!line_starts.is_empty()).then_some(Fix {
                line_starts,
                pad: 1,
                at: p,
            });
        }
        line_starts.push(p);
        p = next_line(b, p)?;
    }
    None
}

/// Parses again with the lines indented, until saphyr is satisfied (or gives up).
pub(super) fn reparse(
    original: &str,
    limits: &Limits,
    mut out: ParseOutput,
    mut fix: Fix,
    budget: &ParseBudget,
) -> ParseOutput {
    let mut remap = Remap::default();
    let mut last_error = None;
    for _ in 0..MAX_ATTEMPTS {
        // Progress check: each attempt must fail later in the file than the one before.
        let error_at = remap.to_original(fix.at);
        if last_error.is_some_and(|prev| error_at <= prev) {
            break;
        }
        last_error = Some(error_at);
        let mut inserts = remap.inserts.clone();
        for &start in &fix.line_starts {
            let at = remap.to_original(start);
            match inserts.binary_search_by_key(&at, |&(o, _)| o) {
                Ok(i) => inserts[i].1 += fix.pad,
                Err(i) => inserts.insert(i, (at, fix.pad)),
            }
        }
        let inserted: usize = inserts.iter().map(|&(_, n)| n).sum();
        if inserted > MAX_INSERTED.max(original.len() / 8) {
            break;
        }
        let candidate = Remap::new(inserts);
        let text = candidate.apply(original);
        if !budget.take(&text) {
            break;
        }
        let (attempt, next) = parse_attempt(&text, limits);
        out = attempt;
        remap = candidate;
        match next {
            Some(next) => fix = next,
            None => break,
        }
    }
    remap.restore(&mut out);
    out
}

/// The start and the end (before its line break) of the line above the one that
/// starts at `line`.
pub(super) fn line_above(b: &[u8], line: usize) -> Option<(usize, usize)> {
    let end = line.checked_sub(1)?;
    let end = if b[end] == b'\n' && end > 0 && b[end - 1] == b'\r' {
        end - 1
    } else {
        end
    };
    Some((line_start(b, end), end))
}

/// The start of the line holding `at` (after LF, CR or CRLF).
pub(super) fn line_start(b: &[u8], at: usize) -> usize {
    b[..at.min(b.len())]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1)
}

/// The start of the line after the one holding `at`.
fn next_line(b: &[u8], at: usize) -> Option<usize> {
    let nl = at
        + b.get(at..)?
            .iter()
            .position(|&c| c == b'\n' || c == b'\r')?;
    let next = if b[nl] == b'\r' && b.get(nl + 1) == Some(&b'\n') {
        nl + 2
    } else {
        nl + 1
    };
    Some(next)
}

fn column(text: &str, at: usize) -> usize {
    let start = line_start(text.as_bytes(), at);
    text.get(start..at)
        .map_or(at - start, |s| s.chars().count())
}

fn is_document_marker(b: &[u8], p: usize) -> bool {
    (b[p..].starts_with(b"---") || b[p..].starts_with(b"..."))
        && b.get(p + 3).is_none_or(|&c| is_blank_or_break(c))
}

/// The offset of the bracket closing the `open` flow collections open at `from`.
fn flow_end(b: &[u8], from: usize, mut open: usize) -> usize {
    let mut p = from;
    while p < b.len() {
        let after_separator = p == 0
            || matches!(
                b[p - 1],
                b' ' | b'\t' | b'\r' | b'\n' | b'[' | b'{' | b',' | b':'
            );
        match b[p] {
            b'[' | b'{' => open += 1,
            b']' | b'}' => {
                open = open.saturating_sub(1);
                if open == 0 {
                    return p;
                }
            }
            b'"' | b'\'' if after_separator => {
                p = closing_quote_end(b, p, b.len());
                continue;
            }
            b'#' if p == 0 || is_blank_or_break(b[p - 1]) => {
                while p < b.len() && b[p] != b'\n' && b[p] != b'\r' {
                    p += 1;
                }
                continue;
            }
            _ => {}
        }
        p += 1;
    }
    b.len()
}

/// Spaces inserted into the original text: `(original offset, count)`, sorted.
#[derive(Clone, Default)]
struct Remap {
    inserts: Vec<(usize, usize)>,
    /// Offset of each insertion in the modified text, and the total inserted up to and
    /// including it.
    starts: Vec<usize>,
    cumulative: Vec<usize>,
}

impl Remap {
    fn new(inserts: Vec<(usize, usize)>) -> Self {
        let mut starts = Vec::with_capacity(inserts.len());
        let mut cumulative = Vec::with_capacity(inserts.len());
        let mut total = 0;
        for &(at, len) in &inserts {
            starts.push(at + total);
            total += len;
            cumulative.push(total);
        }
        Remap {
            inserts,
            starts,
            cumulative,
        }
    }

    fn apply(&self, original: &str) -> String {
        let extra = self.cumulative.last().copied().unwrap_or(0);
        let mut text = String::with_capacity(original.len() + extra);
        let mut from = 0;
        for &(at, len) in &self.inserts {
            text.push_str(&original[from..at]);
            text.extend(std::iter::repeat_n(' ', len));
            from = at;
        }
        text.push_str(&original[from..]);
        text
    }

    /// A modified-text offset back in the original (inserted spaces map to where they
    /// were inserted).
    fn to_original(&self, offset: usize) -> usize {
        let i = self.starts.partition_point(|&s| s <= offset);
        if i == 0 {
            return offset;
        }
        let j = i - 1;
        let (at, len) = self.inserts[j];
        if offset < self.starts[j] + len {
            at
        } else {
            offset - self.cumulative[j]
        }
    }

    fn span(&self, span: Span) -> Span {
        Span::new(self.to_original(span.start), self.to_original(span.end))
    }

    fn restore(&self, out: &mut ParseOutput) {
        if self.inserts.is_empty() {
            return;
        }
        for e in &mut out.errors {
            e.span = self.span(e.span);
        }
        for at in &mut out.flow_colons {
            *at = self.to_original(*at);
        }
        let mut stack: Vec<&mut Node> = out.documents.iter_mut().map(|d| &mut d.root).collect();
        while let Some(node) = stack.pop() {
            node.span = self.span(node.span);
            match &mut node.value {
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(map) => {
                    for e in &mut map.entries {
                        e.key_span = self.span(e.key_span);
                        stack.push(&mut e.value);
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remap_round_trip() {
        let r = Remap::new(vec![(2, 3), (5, 1)]);
        assert_eq!(r.apply("abcdefg"), "ab   cde fg");
        let want = [0, 1, 2, 2, 2, 2, 3, 4, 5, 5, 6, 7];
        for (m, &o) in want.iter().enumerate() {
            assert_eq!(r.to_original(m), o, "modified offset {m}");
        }
    }

    #[test]
    fn flow_end_skips_quotes_and_comments() {
        let b = b"[a, \"]\", 'x]', it's, # ]\n [b]] tail";
        assert_eq!(flow_end(b, 1, 1), 29);
    }
}
