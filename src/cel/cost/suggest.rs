//! Concrete fixes for costly rules, found by re-estimating: for each list, map or
//! string that multiplies a rule's cost (the lists and maps above its node, and the
//! values the rule reads), the largest `maxItems` / `maxProperties` / `maxLength`
//! that alone brings the estimate to the target.

use super::compile_support::RuleInput;
use super::{SchemaStep, estimator, max_cardinality, multiply_with_overflow_guard, node_context};
use crate::diag::FieldPath;
use crate::schema::structural::{Structural, StructuralOrBool, ValueValidation};

/// One bound to add (or lower) in the schema.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    /// Steps from the root to the schema node to bound.
    pub steps: Vec<SchemaStep>,
    /// Its field path (`spec.versions[0].schema.openAPIV3Schema.properties[spec]…`).
    pub schema_path: FieldPath,
    /// Its data path for people (`spec.rules`, `spec.rules[*].name`).
    pub data_path: String,
    /// `maxItems`, `maxProperties` or `maxLength`.
    pub keyword: &'static str,
    /// What the schema says now.
    pub current: Option<i64>,
    /// The largest value that reaches the target.
    pub value: i64,
    /// The rule's estimated cost with that value.
    pub estimated_cost: u64,
}

/// The single-bound fixes that bring `rule`'s estimated cost to at most `target`
/// (best first: the ones allowing the largest data). Bounds that cannot reach the
/// target alone (even at 0) are left out.
pub fn suggestions(
    root: &Structural,
    input: &RuleInput<'_>,
    base: &FieldPath,
    target: u64,
) -> Vec<Suggestion> {
    let Some(ctx) = node_context(root, input.node, base) else {
        return Vec::new();
    };
    let Some(decl) = ctx.decl() else {
        return Vec::new();
    };
    let (_, seen) = estimator::estimate_cost_seen(input.checked, Some(decl), input.model, true);
    let mut knobs: Vec<Vec<SchemaStep>> = Vec::new();
    for (i, step) in input.node.iter().enumerate() {
        if matches!(step, SchemaStep::Items | SchemaStep::AdditionalProperties) {
            knobs.push(input.node[..i].to_vec());
        }
    }
    for path in &seen {
        if let Some(steps) = value_steps(ctx.schema, &path[1..]) {
            let mut full = input.node.to_vec();
            full.extend(steps);
            knobs.push(full);
        }
    }
    let mut out = Vec::new();
    let mut work = root.clone();
    for steps in knobs {
        if out.iter().any(|s: &Suggestion| s.steps == steps) {
            continue;
        }
        let Some(node) = node_at(root, &steps) else {
            continue;
        };
        let Some(keyword) = keyword_for(node) else {
            continue;
        };
        let current = get_bound(node, keyword);
        let cost_with = |work: &mut Structural, v: Option<i64>| -> u64 {
            if let Some(n) = node_at_mut(work, &steps) {
                set_bound(n, keyword, v);
            }
            rule_cost(work, input, base)
        };
        // The largest value reaching the target, by bisection (costs grow with bounds).
        let hi_start: i64 = current.unwrap_or(super::super::schema_types::MAX_REQUEST_SIZE_BYTES);
        if cost_with(&mut work, Some(0)) > target {
            set_back(&mut work, &steps, keyword, current);
            continue;
        }
        let (mut lo, mut hi) = (0i64, hi_start);
        if cost_with(&mut work, Some(hi)) <= target {
            set_back(&mut work, &steps, keyword, current);
            continue;
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if cost_with(&mut work, Some(mid)) <= target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let estimated_cost = cost_with(&mut work, Some(lo));
        set_back(&mut work, &steps, keyword, current);
        let (schema_path, data_path) = describe(root, &steps, base);
        out.push(Suggestion {
            steps,
            schema_path,
            data_path,
            keyword,
            current,
            value: lo,
            estimated_cost,
        });
    }
    out.sort_by(|a, b| b.value.cmp(&a.value).then(a.data_path.cmp(&b.data_path)));
    out
}

fn set_back(work: &mut Structural, steps: &[SchemaStep], keyword: &str, v: Option<i64>) {
    if let Some(n) = node_at_mut(work, steps) {
        set_bound(n, keyword, v);
    }
}

/// The rule's estimated cost (× cardinality) against the schema as it is now.
pub fn rule_cost(root: &Structural, input: &RuleInput<'_>, base: &FieldPath) -> u64 {
    let Some(ctx) = node_context(root, input.node, base) else {
        return 0;
    };
    let Some(decl) = ctx.decl() else {
        return 0;
    };
    let max = estimator::estimate_cost(input.checked, Some(decl), input.model).max;
    let card = ctx
        .cardinality
        .unwrap_or_else(|| max_cardinality(decl.min_serialized_size));
    multiply_with_overflow_guard(max, card)
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
                out.push(SchemaStep::Property(prop.clone()));
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
                .find(|(k, _)| k == n)
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

/// The schema path and a data path (`spec.rules[*].name`) of a node.
pub fn describe(root: &Structural, steps: &[SchemaStep], base: &FieldPath) -> (FieldPath, String) {
    let _ = root;
    let mut path = base.clone();
    let mut data = String::new();
    for s in steps {
        match s {
            SchemaStep::Property(n) => {
                path = path.child("properties").key(n);
                if data.is_empty() {
                    data = n.clone();
                } else {
                    data = format!("{data}.{n}");
                }
            }
            SchemaStep::Items => {
                path = path.child("items");
                data = format!("{}[*]", if data.is_empty() { "<root>" } else { &data });
            }
            SchemaStep::AllOf(i) => path = path.child("allOf").index(*i),
            SchemaStep::AdditionalProperties => {
                path = path.child("additionalProperties");
                data = format!("{}[*]", if data.is_empty() { "<root>" } else { &data });
            }
        }
    }
    if data.is_empty() {
        data = "<root>".to_string();
    }
    (path, data)
}
