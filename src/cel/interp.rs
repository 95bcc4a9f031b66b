//! crdlint's CEL interpreter over the checked AST.
//!
//! Why our own rather than the `cel` crate's evaluator: evaluation there cannot be
//! interrupted (a nested `all` over millions of items runs for seconds), it has no
//! runtime cost tracking (the server's per-call limit must fail the same rules), it
//! lacks the Kubernetes libraries, two-variable comprehensions and several extension
//! functions, and its error texts are not cel-go's. Walking our own checked AST keeps
//! one tree for checking, cost estimation and evaluation, counts a cost for every step
//! (so evaluation always terminates: [`PER_CALL_LIMIT`]), and reports cel-go's runtime
//! errors (`no such key: x`, `division by zero`, `integer overflow`, …).
//!
//! Functions not implemented yet return [`EvalError::Unsupported`]; callers report
//! those rules as not evaluated instead of guessing a verdict.

use std::cmp::Ordering;
use std::sync::Arc;

use super::ast::{Expr, ExprKind, Literal};
use super::checker::{CheckedAst, Reference};
use super::gotime;
use super::value::Val;

/// The server's per-call cost limit (`celconfig.PerCallLimit`).
pub const PER_CALL_LIMIT: u64 = 1_000_000;

#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// A CEL runtime error with cel-go's text.
    Message(String),
    /// `operation cancelled: actual cost limit exceeded`.
    CostLimit,
    /// A function crdlint cannot evaluate yet.
    Unsupported(String),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::Message(m) => f.write_str(m),
            EvalError::CostLimit => f.write_str("operation cancelled: actual cost limit exceeded"),
            EvalError::Unsupported(m) => write!(f, "crdlint cannot evaluate {m} yet"),
        }
    }
}

type R = Result<Val, EvalError>;

fn err(m: impl Into<String>) -> EvalError {
    EvalError::Message(m.into())
}

fn no_overload() -> EvalError {
    err("no such overload")
}

/// Evaluates a checked expression with variables bound.
pub fn eval(checked: &CheckedAst, vars: &[(&str, Val)], limit: u64) -> (R, u64) {
    let mut it = Interp {
        checked,
        cost: 0,
        limit,
        scope: vars
            .iter()
            .map(|(n, v)| (n.to_string(), v.clone()))
            .collect(),
    };
    let r = it.eval(&checked.ast.expr, 0);
    (r, it.cost)
}

/// Evaluates one sub-expression of `checked` without variables (constant folding
/// when a program is instantiated, see [`super::program`]).
pub(crate) fn eval_const(checked: &CheckedAst, e: &Expr) -> R {
    let mut it = Interp {
        checked,
        cost: 0,
        limit: PER_CALL_LIMIT,
        scope: Vec::new(),
    };
    it.eval(e, 0)
}

struct Interp<'a> {
    checked: &'a CheckedAst,
    cost: u64,
    limit: u64,
    scope: Vec<(String, Val)>,
}

