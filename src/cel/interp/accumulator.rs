//! Folding a macro's accumulator in place.
//!
//! `l.map(x, f)` folds `@result + [f]` once per element. Built naively, each step
//! copies the whole list so far: a 50,000-item list took 22 s, and the per-call cost
//! limit (list `+` costs 1, whatever the sizes) lets such a fold run for about a third
//! of a million steps, for hours. cel-go appends to a mutable list instead. Here the
//! fold hands its accumulator to the step *by value* when the step reads it at most
//! once (every macro's step does), so the list is uniquely owned when `+` or
//! `cel.@mapInsert` grows it and grows in place; a map's keys are indexed
//! ([`MapIndex`]) so that each insert need not read them all.

use std::sync::Arc;

use super::super::ast::{Comprehension, Expr, ExprKind};
use super::super::lookup::{Positions, bucket};
use super::super::value::Val;

/// The most times evaluating `e` can read the variable `name` (as it is bound where
/// `e` stands): a conditional counts its taken branch only, and a nested fold that
/// rebinds the name hides the reads it shadows. Counting stops at 2.
pub(super) fn reads(e: &Expr, name: &str) -> usize {
    let n = match &e.kind {
        ExprKind::Literal(_) => 0,
        ExprKind::Ident(i) => usize::from(i == name),
        ExprKind::Select { operand, .. } => reads(operand, name),
        ExprKind::Call {
            function,
            target: None,
            args,
        } if function == "_?_:_" && args.len() == 3 => {
            reads(&args[0], name) + reads(&args[1], name).max(reads(&args[2], name))
        }
        ExprKind::Call { target, args, .. } => {
            target.as_deref().map_or(0, |t| reads(t, name))
                + args.iter().map(|a| reads(a, name)).sum::<usize>()
        }
        ExprKind::List { elements, .. } => elements.iter().map(|a| reads(a, name)).sum(),
        ExprKind::Map { entries } => entries
            .iter()
            .map(|m| reads(&m.key, name) + reads(&m.value, name))
            .sum(),
        ExprKind::Struct { fields, .. } => fields.iter().map(|f| reads(&f.value, name)).sum(),
        ExprKind::Comprehension(c) => fold_reads(c, name),
    };
    n.min(2)
}

/// Reads of `name` by a nested fold. Its range and initial value are evaluated where
/// it stands; its condition and step run once per element (any read there may be
/// many), under its iteration variables and accumulator; its result under its
/// accumulator.
fn fold_reads(c: &Comprehension, name: &str) -> usize {
    let outside = reads(&c.iter_range, name) + reads(&c.accu_init, name);
    let rebinds_in_loop =
        c.accu_var == name || c.iter_var == name || c.iter_var2.as_deref() == Some(name);
    let in_loop = if rebinds_in_loop {
        0
    } else {
        reads(&c.loop_condition, name) + reads(&c.loop_step, name)
    };
    let in_result = if c.accu_var == name {
        0
    } else {
        reads(&c.result, name)
    };
    // A read inside the loop may happen on every element: as good as many.
    outside + 2 * in_loop + in_result
}

/// `a + b` for two lists CEL built, both non-empty, growing `a` in place when it is
/// uniquely owned (else copying it, as any `+`). None: not that case.
pub(super) fn append(vals: &mut [Val]) -> Option<Val> {
    let [Val::List(a), Val::List(b)] = vals else {
        return None;
    };
    if a.is_empty() || b.is_empty() {
        return None;
    }
    // Shared, the list is copied first (as any `+`).
    let copied = if Arc::strong_count(a) > 1 { a.len() } else { 0 };
    super::super::work::charge(copied + b.len());
    Arc::make_mut(a).extend(b.iter().cloned());
    Some(Val::List(a.clone()))
}

/// The keys of the map a fold is building, so that inserting checks for a key in
/// constant time (cel-go's mutable map is a Go map). Kept for one map, known by
/// address and length: each fold starts its own index, and the map it builds is alive
/// and only grows while the fold runs, so no other map can take both.
#[derive(Default)]
pub(super) struct MapIndex {
    of: Option<(usize, usize)>,
    keys: Option<Positions>,
}

impl MapIndex {
    /// `cel.@mapInsert(m, k, v)` or `cel.@mapInsert(m, n)` on a map CEL built: the
    /// map with the entries added, grown in place when it is uniquely owned, or
    /// `Err(k)` for the first key `k` already in it. None: not that call.
    pub(super) fn insert(&mut self, vals: &mut [Val]) -> Option<Result<Val, Val>> {
        let (m, new) = match vals {
            // As any call that only reads its arguments' values, the entry keeps
            // none of the semantics of data read from the object.
            [Val::Map(m), k, v] => (m, vec![(k.clone().plain(), v.clone().plain())]),
            [Val::Map(m), Val::Map(n) | Val::DataMap(n, _)] => (m, n.to_vec()),
            _ => return None,
        };
        let mut keys = match self.keys.take() {
            Some(keys) if self.of == Some(address(m)) => keys,
            _ => Positions::new(m.iter().map(|(k, _)| bucket(k))),
        };
        self.of = None;
        let copied = if Arc::strong_count(m) > 1 { m.len() } else { 0 };
        super::super::work::charge(copied + new.len());
        let entries = Arc::make_mut(m);
        for (k, v) in new {
            let b = bucket(&k);
            if keys.first(b, |i| entries[i].0.equals(&k)).is_some() {
                return Some(Err(k));
            }
            keys.push(b);
            entries.push((k, v));
        }
        self.of = Some(address(m));
        self.keys = Some(keys);
        Some(Ok(Val::Map(m.clone())))
    }
}

fn address(m: &Arc<Vec<(Val, Val)>>) -> (usize, usize) {
    (Arc::as_ptr(m) as usize, m.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cel::parse::{ParseOptions, parse};

    fn step_reads(rule: &str) -> usize {
        let ast = parse(rule, ParseOptions::default()).expect("parses");
        let ExprKind::Comprehension(c) = &ast.expr.kind else {
            panic!("not a fold: {rule}");
        };
        reads(&c.loop_step, &c.accu_var)
    }

    #[test]
    fn every_macro_step_reads_its_accumulator_once() {
        for rule in [
            "[1].map(x, x)",
            "[1].map(x, x > 0, x)",
            "[1].filter(x, x > 0)",
            "[1].all(x, x > 0)",
            "[1].exists(x, x > 0)",
            "[1].exists_one(x, x > 0)",
            "[1].map(x, [2].map(y, y))",
            "[1].transformList(i, x, x)",
            "[1].transformMap(i, x, x)",
            "{1: 2}.transformMapEntry(k, v, {v: k})",
        ] {
            assert_eq!(step_reads(rule), 1, "{rule}");
        }
    }

    #[test]
    fn reads_count_the_taken_branch_and_respect_shadowing() {
        let e = |s: &str| parse(s, ParseOptions::default()).expect("parses").expr;
        assert_eq!(reads(&e("a ? b : c"), "b"), 1);
        assert_eq!(reads(&e("b ? b : c"), "b"), 2);
        assert_eq!(reads(&e("b + [b]"), "b"), 2);
        // The inner fold's own variable hides the outer one inside its loop...
        assert_eq!(reads(&e("[1].map(b, b)"), "b"), 0);
        // ...but its range is read where it stands, and a loop read repeats.
        assert_eq!(reads(&e("b.map(x, x)"), "b"), 1);
        assert_eq!(reads(&e("[1].map(x, b)"), "b"), 2);
    }
}
