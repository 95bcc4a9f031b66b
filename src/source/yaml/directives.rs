//! `%` directive lines (`%YAML 1.1`, `%TAG ! tag:x,2000:`), as kubectl reads them.
//!
//! kubectl cuts a stream into chunks at `---` lines that start after an LF, and
//! sigs.k8s.io/yaml (go-yaml v2) reads the first document of each. A directive line is
//! read by go-yaml's scanner wherever a `%` starts a line (column 0), with one of two
//! outcomes:
//! - before the chunk's document has begun (its prologue), directives are processed and
//!   go-yaml then wants `---`. The `---` line that follows a directive in a file cuts
//!   the chunk there, so `%YAML 1.1` alone fails ("did not find expected <document
//!   start>"); only a `---` after a lone CR (classic Mac line ends), which kubectl does
//!   not cut at, starts the document in the same chunk and makes a valid prologue;
//! - inside the document (after content, or after a `---` kubectl's reader kept at the
//!   start of a chunk), a directive that scans ends the document, and kubectl reads no
//!   further in the chunk; one that does not scan fails the chunk.
//!
//! saphyr's scanner reads directives differently (any name, other messages), so the
//! loader hides prologue directives from it and reports go-yaml's verdict, and turns
//! saphyr's complaint about an in-document directive into go-yaml's (see
//! [`in_document`]).
//! (Recorded with the 1.35 libraries behind kubectl-validate's chunk reader; the scanner
//! rules are go-yaml v2's `yaml_parser_scan_directive` and `process_directives`.)

use super::Span;

