//! crdlint's CEL interpreter over the checked AST.
//!
//! Why our own rather than the `cel` crate's evaluator: evaluation there cannot be
//! interrupted (a nested `all` over millions of items runs for seconds), it has no
//! runtime cost tracking (the server's per-call limit must fail the same rules), it
//! lacks the Kubernetes libraries, two-variable comprehensions and several extension
//! functions, and its error texts are not cel-go's. Walking our own checked AST keeps
//! one tree for checking, cost estimation and evaluation, and reports cel-go's runtime
//! errors (`no such key: x`, `division by zero`, `integer overflow`, …).
//!
//! Cost: the interpreter counts exactly what cel-go's cost observer counts
//! (`interpreter/runtimecost.go` with the server's program options), so the cost of an
//! evaluation is the server's `ActualCost` and the per-call limit stops the same
//! evaluations at the same point ([`PER_CALL_LIMIT`]). That count follows cel-go's
//! *plan*, not the syntax: a variable or a field chain (`self.a.b`) is one attribute
//! costing 1 plus 1 per qualifier applied (an optional qualifier only when present); an
//! attribute used as an index, a conditional's branch or inside `has()` does not pay
//! its own 1; `has()` itself and `?:`, `&&`, `||`, `or`, `orValue` cost nothing; lists
//! and maps of constants, type conversions of constants and `x in []` are folded to
//! constants (free); `x in [constants]` is a free set lookup; other lists cost 10 and
//! maps 30; every other call costs [`runtime::call_cost`] (with the Kubernetes
//! library's and the `ext` libraries' trackers), including calls whose arguments
//! failed. Errors are values as in cel-go: a comprehension keeps folding after a
//! failing step, and both arguments of a binary call are evaluated; a call with more
//! arguments stops at the first that fails, and is charged only when that is the last
//! (cel-go's cost observer needs every argument's value).
//!
//! Functions not implemented yet return [`EvalError::Unsupported`]; callers report
//! those rules as not evaluated instead of guessing a verdict.

use std::cmp::Ordering;
use std::sync::Arc;

use super::ast::{Expr, ExprKind, Literal};
use super::checker::{CheckedAst, Reference};
use super::cost::runtime;
use super::gotime;
use super::value::{DataKind, Val};

mod accumulator;
mod equality;
pub(crate) use equality::element_equality_fails;
use equality::*;

pub use super::cost::runtime::PER_CALL_LIMIT;

#[derive(Clone, Debug, PartialEq)]
pub enum EvalError {
    /// A CEL runtime error with cel-go's text.
    Message(String),
    /// `operation cancelled: actual cost limit exceeded`.
    CostLimit,
    /// A function crdlint cannot evaluate yet.
    Unsupported(String),
    /// Something crdlint cannot evaluate on this machine (what it needs is missing).
    Unavailable(String),
    /// A Go panic the server recovers as `internal error: …`: it ends the evaluation
    /// (no `||` or `&&` absorbs it).
    Internal(String),
    /// crdlint's own bound on work the cost does not count ([`super::work`]).
    WorkLimit,
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::Message(m) | EvalError::Internal(m) => f.write_str(m),
            EvalError::CostLimit => f.write_str(runtime::COST_LIMIT_EXCEEDED),
            EvalError::Unsupported(m) => write!(f, "crdlint cannot evaluate {m} yet"),
            EvalError::Unavailable(m) => write!(f, "crdlint cannot evaluate {m}"),
            EvalError::WorkLimit => write!(
                f,
                "crdlint stopped evaluating the object's rules after {} units of work their CEL cost does not count (values copied, characters read, elements compared): a limit of crdlint's own, see docs/limits.md",
                super::work::LIMIT
            ),
        }
    }
}

type R = Result<Val, EvalError>;

/// A Go regular expression for `matches`, `find` and `findAll`; Go's compile error
/// becomes the runtime error (after `prefix`, as the Kubernetes library words it).
fn go_regex(pattern: &str, prefix: &str) -> Result<std::sync::Arc<regex::Regex>, EvalError> {
    use crate::schema::regex::{RegexError, compile_go};
    compile_go(pattern).map_err(|e| match e {
        RegexError::Invalid(text) => err(format!("{prefix}{text}")),
        RegexError::TooLargeToMatch => EvalError::Unsupported(format!(
            "a regular expression this large (over {} MiB compiled; see --max-regex-size)",
            crate::schema::regex::match_size_limit_mib()
        )),
    })
}

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
        take_slot: None,
        map_index: accumulator::MapIndex::default(),
    };
    let r = super::lookup::evaluating(|| it.eval(&checked.ast.expr, 0));
    (r, it.cost)
}

struct Interp<'a> {
    checked: &'a CheckedAst,
    cost: u64,
    limit: u64,
    scope: Vec<(String, Val)>,
    /// The scope slot of the accumulator a fold's step may take rather than copy
    /// (see [`accumulator`]).
    take_slot: Option<usize>,
    map_index: accumulator::MapIndex,
}

/// Whether an error ends the whole evaluation (the cost limit, or something crdlint
/// cannot evaluate) rather than being a CEL error value that evaluation carries on with.
fn fatal(e: &EvalError) -> bool {
    !matches!(e, EvalError::Message(_))
}

/// A CEL error as the value cost functions see (it has no size: 1).
fn error_val(e: &EvalError) -> Val {
    Val::Error(Arc::from(e.to_string().as_str()))
}

/// The cel-go type conversion functions, folded to constants when their argument is one.
pub(crate) fn is_type_conversion(f: &str) -> bool {
    matches!(
        f,
        "bool"
            | "bytes"
            | "double"
            | "duration"
            | "dyn"
            | "int"
            | "string"
            | "timestamp"
            | "type"
            | "uint"
    )
}

/// Values cel-go's set-membership optimization accepts (`types.IsPrimitiveType`
/// without bytes).
fn is_set_element(v: &Val) -> bool {
    matches!(
        v,
        Val::Bool(_) | Val::Double(_) | Val::Int(_) | Val::String(_) | Val::Uint(_)
    )
}

impl<'a> Interp<'a> {
    /// Adds a cost where cel-go's cost observer does, and stops past the limit.
    fn charge(&mut self, n: u64) -> Result<(), EvalError> {
        self.cost = self.cost.saturating_add(n);
        self.check_limit()
    }

    fn check_limit(&self) -> Result<(), EvalError> {
        if self.cost > self.limit {
            Err(EvalError::CostLimit)
        } else {
            Ok(())
        }
    }

    fn lookup(&mut self, name: &str) -> Option<Val> {
        let i = self.scope.iter().rposition(|(n, _)| n == name)?;
        if self.take_slot == Some(i) {
            // The step reads its accumulator once: hand it over, so that `+` can grow
            // it in place. The fold stores the step's value back.
            self.take_slot = None;
            return Some(std::mem::replace(&mut self.scope[i].1, Val::Null));
        }
        Some(self.scope[i].1.clone())
    }

