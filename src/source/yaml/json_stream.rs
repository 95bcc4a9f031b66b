//! Streams of JSON values (`{...}` then `{...}` on the next line, as `jq -c` writes
//! them): kubectl's reader (apimachinery's `YAMLOrJSONDecoder`) decodes a stream that
//! starts with `{` as JSON, one value after another, and applies each. YAML reads only
//! the first (the next `{` needs a `---` before it), so the loader parses each value of
//! such a stream on its own.
//!
//! When a value does not decode, the 1.35 decoder goes on as YAML if it had decoded at
//! most one value: from just after that value (its white space up to the first line
//! break skipped), the rest is a YAML stream of its own (`{"a": 1}` then `b: 2` on the
//! next line is two objects). After two or more values it stops with the JSON error.

use super::super::node::{Node, Value};
use super::super::span::Span;
use super::{ParseOutput, YamlError, YamlErrorKind};

/// How kubectl's decoder reads a text that starts with `{` and is not one JSON value.
pub(super) struct Decoded {
    /// The JSON values it decodes, in order.
    pub values: Vec<Span>,
    pub rest: Rest,
}

pub(super) enum Rest {
    /// The values reach the end of the text.
    None,
    /// A YAML stream from this offset to the end.
    Yaml(usize),
    /// The value starting here does not decode, after two or more that did: kubectl
    /// stops reading.
    Error { at: usize, message: String },
}

/// Whether kubectl decodes `text` as JSON: it starts with `{` (after blanks and a byte
/// order mark) and every value in it is valid JSON.
pub(super) fn is_json(text: &str) -> bool {
    json_prefix(text).is_some_and(|(_, failure)| failure.is_none())
}

/// Whether kubectl decodes `text` as exactly one JSON value (see [`is_json`]).
pub(super) fn is_single_json(text: &str) -> bool {
    json_prefix(text).is_some_and(|(values, failure)| failure.is_none() && values.len() == 1)
}

/// kubectl's error for a text that starts with `{` and whose first YAML document (after
/// the JSON values it decoded, at most one) fails too: its decoder then returns the JSON
/// error, `json: offset N: ...` (N counts bytes after a byte order mark, up to and
/// including the refused one) or `unexpected EOF`. The offset in `text`, the message, and
/// the index of that first YAML document.
pub(super) fn kubectl_error(text: &str) -> Option<(usize, String, usize)> {
    let (values, failure) = json_prefix(text)?;
    let (at, message) = failure?;
    if values.len() > 1 {
        return None;
    }
    if message == "unexpected EOF" {
        return Some((at, message, values.len()));
    }
    let offset = at - bom_len(text) + 1;
    Some((
        at,
        format!("json: offset {offset}: {message}"),
        values.len(),
    ))
}

/// How kubectl reads `text`, when that differs from one YAML stream: two or more JSON
/// values, or one followed by YAML. `None` when the text does not start with `{`, holds
/// one JSON value and nothing else, or its first value does not decode (then the whole
/// text is YAML to kubectl too).
pub(super) fn decode(text: &str) -> Option<Decoded> {
    let (values, failure) = json_prefix(text)?;
    let rest = match failure {
        None if values.len() > 1 => Rest::None,
        None => return None,
        // The first value does not decode: all is YAML, after the white space the
        // decoder skips (up to the first line break).
        Some(_) if values.is_empty() => match yaml_start(text, bom_len(text)) {
            0 => return None,
            start => Rest::Yaml(start),
        },
        Some((at, message)) if values.len() > 1 => Rest::Error { at, message },
        Some(_) => Rest::Yaml(yaml_start(text, values[0].end)),
    };
    Some(Decoded { values, rest })
}

/// Where the decoder's YAML stream starts after a JSON value ending at `end`: it skips
/// white space up to and including the first line break.
fn yaml_start(text: &str, end: usize) -> usize {
    let mut at = end;
    for c in text[end..].chars() {
        if !c.is_whitespace() {
            break;
        }
        at += c.len_utf8();
        if c == '\n' {
            break;
        }
    }
    at
}

