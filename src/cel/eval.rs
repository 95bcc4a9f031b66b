//! Evaluating a CRD's compiled rules on a custom resource, as the API server does
//! (apiextensions `schema/cel/validation.go`): `self` is bound to the value at each
//! rule's schema node, for every instance (list items, map values); failures are
//! reported with the rule's `message`, its `messageExpression` result, or
//! `failed rule: <rule>`, under its `reason` and `fieldPath`; runtime errors read
//! `<error> evaluating rule: <rule>`.
//!
//! Transition rules (`oldSelf`) run only with an old object; objects and maps are
//! correlated by property and key (list-map correlation is not implemented yet: those
//! transition rules are reported as not evaluated).

use std::collections::HashMap;
use std::sync::Arc;

use super::compile::{
    CEL_RULE_FAILED, CEL_RUNTIME_ERROR, RuleCompileResult, RuleProgram, SchemaStep,
};
use super::interp::{self, EvalError, PER_CALL_LIMIT};
use super::value::{Val, from_node};
use crate::diag::{BadValue, Diagnostic, ErrorType, FieldError, FieldPath};
use crate::model::schema::ValidationRule;
use crate::schema::structural::{Structural, StructuralOrBool};
use crate::source::{Node, Value as NodeValue};

/// A rule crdlint could not evaluate, and why (never silently dropped).
#[derive(Clone, Debug, PartialEq)]
pub struct NotEvaluated {
    pub field: FieldPath,
    pub rule: String,
    pub reason: String,
}

#[derive(Debug, Default)]
pub struct EvalOutcome {
    pub diagnostics: Vec<Diagnostic>,
    pub not_evaluated: Vec<NotEvaluated>,
}

/// Evaluates every compiled rule of `root` on `object` (and `old`, for updates).
pub fn evaluate(
    root: &Structural,
    compiled: &[RuleCompileResult],
    object: &Node,
    old: Option<&Node>,
) -> EvalOutcome {
    let mut by_node: HashMap<&[SchemaStep], Vec<(usize, &Arc<RuleProgram>)>> = HashMap::new();
    for r in compiled {
        if let Some(p) = &r.program {
            by_node
                .entry(r.node.as_slice())
                .or_default()
                .push((r.index, p));
        }
    }
    let mut out = EvalOutcome::default();
    if by_node.is_empty() {
        return out;
    }
    let mut w = Walker {
        by_node,
        out: &mut out,
        steps: Vec::new(),
    };
    w.node(root, object, old, &FieldPath::empty(), 0);
    out
}

struct Walker<'a, 'o> {
    by_node: HashMap<&'a [SchemaStep], Vec<(usize, &'a Arc<RuleProgram>)>>,
    out: &'o mut EvalOutcome,
    steps: Vec<SchemaStep>,
}

