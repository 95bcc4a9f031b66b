//! Go's formatting of values, reproduced because the server's messages embed them:
//! `%q` quoting, `%v` of float64, and `json.Marshal` (sorted keys, HTML escaping).

use std::fmt::Write;

/// `strconv.Quote`: double-quoted with Go escapes; printable Unicode is kept.
pub fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if is_go_print(c) => out.push(c),
            c if (c as u32) < 0x80 => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
    out
}

/// Go's `unicode.IsPrint` (and `strconv.IsPrint`, the same set): graphic characters and
/// the ASCII space only.
pub fn is_go_print(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(c as u32,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890..=0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x2028..=0x202E | 0x2060..=0x206F | 0xFEFF | 0xFFF9..=0xFFFB
        | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3 | 0x1D173..=0x1D17A
        | 0xE0001 | 0xE0020..=0xE007F | 0xE000..=0xF8FF | 0xF0000..=0x10FFFF
        | 0xD800..=0xDFFF | 0xFFFE..=0xFFFF)
}

/// `fmt.Sprintf("%v", f)` for a float64, which is `strconv.FormatFloat(f, 'g', -1, 64)`:
/// shortest digits, exponent form when the exponent is < -4 or >= 6.
pub fn float_v(f: f64) -> String {
    match special(f) {
        Some(s) => s,
        None => layout(f, |exp| !(-4..6).contains(&exp)),
    }
}

/// `json.Marshal` of a float64: plain decimal unless |f| < 1e-6 or >= 1e21, and a
/// one-digit negative exponent loses its leading zero (`1e-7`).
pub fn json_float(f: f64) -> String {
    if !f.is_finite() {
        return "null".into();
    }
    let abs = f.abs();
    let exponent_form = abs != 0.0 && !(1e-6..1e21).contains(&abs);
    let s = layout(f, |_| exponent_form);
    match s.find("e-0") {
        Some(at) if s.len() == at + 4 => format!("{}e-{}", &s[..at], &s[at + 3..]),
        _ => s,
    }
}

fn special(f: f64) -> Option<String> {
    if f.is_nan() {
        Some("NaN".into())
    } else if f.is_infinite() {
        Some(if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        })
    } else if f == 0.0 {
        Some(if f.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        })
    } else {
        None
    }
}

/// Shortest round-trip digits of `f`, laid out as Go's `%e` (`d.ddde±XX`) when
/// `use_exponent(exp)` says so, else as `%f`.
fn layout(f: f64, use_exponent: impl Fn(i32) -> bool) -> String {
    if f == 0.0 {
        return "0".into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e8".
    let sci = format!("{:e}", f);
    let (mantissa, exp) = sci.split_once('e').expect("exponent form");
    let exp: i32 = exp.parse().expect("exponent");
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    let mut out = String::new();
    if f < 0.0 {
        out.push('-');
    }
    if use_exponent(exp) {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        let _ = write!(out, "e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs());
    } else if exp < 0 {
        out.push_str("0.");
        for _ in 0..(-exp - 1) {
            out.push('0');
        }
        out.push_str(&digits);
    } else {
        let int_len = (exp + 1) as usize;
        if digits.len() <= int_len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', int_len - digits.len()));
        } else {
            out.push_str(&digits[..int_len]);
            out.push('.');
            out.push_str(&digits[int_len..]);
        }
    }
    out
}

/// `json.Marshal` of a decoded JSON value: object keys sorted, `<`, `>`, `&`, U+2028 and
/// U+2029 escaped, floats in Go's layout.
pub fn json_marshal(v: &serde_json::Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v);
    out
}

fn write_json(out: &mut String, v: &serde_json::Value) {
    match v {
        serde_json::Value::Null => out.push_str("null"),
        serde_json::Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        serde_json::Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => {
                let _ = write!(out, "{i}");
            }
            (None, Some(u)) => {
                let _ = write!(out, "{u}");
            }
            _ => out.push_str(&json_float(n.as_f64().unwrap_or(0.0))),
        },
        serde_json::Value::String(s) => write_json_string(out, s),
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json(out, item);
            }
            out.push(']');
        }
        serde_json::Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_json_string(out, key);
                out.push(':');
                write_json(out, &map[key]);
            }
            out.push('}');
        }
    }
}

fn write_json_string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    // Runs of characters that need no escape are copied at once (schemas are mostly
    // long descriptions); the escapes are ASCII or U+2028/U+2029 (E2 80 A8/A9), so
    // every cut falls on a character boundary.
    let bytes = s.as_bytes();
    let mut run = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let special = match b {
            b'"' | b'\\' | b'<' | b'>' | b'&' | 0..=0x1f => 1,
            0xE2 if bytes.get(i + 1) == Some(&0x80)
                && matches!(bytes.get(i + 2), Some(0xA8 | 0xA9)) =>
            {
                3
            }
            _ => 0,
        };
        if special == 0 {
            i += 1;
            continue;
        }
        out.push_str(&s[run..i]);
        let c = s[i..].chars().next().unwrap_or_default();
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Go 1.22 and later (every Kubernetes since 1.30).
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
        }
        i += special;
        run = i;
    }
    out.push_str(&s[run..]);
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_escape_like_go() {
        let mut out = String::new();
        write_json_string(
            &mut out,
            "a\"b\\c\nd\re\tf<g>h&i\u{1}j\u{2028}k\u{2029}l\u{e2}\u{80}é€\u{2027}\u{8}\u{c}\u{b}",
        );
        assert_eq!(
            out,
            "\"a\\\"b\\\\c\\nd\\re\\tf\\u003cg\\u003eh\\u0026i\\u0001j\\u2028k\\u2029lâ\u{80}é€\u{2027}\\b\\f\\u000b\""
        );
    }

    #[test]
    fn float_v_matches_go() {
        assert_eq!(float_v(1.5), "1.5");
        assert_eq!(float_v(1e8), "1e+08");
        assert_eq!(float_v(123456789.0), "1.23456789e+08");
        assert_eq!(float_v(100000.0), "100000");
        assert_eq!(float_v(999999.0), "999999");
        assert_eq!(float_v(1234567.0), "1.234567e+06");
        assert_eq!(float_v(0.0001), "0.0001");
        assert_eq!(float_v(0.00001), "1e-05");
        assert_eq!(float_v(-2.5), "-2.5");
    }

    #[test]
    fn json_float_matches_go() {
        assert_eq!(json_float(1.5), "1.5");
        assert_eq!(json_float(1e8), "100000000");
        assert_eq!(json_float(1e21), "1e+21");
        assert_eq!(json_float(0.0000001), "1e-7");
        assert_eq!(json_float(-0.5), "-0.5");
    }

    #[test]
    fn quote_matches_strconv() {
        assert_eq!(quote("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(quote("é"), "\"é\"");
        assert_eq!(quote("\u{0}"), "\"\\x00\"");
    }
}