/// The directives of every chunk's prologue, and the errors go-yaml gives for them.
pub(super) struct Prologues {
    /// Directive lines to hide from saphyr (blanked byte for byte).
    pub lines: Vec<Span>,
    /// Per failing chunk, the directive line where go-yaml fails and its message.
    pub errors: Vec<(usize, &'static str)>,
}

/// What go-yaml's scanner makes of a directive line.
#[derive(Debug, PartialEq)]
enum Token<'a> {
    Version { major: u8, minor: u8 },
    Tag { handle: &'a [u8] },
}

/// Finds the directives that stand in a chunk's prologue and judges each chunk's
/// prologue as go-yaml does: the first scanner or processing error, else "did not find
/// expected <document start>" unless a `---` after a lone CR follows in the chunk.
///
/// Lines end as YAML breaks them, at LF, CRLF or a lone CR, and a byte order mark may
/// start a line: saphyr reads such `%` lines as directives too, and then miscounts the
/// positions after them (found by fuzzing: `\r%😀` and `\u{FEFF}%😀` shifted every
/// later span by three bytes), so they are hidden and judged as well. (After a `...`
/// line, a `%` line is in the part of a chunk kubectl never reads, which `document_end`
/// hides.)
pub(super) fn prologues(text: &str) -> Prologues {
    let bytes = text.as_bytes();
    let mut out = Prologues {
        lines: Vec::new(),
        errors: Vec::new(),
    };
    // One scan for a `%` at the start of a line (or after a byte order mark there);
    // `%` is rare in manifests.
    let line_start = |at: usize| {
        at == 0
            || matches!(bytes[at - 1], b'\n' | b'\r')
            || bytes[..at].ends_with("\u{FEFF}".as_bytes())
    };
    if !memchr::memchr_iter(b'%', bytes).any(line_start) {
        return out;
    }
    let mut chunk = Chunk::default();
    // kubectl's reader keeps a `---` line read into an empty buffer (the file's first
    // line, or the second of two separators): that chunk's document has begun.
    let mut buffer_empty = true;
    let mut in_prologue = true;
    // Whether `line` starts a line of kubectl's reader (after an LF, or the first).
    let mut reader_line = true;
    let mut line = 0;
    while line < text.len() {
        let end = memchr::memchr2(b'\n', b'\r', &bytes[line..]).map_or(text.len(), |i| line + i);
        let crlf = bytes.get(end) == Some(&b'\r') && bytes.get(end + 1) == Some(&b'\n');
        let next = if crlf { end + 2 } else { end + 1 };
        // saphyr takes a byte order mark at the start of a line as a token of its own
        // and reads what follows as the line's start.
        let bom = if text[line..end].starts_with('\u{FEFF}') {
            3
        } else {
            0
        };
        let content = &text[line + bom..end];
        // saphyr reads `...` after a byte order mark later in the stream as a document
        // end, where go-yaml reads content (it skips the mark but counts its column):
        // a `%` line after it would be a directive to saphyr only, which then shifts
        // every later span by its multi-byte characters (found by fuzzing). It is
        // hidden from saphyr and reported.
        let saphyr_document_end = bom > 0
            && line > 0
            && content.starts_with("...")
            && matches!(content.as_bytes().get(3), None | Some(b' ' | b'\t'));
        let marker = content.starts_with("---");
        if reader_line && marker {
            if buffer_empty {
                // Kept: the chunk's document has begun (its prologue is empty).
                buffer_empty = false;
                in_prologue = false;
            } else {
                chunk.close(false, &mut out.errors);
                in_prologue = true;
                buffer_empty = true;
            }
        } else if saphyr_document_end {
            chunk.close(false, &mut out.errors);
            in_prologue = true;
            buffer_empty = false;
        } else if marker && in_prologue {
            // A `---` after a lone CR: kubectl's reader does not cut here, go-yaml
            // starts the chunk's document (what follows is `document_end`'s business).
            let starts_document = matches!(
                content.as_bytes().get(3),
                None | Some(b' ' | b'\t' | b'\r' | b'\n')
            );
            chunk.close(starts_document, &mut out.errors);
            in_prologue = false;
            buffer_empty = false;
        } else {
            buffer_empty = false;
            if in_prologue && content.starts_with('%') {
                out.lines.push(Span::new(line + bom, end));
                chunk.directives.push(line + bom);
                if chunk.error.is_none() {
                    chunk.error = chunk.process(line + bom, &text[line + bom + 1..]);
                }
            } else if in_prologue
                && !content.trim().is_empty()
                && !content.trim_start().starts_with('#')
            {
                chunk.close(false, &mut out.errors);
                in_prologue = false;
            }
        }
        reader_line = crlf || bytes.get(end) == Some(&b'\n');
        line = next;
    }
    chunk.close(false, &mut out.errors);
    out
}

/// The prologue of the chunk being read.
#[derive(Default)]
struct Chunk<'a> {
    directives: Vec<usize>,
    version: bool,
    tag_handles: Vec<&'a [u8]>,
    error: Option<(usize, &'static str)>,
}

impl<'a> Chunk<'a> {
    /// go-yaml's scanning and processing of one directive: the error, if any.
    fn process(&mut self, at: usize, directive: &'a str) -> Option<(usize, &'static str)> {
        let message = match scan(directive.as_bytes()) {
            Err(message) => message,
            Ok(Token::Version { .. }) if self.version => "found duplicate %YAML directive",
            Ok(Token::Version { major, minor }) if (major, minor) != (1, 1) => {
                "found incompatible YAML document"
            }
            Ok(Token::Version { .. }) => {
                self.version = true;
                return None;
            }
            Ok(Token::Tag { handle }) if self.tag_handles.contains(&handle) => {
                "found duplicate %TAG directive"
            }
            Ok(Token::Tag { handle }) => {
                self.tag_handles.push(handle);
                return None;
            }
        };
        Some((at, message))
    }

