//! Go RE2 regular expressions (`regexp.Compile`) on top of the `regex` crate.
//!
//! CRD `pattern`, `patternProperties` and CEL `matches()` are Go regular expressions.
//! The two dialects agree on most syntax but differ in places that change verdicts:
//! Go's `\d \w \s \b` are ASCII, Go has `\Q…\E` and octal escapes, Go treats `[` inside
//! a class and `&&`/`--`/`~~` literally, a `{` that does not start a valid repeat is a
//! literal, repeat counts are capped at 1000 (also across nesting), and a repetition may
//! follow an empty-width assertion. So we parse the Go syntax ourselves, with Go's error
//! texts, and emit an equivalent pattern in the `regex` crate's syntax.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;

/// A Go `regexp/syntax` error; `Display` is exactly Go's `err.Error()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GoRegexError {
    pub code: &'static str,
    pub expr: String,
}

impl fmt::Display for GoRegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error parsing regexp: {}: `{}`", self.code, self.expr)
    }
}

const MISSING_BRACKET: &str = "missing closing ]";
const MISSING_PAREN: &str = "missing closing )";
const UNEXPECTED_PAREN: &str = "unexpected )";
const INVALID_ESCAPE: &str = "invalid escape sequence";
const INVALID_CHAR_RANGE: &str = "invalid character class range";
const INVALID_NAMED_CAPTURE: &str = "invalid named capture";
const INVALID_PERL_OP: &str = "invalid or unsupported Perl syntax";
const INVALID_REPEAT_OP: &str = "invalid nested repetition operator";
const INVALID_REPEAT_SIZE: &str = "invalid repeat count";
const MISSING_REPEAT_ARGUMENT: &str = "missing argument to repetition operator";
const TRAILING_BACKSLASH: &str = "trailing backslash at end of expression";
const NESTING_DEPTH: &str = "expression nests too deeply";
const TOO_LARGE: &str = "expression too large";

/// Go's limit on the height of the parse tree (`maxHeight`).
const MAX_HEIGHT: u32 = 1000;
/// Go's limit on the compiled size in instructions (`maxSize`: 128 MiB of 40-byte insts).
const MAX_SIZE: u64 = (128 << 20) / 40;
/// The regex crate's default budget for one compiled pattern, in MiB. Go counts a
/// character class as one instruction; the regex crate compiles it to a UTF-8
/// automaton (`\p{L}{1,1000}` alone takes 100 MB and a quarter of a second), so a
/// pattern Go accepts can be too large to match here.
pub const DEFAULT_MATCH_SIZE_MIB: usize = 64;

static MATCH_SIZE_MIB: AtomicUsize = AtomicUsize::new(DEFAULT_MATCH_SIZE_MIB);

/// Sets the budget (`--max-regex-size`); call before any pattern is compiled, since
/// compiled patterns are cached for the process.
pub fn set_match_size_limit_mib(mib: usize) {
    MATCH_SIZE_MIB.store(mib, Ordering::Relaxed);
}

/// The budget for one compiled pattern, in MiB.
pub fn match_size_limit_mib() -> usize {
    MATCH_SIZE_MIB.load(Ordering::Relaxed)
}
/// Go's limit on repeat counts, also applied to the product of nested counted repeats.
const MAX_REPEAT: u64 = 1000;

/// Why a pattern cannot be used for matching.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RegexError {
    /// Go's `regexp.Compile` refuses the pattern; the text is Go's `err.Error()`.
    Invalid(String),
    /// Go accepts the pattern, but compiled for matching here it would exceed
    /// [`match_size_limit_mib`]: crdlint cannot tell what it matches.
    TooLargeToMatch,
}

impl RegexError {
    /// Go's error text when the server refuses the pattern; `None` when it accepts it.
    pub fn go_error(&self) -> Option<&str> {
        match self {
            RegexError::Invalid(text) => Some(text),
            RegexError::TooLargeToMatch => None,
        }
    }
}

impl fmt::Display for RegexError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RegexError::Invalid(text) => f.write_str(text),
            RegexError::TooLargeToMatch => write!(
                f,
                "the regular expression is valid, but its compiled form exceeds crdlint's {} MiB matching budget (--max-regex-size)",
                match_size_limit_mib()
            ),
        }
    }
}

/// Go's verdict on a pattern: its `err.Error()` text when `regexp.Compile` refuses it.
/// The translation alone decides it ([`compile_go`] refuses a pattern as invalid only
/// when it does not translate), so nothing is compiled: CRD validation asks for every
/// pattern, and resources use a few of them.
pub fn go_error(pattern: &str) -> Option<String> {
    verdict(pattern).go_error
}

/// What the translation tells of a pattern without compiling it.
#[derive(Clone)]
struct Verdict {
    /// Go's error text when it refuses the pattern.
    go_error: Option<String>,
    /// Go's size estimate of the compiled pattern, in instructions (0 when refused).
    go_size: u64,
}

/// The translation's verdict on `pattern`, cached for the process: CRDs repeat the
/// same patterns many times, and a lookup costs less than a translation.
fn verdict(pattern: &str) -> Verdict {
    /// Entries kept at most (each holds its pattern and at most an error text).
    const CACHE_CAPACITY: usize = 16384;
    /// Bytes of patterns and error texts kept at most: patterns come from the input,
    /// and the cache must not grow with the number of files.
    const CACHE_BUDGET: usize = 8 << 20;
    #[derive(Default)]
    struct Cache {
        entries: HashMap<String, Verdict>,
        charged: usize,
    }
    static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);
    if let Some(hit) = CACHE
        .lock()
        .ok()
        .and_then(|c| c.entries.get(pattern).cloned())
    {
        return hit;
    }
    let verdict = match Translator::new(pattern, false).translate() {
        Ok(translated) => Verdict {
            go_error: None,
            go_size: translated.go_size,
        },
        Err(e) => Verdict {
            go_error: Some(e.to_string()),
            go_size: 0,
        },
    };
    let cost = pattern.len() + verdict.go_error.as_ref().map_or(0, String::len);
    if let Ok(mut cache) = CACHE.lock()
        && cache.entries.len() < CACHE_CAPACITY
        && cache.charged.saturating_add(cost) <= CACHE_BUDGET
    {
        cache.charged += cost;
        cache.entries.insert(pattern.to_string(), verdict.clone());
    }
    verdict
}

