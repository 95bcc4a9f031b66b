//! The only module that touches the `cel` crate's parser (pinned at 0.15.0, whose API
//! breaks between releases): it parses without the crate's macros, converts the tree
//! into [`crate::cel::ast`] and expands macros itself, exactly as cel-go does (same
//! comprehension shapes, same `@result` accumulator, same error texts), with the macros
//! the Kubernetes environment enables for the version at hand.
//!
//! Most rules never reach the generated parser: [`super::fastparse`] parses them first
//! into the same tree and leaves everything it is unsure of (syntax errors included)
//! to it.

use cel::common::ast as cast;

use super::ast::{
    ACCUMULATOR, Ast, Comprehension, Expr, ExprId, ExprKind, Literal, MapEntry, Source, StructField,
};
use super::errors::{CelError, Issues};
use super::parse_depth::NestingError;
use super::parse_expecting::{Repair, after_operand, after_recovery, nested_conditional};
use super::parse_lookahead::{LOOKAHEAD_LIMIT_EXCEEDED, lookahead_cut};
use super::parse_recovered::recovered_text;

/// Which macros and syntax the parser accepts (from the environment's libraries).
#[derive(Clone, Copy, Debug)]
pub struct ParseOptions {
    /// `?.`, `[?`, `{?k: v}`, `[?e]` and the `optMap`/`optFlatMap` macros.
    pub optional_syntax: bool,
    /// `all/exists/existsOne/transformList/transformMap/transformMapEntry` with two
    /// variables.
    pub two_var_comprehensions: bool,
    /// `sortBy` (lists extension version 2+).
    pub sort_by: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            optional_syntax: true,
            two_var_comprehensions: true,
            sort_by: true,
        }
    }
}

/// cel-go's texts for string and bytes literals whose escapes the lexer accepts but
/// the unescaper refuses; the crate reports its own error value instead.
fn literal_error_text(
    msg: String,
    text: &str,
    offset: Option<usize>,
    repairs: &[Repair],
) -> String {
    let msg = mismatched_input_text(escape_no_viable_input(msg), text, offset, repairs);
    if msg.starts_with("invalid string literal: InvalidUnicode") {
        "invalid unicode code point".to_string()
    } else if msg.starts_with("invalid string literal: ")
        || msg.starts_with("invalid bytes literal: ")
    {
        "unable to unescape string".to_string()
    } else {
        msg
    }
}

