//! `kubernetes.Quantity` (apimachinery `resource.Quantity`) as the CEL quantity library
//! uses it: parsing with the same errors, exact comparison, addition and subtraction,
//! and the two internal representations (a scaled int64 or an arbitrary-precision
//! decimal) because `asInteger()`, `isInteger()` and `asApproximateFloat()` answer
//! differently for them (`quantity('1000m').isInteger()` is false on the server).

use std::cmp::Ordering;

use num_bigint::{BigInt, Sign};
use num_traits::{ToPrimitive, Zero};

/// The regular expression the server quotes in its format error.
const SPLIT_RE: &str = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";

/// Exponents beyond this are refused instead of building huge numbers (the server
/// would try to allocate them).
const MAX_EXPONENT: i64 = 100_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    DecimalExponent,
    BinarySI,
    DecimalSI,
}

#[derive(Clone, Debug)]
enum Repr {
    /// `value × 10^scale`.
    Int { value: i64, scale: i32 },
    /// `unscaled × 10^-scale` (inf.Dec convention).
    Dec { unscaled: BigInt, scale: i32 },
}

#[derive(Clone, Debug)]
pub struct Quantity {
    repr: Repr,
    format: Format,
    /// A result of `add`/`sub`: the server holds those behind a pointer, and its
    /// `==` only accepts a non-pointer on the right (`quantity('2') ==
    /// quantity('1').add(1)` is a "no such overload" error).
    pub derived: bool,
}

pub fn format_error() -> String {
    format!("quantities must match the regular expression '{SPLIT_RE}'")
}
const ERR_NUMERIC: &str = "unable to parse numeric part of quantity";
const ERR_SUFFIX: &str = "unable to parse quantity's suffix";

struct Parts<'a> {
    positive: bool,
    num: &'a str,
    denom: &'a str,
    suffix: &'a str,
}

fn split(s: &str) -> Result<Parts<'_>, String> {
    let b = s.as_bytes();
    let end = b.len();
    let mut pos = 0;
    let mut positive = true;
    if let Some(&c) = b.first() {
        if c == b'-' {
            positive = false;
            pos += 1;
        } else if c == b'+' {
            pos += 1;
        }
    }
    while pos < end && b[pos] == b'0' {
        pos += 1;
    }
    if pos >= end {
        return Ok(Parts {
            positive,
            num: "0",
            denom: "",
            suffix: "",
        });
    }
    let start = pos;
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    let mut num = &s[start..pos];
    if pos >= end {
        return Ok(Parts {
            positive,
            num,
            denom: "",
            suffix: "",
        });
    }
    if num.is_empty() {
        num = "0";
    }
    let mut denom = "";
    if b[pos] == b'.' {
        pos += 1;
        let ds = pos;
        while pos < end && b[pos].is_ascii_digit() {
            pos += 1;
        }
        denom = &s[ds..pos];
        if pos >= end {
            return Ok(Parts {
                positive,
                num,
                denom,
                suffix: "",
            });
        }
    }
    let suffix_start = pos;
    while pos < end && b"eEinumkKMGTP".contains(&b[pos]) {
        pos += 1;
    }
    if pos < end && (b[pos] == b'-' || b[pos] == b'+') {
        pos += 1;
    }
    while pos < end && b[pos].is_ascii_digit() {
        pos += 1;
    }
    if pos < end {
        return Err(format_error());
    }
    Ok(Parts {
        positive,
        num,
        denom,
        suffix: &s[suffix_start..],
    })
}

/// (base, exponent, format)
fn interpret(suffix: &str) -> Option<(u32, i64, Format)> {
    let dec = |e| Some((10, e, Format::DecimalSI));
    let bin = |e| Some((2, e, Format::BinarySI));
    match suffix {
        "" => dec(0),
        "n" => dec(-9),
        "u" => dec(-6),
        "m" => dec(-3),
        "k" => dec(3),
        "M" => dec(6),
        "G" => dec(9),
        "T" => dec(12),
        "P" => dec(15),
        "E" => dec(18),
        "Ki" => bin(10),
        "Mi" => bin(20),
        "Gi" => bin(30),
        "Ti" => bin(40),
        "Pi" => bin(50),
        "Ei" => bin(60),
        _ => {
            let rest = suffix.strip_prefix(['e', 'E'])?;
            if rest.is_empty() {
                return None;
            }
            let e = go_parse_int(rest)?;
            // Go truncates the exponent to int32.
            Some((10, e as i32 as i64, Format::DecimalExponent))
        }
    }
}

fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

fn pow10(n: u32) -> BigInt {
    num_traits::pow(BigInt::from(10u32), n as usize)
}

