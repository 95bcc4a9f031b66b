//! `crdlint check --old OLD NEW`: a CRD of NEW with the `metadata.name` of a CRD in OLD is
//! validated as an update of it (`ValidateCustomResourceDefinitionUpdate`), with the
//! server's ratcheting. Each `testdata/crd-update/<case>/` holds `old.yaml`, `new.yaml`
//! and `expected`, in the format of `testdata/crd/*.expected` (see the README there).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

const DIR: &str = "testdata/crd-update";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Runs `crdlint check` at Kubernetes 1.35 (the reference server's version) with
/// `args`; returns the JSON report and the exit status.
fn check_json(args: &[&str]) -> (Value, i32) {
    let output = run_check("1.35", "json", args);
    let report = serde_json::from_slice(&output.stdout).expect("a JSON report");
    (report, output.status.code().unwrap())
}

/// One line per diagnostic: `line:column<TAB>code<TAB>reason<TAB>field<TAB>message`, in
/// position order, as `tests/crd_fixtures.rs` writes them.
fn render(report: &Value) -> String {
    let text = |v: &Value| v.as_str().unwrap_or("-").to_string();
    let mut lines: Vec<(u64, String)> = report["diagnostics"]
        .as_array()
        .expect("diagnostics")
        .iter()
        .map(|d| {
            let start = &d["span"]["start"];
            let severity = match d["severity"].as_str() {
                Some("warning") => " (warning)",
                Some("info") => " (info)",
                _ => "",
            };
            (
                start["offset"].as_u64().unwrap_or(0),
                format!(
                    "{}:{}\t{}{severity}\t{}\t{}\t{}",
                    start["line"],
                    start["column"],
                    text(&d["code"]),
                    text(&d["reason"]),
                    text(&d["field"]),
                    text(&d["message"]).replace('\n', "\\n")
                ),
            )
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, l)| l + "\n").collect()
}

/// Set `CRDLINT_BLESS=1` to rewrite the `expected` files (then review the diff).
fn bless() -> bool {
    std::env::var_os("CRDLINT_BLESS").is_some()
}

#[test]
fn updates_report_exactly_the_expected_errors() {
    let mut cases: Vec<PathBuf> = std::fs::read_dir(root().join(DIR))
        .expect("testdata/crd-update")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 10, "fixtures missing");
    let mut failures = Vec::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().to_string();
        let old = format!("{DIR}/{name}/old.yaml");
        let new = format!("{DIR}/{name}/new.yaml");
        let (report, status) = check_json(&["--old", &old, &new]);
        let actual = render(&report);
        // The old CRD is read as stored, never validated itself.
        for d in report["diagnostics"].as_array().unwrap() {
            assert_eq!(d["file"].as_str(), Some(new.as_str()), "{name}: {d}");
        }
        let errors = report["summary"]["errors"].as_u64().unwrap();
        assert_eq!(status, i32::from(errors > 0), "{name}: exit status");
        // An empty `expected` is a fact too (the update is accepted): it must exist.
        let expected_path = case.join("expected");
        let expected =
            std::fs::read_to_string(&expected_path).unwrap_or_else(|_| "(missing)\n".into());
        if actual != expected {
            if bless() {
                std::fs::write(&expected_path, &actual).expect("write expected");
                continue;
            }
            failures.push(format!(
                "{name}:\n--- expected\n{expected}--- actual\n{actual}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Without `--old` the same manifest is a create: the immutable fields are free.
#[test]
fn without_old_the_crd_is_a_create() {
    let (report, status) = check_json(&[&format!("{DIR}/immutable-scope-kind/new.yaml")]);
    assert_eq!(render(&report), "");
    assert_eq!(status, 0);
}

/// Only a CRD with the same `metadata.name` is an update: another old CRD changes
/// nothing.
#[test]
fn an_old_crd_of_another_name_is_not_compared() {
    let (report, status) = check_json(&[
        "--old",
        "testdata/crd/approval_ok.yaml",
        &format!("{DIR}/immutable-scope-kind/new.yaml"),
    ]);
    assert_eq!(render(&report), "");
    assert_eq!(status, 0);
}

/// Rules the old CRD already had compile with every CEL library of the server's own
/// version; new ones with the libraries of the version before (`preexistingExpressions`
/// picking `StoredExpressionsEnv` or `NewExpressionsEnv`). At 1.34 the list extensions
/// (`sort`, `distinct`, introduced at 1.34) are thus available to a kept rule only. Read
/// from the v0.35 source, not recorded: the reference server is 1.35, whose two
/// environments have the same libraries (it accepts this update, as crdlint does at 1.35).
#[test]
fn preexisting_rules_compile_with_the_servers_own_libraries() {
    const DIR: &str = "testdata/crd-update-1.34/preexisting-rules";
    let run = |version: &str| check_update(DIR, version, "short");
    assert_eq!(
        run("1.34"),
        r#"testdata/crd-update-1.34/preexisting-rules/new.yaml:30:42: error[cel-compile-error]: spec.validation.openAPIV3Schema.properties[spec].properties[priorities].x-kubernetes-validations[1].rule: Invalid value: {"Rule":"self.distinct() == self","Message":"priorities must be unique","MessageExpression":"","Reason":null,"FieldPath":"","OptionalOldSelf":null}: compilation failed: ERROR: <input>:1:14: undeclared reference to 'distinct' (in container '')
1 file, 1 document (1 CRD, 0 custom resources): 1 error, 0 warnings
"#
    );
    assert_eq!(
        run("1.35"),
        "1 file, 1 document (1 CRD, 0 custom resources): 0 errors, 0 warnings\n"
    );
}

/// The cost walk is the server's, whatever environment compiled a rule: a 1.32 server
/// compiles the rules an update keeps with its own version's environment, and still
/// estimates them with cel-go v0.22, where `dyn(x)` has no known size. So the kept
/// `dyn()` rules of a changed schema break the limits on 1.32 and not on 1.33. The
/// 1.32 errors are the 1.32 server's (apiextensions v0.32.2, update path), field by field.
#[test]
fn kept_rules_are_estimated_with_the_servers_cost_walk() {
    const DIR: &str = "testdata/crd-update-1.32/kept-dyn-rules";
    let run = |version: &str| -> Vec<(String, String)> {
        let report: serde_json::Value =
            serde_json::from_str(&check_update(DIR, version, "json")).unwrap();
        report["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                let field = d["field"].as_str().unwrap();
                let tail = field.split("openAPIV3Schema").nth(1).unwrap_or(field);
                (d["code"].as_str().unwrap().to_string(), tail.to_string())
            })
            .collect()
    };
    let rule = |i: usize| format!(".properties[spec].x-kubernetes-validations[{i}].rule");
    let mut expected = vec![("cel-cost-total".to_string(), String::new())];
    for i in [2, 3, 4, 6] {
        expected.push(("cel-cost-rule".to_string(), rule(i)));
        expected.push(("cel-cost-total".to_string(), rule(i)));
    }
    expected.push((
        "cel-cost-rule".to_string(),
        ".properties[spec].x-kubernetes-validations[8].messageExpression".to_string(),
    ));
    assert_eq!(run("1.32"), expected);
    assert_eq!(run("1.33"), Vec::<(String, String)>::new());
}

/// `crdlint check` on a server of `version` with output `format` and `args`.
fn run_check(version: &str, format: &str, args: &[&str]) -> std::process::Output {
    Command::cargo_bin("crdlint")
        .unwrap()
        .current_dir(root())
        .args([
            "check",
            "--no-config",
            "--kube-version",
            version,
            "-o",
            format,
        ])
        .args(args)
        .output()
        .unwrap()
}

/// `crdlint check --old DIR/old.yaml DIR/new.yaml` on a server of `version`: stdout.
fn check_update(dir: &str, version: &str, format: &str) -> String {
    let (old, new) = (format!("{dir}/old.yaml"), format!("{dir}/new.yaml"));
    let output = run_check(version, format, &["--old", &old, &new]);
    String::from_utf8(output.stdout).unwrap()
}
