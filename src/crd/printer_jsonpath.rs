//! Whether the server's table printer can parse a printer column's `jsonPath`.
//!
//! CRD validation only asks that a column path start with a dot. The `kubectl get`
//! table is built later, when the server starts serving the resource: its table
//! convertor parses `{` + path + `}` with client-go's JSONPath template parser
//! (`k8s.io/client-go/util/jsonpath`), and when a column fails it logs the error and
//! serves the columns before that one only. So a CRD the server accepts can still lose
//! its columns without a word to the user.
//!
//! This module follows that parser's scanning rules (what ends a field, an array
//! subscript, a filter, a quoted string; which numbers, slices and escapes it takes)
//! to give its verdict and its error text. It builds no tree: only the last node of the
//! current action matters (two recursive descents in a row are refused).

/// How deep filters and unions may nest in sub-parses before crdlint gives no verdict
/// (a path that deep is not a real column; it must not exhaust the stack).
const MAX_NESTING: usize = 64;

/// What client-go's parser makes of a column path.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    Parses,
    Error(String),
    /// The answer hangs on a Unicode class crdlint does not carry: whether a character
    /// outside ASCII is a letter (Go's `unicode.IsLetter`, category L) or a decimal
    /// digit (`unicode.IsDigit`, Nd), where the parser dispatches on it; or the path
    /// nests deeper than [`MAX_NESTING`].
    Unknown,
}

/// The parser's verdict on `json_path` as the table convertor parses it.
pub fn verdict(json_path: &str) -> Verdict {
    match parse_template(&format!("{{{json_path}}}"), 0) {
        Ok(()) => Verdict::Parses,
        Err(Stop::Syntax(message)) => Verdict::Error(message),
        Err(Stop::Unknown) => Verdict::Unknown,
    }
}

/// The parser's error for `json_path`, when it is known to fail.
pub fn parse_error(json_path: &str) -> Option<String> {
    match verdict(json_path) {
        Verdict::Error(message) => Some(message),
        Verdict::Parses | Verdict::Unknown => None,
    }
}

enum Stop {
    Syntax(String),
    Unknown,
}

fn syntax<T>(message: impl Into<String>) -> Result<T, Stop> {
    Err(Stop::Syntax(message.into()))
}

/// `Parse` of a whole template: text, and actions between braces.
fn parse_template(input: &str, depth: usize) -> Result<(), Stop> {
    if depth > MAX_NESTING {
        return Err(Stop::Unknown);
    }
    let mut p = Scanner {
        input,
        pos: 0,
        start: 0,
        width: 0,
        depth,
        last_recursive: false,
    };
    loop {
        // Text up to the next left brace, which opens an action.
        loop {
            if p.rest().starts_with('{') {
                p.pos += 1;
                p.start = p.pos;
                p.last_recursive = false;
                break;
            }
            if p.next().is_none() {
                return Ok(());
            }
        }
        // The action, up to its right brace.
        while !p.action_step()? {}
    }
}

/// The scanner's state: byte positions, as the Go parser keeps them.
struct Scanner<'a> {
    input: &'a str,
    pos: usize,
    /// Start of the text not yet consumed by a node.
    start: usize,
    /// Width of the last character read (0 at the end), for `backup`.
    width: usize,
    depth: usize,
    /// Whether the last node of the current action is a recursive descent (`..`).
    last_recursive: bool,
}

impl<'a> Scanner<'a> {
    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn next(&mut self) -> Option<char> {
        match self.rest().chars().next() {
            None => {
                self.width = 0;
                None
            }
            Some(c) => {
                self.width = c.len_utf8();
                self.pos += self.width;
                Some(c)
            }
        }
    }

    fn backup(&mut self) {
        self.pos -= self.width;
    }

    fn peek(&mut self) -> Option<char> {
        let c = self.next();
        self.backup();
        c
    }