impl Quantity {
    pub fn parse(s: &str) -> Result<Quantity, String> {
        if s.is_empty() {
            return Err(format_error());
        }
        if s == "0" {
            return Ok(Quantity {
                repr: Repr::Int { value: 0, scale: 0 },
                format: Format::DecimalSI,
                derived: false,
            });
        }
        let p = split(s)?;
        let (base, exponent, format) = interpret(p.suffix).ok_or_else(|| ERR_SUFFIX.to_string())?;
        let mut scale: i64 = 0;
        let mut mantissa: i64 = 1;
        let precision: i64 = match format {
            Format::DecimalExponent | Format::DecimalSI => {
                scale = exponent;
                18 - (p.num.len() + p.denom.len()) as i64
            }
            Format::BinarySI => {
                if exponent >= 0 && p.denom.is_empty() {
                    mantissa <<= exponent;
                    15 - p.num.len() as i64 - ((exponent as f32) * 3.0 / 10.0) as i64 - 1
                } else {
                    -1
                }
            }
        };
        if precision >= 0 {
            scale -= p.denom.len() as i64;
            if scale >= -9 {
                let shifted = format!("{}{}", p.num, p.denom);
                let value: i64 = shifted.parse().map_err(|_| ERR_NUMERIC.to_string())?;
                if let Some(result) = value.checked_mul(mantissa) {
                    let result = if p.positive { result } else { -result };
                    return Ok(Quantity {
                        repr: Repr::Int {
                            value: result,
                            scale: scale as i32,
                        },
                        format,
                        derived: false,
                    });
                }
            }
        }
        if exponent.abs() > MAX_EXPONENT {
            return Err(ERR_NUMERIC.to_string());
        }
        // The decimal path: the literal digits, then the suffix.
        let digits = format!("{}{}", p.num, p.denom);
        // Reading decimal digits into a big integer takes time that grows with their
        // square, which the cost (a tenth of the length) does not count.
        crate::cel::work::charge(digits.len().saturating_mul(digits.len()) / 64);
        if crate::cel::work::exceeded() {
            // The evaluator drops this answer: the rule is not evaluated.
            return Err(ERR_NUMERIC.to_string());
        }
        let mut unscaled: BigInt = digits.parse().map_err(|_| ERR_NUMERIC.to_string())?;
        let mut dscale = p.denom.len() as i64;
        if base == 10 {
            dscale -= exponent;
        } else {
            unscaled <<= exponent as usize;
        }
        if !unscaled.is_zero() {
            // Round up (away from zero) to nano precision.
            if dscale > 9 {
                let d = pow10((dscale - 9) as u32);
                let (q, r) = (&unscaled / &d, &unscaled % &d);
                unscaled = if r.is_zero() { q } else { q + 1 };
            } else if dscale < 9 {
                unscaled *= pow10((9 - dscale) as u32);
            }
            dscale = 9;
        }
        let mut format = format;
        if format == Format::BinarySI {
            let max = BigInt::from(i64::MAX);
            if cmp_dec(&unscaled, dscale, &max, 0) == Ordering::Greater {
                unscaled = max;
                dscale = 0;
            }
            let one = BigInt::from(1);
            if cmp_dec(&unscaled, dscale, &one, 0) == Ordering::Less && !unscaled.is_zero() {
                format = Format::DecimalSI;
            }
        }
        if !p.positive {
            unscaled = -unscaled;
        }
        Ok(Quantity {
            repr: Repr::Dec {
                unscaled,
                scale: dscale as i32,
            },
            format,
            derived: false,
        })
    }

    fn as_dec(&self) -> (BigInt, i64) {
        match &self.repr {
            Repr::Int { value, scale } => (BigInt::from(*value), -(*scale as i64)),
            Repr::Dec { unscaled, scale } => (unscaled.clone(), *scale as i64),
        }
    }

    pub fn compare(&self, other: &Quantity) -> Ordering {
        let (a, sa) = self.as_dec();
        let (b, sb) = other.as_dec();
        cmp_dec(&a, sa, &b, sb)
    }

    pub fn sign(&self) -> i64 {
        match &self.repr {
            Repr::Int { value, .. } => value.signum(),
            Repr::Dec { unscaled, .. } => match unscaled.sign() {
                Sign::Minus => -1,
                Sign::NoSign => 0,
                Sign::Plus => 1,
            },
        }
    }

    fn is_zero(&self) -> bool {
        self.sign() == 0
    }

    pub fn as_i64(&self) -> Option<i64> {
        match &self.repr {
            Repr::Dec { .. } => None,
            Repr::Int { value, scale } => match *scale {
                0 => Some(*value),
                s if s < 0 => None,
                s => {
                    let mut v = *value;
                    for _ in 0..s {
                        v = v.checked_mul(10)?;
                    }
                    Some(v)
                }
            },
        }
    }

    pub fn approximate_f64(&self) -> f64 {
        let (base, exponent) = match &self.repr {
            Repr::Dec { unscaled, scale } => (unscaled.to_f64().unwrap_or(f64::NAN), -(*scale)),
            Repr::Int { value, scale } => (*value as f64, *scale),
        };
        if exponent == 0 {
            return base;
        }
        base * go_pow10(exponent)
    }

    pub fn from_i64(v: i64) -> Quantity {
        Quantity {
            repr: Repr::Int { value: v, scale: 0 },
            format: Format::DecimalExponent,
            derived: false,
        }
    }

