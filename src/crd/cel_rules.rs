//! The default CEL hooks of CRD validation: compiling every `x-kubernetes-validations`
//! rule of a version schema with [`crate::cel::compile_rules`], and checking defaults
//! against the rules of the node they stand in (and of the nodes below it), as the
//! server's `ValidateDefaults` does.
//!
//! Compile errors point at the character the CEL compiler names, inside the rule
//! string as it is written in the file (through quotes, escapes and block scalars).

use crate::cel::{self, KubeVersion, RuleCompileResult, SchemaStep};
use crate::diag::{BadValue, Diagnostic, ErrorType, FieldError, FieldPath, Severity};
use crate::schema::structural::{Structural, StructuralOrBool};
use crate::source::inner::decode_with_offsets;
use crate::source::{Node, Span, Value};

use super::findings::Finding;
use super::hooks::{CelSchemaInput, NodeCelFindings, SchemaCelFindings};
use super::{SCHEMA_DEFAULT_NOT_EVALUATED, SCHEMA_INVALID_DEFAULT};

/// [`super::hooks::CelRulesHook`]'s default: compiles the rules of the whole version
/// schema, groups the compile findings by schema node, and checks the server's cost
/// limits ([`crate::cel::cost`]) on the same compiled programs.
pub fn compile_schema_rules(input: &CelSchemaInput<'_>) -> SchemaCelFindings {
    let stored = input.preexisting.map(|p| cel::StoredExpressions {
        rules: &p.rules,
        message_expressions: &p.message_expressions,
    });
    let results = cel::compile_rules_with(input.structural, input.kube_version, input.path, stored);
    let cost =
        cel::cost::estimate_compiled(input.structural, &results, input.path, input.kube_version);
    let mut out: Vec<NodeCelFindings> = Vec::new();
    for r in &results {
        if r.diagnostics.is_empty() {
            continue;
        }
        let node_path = crate::diag::path::schema_node_path(input.path, r.node.iter());
        let rule_schema = node_at(input.structural, &r.node);
        let diagnostics = r
            .diagnostics
            .iter()
            .map(|d| point_into_rule(d.clone(), r, rule_schema, input.source))
            .collect();
        match out.last_mut() {
            Some(last) if last.node == node_path => last.diagnostics.extend(diagnostics),
            _ => out.push(NodeCelFindings {
                node: node_path,
                diagnostics,
            }),
        }
    }
    SchemaCelFindings {
        nodes: out,
        cost: Some(cost),
        // Only the paths of findings depend on where the schema stands; the programs
        // are those evaluating resources compiles.
        compiled: stored.is_none().then_some(results),
    }
}

/// The server's cost-limit errors (per rule, per messageExpression, and the schema
/// total) of an estimate.
pub fn cost_limit_findings(
    cost: &cel::cost::SchemaCost,
    suppress_per_expression: bool,
) -> Vec<Finding> {
    cel::cost::limit_findings(cost, suppress_per_expression)
        .into_iter()
        .map(|l| Finding {
            code: l.code,
            error: l.error,
            span: l.span,
            help: Some(l.help),
            severity: Severity::Error,
        })
        .collect()
}

fn node_at<'s, 'n>(
    root: &'s Structural,
    steps: impl IntoIterator<Item = &'n SchemaStep>,
) -> Option<&'s Structural> {
    let mut cur = root;
    for step in steps {
        cur = match step {
            SchemaStep::Property(name) => cur.property(name)?,
            SchemaStep::Items => cur.items.as_deref()?,
            SchemaStep::AdditionalProperties => match cur.additional_properties.as_ref()? {
                StructuralOrBool::Structural(s) => s,
                StructuralOrBool::Bool(_) => return None,
            },
            SchemaStep::AllOf(_) => cur,
        };
    }
    Some(cur)
}

