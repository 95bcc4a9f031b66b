//! A YAML printer with kubectl's (go-yaml v2's) conventions: keys sorted, two-space
//! indentation, list items at their parent key's indentation, strings quoted only
//! when a plain scalar would read back as something else (double quotes for values
//! YAML 1.1 would resolve to another type, single quotes for syntax), and literal
//! blocks for multi-line strings.

//! A YAML printer that writes what kubectl writes (`kubectl get -o yaml`: the object as
//! JSON, read back by go-yaml v2 and marshalled by it): keys in go-yaml's order,
//! two-space indentation, sequences in a mapping at their key's indentation, nested
//! collections in a sequence item started on its line, strings quoted only when a plain
//! scalar would read back as something else, literal blocks for multi-line strings,
//! and long scalars folded at spaces past column 80.
//!
//! Where go-yaml would write a character its own reader, or crdlint's, does not read
//! back as written (NEL, LINE SEPARATOR, PARAGRAPH SEPARATOR raw in quotes or blocks),
//! the string is double-quoted with escapes instead; everything printed reads back as
//! the object printed (`tests/properties.rs`).

use serde_json::Value;

use crate::diag::gofmt;

/// libyaml's preferred width: plain and quoted scalars outside simple keys are folded at
/// a space once the column passes it.
const BEST_WIDTH: usize = 80;

pub fn to_yaml(v: &Value) -> String {
    let mut e = Emitter::default();
    match v {
        Value::Object(m) if !m.is_empty() => e.map(m, 0),
        Value::Array(a) if !a.is_empty() => e.seq(a, 0),
        scalar => e.scalar(scalar, 0),
    }
    e.out.push('\n');
    e.out
}

#[derive(Default)]
struct Emitter {
    out: String,
    /// Characters written since the last line break (libyaml counts characters).
    column: usize,
}

impl Emitter {
    fn push(&mut self, s: &str) {
        match s.rfind('\n') {
            Some(at) => self.column = s[at + 1..].chars().count(),
            None => self.column += s.chars().count(),
        }
        self.out.push_str(s);
    }

    fn push_char(&mut self, c: char) {
        self.out.push(c);
        if c == '\n' {
            self.column = 0;
        } else {
            self.column += 1;
        }
    }

    fn newline_indent(&mut self, indent: usize) {
        self.out.push('\n');
        self.out.extend(std::iter::repeat_n(' ', indent));
        self.column = indent;
    }

    /// A mapping whose first key goes where the output stands (at the start of a line
    /// indented by `depth`, or after `- ` or `: `), and whose other keys go on lines
    /// indented by `depth`.
    fn map(&mut self, m: &serde_json::Map<String, Value>, depth: usize) {
        let keys = sorted_keys(m);
        for (i, k) in keys.into_iter().enumerate() {
            if i > 0 {
                self.newline_indent(depth);
            }
            let value = &m[k];
            if key_is_simple(k) {
                let text = key_text(k);
                self.push(&text);
                self.push_char(':');
                self.value_after_simple_key(value, depth);
            } else {
                // An explicit entry: `? key`, then `: value` at the key's indentation,
                // the value started on that line.
                self.push("? ");
                self.string(k, depth + 2);
                self.newline_indent(depth);
                self.push(": ");
                self.compact(value, depth + 2);
            }
        }
    }

    fn value_after_simple_key(&mut self, v: &Value, depth: usize) {
        match v {
            Value::Object(m) if !m.is_empty() => {
                self.newline_indent(depth + 2);
                self.map(m, depth + 2);
            }
            Value::Array(a) if !a.is_empty() => {
                self.newline_indent(depth);
                self.seq(a, depth);
            }
            scalar => {
                self.push_char(' ');
                self.scalar(scalar, depth + 2);
            }
        }
    }

    /// A sequence whose first `- ` goes where the output stands and whose other items
    /// go on lines indented by `depth`.
    fn seq(&mut self, a: &[Value], depth: usize) {
        for (i, item) in a.iter().enumerate() {
            if i > 0 {
                self.newline_indent(depth);
            }
            self.push("- ");
            self.compact(item, depth + 2);
        }
    }

    /// A node started on the current line after `- ` or `: `, its later lines indented
    /// by `depth`.
    fn compact(&mut self, v: &Value, depth: usize) {
        match v {
            Value::Object(m) if !m.is_empty() => self.map(m, depth),
            Value::Array(a) if !a.is_empty() => self.seq(a, depth),
            scalar => self.scalar(scalar, depth),
        }
    }

