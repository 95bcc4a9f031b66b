//! Byte order marks that do not start a line (`k: a\u{FEFF}b`, `# note\u{FEFF}`, inside a
//! block scalar's text): go-yaml, like libyaml, skips a mark only at the start of a line
//! and reads any other as an ordinary character, so kubectl loads `"a\u{FEFF}b"`. saphyr
//! 0.3.3 refuses every mark inside a document ("a byte order mark must not appear inside
//! a document"), which failed documents kubectl accepts (text pasted from editors that
//! insert the mark as a zero-width no-break space). Found by a differential run against
//! libyaml (`fuzz/sweeps/libyaml_diff.py`).
//!
//! The loader shows saphyr such a mark as U+FFFC, a character of the same length that
//! saphyr reads as ordinary text ([`mask`]), and turns it back into the mark in the
//! loaded keys and values ([`restore`]). Texts that already hold U+FFFC are left as they
//! are (saphyr's refusal stands), so no character is ever changed that was not a mark.
//! Marks at the start of a line keep their own handling (`marks_before_markers`).

use super::super::node::{Node, Value};
use super::ParseOutput;

const MARK: &str = "\u{FEFF}";
const STAND_IN: &str = "\u{FFFC}";

/// The offsets of the marks to show saphyr as U+FFFC: those after the first character
/// of a line. Empty when the text has none, or holds U+FFFC itself.
pub(super) fn find(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let inner: Vec<usize> = memchr::memmem::find_iter(b, MARK.as_bytes())
        .filter(|&at| at > 0 && !matches!(b[at - 1], b'\n' | b'\r'))
        .collect();
    if inner.is_empty() || memchr::memmem::find(b, STAND_IN.as_bytes()).is_some() {
        return Vec::new();
    }
    inner
}

/// Writes the stand-in over each mark (both are three bytes long).
pub(super) fn mask(bytes: &mut [u8], marks: &[usize]) {
    for &at in marks {
        bytes[at..at + STAND_IN.len()].copy_from_slice(STAND_IN.as_bytes());
    }
}

/// Gives the loaded keys, values and error messages their marks back.
pub(super) fn restore(out: &mut ParseOutput) {
    for doc in &mut out.documents {
        restore_node(&mut doc.root);
    }
    for error in &mut out.errors {
        unmask(&mut error.message);
    }
}

fn restore_node(root: &mut Node) {
    let mut stack = vec![root];
    while let Some(node) = stack.pop() {
        match &mut node.value {
            Value::String(s) => unmask(s),
            Value::Array(items) => stack.extend(items.iter_mut()),
            Value::Object(map) => {
                for entry in &mut map.entries {
                    unmask(&mut entry.key);
                    stack.push(&mut entry.value);
                }
            }
            _ => {}
        }
    }
}

fn unmask(s: &mut String) {
    if s.contains(STAND_IN) {
        *s = s.replace(STAND_IN, MARK);
    }
}
