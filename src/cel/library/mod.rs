//! Runtime implementations of the Kubernetes CEL libraries (apiserver
//! `pkg/cel/library`): quantity, URL, IP and CIDR, semver, named formats, and the
//! strings extension's `format`. Each function behaves and fails as the server's
//! binding does, with its error texts.

pub mod formats;
pub mod net;
pub mod quantity;
pub mod semver;
pub mod strformat;
pub mod tz;
pub mod url;

use std::cmp::Ordering;
use std::sync::Arc;

use super::interp::EvalError;
use super::value::Val;

type R = Result<Val, EvalError>;

fn err(m: impl Into<String>) -> EvalError {
    EvalError::Message(m.into())
}

fn no_overload() -> EvalError {
    err("no such overload")
}

fn ord(o: Ordering) -> i64 {
    match o {
        Ordering::Less => -1,
        Ordering::Equal => 0,
        Ordering::Greater => 1,
    }
}

fn parse_ip(s: &str) -> Result<net::Addr, String> {
    let addr = net::parse_addr(s).map_err(|e| {
        format!(
            "IP Address {} parse error during conversion from string: {e}",
            crate::diag::gofmt::quote(s)
        )
    })?;
    if !addr.zone.is_empty() {
        return Err(format!(
            "IP address {} with zone value is not allowed",
            crate::diag::gofmt::quote(s)
        ));
    }
    if addr.is4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            crate::diag::gofmt::quote(s)
        ));
    }
    Ok(addr)
}

fn parse_cidr(s: &str) -> Result<net::Prefix, String> {
    let p = net::parse_prefix(s)
        .map_err(|e| format!("network address parse error during conversion from string: {e}"))?;
    if p.addr.is4in6() {
        return Err(format!(
            "IPv4-mapped IPv6 address {} is not allowed",
            crate::diag::gofmt::quote(s)
        ));
    }
    Ok(p)
}

fn string_to_cidr(s: &str) -> R {
    parse_cidr(s).map(|p| Val::Cidr(Arc::new(p))).map_err(|e| {
        err(format!(
            "network address parse error during conversion from string: {e}"
        ))
    })
}

fn quantity_arg(v: &Val) -> Result<quantity::Quantity, EvalError> {
    match v {
        Val::Quantity(q) => Ok((**q).clone()),
        Val::Int(i) => Ok(quantity::Quantity::from_i64(*i)),
        _ => Err(no_overload()),
    }
}

