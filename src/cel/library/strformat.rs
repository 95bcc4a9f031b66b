//! `string.format(list)` of the cel-go strings extension at version 2 (the version the
//! Kubernetes environment uses): the clause parser shared by evaluation and by the
//! compile-time validator (`cel.validator.string_format`), each clause's conversions,
//! and the error texts of both.

use super::super::ast::{Expr, ExprKind, Literal};
use super::super::checker::CheckedAst;
use super::super::types::{Kind, Type};
use super::super::value::Val;
use crate::diag::gofmt::quote;

/// One clause of a format string.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Clause {
    String,
    Decimal,
    Fixed(Option<usize>),
    Scientific(Option<usize>),
    Binary,
    Hex(bool),
    Octal,
}

/// A failure while formatting: the message, and for compile-time checks the
/// expression it belongs to.
struct FmtError {
    msg: String,
    at: Option<u64>,
}

fn e(msg: impl Into<String>) -> FmtError {
    FmtError {
        msg: msg.into(),
        at: None,
    }
}

/// Parses the clause after `%` (`.3f`, `s`, …): bytes read and the clause.
fn parse_clause(s: &[u8]) -> Result<(usize, Clause), String> {
    let mut i = 0;
    let mut precision = None;
    if s.first() == Some(&b'.') {
        i = 1;
        let start = i;
        loop {
            if i >= s.len() {
                return Err(
                    "error while parsing precision: could not find end of precision specifier"
                        .into(),
                );
            }
            if !s[i].is_ascii_digit() {
                break;
            }
            i += 1;
        }
        let digits = std::str::from_utf8(&s[start..i]).unwrap_or("");
        // cel-go reads the precision with `strconv.Atoi`: a Go `int`.
        match digits.parse::<i64>() {
            Ok(p) => precision = Some(p as usize),
            Err(_) => {
                return Err(format!(
                    "error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing {}: {}",
                    quote(digits),
                    if digits.is_empty() {
                        "invalid syntax"
                    } else {
                        "value out of range"
                    }
                ));
            }
        }
    }
    let Some(&c) = s.get(i) else {
        return Err("unexpected end of string".into());
    };
    let clause = match c {
        b's' => Clause::String,
        b'd' => Clause::Decimal,
        b'f' => Clause::Fixed(precision),
        b'e' => Clause::Scientific(precision),
        b'b' => Clause::Binary,
        b'x' => Clause::Hex(false),
        b'X' => Clause::Hex(true),
        b'o' => Clause::Octal,
        _ => {
            // Go reads one byte as a rune here.
            let ch = char::from(c);
            return Err(format!("unrecognized formatting clause \"{ch}\""));
        }
    };
    Ok((i + 1, clause))
}

