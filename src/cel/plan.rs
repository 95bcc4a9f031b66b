//! The checks the server's program planner makes after a rule type-checks (cel-go
//! `interpreter/planner.go` with the `OptOptimize` decorators the Kubernetes
//! environment enables). A failure there rejects the CRD with `program instantiation
//! failed: <error>`:
//!
//! - type conversions (`int`, `uint`, `double`, `string`, `bytes`, `bool`, `duration`,
//!   `timestamp`, `dyn`, `type`) of a constant are evaluated once, and their errors are
//!   reported (`int('x')`, `uint(-1)`, `bool(dyn(1))`);
//! - an index that is a constant must be a string, int, uint, bool or double
//!   (`x[null]` → `invalid qualifier type: types.Null`);
//! - constant regular expressions of `matches`, `find` and `findAll` are compiled
//!   (`error parsing regexp: missing closing ]: ...`);
//! - a type name the checker resolves but the runtime does not know (`timestamp`,
//!   `duration`, some protobuf well-known types) cannot be referenced.
//!
//! The planner stops at its first error, in its own order: a call's target and
//! arguments before the call, comprehension parts in declaration order.

use super::ast::{Expr, ExprKind, Literal};
use super::checker::CheckedAst;
use super::gotime;

/// Type names the checker resolves (through the Kubernetes type provider or the
/// protobuf registry) but the planner cannot reference.
pub const UNPLANNABLE_TYPE_IDENTS: &[&str] = &[
    "timestamp",
    "duration",
    "google.protobuf.Any",
    "google.protobuf.Value",
    "google.protobuf.Struct",
    "google.protobuf.ListValue",
    "google.protobuf.BoolValue",
    "google.protobuf.BytesValue",
    "google.protobuf.DoubleValue",
    "google.protobuf.FloatValue",
    "google.protobuf.Int64Value",
    "google.protobuf.Int32Value",
    "google.protobuf.UInt64Value",
    "google.protobuf.UInt32Value",
    "google.protobuf.StringValue",
];

/// A constant value as far as the planner's folding needs it.
#[derive(Clone, Debug)]
enum Const {
    Int(i64),
    Uint(u64),
    Double(f64),
    String(String),
    Bytes(Vec<u8>),
    Bool(bool),
    Null,
    Timestamp,
    Duration,
    Type,
    List,
    Map,
}

impl Const {
    /// The runtime type name (`ref.Val.Type().TypeName()`).
    fn type_name(&self) -> &'static str {
        match self {
            Const::Int(_) => "int",
            Const::Uint(_) => "uint",
            Const::Double(_) => "double",
            Const::String(_) => "string",
            Const::Bytes(_) => "bytes",
            Const::Bool(_) => "bool",
            Const::Null => "null_type",
            Const::Timestamp => "google.protobuf.Timestamp",
            Const::Duration => "google.protobuf.Duration",
            Const::Type => "type",
            Const::List => "list",
            Const::Map => "map",
        }
    }

    /// The Go type of the value, as `%T` prints it, when it cannot qualify.
    fn bad_qualifier(&self) -> Option<&'static str> {
        match self {
            Const::Int(_)
            | Const::Uint(_)
            | Const::Double(_)
            | Const::String(_)
            | Const::Bool(_) => None,
            Const::Bytes(_) => Some("types.Bytes"),
            Const::Null => Some("types.Null"),
            Const::Timestamp => Some("types.Timestamp"),
            Const::Duration => Some("types.Duration"),
            Const::Type => Some("*types.Type"),
            Const::List => Some("*types.baseList"),
            Const::Map => Some("*types.baseMap"),
        }
    }
}

/// The first error the server's planner reports for `checked`, without the
/// `program instantiation failed: ` prefix.
pub fn first_error(checked: &CheckedAst) -> Option<String> {
    let mut p = Planner { checked };
    p.plan(&checked.ast.expr, 0).err()
}

struct Planner<'a> {
    checked: &'a CheckedAst,
}

type Planned = Result<Option<Const>, String>;

