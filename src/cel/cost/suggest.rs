//! Concrete fixes for costly rules, found by re-estimating: for each list, map or
//! string that multiplies a rule's cost (the lists and maps above its node, and the
//! values the rule reads), the largest `maxItems` / `maxProperties` / `maxLength`
//! that alone brings the estimate to the target.

use super::compile_support::RuleInput;
use super::{
    NodeContext, NodeContexts, SchemaStep, estimator, extract_max_elements_with, max_cardinality,
    multiply_with_overflow_guard,
};
use crate::cel::node_steps::NodeSteps;
use crate::cel::schema_types::{DeclKind, DeclType, escape, schema_decl_type_depth};
use crate::diag::FieldPath;
use crate::schema::structural::{Structural, StructuralOrBool, ValueValidation};
use std::collections::HashSet;

/// Work the search for fixes may do in one run, in nodes re-estimated: a trial bound
/// on a value the rule reads re-types the schema below the rule's node and
/// re-estimates the rule, so a trial is counted as the number of schema nodes there
/// plus the rule's expression nodes (and the rule node's depth, twice: trials walked
/// from the root until session 52; the count is kept so that the same fixes are found).
/// Every CRD of the corpus together needs 8 % of it (`--near 0.0001`); a 1.4 MB
/// CRD whose rule reads 1,500 unbounded lists, each beside 10,000 other fields, took 41 s
/// before this limit, 6 s with it; a 2.7 MB CRD with 2,000 rules at a node of 60,000
/// fields, searched with `--near 0.0001`, 325 s, now 2.4 s.
///
/// Halved in session 47: a re-estimated node costs more on a large schema (0.1 µs at
/// 500 lists read by one rule, 0.3 µs at 2,000: cache misses), so the whole budget
/// took 11 s there; at this limit, under 6 s.
pub const SEARCH_WORK_LIMIT: u64 = 1 << 24;

/// What is left of [`SEARCH_WORK_LIMIT`] for a run.
pub struct SearchBudget {
    remaining: std::cell::Cell<u64>,
}

impl SearchBudget {
    pub fn new(units: u64) -> Self {
        SearchBudget {
            remaining: std::cell::Cell::new(units),
        }
    }

    /// Takes `units`, or says there are not that many left (and takes nothing).
    fn take(&self, units: u64) -> bool {
        let left = self.remaining.get();
        if units > left {
            return false;
        }
        self.remaining.set(left - units);
        true
    }

    /// Takes `units`, or what is left.
    fn spend(&self, units: u64) {
        self.remaining
            .set(self.remaining.get().saturating_sub(units));
    }

    pub fn remaining(&self) -> u64 {
        self.remaining.get()
    }
}

/// The fixes found for one rule.
#[derive(Clone, Debug, PartialEq)]
pub struct Search {
    pub fixes: Vec<Suggestion>,
    /// `false` when the run's [`SearchBudget`] ran out before every bound was tried.
    pub complete: bool,
}

impl Search {
    /// No fix, none needed or none to look for.
    pub fn none() -> Self {
        Search {
            fixes: Vec::new(),
            complete: true,
        }
    }
}

/// One bound to add (or lower) in the schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    /// The schema node to bound, or the rule's node when it is below it: a list or
    /// map above the rule's node, or the node itself (shared with the rule's).
    at: NodeSteps,
    /// Steps from there to the value to bound (empty for the lists and maps above).
    /// Kept as a whole path, the fixes of a rule under D nested lists were D paths of
    /// up to D steps, three times over (4,000 rules under 300 nested lists: 1 GB).
    below: Vec<SchemaStep>,
    /// `maxItems`, `maxProperties` or `maxLength`.
    pub keyword: &'static str,
    /// What the schema says now.
    pub current: Option<i64>,
    /// The largest value that reaches the target.
    pub value: i64,
    /// The rule's estimated cost with that value.
    pub estimated_cost: u64,
}