/// Walks the format string; `clause(index, clause)` produces each substitution.
fn interpolate(
    format: &str,
    nargs: usize,
    mut clause: impl FnMut(usize, Clause) -> Result<String, FmtError>,
) -> Result<String, FmtError> {
    let b = format.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    let mut arg = 0;
    while i < b.len() {
        if b[i] != b'%' {
            out.push(b[i]);
            i += 1;
            continue;
        }
        if b.get(i + 1) == Some(&b'%') {
            out.push(b'%');
            i += 2;
            continue;
        }
        if i + 1 >= b.len() {
            return Err(e("unexpected end of string"));
        }
        if arg >= nargs {
            return Err(e(format!("index {arg} out of range")));
        }
        let (read, c) = parse_clause(&b[i + 1..])
            .map_err(|m| e(format!("could not parse formatting clause: {m}")))?;
        let s = clause(arg, c).map_err(|mut err| {
            err.msg = format!("error during formatting: {}", err.msg);
            err
        })?;
        out.extend_from_slice(s.as_bytes());
        i += 1 + read;
        arg += 1;
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

// ---- evaluation ----

/// Evaluates `format.format(args)`.
pub fn format(format: &str, args: &[Val]) -> Result<String, String> {
    interpolate(format, args.len(), |i, c| apply(c, &args[i])).map_err(|e| e.msg)
}

fn type_name(v: &Val) -> String {
    v.type_name()
}

fn apply(c: Clause, v: &Val) -> Result<String, FmtError> {
    match c {
        Clause::String => format_string(v),
        Clause::Decimal => format_decimal(v),
        Clause::Fixed(p) => {
            let d = float_arg(v).ok_or_else(|| {
                e(format!(
                    "fixed-point clause can only be used on doubles, was given {}",
                    type_name(v)
                ))
            })?;
            Ok(match p.unwrap_or(6) {
                p if p > GO_FMT_MAX_NUMBER => NO_VERB.into(),
                p => locale_fixed(d, p),
            })
        }
        Clause::Scientific(p) => {
            let d = float_arg(v).ok_or_else(|| {
                e(format!(
                    "scientific clause can only be used on doubles, was given {}",
                    type_name(v)
                ))
            })?;
            // The extension passes the precision as a *width* (`%<p>e`): the number
            // keeps six digits and is padded with spaces to that many characters.
            Ok(match p.unwrap_or(6) {
                w if w > GO_FMT_MAX_NUMBER => NO_VERB.into(),
                w => pad_left(locale_scientific(d), w),
            })
        }
        Clause::Binary => match v {
            Val::Int(i) => Ok(signed_radix(*i as i128, 2, false)),
            Val::Uint(u) => Ok(signed_radix(*u as i128, 2, false)),
            Val::Bool(b) => Ok(if *b { "1" } else { "0" }.into()),
            _ => Err(e(format!(
                "only integers and bools can be formatted as binary, was given {}",
                type_name(v)
            ))),
        },
        Clause::Hex(upper) => match v {
            Val::Int(i) => Ok(signed_radix(*i as i128, 16, upper)),
            Val::Uint(u) => Ok(signed_radix(*u as i128, 16, upper)),
            Val::String(s) => Ok(hex_bytes(s.as_bytes(), upper)),
            Val::Bytes(b) => Ok(hex_bytes(b, upper)),
            _ => Err(e(format!(
                "only integers, byte buffers, and strings can be formatted as hex, was given {}",
                type_name(v)
            ))),
        },
        Clause::Octal => match v {
            Val::Int(i) => Ok(signed_radix(*i as i128, 8, false)),
            Val::Uint(u) => Ok(signed_radix(*u as i128, 8, false)),
            _ => Err(e(format!(
                "octal clause can only be used on integers, was given {}",
                type_name(v)
            ))),
        },
    }
}

fn float_arg(v: &Val) -> Option<f64> {
    match v {
        Val::Double(d) => Some(*d),
        Val::String(s) => match &**s {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        },
        _ => None,
    }
}

fn signed_radix(v: i128, radix: u32, upper: bool) -> String {
    let neg = v < 0;
    let mut m = v.unsigned_abs();
    if m == 0 {
        return "0".into();
    }
    let mut digits = Vec::new();
    while m > 0 {
        let d = (m % radix as u128) as u32;
        let c = std::char::from_digit(d, radix).unwrap_or('0');
        digits.push(if upper { c.to_ascii_uppercase() } else { c });
        m /= radix as u128;
    }
    if neg {
        digits.push('-');
    }
    digits.iter().rev().collect()
}

fn hex_bytes(b: &[u8], upper: bool) -> String {
    b.iter()
        .map(|x| {
            if upper {
                format!("{x:02X}")
            } else {
                format!("{x:02x}")
            }
        })
        .collect()
}

/// The largest width or precision Go's `fmt` (and x/text's copy of its parser) reads:
/// `parsenum` gives up when the number read so far passes 10⁶ before another digit.
const GO_FMT_MAX_NUMBER: usize = 10_000_009;

/// What x/text's printer writes for a clause whose number it gave up on: the rest of
/// the format string is consumed and no verb is left.
const NO_VERB: &str = "%!(NOVERB)";

/// x/text pads a formatted number to the width with spaces before it, counting runes;
/// the width is stored as a `uint16`.
fn pad_left(s: String, width: usize) -> String {
    let width = usize::from(width as u16);
    let runes = s.chars().count();
    if runes >= width {
        return s;
    }
    let mut out = " ".repeat(width - runes);
    out.push_str(&s);
    out
}

/// Go's `%.Nf` through golang.org/x/text's English printer: thousands separators,
/// `∞` for infinities. The printer keeps the precision in two narrower fields: the
/// value is rounded to `int16(N)` fraction digits (shortest digits when that is
/// negative), trailing zeros are dropped, and zeros are added back up to `uint8(N)`
/// digits. Below 256 that is exactly N digits.
fn locale_fixed(d: f64, precision: usize) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "∞".into() } else { "-∞".into() };
    }
    let min_frac = usize::from(precision as u8);
    let max_frac = precision as u16 as i16;
    let s = match usize::try_from(max_frac) {
        Ok(max_frac) => format!("{:.*}", max_frac, d.abs()),
        Err(_) => format!("{}", d.abs()),
    };
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i.to_string(), f.trim_end_matches('0').to_string()),
        None => (s.clone(), String::new()),
    };
    let frac = if frac.len() < min_frac {
        format!("{frac:0<min_frac$}")
    } else {
        frac
    };
    let frac = (!frac.is_empty()).then_some(frac);
    let mut grouped = String::new();
    for (n, ch) in int.chars().enumerate() {
        if n > 0 && (int.len() - n) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(ch);
    }
    let mut out = String::new();
    // x/text marks `x < 0` negative: -0.0 has no sign, -0.001 rounded to "0.00" has.
    if d < 0.0 {
        out.push('-');
    }
    out.push_str(&grouped);
    if let Some(f) = frac {
        out.push('.');
        out.push_str(&f);
    }
    out
}

