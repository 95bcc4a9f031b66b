//! The tree builder: saphyr-parser events to a spanned [`Node`] tree per document, with
//! go-yaml v2's scalar resolution, merge keys, anchors and aliases, and the checks that
//! need the tree being built (duplicate keys, values JSON cannot carry, depth and alias
//! budgets, and the places where go-yaml reads the text otherwise).

use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle, ScanError, Tag};

use super::super::node::{Entry, Mapping, Node, ScalarStyle, Value};
use super::super::scalar::{self, CoreTag, Resolved};
use super::super::span::{LineIndex, Span};
use super::*;
/// One pass of saphyr over `text`; on an indentation error that go-yaml would not make,
/// also says which lines to indent for another try (see [`lenient`]).
pub(super) fn parse_attempt(text: &str, limits: &Limits) -> (ParseOutput, Option<lenient::Fix>) {
    if let Some(out) = parse_json_value(text, limits) {
        return (out, None);
    }
    let mut builder = Builder::new(text, *limits);
    let mut parser = Parser::new_from_str(text);
    let mut fix = None;
    while let Some(item) = parser.next_event() {
        match item {
            Ok((event, span)) => {
                let start = builder.offsets.byte(span.start.index());
                let end = builder.offsets.byte(span.end.index());
                if let Event::Scalar(_, SaphyrStyle::Literal | SaphyrStyle::Folded, ..) = event
                    && builder.frames.is_empty()
                {
                    fix = lenient::root_block_scalar_fix(text, start, end.max(start));
                    if fix.is_some() {
                        break;
                    }
                }
                builder.event(event, start, end.max(start));
            }
            Err(err) => {
                fix = builder.scan_error(&err);
                break;
            }
        }
    }
    (builder.out, fix)
}

/// saphyr's error at its 256th nested flow collection (also raised for the JSON walk).
const SAPHYR_RECURSION_LIMIT: &str = "recursion limit exceeded";

/// The tree of a text kubectl decodes as one JSON value, built from the events
/// `json_events` reads without saphyr (whose scanner would hold the whole document as
/// tokens first). `None` for any other text.
fn parse_json_value(text: &str, limits: &Limits) -> Option<ParseOutput> {
    if !json_events_enabled()
        || !text
            .trim_start_matches('\u{FEFF}')
            .trim_start()
            .starts_with('{')
    {
        return None;
    }
    if !json_stream::is_single_json(text) {
        return None;
    }
    let mut builder = Builder::new(text, *limits);
    builder.json_stream = Some(true);
    match json_events::walk(text, |event, start, end| builder.event(event, start, end)) {
        json_events::Walk::Done => {}
        json_events::Walk::TooDeep(at) => {
            let index = text[..at].chars().count();
            let marker = saphyr_parser::Marker::new(index, 0, 0);
            builder.scan_error(&ScanError::new_str(marker, SAPHYR_RECURSION_LIMIT));
        }
        json_events::Walk::Unexpected => return None,
    }
    Some(builder.out)
}

// Tests and the yaml_spans fuzzer compare the trees and errors of both readings
// (`super::parse_with_saphyr_only`).
thread_local! {
    pub(super) static JSON_EVENTS: std::cell::Cell<bool> = const { std::cell::Cell::new(true) };
}

fn json_events_enabled() -> bool {
    JSON_EVENTS.with(|enabled| enabled.get())
}

/// Converts saphyr's character indices to byte offsets. Queries arrive almost in order,
/// so a cursor that moves forward (and, rarely, a little backward) keeps this linear.
struct Offsets<'t> {
    bytes: &'t [u8],
    ascii: bool,
    chars: usize,
    pos: usize,
}

impl<'t> Offsets<'t> {
    fn new(text: &'t str) -> Self {
        Offsets {
            bytes: text.as_bytes(),
            ascii: text.is_ascii(),
            chars: 0,
            pos: 0,
        }
    }

    fn byte(&mut self, index: usize) -> usize {
        let b = self.bytes;
        if self.ascii {
            return index.min(b.len());
        }
        if index >= self.chars {
            let mut need = index - self.chars;
            let mut p = self.pos;
            while need > 0 && p < b.len() {
                if need >= 8 && p + 8 <= b.len() {
                    let word = u64::from_le_bytes(b[p..p + 8].try_into().unwrap_or([0x80; 8]));
                    if word & 0x8080_8080_8080_8080 == 0 {
                        p += 8;
                        need -= 8;
                        continue;
                    }
                }
                p += utf8_width(b[p]);
                need -= 1;
            }
            self.pos = p.min(b.len());
            self.chars = index - need;
        } else {
            while self.chars > index && self.pos > 0 {
                self.pos -= 1;
                while self.pos > 0 && b[self.pos] & 0xC0 == 0x80 {
                    self.pos -= 1;
                }
                self.chars -= 1;
            }
        }
        self.pos
    }
}

fn utf8_width(lead: u8) -> usize {
    match lead {
        0x00..=0x7F => 1,
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        _ => 4,
    }
}

/// Keys and strings alias expansion may copy into one document. The node limit alone
/// let a 1 MB anchored string aliased 20,000 times (a 1 MB file) claim 20 GB; a
/// document the server accepts is below its 3 MiB request limit.
pub const MAX_ALIAS_BYTES: usize = 64 << 20;

/// The size of a node, as alias expansion charges it.
#[derive(Clone, Copy, Debug, Default)]
struct Size {
    nodes: usize,
    /// Bytes of the keys and strings in the node.
    bytes: usize,
}