impl Suggestion {
    /// Steps from the root to the schema node to bound.
    pub fn steps(&self) -> impl Iterator<Item = &SchemaStep> {
        self.at.iter().chain(&self.below)
    }

    /// Its field path (`spec.versions[0].schema.openAPIV3Schema.properties[spec]…`)
    /// under the schema's path `base`.
    pub fn schema_path(&self, base: &FieldPath) -> FieldPath {
        crate::diag::path::schema_node_path(base, self.steps())
    }

    /// Its data path for people (`spec.rules`, `spec.rules[*].name`).
    pub fn data_path(&self) -> String {
        super::data_path_of(self.steps())
    }
}

/// The single-bound fixes that bring `rule`'s estimated cost to at most `target`
/// (best first: the ones allowing the largest data). Bounds that cannot reach the
/// target alone (even at 0) are left out. `contexts` are the rules' node contexts
/// in `root`, shared by the searches of a schema's rules: made per rule, each built
/// the declared type of the first node with rules (the root's, with a rule there),
/// 400 rules beside 40,000 root properties took 2.3 s.
pub(crate) fn suggestions<'a>(
    root: &'a Structural,
    contexts: &mut NodeContexts<'a, '_>,
    input: &RuleInput<'_>,
    target: u64,
    budget: &SearchBudget,
) -> Search {
    let mut search = Search::none();
    // What comes before the trials (typing the rule's variables, estimating it once,
    // copying the schema to try bounds on) is paid for after it is done: it is about
    // the size of one trial and the copy, and no rule starts once nothing is left.
    if budget.remaining() == 0 {
        search.complete = false;
        return search;
    }
    let Some(ctx) = contexts.get(input.node) else {
        return search;
    };
    let Some(decl) = ctx.decl() else {
        return search;
    };
    // Counted as when a trial walked from the root to the rule's node twice (to set
    // the bound, and to type the node): the budget finds the same fixes as before.
    let trial_units =
        node_count(ctx.schema) + input.checked.types.len() as u64 + 2 * input.node.len() as u64;
    let knobs = knobs(&ctx, decl, input);
    let mut trials = Trials::new(root, &ctx, input);
    let mut out = Vec::new();
    let mut found_at: HashSet<(usize, Vec<SchemaStep>)> = HashSet::new();
    // Where a bound below the rule's node cannot be tried on its type alone, it is
    // tried on a copy of the node.
    let mut work: Option<Structural> = None;
    budget.spend(trial_units.saturating_add(node_count(root)));
    for (prefix, below) in knobs {
        if found_at.contains(&(prefix, below.clone())) {
            continue;
        }
        let at = input.node.prefix(prefix);
        let steps: Vec<SchemaStep> = at.iter().chain(&below).cloned().collect();
        let Some(node) = node_at(root, &steps) else {
            continue;
        };
        let Some(keyword) = keyword_for(node) else {
            continue;
        };
        let current = get_bound(node, keyword);
        // Each trial is paid for before it is made; a bound whose search the budget
        // cannot finish is not suggested, nor is any after it.
        let found = if prefix < input.node.len() {
            largest_bound_within(target, current, &mut |v| {
                budget
                    .take(trial_units)
                    .then(|| trials.cost_with_level_bound(prefix, keyword, v))
            })
        } else {
            let hops = trials.value_hops(decl, &below);
            let found = largest_bound_within(target, current, &mut |v| {
                if !budget.take(trial_units) {
                    return None;
                }
                if let Some(hops) = &hops
                    && let Some(cost) = trials.cost_with_value_bound(node, &below, hops, keyword, v)
                {
                    return Some(cost);
                }
                // The way down the node's type is not there: type the node whole.
                let work = work.get_or_insert_with(|| ctx.schema.clone());
                set_bound(node_at_mut(work, &below)?, keyword, Some(v));
                Some(trials.cost_with_node(work))
            });
            if let Some(work) = &mut work {
                set_back(work, &below, keyword, current);
            }
            found
        };
        let Some(found) = found else {
            search.complete = false;
            break;
        };
        let Some((value, estimated_cost)) = found else {
            continue;
        };
        found_at.insert((prefix, below.clone()));
        out.push(Suggestion {
            at,
            below,
            keyword,
            current,
            value,
            estimated_cost,
        });
    }
    out.sort_by_cached_key(|s| (std::cmp::Reverse(s.value), s.data_path()));
    search.fixes = out;
    search
}