thread_local! {
    /// A recovered text is being parsed: its own syntax errors are not recovered from
    /// again.
    static RECOVERING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// cel-go's parser gives up after this many syntax errors (`ErrorReportingLimit`).
const MAX_SYNTAX_ERRORS: usize = 100;

/// cel-go builds and visits a tree even around syntax errors, and reports that tree's
/// macro errors too ("argument must be a simple name" when recovery left a third
/// argument to `all`): they are the errors of the text the recovery left
/// ([`super::parse_recovered`]), parsed alone when it parses without a syntax error,
/// up to where the recovery is no longer followed.
fn add_recovered_tree_errors(
    text: &str,
    options: ParseOptions,
    source: &Source,
    issues: &mut Issues,
) {
    if RECOVERING.with(std::cell::Cell::get) {
        return;
    }
    let syntax: Vec<(usize, &str)> = issues
        .errors
        .iter()
        .filter(|e| e.message.starts_with("Syntax error: "))
        .filter_map(|e| Some((e.offset?, e.message.as_str())))
        .collect();
    if syntax.is_empty() {
        return;
    }
    let Some(recovered) = recovered_text(text, &syntax) else {
        return;
    };
    if recovered.text.trim().is_empty() || recovered.text == text {
        return;
    }
    RECOVERING.with(|r| r.set(true));
    let parsed = parse_uncached(&recovered.text, options).0;
    RECOVERING.with(|r| r.set(false));
    let Err(found) = parsed else {
        return;
    };
    if found
        .errors
        .iter()
        .any(|e| e.message.starts_with("Syntax error"))
    {
        return;
    }
    for e in found.errors {
        if let Some(at) = e.offset.and_then(|o| recovered.original(o))
            && at < recovered.known_before
        {
            push_once(issues, source, Some(at), e.message);
        }
    }
}

/// Adds an error unless one with the same text is already reported at `offset` (the
/// crate's own findings and the ones recovered here can meet).
fn push_once(issues: &mut Issues, source: &Source, offset: Option<usize>, message: String) {
    let reported = issues
        .errors
        .iter()
        .any(|e| e.offset == offset && e.message == message);
    if !reported {
        issues.push_at(source, offset, message);
    }
}

/// The parser crate's notes on half-built nodes after a syntax error ("Incomplete
/// `…`", "No `…ContextAll`!"). cel-go has none: its visitor reports an unknown parse
/// element only when no error was reported before.
fn is_crate_note(msg: &str) -> bool {
    msg.starts_with("Incomplete `") || (msg.starts_with("No `") && msg.ends_with("ContextAll`!"))
}

/// ANTLR's Go runtime quotes the input of a "no viable alternative" with tabs and line
/// breaks escaped (`escapeWSAndQuote`), as it does a token's text; the crate's runtime
/// escapes the token but not this input.
fn escape_no_viable_input(msg: String) -> String {
    const PREFIX: &str = "Syntax error: no viable alternative at input '";
    match msg.strip_prefix(PREFIX).and_then(|m| m.strip_suffix('\'')) {
        Some(input) if input.contains(['\t', '\n', '\r']) => {
            let escaped = input
                .replace('\t', "\\t")
                .replace('\n', "\\n")
                .replace('\r', "\\r");
            format!("{PREFIX}{escaped}'")
        }
        _ => msg,
    }
}

/// For a token that can neither be matched nor deleted after a complete operand,
/// ANTLR's Go runtime names the token the enclosing rule was about to match (`<EOF>`,
/// `')'`, `']'`, `':'`); the crate's runtime names every token that could have followed
/// the last place a rule could end ([`super::parse_expecting`]).
fn mismatched_input_text(
    msg: String,
    text: &str,
    offset: Option<usize>,
    repairs: &[Repair],
) -> String {
    // A literal keyword where a field name must follow `.`.
    for keyword in ["true", "false", "null"] {
        if msg == format!("Syntax error: no viable alternative at input '.{keyword}'") {
            return format!("Syntax error: mismatched input '{keyword}' expecting IDENTIFIER");
        }
    }
    const CONTINUATIONS: &[&str] = &[
        "'=='", "'!='", "'in'", "'<'", "'<='", "'>='", "'>'", "'&&'", "'||'", "'['", "'.'", "'-'",
        "'?'", "'+'", "'*'", "'/'", "'%'", "','",
    ];
    let Some((head, set)) = msg
        .strip_prefix("Syntax error: mismatched input ")
        .and_then(|rest| rest.rsplit_once(" expecting {"))
    else {
        return msg;
    };
    let Some(set) = set.strip_suffix('}') else {
        return msg;
    };
    let tokens: Vec<&str> = set.split(", ").collect();
    if !tokens.contains(&"'=='") {
        return msg;
    }
    // Only the repairs of errors before this one shaped the tokens before it.
    let earlier: Vec<Repair> = repairs
        .iter()
        .copied()
        .filter(|r| offset.is_some_and(|o| r.offset() < o))
        .collect();
    if let Some(expected) = offset.and_then(|o| after_operand(text, o, &earlier)) {
        return format!("Syntax error: mismatched input {head} expecting {expected}");
    }
    let kept: Vec<&str> = tokens
        .into_iter()
        .filter(|t| !CONTINUATIONS.contains(t))
        .collect();
    match kept.as_slice() {
        [] => msg,
        [one] if *one == head => {
            let expected = offset.map_or("<EOF>", |o| after_recovery(text, o, &earlier));
            format!("Syntax error: mismatched input {head} expecting {expected}")
        }
        [one] => format!("Syntax error: mismatched input {head} expecting {one}"),
        many => format!(
            "Syntax error: mismatched input {head} expecting {{{}}}",
            many.join(", ")
        ),
    }
}

/// Parser recursion limit; cel-go's default is 250, the `cel` crate counts nesting
/// the same way for the constructs rules use.
const MAX_RECURSION_DEPTH: u16 = 250;

/// Stack of the threads the CEL parser runs on (the rayon workers, which also run
/// every other check). The generated parser recurses deeply per nesting level: debug
/// builds need megabytes for a dozen levels, so they reserve 256 MiB. Release builds
/// need far less: the deepest inputs within the limits (rules at the parser's
/// recursion limit of every construct, with and without syntax-error recovery, and
/// schemas and resources 1,000 levels deep) use at most 2.6 MiB, and 32 MiB leaves
/// ten times that. Stacks are reserved address space, committed as used, but the
/// reservation counts against an address-space limit (`ulimit -v`): two 256 MiB
/// workers left too little of 400 MB for the heap.
pub const PARSER_STACK: usize = if cfg!(debug_assertions) {
    256 << 20
} else {
    32 << 20
};

thread_local! {
    static BIG_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Declares that the calling thread was started with at least [`PARSER_STACK`] bytes
/// of stack (e.g. the workers of a rayon pool built with it): parsing then runs on it
/// directly instead of on a thread of its own (a thread per rule cost more than the
/// parse: mmap, clone, page faults, a malloc arena).
pub fn declare_parser_stack() {
    BIG_STACK.with(|b| b.set(true));
}

/// cel-go's `ExpressionSizeCodePointLimit` by default (`parser.NewParser`), which the
/// Kubernetes CEL environments do not change: longer texts are refused unread.
pub const EXPRESSION_SIZE_CODE_POINT_LIMIT: usize = 100_000;

/// Parses `text`; on failure the issues carry cel-go's messages and positions.
///
/// Results are cached for the process: a rule is parsed for CRD validation, for its
/// cost, for defaults and for resources, and CRDs repeat rules (versions, channels of
/// one project); the generated parser costs far more than a copy of the tree.
/// Parsing is a pure function of `text` and `options`, so a hit returns exactly what a
/// parse would; the cache is shared by all threads behind a lock (parsing itself runs
/// outside it) and bounded by an estimate of its heap size ([`ParseCache`]).
pub fn parse(text: &str, options: ParseOptions) -> Result<Ast, Issues> {
    static CACHE: std::sync::LazyLock<std::sync::Mutex<ParseCache>> =
        std::sync::LazyLock::new(Default::default);
    if text.len() > ParseCache::MAX_TEXT {
        return parse_uncached(text, options).0;
    }
    let key = options.key();
    if let Some(hit) = CACHE.lock().ok().and_then(|c| c.get(key, text)) {
        return hit;
    }
    let (parsed, cacheable) = parse_uncached(text, options);
    if cacheable && let Ok(mut cache) = CACHE.lock() {
        cache.insert(key, text, &parsed);
    }
    parsed
}

impl ParseOptions {
    /// The options as three bits (an index of [`ParseCache::entries`]).
    fn key(self) -> u8 {
        u8::from(self.optional_syntax)
            | (u8::from(self.two_var_comprehensions) << 1)
            | (u8::from(self.sort_by) << 2)
    }
}

/// Parse results by options and text, up to a budget of estimated heap bytes; once the
/// budget is spent, further texts are parsed each time (results are the same).
#[derive(Default)]
struct ParseCache {
    /// By [`ParseOptions::key`], then by text.
    entries: [std::collections::HashMap<Box<str>, Result<Ast, Issues>>; 8],
    /// Estimated heap bytes held by `entries`.
    bytes: usize,
}

impl ParseCache {
    /// Rules longer than this are parsed each time (they are rare).
    const MAX_TEXT: usize = 4096;
    /// The budget: a few hundred bytes per tree node, so some 100,000 cached nodes,
    /// far more than the rules of hundreds of CRDs.
    const MAX_BYTES: usize = 32 << 20;
    /// Estimated heap bytes per node of a tree: the `Expr` and its boxes and strings,
    /// and its entry in the offsets map.
    const NODE_BYTES: usize = 192;

    fn get(&self, key: u8, text: &str) -> Option<Result<Ast, Issues>> {
        self.entries[usize::from(key)].get(text).cloned()
    }

    fn insert(&mut self, key: u8, text: &str, parsed: &Result<Ast, Issues>) {
        let nodes = match parsed {
            Ok(ast) => ast.source.offsets.len().max(1),
            Err(issues) => issues.errors.len().max(1),
        };
        // The key, the copy of the text in the result, and the nodes.
        let cost = 2 * text.len() + nodes * Self::NODE_BYTES;
        if self.bytes + cost > Self::MAX_BYTES {
            return;
        }
        if self.entries[usize::from(key)]
            .insert(Box::from(text), parsed.clone())
            .is_none()
        {
            self.bytes += cost;
        }
    }
}

/// Parses `text`; the flag says whether the result may be cached (not when the parser
/// thread could not be started, which may not happen next time).
fn parse_uncached(text: &str, options: ParseOptions) -> (Result<Ast, Issues>, bool) {
    // cel-go refuses a longer text before reading it; Kubernetes keeps the default
    // limit. (A rule of 1.6 MB took 1.2 s and 770 MB to parse, and was accepted.)
    if text.len() > EXPRESSION_SIZE_CODE_POINT_LIMIT {
        let size = text.chars().count();
        if size > EXPRESSION_SIZE_CODE_POINT_LIMIT {
            let mut issues = Issues::new(text);
            issues.push(CelError::unlocated(format!(
                "expression code point size exceeds limit: size: {size}, limit {EXPRESSION_SIZE_CODE_POINT_LIMIT}"
            )));
            return (Err(issues), true);
        }
    }
    // cel-go's recursion limits, which the `cel` crate's parser applies otherwise.
    let nesting = super::parse_depth::limit_exceeded(text);
    if let Some(NestingError::Alone(message)) = nesting {
        let mut issues = Issues::new(text);
        issues.push(CelError::unlocated(message));
        return (Err(issues), true);
    }
    if let Some(ast) = super::fastparse::parse(text, options) {
        return (Ok(ast), true);
    }
    let (parsed, cacheable) = parse_generated(text, options);
    match (parsed, nesting) {
        (Err(mut issues), Some(NestingError::WithSyntaxErrors(message))) => {
            issues.push(CelError::unlocated(message));
            (Err(issues), cacheable)
        }
        (parsed, _) => (parsed, cacheable),
    }
}

/// Parses `text` with the generated parser only (no cache, no fast path): the
/// authority the fast path is compared with (tests and fuzzing).
#[doc(hidden)]
pub fn parse_with_generated_parser(text: &str, options: ParseOptions) -> Result<Ast, Issues> {
    parse_generated(text, options).0
}

/// [`parse_uncached`] with the generated parser.
fn parse_generated(text: &str, options: ParseOptions) -> (Result<Ast, Issues>, bool) {
    let parser = cel::Env::default()
        .with_optional_support(options.optional_syntax)
        .parser()
        .max_recursion_depth(MAX_RECURSION_DEPTH);
    // The generated parser recurses deeply per nesting level (megabytes for a dozen
    // levels in debug builds): parse on a thread with a large, lazily committed stack.
    let run = || {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            parser.parse_with_source_info(text)
        }))
    };
    let mut spawned = true;
    let parsed = if BIG_STACK.with(|b| b.get()) {
        run()
    } else {
        std::thread::scope(|scope| {
            match std::thread::Builder::new()
                .name("cel-parse".into())
                .stack_size(PARSER_STACK)
                .spawn_scoped(scope, run)
            {
                Ok(handle) => handle.join().unwrap_or_else(Err),
                Err(_) => {
                    spawned = false;
                    Err(Box::new("parser thread") as Box<dyn std::any::Any + Send>)
                }
            }
        })
    };
    let mut source = Source::new(text);
    let mut issues = Issues::new(text);
    let (expr, info) = match parsed {
        Ok(Ok(v)) => v,
        Ok(Err(errors)) => {
            // The parser crate adds its own notes on half-built nodes after a syntax
            // error; cel-go has none (keep one only if it is all there is).
            let syntax = errors
                .errors
                .iter()
                .filter(|e| !is_crate_note(&e.msg))
                .count();
            // At one position cel-go lists the syntax error before the AST check that
            // refuses the keyword (errors print sorted by position, stably).
            let mut errors = errors.errors;
            errors.sort_by_key(|e| e.msg == "unsupported ident kind");
            // cel-go aborts a recovery that would skip too many tokens: nothing after
            // is reported, and its tree is never visited.
            let at_msgs: Vec<(usize, &str)> = errors
                .iter()
                .filter_map(|e| Some((offset_of_line_col(text, e.pos.0, e.pos.1)?, &*e.msg)))
                .collect();
            let mut cut = lookahead_cut(text, &at_msgs);
            // cel-go also aborts at its 101st syntax error, which it records as "More
            // than 100 syntax errors" (counted, never shown): whichever comes first.
            let too_many = errors
                .iter()
                .enumerate()
                .filter(|(_, e)| e.msg.starts_with("Syntax error"))
                .nth(MAX_SYNTAX_ERRORS)
                .map(|(i, _)| i)
                .filter(|&i| {
                    let at = offset_of_line_col(text, errors[i].pos.0, errors[i].pos.1);
                    cut.is_none_or(|c| at.is_some_and(|o| o < c))
                });
            if let Some(i) = too_many {
                cut = None;
                errors.truncate(i + 1);
                errors[i].msg = format!("More than {MAX_SYNTAX_ERRORS} syntax errors");
            }
            if let Some(cut) = cut {
                errors
                    .retain(|e| offset_of_line_col(text, e.pos.0, e.pos.1).is_none_or(|o| o < cut));
            }
            let aborted = cut.is_some() || too_many.is_some();
            let mut repairs: Vec<Repair> = Vec::new();
            for e in &errors {
                let Some(offset) = offset_of_line_col(text, e.pos.0, e.pos.1) else {
                    continue;
                };
                // The runtime lists a set where cel-go names `':'`.
                let nested = e
                    .msg
                    .strip_prefix("Syntax error: mismatched input '?' expecting ")
                    .is_some_and(|expected| expected.contains("':'"))
                    .then(|| nested_conditional(text, offset, &repairs))
                    .flatten();
                repairs.extend(nested.or_else(|| Repair::from_message(&e.msg, offset)));
            }
            let errors_at: Vec<usize> = errors
                .iter()
                .filter(|e| e.msg.starts_with("Syntax error"))
                .filter_map(|e| offset_of_line_col(text, e.pos.0, e.pos.1))
                .collect();
            for e in errors {
                if syntax > 0 && is_crate_note(&e.msg) {
                    continue;
                }
                let mut offset = offset_of_line_col(text, e.pos.0, e.pos.1);
                if e.msg == "invalid int literal" || e.msg == "invalid double literal" {
                    offset = offset.map(|o| signed_literal_start(text, o));
                }
                // cel-go points at the backquote of an escaped field name; the crate at
                // the selecting `.` (or `.?`) before it.
                if e.msg == "unsupported syntax: '`'"
                    && let Some(o) = offset
                    && let Some(rel) = text.get(o..).and_then(|t| t.find('`'))
                {
                    offset = Some(o + rel);
                }
                // A keyword after `.?` is reported at the keyword, like the syntax error
                // beside it (`.` and `?` are two tokens: blanks may stand around `?`).
                if e.msg == "unsupported ident kind"
                    && let Some(o) = offset
                    && let Some(after) = text
                        .get(o..)
                        .and_then(|t| t.strip_prefix('.'))
                        .and_then(|t| t.trim_start().strip_prefix('?'))
                {
                    offset = Some(text.len() - after.trim_start().len());
                }
                let mut msg = e.msg;
                // cel-go names a reserved word without its leading dot and points at
                // the dot (the identifier's parse context starts there); the crate
                // keeps the dot in the text of a plain identifier and points at the word.
                if let Some(word) = msg.strip_prefix("reserved identifier: ") {
                    let word = word.trim_start_matches('.').to_string();
                    if let Some(o) = offset
                        && let Some(dot) =
                            text.get(..o).and_then(|t| t.trim_end().strip_suffix('.'))
                    {
                        offset = Some(dot.len());
                    }
                    msg = format!("reserved identifier: {word}");
                }
                issues.push(CelError::at(
                    &source,
                    offset,
                    literal_error_text(msg, text, offset, &repairs),
                ));
            }
            if cut.is_some() {
                issues.push(CelError::unlocated(LOOKAHEAD_LIMIT_EXCEEDED));
            }
            if aborted {
                // The parse panicked: cel-go never visits the tree.
                return (Err(issues), true);
            }
            if syntax > 0 {
                for (at, word) in super::parse_has::reserved_conditions(text, &repairs) {
                    let message = format!("reserved identifier: {word}");
                    push_once(&mut issues, &source, Some(at), message);
                }
                for at in super::parse_has::invalid_has_arguments(text, &repairs, &errors_at) {
                    issues.push(CelError::at(
                        &source,
                        Some(at),
                        "invalid argument to has() macro",
                    ));
                }
            }
            add_recovered_tree_errors(text, options, &source, &mut issues);
            if issues.is_empty() {
                issues.push(CelError::at(&source, Some(0), "Syntax error"));
            }
            return (Err(issues), true);
        }
        Err(_) => {
            issues.push(CelError::at(
                &source,
                Some(0),
                "Syntax error: internal parser failure",
            ));
            return (Err(issues), spawned);
        }
    };
    let mut conv = Converter {
        info: &info,
        exp: Expander {
            source: &mut source,
            next_id: max_id(&expr) + 1,
            issues: &mut issues,
            options,
        },
    };
    let expr = conv.convert(&expr);
    if !issues.is_empty() {
        return (Err(issues), true);
    }
    (Ok(Ast { expr, source }), true)
}

