//! The server's cost-limit errors on a CRD schema, with its field paths and texts
//! (apiextensions `validation.go` `getCostErrorMessage`), plus crdlint's notes: the
//! estimate, the limit and the cardinality behind each breach.

use super::{CardinalityStep, PER_RULE_LIMIT, PER_SCHEMA_LIMIT, RuleCost, SchemaCost};
use crate::diag::FieldError;
use crate::source::Span;

crate::declare_codes! {
    CEL_COST_RULE = "cel-cost-rule", Error, "A CEL rule or messageExpression's estimated cost (times its cardinality) exceeds the per-rule limit";
    CEL_COST_TOTAL = "cel-cost-total", Error, "The estimated cost of all CEL rules of a schema exceeds the per-CRD limit";
}

/// One cost-limit error, ready to become a diagnostic.
#[derive(Clone, Debug)]
pub struct LimitFinding {
    pub code: &'static str,
    /// The server's error (always `Forbidden`).
    pub error: FieldError,
    /// The rule (or messageExpression) in the file; `None` for the schema total,
    /// which points at the schema.
    pub span: Option<Span>,
    /// The estimate, the limit and the cardinality, and what to do.
    pub help: String,
}

/// `getCostErrorMessage`.
pub fn cost_error_message(cost_name: &str, cost: u64, limit: u64) -> String {
    let factor = cost as f64 / limit as f64;
    let factor = if factor > 100.0 {
        "more than 100x".to_string()
    } else if factor < 1.5 {
        format!("{factor:.6}x")
    } else {
        format!("{factor:.1}x")
    };
    format!(
        "{cost_name} exceeds budget by factor of {factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)"
    )
}

/// Thousands separators for people: `10,000,000`.
pub fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::with_capacity(s.len() + s.len() / 3);
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The data paths of a chain as people read them: each after the first without the
/// path before it (`spec.rules[*]`, `.matches[*]`), so that a chain under D nested
/// lists is not D paths of up to D steps.
pub fn shown_data_paths(chain: &[CardinalityStep]) -> Vec<&str> {
    let mut prev = "";
    chain
        .iter()
        .map(|s| {
            let shown = match s.data_path.strip_prefix(prev) {
                Some(rest) if !prev.is_empty() => rest,
                _ => s.data_path.as_str(),
            };
            prev = &s.data_path;
            shown
        })
        .collect()
}

/// How the cardinality of a rule came about, in one line.
pub fn cardinality_note(r: &RuleCost) -> String {
    let chain = r.chain();
    match r.schema_max_cardinality {
        Some(c) => {
            if chain.is_empty() {
                format!("cardinality {c} (no list or map above the rule)")
            } else {
                let parts: Vec<String> = chain
                    .iter()
                    .zip(shown_data_paths(&chain))
                    .map(|(s, shown)| {
                        format!(
                            "{shown} ({} {})",
                            s.keyword,
                            s.max.map(|m| m.to_string()).unwrap_or_default()
                        )
                    })
                    .collect();
                format!("cardinality {} = {}", grouped(c), parts.join(" × "))
            }
        }
        None => {
            let unset: Vec<String> = chain
                .iter()
                .filter(|s| s.max.is_none())
                .map(|s| format!("{} ({} unset)", s.data_path, s.keyword))
                .collect();
            format!(
                "cardinality {} = 3 MiB / ({} bytes, the smallest {} + 1) because {} bounds it",
                grouped(r.rule_max_cardinality),
                r.min_serialized_size,
                r.data_path(),
                if unset.is_empty() {
                    "nothing".to_string()
                } else {
                    format!("nothing above {}", unset.join(", "))
                }
            )
        }
    }
}

/// The per-rule, per-messageExpression and per-schema limit errors of one schema,
/// in the server's order (rules in walk order, then the total).
/// `suppress_per_expression` mirrors the server skipping per-rule limits for a
/// version whose schema is unchanged on update.
pub fn limit_findings(cost: &SchemaCost, suppress_per_expression: bool) -> Vec<LimitFinding> {
    let mut out = Vec::new();
    for r in &cost.rules {
        // The help names every list above the rule, each by its whole path: under
        // 300 nested lists, 4,000 rules over the limit made 640 MB of findings from a
        // 660 KB CRD. Charged (the error itself is, when built); past the object's
        // limit no more are listed.
        if crate::diag::budget::exhausted() {
            break;
        }
        if !suppress_per_expression && r.estimated_cost > PER_RULE_LIMIT {
            let detail =
                cost_error_message("estimated rule cost", r.estimated_cost, PER_RULE_LIMIT);
            out.push(LimitFinding {
                code: CEL_COST_RULE,
                error: FieldError::forbidden(r.field.to_path(), detail),
                span: Some(r.span),
                help: format!(
                    "estimated cost {} = {} per evaluation × {}; the limit is {}. Run `crdlint cost` for the largest maxItems/maxLength values that fit",
                    grouped(r.estimated_cost),
                    grouped(r.max_cost),
                    cardinality_note(r),
                    grouped(PER_RULE_LIMIT)
                ),
            });
            charge_help(&out);
        }
        if let Some(me) = &r.message_expression
            && !suppress_per_expression
            && me.max_cost > PER_RULE_LIMIT
        {
            let detail = cost_error_message(
                "estimated messageExpression cost",
                me.max_cost,
                PER_RULE_LIMIT,
            );
            out.push(LimitFinding {
                code: CEL_COST_RULE,
                error: FieldError::forbidden(me.field.to_path(), detail),
                span: Some(me.span),
                help: format!(
                    "estimated messageExpression cost {} per evaluation; the limit is {}. Bound the lists and strings it reads (maxItems, maxLength)",
                    grouped(me.max_cost),
                    grouped(PER_RULE_LIMIT)
                ),
            });
            charge_help(&out);
        }
    }
    out.extend(total_findings(cost));
    out
}

/// Charges the help of the finding just pushed (its error was charged when built).
fn charge_help(out: &[LimitFinding]) {
    if let Some(last) = out.last() {
        crate::diag::budget::charge_more(last.help.len());
    }
}

/// The per-schema total errors alone.
pub fn total_findings(cost: &SchemaCost) -> Vec<LimitFinding> {
    let mut out = Vec::new();
    if cost.total <= PER_SCHEMA_LIMIT {
        return out;
    }
    for (path, c, span) in &cost.most_expensive {
        let span = Some(*span);
        out.push(LimitFinding {
            code: CEL_COST_TOTAL,
            error: FieldError::forbidden(
                path.clone(),
                "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema",
            ),
            span,
            help: format!(
                "this rule's estimated cost is {} of the schema's total {} (limit {})",
                grouped(*c),
                grouped(cost.total),
                grouped(PER_SCHEMA_LIMIT)
            ),
        });
    }
    out.push(LimitFinding {
        code: CEL_COST_TOTAL,
        error: FieldError::forbidden(
            cost.base.clone(),
            cost_error_message(
                "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
                cost.total,
                PER_SCHEMA_LIMIT,
            ),
        ),
        span: None,
        help: format!(
            "the rules of this schema together are estimated at {} (limit {}); run `crdlint cost` to see which rules cost most",
            grouped(cost.total),
            grouped(PER_SCHEMA_LIMIT)
        ),
    });
    out
}