/// The bounds that may lower the rule's cost: how many of the node's steps lead to
/// each (the lists and maps above the node), then the steps below (the values the
/// rule reads).
fn knobs(
    ctx: &NodeContext<'_>,
    decl: &DeclType,
    input: &RuleInput<'_>,
) -> Vec<(usize, Vec<SchemaStep>)> {
    let (_, seen) = estimator::estimate_cost_seen(input.checked, Some(decl), input.model, true);
    let mut knobs: Vec<(usize, Vec<SchemaStep>)> = Vec::new();
    for (i, step) in input.node.iter().enumerate() {
        if matches!(step, SchemaStep::Items | SchemaStep::AdditionalProperties) {
            knobs.push((i, Vec::new()));
        }
    }
    for path in &seen {
        if let Some(steps) = value_steps(ctx.schema, &path[1..]) {
            knobs.push((input.node.len(), steps));
        }
    }
    knobs
}

/// The largest bound (from 0 up to `current`, or the request size limit when unset)
/// whose cost (`cost_of`, which grows with the bound) is within `target`, with that
/// cost, by bisection: `Some(None)` when none is (even 0), or when the bound does not
/// need lowering; `None` when `cost_of` gave up (the budget ran out).
#[allow(clippy::option_option)]
fn largest_bound_within(
    target: u64,
    current: Option<i64>,
    cost_of: &mut dyn FnMut(i64) -> Option<u64>,
) -> Option<Option<(i64, u64)>> {
    if cost_of(0)? > target {
        return Some(None);
    }
    let (mut lo, mut hi) = (
        0i64,
        current.unwrap_or(super::super::schema_types::MAX_REQUEST_SIZE_BYTES),
    );
    if cost_of(hi)? <= target {
        return Some(None);
    }
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if cost_of(mid)? <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(Some((lo, cost_of(lo)?)))
}

/// Schema nodes at and below `node`, which typing the rule's variables visits.
fn node_count(node: &Structural) -> u64 {
    let mut count = 0u64;
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        count += 1;
        stack.extend(n.properties.iter().map(|(_, p)| p));
        stack.extend(n.items.as_deref());
        if let Some(StructuralOrBool::Structural(additional)) = &n.additional_properties {
            stack.push(additional);
        }
    }
    count
}

fn set_back(work: &mut Structural, steps: &[SchemaStep], keyword: &str, v: Option<i64>) {
    if let Some(n) = node_at_mut(work, steps) {
        set_bound(n, keyword, v);
    }
}

/// The rule's estimated cost (× cardinality) with one bound changed, without walking
/// from the root per trial: a trial that walked from the root rebuilt the declared
/// type of the first node with rules (the root's: all of the schema) and followed its
/// way down one hop at a time, per step; `crdlint cost` on 8 rules 400 lists deep
/// beside 40,000 root properties took 15 s.
///
/// Declared types are built bottom-up, so a bound on a list or map above the rule's
/// node changes only its cardinality, and a bound at or below the node only the
/// node's type, built as inside the type it was taken from ([`NodeContext::decl_depth`]).
struct Trials<'a> {
    input: &'a RuleInput<'a>,
    /// The nodes on the way to the rule's node, root first (the cardinality is the
    /// product of their `extractMaxElements`), and those factors.
    path: Vec<&'a Structural>,
    factors: Vec<Option<u64>>,
    /// The rule's cost per call with the schema as it is.
    max: u64,
    /// The smallest serialized size of the node's type, for an unbounded cardinality.
    min_size: i64,
    cardinality: Option<u64>,
    is_resource_root: bool,
    decl_depth: usize,
    /// The node's type, for trials of bounds below it (a copy, made on the first):
    /// each replaces the bounded value's type in it, then puts it back.
    node_type: Option<DeclType>,
}