/// Calls a library function; `None` when `f` with these arguments is not one.
pub fn call(f: &str, a: &[Val]) -> Option<R> {
    use Val::*;
    Some(match (f, a) {
        // quantity
        ("quantity", [String(s)]) => quantity::Quantity::parse(s)
            .map(|q| Quantity(Arc::new(q)))
            .map_err(err),
        ("isQuantity", [String(s)]) => Ok(Bool(quantity::Quantity::parse(s).is_ok())),
        ("sign", [Quantity(q)]) => Ok(Int(q.sign())),
        ("isGreaterThan", [Quantity(x), Quantity(y)]) => {
            Ok(Bool(x.compare(y) == Ordering::Greater))
        }
        ("isLessThan", [Quantity(x), Quantity(y)]) => Ok(Bool(x.compare(y) == Ordering::Less)),
        ("compareTo", [Quantity(x), Quantity(y)]) => Ok(Int(ord(x.compare(y)))),
        ("asApproximateFloat", [Quantity(q)]) => Ok(Double(q.approximate_f64())),
        ("asInteger", [Quantity(q)]) => q
            .as_i64()
            .map(Int)
            .ok_or_else(|| err("cannot convert value to integer")),
        ("isInteger", [Quantity(q)]) => Ok(Bool(q.as_i64().is_some())),
        ("add" | "sub", [Quantity(x), y @ (Quantity(_) | Int(_))]) => {
            quantity_arg(y).map(|y| Quantity(Arc::new(x.add(&y, f == "sub"))))
        }

        // URLs
        ("url", [String(s)]) => url::parse_request_uri(s)
            .and_then(|_| url::parse(s))
            .map(|u| Url(Arc::new(u)))
            .map_err(|e| {
                err(format!(
                    "URL parse error during conversion from string: {e}"
                ))
            }),
        ("isURL", [String(s)]) => Ok(Bool(url::parse_request_uri(s).is_ok())),
        ("getScheme", [Url(u)]) => Ok(Val::str(&u.scheme)),
        ("getHost", [Url(u)]) => Ok(Val::str(&u.host)),
        ("getHostname", [Url(u)]) => Ok(Val::str(u.hostname())),
        ("getPort", [Url(u)]) => Ok(Val::str(u.port())),
        ("getEscapedPath", [Url(u)]) => Ok(Val::str(&u.escaped_path())),
        ("getQuery", [Url(u)]) => Ok(Map(Arc::new(
            u.query()
                .into_iter()
                .map(|(k, vs)| {
                    (
                        Val::str(&k),
                        Val::list(vs.iter().map(|v| Val::str(v)).collect()),
                    )
                })
                .collect(),
        ))),

        // IP and CIDR
        ("ip", [String(s)]) => parse_ip(s).map(|a| Ip(Arc::new(a))).map_err(err),
        ("isIP", [String(s)]) => Ok(Bool(parse_ip(s).is_ok())),
        ("ip.isCanonical", [String(s)]) => {
            parse_ip(s).map(|a| Bool(a.to_string() == **s)).map_err(err)
        }
        ("family", [Ip(a)]) => Ok(Int(if a.is4() { 4 } else { 6 })),
        ("isUnspecified", [Ip(a)]) => Ok(Bool(a.is_unspecified())),
        ("isLoopback", [Ip(a)]) => Ok(Bool(a.is_loopback())),
        ("isLinkLocalMulticast", [Ip(a)]) => Ok(Bool(a.is_link_local_multicast())),
        ("isLinkLocalUnicast", [Ip(a)]) => Ok(Bool(a.is_link_local_unicast())),
        ("isGlobalUnicast", [Ip(a)]) => Ok(Bool(a.is_global_unicast())),
        ("cidr", [String(s)]) => string_to_cidr(s),
        ("isCIDR", [String(s)]) => Ok(Bool(parse_cidr(s).is_ok())),
        ("containsIP", [Cidr(c), String(s)]) => match parse_ip(s) {
            Ok(ip) => Ok(Bool(c.contains(&ip))),
            // The server checks the argument's type after conversion and reports the
            // receiver: a bad address string is an overload error.
            Err(_) => Err(no_overload()),
        },
        ("containsIP", [Cidr(c), Ip(ip)]) => Ok(Bool(c.contains(ip))),
        ("containsCIDR", [Cidr(c), String(s)]) => match string_to_cidr(s) {
            Ok(Cidr(o)) => Ok(Bool(c.overlaps(&o) && c.bits <= o.bits)),
            Ok(_) => Err(no_overload()),
            Err(e) => Err(e),
        },
        ("containsCIDR", [Cidr(c), Cidr(o)]) => Ok(Bool(c.overlaps(o) && c.bits <= o.bits)),
        ("ip", [Cidr(c)]) => Ok(Ip(Arc::new(c.addr.clone()))),
        ("prefixLength", [Cidr(c)]) => Ok(Int(c.bits as i64)),
        ("masked", [Cidr(c)]) => Ok(Cidr(Arc::new(c.masked()))),

        // semver
        ("semver", [String(s), rest @ ..]) | ("isSemver", [String(s), rest @ ..]) => {
            let normalize = match rest {
                [] => false,
                [Bool(b)] => *b,
                _ => return Some(Err(no_overload())),
            };
            let parsed = if normalize {
                semver::normalize_and_parse(s)
            } else {
                semver::parse(s)
            };
            if f == "isSemver" {
                Ok(Bool(parsed.is_ok()))
            } else {
                parsed.map(|v| Semver(Arc::new(v))).map_err(err)
            }
        }
        ("major", [Semver(v)]) => Ok(Int(v.major as i64)),
        ("minor", [Semver(v)]) => Ok(Int(v.minor as i64)),
        ("patch", [Semver(v)]) => Ok(Int(v.patch as i64)),
        ("isGreaterThan", [Semver(x), Semver(y)]) => Ok(Bool(x.compare(y) == Ordering::Greater)),
        ("isLessThan", [Semver(x), Semver(y)]) => Ok(Bool(x.compare(y) == Ordering::Less)),
        ("compareTo", [Semver(x), Semver(y)]) => Ok(Int(ord(x.compare(y)))),

        // named formats
        ("format.named", [String(s)]) => {
            Ok(Optional(formats::lookup(s).map(|f| Box::new(Format(f)))))
        }
        ("validate", [Format(fm), String(s)]) => {
            let errs = formats::validate(fm, s);
            Ok(Optional(if errs.is_empty() {
                None
            } else {
                Some(Box::new(Val::list(
                    errs.iter().map(|e| Val::str(e)).collect(),
                )))
            }))
        }
        (name, []) if name.starts_with("format.") => {
            formats::lookup(&name["format.".len()..]).map(|f| Ok(Format(f)))?
        }

        // strings extension
        ("format", [String(s), List(l)]) => {
            if l.iter().any(crate::cel::value::formats_unknown_field) {
                return Some(Err(EvalError::Internal(
                    "internal error: runtime error: invalid memory address or nil pointer dereference".into(),
                )));
            }
            // Its cost counts the format string only.
            strformat::format(s, l)
                .map(|s| {
                    crate::cel::work::charge(s.len());
                    Val::str(&s)
                })
                .map_err(err)
        }
        _ => return None,
    })
}
