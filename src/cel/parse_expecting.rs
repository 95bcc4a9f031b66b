//! The token cel-go's parser names when it cannot match the token after a complete
//! operand.
//!
//! ANTLR's Go runtime reports such a failure of `match(T)` as "mismatched input X
//! expecting T": `T` is what the innermost open construct needs next (`)` of a call
//! or parentheses, `]` of an index, `:` of a conditional or a map key, `<EOF>` at the
//! top). The Rust runtime the `cel` crate uses follows ANTLR's Java runtime instead and
//! names the tokens that could have followed the last place a rule could end (which
//! may lie inside a construct closed since: `f(a)b()` gives `')'` where cel-go gives
//! `<EOF>`). This module recovers `T` from the tokens before the offending one.

use super::fastparse::{Tok, lex};

/// An open construct and the token it needs after a complete operand.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Open {
    Paren,
    Bracket,
    MapKey,
    MapValue,
    Conditional,
}

/// What the parser's recovery from an earlier error did to the token stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Repair {
    /// "extraneous input": the token at this offset was deleted.
    Deleted(usize),
    /// "missing X at": `X` was conjured before the token at this offset.
    Conjured(usize, char),
    /// "token recognition error at: 'T'": the lexer dropped these bytes.
    Dropped(usize, usize),
    /// Any other syntax error: its recovery skipped tokens and left constructs in ways
    /// not followed here.
    Unfollowed(usize),
}

impl Repair {
    pub(super) fn offset(self) -> usize {
        match self {
            Repair::Deleted(at)
            | Repair::Conjured(at, _)
            | Repair::Dropped(at, _)
            | Repair::Unfollowed(at) => at,
        }
    }

    /// The repair an earlier syntax error's message reports at `offset`.
    pub(super) fn from_message(msg: &str, offset: usize) -> Option<Repair> {
        if msg.starts_with("Syntax error: extraneous input ") {
            return Some(Repair::Deleted(offset));
        }
        if let Some(dropped) = msg
            .strip_prefix("Syntax error: token recognition error at: '")
            .and_then(|t| t.strip_suffix('\''))
        {
            return Some(Repair::Dropped(offset, dropped.len()));
        }
        if let Some(token) = msg.strip_prefix("Syntax error: missing '") {
            let mut chars = token.chars();
            if let (Some(c), Some('\'')) = (chars.next(), chars.next()) {
                return Some(Repair::Conjured(offset, c));
            }
        }
        msg.starts_with("Syntax error: ")
            .then_some(Repair::Unfollowed(offset))
    }
}

/// The repair of "mismatched input '?' expecting ':'" at byte `at` of `text`: a
/// conditional nested in the `then` branch of another without parentheses
/// (`f(a ? b ? 1 : 2 : 3)`; the branch is a `conditionalOr`). The error's recovery
/// stops at once (`?` may follow any expression), and the constructs around the
/// conditional return while their own matches fail silently, until the innermost
/// bracket's closing token, which a `?` may follow, is conjured before the `?`: the
/// parse goes on as `f(a ? b) ? 1 : 2 : 3`. (Checked against the reference for calls,
/// macros, parentheses, lists, indexes and map keys and values.) `None` at the top
/// level, where no bracket is open, and after an error whose recovery is not followed.
pub(super) fn nested_conditional(text: &str, at: usize, earlier: &[Repair]) -> Option<Repair> {
    if earlier.iter().any(|r| matches!(r, Repair::Unfollowed(_))) {
        return None;
    }
    if !text.get(at..)?.starts_with('?') {
        return None;
    }
    let open = open_constructs(text, at, earlier)?;
    let closer = match open.as_slice() {
        [.., Open::Paren, Open::Conditional] => ')',
        [.., Open::Bracket, Open::Conditional] => ']',
        [.., Open::MapKey | Open::MapValue, Open::Conditional] => '}',
        _ => return None,
    };
    Some(Repair::Conjured(at, closer))
}

/// `text` with the bytes the lexer dropped blanked out (offsets unchanged), so that it
/// lexes into the tokens the parser saw.
pub(super) fn without_dropped(text: &str, repairs: &[Repair]) -> String {
    let mut blanked = text.to_string();
    for r in repairs {
        if let Repair::Dropped(at, len) = *r
            && blanked.get(at..at + len).is_some()
        {
            blanked.replace_range(at..at + len, &" ".repeat(len));
        }
    }
    blanked
}

/// cel-go's expected token (as its messages print it) for a `match` that fails at
/// byte `offset` of `text`, after a complete operand, given the earlier errors'
/// repairs; `None` when the text before it does not lex (the caller keeps the
/// runtime's answer).
pub(super) fn after_operand(text: &str, offset: usize, repairs: &[Repair]) -> Option<&'static str> {
    if repairs.iter().any(|r| matches!(r, Repair::Unfollowed(_))) {
        return None;
    }
    let open = open_constructs(text, offset, repairs)?;
    Some(match open.last() {
        None => "<EOF>",
        Some(Open::Paren) => "')'",
        Some(Open::Bracket) => "']'",
        Some(Open::MapKey | Open::Conditional) => "':'",
        Some(Open::MapValue) => "'}'",
    })
}