    /// A scalar (or an empty collection, written in flow style); continuation lines of
    /// a folded or block scalar are indented by `indent`.
    fn scalar(&mut self, v: &Value, indent: usize) {
        match v {
            Value::Null => self.push("null"),
            Value::Bool(b) => self.push(if *b { "true" } else { "false" }),
            Value::Number(n) => {
                let text = number_text(n);
                self.push(&text);
            }
            Value::String(s) => self.string(s, indent),
            Value::Array(_) => self.push("[]"),
            Value::Object(_) => self.push("{}"),
        }
    }

    fn string(&mut self, s: &str, indent: usize) {
        match string_style(s) {
            Style::Plain => self.folded(s, indent, Quote::Plain),
            Style::Single => self.folded(s, indent, Quote::Single),
            Style::Double => self.folded(s, indent, Quote::Double),
            Style::Literal => {
                let text = literal_block(s, indent);
                self.push(&text);
            }
        }
    }

    /// libyaml's plain, single- and double-quoted writers with line breaks allowed: at a
    /// space past [`BEST_WIDTH`], the line is broken and the space dropped (a reader
    /// folds the break back into one space). A double-quoted space followed by another
    /// is kept with an escaping backslash at the start of the next line; a single-quoted
    /// or plain one followed by another is not broken at.
    fn folded(&mut self, s: &str, indent: usize, quote: Quote) {
        match quote {
            Quote::Plain => {}
            Quote::Single => self.push_char('\''),
            Quote::Double => self.push_char('"'),
        }
        let chars: Vec<char> = s.chars().collect();
        // go-yaml's `is_bom` looks at the string's first character whatever the
        // position asked about: after a leading byte order mark, every character
        // (spaces too) is written as an escape.
        let bom_first = chars.first() == Some(&'\u{feff}');
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            let next_is_space = chars.get(i + 1) == Some(&' ');
            if quote == Quote::Double && (bom_first || (c != ' ' && needs_escape(c))) {
                let escaped = escape(c);
                self.push(&escaped);
                spaces = false;
            } else if c == ' ' {
                let inside = i != 0 && i + 1 != chars.len();
                let breakable = match quote {
                    Quote::Plain => !next_is_space,
                    Quote::Single => inside && !next_is_space,
                    Quote::Double => inside,
                };
                if !spaces && self.column > BEST_WIDTH && breakable {
                    self.newline_indent(indent);
                    if quote == Quote::Double && next_is_space {
                        self.push_char('\\');
                    }
                } else {
                    self.push_char(' ');
                }
                spaces = true;
            } else {
                if quote == Quote::Single && c == '\'' {
                    self.push_char('\'');
                }
                self.push_char(c);
                spaces = false;
            }
        }
        match quote {
            Quote::Plain => {}
            Quote::Single => self.push_char('\''),
            Quote::Double => self.push_char('"'),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Quote {
    Plain,
    Single,
    Double,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
}

/// A number as go-yaml writes the value it reads from kubectl's JSON: `encoding/json`
/// writes an integral float below 1e21 without a fraction, which reads back as an
/// integer when it fits 64 bits; other floats are written with `%g`.
fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    let json = gofmt::json_float(f);
    if let Ok(i) = json.parse::<i64>() {
        return i.to_string();
    }
    if let Ok(u) = json.parse::<u64>() {
        return u.to_string();
    }
    gofmt::float_v(f)
}

/// The keys in go-yaml's order ([`less`]). That order is not always transitive (`v10`
/// < `v1beta1` < `v2` < `v10`), which the standard library's sorts may answer with a
/// panic, and where go-yaml's own result depends on Go's random map order; a plain
/// merge sort gives a deterministic answer for any comparison.
fn sorted_keys(m: &serde_json::Map<String, Value>) -> Vec<&str> {
    let mut keys: Vec<&str> = m.keys().map(String::as_str).collect();
    merge_sort(&mut keys);
    keys
}

fn merge_sort(keys: &mut [&str]) {
    if keys.len() <= 1 {
        return;
    }
    let mid = keys.len() / 2;
    merge_sort(&mut keys[..mid]);
    merge_sort(&mut keys[mid..]);
    let (left, right) = (keys[..mid].to_vec(), keys[mid..].to_vec());
    let (mut i, mut j) = (0, 0);
    for slot in keys.iter_mut() {
        // Take from the right only when it is strictly smaller: equal keys keep order.
        if j < right.len() && (i == left.len() || less(right[j], left[i])) {
            *slot = right[j];
            j += 1;
        } else {
            *slot = left[i];
            i += 1;
        }
    }
}

/// go-yaml's order of string mapping keys (`keyList.Less`): character by character,
/// letters after everything else, and runs of digits compared as numbers (`a9` before
/// `a10`). Letters and digits beyond ASCII are approximated with Rust's Unicode classes.
fn less(a: &str, b: &str) -> bool {
    fn is_letter(c: char) -> bool {
        c.is_alphabetic()
    }
    fn is_digit(c: char) -> bool {
        c.is_ascii_digit() || (!c.is_ascii() && c.is_numeric())
    }
    fn digit_value(c: char) -> i64 {
        c as i64 - '0' as i64
    }
    let ar: Vec<char> = a.chars().collect();
    let br: Vec<char> = b.chars().collect();
    for i in 0..ar.len().min(br.len()) {
        if ar[i] == br[i] {
            continue;
        }
        let al = is_letter(ar[i]);
        let bl = is_letter(br[i]);
        if al && bl {
            return ar[i] < br[i];
        }
        if al || bl {
            return bl;
        }
        let (mut an, mut bn) = (0i64, 0i64);
        if ar[i] == '0' || br[i] == '0' {
            // A zero inside a number that started earlier compares as a digit, not as
            // a leading zero.
            for j in (0..i).rev() {
                if !is_digit(ar[j]) {
                    break;
                }
                if ar[j] != '0' {
                    an = 1;
                    bn = 1;
                    break;
                }
            }
        }
        let mut ai = i;
        while ai < ar.len() && is_digit(ar[ai]) {
            an = an.wrapping_mul(10).wrapping_add(digit_value(ar[ai]));
            ai += 1;
        }
        let mut bi = i;
        while bi < br.len() && is_digit(br[bi]) {
            bn = bn.wrapping_mul(10).wrapping_add(digit_value(br[bi]));
            bi += 1;
        }
        if an != bn {
            return an < bn;
        }
        if ai != bi {
            return ai < bi;
        }
        return ar[i] < br[i];
    }
    ar.len() < br.len()
}

/// The style go-yaml's encoder asks for (a literal block when the string holds a line
/// feed, double quotes when a plain scalar would resolve to another type, plain
/// otherwise) after its emitter's fallbacks (plain -> single -> double, literal ->
/// double) where the characters forbid a style ([`Analysis`]).
fn string_style(s: &str) -> Style {
    let a = Analysis::of(s);
    if resolves_to_non_string(s) || a.forces_double_quotes() {
        return Style::Double;
    }
    if s.contains('\n') {
        return if a.block_allowed() {
            Style::Literal
        } else {
            Style::Double
        };
    }
    if a.block_plain_allowed() {
        Style::Plain
    } else if a.single_quoted_allowed() {
        Style::Single
    } else {
        Style::Double
    }
}

/// A mapping key: go-yaml writes a key inline (`key: value`) only when it is at most
/// 128 bytes and on one line, and as an explicit `? key` entry otherwise.
fn key_is_simple(k: &str) -> bool {
    k.len() <= 128 && !k.chars().any(is_break)
}

/// A simple key: never folded, never a block. A `<<` key is quoted, unlike go-yaml's
/// (whose reader takes a plain `<<` key for a merge and refuses what it wrote).
fn key_text(k: &str) -> String {
    let style = if k == "<<" {
        Style::Double
    } else {
        string_style(k)
    };
    match style {
        Style::Plain => k.to_string(),
        Style::Single => format!("'{}'", k.replace('\'', "''")),
        Style::Double | Style::Literal => {
            let mut out = String::from("\"");
            let bom_first = k.starts_with('\u{feff}');
            for c in k.chars() {
                if bom_first || needs_escape(c) {
                    out.push_str(&escape(c));
                } else {
                    out.push(c);
                }
            }
            out.push('"');
            out
        }
    }
}

/// libyaml's `yaml_emitter_analyze_scalar`, for the block context this printer writes.
struct Analysis {
    block_indicators: bool,
    leading_space: bool,
    leading_break: bool,
    trailing_space: bool,
    trailing_break: bool,
    break_space: bool,
    space_break: bool,
    line_breaks: bool,
    special_characters: bool,
    /// A line break YAML 1.1 readers know and literal blocks or quotes would not keep
    /// (NEL, LS, PS, CR): written as an escape in double quotes, so that the printed
    /// text reads back as the same string (go-yaml writes some of them raw and reads
    /// them back folded).
    foreign_break: bool,
}

impl Analysis {
    fn of(s: &str) -> Analysis {
        let mut a = Analysis {
            block_indicators: s.starts_with("---") || s.starts_with("..."),
            leading_space: false,
            leading_break: false,
            trailing_space: false,
            trailing_break: false,
            break_space: false,
            space_break: false,
            line_breaks: false,
            special_characters: false,
            foreign_break: false,
        };
        let chars: Vec<char> = s.chars().collect();
        let mut preceded_by_whitespace = true;
        let mut previous_space = false;
        let mut previous_break = false;
        for (i, &c) in chars.iter().enumerate() {
            let next = chars.get(i + 1).copied();
            let followed_by_whitespace = next.is_none_or(|n| n == ' ' || is_break(n));
            if i == 0 {
                match c {
                    '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\''
                    | '"' | '%' | '@' | '`' => a.block_indicators = true,
                    '?' | ':' | '-' if followed_by_whitespace => a.block_indicators = true,
                    _ => {}
                }
            } else {
                match c {
                    ':' if followed_by_whitespace => a.block_indicators = true,
                    '#' if preceded_by_whitespace => a.block_indicators = true,
                    _ => {}
                }
            }
            if !is_printable(c) {
                a.special_characters = true;
            }
            if is_break(c) {
                a.line_breaks = true;
                if c != '\n' {
                    a.foreign_break = true;
                }
            }
            if c == ' ' {
                if i == 0 {
                    a.leading_space = true;
                }
                if i + 1 == chars.len() {
                    a.trailing_space = true;
                }
                if previous_break {
                    a.break_space = true;
                }
                previous_space = true;
                previous_break = false;
            } else if is_break(c) {
                if i == 0 {
                    a.leading_break = true;
                }
                if i + 1 == chars.len() {
                    a.trailing_break = true;
                }
                if previous_space {
                    a.space_break = true;
                }
                previous_space = false;
                previous_break = true;
            } else {
                previous_space = false;
                previous_break = false;
            }
            preceded_by_whitespace = c == ' ' || is_break(c);
        }
        a
    }

