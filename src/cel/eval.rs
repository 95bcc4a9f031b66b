//! Evaluating a CRD's compiled rules on a custom resource, as the API server does
//! (apiextensions `schema/cel/validation.go`):
//!
//! - Order: at each node its rules run first (in declaration order), then its
//!   children (list items, map values, properties in document order).
//! - `self` is the value at the rule's node, typed by the schema (set/map lists keep
//!   their equality and `+`; the resource root and embedded resources expose
//!   `apiVersion`, `kind`, `metadata.name` and `metadata.generateName`).
//! - `oldSelf` (updates only) is the correlated old value: objects by property and
//!   granular/atomic maps by key, `x-kubernetes-list-type: map` lists by their keys;
//!   nothing else correlates. Rules using `oldSelf` are skipped without an old value
//!   unless `optionalOldSelf` is set (then `oldSelf` is `optional.none()`).
//! - Failures: `messageExpression`'s result (trimmed; ignored when it fails, is
//!   empty, has a line break or exceeds 5 KiB), else `message`, else
//!   `failed rule: <rule>`; under the rule's `reason` and `fieldPath`; the value is
//!   omitted for objects and arrays. Runtime errors read `<error> evaluating rule:
//!   <rule>`.
//! - Cost: the per-call limit and the per-object budget (`RuntimeCELCostBudget`) end
//!   evaluation with the server's messages.
//! - Ratcheting (`CRDValidationRatcheting`, on by default): on update, a failure of a
//!   rule without `oldSelf` on a value equal to its old value (or under an unchanged
//!   correlatable ancestor) is a warning instead of an error.
//! - Rules inside `allOf` (compiled by [`super::compile::compile_all_of_rules`]) run
//!   after the node's own rules on the same value and field path, before the node's
//!   children; their `properties`/`items`/`additionalProperties` reach only children
//!   the node declares; they are ratcheted only through an unchanged correlatable
//!   ancestor; compile failures are reported on every object. None of this happens
//!   unless the structural schema itself has rules (the server builds no validator
//!   otherwise). Rules in `anyOf`/`oneOf`/`not` never run. (The server refuses to
//!   create a CRD with rules in any of these places; CRDs loaded from files may have
//!   them.)

use super::reach::ValidatorReach;
use super::rule_tree::RuleTree;
use std::collections::HashMap;
use std::sync::Arc;

use super::compile::{
    CEL_RULE_FAILED, CEL_RULE_RATCHETED, CEL_RUNTIME_ERROR, RuleCompileResult, RuleProgram,
    RuntimeCompileError, SchemaStep,
};
use super::interp::{self, EvalError, PER_CALL_LIMIT};
use super::value::{Val, from_node, from_resource_node};
use crate::diag::{
    BadValue, Diagnostic, ErrorType, FieldError, FieldPath, LazyPath, Severity, budget,
};
use crate::model::schema::ValidationRule;
use crate::schema::correlate::{Correlation, ItemCorrelations};
use crate::schema::structural::{NestedValueValidation, Structural, StructuralOrBool};
use crate::source::{Node, Span, Value as NodeValue};

/// The server's per-object budget (`celconfig.RuntimeCELCostBudget`).
pub const RUNTIME_COST_BUDGET: i64 = super::cost::runtime::RUNTIME_CEL_COST_BUDGET;
/// `celconfig.MaxEvaluatedMessageExpressionSizeBytes`.
pub const MAX_MESSAGE_EXPRESSION_BYTES: usize = 5 * 1024;

/// A rule crdlint could not evaluate, and why (never silently dropped).
#[derive(Clone, Debug, PartialEq)]
pub struct NotEvaluated {
    pub field: FieldPath,
    pub rule: String,
    pub reason: String,
    /// Where the rule's value is written.
    pub span: Span,
}

