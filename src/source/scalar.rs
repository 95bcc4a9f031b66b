//! Resolution of plain YAML scalars the way Kubernetes reads manifests
//! (go-yaml v2 rules through sigs.k8s.io/yaml).
//!
//! Two steps, kept apart because mapping keys need the first one only:
//! 1. [`resolve_plain_yaml`] / [`resolve_tagged`]: what go-yaml v2 decodes a scalar to when the
//!    target is `interface{}` (YAML 1.1 booleans, `0777` octal, `1_000`, …).
//! 2. [`into_value`]: what the API server sees after sigs.k8s.io/yaml writes that with Go's
//!    `json.Marshal` and Kubernetes decodes the JSON again (integral floats become integers,
//!    NaN and infinities cannot be written at all). [`key_string`] is the key counterpart
//!    (sigs.k8s.io/yaml `convertToJSONableObject`).
//!
//! Timestamps: go-yaml v2 recognises `2001-12-14` and friends, but when decoding into
//! `interface{}` it deliberately keeps them as the string as written ("for backward
//! compatibility", decode.go), so they stay strings here too.

use std::borrow::Cow;

use super::node::Value;

/// A scalar as go-yaml v2 decodes it into `interface{}`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Resolved {
    Null,
    Bool(bool),
    Int(i64),
    /// Only for values above `i64::MAX` (go-yaml tries `ParseInt` first).
    Uint(u64),
    Float(f64),
    /// A string: the scalar's text itself.
    Str,
    /// Looks like a YAML timestamp; into `interface{}` it stays the text as written.
    Timestamp,
    /// `!!binary`: the text is base64 and the value is the decoded bytes.
    Binary,
}

/// The YAML core tags go-yaml knows (`tag:yaml.org,2002:<name>`); anything else is `Other`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreTag {
    Str,
    Bool,
    Int,
    Float,
    Null,
    Timestamp,
    Binary,
    Merge,
    /// Not resolvable by go-yaml (`!!map`, `!custom`, `!`): a scalar with it is a string.
    Other,
}

impl CoreTag {
    /// Classifies a full tag such as `tag:yaml.org,2002:int`.
    pub fn from_full(tag: &str) -> CoreTag {
        match tag.strip_prefix("tag:yaml.org,2002:") {
            Some("str") => CoreTag::Str,
            Some("bool") => CoreTag::Bool,
            Some("int") => CoreTag::Int,
            Some("float") => CoreTag::Float,
            Some("null") => CoreTag::Null,
            Some("timestamp") => CoreTag::Timestamp,
            Some("binary") => CoreTag::Binary,
            Some("merge") => CoreTag::Merge,
            _ => CoreTag::Other,
        }
    }

    fn short(self) -> &'static str {
        match self {
            CoreTag::Str => "!!str",
            CoreTag::Bool => "!!bool",
            CoreTag::Int => "!!int",
            CoreTag::Float => "!!float",
            CoreTag::Null => "!!null",
            CoreTag::Timestamp => "!!timestamp",
            CoreTag::Binary => "!!binary",
            CoreTag::Merge => "!!merge",
            CoreTag::Other => "!",
        }
    }
}

impl Resolved {
    /// The tag go-yaml gives the resolved value (used in its error messages).
    fn tag(self) -> CoreTag {
        match self {
            Resolved::Null => CoreTag::Null,
            Resolved::Bool(_) => CoreTag::Bool,
            Resolved::Int(_) | Resolved::Uint(_) => CoreTag::Int,
            Resolved::Float(_) => CoreTag::Float,
            Resolved::Str => CoreTag::Str,
            Resolved::Timestamp => CoreTag::Timestamp,
            Resolved::Binary => CoreTag::Binary,
        }
    }
}

/// Resolves a plain (unquoted, untagged) scalar and converts it the way the API server sees
/// it. `Err` carries a message for values JSON cannot carry (`.inf`, `.nan`).
pub fn resolve_plain(text: &str) -> Result<Value, String> {
    into_value(resolve_plain_yaml(text), Cow::Borrowed(text))
}

/// go-yaml v2 `resolve("", text)` for a plain scalar.
pub fn resolve_plain_yaml(text: &str) -> Resolved {
    resolve_untagged(text, true)
}