    fn consume(&mut self) -> &'a str {
        let text = &self.input[self.start..self.pos];
        self.start = self.pos;
        text
    }

    /// A node other than a recursive descent was added to the action.
    fn node(&mut self) {
        self.last_recursive = false;
    }

    /// One step of `parseInsideAction`; `true` once the action's right brace is read.
    fn action_step(&mut self) -> Result<bool, Stop> {
        let rest = self.rest();
        if rest.starts_with('}') {
            self.pos += 1;
            self.consume();
            return Ok(true);
        }
        if rest.starts_with("[?(") {
            self.filter()?;
            return Ok(false);
        }
        if rest.starts_with("..") {
            self.recursive()?;
            return Ok(false);
        }
        match self.next() {
            Some(c) if !c.is_ascii() => return Err(Stop::Unknown),
            None | Some('\r' | '\n') => return syntax("unclosed action"),
            Some(' ' | '@' | '$') => {
                self.consume();
            }
            Some('[') => self.array()?,
            Some(quote @ ('"' | '\'')) => self.quoted(quote)?,
            Some('.') => self.field(),
            Some(c) if c == '+' || c == '-' || c.is_ascii_digit() => {
                self.backup();
                self.number()?;
            }
            Some(c) if c == '_' || c.is_ascii_alphanumeric() => {
                self.backup();
                self.identifier();
            }
            Some(c) => {
                return syntax(format!(
                    "unrecognized character in action: {}",
                    go_sharp_u(c)
                ));
            }
        }
        Ok(false)
    }

    /// A keyword or bare word (`range`, `end`, `true`): up to a terminator.
    fn identifier(&mut self) {
        loop {
            let c = self.next();
            if is_terminator(c) {
                self.backup();
                break;
            }
        }
        self.consume();
        self.node();
    }

    fn recursive(&mut self) -> Result<(), Stop> {
        if self.last_recursive {
            return syntax("invalid multiple recursive descent");
        }
        self.pos += 2;
        self.consume();
        self.last_recursive = true;
        match self.peek() {
            Some(c) if !c.is_ascii() => Err(Stop::Unknown),
            Some(c) if c == '_' || c.is_ascii_alphanumeric() => {
                self.field();
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// A sign, then digits and dots; Go's `Atoi` or `ParseFloat` must take it.
    fn number(&mut self) -> Result<(), Stop> {
        if matches!(self.peek(), Some('+' | '-')) {
            self.next();
        }
        loop {
            match self.next() {
                Some(c) if c == '.' || c.is_ascii_digit() => {}
                // A decimal digit outside ASCII would continue the number.
                Some(c) if c.is_numeric() => return Err(Stop::Unknown),
                _ => {
                    self.backup();
                    break;
                }
            }
        }
        let value = self.consume();
        if !go_parses_number(value) {
            return syntax(format!("cannot parse number {value}"));
        }
        self.node();
        Ok(())
    }

    /// `[...]`: a union, a quoted key, or a slice; up to the first `]`.
    fn array(&mut self) -> Result<(), Stop> {
        loop {
            match self.next() {
                None | Some('\n') => return syntax("unterminated array"),
                Some(']') => break,
                Some(_) => {}
            }
        }
        let text = self.consume();
        let mut inner = &text[1..text.len() - 1];
        if inner == "*" {
            inner = ":";
        }
        if inner.contains(',') {
            for part in inner.split(',') {
                let part = part.trim_matches(' ');
                parse_template(&format!("{{[{part}]}}"), self.depth + 1)?;
            }
        } else if let Some(key) = quoted_key(inner) {
            parse_template(&format!("{{.{key}}}"), self.depth + 1)?;
        } else {
            check_slice(inner)?;
        }
        self.node();
        Ok(())
    }

    /// `[?(...)]`: up to the first `)` outside the first quoted string, then `]`.
    fn filter(&mut self) -> Result<(), Stop> {
        self.pos += 3;
        self.consume();
        let mut begin = false;
        let mut end = false;
        let mut pair = '"';
        loop {
            match self.next() {
                None | Some('\n') => return syntax("unterminated filter"),
                Some(quote @ ('"' | '\'')) => {
                    if !begin {
                        begin = true;
                        pair = quote;
                        continue;
                    }
                    if self.input.as_bytes()[self.pos - 2] != b'\\' && quote == pair {
                        end = true;
                    }
                }
                Some(')') if begin == end => break,
                Some(_) => {}
            }
        }
        if self.next() != Some(']') {
            return syntax("unclosed array expect ]");
        }
        let text = self.consume();
        let text = &text[..text.len() - 2];
        match split_comparison(text) {
            Some((left, right)) => {
                parse_template(&format!("{{{left}}}"), self.depth + 1)?;
                parse_template(&format!("{{{right}}}"), self.depth + 1)?;
            }
            None => parse_template(&format!("{{{text}}}"), self.depth + 1)?,
        }
        self.node();
        Ok(())
    }

    /// A quoted string, up to the first closing quote not preceded by a backslash.
    fn quoted(&mut self, quote: char) -> Result<(), Stop> {
        loop {
            match self.next() {
                None | Some('\n') => return syntax("unterminated quoted string"),
                Some(c) if c == quote && self.input.as_bytes()[self.pos - 2] != b'\\' => break,
                Some(_) => {}
            }
        }
        let value = self.consume();
        if unquote_extend(value).is_err() {
            return syntax(format!("unquote string {value} error invalid syntax"));
        }
        self.node();
        Ok(())
    }

    /// A field name after a dot: up to the next unescaped terminator.
    fn field(&mut self) {
        self.consume();
        loop {
            let c = self.next();
            if c == Some('\\') {
                self.next();
            } else if is_terminator(c) {
                self.backup();
                break;
            }
        }
        self.consume();
        self.node();
    }
}

fn is_terminator(c: Option<char>) -> bool {
    matches!(
        c,
        None | Some(' ' | '\t' | '\r' | '\n' | '.' | ',' | '[' | ']' | '$' | '@' | '{' | '}')
    )
}

/// Whether `strconv.Atoi` or `strconv.ParseFloat` accepts the scanned number (a
/// sign, then ASCII digits with at most one dot).
fn go_parses_number(value: &str) -> bool {
    let body = value.strip_prefix(['+', '-']).unwrap_or(value);
    let digits = body.bytes().filter(u8::is_ascii_digit).count();
    let dots = body.bytes().filter(|b| *b == b'.').count();
    digits > 0 && dots <= 1 && digits + dots == body.len()
}

/// `'key'` with no other quote inside (`^'([^']*)'$`).
fn quoted_key(inner: &str) -> Option<&str> {
    let key = inner.strip_prefix('\'')?.strip_suffix('\'')?;
    (!key.contains('\'')).then_some(key)
}

/// A slice `start:end:step` (`^(-?\d*)(:-?\d*)?(:-?\d*)?$`), each bound an `int`.
fn check_slice(inner: &str) -> Result<(), Stop> {
    let bounds: Vec<&str> = inner.split(':').collect();
    let bound_shape = |b: &str| {
        let digits = b.strip_prefix('-').unwrap_or(b);
        digits.bytes().all(|c| c.is_ascii_digit())
    };
    if bounds.len() > 3 || !bounds.iter().all(|b| bound_shape(b)) {
        return syntax(format!("invalid array index {inner}"));
    }
    for b in bounds.iter().filter(|b| !b.is_empty()) {
        if b.parse::<i64>().is_err() {
            return syntax(format!("array index {b} is not a number"));
        }
    }
    Ok(())
}

/// The filter's comparison regexp `^([^!<>=]+)([!<>=]+)(.+?)$`: the operands around
/// the first run of comparison characters (which leaves the right one at least one
/// character), or `None` for an existence filter.
fn split_comparison(text: &str) -> Option<(&str, &str)> {
    let is_operator = |c: char| matches!(c, '!' | '<' | '>' | '=');
    let left_end = text.find(is_operator).filter(|&i| i > 0)?;
    let run_end = text[left_end..]
        .find(|c: char| !is_operator(c))
        .map_or(text.len(), |i| left_end + i);
    // Greedy operator, but the right operand needs a character: give one back.
    let right_start = if run_end < text.len() {
        run_end
    } else {
        text[..run_end].char_indices().last().map_or(0, |(i, _)| i)
    };
    (right_start > left_end).then(|| (&text[..left_end], &text[right_start..]))
}

/// Go's `UnquoteExtend`: `strconv.Unquote` that takes single-quoted strings too.
fn unquote_extend(s: &str) -> Result<(), ()> {
    let b = s.as_bytes();
    if b.len() < 2 || b[0] != b[b.len() - 1] || !matches!(b[0], b'"' | b'\'') {
        return Err(());
    }
    let quote = b[0];
    let mut rest = &s[1..s.len() - 1];
    while !rest.is_empty() {
        rest = unquote_char(rest, quote)?;
    }
    Ok(())
}

/// Go's `strconv.UnquoteChar`: the text after the first (possibly escaped) character.
fn unquote_char(s: &str, quote: u8) -> Result<&str, ()> {
    let b = s.as_bytes();
    let c = b[0];
    if c == quote {
        return Err(());
    }
    if c >= 0x80 {
        let width = s.chars().next().map_or(1, char::len_utf8);
        return Ok(&s[width..]);
    }
    if c != b'\\' {
        return Ok(&s[1..]);
    }
    if b.len() <= 1 {
        return Err(());
    }
    let escaped = b[1];
    let rest = &b[2..];
    let taken = match escaped {
        b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v' | b'\\' => 0,
        b'x' | b'u' | b'U' => {
            let n = match escaped {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            if rest.len() < n || !rest[..n].iter().all(u8::is_ascii_hexdigit) {
                return Err(());
            }
            let v = rest[..n].iter().fold(0u32, |v, d| {
                (v << 4) | (*d as char).to_digit(16).unwrap_or(0)
            });
            if escaped != b'x' && char::from_u32(v).is_none() {
                return Err(());
            }
            n
        }
        b'0'..=b'7' => {
            if rest.len() < 2 || !rest[..2].iter().all(|d| (b'0'..=b'7').contains(d)) {
                return Err(());
            }
            let v = ((escaped - b'0') as u32) << 6
                | ((rest[0] - b'0') as u32) << 3
                | (rest[1] - b'0') as u32;
            if v > 255 {
                return Err(());
            }
            2
        }
        b'\'' | b'"' if escaped == quote => 0,
        _ => return Err(()),
    };
    Ok(&s[2 + taken..])
}

/// Go's `%#U`: `U+0041 'A'`, without the quoted character when it is not printable.
fn go_sharp_u(c: char) -> String {
    let code = format!("U+{:04X}", c as u32);
    if c.is_control() || (c.is_whitespace() && c != ' ') {
        code
    } else {
        format!("{code} '{c}'")
    }
}

#[cfg(test)]
mod tests {
    use super::parse_error;

    #[test]
    fn accepts_what_columns_use() {
        for path in [
            ".spec.replicas",
            ".status.conditions[?(@.type==\"Ready\")].status",
            ".status.conditions[?(@.type=='Ready')].reason",
            ".metadata.labels['app\\.kubernetes\\.io/name']",
            ".spec.containers[*].image",
            ".spec.items[0]",
            ".spec.items[-1:]",
            ".spec.items[0:2:1]",
            ".spec.items[0,1]",
            ".spec['a','b']",
            "..name",
            ".status.ready}/{.status.total",
            ".status.conditions[?(@.status)].type",
            ".spec.x[?(@.n>1.5)].y",
            ".spec.ünïcode",
            ".spec.x[?(@.a=='b\\'c')]",
            ".",
        ] {
            assert_eq!(parse_error(path), None, "{path}");
        }
    }

    #[test]
    fn refuses_what_the_parser_refuses_with_its_text() {
        for (path, error) in [
            (".spec[", "unterminated array"),
            (
                "{.status.phase}",
                "unrecognized character in action: U+007B '{'",
            ),
            (".spec\t.x", "unrecognized character in action: U+0009"),
            (".spec.x[?(@.a==1]", "unterminated filter"),
            (".spec.x[?(@.a==1)", "unclosed array expect ]"),
            (".spec.x[?(@.a==1)x", "unclosed array expect ]"),
            (".spec.x[a]", "invalid array index a"),
            (".spec.x[1:2:3:4]", "invalid array index 1:2:3:4"),
            (".spec.x[-]", "array index - is not a number"),
            (
                ".spec.x[99999999999999999999]",
                "array index 99999999999999999999 is not a number",
            ),
            (".spec.x[1,a]", "invalid array index a"),
            (".....x", "invalid multiple recursive descent"),
            (".. ..x", "invalid multiple recursive descent"),
            (".spec 1.2.3", "cannot parse number 1.2.3"),
            (".spec -", "cannot parse number -"),
            (".spec \"abc", "unterminated quoted string"),
            (
                ".spec \"a\\qb\"",
                "unquote string \"a\\qb\" error invalid syntax",
            ),
            (
                ".spec \"it\\'s\"",
                "unquote string \"it\\'s\" error invalid syntax",
            ),
            (
                ".spec.x[?(@.a==\"b\\q\")]",
                "unquote string \"b\\q\" error invalid syntax",
            ),
            (
                ".spec.x[?(@.a==%)]",
                "unrecognized character in action: U+0025 '%'",
            ),
            (".spec\n.x", "unclosed action"),
        ] {
            assert_eq!(parse_error(path).as_deref(), Some(error), "{path}");
        }
    }

    #[test]
    fn escapes_follow_go_strconv() {
        for ok in ["'a\\'b'", "\"\\x41\\u00e9\\U0001F600\\101\\n\"", "'\"'"] {
            assert_eq!(parse_error(&format!(".x {ok}")), None, "{ok}");
        }
        for bad in ["\"\\ud800\"", "\"\\400\"", "\"\\x4\"", "\"\\U00110000\""] {
            assert!(parse_error(&format!(".x {bad}")).is_some(), "{bad}");
        }
    }

    #[test]
    fn comparison_splits_like_the_go_regexp() {
        use super::split_comparison;
        assert_eq!(split_comparison("@.a==1"), Some(("@.a", "1")));
        assert_eq!(split_comparison("@.a =~ b"), Some(("@.a ", "~ b")));
        assert_eq!(split_comparison("a~b"), None);
        assert_eq!(split_comparison("a=="), Some(("a", "=")));
        assert_eq!(split_comparison("a!=<>x"), Some(("a", "x")));
        assert_eq!(split_comparison("a="), None);
        assert_eq!(split_comparison("@.status"), None);
        assert_eq!(split_comparison("=a"), None);
    }

    #[test]
    fn long_repetitive_paths_end_with_the_parser_error() {
        // Each filter ends at the first `)`, so nested openers never nest deeply.
        let quoted = format!(".x{}", "[?(@.a=='".repeat(10_000));
        let nested = format!(".x{}1{}", "[?(@.a==".repeat(10_000), ")]".repeat(10_000));
        for path in [quoted, nested] {
            assert_eq!(parse_error(&path).as_deref(), Some("unterminated filter"));
        }
    }
}

#[cfg(test)]
mod recorded {
    use super::{Verdict, verdict};

    /// Paths and the answers of client-go's own parser (`Parse("{" + path + "}")`, the
    /// `util/jsonpath` of Kubernetes 1.36), recorded outside the repository.
    #[test]
    fn agrees_with_the_recorded_client_go_parser() {
        let file = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/testdata/printer-jsonpath/client-go-parser.jsonl"
        );
        let text = std::fs::read_to_string(file).unwrap();
        let mut cases = 0;
        let mut unknown = 0;
        let mut wrong = Vec::new();
        for line in text.lines() {
            let case: serde_json::Value = serde_json::from_str(line).unwrap();
            let path = case["path"].as_str().unwrap();
            let want = match case["error"].as_str() {
                Some(e) => Verdict::Error(e.to_string()),
                None => Verdict::Parses,
            };
            let got = verdict(path);
            cases += 1;
            // No verdict is allowed only where a character outside ASCII decides.
            if got == Verdict::Unknown && !path.is_ascii() {
                unknown += 1;
            } else if got != want {
                wrong.push(format!("{path:?}: want {want:?}, got {got:?}"));
            }
        }
        assert!(cases > 1000, "{cases} cases");
        assert!(
            unknown * 20 < cases,
            "{unknown} of {cases} without a verdict"
        );
        assert!(
            wrong.is_empty(),
            "{} of {cases} differ:\n{}",
            wrong.len(),
            wrong[..wrong.len().min(40)].join("\n")
        );
    }
}
