//! A fast path in front of the generated parser: a hand-written lexer and
//! recursive-descent parser for cel-go's grammar (CEL.g4) that builds exactly the
//! [`Ast`] the [`super::parse`] path builds (same ids in the same order, same
//! positions, same literal values, macros expanded by the same [`Expander`]).
//!
//! It gives up ([`None`]) on anything it is not sure of: every syntax error (the
//! generated parser owns error texts and recovery), unusual but valid forms (`[,]`,
//! `--1`, reserved words, backquoted fields), nesting deeper than [`MAX_DEPTH`], and
//! macro expansion errors. The caller then runs the generated parser.

use crate::cel::ast::IdMap;

use super::ast::{Ast, Expr, ExprId, ExprKind, Literal, MapEntry, Source, StructField};
use super::errors::Issues;
use super::parse::{Expander, ParseOptions, literal_offset};

/// Nesting of `expr` (parentheses, arguments, elements, branches) the fast path
/// follows; the generated parser allows 250 (more gives up here).
const MAX_DEPTH: u32 = 48;

/// Height of the tree the fast path builds (chains of `+`, `.`, `[]` nest without
/// parentheses); taller trees give up here.
const MAX_HEIGHT: u32 = 192;

/// Longer texts are left to the generated parser (cel-go's default expression size
/// limit is 100,000 code points).
const MAX_TEXT: usize = 100_000;

/// Parses `text` as the generated parser would, or `None` when unsure.
pub fn parse(text: &str, options: ParseOptions) -> Option<Ast> {
    if text.len() > MAX_TEXT {
        return None;
    }
    let tokens = lex(text)?;
    let mut p = Parser {
        text,
        tokens,
        pos: 0,
        next_id: 1,
        offsets: IdMap::default(),
        depth: 0,
        options,
    };
    let expr = p.expr()?;
    if p.peek() != Tok::Eof {
        return None;
    }
    let mut source = Source {
        text: text.to_string(),
        offsets: p.offsets,
    };
    let mut issues = Issues::new(text);
    let mut exp = Expander {
        source: &mut source,
        next_id: p.next_id,
        issues: &mut issues,
        options,
    };
    let expr = expand(&mut exp, expr, 0)?;
    if !issues.is_empty() {
        return None;
    }
    Some(Ast { expr, source })
}

/// Compares the fast path with the generated parser on `text`: `Ok(true)` when the
/// fast path accepted and both trees (ids, kinds, literal bits, offsets) are the
/// same, `Ok(false)` when it declined, `Err` with both trees when they differ (or the
/// fast path accepted what the generated parser refuses). For tests and fuzzing.
#[doc(hidden)]
pub fn compare_with_generated(text: &str, options: ParseOptions) -> Result<bool, String> {
    let Some(fast) = parse(text, options) else {
        return Ok(false);
    };
    let slow = match super::parse::parse_with_generated_parser(text, options) {
        Ok(ast) => ast,
        Err(issues) => {
            return Err(format!(
                "fast path accepted {text:?}, the generated parser refuses it:\n{}\nfast: {:?}",
                issues.display(),
                fast.expr
            ));
        }
    };
    let render = |ast: &Ast| {
        let mut offsets: Vec<(ExprId, usize)> =
            ast.source.offsets.iter().map(|(k, v)| (*k, *v)).collect();
        offsets.sort_unstable();
        format!("{:?}\n{offsets:?}\n{:?}", ast.expr, ast.source.text)
    };
    let (f, s) = (render(&fast), render(&slow));
    if f == s {
        Ok(true)
    } else {
        Err(format!("{text:?}: the trees differ\nfast: {f}\nslow: {s}"))
    }
}