    /// Ends the prologue (`document_start`: at a `---` that starts the document, else at
    /// content or the chunk's end), records its error, and starts afresh.
    fn close(&mut self, document_start: bool, errors: &mut Vec<(usize, &'static str)>) {
        let chunk = std::mem::take(self);
        if let Some(error) = chunk.error {
            errors.push(error);
        } else if !document_start && let Some(&first) = chunk.directives.first() {
            errors.push((first, "did not find expected <document start>"));
        }
    }
}

/// go-yaml's verdict on a directive line at `at` (a `%` at the start of a line) inside
/// a document, where saphyr refused it: `Ok` when go-yaml scans it (it ends the
/// document, and kubectl reads no further in the chunk), else go-yaml's message.
/// `None` when `at` is no directive to go-yaml (not at column 0).
pub(super) fn in_document(text: &str, at: usize) -> Option<Result<(), &'static str>> {
    let bytes = text.as_bytes();
    let column_zero = at == 0 || matches!(bytes[at - 1], b'\n' | b'\r');
    if !column_zero || bytes.get(at) != Some(&b'%') {
        return None;
    }
    Some(scan(&bytes[at + 1..]).map(|_| ()))
}

/// go-yaml v2's scanner on a directive (the text after its `%`).
fn scan(directive: &[u8]) -> Result<Token<'_>, &'static str> {
    let mut s = Scanner { b: directive, i: 0 };
    let name = s.take_while(is_alpha);
    if name.is_empty() {
        return Err("could not find expected directive name");
    }
    if !s.at_blankz() {
        return Err("found unexpected non-alphabetical character");
    }
    let token = match name {
        b"YAML" => {
            s.take_while(is_blank);
            let major = s.version_number()?;
            if s.peek() != Some(b'.') {
                return Err("did not find expected digit or '.' character");
            }
            s.i += 1;
            let minor = s.version_number()?;
            Token::Version { major, minor }
        }
        b"TAG" => {
            s.take_while(is_blank);
            let handle = s.tag_handle()?;
            if !s.peek().is_some_and(is_blank) {
                return Err("did not find expected whitespace");
            }
            s.take_while(is_blank);
            s.tag_uri()?;
            if !s.at_blankz() {
                return Err("did not find expected whitespace or line break");
            }
            Token::Tag { handle }
        }
        _ => return Err("found unknown directive name"),
    };
    s.take_while(is_blank);
    if s.peek() == Some(b'#') {
        while !s.at_breakz() {
            s.i += 1;
        }
    }
    if !s.at_breakz() {
        return Err("did not find expected comment or line break");
    }
    Ok(token)
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a [u8] {
        let start = self.i;
        while self.peek().is_some_and(&f) {
            self.i += 1;
        }
        &self.b[start..self.i]
    }

    /// A line break, NUL or the end (go-yaml's `is_breakz`, with NEL, LS and PS).
    fn at_breakz(&self) -> bool {
        let rest = &self.b[self.i..];
        matches!(rest.first(), None | Some(b'\r' | b'\n' | 0))
            || rest.starts_with("\u{85}".as_bytes())
            || rest.starts_with("\u{2028}".as_bytes())
            || rest.starts_with("\u{2029}".as_bytes())
    }

    fn at_blankz(&self) -> bool {
        self.peek().is_some_and(is_blank) || self.at_breakz()
    }

    /// At most two digits: go-yaml's `max_number_length`.
    fn version_number(&mut self) -> Result<u8, &'static str> {
        let digits = self.take_while(|b| b.is_ascii_digit());
        if digits.len() > 2 {
            return Err("found extremely long version number");
        }
        if digits.is_empty() {
            return Err("did not find expected version number");
        }
        Ok(digits.iter().fold(0, |n, d| n * 10 + (d - b'0')))
    }

    /// `!`, `!!` or `!name!`.
    fn tag_handle(&mut self) -> Result<&'a [u8], &'static str> {
        let start = self.i;
        if self.peek() != Some(b'!') {
            return Err("did not find expected '!'");
        }
        self.i += 1;
        self.take_while(is_alpha);
        if self.peek() == Some(b'!') {
            self.i += 1;
        } else if self.i - start != 1 {
            return Err("did not find expected '!'");
        }
        Ok(&self.b[start..self.i])
    }