#[derive(Debug, Default)]
pub struct EvalOutcome {
    /// Errors, in the server's order.
    pub diagnostics: Vec<Diagnostic>,
    /// Ratcheted failures: the server returns them as warnings (`Warning: <error>`).
    pub warnings: Vec<Diagnostic>,
    pub not_evaluated: Vec<NotEvaluated>,
    /// The per-object budget left after evaluation, as the server's validator returns
    /// it (`-1` once it ran out or a rule hit the per-call limit).
    pub remaining_budget: i64,
}

/// How to evaluate.
#[derive(Clone, Copy, Debug)]
pub struct EvalOptions {
    /// Validation ratcheting on updates (feature gate `CRDValidationRatcheting`,
    /// default on since Kubernetes 1.30).
    pub ratcheting: bool,
    /// The per-object cost budget.
    pub cost_budget: i64,
    /// The per-call cost limit.
    pub per_call_limit: u64,
    /// The schema evaluated is a resource's root (else a default's node that is not
    /// one): the validator types its `apiVersion`, `kind` and `metadata` itself.
    pub is_resource_root: bool,
    /// A failed rule's bad value is the node's schema type (`Invalid value: "object":
    /// failed rule: …`), as servers before 1.35 report it; 1.35 reports the value
    /// itself, or none for objects and arrays.
    pub type_name_as_value: bool,
}

impl EvalOptions {
    /// The server's default options for a server of `version`.
    pub fn for_server(version: super::env::KubeVersion) -> EvalOptions {
        EvalOptions {
            type_name_as_value: version < super::env::KubeVersion::new(1, 35),
            ..EvalOptions::default()
        }
    }
}

impl Default for EvalOptions {
    fn default() -> Self {
        EvalOptions {
            ratcheting: true,
            cost_budget: RUNTIME_COST_BUDGET,
            per_call_limit: PER_CALL_LIMIT,
            is_resource_root: true,
            type_name_as_value: false,
        }
    }
}

/// Evaluates every compiled rule of `root` on `object` (and `old`, for updates) with
/// the server's default options.
pub fn evaluate(
    root: &Structural,
    compiled: &[RuleCompileResult],
    object: &Node,
    old: Option<&Node>,
) -> EvalOutcome {
    evaluate_with(root, compiled, object, old, &EvalOptions::default())
}

/// [`evaluate`] with explicit options.
pub fn evaluate_with(
    root: &Structural,
    compiled: &[RuleCompileResult],
    object: &Node,
    old: Option<&Node>,
    options: &EvalOptions,
) -> EvalOutcome {
    let tree = RuleTree::new(
        compiled,
        &ValidatorReach::new(root, options.is_resource_root),
    );
    run(
        root,
        compiled,
        &tree,
        has_spine_rules(compiled),
        object,
        old,
        options,
    )
}

/// The server builds its validator only when the structural schema itself (not only
/// an `allOf`) has rules; rules inside `allOf` then run with it.
fn has_spine_rules(compiled: &[RuleCompileResult]) -> bool {
    compiled
        .iter()
        .any(|r| !r.node.iter().any(|s| matches!(s, SchemaStep::AllOf(_))))
}

/// A version's compiled rules and the tree the evaluator walks, built once.
pub struct CompiledRules {
    results: Vec<RuleCompileResult>,
    tree: RuleTree,
    spine_rules: bool,
}

impl CompiledRules {
    /// `root`: the resource root schema the rules were compiled from.
    pub fn new(root: &Structural, results: Vec<RuleCompileResult>) -> CompiledRules {
        let tree = RuleTree::new(&results, &ValidatorReach::new(root, true));
        let spine_rules = has_spine_rules(&results);
        CompiledRules {
            results,
            tree,
            spine_rules,
        }
    }

    pub fn results(&self) -> &[RuleCompileResult] {
        &self.results
    }
}

/// [`evaluate_with`] on rules compiled and arranged beforehand.
pub fn evaluate_compiled(
    root: &Structural,
    rules: &CompiledRules,
    object: &Node,
    old: Option<&Node>,
    options: &EvalOptions,
) -> EvalOutcome {
    run(
        root,
        &rules.results,
        &rules.tree,
        rules.spine_rules,
        object,
        old,
        options,
    )
}

