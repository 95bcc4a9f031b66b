//! Where go-yaml (and so kubectl) skips white space and comments, and where it fails on a tab;
//! saphyr differs in both.
//!
//! go-yaml v2 (libyaml's scanner, behind sigs.k8s.io/yaml) skips a tab as white space only
//! inside flow collections and after a token that cannot be followed by a key (`key:`, an
//! anchor, a tag, a quoted scalar, `]`). Everywhere else in the block context a tab where a
//! token may start fails the document:
//! - "found character that cannot start any token": at the start of a line (even before a
//!   comment, or alone on it), after `- `, `? ` or a complex key's `: `;
//! - "found a tab character that violates indentation": in the blank lines that continue a
//!   plain scalar, left of the scalar's indentation;
//! - "found a tab character where an indentation space is expected": in a block scalar's
//!   indentation, or anywhere in its leading blank lines while its indentation is unknown.
//!
//! saphyr 0.3.3 follows YAML 1.2, which differs both ways: it accepts most of the above,
//! and it refuses tabs go-yaml skips (`key:\tvalue`, a tab indenting the continuation of a
//! quoted scalar). It also wants white space before a comment, where go-yaml reads one
//! right after a quoted scalar, a flow collection or a block scalar header (`"x"#c`,
//! `[1]#c`, `|#c`).
//!
//! So this module runs go-yaml's token scanner in outline (indentation, flow level, simple
//! keys, scalar extents) over each kubectl chunk, as kubectl converts each chunk on its
//! own. It reports the first tab error of a chunk, and lists the tabs and comments go-yaml
//! skips: saphyr is given spaces there. They are never part of a value, so offsets and
//! values are unchanged. It runs when a text holds a tab, or when saphyr refused a comment.
//!
//! Errors other than tabs are left to saphyr: where go-yaml would fail for another reason,
//! the outline stops scanning the chunk.

use super::Span;