impl Interp<'_> {
    fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(n);
        if self.cost > self.limit {
            Err(EvalError::CostLimit)
        } else {
            Ok(())
        }
    }

    fn lookup(&self, name: &str) -> Option<Val> {
        self.scope
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    }

    fn eval(&mut self, e: &Expr, depth: usize) -> R {
        if depth > 2000 {
            return Err(err("expression too deeply nested"));
        }
        self.charge(1)?;
        match &e.kind {
            ExprKind::Literal(l) => Ok(match l {
                Literal::Bool(b) => Val::Bool(*b),
                Literal::Int(i) => Val::Int(*i),
                Literal::Uint(u) => Val::Uint(*u),
                Literal::Double(d) => Val::Double(*d),
                Literal::String(s) => Val::str(s),
                Literal::Bytes(b) => Val::Bytes(Arc::from(b.as_slice())),
                Literal::Null => Val::Null,
            }),
            ExprKind::Ident(name) => match self.lookup(name) {
                // An error held by a comprehension accumulator.
                Some(Val::Error(m)) if name.starts_with('@') => Err(err(m.to_string())),
                Some(v) => Ok(v),
                None => match self.checked.types.get(&e.id) {
                    Some(super::types::Type::Type(Some(t))) => {
                        Ok(Val::Type(t.type_name().to_string()))
                    }
                    _ => Err(err(format!("no such attribute: {name}"))),
                },
            },
            ExprKind::Select {
                operand,
                field,
                test_only,
            } => {
                let v = self.eval(operand, depth + 1)?;
                select(&v, field, *test_only, false)
            }
            ExprKind::Call {
                function,
                target,
                args,
            } => self.call(e, function, target.as_deref(), args, depth),
            ExprKind::List {
                elements,
                optional_indices,
            } => {
                let mut out = Vec::with_capacity(elements.len());
                for (i, el) in elements.iter().enumerate() {
                    let v = self.eval(el, depth + 1)?;
                    if optional_indices.contains(&i) {
                        match v {
                            Val::Optional(Some(x)) => out.push(*x),
                            Val::Optional(None) => {}
                            other => out.push(other),
                        }
                    } else {
                        out.push(v);
                    }
                }
                Ok(Val::List(Arc::new(out)))
            }
            ExprKind::Map { entries } => {
                let mut out: Vec<(Val, Val)> = Vec::with_capacity(entries.len());
                for en in entries {
                    let k = self.eval(&en.key, depth + 1)?;
                    let v = self.eval(&en.value, depth + 1)?;
                    let v = if en.optional {
                        match v {
                            Val::Optional(Some(x)) => *x,
                            Val::Optional(None) => continue,
                            other => other,
                        }
                    } else {
                        v
                    };
                    if out.iter().any(|(k2, _)| k2.equals(&k)) {
                        return Err(err(format!("Failed with repeated key: {}", display(&k))));
                    }
                    out.push((k, v));
                }
                Ok(Val::Map(Arc::new(out)))
            }
            ExprKind::Struct { type_name, .. } => Err(EvalError::Unsupported(format!(
                "object construction of {type_name}"
            ))),
            ExprKind::Comprehension(c) => {
                let range = self.eval(&c.iter_range, depth + 1)?;
                let range = range.plain();
                if let Val::Error(m) = &range {
                    return Err(err(m.to_string()));
                }
                let items: Vec<(Val, Val)> = match &range {
                    Val::List(l) => l
                        .iter()
                        .enumerate()
                        .map(|(i, v)| (Val::Int(i as i64), v.clone()))
                        .collect(),
                    Val::Map(m) => m.iter().cloned().collect(),
                    _ => return Err(no_overload()),
                };
                let accu = self.eval(&c.accu_init, depth + 1)?;
                let base = self.scope.len();
                self.scope.push((c.accu_var.clone(), accu));
                let two = c.iter_var2.is_some();
                let is_list = matches!(range, Val::List(_));
                for (k, v) in items {
                    self.charge(1)?;
                    let len = self.scope.len();
                    if two {
                        self.scope.push((c.iter_var.clone(), k));
                        self.scope
                            .push((c.iter_var2.clone().unwrap_or_default(), v));
                    } else if is_list {
                        self.scope.push((c.iter_var.clone(), v));
                    } else {
                        self.scope.push((c.iter_var.clone(), k));
                    }
                    let cond = self.eval(&c.loop_condition, depth + 1);
                    let go_on = match cond {
                        Ok(Val::Bool(b)) => b,
                        Ok(_) => return Err(no_overload()),
                        Err(e) => {
                            self.scope.truncate(base);
                            return Err(e);
                        }
                    };
                    if !go_on {
                        self.scope.truncate(len);
                        break;
                    }
                    let step = self.eval(&c.loop_step, depth + 1);
                    self.scope.truncate(len);
                    match step {
                        Ok(v) => {
                            if let Some(slot) = self.scope.get_mut(base) {
                                slot.1 = v;
                            }
                        }
                        // cel-go keeps an error in the accumulator and goes on: a
                        // later `false && error` (all) or `true || error` (exists)
                        // absorbs it; anything else reads it and fails with it.
                        Err(EvalError::Message(m)) => {
                            if let Some(slot) = self.scope.get_mut(base) {
                                slot.1 = Val::Error(Arc::from(m));
                            }
                        }
                        Err(e) => {
                            self.scope.truncate(base);
                            return Err(e);
                        }
                    }
                }
                let r = self.eval(&c.result, depth + 1);
                self.scope.truncate(base);
                r
            }
        }
    }

    fn call(
        &mut self,
        e: &Expr,
        function: &str,
        target: Option<&Expr>,
        args: &[Expr],
        depth: usize,
    ) -> R {
        // Non-strict operators first.
        match function {
            "_&&_" | "_||_" => {
                let short = function == "_||_";
                let a = self.eval(&args[0], depth + 1);
                if matches!(a, Ok(Val::Bool(b)) if b == short) {
                    return Ok(Val::Bool(short));
                }
                let b = self.eval(&args[1], depth + 1);
                if matches!(b, Ok(Val::Bool(x)) if x == short) {
                    return Ok(Val::Bool(short));
                }
                return match (a, b) {
                    (Ok(Val::Bool(_)), Ok(Val::Bool(_))) => Ok(Val::Bool(!short)),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                    _ => Err(no_overload()),
                };
            }
            "_?_:_" => {
                return match self.eval(&args[0], depth + 1)? {
                    Val::Bool(true) => self.eval(&args[1], depth + 1),
                    Val::Bool(false) => self.eval(&args[2], depth + 1),
                    _ => Err(no_overload()),
                };
            }
            "@not_strictly_false" => {
                return Ok(match self.eval(&args[0], depth + 1) {
                    Ok(Val::Bool(b)) => Val::Bool(b),
                    _ => Val::Bool(true),
                });
            }
            "_?._" => {
                let v = self.eval(&args[0], depth + 1)?;
                let field = match &args[1].kind {
                    ExprKind::Literal(Literal::String(s)) => s.clone(),
                    _ => return Err(no_overload()),
                };
                return select(&v, &field, false, true);
            }
            _ => {}
        }
        let mut vals = Vec::with_capacity(args.len() + 1);
        if let Some(t) = target {
            vals.push(self.eval(t, depth + 1)?);
        }
        for a in args {
            vals.push(self.eval(a, depth + 1)?);
        }
        let overloads: &[String] = match self.checked.refs.get(&e.id) {
            Some(Reference::Function { overload_ids, .. }) => overload_ids,
            _ => &[],
        };
        if let Some(Val::Error(m)) = vals.iter().find(|v| matches!(v, Val::Error(_))) {
            return Err(err(m.to_string()));
        }
        // Set and map lists keep their semantics where they can show (equality,
        // `+`, and values passed through unchanged); elsewhere they are plain lists.
        if !matches!(
            function,
            "_==_"
                | "_!=_"
                | "_+_"
                | "dyn"
                | "optional.of"
                | "optional.ofNonZeroValue"
                | "or"
                | "orValue"
                | "value"
        ) {
            vals = vals.into_iter().map(Val::plain).collect();
        }
        if matches!(function, "_==_" | "_!=_")
            && let [x, y] = vals.as_slice()
            && equality_error(x, y)
        {
            return Err(no_overload());
        }
        // A size-proportional charge (approximate; the exact runtime cost model lives
        // in the cost module). Comprehension accumulators (`accu + [x]`) are not
        // charged by size: cel-go appends to them in place.
        let size_cost =
            if function == "_+_" && vals.first().is_some_and(|v| v.list_items().is_some()) {
                0
            } else {
                vals.iter().map(val_size).max().unwrap_or(0) / 10
            };
        self.charge(size_cost)?;
        call_function(function, target.is_some(), &vals, overloads)
    }
}

