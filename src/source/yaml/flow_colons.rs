//! A `:` that ends a plain scalar inside a flow collection right before `,`, `]` or `}`
//! (`[ax:]`, `{a:, b: 1}`, `{a: b:}`): go-yaml 2.4 (sigs.k8s.io/yaml's) ends a plain
//! scalar at a `:` only when a blank follows it, so it reads `["ax:"]`, `{"a:": null,
//! b: 1}` and `{a: "b:"}`. saphyr, as YAML 1.2, ends the scalar at the `:` and reads a
//! key (`[{ax: null}]`), or refuses the text (`{a: b:}`). (libyaml refuses all three:
//! go-yaml dropped its check.)
//!
//! A lone `-` there (`[a, -]`, `{-: a}`) is the plain scalar `-` to go-yaml (a `-`
//! starts a plain scalar unless a blank follows); saphyr refuses it ("plain scalar
//! cannot start with '-' followed by ,[]{}"). It is masked the same way.
//!
//! The builder notes each such `:` ([`ParseOutput::flow_colons`]); the text is then
//! parsed again with a stand-in character there, which saphyr reads as part of the
//! scalar, and the loaded keys and values get their `:` back ([`parse_again`]). A parse
//! can reveal more (saphyr stops at the first refusal), so this repeats, within the
//! file's parse budget.

use super::super::node::{Node, Value};
use super::super::span::Span;
use super::{ParseBudget, ParseOutput, YamlErrorKind};

/// The stand-ins a masked character may get: characters saphyr reads as plain scalar
/// text inside a flow collection, which turn no scalar into a number, boolean or null
/// (a `:` is masked after at least one character, so `~` may stand for it; a lone `-`
/// is a whole scalar). Each text gets the first ones it does not hold, so that no
/// masked key equals a key of the text (`{^, -}`: a lone `^` for the `-` made a
/// duplicate key).
const COLON_STAND_INS: [u8; 6] = [b'~', b'^', b'$', b';', b'(', b')'];
const DASH_STAND_INS: [u8; 5] = [b'^', b'$', b';', b'(', b')'];

/// The (character, stand-in) pairs for `text`.
fn stand_ins(text: &[u8]) -> [(u8, u8); 2] {
    let unused = |candidates: &[u8], taken: Option<u8>| {
        candidates
            .iter()
            .copied()
            .find(|&c| Some(c) != taken && memchr::memchr(c, text).is_none())
            .or_else(|| candidates.iter().copied().find(|&c| Some(c) != taken))
            .unwrap_or(candidates[0])
    };
    let dash = unused(&DASH_STAND_INS, None);
    [(b':', unused(&COLON_STAND_INS, Some(dash))), (b'-', dash)]
}

/// saphyr's refusal of a lone `-` in a flow collection.
const SAPHYR_LONE_DASH: &str = "plain scalar cannot start with '-' followed by ,[]{}";

/// Adds the colon saphyr refused a multi-line scalar at (`[a` / ` b:]`: "illegal
/// placement of ':' indicator", or a flow mapping's "did not find expected ',' or '}'"),
/// where the builder saw no scalar: a syntax error at a `:` between a plain scalar's
/// last character and `,`, `]` or `}`.
pub(super) fn add_refused(text: &str, out: &mut ParseOutput) {
    let b = text.as_bytes();
    let refused = out.errors.iter().find(|e| {
        e.kind == YamlErrorKind::Syntax
            && matches!(b.get(e.span.start + 1), Some(b',' | b']' | b'}'))
            && match b.get(e.span.start) {
                Some(b':') => ends_plain_scalar(b, e.span.start),
                Some(b'-') => e.message.ends_with(SAPHYR_LONE_DASH),
                _ => false,
            }
    });
    if let Some(error) = refused
        && !out.flow_colons.contains(&error.span.start)
    {
        out.flow_colons.push(error.span.start);
    }
}