/// Go's `%e` through x/text's English printer: `2.718280×10⁰⁰`.
fn locale_scientific(d: f64) -> String {
    if d.is_nan() {
        return "NaN".into();
    }
    if d.is_infinite() {
        return if d > 0.0 { "∞".into() } else { "-∞".into() };
    }
    let s = format!("{d:.6e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    const SUP: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    let mut out = format!("{mant}×10");
    if exp < 0 {
        out.push('⁻');
    }
    let digits = format!("{:02}", exp.unsigned_abs());
    for c in digits.chars() {
        out.push(SUP[c.to_digit(10).unwrap_or(0) as usize]);
    }
    out
}

fn format_decimal(v: &Val) -> Result<String, FmtError> {
    match v {
        Val::Int(i) => Ok(i.to_string()),
        Val::Uint(u) => Ok(u.to_string()),
        _ => Err(e(format!(
            "decimal clause can only be used on integers, was given {}",
            type_name(v)
        ))),
    }
}

/// `%s` (cel-go `FormatString`).
fn format_string(v: &Val) -> Result<String, FmtError> {
    match v {
        Val::List(_) | Val::Joined(..) | Val::DataList(..) | Val::SetList(..) | Val::MapList(..) => format_list(v),
        Val::Map(m) | Val::DataMap(m, _) => format_map(m),
        Val::Null => Ok("null".into()),
        Val::Int(_)
        | Val::Uint(_)
        | Val::Double(_)
        | Val::Bool(_)
        | Val::String(_)
        | Val::Timestamp(..)
        | Val::Bytes(_)
        | Val::Duration(_)
        // The failed conversion is an error value that cel-go quotes with `%q` (its
        // texts are plain ASCII, which Debug quotes the same way).
        | Val::Type(_) => super::super::interp::to_string(v).map_err(|m| {
            e(format!(
                "could not convert argument {:?} to string",
                m.to_string()
            ))
        }),
        _ => Err(e(format!(
            "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}",
            type_name(v)
        ))),
    }
}

/// The conversion a list or map member gets (`clauseForType`), unquoted.
fn member(v: &Val) -> Result<String, FmtError> {
    match v {
        Val::Int(_) | Val::Uint(_) => format_decimal(v),
        Val::String(_) | Val::Bytes(_) | Val::Bool(_) | Val::Null | Val::Type(_) => {
            format_string(v)
        }
        Val::Timestamp(..) => Ok(format!("timestamp({})", quote(&format_string(v)?))),
        Val::Duration(_) => Ok(format!("duration({})", quote(&format_string(v)?))),
        Val::List(_)
        | Val::Joined(..)
        | Val::DataList(..)
        | Val::SetList(..)
        | Val::MapList(..) => format_list(v),
        Val::Map(m) | Val::DataMap(m, _) => format_map(m),
        Val::Double(d) => Ok(format!("{d:.6}")).map(|s| go_fixed(*d, s)),
        _ => Err(e(format!("no formatting function for {}", type_name(v)))),
    }
}

/// `fmt.Sprintf("%.6f")` spells non-finite values like Go.
fn go_fixed(d: f64, s: String) -> String {
    if d.is_nan() {
        "NaN".into()
    } else if d.is_infinite() {
        if d > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        }
    } else {
        s
    }
}