/// Compiles a Go regular expression; a pattern Go refuses gives Go's `err.Error()`
/// text, e.g. ``error parsing regexp: missing closing ]: `[a-z` ``.
///
/// Compiled patterns are cached for the process: CRDs repeat the same patterns many
/// times (condition types, names, quantities), defaults, resource validators and CEL
/// compile them, and building a regex costs far more than a lookup. (CRD validation
/// needs only Go's verdict, [`go_error`], which compiles nothing.)
/// Every user shares the one compiled regex, and so its match caches: a clone of a
/// `Regex` starts a cache of its own (a lazy DFA built again on first use, ~5,700
/// clones on the corpus).
/// The cache is bounded by an estimate of the memory its regexes hold, since a short
/// pattern can compile to tens of megabytes (`\p{L}{1,300}`).
pub fn compile_go(pattern: &str) -> Result<Arc<Regex>, RegexError> {
    /// Entries kept at most.
    const CACHE_CAPACITY: usize = 4096;
    /// Estimated bytes the cached regexes may hold.
    const CACHE_BUDGET: usize = 256 << 20;
    #[derive(Default)]
    struct Cache {
        entries: HashMap<String, Result<Arc<Regex>, RegexError>>,
        charged: usize,
    }
    static CACHE: LazyLock<Mutex<Cache>> = LazyLock::new(Mutex::default);
    if let Some(hit) = CACHE
        .lock()
        .ok()
        .and_then(|c| c.entries.get(pattern).cloned())
    {
        return hit;
    }
    let (compiled, cost) = compile_uncached(pattern);
    let cost = cost.saturating_add(pattern.len());
    if let Ok(mut cache) = CACHE.lock()
        && cache.entries.len() < CACHE_CAPACITY
        && cache.charged.saturating_add(cost) <= CACHE_BUDGET
    {
        cache.charged += cost;
        cache.entries.insert(pattern.to_string(), compiled.clone());
    }
    compiled
}

/// Whether `pattern` is one Go accepts but that, compiled for matching, would exceed
/// [`match_size_limit_mib`]. Compiled (and cached) only when [`certainly_fits`] cannot
/// tell.
pub fn too_large_to_match(pattern: &str) -> bool {
    !certainly_fits(pattern) && matches!(compile_go(pattern), Err(RegexError::TooLargeToMatch))
}

/// Compiled bytes allowed for each instruction of Go's size estimate. Go counts a
/// character class as one instruction; the `regex` crate compiles it to a UTF-8
/// automaton. 1,024-byte patterns of `.`, `\W`, `\S+`, `(.*)`, `[^a]`, `(?i)[^k]` each
/// compile within 1 MiB (and some not within 256 KiB): under 1 KiB an instruction, so
/// 4 KiB leaves a margin of four.
const BYTES_PER_GO_INSTRUCTION: u64 = 4 << 10;

/// Whether a pattern Go accepts certainly compiles within the matching budget, told
/// from Go's own size estimate (which the translation computes) without compiling.
/// Unicode classes (`\pL`, `\p{Greek}`) are one instruction for Go but up to ~100 KiB
/// compiled, so a pattern with one is never certain.
fn certainly_fits(pattern: &str) -> bool {
    certainly_fits_within(
        pattern,
        (match_size_limit_mib() as u64).saturating_mul(1 << 20),
    )
}

fn certainly_fits_within(pattern: &str, budget: u64) -> bool {
    if pattern.contains("\\p") || pattern.contains("\\P") {
        return false;
    }
    let verdict = verdict(pattern);
    verdict.go_error.is_none() && verdict.go_size.saturating_mul(BYTES_PER_GO_INSTRUCTION) <= budget
}

/// Compiles `pattern` and returns an upper bound of the compiled size: the smallest of
/// growing size limits it fits in (a failed attempt stops at its limit, so the tiers
/// cost little), or 0 for an error.
fn compile_uncached(pattern: &str) -> (Result<Arc<Regex>, RegexError>, usize) {
    let translated = match translate(pattern) {
        Ok(t) => t,
        Err(e) => return (Err(RegexError::Invalid(e.to_string())), 0),
    };
    let full = match_size_limit_mib().saturating_mul(1 << 20);
    for limit in [64 << 10, 1 << 20, full] {
        let limit = limit.min(full);
        let built = regex::RegexBuilder::new(&translated)
            .size_limit(limit)
            // The translation keeps Go's limits (height 1000); Go allows any depth of
            // non-capturing groups, and the regex crate's parser does not recurse.
            .nest_limit(u32::MAX)
            .build();
        if let Ok(re) = built {
            return (Ok(Arc::new(re)), limit);
        }
        if limit == full {
            break;
        }
    }
    (Err(RegexError::TooLargeToMatch), 0)
}

/// Translates Go syntax into `regex` crate syntax with the same meaning, with no
/// capture groups.
pub fn translate(pattern: &str) -> Result<String, GoRegexError> {
    Translator::new(pattern, false).run()
}

/// Compiles a Go regular expression that keeps its capture groups, for crdlint's own
/// patterns that read submatches (formats); not cached.
pub fn compile_go_capturing(pattern: &str) -> Result<Regex, RegexError> {
    let translated = Translator::new(pattern, true)
        .run()
        .map_err(|e| RegexError::Invalid(e.to_string()))?;
    Regex::new(&translated).map_err(|_| RegexError::TooLargeToMatch)
}

fn err(code: &'static str, expr: &str) -> GoRegexError {
    GoRegexError {
        code,
        expr: expr.to_string(),
    }
}

/// One open group (or the whole expression) while translating.
struct Frame {
    /// Where the group starts in the output.
    out_start: usize,
    /// A capturing group: a node of its own in Go's parse tree.
    capturing: bool,
    /// The items since the last `|`, and the largest threshold of earlier alternatives.
    items: Vec<Item>,
    alternatives_max: u64,
    /// The shapes of the alternatives before the last `|`.
    alternatives: Vec<Shape>,
}

#[derive(Clone, Copy)]
struct Item {
    /// Where the item starts in the output.
    out_start: usize,
    /// The smallest budget `n` for which Go's nested repeat check passes on this item.
    threshold: u64,
    /// A repetition operator has been applied to it.
    repeated: bool,
    shape: Shape,
}

/// What Go's parser limits measure of a node of its parse tree: the compiled size it
/// estimates (`calcSize`) and the height (`calcHeight`). Go merges adjacent literals
/// into one node and flattens a concatenation inside a concatenation (and alternation
/// inside alternation), which `kind` lets the parent do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Shape {
    size: u64,
    height: u32,
    kind: ShapeKind,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ShapeKind {
    Literal,
    /// A character class, `.` or `\pL`: one node whatever it matches.
    Class,
    /// With the largest height among its children.
    Concat(u32),
    Alternate(u32),
    Other,
}

