//! Errors of cel-go's tree visitor that it reports next to syntax errors and the
//! `cel` crate does not: `has()` macro arguments, reserved words in conditions.
//!
//! cel-go builds its tree even when the parser recovered from syntax errors, and
//! expands macros on it: `has(self.)` gives "invalid argument to has() macro" (its
//! argument is `self` with a dangling `.`) before the syntax error. The `cel` crate
//! keeps no tree after a syntax error, so this module reads the tokens: a `has(`
//! argument with no error inside it is read as the expression it is (with CEL's
//! precedence, located as cel-go locates its root); otherwise the shapes recovery
//! leaves are recognised: an identifier (or `.identifier`) or literal not followed by
//! a field, ending at `)`, at the end, at a dangling `.` or at a token the parser
//! refused, or followed by a conditional's `?`. Other shapes are left alone.

use super::fastparse::{Tok, Token, lex};
use super::parse_expecting::{Repair, ends_operand, without_dropped};

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
        // An argument the parser read without an error inside it is the expression
        // its tokens say (`has(self.a && self.b` with the `)` missing at the end).
        let open = i + 1;
        let close = closing(&tokens, open);
        let end = close.map_or(text.len(), |c| tokens[c].start);
        let clean = !errors_at
            .iter()
            .any(|&at| at > tokens[open].start && at < end);
        if clean {
            let last = close.unwrap_or_else(|| {
                tokens
                    .iter()
                    .position(|t| t.kind == Tok::Eof)
                    .unwrap_or(tokens.len())
            });
            match argument(&tokens, open + 1, last, 0) {
                Argument::Select => continue,
                Argument::Invalid(at) => {
                    found.push(at);
                    continue;
                }
                Argument::Unknown => {}
            }
        }
        // Otherwise the shapes recovery leaves: `name`, `.name` (located at the name)
        // or a literal, then fields.
        let mut j = i + 2;
        let leading_dot = kind(j) == Tok::Dot;
        if leading_dot {
            j += 1;
        }
        if kind(j) != Tok::Ident && (leading_dot || !is_literal(kind(j))) {
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

/// What the expression of a `has()` argument is, for the macro.
#[derive(Debug, PartialEq)]
enum Argument {
    /// A field selection: a valid argument.
    Select,
    /// Anything else, located where cel-go locates the expression's root.
    Invalid(usize),
    /// A shape this module does not follow.
    Unknown,
}

/// The expression of `tokens[lo..hi]`, read with CEL's precedence: a conditional is
/// located at its `?`; a chain of `||` or `&&` at the operator cel-go's balancer
/// makes the root (the middle one); relations, sums and products at their last
/// operator; an odd run of `!` or `-` at the first; a call at its `(`, an index at
/// its `[`, an optional field at its `.`, a list or map at its bracket, an
/// identifier or literal at its token. `!!x` and `(x)` are `x`.
fn argument(tokens: &[Token], lo: usize, hi: usize, depth: usize) -> Argument {
    if lo >= hi || depth > 64 {
        return Argument::Unknown;
    }
    let kind = |i: usize| tokens[i].kind;
    let (mut question, mut or, mut and, mut relation, mut sum, mut product) =
        (None, Vec::new(), Vec::new(), None, None, None);
    let mut nesting = 0usize;
    for i in lo..hi {
        match kind(i) {
            Tok::LParen | Tok::LBracket | Tok::LBrace => nesting += 1,
            Tok::RParen | Tok::RBracket | Tok::RBrace => match nesting.checked_sub(1) {
                Some(n) => nesting = n,
                None => return Argument::Unknown,
            },
            _ if nesting > 0 => {}
            Tok::Comma => return Argument::Unknown,
            Tok::Question if i > lo && kind(i - 1) != Tok::Dot => {
                question.get_or_insert(i);
            }
            Tok::Or => or.push(i),
            Tok::And => and.push(i),
            Tok::Eq | Tok::Ne | Tok::Lt | Tok::Le | Tok::Ge | Tok::Gt | Tok::In => {
                relation = Some(i)
            }
            Tok::Plus => sum = Some(i),
            Tok::Minus if i > lo && ends_operand(kind(i - 1)) => sum = Some(i),
            Tok::Star | Tok::Slash | Tok::Percent => product = Some(i),
            _ => {}
        }
    }
    if nesting != 0 {
        return Argument::Unknown;
    }
    let root = question
        .or_else(|| or.get(or.len() / 2).copied())
        .or_else(|| and.get(and.len() / 2).copied())
        .or(relation)
        .or(sum)
        .or(product);
    if let Some(op) = root {
        return Argument::Invalid(tokens[op].start);
    }
    // Unary operators: `!`s or `-`s before a member expression.
    for op in [Tok::Excl, Tok::Minus] {
        let run = (lo..hi).take_while(|&i| kind(i) == op).count();
        if run > 0 {
            return if run % 2 == 1 {
                Argument::Invalid(tokens[lo].start)
            } else if op == Tok::Excl {
                argument(tokens, lo + run, hi, depth + 1)
            } else {
                Argument::Unknown
            };
        }
    }
    member(tokens, lo, hi, depth)
}

/// A primary expression (identifier, literal, call, parenthesised expression, list or
/// map) followed by fields, calls and indexes.
fn member(tokens: &[Token], lo: usize, hi: usize, depth: usize) -> Argument {
    let kind = |i: usize| if i < hi { tokens[i].kind } else { Tok::Eof };
    let (mut last, mut j) = match kind(lo) {
        Tok::Dot if kind(lo + 1) == Tok::Ident => (Argument::Invalid(tokens[lo + 1].start), lo + 2),
        Tok::Ident if kind(lo + 1) == Tok::LParen => match closing(tokens, lo + 1) {
            Some(close) if close < hi => (Argument::Invalid(tokens[lo + 1].start), close + 1),
            _ => return Argument::Unknown,
        },
        k if k == Tok::Ident || is_literal(k) => (Argument::Invalid(tokens[lo].start), lo + 1),
        Tok::LParen => match closing(tokens, lo) {
            Some(close) if close < hi => (argument(tokens, lo + 1, close, depth + 1), close + 1),
            _ => return Argument::Unknown,
        },
        Tok::LBracket | Tok::LBrace => match closing(tokens, lo) {
            Some(close) if close < hi => (Argument::Invalid(tokens[lo].start), close + 1),
            _ => return Argument::Unknown,
        },
        _ => return Argument::Unknown,
    };
    while j < hi {
        match (kind(j), kind(j + 1), kind(j + 2)) {
            (Tok::Dot, Tok::Ident, Tok::LParen) => match closing(tokens, j + 2) {
                Some(close) if close < hi => {
                    last = Argument::Invalid(tokens[j + 2].start);
                    j = close + 1;
                }
                _ => return Argument::Unknown,
            },
            (Tok::Dot, Tok::Ident, _) => {
                last = Argument::Select;
                j += 2;
            }
            (Tok::Dot, Tok::Question, Tok::Ident) => {
                last = Argument::Invalid(tokens[j].start);
                j += 3;
            }
            (Tok::LBracket, ..) => match closing(tokens, j) {
                Some(close) if close < hi => {
                    last = Argument::Invalid(tokens[j].start);
                    j = close + 1;
                }
                _ => return Argument::Unknown,
            },
            _ => return Argument::Unknown,
        }
    }
    last
}

/// A literal's token.
pub(super) fn is_literal(kind: Tok) -> bool {
    matches!(
        kind,
        Tok::Int
            | Tok::Uint
            | Tok::Float
            | Tok::Str
            | Tok::Bytes
            | Tok::True
            | Tok::False
            | Tok::Null
    )
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
    fn locates_expression_arguments_as_cel_go() {
        // (Server facts: `testdata/cel/syntax_errors.txt`.)
        let at = |text: &str| invalid_has_arguments(text, &[], &[text.len()]);
        assert_eq!(at("(has(self.a && self.b)"), vec![12]);
        assert_eq!(at("(has(a || b || c || d)"), vec![12]);
        assert_eq!(at("(has(a && b && c)"), vec![12]);
        assert_eq!(at("(has(a < 1 == true)"), vec![11]);
        assert_eq!(at("(has(a.i * 2 + 1)"), vec![13]);
        assert_eq!(at("(has(self.s.size())"), vec![16]);
        assert_eq!(at("(has(size(a))"), vec![9]);
        assert_eq!(at("(has(a.l[0])"), vec![8]);
        assert_eq!(at("(has(a.l.?x)"), vec![8]);
        assert_eq!(at("(has(!a.b)"), vec![5]);
        assert!(at("(has(!!a.b)").is_empty());
        assert!(at("(has((a.b))").is_empty());
        assert_eq!(at("(has(-a)"), vec![5]);
        assert_eq!(at("(has([1])"), vec![5]);
        // Unclosed: the argument runs to the end.
        assert_eq!(at("has(self.s.size()"), vec![15]);
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
        // (Parsed without an error inside: the operator or call is the argument.)
        assert_eq!(
            invalid_has_arguments("has(self + 1) +", &[], &[15]),
            vec![9]
        );
        assert!(invalid_has_arguments("has(x, 1) +", &[], &[11]).is_empty());
        assert_eq!(invalid_has_arguments("has(f(x)) +", &[], &[11]), vec![5]);
        assert!(invalid_has_arguments("a.has(x) +", &[], &[10]).is_empty());
        assert_eq!(invalid_has_arguments("!has(.s.?", &[], &[9]), vec![7]);
        // (An optional field, read to the end: located at its `.`.)
        assert_eq!(invalid_has_arguments("has(.a.?b", &[], &[9]), vec![6]);
    }
}
