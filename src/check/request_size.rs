//! The API server's request body limit. kubectl sends each object (a CRD, a custom
//! resource, each item of a `kind: List`) as JSON, and the server refuses a body over
//! `MaxRequestBodyBytes` before decoding it: `413 Request Entity Too Large`, and
//! nothing of the object is validated.

use crate::diag::Diagnostic;
use crate::diag::gofmt::json_float;
use crate::source::{Node, Value};

crate::declare_codes! {
    REQUEST_TOO_LARGE = "request-too-large", Error, "An object whose JSON is over the API server's 3 MiB request body limit; the server refuses it unread";
}

/// `MaxRequestBodyBytes`, kube-apiserver's default (`--max-request-body-bytes`).
pub const MAX_REQUEST_BODY_BYTES: usize = 3 * 1024 * 1024;

/// The server's answer when `root`, sent as kubectl sends it, is over the limit.
pub fn check(root: &Node) -> Option<Diagnostic> {
    // Most documents are far below the limit whatever their escapes: a bound on their
    // JSON settles it without scanning their strings.
    if upper_bound(root).saturating_add(1) <= MAX_REQUEST_BODY_BYTES {
        return None;
    }
    let size = body_len(root, MAX_REQUEST_BODY_BYTES);
    if size <= MAX_REQUEST_BODY_BYTES {
        return None;
    }
    Some(
        Diagnostic::error(
            REQUEST_TOO_LARGE,
            format!("Request entity too large: limit is {MAX_REQUEST_BODY_BYTES}"),
        )
        .with_span(root.span)
        .with_label("over 3 MiB as JSON")
        .with_help(
            "the API server refuses a request body over 3 MiB (3,145,728 bytes) before reading the object, and kubectl sends it as JSON: split the object, or move large data out of it",
        ),
    )
}

/// Bytes of the body kubectl sends for `root` when it creates it or applies it on the
/// server side: Go's JSON encoding of the object (`json.Encoder`, HTML-safe escapes) and
/// a final line break. Counting stops once past `limit`.
pub fn body_len(root: &Node, limit: usize) -> usize {
    let mut size = 1;
    json_len(root, &mut size, limit);
    size
}

fn json_len(node: &Node, size: &mut usize, limit: usize) {
    if *size > limit {
        return;
    }
    match &node.value {
        Value::Null => *size += 4,
        Value::Bool(b) => *size += if *b { 4 } else { 5 },
        Value::Int(i) => *size += decimal_len(*i),
        Value::Float(f) => *size += json_float(*f).len(),
        Value::String(s) => *size += string_len(s),
        Value::Array(items) => {
            *size += 2 + items.len().saturating_sub(1);
            for item in items {
                json_len(item, size, limit);
            }
        }
        Value::Object(map) => {
            *size += 2 + map.entries.len().saturating_sub(1);
            for e in &map.entries {
                *size += string_len(&e.key) + 1;
                json_len(&e.value, size, limit);
            }
        }
    }
}

fn decimal_len(i: i64) -> usize {
    let sign = usize::from(i < 0);
    sign + i
        .unsigned_abs()
        .checked_ilog10()
        .map_or(1, |d| d as usize + 1)
}

/// A JSON string as Go writes it: `"`, `\` and the short escapes take two bytes; other
/// control characters, `<`, `>`, `&`, U+2028 and U+2029 take six.
fn string_len(s: &str) -> usize {
    let bytes = s.as_bytes();
    let mut len = 2;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        len += match b {
            b'"' | b'\\' | b'\n' | b'\r' | b'\t' | 0x08 | 0x0c => 2,
            b'<' | b'>' | b'&' | 0..=0x1f => 6,
            0xE2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
            {
                i += 2;
                6
            }
            _ => 1,
        };
        i += 1;
    }
    len
}

/// At least the JSON length of `node`, found without looking inside strings.
fn upper_bound(node: &Node) -> usize {
    match &node.value {
        Value::Null | Value::Bool(_) => 5,
        // `-9223372036854775808`; `-2.2250738585072014e-308`.
        Value::Int(_) => 20,
        Value::Float(_) => 24,
        Value::String(s) => 2 + 6 * s.len(),
        Value::Array(items) => items
            .iter()
            .fold(2 + items.len(), |n, i| n.saturating_add(upper_bound(i))),
        Value::Object(map) => map.entries.iter().fold(2 + map.entries.len(), |n, e| {
            n.saturating_add(3 + 6 * e.key.len())
                .saturating_add(upper_bound(&e.value))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn node(json: serde_json::Value) -> Node {
        Node::from_json(&json, Span::default())
    }

    /// The counted size is the length of the JSON Go writes (`json_marshal` follows
    /// Go's encoder; its own tests hold Go's answers) plus the encoder's line break.
    #[test]
    fn counts_what_go_writes() {
        let values = [
            serde_json::json!(null),
            serde_json::json!({}),
            serde_json::json!([]),
            serde_json::json!({"a": [1, -22, 0, 9_223_372_036_854_775_807_i64, i64::MIN], "b": true, "c": false}),
            serde_json::json!({"f": [1.5, 1e21, 1e-7, -0.000001, 123456789.125]}),
            serde_json::json!({"s": "a\"b\\c\nd\re\tf<g>h&i\u{1}j\u{2028}k\u{2029}l\u{e2}é€\u{2027}\u{8}\u{c}\u{b}\u{1f}"}),
            serde_json::json!({"<&>": {"\u{2028}": ["", "x"]}}),
        ];
        for v in values {
            let expected = crate::diag::gofmt::json_marshal(&v).len() + 1;
            let n = node(v.clone());
            assert_eq!(body_len(&n, usize::MAX), expected, "{v}");
            assert!(upper_bound(&n) + 1 >= expected, "{v}");
        }
    }

    #[test]
    fn refuses_a_body_one_byte_over_the_limit() {
        // `{"s":"…"}` and a line break: 9 bytes around the string.
        let at_limit = "x".repeat(MAX_REQUEST_BODY_BYTES - 9);
        assert!(check(&node(serde_json::json!({ "s": at_limit }))).is_none());
        let over = "x".repeat(MAX_REQUEST_BODY_BYTES - 8);
        let d = check(&node(serde_json::json!({ "s": over }))).unwrap();
        assert_eq!(d.code, REQUEST_TOO_LARGE);
        assert_eq!(d.message, "Request entity too large: limit is 3145728");
        // Escapes count: 600,000 `<` are 3.6 MB of JSON.
        let escaped = "<".repeat(600_000);
        assert!(check(&node(serde_json::json!({ "s": escaped }))).is_some());
    }
}