/// Whether the characters right before `colon` can end a plain scalar: no blank,
/// quote or bracket, and no alias or anchor name (`*a:`).
fn ends_plain_scalar(b: &[u8], colon: usize) -> bool {
    let Some(&last) = colon.checked_sub(1).and_then(|i| b.get(i)) else {
        return false;
    };
    if matches!(
        last,
        b' ' | b'\t' | b'\n' | b'\r' | b'"' | b'\'' | b'[' | b']' | b'{' | b'}' | b','
    ) {
        return false;
    }
    let word_start = b[..colon]
        .iter()
        .rposition(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'[' | b'{' | b','))
        .map_or(0, |i| i + 1);
    !matches!(b[word_start], b'*' | b'&')
}

/// Parses `text` again (with `parse`) with the colons `out` found, and any the new
/// parses find, read as go-yaml reads them.
pub(super) fn parse_again(
    text: &str,
    mut out: ParseOutput,
    parse: impl Fn(&str) -> ParseOutput,
    budget: &ParseBudget,
) -> ParseOutput {
    let original = text.as_bytes();
    let mut masked = original.to_vec();
    let mut colons: Vec<usize> = Vec::new();
    let stand_ins = stand_ins(original);
    loop {
        let before = colons.len();
        for &at in &out.flow_colons {
            if let Some(&(_, stand_in)) = stand_ins
                .iter()
                .find(|(character, _)| masked.get(at) == Some(character))
            {
                masked[at] = stand_in;
                colons.push(at);
            }
        }
        if colons.len() == before {
            break;
        }
        let Some(masked_text) = super::reparse_masked(&masked, &mut out, budget, &parse) else {
            break;
        };
        add_refused(masked_text, &mut out);
    }
    colons.sort_unstable();
    restore(&mut out, original, &masked, &colons, &stand_ins);
    out.flow_colons.clear();
    out
}

/// Gives the loaded keys, values and error messages their colons back.
fn restore(
    out: &mut ParseOutput,
    original: &[u8],
    masked: &[u8],
    colons: &[usize],
    stand_ins: &[(u8, u8)],
) {
    let mut stack: Vec<&mut Node> = out.documents.iter_mut().map(|d| &mut d.root).collect();
    while let Some(node) = stack.pop() {
        match &mut node.value {
            Value::String(s) => restore_scalar(s, node.span, original, masked, colons, stand_ins),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                for entry in &mut map.entries {
                    restore_scalar(
                        &mut entry.key,
                        entry.key_span,
                        original,
                        masked,
                        colons,
                        stand_ins,
                    );
                    stack.push(&mut entry.value);
                }
            }
            _ => {}
        }
    }
    // Messages quote keys and values (`key "a:" already set in map`).
    for error in &mut out.errors {
        if holds_colon(error.span, colons)
            && let (Ok(seen), Ok(source)) = (
                std::str::from_utf8(&masked[error.span.start..error.span.end]),
                std::str::from_utf8(&original[error.span.start..error.span.end]),
            )
        {
            error.message = error.message.replace(seen, source);
        }
    }
}

fn holds_colon(span: Span, colons: &[usize]) -> bool {
    let first = colons.partition_point(|&c| c < span.start);
    colons.get(first).is_some_and(|&c| c < span.end)
}

/// Puts the masked characters back into `value`, a plain scalar read from `span` of
/// the masked text. Folding changes only a plain scalar's blanks and line breaks, so the
/// k-th stand-in of the value is the k-th of its source.
fn restore_scalar(
    value: &mut String,
    span: Span,
    original: &[u8],
    masked: &[u8],
    colons: &[usize],
    stand_ins: &[(u8, u8)],
) {
    if !holds_colon(span, colons) || span.end > masked.len() {
        return;
    }
    let mut bytes = std::mem::take(value).into_bytes();
    for &(_, stand_in) in stand_ins {
        let in_value: Vec<usize> = bytes
            .iter()
            .enumerate()
            .filter_map(|(i, &b)| (b == stand_in).then_some(i))
            .collect();
        let in_source = masked[span.start..span.end]
            .iter()
            .enumerate()
            .filter_map(|(i, &b)| (b == stand_in).then_some(span.start + i));
        for (at, i) in in_source.zip(in_value) {
            if colons.binary_search(&at).is_ok() {
                bytes[i] = original[at];
            }
        }
    }
    // ASCII bytes for ASCII bytes: still UTF-8.
    *value = String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
}