/// Equalities the server answers with an error: a quantity produced by `add`/`sub`
/// on the right of `==` (its `Equal` only accepts a non-pointer quantity).
fn equality_error(x: &Val, y: &Val) -> bool {
    match (x, y) {
        (Val::Quantity(_), Val::Quantity(q)) => q.derived,
        (a, b) if a.list_items().is_some() && b.list_items().is_some() => {
            let (a, b) = (a.list_items().unwrap_or(&[]), b.list_items().unwrap_or(&[]));
            a.len() == b.len() && a.iter().zip(b).any(|(p, q)| equality_error(p, q))
        }
        _ => false,
    }
}

fn val_size(v: &Val) -> u64 {
    match v {
        Val::String(s) => s.len() as u64,
        Val::Bytes(b) => b.len() as u64,
        Val::List(l) | Val::SetList(l) | Val::MapList(l, _) => l.len() as u64,
        Val::Map(m) => m.len() as u64,
        _ => 1,
    }
}

fn display(v: &Val) -> String {
    match v {
        Val::String(s) => s.to_string(),
        Val::Int(i) => i.to_string(),
        Val::Uint(u) => u.to_string(),
        Val::Bool(b) => b.to_string(),
        Val::Double(d) => d.to_string(),
        other => format!("{other:?}"),
    }
}

fn select(v: &Val, field: &str, test_only: bool, optional: bool) -> R {
    match v {
        Val::Map(m) => {
            let found = m
                .iter()
                .find(|(k, _)| matches!(k, Val::String(s) if &**s == field));
            if test_only {
                return Ok(Val::Bool(found.is_some()));
            }
            match found {
                Some((_, Val::Error(m))) => Err(err(m.to_string())),
                Some((_, x)) if optional => Ok(Val::Optional(Some(Box::new(x.clone())))),
                Some((_, x)) => Ok(x.clone()),
                None if optional => Ok(Val::Optional(None)),
                None => Err(err(format!("no such key: {field}"))),
            }
        }
        Val::Optional(None) => Ok(Val::Optional(None)),
        Val::Optional(Some(inner)) => select(inner, field, test_only, true),
        Val::Error(m) => Err(err(m.to_string())),
        _ => Err(no_overload()),
    }
}

fn int_result(v: Option<i64>) -> R {
    v.map(Val::Int).ok_or_else(|| err("integer overflow"))
}

fn uint_result(v: Option<u64>) -> R {
    v.map(Val::Uint)
        .ok_or_else(|| err("unsigned integer overflow"))
}

fn as_str(v: &Val) -> Result<&str, EvalError> {
    match v {
        Val::String(s) => Ok(s),
        _ => Err(no_overload()),
    }
}

fn ts_result(secs: i64, nanos: u32) -> R {
    if (gotime::MIN_UNIX_SECONDS..=gotime::MAX_UNIX_SECONDS).contains(&secs) {
        Ok(Val::Timestamp(secs, nanos))
    } else {
        Err(err("timestamp overflow"))
    }
}

fn dur_result(n: i128) -> R {
    if gotime::duration_in_range(n) && n >= i64::MIN as i128 && n <= i64::MAX as i128 {
        Ok(Val::Duration(n as i64))
    } else {
        Err(err("duration overflow"))
    }
}

fn ts_nanos(s: i64, n: u32) -> i128 {
    s as i128 * 1_000_000_000 + n as i128
}

fn from_nanos(t: i128) -> (i64, u32) {
    (
        t.div_euclid(1_000_000_000) as i64,
        t.rem_euclid(1_000_000_000) as u32,
    )
}

fn contains(haystack: &Val, needle: &Val) -> R {
    match haystack {
        Val::List(l) | Val::SetList(l) | Val::MapList(l, _) => {
            Ok(Val::Bool(l.iter().any(|x| x.equals(needle))))
        }
        Val::Map(m) => Ok(Val::Bool(m.iter().any(|(k, _)| k.equals(needle)))),
        _ => Err(no_overload()),
    }
}

fn index(container: &Val, key: &Val, optional: bool) -> R {
    let r = index_inner(container, key, optional);
    match r {
        Ok(Val::Error(m)) => Err(err(m.to_string())),
        other => other,
    }
}

