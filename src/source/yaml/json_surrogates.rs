//! UTF-16 surrogate escapes in JSON text (`"\ud83d\ude00"`, how Python's `json.dump`
//! writes an emoji by default). kubectl decodes a text that starts with `{` with Go's
//! encoding/json, which joins a pair into one character and reads a lone surrogate as
//! U+FFFD; YAML has no surrogate escapes, and saphyr refuses the file ("found invalid
//! Unicode character escape code", as go-yaml does for YAML text). So in text kubectl
//! decodes as JSON, each surrogate escape is given to saphyr as `\ufffd` (same length,
//! so every span stays), and the strings and keys holding one are decoded again from the
//! original text (`source::inner` joins pairs as Go does).

/// The offsets of the `\` of every `\uXXXX` escape of a surrogate (D800–DFFF) in `text`.
/// Meant for JSON, where a `\` only occurs inside strings: `\\` is skipped as a pair.
pub(super) fn find(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    let mut from = 0;
    // `from` may pass the end: a `\` as the last byte skips two.
    while let Some(at) = b
        .get(from..)
        .and_then(|rest| memchr::memchr(b'\\', rest))
        .map(|i| from + i)
    {
        if b.get(at + 1) == Some(&b'u') && is_surrogate(b.get(at + 2..at + 6)) {
            found.push(at);
            from = at + 6;
        } else {
            from = at + 2;
        }
    }
    found
}

fn is_surrogate(hex: Option<&[u8]>) -> bool {
    let Some(hex) = hex else { return false };
    matches!(hex[0], b'd' | b'D')
        && matches!(hex[1], b'8' | b'9' | b'a'..=b'f' | b'A'..=b'F')
        && hex[2..].iter().all(u8::is_ascii_hexdigit)
}

/// `text` with the escapes at `escapes` (from [`find`]) written as `\ufffd`.
pub(super) fn mask(text: &str, escapes: &[usize]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for &at in escapes {
        bytes[at + 2..at + 6].copy_from_slice(b"fffd");
    }
    // ASCII hex digits for others: still UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_surrogate_escapes_outside_escaped_backslashes() {
        let text =
            r#"{"a": "\ud83d\uDE00x", "b": "\\ud83d", "c": "\u00e9\uDBFF", "d": "\\\udc00"}"#;
        let found: Vec<&str> = find(text).iter().map(|&at| &text[at..at + 6]).collect();
        assert_eq!(found, [r"\ud83d", r"\uDE00", r"\uDBFF", r"\udc00"]);
        // A `\` at the end (found by fuzzing: an index past the end).
        assert!(find("{\"a\": \"x\\").is_empty());
        assert!(find("\\").is_empty());
        assert_eq!(find("\\ud83d"), [0]);
        assert_eq!(
            mask(text, &find(text)),
            r#"{"a": "\ufffd\ufffdx", "b": "\\ud83d", "c": "\u00e9\ufffd", "d": "\\\ufffd"}"#
        );
    }
}