    fn forces_double_quotes(&self) -> bool {
        self.space_break || self.special_characters || self.foreign_break
    }

    fn block_plain_allowed(&self) -> bool {
        !(self.leading_space
            || self.leading_break
            || self.trailing_space
            || self.trailing_break
            || self.break_space
            || self.line_breaks
            || self.block_indicators
            || self.forces_double_quotes())
    }

    fn single_quoted_allowed(&self) -> bool {
        // A line break inside quotes folds when read back.
        !(self.break_space || self.line_breaks || self.forces_double_quotes())
    }

    fn block_allowed(&self) -> bool {
        !(self.trailing_space || self.forces_double_quotes())
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's `is_printable` (byte order marks and non-characters are not; neither is
/// anything beyond the Basic Multilingual Plane, which go-yaml writes as `\U` escapes).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7e}' | '\u{a0}'..='\u{d7ff}' | '\u{e000}'..='\u{fffd}')
        && c != '\u{feff}'
}

fn literal_block(s: &str, depth: usize) -> String {
    // libyaml's block scalar hints: an indentation indicator when the text starts with
    // a space or a line break (its first line would otherwise set the indentation);
    // `-` without a final line break, `+` when more than one ends it (or the text is
    // one line break), clip for exactly one.
    let trailing = s.len() - s.trim_end_matches('\n').len();
    let chomp = match trailing {
        0 => "-",
        1 if s.len() > 1 => "",
        _ => "+",
    };
    let indicator = if s.starts_with([' ', '\n']) { "2" } else { "" };
    let mut out = format!("|{indicator}{chomp}");
    let body = s.strip_suffix('\n').unwrap_or(s);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&" ".repeat(depth));
            out.push_str(line);
        }
    }
    out
}