/// go-yaml v2 `resolve(tag, text)` for an explicitly tagged scalar (quoted or not).
/// `Err` is go-yaml's message for a value that does not fit its tag.
pub fn resolve_tagged(tag: CoreTag, text: &str) -> Result<Resolved, String> {
    let wanted = match tag {
        CoreTag::Str | CoreTag::Other | CoreTag::Merge => return Ok(Resolved::Str),
        CoreTag::Binary => return Ok(Resolved::Binary),
        t => t,
    };
    let got = resolve_untagged(text, wanted == CoreTag::Timestamp);
    match (wanted, got) {
        (w, g) if w == g.tag() => Ok(got),
        (CoreTag::Float, Resolved::Int(i)) => Ok(Resolved::Float(i as f64)),
        _ => Err(format!(
            "cannot decode {} `{}` as a {}",
            got.tag().short(),
            text,
            wanted.short()
        )),
    }
}

fn resolve_untagged(text: &str, try_timestamp: bool) -> Resolved {
    let Some(&first) = text.as_bytes().first() else {
        return Resolved::Null;
    };
    match first {
        b'y' | b'Y' | b'n' | b'N' | b't' | b'T' | b'f' | b'F' | b'o' | b'O' | b'~' => {
            lookup(text).unwrap_or(Resolved::Str)
        }
        b'.' => {
            if let Some(r) = lookup(text) {
                return r;
            }
            // Not in the table: maybe a float like `.5` (Go's ParseFloat on the raw text,
            // which takes underscores between digits: `.5_1` is 0.51).
            let digits: Cow<str> = if text.contains('_') {
                if !go_underscores_ok(text) {
                    return Resolved::Str;
                }
                Cow::Owned(text.replace('_', ""))
            } else {
                Cow::Borrowed(text)
            };
            if matches_dot_float(digits.as_bytes())
                && let Some(f) = parse_finite(&digits)
            {
                return Resolved::Float(f);
            }
            Resolved::Str
        }
        b'+' | b'-' | b'0'..=b'9' => {
            if let Some(r) = lookup(text) {
                return r;
            }
            if try_timestamp && is_timestamp(text) {
                return Resolved::Timestamp;
            }
            let plain: Cow<str> = if text.contains('_') {
                Cow::Owned(text.replace('_', ""))
            } else {
                Cow::Borrowed(text)
            };
            if let Some(i) = go_parse_int(&plain) {
                return Resolved::Int(i);
            }
            if let Some(u) = go_parse_uint(&plain) {
                return Resolved::Uint(u);
            }
            if matches_yaml_float(plain.as_bytes())
                && let Some(f) = parse_finite(&plain)
            {
                return Resolved::Float(f);
            }
            // go-yaml's explicit `0b`/`-0b` fallbacks are covered by ParseInt base 0.
            Resolved::Str
        }
        _ => Resolved::Str,
    }
}

/// go-yaml v2's resolve table (the entries reachable from a hint character).
fn lookup(text: &str) -> Option<Resolved> {
    Some(match text {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Resolved::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Resolved::Bool(false)
        }
        "~" | "null" | "Null" | "NULL" => Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => Resolved::Float(f64::INFINITY),
        "-.inf" | "-.Inf" | "-.INF" => Resolved::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

/// Rust's float parser on text already checked to be decimal; Go's ParseFloat fails with
/// ErrRange on overflow (and go-yaml then keeps the string), so infinities are refused.
fn parse_finite(text: &str) -> Option<f64> {
    text.parse::<f64>().ok().filter(|f| f.is_finite())
}

fn digits_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// Optional `[eE][-+]?[0-9]+` at `i` reaching the end of `b`.
fn exponent_to_end(b: &[u8], i: usize) -> bool {
    if i == b.len() {
        return true;
    }
    if b[i] != b'e' && b[i] != b'E' {
        return false;
    }
    let mut j = i + 1;
    if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
        j += 1;
    }
    let end = digits_end(b, j);
    end > j && end == b.len()
}

/// go-yaml's `yamlStyleFloat`: `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`.
fn matches_yaml_float(b: &[u8]) -> bool {
    let mut i = 0;
    if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        let end = digits_end(b, i + 1);
        if end == i + 1 {
            return false;
        }
        return exponent_to_end(b, end);
    }
    let end = digits_end(b, i);
    if end == i {
        return false;
    }
    let mut i = end;
    if i < b.len() && b[i] == b'.' {
        i = digits_end(b, i + 1);
    }
    exponent_to_end(b, i)
}