fn index_inner(container: &Val, key: &Val, optional: bool) -> R {
    match container {
        Val::List(l) | Val::SetList(l) | Val::MapList(l, _) => {
            let i = match key {
                Val::Int(i) => *i,
                Val::Uint(u) => *u as i64,
                Val::Double(d) if d.fract() == 0.0 => *d as i64,
                _ => return Err(no_overload()),
            };
            match usize::try_from(i).ok().and_then(|i| l.get(i)) {
                Some(v) if optional => Ok(Val::Optional(Some(Box::new(v.clone())))),
                Some(v) => Ok(v.clone()),
                None if optional => Ok(Val::Optional(None)),
                None => Err(err(format!("index out of bounds: {i}"))),
            }
        }
        Val::Map(m) => match m.iter().find(|(k, _)| k.equals(key)) {
            Some((_, v)) if optional => Ok(Val::Optional(Some(Box::new(v.clone())))),
            Some((_, v)) => Ok(v.clone()),
            None if optional => Ok(Val::Optional(None)),
            None => Err(err(format!("no such key: {}", display(key)))),
        },
        Val::Optional(None) => Ok(Val::Optional(None)),
        Val::Optional(Some(inner)) => index_inner(inner, key, true),
        _ => Err(no_overload()),
    }
}

fn call_function(f: &str, member: bool, a: &[Val], overloads: &[String]) -> R {
    use Val::*;
    let arg = |i: usize| a.get(i).ok_or_else(no_overload);
    match (f, a) {
        ("!_", [Bool(b)]) => Ok(Bool(!b)),
        ("-_", [Int(i)]) => int_result(i.checked_neg()),
        ("-_", [Double(d)]) => Ok(Double(-d)),
        ("_==_", [x, y]) => Ok(Bool(x.equals(y))),
        ("_!=_", [x, y]) => Ok(Bool(!x.equals(y))),
        ("_<_" | "_<=_" | "_>_" | "_>=_", [x, y]) => {
            let o = x.compare(y).ok_or_else(no_overload)?;
            Ok(Bool(match f {
                "_<_" => o == Ordering::Less,
                "_<=_" => o != Ordering::Greater,
                "_>_" => o == Ordering::Greater,
                _ => o != Ordering::Less,
            }))
        }
        ("_+_", [Int(x), Int(y)]) => int_result(x.checked_add(*y)),
        ("_+_", [Uint(x), Uint(y)]) => uint_result(x.checked_add(*y)),
        ("_+_", [Double(x), Double(y)]) => Ok(Double(x + y)),
        ("_+_", [String(x), String(y)]) => Ok(Val::str(&format!("{x}{y}"))),
        ("_+_", [Bytes(x), Bytes(y)]) => Ok(Bytes(Arc::from([&x[..], &y[..]].concat()))),
        ("_+_", [x, y]) if x.list_items().is_some() && y.list_items().is_some() => {
            x.concat(y).ok_or_else(no_overload)
        }
        ("_+_", [Duration(x), Duration(y)]) => match x.checked_add(*y) {
            Some(n) => dur_result(n as i128),
            None => Err(err("integer overflow")),
        },
        ("_+_", [Timestamp(s, n), Duration(d)]) | ("_+_", [Duration(d), Timestamp(s, n)]) => {
            let (s, n) = from_nanos(ts_nanos(*s, *n) + *d as i128);
            ts_result(s, n)
        }
        ("_-_", [Int(x), Int(y)]) => int_result(x.checked_sub(*y)),
        ("_-_", [Uint(x), Uint(y)]) => uint_result(x.checked_sub(*y)),
        ("_-_", [Double(x), Double(y)]) => Ok(Double(x - y)),
        ("_-_", [Duration(x), Duration(y)]) => match x.checked_sub(*y) {
            Some(n) => dur_result(n as i128),
            None => Err(err("integer overflow")),
        },
        ("_-_", [Timestamp(s, n), Duration(d)]) => {
            let (s, n) = from_nanos(ts_nanos(*s, *n) - *d as i128);
            ts_result(s, n)
        }
        ("_-_", [Timestamp(s1, n1), Timestamp(s2, n2)]) => {
            dur_result(ts_nanos(*s1, *n1) - ts_nanos(*s2, *n2))
        }
        ("_*_", [Int(x), Int(y)]) => int_result(x.checked_mul(*y)),
        ("_*_", [Uint(x), Uint(y)]) => uint_result(x.checked_mul(*y)),
        ("_*_", [Double(x), Double(y)]) => Ok(Double(x * y)),
        ("_/_", [Int(_), Int(0)]) => Err(err("division by zero")),
        ("_%_", [Int(_), Int(0)]) => Err(err("modulus by zero")),
        ("_/_", [Uint(_), Uint(0)]) => Err(err("division by zero")),
        ("_%_", [Uint(_), Uint(0)]) => Err(err("modulus by zero")),
        ("_/_", [Int(x), Int(y)]) => int_result(x.checked_div(*y)),
        ("_%_", [Int(x), Int(y)]) => int_result(x.checked_rem(*y)),
        ("_/_", [Uint(x), Uint(y)]) => Ok(Uint(x / y)),
        ("_%_", [Uint(x), Uint(y)]) => Ok(Uint(x % y)),
        ("_/_", [Double(x), Double(y)]) => Ok(Double(x / y)),
        ("_[_]", [c, k]) => index(c, k, false),
        ("_[?_]", [c, k]) => index(c, k, true),
        ("@in", [x, c]) => contains(c, x),
        ("size", [x]) => match x {
            String(s) => Ok(Int(s.chars().count() as i64)),
            Bytes(b) => Ok(Int(b.len() as i64)),
            List(l) => Ok(Int(l.len() as i64)),
            Map(m) => Ok(Int(m.len() as i64)),
            _ => Err(no_overload()),
        },
        ("type", [x]) => Ok(Type(x.type_name())),
        ("dyn", [x]) => Ok(x.clone()),
        ("int", [x]) => match x {
            Int(i) => Ok(Int(*i)),
            Uint(u) => i64::try_from(*u)
                .map(Int)
                .map_err(|_| err("integer overflow")),
            Double(d) => {
                if d.is_finite() && *d > -9.223_372_036_854_776e18 && *d < 9.223_372_036_854_776e18
                {
                    Ok(Int(*d as i64))
                } else {
                    Err(err("integer overflow"))
                }
            }
            String(s) => s
                .parse::<i64>()
                .map(Int)
                .map_err(|_| err("type conversion error from 'string' to 'int'")),
            Timestamp(s, _) => Ok(Int(*s)),
            Duration(n) => Ok(Int(*n)),
            _ => Err(no_overload()),
        },
        ("uint", [x]) => match x {
            Uint(u) => Ok(Uint(*u)),
            Int(i) => u64::try_from(*i)
                .map(Uint)
                .map_err(|_| err("unsigned integer overflow")),
            Double(d) => {
                if d.is_finite() && *d >= 0.0 && *d < 1.8446744073709552e19 {
                    Ok(Uint(*d as u64))
                } else {
                    Err(err("unsigned integer overflow"))
                }
            }
            String(s) => s
                .parse::<u64>()
                .map(Uint)
                .map_err(|_| err("type conversion error from 'string' to 'uint'")),
            _ => Err(no_overload()),
        },
        ("double", [x]) => match x {
            Double(d) => Ok(Double(*d)),
            Int(i) => Ok(Double(*i as f64)),
            Uint(u) => Ok(Double(*u as f64)),
            String(s) => {
                let bad = || err("type conversion error from 'string' to 'double'");
                let d = s.parse::<f64>().map_err(|_| bad())?;
                // Go's ParseFloat refuses values out of range (Rust rounds to ±inf).
                let word = s.trim_start_matches(['+', '-']).to_ascii_lowercase();
                if d.is_infinite() && word != "inf" && word != "infinity" {
                    return Err(bad());
                }
                Ok(Double(d))
            }
            _ => Err(no_overload()),
        },
        ("string", [x]) => to_string(x).map(|s| Val::str(&s)),
        ("bool", [x]) => match x {
            Bool(b) => Ok(Bool(*b)),
            String(s) => match &**s {
                "true" | "TRUE" | "True" | "t" | "1" => Ok(Bool(true)),
                "false" | "FALSE" | "False" | "f" | "0" => Ok(Bool(false)),
                _ => Err(err("type conversion error from 'string' to 'bool'")),
            },
            _ => Err(no_overload()),
        },
        ("bytes", [x]) => match x {
            Bytes(b) => Ok(Bytes(b.clone())),
            String(s) => Ok(Bytes(Arc::from(s.as_bytes()))),
            _ => Err(no_overload()),
        },
        ("duration", [x]) => match x {
            Duration(n) => Ok(Duration(*n)),
            Int(i) => Ok(Duration(*i)),
            String(s) => {
                let n = gotime::parse_duration(s).map_err(|_| {
                    err("type conversion error from 'string' to 'google.protobuf.Duration'")
                })?;
                dur_result(n as i128)
            }
            _ => Err(no_overload()),
        },
        ("timestamp", [x]) => match x {
            Timestamp(s, n) => Ok(Timestamp(*s, *n)),
            Int(i) => ts_result(*i, 0),
            String(s) => {
                let t = gotime::parse_rfc3339(s).map_err(|_| {
                    err("type conversion error from 'string' to 'google.protobuf.Timestamp'")
                })?;
                Ok(Timestamp(t.seconds, t.nanos))
            }
            _ => Err(no_overload()),
        },
        ("contains", [String(s), String(t)]) => Ok(Bool(s.contains(&**t))),
        ("startsWith", [String(s), String(t)]) => Ok(Bool(s.starts_with(&**t))),
        ("endsWith", [String(s), String(t)]) => Ok(Bool(s.ends_with(&**t))),
        ("matches", [String(s), String(p)]) => {
            let re = crate::schema::regex::compile_go(p).map_err(err)?;
            Ok(Bool(re.is_match(s)))
        }
        ("find", [String(s), String(p)]) => {
            let re = crate::schema::regex::compile_go(p)
                .map_err(|e| err(format!("Illegal regex: {e}")))?;
            Ok(Val::str(re.find(s).map(|m| m.as_str()).unwrap_or("")))
        }
        ("findAll", [String(s), String(p), rest @ ..]) => {
            let re = crate::schema::regex::compile_go(p)
                .map_err(|e| err(format!("Illegal regex: {e}")))?;
            let limit = match rest.first() {
                Some(Int(n)) if *n >= 0 => *n as usize,
                Some(Int(_)) | None => usize::MAX,
                _ => return Err(no_overload()),
            };
            Ok(List(Arc::new(
                re.find_iter(s)
                    .take(limit)
                    .map(|m| Val::str(m.as_str()))
                    .collect(),
            )))
        }
        ("charAt", [String(s), Int(i)]) => {
            let n = s.chars().count() as i64;
            if *i < 0 || *i > n {
                return Err(err(format!("index out of range: {i}")));
            }
            Ok(Val::str(
                &s.chars()
                    .nth(*i as usize)
                    .map(|c| c.to_string())
                    .unwrap_or_default(),
            ))
        }
        ("indexOf" | "lastIndexOf", [String(s), String(t), rest @ ..]) => {
            let chars: Vec<char> = s.chars().collect();
            let needle: Vec<char> = t.chars().collect();
            let last = f == "lastIndexOf";
            let offset = match rest.first() {
                Some(Int(i)) => Some(*i),
                None => None,
                _ => return Err(no_overload()),
            };
            if needle.is_empty() {
                return Ok(Int(offset.unwrap_or(if last {
                    chars.len() as i64
                } else {
                    0
                })));
            }
            if last && offset.is_none() && s.len() < t.len() {
                return Ok(Int(-1));
            }
            let off = offset.unwrap_or(if last { chars.len() as i64 - 1 } else { 0 });
            if off < 0 {
                return Err(err(format!("index out of range: {off}")));
            }
            if off as u64 >= chars.len() as u64 {
                return Ok(Int(-1));
            }
            let off = off as usize;
            let matches_at = |i: usize| {
                i + needle.len() <= chars.len() && chars[i..i + needle.len()] == needle[..]
            };
            let found = if last {
                let from = off.min(chars.len().saturating_sub(needle.len()));
                (0..=from).rev().find(|&i| matches_at(i))
            } else {
                (off..chars.len()).find(|&i| matches_at(i))
            };
            Ok(Int(found.map(|i| i as i64).unwrap_or(-1)))
        }
        ("indexOf" | "lastIndexOf", [List(l), x]) => {
            let pos = if f == "indexOf" {
                l.iter().position(|v| v.equals(x))
            } else {
                l.iter().rposition(|v| v.equals(x))
            };
            Ok(Int(pos.map(|i| i as i64).unwrap_or(-1)))
        }
        ("lowerAscii", [String(s)]) => Ok(Val::str(&s.to_ascii_lowercase())),
        ("upperAscii", [String(s)]) => Ok(Val::str(&s.to_ascii_uppercase())),
        ("trim", [String(s)]) => Ok(Val::str(s.trim())),
        ("replace", [String(s), String(from), String(to), rest @ ..]) => {
            let n = match rest.first() {
                Some(Int(n)) => *n,
                None => -1,
                _ => return Err(no_overload()),
            };
            Ok(Val::str(&if n < 0 {
                s.replace(&**from, to)
            } else {
                s.replacen(&**from, to, n as usize)
            }))
        }
        ("split", [String(s), String(sep), rest @ ..]) => {
            let n = match rest.first() {
                Some(Int(n)) => *n,
                None => -1,
                _ => return Err(no_overload()),
            };
            let parts: Vec<Val> = if n == 0 {
                vec![]
            } else if sep.is_empty() {
                let chars: Vec<char> = s.chars().collect();
                let cut = if n < 0 {
                    chars.len()
                } else {
                    (n as usize).min(chars.len())
                };
                let mut parts: Vec<Val> = Vec::new();
                for (i, c) in chars.iter().enumerate() {
                    if cut > 0 && i + 1 == cut && i + 1 < chars.len() {
                        parts.push(Val::str(
                            &chars[i..].iter().collect::<std::string::String>(),
                        ));
                        break;
                    }
                    parts.push(Val::str(&c.to_string()));
                }
                parts
            } else if n < 0 {
                s.split(&**sep).map(Val::str).collect()
            } else {
                s.splitn(n as usize, &**sep).map(Val::str).collect()
            };
            Ok(List(Arc::new(parts)))
        }
        ("substring", [String(s), Int(b), rest @ ..]) => {
            let chars: Vec<char> = s.chars().collect();
            let e = match rest.first() {
                Some(Int(e)) => *e,
                None => chars.len() as i64,
                _ => return Err(no_overload()),
            };
            if *b < 0 || *b > chars.len() as i64 {
                return Err(err(format!("index out of range: {b}")));
            }
            if e < 0 || e > chars.len() as i64 {
                return Err(err(format!("index out of range: {e}")));
            }
            if *b > e {
                return Err(err(format!(
                    "invalid substring range. start: {b}, end: {e}"
                )));
            }
            Ok(Val::str(
                &chars[*b as usize..e as usize]
                    .iter()
                    .collect::<std::string::String>(),
            ))
        }
        ("join", [List(l), rest @ ..]) => {
            let sep = match rest.first() {
                Some(String(s)) => s.to_string(),
                None => std::string::String::new(),
                _ => return Err(no_overload()),
            };
            let parts: Result<Vec<&str>, _> = l.iter().map(as_str).collect();
            Ok(Val::str(&parts?.join(&sep)))
        }
        ("strings.quote", [String(s)]) => Ok(Val::str(&quote(s))),
        ("isSorted", [List(l)]) => {
            if !l.iter().all(is_comparable) {
                return Err(no_overload());
            }
            Ok(Bool(
                l.windows(2)
                    .all(|w| w[0].compare(&w[1]) != Some(Ordering::Greater)),
            ))
        }
        ("sum", [List(l)]) => {
            let zero = match overloads.first().map(std::string::String::as_str) {
                Some("list_uint_sum_uint") => Uint(0),
                Some("list_double_sum_double") => Double(0.0),
                Some("list_duration_sum_duration") => Duration(0),
                _ => Int(0),
            };
            l.iter().try_fold(zero, |acc, x| {
                call_function("_+_", false, &[acc, x.clone()], &[])
            })
        }
        ("min" | "max", [List(l)]) => {
            // The server keeps the current best when a comparison fails.
            let mut best: Option<&Val> = None;
            for x in l.iter() {
                if !is_comparable(x) {
                    return Err(no_overload());
                }
                best = match best {
                    None => Some(x),
                    Some(b) => {
                        let prefer = if f == "min" {
                            Ordering::Greater
                        } else {
                            Ordering::Less
                        };
                        if b.compare(x) == Some(prefer) {
                            Some(x)
                        } else {
                            Some(b)
                        }
                    }
                };
            }
            best.cloned()
                .ok_or_else(|| err(format!("{f} called on empty list")))
        }
        ("slice", [List(l), Int(s), Int(e)]) => {
            if *s < 0 || *e < 0 {
                return Err(err(format!(
                    "cannot slice({s}, {e}), negative indexes not supported"
                )));
            }
            if s > e {
                return Err(err(format!(
                    "cannot slice({s}, {e}), start index must be less than or equal to end index"
                )));
            }
            if *e as usize > l.len() {
                return Err(err(format!(
                    "cannot slice({s}, {e}), list is length {}",
                    l.len()
                )));
            }
            Ok(List(Arc::new(l[*s as usize..*e as usize].to_vec())))
        }
        ("flatten", [List(l), rest @ ..]) => {
            let depth = match rest.first() {
                Some(Int(d)) if *d < 0 => return Err(err("level must be non-negative")),
                Some(Int(d)) => *d,
                None => 1,
                _ => return Err(no_overload()),
            };
            fn flat(l: &[Val], d: i64, out: &mut Vec<Val>) {
                for x in l {
                    match x {
                        Val::List(inner) if d > 0 => flat(inner, d - 1, out),
                        other => out.push(other.clone()),
                    }
                }
            }
            let mut out = Vec::new();
            flat(l, depth, &mut out);
            Ok(List(Arc::new(out)))
        }
        ("sort", [List(l)]) => {
            let mut v = (**l).clone();
            v.sort_by(|x, y| x.compare(y).unwrap_or(Ordering::Equal));
            Ok(List(Arc::new(v)))
        }
        ("@sortByAssociatedKeys", [List(l), List(keys)]) => {
            if l.len() != keys.len() {
                return Err(err(
                    "@sortByAssociatedKeys() expected a list of the same size as the associated keys list",
                ));
            }
            let mut idx: Vec<usize> = (0..l.len()).collect();
            idx.sort_by(|&i, &j| keys[i].compare(&keys[j]).unwrap_or(Ordering::Equal));
            Ok(List(Arc::new(
                idx.into_iter().map(|i| l[i].clone()).collect(),
            )))
        }
        ("reverse", [List(l)]) => Ok(List(Arc::new(l.iter().rev().cloned().collect()))),
        ("distinct", [List(l)]) => {
            let mut out: Vec<Val> = Vec::new();
            for x in l.iter() {
                if !out.iter().any(|y| y.equals(x)) {
                    out.push(x.clone());
                }
            }
            Ok(List(Arc::new(out)))
        }
        ("lists.range", [Int(n)]) => Ok(List(Arc::new((0..(*n).max(0)).map(Int).collect()))),
        ("sets.contains", [List(a), List(b)]) => {
            Ok(Bool(b.iter().all(|x| a.iter().any(|y| y.equals(x)))))
        }
        ("sets.intersects", [List(a), List(b)]) => {
            Ok(Bool(b.iter().any(|x| a.iter().any(|y| y.equals(x)))))
        }
        ("sets.equivalent", [List(a), List(b)]) => Ok(Bool(
            b.iter().all(|x| a.iter().any(|y| y.equals(x)))
                && a.iter().all(|x| b.iter().any(|y| y.equals(x))),
        )),
        ("cel.@mapInsert", [Map(m), k, v]) => {
            if m.iter().any(|(k2, _)| k2.equals(k)) {
                return Err(err(format!(
                    "insert failed: key {} already exists",
                    display(k)
                )));
            }
            let mut out = (**m).clone();
            out.push((k.clone(), v.clone()));
            Ok(Map(Arc::new(out)))
        }
        ("cel.@mapInsert", [Map(m), Map(n)]) => {
            let mut out = (**m).clone();
            for (k, v) in n.iter() {
                if out.iter().any(|(k2, _)| k2.equals(k)) {
                    return Err(err(format!(
                        "insert failed: key {} already exists",
                        display(k)
                    )));
                }
                out.push((k.clone(), v.clone()));
            }
            Ok(Map(Arc::new(out)))
        }
        ("optional.of", [x]) => Ok(Optional(Some(Box::new(x.clone())))),
        ("optional.none", []) => Ok(Optional(None)),
        ("optional.ofNonZeroValue", [x]) => Ok(if is_zero(x) {
            Optional(None)
        } else {
            Optional(Some(Box::new(x.clone())))
        }),
        ("value", [Optional(o)]) => o
            .as_deref()
            .cloned()
            .ok_or_else(|| err("optional.none() dereference")),
        ("hasValue", [Optional(o)]) => Ok(Bool(o.is_some())),
        ("or", [Optional(o), other]) => Ok(if o.is_some() {
            Optional(o.clone())
        } else {
            other.clone()
        }),
        ("orValue", [Optional(o), other]) => {
            Ok(o.as_deref().cloned().unwrap_or_else(|| other.clone()))
        }
        ("first" | "last", [List(l)]) => {
            let x = if f == "first" { l.first() } else { l.last() };
            Ok(Optional(x.cloned().map(Box::new)))
        }
        ("optional.unwrap" | "unwrapOpt", [List(l)]) => Ok(List(Arc::new(
            l.iter()
                .filter_map(|x| match x {
                    Optional(Some(v)) => Some((**v).clone()),
                    _ => None,
                })
                .collect(),
        ))),
        (
            "getFullYear" | "getMonth" | "getDayOfYear" | "getDayOfMonth" | "getDate"
            | "getDayOfWeek" | "getHours" | "getMinutes" | "getSeconds" | "getMilliseconds",
            [Timestamp(s, n), rest @ ..],
        ) => {
            let offset = match rest.first() {
                None => 0,
                Some(String(tz)) => zone_offset(tz, *s)?,
                _ => return Err(no_overload()),
            };
            let local = s + offset;
            let days = local.div_euclid(86_400);
            let secs = local.rem_euclid(86_400);
            let (y, m, d) = gotime::civil_from_days(days);
            Ok(Int(match f {
                "getFullYear" => y,
                "getMonth" => m as i64 - 1,
                "getDayOfYear" => days - gotime::days_from_civil(y, 1, 1),
                "getDayOfMonth" => d as i64 - 1,
                "getDate" => d as i64,
                "getDayOfWeek" => (days + 4).rem_euclid(7),
                "getHours" => secs / 3600,
                "getMinutes" => (secs / 60) % 60,
                "getSeconds" => secs % 60,
                _ => (*n / 1_000_000) as i64,
            }))
        }
        ("getHours", [Duration(n)]) => Ok(Int(n / 3_600_000_000_000)),
        ("getMinutes", [Duration(n)]) => Ok(Int(n / 60_000_000_000)),
        ("getSeconds", [Duration(n)]) => Ok(Int(n / 1_000_000_000)),
        ("getMilliseconds", [Duration(n)]) => Ok(Int(n / 1_000_000)),
        _ => {
            let _ = (member, arg(0));
            super::library::call(f, a).unwrap_or_else(|| Err(no_overload()))
        }
    }
}

