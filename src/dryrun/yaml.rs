//! A YAML printer with kubectl's (go-yaml v2's) conventions: keys sorted, two-space
//! indentation, list items at their parent key's indentation, strings quoted only
//! when a plain scalar would read back as something else (double quotes for values
//! YAML 1.1 would resolve to another type, single quotes for syntax), and literal
//! blocks for multi-line strings.

use serde_json::Value;

pub fn to_yaml(v: &Value) -> String {
    let mut out = String::new();
    match v {
        Value::Object(m) if !m.is_empty() => write_map(&mut out, m, 0),
        Value::Array(a) if !a.is_empty() => write_seq(&mut out, a, 0),
        scalar => {
            out.push_str(&scalar_text(scalar, 0));
            out.push('\n');
        }
    }
    out
}

fn indent(out: &mut String, n: usize) {
    for _ in 0..n {
        out.push(' ');
    }
}

fn write_map(out: &mut String, m: &serde_json::Map<String, Value>, depth: usize) {
    let mut keys: Vec<&String> = m.keys().collect();
    keys.sort();
    for (i, k) in keys.into_iter().enumerate() {
        // The first key of a map inside a list item sits after "- ".
        if i > 0 || !out.ends_with("- ") {
            indent(out, depth);
        }
        out.push_str(&string_text(k, depth));
        out.push(':');
        write_value_after_key(out, &m[k], depth);
    }
}

fn write_value_after_key(out: &mut String, v: &Value, depth: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            write_map(out, m, depth + 2);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            write_seq(out, a, depth);
        }
        scalar => {
            out.push(' ');
            out.push_str(&scalar_text(scalar, depth + 2));
            out.push('\n');
        }
    }
}

fn write_seq(out: &mut String, a: &[Value], depth: usize) {
    for item in a {
        indent(out, depth);
        out.push_str("- ");
        match item {
            Value::Object(m) if !m.is_empty() => write_map(out, m, depth + 2),
            Value::Array(inner) if !inner.is_empty() => {
                out.push('\n');
                write_seq(out, inner, depth + 2);
            }
            scalar => {
                out.push_str(&scalar_text(scalar, depth + 2));
                out.push('\n');
            }
        }
    }
}

fn scalar_text(v: &Value, depth: usize) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.to_string(),
            (_, Some(u)) => u.to_string(),
            _ => go_yaml_float(n.as_f64().unwrap_or(0.0)),
        },
        Value::String(s) => string_text(s, depth),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// go-yaml's float formatting (`strconv.FormatFloat(f, 'g', -1, 64)`, `.inf`, `.nan`).
fn go_yaml_float(f: f64) -> String {
    if f.is_nan() {
        return ".nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 {
            ".inf".into()
        } else {
            "-.inf".into()
        };
    }
    crate::diag::gofmt::float_v(f)
}

fn string_text(s: &str, depth: usize) -> String {
    if s.contains('\n') && literal_ok(s) {
        return literal_block(s, depth);
    }
    if resolves_to_non_string(s) {
        return double_quoted(s);
    }
    if plain_ok(s) {
        return s.to_string();
    }
    if s.chars().all(|c| !c.is_control() || c == '\t') {
        return format!("'{}'", s.replace('\'', "''"));
    }
    double_quoted(s)
}

fn literal_ok(s: &str) -> bool {
    s.chars().all(|c| !c.is_control() || c == '\n' || c == '\t')
        && !s.lines().any(|l| l.ends_with(' '))
}

fn literal_block(s: &str, depth: usize) -> String {
    let trailing = s.len() - s.trim_end_matches('\n').len();
    let chomp = match trailing {
        0 => "-",
        1 => "",
        _ => "+",
    };
    let indicator = if s.starts_with(' ') { "2" } else { "" };
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

fn double_quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\x{:02X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Whether go-yaml (YAML 1.1) would resolve the plain scalar to a non-string.
fn resolves_to_non_string(s: &str) -> bool {
    const WORDS: &[&str] = &[
        "~", "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
        ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", ".nan",
        ".NaN", ".NAN", "<<",
    ];
    if s.is_empty() || WORDS.contains(&s) {
        return true;
    }
    let t = s.replace('_', "");
    let unsigned = t.strip_prefix(['+', '-']).unwrap_or(&t);
    let is_int = !unsigned.is_empty()
        && (unsigned.bytes().all(|b| b.is_ascii_digit())
            || unsigned
                .strip_prefix("0x")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit()))
            || unsigned
                .strip_prefix("0b")
                .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b == b'0' || b == b'1')));
    let is_float = unsigned.parse::<f64>().is_ok()
        && unsigned.bytes().any(|b| b.is_ascii_digit())
        && !unsigned.contains("inf")
        && !unsigned.contains("nan");
    let is_timestamp = s.len() >= 10
        && s.as_bytes()[4] == b'-'
        && s.as_bytes()[..4].iter().all(u8::is_ascii_digit)
        && s.as_bytes()[5..7].iter().all(u8::is_ascii_digit);
    let is_base60 = s.contains(':')
        && s.split(':')
            .all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
    is_int || is_float || is_timestamp || is_base60
}

/// Whether the emitter may write the string as a plain scalar in block context.
fn plain_ok(s: &str) -> bool {
    let first = s.chars().next().unwrap_or(' ');
    if first.is_whitespace() || s.ends_with(char::is_whitespace) {
        return false;
    }
    if "-?:,[]{}#&*!|>'\"%@`".contains(first) {
        // `-`, `?` and `:` are fine when followed by a non-space.
        let second = s.chars().nth(1);
        let ok = matches!(first, '-' | '?' | ':') && second.is_some_and(|c| !c.is_whitespace());
        if !ok {
            return false;
        }
    }
    if s.contains(": ") || s.contains(" #") || s.ends_with(':') {
        return false;
    }
    s.chars().all(|c| !c.is_control())
}
