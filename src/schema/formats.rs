//! String formats the API server validates in custom resources (kube-openapi `strfmt`
//! as filtered by apiextensions' supported-format list), each checked exactly the way
//! the server's Go code checks it.
//!
//! Formats the server does not know are ignored (not errors); on `integer` only
//! `int32`/`int64` and on `number` only `float`/`double` survive, and those are range
//! checks done by the number validator, not here.

use crate::cel::KubeVersion;
use std::sync::OnceLock;

use regex::Regex;

/// Formats validated on strings, by their normalised name (dashes removed, as
/// go-openapi normalises). `k8s-short-name` and `k8s-long-name` exist since 1.34.
const STRING_FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

/// go-openapi's name normalisation (allocates only for names with dashes).
pub fn normalize(format: &str) -> std::borrow::Cow<'_, str> {
    if format.contains('-') {
        format.replace('-', "").into()
    } else {
        format.into()
    }
}

/// The format the server of `version` keeps for a schema after stripping unsupported
/// ones (`StripUnsupportedFormatsPostProcessorForVersion`), given the schema's single
/// type (`""` when it has none or several). `None` means the format is dropped.
///
/// Up to 1.35 only the string formats survive, whatever the type: `int32` on an
/// integer is dropped, `date` on an integer is kept. From 1.36 (apiextensions-apiserver
/// 0835a2fa9, "Stop stripping valid formats for number/integer types") string formats
/// are kept on strings or untyped schemas only, and integers and numbers keep their
/// own formats. Which string formats exist follows the server's compatibility
/// version, one minor back (`k8s-short-name` and `k8s-long-name` from 1.35).
pub fn effective_format<'a>(type_: &str, format: &'a str, version: KubeVersion) -> Option<&'a str> {
    if format.is_empty() {
        return None;
    }
    let string_format = |f: &str| {
        let normalized = normalize(f);
        STRING_FORMATS.contains(&&*normalized)
            && (version.compatibility() >= KubeVersion::new(1, 34)
                || !matches!(&*normalized, "k8sshortname" | "k8slongname"))
    };
    let keep = if version < KubeVersion::new(1, 36) {
        string_format(format)
    } else {
        match type_ {
            "" | "string" => string_format(format),
            "integer" => format == "int32" || format == "int64",
            "number" => format == "float" || format == "double",
            _ => false,
        }
    };
    keep.then_some(format)
}

/// Whether the format registry knows the (possibly un-normalised) name.
pub fn is_string_format(format: &str) -> bool {
    STRING_FORMATS.contains(&&*normalize(format))
}

/// Whether `value` is valid for the string format `format` (un-normalised name).
/// Unknown formats accept everything.
pub fn validates(format: &str, value: &str) -> bool {
    match &*normalize(format) {
        "bsonobjectid" => value.len() == 24 && value.bytes().all(|b| b.is_ascii_hexdigit()),
        "uri" => is_request_uri(value),
        "email" => is_email(value),
        "hostname" => is_hostname(value),
        "ipv4" => parse_ip_sloppy(value).is_some() && value.contains('.'),
        "ipv6" => parse_ip_strict(value).is_some() && value.contains(':'),
        "cidr" => parse_cidr_sloppy(value),
        "mac" => is_mac(value),
        "uuid" => re(&UUID, UUID_PATTERN).is_match(value),
        "uuid3" => re(&UUID3, UUID3_PATTERN).is_match(value),
        "uuid4" => re(&UUID4, UUID4_PATTERN).is_match(value),
        "uuid5" => re(&UUID5, UUID5_PATTERN).is_match(value),
        "isbn" => is_isbn10(value) || is_isbn13(value),
        "isbn10" => is_isbn10(value),
        "isbn13" => is_isbn13(value),
        "creditcard" => is_credit_card(value),
        "ssn" => value.len() == 11 && re(&SSN, SSN_PATTERN).is_match(value),
        "hexcolor" => re(&HEXCOLOR, HEXCOLOR_PATTERN).is_match(value),
        "rgbcolor" => re(&RGBCOLOR, RGBCOLOR_PATTERN).is_match(value),
        "byte" => re(&BASE64, BASE64_PATTERN).is_match(value),
        "password" => true,
        "date" => is_date(value),
        "duration" => is_duration(value),
        "datetime" => is_date_time(value),
        "k8sshortname" => value.len() <= 63 && re(&SHORT_NAME, SHORT_NAME_PATTERN).is_match(value),
        "k8slongname" => value.len() <= 253 && re(&LONG_NAME, LONG_NAME_PATTERN).is_match(value),
        _ => true,
    }
}