fn run(
    root: &Structural,
    results: &[RuleCompileResult],
    tree: &RuleTree,
    spine_rules: bool,
    object: &Node,
    old: Option<&Node>,
    options: &EvalOptions,
) -> EvalOutcome {
    let mut out = EvalOutcome {
        remaining_budget: options.cost_budget,
        ..EvalOutcome::default()
    };
    if tree.is_empty() || !spine_rules {
        return out;
    }
    let _work = super::work::start_object();
    // The object and the old object are borrowed unchanged for the whole walk.
    let _lookups = crate::schema::correlate::key_lookups();
    let ratchet = match old {
        Some(o) if options.ratcheting => Ratchet {
            current: Some(Corr {
                new: object,
                old: Correlation::new(o, root),
            }),
            parent: None,
        },
        _ => Ratchet::default(),
    };
    let mut w = Walker {
        results,
        out: &mut out,
        budget: options.cost_budget,
        per_call_limit: options.per_call_limit,
        type_name_as_value: options.type_name_as_value,
        unchanged: HashMap::new(),
        work_stopped: false,
    };
    w.validate(
        root,
        Rules::Spine(root),
        tree,
        object,
        old,
        &LazyPath::Root,
        ratchet,
        true,
        0,
    );
    out.remaining_budget = w.budget;
    out
}

/// What the walker runs at a node: a compiled rule, or the compile failure the server
/// reports in its place (rules inside `allOf` are compiled only at validation).
#[derive(Clone, Copy)]
enum Entry<'a> {
    Program(&'a Arc<RuleProgram>),
    CompileError(&'a RuntimeCompileError),
}

/// Where a node's rules come from: the structural schema itself, or an `allOf`
/// entry applied to the same node (the server's `nestedToStructural`).
#[derive(Clone, Copy)]
enum Rules<'a> {
    Spine(&'a Structural),
    Nested(&'a NestedValueValidation),
}

impl<'a> Rules<'a> {
    fn rules(self) -> &'a [ValidationRule] {
        match self {
            Rules::Spine(s) => &s.x_validations,
            Rules::Nested(n) => &n.x_validations,
        }
    }

    fn all_of(self) -> &'a [NestedValueValidation] {
        match self {
            Rules::Spine(s) => s.value_validation.as_deref().map_or(&[], |v| &v.all_of),
            Rules::Nested(n) => &n.value_validation.all_of,
        }
    }

    fn items(self) -> Option<Rules<'a>> {
        match self {
            Rules::Spine(s) => s.items.as_deref().map(Rules::Spine),
            Rules::Nested(n) => n.items.as_deref().map(Rules::Nested),
        }
    }

    fn property(self, k: &str) -> Option<Rules<'a>> {
        match self {
            Rules::Spine(s) => s.property(k).map(Rules::Spine),
            Rules::Nested(n) => n.properties.get(k).map(Rules::Nested),
        }
    }

    fn additional_properties(self) -> Option<Rules<'a>> {
        match self {
            Rules::Spine(s) => s.additional_properties_schema().map(Rules::Spine),
            Rules::Nested(n) => n.additional_properties.as_deref().map(Rules::Nested),
        }
    }
}

/// A node of the new object with its old counterpart, for ratcheting
/// (apiserver `common.CorrelatedObject`; correlation itself is
/// [`crate::schema::correlate`], shared with OpenAPI ratcheting).
#[derive(Clone, Copy)]
struct Corr<'a> {
    new: &'a Node,
    old: Correlation<'a>,
}

impl<'a> Corr<'a> {
    fn key(&self, field: &str) -> Option<Corr<'a>> {
        let old = self.old.key(self.new, field)?;
        let new = crate::schema::correlate::field_of(self.new.as_object()?, field)?;
        Some(Corr { new, old })
    }

    /// `CachedDeepEqual`: equal, with list-type map lists compared by key.
    fn unchanged(&self) -> bool {
        self.old.unchanged(self.new, 0)
    }
}