/// cel-go's expected token for a `match` that fails at byte `offset` with the very
/// token the runtime would name (the crate's answer "mismatched input ')' expecting
/// ')'" cannot be cel-go's, whose `match(T)` fails only on another token). It happens
/// after an error whose recovery is not followed here ("no viable alternative",
/// "mismatched input" inside a construct): ANTLR's recovery from it returned out of
/// every bracket open at the error, and the failing `match` is the outermost level's, a
/// conditional's `:` when one is open outside all brackets, else `<EOF>`. (Observed,
/// not derived: 32 of 32 such cases among realistic typos of the corpus's rules, and
/// the recorded cases of `testdata/cel/syntax_errors.txt`, agree with the reference.)
pub(super) fn after_recovery(text: &str, offset: usize, repairs: &[Repair]) -> &'static str {
    let followed: Vec<Repair> = repairs
        .iter()
        .copied()
        .filter(|r| !matches!(r, Repair::Unfollowed(_)))
        .collect();
    let open = open_constructs(text, offset, &followed).unwrap_or_default();
    let outermost = open
        .iter()
        .take_while(|o| matches!(o, Open::Conditional))
        .count();
    if outermost > 0 { "':'" } else { "<EOF>" }
}

/// The constructs open at byte `offset` of `text`, outermost first, given the earlier
/// errors' repairs; `None` when the text before it does not lex.
fn open_constructs(text: &str, offset: usize, repairs: &[Repair]) -> Option<Vec<Open>> {
    let lexed = lex(&without_dropped(text.get(..offset)?, repairs))?;
    let mut tokens: Vec<Tok> = Vec::with_capacity(lexed.len() + repairs.len());
    // Indices in `tokens` of `?` that are conditionals whatever precedes them.
    let mut conditional_at: Vec<usize> = Vec::new();
    for t in &lexed {
        for r in repairs {
            if let Repair::Conjured(at, c) = *r
                && at == t.start
                && let Some(kind) = punctuation(c)
            {
                tokens.push(kind);
            }
        }
        if t.kind == Tok::Eof {
            continue;
        }
        if !repairs.contains(&Repair::Deleted(t.start)) {
            tokens.push(t.kind);
        } else if t.kind == Tok::Question && tokens.last() == Some(&Tok::Excl) {
            // Observed, not derived: a `?` reported extraneous after `!` still leaves
            // the parser in a conditional (`!?b` → "mismatched input '<EOF>' expecting
            // ':'"), in cel-go as in the crate.
            conditional_at.push(tokens.len());
            tokens.push(Tok::Question);
        }
    }
    let mut open: Vec<Open> = Vec::new();
    let mut previous: Option<Tok> = None;
    for (i, &kind) in tokens.iter().enumerate() {
        match kind {
            Tok::LParen => open.push(Open::Paren),
            Tok::LBracket => open.push(Open::Bracket),
            Tok::LBrace => open.push(Open::MapKey),
            // After an operand `?` is the conditional; elsewhere (`.?f`, `[?0]`,
            // `{?k: v}`, `[?e]`) it marks an optional.
            Tok::Question if previous.is_some_and(ends_operand) || conditional_at.contains(&i) => {
                open.push(Open::Conditional)
            }
            Tok::Colon => match open.last() {
                Some(Open::Conditional) => {
                    open.pop();
                }
                Some(Open::MapKey) => *open.last_mut()? = Open::MapValue,
                _ => {}
            },
            Tok::Comma if open.last() == Some(&Open::MapValue) => {
                *open.last_mut()? = Open::MapKey;
            }
            Tok::RParen => close(&mut open, |o| o == Open::Paren),
            Tok::RBracket => close(&mut open, |o| o == Open::Bracket),
            Tok::RBrace => close(&mut open, |o| matches!(o, Open::MapKey | Open::MapValue)),
            _ => {}
        }
        previous = Some(kind);
    }
    Some(open)
}

/// Pops the constructs a closing token ends: the one it closes and any left open
/// inside it.
fn close(open: &mut Vec<Open>, closes: impl Fn(Open) -> bool) {
    while let Some(o) = open.pop() {
        if closes(o) {
            return;
        }
    }
}

/// The token a conjured punctuation character stands for.
fn punctuation(c: char) -> Option<Tok> {
    Some(match c {
        '(' => Tok::LParen,
        ')' => Tok::RParen,
        '[' => Tok::LBracket,
        ']' => Tok::RBracket,
        '{' => Tok::LBrace,
        '}' => Tok::RBrace,
        ':' => Tok::Colon,
        ',' => Tok::Comma,
        _ => return None,
    })
}

pub(super) fn ends_operand(t: Tok) -> bool {
    matches!(
        t,
        Tok::Ident
            | Tok::True
            | Tok::False
            | Tok::Null
            | Tok::Float
            | Tok::Int
            | Tok::Uint
            | Tok::Str
            | Tok::Bytes
            | Tok::RParen
            | Tok::RBracket
            | Tok::RBrace
    )
}