const UUID_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const UUID3_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$";
const UUID4_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$";
const UUID5_PATTERN: &str =
    r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$";
const HOSTNAME_PATTERN: &str = r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$";
const CREDIT_CARD_PATTERN: &str = r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$";
const HEXCOLOR_PATTERN: &str = r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$";
const RGBCOLOR_PATTERN: &str = r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$";
const BASE64_PATTERN: &str =
    r"^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$";
const SSN_PATTERN: &str = r"^\d{3}[- ]?\d{2}[- ]?\d{4}$";
const DATE_TIME_PATTERN: &str =
    r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$";
const DURATION_PATTERN: &str = r"((\d+)\s*([A-Za-zµ]+))";
const SHORT_NAME_PATTERN: &str = "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";
const LONG_NAME_PATTERN: &str =
    "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

static UUID: OnceLock<Regex> = OnceLock::new();
static UUID3: OnceLock<Regex> = OnceLock::new();
static UUID4: OnceLock<Regex> = OnceLock::new();
static UUID5: OnceLock<Regex> = OnceLock::new();
static HOSTNAME: OnceLock<Regex> = OnceLock::new();
static CREDIT_CARD: OnceLock<Regex> = OnceLock::new();
static HEXCOLOR: OnceLock<Regex> = OnceLock::new();
static RGBCOLOR: OnceLock<Regex> = OnceLock::new();
static BASE64: OnceLock<Regex> = OnceLock::new();
static SSN: OnceLock<Regex> = OnceLock::new();
static DATE_TIME: OnceLock<Regex> = OnceLock::new();
static DURATION: OnceLock<Regex> = OnceLock::new();
static SHORT_NAME: OnceLock<Regex> = OnceLock::new();
static LONG_NAME: OnceLock<Regex> = OnceLock::new();

/// A Go pattern compiled once; these constants are known to be valid.
fn re(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| {
        super::regex::compile_go_capturing(pattern)
            .unwrap_or_else(|e| panic!("built-in pattern {pattern}: {e}"))
    })
}

fn is_hostname(s: &str) -> bool {
    re(&HOSTNAME, HOSTNAME_PATTERN).is_match(s)
        && s.len() <= 255
        && s.split('.').all(|p| p.len() <= 63)
}

fn is_credit_card(s: &str) -> bool {
    let digits: String = s.chars().filter(|c| c.is_ascii_digit()).collect();
    if !re(&CREDIT_CARD, CREDIT_CARD_PATTERN).is_match(&digits) {
        return false;
    }
    let mut sum = 0u32;
    let mut double = false;
    for b in digits.bytes().rev() {
        let mut d = (b - b'0') as u32;
        if double {
            d *= 2;
            sum += if d >= 10 { d % 10 + 1 } else { d };
        } else {
            sum += d;
        }
        double = !double;
    }
    sum.is_multiple_of(10)
}

/// ISBN input with Go `\s` whitespace and dashes removed.
fn isbn_digits(s: &str) -> Vec<u8> {
    s.bytes()
        .filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'-'))
        .collect()
}

fn is_isbn10(s: &str) -> bool {
    let d = isbn_digits(s);
    let shape = d.len() == 10
        && d[..9].iter().all(u8::is_ascii_digit)
        && (d[9].is_ascii_digit() || d[9] == b'X');
    if !shape {
        return false;
    }
    let mut sum: i32 = (0..9).map(|i| (i as i32 + 1) * (d[i] - b'0') as i32).sum();
    sum += if d[9] == b'X' {
        100
    } else {
        10 * (d[9] - b'0') as i32
    };
    sum % 11 == 0
}

fn is_isbn13(s: &str) -> bool {
    let d = isbn_digits(s);
    if d.len() != 13 || !d.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: i32 = (0..12)
        .map(|i| if i % 2 == 0 { 1 } else { 3 } * (d[i] - b'0') as i32)
        .sum();
    (d[12] - b'0') as i32 - (10 - sum % 10) % 10 == 0
}