/// Moves the span of a compile error from the whole rule (or messageExpression) to the
/// character the compiler names, and adds a help line.
fn point_into_rule(
    mut d: Diagnostic,
    r: &RuleCompileResult,
    schema: Option<&Structural>,
    source: Option<&str>,
) -> Diagnostic {
    if d.code != cel::compile::CEL_COMPILE {
        return d;
    }
    if d.help.is_none() {
        d.help = Some(
            "`self` is the value of the schema node the rule is on, typed by its schema; fix the expression at the marked character".to_string(),
        );
    }
    if d.label.is_none() {
        d.label = d.detail.as_deref().and_then(first_error_message);
    }
    let (Some(source), Some(rule)) = (source, schema.and_then(|s| s.x_validations.get(r.index)))
    else {
        return d;
    };
    let field = d.field.as_deref().unwrap_or("");
    let (node, char_index) = if field.ends_with(".messageExpression") {
        let Some(text) = rule.message_expression.as_deref() else {
            return d;
        };
        let index = d
            .detail
            .as_deref()
            .and_then(|detail| first_error_char_index(detail, text));
        (rule.message_expression_node.as_ref(), index)
    } else {
        (rule.rule_node.as_ref(), r.error_offset)
    };
    if let (Some(node), Some(index)) = (node, char_index)
        && let Some(span) = char_span(source, node, index)
    {
        d.span = Some(span);
    }
    d
}

/// The span of the character `char_index` of the string scalar `node`; the index past
/// the last character maps to the end of the content (a quoted scalar's closing quote,
/// else an empty span). `None` when the scalar's text, read again, does not decode to
/// the value the loader read: the re-scan follows the YAML scanner's rules by hand, and
/// where it misreads a shape it would point at the wrong character; the finding then
/// keeps the scalar's own span.
pub fn char_span(source: &str, node: &Node, char_index: usize) -> Option<Span> {
    let value = node.as_str()?;
    let (text, offsets, end) = decode_with_offsets(source, node.span, node.style)?;
    if text != value {
        return None;
    }
    let start = match offsets.get(char_index) {
        Some(&offset) => offset,
        None if char_index == offsets.len() => end,
        None => return None,
    };
    let len = source
        .get(start..)?
        .chars()
        .next()
        .map_or(0, char::len_utf8);
    let end = if start < node.span.end {
        start + len
    } else {
        start
    };
    Some(Span::new(start, end))
}

/// The character index in `text` of the first `ERROR: <input>:L:C:` of a CEL error
/// display (`L` 1-based line, `C` 1-based column in characters).
fn first_error_char_index(detail: &str, text: &str) -> Option<usize> {
    let rest = &detail[detail.find("ERROR: <input>:")? + "ERROR: <input>:".len()..];
    let mut parts = rest.splitn(3, ':');
    let line: usize = parts.next()?.parse().ok()?;
    let column: usize = parts.next()?.parse().ok()?;
    let before: usize = text
        .split('\n')
        .take(line.checked_sub(1)?)
        .map(|l| l.chars().count() + 1)
        .sum();
    Some(before + column.checked_sub(1)?)
}

/// The message of the first `ERROR: <input>:L:C: message` of a CEL error display.
fn first_error_message(detail: &str) -> Option<String> {
    let rest = &detail[detail.find("ERROR: <input>:")? + "ERROR: <input>:".len()..];
    let message = rest.splitn(3, ':').nth(2)?.trim_start();
    Some(message.lines().next().unwrap_or("").to_string())
}