/// Go's `underscoreOK` for a decimal number: every underscore sits between two digits.
fn go_underscores_ok(text: &str) -> bool {
    let b = text.as_bytes();
    b.iter().enumerate().all(|(i, &c)| {
        c != b'_'
            || (i > 0 && b[i - 1].is_ascii_digit() && b.get(i + 1).is_some_and(u8::is_ascii_digit))
    })
}

/// What Go's ParseFloat accepts for text starting with `.`: `\.[0-9]+([eE][-+]?[0-9]+)?`.
fn matches_dot_float(b: &[u8]) -> bool {
    let end = digits_end(b, 1);
    end > 1 && exponent_to_end(b, end)
}

/// Go `strconv.ParseUint(s, 0, 64)` (no sign; `0x`, `0o`, `0b` prefixes, leading `0` octal).
pub fn go_parse_uint(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    if b.is_empty() {
        return None;
    }
    let (base, digits): (u64, &[u8]) = if b[0] == b'0' {
        if b.len() >= 3 && (b[1] | 0x20) == b'b' {
            (2, &b[2..])
        } else if b.len() >= 3 && (b[1] | 0x20) == b'o' {
            (8, &b[2..])
        } else if b.len() >= 3 && (b[1] | 0x20) == b'x' {
            (16, &b[2..])
        } else {
            (8, &b[1..])
        }
    } else {
        (10, b)
    };
    let mut n: u64 = 0;
    for &c in digits {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'z' => c - b'a' + 10,
            b'A'..=b'Z' => c - b'A' + 10,
            _ => return None,
        } as u64;
        if d >= base {
            return None;
        }
        n = n.checked_mul(base)?.checked_add(d)?;
    }
    Some(n)
}

/// Go `strconv.ParseInt(s, 0, 64)`.
pub fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, rest) = match s.as_bytes().first() {
        Some(b'+') => (false, &s[1..]),
        Some(b'-') => (true, &s[1..]),
        _ => (false, s),
    };
    let un = go_parse_uint(rest)?;
    if neg {
        if un > 1u64 << 63 {
            None
        } else {
            Some((un as i64).wrapping_neg())
        }
    } else if un > i64::MAX as u64 {
        None
    } else {
        Some(un as i64)
    }
}

/// go-yaml v2 `parseTimestamp`: the formats `2006-1-2T15:4:5.999999999Z07:00` (also with a
/// lower-case `t`), `2006-1-2 15:4:5.999999999` and `2006-1-2`, with Go's range checks.
pub fn is_timestamp(s: &str) -> bool {
    let b = s.as_bytes();
    // Quick check: all formats start with YYYY-.
    if b.len() < 5 || !b[..4].iter().all(u8::is_ascii_digit) || b[4] != b'-' {
        return false;
    }
    let year: u32 = s[..4].parse().unwrap_or(0);
    let mut i = 5;
    let Some(month) = go_num(b, &mut i) else {
        return false;
    };
    if !(1..=12).contains(&month) || b.get(i) != Some(&b'-') {
        return false;
    }
    i += 1;
    let Some(day) = go_num(b, &mut i) else {
        return false;
    };
    if day < 1 || day > days_in(month, year) {
        return false;
    }
    if i == b.len() {
        return true;
    }
    let zone = match b[i] {
        b'T' | b't' => true,
        b' ' => false,
        _ => return false,
    };
    i += 1;
    let Some(h) = go_num(b, &mut i) else {
        return false;
    };
    if h > 23 || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    let Some(m) = go_num(b, &mut i) else {
        return false;
    };
    if m > 59 || b.get(i) != Some(&b':') {
        return false;
    }
    i += 1;
    let Some(sec) = go_num(b, &mut i) else {
        return false;
    };
    if sec > 59 {
        return false;
    }
    // Optional fraction: `.` or `,` and digits.
    if i + 1 < b.len() && (b[i] == b'.' || b[i] == b',') && b[i + 1].is_ascii_digit() {
        i = digits_end(b, i + 1);
    }
    if !zone {
        return i == b.len();
    }
    match b.get(i) {
        Some(b'Z') => i + 1 == b.len(),
        Some(b'+' | b'-') => {
            let z = &b[i + 1..];
            z.len() == 5
                && z[0].is_ascii_digit()
                && z[1].is_ascii_digit()
                && z[2] == b':'
                && z[3].is_ascii_digit()
                && z[4].is_ascii_digit()
                && (z[0] - b'0') * 10 + (z[1] - b'0') <= 24
                && (z[3] - b'0') * 10 + (z[4] - b'0') <= 60
        }
        _ => false,
    }
}