/// `time.Parse("2006-01-02", s)`.
pub fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        b[r].iter().try_fold(0u32, |acc, c| {
            c.is_ascii_digit().then(|| acc * 10 + (c - b'0') as u32)
        })
    };
    let (Some(year), Some(month), Some(day)) = (num(0..4), num(5..7), num(8..10)) else {
        return false;
    };
    (1..=12).contains(&month) && day >= 1 && day <= days_in_month(year, month)
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if year.is_multiple_of(4) && (!year.is_multiple_of(100) || year.is_multiple_of(400)) => {
            29
        }
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// strfmt's `IsDateTime`: a date, a `t`/`T`, and a time checked by a pattern.
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let Some(caps) = re(&DATE_TIME, DATE_TIME_PATTERN).captures(time) else {
        return false;
    };
    let part = |i: usize| caps.get(i).map(|m| m.as_str()).unwrap_or("");
    part(1) <= "23" && part(2) <= "59" && part(3) <= "59"
}

/// strfmt's `ParseDuration`: Go's `time.ParseDuration`, or else any
/// `<digits><unit>` anywhere in the text with a long list of unit spellings.
fn is_duration(s: &str) -> bool {
    if go_parse_duration(s).is_ok() {
        return true;
    }
    const UNITS: &[&[&str]] = &[
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let mut ok = false;
    for caps in re(&DURATION, DURATION_PATTERN).captures_iter(s) {
        let digits = caps.get(2).map(|m| m.as_str()).unwrap_or("");
        // strconv.Atoi fails on values beyond int64, which fails the whole string.
        if digits.parse::<i64>().is_err() {
            return false;
        }
        let unit = caps
            .get(3)
            .map(|m| m.as_str())
            .unwrap_or("")
            .trim()
            .to_lowercase();
        for variants in UNITS {
            let last = variants.len() - 1;
            for (i, variant) in variants.iter().enumerate() {
                if (i == last && unit.starts_with(variant)) || unit == *variant {
                    ok = true;
                }
            }
        }
    }
    ok
}

/// Go's `time.ParseDuration`: nanoseconds, or Go's error text.
pub fn go_parse_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", go_quote(orig));
    let mut s = orig;
    let mut neg = false;
    if let Some(c) = s.chars().next()
        && (c == '-' || c == '+')
    {
        neg = c == '-';
        s = &s[1..];
    }
    if s == "0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        let b = s.as_bytes();
        if !(b[0] == b'.' || b[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // Integer part.
        let mut v: u64 = 0;
        let int_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
        for &c in &b[..int_len] {
            if v > LIMIT / 10 {
                return Err(invalid());
            }
            v = v * 10 + (c - b'0') as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        let pre = int_len > 0;
        s = &s[int_len..];
        // Fraction.
        let mut f: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if let Some(rest) = s.strip_prefix('.') {
            s = rest;
            let frac_len = s.bytes().take_while(|c| c.is_ascii_digit()).count();
            let mut overflow = false;
            for c in s[..frac_len].bytes() {
                if overflow {
                    continue;
                }
                if f > (LIMIT - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let y = f * 10 + (c - b'0') as u64;
                if y > LIMIT {
                    overflow = true;
                    continue;
                }
                f = y;
                scale *= 10.0;
            }
            post = frac_len > 0;
            s = &s[frac_len..];
        }
        if !pre && !post {
            return Err(invalid());
        }
        let unit_len = s
            .bytes()
            .take_while(|c| !(*c == b'.' || c.is_ascii_digit()))
            .count();
        if unit_len == 0 {
            return Err(format!("time: missing unit in duration {}", go_quote(orig)));
        }
        let unit_text = &s[..unit_len];
        s = &s[unit_len..];
        let unit: u64 = match unit_text {
            "ns" => 1,
            "us" | "µs" | "μs" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => {
                return Err(format!(
                    "time: unknown unit {} in duration {}",
                    go_quote(unit_text),
                    go_quote(orig)
                ));
            }
        };
        if v > LIMIT / unit {
            return Err(invalid());
        }
        v *= unit;
        if f > 0 {
            v += (f as f64 * (unit as f64 / scale)) as u64;
            if v > LIMIT {
                return Err(invalid());
            }
        }
        total += v;
        if total > LIMIT {
            return Err(invalid());
        }
    }
    if neg {
        return Ok((total as i128).wrapping_neg() as i64);
    }
    if total > LIMIT - 1 {
        return Err(invalid());
    }
    Ok(total as i64)
}

fn go_quote(s: &str) -> String {
    crate::diag::gofmt::quote(s)
}

/// `net.ParseMAC`.
fn is_mac(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 14 {
        return false;
    }
    let hex2 = |i: usize| {
        b.get(i..i + 2)
            .is_some_and(|p| p.iter().all(u8::is_ascii_hexdigit))
    };
    if b[2] == b':' || b[2] == b'-' {
        if !(b.len() + 1).is_multiple_of(3) {
            return false;
        }
        let n = (b.len() + 1) / 3;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        let sep = b[2];
        (0..n).all(|i| {
            let x = i * 3;
            hex2(x) && (i == n - 1 || b[x + 2] == sep)
        })
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) {
            return false;
        }
        let n = 2 * (b.len() + 1) / 5;
        if n != 6 && n != 8 && n != 20 {
            return false;
        }
        (0..n / 2).all(|i| {
            let x = i * 5;
            hex2(x) && hex2(x + 2) && (i == n / 2 - 1 || b[x + 4] == b'.')
        })
    } else {
        false
    }
}

/// IPv4 with Kubernetes' "sloppy" parsing (leading zeros allowed, as before Go 1.17).
fn parse_ipv4_sloppy(s: &str) -> Option<[u8; 4]> {
    let mut out = [0u8; 4];
    let mut rest = s.as_bytes();
    for (i, slot) in out.iter_mut().enumerate() {
        if i > 0 {
            rest = rest.strip_prefix(b".")?;
        }
        let (n, len) = dtoi(rest)?;
        if n > 255 {
            return None;
        }
        *slot = n as u8;
        rest = &rest[len..];
    }
    rest.is_empty().then_some(out)
}

/// Decimal prefix, failing at 0xFFFFFF like Go's old `dtoi`.
fn dtoi(b: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    while i < b.len() && b[i].is_ascii_digit() {
        n = n * 10 + (b[i] - b'0') as u32;
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

fn xtoi(b: &[u8]) -> Option<(u32, usize)> {
    let mut n: u32 = 0;
    let mut i = 0;
    while i < b.len() {
        let Some(d) = (b[i] as char).to_digit(16) else {
            break;
        };
        n = n * 16 + d;
        if n >= 0xFF_FFFF {
            return None;
        }
        i += 1;
    }
    (i > 0).then_some((n, i))
}

/// IPv6 the old Go way (any number of hex digits per group below 0xFFFFFF).
fn parse_ipv6_sloppy(s: &str) -> Option<()> {
    let group = |b: &[u8]| xtoi(b).and_then(|(n, len)| (n <= 0xFFFF).then_some(len));
    parse_ipv6_groups(s.as_bytes(), group, |tail| {
        parse_ipv4_sloppy(tail).is_some()
    })
}

/// The groups of an IPv6 address (zone removed), shared by the old and the new Go
/// parsers, which differ only in what a group is (`group` gives its length in bytes)
/// and in how an embedded IPv4 tail is read.
fn parse_ipv6_groups(
    mut b: &[u8],
    group: impl Fn(&[u8]) -> Option<usize>,
    ipv4_tail: impl Fn(&str) -> bool,
) -> Option<()> {
    let mut ellipsis: Option<usize> = None;
    if b.starts_with(b"::") {
        ellipsis = Some(0);
        b = &b[2..];
        if b.is_empty() {
            return Some(());
        }
    }
    let mut i = 0;
    while i < 16 {
        let len = group(b)?;
        if len < b.len() && b[len] == b'.' {
            if ellipsis.is_none() && i != 12 {
                return None;
            }
            if i + 4 > 16 || !ipv4_tail(std::str::from_utf8(b).ok()?) {
                return None;
            }
            b = &[];
            i += 4;
            break;
        }
        i += 2;
        b = &b[len..];
        if b.is_empty() {
            break;
        }
        if b[0] != b':' || b.len() == 1 {
            return None;
        }
        b = &b[1..];
        if b[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            b = &b[1..];
            if b.is_empty() {
                break;
            }
        }
    }
    if !b.is_empty() {
        return None;
    }
    if i < 16 {
        ellipsis?;
    } else if ellipsis.is_some() {
        return None;
    }
    Some(())
}

/// `netutils.ParseIPSloppy`.
fn parse_ip_sloppy(s: &str) -> Option<()> {
    for b in s.bytes() {
        match b {
            b'.' => return parse_ipv4_sloppy(s).map(|_| ()),
            b':' => return parse_ipv6_sloppy(s),
            _ => {}
        }
    }
    None
}

/// `net.ParseIP` of current Go (netip rules, no zones, no leading zeros in IPv4).
pub fn parse_ip_strict(s: &str) -> Option<()> {
    if s.contains('%') {
        return None;
    }
    parse_addr(s)
}

/// `netip.ParseAddr` (zones allowed on IPv6).
fn parse_addr(s: &str) -> Option<()> {
    for b in s.bytes() {
        match b {
            b'.' => return parse_ipv4_strict(s).map(|_| ()),
            b':' => return parse_ipv6_strict(s),
            b'%' => return None,
            _ => {}
        }
    }
    None
}

fn parse_ipv4_strict(s: &str) -> Option<[u8; 4]> {
    let parts: Vec<&str> = s.split('.').collect();
    if parts.len() != 4 {
        return None;
    }
    let mut out = [0u8; 4];
    for (slot, p) in out.iter_mut().zip(parts) {
        if p.is_empty() || p.len() > 3 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        if p.len() > 1 && p.starts_with('0') {
            return None;
        }
        let n: u32 = p.parse().ok()?;
        if n > 255 {
            return None;
        }
        *slot = n as u8;
    }
    Some(out)
}

fn parse_ipv6_strict(s: &str) -> Option<()> {
    let (addr, zone) = match s.split_once('%') {
        Some((a, z)) => (a, Some(z)),
        None => (s, None),
    };
    if zone == Some("") {
        return None;
    }
    let group = |b: &[u8]| {
        let len = b.iter().take_while(|c| c.is_ascii_hexdigit()).count();
        (1..=4).contains(&len).then_some(len)
    };
    parse_ipv6_groups(addr.as_bytes(), group, |tail| {
        parse_ipv4_strict(tail).is_some()
    })
}

/// `netutils.ParseCIDRSloppy`.
fn parse_cidr_sloppy(s: &str) -> bool {
    let Some((addr, mask)) = s.split_once('/') else {
        return false;
    };
    let bits = if parse_ipv4_sloppy(addr).is_some() {
        32
    } else if parse_ipv6_sloppy(addr).is_some() {
        128
    } else {
        return false;
    };
    match dtoi(mask.as_bytes()) {
        Some((n, len)) => len == mask.len() && n <= bits,
        None => false,
    }
}

/// Go's `url.ParseRequestURI` succeeds.
fn is_request_uri(raw: &str) -> bool {
    if raw.bytes().any(|b| b < b' ' || b == 0x7f) || raw.is_empty() {
        return false;
    }
    if raw == "*" {
        return true;
    }
    // Scheme.
    let mut scheme = "";
    let mut rest = raw;
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' => {
                if i == 0 {
                    return false;
                }
                scheme = &raw[..i];
                rest = &raw[i + 1..];
                break;
            }
            _ => break,
        }
    }
    let scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, _query)) = rest.split_once('?') {
        rest = before;
    }
    if !rest.starts_with('/') {
        // An opaque URI needs a scheme; a request URI cannot be relative.
        return !scheme.is_empty();
    }
    if !scheme.is_empty() && rest.starts_with("//") {
        let authority_and_path = &rest[2..];
        let (authority, path) = match authority_and_path.find('/') {
            Some(i) => (&authority_and_path[..i], &authority_and_path[i..]),
            None => (authority_and_path, ""),
        };
        if !parse_authority(authority) {
            return false;
        }
        rest = path;
    }
    unescape_ok(rest, Mode::Path)
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
}