impl<'a> Trials<'a> {
    fn new(root: &'a Structural, ctx: &NodeContext<'_>, input: &'a RuleInput<'a>) -> Self {
        let mut path = Vec::with_capacity(input.node.len());
        let mut cur = Some(root);
        for step in input.node.iter() {
            let Some(node) = cur else { break };
            path.push(node);
            cur = node_at(node, std::slice::from_ref(step));
        }
        let factors = path
            .iter()
            .map(|n| extract_max_elements_with(n, None))
            .collect();
        let decl = ctx.decl();
        Trials {
            input,
            path,
            factors,
            max: decl.map_or(0, |d| {
                estimator::estimate_cost(input.checked, Some(d), input.model).max
            }),
            min_size: decl.map_or(0, |d| d.min_serialized_size),
            cardinality: ctx.cardinality,
            is_resource_root: input.node.is_empty() || ctx.schema.extensions.x_embedded_resource,
            decl_depth: ctx.decl_depth,
            node_type: None,
        }
    }

    /// With `keyword` of the list or map `level` steps down set to `v`.
    fn cost_with_level_bound(&self, level: usize, keyword: &str, v: i64) -> u64 {
        let mut cardinality = Some(1u64);
        for (i, factor) in self.factors.iter().enumerate() {
            let factor = if i == level {
                extract_max_elements_with(self.path[i], Some((keyword, v)))
            } else {
                *factor
            };
            cardinality = match (cardinality, factor) {
                (Some(c), Some(m)) => Some(multiply_with_overflow_guard(c, m)),
                _ => None,
            };
        }
        let cardinality = cardinality.unwrap_or_else(|| max_cardinality(self.min_size));
        multiply_with_overflow_guard(self.max, cardinality)
    }

    /// Where the value at `below` sits in the node's type `decl` (a copy of which the
    /// trials change): per step, the field's position, or `None` for the elements of
    /// a list or map.
    fn value_hops(&mut self, decl: &DeclType, below: &[SchemaStep]) -> Option<Vec<Option<usize>>> {
        let mut ty = decl;
        let mut hops = Vec::with_capacity(below.len());
        for step in below {
            match step {
                SchemaStep::Property(name) => {
                    let DeclKind::Object(fields) = &ty.kind else {
                        return None;
                    };
                    let field = ty.field(&escape(name)?)?;
                    hops.push(Some(fields.iter().position(|f| std::ptr::eq(f, field))?));
                    ty = &field.ty;
                }
                SchemaStep::Items | SchemaStep::AdditionalProperties => {
                    ty = ty.elem()?;
                    hops.push(None);
                }
                SchemaStep::AllOf(_) => return None,
            }
        }
        self.node_type.get_or_insert_with(|| decl.clone());
        Some(hops)
    }

    /// With `keyword` of `value` (the node at `below`, reached in the node's type by
    /// `hops`) set to `v`: only that value's type changes (a bound changes no smallest
    /// size, which is all that a type takes from its children's), so it is built
    /// alone, at the depth it is built at inside the node's, and put in the node's
    /// type for the estimate. `None` when the type is not there.
    fn cost_with_value_bound(
        &mut self,
        value: &Structural,
        below: &[SchemaStep],
        hops: &[Option<usize>],
        keyword: &str,
        v: i64,
    ) -> Option<u64> {
        let mut bounded = value.clone();
        set_bound(&mut bounded, keyword, Some(v));
        let (is_resource_root, depth) = if below.is_empty() {
            (self.is_resource_root, self.decl_depth)
        } else {
            (
                value.extensions.x_embedded_resource,
                self.decl_depth + below.len(),
            )
        };
        let bounded_type = schema_decl_type_depth(&bounded, is_resource_root, depth)?;
        let node_type = self.node_type.as_mut()?;
        let was = std::mem::replace(type_at_mut(node_type, hops)?, bounded_type);
        let cost = cost_on(self.input, node_type, self.cardinality);
        if let Some(slot) = type_at_mut(node_type, hops) {
            *slot = was;
        }
        Some(cost)
    }