/// Values implementing cel-go's `traits.Comparer`.
fn is_comparable(v: &Val) -> bool {
    matches!(
        v,
        Val::Bool(_)
            | Val::Bytes(_)
            | Val::Double(_)
            | Val::Duration(_)
            | Val::Int(_)
            | Val::String(_)
            | Val::Timestamp(..)
            | Val::Uint(_)
    )
}

fn is_zero(v: &Val) -> bool {
    match v {
        Val::Null => true,
        Val::Bool(b) => !b,
        Val::Int(i) => *i == 0,
        Val::Uint(u) => *u == 0,
        Val::Double(d) => *d == 0.0,
        Val::String(s) => s.is_empty(),
        Val::Bytes(b) => b.is_empty(),
        Val::List(l) => l.is_empty(),
        Val::Map(m) => m.is_empty(),
        Val::Duration(n) => *n == 0,
        Val::Timestamp(s, n) => *s == 0 && *n == 0,
        _ => false,
    }
}

/// cel-go's `timeZone`: a name without `:` is an IANA location (`time.LoadLocation`),
/// otherwise `[+-]hh:mm` read with `strconv.Atoi`.
fn zone_offset(tz: &str, unix: i64) -> Result<i64, EvalError> {
    let Some(colon) = tz.find(':') else {
        return super::library::tz::offset(tz, unix).map_err(err);
    };
    let atoi = |s: &str| -> Result<i64, EvalError> {
        let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(err(format!(
                "strconv.Atoi: parsing {}: invalid syntax",
                crate::diag::gofmt::quote(s)
            )));
        }
        s.parse::<i64>().map_err(|_| {
            err(format!(
                "strconv.Atoi: parsing {}: value out of range",
                crate::diag::gofmt::quote(s)
            ))
        })
    };
    let hr = atoi(&tz[..colon])?;
    let min = atoi(&tz[colon + 1..])?;
    let offset = if tz.starts_with('-') {
        hr * 60 - min
    } else {
        hr * 60 + min
    };
    Ok(offset.saturating_mul(60))
}