impl Walker<'_, '_> {
    fn node(
        &mut self,
        s: &Structural,
        v: &Node,
        old: Option<&Node>,
        path: &FieldPath,
        depth: usize,
    ) {
        if depth > 1000 || v.is_null() {
            return;
        }
        match &v.value {
            NodeValue::Object(m) => {
                for (k, child) in m.iter() {
                    let old_child = old.and_then(|o| o.get(k));
                    if let Some(prop) = s.property(k) {
                        self.steps.push(SchemaStep::Property(k.to_string()));
                        self.node(prop, child, old_child, &path.child(k), depth + 1);
                        self.steps.pop();
                    } else if let Some(StructuralOrBool::Structural(ap)) = &s.additional_properties
                    {
                        self.steps.push(SchemaStep::AdditionalProperties);
                        self.node(ap, child, old_child, &path.key(k), depth + 1);
                        self.steps.pop();
                    }
                }
            }
            NodeValue::Array(items) => {
                if let Some(it) = &s.items {
                    self.steps.push(SchemaStep::Items);
                    for (i, child) in items.iter().enumerate() {
                        self.node(it, child, None, &path.index(i), depth + 1);
                    }
                    self.steps.pop();
                }
            }
            _ => {}
        }
        let Some(programs) = self.by_node.get(self.steps.as_slice()).cloned() else {
            return;
        };
        let self_val = from_node(v, Some(s), 0);
        let old_val = old.map(|o| from_node(o, Some(s), 0));
        for (index, p) in programs {
            let Some(rule) = s.x_validations.get(index) else {
                continue;
            };
            self.run(s, rule, p, v, &self_val, old_val.as_ref(), path);
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        s: &Structural,
        rule: &ValidationRule,
        p: &RuleProgram,
        node: &Node,
        self_val: &Val,
        old_val: Option<&Val>,
        path: &FieldPath,
    ) {
        let optional_old_self = rule.optional_old_self == Some(true);
        if p.uses_old_self && old_val.is_none() && !optional_old_self {
            return;
        }
        let old_binding = match (optional_old_self, old_val) {
            (true, Some(o)) => Val::Optional(Some(Box::new(o.clone()))),
            (true, None) => Val::Optional(None),
            (false, Some(o)) => o.clone(),
            (false, None) => Val::Null,
        };
        let vars = [("self", self_val.clone()), ("oldSelf", old_binding)];
        let type_name = if s.generic.type_.is_empty() {
            ""
        } else {
            s.generic.type_.as_str()
        };
        let rule_text = rule_error_string(rule);
        let (result, _cost) = interp::eval(&p.rule, &vars, PER_CALL_LIMIT);
        let span = node.span;
        match result {
            Ok(Val::Bool(true)) => {}
            Ok(Val::Bool(false)) => {
                let mut field = path.clone();
                if let Some(fp) = &p.normalized_field_path {
                    field = field.child(fp);
                }
                let mut detail = None;
                if let Some(me) = &p.message_expression {
                    let (r, _) = interp::eval(me, &vars, PER_CALL_LIMIT);
                    if let Ok(Val::String(m)) = r
                        && !m.trim().is_empty()
                    {
                        detail = Some(m.to_string());
                    }
                }
                let detail =
                    detail.unwrap_or_else(|| match rule.message.as_deref().map(str::trim) {
                        Some(m) if !m.is_empty() => m.to_string(),
                        _ => format!("failed rule: {rule_text}"),
                    });
                let value = if matches!(type_name, "object" | "array") {
                    BadValue::Omit
                } else {
                    BadValue::from(&node.value)
                };
                let err = match rule.reason.as_deref() {
                    Some("FieldValueForbidden") => FieldError::forbidden(field, detail),
                    Some("FieldValueRequired") => FieldError::required(field, detail),
                    Some("FieldValueDuplicate") => {
                        FieldError::new(ErrorType::Duplicate, field, value, "")
                    }
                    _ => FieldError::new(ErrorType::Invalid, field, value, detail),
                };
                self.out.diagnostics.push(Diagnostic::from_field_error(
                    CEL_RULE_FAILED,
                    &err,
                    span,
                ));
            }
            Ok(_) => self.runtime_error(path, type_name, "no such overload", &rule_text, span),
            Err(EvalError::Unsupported(what)) => self.out.not_evaluated.push(NotEvaluated {
                field: path.clone(),
                rule: rule.rule.clone(),
                reason: format!("crdlint cannot evaluate {what} yet"),
            }),
            Err(EvalError::CostLimit) => {
                let detail = format!(
                    "'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: {rule_text}"
                );
                let err = FieldError::invalid(path.clone(), type_name, detail);
                self.out.diagnostics.push(Diagnostic::from_field_error(
                    CEL_RUNTIME_ERROR,
                    &err,
                    span,
                ));
            }
            Err(EvalError::Message(m)) => self.runtime_error(path, type_name, &m, &rule_text, span),
        }
    }

    fn runtime_error(
        &mut self,
        path: &FieldPath,
        type_name: &str,
        message: &str,
        rule: &str,
        span: crate::source::Span,
    ) {
        let detail = if message.starts_with("no such overload") {
            format!(
                "'{message}': call arguments did not match a supported operator, function or macro signature for rule: {rule}"
            )
        } else {
            format!("{message} evaluating rule: {rule}")
        };
        let err = FieldError::invalid(path.clone(), type_name, detail);
        self.out
            .diagnostics
            .push(Diagnostic::from_field_error(CEL_RUNTIME_ERROR, &err, span));
    }
}

fn rule_error_string(rule: &ValidationRule) -> String {
    match rule.message.as_deref() {
        Some(m) if !m.is_empty() => m.trim().to_string(),
        _ => rule.rule.trim().to_string(),
    }
}