impl Shape {
    const ATOM: Shape = Shape {
        size: 1,
        height: 1,
        kind: ShapeKind::Other,
    };
    const CLASS: Shape = Shape {
        size: 1,
        height: 1,
        kind: ShapeKind::Class,
    };
    const LITERAL: Shape = Shape {
        size: 1,
        height: 1,
        kind: ShapeKind::Literal,
    };

    fn node(size: u64, child_height: u32) -> Shape {
        Shape {
            size: size.max(1),
            height: child_height.saturating_add(1),
            kind: ShapeKind::Other,
        }
    }

    fn concat(items: &[Item]) -> Shape {
        match items {
            [] => Shape::ATOM,
            [one] => one.shape,
            _ => {
                let size = items
                    .iter()
                    .fold(0u64, |a, i| a.saturating_add(i.shape.size));
                if items.iter().all(|i| i.shape.kind == ShapeKind::Literal) {
                    return Shape {
                        size,
                        ..Shape::LITERAL
                    };
                }
                let child = items
                    .iter()
                    .map(|i| match i.shape.kind {
                        ShapeKind::Concat(c) => c,
                        _ => i.shape.height,
                    })
                    .max()
                    .unwrap_or(1);
                Shape {
                    kind: ShapeKind::Concat(child),
                    ..Shape::node(size, child)
                }
            }
        }
    }

    fn alternate(alternatives: &[Shape]) -> Shape {
        // Go merges each run of single characters and classes into one class.
        let is_char =
            |s: &Shape| s.kind == ShapeKind::Class || (s.kind == ShapeKind::Literal && s.size == 1);
        let mut merged: Vec<Shape> = Vec::with_capacity(alternatives.len());
        for s in alternatives {
            match merged.last_mut() {
                Some(last) if is_char(last) && is_char(s) => *last = Shape::CLASS,
                _ => merged.push(*s),
            }
        }
        let alternatives = merged.as_slice();
        match alternatives {
            [] => Shape::ATOM,
            [one] => *one,
            _ => {
                let size = alternatives
                    .iter()
                    .fold(alternatives.len() as u64 - 1, |a, s| {
                        a.saturating_add(s.size)
                    });
                let child = alternatives
                    .iter()
                    .map(|s| match s.kind {
                        ShapeKind::Alternate(c) => c,
                        _ => s.height,
                    })
                    .max()
                    .unwrap_or(1);
                Shape {
                    kind: ShapeKind::Alternate(child),
                    ..Shape::node(size, child)
                }
            }
        }
    }

    /// `sub` under a repetition: `*`, `+`, `?` or `{min,max}` (max -1: no maximum).
    fn repeat(sub: Shape, op: char, counted: Option<(i64, i64)>) -> Shape {
        let size = match (op, counted) {
            (_, Some((min, max))) => {
                let (min, max) = (min.max(0) as u64, max);
                if max < 0 {
                    if min == 0 {
                        sub.size.saturating_add(2)
                    } else {
                        min.saturating_mul(sub.size).saturating_add(1)
                    }
                } else {
                    let max = max as u64;
                    max.saturating_mul(sub.size)
                        .saturating_add(max.saturating_sub(min))
                }
            }
            ('*', None) => sub.size.saturating_add(2),
            _ => sub.size.saturating_add(1),
        };
        Shape::node(size, sub.height)
    }
}

impl Frame {
    fn new(out_start: usize, capturing: bool) -> Self {
        Frame {
            out_start,
            capturing,
            items: Vec::new(),
            alternatives_max: 0,
            alternatives: Vec::new(),
        }
    }

    /// Ends the current alternative (at `|` or the end of the group).
    fn close_alternative(&mut self) -> Shape {
        let shape = Shape::concat(&self.items);
        self.alternatives.push(shape);
        shape
    }

    fn threshold(&self) -> u64 {
        self.items
            .iter()
            .map(|i| i.threshold)
            .fold(self.alternatives_max, u64::max)
    }
}

/// A translated pattern and Go's estimate of its compiled size, in instructions.
struct Translated {
    text: String,
    go_size: u64,
}

struct Translator<'a> {
    whole: &'a str,
    pos: usize,
    out: String,
    frames: Vec<Frame>,
    /// Flags set by `(?flags)` not yet written: written before the next item so a
    /// repetition right after them still applies to the previous item, as in Go.
    pending_flags: String,
    /// Start of the previous token in the pattern when it was a repetition operator.
    last_repeat: Option<usize>,
    /// Emit capture groups as captures (else as non-capturing groups).
    keep_captures: bool,
}

impl<'a> Translator<'a> {
    fn new(whole: &'a str, keep_captures: bool) -> Self {
        Translator {
            whole,
            pos: 0,
            out: String::with_capacity(whole.len() * 2),
            frames: vec![Frame::new(0, false)],
            pending_flags: String::new(),
            last_repeat: None,
            keep_captures,
        }
    }

