//! YAML/JSON → spanned [`Node`] trees, built on saphyr-parser events (for a text
//! kubectl decodes as one JSON value, the same events read by `yaml/json_events.rs`,
//! which does not hold the document whole as saphyr's scanner does).
//!
//! The tree builder (`yaml/builder.rs`) is iterative (an explicit stack of open
//! collections), so nothing here recurses on input depth; it stops building at
//! [`Limits::max_depth`], which also bounds the recursion of `Drop`/`Clone` on the
//! finished tree.
//!
//! Values are what the API server sees after sigs.k8s.io/yaml (go-yaml v2 → JSON): see
//! [`super::scalar`] for scalars. Mapping keys become strings the way
//! `convertToJSONableObject` writes them (`true`, `1`, `1e+06`; a null key, a uint64 key
//! or a collection as key is an error). Like go-yaml v2:
//! - `!!str`/`!!int`/`!!float`/`!!bool`/`!!null`/`!!timestamp` resolve or fail as go-yaml's
//!   `resolve` does; `!!binary` is base64-decoded; any other tag on a scalar (`!custom 5`)
//!   makes it a string; tags on collections are ignored;
//! - `<<` merges a mapping or a sequence of mappings (earlier ones win), applied in entry
//!   order: it replaces keys written before it, keys after it replace merged ones;
//! - a duplicate key is reported (`key "x" already set in map (first set on line N)`,
//!   worded like go-yaml v2's strict decoding error) and the last value kept.
//!
//! saphyr 0.3.3 checks indentation inside flow collections and quoted scalars, where
//! go-yaml does not; such documents are re-parsed with those lines indented (see
//! `yaml/lenient.rs`). saphyr also stops at 255 nested flow collections.
//!
//! Spans (byte offsets; saphyr reports character indices, converted with a forward-moving
//! cursor, or not at all for ASCII text):
//! - scalars: the value only, without anchor or tag; quoted scalars include their quotes;
//!   block scalars (`|`, `>`) start at the indicator (saphyr's own mark starts at the first
//!   content character) and end after the last non-blank content character (trailing line
//!   breaks and a following line's indentation are left out);
//! - collections: flow ones from the opening to the closing bracket; block ones from the
//!   first key (mappings) or the first `-` (sequences) to the end of the last child;
//! - an alias becomes a copy of the anchored node, with the anchored node's spans;
//! - a mapping entry's `key_span` is the key scalar's span (or the alias used as key).

use std::borrow::Cow;

use super::node::{Node, ScalarStyle, Value};
use super::span::Span;

/// Resource limits that keep hostile input from exhausting time or memory.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Maximum nesting depth of collections.
    pub max_depth: usize,
    /// Maximum number of nodes that alias expansion may copy into one document.
    pub max_alias_nodes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 1000,
            max_alias_nodes: 100_000,
        }
    }
}