    /// The single overload the checker resolved (the planner's overload id), else "".
    fn overload(&self, e: &Expr) -> &'a str {
        match self.checked.refs.get(&e.id) {
            Some(Reference::Function { overload_ids, .. }) if overload_ids.len() == 1 => {
                &overload_ids[0]
            }
            _ => "",
        }
    }

    fn is_type_ident(&self, e: &Expr) -> bool {
        matches!(
            self.checked.types.get(&e.id),
            Some(super::types::Type::Type(Some(_)))
        )
    }

    /// Whether cel-go plans `e` as a constant (literals, type names, and what its
    /// optimizer folds: lists and maps of constants, type conversions of constants,
    /// `x in []`).
    fn is_const(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Literal(_) => true,
            ExprKind::Ident(_) => self.is_type_ident(e),
            ExprKind::List { elements, .. } => elements.iter().all(|x| self.is_const(x)),
            ExprKind::Map { entries } => entries
                .iter()
                .all(|en| self.is_const(&en.key) && self.is_const(&en.value)),
            ExprKind::Call {
                function,
                target: None,
                args,
            } => match (function.as_str(), args.as_slice()) {
                (f, [a]) if is_type_conversion(f) => self.is_const(a),
                ("@in", [_, list]) => {
                    self.overload(e) == "in_list"
                        && matches!(&list.kind, ExprKind::List { elements, .. } if elements.is_empty())
                }
                _ => false,
            },
            _ => false,
        }
    }

    /// Evaluates a constant without cost (cel-go computes it when planning).
    fn eval_const(&mut self, e: &Expr, depth: usize) -> R {
        let saved = (self.cost, self.limit);
        self.limit = u64::MAX;
        let r = self.eval(e, depth);
        (self.cost, self.limit) = saved;
        r
    }

    /// Whether cel-go plans `e` as an attribute: a variable, a field selection, an
    /// index, an optional selection or index, or a conditional.
    fn is_attribute(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(_) => !self.is_type_ident(e),
            ExprKind::Select { .. } => true,
            ExprKind::Call {
                function, target, ..
            } => {
                target.is_none() && matches!(function.as_str(), "_[_]" | "_[?_]" | "_?._" | "_?_:_")
            }
            _ => false,
        }
    }

    /// The cost cel-go's observer adds for an attribute once it is resolved: 1, except
    /// for chains rooted in a conditional (nothing).
    fn attribute_cost(e: &Expr) -> u64 {
        match &e.kind {
            ExprKind::Select { operand, .. } => Self::attribute_cost(operand),
            ExprKind::Call { function, args, .. } => match function.as_str() {
                "_?_:_" => 0,
                "_[_]" | "_[?_]" | "_?._" => args.first().map_or(1, Self::attribute_cost),
                _ => 1,
            },
            _ => 1,
        }
    }

    fn eval(&mut self, e: &Expr, depth: usize) -> R {
        if depth > 2000 {
            return Err(err("expression too deeply nested"));
        }
        if let ExprKind::Select {
            operand,
            field,
            test_only: true,
        } = &e.kind
        {
            return self.presence_test(operand, field, depth);
        }
        if self.is_attribute(e) {
            let r = self.resolve(e, depth);
            if matches!(&r, Err(x) if fatal(x)) {
                return r;
            }
            self.charge(Self::attribute_cost(e))?;
            return r;
        }
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
            ExprKind::Ident(_) => match self.checked.types.get(&e.id) {
                Some(super::types::Type::Type(Some(t))) => Ok(Val::Type(t.type_name().to_string())),
                _ => Err(no_overload()),
            },
            ExprKind::Select { .. } => Err(no_overload()),
            ExprKind::Call {
                function,
                target,
                args,
            } => self.call(e, function, target.as_deref(), args, depth),
            ExprKind::List {
                elements,
                optional_indices,
            } => {
                if self.is_const(e) {
                    return self.list(elements, optional_indices, depth);
                }
                let r = self.list(elements, optional_indices, depth);
                if matches!(&r, Err(x) if fatal(x)) {
                    return r;
                }
                self.charge(runtime::node_cost(runtime::NodeKind::List))?;
                r
            }
            ExprKind::Map { entries } => {
                if self.is_const(e) {
                    return self.map(entries, depth);
                }
                let r = self.map(entries, depth);
                if matches!(&r, Err(x) if fatal(x)) {
                    return r;
                }
                self.charge(runtime::node_cost(runtime::NodeKind::Map))?;
                r
            }
            ExprKind::Struct { type_name, .. } => Err(EvalError::Unsupported(format!(
                "object construction of {type_name}"
            ))),
            ExprKind::Comprehension(c) => self.fold(c, depth),
        }
    }

    fn list(&mut self, elements: &[Expr], optional_indices: &[usize], depth: usize) -> R {
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

    fn map(&mut self, entries: &[super::ast::MapEntry], depth: usize) -> R {
        let mut out: Vec<(Val, Val)> = Vec::with_capacity(entries.len());
        // The keys so far by hash: a repeated key is looked for among those of its
        // bucket (and the unhashed ones) only. Comparing each key with every earlier
        // one was quadratic: a literal of 32,000 entries took 2.19 s (8,000: 0.23 s).
        let mut keys = super::lookup::Positions::default();
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
            let b = super::lookup::bucket(&k);
            if keys.first(b, |i| out[i].0.equals(&k)).is_some() {
                return Err(err(format!("Failed with repeated key: {}", display(&k))));
            }
            keys.push(b);
            out.push((k, v));
        }
        Ok(Val::Map(Arc::new(out)))
    }

    /// A comprehension as cel-go folds it: the range, then per element the loop
    /// condition (a `false` ends the loop; errors do not) and the step (whose value,
    /// error or not, becomes the accumulator), then the result. The fold itself costs
    /// nothing.
    fn fold(&mut self, c: &super::ast::Comprehension, depth: usize) -> R {
        // Each fold indexes the map it builds; the enclosing fold's index waits.
        let outer_index = std::mem::take(&mut self.map_index);
        let r = self.fold_in_own_index(c, depth);
        self.map_index = outer_index;
        r
    }

    fn fold_in_own_index(&mut self, c: &super::ast::Comprehension, depth: usize) -> R {
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
            Val::Map(m) => super::value::iterated_entries(m).collect(),
            other => return Err(not_iterable(other, c.iter_var2.is_some())),
        };
        let accu = match self.eval(&c.accu_init, depth + 1) {
            Ok(v) => v,
            Err(e) if fatal(&e) => return Err(e),
            Err(e) => error_val(&e),
        };
        let base = self.scope.len();
        self.scope.push((c.accu_var.clone(), accu));
        let two = c.iter_var2.is_some();
        let is_list = matches!(range, Val::List(_));
        let step_takes_accumulator = accumulator::reads(&c.loop_step, &c.accu_var) <= 1;
        for (k, v) in items {
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
            match self.eval(&c.loop_condition, depth + 1) {
                Ok(Val::Bool(false)) => {
                    self.scope.truncate(len);
                    break;
                }
                Err(e) if fatal(&e) => {
                    self.scope.truncate(base);
                    return Err(e);
                }
                _ => {}
            }
            let outer_take = self.take_slot;
            self.take_slot = step_takes_accumulator.then_some(base);
            let step = self.eval(&c.loop_step, depth + 1);
            self.take_slot = outer_take;
            self.scope.truncate(len);
            let accu = match step {
                Ok(v) => v,
                Err(e) if fatal(&e) => {
                    self.scope.truncate(base);
                    return Err(e);
                }
                Err(e) => error_val(&e),
            };
            if let Some(slot) = self.scope.get_mut(base) {
                slot.1 = accu;
            }
        }
        let r = self.eval(&c.result, depth + 1);
        self.scope.truncate(base);
        r
    }

    /// Resolves an attribute without the cost of the attribute itself (what cel-go's
    /// `Resolve` does): a variable, then each qualifier, each costing 1 where the
    /// observer sees it (always, or for optional qualification only when present).
    fn resolve(&mut self, e: &Expr, depth: usize) -> R {
        if depth > 2000 {
            return Err(err("expression too deeply nested"));
        }
        match &e.kind {
            ExprKind::Ident(name) => match self.lookup(name) {
                Some(Val::Error(m)) => Err(err(m.to_string())),
                Some(v) => Ok(v),
                None => Err(err(format!("no such attribute: {name}"))),
            },
            ExprKind::Select {
                operand,
                field,
                test_only: false,
            } => {
                let v = self.operand(operand, depth)?;
                self.qualify(v, &Val::str(field), false, true)
            }
            ExprKind::Call { function, args, .. } => match (function.as_str(), args.as_slice()) {
                ("_?_:_", [c, t, f]) => {
                    let cond = self.eval(c, depth + 1)?;
                    let branch = match cond {
                        Val::Bool(true) => t,
                        Val::Bool(false) => f,
                        _ => return Err(no_overload()),
                    };
                    self.operand(branch, depth)
                }
                ("_?._", [o, key]) => {
                    let v = self.operand(o, depth)?;
                    let key = self.eval_const(key, depth + 1)?;
                    self.qualify(v, &key, true, true)
                }
                (f @ ("_[_]" | "_[?_]"), [o, key]) => {
                    let optional = f == "_[?_]";
                    let v = self.operand(o, depth)?;
                    let k = if self.is_const(key) {
                        self.eval_const(key, depth + 1)
                    } else {
                        self.operand(key, depth)
                    };
                    match k {
                        Ok(k) => self.qualify(v, &k, optional, false),
                        Err(x) if fatal(&x) => Err(x),
                        Err(x) => {
                            // The qualifier is observed with its error unless optional.
                            if !(optional || matches!(v, Val::Optional(_))) {
                                self.charge(1)?;
                            }
                            Err(x)
                        }
                    }
                }
                _ => self.eval(e, depth + 1),
            },
            _ => self.eval(e, depth + 1),
        }
    }

    /// The operand of a qualifier or a conditional's branch: an attribute is resolved
    /// without its own cost; anything else is evaluated.
    fn operand(&mut self, e: &Expr, depth: usize) -> R {
        if self.is_attribute(e) {
            self.resolve(e, depth + 1)
        } else {
            self.eval(e, depth + 1)
        }
    }

    /// Applies one qualifier (a field name or an index) to `v`.
    fn qualify(&mut self, v: Val, key: &Val, optional: bool, field: bool) -> R {
        let (inner, optional) = match v {
            Val::Optional(None) => return Ok(Val::Optional(None)),
            Val::Optional(Some(x)) => (*x, true),
            other => (other, optional),
        };
        let r = match (field, key) {
            (true, Val::String(f)) => select(&inner, f, false, optional),
            _ => index(&inner, key, optional),
        };
        if !optional || matches!(r, Ok(Val::Optional(Some(_)))) {
            self.charge(1)?;
        }
        r
    }

    /// `has(operand.field)`: the operand resolved without its own cost, the presence
    /// qualifier (1), and the attribute (1, minus 1 as presence tests are free).
    fn presence_test(&mut self, operand: &Expr, field: &str, depth: usize) -> R {
        let r = self.operand(operand, depth).and_then(|v| {
            self.charge(1)?;
            select(&v, field, true, false)
        });
        if matches!(&r, Err(x) if fatal(x)) {
            return r;
        }
        self.cost = self
            .cost
            .wrapping_add(Self::attribute_cost(operand))
            .wrapping_sub(1);
        self.check_limit()?;
        r
    }

    fn call(
        &mut self,
        e: &Expr,
        function: &str,
        target: Option<&Expr>,
        args: &[Expr],
        depth: usize,
    ) -> R {
        // Operators and functions cel-go plans specially; they cost nothing themselves.
        match function {
            "_&&_" | "_||_" => {
                let short = function == "_||_";
                let a = self.eval(&args[0], depth + 1);
                match &a {
                    Ok(Val::Bool(b)) if *b == short => return Ok(Val::Bool(short)),
                    Err(x) if fatal(x) => return a,
                    _ => {}
                }
                let b = self.eval(&args[1], depth + 1);
                match &b {
                    Ok(Val::Bool(x)) if *x == short => return Ok(Val::Bool(short)),
                    Err(x) if fatal(x) => return b,
                    _ => {}
                }
                return match (a, b) {
                    (Ok(Val::Bool(_)), Ok(Val::Bool(_))) => Ok(Val::Bool(!short)),
                    (Err(e), _) | (_, Err(e)) => Err(e),
                    _ => Err(no_overload()),
                };
            }
            "orValue" | "or"
                if target.is_some()
                    && args.len() == 1
                    && matches!(
                        self.overload(e),
                        "" | "optional_orValue_value" | "optional_or_optional"
                    ) =>
            {
                let lhs = self.eval(target.unwrap_or(&args[0]), depth + 1)?;
                return match lhs {
                    Val::Optional(Some(v)) if function == "orValue" => Ok(*v),
                    Val::Optional(Some(v)) => Ok(Val::Optional(Some(v))),
                    Val::Optional(None) => self.eval(&args[0], depth + 1),
                    other => Ok(other),
                };
            }
            _ => {}
        }
        if self.is_const(e) {
            return self.const_call(function, target, args, depth);
        }
        // `x in [constants]`: a set lookup that costs nothing itself.
        if function == "@in"
            && self.overload(e) == "in_list"
            && let [lhs, list] = args
            && self.is_const(list)
        {
            let set = self.eval_const(list, depth + 1)?;
            if set
                .list_items()
                .is_some_and(|l| l.iter().all(is_set_element))
            {
                let v = self.eval(lhs, depth + 1)?;
                if matches!(v, Val::Bytes(_)) {
                    // The planner's set is a Go map keyed by CEL values, and bytes
                    // are a slice.
                    return Err(EvalError::Internal(
                        "internal error: runtime error: hash of unhashable type types.Bytes".into(),
                    ));
                }
                return contains(&set, &v);
            }
        }
        let overload: &str = match function {
            "_==_" => "equals",
            "_!=_" => "not_equals",
            _ => self.overload(e),
        };
        let exprs: Vec<&Expr> = target.into_iter().chain(args).collect();
        // cel-go evaluates every argument of unary and binary calls; calls with more
        // arguments stop at the first error, and its cost observer charges such a call
        // only when it finds every argument's value (`dropArgs`): when the error is the
        // last argument. Regex calls on a constant pattern stop without a cost.
        let regex_const = matches!(function, "matches" | "find" | "findAll")
            && exprs.get(1).is_some_and(|x| self.is_const(x));
        // `format` is bound as a variadic function (cel-go's `FunctionBinding`), which
        // the planner plans as a call with more arguments whatever its count.
        let varargs = exprs.len() > 2 || overload == "string_format";
        let last = exprs.len().saturating_sub(1);
        let mut vals = Vec::with_capacity(exprs.len());
        let mut first_err: Option<EvalError> = None;
        for (i, a) in exprs.into_iter().enumerate() {
            match self.eval(a, depth + 1) {
                Ok(v) => vals.push(v),
                Err(x) if fatal(&x) => return Err(x),
                Err(x) if regex_const || (varargs && i < last) => return Err(x),
                Err(x) => {
                    vals.push(error_val(&x));
                    first_err.get_or_insert(x);
                }
            }
        }
        // What equality compares from here on is this call's.
        super::work::take_compared();
        let result = match (&first_err, function) {
            // A fold's list or map growing by one step: in place when it can.
            (None, "_+_") => accumulator::append(&mut vals).map(Ok),
            (None, "cel.@mapInsert") => self.map_index.insert(&mut vals).map(|r| {
                r.map_err(|k| err(format!("insert failed: key {} already exists", display(&k))))
            }),
            _ => None,
        };
        let result = match (result, first_err) {
            (Some(r), _) => r,
            (None, first_err) => match first_err {
                Some(x) => Err(x),
                None if function == "@not_strictly_false" => Ok(match vals.first() {
                    Some(Val::Bool(b)) => Val::Bool(*b),
                    _ => Val::Bool(true),
                }),
                // `lists.range(n)` builds n elements and then costs more than n: when that
                // passes the limit, stop as the check after the call would, before
                // allocating (a huge n would exhaust memory).
                None if function == "lists.range"
                    && matches!(vals.first(), Some(Val::Int(n))
                    if self.cost.saturating_add((*n).max(0) as u64) > self.limit) =>
                {
                    // Charged as cel-go charges it after building the list, so a
                    // stopped rule reports what the server reports.
                    let n = match vals.first() {
                        Some(Val::Int(n)) => *n,
                        _ => 0,
                    };
                    self.charge(runtime::lists_range_cost(n.max(0) as u64))?;
                    return Err(EvalError::CostLimit);
                }
                // Calls whose cost is the product of their lists' sizes, which cel-go
                // computes after comparing every pair: when that passes the limit, stop
                // as the check after the call would, before the comparisons (`distinct`
                // of 500,000 items would take minutes).
                None if matches!(
                    overload,
                    "list_distinct"
                        | "list_sets_contains_list"
                        | "list_sets_intersects_list"
                        | "list_sets_equivalent_list"
                ) && {
                    let refs: Vec<&Val> = vals.iter().collect();
                    let cost = runtime::call_cost(function, overload, &refs, &Val::Null);
                    self.cost.saturating_add(cost) > self.limit
                } =>
                {
                    // Charged as cel-go charges it (from the arguments' sizes alone).
                    let refs: Vec<&Val> = vals.iter().collect();
                    self.charge(runtime::call_cost(function, overload, &refs, &Val::Null))?;
                    return Err(EvalError::CostLimit);
                }
                None => self.apply(function, target.is_some(), &vals, e),
            },
        };
        let result = match result {
            Err(x) if fatal(&x) => return Err(x),
            other => other,
        };
        // `@not_strictly_false` is non-strict: an error argument is `true`.
        let result = if function == "@not_strictly_false" {
            Ok(result.unwrap_or(Val::Bool(true)))
        } else {
            result
        };
        let rv = match &result {
            Ok(v) => v.clone(),
            Err(x) => error_val(x),
        };
        if let Some(panic) = cost_tracker_panic(overload, &vals) {
            return Err(EvalError::Internal(panic));
        }
        let refs: Vec<&Val> = vals.iter().collect();
        let cost = runtime::call_cost(function, overload, &refs, &rv);
        self.charge(cost)?;
        // Reading a string costs a tenth of its length where cel-go charges for it;
        // what it does not charge (`size`, conversions, parsing, hashing a key) is
        // counted as work; so are the elements equality compared below what the
        // operands' sizes charged (objects' contents).
        let read: usize = vals
            .iter()
            .map(|v| match v {
                Val::String(s) => s.len(),
                Val::Bytes(b) => b.len(),
                _ => 0,
            })
            .sum::<usize>()
            .saturating_add(super::work::take_compared());
        super::work::charge(
            read.saturating_sub(usize::try_from(cost.saturating_mul(10)).unwrap_or(usize::MAX)),
        );
        if super::work::exceeded() {
            return Err(EvalError::WorkLimit);
        }
        result
    }

    /// A call cel-go folds into a constant when planning.
    fn const_call(
        &mut self,
        function: &str,
        target: Option<&Expr>,
        args: &[Expr],
        depth: usize,
    ) -> R {
        if function == "@in" {
            return Ok(Val::Bool(false));
        }
        let mut vals = Vec::new();
        for a in target.into_iter().chain(args) {
            vals.push(self.eval_const(a, depth + 1)?);
        }
        call_function(function, target.is_some(), &vals, &[])
    }

    /// Calls a function on evaluated arguments.
    fn apply(&mut self, function: &str, member: bool, vals: &[Val], e: &Expr) -> R {
        let overloads: &[String] = match self.checked.refs.get(&e.id) {
            Some(Reference::Function { overload_ids, .. }) => overload_ids,
            _ => &[],
        };
        if let Some(Val::Error(m)) = vals.iter().find(|v| matches!(v, Val::Error(_))) {
            return Err(err(m.to_string()));
        }
        // Set and map lists keep their semantics where they can show (equality,
        // `+`, and values passed through unchanged); elsewhere they are plain lists.
        let keep = matches!(
            function,
            "_==_"
                | "_!=_"
                | "_+_"
                | "@in"
                | "dyn"
                | "optional.of"
                | "optional.ofNonZeroValue"
                | "or"
                | "orValue"
                | "value"
        );
        let converted: Vec<Val>;
        let vals: &[Val] = if keep || !vals.iter().any(Val::has_plain_form) {
            vals
        } else {
            converted = vals.iter().cloned().map(Val::plain).collect();
            &converted
        };
        if matches!(function, "_==_" | "_!=_")
            && let [x, y] = vals
        {
            // cel-go's `!=` is "not `Equal` answering true": an error is `true`.
            let ne = function == "_!=_";
            if equality_error(x, y) {
                return if ne {
                    Ok(Val::Bool(true))
                } else {
                    Err(no_overload())
                };
            }
            // Invalid data can only make values unequal: look for it only then, so an
            // unchanged `self == oldSelf` walks its values once. Set lists of
            // non-scalars are the exception: the server's comparison panics.
            let equal = x.equals(y);
            if !equal || holds_unhashable_set_element(x) {
                match equality_fault(x, y) {
                    Some(EqualityFault::InvalidData(_) | EqualityFault::NoOverload) if ne => {
                        return Ok(Val::Bool(true));
                    }
                    Some(EqualityFault::InvalidData(m)) => return Err(err(m.to_string())),
                    Some(EqualityFault::NoOverload) => return Err(no_overload()),
                    Some(EqualityFault::Unhashable(go_type)) => {
                        return Err(unhashable_panic(go_type));
                    }
                    None => {}
                }
            }
            return Ok(Val::Bool(equal == (function == "_==_")));
        }
        if function == "_+_"
            && let [Val::SetList(a, _), b] = vals
            && let Some(b) = b.list_items()
            && let Some(go_type) = a
                .iter()
                .find_map(unhashable_go_type)
                .or_else(|| b.iter().find_map(unhashable_value_type))
        {
            // The union hashes the left list's raw elements, then the Go values of
            // the right one's.
            return Err(unhashable_panic(go_type));
        }
        call_function(function, member, vals, overloads)
    }
}