    fn rest(&self) -> &'a str {
        &self.whole[self.pos..]
    }

    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("root frame")
    }

    fn flush_flags(&mut self) {
        if !self.pending_flags.is_empty() {
            let flags = std::mem::take(&mut self.pending_flags);
            self.out.push_str(&flags);
        }
    }

    /// Starts a new item: pending flags first, then remember where it begins.
    fn begin_item(&mut self) -> usize {
        self.flush_flags();
        self.out.len()
    }

    fn push_item(&mut self, out_start: usize, threshold: u64) {
        self.push_shaped(out_start, threshold, Shape::ATOM);
    }

    fn push_shaped(&mut self, out_start: usize, threshold: u64, shape: Shape) {
        self.frame().items.push(Item {
            out_start,
            threshold,
            repeated: false,
            shape,
        });
    }

    fn literal(&mut self, c: char) {
        let start = self.begin_item();
        push_literal(&mut self.out, c);
        self.push_shaped(start, 0, Shape::LITERAL);
    }

    /// Go's `checkSize` and `checkHeight` on a node just built.
    fn check_limits(&self, shape: Shape) -> Result<(), GoRegexError> {
        if shape.size > MAX_SIZE {
            return Err(err(TOO_LARGE, self.whole));
        }
        if shape.height > MAX_HEIGHT {
            return Err(err(NESTING_DEPTH, self.whole));
        }
        Ok(())
    }

    fn run(self) -> Result<String, GoRegexError> {
        self.translate().map(|t| t.text)
    }

    /// The translation, with Go's size estimate of the whole expression.
    fn translate(mut self) -> Result<Translated, GoRegexError> {
        while self.pos < self.whole.len() {
            let token_start = self.pos;
            let mut was_repeat = false;
            let rest = self.rest();
            let c = rest.chars().next().expect("non-empty");
            match c {
                '(' => {
                    if rest.starts_with("(?") {
                        self.perl_flags()?;
                    } else {
                        // Nothing in a CRD reads submatches (matches, find and
                        // findAll use the whole match), and capture slots cost the
                        // regex crate's PikeVM states × groups of memory.
                        self.open_capture();
                        self.pos += 1;
                    }
                }
                '|' => {
                    self.flush_flags();
                    self.out.push('|');
                    let frame = self.frame();
                    let t = frame.threshold();
                    frame.alternatives_max = t;
                    let shape = frame.close_alternative();
                    frame.items.clear();
                    self.check_limits(shape)?;
                    self.pos += 1;
                }
                ')' => {
                    self.close_group()?;
                    self.pos += 1;
                }
                '^' | '$' | '.' => {
                    let start = self.begin_item();
                    match c {
                        // Wrapped so that a repetition may follow, as Go allows.
                        '^' => self.out.push_str("(?:^)"),
                        '$' => self.out.push_str("(?:$)"),
                        _ => self.out.push('.'),
                    }
                    self.push_shaped(start, 0, if c == '.' { Shape::CLASS } else { Shape::ATOM });
                    self.pos += 1;
                }
                '[' => self.class()?,
                '*' | '+' | '?' => {
                    let after = self.pos + 1;
                    self.repeat(token_start, after, c.to_string(), None)?;
                    was_repeat = true;
                }
                '{' => match parse_repeat(rest) {
                    None => {
                        self.literal('{');
                        self.pos += 1;
                    }
                    Some((min, max, len)) => {
                        let after = self.pos + len;
                        let bad = min < 0
                            || min > MAX_REPEAT as i64
                            || max > MAX_REPEAT as i64
                            || (max >= 0 && min > max);
                        if bad {
                            return Err(err(INVALID_REPEAT_SIZE, &self.whole[token_start..after]));
                        }
                        let op = match max {
                            -1 => format!("{{{min},}}"),
                            m if m == min => format!("{{{min}}}"),
                            m => format!("{{{min},{m}}}"),
                        };
                        self.repeat(token_start, after, op, Some((min, max)))?;
                        was_repeat = true;
                    }
                },
                '\\' => self.escape()?,
                _ => {
                    self.literal(c);
                    self.pos += c.len_utf8();
                }
            }
            self.last_repeat = was_repeat.then_some(token_start);
        }
        let root = self.frame().close_alternative();
        self.check_limits(root)?;
        if self.frames.len() != 1 {
            return Err(err(MISSING_PAREN, self.whole));
        }
        let whole = Shape::alternate(&self.frame().alternatives);
        self.check_limits(whole)?;
        Ok(Translated {
            text: self.out,
            go_size: whole.size,
        })
    }

    fn open_capture(&mut self) {
        let text = if self.keep_captures { "(" } else { "(?:" };
        self.open_group(text, true);
    }

    fn open_group(&mut self, text: &str, capturing: bool) {
        let start = self.begin_item();
        self.out.push_str(text);
        self.frames.push(Frame::new(start, capturing));
    }

    fn close_group(&mut self) -> Result<(), GoRegexError> {
        if self.frames.len() < 2 {
            return Err(err(UNEXPECTED_PAREN, self.whole));
        }
        // Flags pending at the end of a group die with it.
        self.pending_flags.clear();
        let mut frame = self.frames.pop().expect("checked");
        self.out.push(')');
        let last = frame.close_alternative();
        self.check_limits(last)?;
        let mut shape = Shape::alternate(&frame.alternatives);
        if frame.capturing {
            shape = Shape::node(shape.size.saturating_add(2), shape.height);
        }
        self.check_limits(shape)?;
        self.push_shaped(frame.out_start, frame.threshold(), shape);
        Ok(())
    }

    /// `(?…`: flags, non-capturing groups and named captures.
    fn perl_flags(&mut self) -> Result<(), GoRegexError> {
        let s = self.rest();
        let starts_with_p = s.len() > 4 && s.as_bytes()[2] == b'P' && s.as_bytes()[3] == b'<';
        let starts_with_name = s.len() > 3 && s.as_bytes()[2] == b'<';
        if starts_with_p || starts_with_name {
            let name_start = if starts_with_p { 4 } else { 3 };
            let Some(end) = s.find('>') else {
                return Err(err(INVALID_NAMED_CAPTURE, s));
            };
            let name = &s[name_start..end];
            let valid =
                !name.is_empty() && name.chars().all(|c| c == '_' || c.is_ascii_alphanumeric());
            if !valid {
                return Err(err(INVALID_NAMED_CAPTURE, &s[..end + 1]));
            }
            // Names do not matter for matching; Go accepts names the regex crate does
            // not (leading digits, duplicates), so emit a plain group.
            self.open_capture();
            self.pos += end + 1;
            return Ok(());
        }
        let mut on = String::new();
        let mut off = String::new();
        let mut negated = false;
        let mut saw_flag = false;
        let mut consumed = 2;
        for c in s[2..].chars() {
            consumed += c.len_utf8();
            match c {
                'i' | 'm' | 's' | 'U' => {
                    let set = if negated { &mut off } else { &mut on };
                    if !set.contains(c) {
                        set.push(c);
                    }
                    saw_flag = true;
                }
                '-' if !negated => {
                    negated = true;
                    saw_flag = false;
                }
                ':' | ')' if !negated || saw_flag => {
                    let mut flags = on;
                    if !off.is_empty() {
                        flags.push('-');
                        flags.push_str(&off);
                    }
                    if c == ':' {
                        let text = if flags.is_empty() {
                            "(?:".to_string()
                        } else {
                            format!("(?{flags}:")
                        };
                        self.open_group(&text, false);
                    } else if !flags.is_empty() {
                        self.pending_flags.push_str(&format!("(?{flags})"));
                    }
                    self.pos += consumed;
                    return Ok(());
                }
                _ => break,
            }
        }
        Err(err(INVALID_PERL_OP, &s[..consumed.min(s.len())]))
    }

    /// A repetition operator `op` spanning `token_start..after` (before an optional
    /// non-greedy `?`). `counted` is `Some((min, max))` for `{}` repeats.
    fn repeat(
        &mut self,
        token_start: usize,
        mut after: usize,
        op: String,
        counted: Option<(i64, i64)>,
    ) -> Result<(), GoRegexError> {
        let mut op = op;
        if self.whole[after..].starts_with('?') {
            after += 1;
            op.push('?');
        }
        if let Some(last) = self.last_repeat {
            return Err(err(INVALID_REPEAT_OP, &self.whole[last..after]));
        }
        let Some(item) = self.frame().items.last().copied() else {
            return Err(err(
                MISSING_REPEAT_ARGUMENT,
                &self.whole[token_start..after],
            ));
        };
        // Go checks the size of the new node before the nested repeat counts.
        let shape = Shape::repeat(item.shape, op.chars().next().unwrap_or('?'), counted);
        self.check_limits(shape)?;
        let mut threshold = item.threshold;
        if let Some((min, max)) = counted {
            let m = if max < 0 { min } else { max } as u64;
            threshold = if max == 0 {
                0
            } else {
                m.max(m.saturating_mul(item.threshold))
            };
            if (min >= 2 || max >= 2) && threshold > MAX_REPEAT {
                return Err(err(INVALID_REPEAT_SIZE, &self.whole[token_start..after]));
            }
        }
        // A repetition of a repetition (possible in Go when a flag group or an empty
        // \Q\E sits between them) needs a group in the regex crate's syntax.
        if item.repeated {
            self.out.insert_str(item.out_start, "(?:");
            self.out.push(')');
        }
        self.out.push_str(&op);
        let frame = self.frame();
        if let Some(last) = frame.items.last_mut() {
            last.threshold = threshold;
            last.repeated = true;
            last.shape = shape;
        }
        self.pos = after;
        Ok(())
    }

    fn escape(&mut self) -> Result<(), GoRegexError> {
        let s = self.rest();
        let bytes = s.as_bytes();
        if bytes.len() >= 2 {
            match bytes[1] {
                b'A' | b'z' | b'b' | b'B' => {
                    let start = self.begin_item();
                    let text = match bytes[1] {
                        b'A' => "(?:\\A)",
                        b'z' => "(?:\\z)",
                        // Go's word boundary is ASCII.
                        b'b' => "(?-u:\\b)",
                        _ => "(?-u:\\B)",
                    };
                    self.out.push_str(text);
                    self.push_item(start, 0);
                    self.pos += 2;
                    return Ok(());
                }
                b'C' => return Err(err(INVALID_ESCAPE, &s[..2])),
                b'Q' => {
                    let body = &s[2..];
                    let (lit, consumed) = match body.find("\\E") {
                        Some(end) => (&body[..end], 2 + end + 2),
                        None => (body, s.len()),
                    };
                    for c in lit.chars() {
                        self.literal(c);
                    }
                    self.pos += consumed;
                    return Ok(());
                }
                _ => {}
            }
        }
        if bytes.len() >= 2 && (bytes[1] == b'p' || bytes[1] == b'P') {
            let (class, len) = unicode_class(s)?;
            let start = self.begin_item();
            self.out.push_str(&class);
            self.push_shaped(start, 0, Shape::CLASS);
            self.pos += len;
            return Ok(());
        }
        if let Some(class) = perl_class(s) {
            let start = self.begin_item();
            self.out.push('[');
            self.out.push_str(class);
            self.out.push(']');
            self.push_shaped(start, 0, Shape::CLASS);
            self.pos += 2;
            return Ok(());
        }
        let (c, len) = parse_escape(s)?;
        self.literal(c);
        self.pos += len;
        Ok(())
    }

    /// `[…]`: Go class syntax, written back with every member escaped.
    fn class(&mut self) -> Result<(), GoRegexError> {
        let whole_class = self.rest();
        let mut t = &whole_class[1..];
        let mut body = String::new();
        if let Some(rest) = t.strip_prefix('^') {
            body.push('^');
            t = rest;
        }
        let mut first = true;
        loop {
            if t.is_empty() {
                return Err(err(MISSING_BRACKET, whole_class));
            }
            if t.starts_with(']') && !first {
                break;
            }
            first = false;
            if t.len() > 2
                && t.starts_with("[:")
                && let Some(i) = t[2..].find(":]")
            {
                {
                    let name = &t[..i + 4];
                    let inner = &name[2..name.len() - 2];
                    let plain = inner.strip_prefix('^').unwrap_or(inner);
                    if !POSIX_CLASSES.contains(&plain) {
                        return Err(err(INVALID_CHAR_RANGE, name));
                    }
                    body.push_str(name);
                    t = &t[name.len()..];
                    continue;
                }
            }
            if t.len() >= 2
                && t.starts_with('\\')
                && (t.as_bytes()[1] == b'p' || t.as_bytes()[1] == b'P')
            {
                let (class, len) = unicode_class(t)?;
                body.push_str(&class);
                t = &t[len..];
                continue;
            }
            if let Some(class) = perl_class(t) {
                if let Some(negated) = class.strip_prefix('^') {
                    body.push_str("[^");
                    body.push_str(negated);
                    body.push(']');
                } else {
                    body.push_str(class);
                }
                t = &t[2..];
                continue;
            }
            let range_start = t;
            let (lo, len) = class_char(t, whole_class)?;
            t = &t[len..];
            let mut hi = lo;
            if t.len() >= 2 && t.starts_with('-') && !t[1..].starts_with(']') {
                let (h, len) = class_char(&t[1..], whole_class)?;
                t = &t[1 + len..];
                hi = h;
                if hi < lo {
                    let used = range_start.len() - t.len();
                    return Err(err(INVALID_CHAR_RANGE, &range_start[..used]));
                }
            }
            push_class_char(&mut body, lo);
            if hi != lo {
                body.push('-');
                push_class_char(&mut body, hi);
            }
        }
        let len = whole_class.len() - t.len() + 1;
        let start = self.begin_item();
        if body.is_empty() || body == "^" {
            // Unreachable in practice (Go requires a member), kept for safety.
            self.out.push_str("[^\\x{0}-\\x{10FFFF}]");
        } else if body == "^\\x{0}-\\x{10FFFF}" {
            // A class matching nothing: the regex crate rejects an empty class.
            self.out.push_str("[a&&b]");
        } else {
            self.out.push('[');
            self.out.push_str(&body);
            self.out.push(']');
        }
        self.push_shaped(start, 0, Shape::CLASS);
        self.pos += len;
        Ok(())
    }
}