fn quote_for_cel(v: &Val, s: String) -> String {
    match v {
        Val::String(_) => quote(&s),
        Val::Bytes(_) => format!("b{}", quote(&s)),
        Val::Double(d) if !d.is_finite() => quote(&s),
        _ => s,
    }
}

fn format_list(v: &Val) -> Result<String, FmtError> {
    let items = v.list_items().unwrap_or(&[]);
    let mut parts = Vec::with_capacity(items.len());
    for m in items {
        let s = member(m)?;
        parts.push(quote_for_cel(m, s));
    }
    Ok(format!("[{}]", parts.join(", ")))
}

fn format_map(m: &[(Val, Val)]) -> Result<String, FmtError> {
    let mut pairs = Vec::with_capacity(m.len());
    for (k, v) in crate::cel::value::iterated_entries(m) {
        let (k, v) = (&k, &v);
        let key = match k {
            Val::String(_) | Val::Bool(_) => format_string(k)?,
            Val::Int(_) | Val::Uint(_) => format_decimal(k)?,
            _ => {
                return Err(e(format!(
                    "no formatting function for map key of type {}",
                    type_name(k)
                )));
            }
        };
        let key = quote_for_cel(k, key);
        let val = quote_for_cel(v, member(v)?);
        pairs.push((key, val));
    }
    pairs.sort_by(|a, b| a.0.cmp(&b.0));
    let body: Vec<String> = pairs.into_iter().map(|(k, v)| format!("{k}:{v}")).collect();
    Ok(format!("{{{}}}", body.join(", ")))
}

// ---- compile-time validation ----

/// The `cel.validator.string_format` check: calls on a literal format string with a
/// literal list. Returns (expression id, message) for each problem.
pub fn check_calls(checked: &CheckedAst) -> Vec<(u64, String)> {
    let mut out = Vec::new();
    checked.ast.expr.walk(&mut |expr: &Expr| {
        let ExprKind::Call {
            function,
            target: Some(target),
            args,
        } = &expr.kind
        else {
            return;
        };
        if function != "format" || args.len() != 1 {
            return;
        }
        if let Some(super::super::checker::Reference::Function { overload_ids, .. }) =
            checked.refs.get(&expr.id)
            && !overload_ids.is_empty()
            && !overload_ids.iter().any(|o| o == "string_format")
        {
            return;
        }
        let ExprKind::Literal(Literal::String(fmt)) = &target.kind else {
            return;
        };
        let ExprKind::List { elements, .. } = &args[0].kind else {
            return;
        };
        let mut requested = 0usize;
        let result = interpolate(fmt, elements.len(), |i, c| {
            requested += 1;
            check_clause(checked, c, &elements[i])
        });
        match result {
            Err(err) => out.push((err.at.unwrap_or(expr.id), err.msg)),
            Ok(_) => {
                if elements.len() > requested {
                    out.push((
                        expr.id,
                        format!(
                            "too many arguments supplied to string.format (expected {requested}, got {})",
                            elements.len()
                        ),
                    ));
                }
            }
        }
    });
    out
}