/// The ratcheting state at a node (apiextensions `ratchetingOptions`).
#[derive(Clone, Copy, Default)]
struct Ratchet<'a> {
    current: Option<Corr<'a>>,
    parent: Option<Corr<'a>>,
}

impl<'a> Ratchet<'a> {
    fn key(self, field: &str) -> Ratchet<'a> {
        let Some(cur) = self.current else {
            return self;
        };
        if self.parent.is_none() && (field == "apiVersion" || field == "kind") {
            return Ratchet::default();
        }
        Ratchet {
            current: cur.key(field),
            parent: Some(cur),
        }
    }

    /// The old items of the current list by key, built once per list (the server
    /// caches its `MapList` on the correlated object the same way).
    fn items(&self) -> Option<ItemCorrelations<'a>> {
        self.current?.old.items()
    }

    /// The state at item `i`, given [`Ratchet::items`] of this list.
    fn index(self, i: usize, items: Option<&ItemCorrelations<'a>>) -> Ratchet<'a> {
        let Some(cur) = self.current else {
            return self;
        };
        let current = cur.new.as_array().and_then(|list| {
            let new = list.get(i)?;
            let old = items?.get(new)?;
            Some(Corr { new, old })
        });
        Ratchet {
            current,
            parent: Some(cur),
        }
    }

    /// Whether a failure here is ratcheted. The parent's answer is the same for all
    /// its children, and a whole list compared once per failing item was quadratic,
    /// so answers are cached by node.
    fn should_ratchet(&self, cache: &mut HashMap<(*const Node, *const Node), bool>) -> bool {
        let Some(c) = self.current.or(self.parent) else {
            return false;
        };
        *cache
            .entry((c.new as *const Node, c.old.old as *const Node))
            .or_insert_with(|| c.unchanged())
    }
}

fn map_correlatable(s: &Structural) -> bool {
    matches!(
        s.extensions.x_map_type.as_deref(),
        None | Some("granular") | Some("atomic")
    )
}

struct Walker<'a, 'o> {
    results: &'a [RuleCompileResult],
    out: &'o mut EvalOutcome,
    budget: i64,
    per_call_limit: u64,
    type_name_as_value: bool,
    /// [`Ratchet::should_ratchet`]'s answers by (new, old) node.
    unchanged: HashMap<(*const Node, *const Node), bool>,
    /// The evaluator's work limit ([`super::work`]) was reached: no further rule of
    /// the object runs (the one warning says so).
    work_stopped: bool,
}