impl Size {
    fn scalar(value: &Value) -> Size {
        Size {
            nodes: 1,
            bytes: match value {
                Value::String(s) => s.len(),
                _ => 0,
            },
        }
    }
}

/// A node stored under an anchor, ready to be copied by aliases.
struct Anchored {
    node: Node,
    /// What a copy of `node` costs.
    size: Size,
    /// Collection levels in `node` (0 for a scalar).
    height: usize,
    /// The key an alias of this node stands for (`None` for collections).
    key: Option<Result<String, String>>,
    /// For a scalar JSON cannot carry: the error to repeat where an alias uses it.
    value_error: Option<String>,
}

enum PendingKey {
    Key(String, Span),
    /// `<<`: the value is merged into the mapping.
    Merge(Span),
    /// The key was rejected (already reported): drop the value.
    Skip,
}

/// Mappings with more entries than this get a hash index for duplicate detection.
const INDEX_FROM: usize = 16;

#[derive(Default)]
struct IdentityHasher(u64);

impl Hasher for IdentityHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

fn key_hash(key: &str) -> u64 {
    // FNV-1a: keys are short.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in key.as_bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

#[derive(Default)]
struct MapFrame {
    entries: Vec<Entry>,
    key: Option<PendingKey>,
    /// Parallel to `entries` once a merge happened: the entry came from `<<` (an explicit
    /// key may then override it without a duplicate-key error, as in go-yaml).
    merged: Vec<bool>,
    /// Key hash → index of the first entry with that hash (large mappings only).
    index: Option<HashMap<u64, usize, BuildHasherDefault<IdentityHasher>>>,
}

impl MapFrame {
    fn find(&self, key: &str) -> Option<usize> {
        match &self.index {
            Some(index) => match index.get(&key_hash(key)) {
                Some(&i) if self.entries[i].key == key => Some(i),
                Some(_) => self.entries.iter().position(|e| e.key == key),
                None => None,
            },
            None => self.entries.iter().position(|e| e.key == key),
        }
    }

    fn push(&mut self, entry: Entry, merged: bool) {
        if merged || !self.merged.is_empty() {
            self.merged.resize(self.entries.len(), false);
            self.merged.push(merged);
        }
        let at = self.entries.len();
        if let Some(index) = &mut self.index {
            index.entry(key_hash(&entry.key)).or_insert(at);
        }
        self.entries.push(entry);
        if self.index.is_none() && self.entries.len() > INDEX_FROM {
            let mut index: HashMap<u64, usize, BuildHasherDefault<IdentityHasher>> =
                HashMap::with_capacity_and_hasher(self.entries.len() * 2, Default::default());
            for (i, e) in self.entries.iter().enumerate() {
                index.entry(key_hash(&e.key)).or_insert(i);
            }
            self.index = Some(index);
        }
    }

    /// Inserts an explicit key; on a duplicate of an explicit key, keeps the last value and
    /// returns the key and the first definition's span.
    fn insert(&mut self, key: String, key_span: Span, value: Node) -> Option<(String, Span)> {
        match self.find(&key) {
            Some(i) => {
                let from_merge = self.merged.get(i).copied().unwrap_or(false);
                let entry = &mut self.entries[i];
                let first = entry.key_span;
                entry.key_span = key_span;
                entry.value = value;
                if from_merge {
                    self.merged[i] = false;
                    None
                } else {
                    Some((key, first))
                }
            }
            None => {
                self.push(
                    Entry {
                        key,
                        key_span,
                        value,
                    },
                    false,
                );
                None
            }
        }
    }

    fn set_merged(&mut self, entry: Entry) {
        self.merged.resize(self.entries.len(), false);
        match self.find(&entry.key) {
            Some(i) => {
                self.entries[i] = entry;
                self.merged[i] = true;
            }
            None => self.push(entry, true),
        }
    }

    /// go-yaml v2 merge: the value is a mapping or a sequence of mappings (earlier ones
    /// win); merged keys replace keys set before the `<<` and are replaced by keys after it.
    fn merge(&mut self, value: Node) -> Result<(), String> {
        const WANT_MAP: &str = "map merge requires map or sequence of maps as the value";
        match value.value {
            Value::Object(map) => {
                for e in map.entries {
                    self.set_merged(e);
                }
                Ok(())
            }
            Value::Array(items) => {
                if !items.iter().all(|n| matches!(n.value, Value::Object(_))) {
                    return Err(WANT_MAP.to_string());
                }
                for item in items.into_iter().rev() {
                    if let Value::Object(map) = item.value {
                        for e in map.entries {
                            self.set_merged(e);
                        }
                    }
                }
                Ok(())
            }
            _ => Err(WANT_MAP.to_string()),
        }
    }
}

enum FrameKind {
    Seq(Vec<Node>),
    Map(MapFrame),
}

/// An open collection.
pub(super) struct Frame {
    kind: FrameKind,
    pub(super) start: usize,
    /// End of the furthest child written here (an alias counts where it is written).
    end: usize,
    anchor: usize,
    /// This collection or one it is inside has an anchor: an anchored node completed
    /// here will be copied again when that anchor's node is kept.
    in_anchor: bool,
    /// The nodes below this one.
    size: Size,
    /// Largest child height.
    height: usize,
}

pub(super) struct Builder<'t> {
    pub(super) text: &'t str,
    limits: Limits,
    offsets: Offsets<'t>,
    out: ParseOutput,
    /// Index the next document will get.
    next_index: usize,
    in_document: bool,
    index: usize,
    pub(super) frames: Vec<Frame>,
    root: Option<Node>,
    /// A fatal error happened in this document: ignore events until its end.
    skipping: bool,
    /// A non-structural error (value JSON cannot carry): keep building, drop at the end.
    failed: bool,
    anchors: HashMap<usize, Anchored>,
    /// What anchors and aliases copied in this document.
    copied: Size,
    /// Byte end of the previous event (block-scalar indicators are searched from there).
    last_end: usize,
    lines: Option<LineIndex>,
    /// The text is a JSON stream (first character `{`) of valid JSON values, which
    /// kubectl decodes as JSON (it reads one that fails as YAML): asked when needed.
    json_stream: Option<bool>,
}