/// One YAML document of a stream.
#[derive(Clone, Debug)]
pub struct ParsedDocument {
    /// Position of the document in the stream, counting empty documents too.
    pub index: usize,
    pub root: Node,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YamlErrorKind {
    /// The text is not YAML; parsing of the rest of the file stops.
    Syntax,
    /// A mapping key appears twice (strict decoding rejects it).
    DuplicateKey,
    /// Alias expansion would exceed [`Limits::max_alias_nodes`].
    AliasLimit,
    /// Nesting deeper than [`Limits::max_depth`].
    DepthLimit,
    /// Valid YAML that cannot become JSON (a mapping as a key, `.inf`, …).
    NotJson,
    /// A character go-yaml's reader refuses (C0/C1 controls, DEL, U+FFFE/U+FFFF):
    /// kubectl cannot convert the document; the other documents are unaffected.
    ControlCharacter,
    /// A `---` line with content after it, which kubectl's YAML reader refuses; the
    /// stream ends there, the document before it included.
    InvalidSeparator,
    /// A `%` directive: kubectl converts the lines before `---` as a document of their
    /// own, which fails (the documents after it are unaffected).
    Directive,
    /// A tab where go-yaml allows none: its document fails (the others are unaffected).
    Tab,
    /// A `...` line before any content of its `---` section, which go-yaml refuses.
    EmptyDocument,
    /// Content after a `...` line, which kubectl never reads (a warning, not an error).
    IgnoredContent,
    /// An anchor or alias name go-yaml refuses (other than ASCII letters, digits, `_`
    /// and `-`): its document fails (the others are unaffected).
    AnchorName,
    /// A NEL, LS or PS character, a line break for kubectl's YAML 1.1 reader and a
    /// character for crdlint's YAML 1.2 one (a warning, not an error).
    UnicodeLineBreak,
}

impl YamlErrorKind {
    /// Reported as a warning: the document is still read.
    pub fn is_warning(self) -> bool {
        matches!(
            self,
            YamlErrorKind::IgnoredContent | YamlErrorKind::UnicodeLineBreak
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct YamlError {
    pub kind: YamlErrorKind,
    pub message: String,
    pub span: Span,
    /// The document the error belongs to.
    pub document: usize,
}

#[derive(Clone, Debug, Default)]
pub struct ParseOutput {
    /// Non-empty documents that parsed; documents with a fatal error are left out.
    pub documents: Vec<ParsedDocument>,
    pub errors: Vec<YamlError>,
    /// An anchor or alias was read (their names are then checked as go-yaml reads them).
    pub has_anchors: bool,
    /// The bytes all parses of the text read together: the repairs for what go-yaml
    /// accepts and saphyr refuses parse again, at most [`PARSE_BUDGET_FACTOR`] times the
    /// text (or 256 KiB) in all.
    pub bytes_parsed: usize,
    /// The `:` right after a plain scalar in a flow collection and before `,`, `]` or `}`
    /// (`[ax:]`), and the lone `-` there (`[cat, -]`), which go-yaml reads as part of a
    /// scalar and saphyr does not (see `yaml/flow_colons.rs`).
    pub(crate) flow_colons: Vec<usize>,
}

/// Parses a YAML stream (JSON is YAML) into documents.
///
/// Error handling: a syntax error stops the stream (documents before it are kept); a
/// depth or alias limit, a collection or null used as a key, a value JSON cannot carry
/// (`.inf`) or a bad tagged value drops its document; a duplicate key is reported and the
/// last value kept.
pub fn parse(text: &str, limits: &Limits) -> ParseOutput {
    // All parses of the text share one budget: the JSON values and masked colons below,
    // and the repairs inside each.
    let budget = ParseBudget::for_text(text);
    let mut out = parse_within(text, limits, &budget);
    with_kubectl_json_error(text, &mut out);
    // Values over lines that end in a CR kubectl's line reader removes (`\r\r\n`) are
    // decoded again (see `yaml/removed_crs.rs`).
    let removed_crs = removed_crs::find(text);
    if !removed_crs.is_empty() {
        removed_crs::restore(&mut out, text, &removed_crs);
    }
    out.bytes_parsed = budget.spent();
    out
}

/// [`parse`] with every text read by saphyr, also the JSON values `yaml/json_events.rs`
/// reads without it: the reference the fuzzers and tests compare that walk with.
#[doc(hidden)]
pub fn parse_with_saphyr_only(text: &str, limits: &Limits) -> ParseOutput {
    builder::JSON_EVENTS.with(|enabled| enabled.set(false));
    let out = parse(text, limits);
    builder::JSON_EVENTS.with(|enabled| enabled.set(true));
    out
}

/// Where the YAML stream kubectl reads in `text` starts: after the JSON value(s) a text
/// starting with `{` begins with, when YAML follows them (`{"a": 1}` then `b: 2`), else
/// 0. Columns in that stream's first line count from there for kubectl's YAML reader
/// (`{"a": 1}-` then a block scalar header `|1` on the next line is indented from the
/// `-` as column 0).
pub(crate) fn yaml_stream_start(text: &str) -> usize {
    match json_stream::decode(text) {
        Some(json_stream::Decoded {
            rest: json_stream::Rest::Yaml(start),
            ..
        }) => start,
        _ => 0,
    }
}

/// A text that starts with `{` and is not JSON throughout: when the first document
/// kubectl reads as YAML fails, kubectl reports the JSON error instead (see
/// `json_stream::kubectl_error`), at the byte Go's scanner refused.
fn with_kubectl_json_error(text: &str, out: &mut ParseOutput) {
    let fails_document = |kind: YamlErrorKind| {
        matches!(
            kind,
            YamlErrorKind::Syntax
                | YamlErrorKind::Tab
                | YamlErrorKind::ControlCharacter
                | YamlErrorKind::Directive
                | YamlErrorKind::EmptyDocument
                | YamlErrorKind::AnchorName
        )
    };
    if !out.errors.iter().any(|e| fails_document(e.kind)) {
        return;
    }
    let Some((at, message, first_yaml)) = json_stream::kubectl_error(text) else {
        return;
    };
    if let Some(error) = out
        .errors
        .iter_mut()
        .find(|e| e.document == first_yaml && fails_document(e.kind))
    {
        error.message = message;
        error.span = Span::point(at);
        error.kind = YamlErrorKind::Syntax;
    }
}

/// [`parse`] of `text`, a file's text or a JSON value in it, within `budget`.
fn parse_within(text: &str, limits: &Limits, budget: &ParseBudget) -> ParseOutput {
    // Surrogate escapes in text kubectl decodes as JSON (see `yaml/json_surrogates.rs`).
    let surrogates = json_surrogates::find(text);
    if !surrogates.is_empty() && json_stream::is_json(text) {
        let masked = json_surrogates::mask(text, &surrogates);
        let mut out = parse_within(&masked, limits, budget);
        quote_escapes::restore(&mut out, text, &surrogates);
        return out;
    }
    // A text that holds a JSON value and more (more values, or YAML after it) is read
    // as kubectl reads it (see `yaml/json_stream.rs`), without a first parse as one
    // YAML stream: that parse could only fail or find more than one document (only the
    // first JSON value is a document to YAML), and saphyr would hold the first value
    // whole as tokens (see `yaml/json_events.rs`).
    let decoded = json_stream::decode(text);
    if let Some(decoded) = decoded.as_ref().filter(|d| !d.values.is_empty()) {
        return json_stream::parse_decoded(
            text,
            decoded,
            |value| parse_within(value, limits, budget),
            |yaml| parse_yaml(yaml, limits, budget),
        );
    }
    let out = parse_escaped(text, limits, budget);
    // Only the first of several JSON values is a document to YAML: content after it,
    // or an error where the next value starts on the same line (`{}{}`, `{}3`). kubectl
    // decodes each, and YAML after the first (see `yaml/json_stream.rs`).
    let one_document = match &out.documents[..] {
        [document] => text[document.root.span.end..].trim().is_empty(),
        _ => false,
    };
    if (!out.errors.is_empty() || !one_document)
        && let Some(decoded) = decoded
    {
        return json_stream::parse_decoded(
            text,
            &decoded,
            |value| parse_within(value, limits, budget),
            |yaml| parse_yaml(yaml, limits, budget),
        );
    }
    with_flow_colons(text, out, limits, budget)
}

/// [`parse_within`] of a YAML stream that kubectl decodes as YAML throughout (the rest
/// of a text after a JSON value).
fn parse_yaml(text: &str, limits: &Limits, budget: &ParseBudget) -> ParseOutput {
    let out = parse_escaped(text, limits, budget);
    with_flow_colons(text, out, limits, budget)
}

/// `out` with the flow-collection colons go-yaml reads differently settled (see
/// `yaml/flow_colons.rs`).
fn with_flow_colons(
    text: &str,
    mut out: ParseOutput,
    limits: &Limits,
    budget: &ParseBudget,
) -> ParseOutput {
    flow_colons::add_refused(text, &mut out);
    if out.flow_colons.is_empty() {
        return out;
    }
    flow_colons::parse_again(
        text,
        out,
        |masked| parse_escaped(masked, limits, budget),
        budget,
    )
}

/// Parses `masked`, a copy of a text with some ASCII bytes replaced by others, into
/// `out`, when the budget can pay for it, and returns the masked text. Otherwise the
/// syntax errors left in `out` (each may be one a further parse would have removed)
/// say that the budget ran out.
fn reparse_masked<'m>(
    masked: &'m [u8],
    out: &mut ParseOutput,
    budget: &ParseBudget,
    parse: &impl Fn(&str) -> ParseOutput,
) -> Option<&'m str> {
    // One ASCII byte for another: still UTF-8.
    let masked_text = std::str::from_utf8(masked).ok()?;
    // `parse` takes its cost from the budget.
    if !budget.can_pay(masked_text) {
        for e in out.errors.iter_mut() {
            if e.kind == YamlErrorKind::Syntax && !e.message.ends_with(BUDGET_NOTE) {
                e.message.push_str(BUDGET_NOTE);
            }
        }
        return None;
    }
    *out = parse(masked_text);
    Some(masked_text)
}

/// [`parse_as_read`], with go-yaml's `\'` escape (see `yaml/quote_escapes.rs`).
fn parse_escaped(text: &str, limits: &Limits, budget: &ParseBudget) -> ParseOutput {
    let out = parse_as_read(text, limits, budget);
    quote_escapes::parse_again(
        text,
        out,
        |masked| parse_as_read(masked, limits, budget),
        budget,
    )
}

/// [`parse`] of the text as saphyr reads it (the `:` it ends a flow scalar at included).
fn parse_as_read(text: &str, limits: &Limits, budget: &ParseBudget) -> ParseOutput {
    // What kubectl's reader swallows after a separator's `---` is hidden from every
    // scan below (saphyr would read `---#comment` as a scalar, and content after a lone
    // CR as a document).
    let separator_tails = separator_tails(text);
    let tails_blanked;
    let text = if separator_tails.is_empty() {
        text
    } else {
        let mut bytes = text.as_bytes().to_vec();
        for tail in &separator_tails {
            bytes[tail.span.start..tail.span.end].fill(b' ');
        }
        tails_blanked = String::from_utf8(bytes).unwrap_or_else(|_| text.to_string());
        tails_blanked.as_str()
    };
    // Directive lines are hidden from saphyr (blanked, byte for byte) and reported the way
    // kubectl fails them; saphyr also miscounts the positions after a directive name
    // with multi-byte characters.
    let directives = directives::prologues(text);
    // What kubectl never reads after a `...` line is hidden too (see `yaml/document_end.rs`).
    let document_ends = document_end::document_ends(text);
    // Empty block scalars before a marker are hidden (see `yaml/empty_block_scalar.rs`).
    let empty_roots = empty_block_scalar::find(text);
    // Byte order marks inside a line are text to go-yaml (see `yaml/inner_bom.rs`).
    let inner_marks = inner_bom::find(text);
    let directives_blanked;
    let text_without_directives = if directives.lines.is_empty()
        && document_ends.is_empty()
        && empty_roots.is_empty()
        && inner_marks.is_empty()
    {
        text
    } else {
        let mut bytes = text.as_bytes().to_vec();
        for line in &directives.lines {
            bytes[line.start..line.end].fill(b' ');
        }
        for end in &document_ends {
            end.blank(&mut bytes);
        }
        for root in &empty_roots {
            root.mask(&mut bytes);
        }
        inner_bom::mask(&mut bytes, &inner_marks);
        directives_blanked = String::from_utf8(bytes).unwrap_or_else(|_| text.to_string());
        directives_blanked.as_str()
    };
    // Tabs and comments follow go-yaml's rules (see `yaml/go_blanks.rs`). The outline runs
    // on texts with a tab, and again when saphyr refuses a comment go-yaml may accept.
    let mut blanks = go_blanks::scan(text_without_directives, false);
    // Content after a document that ended without `...` (a line less indented than a
    // root collection, more content after a root scalar): saphyr refuses it, go-yaml
    // never reads it (see `yaml/document_end.rs`).
    let mut ignored: Vec<(usize, Span)> = Vec::new();
    // The first parse is always made: the budget covers at least one of the file, and
    // the JSON values of a stream add up to no more than the file (masked-colon parses
    // are asked for first).
    budget.take(text_without_directives);
    // Comment lines that end a block scalar for go-yaml, moved to column 0 for saphyr
    // (see `moved_comment`).
    let mut moved: Vec<Span> = Vec::new();
    let reparse =
        |blanks: Option<&go_blanks::GoBlanks>, ignored: &[(usize, Span)], moved: &[Span]| {
            parse_blanked(
                text_without_directives,
                blanks,
                ignored,
                moved,
                limits,
                budget,
            )
        };
    let mut out = reparse(blanks.as_ref(), &ignored, &moved);
    // Anchor and alias names go-yaml refuses (`&a.b`): the outline finds them, and their
    // chunks fail. It runs here only for texts with anchors (they are rare in manifests).
    // (saphyr fails on some of them itself, and stops reading the stream there.)
    let saphyr_anchor_error = || {
        out.errors.iter().any(|e| {
            e.message.ends_with("found unknown anchor") || e.message.ends_with(ANCHOR_NAME)
        })
    };
    if (out.has_anchors || saphyr_anchor_error())
        && blanks.is_none()
        && let Some(forced) = go_blanks::scan(text_without_directives, true)
        && !forced.anchor_errors.is_empty()
        && budget.take(text_without_directives)
    {
        blanks = Some(forced);
        out = reparse(blanks.as_ref(), &ignored, &moved);
    }
    for _ in 0..MAX_REPARSES {
        let Some(error) = out.errors.iter().find(|e| {
            e.kind == YamlErrorKind::Syntax
                && (matches!(
                    e.message.as_str(),
                    SAPHYR_ADJACENT_COMMENT
                        | SAPHYR_EXPECTED_DOCUMENT_START
                        | SAPHYR_MISINDENTED_BLOCK_LINE
                ) || e.message == SAPHYR_DIRECTIVE_IN_DOCUMENT
                    && directives::in_document(text_without_directives, e.span.start)
                        == Some(Ok(())))
        }) else {
            break;
        };
        if error.message == SAPHYR_DIRECTIVE_IN_DOCUMENT {
            // A directive go-yaml scans ends the document: kubectl reads no further in
            // the chunk (see `yaml/directives.rs`).
            let at = error.span.start;
            if ignored.iter().any(|&(seen, _)| seen == at) {
                break;
            }
            let end = document_end::section_end(text_without_directives, at);
            ignored.push((at, Span::new(at, end)));
        } else if error.message == SAPHYR_MISINDENTED_BLOCK_LINE {
            let Some(comment) = moved_comment(text_without_directives, error.span.start) else {
                // A block scalar after the document's root (its header less indented
                // than the root's first line, `    k:` then `|1`) whose content saphyr
                // refuses: go-yaml ended the document at the header and never reads
                // the scalar. Blank from the header to the end of its section.
                let text = text_without_directives;
                let line_start = lenient::line_start(text.as_bytes(), error.span.start);
                let Some(header) = block_scalar_header_above(text, line_start)
                    .or_else(|| block_scalar_header_at(text, line_start))
                    .filter(|&header| after_root(text, header))
                else {
                    break;
                };
                if ignored.iter().any(|&(_, span)| span.start == header) {
                    break;
                }
                let end = document_end::section_end(text, header);
                let indicator = header
                    + text[header..]
                        .bytes()
                        .take_while(|b| matches!(b, b' ' | b'\t'))
                        .count();
                ignored.retain(|&(_, span)| span.start < header || span.start >= end);
                ignored.push((indicator, Span::new(header, end)));
                if !budget.take(text) {
                    break;
                }
                out = reparse(blanks.as_ref(), &ignored, &moved);
                continue;
            };
            // Moving it did not move the error: another parse would not either.
            if moved.contains(&comment) {
                break;
            }
            moved.push(comment);
        } else if error.message == SAPHYR_EXPECTED_DOCUMENT_START {
            let at = error.span.start;
            // At a marker line, what saphyr refused is above it: an empty block scalar
            // after the document's root (`  a: 1`, ` |`, `---`), which it reads up to
            // the marker and then wants a document start. go-yaml never reads the
            // header; kubectl's next section starts at the marker. Blank the header
            // only (blanking from the marker would take the next section with it).
            if document_end::is_marker_line(text_without_directives, at) {
                let Some(header) = block_scalar_header_above(text_without_directives, at) else {
                    break;
                };
                if ignored.iter().any(|&(_, span)| span.start == header) {
                    break;
                }
                let indicator = header
                    + text_without_directives[header..]
                        .bytes()
                        .take_while(|b| matches!(b, b' ' | b'\t'))
                        .count();
                ignored.push((indicator, Span::new(header, at)));
                if !budget.take(text_without_directives) {
                    break;
                }
                out = reparse(blanks.as_ref(), &ignored, &moved);
                continue;
            }
            let end = document_end::section_end(text_without_directives, at);
            // saphyr's position can fall inside a character it does not read as one
            // (found by fuzzing: U+2028 after a BOM); then the error stays as it is.
            if at >= end || !text_without_directives.is_char_boundary(at) {
                break;
            }
            // From the line start when only indentation comes before: the whole line
            // then becomes a comment (see `document_end::blank_as_comments`). A lone CR
            // starts a line for saphyr too (found by the yaml_spans target: after
            // `|-` content and `\r -x`, the line became spaces, which the block scalar
            // took as one more content line).
            let line_start = text_without_directives[..at]
                .rfind(['\n', '\r'])
                .map_or(0, |i| i + 1);
            let indentation = text_without_directives[line_start..at]
                .bytes()
                .all(|b| matches!(b, b' ' | b'\t'));
            let start = if indentation { line_start } else { at };
            match ignored.iter().position(|&(seen, _)| seen == at) {
                None => {
                    // One section, one warning: a span this one covers (blanked from a
                    // later error on the same line) goes.
                    ignored.retain(|&(seen, _)| seen < start || seen >= end);
                    ignored.push((at, Span::new(start, end)));
                }
                // Blanking from a block scalar's first content line left its header,
                // and the error, in place (saphyr reports a block scalar there, go-yaml
                // ignores from the header on): blank from the header.
                Some(i) => match indentation
                    .then(|| block_scalar_header_above(text_without_directives, line_start))
                    .flatten()
                {
                    Some(header) if header < ignored[i].1.start => {
                        // One section, one warning: at the header, where kubectl stops.
                        let indicator = header
                            + text_without_directives[header..]
                                .bytes()
                                .take_while(|b| matches!(b, b' ' | b'\t'))
                                .count();
                        ignored.retain(|&(_, span)| span.start < header || span.end > end);
                        ignored.push((indicator, Span::new(header, end)));
                    }
                    // Blanking this section did not move the error: another parse would
                    // not either (found by fuzzing: 32 parses, and the warning listed 32
                    // times).
                    _ => break,
                },
            }
        } else if blanks
            .as_ref()
            .is_some_and(|b| !b.adjacent_comments.is_empty())
        {
            break;
        } else {
            match go_blanks::scan(text_without_directives, true) {
                Some(forced) if !forced.adjacent_comments.is_empty() => blanks = Some(forced),
                _ => break,
            }
        }
        if !budget.take(text_without_directives) {
            break;
        }
        out = reparse(blanks.as_ref(), &ignored, &moved);
    }
    // A directive inside a document that go-yaml's scanner refuses ends kubectl's
    // reading as saphyr's error ends crdlint's: go-yaml's words are given.
    for error in &mut out.errors {
        if error.kind == YamlErrorKind::Syntax
            && let Some(Err(message)) =
                directives::in_document(text_without_directives, error.span.start)
        {
            error.message = message.to_string();
        }
    }
    // One warning per section kubectl stops reading: a directive that ended the
    // document before a `---` after a lone CR holds that marker's warning.
    let ignored_content = document_ends
        .iter()
        .filter_map(|end| end.ignored_content)
        .filter(|&at| {
            !ignored
                .iter()
                .any(|(_, span)| span.start < at && at < span.end)
        })
        .chain(ignored.iter().map(|(at, _)| *at))
        .chain(
            separator_tails
                .iter()
                .filter_map(|tail| tail.ignored_content),
        );
    // Documents come in text order: the last one starting before a position is found by
    // binary search (a file of 50,000 such sections scanned them all for each).
    let in_order = out
        .documents
        .windows(2)
        .all(|w| w[0].root.span.start <= w[1].root.span.start);
    for at in ignored_content {
        let before = if in_order {
            out.documents[..out.documents.partition_point(|d| d.root.span.start < at)].last()
        } else {
            out.documents.iter().rfind(|d| d.root.span.start < at)
        };
        let document = before.map_or(0, |d| d.index);
        out.errors.push(YamlError {
            kind: YamlErrorKind::IgnoredContent,
            message: document_end::IGNORED_CONTENT.to_string(),
            span: Span::point(at),
            document,
        });
    }
    empty_block_scalar::restore(&mut out, &empty_roots);
    if !inner_marks.is_empty() {
        inner_bom::restore(&mut out);
    }
    unicode_line_breaks(text, &mut out);
    out.errors.sort_by_key(|e| e.span.start);
    // Chunks kubectl fails, in this order (the document each error names depends on
    // the drops before it).
    let mut drops: Vec<chunk_drops::Drop<'_>> = Vec::new();
    // What the builder found go-yaml refuses and saphyr reads: the chunk fails.
    let refusal = |e: &YamlError| {
        (e.kind == YamlErrorKind::Syntax)
            .then(|| {
                [
                    STALE_FLOW_KEY,
                    FLOW_BLOCK_INDICATOR,
                    FLOW_QUESTION_MARK_SEQUENCE,
                    FLOW_NODE_EXPECTED,
                ]
                .into_iter()
                .find(|&m| m == e.message)
            })
            .flatten()
    };
    if out.errors.iter().any(|e| refusal(e).is_some()) {
        drops.extend(
            out.errors
                .iter()
                .filter_map(|e| Some((e.span.start, YamlErrorKind::Syntax, refusal(e)?))),
        );
        out.errors.retain(|e| refusal(e).is_none());
    }
    // A comment blanked for saphyr must have been a comment for saphyr too. go-yaml's
    // outline and saphyr can disagree on where a line stands (a byte order mark in
    // mid-stream: go-yaml counts it as a column, so `...` after it is no document end);
    // a "comment" saphyr then reads as scalar content would change the value (yaml_spans
    // finding). go-yaml fails such a chunk anyway: so does crdlint, with saphyr's error.
    for comment in blanks.iter().flat_map(|b| &b.adjacent_comments) {
        if out
            .documents
            .iter()
            .any(|d| scalar_content_at(&d.root, text_without_directives, comment.start))
        {
            drops.push((
                comment.start,
                YamlErrorKind::Syntax,
                SAPHYR_ADJACENT_COMMENT,
            ));
        }
    }
    drops.extend(
        directives
            .errors
            .iter()
            .map(|&(at, message)| (at, YamlErrorKind::Directive, message)),
    );
    drops.extend(
        marks_before_markers(text_without_directives)
            .map(|at| (at, YamlErrorKind::Syntax, MARK_BEFORE_MARKER)),
    );
    drops.extend(
        blanks
            .iter()
            .flat_map(|b| &b.errors)
            .map(|&(at, message)| (at, YamlErrorKind::Tab, message)),
    );
    drops.extend(
        blanks
            .iter()
            .flat_map(|b| &b.anchor_errors)
            .map(|&(at, message)| (at, YamlErrorKind::AnchorName, message)),
    );
    drops.extend(
        document_ends
            .iter()
            .filter(|end| end.without_content)
            .map(|end| {
                (
                    end.marker,
                    YamlErrorKind::EmptyDocument,
                    document_end::EMPTY_DOCUMENT,
                )
            }),
    );
    let bad_separator = invalid_separator(text);
    if let Some(at) = first_control_character(text)
        && bad_separator.is_none_or(|(line, _)| at < line)
    {
        drops.push((
            at,
            YamlErrorKind::ControlCharacter,
            "control characters are not allowed",
        ));
    }
    // The parser's own syntax errors end its reading; the chunks dropped above fail
    // alone and do not (see `cut_at_separator`).
    let parser_syntax_error = out
        .errors
        .iter()
        .filter(|e| e.kind == YamlErrorKind::Syntax)
        .map(|e| e.span.start)
        .min();
    chunk_drops::drop_documents_at(&mut out, text, &drops);
    if let Some((line, content)) = bad_separator {
        cut_at_separator(&mut out, text, line, content, parser_syntax_error);
    }
    // An error saphyr found in a re-parse stands where that parse saw ASCII blanks; the
    // original text may have a multi-byte character there (yaml_spans finding: inside
    // a U+2028 that ignored content had blanked).
    for e in &mut out.errors {
        e.span = Span::new(
            floor_char_boundary(text, e.span.start),
            floor_char_boundary(text, e.span.end),
        );
    }
    if budget.exhausted.get() {
        // The syntax error left may be one a further repair would have removed: say so
        // rather than pass it off as go-yaml's verdict.
        for e in out
            .errors
            .iter_mut()
            .filter(|e| e.kind == YamlErrorKind::Syntax)
        {
            e.message.push_str(BUDGET_NOTE);
        }
    }
    out
}

/// Whether `at` is inside the content of a string scalar of `node`'s tree (a block
/// scalar's header line, which may end in a comment, is not content).
fn scalar_content_at(node: &Node, text: &str, at: usize) -> bool {
    let line_start = text
        .get(..at)
        .and_then(|s| s.rfind(['\n', '\r']))
        .map_or(0, |i| i + 1);
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        let block = matches!(n.style, ScalarStyle::Literal | ScalarStyle::Folded);
        // A block scalar's span stops at its last non-blank character: a line that
        // starts inside it is content.
        let inside = n.span.start <= at && (at < n.span.end || (block && line_start < n.span.end));
        if !inside {
            continue;
        }
        match &n.value {
            Value::String(_) => {
                let header_end = if block {
                    text.get(n.span.start..n.span.end)
                        .and_then(|s| s.find(['\n', '\r']))
                        .map_or(n.span.end, |i| n.span.start + i)
                } else {
                    n.span.start
                };
                if at >= header_end {
                    return true;
                }
            }
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.entries.iter().map(|e| &e.value)),
            _ => {}
        }
    }
    false
}

