//! cel-go's two parser recursion limits (both 250), which the `cel` crate's parser
//! does not apply as cel-go does.
//!
//! - While ANTLR parses, a listener counts, for each grammar rule, how many
//!   invocations of that rule are open at once; one more than 250 aborts the parse:
//!   "expression recursion limit exceeded: 250". Parentheses, arguments, list and map
//!   elements and conditional branches each open an `expr`; the right operand of a
//!   relation opens a second `relation`, so `a == (b == (c == …))` reaches the limit at
//!   125 levels. Left-associative chains (`a == b == c`, `a.b.c`, `1 + 2 + 3`) keep
//!   their rule open once: ANTLR's left-recursion closes each link before the next.
//! - The tree visitor then counts nested relations, arithmetic operations, conditionals,
//!   field selections, method calls and indexes (not `&&`, `||`, `!`, unary `-`,
//!   parentheses, global calls or literals); more than 250 on one path aborts the
//!   build: "max recursion depth exceeded".
//!
//! Both errors have no location (`<input>:-1:0`). This module follows the grammar
//! (CEL.g4) over the tokens the fast path's lexer produces, for expressions it can
//! follow to the end, and answers which limit, if any, cel-go's parser hits.

use super::fastparse::{Tok, Token, lex};
use super::parse_has::is_literal;

/// cel-go's default `maxRecursionDepth`, used by both limits.
const LIMIT: u32 = 250;

/// The listener's error.
pub(super) const RULE_LIMIT_EXCEEDED: &str = "expression recursion limit exceeded: 250";
/// The visitor's error.
pub(super) const DEPTH_EXCEEDED: &str = "max recursion depth exceeded";

/// What cel-go's parser reports for the nesting of an expression.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum NestingError {
    /// The parse stops: this is the only error.
    Alone(&'static str),
    /// The visitor stops on the complete expression at the start of a text with more
    /// after it: this error comes besides the syntax error for the rest (ANTLR's
    /// recovery drops it and the visitor still walks the tree).
    WithSyntaxErrors(&'static str),
}

/// The error cel-go's parser reports for the nesting of `text`, if any. `None` also
/// when the expression is not one this module follows (a syntax error inside, a
/// backquoted field, anything the fast lexer does not take): the parser then answers.
pub(super) fn limit_exceeded(text: &str) -> Option<NestingError> {
    // Either limit needs more than 250 nested constructs, each at least one character.
    if text.len() <= LIMIT as usize {
        return None;
    }
    let tokens = lex(text)?;
    let mut meter = Meter {
        tokens: &tokens,
        pos: 0,
        open: [0; RULES],
    };
    match meter.expr() {
        Ok(height) if height > LIMIT && meter.peek() == Tok::Eof => {
            Some(NestingError::Alone(DEPTH_EXCEEDED))
        }
        Ok(height) if height > LIMIT => Some(NestingError::WithSyntaxErrors(DEPTH_EXCEEDED)),
        Ok(_) => None,
        Err(Stop::RuleLimit) => Some(NestingError::Alone(RULE_LIMIT_EXCEEDED)),
        Err(Stop::Unsure) => None,
    }
}

/// The grammar rules whose open invocations the listener counts (one counter each).
#[derive(Clone, Copy)]
enum Rule {
    Expr,
    ConditionalOr,
    ConditionalAnd,
    Relation,
    Calc,
    Unary,
    Member,
    Primary,
    ExprList,
    ListInit,
    FieldInitializerList,
    OptField,
    MapInitializerList,
    EscapeIdent,
    OptExpr,
    Literal,
}

const RULES: usize = Rule::Literal as usize + 1;

enum Stop {
    /// A rule was open more than [`LIMIT`] times: the listener's error.
    RuleLimit,
    /// Not an expression this module follows.
    Unsure,
}

/// What each rule returns: the visitor's depth for the subtree (nested counted
/// constructs on its deepest path).
type Height = Result<u32, Stop>;

struct Meter<'a> {
    tokens: &'a [Token],
    pos: usize,
    open: [u32; RULES],
}

