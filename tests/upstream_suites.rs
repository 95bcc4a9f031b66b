//! apiextensions-apiserver v0.35.0's own tests replayed as data: inputs those tests
//! give the server's code, with what the server answered, in `testdata/upstream/`
//! (provenance in its README). Each test turns the inputs into manifests, runs the
//! `crdlint` binary and compares.
//!
//! - `cel-compilation.json`: `pkg/apiserver/schema/cel/compilation_test.go`
//!   (`TestCelCompilation`, `TestCostEstimation`): every schema those tests compile and,
//!   per rule, the compile error or the estimated cost (`MaxCost`), the cardinality
//!   estimate (`MaxCardinality`) and the messageExpression's cost. Each schema becomes
//!   the `spec` property of a CRD, which keeps the rule's type and estimates.
//! - `cr-validation.json`: `pkg/apiserver/validation/validation_test.go`
//!   (`TestValidateCustomResource`): objects (and old objects) with the OpenAPI and CEL
//!   errors the server's validators gave.
//! - `ratcheting-integration.json`: `test/integration/ratcheting_test.go`
//!   (`TestRatchetingFunctionality`): every server-side apply, with the schema in force,
//!   the object stored before it and the real server's verdict (`expectError`). One
//!   field manager made every apply, so the applied configuration is the whole object;
//!   a refused apply leaves the stored object. The status-subresource variants (crdlint
//!   checks writes to the main resource) and the case upstream disables are left out;
//!   `errors` records crdlint's messages, so a change of wording shows too.

use std::fmt::Write as _;
use std::fs;
use std::path::Path;

use assert_cmd::Command;
use serde_json::{Value, json};

fn fixture(name: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/upstream")
        .join(name);
    let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// A CRD of one version; `status_subresource` as the ratcheting test's CRD has it.
fn crd(group: &str, kind: &str, schema: &Value, status_subresource: bool) -> Value {
    let plural = format!("{}s", kind.to_lowercase());
    let subresources = if status_subresource {
        json!({"status": {}})
    } else {
        json!({})
    };
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": format!("{plural}.{group}")},
        "spec": {
            "group": group,
            "scope": "Namespaced",
            "names": {"plural": plural, "kind": kind, "listKind": format!("{kind}List")},
            "versions": [{
                "name": "v1", "served": true, "storage": true,
                "schema": {"openAPIV3Schema": schema},
                "subresources": subresources
            }]
        }
    })
}

/// Fails with every mismatch listed, if any.
fn assert_none_differ(mismatches: &[String], total: usize, what: &str) {
    assert!(
        mismatches.is_empty(),
        "{} of {total} {what} differ:\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// `crdlint check` as the server of these tests (1.35), answering in JSON.
const CHECK: [&str; 6] = [
    "check",
    "--no-config",
    "-o",
    "json",
    "--kube-version",
    "1.35",
];

/// Runs crdlint with `args` (JSON output) and parses what it prints.
fn run(args: &[&str]) -> Value {
    let output = Command::cargo_bin("crdlint")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}",
            String::from_utf8_lossy(&output.stderr).into_owned()
        )
    })
}

fn sorted_errors(report: &Value) -> Vec<String> {
    let mut errors: Vec<String> = report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["severity"] == "error")
        .map(|d| d["message"].as_str().unwrap().to_string())
        .collect();
    errors.sort();
    errors
}

/// The error messages of `crdlint check` on `object` (an update of `old` unless null)
/// for a CRD of `schema`. The tests' clients send no fieldValidation: the server
/// prunes unknown fields and warns.
fn update_errors(
    schema: &Value,
    kind: &str,
    status_subresource: bool,
    object: &Value,
    old: &Value,
) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, value: &Value| {
        let path = dir.path().join(name);
        fs::write(&path, serde_json::to_vec(value).unwrap()).unwrap();
        path.to_str().unwrap().to_string()
    };
    let identity = json!({
        "apiVersion": "upstream.example.com/v1",
        "kind": kind,
        "metadata": {"name": "test", "namespace": "default"},
    });
    let with_identity = |value: &Value| {
        let mut full = value.as_object().cloned().unwrap_or_default();
        for (key, v) in identity.as_object().unwrap() {
            full.insert(key.clone(), v.clone());
        }
        Value::Object(full)
    };
    let crd_path = write(
        "crd.json",
        &crd("upstream.example.com", kind, schema, status_subresource),
    );
    let new_path = write("new.json", &with_identity(object));
    let mut args = CHECK.to_vec();
    args.extend(["--unknown-fields", "ignore", "--crds", &crd_path, &new_path]);
    let old_path;
    if !old.is_null() {
        old_path = write("old.json", &with_identity(old));
        args.extend(["--old", &old_path]);
    }
    sorted_errors(&run(&args))
}

/// The document index and rule index of a field path on the `spec` node.
fn spec_rule_index(field: &str) -> Option<usize> {
    let rest = field.strip_prefix(
        "spec.validation.openAPIV3Schema.properties[spec].x-kubernetes-validations[",
    )?;
    rest.split(']').next()?.parse().ok()
}