/// Appended to the syntax errors of a file whose repairs ran out of parse budget.
pub(super) const BUDGET_NOTE: &str = " (crdlint stopped re-parsing this file at its parse budget, 24 times its size; kubectl may accept this line: see docs/limits.md)";

/// The nearest char boundary of `text` at or before `at` (`str::floor_char_boundary`
/// is newer than crdlint's minimum Rust).
fn floor_char_boundary(text: &str, at: usize) -> usize {
    let mut at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

use go_blanks::ANCHOR_NAME;

/// crdlint's message for a byte order mark that starts a later line before `...` or
/// `---`.
const MARK_BEFORE_MARKER: &str = "a byte order mark starts this line: go-yaml (kubectl) reads the `...` or `---` after it as content, crdlint's parser as a document marker; crdlint cannot read this document as kubectl does";

/// Byte order marks at the start of a line after the first, before `...` or `---`:
/// go-yaml skips such a mark but counts its column, so the marker is content to it,
/// while saphyr reads a document marker. The two readings of the rest differ (found by
/// fuzzing: a tab blanked for go-yaml's reading was content in saphyr's), so the
/// document fails.
fn marks_before_markers(text: &str) -> impl Iterator<Item = usize> + '_ {
    let b = text.as_bytes();
    memchr::memmem::find_iter(b, "\u{FEFF}".as_bytes()).filter(move |&at| {
        let marker = &b[at + 3..];
        at > 0
            && matches!(b[at - 1], b'\n' | b'\r')
            && (marker.starts_with(b"...") || marker.starts_with(b"---"))
            && matches!(marker.get(3), None | Some(b' ' | b'\t' | b'\r' | b'\n'))
    })
}