impl Planner<'_> {
    /// Plans `e`; `Ok(Some(c))` when it is a constant after folding.
    fn plan(&mut self, e: &Expr, depth: usize) -> Planned {
        if depth > 1000 {
            return Ok(None);
        }
        let d = depth + 1;
        match &e.kind {
            ExprKind::Literal(l) => Ok(Some(match l {
                Literal::Bool(b) => Const::Bool(*b),
                Literal::Int(i) => Const::Int(*i),
                Literal::Uint(u) => Const::Uint(*u),
                Literal::Double(f) => Const::Double(*f),
                Literal::String(s) => Const::String(s.clone()),
                Literal::Bytes(b) => Const::Bytes(b.clone()),
                Literal::Null => Const::Null,
            })),
            ExprKind::Ident(name) => {
                let is_type = matches!(self.checked.type_of(e.id), super::types::Type::Type(_));
                if is_type && UNPLANNABLE_TYPE_IDENTS.contains(&name.as_str()) {
                    return Err(format!("reference to undefined type: {name}"));
                }
                Ok(is_type.then_some(Const::Type))
            }
            ExprKind::Select { operand, .. } => {
                self.plan(operand, d)?;
                Ok(None)
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => {
                if let Some(t) = target {
                    self.plan(t, d)?;
                }
                let mut consts = Vec::with_capacity(args.len());
                for a in args {
                    consts.push(self.plan(a, d)?);
                }
                // Constant patterns of `matches` (cel-go) and of the Kubernetes `find` and
                // `findAll` are compiled with the program.
                let pattern = match (function.as_str(), target.is_some(), consts.as_slice()) {
                    ("matches" | "find" | "findAll", true, [Some(Const::String(p)), ..]) => Some(p),
                    ("matches", false, [_, Some(Const::String(p))]) => Some(p),
                    _ => None,
                };
                if let Some(error) = pattern.and_then(|p| crate::schema::regex::go_error(p)) {
                    return Err(error);
                }
                match (function.as_str(), consts.as_slice()) {
                    ("_[_]" | "_[?_]", [_, Some(index)]) => match index.bad_qualifier() {
                        Some(go_type) => Err(format!("invalid qualifier type: {go_type}")),
                        None => Ok(None),
                    },
                    (f, [Some(arg)])
                        if target.is_none() && super::interp::is_type_conversion(f) =>
                    {
                        convert(f, arg).map(Some)
                    }
                    _ => Ok(None),
                }
            }
            ExprKind::List { elements, .. } => {
                let mut all_const = true;
                for el in elements {
                    all_const &= self.plan(el, d)?.is_some();
                }
                Ok(all_const.then_some(Const::List))
            }
            ExprKind::Map { entries } => {
                let mut all_const = true;
                for en in entries {
                    all_const &= self.plan(&en.key, d)?.is_some();
                    all_const &= self.plan(&en.value, d)?.is_some();
                }
                Ok(all_const.then_some(Const::Map))
            }
            ExprKind::Struct { fields, .. } => {
                for f in fields {
                    self.plan(&f.value, d)?;
                }
                Ok(None)
            }
            ExprKind::Comprehension(c) => {
                for x in [
                    &c.iter_range,
                    &c.accu_init,
                    &c.loop_condition,
                    &c.loop_step,
                    &c.result,
                ] {
                    self.plan(x, d)?;
                }
                Ok(None)
            }
        }
    }
}

fn conversion_error(from: &str, to: &str) -> String {
    format!("type conversion error from '{from}' to '{to}'")
}