/// Expands macro calls bottom-up, in the order the crate-tree converter does.
fn expand(exp: &mut Expander<'_>, e: Expr, height: u32) -> Option<Expr> {
    if height > MAX_HEIGHT {
        return None;
    }
    let h = height + 1;
    let kind = match e.kind {
        ExprKind::Literal(_) | ExprKind::Ident(_) => return Some(e),
        ExprKind::Select {
            operand,
            field,
            test_only,
        } => ExprKind::Select {
            operand: Box::new(expand(exp, *operand, h)?),
            field,
            test_only,
        },
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            let target = match target {
                Some(t) => Some(expand(exp, *t, h)?),
                None => None,
            };
            let mut expanded = Vec::with_capacity(args.len());
            for a in args {
                expanded.push(expand(exp, a, h)?);
            }
            return Some(exp.call_or_macro(e.id, &function, target, expanded));
        }
        ExprKind::List {
            elements,
            optional_indices,
        } => {
            let mut expanded = Vec::with_capacity(elements.len());
            for a in elements {
                expanded.push(expand(exp, a, h)?);
            }
            ExprKind::List {
                elements: expanded,
                optional_indices,
            }
        }
        ExprKind::Map { entries } => {
            let mut expanded = Vec::with_capacity(entries.len());
            for en in entries {
                expanded.push(MapEntry {
                    id: en.id,
                    key: expand(exp, en.key, h)?,
                    value: expand(exp, en.value, h)?,
                    optional: en.optional,
                });
            }
            ExprKind::Map { entries: expanded }
        }
        ExprKind::Struct { type_name, fields } => {
            let mut expanded = Vec::with_capacity(fields.len());
            for f in fields {
                expanded.push(StructField {
                    id: f.id,
                    name: f.name,
                    value: expand(exp, f.value, h)?,
                    optional: f.optional,
                });
            }
            ExprKind::Struct {
                type_name,
                fields: expanded,
            }
        }
        // The parser builds none.
        ExprKind::Comprehension(_) => return None,
    };
    Some(Expr::new(e.id, kind))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    Eq,
    Ne,
    In,
    Lt,
    Le,
    Ge,
    Gt,
    And,
    Or,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Dot,
    Comma,
    Minus,
    Excl,
    Question,
    Colon,
    Plus,
    Star,
    Slash,
    Percent,
    True,
    False,
    Null,
    Float,
    Int,
    Uint,
    Str,
    Bytes,
    Ident,
    Eof,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token {
    pub(super) kind: Tok,
    /// Byte offsets in the text.
    pub(super) start: usize,
    pub(super) end: usize,
}

