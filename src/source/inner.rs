//! Mapping a position inside a decoded string scalar back to the file's bytes.
//!
//! A CEL rule or a regular expression is a string *value*; when a compiler reports "column
//! 17" it means the 17th character of the decoded string, which may sit anywhere in the file
//! once quotes, escapes, line folding and block indentation are taken into account. This
//! module re-scans the raw scalar text with the same rules the YAML scanner applied and
//! pairs every decoded character with the byte where it was written:
//!
//! - a character written literally maps to its own bytes;
//! - an escape (`\n`, `\x41`, `''`, …) maps to its first byte (the `\` or the first quote);
//! - a space or newline produced by line folding maps to the line break it came from;
//! - whitespace and indentation that decode to nothing map to nothing.
//!
//! The node spans come from [`super::yaml`]: quoted scalars include their quotes, block
//! scalars start at their `|`/`>` indicator.

use super::node::ScalarStyle;
use super::span::Span;

/// The byte offset in `source` where the character `char_index` (counting Unicode scalar
/// values) of the decoded string scalar at `node_span` was written. `char_index` equal to
/// the string's length maps to the end of the content (the closing quote of a quoted
/// scalar, the end of a plain one, the end of the last content line of a block scalar).
/// `None` for non-scalar styles, spans that do not hold a scalar of that style, or an index
/// past the end.
pub fn offset_in_scalar(
    source: &str,
    node_span: Span,
    style: ScalarStyle,
    char_index: usize,
) -> Option<usize> {
    let mut seen = 0usize;
    let mut found = None;
    let end = walk(source, node_span, style, &mut |_, offset| {
        if seen == char_index {
            found = Some(offset);
            return false;
        }
        seen += 1;
        true
    })?;
    match found {
        Some(offset) => Some(offset),
        None if seen == char_index => Some(end),
        None => None,
    }
}

/// The decoded string of a scalar, the source offset of each of its characters, and the
/// end-of-content offset (see [`offset_in_scalar`]). Useful when many positions of one
/// string must be mapped.
pub fn decode_with_offsets(
    source: &str,
    node_span: Span,
    style: ScalarStyle,
) -> Option<(String, Vec<usize>, usize)> {
    let mut text = String::new();
    let mut offsets = Vec::new();
    let end = walk(source, node_span, style, &mut |c, offset| {
        text.push(c);
        offsets.push(offset);
        true
    })?;
    Some((text, offsets, end))
}

type Sink<'a> = dyn FnMut(char, usize) -> bool + 'a;

/// Receives decoded characters; remembers whether the sink asked to stop and where the
/// source of the last character ended.
struct Out<'s, 'a> {
    sink: &'s mut Sink<'a>,
    stopped: bool,
    last_end: Option<usize>,
}

impl Out<'_, '_> {
    fn emit(&mut self, c: char, offset: usize, source_len: usize) {
        if !self.stopped {
            self.stopped = !(self.sink)(c, offset);
            self.last_end = Some(offset + source_len);
        }
    }
}

/// Feeds every decoded character to `sink` (which returns `false` to stop early) and
/// returns the end-of-content offset.
fn walk(source: &str, span: Span, style: ScalarStyle, sink: &mut Sink<'_>) -> Option<usize> {
    if span.start > span.end
        || span.end > source.len()
        || !source.is_char_boundary(span.start)
        || !source.is_char_boundary(span.end)
    {
        return None;
    }
    let mut out = Out {
        sink,
        stopped: false,
        last_end: None,
    };
    match style {
        ScalarStyle::Plain => {
            let mut folder = Folder::default();
            flow_chars(
                source,
                span.start,
                span.end,
                &mut folder,
                &mut out,
                |_, _| None,
            )?;
            Some(span.end)
        }
        ScalarStyle::SingleQuoted => quoted(source, span, b'\'', &mut out),
        ScalarStyle::DoubleQuoted => quoted(source, span, b'"', &mut out),
        ScalarStyle::Literal => block(source, span, true, &mut out),
        ScalarStyle::Folded => block(source, span, false, &mut out),
        ScalarStyle::NotScalar => None,
    }
}

/// Line folding of flow scalars (plain and quoted), as the scanner does it: blanks before
/// a line break are dropped, blanks after it are indentation; one break becomes a space,
/// `n` breaks become `n - 1` newlines.
#[derive(Default)]
struct Folder {
    /// Start of the blanks written since the last content on this line.
    blanks_from: Option<usize>,
    /// At the start of a line (after a break): blanks are indentation.
    leading: bool,
    /// The break that ended the last content line (folded into a space or dropped).
    leading_break: Option<(usize, usize)>,
    /// Breaks of the empty lines since then: each is a newline.
    trailing: Vec<(usize, usize)>,
}

impl Folder {
    fn blank(&mut self, offset: usize) {
        if !self.leading && self.blanks_from.is_none() {
            self.blanks_from = Some(offset);
        }
    }

    fn line_break(&mut self, offset: usize, len: usize) {
        if self.leading {
            self.trailing.push((offset, len));
        } else {
            self.blanks_from = None;
            self.leading_break = Some((offset, len));
            self.leading = true;
        }
    }

    /// A `\` line break in a double-quoted scalar: no space, and the next line's
    /// indentation is dropped.
    fn escaped_break(&mut self) {
        self.leading = true;
        self.leading_break = None;
    }