/// cel-go's conversion of a constant, with its runtime error texts.
fn convert(f: &str, v: &Const) -> Result<Const, String> {
    use Const::*;
    let no_overload = || Err(format!("no such overload: {f}({})", v.type_name()));
    match (f, v) {
        ("dyn", _) => Ok(v.clone()),
        ("type", _) => Ok(Type),
        ("int", Int(i)) => Ok(Int(*i)),
        ("int", Uint(u)) => i64::try_from(*u)
            .map(Int)
            .map_err(|_| "integer overflow".to_string()),
        ("int", Double(d)) => {
            if d.is_nan() || *d <= i64::MIN as f64 || *d >= i64::MAX as f64 {
                Err("integer overflow".to_string())
            } else {
                Ok(Int(*d as i64))
            }
        }
        ("int", String(s)) => s
            .parse::<i64>()
            .map(Int)
            .map_err(|_| conversion_error("string", "int")),
        ("int", Timestamp | Duration) => Ok(Int(0)),
        ("uint", Uint(u)) => Ok(Uint(*u)),
        ("uint", Int(i)) => u64::try_from(*i)
            .map(Uint)
            .map_err(|_| "unsigned integer overflow".to_string()),
        ("uint", Double(d)) => {
            if d.is_nan() || *d < 0.0 || *d >= u64::MAX as f64 {
                Err("unsigned integer overflow".to_string())
            } else {
                Ok(Uint(*d as u64))
            }
        }
        ("uint", String(s)) => (!s.starts_with('+'))
            .then(|| s.parse::<u64>().ok())
            .flatten()
            .map(Uint)
            .ok_or_else(|| conversion_error("string", "uint")),
        ("double", Double(d)) => Ok(Double(*d)),
        ("double", Int(i)) => Ok(Double(*i as f64)),
        ("double", Uint(u)) => Ok(Double(*u as f64)),
        ("double", String(s)) => go_parse_float(s)
            .map(Double)
            .ok_or_else(|| conversion_error("string", "double")),
        ("string", Bytes(b)) => std::str::from_utf8(b)
            .map(|s| String(s.to_string()))
            .map_err(|_| "invalid UTF-8 in bytes, cannot convert to string".to_string()),
        // The identity keeps the text: `matches(string('['))` compiles the pattern.
        ("string", String(s)) => Ok(String(s.clone())),
        // The text matters when it is converted again: `duration(string(0.0))` is
        // `duration('0')`, which is valid.
        ("string", Bool(b)) => Ok(String(b.to_string())),
        ("string", Int(i)) => Ok(String(i.to_string())),
        ("string", Uint(u)) => Ok(String(u.to_string())),
        ("string", Double(d)) => Ok(String(super::interp::format_double(*d))),
        // Durations and timestamps are folded without their values. Any of their texts
        // converts (or fails to) like any other ("<seconds>s", RFC 3339), so a
        // representative one stands for all.
        ("string", Duration) => Ok(String("1s".into())),
        ("string", Timestamp) => Ok(String("1970-01-01T00:00:00Z".into())),
        ("bool", Bool(b)) => Ok(Bool(*b)),
        ("bool", String(s)) => match s.as_str() {
            "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Bool(true)),
            "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Bool(false)),
            _ => Err(conversion_error("string", "bool")),
        },
        ("bytes", Bytes(b)) => Ok(Bytes(b.clone())),
        ("bytes", String(s)) => Ok(Bytes(s.as_bytes().to_vec())),
        ("duration", Duration) => Ok(Duration),
        ("duration", Int(_)) => Err(conversion_error("int", "google.protobuf.Duration")),
        ("duration", String(s)) => gotime::parse_duration(s)
            .map(|_| Duration)
            .map_err(|_| conversion_error("string", "google.protobuf.Duration")),
        ("timestamp", Timestamp) => Ok(Timestamp),
        ("timestamp", Int(i)) => {
            if (gotime::MIN_UNIX_SECONDS..=gotime::MAX_UNIX_SECONDS).contains(i) {
                Ok(Timestamp)
            } else {
                Err("timestamp overflow".to_string())
            }
        }
        ("timestamp", String(s)) => gotime::parse_rfc3339(s)
            .map(|_| Timestamp)
            .map_err(|_| conversion_error("string", "google.protobuf.Timestamp")),
        _ => no_overload(),
    }
}