/// The end of the whitespace character or `//` comment at `i`, if one starts there
/// (CEL.g4's lexer puts both on the hidden channel).
#[inline]
pub(super) fn hidden_end(b: &[u8], i: usize) -> Option<usize> {
    match b[i] {
        b' ' | b'\t' | b'\r' | b'\n' | 0x0c => Some(i + 1),
        b'/' if b.get(i + 1) == Some(&b'/') => Some(
            b[i..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(b.len(), |p| i + p),
        ),
        _ => None,
    }
}

/// The tokens of `text` as CEL.g4's lexer splits it (longest match, whitespace and
/// comments dropped), or `None` for anything it would not recognise.
pub(super) fn lex(text: &str) -> Option<Vec<Token>> {
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(text.len() / 3 + 2);
    let mut i = 0usize;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let two = |t: Tok, n: usize| (t, n);
        let next = b.get(i + 1).copied();
        if let Some(end) = hidden_end(b, i) {
            i = end;
            continue;
        }
        let (kind, len) = match c {
            b'=' if next == Some(b'=') => two(Tok::Eq, 2),
            b'!' if next == Some(b'=') => two(Tok::Ne, 2),
            b'!' => two(Tok::Excl, 1),
            b'<' if next == Some(b'=') => two(Tok::Le, 2),
            b'<' => two(Tok::Lt, 1),
            b'>' if next == Some(b'=') => two(Tok::Ge, 2),
            b'>' => two(Tok::Gt, 1),
            b'&' if next == Some(b'&') => two(Tok::And, 2),
            b'|' if next == Some(b'|') => two(Tok::Or, 2),
            b'[' => two(Tok::LBracket, 1),
            b']' => two(Tok::RBracket, 1),
            b'{' => two(Tok::LBrace, 1),
            b'}' => two(Tok::RBrace, 1),
            b'(' => two(Tok::LParen, 1),
            b')' => two(Tok::RParen, 1),
            b'.' if next.is_some_and(|d| d.is_ascii_digit()) => {
                let end = number_end(b, i)?;
                (Tok::Float, end - i)
            }
            b'.' => two(Tok::Dot, 1),
            b',' => two(Tok::Comma, 1),
            b'-' => two(Tok::Minus, 1),
            b'?' => two(Tok::Question, 1),
            b':' => two(Tok::Colon, 1),
            b'+' => two(Tok::Plus, 1),
            b'*' => two(Tok::Star, 1),
            b'/' => two(Tok::Slash, 1),
            b'%' => two(Tok::Percent, 1),
            b'0'..=b'9' => {
                let (kind, end) = number(b, i)?;
                (kind, end - i)
            }
            b'"' | b'\'' => (Tok::Str, string_end(b, i, false)? - i),
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let mut j = i + 1;
                while j < b.len() && (b[j].is_ascii_alphanumeric() || b[j] == b'_') {
                    j += 1;
                }
                let word = &b[i..j];
                let quote = b.get(j).is_some_and(|&q| q == b'"' || q == b'\'');
                if quote {
                    // A string or bytes prefix: `r`, `b`, `br` (any case).
                    let (kind, raw) = match word {
                        b"r" | b"R" => (Tok::Str, true),
                        b"b" | b"B" => (Tok::Bytes, false),
                        b"br" | b"bR" | b"Br" | b"BR" => (Tok::Bytes, true),
                        _ => (Tok::Ident, false),
                    };
                    if kind != Tok::Ident {
                        let end = string_end(b, j, raw)?;
                        out.push(Token { kind, start, end });
                        i = end;
                        continue;
                    }
                }
                let kind = match word {
                    b"in" => Tok::In,
                    b"true" => Tok::True,
                    b"false" => Tok::False,
                    b"null" => Tok::Null,
                    _ => Tok::Ident,
                };
                (kind, j - i)
            }
            _ => return None,
        };
        i += len;
        out.push(Token {
            kind,
            start,
            end: i,
        });
    }
    out.push(Token {
        kind: Tok::Eof,
        start: b.len(),
        end: b.len(),
    });
    Some(out)
}

/// End of the digits, fraction and exponent of a float starting at `i` (a digit or
/// the `.` of `.5`).
fn number_end(b: &[u8], mut i: usize) -> Option<usize> {
    let digits = |b: &[u8], mut i: usize| {
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        i
    };
    i = digits(b, i);
    if b.get(i) == Some(&b'.') && b.get(i + 1).is_some_and(u8::is_ascii_digit) {
        i = digits(b, i + 1);
    }
    Some(exponent_end(b, i))
}

/// `i` past a complete exponent (`e`, optional sign, digits) at `i`, else `i`.
fn exponent_end(b: &[u8], i: usize) -> usize {
    if !matches!(b.get(i), Some(b'e' | b'E')) {
        return i;
    }
    let mut j = i + 1;
    if matches!(b.get(j), Some(b'+' | b'-')) {
        j += 1;
    }
    if !b.get(j).is_some_and(u8::is_ascii_digit) {
        return i;
    }
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    j
}

/// A number token starting with a digit at `i`: its kind and end.
fn number(b: &[u8], i: usize) -> Option<(Tok, usize)> {
    if b[i] == b'0'
        && b.get(i + 1) == Some(&b'x')
        && b.get(i + 2).is_some_and(u8::is_ascii_hexdigit)
    {
        let mut j = i + 2;
        while j < b.len() && b[j].is_ascii_hexdigit() {
            j += 1;
        }
        if matches!(b.get(j), Some(b'u' | b'U')) {
            return Some((Tok::Uint, j + 1));
        }
        return Some((Tok::Int, j));
    }
    let mut j = i;
    while j < b.len() && b[j].is_ascii_digit() {
        j += 1;
    }
    let end = number_end(b, i)?;
    if end > j {
        return Some((Tok::Float, end));
    }
    if matches!(b.get(j), Some(b'u' | b'U')) {
        return Some((Tok::Uint, j + 1));
    }
    Some((Tok::Int, j))
}

