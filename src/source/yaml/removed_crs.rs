//! The carriage returns kubectl's line reader removes.
//!
//! kubectl reads a manifest line by line (bufio's `ReadLine`, in apimachinery's
//! `YAMLReader`) and joins the lines with LF: the line end it takes off is LF or CRLF, so
//! one CR before each LF goes and any other CR stays, a line break to go-yaml. A file
//! whose CRLFs were converted again (`\r\r\n`: "\r\n" written in text mode on Windows, a
//! second unix2dos) has one line break per line for kubectl and two for a YAML parser:
//! `a: |` over such lines reads `"l1\nl2\n"` in kubectl and `"\nl1\n\nl2\n"` in saphyr,
//! and a CEL rule in a block scalar gets other line numbers.
//!
//! The extra break is an empty line to saphyr, which changes no structure: only the
//! values of scalars that span lines. So saphyr reads the text as it is, and [`restore`]
//! decodes each string scalar with such a line end again with `source::inner`, which
//! reads `\r\r\n` as one line break (escapes, folding, chomping and all), as go-yaml reads
//! kubectl's `\r\n`; positions inside those values then map back to the file the same
//! way. (Recorded with apimachinery 1.35's reader and sigs.k8s.io/yaml: the tests
//! `a_cr_before_crlf_is_removed_as_kubectl_reads_lines` and
//! `positions_inside_values_read_over_removed_crs_map_back` in `yaml/tests.rs`.)

use super::super::inner::decode_with_offsets;
use super::super::node::{Node, ScalarStyle, Value};
use super::{ParseOutput, Span};

/// The offsets of the `\r\r\n` line ends of `text`, sorted.
pub(super) fn find(text: &str) -> Vec<usize> {
    memchr::memmem::find_iter(text.as_bytes(), b"\r\r\n").collect()
}

/// Decodes again, as kubectl's text reads, each string value and key that such a line
/// end (at `ends`) touches.
pub(super) fn restore(out: &mut ParseOutput, text: &str, ends: &[usize]) {
    for doc in &mut out.documents {
        let mut stack = vec![&mut doc.root];
        while let Some(node) = stack.pop() {
            if matches!(node.value, Value::String(_)) {
                restore_scalar(node, text, ends);
                continue;
            }
            match &mut node.value {
                Value::Array(items) => stack.extend(items.iter_mut()),
                Value::Object(map) => {
                    for entry in &mut map.entries {
                        let style = key_style(text, entry.key_span);
                        restore_string(&mut entry.key, entry.key_span, style, text, ends);
                        stack.push(&mut entry.value);
                    }
                }
                _ => {}
            }
        }
    }
}

fn restore_scalar(node: &mut Node, text: &str, ends: &[usize]) {
    let (span, style) = (node.span, node.style);
    if let Value::String(value) = &mut node.value {
        restore_string(value, span, style, text, ends);
    }
}

/// A key's style, from its first character (keys carry no style of their own).
fn key_style(text: &str, span: Span) -> ScalarStyle {
    match text.as_bytes().get(span.start) {
        Some(b'|') => ScalarStyle::Literal,
        Some(b'>') => ScalarStyle::Folded,
        Some(b'"') => ScalarStyle::DoubleQuoted,
        Some(b'\'') => ScalarStyle::SingleQuoted,
        _ => ScalarStyle::Plain,
    }
}

fn restore_string(value: &mut String, span: Span, style: ScalarStyle, text: &str, ends: &[usize]) {
    if style == ScalarStyle::NotScalar {
        return;
    }
    // A block scalar's span ends with its last content; its final line break and
    // trailing empty lines (kept by `|+`) come after it, up to the next content. Without
    // content it ends with its header, and a comment go-yaml reads right after the
    // header (`|+#c`, blanked for saphyr, so outside the span) is passed over too (found
    // by the yaml_spans fuzz target: `a: |+#c` then `\r\r\r` kept two line breaks).
    let b = text.as_bytes();
    let block = matches!(style, ScalarStyle::Literal | ScalarStyle::Folded);
    let mut reach = span.end.min(b.len());
    while let Some(&c) = b.get(reach) {
        match c {
            b' ' | b'\t' | b'\r' | b'\n' => reach += 1,
            b'#' if block => {
                reach = memchr::memchr2(b'\r', b'\n', &b[reach..]).map_or(b.len(), |i| reach + i);
            }
            _ => break,
        }
    }
    let first = ends.partition_point(|&at| at < span.start);
    if ends.get(first).is_none_or(|&at| at >= reach) {
        return;
    }
    if let Some((decoded, _, _)) = decode_with_offsets(text, span, style) {
        *value = decoded;
    }
}