    /// `Quantity.Add` (or `Sub` with `negate`), keeping the server's representation.
    pub fn add(&self, y: &Quantity, negate: bool) -> Quantity {
        let mut q = self.clone();
        q.derived = true;
        if q.is_zero() {
            q.format = y.format;
        }
        if let (
            Repr::Int {
                value: a,
                scale: sa,
            },
            Repr::Int {
                value: b,
                scale: sb,
            },
        ) = (&q.repr, &y.repr)
        {
            let b = if negate { b.checked_neg() } else { Some(*b) };
            if let Some(b) = b
                && let Some((v, s)) = int_add(*a, *sa, b, *sb)
            {
                q.repr = Repr::Int { value: v, scale: s };
                return q;
            }
        }
        let (a, sa) = q.as_dec();
        let (mut b, sb) = y.as_dec();
        if negate {
            b = -b;
        }
        // inf.Dec addition: the result has the larger scale.
        let s = sa.max(sb);
        let a = a * pow10((s - sa) as u32);
        let b = b * pow10((s - sb) as u32);
        q.repr = Repr::Dec {
            unscaled: a + b,
            scale: s as i32,
        };
        q
    }
}

fn int_add(a: i64, sa: i32, b: i64, sb: i32) -> Option<(i64, i32)> {
    if b == 0 {
        return Some((a, sa));
    }
    if a == 0 {
        return Some((b, sb));
    }
    let scale_up = |v: i64, by: i32| -> Option<i64> {
        let mut v = v;
        for _ in 0..by {
            v = v.checked_mul(10)?;
        }
        Some(v)
    };
    match sa.cmp(&sb) {
        Ordering::Equal => a.checked_add(b).map(|v| (v, sa)),
        Ordering::Greater => scale_up(a, sa - sb)
            .and_then(|c| c.checked_add(b))
            .map(|v| (v, sb)),
        Ordering::Less => scale_up(b, sb - sa)
            .and_then(|c| a.checked_add(c))
            .map(|v| (v, sa)),
    }
}

/// Compares `a × 10^-sa` with `b × 10^-sb`.
fn cmp_dec(a: &BigInt, sa: i64, b: &BigInt, sb: i64) -> Ordering {
    let s = sa.max(sb);
    let (a2, b2);
    let a = if s > sa {
        a2 = a * pow10((s - sa) as u32);
        &a2
    } else {
        a
    };
    let b = if s > sb {
        b2 = b * pow10((s - sb) as u32);
        &b2
    } else {
        b
    };
    a.cmp(b)
}

/// Go's `math.Pow10` (exact table products, so results match bit for bit).
pub fn go_pow10(n: i32) -> f64 {
    const TAB: [f64; 32] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30, 1e31,
    ];
    const POS32: [f64; 10] = [
        1e0, 1e32, 1e64, 1e96, 1e128, 1e160, 1e192, 1e224, 1e256, 1e288,
    ];
    const NEG32: [f64; 11] = [
        1e-0, 1e-32, 1e-64, 1e-96, 1e-128, 1e-160, 1e-192, 1e-224, 1e-256, 1e-288, 1e-320,
    ];
    if (0..=308).contains(&n) {
        let n = n as usize;
        return POS32[n / 32] * TAB[n % 32];
    }
    if (-323..=0).contains(&n) {
        let n = (-n) as usize;
        return NEG32[n / 32] / TAB[n % 32];
    }
    if n > 0 { f64::INFINITY } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Quantity {
        Quantity::parse(s).unwrap()
    }

    #[test]
    fn parses_like_apimachinery() {
        assert_eq!(q("1Gi").as_i64(), Some(1 << 30));
        assert_eq!(q("1k").as_i64(), Some(1000));
        assert_eq!(q("1000m").as_i64(), None);
        assert_eq!(q("1.5").as_i64(), None);
        assert_eq!(q("1.5").approximate_f64(), 1.5);
        assert_eq!(q("0.0000000001").compare(&q("1n")), Ordering::Equal);
        assert_eq!(q("1E3").compare(&q("1k")), Ordering::Equal);
        assert_eq!(q("1Mi").compare(&q("1M")), Ordering::Greater);
        assert_eq!(q("-1").sign(), -1);
        assert_eq!(Quantity::parse("1x").unwrap_err(), format_error());
        assert_eq!(Quantity::parse("1Ki5").unwrap_err(), ERR_SUFFIX);
        assert_eq!(Quantity::parse("abc").unwrap_err(), format_error());
        assert_eq!(Quantity::parse("").unwrap_err(), format_error());
        assert_eq!(
            q("100Ei").compare(&Quantity::from_i64(i64::MAX)),
            Ordering::Equal
        );
        let sum = q("1").add(&q("500m"), false);
        assert_eq!(sum.compare(&q("1.5")), Ordering::Equal);
        assert_eq!(q("1").add(&Quantity::from_i64(2), true).sign(), -1);
        assert_eq!(q("1e100").compare(&q("1e99")), Ordering::Greater);
    }
}