/// Go time's `getnum(s, false)`: one or two digits.
fn go_num(b: &[u8], i: &mut usize) -> Option<u32> {
    let d0 = *b.get(*i)?;
    if !d0.is_ascii_digit() {
        return None;
    }
    *i += 1;
    let mut n = u32::from(d0 - b'0');
    if let Some(&d1) = b.get(*i)
        && d1.is_ascii_digit()
    {
        *i += 1;
        n = n * 10 + u32::from(d1 - b'0');
    }
    Some(n)
}

fn days_in(month: u32, year: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// The JSON value the API server ends up with: sigs.k8s.io/yaml writes the go-yaml value
/// with `json.Marshal`, and Kubernetes decodes integers-without-fraction as int64.
///
/// - a float that is integral, with magnitude below 1e21 (Go writes it without `.` or
///   exponent) and within int64 becomes [`Value::Int`] (`1.0` → `1`);
/// - integers above `i64::MAX` become floats;
/// - NaN and infinities are errors (`json: unsupported value: +Inf`).
pub fn into_value(resolved: Resolved, text: Cow<'_, str>) -> Result<Value, String> {
    Ok(match resolved {
        Resolved::Null => Value::Null,
        Resolved::Bool(b) => Value::Bool(b),
        Resolved::Int(i) => Value::Int(i),
        Resolved::Uint(u) => match i64::try_from(u) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::Float(u as f64),
        },
        Resolved::Float(f) => json_number(f)?,
        Resolved::Str | Resolved::Timestamp => Value::String(exact(text)),
        Resolved::Binary => Value::String(decode_binary(&text)?),
    })
}

/// The scalar's text in a string of its own size. saphyr builds scalars in buffers with
/// room to spare (128 bytes for a plain one): kept as they are, a CRD's tree takes
/// several times its text. Copying now, while the text is in cache, frees the buffer
/// for the next scalar.
fn exact(text: Cow<'_, str>) -> String {
    match text {
        Cow::Owned(s) if s.capacity() == s.len() => s,
        text => String::from(&*text),
    }
}

/// Go's JSON decoder's message for a number token it cannot read as a float64 (beyond
/// ±1.8e308: `strconv.ParseFloat` reports a range error; smaller ones round to 0 and
/// pass). `None` for anything else, including text that is not a JSON number.
pub fn json_number_overflow(text: &str) -> Option<String> {
    if !is_json_number(text.as_bytes()) || text.parse::<f64>().ok()?.is_finite() {
        return None;
    }
    Some(format!(
        "json: cannot unmarshal number {text} into Go value of type float64"
    ))
}

/// JSON's number grammar: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?`.
fn is_json_number(b: &[u8]) -> bool {
    let mut i = usize::from(b.first() == Some(&b'-'));
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => i = digits_end(b, i),
        _ => return false,
    }
    if b.get(i) == Some(&b'.') {
        let end = digits_end(b, i + 1);
        if end == i + 1 {
            return false;
        }
        i = end;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'-' | b'+')) {
            i += 1;
        }
        let end = digits_end(b, i);
        if end == i {
            return false;
        }
        i = end;
    }
    i == b.len()
}

/// A float after a Go JSON round trip (see [`into_value`]).
pub fn json_number(f: f64) -> Result<Value, String> {
    if f.is_nan() {
        return Err("json: unsupported value: NaN".to_string());
    }
    if f.is_infinite() {
        let sign = if f > 0.0 { '+' } else { '-' };
        return Err(format!("json: unsupported value: {sign}Inf"));
    }
    // Below 1e21 Go writes an integral float as the shortest decimal that reads back
    // as it, padded with zeros (-9223372036854775809 → -9223372036854776000, 2^62 →
    // 4611686018427388000); Rust's `Display` writes the same digits. Kubernetes reads
    // that text as an int64 when it fits, else as a float64 (which gives `f` back).
    if f.fract() == 0.0
        && f.abs() < 1e21
        && let Ok(i) = format!("{f}").parse::<i64>()
    {
        return Ok(Value::Int(i));
    }
    Ok(Value::Float(f))
}