/// [`super::hooks::CelDefaultHook`]'s default: the server's CEL validator on a default
/// value (`cel.NewValidator(s, isResourceRoot).Validate(default, old = default)`, then,
/// when that passes, once more without an old value for `optionalOldSelf` rules).
pub fn validate_default(
    schema: &Structural,
    is_resource_root: bool,
    default: &Node,
    path: &FieldPath,
    kube_version: KubeVersion,
) -> Vec<Finding> {
    if !has_rules(schema, 0) {
        return Vec::new();
    }
    let mut out = Vec::new();
    // Nodes with rules the validator reaches without a CEL type (the default's own
    // node when untyped, under x-kubernetes-preserve-unknown-fields; the items of an
    // int-or-string node): it cannot compile their rules and says so for each value.
    let reach = cel::reach::ValidatorReach::new(schema, is_resource_root);
    let data = cel::compile::DataNodes::of(schema, default);
    for steps in reach.untyped_rule_nodes(&data) {
        let Some(node_schema) = node_at(schema, &steps) else {
            continue;
        };
        for (at, _) in instances(default, &steps.to_vec(), path.clone()) {
            out.push(default_finding(FieldError::invalid(
                at,
                node_schema.generic.type_.as_ref(),
                "rule compiler initialization error: failed to convert to declType for CEL validation rules",
            )));
        }
    }
    if !reach.root_has_type() {
        // Nothing below an untyped node is typed by the validator either.
        return out;
    }
    let compiled = cel::compile_rules_at(
        schema,
        is_resource_root,
        kube_version,
        &FieldPath::empty(),
        &data,
    );
    // A rule that does not compile fails every value it would check (if the
    // validator reaches it).
    let mut reached = reach.memo();
    for r in &compiled {
        if r.program.is_some() || !reached.reaches(&r.node) {
            continue;
        }
        let Some(detail) = r
            .diagnostics
            .iter()
            .find(|d| {
                matches!(
                    d.code,
                    cel::compile::CEL_COMPILE | cel::compile::CEL_RESULT_TYPE
                ) && d.field.as_deref().is_some_and(|f| f.ends_with(".rule"))
            })
            .and_then(|d| d.detail.clone())
        else {
            continue;
        };
        let Some(node_schema) = node_at(schema, &r.node) else {
            continue;
        };
        for (at, _) in instances(default, &r.node.to_vec(), path.clone()) {
            out.push(default_finding(FieldError::invalid(
                at,
                node_schema.generic.type_.as_ref(),
                format!("rule compile error: {detail}"),
            )));
        }
    }
    // The second run (no old value) happens only when the first passes, compile
    // failures included (the server's runs report those each time).
    let mut failed = false;
    let compile_failures = !out.is_empty();
    for old in [Some(default), None] {
        if failed {
            break;
        }
        // The default is its own old value only for transition rules: the validator
        // gets no ratcheting option, so unchanged values are not excused.
        let options = cel::EvalOptions {
            ratcheting: false,
            is_resource_root,
            ..cel::EvalOptions::for_server(kube_version)
        };
        let outcome = cel::evaluate_with(schema, &compiled, default, old, &options);
        for d in &outcome.diagnostics {
            let e = rebase(d, path).unwrap_or_else(|| {
                // Not a server field error (should not happen): keep its text.
                FieldError::invalid(path.clone(), BadValue::Omit, d.message.clone())
            });
            out.push(default_finding(e));
        }
        for n in &outcome.not_evaluated {
            let field = join(path, n.field.as_str());
            let detail = format!(
                "{}, so this default was not checked against the rule: {}",
                n.reason, n.rule
            );
            if out
                .iter()
                .any(|f| f.error.field == field && f.error.detail == detail)
            {
                continue;
            }
            out.push(Finding {
                code: SCHEMA_DEFAULT_NOT_EVALUATED,
                error: FieldError::internal(field, detail),
                span: None,
                help: Some("check this default against the rule by hand (or on a cluster); the server rejects the CRD if the default fails it".into()),
                severity: Severity::Warning,
            });
        }
        if !outcome.diagnostics.is_empty() || compile_failures {
            failed = true;
        }
    }
    out
}

fn default_finding(error: FieldError) -> Finding {
    Finding {
        code: SCHEMA_INVALID_DEFAULT,
        error,
        span: None,
        help: Some(
            "a default must satisfy the x-kubernetes-validations rules of its schema node and of the nodes below it".into(),
        ),
        severity: Severity::Error,
    }
}