/// The JSON values at the start of `text`, when it starts with `{`, and where and why
/// the first value that does not decode fails.
#[allow(clippy::type_complexity)]
fn json_prefix(text: &str) -> Option<(Vec<Span>, Option<(usize, String)>)> {
    let bom = bom_len(text);
    let body = &text[bom..];
    if !body.trim_start().starts_with('{') {
        return None;
    }
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<serde::de::IgnoredAny>();
    let mut end = 0;
    while let Some(value) = stream.next() {
        let blanks = body[end..].len()
            - body[end..]
                .trim_start_matches([' ', '\t', '\r', '\n'])
                .len();
        if let Err(error) = value {
            // Go's scanner says where and why (kubectl's words); serde_json's error is
            // the fallback, should it refuse a value Go takes.
            if let Some((at, message)) = super::go_json_scan::first_error(body, end) {
                return Some((values, Some((bom + at, message))));
            }
            let at = end + blanks;
            let message = without_position(&error.to_string()).to_string();
            return Some((values, Some((bom + at, message))));
        }
        let value_end = stream.byte_offset();
        values.push(Span::new(bom + end + blanks, bom + value_end));
        end = value_end;
    }
    Some((values, None))
}

/// kubectl's file reader drops a leading byte order mark before it looks.
fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{FEFF}') { 3 } else { 0 }
}

/// serde_json's message without its ` at line L column C` (the diagnostic has the
/// position).
fn without_position(message: &str) -> &str {
    message
        .rfind(" at line ")
        .map_or(message, |at| &message[..at])
}

/// Parses what kubectl decodes: each JSON value as a document of its own (with
/// `parse_value`), then the YAML stream after them (with `parse_yaml`), with spans in
/// `text` and document indices counted on.
pub(super) fn parse_decoded(
    text: &str,
    decoded: &Decoded,
    parse_value: impl Fn(&str) -> ParseOutput,
    parse_yaml: impl Fn(&str) -> ParseOutput,
) -> ParseOutput {
    let mut out = ParseOutput::default();
    let (mut lines_before, mut counted) = (0, 0);
    let yaml = match decoded.rest {
        Rest::Yaml(start) => Some(Span::new(start, text.len())),
        _ => None,
    };
    let parts = decoded.values.iter().map(|&v| (v, false));
    for (index, (part_span, is_yaml)) in parts.chain(yaml.map(|y| (y, true))).enumerate() {
        let part_text = &text[part_span.start..part_span.end];
        let part = if is_yaml {
            parse_yaml(part_text)
        } else {
            parse_value(part_text)
        };
        for mut document in part.documents {
            document.index += index;
            shift(&mut document.root, part_span.start);
            out.documents.push(document);
        }
        // Counted from the previous value on (from the start each time, 200,000 values
        // took minutes).
        lines_before +=
            memchr::memchr_iter(b'\n', &text.as_bytes()[counted..part_span.start]).count();
        counted = part_span.start;
        for mut error in part.errors {
            error.document += index;
            if error.kind == YamlErrorKind::DuplicateKey {
                error.message = with_file_line(&error.message, lines_before);
            }
            error.span = Span::new(
                error.span.start + part_span.start,
                error.span.end + part_span.start,
            );
            out.errors.push(error);
        }
        out.has_anchors |= part.has_anchors;
    }
    if let Rest::Error { at, message } = &decoded.rest {
        out.errors.push(YamlError {
            kind: YamlErrorKind::Syntax,
            message: message.clone(),
            span: Span::point(*at),
            document: decoded.values.len(),
        });
    }
    out
}

fn shift(root: &mut Node, by: usize) {
    let moved = |span: Span| Span::new(span.start + by, span.end + by);
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        node.span = moved(node.span);
        match &mut node.value {
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                for entry in &mut map.entries {
                    entry.key_span = moved(entry.key_span);
                    stack.push(&mut entry.value);
                }
            }
            _ => {}
        }
    }
}

/// A duplicate key's message names the line of the first one, counted in its value:
/// count it in the file.
fn with_file_line(message: &str, lines_before: usize) -> String {
    const FIRST_SET: &str = "(first set on line ";
    let Some(at) = message.rfind(FIRST_SET) else {
        return message.to_string();
    };
    let digits = &message[at + FIRST_SET.len()..];
    let digits = &digits[..digits.find(')').unwrap_or(digits.len())];
    match digits.parse::<usize>() {
        Ok(line) => format!("{}{}{})", &message[..at], FIRST_SET, line + lines_before),
        Err(_) => message.to_string(),
    }
}
