//! The runtime cost of rules against the reference server: `testdata/cel/runtime-cost/`
//! holds cases (a schema, an object and optionally a budget) and `oracle.json` what the
//! vendored apiextensions v0.35 validator (cel-go v0.26) answered for them, recorded
//! with /work/ref/tools/runtimecost: the errors of a full validation with the per-object
//! budget, the budget left, and the actual cost of every rule on its own.

use serde_json::Value;

use crate::cel::compile::{RuleCompileResult, SchemaStep, compile_all_of_rules, compile_rules};
use crate::cel::env::KubeVersion;
use crate::cel::eval::{EvalOptions, evaluate_with};
use crate::cel::testutil::{structural, yaml_documents};
use crate::diag::FieldPath;
use crate::source::{Node, Span};

fn node_path(node: &crate::cel::node_steps::NodeSteps) -> String {
    let mut p = String::from("openAPIV3Schema");
    for s in node {
        match s {
            SchemaStep::Property(k) => p.push_str(&format!(".properties[{k}]")),
            SchemaStep::Items => p.push_str(".items"),
            SchemaStep::AdditionalProperties => p.push_str(".additionalProperties"),
            SchemaStep::AllOf(i) => p.push_str(&format!(".allOf[{i}]")),
        }
    }
    p
}

/// What crdlint answers for one case, in the oracle's shape.
pub(crate) fn answer(case: &Value) -> Value {
    let s = structural(&case["schema"]);
    let base = FieldPath::root("spec.validation.openAPIV3Schema");
    let mut compiled = compile_rules(&s, KubeVersion::new(1, 35), &base);
    // Rules inside allOf run in the full validation; per-rule costs are of spine rules.
    let spine = compiled.len();
    compiled.extend(compile_all_of_rules(&s, KubeVersion::new(1, 35), &base));
    let object = Node::from_json(&case["object"], Span::default());
    let old = case.get("old").map(|o| Node::from_json(o, Span::default()));
    let budget = case["budget"].as_i64().unwrap_or(10_000_000);
    let run = |rules: &[RuleCompileResult], budget: i64| {
        let options = EvalOptions {
            cost_budget: budget,
            ..EvalOptions::default()
        };
        let out = evaluate_with(&s, rules, &object, old.as_ref(), &options);
        // The server's order across properties follows Go map iteration: compare sorted.
        let mut errors: Vec<String> = out.diagnostics.iter().map(|d| d.message.clone()).collect();
        errors.sort();
        let skipped: Vec<String> = out
            .not_evaluated
            .iter()
            .map(|n| format!("{}: {}", n.rule, n.reason))
            .collect();
        let warnings: Vec<String> = out.warnings.iter().map(|d| d.message.clone()).collect();
        (
            errors,
            budget.checked_sub(out.remaining_budget).unwrap_or(-1),
            skipped,
            warnings,
        )
    };
    let (errors, total, mut skipped, warnings) = run(&compiled, budget);
    let mut rules = Vec::new();
    for r in &compiled[..spine] {
        let one = vec![RuleCompileResult {
            node: r.node.clone(),
            index: r.index,
            field: r.field.clone(),
            program: r.program.clone(),
            diagnostics: Vec::new(),
            error_offset: r.error_offset,
            runtime_error: r.runtime_error.clone(),
        }];
        let (errors, cost, _, _) = run(&one, i64::MAX);
        // A rule stopped by the per-call limit leaves the budget at -1.
        let cost = if cost < 0 { -1 } else { cost };
        rules.push(serde_json::json!({
            "path": node_path(&r.node), "index": r.index, "cost": cost, "errors": errors,
        }));
    }
    skipped.dedup();
    serde_json::json!({"totalCost": total, "errors": errors, "warnings": warnings, "rules": rules, "notEvaluated": skipped})
}