/// cel-go reports a bad number literal at the literal's start, which includes its
/// sign (`-9223372036854775809`, `- 1e999`); a `-` after an operand is a binary
/// minus, not a sign.
fn signed_literal_start(text: &str, number: usize) -> usize {
    let before = text.get(..number).unwrap_or("");
    let trimmed = before.trim_end();
    let Some(minus) = trimmed.strip_suffix('-') else {
        return number;
    };
    // The run of minus signs before the number: the first is a binary minus after an
    // operand; the rest are unary. Only a lone unary minus is the literal's sign
    // (ANTLR gives a run of two or more to the negation, `--9223372036854775808`).
    let mut rest = minus.trim_end();
    let mut unary = 1;
    while let Some(r) = rest.strip_suffix('-') {
        rest = r.trim_end();
        unary += 1;
    }
    let prev = rest.chars().last();
    if prev.is_some_and(|c| c.is_alphanumeric() || "_)]}'\"`.".contains(c)) {
        unary -= 1;
    }
    if unary == 1 { minus.len() } else { number }
}

fn max_id(e: &cast::IdedExpr) -> u64 {
    let mut m = e.id;
    let mut visit = |x: &cast::IdedExpr| m = m.max(max_id(x));
    match &e.expr {
        cast::Expr::Call(c) => {
            if let Some(t) = &c.target {
                visit(t);
            }
            c.args.iter().for_each(&mut visit);
        }
        cast::Expr::Select(s) => visit(&s.operand),
        cast::Expr::List(l) => l.elements.iter().for_each(&mut visit),
        cast::Expr::Map(mp) => {
            for en in &mp.entries {
                m = m.max(en.id);
                if let cast::EntryExpr::MapEntry(me) = &en.expr {
                    m = m.max(max_id(&me.key)).max(max_id(&me.value));
                }
            }
        }
        cast::Expr::Struct(st) => {
            for en in &st.entries {
                m = m.max(en.id);
                if let cast::EntryExpr::StructField(f) = &en.expr {
                    m = m.max(max_id(&f.value));
                }
            }
        }
        cast::Expr::Comprehension(c) => {
            for x in [
                &c.iter_range,
                &c.accu_init,
                &c.loop_cond,
                &c.loop_step,
                &c.result,
            ] {
                m = m.max(max_id(x));
            }
        }
        _ => {}
    }
    m
}

