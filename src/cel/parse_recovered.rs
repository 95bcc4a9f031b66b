//! The text of the tree cel-go's parser recovers around syntax errors, for the errors
//! its visitor reports beside them ("argument must be a simple name", "invalid argument
//! to has() macro").
//!
//! ANTLR recovers from each syntax error and cel-go expands the macros of the tree it
//! is left with; the `cel` crate keeps no tree after an error. The recovered tree is
//! rebuilt here as text from what each error's recovery did to the tokens: an
//! extraneous token deleted, a missing one conjured, bytes the lexer dropped, the
//! tokens a "no viable alternative" skipped (ANTLR consumes until a token that can
//! follow an expression). A "mismatched input" ends the construct it is in, and what
//! follows is not modelled: the text is cut there and its open constructs closed. The
//! rebuilt text is meant to parse without errors; the caller drops it when it does not.

use super::fastparse::{Tok, Token, lex};
use super::parse_expecting::{Repair, ends_operand, without_dropped};

/// The recovered text and how to map its offsets back.
pub(super) struct Recovered {
    pub(super) text: String,
    /// Offsets (in the original text) before which a conjured character was inserted,
    /// in order.
    inserted: Vec<usize>,
    /// Original offset from which nothing is known (a cut), or the text's length.
    pub(super) known_before: usize,
}

impl Recovered {
    /// The original offset of an offset in the recovered text (`None` for a conjured
    /// character).
    pub(super) fn original(&self, at: usize) -> Option<usize> {
        let mut shift = 0;
        for &i in &self.inserted {
            if i + shift < at {
                shift += 1;
            } else if i + shift == at {
                return None;
            } else {
                break;
            }
        }
        Some(at - shift)
    }
}

/// Tokens ANTLR's recovery from a "no viable alternative" stops at: the ones that can
/// follow an expression inside some construct (its recovery set is the union of what
/// may follow each rule being parsed; an over-approximation here).
fn ends_recovery(t: Tok) -> bool {
    matches!(
        t,
        Tok::Comma
            | Tok::RParen
            | Tok::RBracket
            | Tok::RBrace
            | Tok::Colon
            | Tok::Question
            | Tok::Or
            | Tok::And
            | Tok::Eq
            | Tok::Ne
            | Tok::Lt
            | Tok::Le
            | Tok::Gt
            | Tok::Ge
            | Tok::In
            | Tok::Plus
            | Tok::Minus
            | Tok::Star
            | Tok::Slash
            | Tok::Percent
            | Tok::Eof
    )
}

/// The text of the tree cel-go recovers from `text` given its syntax errors (offset
/// and message, as reported), or `None` when an error's recovery is not modelled.
pub(super) fn recovered_text(text: &str, errors: &[(usize, &str)]) -> Option<Recovered> {
    let mut errors: Vec<(usize, &str)> = errors.to_vec();
    errors.sort_by_key(|(at, _)| *at);
    let repairs: Vec<Repair> = errors
        .iter()
        .filter_map(|&(at, msg)| Repair::from_message(msg, at))
        .collect();
    let blanked = without_dropped(text, &repairs);
    let tokens = lex(&blanked)?;
    let token_at = |at: usize| tokens.iter().position(|t| t.start == at);
    let mut blank: Vec<(usize, usize)> = Vec::new();
    let mut inserted: Vec<(usize, char)> = Vec::new();
    let mut cut = None;
    for &(at, msg) in &errors {
        let Some(rest) = msg.strip_prefix("Syntax error: ") else {
            continue;
        };
        if rest.starts_with("token recognition error at: ") {
            continue;
        } else if rest.starts_with("extraneous input ") {
            let t = &tokens[token_at(at)?];
            blank.push((t.start, t.end));
        } else if let Some(missing) = rest.strip_prefix("missing '") {
            let mut chars = missing.chars();
            match (chars.next(), chars.next()) {
                (Some(c), Some('\'')) if "()[]{}:,".contains(c) => inserted.push((at, c)),
                _ => return None,
            }
        } else if let Some(input) = rest
            .strip_prefix("no viable alternative at input '")
            .and_then(|i| i.strip_suffix('\''))
        {
            let last = tokens.len().checked_sub(1)?;
            let offending = token_at(at).or_else(|| (at >= text.len()).then_some(last))?;
            let spanned = lex(input)?.len().checked_sub(1)?;
            let first = offending.checked_sub(spanned.saturating_sub(1))?;
            let skipped = skip_until_recovery(&tokens[first..])?;
            blank.push(skipped);
        } else if rest.starts_with("mismatched input ") {
            cut = Some(at);
            break;
        } else {
            return None;
        }
    }
    let known_before = cut.unwrap_or(text.len());
    let mut bytes: Vec<u8> = blanked.as_bytes().get(..known_before)?.to_vec();
    for (start, end) in blank {
        for b in bytes.iter_mut().take(end.min(known_before)).skip(start) {
            *b = b' ';
        }
    }
    let mut out = String::from_utf8(bytes).ok()?;
    inserted.retain(|(at, _)| *at <= known_before);
    for (shift, (at, c)) in inserted.iter().enumerate() {
        if !out.is_char_boundary(at + shift) {
            return None;
        }
        out.insert(at + shift, *c);
    }
    if cut.is_some() {
        out.push_str(&closers(&out)?);
    }
    Some(Recovered {
        text: out,
        inserted: inserted.into_iter().map(|(at, _)| at).collect(),
        known_before,
    })
}