/// A value converted to `string` (cel-go `ConvertToType(StringType)`).
pub fn to_string(x: &Val) -> Result<String, EvalError> {
    use Val::*;
    Ok(match x {
        String(s) => s.to_string(),
        Int(i) => i.to_string(),
        Uint(u) => u.to_string(),
        Bool(b) => b.to_string(),
        Double(d) => format_double(*d),
        Bytes(b) => std::str::from_utf8(b)
            .map(str::to_string)
            .map_err(|_| err("invalid UTF-8 in bytes, cannot convert to string"))?,
        Timestamp(s, n) => gotime::format_rfc3339(gotime::Timestamp {
            seconds: *s,
            nanos: *n,
        }),
        Duration(n) => {
            // Go: strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s".
            let secs = (*n / 1_000_000_000) as f64 + (*n % 1_000_000_000) as f64 / 1e9;
            format!("{secs}s")
        }
        Type(t) => t.clone(),
        Ip(a) => a.to_string(),
        Cidr(p) => p.to_string(),
        _ => return Err(no_overload()),
    })
}

/// Go's `fmt.Sprintf("%g", d)`: shortest digits; exponent form when the decimal
/// exponent is below -4 or at least 6 (strconv's rule for the shortest precision).
fn format_double(d: f64) -> String {
    if d.is_infinite() {
        return if d > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if d.is_nan() {
        return "NaN".into();
    }
    if d == 0.0 {
        return if d.is_sign_negative() {
            "-0".into()
        } else {
            "0".into()
        };
    }
    let e = format!("{d:e}");
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}e{sign}{:02}", exp.unsigned_abs())
    } else {
        format!("{d}")
    }
}

fn quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