impl Walker<'_, '_> {
    #[allow(clippy::too_many_arguments)]
    fn validate(
        &mut self,
        s: &Structural,
        rs: Rules<'_>,
        tree: &RuleTree,
        v: &Node,
        old: Option<&Node>,
        path: &LazyPath<'_>,
        ratchet: Ratchet<'_>,
        resource_root: bool,
        depth: usize,
    ) {
        if depth > 1000 || v.is_null() || self.budget < 0 || self.work_stopped {
            return;
        }
        let old = old.filter(|o| !o.is_null());
        self.expressions(s, rs, &tree.entries, v, old, path, ratchet, resource_root);
        if self.budget < 0 {
            return;
        }
        // `allOf` entries: more rules on the same value, never ratcheted on their own
        // (only through an unchanged correlatable ancestor).
        for (i, a) in rs.all_of().iter().enumerate() {
            let Some(subtree) = tree.all_of(i) else {
                continue;
            };
            let r = Ratchet {
                current: None,
                parent: ratchet.parent,
            };
            self.validate(
                s,
                Rules::Nested(a),
                subtree,
                v,
                old,
                path,
                r,
                resource_root,
                depth + 1,
            );
            if self.budget < 0 {
                return;
            }
        }
        match &v.value {
            NodeValue::Array(items) => {
                let (Some(it), Some(rit), Some(subtree)) =
                    (s.items.as_deref(), rs.items(), tree.items())
                else {
                    return;
                };
                // `oldSelf` of each item: the old item with the same keys in a map
                // list (indexed once per list, not searched per item).
                let old_items = old.and_then(|o| Correlation::new(o, s).items());
                // Ratcheting correlates the same old list under the same schema unless
                // an `allOf` or uncorrelatable ancestor cut it off: one index serves both.
                let own_items;
                let ratchet_items = match ratchet.current {
                    Some(c)
                        if old.is_some_and(|o| std::ptr::eq(o, c.old.old))
                            && std::ptr::eq(s, c.old.schema) =>
                    {
                        old_items.as_ref()
                    }
                    _ => {
                        own_items = ratchet.items();
                        own_items.as_ref()
                    }
                };
                for (i, child) in items.iter().enumerate() {
                    let old_child = old_items.as_ref().and_then(|c| c.get(child)).map(|c| c.old);
                    self.validate(
                        it,
                        rit,
                        subtree,
                        child,
                        old_child,
                        &LazyPath::Index(path, i),
                        ratchet.index(i, ratchet_items),
                        it.extensions.x_embedded_resource,
                        depth + 1,
                    );
                    if self.budget < 0 {
                        break;
                    }
                }
            }
            NodeValue::Object(m) => {
                let correlatable = map_correlatable(s);
                let old_map = old.and_then(|o| o.as_object()).filter(|_| correlatable);
                if let (Some(StructuralOrBool::Structural(ap)), Some(rap), Some(subtree)) = (
                    &s.additional_properties,
                    rs.additional_properties(),
                    tree.additional_properties(),
                ) {
                    for (k, child) in m.iter() {
                        let old_child =
                            old_map.and_then(|o| crate::schema::correlate::field_of(o, k));
                        self.validate(
                            ap,
                            rap,
                            subtree,
                            child,
                            old_child,
                            &LazyPath::Key(path, k),
                            ratchet.key(k),
                            ap.extensions.x_embedded_resource,
                            depth + 1,
                        );
                        if self.budget < 0 {
                            break;
                        }
                    }
                }
                if self.budget < 0 {
                    return;
                }
                for (k, child) in m.iter() {
                    let Some(subtree) = tree.property(k) else {
                        continue;
                    };
                    let (Some(prop), Some(rprop)) = (s.property(k), rs.property(k)) else {
                        continue;
                    };
                    let old_child = old_map.and_then(|o| crate::schema::correlate::field_of(o, k));
                    self.validate(
                        prop,
                        rprop,
                        subtree,
                        child,
                        old_child,
                        &LazyPath::Child(path, k),
                        ratchet.key(k),
                        prop.extensions.x_embedded_resource,
                        depth + 1,
                    );
                    if self.budget < 0 {
                        return;
                    }
                }
            }
            _ => {}
        }
    }

    /// A failed rule repeats its message (up to 5 KiB from a messageExpression, any
    /// length from `message`, a compile error) for every value it fails on: the
    /// object's findings are bounded (see [`budget`]; `FieldError::new` charged this
    /// one), and evaluation stops once they pass the limit.
    fn stop_past_findings_limit(&mut self) {
        if budget::exhausted() {
            self.budget = -1;
        }
    }

    fn invalid(&mut self, path: &FieldPath, type_name: &str, detail: String, span: Span) {
        let err = FieldError::invalid(path.clone(), type_name, detail);
        self.stop_past_findings_limit();
        self.out
            .diagnostics
            .push(Diagnostic::from_field_error(CEL_RUNTIME_ERROR, &err, span));
    }