fn has_rules(s: &Structural, depth: usize) -> bool {
    if depth > 1000 {
        return false;
    }
    !s.x_validations.is_empty()
        || s.items.as_deref().is_some_and(|i| has_rules(i, depth + 1))
        || s.properties.iter().any(|(_, p)| has_rules(p, depth + 1))
        || matches!(&s.additional_properties, Some(StructuralOrBool::Structural(ap)) if has_rules(ap, depth + 1))
}

/// The non-null values of `value` at schema `steps`, with their field paths.
fn instances<'v>(
    value: &'v Node,
    steps: &[SchemaStep],
    path: FieldPath,
) -> Vec<(FieldPath, &'v Node)> {
    let Some((step, rest)) = steps.split_first() else {
        return if value.is_null() {
            Vec::new()
        } else {
            vec![(path, value)]
        };
    };
    match (step, &value.value) {
        (SchemaStep::Property(name), Value::Object(map)) => map
            .get(name)
            .map(|v| instances(v, rest, path.child(name)))
            .unwrap_or_default(),
        (SchemaStep::AdditionalProperties, Value::Object(map)) => map
            .iter()
            .flat_map(|(k, v)| instances(v, rest, path.key(k)))
            .collect(),
        (SchemaStep::Items, Value::Array(items)) => items
            .iter()
            .enumerate()
            .flat_map(|(i, v)| instances(v, rest, path.index(i)))
            .collect(),
        _ => Vec::new(),
    }
}

/// `base` + a relative path as the CEL validator prints it (`x.y`, `[0].x`, or empty).
fn join(base: &FieldPath, rel: &str) -> FieldPath {
    if rel.is_empty() {
        base.clone()
    } else if rel.starts_with('[') {
        FieldPath::root(&format!("{base}{rel}"))
    } else {
        base.child(rel)
    }
}

/// A diagnostic of [`cel::evaluate`] (whose paths are relative to the value) as the
/// field error the server reports under `base`.
fn rebase(d: &Diagnostic, base: &FieldPath) -> Option<FieldError> {
    // The value's own path is empty, printed `<nil>`.
    let rel = d.field.as_deref().filter(|f| *f != "<nil>").unwrap_or("");
    let error_type = error_type(d.reason?)?;
    let rel_display = if rel.is_empty() { "<nil>" } else { rel };
    let body = d
        .message
        .strip_prefix(rel_display)
        .and_then(|m| m.strip_prefix(": "))?;
    let detail = d.detail.clone().unwrap_or_default();
    let after_type = body
        .strip_prefix(error_type.text())
        .map(|b| b.strip_prefix(": ").unwrap_or(b))
        .unwrap_or("");
    let value_text = if detail.is_empty() {
        after_type
    } else {
        after_type
            .strip_suffix(detail.as_str())
            .map(|v| v.strip_suffix(": ").unwrap_or(v))
            .unwrap_or("")
    };
    let value = if value_text.is_empty() {
        BadValue::Omit
    } else {
        BadValue::Raw(value_text.to_string())
    };
    Some(FieldError::new(error_type, join(base, rel), value, detail))
}