    fn tag_uri(&mut self) -> Result<(), &'static str> {
        let start = self.i;
        while let Some(b) = self
            .peek()
            .filter(|&b| is_alpha(b) || b";/?:@&=+$,.!~*'()[]%".contains(&b))
        {
            if b == b'%' {
                self.uri_escapes()?;
            } else {
                self.i += 1;
            }
        }
        if self.i == start {
            return Err("did not find expected tag URI");
        }
        Ok(())
    }

    /// `%XX` escapes forming one UTF-8 character.
    fn uri_escapes(&mut self) -> Result<(), &'static str> {
        let mut width = None;
        loop {
            let octet = match self.b.get(self.i..self.i + 3) {
                Some([b'%', h, l]) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                    (hex(*h) << 4) | hex(*l)
                }
                _ => return Err("did not find URI escaped octet"),
            };
            let left = match width {
                None => match utf8_width(octet) {
                    0 => return Err("found an incorrect leading UTF-8 octet"),
                    w => w,
                },
                Some(w) => {
                    if octet & 0xC0 != 0x80 {
                        return Err("found an incorrect trailing UTF-8 octet");
                    }
                    w
                }
            };
            self.i += 3;
            if left == 1 {
                return Ok(());
            }
            width = Some(left - 1);
        }
    }
}

fn is_alpha(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t')
}

fn hex(b: u8) -> u8 {
    (b as char).to_digit(16).unwrap_or(0) as u8
}

/// go-yaml's `width`: the length of a UTF-8 sequence from its first byte, 0 if invalid.
fn utf8_width(b: u8) -> usize {
    match b {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scanner_words_errors_as_go_yaml() {
        // Recorded with sigs.k8s.io/yaml (go-yaml v2) behind kubectl's reader, each
        // directive followed by `\r---\ra: 1`.
        for (directive, expected) in [
            ("YAML 1.1", Ok(Token::Version { major: 1, minor: 1 })),
            ("YAML 1.1 #c", Ok(Token::Version { major: 1, minor: 1 })),
            (
                "YAML 1",
                Err("did not find expected digit or '.' character"),
            ),
            (
                "YAML 1.1x",
                Err("did not find expected comment or line break"),
            ),
            (
                "YAML 1.1 x",
                Err("did not find expected comment or line break"),
            ),
            ("YAML 123.1", Err("found extremely long version number")),
            ("YAML", Err("did not find expected version number")),
            ("YAML a", Err("did not find expected version number")),
            ("TAG", Err("did not find expected '!'")),
            ("TAG x", Err("did not find expected '!'")),
            ("TAG !a b", Err("did not find expected '!'")),
            ("TAG !a! ", Err("did not find expected tag URI")),
            (
                "TAG ! x y",
                Err("did not find expected comment or line break"),
            ),
            ("TAG !a! x", Ok(Token::Tag { handle: b"!a!" })),
            ("TAG !! tag:x,2000:%C3%A9", Ok(Token::Tag { handle: b"!!" })),
            ("TAG !a!x y", Err("did not find expected whitespace")),
            (
                "TAG !a! x<",
                Err("did not find expected whitespace or line break"),
            ),
            ("TAG ! %zz", Err("did not find URI escaped octet")),
            ("TAG ! %80", Err("found an incorrect leading UTF-8 octet")),
            ("TAG ! %C3x", Err("did not find URI escaped octet")),
            (
                "TAG ! %C3%41",
                Err("found an incorrect trailing UTF-8 octet"),
            ),
            ("FOO", Err("found unknown directive name")),
            ("ab!c", Err("found unexpected non-alphabetical character")),
            ("\u{e9}", Err("could not find expected directive name")),
        ] {
            assert_eq!(scan(directive.as_bytes()), expected, "{directive:?}");
        }
    }
}