/// Characters allowed unescaped in a host or zone (Go's `shouldEscape` is false).
fn host_char_ok(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!\"$&'()*+,-.:;<=>[]_~".contains(&c)
}

/// Go's `unescape` succeeds in the given mode.
fn unescape_ok(s: &str, mode: Mode) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'%' => {
                if i + 2 >= b.len()
                    || !b[i + 1].is_ascii_hexdigit()
                    || !b[i + 2].is_ascii_hexdigit()
                {
                    return false;
                }
                let hi = (b[i + 1] as char).to_digit(16).unwrap_or(0);
                let lo = (b[i + 2] as char).to_digit(16).unwrap_or(0);
                let is25 = &b[i..i + 3] == b"%25";
                if mode == Mode::Host && hi < 8 && !is25 {
                    return false;
                }
                if mode == Mode::Zone {
                    let v = (hi << 4 | lo) as u8;
                    if !is25 && v != b' ' && !host_char_ok(v) {
                        return false;
                    }
                }
                i += 3;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && !host_char_ok(c) {
                    return false;
                }
                i += 1;
            }
        }
    }
    true
}

fn parse_authority(authority: &str) -> bool {
    let (userinfo, host) = match authority.rfind('@') {
        Some(i) => (Some(&authority[..i]), &authority[i + 1..]),
        None => (None, authority),
    };
    if !parse_host(host) {
        return false;
    }
    if let Some(userinfo) = userinfo {
        let valid = userinfo
            .chars()
            .all(|r| r.is_ascii_alphanumeric() || "-._:~!$&'()*+,;=%@".contains(r));
        if !valid {
            return false;
        }
        return match userinfo.split_once(':') {
            None => unescape_ok(userinfo, Mode::UserPassword),
            Some((user, pass)) => {
                unescape_ok(user, Mode::UserPassword) && unescape_ok(pass, Mode::UserPassword)
            }
        };
    }
    true
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || (port.starts_with(':') && port[1..].bytes().all(|b| b.is_ascii_digit()))
}