impl<'t> Builder<'t> {
    fn new(text: &'t str, limits: Limits) -> Self {
        Builder {
            json_stream: None,
            text,
            limits,
            offsets: Offsets::new(text),
            out: ParseOutput::default(),
            next_index: 0,
            in_document: false,
            index: 0,
            frames: Vec::new(),
            root: None,
            skipping: false,
            failed: false,
            anchors: HashMap::new(),
            copied: Size::default(),
            last_end: 0,
            lines: None,
        }
    }

    fn event(&mut self, event: Event<'t>, start: usize, end: usize) {
        let implicit_start = matches!(event, Event::DocumentStart(false));
        match event {
            Event::DocumentStart(_) => self.begin_document(),
            Event::DocumentEnd => self.end_document(),
            _ if self.skipping || !self.in_document => {}
            Event::Scalar(value, style, anchor, tag) => {
                self.scalar(value, style, anchor, tag.as_deref(), start, end)
            }
            Event::SequenceStart(anchor, tag) => {
                self.open(false, anchor, tag.is_some(), start, end)
            }
            Event::MappingStart(anchor, tag) => self.open(true, anchor, tag.is_some(), start, end),
            Event::SequenceEnd | Event::MappingEnd => self.close(start, end),
            Event::Alias(id) => self.alias(id, start, end),
            Event::Nothing | Event::StreamStart | Event::StreamEnd => {}
        }
        // An implicit document start is marked at the first token, which for a block
        // scalar is its first content character: the `|`/`>` before it must stay
        // reachable from `last_end`.
        if !implicit_start {
            self.last_end = end;
        }
    }

    fn begin_document(&mut self) {
        self.in_document = true;
        self.index = self.next_index;
        self.next_index += 1;
        self.reset_document();
    }

    fn end_document(&mut self) {
        if self.in_document
            && !self.skipping
            && !self.failed
            && let Some(root) = self.root.take()
            && !root.is_null()
        {
            self.out.documents.push(ParsedDocument {
                index: self.index,
                root,
            });
        }
        self.in_document = false;
        self.reset_document();
    }

    fn reset_document(&mut self) {
        self.frames.clear();
        self.root = None;
        self.skipping = false;
        self.failed = false;
        self.anchors.clear();
        self.copied = Size::default();
    }

    fn scan_error(&mut self, err: &ScanError) -> Option<lenient::Fix> {
        let at = self.offsets.byte(err.marker().index());
        let fix = lenient::fix_for(self, err.info(), at);
        // saphyr counts flow levels in a u8 and stops at 255.
        let (kind, message) = if err.info() == SAPHYR_RECURSION_LIMIT {
            (
                YamlErrorKind::DepthLimit,
                "nesting is deeper than the limit of 255 levels of flow collections".to_string(),
            )
        } else if matches!(
            err.info(),
            SAPHYR_MISPLACED_BRACKET | SAPHYR_COMMENT_INTERCEPTING
        ) && self.root_ended_before(at)
        {
            // go-yaml scans a `]` or `}` outside any flow collection as a token, which
            // only the next document's parse would refuse: after a finished root, the
            // rest of the section is content kubectl never reads (libyaml differential).
            // Likewise a plain scalar a comment interrupts (`{a: 1} x # c` then a line
            // that could continue it): saphyr refuses the next line, go-yaml ends the
            // scalar at the comment and stops after the root (kubectl-reader sweep).
            (
                YamlErrorKind::Syntax,
                SAPHYR_EXPECTED_DOCUMENT_START.to_string(),
            )
        } else {
            (YamlErrorKind::Syntax, err.info().to_string())
        };
        let document = if self.in_document {
            self.index
        } else {
            self.next_index
        };
        self.out.errors.push(YamlError {
            kind,
            message,
            span: Span::point(end_of_content(self.text, at)),
            document,
        });
        self.frames.clear();
        self.root = None;
        fix
    }

    fn error(&mut self, kind: YamlErrorKind, message: String, span: Span) {
        self.out.errors.push(YamlError {
            kind,
            message,
            span,
            document: self.index,
        });
    }

    /// Reports an error after which the document cannot be built.
    fn fatal(&mut self, kind: YamlErrorKind, message: String, span: Span) {
        self.error(kind, message, span);
        self.skipping = true;
        // The partial tree is at most `max_depth` deep, so dropping it is safe.
        self.frames.clear();
        self.root = None;
    }

    /// Reports a value JSON cannot carry: the document is dropped at its end, but building
    /// goes on so that every such value is reported.
    fn not_json(&mut self, message: String, span: Span) {
        self.error(YamlErrorKind::NotJson, message, span);
        self.failed = true;
    }