const POSIX_CLASSES: &[&str] = &[
    "alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct",
    "space", "upper", "word", "xdigit",
];

/// Go's Perl classes, as class bodies (a leading `^` means negated).
fn perl_class(s: &str) -> Option<&'static str> {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b'\\' {
        return None;
    }
    Some(match b[1] {
        b'd' => "0-9",
        b'D' => "^0-9",
        b's' => "\\t\\n\\x0C\\r ",
        b'S' => "^\\t\\n\\x0C\\r ",
        b'w' => "0-9A-Za-z_",
        b'W' => "^0-9A-Za-z_",
        _ => return None,
    })
}

fn push_literal(out: &mut String, c: char) {
    if c.is_ascii_alphanumeric() {
        out.push(c);
    } else {
        out.push_str(&format!("\\x{{{:X}}}", c as u32));
    }
}

fn push_class_char(out: &mut String, c: char) {
    push_literal(out, c);
}

/// One character inside a class (a literal or an escape).
fn class_char(s: &str, whole_class: &str) -> Result<(char, usize), GoRegexError> {
    if s.is_empty() {
        return Err(err(MISSING_BRACKET, whole_class));
    }
    if s.starts_with('\\') {
        return parse_escape(s);
    }
    let c = s.chars().next().expect("non-empty");
    Ok((c, c.len_utf8()))
}