fn parse_host(host: &str) -> bool {
    match host.rfind('[') {
        Some(i) if i > 0 => return false,
        Some(_) => {
            let Some(close) = host.rfind(']') else {
                return false;
            };
            let colon_port = &host[close + 1..];
            if !valid_optional_port(colon_port) || !unescape_ok(colon_port, Mode::Host) {
                return false;
            }
            let hostname = &host[1..close];
            let unescaped = match hostname.find("%25") {
                Some(z) => {
                    if !unescape_ok(&hostname[..z], Mode::Host)
                        || !unescape_ok(&hostname[z..], Mode::Zone)
                    {
                        return false;
                    }
                    format!("{}%{}", &hostname[..z], percent_decode(&hostname[z + 3..]))
                }
                None => {
                    if !unescape_ok(hostname, Mode::Host) {
                        return false;
                    }
                    percent_decode(hostname)
                }
            };
            // An IP literal must be IPv6.
            return parse_addr(&unescaped).is_some() && parse_ipv4_strict(&unescaped).is_none();
        }
        None => {}
    }
    // The port follows the last colon. Go 1.26 made extra colons in http(s) hosts an
    // error, but only for modules that declare `go 1.26` or later (GODEBUG
    // `urlstrictcolons`); the 1.35 server's module declares `go 1.25`, so it is lenient.
    if let Some(last) = host.rfind(':')
        && !valid_optional_port(&host[last..])
    {
        return false;
    }
    unescape_ok(host, Mode::Host)
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            // (Bytes, not `&s[..]`: the two after `%` need not end on a char boundary.)
            let hex = |c: u8| char::from(c).to_digit(16);
            let v = match (hex(b[i + 1]), hex(b[i + 2])) {
                (Some(h), Some(l)) => (h * 16 + l) as u8,
                _ => b'%',
            };
            out.push(v);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `mail.ParseAddress` succeeds (RFC 2047 encoded words are taken as plain words).
fn is_email(s: &str) -> bool {
    let mut p = MailParser { s };
    p.parse_single_address()
}

struct MailParser<'a> {
    s: &'a str,
}