impl runtime::CostValue for Val {
    fn int_value(&self) -> Option<i64> {
        match self {
            Val::Int(i) => Some(*i),
            _ => None,
        }
    }

    fn sizer(&self) -> Option<u64> {
        match self {
            Val::String(s) => Some(s.chars().count() as u64),
            Val::Bytes(b) => Some(b.len() as u64),
            Val::List(l)
            | Val::Joined(l, _)
            | Val::DataList(l, _)
            | Val::SetList(l, _)
            | Val::MapList(l, _) => Some(l.len() as u64),
            Val::Map(m) | Val::DataMap(m, _) => Some(m.len() as u64),
            // The apiserver's IP and CIDR types are sizers: the address's bytes, and the
            // prefix's bits in bytes (so `!=` and `containsIP` cost by them).
            Val::Ip(a) => Some(a.bytes.len() as u64),
            Val::Cidr(p) => Some(u64::from(p.bits).div_ceil(8)),
            _ => None,
        }
    }

    fn optional_value(&self) -> Option<&Self> {
        match self {
            Val::Optional(Some(v)) => Some(v),
            _ => None,
        }
    }

    fn is_string_or_bytes(&self) -> bool {
        matches!(self, Val::String(_) | Val::Bytes(_))
    }

    fn first_element(&self) -> Option<&Self> {
        self.list_items().and_then(|l| l.first())
    }