/// A single-character escape at the start of `s` (which starts with `\`).
fn parse_escape(s: &str) -> Result<(char, usize), GoRegexError> {
    let t = &s[1..];
    let Some(c) = t.chars().next() else {
        return Err(err(TRAILING_BACKSLASH, ""));
    };
    let mut used = 1 + c.len_utf8();
    let invalid = |used: usize| Err(err(INVALID_ESCAPE, &s[..used.min(s.len())]));
    match c {
        '1'..='7' | '0' => {
            let rest = &t[1..];
            let next_is_octal = rest
                .as_bytes()
                .first()
                .is_some_and(|b| (b'0'..=b'7').contains(b));
            if c != '0' && !next_is_octal {
                return invalid(used);
            }
            let mut r = c as u32 - '0' as u32;
            for b in rest.bytes().take(2) {
                if !(b'0'..=b'7').contains(&b) {
                    break;
                }
                r = r * 8 + (b - b'0') as u32;
                used += 1;
            }
            Ok((char::from_u32(r).unwrap_or('\0'), used))
        }
        'x' => {
            let rest = &t[1..];
            let Some(first) = rest.chars().next() else {
                return invalid(used);
            };
            used += first.len_utf8();
            if first == '{' {
                let mut value: u32 = 0;
                for (digits, ch) in rest[1..].chars().enumerate() {
                    used += ch.len_utf8();
                    if ch == '}' {
                        if digits == 0 {
                            return invalid(used);
                        }
                        return match char::from_u32(value) {
                            Some(v) => Ok((v, used)),
                            // Surrogates: Go accepts them as runes; no Rust char exists.
                            None => Ok(('\u{FFFD}', used)),
                        };
                    }
                    let Some(v) = ch.to_digit(16) else {
                        return invalid(used);
                    };
                    value = value * 16 + v;
                    if value > 0x10FFFF {
                        return invalid(used);
                    }
                }
                return invalid(used);
            }
            let Some(second) = rest[first.len_utf8()..].chars().next() else {
                return invalid(used);
            };
            used += second.len_utf8();
            match (first.to_digit(16), second.to_digit(16)) {
                (Some(x), Some(y)) => Ok((char::from_u32(x * 16 + y).unwrap_or('\0'), used)),
                _ => invalid(used),
            }
        }
        'a' => Ok(('\u{7}', used)),
        'f' => Ok(('\u{C}', used)),
        'n' => Ok(('\n', used)),
        'r' => Ok(('\r', used)),
        't' => Ok(('\t', used)),
        'v' => Ok(('\u{B}', used)),
        c if c.is_ascii() && !c.is_ascii_alphanumeric() => Ok((c, used)),
        _ => invalid(used),
    }
}

/// `\pX`, `\p{Name}`, `\P…`, `\p{^Name}` at the start of `s`: the regex crate's
/// equivalent and the length consumed.
fn unicode_class(s: &str) -> Result<(String, usize), GoRegexError> {
    let mut negated = s.as_bytes()[1] == b'P';
    let t = &s[2..];
    let Some(c) = t.chars().next() else {
        // Go: `\p` at the end is an invalid escape via the ordinary escape path.
        return Err(err(INVALID_ESCAPE, s));
    };
    let (seq, mut name) = if c != '{' {
        let len = 2 + c.len_utf8();
        (&s[..len], &s[2..len])
    } else {
        let Some(end) = s.find('}') else {
            return Err(err(INVALID_CHAR_RANGE, s));
        };
        (&s[..end + 1], &s[3..end])
    };
    if let Some(rest) = name.strip_prefix('^') {
        negated = !negated;
        name = rest;
    }
    let Some((rust_name, table_negated)) = go_unicode_table(name) else {
        return Err(err(INVALID_CHAR_RANGE, seq));
    };
    if table_negated {
        negated = !negated;
    }
    let p = if negated { 'P' } else { 'p' };
    Ok((format!("\\{p}{{{rust_name}}}"), seq.len()))
}

/// Go's `canonicalName`: separators dropped, first letter upper case, rest lower case.
fn canonical_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut first = true;
    for c in name.chars() {
        match c {
            '_' | '-' | ' ' => {}
            c if first => {
                out.push(c.to_ascii_uppercase());
                first = false;
            }
            c => out.push(c.to_ascii_lowercase()),
        }
    }
    out
}

/// Resolves a Unicode class name the way Go 1.26 does; returns the name for the regex
/// crate and whether the table is to be negated.
fn go_unicode_table(name: &str) -> Option<(String, bool)> {
    let canonical = canonical_name(name);
    match canonical.as_str() {
        "Any" => return Some(("Any".into(), false)),
        "Assigned" => return Some(("Cn".into(), true)),
        "Ascii" => return Some(("ASCII".into(), false)),
        "Lc" => return Some(("LC".into(), false)),
        _ => {}
    }
    if GO_CATEGORIES.contains(&canonical.as_str()) || GO_SCRIPTS.contains(&canonical.as_str()) {
        return Some((canonical, false));
    }
    GO_CATEGORY_ALIASES
        .iter()
        .find(|(alias, _)| canonical_name(alias) == canonical)
        .map(|(_, actual)| (actual.to_string(), false))
}