    /// Writes out what the pending blanks and breaks decode to, before content at `at`.
    fn flush(&mut self, source: &str, at: usize, out: &mut Out) {
        if self.leading {
            match self.leading_break.take() {
                Some((offset, len)) if self.trailing.is_empty() => out.emit(' ', offset, len),
                _ => {}
            }
            for (offset, len) in self.trailing.drain(..) {
                out.emit('\n', offset, len);
            }
            self.leading = false;
        } else if let Some(from) = self.blanks_from.take() {
            for (i, c) in source[from..at].char_indices() {
                out.emit(c, from + i, c.len_utf8());
            }
        }
    }
}

/// Length of the line break at `p` (`\r\n`, `\n` or `\r`), 0 if there is none. `\r\r\n`
/// is one break, as kubectl's line reader leaves it (see `yaml/removed_crs.rs`).
fn break_len(b: &[u8], p: usize) -> usize {
    match b.get(p) {
        Some(b'\r') if b.get(p + 1) == Some(&b'\r') && b.get(p + 2) == Some(&b'\n') => 3,
        Some(b'\r') if b.get(p + 1) == Some(&b'\n') => 2,
        Some(b'\r' | b'\n') => 1,
        _ => 0,
    }
}

/// Scans `[from, to)` of a flow scalar. `special` handles quote-specific syntax: given
/// the offset of a non-blank character, it returns `Some(Ok((decoded, source_len)))` for
/// an escape, `Some(Err(len))` for an escaped line break of that length, `None` for an
/// ordinary character.
fn flow_chars(
    source: &str,
    from: usize,
    to: usize,
    folder: &mut Folder,
    out: &mut Out,
    mut special: impl FnMut(&str, usize) -> Option<Result<(char, usize), usize>>,
) -> Option<()> {
    let b = source.as_bytes();
    let mut p = from;
    while p < to && !out.stopped {
        match b[p] {
            b' ' | b'\t' => {
                folder.blank(p);
                p += 1;
            }
            b'\r' | b'\n' => {
                let len = break_len(b, p);
                folder.line_break(p, len);
                p += len;
            }
            _ => match special(source, p) {
                Some(Ok((c, len))) => {
                    folder.flush(source, p, out);
                    out.emit(c, p, len);
                    p += len;
                }
                Some(Err(len)) => {
                    folder.flush(source, p, out);
                    folder.escaped_break();
                    p += len;
                }
                None => {
                    let c = source[p..].chars().next()?;
                    folder.flush(source, p, out);
                    out.emit(c, p, c.len_utf8());
                    p += c.len_utf8();
                }
            },
        }
    }
    Some(())
}

fn quoted(source: &str, span: Span, quote: u8, out: &mut Out) -> Option<usize> {
    let b = source.as_bytes();
    if span.len() < 2 || b[span.start] != quote || b[span.end - 1] != quote {
        return None;
    }
    let close = span.end - 1;
    let mut folder = Folder::default();
    let mut bad_escape = false;
    if quote == b'\'' {
        flow_chars(source, span.start + 1, close, &mut folder, out, |s, p| {
            let b = s.as_bytes();
            (b[p] == b'\'' && b.get(p + 1) == Some(&b'\'')).then_some(Ok(('\'', 2)))
        })?;
    } else {
        flow_chars(source, span.start + 1, close, &mut folder, out, |s, p| {
            if s.as_bytes()[p] != b'\\' {
                return None;
            }
            let r = escape(s, p);
            if r.is_none() {
                bad_escape = true;
            }
            // An unknown escape decodes as itself so that the walk goes on.
            Some(r.unwrap_or(Ok(('\\', 1))))
        })?;
    }
    if bad_escape {
        return None;
    }
    if !out.stopped {
        folder.flush(source, close, out);
    }
    Some(close)
}