    /// With the rule's node (and what is below it) as `node`.
    fn cost_with_node(&self, node: &Structural) -> u64 {
        schema_decl_type_depth(node, self.is_resource_root, self.decl_depth)
            .map_or(0, |decl| cost_on(self.input, &decl, self.cardinality))
    }
}

/// The rule's estimated cost on a node of type `decl` times the node's `cardinality`
/// (when a list or map above is unbounded, the most values of that type a request holds).
fn cost_on(input: &RuleInput<'_>, decl: &DeclType, cardinality: Option<u64>) -> u64 {
    let max = estimator::estimate_cost(input.checked, Some(decl), input.model).max;
    let cardinality = cardinality.unwrap_or_else(|| max_cardinality(decl.min_serialized_size));
    multiply_with_overflow_guard(max, cardinality)
}

/// The type `hops` ([`Trials::value_hops`]) down from `ty`.
fn type_at_mut<'t>(ty: &'t mut DeclType, hops: &[Option<usize>]) -> Option<&'t mut DeclType> {
    let mut ty = ty;
    for hop in hops {
        ty = match (hop, &mut ty.kind) {
            (Some(i), DeclKind::Object(fields)) => &mut fields.get_mut(*i)?.ty,
            (None, DeclKind::List(e) | DeclKind::Map(e)) => e,
            _ => return None,
        };
    }
    Some(ty)
}

/// Schema steps for a value path below the rule's node (`spec`, `@items`, …).
fn value_steps(node: &Structural, path: &[String]) -> Option<Vec<SchemaStep>> {
    let mut cur = node;
    let mut out = Vec::new();
    for name in path {
        match name.as_str() {
            "@items" => {
                cur = cur.items.as_deref()?;
                out.push(SchemaStep::Items);
            }
            "@values" => {
                let Some(StructuralOrBool::Structural(ap)) = &cur.additional_properties else {
                    return None;
                };
                cur = ap;
                out.push(SchemaStep::AdditionalProperties);
            }
            "@keys" => return None,
            field => {
                let (prop, s) = cur.properties.iter().find(|(p, _)| {
                    super::super::schema_types::escape(p).as_deref() == Some(field)
                })?;
                cur = s;
                out.push(SchemaStep::Property(prop.as_str().into()));
            }
        }
    }
    Some(out)
}

fn keyword_for(s: &Structural) -> Option<&'static str> {
    if s.extensions.x_int_or_string {
        return Some("maxLength");
    }
    match s.generic.type_.as_ref() {
        "array" => Some("maxItems"),
        "object" if s.additional_properties.is_some() => Some("maxProperties"),
        "string" => {
            let format = s
                .value_validation
                .as_deref()
                .map(|v| v.format.as_str())
                .unwrap_or("");
            // Durations and dates have fixed bounds; enums bound themselves.
            let has_enum = s
                .value_validation
                .as_deref()
                .is_some_and(|v| !v.enum_.is_empty());
            (!matches!(format, "duration" | "date" | "date-time") && !has_enum)
                .then_some("maxLength")
        }
        _ => None,
    }
}

fn get_bound(s: &Structural, keyword: &str) -> Option<i64> {
    let vv = s.value_validation.as_deref()?;
    match keyword {
        "maxItems" => vv.max_items,
        "maxProperties" => vv.max_properties,
        _ => vv.max_length,
    }
}

fn set_bound(s: &mut Structural, keyword: &str, v: Option<i64>) {
    let vv = s
        .value_validation
        .get_or_insert_with(|| Box::new(ValueValidation::default()));
    match keyword {
        "maxItems" => vv.max_items = v,
        "maxProperties" => vv.max_properties = v,
        _ => vv.max_length = v,
    }
}