/// What go-yaml skips, and the tabs it fails on.
#[derive(Debug, Default, PartialEq)]
pub(super) struct GoBlanks {
    /// Offsets of the tabs go-yaml skips as white space.
    pub skipped: Vec<usize>,
    /// Comments go-yaml reads right after a token, without white space between.
    pub adjacent_comments: Vec<Span>,
    /// The first tab go-yaml fails on in each chunk, with its message.
    pub errors: Vec<(usize, &'static str)>,
    /// The anchors and aliases whose names go-yaml fails on, or ends where saphyr reads
    /// on (one per chunk, as the outline stops there): the offset of their `&` or `*`,
    /// and the message.
    pub anchor_errors: Vec<(usize, &'static str)>,
    /// The chunks go-yaml fails on (a tab or an anchor name).
    failed_chunks: Vec<Span>,
}

impl GoBlanks {
    /// Puts spaces in `text` for everything listed. A chunk go-yaml fails on a tab is
    /// blanked whole (its line breaks kept): it is dropped anyway, and saphyr reading it
    /// with the tab as a space could fail for another reason and stop reading the stream,
    /// where kubectl goes on to the next chunk.
    pub fn blank(&self, text: &mut [u8]) {
        for &at in &self.skipped {
            text[at] = b' ';
        }
        for comment in &self.adjacent_comments {
            text[comment.start..comment.end].fill(b' ');
        }
        for chunk in &self.failed_chunks {
            for b in &mut text[chunk.start..chunk.end] {
                if !matches!(*b, b'\n' | b'\r') {
                    *b = b' ';
                }
            }
        }
    }
}

const CANNOT_START_TOKEN: &str = "found character that cannot start any token";
const VIOLATES_INDENTATION: &str = "found a tab character that violates indentation";
const INDENTATION_SPACE_EXPECTED: &str =
    "found a tab character where an indentation space is expected";

/// go-yaml's limits on nesting (beyond them it fails, so the outline stops).
const MAX_FLOW_LEVEL: usize = 10_000;
const MAX_INDENTS: usize = 10_000;

/// A simple (implicit) key may be at most this many characters before its `:`.
const MAX_SIMPLE_KEY_CHARS: usize = 1024;

/// Scans `text` if it holds a tab or if `forced`; `None` when it does not.
pub(super) fn scan(text: &str, forced: bool) -> Option<GoBlanks> {
    let bytes = text.as_bytes();
    if !forced {
        memchr::memchr(b'\t', bytes)?;
    }
    let mut out = GoBlanks::default();
    // kubectl decodes a stream that starts with `{` as JSON, not cut into chunks, where a
    // tab between tokens is white space. crdlint reads it as YAML (JSON is YAML), so the
    // outline still tells values from white space, but fails on no tab.
    let json = super::json_stream::is_json(text);
    let chunks = if json {
        vec![(0, bytes.len())]
    } else {
        chunks(bytes)
    };
    for (start, end) in chunks {
        let mut scanner = Scanner::new(bytes, start, end, &mut out);
        scanner.json = json;
        match scanner.run() {
            Err(Stop::Tab(at, message)) if !json => {
                out.errors.push((at, message));
                out.failed_chunks.push(Span::new(start, end));
            }
            Err(Stop::Anchor(at, message)) if !json => {
                out.anchor_errors.push((at, message));
                out.failed_chunks.push(Span::new(start, end));
            }
            _ => {}
        }
    }
    Some(out)
}

/// kubectl's YAMLReader cuts a stream at every line that starts with `---`. The line
/// ends the chunk before it and belongs to no chunk, unless that chunk is empty (the first
/// line of the file, or the second of two separator lines): then it starts the next one.
fn chunks(b: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut chunk_start = 0;
    let mut line = 0;
    while line < b.len() {
        let next = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |i| line + i + 1);
        if b[line..].starts_with(b"---") && line > chunk_start {
            out.push((chunk_start, line));
            chunk_start = next;
        }
        line = next;
    }
    out.push((chunk_start, b.len()));
    out.retain(|(start, end)| start < end);
    out
}

/// go-yaml's message for an anchor or alias name it does not read.
pub(super) const ANCHOR_NAME: &str = "did not find expected alphabetic or numeric character";

/// crdlint's message for an anchor or alias name go-yaml ends before saphyr does.
pub(super) const ANCHOR_NAME_DIVERGES: &str = "go-yaml (kubectl) ends this anchor or alias name before a character that crdlint's parser reads as part of it; crdlint cannot read this document as kubectl does";

/// Why the outline stopped before the end of a chunk.
enum Stop {
    /// go-yaml fails on the tab at this offset.
    Tab(usize, &'static str),
    /// go-yaml fails on the anchor or alias name whose `&` or `*` is at this offset, or
    /// reads it otherwise than saphyr.
    Anchor(usize, &'static str),
    /// go-yaml fails here for another reason, or stops reading (after `...`).
    Other,
}

#[derive(Clone, Copy, Default)]
struct SimpleKey {
    possible: bool,
    line: usize,
    pos: usize,
    column: isize,
}

struct Scanner<'a> {
    b: &'a [u8],
    pos: usize,
    end: usize,
    /// Line number and column (in characters) of `pos`.
    line: usize,
    column: isize,
    flow_level: usize,
    simple_key_allowed: bool,
    /// The block indentation (-1 at the top level) and the levels it was pushed over.
    indent: isize,
    indents: Vec<isize>,
    /// One possible simple key per flow level (and one for the block context).
    keys: Vec<SimpleKey>,
    /// A JSON stream: tabs between tokens are white space everywhere.
    json: bool,
    /// The document's root node is a scalar or flow collection that has been read.
    root_node_done: bool,
    /// Past the root node, go-yaml reads a token or two that saphyr may read otherwise
    /// (a root block scalar's content at column 0 is content for saphyr): tabs and
    /// comments there are not listed.
    past_root: bool,
    out: &'a mut GoBlanks,
}

impl<'a> Scanner<'a> {
    fn new(b: &'a [u8], start: usize, end: usize, out: &'a mut GoBlanks) -> Self {
        // go-yaml's reader strips a byte order mark at the start of its input (each
        // chunk): it takes no column, unlike one at the start of a later line (found by
        // fuzzing: `\u{FEFF}- |` put the block scalar's content at the wrong column).
        let start = if b[start..end].starts_with("\u{FEFF}".as_bytes()) {
            start + 3
        } else {
            start
        };
        Scanner {
            b,
            pos: start,
            end,
            line: 0,
            column: 0,
            flow_level: 0,
            simple_key_allowed: true,
            indent: -1,
            indents: Vec::new(),
            keys: vec![SimpleKey::default()],
            json: false,
            root_node_done: false,
            past_root: false,
            out,
        }
    }

