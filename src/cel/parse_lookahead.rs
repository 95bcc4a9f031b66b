//! cel-go's error recovery token lookahead limit.
//!
//! cel-go's parser gives each ANTLR error recovery at most 256 tokens to consume
//! (`ErrorRecoveryLookaheadTokenLimit`); the 257th aborts the parse with an error that
//! has no location (`<input>:-1:0`), and what the lexer had not reached yet is never
//! reported. The `cel` crate's parser has no such limit. The recovery modelled here is
//! the one that consumes the most: after `mismatched input 'x' expecting <EOF>` (an
//! expression followed by more text) ANTLR skips every token up to the end.

/// The message of the aborted parse.
pub(super) const LOOKAHEAD_LIMIT_EXCEEDED: &str =
    "error recovery token lookahead limit exceeded: 256";

/// Tokens one recovery may consume.
const LOOKAHEAD_LIMIT: usize = 256;

/// Where cel-go's parse stops for the errors reported at the given offsets, when the
/// recovery from an error that skips to the end would consume more than
/// [`LOOKAHEAD_LIMIT`] tokens: the start of the last token the lexer produced, after
/// which nothing was reported.
pub(super) fn lookahead_cut(text: &str, errors: &[(usize, &str)]) -> Option<usize> {
    let at = errors
        .iter()
        .filter(|(_, msg)| {
            // The `cel` crate's runtime lists every token that could have continued the
            // expression where cel-go's names only `<EOF>`.
            msg.starts_with("Syntax error: mismatched input ")
                && (msg.ends_with(" expecting <EOF>") || msg.contains(" expecting {<EOF>,"))
        })
        .map(|(at, _)| *at)
        .min()?;
    let starts = token_starts(text)?;
    let first = starts.iter().position(|&s| s >= at)?;
    // The recovery consumes tokens `first ..`; consuming the 256th fetches the next one
    // (lexing up to it), and trying to consume that one aborts.
    starts.get(first + LOOKAHEAD_LIMIT).copied()
}

/// The start offsets of the tokens CEL's lexer produces from `text`. Where no token
/// matches, ANTLR's lexer reports the characters it read (up to and including the one
/// that failed: `|-`, `#`, a string up to its line break) and skips them. `None` where
/// that is not modelled (an invalid escape).
fn token_starts(text: &str) -> Option<Vec<usize>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let next = b.get(i + 1).copied();
        if let Some(end) = super::fastparse::hidden_end(b, i) {
            i = end;
            continue;
        }
        let len = match b[i] {
            b'=' | b'&' | b'|' if next == Some(b[i]) => 2,
            b'=' | b'&' | b'|' => {
                // Half of `==`, `&&` or `||`: the next character failed with it.
                i += 1 + text[i + 1..].chars().next().map_or(0, char::len_utf8);
                continue;
            }
            b'!' | b'<' | b'>' if next == Some(b'=') => 2,
            b'.' if next.is_some_and(|d| d.is_ascii_digit()) => number_len(b, i),
            b'!' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'(' | b')' | b'.' | b',' | b'-'
            | b'?' | b':' | b'+' | b'*' | b'/' | b'%' => 1,
            b'0'..=b'9' => number_len(b, i),
            b'"' | b'\'' => match string_len(b, i, false)? {
                Ok(len) => len,
                Err(skip) => {
                    i += skip;
                    continue;
                }
            },
            b'`' => {
                // cel-go's escaped identifier: letters, digits and `_.-/ ` between backquotes.
                let inner = |c: u8| c.is_ascii_alphanumeric() || b"_.-/ ".contains(&c);
                let mut j = i + 1;
                while j < b.len() && inner(b[j]) {
                    j += 1;
                }
                if j > i + 1 && b.get(j) == Some(&b'`') {
                    j + 1 - i
                } else {
                    // The failing character (if any) is skipped with what was read.
                    i = j + text
                        .get(j..)
                        .and_then(|t| t.chars().next())
                        .map_or(0, char::len_utf8);
                    continue;
                }
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                let raw = matches!(&b[i..j], b"r" | b"R" | b"br" | b"bR" | b"Br" | b"BR");
                let prefix = raw || matches!(&b[i..j], b"b" | b"B");
                if prefix && matches!(b.get(j), Some(b'"' | b'\'')) {
                    match string_len(b, j, raw)? {
                        Ok(len) => j - i + len,
                        Err(skip) => {
                            i = j + skip;
                            continue;
                        }
                    }
                } else {
                    j - i
                }
            }
            _ => {
                // Not a token: the lexer reports it and skips one character.
                i += text[i..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
        };
        out.push(start);
        i += len;
    }
    Some(out)
}