    #[allow(clippy::too_many_arguments)]
    fn expressions(
        &mut self,
        s: &Structural,
        rs: Rules<'_>,
        entries: &[usize],
        v: &Node,
        old: Option<&Node>,
        path: &LazyPath<'_>,
        ratchet: Ratchet<'_>,
        resource_root: bool,
    ) {
        let results = self.results;
        let entries: Vec<(usize, Entry<'_>)> = entries
            .iter()
            .filter_map(|&i| {
                let r = &results[i];
                let entry = match (&r.program, &r.runtime_error) {
                    (Some(p), _) => Entry::Program(p),
                    (None, Some(e)) => Entry::CompileError(e),
                    (None, None) => return None,
                };
                Some((r.index, entry))
            })
            .collect();
        if entries.is_empty() {
            return;
        }
        // The walk passes a lazy path; the nodes with rules make theirs.
        let path = &path.to_path();
        let type_name = s.generic.type_.clone();
        if let Some((_, Entry::CompileError(RuntimeCompileError::Init(msg)))) = entries.first() {
            self.invalid(path, &type_name, msg.clone(), v.span);
            return;
        }
        if self.budget <= 0 {
            self.invalid(
                path,
                &type_name,
                super::cost::runtime::OUT_OF_BUDGET.into(),
                v.span,
            );
            self.budget = -1;
            return;
        }
        let convert = |n: &Node| {
            if resource_root {
                from_resource_node(n, s)
            } else {
                from_node(n, Some(s), 0)
            }
        };
        let self_val = convert(v);
        let uses_old = entries
            .iter()
            .any(|(_, e)| matches!(e, Entry::Program(p) if p.uses_old_self));
        let old_val = if uses_old { old.map(convert) } else { None };
        for (index, e) in entries {
            let p = match e {
                Entry::Program(p) => p,
                Entry::CompileError(err) => {
                    let (RuntimeCompileError::Init(m) | RuntimeCompileError::Rule(m)) = err;
                    self.invalid(path, &type_name, m.clone(), v.span);
                    continue;
                }
            };
            let Some(rule) = rs.rules().get(index) else {
                continue;
            };
            // Stopped by the findings limit inside a rule's report.
            if self.budget < 0 {
                return;
            }
            if !self.rule(
                s,
                rule,
                p,
                v,
                &self_val,
                old_val.as_ref(),
                path,
                ratchet,
                uses_old,
            ) {
                return;
            }
        }
    }

    /// Runs one rule; false when evaluation must stop (budget exhausted).
    #[allow(clippy::too_many_arguments)]
    fn rule(
        &mut self,
        s: &Structural,
        rule: &ValidationRule,
        p: &RuleProgram,
        node: &Node,
        self_val: &Val,
        old_val: Option<&Val>,
        path: &FieldPath,
        ratchet: Ratchet<'_>,
        node_uses_old: bool,
    ) -> bool {
        let type_name = s.generic.type_.as_ref();
        let optional_old_self = rule.optional_old_self == Some(true);
        if p.uses_old_self && old_val.is_none() && !optional_old_self {
            return true;
        }
        // The activation of the rule and the one messageExpression always gets.
        let mut vars: Vec<(&str, Val)> = vec![("self", self_val.clone())];
        let mut message_vars = vars.clone();
        if node_uses_old && let Some(o) = old_val {
            message_vars.push(("oldSelf", o.clone()));
        }
        if optional_old_self {
            // An old value of another type than the schema's is an error inside the
            // optional; taking it out (value(), orValue(), ==) fails with cel-go's
            // conversion error wrapped around the data error.
            let wrap = |o: &Val| match o {
                Val::Error(m) => Val::Error(Arc::from(format!(
                    "unsupported conversion to ref.Val: (*errors.errorString){m}"
                ))),
                other => other.clone(),
            };
            vars.push(("oldSelf", Val::Optional(old_val.map(|o| Box::new(wrap(o))))));
        } else if let Some(o) = old_val {
            vars.push(("oldSelf", o.clone()));
        }
        let rule_text = rule_error_string(rule);
        let (result, cost) = interp::eval(&p.rule, &vars, self.per_call_limit);
        let span = node.span;
        if cost as i128 > self.budget as i128 {
            self.invalid(
                path,
                type_name,
                super::cost::runtime::OUT_OF_BUDGET.into(),
                span,
            );
            self.budget = -1;
            return false;
        }
        self.budget -= cost as i64;
        match result {
            Ok(Val::Bool(true)) => true,
            Ok(Val::Bool(false)) => self.failed(s, rule, p, node, &message_vars, path, ratchet),
            Ok(_) => {
                self.invalid(
                    path,
                    type_name,
                    format!(
                        "'no such overload': call arguments did not match a supported operator, function or macro signature for rule: {rule_text}"
                    ),
                    span,
                );
                true
            }
            Err(
                e @ (EvalError::Unsupported(_) | EvalError::Unavailable(_) | EvalError::WorkLimit),
            ) => {
                self.out.not_evaluated.push(NotEvaluated {
                    field: path.clone(),
                    rule: rule.rule.clone(),
                    reason: e.to_string(),
                    span,
                });
                if e == EvalError::WorkLimit {
                    self.work_stopped = true;
                    return false;
                }
                true
            }
            Err(EvalError::CostLimit) => {
                self.invalid(
                    path,
                    type_name,
                    format!(
                        "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {rule_text}"
                    ),
                    span,
                );
                self.budget = -1;
                false
            }
            Err(EvalError::Message(m) | EvalError::Internal(m)) => {
                let detail = if m.starts_with("no such overload") {
                    format!(
                        "'{m}': call arguments did not match a supported operator, function or macro signature for rule: {rule_text}"
                    )
                } else {
                    format!("{m} evaluating rule: {rule_text}")
                };
                self.invalid(path, type_name, detail, span);
                true
            }
        }
    }

    /// Reports a rule that evaluated to false; false when evaluation must stop.
    #[allow(clippy::too_many_arguments)]
    fn failed(
        &mut self,
        s: &Structural,
        rule: &ValidationRule,
        p: &RuleProgram,
        node: &Node,
        message_vars: &[(&str, Val)],
        path: &FieldPath,
        ratchet: Ratchet<'_>,
    ) -> bool {
        let type_name = s.generic.type_.as_ref();
        let mut field = path.clone();
        if let Some(fp) = &p.normalized_field_path {
            field = field.child(fp);
        }
        let span = node.span;
        let ratcheted = !p.uses_old_self && ratchet.should_ratchet(&mut self.unchanged);
        let mut detail = None;
        if let Some(me) = &p.message_expression {
            let (r, cost) = interp::eval(me, message_vars, self.per_call_limit);
            let stop = |msg: String| FieldError::invalid(field.clone(), type_name, msg);
            if cost as i128 > self.budget as i128 {
                let e = stop(super::cost::runtime::MESSAGE_EXPRESSION_OUT_OF_BUDGET.into());
                self.report(&e, CEL_RUNTIME_ERROR, span, ratcheted);
                self.budget = -1;
                return false;
            }
            if let Err(EvalError::CostLimit) = r {
                let e = stop(format!(
                    "no further validation rules will be run due to call cost exceeds limit for messageExpression: {}",
                    crate::diag::gofmt::quote(rule.message_expression.as_deref().unwrap_or(""))
                ));
                self.report(&e, CEL_RUNTIME_ERROR, span, ratcheted);
                self.budget = -1;
                return false;
            }
            self.budget -= cost as i64;
            if let Ok(Val::String(m)) = r {
                let m = m.trim();
                if !m.is_empty() && m.len() <= MAX_MESSAGE_EXPRESSION_BYTES && !m.contains('\n') {
                    detail = Some(m.to_string());
                }
            }
        }
        let detail = detail.unwrap_or_else(|| match rule.message.as_deref() {
            Some(m) if !m.is_empty() => m.trim().to_string(),
            _ => format!("failed rule: {}", rule_error_string(rule)),
        });
        let value = if self.type_name_as_value {
            BadValue::from(type_name)
        } else if matches!(type_name, "object" | "array") {
            BadValue::Omit
        } else {
            BadValue::from(&node.value)
        };
        let err = match rule.reason.as_deref() {
            Some("FieldValueForbidden") => FieldError::forbidden(field, detail),
            Some("FieldValueRequired") => FieldError::required(field, detail),
            Some("FieldValueDuplicate") => FieldError::new(ErrorType::Duplicate, field, value, ""),
            _ => FieldError::new(ErrorType::Invalid, field, value, detail),
        };
        self.report(&err, CEL_RULE_FAILED, span, ratcheted);
        true
    }

    fn report(&mut self, err: &FieldError, code: &'static str, span: Span, ratcheted: bool) {
        self.stop_past_findings_limit();
        if ratcheted {
            let d = Diagnostic::from_field_error(CEL_RULE_RATCHETED, err, span)
                .with_severity(Severity::Warning)
                .with_help("the value is unchanged from the old object, so the server accepts it (validation ratcheting) and returns this as a warning");
            let _ = code;
            self.out.warnings.push(d);
        } else {
            self.out
                .diagnostics
                .push(Diagnostic::from_field_error(code, err, span));
        }
    }
}

fn rule_error_string(rule: &ValidationRule) -> String {
    match rule.message.as_deref() {
        Some(m) if !m.is_empty() => m.trim().to_string(),
        _ => rule.rule.trim().to_string(),
    }
}

/// Compiled rules by (version, schema identity).
type CompiledCache = HashMap<(String, usize), Arc<CompiledRules>>;

/// The CEL rules of one CRD, compiled once per version on first use for the configured
/// server version, ready to evaluate creates and updates.
///
/// The cache is keyed by the schema's address: a `CrdRules` must not outlive the
/// schemas it is given (a freed schema's address can be reused by another one, which
/// would then get its rules). `check::resources::PreparedCrd` owns both together.
pub struct CrdRules {
    kube_version: super::env::KubeVersion,
    options: EvalOptions,
    compiled: std::sync::Mutex<CompiledCache>,
}

impl CrdRules {
    pub fn new(kube_version: super::env::KubeVersion) -> CrdRules {
        CrdRules {
            kube_version,
            options: EvalOptions::for_server(kube_version),
            compiled: Default::default(),
        }
    }