fn type_of(checked: &CheckedAst, id: u64) -> Type {
    checked.types.get(&id).cloned().unwrap_or(Type::Dyn)
}

fn one_of(checked: &CheckedAst, id: u64, kinds: &[Kind]) -> bool {
    let t = type_of(checked, id);
    t == Type::Dyn || kinds.contains(&t.kind())
}

fn check_clause(checked: &CheckedAst, c: Clause, arg: &Expr) -> Result<String, FmtError> {
    let id = arg.id;
    let fail = |what: &str| FmtError {
        msg: format!("{what}, was given {}", type_of(checked, id).type_name()),
        at: Some(id),
    };
    let ok = match c {
        Clause::String => return verify_string(checked, arg).map(|_| String::new()),
        Clause::Decimal => one_of(checked, id, &[Kind::Int, Kind::Uint])
            .then_some(())
            .ok_or_else(|| fail("decimal clause can only be used on integers")),
        Clause::Fixed(_) => one_of(checked, id, &[Kind::Double, Kind::String])
            .then_some(())
            .ok_or_else(|| fail("fixed-point clause can only be used on doubles")),
        Clause::Scientific(_) => one_of(checked, id, &[Kind::Double, Kind::String])
            .then_some(())
            .ok_or_else(|| fail("scientific clause can only be used on doubles")),
        Clause::Binary => one_of(checked, id, &[Kind::Int, Kind::Uint, Kind::Bool])
            .then_some(())
            .ok_or_else(|| fail("only integers and bools can be formatted as binary")),
        Clause::Hex(_) => one_of(
            checked,
            id,
            &[Kind::Int, Kind::Uint, Kind::String, Kind::Bytes],
        )
        .then_some(())
        .ok_or_else(|| fail("only integers, byte buffers, and strings can be formatted as hex")),
        Clause::Octal => one_of(checked, id, &[Kind::Int, Kind::Uint])
            .then_some(())
            .ok_or_else(|| fail("octal clause can only be used on integers")),
    };
    ok.map(|_| String::new())
}