    fn expecting_key(&self) -> bool {
        matches!(
            self.frames.last(),
            Some(Frame { kind: FrameKind::Map(m), .. }) if m.key.is_none()
        )
    }

    /// Whether go-yaml's document root has ended before `at`: it is finished, or the line
    /// of `at` is less indented than the root block collection, which ends it (saphyr
    /// fails there before it reports the end).
    fn root_ended_before(&self, at: usize) -> bool {
        let b = self.text.as_bytes();
        let at = at.min(b.len());
        let column_of = |p: usize| {
            self.text
                .get(lenient::line_start(b, p)..p)
                .map(|s| s.chars().count())
        };
        self.in_document
            && match self.frames.first() {
                None => self.root.is_some(),
                Some(root) => {
                    !matches!(b.get(root.start), Some(b'[' | b'{'))
                        && b[lenient::line_start(b, at)..at].iter().all(|&c| c == b' ')
                        && matches!(
                            (column_of(at), column_of(root.start)),
                            (Some(line), Some(root)) if line < root
                        )
                }
            }
    }

    /// Whether the next node is inside a flow collection (a single-pair mapping in a
    /// flow sequence starts at its key, not at a bracket).
    fn in_flow(&self) -> bool {
        self.flow_closer().is_some()
    }

    /// The bracket that closes the innermost flow collection open here (`]` or `}`).
    fn flow_closer(&self) -> Option<u8> {
        let b = self.text.as_bytes();
        self.frames.iter().rev().find_map(|f| match b.get(f.start) {
            Some(b'[') => Some(b']'),
            Some(b'{') => Some(b'}'),
            _ => None,
        })
    }

    /// Whether kubectl decodes the text as JSON: it starts with `{` and every value in
    /// it is valid JSON. (apimachinery's `YAMLOrJSONDecoder` reads a stream that starts
    /// with `{` as JSON; recent releases read it as YAML when that fails.)
    fn is_json_stream(&mut self) -> bool {
        let text = self.text;
        *self
            .json_stream
            .get_or_insert_with(|| json_stream::is_json(text))
    }