/// Length of a valid escape sequence (`\n`, `\x41`, `\u0041`, `\101`…) at `i` (the
/// backslash), or `None`.
fn escape_len(b: &[u8], i: usize) -> Option<usize> {
    let hex = |from: usize, n: usize| {
        (from..from + n).all(|k| b.get(k).is_some_and(u8::is_ascii_hexdigit))
    };
    match b.get(i + 1)? {
        b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'"' | b'\'' | b'\\' | b'?' | b'`' => {
            Some(2)
        }
        b'0'..=b'3' => {
            let oct = |k: usize| b.get(k).is_some_and(|c| (b'0'..=b'7').contains(c));
            (oct(i + 2) && oct(i + 3)).then_some(4)
        }
        b'x' | b'X' => hex(i + 2, 2).then_some(4),
        b'u' => hex(i + 2, 4).then_some(6),
        b'U' => hex(i + 2, 8).then_some(10),
        _ => None,
    }
}

/// End of the string whose quote is at `i`.
fn string_end(b: &[u8], i: usize, raw: bool) -> Option<usize> {
    let q = b[i];
    let triple = b.get(i + 1) == Some(&q) && b.get(i + 2) == Some(&q);
    if triple {
        let mut j = i + 3;
        loop {
            if j + 2 < b.len() && b[j] == q && b[j + 1] == q && b[j + 2] == q {
                return Some(j + 3);
            }
            let c = *b.get(j)?;
            if c == b'\\' && !raw {
                j += escape_len(b, j)?;
            } else if raw && (c == 0 || b[j..].starts_with("\u{10ffff}".as_bytes())) {
                // The generated lexer's `.` (raw triple-quoted strings only) matches
                // neither U+0000 nor U+10FFFF.
                return None;
            } else {
                j += 1;
            }
        }
    }
    // `''` is an empty string; a triple quote without its end falls back to it in
    // the generated lexer, and then to a syntax error.
    let mut j = i + 1;
    loop {
        let c = *b.get(j)?;
        if c == q {
            return Some(j + 1);
        }
        match c {
            b'\n' | b'\r' => return None,
            b'\\' if !raw => j += escape_len(b, j)?,
            _ => j += 1,
        }
    }
}

/// The value of a string or bytes literal token, as the crate decodes it, or `None`
/// where it reports an error.
fn unescape(token: &str, bytes: bool) -> Option<Vec<u8>> {
    let mut val = token;
    if bytes {
        val = &val[1..];
    }
    let raw = val.starts_with(['r', 'R']);
    if raw {
        val = &val[1..];
    }
    let normalized;
    if val.contains('\r') {
        normalized = val.replace("\r\n", "\n").replace('\r', "\n");
        val = &normalized;
    }
    if val.len() >= 6 && (val.starts_with("'''") || val.starts_with("\"\"\"")) {
        val = val.get(3..val.len() - 3)?;
    } else {
        val = val.get(1..val.len() - 1)?;
    }
    if raw || !val.contains('\\') {
        return Some(val.as_bytes().to_vec());
    }
    let mut out = Vec::with_capacity(val.len());
    let mut chars = val.chars();
    let push_char = |out: &mut Vec<u8>, v: u32| -> Option<()> {
        let ch = char::from_u32(v)?;
        let mut buf = [0u8; 4];
        out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
        Some(())
    };
    while let Some(c) = chars.next() {
        if c != '\\' {
            let mut buf = [0u8; 4];
            out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            continue;
        }
        let esc = chars.next()?;
        match esc {
            'a' => out.push(0x07),
            'b' => out.push(0x08),
            'f' => out.push(0x0c),
            'n' => out.push(b'\n'),
            'r' => out.push(b'\r'),
            't' => out.push(b'\t'),
            'v' => out.push(0x0b),
            '\\' | '\'' | '"' | '`' | '?' => out.push(esc as u8),
            'x' | 'X' | 'u' | 'U' => {
                let width = match esc {
                    'x' | 'X' => 2,
                    _ if bytes => return None,
                    'u' => 4,
                    _ => 8,
                };
                let mut v = 0u32;
                for _ in 0..width {
                    v = v
                        .checked_mul(16)?
                        .checked_add(chars.next()?.to_digit(16)?)?;
                }
                if bytes {
                    out.push(u8::try_from(v).ok()?);
                } else {
                    push_char(&mut out, v)?;
                }
            }
            '0'..='3' => {
                let mut v = esc as u32 - '0' as u32;
                for _ in 0..2 {
                    let d = chars.next()?;
                    if !('0'..='7').contains(&d) {
                        return None;
                    }
                    v = v * 8 + (d as u32 - '0' as u32);
                }
                if bytes {
                    out.push(u8::try_from(v).ok()?);
                } else {
                    push_char(&mut out, v)?;
                }
            }
            _ => return None,
        }
    }
    Some(out)
}