/// Whether libyaml's double-quoted writer escapes the character: what is not
/// printable, line breaks, the byte order mark, quotes and backslashes.
fn needs_escape(c: char) -> bool {
    !is_printable(c) || is_break(c) || c == '"' || c == '\\'
}

fn escape(c: char) -> String {
    match c {
        '"' => "\\\"".into(),
        '\\' => "\\\\".into(),
        '\0' => "\\0".into(),
        '\u{7}' => "\\a".into(),
        '\u{8}' => "\\b".into(),
        '\t' => "\\t".into(),
        '\n' => "\\n".into(),
        '\u{b}' => "\\v".into(),
        '\u{c}' => "\\f".into(),
        '\r' => "\\r".into(),
        '\u{1b}' => "\\e".into(),
        '\u{85}' => "\\N".into(),
        '\u{a0}' => "\\_".into(),
        '\u{2028}' => "\\L".into(),
        '\u{2029}' => "\\P".into(),
        c if (c as u32) <= 0xff => format!("\\x{:02X}", c as u32),
        c if (c as u32) <= 0xffff => format!("\\u{:04X}", c as u32),
        c => format!("\\U{:08X}", c as u32),
    }
}

/// Whether go-yaml's encoder quotes the string: a plain scalar would resolve to another
/// type (as crdlint's reader, which follows go-yaml v2, resolves it), or it is a YAML
/// 1.1 base-60 number.
fn resolves_to_non_string(s: &str) -> bool {
    if !matches!(
        crate::source::scalar::resolve_plain_yaml(s),
        crate::source::scalar::Resolved::Str
    ) {
        return true;
    }
    is_base60_float(s)
}