    pub fn with_options(mut self, options: EvalOptions) -> CrdRules {
        self.options = options;
        self
    }

    /// The compiled rules of `schema` (cached by version and schema identity).
    pub fn compiled(&self, version: &str, schema: &Structural) -> Arc<CompiledRules> {
        let key = Self::key(version, schema);
        if let Ok(guard) = self.compiled.lock()
            && let Some(c) = guard.get(&key)
        {
            return c.clone();
        }
        let rules = super::compile::compile_rules(schema, self.kube_version, &Self::base());
        self.insert(key, schema, rules)
    }

    /// Caches the rules of `schema` compiled elsewhere by
    /// [`super::compile::compile_rules`] for this server version (CRD validation
    /// compiles them too; the field paths of its findings differ, the programs do not).
    pub fn prefill(&self, version: &str, schema: &Structural, rules: Vec<RuleCompileResult>) {
        self.insert(Self::key(version, schema), schema, rules);
    }

    /// How many versions' rules are compiled and cached.
    pub fn cached(&self) -> usize {
        self.compiled.lock().map_or(0, |c| c.len())
    }

    fn key(version: &str, schema: &Structural) -> (String, usize) {
        (version.to_string(), schema as *const Structural as usize)
    }

    fn base() -> FieldPath {
        FieldPath::root("spec.validation.openAPIV3Schema")
    }

    fn insert(
        &self,
        key: (String, usize),
        schema: &Structural,
        mut rules: Vec<RuleCompileResult>,
    ) -> Arc<CompiledRules> {
        rules.extend(super::compile::compile_all_of_rules(
            schema,
            self.kube_version,
            &Self::base(),
        ));
        let c = Arc::new(CompiledRules::new(schema, rules));
        if let Ok(mut guard) = self.compiled.lock() {
            guard.insert(key, c.clone());
        }
        c
    }

    /// Evaluates an update (`old` present) or a create.
    pub fn evaluate_update(
        &self,
        version: &str,
        schema: &Structural,
        object: &Node,
        old: Option<&Node>,
    ) -> EvalOutcome {
        let compiled = self.compiled(version, schema);
        evaluate_compiled(schema, &compiled, object, old, &self.options)
    }
}