/// cel-go's reserved identifiers (the crate refuses them as names and functions).
pub(crate) fn is_reserved(name: &str) -> bool {
    matches!(
        name,
        "as" | "break"
            | "const"
            | "continue"
            | "else"
            | "for"
            | "function"
            | "if"
            | "import"
            | "let"
            | "loop"
            | "package"
            | "namespace"
            | "return"
            | "var"
            | "void"
            | "while"
    )
}

struct Parser<'a> {
    text: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    /// The crate's id counter: ids are handed out from 1 in the order its visitor
    /// meets the tokens they are placed at.
    next_id: ExprId,
    offsets: IdMap<usize>,
    depth: u32,
    options: ParseOptions,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Tok {
        self.tokens[self.pos].kind
    }

    fn peek_at(&self, ahead: usize) -> Tok {
        self.tokens
            .get(self.pos + ahead)
            .map_or(Tok::Eof, |t| t.kind)
    }

    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos];
        if t.kind != Tok::Eof {
            self.pos += 1;
        }
        t
    }

    fn expect(&mut self, kind: Tok) -> Option<Token> {
        (self.peek() == kind).then(|| self.bump())
    }

    fn text_of(&self, t: Token) -> &'a str {
        &self.text[t.start..t.end]
    }

    fn id_at(&mut self, offset: usize) -> ExprId {
        let id = self.next_id;
        self.next_id += 1;
        self.offsets.insert(id, offset);
        id
    }

    fn call(id: ExprId, function: &str, args: Vec<Expr>) -> Expr {
        Expr::new(
            id,
            ExprKind::Call {
                function: function.to_string(),
                target: None,
                args,
            },
        )
    }

    /// `expr: conditionalOr ('?' conditionalOr ':' expr)?`
    fn expr(&mut self) -> Option<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let cond = self.logical(Tok::Or)?;
        let e = if self.peek() == Tok::Question {
            let q = self.bump();
            let id = self.id_at(q.start);
            let then = self.logical(Tok::Or)?;
            self.expect(Tok::Colon)?;
            let otherwise = self.expr()?;
            Self::call(id, "_?_:_", vec![cond, then, otherwise])
        } else {
            cond
        };
        self.depth -= 1;
        Some(e)
    }

    /// `conditionalOr` / `conditionalAnd`: the crate numbers each operator after its
    /// right operand and builds a balanced tree.
    fn logical(&mut self, op: Tok) -> Option<Expr> {
        let operand = |p: &mut Self| {
            if op == Tok::Or {
                p.logical(Tok::And)
            } else {
                p.relation()
            }
        };
        let first = operand(self)?;
        if self.peek() != op {
            return Some(first);
        }
        let mut terms = vec![first];
        let mut ops = Vec::new();
        while self.peek() == op {
            let t = self.bump();
            terms.push(operand(self)?);
            ops.push(self.id_at(t.start));
        }
        let function = if op == Tok::Or { "_||_" } else { "_&&_" };
        let mut terms: Vec<Option<Expr>> = terms.into_iter().map(Some).collect();
        balanced(function, &mut terms, &ops, 0, ops.len() - 1)
    }

    /// `relation`: left-associative, one precedence level.
    fn relation(&mut self) -> Option<Expr> {
        let mut lhs = self.additive()?;
        loop {
            let function = match self.peek() {
                Tok::Lt => "_<_",
                Tok::Le => "_<=_",
                Tok::Ge => "_>=_",
                Tok::Gt => "_>_",
                Tok::Eq => "_==_",
                Tok::Ne => "_!=_",
                Tok::In => "@in",
                _ => return Some(lhs),
            };
            let t = self.bump();
            let id = self.id_at(t.start);
            let rhs = self.additive()?;
            lhs = Self::call(id, function, vec![lhs, rhs]);
        }
    }

    fn additive(&mut self) -> Option<Expr> {
        let mut lhs = self.multiplicative()?;
        loop {
            let function = match self.peek() {
                Tok::Plus => "_+_",
                Tok::Minus => "_-_",
                _ => return Some(lhs),
            };
            let t = self.bump();
            let id = self.id_at(t.start);
            let rhs = self.multiplicative()?;
            lhs = Self::call(id, function, vec![lhs, rhs]);
        }
    }

    fn multiplicative(&mut self) -> Option<Expr> {
        let mut lhs = self.unary()?;
        loop {
            let function = match self.peek() {
                Tok::Star => "_*_",
                Tok::Slash => "_/_",
                Tok::Percent => "_%_",
                _ => return Some(lhs),
            };
            let t = self.bump();
            let id = self.id_at(t.start);
            let rhs = self.unary()?;
            lhs = Self::call(id, function, vec![lhs, rhs]);
        }
    }

    /// `unary: member | '!'+ member | '-'+ member`; an even run of operators cancels.
    fn unary(&mut self) -> Option<Expr> {
        let op = self.peek();
        if op != Tok::Excl && op != Tok::Minus {
            return self.member();
        }
        let mut n = 0;
        while self.peek_at(n) == op {
            n += 1;
        }
        let number_follows = matches!(self.peek_at(n), Tok::Int | Tok::Float);
        if op == Tok::Minus && number_follows {
            // `-1` is a signed literal (the grammar's first alternative); with more
            // signs the generated parser's choice is not worth guessing.
            return if n == 1 { self.member() } else { None };
        }
        let first = self.bump();
        for _ in 1..n {
            self.bump();
        }
        let id = (n % 2 == 1).then(|| self.id_at(first.start));
        let operand = self.member()?;
        Some(match id {
            Some(id) => Self::call(id, if op == Tok::Excl { "!_" } else { "-_" }, vec![operand]),
            None => operand,
        })
    }

    /// `member`: a primary followed by selections, member calls and indexes.
    fn member(&mut self) -> Option<Expr> {
        let mut e = self.primary()?;
        loop {
            match self.peek() {
                Tok::Dot => {
                    let dot = self.bump();
                    let optional = self.optional_mark()?;
                    let name = self.expect(Tok::Ident)?;
                    let field = self.text_of(name).to_string();
                    if optional {
                        let lit = self.id_at(dot.start);
                        let id = self.id_at(dot.start);
                        let field = Expr::new(lit, ExprKind::Literal(Literal::String(field)));
                        e = Self::call(id, "_?._", vec![e, field]);
                    } else if self.peek() == Tok::LParen {
                        let open = self.bump();
                        let id = self.id_at(open.start);
                        let args = self.args()?;
                        e = Expr::new(
                            id,
                            ExprKind::Call {
                                function: field,
                                target: Some(Box::new(e)),
                                args,
                            },
                        );
                    } else {
                        let id = self.id_at(dot.start);
                        e = Expr::new(
                            id,
                            ExprKind::Select {
                                operand: Box::new(e),
                                field,
                                test_only: false,
                            },
                        );
                    }
                }
                Tok::LBracket => {
                    let open = self.bump();
                    let optional = self.optional_mark()?;
                    let id = self.id_at(open.start);
                    let index = self.expr()?;
                    self.expect(Tok::RBracket)?;
                    let function = if optional { "_[?_]" } else { "_[_]" };
                    e = Self::call(id, function, vec![e, index]);
                }
                _ => return Some(e),
            }
        }
    }

    /// Consumes an optional-syntax `?` if there is one; `None` if there is one and the
    /// options do not allow it.
    fn optional_mark(&mut self) -> Option<bool> {
        if self.peek() != Tok::Question {
            return Some(false);
        }
        if !self.options.optional_syntax {
            return None;
        }
        self.bump();
        Some(true)
    }

    /// Call arguments after `(`, through `)` (no trailing comma).
    fn args(&mut self) -> Option<Vec<Expr>> {
        let mut args = Vec::new();
        if self.expect(Tok::RParen).is_some() {
            return Some(args);
        }
        loop {
            args.push(self.expr()?);
            match self.bump().kind {
                Tok::Comma => {}
                Tok::RParen => return Some(args),
                _ => return None,
            }
        }
    }

    /// After an element or entry: `,` (then maybe the closing token) or the closing
    /// token. `Some(true)` when the list is closed.
    fn separator(&mut self, close: Tok) -> Option<bool> {
        match self.bump().kind {
            Tok::Comma => Some(self.expect(close).is_some()),
            k if k == close => Some(true),
            _ => None,
        }
    }

    fn primary(&mut self) -> Option<Expr> {
        let t = self.tokens[self.pos];
        match t.kind {
            Tok::Dot | Tok::Ident => self.name(),
            Tok::LParen => {
                self.bump();
                let e = self.expr()?;
                self.expect(Tok::RParen)?;
                Some(e)
            }
            Tok::LBracket => {
                self.bump();
                let id = self.id_at(t.start);
                let mut elements = Vec::new();
                let mut optional_indices = Vec::new();
                if self.expect(Tok::RBracket).is_none() {
                    loop {
                        if self.optional_mark()? {
                            optional_indices.push(elements.len());
                        }
                        elements.push(self.expr()?);
                        if self.separator(Tok::RBracket)? {
                            break;
                        }
                    }
                }
                Some(Expr::new(
                    id,
                    ExprKind::List {
                        elements,
                        optional_indices,
                    },
                ))
            }
            Tok::LBrace => {
                self.bump();
                let id = self.id_at(t.start);
                let mut entries = Vec::new();
                if self.expect(Tok::RBrace).is_none() {
                    loop {
                        // The crate numbers the entry (placed at its `:`) before its key.
                        let entry = self.next_id;
                        self.next_id += 1;
                        let optional = self.optional_mark()?;
                        let key = self.expr()?;
                        let colon = self.expect(Tok::Colon)?;
                        self.offsets.insert(entry, colon.start);
                        let value = self.expr()?;
                        entries.push(MapEntry {
                            id: entry,
                            key,
                            value,
                            optional,
                        });
                        if self.separator(Tok::RBrace)? {
                            break;
                        }
                    }
                }
                Some(Expr::new(id, ExprKind::Map { entries }))
            }
            _ => self.literal(),
        }
    }

    /// An identifier, a global call, or a message construction, with an optional
    /// leading `.`.
    fn name(&mut self) -> Option<Expr> {
        let leading_dot = self.expect(Tok::Dot).is_some();
        let ident = self.expect(Tok::Ident)?;
        let raw = self.text_of(ident);
        if is_reserved(raw) {
            return None;
        }
        let name = if leading_dot {
            format!(".{raw}")
        } else {
            raw.to_string()
        };
        match self.peek() {
            Tok::LParen => {
                let open = self.bump();
                let id = self.id_at(open.start);
                let args = self.args()?;
                return Some(Expr::new(
                    id,
                    ExprKind::Call {
                        function: name,
                        target: None,
                        args,
                    },
                ));
            }
            Tok::LBrace | Tok::Dot => {
                // `a.b.C{…}`: identifiers joined by dots up to a `{`.
                let mut n = 0;
                while self.peek_at(n) == Tok::Dot && self.peek_at(n + 1) == Tok::Ident {
                    n += 2;
                }
                if self.peek_at(n) == Tok::LBrace {
                    return self.message(name, n);
                }
            }
            _ => {}
        }
        let id = self.id_at(ident.start);
        Some(Expr::new(id, ExprKind::Ident(name)))
    }

    /// `a.b.C{f: v, ?g: w}` with `tokens` more tokens of the name before the `{`.
    fn message(&mut self, mut type_name: String, tokens: usize) -> Option<Expr> {
        for _ in 0..tokens {
            let t = self.bump();
            if t.kind == Tok::Ident && is_reserved(self.text_of(t)) {
                return None;
            }
            type_name.push_str(self.text_of(t));
        }
        let open = self.bump();
        let id = self.id_at(open.start);
        let mut fields = Vec::new();
        if self.expect(Tok::RBrace).is_none() {
            loop {
                let optional = self.optional_mark()?;
                let name = self.expect(Tok::Ident)?;
                let colon = self.expect(Tok::Colon)?;
                let field_id = self.id_at(colon.start);
                let value = self.expr()?;
                fields.push(StructField {
                    id: field_id,
                    name: self.text_of(name).to_string(),
                    value,
                    optional,
                });
                if self.separator(Tok::RBrace)? {
                    break;
                }
            }
        }
        Some(Expr::new(id, ExprKind::Struct { type_name, fields }))
    }

    fn literal(&mut self) -> Option<Expr> {
        let signed = self.expect(Tok::Minus).is_some();
        let t = self.bump();
        let text = self.text_of(t);
        let (value, negative, zero) = match t.kind {
            Tok::Int => {
                let (radix, digits) = match text.strip_prefix("0x") {
                    Some(rest) => (16, rest),
                    None => (10, text),
                };
                let v = if signed {
                    i64::from_str_radix(&format!("-{digits}"), radix).ok()?
                } else {
                    i64::from_str_radix(digits, radix).ok()?
                };
                (Literal::Int(v), v < 0, v == 0)
            }
            Tok::Float => {
                let d: f64 = if signed {
                    format!("-{text}").parse().ok()?
                } else {
                    text.parse().ok()?
                };
                if !d.is_finite() {
                    return None;
                }
                (Literal::Double(d), d.is_sign_negative(), d == 0.0)
            }
            _ if signed => return None,
            Tok::Uint => {
                let digits = &text[..text.len() - 1];
                let v = match digits.strip_prefix("0x") {
                    Some(hex) => u64::from_str_radix(hex, 16).ok()?,
                    None => digits.parse().ok()?,
                };
                (Literal::Uint(v), false, false)
            }
            Tok::Str => {
                let v = String::from_utf8(unescape(text, false)?).ok()?;
                (Literal::String(v), false, false)
            }
            Tok::Bytes => (Literal::Bytes(unescape(text, true)?), false, false),
            Tok::True => (Literal::Bool(true), false, false),
            Tok::False => (Literal::Bool(false), false, false),
            Tok::Null => (Literal::Null, false, false),
            _ => return None,
        };
        let offset = literal_offset(self.text, t.start, negative, zero);
        let id = self.id_at(offset);
        Some(Expr::new(id, ExprKind::Literal(value)))
    }
}

/// The crate's balanced tree of `||` / `&&` terms (`terms[lo..=hi+1]`, operators
/// `ops[lo..=hi]`).
fn balanced(
    function: &str,
    terms: &mut [Option<Expr>],
    ops: &[ExprId],
    lo: usize,
    hi: usize,
) -> Option<Expr> {
    let mid = (lo + hi).div_ceil(2);
    let left = if mid == lo {
        terms.get_mut(mid)?.take()?
    } else {
        balanced(function, terms, ops, lo, mid - 1)?
    };
    let right = if mid == hi {
        terms.get_mut(mid + 1)?.take()?
    } else {
        balanced(function, terms, ops, mid + 1, hi)?
    };
    Some(Parser::call(*ops.get(mid)?, function, vec![left, right]))
}

#[cfg(test)]
#[path = "fastparse_tests.rs"]
mod tests;
