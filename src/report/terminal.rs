//! Text from the checked files on its way to a terminal. Messages carry user text (a
//! rule's `message`, a property name written with a YAML escape, a file name) and
//! snippets carry the lines themselves; a control character among them would be
//! executed by the terminal, not shown: `ESC ] 0 ; … BEL` retitles the window, `ESC [`
//! recolours or moves the cursor, a carriage return lets a line overwrite its start.
//! The JSON and SARIF contracts keep the exact text (their encoders escape it).

use std::borrow::Cow;

/// Control characters a terminal could act on: C0 but tab and line feed, DEL, and the
/// C1 range (U+009B is CSI for terminals that honour 8-bit controls); and the
/// bidirectional controls, which reorder how the rest of a line is shown ("Trojan
/// Source", CVE-2021-42574): a rule message or a file name could make a finding read
/// as something else. Go's `%q` escapes them too.
fn is_hazard(c: char, keep_carriage_return: bool) -> bool {
    match c {
        '\t' | '\n' => false,
        '\r' => !keep_carriage_return,
        '\u{61c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' => {
            true
        }
        c => c.is_control(),
    }
}

/// `text` with every hazardous control character written as an escape, the way Go's
/// `%q` writes them (`\x1b`, `\r`, `\u009b`), so that the reader sees what is there.
pub fn escape_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hazard(c, false)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !is_hazard(c, false) {
            out.push(c);
            continue;
        }
        match c {
            '\r' => out.push_str("\\r"),
            '\x07' => out.push_str("\\a"),
            '\x08' => out.push_str("\\b"),
            '\x0b' => out.push_str("\\v"),
            '\x0c' => out.push_str("\\f"),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{:04x}", c as u32)),
        }
    }
    Cow::Owned(out)
}

/// `text` with every hazardous control character replaced by `?` repeated to its UTF-8
/// length, so byte offsets, and with them spans and the line index, stay valid for
/// snippets. Carriage returns stay: a snippet line ends with the file's own line break.
pub fn mask_controls(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hazard(c, true)) {
        return Cow::Borrowed(text);
    }
    let masked: String = text
        .chars()
        .map(|c| {
            if is_hazard(c, true) {
                "?".repeat(c.len_utf8())
            } else {
                c.to_string()
            }
        })
        .collect();
    Cow::Owned(masked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_what_a_terminal_would_execute_and_keeps_line_structure() {
        assert_eq!(
            escape_controls("a\x1b]0;pwned\x07\x1b[31mred\r\n\tb\u{9b}c\u{7f}"),
            "a\\x1b]0;pwned\\a\\x1b[31mred\\r\n\tb\\u009bc\\x7f"
        );
        assert!(matches!(escape_controls("plain é ✓\n"), Cow::Borrowed(_)));
        // Bidirectional controls: a right-to-left override would show `txt.exe` as
        // `exe.txt`; the isolates and marks reorder just as well.
        assert_eq!(
            escape_controls("a\u{202e}txt.exe\u{202c} \u{2066}x\u{2069}\u{200f}\u{61c}"),
            "a\\u202etxt.exe\\u202c \\u2066x\\u2069\\u200f\\u061c"
        );
        // Joiners and other format characters that draw emoji stay.
        assert!(matches!(escape_controls("👩\u{200d}💻"), Cow::Borrowed(_)));
    }

    #[test]
    fn masking_keeps_every_byte_offset() {
        let text = "k: \"a\x1b[31m\u{9b}b\"\r\n";
        let masked = mask_controls(text);
        assert_eq!(masked, "k: \"a?[31m??b\"\r\n");
        assert_eq!(masked.len(), text.len());
        assert!(matches!(mask_controls("k: v\r\n"), Cow::Borrowed(_)));
        assert_eq!(mask_controls("# \u{202e}x"), "# ???x");
    }
}