#[cfg(test)]
mod tests {
    use super::{Repair, after_operand, after_recovery, nested_conditional};

    fn at(text: &str, marker: &str) -> Option<&'static str> {
        after_operand(text, text.find(marker).expect("marker"), &[])
    }

    #[test]
    fn names_what_the_innermost_construct_needs() {
        assert_eq!(at("f(a)b()", "b"), Some("<EOF>"));
        assert_eq!(at("g(f(a)b())", "b"), Some("')'"));
        assert_eq!(at("a[f(1)b()]", "b"), Some("']'"));
        assert_eq!(at("x ? f(a) ? 1 : 2 : 3", "? 1"), Some("':'"));
        assert_eq!(at("x ? y : f(a) b", "b"), Some("<EOF>"));
        assert_eq!(at("{f(a) b: 1}", "b"), Some("':'"));
        assert_eq!(at("{1: f(a) b}", "b"), Some("'}'"));
        assert_eq!(at("{1: 2, f(a) b}", "b"), Some("':'"));
        assert_eq!(at("a.?b[?0] + [?c] ? d(e) f", "f"), Some("':'"));
        assert_eq!(at("'(' + f(a) b", "b"), Some("<EOF>"));
        assert_eq!(at("f(#a) b", "b"), None);
    }

    #[test]
    fn follows_the_earlier_repairs() {
        // `{: 1}`: the `:` was deleted, so `1` is a key.
        let deleted = Repair::from_message("Syntax error: extraneous input ':' expecting {", 1);
        assert_eq!(deleted, Some(Repair::Deleted(1)));
        assert_eq!(
            after_operand("{: 1}", 4, &[Repair::Deleted(1)]),
            Some("':'")
        );
        assert_eq!(
            after_operand("f(!?b)", 5, &[Repair::Deleted(3)]),
            Some("':'")
        );
        assert_eq!(
            after_operand("f(a + ?b)", 8, &[Repair::Deleted(6)]),
            Some("')'")
        );
        // `(a b c`: a `)` was conjured before `b`.
        let conjured = Repair::from_message("Syntax error: missing ')' at 'b'", 3);
        assert_eq!(conjured, Some(Repair::Conjured(3, ')')));
        assert_eq!(
            after_operand("(a b c", 5, &[Repair::Conjured(3, ')')]),
            Some("<EOF>")
        );
        // `f(a)=i b()`: the lexer dropped `=i`.
        let dropped = Repair::from_message("Syntax error: token recognition error at: '=i'", 4);
        assert_eq!(dropped, Some(Repair::Dropped(4, 2)));
        assert_eq!(
            after_operand("f(a)=i b()", 7, &[Repair::Dropped(4, 2)]),
            Some("<EOF>")
        );
        // After other errors the recovery is not followed.
        let other = Repair::from_message("Syntax error: mismatched input 'b' expecting ')'", 3);
        assert_eq!(other, Some(Repair::Unfollowed(3)));
        assert_eq!(after_operand("f(a b) c", 7, &[Repair::Unfollowed(3)]), None);
        assert_eq!(Repair::from_message("undeclared reference to 'x'", 3), None);
    }

    #[test]
    fn a_nested_conditional_closes_the_innermost_bracket() {
        let at = |text: &str| nested_conditional(text, text.rfind('?').unwrap(), &[]);
        assert_eq!(at("f(a ? b ?"), Some(Repair::Conjured(8, ')')));
        assert_eq!(at("x[a ? b ?"), Some(Repair::Conjured(8, ']')));
        assert_eq!(at("[1, a ? b ?"), Some(Repair::Conjured(10, ']')));
        assert_eq!(at("{k: a ? b ?"), Some(Repair::Conjured(10, '}')));
        assert_eq!(at("{a ? b ?"), Some(Repair::Conjured(7, '}')));
        assert_eq!(at("f([a ? b ?"), Some(Repair::Conjured(9, ']')));
        // At the top level nothing is conjured; nor after an unfollowed recovery.
        assert_eq!(at("a ? b ?"), None);
        assert_eq!(
            nested_conditional("f(a b ? c ?", 10, &[Repair::Unfollowed(4)]),
            None
        );
    }

    #[test]
    fn after_an_unfollowed_recovery_names_the_outermost_level() {
        let after = |text: &str, marker: &str| {
            let offset = text.rfind(marker).expect("marker");
            after_recovery(text, offset, &[Repair::Unfollowed(text.find('.').unwrap())])
        };
        assert_eq!(
            after("size(self.l.filter(x, x. == 'a')) == 0", ")) =="),
            "<EOF>"
        );
        assert_eq!(after("a ? ((has.(b) && c) ? d : e) : f", ") ?"), "':'");
        assert_eq!(after("a ? b : ((x. == 1) && y)", ") &&"), "<EOF>");
        assert_eq!(after("[(x. == 1) ? 1 : 2)]", ")]"), "<EOF>");
    }
}