/// A mapping key as sigs.k8s.io/yaml `convertToJSONableObject` writes it: strings as they
/// are, integers in decimal, booleans as `true`/`false`, floats with Go's
/// `FormatFloat(f, 'g', -1, 32)` (`.inf`, `-.inf`, `.nan` for the special values).
/// Null and values above int64 are unsupported map keys.
pub fn key_string(resolved: Resolved, text: Cow<'_, str>) -> Result<String, String> {
    Ok(match resolved {
        Resolved::Str | Resolved::Timestamp => exact(text),
        Resolved::Binary => decode_binary(&text)?,
        Resolved::Bool(b) => b.to_string(),
        Resolved::Int(i) => i.to_string(),
        Resolved::Float(f) => go_format_float32_g(f),
        Resolved::Null => {
            return Err("unsupported map key of type: %!s(<nil>), key: <nil>".to_string());
        }
        Resolved::Uint(u) => {
            return Err(format!("unsupported map key of type: uint64, key: {u:#x}"));
        }
    })
}

/// Go `strconv.FormatFloat(f, 'g', -1, 32)`, with sigs.k8s.io/yaml's renaming of the
/// special values.
pub fn go_format_float32_g(f: f64) -> String {
    let x = f as f32;
    if x.is_nan() {
        return ".nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { ".inf" } else { "-.inf" }.to_string();
    }
    let neg = x.is_sign_negative();
    if x == 0.0 {
        return if neg { "-0" } else { "0" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits for f32, e.g. `-1.234567e6`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: Vec<u8> = mantissa.bytes().filter(u8::is_ascii_digit).collect();
    let nd = digits.len() as i32;
    let dp = exp + 1;
    let mut out = String::with_capacity(16);
    if neg {
        out.push('-');
    }
    if !(-4..6).contains(&exp) {
        // %e with nd-1 fraction digits and at least two exponent digits.
        out.push(digits[0] as char);
        if nd > 1 {
            out.push('.');
            out.extend(digits[1..].iter().map(|&d| d as char));
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            out.push('0');
        }
        out.push_str(&e.to_string());
    } else {
        // %f with max(nd-dp, 0) fraction digits.
        if dp > 0 {
            for i in 0..dp {
                out.push(digits.get(i as usize).map_or('0', |&d| d as char));
            }
        } else {
            out.push('0');
        }
        let frac = (nd - dp).max(0);
        if frac > 0 {
            out.push('.');
            for i in 0..frac {
                let at = dp + i;
                out.push(if at < 0 {
                    '0'
                } else {
                    digits.get(at as usize).map_or('0', |&d| d as char)
                });
            }
        }
    }
    out
}

/// `!!binary`: go-yaml decodes the base64 text (Go's StdEncoding, which skips line breaks)
/// and the bytes become a Go string; `json.Marshal` then replaces invalid UTF-8 by U+FFFD.
fn decode_binary(text: &str) -> Result<String, String> {
    const ERR: &str = "!!binary value contains invalid base64 data";
    let mut bytes = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc: u32 = 0;
    let mut bits = 0;
    let mut quad = 0usize;
    let mut padding = 0usize;
    for &c in text.as_bytes() {
        if c == b'\r' || c == b'\n' {
            continue;
        }
        if c == b'=' {
            padding += 1;
            quad += 1;
            continue;
        }
        if padding > 0 {
            return Err(ERR.to_string());
        }
        let Some(v) = crate::model::decode::base64_digit(c) else {
            return Err(ERR.to_string());
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        quad += 1;
        if bits >= 8 {
            bits -= 8;
            bytes.push((acc >> bits) as u8);
        }
    }
    let data_chars = quad - padding;
    if !quad.is_multiple_of(4) || padding > 2 || (padding > 0 && data_chars % 4 + padding != 4) {
        return Err(ERR.to_string());
    }
    if data_chars % 4 == 1 {
        return Err(ERR.to_string());
    }
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Result<Value, String> {
        resolve_plain(text)
    }

    /// Integral floats reach the server as Go's shortest decimal text, read back as an
    /// int64 when it fits (checked with kubectl-validate: `-9223372036854775809` on a
    /// string field is reported as a "number").
    #[test]
    fn integral_floats_after_the_json_round_trip() {
        use Value::*;
        assert_eq!(v("-9223372036854775809"), Ok(Float(-9223372036854775809.0)));
        assert_eq!(v("-9223372036854775808"), Ok(Int(i64::MIN)));
        assert_eq!(v("4611686018427387904.0"), Ok(Int(4611686018427388000)));
        assert_eq!(v("9007199254740993.0"), Ok(Int(9007199254740992)));
        assert_eq!(v("1e20"), Ok(Float(1e20)));
        assert_eq!(v("-0.0"), Ok(Int(0)));
        assert_eq!(v("1e21"), Ok(Float(1e21)));
    }

    #[test]
    fn plain_scalars_table() {
        use Value::*;
        let s = |x: &str| String(x.to_string());
        let table: Vec<(&str, Value)> = vec![
            // nulls
            ("", Null),
            ("~", Null),
            ("null", Null),
            ("Null", Null),
            ("NULL", Null),
            ("nULL", s("nULL")),
            // booleans (YAML 1.1)
            ("y", Bool(true)),
            ("Y", Bool(true)),
            ("yes", Bool(true)),
            ("Yes", Bool(true)),
            ("YES", Bool(true)),
            ("true", Bool(true)),
            ("True", Bool(true)),
            ("TRUE", Bool(true)),
            ("on", Bool(true)),
            ("On", Bool(true)),
            ("ON", Bool(true)),
            ("n", Bool(false)),
            ("N", Bool(false)),
            ("no", Bool(false)),
            ("No", Bool(false)),
            ("NO", Bool(false)),
            ("false", Bool(false)),
            ("False", Bool(false)),
            ("FALSE", Bool(false)),
            ("off", Bool(false)),
            ("Off", Bool(false)),
            ("OFF", Bool(false)),
            ("yEs", s("yEs")),
            ("tRUE", s("tRUE")),
            ("o", s("o")),
            ("t", s("t")),
            // integers
            ("0", Int(0)),
            ("-0", Int(0)),
            ("42", Int(42)),
            ("+42", Int(42)),
            ("-42", Int(-42)),
            ("1_000", Int(1000)),
            ("1__0", Int(10)),
            ("0777", Int(511)),
            ("-0777", Int(-511)),
            ("0o17", Int(15)),
            ("0O17", Int(15)),
            ("0x1F", Int(31)),
            ("0X1f", Int(31)),
            ("+0x1F", Int(31)),
            ("-0x1F", Int(-31)),
            ("0x_1F", Int(31)),
            ("0b101", Int(5)),
            ("-0b101", Int(-5)),
            ("0b1_01", Int(5)),
            ("9223372036854775807", Int(i64::MAX)),
            ("-9223372036854775808", Int(i64::MIN)),
            // above int64: uint64, then float after the JSON round trip
            ("9223372036854775808", Float(9223372036854775808.0)),
            ("18446744073709551615", Float(18446744073709551615.0)),
            ("0xFFFFFFFFFFFFFFFF", Float(18446744073709551615.0)),
            // beyond uint64: float
            ("99999999999999999999", Float(1e20)),
            // rounds to -2^63, which Go writes as -9223372036854776000 (shortest digits): a float
            ("-9223372036854775809", Float(-9223372036854775809.0)),
            // floats
            ("1.0", Int(1)),
            ("-1.0", Int(-1)),
            ("-0.0", Int(0)),
            ("1.5", Float(1.5)),
            ("1.", Int(1)),
            (".5", Float(0.5)),
            ("+.5", Float(0.5)),
            ("-.5", Float(-0.5)),
            (".5e1", Int(5)),
            // Go's ParseFloat takes underscores between digits (kubectl reads 0.51)
            (".5_1", Float(0.51)),
            (".5_1e1_0", Int(5_100_000_000)),
            ("._5", s("._5")),
            (".5__1", s(".5__1")),
            (".5_", s(".5_")),
            (".5_e1", s(".5_e1")),
            ("1e3", Int(1000)),
            ("1E3", Int(1000)),
            ("1e+3", Int(1000)),
            ("1.5e-3", Float(0.0015)),
            ("1_000.5", Float(1000.5)),
            ("1e18", Int(1_000_000_000_000_000_000)),
            ("1e20", Float(1e20)),
            ("1e21", Float(1e21)),
            ("1e400", s("1e400")),
            ("08", Int(8)),
            ("0778", Int(778)),
            ("09.5", Float(9.5)),
            // not numbers
            ("0x", s("0x")),
            ("0xG", s("0xG")),
            ("1e", s("1e")),
            ("1.2.3", s("1.2.3")),
            ("+", s("+")),
            ("-", s("-")),
            ("+inf", s("+inf")),
            ("inf", s("inf")),
            ("nan", s("nan")),
            (".", s(".")),
            (".5_0", Float(0.5)),
            ("_1", s("_1")),
            ("1:20", s("1:20")),
            ("=", s("=")),
            ("<<", s("<<")),
            ("0.1.2", s("0.1.2")),
            ("1 2", s("1 2")),
            // timestamps stay strings as written
            ("2001-12-14", s("2001-12-14")),
            (
                "2001-12-14T21:59:43.10-05:00",
                s("2001-12-14T21:59:43.10-05:00"),
            ),
            ("2001-12-14 21:59:43.10", s("2001-12-14 21:59:43.10")),
            ("apiVersion", s("apiVersion")),
            ("über", s("über")),
        ];
        for (text, want) in table {
            assert_eq!(v(text), Ok(want), "resolving {text:?}");
        }
    }

    #[test]
    fn json_cannot_carry_nan_and_infinities() {
        for (text, msg) in [
            (".inf", "json: unsupported value: +Inf"),
            (".Inf", "json: unsupported value: +Inf"),
            (".INF", "json: unsupported value: +Inf"),
            ("+.inf", "json: unsupported value: +Inf"),
            ("-.inf", "json: unsupported value: -Inf"),
            ("-.INF", "json: unsupported value: -Inf"),
            (".nan", "json: unsupported value: NaN"),
            (".NaN", "json: unsupported value: NaN"),
            (".NAN", "json: unsupported value: NaN"),
        ] {
            assert_eq!(v(text), Err(msg.to_string()), "{text}");
        }
        assert_eq!(v(".iNf"), Ok(Value::String(".iNf".into())));
    }

    #[test]
    fn yaml_level_resolution_keeps_go_types() {
        assert_eq!(resolve_plain_yaml("1.0"), Resolved::Float(1.0));
        assert_eq!(
            resolve_plain_yaml("18446744073709551615"),
            Resolved::Uint(u64::MAX)
        );
        assert_eq!(resolve_plain_yaml("2001-12-14"), Resolved::Timestamp);
        assert_eq!(resolve_plain_yaml("2001-1-2"), Resolved::Timestamp);
        assert_eq!(resolve_plain_yaml("2001-02-30"), Resolved::Str);
        assert_eq!(resolve_plain_yaml("2000-02-29"), Resolved::Timestamp);
        assert_eq!(resolve_plain_yaml("1900-02-29"), Resolved::Str);
        assert_eq!(
            resolve_plain_yaml("2001-12-14t21:59:43Z"),
            Resolved::Timestamp
        );
        assert_eq!(resolve_plain_yaml("2001-12-14T21:59:43"), Resolved::Str);
        assert_eq!(
            resolve_plain_yaml("2001-12-14 21:59:43"),
            Resolved::Timestamp
        );
        assert_eq!(resolve_plain_yaml("2001-12-14T25:59:43Z"), Resolved::Str);
        assert_eq!(
            resolve_plain_yaml("2001-12-14T21:59:43+01:00"),
            Resolved::Timestamp
        );
        assert_eq!(
            resolve_plain_yaml("2001-12-14T21:59:43,5Z"),
            Resolved::Timestamp
        );
        assert_eq!(resolve_plain_yaml("2001-13-14"), Resolved::Str);
    }

    #[test]
    fn tagged_scalars() {
        use CoreTag::*;
        assert_eq!(resolve_tagged(Str, "5"), Ok(Resolved::Str));
        assert_eq!(resolve_tagged(Str, "true"), Ok(Resolved::Str));
        assert_eq!(resolve_tagged(Int, "0x10"), Ok(Resolved::Int(16)));
        assert_eq!(resolve_tagged(Float, "5"), Ok(Resolved::Float(5.0)));
        assert_eq!(resolve_tagged(Float, "5.5"), Ok(Resolved::Float(5.5)));
        assert_eq!(resolve_tagged(Bool, "on"), Ok(Resolved::Bool(true)));
        assert_eq!(resolve_tagged(Null, "~"), Ok(Resolved::Null));
        assert_eq!(resolve_tagged(Null, ""), Ok(Resolved::Null));
        assert_eq!(resolve_tagged(Other, "5"), Ok(Resolved::Str));
        assert_eq!(
            resolve_tagged(Timestamp, "2001-12-14"),
            Ok(Resolved::Timestamp)
        );
        assert_eq!(
            resolve_tagged(Int, "abc"),
            Err("cannot decode !!str `abc` as a !!int".to_string())
        );
        assert_eq!(
            resolve_tagged(Bool, "1"),
            Err("cannot decode !!int `1` as a !!bool".to_string())
        );
        assert_eq!(
            resolve_tagged(Int, "2001-12-14"),
            Err("cannot decode !!str `2001-12-14` as a !!int".to_string())
        );
        assert_eq!(
            resolve_tagged(Null, "foo"),
            Err("cannot decode !!str `foo` as a !!null".to_string())
        );
        assert_eq!(CoreTag::from_full("tag:yaml.org,2002:int"), Int);
        assert_eq!(CoreTag::from_full("!foo"), Other);
    }

    #[test]
    fn binary_is_decoded_like_go_yaml() {
        assert_eq!(
            into_value(Resolved::Binary, "aGVsbG8=".into()),
            Ok(Value::String("hello".into()))
        );
        assert_eq!(
            into_value(Resolved::Binary, "aGVs\nbG8=\n".into()),
            Ok(Value::String("hello".into()))
        );
        assert_eq!(
            into_value(Resolved::Binary, "aGk=".into()),
            Ok(Value::String("hi".into()))
        );
        assert_eq!(
            into_value(Resolved::Binary, "".into()),
            Ok(Value::String(String::new()))
        );
        for bad in ["aGVsbG8", "a", "aGVs bG8=", "aG=k", "aGVsbG8==="] {
            assert_eq!(
                into_value(Resolved::Binary, bad.into()),
                Err("!!binary value contains invalid base64 data".to_string()),
                "{bad}"
            );
        }
        assert_eq!(
            into_value(Resolved::Binary, "/w==".into()),
            Ok(Value::String("\u{FFFD}".into()))
        );
    }

    #[test]
    fn keys_like_sigs_k8s_yaml() {
        let k = |t: &str| key_string(resolve_plain_yaml(t), Cow::Borrowed(t));
        assert_eq!(k("replicas"), Ok("replicas".into()));
        assert_eq!(k("true"), Ok("true".into()));
        assert_eq!(k("yes"), Ok("true".into()));
        assert_eq!(k("off"), Ok("false".into()));
        assert_eq!(k("1"), Ok("1".into()));
        assert_eq!(k("0x10"), Ok("16".into()));
        assert_eq!(k("0777"), Ok("511".into()));
        assert_eq!(k("1.0"), Ok("1".into()));
        assert_eq!(k("1.5"), Ok("1.5".into()));
        assert_eq!(k("0.1"), Ok("0.1".into()));
        assert_eq!(k("3.14159265358979"), Ok("3.1415927".into()));
        assert_eq!(k("1e3"), Ok("1000".into()));
        assert_eq!(k("100000.0"), Ok("100000".into()));
        assert_eq!(k("1e6"), Ok("1e+06".into()));
        assert_eq!(k("1234567.0"), Ok("1.234567e+06".into()));
        assert_eq!(k("1e21"), Ok("1e+21".into()));
        assert_eq!(k("0.0001"), Ok("0.0001".into()));
        assert_eq!(k("0.00001"), Ok("1e-05".into()));
        assert_eq!(k("-2.5e-7"), Ok("-2.5e-07".into()));
        assert_eq!(k("99999999999999999999"), Ok("1e+20".into()));
        assert_eq!(k("-0.0"), Ok("-0".into()));
        assert_eq!(k(".inf"), Ok(".inf".into()));
        assert_eq!(k("-.inf"), Ok("-.inf".into()));
        assert_eq!(k(".nan"), Ok(".nan".into()));
        assert_eq!(k("2001-12-14"), Ok("2001-12-14".into()));
        assert_eq!(
            k("~"),
            Err("unsupported map key of type: %!s(<nil>), key: <nil>".into())
        );
        assert_eq!(
            k("18446744073709551615"),
            Err("unsupported map key of type: uint64, key: 0xffffffffffffffff".into())
        );
    }

    #[test]
    fn go_integer_parsing() {
        assert_eq!(go_parse_uint("0"), Some(0));
        assert_eq!(go_parse_uint("00"), Some(0));
        assert_eq!(go_parse_uint("0b"), None);
        assert_eq!(go_parse_uint("0b2"), None);
        assert_eq!(go_parse_uint("+1"), None);
        assert_eq!(go_parse_uint("18446744073709551616"), None);
        assert_eq!(go_parse_int("-9223372036854775809"), None);
        assert_eq!(go_parse_int("9223372036854775808"), None);
        assert_eq!(go_parse_int("-0x8000000000000000"), Some(i64::MIN));
        assert_eq!(go_parse_int(""), None);
        assert_eq!(go_parse_int("-"), None);
    }
}