fn verify_string(checked: &CheckedAst, sub: &Expr) -> Result<(), FmtError> {
    let allowed = [
        Kind::List,
        Kind::Map,
        Kind::Int,
        Kind::Uint,
        Kind::Double,
        Kind::Bool,
        Kind::String,
        Kind::Timestamp,
        Kind::Bytes,
        Kind::Duration,
        Kind::Type,
        Kind::Null,
    ];
    if !one_of(checked, sub.id, &allowed) {
        return Err(FmtError {
            msg: format!(
                "string clause can only be used on strings, bools, bytes, ints, doubles, maps, lists, types, durations, and timestamps, was given {}",
                type_of(checked, sub.id).type_name()
            ),
            at: Some(sub.id),
        });
    }
    match &sub.kind {
        ExprKind::List { elements, .. } => {
            for el in elements {
                verify_string(checked, el)?;
            }
        }
        ExprKind::Map { entries } => {
            for en in entries {
                verify_string(checked, &en.key)?;
                verify_string(checked, &en.value)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(s: &str, args: Vec<Val>) -> Result<String, String> {
        format(s, &args)
    }

    #[test]
    fn formats_like_cel_go() {
        assert_eq!(
            f("%s and %d", vec![Val::str("a"), Val::Int(42)]).unwrap(),
            "a and 42"
        );
        assert_eq!(f("%%s", vec![]).unwrap(), "%s");
        assert_eq!(f("%.2f", vec![Val::Double(3.14659)]).unwrap(), "3.15");
        assert_eq!(
            f(
                "%x %X %o %b",
                vec![Val::Int(26), Val::Int(26), Val::Int(30), Val::Int(5)]
            )
            .unwrap(),
            "1a 1A 36 101"
        );
        assert_eq!(
            f("%d", vec![Val::Double(1.0)]).unwrap_err(),
            "error during formatting: decimal clause can only be used on integers, was given double"
        );
        assert_eq!(
            f("%s %s", vec![Val::Int(1)]).unwrap_err(),
            "index 1 out of range"
        );
        assert_eq!(
            f("%z", vec![Val::Int(1)]).unwrap_err(),
            "could not parse formatting clause: unrecognized formatting clause \"z\""
        );
        assert_eq!(
            f(
                "%s",
                vec![Val::list(vec![
                    Val::Int(1),
                    Val::str("a"),
                    Val::Double(1.5)
                ])]
            )
            .unwrap(),
            "[1, \"a\", 1.500000]"
        );
        assert_eq!(f("%e", vec![Val::Double(2.5)]).unwrap(), "2.500000×10⁰⁰");
    }

    /// Precisions and widths past what x/text's printer keeps: reproduced from its
    /// `initDecimal` (`uint8`/`int16` fraction digits), `updatePadding` (`uint16`
    /// width) and `parsenum` (gives up past 10,000,009). Rust's own formatter refuses
    /// a precision above 65,535 (a panic before).
    #[test]
    fn huge_precisions_follow_the_printers_narrow_fields() {
        let one = || vec![Val::Double(1.0)];
        let tenth = || vec![Val::Double(0.1)];
        // uint8(300) = 44 digits at least; int16(300) rounds to 300, whose 55
        // significant digits are all shown.
        assert_eq!(f("%.300f", one()).unwrap(), format!("1.{}", "0".repeat(44)));
        assert_eq!(
            f("%.300f", tenth()).unwrap(),
            "0.1000000000000000055511151231257827021181583404541015625"
        );
        // 256: no zeros added; int16(40000) is negative: shortest digits.
        assert_eq!(f("%.256f", one()).unwrap(), "1");
        assert_eq!(
            f("%.40000f", tenth()).unwrap(),
            format!("0.1{}", "0".repeat(63))
        );
        // 10,000,009 = 39,062 × 256 + 137.
        assert_eq!(
            f("%.10000009f", one()).unwrap(),
            format!("1.{}", "0".repeat(137))
        );
        assert_eq!(f("%.10000010f", one()).unwrap(), "%!(NOVERB)");
        assert_eq!(f("x%.100000000f!", one()).unwrap(), "x%!(NOVERB)!");
        assert_eq!(
            f("%.9223372036854775808f", one()).unwrap_err(),
            "could not parse formatting clause: error while parsing precision: error while converting precision to integer: strconv.Atoi: parsing \"9223372036854775808\": value out of range"
        );
        // -0.0 is not below zero; a negative value rounded to zero keeps its sign.
        assert_eq!(f("%.2f", vec![Val::Double(-0.0)]).unwrap(), "0.00");
        assert_eq!(f("%.2f", vec![Val::Double(-0.001)]).unwrap(), "-0.00");
        // `%.Ne` pads to N runes (the number has 13: ×10⁰⁰); uint16(65551) = 15.
        assert_eq!(
            f("%.15e", vec![Val::Double(2.5)]).unwrap(),
            "  2.500000×10⁰⁰"
        );
        assert_eq!(
            f("%.65551e", vec![Val::Double(2.5)]).unwrap(),
            "  2.500000×10⁰⁰"
        );
        assert_eq!(f("%.13e", vec![Val::Double(2.5)]).unwrap(), "2.500000×10⁰⁰");
        assert_eq!(f("%.5e", vec![Val::str("NaN")]).unwrap(), "  NaN");
        assert_eq!(
            f("%.20000000e", vec![Val::Double(2.5)]).unwrap(),
            "%!(NOVERB)"
        );
    }
}