/// Go's `strconv.ParseFloat(s, 64)` succeeding: decimal or hexadecimal floats,
/// underscores between digits, `inf`/`infinity`/`nan` in any case; out-of-range
/// values are errors.
fn go_parse_float(s: &str) -> Option<f64> {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = body.to_ascii_lowercase();
    if matches!(lower.as_str(), "inf" | "infinity") {
        return Some(if s.starts_with('-') {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        });
    }
    if lower == "nan" {
        return (body.len() == s.len()).then_some(f64::NAN);
    }
    if !underscores_ok(body) {
        return None;
    }
    let cleaned: std::string::String = s.chars().filter(|c| *c != '_').collect();
    let clean_body = cleaned.strip_prefix(['+', '-']).unwrap_or(&cleaned);
    if clean_body.starts_with("0x") || clean_body.starts_with("0X") {
        return parse_hex_float(&clean_body[2..])
            .map(|v| if cleaned.starts_with('-') { -v } else { v });
    }
    if !clean_body
        .chars()
        .all(|c| c.is_ascii_digit() || matches!(c, '.' | 'e' | 'E' | '+' | '-'))
    {
        return None;
    }
    let v: f64 = cleaned.parse().ok()?;
    v.is_finite().then_some(v)
}

/// Go's `underscoreOK` for a number without its sign.
fn underscores_ok(s: &str) -> bool {
    let b = s.as_bytes();
    let mut saw = b'^';
    let mut i = 0;
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'x' | b'b' | b'o') {
        hex = b[1].eq_ignore_ascii_case(&b'x');
        i = 2;
        saw = b'0';
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && c.to_ascii_lowercase().is_ascii_hexdigit()) {
            saw = b'0';
        } else if c == b'_' {
            if saw != b'0' {
                return false;
            }
            saw = b'_';
        } else {
            if saw == b'_' {
                return false;
            }
            saw = b'!';
        }
        i += 1;
    }
    saw != b'_'
}

/// The part of a Go hexadecimal float after `0x`: mantissa digits with an optional
/// point, then a mandatory binary exponent `p±n`.
fn parse_hex_float(s: &str) -> Option<f64> {
    let (mantissa, exp) = s.split_once(['p', 'P'])?;
    let exp: i32 = exp.parse().ok()?;
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int_part.is_empty() && frac_part.is_empty() {
        return None;
    }
    let mut v = 0f64;
    for c in int_part.chars() {
        v = v * 16.0 + f64::from(c.to_digit(16)?);
    }
    let mut scale = 1.0 / 16.0;
    for c in frac_part.chars() {
        v += f64::from(c.to_digit(16)?) * scale;
        scale /= 16.0;
    }
    let v = v * 2f64.powi(exp);
    v.is_finite().then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_float_syntax() {
        for ok in [
            "1",
            "1.5",
            "-1e3",
            "inf",
            "-Infinity",
            "NaN",
            "0x1p3",
            "1_0",
            ".5",
            "1.",
        ] {
            assert!(go_parse_float(ok).is_some(), "{ok}");
        }
        for bad in ["x", "1e400", "_1", "1_", "1__0", "0x1", "-nan", "1.5f", ""] {
            assert!(go_parse_float(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn conversions_fail_like_cel_go() {
        let e = |f: &str, v: Const| convert(f, &v).err();
        assert_eq!(
            e("int", Const::Null).as_deref(),
            Some("no such overload: int(null_type)")
        );
        assert_eq!(
            e("bytes", Const::Int(1)).as_deref(),
            Some("no such overload: bytes(int)")
        );
        assert_eq!(
            e("uint", Const::Int(-1)).as_deref(),
            Some("unsigned integer overflow")
        );
        assert_eq!(
            e("int", Const::Double(-9.3e18)).as_deref(),
            Some("integer overflow")
        );
        assert_eq!(e("int", Const::Double(9.2e18)), None);
        assert_eq!(
            e("duration", Const::Int(1)).as_deref(),
            Some("type conversion error from 'int' to 'google.protobuf.Duration'")
        );
        assert_eq!(
            e("timestamp", Const::Int(253_402_300_800)).as_deref(),
            Some("timestamp overflow")
        );
        assert_eq!(
            e("bool", Const::String("tRue".into())).as_deref(),
            Some("type conversion error from 'string' to 'bool'")
        );
    }
}