fn is_vchar(r: char) -> bool {
    ('!'..='~').contains(&r) || r as u32 >= 0x80
}

fn is_atext(r: char, dot: bool) -> bool {
    match r {
        '.' => dot,
        '(' | ')' | '<' | '>' | '[' | ']' | ':' | ';' | '@' | '\\' | ',' | '"' => false,
        _ => is_vchar(r),
    }
}

impl<'a> MailParser<'a> {
    fn skip_space(&mut self) {
        self.s = self.s.trim_start_matches([' ', '\t']);
    }

    fn consume(&mut self, c: char) -> bool {
        match self.s.strip_prefix(c) {
            Some(rest) => {
                self.s = rest;
                true
            }
            None => false,
        }
    }

    fn parse_single_address(&mut self) -> bool {
        let Some(count) = self.parse_address(true) else {
            return false;
        };
        if !self.skip_cfws() || !self.s.is_empty() {
            return false;
        }
        count == 1
    }

    /// Returns the number of addresses parsed.
    fn parse_address(&mut self, handle_group: bool) -> Option<usize> {
        self.skip_space();
        if self.s.is_empty() {
            return None;
        }
        if self.consume_addr_spec() {
            self.skip_space();
            if self.s.starts_with('(') {
                self.consume('(');
                if !self.consume_comment() {
                    return None;
                }
            }
            return Some(1);
        }
        if !self.s.starts_with('<') && !self.consume_phrase() {
            return None;
        }
        self.skip_space();
        if handle_group && self.consume(':') {
            return self.consume_group_list();
        }
        if !self.consume('<') || !self.consume_addr_spec() || !self.consume('>') {
            return None;
        }
        Some(1)
    }

