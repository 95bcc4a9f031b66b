//! The escape `\'` in a double-quoted scalar. go-yaml's scanner decodes it as `'`
//! (libyaml's YAML 1.1 escapes), and kubectl reads the file; saphyr, as YAML 1.2,
//! refuses it ("found unknown escape character"). When saphyr refuses a double-quoted
//! scalar that holds one, its `\'` escapes are parsed as `\"` (same length, so every
//! span stays), and the values and keys read from such scalars are decoded again from
//! the original text (`source::inner` knows go-yaml's escapes). saphyr stops at the
//! first refusal, so this repeats, within the file's parse budget. Found by the YAML
//! differential against sigs.k8s.io/yaml.

use super::super::inner;
use super::super::node::{Node, ScalarStyle, Value};
use super::super::span::Span;
use super::{ParseBudget, ParseOutput, YamlErrorKind};

/// saphyr's refusal of an escape, reported at the scalar's opening quote.
const UNKNOWN_ESCAPE: &str = "while parsing a quoted scalar, found unknown escape character";

/// At most this many parses again per text (each can unmask one scalar at least).
const MAX_ROUNDS: usize = 64;

/// `out` is the parse of `text`; `parse` parses a masked copy.
pub(super) fn parse_again(
    text: &str,
    mut out: ParseOutput,
    parse: impl Fn(&str) -> ParseOutput,
    budget: &ParseBudget,
) -> ParseOutput {
    let refused = |out: &ParseOutput| {
        out.errors
            .iter()
            .any(|e| e.kind == YamlErrorKind::Syntax && e.message == UNKNOWN_ESCAPE)
    };
    if !refused(&out) {
        return out;
    }
    let mut masked = text.as_bytes().to_vec();
    let mut escapes: Vec<usize> = Vec::new();
    for _ in 0..MAX_ROUNDS {
        let before = escapes.len();
        for e in &out.errors {
            if e.kind == YamlErrorKind::Syntax && e.message == UNKNOWN_ESCAPE {
                for at in quote_escapes(&masked, e.span.start) {
                    masked[at + 1] = b'"';
                    escapes.push(at);
                }
            }
        }
        if escapes.len() == before {
            break;
        }
        if super::reparse_masked(&masked, &mut out, budget, &parse).is_none() {
            break;
        }
    }
    if !escapes.is_empty() {
        escapes.sort_unstable();
        restore(&mut out, text, &escapes);
    }
    out
}

/// The `\'` escapes (offsets of their `\`) of the double-quoted scalar whose opening
/// quote is at `start`.
fn quote_escapes(b: &[u8], start: usize) -> Vec<usize> {
    let mut found = Vec::new();
    if b.get(start) != Some(&b'"') {
        return found;
    }
    let mut p = start + 1;
    while p < b.len() {
        match b[p] {
            b'\\' => {
                if b.get(p + 1) == Some(&b'\'') {
                    found.push(p);
                }
                p += 2;
            }
            b'"' => break,
            _ => p += 1,
        }
    }
    found
}

/// Decodes again, from `original`, the double-quoted strings and keys that hold one of
/// `escapes` (sorted offsets of escapes that were masked for saphyr).
pub(super) fn restore(out: &mut ParseOutput, original: &str, escapes: &[usize]) {
    let holds = |span: Span| {
        let first = escapes.partition_point(|&e| e < span.start);
        escapes.get(first).is_some_and(|&e| e < span.end)
    };
    let decode = |span: Span| {
        inner::decode_with_offsets(original, span, ScalarStyle::DoubleQuoted).map(|(s, _, _)| s)
    };
    let mut stack: Vec<&mut Node> = out.documents.iter_mut().map(|d| &mut d.root).collect();
    while let Some(node) = stack.pop() {
        match &mut node.value {
            Value::String(s) => {
                if node.style == ScalarStyle::DoubleQuoted
                    && holds(node.span)
                    && let Some(decoded) = decode(node.span)
                {
                    *s = decoded;
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                for entry in &mut map.entries {
                    if holds(entry.key_span)
                        && let Some(decoded) = decode(entry.key_span)
                    {
                        entry.key = decoded;
                    }
                    stack.push(&mut entry.value);
                }
            }
            _ => {}
        }
    }
}