const GO_CATEGORIES: &[&str] = &[
    "C", "Cc", "Cf", "Cn", "Co", "Cs", "L", "Ll", "Lm", "Lo", "Lt", "Lu", "M", "Mc", "Me", "Mn",
    "N", "Nd", "Nl", "No", "P", "Pc", "Pd", "Pe", "Pf", "Pi", "Po", "Ps", "S", "Sc", "Sk", "Sm",
    "So", "Z", "Zl", "Zp", "Zs",
];

/// Go's script names that survive its canonicalisation (one word, capitalised).
const GO_SCRIPTS: &[&str] = &[
    "Adlam",
    "Ahom",
    "Arabic",
    "Armenian",
    "Avestan",
    "Balinese",
    "Bamum",
    "Batak",
    "Bengali",
    "Bhaiksuki",
    "Bopomofo",
    "Brahmi",
    "Braille",
    "Buginese",
    "Buhid",
    "Carian",
    "Chakma",
    "Cham",
    "Cherokee",
    "Chorasmian",
    "Common",
    "Coptic",
    "Cuneiform",
    "Cypriot",
    "Cyrillic",
    "Deseret",
    "Devanagari",
    "Dogra",
    "Duployan",
    "Elbasan",
    "Elymaic",
    "Ethiopic",
    "Georgian",
    "Glagolitic",
    "Gothic",
    "Grantha",
    "Greek",
    "Gujarati",
    "Gurmukhi",
    "Han",
    "Hangul",
    "Hanunoo",
    "Hatran",
    "Hebrew",
    "Hiragana",
    "Inherited",
    "Javanese",
    "Kaithi",
    "Kannada",
    "Katakana",
    "Kawi",
    "Kharoshthi",
    "Khmer",
    "Khojki",
    "Khudawadi",
    "Lao",
    "Latin",
    "Lepcha",
    "Limbu",
    "Lisu",
    "Lycian",
    "Lydian",
    "Mahajani",
    "Makasar",
    "Malayalam",
    "Mandaic",
    "Manichaean",
    "Marchen",
    "Medefaidrin",
    "Miao",
    "Modi",
    "Mongolian",
    "Mro",
    "Multani",
    "Myanmar",
    "Nabataean",
    "Nandinagari",
    "Newa",
    "Nko",
    "Nushu",
    "Ogham",
    "Oriya",
    "Osage",
    "Osmanya",
    "Palmyrene",
    "Phoenician",
    "Rejang",
    "Runic",
    "Samaritan",
    "Saurashtra",
    "Sharada",
    "Shavian",
    "Siddham",
    "Sinhala",
    "Sogdian",
    "Soyombo",
    "Sundanese",
    "Syriac",
    "Tagalog",
    "Tagbanwa",
    "Takri",
    "Tamil",
    "Tangsa",
    "Tangut",
    "Telugu",
    "Thaana",
    "Thai",
    "Tibetan",
    "Tifinagh",
    "Tirhuta",
    "Toto",
    "Ugaritic",
    "Vai",
    "Vithkuqi",
    "Wancho",
    "Yezidi",
    "Yi",
];

const GO_CATEGORY_ALIASES: &[(&str, &str)] = &[
    ("Cased_Letter", "LC"),
    ("Close_Punctuation", "Pe"),
    ("Combining_Mark", "M"),
    ("Connector_Punctuation", "Pc"),
    ("Control", "Cc"),
    ("Currency_Symbol", "Sc"),
    ("Dash_Punctuation", "Pd"),
    ("Decimal_Number", "Nd"),
    ("Enclosing_Mark", "Me"),
    ("Final_Punctuation", "Pf"),
    ("Format", "Cf"),
    ("Initial_Punctuation", "Pi"),
    ("Letter", "L"),
    ("Letter_Number", "Nl"),
    ("Line_Separator", "Zl"),
    ("Lowercase_Letter", "Ll"),
    ("Mark", "M"),
    ("Math_Symbol", "Sm"),
    ("Modifier_Letter", "Lm"),
    ("Modifier_Symbol", "Sk"),
    ("Nonspacing_Mark", "Mn"),
    ("Number", "N"),
    ("Open_Punctuation", "Ps"),
    ("Other", "C"),
    ("Other_Letter", "Lo"),
    ("Other_Number", "No"),
    ("Other_Punctuation", "Po"),
    ("Other_Symbol", "So"),
    ("Paragraph_Separator", "Zp"),
    ("Private_Use", "Co"),
    ("Punctuation", "P"),
    ("Separator", "Z"),
    ("Space_Separator", "Zs"),
    ("Spacing_Mark", "Mc"),
    ("Surrogate", "Cs"),
    ("Symbol", "S"),
    ("Titlecase_Letter", "Lt"),
    ("Unassigned", "Cn"),
    ("Uppercase_Letter", "Lu"),
    ("cntrl", "Cc"),
    ("digit", "Nd"),
    ("punct", "P"),
];

/// Go's `parseRepeat`: `{min}`, `{min,}` or `{min,max}` at the start of `s`; returns
/// (min, max, length) with max = -1 for "no maximum" and min = -1 for numbers too big.
fn parse_repeat(s: &str) -> Option<(i64, i64, usize)> {
    let b = s.as_bytes();
    let mut i = 1;
    let (mut min, len) = parse_int(&b[i..])?;
    i += len;
    let max;
    match b.get(i)? {
        b',' => {
            i += 1;
            if *b.get(i)? == b'}' {
                max = -1;
            } else {
                let (m, len) = parse_int(&b[i..])?;
                i += len;
                max = m;
                if m < 0 {
                    min = -1;
                }
            }
        }
        _ => max = min,
    }
    if *b.get(i)? != b'}' {
        return None;
    }
    Some((min, max, i + 1))
}

