//! Streams of JSON values (`{...}` then `{...}` on the next line, as `jq -c` writes
//! them): kubectl's reader (apimachinery's `YAMLOrJSONDecoder`) decodes a stream that
//! starts with `{` as JSON, one object after another, and applies each. YAML reads only
//! the first (the next `{` needs a `---` before it), so the loader parses each value of
//! such a stream on its own. A stream with anything that is not JSON is YAML to both
//! (recent kubectl releases read it as YAML when JSON decoding fails).

use super::super::node::{Node, Value};
use super::super::span::Span;
use super::{ParseOutput, YamlErrorKind};

/// The byte ranges of the values of `text` when it is a stream of two or more JSON
/// values, the first an object.
pub(super) fn values(text: &str) -> Option<Vec<Span>> {
    json_values(text).filter(|values| values.len() > 1)
}

/// Whether kubectl decodes `text` as JSON: it starts with `{` (after blanks and a byte
/// order mark) and every value in it is valid JSON.
pub(super) fn is_json(text: &str) -> bool {
    json_values(text).is_some()
}

/// The byte ranges of the JSON values of `text`, when it starts with `{` and holds
/// nothing else.
fn json_values(text: &str) -> Option<Vec<Span>> {
    // kubectl's file reader drops a leading byte order mark before it looks.
    let bom = if text.starts_with('\u{FEFF}') { 3 } else { 0 };
    let body = &text[bom..];
    if !body.trim_start().starts_with('{') {
        return None;
    }
    let mut values = Vec::new();
    let mut stream = serde_json::Deserializer::from_str(body).into_iter::<serde_json::Value>();
    let mut end = 0;
    while let Some(value) = stream.next() {
        value.ok()?;
        let value_end = stream.byte_offset();
        let blanks = body[end..value_end].len() - body[end..value_end].trim_start().len();
        values.push(Span::new(bom + end + blanks, bom + value_end));
        end = value_end;
    }
    Some(values)
}

/// Parses each value (with `parse`) as a document of its own, with spans in `text`.
pub(super) fn parse_values(
    text: &str,
    values: &[Span],
    parse: impl Fn(&str) -> ParseOutput,
) -> ParseOutput {
    let mut out = ParseOutput::default();
    let (mut lines_before, mut counted) = (0, 0);
    for (index, value) in values.iter().enumerate() {
        let part = parse(&text[value.start..value.end]);
        for mut document in part.documents {
            document.index = index;
            shift(&mut document.root, value.start);
            out.documents.push(document);
        }
        // Counted from the previous value on (from the start each time, 200,000 values
        // took minutes).
        lines_before += memchr::memchr_iter(b'\n', &text.as_bytes()[counted..value.start]).count();
        counted = value.start;
        for mut error in part.errors {
            error.document = index;
            if error.kind == YamlErrorKind::DuplicateKey {
                error.message = with_file_line(&error.message, lines_before);
            }
            error.span = Span::new(error.span.start + value.start, error.span.end + value.start);
            out.errors.push(error);
        }
        out.has_anchors |= part.has_anchors;
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
