//! compile_rules against facts recorded from the reference server (kubectl-validate with
//! apiextensions-apiserver v0.35: `testdata/cel/compile_errors.txt`).

use serde_json::json;

use super::compile::compile_rules;
use super::env::KubeVersion;
use super::testutil::structural;
use crate::diag::FieldPath;

fn spec_schema(rule: &str) -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "x-kubernetes-validations": [{"rule": rule}],
                "properties": {
                    "i": {"type": "integer"},
                    "n": {"type": "number"},
                    "s": {"type": "string"},
                    "b": {"type": "boolean"},
                    "l": {"type": "array", "items": {"type": "string"}},
                    "li": {"type": "array", "items": {"type": "integer"}},
                    "m": {"type": "object", "additionalProperties": {"type": "string"}},
                    "o": {"type": "object", "properties": {"a": {"type": "string"}, "x-y": {"type": "integer"}}},
                    "t": {"type": "string", "format": "date-time"},
                    "d": {"type": "string", "format": "duration"},
                    "by": {"type": "string", "format": "byte"},
                    "ios": {"x-kubernetes-int-or-string": true},
                    "p": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}
                }
            }
        }
    })
}

/// The server's detail for a rule on `spec` (or `OK`), with the random self type
/// name normalised.
fn detail(rule: &str, version: KubeVersion) -> String {
    let s = structural(&spec_schema(rule));
    let results = compile_rules(
        &s,
        version,
        &FieldPath::root("spec.validation.openAPIV3Schema"),
    );
    let mut out = Vec::new();
    for r in results {
        for d in r.diagnostics {
            out.push(d.detail.unwrap_or(d.message));
        }
    }
    if out.is_empty() {
        "OK".to_string()
    } else {
        out.join("\n")
    }
}