/// A double-quoted escape at `p` (the `\`).
fn escape(s: &str, p: usize) -> Option<Result<(char, usize), usize>> {
    let b = s.as_bytes();
    let next = *b.get(p + 1)?;
    let simple = match next {
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b't' | b'\t' => '\t',
        b'n' => '\n',
        b'v' => '\x0b',
        b'f' => '\x0c',
        b'r' => '\r',
        b'e' => '\x1b',
        b' ' => ' ',
        b'"' => '"',
        // go-yaml's (libyaml's YAML 1.1 escape; saphyr refuses it: yaml/quote_escapes.rs).
        b'\'' => '\'',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'\r' | b'\n' => return Some(Err(1 + break_len(b, p + 1))),
        b'x' | b'u' | b'U' => {
            let digits = match next {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            let hex = s.get(p + 2..p + 2 + digits)?;
            let code = u32::from_str_radix(hex, 16).ok()?;
            if next == b'u' && (0xd800..=0xdfff).contains(&code) {
                return Some(Ok(utf16_escape(s, p, code)));
            }
            return Some(Ok((char::from_u32(code)?, 2 + digits)));
        }
        _ => return None,
    };
    Some(Ok((simple, 2)))
}

/// A `\u` escape of a UTF-16 surrogate, `code`, at `p`. YAML refuses these (go-yaml and
/// saphyr alike), so only JSON text kubectl decodes as JSON reaches here (see
/// `yaml/json_surrogates.rs`): Go's encoding/json joins a high surrogate and a `\u` low
/// surrogate after it into one character, and reads any other surrogate as U+FFFD.
fn utf16_escape(s: &str, p: usize, code: u32) -> (char, usize) {
    let low = s
        .get(p + 6..p + 12)
        .and_then(|next| next.strip_prefix("\\u"))
        .and_then(|hex| u32::from_str_radix(hex, 16).ok())
        .filter(|low| (0xdc00..=0xdfff).contains(low));
    match low {
        Some(low) if code < 0xdc00 => {
            let joined = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            (char::from_u32(joined).unwrap_or('\u{fffd}'), 12)
        }
        _ => ('\u{fffd}', 6),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

fn block(source: &str, span: Span, literal: bool, out: &mut Out) -> Option<usize> {
    let b = source.as_bytes();
    let len = b.len();
    let indicator = span.start;
    if indicator >= len || b[indicator] != if literal { b'|' } else { b'>' } {
        return None;
    }
    let mut p = indicator + 1;
    let mut chomp = Chomp::Clip;
    let mut explicit = None;
    for _ in 0..2 {
        match b.get(p) {
            Some(b'+') => chomp = Chomp::Keep,
            Some(b'-') => chomp = Chomp::Strip,
            Some(&d @ b'1'..=b'9') => explicit = Some(usize::from(d - b'0')),
            _ => break,
        }
        p += 1;
    }
    let header_end = p;
    while p < len && break_len(b, p) == 0 {
        p += 1;
    }
    if p >= len {
        // Nothing after the header line.
        return Some(header_end);
    }
    p += break_len(b, p);
    let body = p;

    // Indentation: the explicit indicator is relative to the parent collection, found from
    // the header line; otherwise (or if that guess is contradicted) the scanner's rule: the
    // largest leading-space count up to and including the first content line.
    let auto = {
        let mut q = body;
        let mut max = 0;
        loop {
            let line = q;
            while q < len && b[q] == b' ' {
                q += 1;
            }
            max = max.max(q - line);
            let bl = break_len(b, q);
            if bl == 0 {
                break;
            }
            q += bl;
        }
        max
    };
    let indent = explicit
        .and_then(|m| {
            // The YAML after a JSON value is a stream of its own: its first line starts
            // where it does, not at the line break before the JSON value (found by the
            // yaml_spans fuzz target: `{"a":1}-` then `|1-` on the next line).
            let origin = match super::yaml::yaml_stream_start(source) {
                origin if origin <= indicator => origin,
                _ => 0,
            };
            let parent = parent_indent(&b[origin..], indicator - origin)?;
            let indent = if parent >= 0 { parent as usize + m } else { m };
            (indent <= auto).then_some(indent)
        })
        .unwrap_or(auto);

    let mut leading_break: Option<(usize, usize)> = None;
    let mut trailing: Vec<(usize, usize)> = Vec::new();
    let mut leading_blank = false;

    // Leading empty lines.
    let mut line = body;
    let mut q = body;
    loop {
        while q < len && b[q] == b' ' && (explicit.is_none() || q - line < indent) {
            q += 1;
        }
        let bl = break_len(b, q);
        if bl == 0 {
            break;
        }
        trailing.push((q, bl));
        q += bl;
        line = q;
    }

    if q >= len {
        // End of input without content.
        if chomp == Chomp::Keep {
            if trailing.is_empty() && q > line {
                out.emit('\n', len, 0);
            }
            for (offset, l) in trailing.drain(..) {
                out.emit('\n', offset, l);
            }
        }
        return Some(out.last_end.unwrap_or(header_end));
    }

    let mut content_end = None;
    let mut col = q - line;
    while !out.stopped && col == indent && q < len && break_len(b, q) == 0 {
        let mut le = q;
        while le < len && break_len(b, le) == 0 {
            le += 1;
        }
        // saphyr ends a top-level block scalar at a document marker, and at a byte order
        // mark that starts a line (a token of its own; found by the yaml_spans fuzz
        // target).
        if indent == 0 && (is_document_marker(b, q) || b[q..].starts_with("\u{FEFF}".as_bytes())) {
            break;
        }
        // A line whose content starts after the node's span belongs to what follows.
        if let Some(first) = (q..le).find(|&i| !matches!(b[i], b' ' | b'\t'))
            && first >= span.end
        {
            break;
        }
        let trailing_blank = matches!(b[q], b' ' | b'\t');
        if !literal && leading_break.is_some() && !leading_blank && !trailing_blank {
            match leading_break {
                Some((offset, l)) if trailing.is_empty() => out.emit(' ', offset, l),
                _ => {}
            }
        } else if let Some((offset, l)) = leading_break {
            out.emit('\n', offset, l);
        }
        for (offset, l) in trailing.drain(..) {
            out.emit('\n', offset, l);
        }
        leading_break = None;
        leading_blank = trailing_blank;
        for (i, c) in source[q..le].char_indices() {
            out.emit(c, q + i, c.len_utf8());
        }
        content_end = Some(le);
        let bl = break_len(b, le);
        if bl == 0 {
            // Content up to the end of input.
            line = source[..le].rfind(['\n', '\r']).map_or(0, |i| i + 1);
            q = le;
            col = source[line..le].chars().count();
            break;
        }
        leading_break = Some((le, bl));
        q = le + bl;
        line = q;
        // Indentation and empty lines.
        loop {
            while q < len && b[q] == b' ' && q - line < indent {
                q += 1;
            }
            let bl = break_len(b, q);
            if bl == 0 {
                break;
            }
            trailing.push((q, bl));
            q += bl;
            line = q;
        }
        col = q - line;
    }
    if out.stopped {
        return Some(0);
    }

    if chomp != Chomp::Strip {
        if let Some((offset, l)) = leading_break {
            out.emit('\n', offset, l);
        }
        if q >= len && col >= indent.max(1) {
            out.emit('\n', len, 0);
        }
    }
    if chomp == Chomp::Keep {
        for (offset, l) in trailing.drain(..) {
            out.emit('\n', offset, l);
        }
    }
    Some(content_end.unwrap_or(header_end))
}

fn is_document_marker(b: &[u8], p: usize) -> bool {
    (b[p..].starts_with(b"---") || b[p..].starts_with(b"..."))
        && matches!(b.get(p + 3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
        // kubectl's reader also cuts the stream at `---#comment` (the loader blanks the
        // comment; see `yaml::separator_comments`).
        || b[p..].starts_with(b"---#")
}

/// The column of the key that ends the last non-blank line before the line starting at
/// `line` (`key:`, `- key:`), or `None` when that line is not such a key.
fn key_column_above(b: &[u8], line: usize) -> Option<isize> {
    let mut end = line;
    loop {
        // The previous line: [start, end) without its break. None above: the header
        // is at the top level, as after a document marker (`---` then `|1`).
        let Some(content_end) = b[..end]
            .iter()
            .rposition(|&c| c != b'\n' && c != b'\r')
            .map(|i| i + 1)
        else {
            return Some(-1);
        };
        let start = b[..content_end]
            .iter()
            .rposition(|&c| c == b'\n' || c == b'\r')
            .map_or(0, |i| i + 1);
        let text = &b[start..content_end];
        if text.iter().all(|&c| matches!(c, b' ' | b'\t')) {
            end = start;
            if end == 0 {
                return Some(-1);
            }
            continue;
        }
        // A byte order mark at the start of a line takes no column (saphyr skips it).
        let origin = if b[start..].starts_with("\u{feff}".as_bytes()) {
            start + 3
        } else {
            start
        };
        if is_document_marker(b, origin) {
            return Some(-1);
        }
        let mut i = origin;
        while i < content_end && b[i] == b' ' {
            i += 1;
        }
        // A comment line between the key and the header: look above it, as for a
        // blank line (found by the yaml_spans fuzz target).
        if b[i] == b'#' {
            end = start;
            if end == 0 {
                return Some(-1);
            }
            continue;
        }
        // Entry indicators (`- key:`); the last one's column, if nothing follows it.
        let mut entry = None;
        while i < content_end
            && matches!(b[i], b'-' | b'?')
            && (i + 1 == content_end || matches!(b[i + 1], b' ' | b'\t'))
        {
            entry = Some((i - origin) as isize);
            i += 1;
            while i < content_end && matches!(b[i], b' ' | b'\t') {
                i += 1;
            }
        }
        // Properties of the entry's node (`- &a`, `- !!str`), which the header continues;
        // or of the header's own node, alone on their line.
        let mut rest = i;
        while rest < content_end && matches!(b[rest], b'&' | b'!') {
            while rest < content_end && !matches!(b[rest], b' ' | b'\t') {
                rest += 1;
            }
            while rest < content_end && matches!(b[rest], b' ' | b'\t') {
                rest += 1;
            }
        }
        let props_only = rest > i && (rest == content_end || b[rest] == b'#');
        if entry.is_none() && props_only {
            // Properties alone on a line between the key and the header (`key:`, `  &a`,
            // `  |2`): they belong to the header's node; the key is above them (found by
            // a sweep through the yaml_spans target).
            end = start;
            if end == 0 {
                return Some(-1);
            }
            continue;
        }
        if rest == content_end || (entry.is_some() && b[rest] == b'#') {
            // A line of entry indicators alone (`-` then `  |2`), or followed by
            // properties or a comment only (`- &a`, `- #`): the header is the entry's
            // node, indented from the last indicator's column (found by the yaml_spans
            // fuzz target).
            return entry;
        }
        // A comment after the key (`key: # note`) ends the line's content.
        let content_end = comment_start(b, i, content_end).unwrap_or(content_end);
        let trim = |end: usize| {
            b[start..end]
                .iter()
                .rposition(|&c| !matches!(c, b' ' | b'\t'))
                .map_or(start, |p| start + p + 1)
        };
        let mut trimmed = trim(content_end);
        // Properties after the key (`key: &a`, `key: !!str`) belong to the node on the
        // next line.
        while trimmed > i && b[trimmed - 1] != b':' {
            let token = b[i..trimmed]
                .iter()
                .rposition(|&c| matches!(c, b' ' | b'\t'))
                .map_or(i, |p| i + p + 1);
            if token == i || !matches!(b[token], b'&' | b'!') {
                break;
            }
            trimmed = trim(token);
        }
        return (trimmed > i && b[trimmed - 1] == b':' && b[i] != b'#')
            .then_some((i - origin) as isize);
    }
}

/// Where a comment starts on the line content `b[from..end]` (a `#` after a blank,
/// outside quoted scalars), if it has one.
///
/// A quote, `[` or `{` opens a quoted scalar or a flow collection only where a node
/// starts: at the content start, after the node's properties (`&a`, `!t`) or after a
/// value indicator (`: `), and inside a flow collection after a blank, `[`, `{`, `,` or
/// `:`. Anywhere else it is part of a plain scalar (`-'`, `:'`, `a ['#`: findings of
/// the yaml_spans target and of a sweep through it).
fn comment_start(b: &[u8], from: usize, end: usize) -> Option<usize> {
    let mut p = from;
    let mut flow_depth = 0usize;
    // Outside flow collections: the next token starts a node.
    let mut node_start = true;
    while p < end {
        let c = b[p];
        let after_blank = p > from && matches!(b[p - 1], b' ' | b'\t');
        if c == b'#' && after_blank {
            return Some(p);
        }
        if matches!(c, b' ' | b'\t') {
            p += 1;
            continue;
        }
        let opens = if flow_depth > 0 {
            after_blank || matches!(b[p - 1], b'[' | b'{' | b',' | b':')
        } else {
            node_start
        };
        match c {
            b'"' | b'\'' if opens => {
                p += 1;
                while p < end && b[p] != c {
                    // `\"` in double quotes; `''` in single quotes is two quotes in a row,
                    // which this loop reads as a close and a reopen.
                    p += if c == b'"' && b[p] == b'\\' { 2 } else { 1 };
                }
                p += 1;
                node_start = false;
            }
            b'[' | b'{' if opens => {
                flow_depth += 1;
                p += 1;
                node_start = false;
            }
            b']' | b'}' if flow_depth > 0 => {
                flow_depth -= 1;
                p += 1;
            }
            // A property: the node starts after it.
            b'&' | b'!' if flow_depth == 0 && node_start => {
                while p < end && !matches!(b[p], b' ' | b'\t') {
                    p += 1;
                }
            }
            // A value indicator: the value starts after it.
            b':' if flow_depth == 0 && (p + 1 == end || matches!(b[p + 1], b' ' | b'\t')) => {
                node_start = true;
                p += 1;
            }
            _ => {
                if flow_depth == 0 {
                    node_start = false;
                }
                p += 1;
            }
        }
    }
    None
}

/// The indentation of the collection that holds the block scalar whose indicator is at
/// `indicator`, from the text before it on its line: the key's column for a mapping value
/// (`key: |2`, `- key: |2`), the `-`'s column for a sequence entry (`- |1`), -1 at the
/// top level (`--- |1`). `None` when the line does not tell.
fn parent_indent(b: &[u8], indicator: usize) -> Option<isize> {
    let line = b[..indicator]
        .iter()
        .rposition(|&c| c == b'\n' || c == b'\r')
        .map_or(0, |i| i + 1);
    // A byte order mark at the start of the line takes no column (saphyr skips it).
    let line_start = line;
    let line = if b[line..indicator].starts_with("\u{feff}".as_bytes()) {
        line + 3
    } else {
        line
    };
    let mut i = line;
    // saphyr counts a tab before a key as one column (libyaml refuses it).
    while i < indicator && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    // A document marker at the line start (`--- |1`); an indented `---`, or one followed
    // by anything but a blank (`---: |1`), is a plain scalar (sweep through the
    // yaml_spans target: ` ---: |1`).
    if i == line && is_document_marker(b, i) {
        return Some(-1);
    }
    let mut parent = None;
    while i + 1 < indicator && matches!(b[i], b'-' | b'?') && matches!(b[i + 1], b' ' | b'\t') {
        parent = Some((i - line) as isize);
        i += 1;
        while i < indicator && matches!(b[i], b' ' | b'\t') {
            i += 1;
        }
    }
    if i == indicator {
        // Directly in a sequence entry; or the header stands alone on its line, under the
        // key that ends the previous line (`key:` then ` |1`): the key's column.
        return parent.or_else(|| key_column_above(b, line_start));
    }
    // A mapping value: the key starts at `i`, which is the mapping's column.
    let rest = &b[i..indicator];
    let has_value_indicator = rest
        .windows(2)
        .any(|w| w[0] == b':' && matches!(w[1], b' ' | b'\t'));
    if has_value_indicator {
        Some((i - line) as isize)
    } else if rest.iter().all(|&c| c != b':') {
        // Only properties before the indicator: in a sequence entry (`- !!str |1`), or
        // alone on the header line under the key that ends the previous line (`key:`
        // then ` &a |1`, found by the yaml_spans fuzz target).
        parent.or_else(|| key_column_above(b, line_start))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::node::{Node, Value};
    use crate::source::yaml::{Limits, parse};

    /// Every string scalar in the tree (values only; keys are not nodes).
    fn strings(node: &Node, out: &mut Vec<(String, Span, ScalarStyle)>) {
        match &node.value {
            Value::String(s) => out.push((s.clone(), node.span, node.style)),
            Value::Array(items) => items.iter().for_each(|n| strings(n, out)),
            Value::Object(m) => m.entries.iter().for_each(|e| strings(&e.value, out)),
            _ => {}
        }
    }

    fn parsed_strings(yaml: &str) -> Vec<(String, Span, ScalarStyle)> {
        let out = parse(yaml, &Limits::default());
        assert!(out.errors.is_empty(), "{yaml:?}: {:?}", out.errors);
        let mut all = Vec::new();
        for d in &out.documents {
            strings(&d.root, &mut all);
        }
        all
    }

    /// The property: the re-scan decodes exactly what the parser decoded, every character
    /// written literally is found at its offset, and every index (plus the end) maps.
    fn check(yaml: &str) -> Vec<(String, Vec<usize>, usize)> {
        let mut results = Vec::new();
        for (value, span, style) in parsed_strings(yaml) {
            let (decoded, offsets, end) = decode_with_offsets(yaml, span, style)
                .unwrap_or_else(|| panic!("no decoding for {value:?} at {span:?} in {yaml:?}"));
            assert_eq!(decoded, value, "{style:?} scalar at {span:?} in {yaml:?}");
            for (i, (c, &offset)) in value.chars().zip(&offsets).enumerate() {
                assert_eq!(offset_in_scalar(yaml, span, style, i), Some(offset));
                let raw = &yaml[offset..];
                let literal = raw.starts_with(c);
                let escaped = raw.starts_with('\\') || raw.starts_with("''");
                let folded = matches!(c, ' ' | '\n')
                    && (raw.starts_with(['\n', '\r']) || offset == yaml.len());
                assert!(
                    literal || escaped || folded,
                    "char {i} {c:?} of {value:?} maps to {offset}: {:?} in {yaml:?}",
                    &raw[..raw.len().min(10)]
                );
                assert!(offset >= span.start, "{value:?}: char {i} before the span");
            }
            let n = value.chars().count();
            assert_eq!(offset_in_scalar(yaml, span, style, n), Some(end));
            assert_eq!(offset_in_scalar(yaml, span, style, n + 1), None);
            results.push((value, offsets, end));
        }
        results
    }

    fn offsets_of(yaml: &str) -> Vec<usize> {
        let r = check(yaml);
        assert_eq!(r.len(), 1, "{yaml:?}");
        r.into_iter().next().unwrap().1
    }

    #[test]
    fn plain_scalars() {
        check("a: hello world\nb: x\nc: été à\n");
        check("a: one\n  two   three\n\n  four\n\n\n  five\n");
        check("- [a b, c\n   d]\n- {k: v w\n    x}\n");
        check("a: tab\there\n");
        check("a: one\r\n  two\r\n\r\n  three\r\n");
        // `one` at 3, the folded break at 6, `two` at 11.
        let o = offsets_of("a: one\n    two\n");
        assert_eq!(o, vec![3, 4, 5, 6, 11, 12, 13]);
        // An empty line: the first break is dropped, the second becomes the newline.
        let o = offsets_of("a: x\n\n  y\n");
        assert_eq!(o, vec![3, 5, 8]);
    }

    #[test]
    fn single_quoted_scalars() {
        check("a: 'it''s'\nb: ''\nc: ' lead and trail  '\n");
        check("a: 'one\n  two  \n\n   three '\n");
        check("a: 'ünï''cødé'\n");
        // `''` maps to its first quote.
        assert_eq!(offsets_of("a: 'it''s'\n"), vec![4, 5, 6, 8]);
        // Trailing blanks before a break are dropped; the break is a space.
        assert_eq!(offsets_of("a: 'x  \n  y'\n"), vec![4, 7, 10]);
        let yaml = "a: 'it''s'\n";
        let span = Span::new(3, 10);
        assert_eq!(
            offset_in_scalar(yaml, span, ScalarStyle::SingleQuoted, 4),
            Some(9)
        );
    }

    #[test]
    fn double_quoted_scalars() {
        check(r#"a: "plain text""#);
        check(
            r#"a: "esc \n \t \" \\ \' \x41 \u00e9 \U0001F600 \0 \a \b \e \f \r \v \N \_ \L \P \  end""#,
        );
        check("a: \"tab\\\there\"\n");
        check("a: \"one\n  two\n\n  three\"\n");
        check("a: \"keep  \\\n   joined\"\n");
        check("a: \"x\\\n\n  y\"\n");
        check("a: \"  \"\nb: \"\"\nc: \"a \n \"\n");
        check("a: \"é\\u00e9\\n\"\n");
        // Escapes map to their backslash.
        assert_eq!(offsets_of(r#"a: "a\nb\x41c""#), vec![4, 5, 7, 8, 12]);
        // An escaped line break keeps the blanks before it and drops the indentation.
        assert_eq!(
            offsets_of("a: \"ab  \\\n    cd\"\n"),
            vec![4, 5, 6, 7, 14, 15]
        );
        // A folded break is a space mapped to the break.
        assert_eq!(offsets_of("a: \"ab\n  cd\"\n"), vec![4, 5, 6, 9, 10]);
        assert_eq!(offsets_of("a: \"\\U0001F600!\"\n"), vec![4, 14]);
    }

    #[test]
    fn literal_block_scalars() {
        check("a: |\n  line one\n  line two\nb: x\n");
        check("a: |-\n  x\n\n  y\n\n\nb: 1\n");
        check("a: |+\n  x\n\n  y\n\n\nb: 1\n");
        check("a: |\n\n\n  after blanks\n    more indented\n  back\n");
        // A header alone on its line under its key (found by the yaml_spans fuzz target).
        check("eme:\n |1\n\n  \" |l\n       tf4");
        check("- k:\n   |1\n     x\n");
        check("a: |  # comment | >\n  text\n");
        check("a: |\n  ünïcødé ✓\n  ok\n");
        check("a: |\n  x\r\n  y\r\n");
        check("- |\n  in a sequence\n- |2\n    explicit\n- |1\n  one more\n");
        check("a:\n  b: |2-\n      deep\n     shallow\n  c: 1\n");
        check("- key: |1\n    x\n   y\n");
        check("a: |\n  no newline at end");
        check("a: |+\n  keep at end\n\n");
        check("a: |\n  x\n   \n  y\n");
        check("a: |\nb: 1\n");
        check("a: |+\n\n");
        check("---\n|\n  root\n");
        check("---\n|1\n  root\n");
        // At the top level with nothing, a comment or a marker above.
        check("|1\n  root\n");
        check("# c\n\n|2\n   root\n");
        check("--- # c\n>1\n  root\n");
        check("a: &x !!str |\n  tagged\nb: *x\n");
        // `|` at 3; "x" at 7, its newline (the break) at 8.
        let yaml = "a: |\n  x\n  y\nb: 1\n";
        assert_eq!(offsets_of(yaml), vec![7, 8, 11, 12]);
        let span = Span::new(3, 12);
        assert_eq!(
            offset_in_scalar(yaml, span, ScalarStyle::Literal, 4),
            Some(12)
        );
    }

    #[test]
    fn folded_block_scalars() {
        check("a: >\n  one\n  two\n\n  three\n    more\n  four\nb: 1\n");
        check("a: >-\n  x\n  y\n");
        check("a: >+\n  x\n  y\n\n\n");
        check("a: >1\n  lead\n x\n");
        check("a: >\n\n  after blank\n");
        check("- >2-\n    a\n\n    b\n   c\n");
        check("a: >\n  tabbed\n  \tmore\n  x\n");
        // The fold between `one` and `two` is a space at the break (9).
        let o = offsets_of("a: >\n  one\n  two\n");
        assert_eq!(o, vec![7, 8, 9, 10, 13, 14, 15, 16]);
        // With an empty line, the newline maps to the empty line's break.
        let o = offsets_of("a: >\n  one\n\n  two\n");
        assert_eq!(o, vec![7, 8, 9, 11, 14, 15, 16, 17]);
    }

    #[test]
    fn many_shapes_in_one_file() {
        let yaml = r#"
apiVersion: v1
kind: ConfigMap
data:
  rule: "self.x > 0 && \
    self.y < 10"
  folded: >
    self.spec.replicas
    <= 5
  multi: this is
    a plain
    scalar
  quoted: 'don''t
    fold me'
  literal: |
    first
      indented
    last
  list:
    - "a\tb"
    - 'c'
    - d e
"#;
        let r = check(yaml);
        assert_eq!(r.len(), 10);
    }

    /// Block scalar headers alone on the line after what opens their node (an entry
    /// indicator, a key, properties, comments), in every combination of these shapes,
    /// with LF and lone CR line breaks: wherever the re-scan answers, it reads what the
    /// loader read. (The yaml_spans fuzz target found several of these one at a time;
    /// this sweep found the rest: a comment or properties after `- ` or `key:`, a byte
    /// order mark before the line, a comment ended by a lone CR.)
    #[test]
    fn headers_on_the_next_line_agree_with_the_loader() {
        let openers = [
            "- #",
            "- &a",
            "- !t #",
            "- - &a",
            "-\t#",
            "k: # c",
            "k: &a # c",
            "k: &a !t",
            "k: !!str # c",
            "\"k #\": # c",
            "'k ''#': #",
            "- k: # c",
            "? #",
            "k:\t#",
            "\u{feff}- k: # c",
            "\u{feff}k: &a",
            // Keys that start with `-` or `?` and a quote are plain scalars: the quote
            // opens nothing (yaml_spans finding: `-':\t#`).
            "-':\t#",
            "-\": # c",
            "?'k: #",
            "-x: # c",
            ":':\t#",
            "['a #b']: #",
            "{'a #': b}: # c",
            "[\"x\",'y #']: #",
            "a ['#:\t#",
            "a '#': #",
            "&a 'k #': # c",
            "{a: 'b #'}: #",
            // Properties alone on a line between the key and the header (sweep through
            // the yaml_spans target: `k:`, `  &a`, `  |2`).
            "k:\n  &a",
            "k:\n &a !t",
            "k: # c\n  !t # c",
            "- k:\n    &a",
            "k:\n\n  &a\n  # c",
        ];
        let headers = ["|1", "|2", ">1", "|", "|+", "|1-", "&b |2", "|1 # c", "# c"];
        let contents = ["", "x", "  x", "x\n y", "\n x", "#x"];
        let (mut parsed, mut answered) = (0, 0);
        for opener in openers {
            for header in headers {
                for header_indent in 0..3 {
                    for content in contents {
                        for content_indent in 0..4 {
                            for eol in ["\n", "\r"] {
                                let body: Vec<String> = content
                                    .split('\n')
                                    .map(|l| format!("{}{l}", " ".repeat(content_indent)))
                                    .collect();
                                let yaml = format!(
                                    "{opener}{eol}{}{header}{eol}{}{eol}",
                                    " ".repeat(header_indent),
                                    body.join(eol)
                                );
                                if let Some(n) = rescans_agree_with_the_loader(&yaml) {
                                    parsed += 1;
                                    answered += n;
                                }
                            }
                        }
                    }
                }
            }
        }
        // The sweep is not vacuous: most shapes load, and the re-scan answers for them.
        assert!(
            parsed > 4_000 && answered > 4_000,
            "{parsed} parsed, {answered} answered"
        );
    }

    /// For a text that loads without errors: asserts that every string the re-scan
    /// answers for decodes to the loaded value, at offsets inside the text; returns how
    /// many it answered for. `None` when the text does not load cleanly.
    fn rescans_agree_with_the_loader(yaml: &str) -> Option<usize> {
        let out = parse(yaml, &Limits::default());
        if !out.errors.is_empty() {
            return None;
        }
        let mut all = Vec::new();
        for d in &out.documents {
            strings(&d.root, &mut all);
        }
        let mut answered = 0;
        for (value, span, style) in all {
            let Some((decoded, offsets, _)) = decode_with_offsets(yaml, span, style) else {
                continue;
            };
            answered += 1;
            assert_eq!(decoded, value, "{style:?} at {span:?} in {yaml:?}");
            assert!(
                offsets.iter().all(|&o| o >= span.start && o <= yaml.len()),
                "{offsets:?} outside {span:?} in {yaml:?}"
            );
        }
        Some(answered)
    }

    /// Block scalar headers on their key's line, under keys that look like document
    /// markers or hold quotes and brackets, × indentation × content × LF or lone CR:
    /// wherever the re-scan answers, it reads what the loader read.
    #[test]
    fn headers_on_the_key_line_agree_with_the_loader() {
        let keys = [
            "k",
            " k",
            "---",
            " ---",
            "...",
            " ...",
            "- k",
            "? k",
            "- - k",
            "&a k",
            "'k #'",
            "-'",
            ":'",
            "a ['#",
            "[a]",
            "{a: b}",
            "\u{feff}k",
            " -x",
        ];
        let headers = ["|1", "|2", "|", ">1 # c", "|-", "&b |2"];
        let contents = ["", "x", "  x", "x\n y"];
        let (mut parsed, mut answered) = (0, 0);
        for key in keys {
            for header in headers {
                for content in contents {
                    for content_indent in 0..5 {
                        for eol in ["\n", "\r"] {
                            let body: Vec<String> = content
                                .split('\n')
                                .map(|l| format!("{}{l}", " ".repeat(content_indent)))
                                .collect();
                            let yaml = format!("{key}: {header}{eol}{}{eol}", body.join(eol));
                            if let Some(n) = rescans_agree_with_the_loader(&yaml) {
                                parsed += 1;
                                answered += n;
                            }
                        }
                    }
                }
            }
        }
        assert!(
            parsed > 1_000 && answered > 1_000,
            "{parsed} parsed, {answered} answered"
        );
    }

    #[test]
    fn harder_shapes() {
        check("a: >\r\n  one\r\n  two\r\n\r\n  three\r\n");
        check("a: \"one \\\r\n  two\r\n\r\n three\"\r\n");
        check("a: [\"x\n  y\", 'p\n\n  q', r\n  s]\n");
        check("a:\n- - |2\n      two more\n     one more\n");
        check("a:\n  - b: >2+\n        x\n\n      y\n\n  - c\n");
        check("a: |\n      deeper first\n      same\n");
        check("a: >\n  a\n\n\n  b\n   c\n  d\n");
        check("k: >-\n\n  \n  x\n");
        check("k: |\n  x\n# comment\nl: y\n");
        check("k: |\n  x\n  # not a comment\nl: y\n");
        check("k: \"a#b\" # comment\nl: 'c' # d\n");
        check("k: |\n  a\n  ");
        // A comment between the key and an indentation indicator's header line.
        check("- k:\n#c\n   |1\n    OOO  tf8\n");
        check("- k:\n#-  x\n#$ -be-ept: |1\n   |1\n    OOO  tf8\n");
        // A header on the line after a lone entry indicator.
        check("-\n  |2\n    e");
        check("a:\n- \n  |1\n    e\n");
        check("- -\n    |2\n       e\n");
        check("?\n  |1\n   e\n: v\n");
        check("- #\n |3\n    ");
        check("k: # c\n |1\n  x\n");
        check("\"k #\": # c\n |1\n  x\n");
        check("'k ''#': # c\n |1\n  x\n");
        check("- k: # c\n   |1\n    x\n");
        check("k: &a # c\n |1\n  \n");
        check("k: !!str &a\n |1\n  x\n");
        check("a:\n  - &a\n    |1 # c\n     x\n");
        check("\u{feff}- k: # c\n   |1\n   \n    x\n");
        check("k: &a !t # c\r    x\r");
        check("\u{feff}- - - |1\n  \n");
        // A key that ends in `&` (`7 &:`) is no anchor (yaml_spans).
        check("7 &:\n |2\n   ");
        // (A tab before the key is refused, as go-yaml refuses it: see `yaml/tabs.rs`.)
        check("k: >\n  a\n  ");
        check("k: |+\n  a\n  ");
        check("? |\n  block key\n: |\n  block value\n");
        check("a: !!str\n  |\n  on next line\n");
        check("\u{feff}a: \"bom\"\n");
        // Indentation go-yaml accepts and saphyr needs re-parsing for.
        check("k:\n  a: [\n    \"x\n  y\",\n    'p',\n  ]\nb: \"multi\nline\"\n");
        // YAML after a JSON value on the same line is a stream of its own: the header's
        // parent (`-`) is at its column 0 (yaml_spans: the content kept one space).
        let shapes = check("{\"c\":{\"d\":\"x\"}}-\n|1-\n  x\n  y\n");
        assert_eq!(shapes.last().map(|s| s.0.as_str()), Some(" x\n y"));
        check("{\"a\":1}-\r|1-  # *\r  x\r  y\n");
        check("{\"a\":1} k:\n |1\n   x\n");
        check("{\"a\":1}\n- |2\n   x\n");
    }

    #[test]
    fn not_strings_and_bad_spans() {
        let yaml = "a: 1\n";
        assert_eq!(
            offset_in_scalar(yaml, Span::new(0, 4), ScalarStyle::NotScalar, 0),
            None
        );
        assert_eq!(
            offset_in_scalar(yaml, Span::new(3, 9), ScalarStyle::Plain, 0),
            None
        );
        assert_eq!(
            offset_in_scalar(yaml, Span::new(3, 4), ScalarStyle::DoubleQuoted, 0),
            None
        );
        assert_eq!(
            offset_in_scalar(yaml, Span::new(3, 4), ScalarStyle::Literal, 0),
            None
        );
        assert_eq!(
            offset_in_scalar(yaml, Span::new(3, 4), ScalarStyle::Plain, 0),
            Some(3)
        );
        assert_eq!(
            offset_in_scalar(yaml, Span::new(3, 4), ScalarStyle::Plain, 1),
            Some(4)
        );
    }
}