/// Byte offset of a 1-based line and 1-based character column.
fn offset_of_line_col(text: &str, line: isize, column: isize) -> Option<usize> {
    if line < 1 {
        return Some(0);
    }
    let mut start = 0usize;
    for (i, l) in text.split('\n').enumerate() {
        if i as isize + 1 == line {
            let col = (column.max(1) - 1) as usize;
            let within = l.char_indices().nth(col).map(|(b, _)| b).unwrap_or(l.len());
            return Some(start + within);
        }
        start += l.len() + 1;
    }
    Some(text.len())
}

/// Converts the crate's tree into ours (macros expanded on the way).
struct Converter<'a, 'b> {
    info: &'a cast::SourceInfo,
    exp: Expander<'b>,
}

/// Expands macro calls into cel-go's comprehensions, for both front ends (the crate's
/// parser through [`Converter`], and [`super::fastparse`]): new nodes get ids from
/// `next_id` on, in the order the calls are completed (post-order), placed where the
/// macro call is.
pub(super) struct Expander<'a> {
    pub(super) source: &'a mut Source,
    pub(super) next_id: u64,
    pub(super) issues: &'a mut Issues,
    pub(super) options: ParseOptions,
}

/// Where cel-go places a number literal whose token starts at byte `start`: its
/// grammar makes the sign part of the literal (`-1` is one literal), so a negative
/// literal starts at its `-`; a zero keeps no sign in its value, so then the `-` counts
/// as the literal's sign where a binary minus cannot stand (after an operator, an
/// opening bracket, a separator, or at the start).
pub(super) fn literal_offset(text: &str, start: usize, negative: bool, zero: bool) -> usize {
    if !negative && !zero {
        return start;
    }
    let ws: &[char] = &[' ', '\t', '\n', '\r', '\x0c'];
    let before = text.get(..start).unwrap_or("");
    let trimmed = before.trim_end_matches(ws);
    let Some(sign_at) = trimmed.strip_suffix('-').map(str::len) else {
        return start;
    };
    let unary_position = || {
        trimmed[..sign_at]
            .trim_end_matches(ws)
            .chars()
            .last()
            .is_none_or(|c| "([{,:?!=<>&|+*/%".contains(c))
    };
    if negative || unary_position() {
        sign_at
    } else {
        start
    }
}