/// The byte range of the tokens ANTLR's recovery consumes from `tokens[0]`: up to the
/// first that can follow an expression.
fn skip_until_recovery(tokens: &[Token]) -> Option<(usize, usize)> {
    let start = tokens.first()?.start;
    // (The token list ends with `Eof`, which ends every recovery.)
    let stop = tokens.iter().find(|t| ends_recovery(t.kind))?;
    Some((start, stop.start))
}

/// The tokens that close the constructs open at the end of `text`, innermost first;
/// `None` when it does not lex.
fn closers(text: &str) -> Option<String> {
    let mut open: Vec<Tok> = Vec::new();
    let mut previous = None;
    for t in lex(text)? {
        match t.kind {
            Tok::LParen | Tok::LBracket | Tok::LBrace => open.push(t.kind),
            // After an operand `?` is the conditional; elsewhere it marks an optional.
            Tok::Question if previous.is_some_and(ends_operand) => open.push(t.kind),
            Tok::Colon if open.last() == Some(&Tok::Question) => {
                open.pop();
            }
            Tok::RParen | Tok::RBracket | Tok::RBrace => {
                open.pop();
            }
            _ => {}
        }
        previous = Some(t.kind);
    }
    // A map is closed as it stands (a key without its value then fails to parse and
    // the text is dropped); a conditional gets an `else` that holds no macro.
    Some(
        open.iter()
            .rev()
            .map(|o| match o {
                Tok::LParen => ")",
                Tok::LBracket => "]",
                Tok::LBrace => "}",
                _ => " : null",
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::recovered_text;

    const EXTRANEOUS: &str = "Syntax error: extraneous input ')' expecting <EOF>";

    #[test]
    fn deletes_extraneous_tokens() {
        let text = "f(x, a in 'a', 'b'])";
        let errors = [(18, "Syntax error: extraneous input ']' expecting ')'")];
        let r = recovered_text(text, &errors).expect("recovered");
        assert_eq!(r.text, "f(x, a in 'a', 'b' )");
        assert_eq!(r.known_before, text.len());
    }

    #[test]
    fn skips_what_a_no_viable_alternative_consumed() {
        // From `.` to the `,` that can follow an expression.
        let text = "f(x, a.(y, x == y))";
        let errors = [
            (7, "Syntax error: no viable alternative at input '.('"),
            (18, EXTRANEOUS),
        ];
        let r = recovered_text(text, &errors).expect("recovered");
        assert_eq!(r.text, "f(x, a   , x == y) ");
    }

    #[test]
    fn inserts_conjured_tokens_and_cuts_at_a_mismatch() {
        let text = "f(x, a  ['a', 'b']  ? 1 : 2)";
        let errors = [
            (12, "Syntax error: missing ']' at ','"),
            (17, "Syntax error: mismatched input ']' expecting ')'"),
        ];
        let r = recovered_text(text, &errors).expect("recovered");
        assert_eq!(r.text, "f(x, a  ['a'], 'b')");
        assert_eq!(r.known_before, 17);
        // Offsets after the conjured `]` map back one byte; the `]` itself has none.
        assert_eq!(r.original(9), Some(9));
        assert_eq!(r.original(12), None);
        assert_eq!(r.original(15), Some(14));
    }

    #[test]
    fn closes_maps_and_conditionals_at_a_cut() {
        let mismatch = "Syntax error: mismatched input 'y' expecting ')'";
        let r = recovered_text("a ? {1: f(x y", &[(12, mismatch)]).expect("recovered");
        assert_eq!(r.text, "a ? {1: f(x )} : null");
    }

    #[test]
    fn gives_up_where_the_recovery_is_not_modelled() {
        // A syntax error of another kind.
        let other = "Syntax error: unexpected thing";
        assert!(recovered_text("f(x y", &[(4, other)]).is_none());
    }
}