/// The length of the number literal at `i` (CEL.g4: `DIGIT+ ('.' DIGIT+)? EXPONENT?`,
/// `'.' DIGIT+ EXPONENT?`, hexadecimal, an optional `u`).
fn number_len(b: &[u8], i: usize) -> usize {
    let digits = |mut j: usize| {
        while j < b.len() && b[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        let mut j = i + 2;
        while j < b.len() && b[j].is_ascii_hexdigit() {
            j += 1;
        }
        if j > i + 2 {
            if matches!(b.get(j), Some(b'u' | b'U')) {
                j += 1;
            }
            return j - i;
        }
        return 1;
    }
    let mut j = digits(i);
    let mut float = b[i] == b'.';
    if b[i] == b'.' {
        j = digits(i + 1);
    } else if b.get(j) == Some(&b'.') && b.get(j + 1).is_some_and(u8::is_ascii_digit) {
        j = digits(j + 1);
        float = true;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(j + 1), Some(b'+' | b'-')));
        if b.get(j + 1 + sign).is_some_and(u8::is_ascii_digit) {
            j = digits(j + 1 + sign);
            float = true;
        }
    }
    if !float && matches!(b.get(j), Some(b'u' | b'U')) {
        j += 1;
    }
    j - i
}

/// The length of the string literal opening at `i` (one or three quotes; escapes
/// unless raw); `Err` with the length the lexer skips when a line break or the end
/// comes first; `None` for an escape CEL.g4 does not accept.
fn string_len(b: &[u8], i: usize, raw: bool) -> Option<Result<usize, usize>> {
    let q = b[i];
    let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    let mut j = if triple { i + 3 } else { i + 1 };
    while j < b.len() {
        match b[j] {
            b'\\' if !raw => j += 1 + escape_len(&b[j + 1..])?,
            b'\n' | b'\r' if !triple => return Some(Err(j + 1 - i)),
            c if c == q => {
                if !triple {
                    return Some(Ok(j + 1 - i));
                }
                if b.get(j + 1) == Some(&q) && b.get(j + 2) == Some(&q) {
                    return Some(Ok(j + 3 - i));
                }
                j += 1;
            }
            _ => j += 1,
        }
    }
    Some(Err(b.len() - i))
}

/// The length of an escape after its backslash, if CEL.g4's `ESC_SEQ` accepts it.
fn escape_len(b: &[u8]) -> Option<usize> {
    let hex = |n: usize| b.len() > n && b[1..=n].iter().all(u8::is_ascii_hexdigit);
    match b.first()? {
        b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'"' | b'\'' | b'\\' | b'?' | b'`' => {
            Some(1)
        }
        b'x' | b'X' if hex(2) => Some(3),
        b'u' if hex(4) => Some(5),
        b'U' if hex(8) => Some(9),
        b'0'..=b'3'
            if b.len() > 2 && (b'0'..=b'7').contains(&b[1]) && (b'0'..=b'7').contains(&b[2]) =>
        {
            Some(3)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_split_as_cel_lexes_them() {
        let text = "a.b == 1.5e3 && 'x\\'' in [0x1Fu, 2u, .5] # r'\\d' b\"z\" |- c";
        let starts = token_starts(text).unwrap();
        let words: Vec<&str> = starts
            .iter()
            .zip(starts.iter().skip(1).chain([&text.len()]))
            .map(|(&s, &e)| text[s..e].trim_end())
            .collect();
        assert_eq!(
            words,
            [
                "a",
                ".",
                "b",
                "==",
                "1.5e3",
                "&&",
                "'x\\''",
                "in",
                "[",
                "0x1Fu",
                ",",
                "2u",
                ",",
                ".5",
                "] #",
                "r'\\d'",
                "b\"z\" |-",
                "c"
            ]
        );
    }

    #[test]
    fn failed_characters_are_skipped_as_antlr_reports_them() {
        // `'b` up to and including the line break is skipped; then `c`, and `'` up to the end.
        assert_eq!(token_starts("a 'b\nc'"), Some(vec![0, 5]));
        // `|-` is one error; `=` at the end another.
        assert_eq!(token_starts("a |- b ="), Some(vec![0, 5]));
        assert_eq!(token_starts("`a b` `ind: x"), Some(vec![0, 12]));
        assert_eq!(token_starts("'\\d'"), None);
        assert_eq!(token_starts("'\\x41\\u00e9\\101'"), Some(vec![0]));
    }

    #[test]
    fn only_a_recovery_past_256_tokens_is_cut() {
        let tail = |n: usize| "x ".repeat(n);
        let text = format!("a b {}", tail(255));
        let errors = [(2, "Syntax error: mismatched input 'b' expecting <EOF>")];
        // 'b' and 255 more tokens: the recovery consumes all 256.
        assert_eq!(lookahead_cut(&text, &errors), None);
        let text = format!("a b {}", tail(256));
        // 'b' and 256 more: the last one is fetched but cannot be consumed.
        assert_eq!(lookahead_cut(&text, &errors), Some(text.len() - 2));
        let listed = [(
            2,
            "Syntax error: mismatched input 'b' expecting {<EOF>, '=='}",
        )];
        assert_eq!(lookahead_cut(&text, &listed), Some(text.len() - 2));
        let other = [(2, "Syntax error: mismatched input 'b' expecting ')'")];
        assert_eq!(lookahead_cut(&text, &other), None);
    }
}