/// saphyr's message for a plain scalar that a comment interrupts and the next line
/// could continue (YAML 1.2; go-yaml ends the scalar at the comment).
const SAPHYR_COMMENT_INTERCEPTING: &str = "comment intercepting the multiline text";

/// saphyr's message for a comment without white space before it.
const SAPHYR_ADJACENT_COMMENT: &str = "comments must be separated from other tokens by whitespace";

/// saphyr's message for a directive after a document that ended without `...`.
const SAPHYR_DIRECTIVE_IN_DOCUMENT: &str = "missing explicit document end marker before directive";

/// saphyr's message for content after a document that ended without `...`.
const SAPHYR_EXPECTED_DOCUMENT_START: &str = "did not find expected <document start>";

/// go-yaml's error for the `:` of an implicit key in a flow mapping that it no longer
/// takes for a key: the key started on an earlier line, or more than 1024 characters
/// before (libyaml's simple key rules, which go-yaml applies in flow context too;
/// saphyr reads a key there). The value indicator then follows a key without a value:
/// ```yaml
/// ports: {name: http, port
///   : 80}
/// ```
/// The builder reports it at the `:`, and `parse` fails the key's `---` chunk, as
/// kubectl does. Found by the libyaml differential (fuzz/sweeps/libyaml_diff.py).
const STALE_FLOW_KEY: &str = "did not find expected ',' or '}'";