impl Meter<'_> {
    fn peek(&self) -> Tok {
        self.peek_at(0)
    }

    fn peek_at(&self, ahead: usize) -> Tok {
        self.tokens
            .get(self.pos + ahead)
            .map_or(Tok::Eof, |t| t.kind)
    }

    fn bump(&mut self) {
        self.pos += 1;
    }

    fn expect(&mut self, kind: Tok) -> Result<(), Stop> {
        if self.peek() == kind {
            self.bump();
            Ok(())
        } else {
            Err(Stop::Unsure)
        }
    }

    fn skip(&mut self, kind: Tok) -> bool {
        let here = self.peek() == kind;
        if here {
            self.bump();
        }
        here
    }

    /// Runs `body` inside one more open invocation of `rule`.
    fn within(&mut self, rule: Rule, body: impl FnOnce(&mut Self) -> Height) -> Height {
        let open = &mut self.open[rule as usize];
        *open += 1;
        if *open > LIMIT {
            return Err(Stop::RuleLimit);
        }
        let height = body(self);
        self.open[rule as usize] -= 1;
        height
    }

    /// `expr : conditionalOr ('?' conditionalOr ':' expr)?` (the visitor counts only
    /// a conditional).
    fn expr(&mut self) -> Height {
        self.within(Rule::Expr, |m| {
            let condition = m.conditional_or()?;
            if !m.skip(Tok::Question) {
                return Ok(condition);
            }
            let then = m.conditional_or()?;
            m.expect(Tok::Colon)?;
            let otherwise = m.expr()?;
            Ok(1 + condition.max(then).max(otherwise))
        })
    }

    fn conditional_or(&mut self) -> Height {
        self.within(Rule::ConditionalOr, |m| {
            let mut height = m.conditional_and()?;
            while m.skip(Tok::Or) {
                height = height.max(m.conditional_and()?);
            }
            Ok(height)
        })
    }

    fn conditional_and(&mut self) -> Height {
        self.within(Rule::ConditionalAnd, |m| {
            let mut height = m.relation()?;
            while m.skip(Tok::And) {
                height = height.max(m.relation()?);
            }
            Ok(height)
        })
    }

    /// `relation : calc | relation op relation`: each right operand is a `relation`
    /// invocation of its own (holding one `calc`), inside the chain's.
    fn relation(&mut self) -> Height {
        self.within(Rule::Relation, |m| {
            let mut height = m.calc(0)?;
            while matches!(
                m.peek(),
                Tok::Lt | Tok::Le | Tok::Ge | Tok::Gt | Tok::Eq | Tok::Ne | Tok::In
            ) {
                m.bump();
                let right = m.within(Rule::Relation, |m| m.calc(0))?;
                height = 1 + height.max(right);
            }
            Ok(height)
        })
    }

    /// `calc` with ANTLR's precedence climbing: `*`, `/`, `%` bind at 2, `+`, `-` at
    /// 1; a right operand is a `calc` invocation at the next level.
    fn calc(&mut self, precedence: u8) -> Height {
        self.within(Rule::Calc, |m| {
            let mut height = m.unary()?;
            loop {
                let right = match m.peek() {
                    Tok::Star | Tok::Slash | Tok::Percent if precedence <= 2 => {
                        m.bump();
                        m.calc(3)?
                    }
                    Tok::Plus | Tok::Minus if precedence <= 1 => {
                        m.bump();
                        m.calc(2)?
                    }
                    _ => break,
                };
                height = 1 + height.max(right);
            }
            Ok(height)
        })
    }

    /// `unary : member | '!'+ member | '-'+ member` (neither counted by the visitor).
    fn unary(&mut self) -> Height {
        self.within(Rule::Unary, |m| {
            if m.skip(Tok::Excl) {
                while m.skip(Tok::Excl) {}
            } else if m.peek() == Tok::Minus && !matches!(m.peek_at(1), Tok::Int | Tok::Float) {
                // `-1` is a literal with its sign; `-x`, `--1` negate.
                while m.peek() == Tok::Minus && !matches!(m.peek_at(1), Tok::Int | Tok::Float) {
                    m.bump();
                }
            }
            m.member()
        })
    }

    /// `member : primary | member '.' '?'? IDENT | member '.' IDENT '(' exprList? ')'
    /// | member '[' '?'? expr ']'`: a left-recursive chain, one invocation.
    fn member(&mut self) -> Height {
        self.within(Rule::Member, |m| {
            let mut height = m.primary()?;
            loop {
                match m.peek() {
                    Tok::Dot => {
                        m.bump();
                        if m.peek() == Tok::Ident && m.peek_at(1) == Tok::LParen {
                            m.bump();
                            m.bump();
                            let args = m.arguments()?;
                            height = 1 + height.max(args);
                        } else {
                            m.skip(Tok::Question);
                            m.escape_ident()?;
                            height += 1;
                        }
                    }
                    Tok::LBracket => {
                        m.bump();
                        m.skip(Tok::Question);
                        let index = m.expr()?;
                        m.expect(Tok::RBracket)?;
                        height = 1 + height.max(index);
                    }
                    _ => return Ok(height),
                }
            }
        })
    }

    fn escape_ident(&mut self) -> Result<(), Stop> {
        self.within(Rule::EscapeIdent, |m| m.expect(Tok::Ident).map(|()| 0))
            .map(|_| ())
    }

    /// `exprList? ')'` after a call's `(`.
    fn arguments(&mut self) -> Height {
        if self.skip(Tok::RParen) {
            return Ok(0);
        }
        let height = self.within(Rule::ExprList, |m| {
            let mut height = m.expr()?;
            while m.skip(Tok::Comma) {
                height = height.max(m.expr()?);
            }
            Ok(height)
        })?;
        self.expect(Tok::RParen)?;
        Ok(height)
    }

    fn primary(&mut self) -> Height {
        self.within(Rule::Primary, |m| match m.peek() {
            Tok::Dot | Tok::Ident => m.name(),
            Tok::LParen => {
                m.bump();
                let inner = m.expr()?;
                m.expect(Tok::RParen)?;
                Ok(inner)
            }
            Tok::LBracket => {
                m.bump();
                m.list()
            }
            Tok::LBrace => {
                m.bump();
                m.map()
            }
            _ => m.literal(),
        })
    }

    /// An identifier, a global call, or a message (`a.b{f: 1}`), with an optional
    /// leading dot.
    fn name(&mut self) -> Height {
        self.skip(Tok::Dot);
        if self.peek() != Tok::Ident {
            return Err(Stop::Unsure);
        }
        if self.peek_at(1) == Tok::LParen {
            self.bump();
            self.bump();
            return self.arguments();
        }
        // A qualified name is a message type only when `{` follows it.
        let mut ahead = 1;
        while self.peek_at(ahead) == Tok::Dot && self.peek_at(ahead + 1) == Tok::Ident {
            ahead += 2;
        }
        if self.peek_at(ahead) != Tok::LBrace {
            self.bump();
            return Ok(0);
        }
        self.pos += ahead + 1;
        self.message_fields()
    }

    /// `fieldInitializerList? ','? '}'` after a message's `{`.
    fn message_fields(&mut self) -> Height {
        let field = |t: Tok| matches!(t, Tok::Question | Tok::Ident);
        self.initializers(Rule::FieldInitializerList, Tok::RBrace, field, |m| {
            m.within(Rule::OptField, |m| {
                m.skip(Tok::Question);
                m.escape_ident().map(|()| 0)
            })?;
            m.expect(Tok::Colon)?;
            m.expr()
        })
    }

    /// `listInit? ','? ']'` after `[`.
    fn list(&mut self) -> Height {
        let element = |t: Tok| !matches!(t, Tok::Comma | Tok::RBracket);
        self.initializers(Rule::ListInit, Tok::RBracket, element, Self::opt_expr)
    }

    /// `mapInitializerList? ','? '}'` after `{`.
    fn map(&mut self) -> Height {
        let entry = |t: Tok| !matches!(t, Tok::Comma | Tok::RBrace);
        self.initializers(Rule::MapInitializerList, Tok::RBrace, entry, |m| {
            let key = m.opt_expr()?;
            m.expect(Tok::Colon)?;
            Ok(key.max(m.expr()?))
        })
    }

    /// `rule? ','? close`: the elements of a list, map or message, separated by commas,
    /// with an optional trailing comma; `starts` says whether a token begins one.
    fn initializers(
        &mut self,
        rule: Rule,
        close: Tok,
        starts: impl Fn(Tok) -> bool,
        mut element: impl FnMut(&mut Self) -> Height,
    ) -> Height {
        let mut height = 0;
        if starts(self.peek()) {
            height = self.within(rule, |m| {
                let mut height = 0;
                loop {
                    height = height.max(element(m)?);
                    if !(m.peek() == Tok::Comma && starts(m.peek_at(1))) {
                        return Ok(height);
                    }
                    m.bump();
                }
            })?;
        }
        self.skip(Tok::Comma);
        self.expect(close)?;
        Ok(height)
    }

    /// `optExpr : '?'? expr`.
    fn opt_expr(&mut self) -> Height {
        self.within(Rule::OptExpr, |m| {
            m.skip(Tok::Question);
            m.expr()
        })
    }

    fn literal(&mut self) -> Height {
        self.within(Rule::Literal, |m| {
            if m.peek() == Tok::Minus {
                m.bump();
                if !matches!(m.peek(), Tok::Int | Tok::Float) {
                    return Err(Stop::Unsure);
                }
            }
            if !is_literal(m.peek()) {
                return Err(Stop::Unsure);
            }
            m.bump();
            Ok(0)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chain(n: usize, link: &str, last: &str) -> String {
        format!("{}{last}", link.repeat(n))
    }

    fn alone(message: &'static str) -> Option<NestingError> {
        Some(NestingError::Alone(message))
    }

    /// The thresholds a 1.35 server's cel-go (v0.26) answered, construct by construct.
    #[test]
    fn thresholds_match_cel_go() {
        let eq = |n: usize| format!("{}self.b", "self.b == ".repeat(n));
        assert_eq!(limit_exceeded(&eq(249)), None);
        assert_eq!(limit_exceeded(&eq(250)), alone(DEPTH_EXCEEDED));
        let plus = |n: usize| format!("{}1 > 0", "1 + ".repeat(n));
        assert_eq!(limit_exceeded(&plus(249)), None);
        assert_eq!(limit_exceeded(&plus(250)), alone(DEPTH_EXCEEDED));
        let call = |n: usize| format!("'a'{} == 'a'", ".lowerAscii()".repeat(n));
        assert_eq!(limit_exceeded(&call(249)), None);
        assert_eq!(limit_exceeded(&call(250)), alone(DEPTH_EXCEEDED));
        let index = |n: usize| format!("dyn(self){} == 1", "[0]".repeat(n));
        assert_eq!(limit_exceeded(&index(249)), None);
        assert_eq!(limit_exceeded(&index(250)), alone(DEPTH_EXCEEDED));
        let parens = |n: usize| format!("{}true{}", "(".repeat(n), ")".repeat(n));
        assert_eq!(limit_exceeded(&parens(249)), None);
        assert_eq!(limit_exceeded(&parens(250)), alone(RULE_LIMIT_EXCEEDED));
        let lists = |n: usize| format!("{}1{} != []", "[".repeat(n), "]".repeat(n));
        assert_eq!(limit_exceeded(&lists(249)), None);
        assert_eq!(limit_exceeded(&lists(250)), alone(RULE_LIMIT_EXCEEDED));
        let maps = |n: usize| format!("{}1{} != {{}}", "{'a': ".repeat(n), "}".repeat(n));
        assert_eq!(limit_exceeded(&maps(249)), None);
        assert_eq!(limit_exceeded(&maps(250)), alone(RULE_LIMIT_EXCEEDED));
        let calls = |n: usize| format!("{}1{} == '1'", "string(".repeat(n), ")".repeat(n));
        assert_eq!(limit_exceeded(&calls(249)), None);
        assert_eq!(limit_exceeded(&calls(250)), alone(RULE_LIMIT_EXCEEDED));
        let otherwise = |n: usize| chain(n, "false ? true : ", "true");
        assert_eq!(limit_exceeded(&otherwise(249)), None);
        assert_eq!(limit_exceeded(&otherwise(250)), alone(RULE_LIMIT_EXCEEDED));
        let nested_eq = |n: usize| format!("{}true{}", "self.b == (".repeat(n), ")".repeat(n));
        assert_eq!(limit_exceeded(&nested_eq(124)), None);
        assert_eq!(limit_exceeded(&nested_eq(125)), alone(RULE_LIMIT_EXCEEDED));
        let paren_eq =
            |n: usize| format!("{}self.b == true{} == true", "(".repeat(n), ")".repeat(n));
        assert_eq!(limit_exceeded(&paren_eq(248)), None);
        assert_eq!(limit_exceeded(&paren_eq(249)), alone(RULE_LIMIT_EXCEEDED));
        let in_args = |n: usize| format!("size({}1{}) == 1", "[".repeat(n), "]".repeat(n));
        assert_eq!(limit_exceeded(&in_args(248)), None);
        assert_eq!(limit_exceeded(&in_args(249)), alone(RULE_LIMIT_EXCEEDED));
    }

    /// Constructs the visitor does not count, however long.
    #[test]
    fn flat_and_uncounted_constructs_have_no_limit() {
        let or = format!("{}self.b", "self.b || ".repeat(400));
        assert_eq!(limit_exceeded(&or), None);
        let not = format!("{}true", "!".repeat(400));
        assert_eq!(limit_exceeded(&not), None);
        let neg = format!("{}1 != 0", "-".repeat(400));
        assert_eq!(limit_exceeded(&neg), None);
    }

    /// Syntax errors: the listener stops the parse before reaching the missing `)`;
    /// the visitor walks what ANTLR's recovery kept (server answers); an error inside
    /// is left to the parser.
    #[test]
    fn syntax_errors() {
        let unclosed = format!("{}true", "(".repeat(300));
        assert_eq!(limit_exceeded(&unclosed), alone(RULE_LIMIT_EXCEEDED));
        let trailing = format!("{}self.b )", "self.b == ".repeat(300));
        assert_eq!(
            limit_exceeded(&trailing),
            Some(NestingError::WithSyntaxErrors(DEPTH_EXCEEDED))
        );
        let inside = format!("{}self.b == ) == self.b", "self.b == ".repeat(300));
        assert_eq!(limit_exceeded(&inside), None);
    }
}
