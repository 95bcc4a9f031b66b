//! What happens when the server turns a checked rule into a program (cel-go
//! `env.Program` with `OptOptimize`, plus the Kubernetes regex library's
//! `OptimizeRegex`): a type conversion (`int`, `string`, `duration`, …) of a constant
//! is evaluated once, and a constant pattern of `matches`, `find` or `findAll` is
//! compiled once. Either can fail, and the server then refuses the rule with
//! `program instantiation failed: <error>` (`messageExpression instantiation failed:`
//! for a messageExpression).
//!
//! The walk follows cel-go's planner: children before their parent, a call's target
//! before its arguments, a comprehension's accumulator, range, condition, step and
//! result in that order; the first failure wins. Constants are literals, folded
//! conversions, and list or map literals made only of constants.

use super::ast::{Expr, ExprKind, Literal};
use super::checker::CheckedAst;
use super::interp::{EvalError, eval_const};
use super::value::Val;

/// cel-go's `overloads.IsTypeConversionFunction`.
const CONVERSIONS: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "duration",
    "dyn",
    "int",
    "string",
    "timestamp",
    "type",
    "uint",
];

/// Functions whose second argument (the target counts as the first) is a regular
/// expression compiled when constant.
const REGEX_FUNCTIONS: &[&str] = &["matches", "find", "findAll"];

/// Instantiates `checked`: the error text cel-go reports, if any.
pub fn instantiate(checked: &CheckedAst) -> Result<(), String> {
    plan(checked, &checked.ast.expr, 0).map(|_| ())
}

/// Plans `e`; its value when it is a constant.
fn plan(checked: &CheckedAst, e: &Expr, depth: usize) -> Result<Option<Val>, String> {
    if depth > 1000 {
        return Ok(None);
    }
    let d = depth + 1;
    match &e.kind {
        ExprKind::Literal(l) => Ok(Some(match l {
            Literal::Bool(b) => Val::Bool(*b),
            Literal::Int(i) => Val::Int(*i),
            Literal::Uint(u) => Val::Uint(*u),
            Literal::Double(x) => Val::Double(*x),
            Literal::String(s) => Val::str(s),
            Literal::Bytes(b) => Val::Bytes(std::sync::Arc::from(b.as_slice())),
            Literal::Null => Val::Null,
        })),
        ExprKind::Ident(_) => Ok(None),
        ExprKind::Select { operand, .. } => {
            plan(checked, operand, d)?;
            Ok(None)
        }
        ExprKind::Call {
            function,
            target,
            args,
        } => {
            let mut values = Vec::with_capacity(args.len() + 1);
            if let Some(t) = target {
                values.push(plan(checked, t, d)?);
            }
            for a in args {
                values.push(plan(checked, a, d)?);
            }
            if target.is_none()
                && values.len() == 1
                && values[0].is_some()
                && CONVERSIONS.contains(&function.as_str())
            {
                return match eval_const(checked, e) {
                    Ok(v) => Ok(Some(v)),
                    Err(EvalError::Message(m)) => Err(m),
                    Err(_) => Ok(None),
                };
            }
            if REGEX_FUNCTIONS.contains(&function.as_str())
                && let Some(Some(Val::String(p))) = values.get(1)
            {
                crate::schema::regex::compile_go(p)?;
            }
            Ok(None)
        }
        ExprKind::List { elements, .. } => {
            let mut all_const = true;
            for x in elements {
                all_const &= plan(checked, x, d)?.is_some();
            }
            Ok(constant(checked, e, all_const))
        }
        ExprKind::Map { entries } => {
            let mut all_const = true;
            for entry in entries {
                all_const &= plan(checked, &entry.key, d)?.is_some();
                all_const &= plan(checked, &entry.value, d)?.is_some();
            }
            Ok(constant(checked, e, all_const))
        }
        ExprKind::Struct { fields, .. } => {
            for f in fields {
                plan(checked, &f.value, d)?;
            }
            Ok(None)
        }
        ExprKind::Comprehension(c) => {
            for x in [
                &c.accu_init,
                &c.iter_range,
                &c.loop_condition,
                &c.loop_step,
                &c.result,
            ] {
                plan(checked, x, d)?;
            }
            Ok(None)
        }
    }
}

/// A list or map literal of constants is itself a constant.
fn constant(checked: &CheckedAst, e: &Expr, all_const: bool) -> Option<Val> {
    if all_const {
        eval_const(checked, e).ok()
    } else {
        None
    }
}