/// go-yaml v2's `isBase60Float`: `^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$`, a
/// YAML 1.1 sexagesimal number its encoder quotes for older readers.
fn is_base60_float(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(matches!(b.first(), Some(b'+' | b'-')));
    if !b.get(i).is_some_and(u8::is_ascii_digit) {
        return false;
    }
    while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
        i += 1;
    }
    let mut groups = 0;
    while b.get(i) == Some(&b':') {
        // One or two digits, the first of two at most 5; a regex backtracks between the
        // two readings, which only matters when a third digit follows (no match then).
        let digits = b[i + 1..].iter().take_while(|c| c.is_ascii_digit()).count();
        match digits {
            1 => i += 2,
            2 if b[i + 1] <= b'5' => i += 3,
            _ => return false,
        }
        groups += 1;
    }
    if groups == 0 {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        while b.get(i).is_some_and(|c| c.is_ascii_digit() || *c == b'_') {
            i += 1;
        }
    }
    i == b.len()
}

#[cfg(test)]
mod tests {
    //! Expected texts are what kubectl's printer (sigs.k8s.io/yaml's JSONToYAML, go-yaml
    //! v2) wrote for the same objects, recorded from the reference.
    use super::to_yaml;
    use serde_json::json;

    #[test]
    fn keys_are_in_go_yaml_order() {
        let v = json!({"x10": 1, "x9": 2, "A": 3, "_a": 4, "a": 5, "v1beta1": 6, "v1": 7,
            "item02": 8, "item1": 9});
        assert_eq!(
            to_yaml(&v),
            "_a: 4\nA: 3\na: 5\nitem1: 9\nitem02: 8\nv1: 7\nv1beta1: 6\nx9: 2\nx10: 1\n"
        );
    }

    #[test]
    fn a_non_transitive_key_order_does_not_panic() {
        // v10 < v1beta1 < v2 < v10 in go-yaml's comparison.
        let v = json!({"v2": 1, "v10": 2, "v1beta1": 3});
        assert_eq!(to_yaml(&v).lines().count(), 3);
    }

    #[test]
    fn nested_sequences_start_on_their_item_line() {
        let v = json!({"a": [[1, 2], [[3]], [], [{"b": 1, "c": [4]}]]});
        assert_eq!(
            to_yaml(&v),
            "a:\n- - 1\n  - 2\n- - - 3\n- []\n- - b: 1\n    c:\n    - 4\n"
        );
    }

    #[test]
    fn block_scalar_hints_follow_libyaml() {
        let v = json!({"k": "\n", "l": "a\n", "m": "a\n\n", "n": " a\nb", "o": "\na",
            "p": "a \nb", "q": "a\n b", "r": "a\tb\nc"});
        assert_eq!(
            to_yaml(&v),
            "k: |2+\n\nl: |\n  a\nm: |+\n  a\n\n\"n\": |2-\n   a\n  b\no: |2-\n\n  a\n\
             p: \"a \\nb\"\nq: |-\n  a\n   b\nr: \"a\\tb\\nc\"\n"
        );
    }