fn error_type(reason: &str) -> Option<ErrorType> {
    Some(match reason {
        "FieldValueNotFound" => ErrorType::NotFound,
        "FieldValueRequired" => ErrorType::Required,
        "FieldValueDuplicate" => ErrorType::Duplicate,
        "FieldValueInvalid" => ErrorType::Invalid,
        "FieldValueNotSupported" => ErrorType::NotSupported,
        "FieldValueForbidden" => ErrorType::Forbidden,
        "FieldValueTooLong" => ErrorType::TooLong,
        "FieldValueTooShort" => ErrorType::TooShort,
        "FieldValueTooMany" => ErrorType::TooMany,
        "FieldValueTooFew" => ErrorType::TooFew,
        "InternalError" => ErrorType::Internal,
        "FieldValueTypeInvalid" => ErrorType::TypeInvalid,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_first_error_position() {
        let detail = "compilation failed: ERROR: <input>:2:3: undefined field 'x'\n | ...";
        assert_eq!(first_error_char_index(detail, "ab\ncdef"), Some(5));
        assert_eq!(
            first_error_char_index("ERROR: <input>:1:6: x", "self.x"),
            Some(5)
        );
        assert_eq!(first_error_char_index("nothing", "self.x"), None);
        assert_eq!(
            first_error_message(detail).as_deref(),
            Some("undefined field 'x'")
        );
    }

    #[test]
    fn compile_errors_point_into_the_rule_only_with_the_source() {
        let text = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        x-kubernetes-validations:
        - rule: |-
            has(self.spec) &&
            self.spce.x == 1
          message: m
        properties:
          spec: {type: object}
";
        let parsed = crate::source::yaml::parse(text, &crate::source::yaml::Limits::default());
        let root = &parsed.documents[0].root;
        let rule_at = text.find("|-").expect("rule");
        let with = super::super::validate_source(root, text);
        assert_eq!(with.len(), 1, "{with:?}");
        let at = text.find("spce").expect("typo") - 1;
        assert_eq!(with[0].span, Some(Span::new(at, at + 1)));
        assert_eq!(with[0].label.as_deref(), Some("undefined field 'spce'"));
        let without = super::super::validate(root);
        assert_eq!(without[0].span.map(|s| s.start), Some(rule_at));
        assert_eq!(without[0].message, with[0].message);
    }

    /// A scalar whose text does not read back as its value (here a loader value that
    /// differs from the written text, as a misread YAML shape would give) gets no
    /// position inside it; one that reads back gets the exact character.
    #[test]
    fn positions_only_inside_a_scalar_that_reads_back_as_its_value() {
        let text = "rule: 'self.a ''x'' == 1'\n";
        let parsed = crate::source::yaml::parse(text, &crate::source::yaml::Limits::default());
        let rule = parsed.documents[0].root.get("rule").expect("rule").clone();
        assert_eq!(rule.as_str(), Some("self.a 'x' == 1"));
        // The `x` is the 9th character: after the doubled quote, which is one.
        let x = text.find("x'").expect("x");
        assert_eq!(char_span(text, &rule, 8), Some(Span::new(x, x + 1)));
        // The end of the string is the closing quote.
        let close = text.rfind('\'').expect("quote");
        assert_eq!(
            char_span(text, &rule, 15),
            Some(Span::new(close, close + 1))
        );
        assert_eq!(char_span(text, &rule, 16), None);
        let mut misread = rule.clone();
        misread.value = crate::source::node::Value::String("self.a 'y' == 1".into());
        assert_eq!(char_span(text, &misread, 8), None);
        assert_eq!(char_span(text, &misread, 0), None);
    }

    #[test]
    fn rebases_relative_paths() {
        let base = FieldPath::root("a.default");
        assert_eq!(join(&base, "").as_str(), "a.default");
        assert_eq!(join(&base, "x.y").as_str(), "a.default.x.y");
        assert_eq!(join(&base, "[0].x").as_str(), "a.default[0].x");
        let e = FieldError::invalid(FieldPath::root("x"), 3, "must be even");
        let d = Diagnostic::from_field_error("c", &e, Span::default());
        let r = rebase(&d, &base).expect("rebased");
        assert_eq!(r.to_string(), "a.default.x: Invalid value: 3: must be even");
        let e = FieldError::required(FieldPath::empty(), "need it");
        let d = Diagnostic::from_field_error("c", &e, Span::default());
        assert_eq!(
            rebase(&d, &base).expect("rebased").to_string(),
            "a.default: Required value: need it"
        );
    }
}