/// go-yaml's error for a `?` inside a plain scalar in a flow sequence
/// (`[http://host/p?q=1]`). go-yaml 2 (sigs.k8s.io/yaml's) ends a plain scalar at a `?`
/// inside `[...]` and `{...}` and reads the `?` as a key indicator, which cannot follow
/// an entry: the chunk fails with `did not find expected ',' or ']'` (in a flow mapping
/// `... or '}'`, [`STALE_FLOW_KEY`]'s text). saphyr, as YAML 1.2 and libyaml, reads one
/// scalar. Reported at the `?`, and `parse` fails the `---` chunk (quote the value).
const FLOW_QUESTION_MARK_SEQUENCE: &str = "did not find expected ',' or ']'";

/// go-yaml's error for a `:` or `?` that starts a value inside a flow collection
/// (`[:8080]`, `{port: :80}`, `{a: ?b}`): go-yaml reads either character there as an
/// indicator (value or key), never as the start of a plain scalar, and finds no node
/// where one must be; saphyr, as YAML 1.2, reads a plain scalar (`":8080"`). Reported
/// at the character, and `parse` fails its `---` chunk, as kubectl does (quote the
/// value).
const FLOW_NODE_EXPECTED: &str = "did not find expected node content";

/// YAML 1.2 (and saphyr) knows the escape `\/`; go-yaml's scanner, from YAML 1.1, does
/// not, and kubectl refuses the file. JSON has it, and a stream kubectl reads as JSON
/// keeps it.
const SLASH_ESCAPE: &str = "while parsing a quoted scalar, found unknown escape character: go-yaml (kubectl) has no `\\/` escape (write `/`)";