    #[test]
    fn long_scalars_are_folded_past_column_80() {
        let fox = "The quick brown fox jumps over the lazy dog and keeps running past the \
                   end of the line to see what happens";
        assert_eq!(
            to_yaml(&json!({ "long": fox })),
            "long: The quick brown fox jumps over the lazy dog and keeps running past the \
             end of\n  the line to see what happens\n"
        );
        assert_eq!(
            to_yaml(&json!({ "list": [fox] })),
            "list:\n- The quick brown fox jumps over the lazy dog and keeps running past \
             the end of the\n  line to see what happens\n"
        );
        let single = "#The quick brown fox jumps over the lazy dog and keeps running past \
                      the end of the line to see";
        assert_eq!(
            to_yaml(&json!({ "single": single })),
            "single: '#The quick brown fox jumps over the lazy dog and keeps running past \
             the end\n  of the line to see'\n"
        );
        let double = "\tThe quick brown fox jumps over the lazy dog and keeps  running \
                      past the end of the line to see";
        assert_eq!(
            to_yaml(&json!({ "double": double })),
            "double: \"\\tThe quick brown fox jumps over the lazy dog and keeps  running \
             past the\n  end of the line to see\"\n"
        );
    }

    #[test]
    fn long_and_multi_line_keys_are_explicit_entries() {
        // 127 bytes: inline.
        let inline = "The quick brown fox jumps over the lazy dog and keeps running past the \
                      end of the line to see what happens next, at some length";
        assert_eq!(
            to_yaml(&json!({ inline: {"a": 1} })),
            format!("{inline}:\n  a: 1\n")
        );
        // 132 bytes: an explicit entry, folded like a value, its value after `: `.
        let long = "The quick brown fox jumps over the lazy dog and keeps running past the \
                    end of the line to see what happens next, at a greater length";
        assert_eq!(
            to_yaml(&json!({ long: {"a": 1} })),
            "? The quick brown fox jumps over the lazy dog and keeps running past the end \
             of the\n  line to see what happens next, at a greater length\n: a: 1\n"
        );
        assert_eq!(
            to_yaml(&json!({"multi\nline key": [1, 2], "b": "x"})),
            "b: x\n? |-\n  multi\n  line key\n: - 1\n  - 2\n"
        );
    }

    #[test]
    fn strings_that_would_read_as_other_types_are_quoted() {
        let v = json!({"bom": "\u{feff}on it", "s60": "1:60", "s30": "1:30",
            "t": "2001-12-14", "y": "y", "e": "", "o": "0o17", "u": "1_000"});
        assert_eq!(
            to_yaml(&v),
            "bom: \"\\uFEFF\\x6F\\x6E\\x20\\x69\\x74\"\ne: \"\"\no: \"0o17\"\ns30: \"1:30\"\n\
             s60: 1:60\nt: \"2001-12-14\"\nu: \"1_000\"\n\"y\": \"y\"\n"
        );
    }

    #[test]
    fn numbers_are_written_as_kubectl_reads_them_from_json() {
        let v = json!({"f": [1e15, 1e20, 1e21, 0.5, 123456.5, 1234567.5, 1.5e-7, -0.0, 1e16]});
        assert_eq!(
            to_yaml(&v),
            "f:\n- 1000000000000000\n- 1e+20\n- 1e+21\n- 0.5\n- 123456.5\n- 1.2345675e+06\n\
             - 1.5e-07\n- 0\n- 10000000000000000\n"
        );
    }

    #[test]
    fn yaml_1_1_line_breaks_and_the_merge_key_are_written_to_read_back() {
        // go-yaml writes NEL, LS and PS raw (`'a<LS>  b'`, `a<NEL>b`), and `<<` as a plain
        // key its reader then takes for a merge; these are escaped or quoted instead.
        let v = json!({"ls": "a\u{2028}b", "nel": "a\u{85}b", "emoji": "ok \u{1F600}",
            "nbsp": "a\u{a0}b", "merge": "<<"});
        assert_eq!(
            to_yaml(&v),
            "emoji: \"ok \\U0001F600\"\nls: \"a\\Lb\"\nmerge: <<\nnbsp: a\u{a0}b\nnel: \"a\\Nb\"\n"
        );
        assert_eq!(to_yaml(&json!({"<<": {"a": 1}})), "\"<<\":\n  a: 1\n");
    }
}
