//! YAML/JSON → spanned [`Node`] trees, built on saphyr-parser events.
//!
//! The tree builder is iterative (an explicit stack of open collections), so nothing here
//! recurses on input depth; it stops building at [`Limits::max_depth`], which also bounds
//! the recursion of `Drop`/`Clone` on the finished tree.
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
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle, ScanError, Tag};

use super::node::{Entry, Mapping, Node, ScalarStyle, Value};
use super::scalar::{self, CoreTag, Resolved};
use super::span::{LineIndex, Span};

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
    let out = parse_escaped(text, limits, budget);
    // Only the first of several JSON values is a document to YAML: content after it,
    // or an error where the next value starts on the same line (`{}{}`, `{}3`). kubectl
    // decodes each, and YAML after the first (see `yaml/json_stream.rs`).
    let one_document = match &out.documents[..] {
        [document] => text[document.root.span.end..].trim().is_empty(),
        _ => false,
    };
    if (!out.errors.is_empty() || !one_document)
        && let Some(decoded) = json_stream::decode(text)
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

/// One pass of saphyr over `text`; on an indentation error that go-yaml would not make,
/// also says which lines to indent for another try (see [`lenient`]).
fn parse_attempt(text: &str, limits: &Limits) -> (ParseOutput, Option<lenient::Fix>) {
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

/// A node stored under an anchor, ready to be copied by aliases.
struct Anchored {
    node: Node,
    /// Nodes in `node` (what a copy costs).
    count: usize,
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
struct Frame {
    kind: FrameKind,
    start: usize,
    /// End of the furthest child written here (an alias counts where it is written).
    end: usize,
    anchor: usize,
    /// Nodes below this one.
    count: usize,
    /// Largest child height.
    height: usize,
}

struct Builder<'t> {
    text: &'t str,
    limits: Limits,
    offsets: Offsets<'t>,
    out: ParseOutput,
    /// Index the next document will get.
    next_index: usize,
    in_document: bool,
    index: usize,
    frames: Vec<Frame>,
    root: Option<Node>,
    /// A fatal error happened in this document: ignore events until its end.
    skipping: bool,
    /// A non-structural error (value JSON cannot carry): keep building, drop at the end.
    failed: bool,
    anchors: HashMap<usize, Anchored>,
    /// Nodes copied for anchors and aliases in this document.
    copied: usize,
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
            copied: 0,
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
        self.copied = 0;
    }

    fn scan_error(&mut self, err: &ScanError) -> Option<lenient::Fix> {
        let at = self.offsets.byte(err.marker().index());
        let fix = lenient::fix_for(self, err.info(), at);
        // saphyr counts flow levels in a u8 and stops at 255.
        let (kind, message) = if err.info() == "recursion limit exceeded" {
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

    /// Charges `count` copied nodes to the document's alias budget.
    fn charge(&mut self, count: usize, span: Span) -> bool {
        self.copied = self.copied.saturating_add(count);
        if self.copied > self.limits.max_alias_nodes {
            let message = format!(
                "document contains excessive aliasing: expanding anchors and aliases would copy more than {} nodes",
                self.limits.max_alias_nodes
            );
            self.fatal(YamlErrorKind::AliasLimit, message, span);
            return false;
        }
        true
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
                self.define_anchor(
                    anchor,
                    Node {
                        value,
                        span,
                        style: node_style,
                    },
                    1,
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
        if anchor != 0 && !self.define_anchor(anchor, node.clone(), 1, 0, key, value_error) {
            return;
        }
        self.attach(node, 1, 0, span.end);
    }

    fn define_anchor(
        &mut self,
        anchor: usize,
        node: Node,
        count: usize,
        height: usize,
        key: Option<Result<String, String>>,
        value_error: Option<String>,
    ) -> bool {
        // Keeping the anchored node is a copy too: charging it bounds the work that nested
        // anchors could otherwise multiply.
        if !self.charge(count, node.span) {
            return false;
        }
        self.out.has_anchors = true;
        self.anchors.insert(
            anchor,
            Anchored {
                node,
                count,
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
            let message = format!(
                "nesting is deeper than the limit of {} levels",
                self.limits.max_depth
            );
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
        self.frames.push(Frame {
            kind,
            start,
            end: start.max(raw_end),
            anchor,
            count: 0,
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
        let value = match frame.kind {
            FrameKind::Seq(items) => Value::Array(items),
            FrameKind::Map(map) => Value::Object(Mapping {
                entries: map.entries,
            }),
        };
        let node = Node {
            value,
            span: Span::new(frame.start, end),
            style: ScalarStyle::NotScalar,
        };
        let count = frame.count + 1;
        let height = frame.height + 1;
        if frame.anchor != 0
            && !self.define_anchor(frame.anchor, node.clone(), count, height, None, None)
        {
            return;
        }
        self.attach(node, count, height, end);
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
        let (count, height, value_error) = (
            anchored.count,
            anchored.height,
            anchored.value_error.clone(),
        );
        if self.frames.len() + height > self.limits.max_depth {
            let message = format!(
                "nesting is deeper than the limit of {} levels",
                self.limits.max_depth
            );
            self.fatal(YamlErrorKind::DepthLimit, message, span);
            return;
        }
        if let Some(message) = value_error {
            self.not_json(message, span);
        }
        // Check the budget before copying anything.
        if !self.charge(count, span) {
            return;
        }
        let node = match self.anchors.get(&id) {
            Some(a) => a.node.clone(),
            None => return,
        };
        self.attach(node, count, height, raw_end);
    }

    /// Adds a finished node to the open collection (or makes it the document root).
    fn attach(&mut self, node: Node, count: usize, height: usize, local_end: usize) {
        let Some(frame) = self.frames.last_mut() else {
            self.root = Some(node);
            return;
        };
        frame.count += count;
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
                    go_quote(&key)
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

fn is_blank_or_break(b: u8) -> bool {
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
fn closing_quote_end(bytes: &[u8], start: usize, limit: usize) -> usize {
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

/// Go's `%#v` of a string (strconv.Quote, close enough for keys).
fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

mod chunk_drops;
mod directives;
mod document_end;
mod empty_block_scalar;
mod flow_colons;
mod go_blanks;
mod go_json_scan;
mod inner_bom;
mod json_stream;
mod json_surrogates;
mod lenient;
mod quote_escapes;
mod removed_crs;
#[cfg(test)]
mod tests;
mod unicode_breaks;
use unicode_breaks::unicode_line_breaks;
