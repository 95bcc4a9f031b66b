//! Errors of cel-go's tree visitor that it reports next to syntax errors and the
//! `cel` crate does not: `has()` macro arguments, reserved words in conditions.
//!
//! cel-go builds its tree even when the parser recovered from syntax errors, and
//! expands macros on it: `has(self.)` gives "invalid argument to has() macro" (its
//! argument is `self` with a dangling `.`) before the syntax error. The `cel` crate
//! keeps no tree after a syntax error, so this module finds the common shapes from
//! the tokens: a `has(` whose argument is an identifier (or `.identifier`) that is
//! not followed by a field, where the argument ends at `)`, at the end, at a
//! dangling `.`, or at a token the parser refused. Other shapes are left alone.

use super::fastparse::{Tok, Token, lex};
use super::parse_expecting::{Repair, without_dropped};

/// Offsets of the arguments of `has()` calls cel-go refuses, given the syntax
/// errors' repairs and offsets.
pub(super) fn invalid_has_arguments(
    text: &str,
    repairs: &[Repair],
    errors_at: &[usize],
) -> Vec<usize> {
    let Some(tokens) = lex(&without_dropped(text, repairs)) else {
        return Vec::new();
    };
    let kind = |i: usize| tokens.get(i).map_or(Tok::Eof, |t| t.kind);
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let is_has = kind(i) == Tok::Ident
            && &text[tokens[i].start..tokens[i].end] == "has"
            && kind(i + 1) == Tok::LParen
            && (i == 0 || kind(i - 1) != Tok::Dot);
        if !is_has {
            continue;
        }
        // The argument: `name`, `.name` (located at the name) or a literal, then fields.
        let mut j = i + 2;
        let leading_dot = kind(j) == Tok::Dot;
        if leading_dot {
            j += 1;
        }
        let literal = matches!(
            kind(j),
            Tok::Int
                | Tok::Uint
                | Tok::Float
                | Tok::Str
                | Tok::Bytes
                | Tok::True
                | Tok::False
                | Tok::Null
        );
        if kind(j) != Tok::Ident && (leading_dot || !literal) {
            continue;
        }
        let start = tokens[j].start;
        j += 1;
        let mut selects = false;
        let mut dangling = false;
        let mut at = start;
        loop {
            match (kind(j), kind(j + 1), kind(j + 2)) {
                // `.?` without a field name: the optional select is the argument,
                // located at its `.`.
                (Tok::Dot, Tok::Question, next) if next != Tok::Ident => {
                    at = tokens[j].start;
                    dangling = true;
                    break;
                }
                // Calls, optional fields and indexes: followed only to see whether a
                // `?` comes after them (the argument is then a conditional).
                (Tok::Dot, Tok::Ident, Tok::LParen) => {
                    selects = true;
                    match closing(&tokens, j + 2) {
                        Some(close) => j = close + 1,
                        None => break,
                    }
                }
                (Tok::Dot, Tok::Question, Tok::Ident) => {
                    selects = true;
                    j += 3;
                }
                (Tok::Dot, Tok::Question, _) => {
                    selects = true;
                    break;
                }
                (Tok::LBracket | Tok::LParen, ..) => {
                    selects = true;
                    match closing(&tokens, j) {
                        Some(close) => j = close + 1,
                        None => break,
                    }
                }
                (Tok::Dot, Tok::Ident, _) => {
                    selects = true;
                    j += 2;
                }
                (Tok::Dot, ..) => {
                    dangling = true;
                    break;
                }
                _ => break,
            }
        }
        // `has(a ? …`: a conditional is the argument, located at its `?` (the parser
        // recovers one without its branches).
        if !dangling && kind(j) == Tok::Question {
            found.push(tokens[j].start);
            continue;
        }
        if selects {
            continue;
        }
        let next = tokens.get(j).map_or(text.len(), |t| t.start);
        let ends =
            dangling || matches!(kind(j), Tok::RParen | Tok::Eof) || errors_at.contains(&next);
        if ends {
            found.push(at);
        }
    }
    found
}