/// Go's `selfType%d` names are random per compile; both sides use `selfTypeN`.
fn normalise_self_type(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("selfType") {
        out.push_str(&rest[..at]);
        out.push_str("selfTypeN");
        rest = rest[at + "selfType".len()..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

#[test]
fn every_rule_of_the_upstream_compilation_tests_gets_the_servers_result() {
    let cases = fixture("cel-compilation.json");
    assert_eq!(cases.len(), 159);

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("crds.yaml");
    let mut stream = String::new();
    for (index, case) in cases.iter().enumerate() {
        let schema = json!({"type": "object", "properties": {"spec": case["schema"]}});
        let kind = format!("C{index}");
        writeln!(
            stream,
            "---\n{}",
            crd("compile.example.com", &kind, &schema, false)
        )
        .unwrap();
    }
    fs::write(&path, stream).unwrap();
    let path = path.to_str().unwrap();

    let costs = run(&["cost", "-o", "json", "--kube-version", "1.35", path]);
    let checks = run(&[CHECK.as_slice(), &[path]].concat());

    let mut mismatches = Vec::new();
    let mut compared = 0;
    for (index, case) in cases.iter().enumerate() {
        let rules: Vec<&Value> = costs["crds"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["document"] == index)
            .flat_map(|c| c["schemas"].as_array().unwrap())
            .flat_map(|s| s["rules"].as_array().unwrap())
            .collect();
        let errors: Vec<(usize, String)> = checks["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|d| d["document"] == index && d["severity"] == "error")
            .filter_map(|d| {
                let rule = spec_rule_index(d["field"].as_str()?)?;
                Some((rule, normalise_self_type(d["detail"].as_str()?)))
            })
            .collect();
        for (rule_index, expected) in case["results"].as_array().unwrap().iter().enumerate() {
            compared += 1;
            let name = format!("{} rule {rule_index}", case["test"]);
            if expected.get("blank").is_some() {
                // A blank rule is not compiled; CRD validation refuses it instead.
                if !errors.iter().any(|(i, _)| *i == rule_index) {
                    mismatches.push(format!("{name}: blank rule accepted"));
                }
                continue;
            }
            if let Some(error) = expected["error"].as_str() {
                if !errors.iter().any(|(i, d)| *i == rule_index && d == error) {
                    mismatches.push(format!("{name}: expected {error:?}, got {errors:?}"));
                }
                continue;
            }
            let field = format!(
                "spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[{rule_index}].rule"
            );
            let Some(rule) = rules.iter().find(|r| r["field"] == field.as_str()) else {
                mismatches.push(format!("{name}: not compiled: {errors:?}"));
                continue;
            };
            let got = (
                &rule["maxCost"],
                &rule["ruleMaxCardinality"],
                rule["messageExpressionMaxCost"].as_u64().unwrap_or(0),
            );
            let want = (
                &expected["maxCost"],
                &expected["maxCardinality"],
                expected["messageExpressionMaxCost"].as_u64().unwrap(),
            );
            if got != want {
                mismatches.push(format!("{name}: server {want:?}, crdlint {got:?}"));
            }
        }
    }
    assert_eq!(compared, 179);
    assert_none_differ(&mismatches, compared, "rules");
}

#[test]
fn every_apply_of_the_upstream_ratcheting_test_gets_the_servers_verdict() {
    let steps = fixture("ratcheting-integration.json");
    assert_eq!(steps.len(), 76);
    let mut mismatches = Vec::new();
    for step in &steps {
        let errors = update_errors(
            &step["schema"],
            "MyCoolCRD",
            true,
            &step["object"],
            &step["old"],
        );
        let expected: Vec<String> = serde_json::from_value(step["errors"].clone()).unwrap();
        let refused = step["expectError"].as_bool().unwrap();
        if errors.is_empty() == refused || errors != expected {
            mismatches.push(format!(
                "{} / {}: server refuses: {refused}; crdlint: {errors:#?}",
                step["case"], step["step"]
            ));
        }
    }
    assert_none_differ(&mismatches, steps.len(), "steps");
}

#[test]
fn every_object_of_the_upstream_validation_test_gets_the_servers_errors() {
    let cases = fixture("cr-validation.json");
    assert_eq!(cases.len(), 72);
    let mut mismatches = Vec::new();
    for (index, case) in cases.iter().enumerate() {
        let kind = format!("V{index}");
        let errors = update_errors(&case["schema"], &kind, false, &case["object"], &case["old"]);
        let expected: Vec<String> = serde_json::from_value(case["errors"].clone()).unwrap();
        if errors != expected {
            mismatches.push(format!(
                "{} {}: server {expected:#?}, crdlint {errors:#?}",
                case["test"], case["object"]
            ));
        }
    }
    assert_none_differ(&mismatches, cases.len(), "objects");
}