/// Differences between crdlint and the oracle, one line each.
pub(crate) fn differences(dir: &str) -> (usize, Vec<String>) {
    let cases =
        yaml_documents(&std::fs::read_to_string(format!("{dir}/cases.yaml")).expect("cases"));
    let cases = cases.into_iter().next().expect("a list of cases");
    let oracle: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{dir}/oracle.json")).expect("oracle"),
    )
    .expect("json");
    let mut checked = 0;
    let mut diffs = Vec::new();
    for (case, want) in cases
        .as_array()
        .expect("list")
        .iter()
        .zip(oracle.as_array().expect("list"))
    {
        let name = want["name"].as_str().unwrap_or("?");
        let got = answer(case);
        for n in got["notEvaluated"].as_array().into_iter().flatten() {
            diffs.push(format!("{name}: not evaluated: {n}"));
        }
        checked += 1;
        if got["totalCost"] != want["totalCost"] {
            diffs.push(format!(
                "{name}: total cost {} (server {})",
                got["totalCost"], want["totalCost"]
            ));
        }
        let sorted = |v: &Value| {
            let mut e: Vec<String> = v
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_str().map(str::to_string))
                .collect();
            e.sort();
            e
        };
        if sorted(&got["errors"]) != sorted(&want["errors"]) {
            diffs.push(format!(
                "{name}: errors\n  crdlint {}\n  server  {}",
                got["errors"], want["errors"]
            ));
        }
        if sorted(&got["warnings"]) != sorted(&want["warnings"]) {
            diffs.push(format!(
                "{name}: warnings\n  crdlint {}\n  server  {}",
                got["warnings"], want["warnings"]
            ));
        }
        for w in want["rules"].as_array().into_iter().flatten() {
            checked += 1;
            let g = got["rules"].as_array().and_then(|rs| {
                rs.iter()
                    .find(|r| r["path"] == w["path"] && r["index"] == w["index"])
            });
            match g {
                None => diffs.push(format!(
                    "{name}: rule {} not compiled: {}",
                    w["index"], w["rule"]
                )),
                Some(g) if g["cost"] != w["cost"] || g["errors"] != w["errors"] => {
                    diffs.push(format!(
                        "{name}: {}: cost {} (server {}), errors {} (server {})",
                        w["rule"], g["cost"], w["cost"], g["errors"], w["errors"]
                    ))
                }
                Some(_) => {}
            }
        }
    }
    (checked, diffs)
}

#[test]
fn runtime_costs_match_the_server() {
    let (checked, diffs) = differences("testdata/cel/runtime-cost");
    eprintln!("{checked} checks");
    assert!(
        diffs.is_empty(),
        "{} of {checked} checks differ:\n{}",
        diffs.len(),
        diffs.join("\n")
    );
}

/// Total costs recorded from a reference server outside the repository, for
/// differential runs: `CRDLINT_RUNTIME_COSTS=/tmp/costs.json cargo test --release --lib
/// runtime_costs_from_env -- --ignored`, where the file is a list of cases (as in
/// `cases.yaml`) each with the server's `totalCost`.
#[test]
#[ignore = "needs CRDLINT_RUNTIME_COSTS: cases with costs recorded from a reference server"]
fn runtime_costs_from_env() {
    let path = std::env::var("CRDLINT_RUNTIME_COSTS").expect("CRDLINT_RUNTIME_COSTS");
    let cases: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("cases")).expect("json");
    let mut diffs = Vec::new();
    let cases = cases.as_array().expect("list");
    for case in cases {
        let got = answer(case);
        if got["totalCost"] != case["totalCost"] {
            diffs.push(format!(
                "{}: total cost {} (server {}); errors {}, not evaluated {}",
                case["name"],
                got["totalCost"],
                case["totalCost"],
                got["errors"],
                got["notEvaluated"]
            ));
        }
    }
    assert!(
        diffs.is_empty(),
        "{} of {} cases differ:\n{}",
        diffs.len(),
        cases.len(),
        diffs.join("\n")
    );
}