/// Decimal digits without leading zeros; -1 when the value is 1e8 or more.
fn parse_int(b: &[u8]) -> Option<(i64, usize)> {
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    if b.len() >= 2 && b[0] == b'0' && b[1].is_ascii_digit() {
        return None;
    }
    let len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n: i64 = 0;
    for &d in &b[..len] {
        if n >= 100_000_000 {
            n = -1;
            break;
        }
        n = n * 10 + (d - b'0') as i64;
    }
    Some((n, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pattern told to fit without compiling does compile within the budget: the
    /// costliest shapes per byte of Go's size estimate, at budgets where some of them
    /// no longer fit.
    #[test]
    fn certainly_fits_only_what_compiles() {
        let shapes = [
            ".".repeat(1024),
            "[^a]".repeat(256),
            "\\W".repeat(512),
            "\\S+".repeat(340),
            "(.*)".repeat(256),
            format!("(?i){}", "[^k]".repeat(255)),
            "(.+)+".repeat(200),
            "[^a]{1000}".to_string(),
            "(?:.|[^x]){500}".to_string(),
            "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$".to_string(),
            "\\pL".to_string(),
        ];
        let mut certain = 0;
        for budget in [64 << 10, 256 << 10, 1 << 20, 4 << 20, 64 << 20] {
            for pattern in &shapes {
                if !certainly_fits_within(pattern, budget) {
                    continue;
                }
                certain += 1;
                let translated = translate(pattern).expect("Go accepts it");
                let built = regex::RegexBuilder::new(&translated)
                    .size_limit(budget as usize)
                    .nest_limit(u32::MAX)
                    .build();
                assert!(built.is_ok(), "{pattern} at {budget} bytes");
            }
        }
        // The check is not vacuous: the DNS pattern fits at 1 MiB, the
        // long shapes at the larger ones; a Unicode class never without compiling.
        assert!(certain > shapes.len(), "{certain}");
        assert!(!certainly_fits_within("\\pL", u64::MAX));
        assert!(certainly_fits_within(&shapes[9], 1 << 20));
        // Go refuses it: not "fits".
        assert!(!certainly_fits_within("[a-", u64::MAX));
    }

    /// A pattern Go accepts but too large to match here is found without the CRD
    /// checks having compiled it first.
    #[test]
    fn too_large_to_match_compiles_when_unsure() {
        assert!(too_large_to_match("\\p{L}{1,1000}\\p{L}{1,1000}"));
        assert!(!too_large_to_match("^[a-z]+$"));
        assert!(!too_large_to_match("[a-"));
        assert_eq!(go_error("^[a-z]+$"), None);
        assert_eq!(
            go_error("[a-").as_deref(),
            Some("error parsing regexp: missing closing ]: `[a-`")
        );
    }

    /// Cases checked against Go 1.26 `regexp.Compile` / `MatchString`
    /// (testdata/regex/go.tsv holds the full table).
    #[test]
    fn go_table() {
        let table = include_str!("../../testdata/regex/go.tsv");
        let mut failures = Vec::new();
        for line in table
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let mut parts = line.splitn(3, '\t');
            let pattern = unescape(parts.next().unwrap_or(""));
            let input = unescape(parts.next().unwrap_or(""));
            let expected = parts.next().unwrap_or("");
            let got = match compile_go(&pattern) {
                Err(e) => format!("ERR {e}"),
                Ok(re) => format!("OK {}", re.is_match(&input)),
            };
            if got != expected {
                failures.push(format!(
                    "{pattern:?} on {input:?}: got {got}, Go {expected}"
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// Go's size and height limits, on patterns too long for the table. Verdicts
    /// recorded with Go 1.26 `regexp.Compile`.
    #[test]
    fn go_parse_tree_limits() {
        let nested = |open: &str, n: usize| format!("{}a{}", open.repeat(n), ")".repeat(n));
        let deep = "error parsing regexp: expression nests too deeply";
        let large = "error parsing regexp: expression too large";
        let cases: Vec<(String, Option<&str>)> = vec![
            // Height: each capture is a node; non-capturing groups are not, and
            // nested alternations are flattened.
            (nested("(", 999), None),
            (nested("(", 1000), Some(deep)),
            (nested("(?:", 3000), None),
            (nested("(?i:", 3000), None),
            (nested("(?:a|", 3000), None),
            // Size: 3,355,443 instructions; a{1000} is 1000 of them.
            ("a{1000}".repeat(3300), None),
            ("a{1000}".repeat(3400), Some(large)),
            ("(?:ab){1000}".repeat(1650), None),
            ("(?:ab){1000}".repeat(1700), Some(large)),
            // An alternation of single characters is one class: 3 per group.
            ("(a|b){1000}".repeat(1100), None),
            ("(a|b){1000}".repeat(1200), Some(large)),
            // Go checks the size of a repeat before its nested repeat count.
            (format!("({}){{999}}", "a{999}".repeat(4)), Some(large)),
            (
                "(a{999}){999}".into(),
                Some("error parsing regexp: invalid repeat count: `{999}`"),
            ),
        ];
        for (pattern, go) in cases {
            let got = compile_go(&pattern)
                .err()
                .and_then(|e| e.go_error().map(str::to_string));
            let got = got
                .as_deref()
                .map(|e| e.split(": `").next().unwrap_or(e).to_string());
            let want = go.map(|g| g.split(": `").next().unwrap_or(g).to_string());
            assert_eq!(got, want, "{}…", &pattern[..pattern.len().min(40)]);
        }
    }

    /// Go counts a class as one instruction; the regex crate builds a UTF-8 automaton
    /// per repetition. What Go accepts but is too large to match here is said so, not
    /// reported as invalid.
    #[test]
    fn valid_patterns_too_large_to_match_are_told_apart() {
        assert!(compile_go(r"\p{L}{1000}").is_ok());
        let big = r"\p{L}{1000}".repeat(20);
        assert_eq!(compile_go(&big).err(), Some(RegexError::TooLargeToMatch));
        assert_eq!(go_error(&big), None);
        assert_eq!(
            go_error("a{1000}".repeat(3400).as_str()).map(|e| e[..42].to_string()),
            Some("error parsing regexp: expression too large".into())
        );
    }

    /// Groups do not capture in the translation: nothing reads submatches, and the
    /// regex crate's PikeVM keeps a slot per group per state (a fuzzed 41 KB pattern
    /// took 2.5 GB).
    #[test]
    fn groups_are_translated_without_captures() {
        assert_eq!(translate("(a)(?P<n>b)").unwrap(), "(?:a)(?:b)");
        let re = compile_go("(a|b)+c").unwrap();
        assert_eq!(re.captures_len(), 1);
        assert_eq!(re.find("xxabac").map(|m| m.as_str()), Some("abac"));
    }

    fn unescape(s: &str) -> String {
        s.replace("\\\\n", "\n")
    }
}