pub(crate) fn node_at<'a>(root: &'a Structural, steps: &[SchemaStep]) -> Option<&'a Structural> {
    let mut cur = root;
    for s in steps {
        cur = match s {
            SchemaStep::Property(n) => cur.property(n)?,
            SchemaStep::Items => cur.items.as_deref()?,
            SchemaStep::AdditionalProperties => match &cur.additional_properties {
                Some(StructuralOrBool::Structural(ap)) => ap,
                _ => return None,
            },
            SchemaStep::AllOf(_) => cur,
        };
    }
    Some(cur)
}

fn node_at_mut<'a>(root: &'a mut Structural, steps: &[SchemaStep]) -> Option<&'a mut Structural> {
    let mut cur = root;
    for s in steps {
        cur = match s {
            SchemaStep::Property(n) => cur
                .properties
                .iter_mut()
                .find(|(k, _)| k.as_str() == &**n)
                .map(|(_, v)| v)?,
            SchemaStep::Items => cur.items.as_deref_mut()?,
            SchemaStep::AdditionalProperties => match &mut cur.additional_properties {
                Some(StructuralOrBool::Structural(ap)) => ap,
                _ => return None,
            },
            SchemaStep::AllOf(_) => cur,
        };
    }
    Some(cur)
}

#[cfg(test)]
pub(crate) mod oracle {
    //! The trials checked against their definition: the rule's cost on a copy of the
    //! whole schema with the bound set, walked from the root.
    use super::super::node_context;
    use super::*;

    fn cost_walking_from_the_root(root: &Structural, input: &RuleInput<'_>) -> u64 {
        let Some(ctx) = node_context(root, input.node.iter()) else {
            return 0;
        };
        ctx.decl()
            .map_or(0, |decl| cost_on(input, decl, ctx.cardinality))
    }

    /// For each bound the search would try on `input`'s rule, at values from 0 to
    /// past the request size, the trial's cost and the walk's; the number of pairs
    /// compared, or the first that differ.
    pub(crate) fn compare_trials(
        root: &Structural,
        input: &RuleInput<'_>,
    ) -> Result<usize, String> {
        let Some(ctx) = node_context(root, input.node.iter()) else {
            return Ok(0);
        };
        let Some(decl) = ctx.decl() else {
            return Ok(0);
        };
        let mut trials = Trials::new(root, &ctx, input);
        let mut compared = 0;
        for (prefix, below) in knobs(&ctx, decl, input) {
            let steps: Vec<SchemaStep> = input
                .node
                .prefix(prefix)
                .iter()
                .chain(&below)
                .cloned()
                .collect();
            let Some(value) = node_at(root, &steps) else {
                continue;
            };
            let Some(keyword) = keyword_for(value) else {
                continue;
            };
            let hops = (prefix == input.node.len())
                .then(|| trials.value_hops(decl, &below))
                .flatten();
            for v in [0, 1, 2, 3, 7, 100, 4_096, 1 << 20, 3 * (1 << 20), i64::MAX] {
                let mut whole = root.clone();
                set_bound(node_at_mut(&mut whole, &steps).unwrap(), keyword, Some(v));
                let expected = cost_walking_from_the_root(&whole, input);
                let mut got = Vec::new();
                if prefix < input.node.len() {
                    got.push((
                        "cardinality",
                        trials.cost_with_level_bound(prefix, keyword, v),
                    ));
                } else {
                    let mut node = ctx.schema.clone();
                    set_bound(node_at_mut(&mut node, &below).unwrap(), keyword, Some(v));
                    got.push(("node typed whole", trials.cost_with_node(&node)));
                    if let Some(hops) = &hops {
                        let cost = trials.cost_with_value_bound(value, &below, hops, keyword, v);
                        got.push(("value typed alone", cost.expect("the value's type")));
                    }
                }
                for (how, cost) in got {
                    if cost != expected {
                        return Err(format!(
                            "{keyword} {v} at {}: {how} {cost}, walk {expected}",
                            super::super::data_path_of(&steps)
                        ));
                    }
                    compared += 1;
                }
            }
        }
        Ok(compared)
    }
}