impl Converter<'_, '_> {
    fn record(&mut self, id: ExprId) {
        if let Some((start, _)) = self.info.offset_for(id) {
            self.exp.source.offsets.insert(id, start as usize);
        }
    }

    /// The crate places a number literal at its digits; cel-go at its sign
    /// ([`literal_offset`]).
    fn place_negative_literal(&mut self, e: &cast::IdedExpr) {
        let (negative, zero) = match &e.expr {
            cast::Expr::Literal(cast::LiteralValue::Int(i)) => (*i.inner() < 0, *i.inner() == 0),
            cast::Expr::Literal(cast::LiteralValue::Double(d)) => {
                (d.inner().is_sign_negative(), *d.inner() == 0.0)
            }
            _ => (false, false),
        };
        if !negative && !zero {
            return;
        }
        let Some(start) = self.exp.source.offset(e.id) else {
            return;
        };
        let placed = literal_offset(&self.exp.source.text, start, negative, zero);
        self.exp.source.offsets.insert(e.id, placed);
    }

    fn convert(&mut self, e: &cast::IdedExpr) -> Expr {
        self.record(e.id);
        let id = e.id;
        self.place_negative_literal(e);
        let kind = match &e.expr {
            cast::Expr::Unspecified => ExprKind::Literal(Literal::Null),
            cast::Expr::Literal(l) => ExprKind::Literal(match l {
                cast::LiteralValue::Boolean(b) => Literal::Bool(*b.inner()),
                cast::LiteralValue::Int(i) => Literal::Int(*i.inner()),
                cast::LiteralValue::UInt(u) => Literal::Uint(*u.inner()),
                cast::LiteralValue::Double(d) => Literal::Double(*d.inner()),
                cast::LiteralValue::String(s) => Literal::String(s.inner().to_string()),
                cast::LiteralValue::Bytes(b) => Literal::Bytes(b.inner().to_vec()),
                cast::LiteralValue::Null => Literal::Null,
            }),
            cast::Expr::Ident(name) => ExprKind::Ident(name.clone()),
            cast::Expr::Select(s) => ExprKind::Select {
                operand: Box::new(self.convert(&s.operand)),
                field: s.field.clone(),
                test_only: s.test,
            },
            cast::Expr::List(l) => ExprKind::List {
                elements: l.elements.iter().map(|x| self.convert(x)).collect(),
                optional_indices: l.optional_indices.clone(),
            },
            cast::Expr::Map(m) => {
                let mut entries = Vec::new();
                for en in &m.entries {
                    self.record(en.id);
                    if let cast::EntryExpr::MapEntry(me) = &en.expr {
                        entries.push(MapEntry {
                            id: en.id,
                            key: self.convert(&me.key),
                            value: self.convert(&me.value),
                            optional: me.optional,
                        });
                    }
                }
                ExprKind::Map { entries }
            }
            cast::Expr::Struct(s) => {
                let mut fields = Vec::new();
                for en in &s.entries {
                    self.record(en.id);
                    if let cast::EntryExpr::StructField(f) = &en.expr {
                        fields.push(StructField {
                            id: en.id,
                            name: f.field.clone(),
                            value: self.convert(&f.value),
                            optional: f.optional,
                        });
                    }
                }
                ExprKind::Struct {
                    type_name: s.type_name.clone(),
                    fields,
                }
            }
            cast::Expr::Comprehension(c) => ExprKind::Comprehension(Box::new(Comprehension {
                iter_range: self.convert(&c.iter_range),
                iter_var: c.iter_var.clone(),
                iter_var2: c.iter_var2.clone(),
                accu_var: c.accu_var.clone(),
                accu_init: self.convert(&c.accu_init),
                loop_condition: self.convert(&c.loop_cond),
                loop_step: self.convert(&c.loop_step),
                result: self.convert(&c.result),
            })),
            cast::Expr::Call(c) => {
                let target = c.target.as_ref().map(|t| self.convert(t));
                let args: Vec<Expr> = c.args.iter().map(|a| self.convert(a)).collect();
                return self.exp.call_or_macro(id, &c.func_name, target, args);
            }
        };
        Expr::new(id, kind)
    }
}