/// The offset of the first `\/` escape in the double-quoted scalar at `span`.
fn slash_escape(text: &str, span: Span) -> Option<usize> {
    let b = text.as_bytes().get(span.start..span.end)?;
    let mut p = memchr::memchr(b'\\', b)?;
    while p + 1 < b.len() {
        if b[p] == b'\\' {
            if b[p + 1] == b'/' {
                return Some(span.start + p);
            }
            p += 2;
        } else {
            p += 1;
        }
    }
    None
}

/// crdlint's message for `|` or `>` starting a plain scalar inside a flow collection
/// (`versions: [>=1.2]`): go-yaml starts a block scalar there only outside flow
/// collections and no plain scalar with either, so it fails with `found character that
/// cannot start any token`; saphyr reads a plain scalar. Reported at the character, and
/// `parse` fails its `---` chunk, as kubectl does. Found by the libyaml differential.
const FLOW_BLOCK_INDICATOR: &str = "found character that cannot start any token: go-yaml (kubectl) starts no value with `|` or `>` inside `[...]` or `{...}` (quote it)";

/// What a `?` starting a plain scalar inside a flow collection is to go-yaml.
enum FlowKeyIndicator {
    /// The scalar after it is the key saphyr reads (`{?a: 1}`, `[?a: 1]`).
    Key,
    /// The scalar after it is the key of a single-pair mapping (`[?a]`).
    SinglePair,
    /// The chunk fails with this message.
    Refused(&'static str),
}

/// The scalar text after its first byte (a `?`).
fn without_first_byte(text: Cow<'_, str>) -> Cow<'_, str> {
    match text {
        Cow::Borrowed(s) => Cow::Borrowed(s.get(1..).unwrap_or_default()),
        Cow::Owned(s) => Cow::Owned(s.get(1..).unwrap_or_default().to_string()),
    }
}

/// saphyr's message for a `]` or `}` outside any flow collection.
const SAPHYR_MISPLACED_BRACKET: &str = "misplaced bracket";

/// saphyr's message for a line less indented than the leading blank lines (or the
/// indentation indicator) of its block scalar.
const SAPHYR_MISINDENTED_BLOCK_LINE: &str = "wrongly indented line in block scalar";

/// At most this many parses more per file for content saphyr refuses and go-yaml skips
/// (each one blanks one section's ignored content, or the comments).
const MAX_REPARSES: usize = 32;

/// How many bytes all the parses of one file may read together, as a multiple of its
/// size. The repairs above re-parse the whole text, and the lenient re-parses run inside
/// each of them: a fuzzed 26 KB file took 571 parses, and the same lines after 1.3 MB
/// of valid YAML took 25 s. Real manifests need one to three parses.
const PARSE_BUDGET_FACTOR: usize = 24;

/// What is left of a file's parse budget ([`PARSE_BUDGET_FACTOR`]).
pub(super) struct ParseBudget {
    total: usize,
    left: std::cell::Cell<usize>,
    /// A repair was given up for want of budget.
    exhausted: std::cell::Cell<bool>,
}

impl ParseBudget {
    fn for_text(text: &str) -> Self {
        // At least a few full parses of small texts.
        let total = text
            .len()
            .saturating_mul(PARSE_BUDGET_FACTOR)
            .max(256 * 1024);
        ParseBudget {
            total,
            left: std::cell::Cell::new(total),
            exhausted: std::cell::Cell::new(false),
        }
    }

    fn spent(&self) -> usize {
        self.total - self.left.get()
    }

    /// Whether the budget can pay for parsing `text` once more (if not, it is
    /// exhausted).
    pub(super) fn can_pay(&self, text: &str) -> bool {
        let payable = self.left.get() >= text.len();
        if !payable {
            self.exhausted.set(true);
        }
        payable
    }

    /// Takes the cost of parsing `text` once; false (and nothing taken) when the budget
    /// cannot pay it: the caller keeps the result it has.
    pub(super) fn take(&self, text: &str) -> bool {
        let left = self.left.get();
        if left < text.len() {
            self.exhausted.set(true);
            return false;
        }
        self.left.set(left - text.len());
        true
    }
}

/// Parses `text` with spaces for what go-yaml skips in it, and for `ignored` spans, and
/// with the `moved` comment lines' comments at column 0.
fn parse_blanked(
    text: &str,
    blanks: Option<&go_blanks::GoBlanks>,
    ignored: &[(usize, Span)],
    moved: &[Span],
    limits: &Limits,
    budget: &ParseBudget,
) -> ParseOutput {
    let blanked;
    let parsed_text = if blanks.is_none() && ignored.is_empty() && moved.is_empty() {
        text
    } else {
        let mut bytes = text.as_bytes().to_vec();
        for line in moved {
            move_comment_to_column_0(&mut bytes, *line);
        }
        if let Some(blanks) = blanks {
            blanks.blank(&mut bytes);
        }
        for (_, span) in ignored {
            document_end::blank_as_comments(&mut bytes, *span);
        }
        blanked = String::from_utf8(bytes).unwrap_or_else(|_| text.to_string());
        blanked.as_str()
    };
    match parse_attempt(parsed_text, limits) {
        (out, None) => out,
        (out, Some(fix)) => lenient::reparse(parsed_text, limits, out, fix, budget),
    }
}

/// The start of the line right above `line_start` (blank lines between) if it starts
/// like a block scalar header (`|`, `>-`, `|2 # c`): saphyr reports content after a
/// finished document at a block scalar's first content character, but go-yaml's
/// ignored content starts at the header. Only asked when blanking from `line_start`
/// left the error in place (the line may be a plain scalar's continuation otherwise).
/// The line at `line_start` itself when it holds a block scalar header.
fn block_scalar_header_at(text: &str, line_start: usize) -> Option<usize> {
    let end = memchr::memchr2(b'\n', b'\r', &text.as_bytes()[line_start..])
        .map_or(text.len(), |i| line_start + i);
    let line = text[line_start..end].trim_start_matches([' ', '\t']);
    line.starts_with(['|', '>']).then_some(line_start)
}

/// Whether the line at `line_start` is less indented than the first content line of its
/// `---` section (the root of a block collection there): go-yaml's document ended
/// before it.
fn after_root(text: &str, line_start: usize) -> bool {
    let b = text.as_bytes();
    let indentation = |at: usize| b[at..].iter().take_while(|&&c| c == b' ').count();
    let mut section = 0;
    let mut at = 0;
    while at < line_start {
        if b[at..].starts_with(b"---") {
            section = at;
        }
        at = memchr::memchr(b'\n', &b[at..line_start]).map_or(line_start, |i| at + i + 1);
    }
    let mut at = section;
    if b[at..].starts_with(b"---") {
        at = memchr::memchr(b'\n', &b[at..line_start]).map_or(line_start, |i| at + i + 1);
    }
    while at < line_start {
        let end = memchr::memchr2(b'\n', b'\r', &b[at..line_start]).map_or(line_start, |i| at + i);
        let line = text[at..end].trim_start_matches(['\u{feff}', ' ', '\t']);
        // A line of node properties only (`!tag`, `&anchor`) belongs to the root that
        // starts on a later line.
        let properties_only = || {
            line.split_whitespace()
                .take_while(|word| !word.starts_with('#'))
                .all(|word| word.starts_with(['!', '&']))
        };
        if !line.is_empty()
            && !line.starts_with('#')
            && !line.starts_with('%')
            && !properties_only()
        {
            return indentation(line_start) < indentation(at);
        }
        at = (end + 1).min(line_start);
        if end >= line_start {
            break;
        }
    }
    false
}

fn block_scalar_header_above(text: &str, line_start: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut end = line_start;
    loop {
        let (start, above_end) = lenient::line_above(b, end)?;
        let line = text[start..above_end].trim_start_matches([' ', '\t']);
        if line.is_empty() {
            end = start;
            continue;
        }
        return line.starts_with(['|', '>']).then_some(start);
    }
}

/// The line of a comment saphyr refused as a misindented block scalar line (`at`, its
/// error's position, is the `#`; only spaces come before it on its line), from its start
/// to its line break.
///
/// go-yaml ends a block scalar at the first non-blank line less indented than the
/// scalar's content (the leading blank lines' widest indentation, or the indentation
/// indicator), and such a line may be a comment:
/// ```yaml
/// k: |
///
///   # a comment
/// ```
/// saphyr refuses a first non-blank line less indented than the blank lines before it,
/// comment or not. A comment at column 0 ends the scalar for both, and a comment's
/// position changes nothing else, so the loader moves it there (byte for byte: the
/// spaces go after it) and parses again. Other misindented lines are content that go-yaml
/// refuses too. Found by the libyaml differential (fuzz/sweeps/libyaml_diff.py).
fn moved_comment(text: &str, at: usize) -> Option<Span> {
    let b = text.as_bytes();
    if b.get(at) != Some(&b'#') {
        return None;
    }
    let start = lenient::line_start(b, at);
    if !b[start..at].iter().all(|&c| c == b' ') || start == at {
        return None;
    }
    let end = memchr::memchr2(b'\n', b'\r', &b[at..]).map_or(b.len(), |i| at + i);
    Some(Span::new(start, end))
}

/// Moves the comment of `line` (see [`moved_comment`]) to the line's start, with its
/// indentation after it.
fn move_comment_to_column_0(bytes: &mut [u8], line: Span) {
    let indentation = bytes[line.start..line.end]
        .iter()
        .take_while(|&&c| c == b' ')
        .count();
    bytes[line.start..line.end].rotate_left(indentation);
}

/// The first line kubectl's YAMLReader refuses as a document separator: one that starts
/// with `---` and goes on with anything but spaces or a comment (`--- {a: 1}`, `--- |`,
/// `----`). Returns the line's offset and the span of what follows the `---`, trimmed.
/// A JSON stream (first character `{`) is not read line by line.
fn invalid_separator(text: &str) -> Option<(usize, Span)> {
    // Only lines starting with `---` matter: find them with memchr's substring search
    // (a line-by-line walk cost 0.1 G instructions on the corpus). Whether the text is
    // JSON throughout is asked only once such a line is found (it parses the text).
    let bytes = text.as_bytes();
    let first = bytes.starts_with(b"---").then_some(0);
    let rest = memchr::memmem::find_iter(bytes, b"\n---").map(|i| i + 1);
    for line in first.into_iter().chain(rest) {
        let end = memchr::memchr(b'\n', &bytes[line..]).map_or(text.len(), |i| line + i + 1);
        let rest = &text[line + 3..end];
        // Go's strings.TrimSpace and Rust's trim share Unicode's White_Space.
        let trimmed = rest.trim();
        if !trimmed.is_empty() && !trimmed.starts_with('#') {
            if json_stream::is_json(text) {
                return None;
            }
            let start = line + 3 + (rest.len() - rest.trim_start().len());
            return Some((line, Span::new(start, start + trimmed.len())));
        }
    }
    None
}

/// kubectl's YAMLReader fails at a refused separator line and drops what it had read of
/// the document before it: the documents of the chunk that ends there, and everything
/// after, are never converted. Earlier chunks were (and `kubectl apply` applies them).
/// `parser_syntax_error`: where the parser's first syntax error is (not counting the
/// chunks dropped for go-yaml's sake, which fail alone).
fn cut_at_separator(
    out: &mut ParseOutput,
    text: &str,
    line: usize,
    content: Span,
    parser_syntax_error: Option<usize>,
) {
    let chunk_start = text[..line]
        .match_indices('\n')
        .map(|(i, _)| i + 1)
        .rfind(|&start| start < line && text[start..].starts_with("---"))
        .unwrap_or(0);
    // A syntax error before the chunk already ended the stream for kubectl.
    if parser_syntax_error.is_some_and(|at| at < chunk_start) {
        return;
    }
    let first_dropped = out
        .documents
        .iter()
        .find(|d| d.root.span.start >= chunk_start)
        .map(|d| d.index);
    let document = first_dropped.unwrap_or_else(|| out.documents.last().map_or(0, |d| d.index + 1));
    out.documents.retain(|d| d.root.span.start < chunk_start);
    out.errors.retain(|e| e.span.start < chunk_start);
    out.errors.push(YamlError {
        kind: YamlErrorKind::InvalidSeparator,
        message: format!(
            "invalid Yaml document separator: {}",
            &text[content.start..content.end]
        ),
        span: content,
        document,
    });
}

/// The offset of the first character go-yaml's reader refuses ("control characters
/// are not allowed"): anything but tab, line feed, carriage return, U+0020–U+007E,
/// U+0085, U+00A0–U+D7FF, U+E000–U+FFFD and U+10000 and above. (YAML 1.2 parsers such as
/// saphyr accept some of them; kubectl's YAML to JSON conversion does not.)
fn first_control_character(text: &str) -> Option<usize> {
    // Bytes that may start a refused character: C0 controls but tab, line feed and
    // carriage return; DEL; 0xC2 (U+0080–U+00BF, where C1 controls are); 0xEF
    // (U+F000–U+FFFF, where U+FFFE and U+FFFF are). Any other non-ASCII character is
    // allowed. The test of a 64-byte chunk has no branches, so it is vectorised.
    let suspect = |b: u8| {
        ((b < 0x20) & (b != b'\t') & (b != b'\n') & (b != b'\r'))
            | (b == 0x7f)
            | (b == 0xc2)
            | (b == 0xef)
    };
    let bytes = text.as_bytes();
    let mut start = 0;
    let flagged = |chunk: &[u8]| chunk.iter().fold(0u8, |acc, &b| acc | u8::from(suspect(b))) != 0;
    let exact = bytes.chunks_exact(64);
    let rest = exact.remainder();
    for chunk in exact.chain(std::iter::once(rest)) {
        if flagged(chunk) {
            for (i, &b) in chunk.iter().enumerate() {
                let at = start + i;
                let refused = match b {
                    0xc2 => bytes
                        .get(at + 1)
                        .is_some_and(|&n| (0x80..=0x9f).contains(&n) && n != 0x85),
                    0xef => {
                        bytes.get(at + 1) == Some(&0xbf)
                            && matches!(bytes.get(at + 2), Some(0xbe | 0xbf))
                    }
                    _ => suspect(b),
                };
                if refused {
                    return Some(at);
                }
            }
        }
        start += chunk.len();
    }
    None
}

/// What kubectl's YAMLReader swallows after the `---` of a separator line that cuts the
/// stream (one read into a non-empty buffer): the rest of the line up to its LF, when it
/// starts with a comment (`---#c`, `--- # c`; anything else is an invalid separator).
/// Lone CRs do not end that line: content after one (`--- # c\rb: 2`, classic Mac line
/// ends) is never read. A `---` line kept at the start of a chunk (the file's first
/// line, or the second of two separators) is read by go-yaml, CRs and all.
struct SeparatorTail {
    span: Span,
    /// The first content after a lone CR in the tail.
    ignored_content: Option<usize>,
}

fn separator_tails(text: &str) -> Vec<SeparatorTail> {
    let b = text.as_bytes();
    // Only `---` lines matter, found by substring search (no line-by-line walk). The
    // reader's buffer is empty at the start and right after a cut, so a `---` line is
    // kept when it is the first line or directly follows a cutting one.
    let first = b.starts_with(b"---").then_some(0);
    let rest = memchr::memmem::find_iter(b, b"\n---").map(|i| i + 1);
    let mut out = Vec::new();
    let mut after_cut: Option<usize> = None;
    for line in first.into_iter().chain(rest) {
        let end = memchr::memchr(b'\n', &b[line..]).map_or(b.len(), |i| line + i);
        let kept = line == 0 || after_cut == Some(line);
        if kept {
            after_cut = None;
            continue;
        }
        after_cut = Some(end + 1);
        let tail = &text[line + 3..end];
        if tail.trim_start().starts_with('#') {
            let ignored_content = tail.match_indices('\r').find_map(|(i, _)| {
                let rest = &tail[i + 1..];
                let next_line = &rest[..rest.find('\r').unwrap_or(rest.len())];
                let content = next_line.trim_start_matches([' ', '\t']);
                (!content.is_empty() && !content.starts_with('#'))
                    .then(|| line + 3 + i + 1 + (next_line.len() - content.len()))
            });
            out.push(SeparatorTail {
                span: Span::new(line + 3, end),
                ignored_content,
            });
        }
    }
    out
}

/// Where to report an error the scanner found at `at`. At the end of the stream that is
/// the end of the last line with content, where the missing `]` or quote belongs: a point
/// after the final line break lies on a line no editor shows.
fn end_of_content(text: &str, at: usize) -> usize {
    if at < text.len() {
        at
    } else {
        text.trim_end().len()
    }
}

mod builder;
use builder::{Builder, closing_quote_end, is_blank_or_break, parse_attempt};
mod chunk_drops;
mod directives;
mod document_end;
mod empty_block_scalar;
mod flow_colons;
mod go_blanks;
mod go_json_scan;
mod inner_bom;
mod json_events;
mod json_stream;
mod json_surrogates;
mod lenient;
mod quote_escapes;
mod removed_crs;
#[cfg(test)]
mod tests;
mod unicode_breaks;
use unicode_breaks::unicode_line_breaks;