    fn consume_group_list(&mut self) -> Option<usize> {
        self.skip_space();
        if self.consume(';') {
            return self.skip_cfws().then_some(0);
        }
        let mut n = 0;
        loop {
            self.skip_space();
            n += self.parse_address(false)?;
            if !self.skip_cfws() {
                return None;
            }
            if self.consume(';') {
                return self.skip_cfws().then_some(n);
            }
            if !self.consume(',') {
                return None;
            }
        }
    }

    fn consume_addr_spec(&mut self) -> bool {
        let orig = self.s;
        let ok = self.addr_spec_inner();
        if !ok {
            self.s = orig;
        }
        ok
    }

    fn addr_spec_inner(&mut self) -> bool {
        self.skip_space();
        if self.s.is_empty() {
            return false;
        }
        if self.s.starts_with('"') {
            match self.consume_quoted_string() {
                Some(local) if !local.is_empty() => {}
                _ => return false,
            }
        } else if !self.consume_atom(true, false) {
            return false;
        }
        if !self.consume('@') {
            return false;
        }
        self.skip_space();
        if self.s.is_empty() {
            return false;
        }
        if self.s.starts_with('[') {
            self.consume_domain_literal()
        } else {
            self.consume_atom(true, false)
        }
    }

    fn consume_phrase(&mut self) -> bool {
        let mut words = 0;
        loop {
            if words > 0 && !self.skip_cfws() {
                return false;
            }
            self.skip_space();
            if self.s.is_empty() {
                break;
            }
            let ok = if self.s.starts_with('"') {
                self.consume_quoted_string().is_some()
            } else {
                self.consume_atom(true, true)
            };
            if !ok {
                break;
            }
            words += 1;
        }
        words > 0
    }

    fn consume_quoted_string(&mut self) -> Option<String> {
        let mut out = String::new();
        let mut escaped = false;
        let mut chars = self.s.char_indices().skip(1);
        loop {
            let (i, r) = chars.next()?;
            if escaped {
                if !is_vchar(r) && r != ' ' && r != '\t' {
                    return None;
                }
                out.push(r);
                escaped = false;
            } else if (is_vchar(r) && r != '\\' && r != '"') || r == ' ' || r == '\t' {
                out.push(r);
            } else if r == '"' {
                self.s = &self.s[i + 1..];
                return Some(out);
            } else if r == '\\' {
                escaped = true;
            } else {
                return None;
            }
        }
    }

    fn consume_atom(&mut self, dot: bool, permissive: bool) -> bool {
        let len: usize = self
            .s
            .chars()
            .take_while(|&r| is_atext(r, dot))
            .map(char::len_utf8)
            .sum();
        if len == 0 {
            return false;
        }
        let atom = &self.s[..len];
        self.s = &self.s[len..];
        permissive || !(atom.starts_with('.') || atom.contains("..") || atom.ends_with('.'))
    }