/// `testdata/cel/compile_errors.txt`: blocks of `RULE: <rule>` followed by the server's
/// detail lines (indented two spaces), recorded from the reference server at 1.35.
#[test]
fn compile_errors_match_the_server() {
    let text = include_str!("../../testdata/cel/compile_errors.txt");
    let mut cases: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(rule) = line.strip_prefix("RULE: ") {
            cases.push((rule.to_string(), String::new()));
        } else if let Some(l) = line.strip_prefix("  ")
            && let Some(last) = cases.last_mut()
        {
            if !last.1.is_empty() {
                last.1.push('\n');
            }
            last.1.push_str(l);
        }
    }
    assert!(cases.len() > 20);
    let mut failures = Vec::new();
    for (rule, expected) in &cases {
        let expected = normalise(expected);
        let got = normalise(&detail(rule, KubeVersion::new(1, 35)));
        if got != expected {
            failures.push(format!(
                "RULE: {rule}\n  expected: {expected}\n  got:      {got}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The server names `self`'s type `selfType<nanoseconds>`; cost errors (recorded in
/// the facts for the cost estimator) are not compile errors.
fn normalise(s: &str) -> String {
    let re = regex::Regex::new(r"selfType\d+").unwrap();
    let kept: Vec<&str> = s
        .lines()
        .filter(|l| {
            !l.starts_with("Forbidden: estimated rule cost")
                && !l.starts_with("Forbidden: contributed to")
        })
        .collect();
    let joined = if kept.is_empty() {
        "OK".to_string()
    } else {
        kept.join("\n")
    };
    re.replace_all(&joined, "selfType").into_owned()
}

/// The schema of `testdata/cel/syntax_errors.txt`.
fn syntax_schema(rule: &str) -> serde_json::Value {
    json!({
        "type": "object",
        "properties": {
            "spec": {
                "type": "object",
                "x-kubernetes-validations": [{"rule": rule}],
                "properties": {
                    "s": {"type": "string", "maxLength": 64},
                    "i": {"type": "integer"},
                    "n": {"type": "number"},
                    "b": {"type": "boolean"},
                    "l": {"type": "array", "maxItems": 10, "items": {"type": "string", "maxLength": 64}},
                    "m": {"type": "object", "maxProperties": 10, "additionalProperties": {"type": "string", "maxLength": 64}},
                    "d": {"type": "string", "format": "duration"},
                    "t": {"type": "string", "format": "date-time"}
                }
            }
        }
    })
}

/// `testdata/cel/syntax_errors.txt`: malformed rules (lexer errors, ANTLR error
/// recovery, bad literals) with the server's details, in the same block format.
#[test]
fn syntax_errors_match_the_server() {
    let text = include_str!("../../testdata/cel/syntax_errors.txt");
    let mut cases: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(rule) = line.strip_prefix("RULE: ") {
            cases.push((rule.to_string(), String::new()));
        } else if let Some(l) = line.strip_prefix("  ")
            && let Some(last) = cases.last_mut()
        {
            if !last.1.is_empty() {
                last.1.push('\n');
            }
            last.1.push_str(l);
        }
    }
    assert!(cases.len() > 150, "{}", cases.len());
    let mut failures = Vec::new();
    for (rule, expected) in &cases {
        let s = structural(&syntax_schema(rule));
        let results = compile_rules(
            &s,
            KubeVersion::new(1, 35),
            &FieldPath::root("spec.validation.openAPIV3Schema"),
        );
        let mut details: Vec<String> = results
            .into_iter()
            .flat_map(|r| r.diagnostics)
            .map(|d| d.detail.unwrap_or(d.message))
            .collect();
        details.sort();
        let got = if details.is_empty() {
            "OK".to_string()
        } else {
            details.join("\n")
        };
        if normalise(&got) != normalise(expected) {
            failures.push(format!(
                "RULE: {rule}\n  expected: {expected}\n  got:      {got}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn rule_field_checks() {
    let s = structural(&json!({
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": " "},
            {"rule": "true", "reason": "Bogus"},
            {"rule": "true", "fieldPath": ".nope"},
            {"rule": "true", "message": "a\nb"},
            {"rule": "true", "optionalOldSelf": true},
            {"rule": "self.x == oldSelf.x", "fieldPath": ".x"}
        ],
        "properties": {"x": {"type": "string"}}
    }));
    let results = compile_rules(
        &s,
        KubeVersion::NEWEST,
        &FieldPath::root("spec.validation.openAPIV3Schema"),
    );
    let msgs: Vec<String> = results
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(|d| d.message.clone()))
        .collect();
    assert_eq!(
        msgs,
        vec![
            "spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule: Required value: rule is not specified",
            "spec.validation.openAPIV3Schema.x-kubernetes-validations[1].reason: Unsupported value: \"Bogus\": supported values: \"FieldValueDuplicate\", \"FieldValueForbidden\", \"FieldValueInvalid\", \"FieldValueRequired\"",
            "spec.validation.openAPIV3Schema.x-kubernetes-validations[2].fieldPath: Invalid value: \".nope\": must be a valid path",
            "spec.validation.openAPIV3Schema.x-kubernetes-validations[3].message: Invalid value: \"a\\nb\": must not contain line breaks",
        ]
    );
}

#[test]
fn transition_rules_need_correlatable_ancestors() {
    let s = structural(&json!({
        "type": "object",
        "properties": {"items": {"type": "array", "items": {
            "type": "object",
            "x-kubernetes-validations": [{"rule": "self.a == oldSelf.a"}, {"rule": "true", "optionalOldSelf": true}],
            "properties": {"a": {"type": "string"}}
        }}}
    }));
    let results = compile_rules(
        &s,
        KubeVersion::NEWEST,
        &FieldPath::root("spec.validation.openAPIV3Schema"),
    );
    let msgs: Vec<String> = results
        .iter()
        .flat_map(|r| r.diagnostics.iter().map(|d| d.message.clone()))
        .collect();
    assert_eq!(
        msgs,
        vec![
            "spec.validation.openAPIV3Schema.properties[items].items.x-kubernetes-validations[0].rule: Invalid value: \"self.a == oldSelf.a\": oldSelf cannot be used on the uncorrelatable portion of the schema within spec.validation.openAPIV3Schema.properties[items]",
            "spec.validation.openAPIV3Schema.properties[items].items.x-kubernetes-validations[1].optionalOldSelf: Invalid value: true: may not be set if oldSelf is not used in rule",
        ]
    );
}

#[test]
fn root_metadata_exposes_only_name_and_generate_name() {
    let s = structural(&json!({
        "type": "object",
        "x-kubernetes-validations": [
            {"rule": "self.metadata.name.startsWith('a') && self.kind != '' && self.apiVersion != ''"},
            {"rule": "has(self.metadata.labels)"}
        ],
        "properties": {"metadata": {"type": "object"}}
    }));
    let results = compile_rules(&s, KubeVersion::NEWEST, &FieldPath::root("x"));
    assert!(
        results[0].diagnostics.is_empty(),
        "{:?}",
        results[0].diagnostics
    );
    assert!(
        results[1].diagnostics[0]
            .message
            .contains("undefined field 'labels'")
    );
    assert_eq!(results[1].error_offset, Some(3));
}

/// Every CEL rule in the real-world corpus (accepted by real clusters) compiles with no
/// error at the newest version.
#[test]
fn corpus_rules_compile() {
    let Some(dir) = super::conformance::shared_dir("corpus/crds") else {
        eprintln!("SKIPPED: ../shared/corpus/crds not found");
        return;
    };
    let mut files = Vec::new();
    let mut stack = vec![dir];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if matches!(
                p.extension().and_then(|x| x.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                files.push(p);
            }
        }
    }
    files.sort();
    let (mut rules, mut errors) = (0usize, Vec::new());
    for f in &files {
        let Ok(text) = std::fs::read_to_string(f) else {
            continue;
        };
        for doc in super::testutil::yaml_documents(&text) {
            if doc.get("kind").and_then(|k| k.as_str()) != Some("CustomResourceDefinition") {
                continue;
            }
            for (base, s) in super::testutil::crd_structurals(&doc) {
                for r in compile_rules(&s, KubeVersion::NEWEST, &FieldPath::root(&base)) {
                    rules += 1;
                    for d in &r.diagnostics {
                        errors.push(format!("{}: {}", f.display(), d.message));
                    }
                }
            }
        }
    }
    eprintln!(
        "corpus: {rules} rules in {} files, {} errors",
        files.len(),
        errors.len()
    );
    for e in errors.iter().take(40) {
        eprintln!("  {e}");
    }
    assert!(rules > 0);
    assert!(
        errors.is_empty(),
        "{} false errors on the corpus",
        errors.len()
    );
}

/// Identical rules on identically typed nodes (here: two versions of one CRD) share
/// one compiled program; the same text on a node of another type compiles again and
/// fails there, and a failing rule reports its own place each time.
#[test]
fn identical_rules_on_identical_types_share_one_program() {
    use std::sync::Arc;
    // A text no other test compiles, so that the process-wide cache starts without it.
    let rule = "self.shared_program_probe.size() > 1";
    let schema = |ty: &str| {
        structural(&json!({
            "type": "object",
            "properties": {"spec": {
                "type": "object",
                "properties": {"shared_program_probe": {"type": ty}},
                "x-kubernetes-validations": [{"rule": rule}]
            }}
        }))
    };
    let compile = |ty: &str, version: usize| {
        compile_rules(
            &schema(ty),
            KubeVersion::new(1, 31),
            &FieldPath::root(&format!("spec.versions[{version}].schema.openAPIV3Schema")),
        )
    };
    let first = compile("string", 0);
    let second = compile("string", 1);
    let (Some(a), Some(b)) = (&first[0].program, &second[0].program) else {
        panic!("the rule compiles on a string");
    };
    assert!(Arc::ptr_eq(a, b));
    assert_eq!(
        second[0].field.to_string(),
        "spec.versions[1].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
    );
    assert!(first[0].diagnostics.is_empty() && second[0].diagnostics.is_empty());

    for version in [2, 3] {
        let on_bool = compile("boolean", version);
        assert!(on_bool[0].program.is_none());
        let fields: Vec<String> = on_bool[0]
            .diagnostics
            .iter()
            .map(|d| d.field.clone().unwrap_or_default())
            .collect();
        assert_eq!(
            fields,
            [format!(
                "spec.versions[{version}].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule"
            )]
        );
        assert_eq!(
            on_bool[0].diagnostics[0].detail.as_deref(),
            Some(
                "compilation failed: ERROR: <input>:1:31: found no matching overload for 'size' applied to 'bool.()'\n \
                 | self.shared_program_probe.size() > 1\n \
                 | ..............................^"
            )
        );
    }
}

/// Nodes with rules share the steps of their common ancestors (a list of steps per
/// node was N × D: 20,000 nodes under 900 nested lists held 430 MB), and a node's
/// rules share its steps.
#[test]
fn rule_nodes_share_the_steps_of_their_ancestors() {
    let leaf = |rule: &str| json!({"type": "string", "x-kubernetes-validations": [{"rule": rule}, {"rule": "true"}]});
    let s = structural(&json!({
        "type": "object",
        "properties": {"l": {"type": "array", "items": {"type": "array", "items": {
            "type": "object",
            "properties": {"a": leaf("self == 'a'"), "b": leaf("self == 'b'")}
        }}}}
    }));
    let results = compile_rules(
        &s,
        KubeVersion::NEWEST,
        &FieldPath::root("spec.validation.openAPIV3Schema"),
    );
    let nodes: Vec<(String, usize)> = results
        .iter()
        .map(|r| (r.field.to_string(), r.node.len()))
        .collect();
    let list = "spec.validation.openAPIV3Schema.properties[l].items.items";
    assert_eq!(
        nodes,
        vec![
            (
                format!("{list}.properties[a].x-kubernetes-validations[0].rule"),
                4
            ),
            (
                format!("{list}.properties[a].x-kubernetes-validations[1].rule"),
                4
            ),
            (
                format!("{list}.properties[b].x-kubernetes-validations[0].rule"),
                4
            ),
            (
                format!("{list}.properties[b].x-kubernetes-validations[1].rule"),
                4
            ),
        ]
    );
    assert!(results[0].node.ptr_eq(&results[1].node));
    assert!(!results[0].node.ptr_eq(&results[2].node));
    assert!(results[0].node.prefix(3).ptr_eq(&results[2].node.prefix(3)));
}

/// Checking a default compiles only the rules of nodes where the default has data:
/// the validator runs no other on it (a default per level of a deep chain compiled
/// every rule below it, 1.6 million for 400 levels over 4,000 rules).
#[test]
fn rules_for_a_value_are_those_of_nodes_with_data() {
    use super::compile::{DataNodes, compile_rules_at};
    use crate::source::{Node, Span};
    let rule = |r: &str| json!([{"rule": r}]);
    let s = structural(&json!({
        "type": "object",
        "x-kubernetes-validations": rule("true"),
        "properties": {
            "a": {"type": "string", "x-kubernetes-validations": rule("self != 'a'")},
            "b": {"type": "object", "x-kubernetes-validations": rule("has(self.c)"), "properties": {
                "c": {"type": "string", "x-kubernetes-validations": rule("self != 'c'")}
            }},
            "l": {"type": "array", "items": {"type": "object", "properties": {
                "d": {"type": "integer", "x-kubernetes-validations": rule("self > 0")}
            }}},
            "m": {"type": "object", "additionalProperties": {
                "type": "integer", "x-kubernetes-validations": rule("self < 9")
            }}
        }
    }));
    let compiled = |value: serde_json::Value| -> Vec<String> {
        let value = Node::from_json(&value, Span::default());
        compile_rules_at(
            &s,
            false,
            KubeVersion::NEWEST,
            &FieldPath::empty(),
            &DataNodes::of(&s, &value),
        )
        .iter()
        .map(|r| r.field.to_string())
        .collect()
    };
    assert_eq!(compiled(json!({})), ["x-kubernetes-validations[0].rule"]);
    assert_eq!(
        compiled(json!({"b": {}, "l": [], "m": {}})),
        [
            "x-kubernetes-validations[0].rule",
            "properties[b].x-kubernetes-validations[0].rule"
        ]
    );
    assert_eq!(
        compiled(json!({"a": null, "b": {"c": "x"}, "l": [{}, {"d": 1}], "m": {"k": 1}})),
        [
            "x-kubernetes-validations[0].rule",
            "properties[a].x-kubernetes-validations[0].rule",
            "properties[b].x-kubernetes-validations[0].rule",
            "properties[b].properties[c].x-kubernetes-validations[0].rule",
            "properties[l].items.properties[d].x-kubernetes-validations[0].rule",
            "properties[m].additionalProperties.x-kubernetes-validations[0].rule"
        ]
    );
    // Data the schema does not declare reaches no rule.
    assert_eq!(
        compiled(json!({"z": {"c": "x"}, "l": 5})),
        ["x-kubernetes-validations[0].rule"]
    );
}