/// The index of the token that closes the `(` or `[` at `open`, if the text has it.
fn closing(tokens: &[Token], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.kind {
            Tok::LParen | Tok::LBracket | Tok::LBrace => depth += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Offsets and words of reserved identifiers that end the condition of a conditional
/// (`[let ?]`). cel-go visits a conditional's condition before its missing branches
/// and refuses the word there ("reserved identifier: let"); the crate gives up on the
/// half-built conditional without visiting it. A word after `.` or `.?` is a field
/// name, which is another error.
pub(super) fn reserved_conditions(text: &str, repairs: &[Repair]) -> Vec<(usize, String)> {
    let Some(tokens) = lex(&without_dropped(text, repairs)) else {
        return Vec::new();
    };
    let kind = |i: usize| tokens.get(i).map_or(Tok::Eof, |t| t.kind);
    let mut found = Vec::new();
    for i in 0..tokens.len() {
        let word = &text[tokens[i].start..tokens[i].end];
        let after_select = i > 0 && matches!(kind(i - 1), Tok::Dot | Tok::Question);
        if kind(i) == Tok::Ident
            && kind(i + 1) == Tok::Question
            && !after_select
            && super::fastparse::is_reserved(word)
        {
            found.push((tokens[i].start, word.to_string()));
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::{invalid_has_arguments, reserved_conditions};
    use crate::cel::parse_expecting::Repair;

    #[test]
    fn finds_identifier_arguments() {
        assert_eq!(invalid_has_arguments("has(self.)", &[], &[9]), vec![4]);
        assert_eq!(invalid_has_arguments("has(self..s)", &[], &[9]), vec![4]);
        assert_eq!(invalid_has_arguments("+has(selfby)", &[], &[0]), vec![5]);
        assert_eq!(
            invalid_has_arguments("has(a.b) && has(x", &[], &[17]),
            vec![16]
        );
        assert_eq!(invalid_has_arguments("has(self!ls)", &[], &[8]), vec![4]);
        // `#` dropped by the lexer: the argument is `.li`.
        let dropped = [Repair::Dropped(4, 1)];
        assert_eq!(invalid_has_arguments("has(#.li)", &dropped, &[4]), vec![6]);
        // Literals: `1e+` lexes as `1` and `e`, which the parser refuses.
        assert_eq!(invalid_has_arguments("has(1e+.rs)", &[], &[5]), vec![4]);
        assert_eq!(invalid_has_arguments("has('a'", &[], &[7]), vec![4]);
        // A conditional (without its `:` branch), at its `?`.
        assert_eq!(invalid_has_arguments("has(self?lset)", &[], &[13]), vec![8]);
        assert_eq!(invalid_has_arguments("has(self.b?)", &[], &[11]), vec![10]);
        assert_eq!(
            invalid_has_arguments("has(self.l[0] ?)", &[], &[15]),
            vec![14]
        );
        assert_eq!(
            invalid_has_arguments("has(a.f(x).g ?)", &[], &[14]),
            vec![13]
        );
    }

    #[test]
    fn finds_reserved_words_ending_conditions() {
        let dropped = [Repair::Dropped(4, 1)];
        assert_eq!(
            reserved_conditions("[let@?]", &dropped),
            vec![(1, "let".to_string())]
        );
        assert_eq!(
            reserved_conditions("self.s == while?", &[]),
            vec![(10, "while".to_string())]
        );
        assert!(reserved_conditions("self.let ?", &[]).is_empty());
        assert!(reserved_conditions("letx ?", &[]).is_empty());
        assert!(reserved_conditions("let + ?", &[]).is_empty());
    }

    #[test]
    fn leaves_fields_and_other_shapes() {
        assert!(invalid_has_arguments("has(self.s.)", &[], &[11]).is_empty());
        assert!(invalid_has_arguments("has(self.s", &[], &[10]).is_empty());
        assert!(invalid_has_arguments("has(self + 1) +", &[], &[15]).is_empty());
        assert!(invalid_has_arguments("has(x, 1) +", &[], &[11]).is_empty());
        assert!(invalid_has_arguments("has(f(x)) +", &[], &[11]).is_empty());
        assert!(invalid_has_arguments("a.has(x) +", &[], &[10]).is_empty());
        assert_eq!(invalid_has_arguments("!has(.s.?", &[], &[9]), vec![7]);
        assert!(invalid_has_arguments("has(.a.?b", &[], &[9]).is_empty());
    }
}