    fn consume_domain_literal(&mut self) -> bool {
        if !self.consume('[') {
            return false;
        }
        let len: usize = self
            .s
            .chars()
            .take_while(|&r| r != ']')
            .map(char::len_utf8)
            .sum();
        let dtext = &self.s[..len];
        if dtext.chars().any(|r| r == '[' || r == '\\' || !is_vchar(r)) {
            return false;
        }
        self.s = &self.s[len..];
        if !self.consume(']') {
            return false;
        }
        parse_ip_strict(dtext).is_some()
    }

    fn skip_cfws(&mut self) -> bool {
        self.skip_space();
        while self.consume('(') {
            if !self.consume_comment() {
                return false;
            }
            self.skip_space();
        }
        true
    }

    /// After an opening `(`: consumes through the matching `)`.
    fn consume_comment(&mut self) -> bool {
        let mut depth = 1;
        let b = self.s.as_bytes();
        let mut i = 0;
        while i < b.len() && depth > 0 {
            if b[i] == b'\\' && b.len() - i > 1 {
                i += 1;
            } else if b[i] == b'(' {
                depth += 1;
            } else if b[i] == b')' {
                depth -= 1;
            }
            i += 1;
        }
        // Stop on a character boundary (escapes may skip into multibyte characters).
        while i < b.len() && !self.s.is_char_boundary(i) {
            i += 1;
        }
        self.s = &self.s[i..];
        depth == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every line was checked with kube-openapi's `strfmt.Default.Validates`, with the
    /// GODEBUG defaults of a `go 1.25` module (the 1.35 server's).
    #[test]
    fn strfmt_table() {
        let table = include_str!("../../testdata/formats/strfmt.tsv");
        let mut failures = Vec::new();
        for line in table
            .lines()
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
        {
            let mut parts = line.split('\t');
            let (Some(format), Some(value), Some(expected)) =
                (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let got = validates(format, value).to_string();
            if got != expected {
                failures.push(format!("{format} {value:?}: got {got}, Go {expected}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn go_durations() {
        assert_eq!(go_parse_duration("1h30m"), Ok(5_400_000_000_000));
        assert_eq!(go_parse_duration("1.5s"), Ok(1_500_000_000));
        assert_eq!(go_parse_duration("-2µs"), Ok(-2_000));
        assert_eq!(
            go_parse_duration("1x"),
            Err("time: unknown unit \"x\" in duration \"1x\"".into())
        );
        assert_eq!(
            go_parse_duration("1"),
            Err("time: missing unit in duration \"1\"".into())
        );
        assert_eq!(
            go_parse_duration(""),
            Err("time: invalid duration \"\"".into())
        );
    }

    #[test]
    fn unsupported_formats_are_dropped() {
        let v136 = KubeVersion::new(1, 36);
        assert_eq!(
            effective_format("string", "date-time", v136),
            Some("date-time")
        );
        assert_eq!(effective_format("string", "idn-hostname", v136), None);
        assert_eq!(effective_format("integer", "int32", v136), Some("int32"));
        assert_eq!(effective_format("integer", "uint32", v136), None);
        assert_eq!(effective_format("number", "int32", v136), None);
        assert_eq!(effective_format("boolean", "byte", v136), None);
        assert_eq!(effective_format("", "uuid", v136), Some("uuid"));
        assert_eq!(effective_format("integer", "date", v136), None);
        // 1.35 keeps string formats on any type and drops the numeric ones.
        let v135 = KubeVersion::new(1, 35);
        assert_eq!(effective_format("integer", "int32", v135), None);
        assert_eq!(effective_format("number", "double", v135), None);
        assert_eq!(effective_format("integer", "date", v135), Some("date"));
        assert_eq!(effective_format("boolean", "byte", v135), Some("byte"));
        assert_eq!(
            effective_format("string", "k8s-short-name", v135),
            Some("k8s-short-name")
        );
        assert_eq!(
            effective_format("string", "k8s-short-name", KubeVersion::new(1, 33)),
            None
        );
    }
}