    fn traversal_cost(&self) -> u64 {
        match self {
            Val::String(s) => (s.len() as f64 * 0.1) as u64,
            Val::Bytes(b) => (b.len() as f64 * 0.1) as u64,
            Val::List(l)
            | Val::Joined(l, _)
            | Val::DataList(l, _)
            | Val::SetList(l, _)
            | Val::MapList(l, _) => l
                .iter()
                .fold(0u64, |a, x| a.saturating_add(x.traversal_cost())),
            Val::Map(m) | Val::DataMap(m, _) => {
                super::value::iterated_entries(m).fold(0u64, |a, (k, v)| {
                    a.saturating_add(k.traversal_cost())
                        .saturating_add(v.traversal_cost())
                })
            }
            _ => 1,
        }
    }

    fn is_unit_equality_type(&self) -> bool {
        matches!(
            self,
            Val::Quantity(_)
                | Val::Url(_)
                | Val::Ip(_)
                | Val::Cidr(_)
                | Val::Semver(_)
                | Val::Format(_)
        )
    }

    fn format_max_regex_size(&self) -> Option<u64> {
        let Val::Format(f) = self else {
            return None;
        };
        // apiserver `library/format.go`: each format's MaxRegexSize.
        Some(match f.name {
            "DNS1123Subdomain" | "QualifiedName" | "DNS1123SubdomainPrefix" => 60,
            "LabelValue" => 40,
            "URI" => 1103,
            "uuid" => 70,
            "byte" => 84,
            "date" | "datetime" => 71,
            _ => 30,
        })
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
        Val::Map(m) | Val::DataMap(m, _) => {
            let found = match v {
                Val::DataMap(_, keys) => keys.find(m, field),
                _ => super::lookup::keys_of(m).find_string(field),
            };
            if test_only {
                // cel-go's presence test on a map calls `Find`, which converts the
                // value: data of another type than the schema's fails `has()` too.
                if let Some((_, Val::Error(m))) = found {
                    return Err(err(m.to_string()));
                }
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
        // `has()` over an optional chain is whether the chain has a value (cel-go's
        // `evalTestOnly` answers `hasValue()` for an optional result).
        Val::Optional(None) if test_only => Ok(Val::Bool(false)),
        Val::Optional(None) => Ok(Val::Optional(None)),
        Val::Optional(Some(inner)) => select(inner, field, test_only, true),
        Val::Error(m) => Err(err(m.to_string())),
        // A dynamic value that turns out to be a scalar has no fields: cel-go's
        // attribute qualifier finds no key (absent for `has` and `.?`).
        v if go_value_type(v).is_some() => {
            if test_only {
                Ok(Val::Bool(false))
            } else if optional {
                Ok(Val::Optional(None))
            } else {
                Err(err(format!("no such key: {field}")))
            }
        }
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

fn ts_result(secs: i64, nanos: u32, offset: i32) -> R {
    if (gotime::MIN_UNIX_SECONDS..=gotime::MAX_UNIX_SECONDS).contains(&secs) {
        Ok(Val::Timestamp(secs, nanos, offset))
    } else {
        Err(err("timestamp overflow"))
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
        // cel-go's lists ask the needle's `Equal` (a set list's set equality), and
        // count one that fails as not found.
        Val::List(l) => Ok(Val::Bool(l.iter().any(|x| needle.equals(x)))),
        // cel-go's joined lists ask each part in turn: the first that finds the value
        // answers true, else the first that failed answers its error.
        Val::Joined(_, parts) => {
            let mut failed = None;
            for part in parts.iter() {
                match contains(part, needle) {
                    Ok(Val::Bool(true)) => return Ok(Val::Bool(true)),
                    Err(e) if fatal(&e) => return Err(e),
                    Err(e) => failed = failed.or(Some(e)),
                    Ok(_) => {}
                }
            }
            failed.map_or(Ok(Val::Bool(false)), Err)
        }
        // The server's lists answer the first failed element comparison's error when
        // no element is found (`unstructuredList.Contains`).
        Val::DataList(l, _) | Val::SetList(l, _) | Val::MapList(l, _) => {
            let mut failed = None;
            for x in l.iter() {
                if x.equals(needle) {
                    return Ok(Val::Bool(true));
                }
                if failed.is_none() {
                    failed = match x {
                        Val::Error(m) => Some(err(m.to_string())),
                        _ if data_against_other_kind(x, needle) => Some(no_overload()),
                        _ => match equality_fault(x, needle) {
                            Some(EqualityFault::InvalidData(m)) => Some(err(m.to_string())),
                            Some(EqualityFault::NoOverload) => Some(no_overload()),
                            Some(EqualityFault::Unhashable(t)) => return Err(unhashable_panic(t)),
                            None => None,
                        },
                    };
                }
            }
            failed.map_or(Ok(Val::Bool(false)), Err)
        }
        Val::Map(m) => Ok(Val::Bool(
            super::lookup::keys_of(m).find_equal(needle).is_some(),
        )),
        // The server's maps find a key by converting its value (`Find`): only string
        // keys, and data of another type than the schema's is an error.
        Val::DataMap(m, keys) => {
            let Val::String(name) = needle else {
                return Err(no_overload());
            };
            match keys.find(m, name) {
                Some((_, Val::Error(e))) => Err(err(e.to_string())),
                found => Ok(Val::Bool(found.is_some())),
            }
        }
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
    // cel-go makes a qualifier of the key first; only strings, numbers and bools make
    // one (a constant key fails planning: `plan::first_error`; a computed one, such as
    // the null key an object's unknown field iterates as, fails here).
    if let Val::Null | Val::Bytes(_) | Val::Duration(_) | Val::Timestamp(..) = key {
        let go_type = go_value_type(key).unwrap_or("<nil>");
        return Err(err(format!("invalid qualifier type: {go_type}")));
    }
    match container {
        Val::List(l)
        | Val::Joined(l, _)
        | Val::DataList(l, _)
        | Val::SetList(l, _)
        | Val::MapList(l, _) => {
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
        // The server's maps read from the object take only string keys (`Find`).
        Val::DataMap(m, keys) => {
            let Val::String(name) = key else {
                return Err(no_overload());
            };
            match keys.find(m, name) {
                Some((_, v)) if optional => Ok(Val::Optional(Some(Box::new(v.clone())))),
                Some((_, v)) => Ok(v.clone()),
                None if optional => Ok(Val::Optional(None)),
                None => Err(err(format!("no such key: {name}"))),
            }
        }
        Val::Map(m) => match super::lookup::keys_of(m).find_equal(key) {
            Some((_, v)) if optional => Ok(Val::Optional(Some(Box::new(v.clone())))),
            Some((_, v)) => Ok(v.clone()),
            None if optional => Ok(Val::Optional(None)),
            None => Err(err(format!("no such key: {}", display(key)))),
        },
        Val::Optional(None) => Ok(Val::Optional(None)),
        Val::Optional(Some(inner)) => index_inner(inner, key, true),
        // As for `select`: a scalar has no keys.
        v if go_value_type(v).is_some() && go_value_type(key).is_some() => {
            if optional {
                Ok(Val::Optional(None))
            } else {
                Err(err(format!("no such key: {}", display(key))))
            }
        }
        _ => Err(no_overload()),
    }
}

/// The error of a comprehension over a value that is neither a list nor a map: cel-go
/// names the value's Go type (`types.Int`), in words that differ between one- and
/// two-variable comprehensions.
fn not_iterable(range: &Val, two_vars: bool) -> EvalError {
    let Some(go_type) = go_value_type(range) else {
        return no_overload();
    };
    if two_vars {
        err(format!("unsupported comprehension range type: {go_type}"))
    } else {
        err(format!("got '{go_type}', expected iterable type"))
    }
}

/// The Go type of a cel-go value, as `%T` prints it (the scalar kinds only).
/// cel-go calls the runtime cost tracker of a call even when an argument was an error
/// (the call itself returned that error); ext lists' trackers assert their argument
/// types, so an error there is a Go panic (`self.l.sort()` on a missing `l`).
fn cost_tracker_panic(overload: &str, vals: &[Val]) -> Option<String> {
    let asserted = match overload {
        "list_distinct" => vals.first(),
        "list_flatten_int" => {
            return matches!(vals.get(1), Some(Val::Error(_))).then(|| {
                "internal error: interface conversion: ref.Val is *types.Err, not types.Int"
                    .to_string()
            });
        }
        o if o.starts_with("list_") && o.ends_with("_sortByAssociatedKeys") => vals.get(1),
        o if o.starts_with("list_") && o.ends_with("_sort") => vals.first(),
        _ => None,
    };
    matches!(asserted, Some(Val::Error(_))).then(|| {
        "internal error: interface conversion: *types.Err is not traits.Lister: missing method Add"
            .to_string()
    })
}

fn go_value_type(v: &Val) -> Option<&'static str> {
    Some(match v {
        Val::Null => "types.Null",
        Val::Bool(_) => "types.Bool",
        Val::Int(_) => "types.Int",
        Val::Uint(_) => "types.Uint",
        Val::Double(_) => "types.Double",
        Val::String(_) => "types.String",
        Val::Bytes(_) => "types.Bytes",
        Val::Duration(_) => "types.Duration",
        Val::Timestamp(..) => "types.Timestamp",
        _ => return None,
    })
}

/// Functions whose cel-go implementation checks its arguments itself (standard
/// functions declared without type guards, or planned on a value's traits), so that a
/// call with arguments of the wrong runtime type fails with the bare "no such
/// overload". Every other function is declared with type guards
/// (`decls.OverloadDecl.guardedUnaryOp` and siblings), which name the call:
/// "no such overload: lowerAscii(int)".
const UNGUARDED_FUNCTIONS: &[&str] = &[
    "startsWith",
    "endsWith",
    "contains",
    // With a constant pattern (the usual case) the Kubernetes environment's regex
    // optimisation replaces these by implementations that check their receiver.
    "matches",
    "find",
    "findAll",
];

/// Whether `lhs` has the trait cel-go plans operator `f` on (its type's `HasTrait`);
/// `None` for operators planned without one.
fn operator_trait(f: &str, lhs: &Val) -> Option<bool> {
    use Val::*;
    let arithmetic = matches!(lhs, Int(_) | Uint(_) | Double(_));
    Some(match f {
        "_+_" => {
            arithmetic
                || matches!(lhs, String(_) | Bytes(_) | Duration(_) | Timestamp(..))
                || lhs.list_items().is_some()
        }
        "_-_" => arithmetic || matches!(lhs, Duration(_) | Timestamp(..)),
        "_*_" | "_/_" => arithmetic,
        "_%_" => matches!(lhs, Int(_) | Uint(_)),
        "-_" => matches!(lhs, Int(_) | Double(_) | Duration(_) | Bool(_)),
        "_<_" | "_<=_" | "_>_" | "_>=_" => {
            arithmetic
                || matches!(
                    lhs,
                    Bool(_) | Bytes(_) | String(_) | Duration(_) | Timestamp(..)
                )
        }
        _ => return None,
    })
}

/// What cel-go answers a call of `f` with arguments `a` that no overload takes.
fn no_overload_for(f: &str, a: &[Val]) -> EvalError {
    if f.starts_with('_') || f.starts_with('@') || f.ends_with('_') {
        // Operators: planned on traits, answered by the operand. An operand without
        // the trait that cannot receive calls either gets the operator's name.
        let receives = matches!(
            a.first(),
            Some(Val::String(_) | Val::Duration(_) | Val::Timestamp(..))
        );
        return match a.first().and_then(|lhs| operator_trait(f, lhs)) {
            Some(false) if !receives => err(format!("no such overload: {f}")),
            _ => no_overload(),
        };
    }
    if f == "size" {
        // A singleton planned on the Sizer trait: a value that cannot receive calls
        // (strings, bytes, durations and timestamps can) gets the function's name.
        return match a.first() {
            Some(Val::String(_) | Val::Bytes(_) | Val::Duration(_) | Val::Timestamp(..)) | None => {
                no_overload()
            }
            Some(_) => err("no such overload: size"),
        };
    }
    if UNGUARDED_FUNCTIONS.contains(&f) {
        return no_overload();
    }
    match (f, a) {
        // These pass their guards and fail inside, on an address string that does not
        // parse (see `library::call`).
        ("containsIP" | "containsCIDR", [Val::Cidr(_), Val::String(_)]) => return no_overload(),
        // The list functions that compare or add the elements of a list fail inside,
        // on elements that do not compare or add.
        (
            "sum" | "min" | "max" | "isSorted" | "sort" | "@sortByAssociatedKeys",
            [
                Val::List(_)
                | Val::Joined(..)
                | Val::DataList(..)
                | Val::SetList(..)
                | Val::MapList(..),
                ..,
            ],
        ) => return no_overload(),
        // ext lists' `distinct` has no guard and asserts a list.
        ("distinct", [v]) => {
            if let Some(t) = go_value_type(v) {
                return EvalError::Internal(format!(
                    "internal error: interface conversion: {t} is not traits.Lister: missing method Contains"
                ));
            }
        }
        _ => {}
    }
    let types: Vec<String> = a.iter().map(Val::type_name).collect();
    err(format!("no such overload: {f}({})", types.join(", ")))
}

/// The overload of a list function (`sum`, `min`, …, one per element type) that runs.
/// cel-go's type guards match a list argument by its first element only
/// (`IsAssignableRuntimeType`): with several candidates (a `dyn` receiver) the first
/// candidate whose element type that element has runs, and with none (also for the one
/// overload the checker chose, when the first element is invalid data) the call is
/// "no such overload: sum(list)". An empty list takes the first candidate.
fn dispatched_list_overload<'o>(
    f: &str,
    overloads: &'o [String],
    items: &[Val],
) -> Result<Option<&'o str>, EvalError> {
    let Some(first) = items.first() else {
        return Ok(overloads.first().map(String::as_str));
    };
    let element: &[&str] = match first {
        Val::Int(_) => &["int"],
        Val::Uint(_) => &["uint"],
        Val::Double(_) => &["double"],
        Val::Bool(_) => &["bool"],
        Val::String(_) => &["string"],
        Val::Bytes(_) => &["bytes"],
        Val::Duration(_) => &["duration", "google.protobuf.Duration"],
        Val::Timestamp(..) => &["timestamp", "google.protobuf.Timestamp"],
        _ => &[],
    };
    overloads
        .iter()
        .find(|id| id.split('_').nth(1).is_some_and(|t| element.contains(&t)))
        .map(|id| Some(id.as_str()))
        .ok_or_else(|| err(format!("no such overload: {f}(list)")))
}

fn call_function(f: &str, member: bool, a: &[Val], overloads: &[String]) -> R {
    call_function_typed(f, member, a, overloads).map_err(|e| match e {
        EvalError::Message(m) if m == "no such overload" => no_overload_for(f, a),
        other => other,
    })
}

fn call_function_typed(f: &str, member: bool, a: &[Val], overloads: &[String]) -> R {
    use Val::*;
    let arg = |i: usize| a.get(i).ok_or_else(no_overload);
    if let ("sum" | "min" | "max" | "isSorted", [list]) = (f, a)
        && let Some(items) = list.list_items()
    {
        dispatched_list_overload(f, overloads, items)?;
    }
    match (f, a) {
        ("!_", [Bool(b)]) => Ok(Bool(!b)),
        ("-_", [Int(i)]) => int_result(i.checked_neg()),
        ("-_", [Double(d)]) => Ok(Double(-d)),
        ("_==_", [x, y]) => Ok(Bool(x.equals(y))),
        ("_!=_", [x, y]) => Ok(Bool(!x.equals(y))),
        ("_<_" | "_<=_" | "_>_" | "_>=_", [x, y]) => {
            let nan = |v: &Val| matches!(v, Double(d) if d.is_nan());
            let o = match x.compare(y) {
                Some(o) => o,
                None if nan(x) || nan(y) => return Err(err("NaN values cannot be ordered")),
                None => return Err(no_overload()),
            };
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
            Some(n) => Ok(Duration(n)),
            None => Err(err("integer overflow")),
        },
        ("_+_", [Timestamp(s, n, o), Duration(d)]) | ("_+_", [Duration(d), Timestamp(s, n, o)]) => {
            let (s, n) = from_nanos(ts_nanos(*s, *n) + *d as i128);
            ts_result(s, n, *o)
        }
        ("_-_", [Int(x), Int(y)]) => int_result(x.checked_sub(*y)),
        ("_-_", [Uint(x), Uint(y)]) => uint_result(x.checked_sub(*y)),
        ("_-_", [Double(x), Double(y)]) => Ok(Double(x - y)),
        ("_-_", [Duration(x), Duration(y)]) => match x.checked_sub(*y) {
            Some(n) => Ok(Duration(n)),
            None => Err(err("integer overflow")),
        },
        ("_-_", [Timestamp(s, n, o), Duration(d)]) => {
            let (s, n) = from_nanos(ts_nanos(*s, *n) - *d as i128);
            ts_result(s, n, *o)
        }
        // cel-go's `subtractTimeChecked`: whole seconds scaled to nanoseconds, then the
        // nanoseconds added, each step checked as int64 ("integer overflow").
        ("_-_", [Timestamp(s1, n1, _), Timestamp(s2, n2, _)]) => s1
            .checked_sub(*s2)
            .and_then(|sec| sec.checked_mul(1_000_000_000))
            .and_then(|ns| ns.checked_add(i64::from(*n1) - i64::from(*n2)))
            .map(Val::Duration)
            .ok_or_else(|| err("integer overflow")),
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
            Timestamp(s, _, _) => Ok(Int(*s)),
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
            // cel-go declares duration(int) but `Int.ConvertToType` has no duration case.
            Int(_) => Err(err(
                "type conversion error from 'int' to 'google.protobuf.Duration'",
            )),
            String(s) => {
                // cel-go drops the parser's reason from the conversion error.
                let n = gotime::parse_duration(s).map_err(|_| {
                    err("type conversion error from 'string' to 'google.protobuf.Duration'")
                })?;
                Ok(Duration(n))
            }
            _ => Err(no_overload()),
        },
        ("timestamp", [x]) => match x {
            Timestamp(s, n, o) => Ok(Timestamp(*s, *n, *o)),
            Int(i) => ts_result(*i, 0, 0),
            String(s) => {
                let t = gotime::parse_rfc3339(s).map_err(|_| {
                    err("type conversion error from 'string' to 'google.protobuf.Timestamp'")
                })?;
                Ok(Timestamp(t.seconds, t.nanos, t.offset))
            }
            _ => Err(no_overload()),
        },
        ("contains", [String(s), String(t)]) => Ok(Bool(s.contains(&**t))),
        ("startsWith", [String(s), String(t)]) => Ok(Bool(s.starts_with(&**t))),
        ("endsWith", [String(s), String(t)]) => Ok(Bool(s.ends_with(&**t))),
        ("matches", [String(s), String(p)]) => {
            let re = go_regex(p, "")?;
            Ok(Bool(re.is_match(s)))
        }
        ("find", [String(s), String(p)]) => {
            let re = go_regex(p, "Illegal regex: ")?;
            Ok(Val::str(re.find(s).map(|m| m.as_str()).unwrap_or("")))
        }
        ("findAll", [String(s), String(p), rest @ ..]) => {
            let re = go_regex(p, "Illegal regex: ")?;
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
            // cel-go's order: the range first (`substring(0, -1)` is a bad range);
            // `substring(start)` checks the start only.
            if !rest.is_empty() && *b > e {
                return Err(err(format!(
                    "invalid substring range. start: {b}, end: {e}"
                )));
            }
            if *b < 0 || *b > chars.len() as i64 {
                return Err(err(format!("index out of range: {b}")));
            }
            if e < 0 || e > chars.len() as i64 {
                return Err(err(format!("index out of range: {e}")));
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
            // The server walks the list: an element that is not comparable (invalid
            // data: its error) ends it, as does a pair out of order.
            for (i, x) in l.iter().enumerate() {
                if let Error(m) = x {
                    return Err(err(m.to_string()));
                }
                if !is_comparable(x) {
                    return Err(no_overload());
                }
                if i > 0 && l[i - 1].compare(x) == Some(Ordering::Greater) {
                    return Ok(Bool(false));
                }
            }
            Ok(Bool(true))
        }
        ("sum", [List(l)]) => {
            let zero = match dispatched_list_overload(f, overloads, l)? {
                Some("list_uint_sum_uint") => Uint(0),
                Some("list_double_sum_double") => Double(0.0),
                Some("list_duration_sum_duration") => Duration(0),
                _ => Int(0),
            };
            l.iter().try_fold(zero, |acc, x| match x {
                Error(m) => Err(err(m.to_string())),
                _ => call_function("_+_", false, &[acc, x.clone()], &[]),
            })
        }
        ("min" | "max", [List(l)]) => {
            // The server keeps the current best when a comparison fails.
            let mut best: Option<&Val> = None;
            for x in l.iter() {
                if let Error(m) = x {
                    return Err(err(m.to_string()));
                }
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
                        inner if d > 0 && inner.list_items().is_some() => {
                            flat(inner.list_items().unwrap_or(&[]), d - 1, out)
                        }
                        other => out.push(other.clone()),
                    }
                }
            }
            let mut out = Vec::new();
            flat(l, depth, &mut out);
            Ok(List(Arc::new(out)))
        }
        ("sort", [List(l)]) => {
            sortable_keys(l)?;
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
            sortable_keys(keys)?;
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
        ("lists.range", [Int(n)]) => {
            // Without a cost limit (constant folding, conformance tests) a list too large
            // for memory is an error, not an abort.
            let len = (*n).max(0);
            let mut items = Vec::new();
            usize::try_from(len)
                .ok()
                .filter(|&l| l <= (1 << 28))
                .and_then(|l| items.try_reserve_exact(l).ok())
                .ok_or_else(|| err(format!("lists.range({n}): list too large")))?;
            items.extend((0..len).map(Int));
            Ok(List(Arc::new(items)))
        }
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
            [Timestamp(s, n, _), rest @ ..],
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
/// ext lists' sort checks (`sortListByAssociatedKeys`): the first key must be
/// comparable and every key of its type (an element holding invalid data is an error
/// value, of another type). One key is never compared.
fn sortable_keys(keys: &[Val]) -> Result<(), EvalError> {
    let [first, rest @ ..] = keys else {
        return Ok(());
    };
    // cel-go asks the first key for `Comparer`, then compares types while sorting
    // (never for a single key).
    if !is_comparable(first) {
        return Err(err("list elements must be comparable"));
    }
    let same_type = |x: &Val| std::mem::discriminant(x) == std::mem::discriminant(first);
    if !rest.iter().all(same_type) {
        return Err(err("list elements must have the same type"));
    }
    Ok(())
}

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

/// Unix seconds of Go's zero `time.Time`, which cel-go's `Timestamp.IsZeroValue` asks
/// for.
const GO_ZERO_TIME_UNIX: i64 = -62_135_596_800;

fn is_zero(v: &Val) -> bool {
    match v {
        Val::Null => true,
        Val::Bool(b) => !b,
        Val::Int(i) => *i == 0,
        Val::Uint(u) => *u == 0,
        Val::Double(d) => *d == 0.0,
        Val::String(s) => s.is_empty(),
        Val::Bytes(b) => b.is_empty(),
        // Lists and maps read from the object have no `IsZeroValue`: never zero.
        Val::List(l) => l.is_empty(),
        Val::Map(m) => m.is_empty(),
        Val::Duration(n) => *n == 0,
        // Go's zero `time.Time` (0001-01-01T00:00:00Z), not the Unix epoch.
        Val::Timestamp(s, n, _) => *s == GO_ZERO_TIME_UNIX && *n == 0,
        _ => false,
    }
}

/// cel-go's `timeZone`: a name without `:` is an IANA location (`time.LoadLocation`),
/// otherwise `[+-]hh:mm` read with `strconv.Atoi`.
fn zone_offset(tz: &str, unix: i64) -> Result<i64, EvalError> {
    let Some(colon) = tz.find(':') else {
        use super::library::tz::{ZoneError, offset};
        return offset(tz, unix).map_err(|e| match e {
            ZoneError::Go(m) => err(m),
            ZoneError::NoDatabase => EvalError::Unavailable(
                "time zone names on a machine without a time zone database (install tzdata, or set ZONEINFO to a zoneinfo directory)".into(),
            ),
        });
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
        Timestamp(s, n, o) => gotime::format_rfc3339(gotime::Timestamp {
            seconds: *s,
            nanos: *n,
            offset: *o,
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
pub(crate) fn format_double(d: f64) -> String {
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