impl Expander<'_> {
    /// A new node placed where `at` is (cel-go's macro-generated nodes).
    fn node(&mut self, at: ExprId, kind: ExprKind) -> Expr {
        let id = self.next_id;
        self.next_id += 1;
        if let Some(o) = self.source.offset(at) {
            self.source.offsets.insert(id, o);
        }
        Expr::new(id, kind)
    }

    fn error(&mut self, at: ExprId, message: &str) -> Expr {
        let offset = self.source.offset(at);
        self.issues.push_at(self.source, offset, message);
        Expr::new(at, ExprKind::Literal(Literal::Null))
    }

    pub(super) fn call_or_macro(
        &mut self,
        id: ExprId,
        function: &str,
        target: Option<Expr>,
        mut args: Vec<Expr>,
    ) -> Expr {
        let n = args.len();
        let o = self.options;
        match (function, target, n) {
            ("has", None, 1) => {
                let arg = args.pop().expect("one argument");
                match arg.kind {
                    ExprKind::Select { operand, field, .. } => self.node(
                        id,
                        ExprKind::Select {
                            operand,
                            field,
                            test_only: true,
                        },
                    ),
                    _ => self.error(arg.id, "invalid argument to has() macro"),
                }
            }
            // `existsOne` with one variable is not a macro in the server's cel-go.
            ("all" | "exists" | "exists_one", Some(t), 2) => {
                let kind = match function {
                    "all" => Quantifier::All,
                    "exists" => Quantifier::Exists,
                    _ => Quantifier::ExistsOne,
                };
                self.quantifier(id, kind, t, args, false)
            }
            ("all" | "exists" | "exists_one" | "existsOne", Some(t), 3)
                if o.two_var_comprehensions =>
            {
                let kind = match function {
                    "all" => Quantifier::All,
                    "exists" => Quantifier::Exists,
                    _ => Quantifier::ExistsOne,
                };
                self.quantifier(id, kind, t, args, true)
            }
            ("map", Some(t), 2 | 3) => self.map(id, t, args),
            ("filter", Some(t), 2) => self.filter(id, t, args),
            ("transformList" | "transformMap" | "transformMapEntry", Some(t), 3 | 4)
                if o.two_var_comprehensions =>
            {
                self.transform(id, function, t, args)
            }
            ("optMap" | "optFlatMap", Some(t), 2) if o.optional_syntax => {
                self.opt_map(id, function == "optFlatMap", t, args)
            }
            ("sortBy", Some(t), 2) if o.sort_by => self.sort_by(id, t, args),
            (_, target, _) => Expr::new(
                id,
                ExprKind::Call {
                    function: function.to_string(),
                    target: target.map(Box::new),
                    args,
                },
            ),
        }
    }

    fn accu(&mut self, at: ExprId) -> Expr {
        self.node(at, ExprKind::Ident(ACCUMULATOR.to_string()))
    }

    fn lit(&mut self, at: ExprId, l: Literal) -> Expr {
        self.node(at, ExprKind::Literal(l))
    }

    fn call(&mut self, at: ExprId, function: &str, args: Vec<Expr>) -> Expr {
        self.node(
            at,
            ExprKind::Call {
                function: function.to_string(),
                target: None,
                args,
            },
        )
    }

    fn member_call(&mut self, at: ExprId, function: &str, target: Expr, args: Vec<Expr>) -> Expr {
        self.node(
            at,
            ExprKind::Call {
                function: function.to_string(),
                target: Some(Box::new(target)),
                args,
            },
        )
    }

    fn list(&mut self, at: ExprId, elements: Vec<Expr>) -> Expr {
        self.node(
            at,
            ExprKind::List {
                elements,
                optional_indices: vec![],
            },
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn comprehension(
        &mut self,
        at: ExprId,
        iter_range: Expr,
        iter_var: String,
        iter_var2: Option<String>,
        accu_var: String,
        accu_init: Expr,
        loop_condition: Expr,
        loop_step: Expr,
        result: Expr,
    ) -> Expr {
        self.node(
            at,
            ExprKind::Comprehension(Box::new(Comprehension {
                iter_range,
                iter_var,
                iter_var2,
                accu_var,
                accu_init,
                loop_condition,
                loop_step,
                result,
            })),
        )
    }

    /// The iteration variable of a one-variable macro, or the error cel-go reports.
    fn iter_var(&mut self, arg: &Expr, not_ident: &str) -> Option<String> {
        match arg.as_ident() {
            None => {
                self.error(arg.id, not_ident);
                None
            }
            Some(v) if v == ACCUMULATOR || v == "__result__" => {
                self.error(arg.id, "iteration variable overwrites accumulator variable");
                None
            }
            Some(v) => Some(v.to_string()),
        }
    }

    fn iter_vars(&mut self, a0: &Expr, a1: &Expr) -> Option<(String, String)> {
        let v1 = match a0.as_ident() {
            Some(v) => v.to_string(),
            None => {
                self.error(a0.id, "argument must be a simple name");
                return None;
            }
        };
        let v2 = match a1.as_ident() {
            Some(v) => v.to_string(),
            None => {
                self.error(a1.id, "argument must be a simple name");
                return None;
            }
        };
        if v1 == v2 {
            self.error(a1.id, &format!("duplicate variable name: {v1}"));
            return None;
        }
        if v1 == ACCUMULATOR || v1 == "__result__" {
            self.error(a0.id, "iteration variable overwrites accumulator variable");
            return None;
        }
        if v2 == ACCUMULATOR || v2 == "__result__" {
            self.error(a1.id, "iteration variable overwrites accumulator variable");
            return None;
        }
        Some((v1, v2))
    }

    fn quantifier(
        &mut self,
        id: ExprId,
        kind: Quantifier,
        target: Expr,
        mut args: Vec<Expr>,
        two: bool,
    ) -> Expr {
        let pred = args.pop().expect("predicate");
        let (v1, v2) = if two {
            let a1 = args.pop().expect("var2");
            let a0 = args.pop().expect("var1");
            match self.iter_vars(&a0, &a1) {
                Some((v1, v2)) => (v1, Some(v2)),
                None => return Expr::new(id, ExprKind::Literal(Literal::Null)),
            }
        } else {
            let a0 = args.pop().expect("var");
            match self.iter_var(&a0, "argument must be a simple name") {
                Some(v) => (v, None),
                None => return Expr::new(id, ExprKind::Literal(Literal::Null)),
            }
        };
        let (init, cond, step, result) = match kind {
            Quantifier::All => {
                let init = self.lit(id, Literal::Bool(true));
                let a = self.accu(id);
                let cond = self.call(id, "@not_strictly_false", vec![a]);
                let a = self.accu(id);
                let step = self.call(id, "_&&_", vec![a, pred]);
                let result = self.accu(id);
                (init, cond, step, result)
            }
            Quantifier::Exists => {
                let init = self.lit(id, Literal::Bool(false));
                let a = self.accu(id);
                let not = self.call(id, "!_", vec![a]);
                let cond = self.call(id, "@not_strictly_false", vec![not]);
                let a = self.accu(id);
                let step = self.call(id, "_||_", vec![a, pred]);
                let result = self.accu(id);
                (init, cond, step, result)
            }
            Quantifier::ExistsOne => {
                let init = self.lit(id, Literal::Int(0));
                let cond = self.lit(id, Literal::Bool(true));
                let a = self.accu(id);
                let one = self.lit(id, Literal::Int(1));
                let add = self.call(id, "_+_", vec![a, one]);
                let a = self.accu(id);
                let step = self.call(id, "_?_:_", vec![pred, add, a]);
                let a = self.accu(id);
                let one = self.lit(id, Literal::Int(1));
                let result = self.call(id, "_==_", vec![a, one]);
                (init, cond, step, result)
            }
        };
        self.comprehension(
            id,
            target,
            v1,
            v2,
            ACCUMULATOR.to_string(),
            init,
            cond,
            step,
            result,
        )
    }

    fn map(&mut self, id: ExprId, target: Expr, mut args: Vec<Expr>) -> Expr {
        let (filter, func) = if args.len() == 3 {
            let f = args.pop().expect("fn");
            (Some(args.pop().expect("filter")), f)
        } else {
            (None, args.pop().expect("fn"))
        };
        let a0 = args.pop().expect("var");
        let Some(v) = self.iter_var(&a0, "argument is not an identifier") else {
            return Expr::new(id, ExprKind::Literal(Literal::Null));
        };
        let init = self.list(id, vec![]);
        let cond = self.lit(id, Literal::Bool(true));
        let a = self.accu(id);
        let l = self.list(id, vec![func]);
        let mut step = self.call(id, "_+_", vec![a, l]);
        if let Some(filter) = filter {
            let a = self.accu(id);
            step = self.call(id, "_?_:_", vec![filter, step, a]);
        }
        let result = self.accu(id);
        self.comprehension(
            id,
            target,
            v,
            None,
            ACCUMULATOR.to_string(),
            init,
            cond,
            step,
            result,
        )
    }

    fn filter(&mut self, id: ExprId, target: Expr, mut args: Vec<Expr>) -> Expr {
        let filter = args.pop().expect("filter");
        let a0 = args.pop().expect("var");
        let Some(v) = self.iter_var(&a0, "argument is not an identifier") else {
            return Expr::new(id, ExprKind::Literal(Literal::Null));
        };
        let init = self.list(id, vec![]);
        let cond = self.lit(id, Literal::Bool(true));
        let a = self.accu(id);
        let l = self.list(id, vec![a0]);
        let step = self.call(id, "_+_", vec![a, l]);
        let a = self.accu(id);
        let step = self.call(id, "_?_:_", vec![filter, step, a]);
        let result = self.accu(id);
        self.comprehension(
            id,
            target,
            v,
            None,
            ACCUMULATOR.to_string(),
            init,
            cond,
            step,
            result,
        )
    }

    fn transform(&mut self, id: ExprId, function: &str, target: Expr, mut args: Vec<Expr>) -> Expr {
        let (filter, transform) = if args.len() == 4 {
            let t = args.pop().expect("transform");
            (Some(args.pop().expect("filter")), t)
        } else {
            (None, args.pop().expect("transform"))
        };
        let a1 = args.pop().expect("var2");
        let a0 = args.pop().expect("var1");
        let Some((v1, v2)) = self.iter_vars(&a0, &a1) else {
            return Expr::new(id, ExprKind::Literal(Literal::Null));
        };
        let init = if function == "transformList" {
            self.list(id, vec![])
        } else {
            self.node(id, ExprKind::Map { entries: vec![] })
        };
        let cond = self.lit(id, Literal::Bool(true));
        let a = self.accu(id);
        let mut step = match function {
            "transformList" => {
                let l = self.list(id, vec![transform]);
                self.call(id, "_+_", vec![a, l])
            }
            "transformMap" => {
                let k = self.node(id, ExprKind::Ident(v1.clone()));
                self.call(id, "cel.@mapInsert", vec![a, k, transform])
            }
            _ => self.call(id, "cel.@mapInsert", vec![a, transform]),
        };
        if let Some(filter) = filter {
            let a = self.accu(id);
            step = self.call(id, "_?_:_", vec![filter, step, a]);
        }
        let result = self.accu(id);
        self.comprehension(
            id,
            target,
            v1,
            Some(v2),
            ACCUMULATOR.to_string(),
            init,
            cond,
            step,
            result,
        )
    }

    fn opt_map(&mut self, id: ExprId, flat: bool, target: Expr, mut args: Vec<Expr>) -> Expr {
        let map_expr = args.pop().expect("expr");
        let a0 = args.pop().expect("var");
        let Some(var) = a0.as_ident().map(str::to_string) else {
            let name = if flat { "optFlatMap" } else { "optMap" };
            return self.error(
                a0.id,
                &format!("{name}() variable name must be a simple identifier"),
            );
        };
        let target_copy = self.copy(&target);
        let has_value = self.member_call(id, "hasValue", target, vec![]);
        let empty = self.list(id, vec![]);
        let value = self.member_call(id, "value", target_copy, vec![]);
        let f = self.lit(id, Literal::Bool(false));
        let ident = self.node(id, ExprKind::Ident(var.clone()));
        let mut compr = self.comprehension(
            id,
            empty,
            "#unused".to_string(),
            None,
            var,
            value,
            f,
            ident,
            map_expr,
        );
        if !flat {
            compr = self.call(id, "optional.of", vec![compr]);
        }
        let none = self.call(id, "optional.none", vec![]);
        self.call(id, "_?_:_", vec![has_value, compr, none])
    }

    fn sort_by(&mut self, id: ExprId, target: Expr, args: Vec<Expr>) -> Expr {
        const INPUT: &str = "@__sortBy_input__";
        let var_ident = self.node(id, ExprKind::Ident(INPUT.to_string()));
        let allowed = matches!(
            target.kind,
            ExprKind::List { .. }
                | ExprKind::Select { .. }
                | ExprKind::Ident(_)
                | ExprKind::Comprehension(_)
                | ExprKind::Call { .. }
        );
        if !allowed {
            return self.error(
                target.id,
                "sortBy can only be applied to a list, identifier, comprehension, call or select expression",
            );
        }
        let input_copy = self.copy(&var_ident);
        let map_compr = self.map(id, input_copy, args);
        let input_copy = self.copy(&var_ident);
        let call = self.member_call(id, "@sortByAssociatedKeys", input_copy, vec![map_compr]);
        let empty = self.list(id, vec![]);
        let f = self.lit(id, Literal::Bool(false));
        self.comprehension(
            id,
            empty,
            "#unused".to_string(),
            None,
            INPUT.to_string(),
            target,
            f,
            var_ident,
            call,
        )
    }

    /// A deep copy with fresh ids at the same positions.
    fn copy(&mut self, e: &Expr) -> Expr {
        let kind = match &e.kind {
            ExprKind::Literal(_) | ExprKind::Ident(_) => e.kind.clone(),
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => ExprKind::Select {
                operand: Box::new(self.copy(operand)),
                field: field.clone(),
                test_only: *test_only,
            },
            ExprKind::Call {
                function,
                target,
                args,
            } => ExprKind::Call {
                function: function.clone(),
                target: target.as_ref().map(|t| Box::new(self.copy(t))),
                args: args.iter().map(|a| self.copy(a)).collect(),
            },
            ExprKind::List {
                elements,
                optional_indices,
            } => ExprKind::List {
                elements: elements.iter().map(|a| self.copy(a)).collect(),
                optional_indices: optional_indices.clone(),
            },
            ExprKind::Map { entries } => ExprKind::Map {
                entries: entries
                    .iter()
                    .map(|en| MapEntry {
                        id: en.id,
                        key: self.copy(&en.key),
                        value: self.copy(&en.value),
                        optional: en.optional,
                    })
                    .collect(),
            },
            ExprKind::Struct { type_name, fields } => ExprKind::Struct {
                type_name: type_name.clone(),
                fields: fields
                    .iter()
                    .map(|f| StructField {
                        id: f.id,
                        name: f.name.clone(),
                        value: self.copy(&f.value),
                        optional: f.optional,
                    })
                    .collect(),
            },
            ExprKind::Comprehension(c) => ExprKind::Comprehension(Box::new(Comprehension {
                iter_range: self.copy(&c.iter_range),
                iter_var: c.iter_var.clone(),
                iter_var2: c.iter_var2.clone(),
                accu_var: c.accu_var.clone(),
                accu_init: self.copy(&c.accu_init),
                loop_condition: self.copy(&c.loop_condition),
                loop_step: self.copy(&c.loop_step),
                result: self.copy(&c.result),
            })),
        };
        self.node(e.id, kind)
    }
}

#[derive(Clone, Copy)]
enum Quantifier {
    All,
    Exists,
    ExistsOne,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset_of(ast: &Ast, pred: impl Fn(&Expr) -> bool) -> Option<usize> {
        let mut found = None;
        ast.expr.walk(&mut |e| {
            if found.is_none() && pred(e) {
                found = ast.source.offset(e.id);
            }
        });
        found
    }

    #[test]
    fn cached_parses_equal_fresh_ones() {
        for (text, options) in [
            (
                "self.a.all(x, x > 0) && self.b == 'c'",
                ParseOptions::default(),
            ),
            (
                "self.?a.orValue(1) > 0",
                ParseOptions {
                    optional_syntax: false,
                    ..ParseOptions::default()
                },
            ),
            ("self.a +", ParseOptions::default()),
        ] {
            let fresh = parse_uncached(text, options).0;
            // The first call may fill the cache, the second hits it.
            for _ in 0..2 {
                match (parse(text, options), &fresh) {
                    (Ok(a), Ok(b)) => {
                        assert_eq!(a.expr, b.expr, "{text}");
                        assert_eq!(a.source.text, b.source.text);
                        assert_eq!(a.source.offsets, b.source.offsets);
                    }
                    (Err(a), Err(b)) => assert_eq!(&a, b, "{text}"),
                    (a, b) => panic!("{text}: {a:?} vs {b:?}"),
                }
            }
        }
    }

    #[test]
    fn parse_cache_stays_within_its_budget() {
        let mut cache = ParseCache::default();
        let options = ParseOptions::default();
        let text = format!("self.a == '{}'", "x".repeat(ParseCache::MAX_TEXT - 20));
        let (parsed, cacheable) = parse_uncached(&text, options);
        assert!(cacheable);
        let mut i = 0usize;
        while cache.bytes + 2 * text.len() + 3 * ParseCache::NODE_BYTES <= ParseCache::MAX_BYTES {
            cache.insert(options.key(), &format!("{text}{i}"), &parsed);
            i += 1;
        }
        let (len, bytes) = (cache.entries[usize::from(options.key())].len(), cache.bytes);
        // Past the budget: refused.
        cache.insert(options.key(), &format!("{text}-"), &parsed);
        assert_eq!(cache.entries[usize::from(options.key())].len(), len);
        assert_eq!(cache.bytes, bytes);
        assert!(bytes <= ParseCache::MAX_BYTES);
    }

    #[test]
    fn texts_longer_than_cel_gos_size_limit_are_refused_unread() {
        // Code points, not bytes: 'é' is two bytes and one code point.
        let at_limit = format!("'{}'", "é".repeat(EXPRESSION_SIZE_CODE_POINT_LIMIT - 2));
        assert!(parse(&at_limit, ParseOptions::default()).is_ok());
        let over = format!("'{}' ", "é".repeat(EXPRESSION_SIZE_CODE_POINT_LIMIT - 2));
        let issues = parse(&over, ParseOptions::default()).unwrap_err();
        assert_eq!(
            issues.display(),
            "ERROR: <input>:-1:0: expression code point size exceeds limit: size: 100001, limit 100000"
        );
    }

    #[test]
    fn positions_follow_cel_go() {
        let ast = parse("self.size > 'a'", ParseOptions::default()).unwrap();
        let call = offset_of(
            &ast,
            |e| matches!(&e.kind, ExprKind::Call { function, .. } if function == "_>_"),
        );
        assert_eq!(call, Some(10));
        let sel = offset_of(&ast, |e| matches!(&e.kind, ExprKind::Select { .. }));
        assert_eq!(sel, Some(4));
        let ast = parse("self.x.startsWith('a')", ParseOptions::default()).unwrap();
        let call = offset_of(&ast, |e| matches!(&e.kind, ExprKind::Call { .. }));
        assert_eq!(call, Some(17));
    }

    #[test]
    fn macros_expand() {
        let ast = parse("[1].all(x, x > 0)", ParseOptions::default()).unwrap();
        assert!(matches!(ast.expr.kind, ExprKind::Comprehension(_)));
        let err = parse("has(x)", ParseOptions::default()).unwrap_err();
        assert_eq!(
            err.display(),
            "ERROR: <input>:1:5: invalid argument to has() macro\n | has(x)\n | ....^"
        );
        let err = parse("[1].all(1, true)", ParseOptions::default()).unwrap_err();
        assert_eq!(err.errors[0].message, "argument must be a simple name");
    }

    #[test]
    fn syntax_errors_have_positions() {
        let err = parse("self.a ==", ParseOptions::default()).unwrap_err();
        assert!(
            err.display().starts_with("ERROR: <input>:1:"),
            "{}",
            err.display()
        );
    }
}

#[cfg(test)]
mod depth_tests {
    #[test]
    fn deep_nesting_parses_or_fails_cleanly() {
        let deep = format!("{}1{}", "(".repeat(240), ")".repeat(240));
        assert!(super::parse(&deep, super::ParseOptions::default()).is_ok());
        let deeper = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
        let err = super::parse(&deeper, super::ParseOptions::default()).unwrap_err();
        assert!(!err.errors.is_empty());
    }
}