    fn at(&self, p: usize) -> u8 {
        if p < self.end { self.b[p] } else { 0 }
    }

    fn is_z(&self, p: usize) -> bool {
        p >= self.end
    }

    /// Line break length at `p`. go-yaml also breaks lines at NEL, LS and PS; saphyr
    /// (YAML 1.2) does not, and the outline follows saphyr's lines: the tabs it blanks
    /// must be white space to saphyr too, or values would change (found by the
    /// yaml_spans fuzz target). Those characters get a warning of their own
    /// (`unicode_breaks`).
    fn break_len(&self, p: usize) -> usize {
        match self.at(p) {
            b'\r' if self.at(p + 1) == b'\n' => 2,
            b'\r' | b'\n' => 1,
            _ => 0,
        }
    }

    fn is_blank(&self, p: usize) -> bool {
        matches!(self.at(p), b' ' | b'\t') && !self.is_z(p)
    }

    fn is_blankz(&self, p: usize) -> bool {
        self.is_z(p) || self.is_blank(p) || self.break_len(p) > 0
    }

    /// Moves over one character of the current line.
    fn skip(&mut self) {
        let width = match self.at(self.pos) {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        self.pos = (self.pos + width).min(self.end);
        self.column += 1;
    }

    fn skip_break(&mut self) {
        self.pos += self.break_len(self.pos).max(1);
        self.line += 1;
        self.column = 0;
    }

    fn skip_tab(&mut self) {
        if !self.past_root {
            self.out.skipped.push(self.pos);
        }
        self.skip();
    }

    /// Skips a comment up to the end of its line.
    fn skip_comment(&mut self) {
        let start = self.pos;
        while !self.is_z(self.pos) && self.break_len(self.pos) == 0 {
            self.skip();
        }
        let adjacent = start > 0 && !matches!(self.b[start - 1], b' ' | b'\t' | b'\n' | b'\r');
        if adjacent && !self.past_root {
            self.out.adjacent_comments.push(Span::new(start, self.pos));
        }
    }

    fn run(&mut self) -> Result<(), Stop> {
        loop {
            self.scan_to_next_token();
            if self.is_z(self.pos) {
                return Ok(());
            }
            let in_root_collection = self.indent >= 0;
            self.unroll_indent(self.column);
            // go-yaml decodes one document per chunk. The root node ends with its block
            // collection, or right after a root scalar or flow collection that is not a
            // key; the parser then reads one more token to see the document end (and the
            // scanner one more while that token may still be a key on its line). Nothing
            // after that is read.
            let root_ended = (in_root_collection && self.indent < 0)
                || (self.root_node_done
                    && !(self.at(self.pos) == b':'
                        && self.is_blankz(self.pos + 1)
                        && self.simple_key_is_valid()));
            self.root_node_done = false;
            if root_ended {
                self.past_root = true;
                self.fetch_token()?;
                let key = self.keys.last().copied().unwrap_or_default();
                if key.possible && key.line == self.line {
                    self.scan_to_next_token();
                    if !self.is_z(self.pos) {
                        self.fetch_token()?;
                    }
                }
                return Err(Stop::Other);
            }
            let node = self.fetch_token()?;
            if node && self.flow_level == 0 && self.indent < 0 {
                self.root_node_done = true;
            }
        }
    }

    fn simple_key_is_valid(&self) -> bool {
        let key = self.keys.last().copied().unwrap_or_default();
        key.possible && key.line == self.line && {
            // The key's distance in characters (bytes bound it from above).
            self.pos - key.pos <= MAX_SIMPLE_KEY_CHARS
                || self.b[key.pos..self.pos]
                    .iter()
                    .filter(|&&c| !(0x80..0xC0).contains(&c))
                    .count()
                    <= MAX_SIMPLE_KEY_CHARS
        }
    }

    /// Skips spaces, comments and line breaks; tabs only where go-yaml does.
    fn scan_to_next_token(&mut self) {
        loop {
            if self.column == 0 && self.b[self.pos..self.end].starts_with("\u{FEFF}".as_bytes()) {
                self.skip();
            }
            loop {
                match self.at(self.pos) {
                    b' ' if !self.is_z(self.pos) => self.skip(),
                    b'\t'
                        if !self.is_z(self.pos)
                            && (self.flow_level > 0 || !self.simple_key_allowed || self.json) =>
                    {
                        self.skip_tab()
                    }
                    _ => break,
                }
            }
            if self.at(self.pos) == b'#' {
                self.skip_comment();
            }
            if self.break_len(self.pos) == 0 {
                return;
            }
            self.skip_break();
            if self.flow_level == 0 {
                self.simple_key_allowed = true;
            }
        }
    }

    /// Scans one token; true when it completes a node (a scalar, an alias, a flow
    /// collection).
    fn fetch_token(&mut self) -> Result<bool, Stop> {
        let c = self.at(self.pos);
        let next_blankz = self.is_blankz(self.pos + 1);
        let flow = self.flow_level > 0;
        if self.column == 0 && c == b'%' {
            // A directive inside a document: the parser fails on it.
            return Err(Stop::Other);
        }
        match self.document_marker() {
            // go-yaml decodes the first document of a chunk and reads no further.
            Some(b"...") => return Err(Stop::Other),
            Some(_) => {
                self.unroll_indent(-1);
                self.remove_simple_key();
                self.simple_key_allowed = false;
                self.pos += 3;
                self.column += 3;
                return Ok(false);
            }
            None => {}
        }
        let mut node = false;
        match c {
            b'[' | b'{' => {
                self.save_simple_key();
                if self.flow_level >= MAX_FLOW_LEVEL {
                    return Err(Stop::Other);
                }
                self.flow_level += 1;
                self.keys.push(SimpleKey::default());
                self.simple_key_allowed = true;
                self.skip();
            }
            b']' | b'}' => {
                self.remove_simple_key();
                if self.flow_level > 0 {
                    self.flow_level -= 1;
                    self.keys.pop();
                }
                node = self.flow_level == 0;
                self.simple_key_allowed = false;
                self.skip();
            }
            b',' => {
                self.remove_simple_key();
                self.simple_key_allowed = true;
                self.skip();
            }
            b'-' if next_blankz => {
                if !flow {
                    if !self.simple_key_allowed {
                        return Err(Stop::Other);
                    }
                    self.roll_indent(self.column)?;
                }
                self.remove_simple_key();
                self.simple_key_allowed = true;
                self.skip();
            }
            b'?' if flow || next_blankz => {
                if !flow {
                    if !self.simple_key_allowed {
                        return Err(Stop::Other);
                    }
                    self.roll_indent(self.column)?;
                }
                self.remove_simple_key();
                self.simple_key_allowed = !flow;
                self.skip();
            }
            b':' if flow || next_blankz => self.fetch_value()?,
            b'*' | b'&' => {
                node = c == b'*';
                self.save_simple_key();
                self.simple_key_allowed = false;
                let start = self.pos;
                self.skip();
                while self.at(self.pos).is_ascii_alphanumeric()
                    || matches!(self.at(self.pos), b'_' | b'-')
                {
                    self.skip();
                }
                // go-yaml's names are ASCII letters, digits, `_` and `-`, followed by
                // white space or one of a few indicators (saphyr reads on: `&a.b`).
                let ends = self.is_blankz(self.pos)
                    || matches!(
                        self.at(self.pos),
                        b'?' | b':' | b',' | b']' | b'}' | b'%' | b'@' | b'`'
                    );
                if self.pos == start + 1 || !ends {
                    return Err(Stop::Anchor(start, ANCHOR_NAME));
                }
                // `&a:b`: go-yaml's name is `a`, and `:b` comes next; saphyr's name is
                // `a:b`. The two read the rest differently (found by fuzzing: a tab
                // go-yaml skips after `&n` was inside saphyr's block scalar), so the
                // document is not read at all rather than read wrongly.
                if matches!(self.at(self.pos), b'?' | b':' | b'%' | b'@' | b'`') {
                    return Err(Stop::Anchor(start, ANCHOR_NAME_DIVERGES));
                }
            }
            b'!' => {
                self.save_simple_key();
                self.simple_key_allowed = false;
                self.skip();
                if self.at(self.pos) == b'<' {
                    while !self.is_z(self.pos) && self.at(self.pos) != b'>' {
                        self.skip();
                    }
                }
                while !self.is_blankz(self.pos) {
                    self.skip();
                }
            }
            b'|' | b'>' if !flow => {
                self.remove_simple_key();
                self.simple_key_allowed = true;
                self.block_scalar()?;
                node = true;
            }
            b'\'' | b'"' => {
                self.save_simple_key();
                self.simple_key_allowed = false;
                self.quoted_scalar(c == b'\'')?;
                node = true;
            }
            _ if self.starts_plain_scalar(c, next_blankz) => {
                self.save_simple_key();
                self.simple_key_allowed = false;
                if self.plain_scalar()? {
                    self.simple_key_allowed = true;
                }
                node = true;
            }
            b'\t' => return Err(Stop::Tab(self.pos, CANNOT_START_TOKEN)),
            _ => return Err(Stop::Other),
        }
        Ok(node)
    }

    fn starts_plain_scalar(&self, c: u8, next_blankz: bool) -> bool {
        let indicator = self.is_blankz(self.pos)
            || matches!(
                c,
                b'-' | b'?'
                    | b':'
                    | b','
                    | b'['
                    | b']'
                    | b'{'
                    | b'}'
                    | b'#'
                    | b'&'
                    | b'*'
                    | b'!'
                    | b'|'
                    | b'>'
                    | b'\''
                    | b'"'
                    | b'%'
                    | b'@'
                    | b'`'
            );
        !indicator
            || (c == b'-' && !self.is_blank(self.pos + 1))
            || (self.flow_level == 0 && matches!(c, b'?' | b':') && !next_blankz)
    }

    fn fetch_value(&mut self) -> Result<(), Stop> {
        let key = self.keys.last().copied().unwrap_or_default();
        let valid = self.simple_key_is_valid();
        if let Some(last) = self.keys.last_mut() {
            last.possible = false;
        }
        if valid {
            self.roll_indent(key.column)?;
            self.simple_key_allowed = false;
        } else {
            if self.flow_level == 0 {
                if !self.simple_key_allowed {
                    return Err(Stop::Other);
                }
                self.roll_indent(self.column)?;
            }
            self.simple_key_allowed = self.flow_level == 0;
        }
        self.skip();
        Ok(())
    }

    fn save_simple_key(&mut self) {
        if self.simple_key_allowed
            && let Some(last) = self.keys.last_mut()
        {
            *last = SimpleKey {
                possible: true,
                line: self.line,
                pos: self.pos,
                column: self.column,
            };
        }
    }

    fn remove_simple_key(&mut self) {
        if let Some(last) = self.keys.last_mut() {
            last.possible = false;
        }
    }

    fn roll_indent(&mut self, column: isize) -> Result<(), Stop> {
        if self.flow_level == 0 && self.indent < column {
            if self.indents.len() >= MAX_INDENTS {
                return Err(Stop::Other);
            }
            self.indents.push(self.indent);
            self.indent = column;
        }
        Ok(())
    }

    fn unroll_indent(&mut self, column: isize) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > column {
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    /// A plain scalar and the blank lines after it; true when it ended after a line break.
    fn plain_scalar(&mut self) -> Result<bool, Stop> {
        let indent = self.indent + 1;
        let mut leading_blanks = false;
        loop {
            if self.document_marker().is_some() || self.at(self.pos) == b'#' {
                break;
            }
            while !self.is_blankz(self.pos) {
                let c = self.at(self.pos);
                if (c == b':' && self.is_blankz(self.pos + 1))
                    || (self.flow_level > 0 && matches!(c, b',' | b'?' | b'[' | b']' | b'{' | b'}'))
                {
                    break;
                }
                // Content: the blanks before it were joined into the value.
                leading_blanks = false;
                self.skip();
            }
            if !(self.is_blank(self.pos) || self.break_len(self.pos) > 0) {
                break;
            }
            self.skip_scalar_blanks(&mut leading_blanks, Some(indent))?;
            if self.flow_level == 0 && self.column < indent {
                break;
            }
        }
        Ok(leading_blanks)
    }

    /// The blanks and line breaks inside a plain or quoted scalar. A tab after a line
    /// break is white space, or, left of a plain scalar's `indent`, an error.
    fn skip_scalar_blanks(
        &mut self,
        leading_blanks: &mut bool,
        indent: Option<isize>,
    ) -> Result<(), Stop> {
        loop {
            if self.is_blank(self.pos) {
                if *leading_blanks && self.at(self.pos) == b'\t' {
                    if indent.is_some_and(|indent| self.column < indent) {
                        return Err(Stop::Tab(self.pos, VIOLATES_INDENTATION));
                    }
                    self.skip_tab();
                } else {
                    self.skip();
                }
            } else if self.break_len(self.pos) > 0 {
                self.skip_break();
                *leading_blanks = true;
            } else {
                return Ok(());
            }
        }
    }

    /// `---` or `...` at the start of a line, followed by a blank: a document marker.
    fn document_marker(&self) -> Option<&'a [u8]> {
        if self.column != 0 || !self.is_blankz(self.pos + 3) {
            return None;
        }
        let marker = &self.b[self.pos..(self.pos + 3).min(self.end)];
        (marker == b"---" || marker == b"...").then_some(marker)
    }

    fn quoted_scalar(&mut self, single: bool) -> Result<(), Stop> {
        let quote = if single { b'\'' } else { b'"' };
        self.skip();
        loop {
            if self.document_marker().is_some() || self.is_z(self.pos) {
                return Err(Stop::Other);
            }
            let mut leading_blanks = false;
            while !self.is_blankz(self.pos) {
                let c = self.at(self.pos);
                if single && c == b'\'' && self.at(self.pos + 1) == b'\'' {
                    self.skip();
                    self.skip();
                } else if c == quote {
                    break;
                } else if !single && c == b'\\' && self.break_len(self.pos + 1) > 0 {
                    self.skip();
                    self.skip_break();
                    leading_blanks = true;
                    break;
                } else if !single && c == b'\\' {
                    self.skip();
                    self.skip();
                } else {
                    self.skip();
                }
            }
            if self.at(self.pos) == quote && !self.is_z(self.pos) {
                self.skip();
                return Ok(());
            }
            self.skip_scalar_blanks(&mut leading_blanks, None)?;
        }
    }

    fn block_scalar(&mut self) -> Result<(), Stop> {
        self.skip();
        let mut increment = 0;
        for _ in 0..2 {
            match self.at(self.pos) {
                b'+' | b'-' => self.skip(),
                d @ b'1'..=b'9' if increment == 0 => {
                    increment = isize::from(d - b'0');
                    self.skip();
                }
                b'0' => return Err(Stop::Other),
                _ => break,
            }
        }
        while self.is_blank(self.pos) {
            if self.at(self.pos) == b'\t' {
                self.skip_tab();
            } else {
                self.skip();
            }
        }
        if self.at(self.pos) == b'#' {
            self.skip_comment();
        }
        if !self.is_z(self.pos) && self.break_len(self.pos) == 0 {
            return Err(Stop::Other);
        }
        if self.break_len(self.pos) > 0 {
            self.skip_break();
        }
        let mut indent = if increment == 0 {
            0
        } else if self.indent >= 0 {
            self.indent + increment
        } else {
            increment
        };
        self.block_scalar_breaks(&mut indent)?;
        while self.column == indent && !self.is_z(self.pos) {
            while !self.is_z(self.pos) && self.break_len(self.pos) == 0 {
                self.skip();
            }
            if self.is_z(self.pos) {
                break;
            }
            self.skip_break();
            self.block_scalar_breaks(&mut indent)?;
        }
        Ok(())
    }

    /// The indentation and empty lines of a block scalar; sets `indent` if it is unknown (0).
    fn block_scalar_breaks(&mut self, indent: &mut isize) -> Result<(), Stop> {
        let mut max_indent = 0;
        loop {
            while (*indent == 0 || self.column < *indent)
                && self.at(self.pos) == b' '
                && !self.is_z(self.pos)
            {
                self.skip();
            }
            max_indent = max_indent.max(self.column);
            if (*indent == 0 || self.column < *indent)
                && self.at(self.pos) == b'\t'
                && !self.is_z(self.pos)
            {
                return Err(Stop::Tab(self.pos, INDENTATION_SPACE_EXPECTED));
            }
            if self.break_len(self.pos) == 0 {
                break;
            }
            self.skip_break();
        }
        if *indent == 0 {
            *indent = max_indent.max(self.indent + 1).max(1);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(text: &str) -> Option<GoBlanks> {
        super::scan(text, false)
    }

    fn errors(text: &str) -> Vec<(usize, &'static str)> {
        scan(text).map(|s| s.errors).unwrap_or_default()
    }

    fn skipped(text: &str) -> Vec<usize> {
        scan(text).map(|s| s.skipped).unwrap_or_default()
    }

    #[test]
    fn text_without_tabs_is_not_scanned() {
        assert_eq!(scan("a: 1\n"), None);
    }

    // Each verdict below was recorded with sigs.k8s.io/yaml (go-yaml v2) from the 1.35
    // libraries.
    #[test]
    fn tabs_where_a_token_may_start_fail() {
        for (text, at) in [
            ("- \t1\n", 2),
            ("-\t1\n", 1),
            ("k:\n\t- 1\n", 3),
            ("a: \"x\"\n\t\n", 7),
            ("a: \"x\"\n\t# c\n", 7),
            ("? \ta\n: 1\n", 2),
            ("l:\n- - a\n  - \tb\n", 13),
        ] {
            assert_eq!(errors(text), vec![(at, CANNOT_START_TOKEN)], "{text:?}");
        }
    }

    #[test]
    fn tabs_left_of_a_plain_scalar_continuation_fail() {
        assert_eq!(errors("a: 1\n\t\nb: 2\n"), vec![(5, VIOLATES_INDENTATION)]);
        assert_eq!(
            errors("a:\n  b: 1\n \t# c\n  c: 2\n"),
            vec![(11, VIOLATES_INDENTATION)]
        );
        // At or right of the indentation, the tab is white space.
        assert_eq!(errors("a: 1\n  \t\nb: 2\n"), vec![]);
        assert_eq!(skipped("a: 1\n  \t\nb: 2\n"), vec![7]);
    }

    #[test]
    fn tabs_in_a_block_scalar_indentation_fail() {
        for (text, at) in [
            ("e: |\n\n\t \n", 6),
            ("a: |\n  x\n\t\n", 9),
            ("a: |\n  x\n \t\n", 10),
            ("s: |\n  \tline one\n", 7),
            ("c: |2\n \tx\n", 7),
        ] {
            assert_eq!(
                errors(text),
                vec![(at, INDENTATION_SPACE_EXPECTED)],
                "{text:?}"
            );
        }
        // Inside the content, a tab is content.
        assert_eq!(scan("a: |\n  x\n  \t\n").unwrap(), GoBlanks::default());
        assert_eq!(
            scan("d: |\n    some\n    \t  tabbed\n").unwrap(),
            GoBlanks::default()
        );
    }

    #[test]
    fn tabs_go_yaml_skips_are_listed() {
        for (text, tabs) in [
            ("k:\t1\n", vec![2]),
            ("k: \t1\n", vec![3]),
            ("a: [1,\t2]\n", vec![6]),
            ("q: 'quoted\n\t more'\n", vec![11]),
            ("r: \"dq\n\t  x\"\n", vec![7]),
            ("a: &x\t1\n", vec![5]),
            ("s: |\t# c\n  x\n", vec![4]),
            ("{\n\t\"a\": \"\t\"\n}\n", vec![2]),
            ("{\"a\": 1}\n\t{\"b\": 2}\n", vec![9]),
            // Not JSON, but read as YAML: the quote in `~a"` is content, and so is the
            // tab in the string that follows.
            ("{\"a\": [{~a\", \"b\": \"c\td\"}]}\n", vec![]),
        ] {
            let found = scan(text).unwrap();
            assert_eq!(found.errors, vec![], "{text:?}");
            assert_eq!(found.skipped, tabs, "{text:?}");
        }
    }

    #[test]
    fn tabs_inside_values_are_content() {
        assert_eq!(scan("a: x\ty\nb: \"p\tq\"\n").unwrap(), GoBlanks::default());
        // A tab inside a plain scalar's continuation line is content ("plain c\tx").
        assert_eq!(scan("p: plain\n  c\tx\n").unwrap(), GoBlanks::default());
    }

    #[test]
    fn each_chunk_fails_on_its_own() {
        let text = "a: 1\n\t\n---\nb: 2\n---\n- \tc\n";
        assert_eq!(
            errors(text),
            vec![(5, VIOLATES_INDENTATION), (22, CANNOT_START_TOKEN)]
        );
    }

    #[test]
    fn comments_right_after_a_token_are_listed() {
        // go-yaml reads `{"a":"x\n"}`, `{"a":"x"}`, `{"a":[1]}`; a `#` inside a plain
        // scalar is content (`{"a":"x#c"}`).
        for (text, comments) in [
            ("a: |#c\n  x\n", vec![Span::new(4, 6)]),
            ("a: \"x\"#c\n", vec![Span::new(6, 8)]),
            ("a: [1]#c # d\n", vec![Span::new(6, 12)]),
            ("a: x#c\n", vec![]),
        ] {
            let found = super::scan(text, true).unwrap();
            assert_eq!(found.adjacent_comments, comments, "{text:?}");
            assert_eq!(found.errors, vec![], "{text:?}");
        }
        assert_eq!(scan("a: \"x\"#c\n"), None);
    }

    #[test]
    fn nothing_after_a_document_end_marker_is_read() {
        assert_eq!(errors("a: 1\n...\n\t\n"), vec![]);
        // Nor after a document that ends without one: a line less indented than the
        // root mapping, or more after a root scalar or flow collection.
        assert_eq!(errors("  a: 1\nb:\n\t- 2\n"), vec![]);
        assert_eq!(errors("x\n- \t1\n"), vec![]);
        // The token after the root node is read: here it is a tab.
        assert_eq!(errors("[1]\n\t\n"), vec![(4, CANNOT_START_TOKEN)]);
        // A root scalar that is a key goes on.
        assert_eq!(errors("a: 1\n\t\n").len(), 1);
        assert_eq!(errors("[a]: 1\n- \t1\n").len(), 1);
    }
}