    /// What go-yaml makes of a `?` that starts a plain scalar saphyr read inside a flow
    /// collection (`[?a]`, `{?a: 1}`): go-yaml reads every `?` there as a key indicator
    /// (YAML 1.2 and saphyr, only one followed by a space).
    fn flow_key_indicator(&self, start: usize, props: bool) -> FlowKeyIndicator {
        if props {
            // `&x ?a`: the properties make an empty node, then the key cannot follow.
            return match self.flow_closer() {
                Some(b'}') => FlowKeyIndicator::Refused(STALE_FLOW_KEY),
                _ => FlowKeyIndicator::Refused(FLOW_QUESTION_MARK_SEQUENCE),
            };
        }
        if self.expecting_key() {
            // After saphyr's own key indicator (`? ?a`), go-yaml finds a second one
            // where the key must be.
            let b = self.text.as_bytes();
            let before = b[..start]
                .iter()
                .rposition(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
            if before.is_some_and(|i| b[i] == b'?') {
                return FlowKeyIndicator::Refused(FLOW_NODE_EXPECTED);
            }
            return FlowKeyIndicator::Key;
        }
        match self.frames.last() {
            Some(Frame {
                kind: FrameKind::Seq(_),
                ..
            }) => FlowKeyIndicator::SinglePair,
            // A mapping's value: go-yaml finds a key indicator where a node must be.
            _ => FlowKeyIndicator::Refused(FLOW_NODE_EXPECTED),
        }
    }

    /// Where the `:` after `key`, an implicit key of the innermost open flow mapping,
    /// stands when go-yaml no longer takes `key` for a key there: its `:` is on a later
    /// line than the key's start, or more than 1024 characters after it (see
    /// [`STALE_FLOW_KEY`]).
    fn stale_flow_key(&self, key: Span) -> Option<usize> {
        let b = self.text.as_bytes();
        let frame = self.frames.last()?;
        if b.get(frame.start) != Some(&b'{') {
            return None;
        }
        // An explicit key (`? k`) may span lines.
        let before = b[..key.start]
            .iter()
            .rposition(|c| !matches!(c, b' ' | b'\t' | b'\n' | b'\r'));
        if before.is_some_and(|i| b[i] == b'?') {
            return None;
        }
        let mut line_break = b[key.start..key.end]
            .iter()
            .any(|&c| c == b'\n' || c == b'\r');
        let mut p = key.end;
        loop {
            match b.get(p)? {
                b' ' | b'\t' => p += 1,
                b'\n' | b'\r' => {
                    line_break = true;
                    p += 1;
                }
                b'#' => p += memchr::memchr2(b'\n', b'\r', &b[p..])?,
                b':' => break,
                _ => return None,
            }
        }
        let too_long = p - key.start > 1024 && self.text[key.start..p].chars().count() > 1024;
        (line_break || too_long).then_some(p)
    }

    fn set_pending_key(&mut self, key: PendingKey, key_end: usize) {
        if let Some(frame) = self.frames.last_mut() {
            frame.end = frame.end.max(key_end);
            if let FrameKind::Map(m) = &mut frame.kind {
                m.key = Some(key);
            }
        }
    }

    /// Charges a copy of `size` to the document's alias budget.
    fn charge(&mut self, size: Size, span: Span) -> bool {
        self.copied.nodes = self.copied.nodes.saturating_add(size.nodes);
        self.copied.bytes = self.copied.bytes.saturating_add(size.bytes);
        let message = if self.copied.nodes > self.limits.max_alias_nodes {
            let limit = self.limits.max_alias_nodes;
            let nodes = if limit == 1 { "node" } else { "nodes" };
            format!(
                "document contains excessive aliasing: expanding anchors and aliases would copy more than {limit} {nodes}"
            )
        } else if self.copied.bytes > MAX_ALIAS_BYTES {
            format!(
                "document contains excessive aliasing: expanding anchors and aliases would copy more than {} MiB of keys and strings",
                MAX_ALIAS_BYTES >> 20
            )
        } else {
            return true;
        };
        self.fatal(YamlErrorKind::AliasLimit, message, span);
        false
    }

    fn scalar(
        &mut self,
        text: Cow<'t, str>,
        style: SaphyrStyle,
        anchor: usize,
        tag: Option<&Tag>,
        raw_start: usize,
        raw_end: usize,
    ) {
        let mut span = self.scalar_span(style, anchor != 0 || tag.is_some(), raw_start, raw_end);
        // A scalar with an escape is never borrowed from the text.
        if style == SaphyrStyle::DoubleQuoted
            && matches!(text, Cow::Owned(_))
            && let Some(at) = slash_escape(self.text, span)
            && !self.is_json_stream()
        {
            self.fatal(
                YamlErrorKind::Syntax,
                SLASH_ESCAPE.to_string(),
                Span::new(at, at + 2),
            );
            return;
        }
        let mut text = text;
        if style == SaphyrStyle::Plain
            && matches!(text.as_bytes().first(), Some(b':' | b'?'))
            && self.in_flow()
        {
            match text.as_bytes().first() {
                Some(b':') => {
                    // Dropped with its chunk in `parse` (see `FLOW_NODE_EXPECTED`).
                    self.error(
                        YamlErrorKind::Syntax,
                        FLOW_NODE_EXPECTED.to_string(),
                        Span::point(span.start),
                    );
                }
                Some(b'?') => {
                    match self.flow_key_indicator(span.start, anchor != 0 || tag.is_some()) {
                        FlowKeyIndicator::Key => {
                            text = without_first_byte(text);
                            span = Span::new(span.start + 1, span.end);
                        }
                        FlowKeyIndicator::SinglePair => {
                            // `[?a]` is `[{a: null}]`: the pair saphyr would have built for
                            // `[? a]`.
                            self.open(true, 0, false, span.start, span.start);
                            self.scalar(
                                without_first_byte(text),
                                style,
                                0,
                                None,
                                span.start + 1,
                                span.end,
                            );
                            self.scalar(Cow::Borrowed(""), style, 0, None, span.end, span.end);
                            self.close(span.end, span.end);
                            return;
                        }
                        FlowKeyIndicator::Refused(message) => {
                            // Dropped with its chunk in `parse`.
                            self.error(
                                YamlErrorKind::Syntax,
                                message.to_string(),
                                Span::point(span.start),
                            );
                        }
                    }
                }
                _ => {}
            }
        }
        if style == SaphyrStyle::Plain
            && !text.is_empty()
            && span.end > 0
            && !is_blank_or_break(self.text.as_bytes()[span.end - 1])
            && self.text.as_bytes().get(span.end) == Some(&b':')
            && matches!(
                self.text.as_bytes().get(span.end + 1),
                Some(b',' | b']' | b'}')
            )
            && self.in_flow()
        {
            self.out.flow_colons.push(span.end);
        }
        if style == SaphyrStyle::Plain
            && let Some(at) = memchr::memchr(
                b'?',
                self.text
                    .as_bytes()
                    .get(span.start + 1..span.end)
                    .unwrap_or_default(),
            )
            && let Some(closer) = self.flow_closer()
        {
            // Dropped with its chunk in `parse` (see `FLOW_QUESTION_MARK`).
            let message = if closer == b']' {
                FLOW_QUESTION_MARK_SEQUENCE
            } else {
                STALE_FLOW_KEY
            };
            self.error(
                YamlErrorKind::Syntax,
                message.to_string(),
                Span::point(span.start + 1 + at),
            );
        }
        if style == SaphyrStyle::Plain
            && matches!(self.text.as_bytes().get(span.start), Some(b'|' | b'>'))
            && self.in_flow()
        {
            // Dropped with its chunk in `parse` (see `FLOW_BLOCK_INDICATOR`).
            self.error(
                YamlErrorKind::Syntax,
                FLOW_BLOCK_INDICATOR.to_string(),
                Span::point(span.start),
            );
        }
        let core = tag.map(core_tag);
        let resolved = match core {
            None if style == SaphyrStyle::Plain => Ok(scalar::resolve_plain_yaml(&text)),
            None => Ok(Resolved::Str),
            Some(tag) => scalar::resolve_tagged(tag, &text),
        };
        // A number beyond float64 is a string to go-yaml, but a JSON text goes to
        // Go's JSON decoder, which refuses it.
        let resolved = match resolved {
            Ok(Resolved::Str) if style == SaphyrStyle::Plain && core.is_none() => {
                match scalar::json_number_overflow(&text) {
                    Some(message) if self.is_json_stream() => Err(message),
                    _ => Ok(Resolved::Str),
                }
            }
            other => other,
        };
        let node_style = match (style, &resolved) {
            (_, Ok(Resolved::Binary)) => ScalarStyle::NotScalar,
            (SaphyrStyle::Plain, _) => ScalarStyle::Plain,
            (SaphyrStyle::SingleQuoted, _) => ScalarStyle::SingleQuoted,
            (SaphyrStyle::DoubleQuoted, _) => ScalarStyle::DoubleQuoted,
            (SaphyrStyle::Literal, _) => ScalarStyle::Literal,
            (SaphyrStyle::Folded, _) => ScalarStyle::Folded,
        };

        // Anchored scalars (rare) keep both their key and value forms for aliases.
        let anchored = (anchor != 0).then(|| {
            let key = resolved
                .clone()
                .and_then(|r| scalar::key_string(r, Cow::Borrowed(&text)));
            let value = resolved
                .clone()
                .and_then(|r| scalar::into_value(r, Cow::Borrowed(&text)));
            (key, value)
        });

        if self.expecting_key() {
            let is_merge = &*text == "<<"
                && match core {
                    None => style == SaphyrStyle::Plain,
                    Some(t) => t == CoreTag::Merge,
                };
            if let Some(colon) = self.stale_flow_key(span)
                && !self.is_json_stream()
            {
                // Dropped with its chunk in `parse` (see `STALE_FLOW_KEY`).
                self.error(
                    YamlErrorKind::Syntax,
                    STALE_FLOW_KEY.to_string(),
                    Span::point(colon),
                );
            }
            let pending = if is_merge {
                PendingKey::Merge(span)
            } else {
                match resolved.and_then(|r| scalar::key_string(r, text)) {
                    Ok(key) => PendingKey::Key(key, span),
                    Err(message) => {
                        self.not_json(message, span);
                        PendingKey::Skip
                    }
                }
            };
            self.set_pending_key(pending, span.end);
            if let Some((key, value)) = anchored {
                let (value, value_error) = match value {
                    Ok(v) => (v, None),
                    Err(e) => (Value::Null, Some(e)),
                };
                let size = Size::scalar(&value);
                self.define_anchor(
                    anchor,
                    Node {
                        value,
                        span,
                        style: node_style,
                    },
                    size,
                    0,
                    Some(key),
                    value_error,
                );
            }
            return;
        }

        let (value, key, value_error) = match anchored {
            Some((key, value)) => match value {
                Ok(v) => (v, Some(key), None),
                Err(e) => {
                    self.not_json(e.clone(), span);
                    (Value::Null, Some(key), Some(e))
                }
            },
            None => match resolved.and_then(|r| scalar::into_value(r, text)) {
                Ok(v) => (v, None, None),
                Err(e) => {
                    self.not_json(e, span);
                    (Value::Null, None, None)
                }
            },
        };
        let node = Node {
            value,
            span,
            style: node_style,
        };
        let size = Size::scalar(&node.value);
        if anchor != 0 && !self.define_anchor(anchor, node.clone(), size, 0, key, value_error) {
            return;
        }
        self.attach(node, size, 0, span.end);
    }

    fn define_anchor(
        &mut self,
        anchor: usize,
        node: Node,
        size: Size,
        height: usize,
        key: Option<Result<String, String>>,
        value_error: Option<String>,
    ) -> bool {
        // Keeping the anchored node is a copy. Inside another anchor's node it is charged:
        // that node's copy copies it again, and nested anchors would multiply the work.
        // Outside, every node is kept at most once, so the copies are bounded by the
        // document's size: charging them made 100,001 anchors and no alias (which
        // kubectl reads) "excessive aliasing".
        let nested = self.frames.last().is_some_and(|f| f.in_anchor);
        if nested && !self.charge(size, node.span) {
            return false;
        }
        self.out.has_anchors = true;
        self.anchors.insert(
            anchor,
            Anchored {
                node,
                size,
                height,
                key,
                value_error,
            },
        );
        true
    }

    fn open(
        &mut self,
        mapping: bool,
        anchor: usize,
        tagged: bool,
        raw_start: usize,
        raw_end: usize,
    ) {
        let what = if mapping { "mapping" } else { "sequence" };
        if self.expecting_key() {
            let message = format!("invalid map key: a {what} cannot be a JSON object key");
            self.fatal(
                YamlErrorKind::NotJson,
                message,
                Span::new(raw_start, raw_end),
            );
            return;
        }
        if self.frames.len() >= self.limits.max_depth {
            let depth = self.limits.max_depth;
            let levels = if depth == 1 { "level" } else { "levels" };
            let message = format!("nesting is deeper than the limit of {depth} {levels}");
            self.fatal(
                YamlErrorKind::DepthLimit,
                message,
                Span::new(raw_start, raw_end),
            );
            return;
        }
        let bytes = self.text.as_bytes();
        let mut start = raw_start;
        if anchor != 0 || tagged {
            start = skip_properties(bytes, raw_start, raw_end);
        } else if !mapping && raw_start == raw_end {
            // A block sequence: saphyr marks an indentless one (a mapping value whose `-`
            // sits at the key's column) after its first `- `.
            let in_mapping = matches!(
                self.frames.last(),
                Some(Frame {
                    kind: FrameKind::Map(_),
                    ..
                })
            );
            if in_mapping {
                let mut p = raw_start;
                while p > 0 && matches!(bytes[p - 1], b' ' | b'\t') {
                    p -= 1;
                }
                if p > 0 && bytes[p - 1] == b'-' {
                    start = p - 1;
                }
            }
        }
        let kind = if mapping {
            FrameKind::Map(MapFrame::default())
        } else {
            FrameKind::Seq(Vec::new())
        };
        let in_anchor = anchor != 0 || self.frames.last().is_some_and(|f| f.in_anchor);
        self.frames.push(Frame {
            kind,
            start,
            end: start.max(raw_end),
            anchor,
            in_anchor,
            size: Size::default(),
            height: 0,
        });
    }

    fn close(&mut self, raw_start: usize, raw_end: usize) {
        let Some(frame) = self.frames.pop() else {
            return;
        };
        // Flow collections end at their bracket (saphyr's end event may be the trailing
        // `,` and runs to the end of the line); block ones at their last child.
        let end = if raw_end > raw_start {
            closing_bracket_end(self.text.as_bytes(), raw_start).unwrap_or(raw_end)
        } else {
            frame.end.max(frame.start)
        };
        // A vector grows to four slots on its first push: a mapping of one key kept
        // three empty entries (288 bytes), most of what a small document weighs.
        let value = match frame.kind {
            FrameKind::Seq(mut items) => {
                items.shrink_to_fit();
                Value::Array(items)
            }
            FrameKind::Map(mut map) => {
                map.entries.shrink_to_fit();
                Value::Object(Mapping {
                    entries: map.entries,
                })
            }
        };
        let node = Node {
            value,
            span: Span::new(frame.start, end),
            style: ScalarStyle::NotScalar,
        };
        let size = Size {
            nodes: frame.size.nodes + 1,
            bytes: frame.size.bytes,
        };
        let height = frame.height + 1;
        if frame.anchor != 0
            && !self.define_anchor(frame.anchor, node.clone(), size, height, None, None)
        {
            return;
        }
        self.attach(node, size, height, end);
    }

    fn alias(&mut self, id: usize, raw_start: usize, raw_end: usize) {
        self.out.has_anchors = true;
        let span = Span::new(raw_start, raw_end);
        let Some(anchored) = self.anchors.get(&id) else {
            // saphyr rejects unknown anchors, so this one is still being built.
            let name = self.text[raw_start..raw_end].trim_start_matches('*');
            let message = format!("anchor '{name}' value contains itself");
            self.fatal(YamlErrorKind::NotJson, message, span);
            return;
        };
        if self.expecting_key() {
            // The key is copied too.
            let key_bytes = match &anchored.key {
                Some(Ok(key)) => key.len(),
                _ => 0,
            };
            let size = Size {
                nodes: 1,
                bytes: key_bytes,
            };
            if !self.charge(size, span) {
                return;
            }
            let Some(anchored) = self.anchors.get(&id) else {
                return;
            };
            match anchored.key.clone() {
                Some(Ok(key)) => self.set_pending_key(PendingKey::Key(key, span), span.end),
                Some(Err(message)) => {
                    self.not_json(message, span);
                    self.set_pending_key(PendingKey::Skip, span.end);
                }
                None => {
                    let message =
                        "invalid map key: a collection cannot be a JSON object key".to_string();
                    self.fatal(YamlErrorKind::NotJson, message, span);
                }
            }
            return;
        }
        let (size, height, value_error) =
            (anchored.size, anchored.height, anchored.value_error.clone());
        if self.frames.len() + height > self.limits.max_depth {
            let depth = self.limits.max_depth;
            let levels = if depth == 1 { "level" } else { "levels" };
            let message = format!("nesting is deeper than the limit of {depth} {levels}");
            self.fatal(YamlErrorKind::DepthLimit, message, span);
            return;
        }
        if let Some(message) = value_error {
            self.not_json(message, span);
        }
        // Check the budget before copying anything.
        if !self.charge(size, span) {
            return;
        }
        let node = match self.anchors.get(&id) {
            Some(a) => a.node.clone(),
            None => return,
        };
        self.attach(node, size, height, raw_end);
    }

    /// Adds a finished node to the open collection (or makes it the document root).
    fn attach(&mut self, node: Node, size: Size, height: usize, local_end: usize) {
        let Some(frame) = self.frames.last_mut() else {
            self.root = Some(node);
            return;
        };
        frame.size.nodes += size.nodes;
        frame.size.bytes += size.bytes;
        if let FrameKind::Map(MapFrame {
            key: Some(PendingKey::Key(key, _)),
            ..
        }) = &frame.kind
        {
            frame.size.bytes += key.len();
        }
        frame.height = frame.height.max(height);
        frame.end = frame.end.max(local_end);
        let problem = match &mut frame.kind {
            FrameKind::Seq(items) => {
                items.push(node);
                None
            }
            FrameKind::Map(map) => match map.key.take() {
                Some(PendingKey::Key(key, key_span)) => map
                    .insert(key, key_span, node)
                    .map(|(key, first)| Err((key, first, key_span))),
                Some(PendingKey::Merge(span)) => map.merge(node).err().map(|m| Ok((m, span))),
                Some(PendingKey::Skip) | None => None,
            },
        };
        match problem {
            Some(Err((key, first, second))) => {
                let text = self.text;
                let lines = self.lines.get_or_insert_with(|| LineIndex::new(text));
                let line = lines.line_of(first.start) + 1;
                let message = format!(
                    "key {} already set in map (first set on line {line})",
                    // go-yaml's `%#v` of a string key: strconv.Quote.
                    crate::diag::gofmt::quote(&key)
                );
                self.error(YamlErrorKind::DuplicateKey, message, second);
            }
            Some(Ok((message, span))) => self.not_json(message, span),
            None => {}
        }
    }

    fn scalar_span(
        &self,
        style: SaphyrStyle,
        props: bool,
        raw_start: usize,
        raw_end: usize,
    ) -> Span {
        let bytes = self.text.as_bytes();
        let start = if props {
            skip_properties(bytes, raw_start, raw_end)
        } else {
            raw_start
        };
        match style {
            SaphyrStyle::Plain => Span::new(start, raw_end.max(start)),
            SaphyrStyle::SingleQuoted | SaphyrStyle::DoubleQuoted => {
                // saphyr's end includes blanks and a comment after the closing quote.
                Span::new(start, closing_quote_end(bytes, start, raw_end))
            }
            SaphyrStyle::Literal | SaphyrStyle::Folded => {
                // saphyr starts the token at the first content character: find the `|`/`>`
                // between the previous event and the content.
                let from = if props {
                    start
                } else {
                    self.last_end.min(raw_start)
                };
                let indicator = find_block_indicator(bytes, from, raw_end).unwrap_or(start);
                let mut end = raw_end;
                while end > indicator + 1 && is_blank_or_break(bytes[end - 1]) {
                    end -= 1;
                }
                Span::new(indicator, end.max(indicator))
            }
        }
    }
}

pub(super) fn is_blank_or_break(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Just after the `]`/`}` at `p` or after a trailing `,`, blanks and comments.
fn closing_bracket_end(bytes: &[u8], mut p: usize) -> Option<usize> {
    while p < bytes.len() {
        match bytes[p] {
            b']' | b'}' => return Some(p + 1),
            b',' | b' ' | b'\t' | b'\r' | b'\n' => p += 1,
            b'#' => {
                while p < bytes.len() && bytes[p] != b'\n' && bytes[p] != b'\r' {
                    p += 1;
                }
            }
            _ => return None,
        }
    }
    None
}

/// The end of the quoted scalar starting at `start` (just after its closing quote).
pub(super) fn closing_quote_end(bytes: &[u8], start: usize, limit: usize) -> usize {
    let limit = limit.min(bytes.len());
    let Some(&quote) = bytes.get(start) else {
        return limit;
    };
    let mut p = start + 1;
    while p < limit {
        match bytes[p] {
            b'\\' if quote == b'"' => p += 2,
            b'\'' if quote == b'\'' && bytes.get(p + 1) == Some(&b'\'') => p += 2,
            c if c == quote => return p + 1,
            _ => p += 1,
        }
    }
    limit
}

/// Skips anchors (`&a`), tags (`!t`, `!<verbatim>`), blanks and comments before a node's
/// content.
fn skip_properties(bytes: &[u8], mut p: usize, limit: usize) -> usize {
    let limit = limit.min(bytes.len());
    loop {
        while p < limit {
            match bytes[p] {
                b' ' | b'\t' | b'\r' | b'\n' => p += 1,
                b'#' => {
                    while p < limit && bytes[p] != b'\n' && bytes[p] != b'\r' {
                        p += 1;
                    }
                }
                _ => break,
            }
        }
        if p < limit && (bytes[p] == b'&' || bytes[p] == b'!') {
            if bytes[p] == b'!' && p + 1 < limit && bytes[p + 1] == b'<' {
                while p < limit && bytes[p] != b'>' {
                    p += 1;
                }
            }
            while p < limit
                && !matches!(
                    bytes[p],
                    b' ' | b'\t' | b'\r' | b'\n' | b',' | b'[' | b']' | b'{' | b'}'
                )
            {
                p += 1;
            }
        } else {
            return p.min(limit);
        }
    }
}

/// The first `|` or `>` in `[from, limit)` outside comments.
fn find_block_indicator(bytes: &[u8], from: usize, limit: usize) -> Option<usize> {
    let limit = limit.min(bytes.len());
    let mut p = from;
    while p < limit {
        match bytes[p] {
            b'|' | b'>' => return Some(p),
            b'#' if p == from || is_blank_or_break(bytes[p - 1]) => {
                while p < limit && bytes[p] != b'\n' && bytes[p] != b'\r' {
                    p += 1;
                }
            }
            _ => p += 1,
        }
    }
    None
}

fn core_tag(tag: &Tag) -> CoreTag {
    if tag.handle == "tag:yaml.org,2002:" {
        CoreTag::from_full(&format!("tag:yaml.org,2002:{}", tag.suffix))
    } else if tag.handle == "!" {
        CoreTag::Other
    } else {
        CoreTag::from_full(&format!("{}{}", tag.handle, tag.suffix))
    }
}

#[cfg(test)]
mod tests {
    use super::Offsets;

    #[test]
    fn offsets_cursor_moves_both_ways() {
        let text = "é😀x";
        let mut o = Offsets::new(text);
        assert_eq!(o.byte(3), 7);
        assert_eq!(o.byte(1), 2);
        assert_eq!(o.byte(0), 0);
        assert_eq!(o.byte(2), 6);
        assert_eq!(o.byte(10), 7);
        let long = format!("{}é{}", "a".repeat(37), "b".repeat(20));
        let mut o = Offsets::new(&long);
        assert_eq!(o.byte(37), 37);
        assert_eq!(o.byte(38), 39);
        assert_eq!(o.byte(58), 59);
    }
}
