//! The commands users meet first, driven through the built binary: `--version`, `--help`,
//! `rules`, `check -o github`, `.crdlint.yaml` and inline suppressions.

use std::path::Path;

use assert_cmd::Command;

fn crdlint() -> Command {
    let mut cmd = Command::cargo_bin("crdlint").unwrap();
    cmd.env("NO_COLOR", "1");
    cmd
}

fn stdout(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn version_is_the_package_version() {
    let (code, out, _) = stdout(crdlint().arg("--version"));
    assert_eq!(
        (code, out.as_str()),
        (0, concat!("crdlint ", env!("CARGO_PKG_VERSION"), "\n"))
    );
    let (code, out, _) = stdout(crdlint().args(["rules", "--version"]));
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            concat!("crdlint-rules ", env!("CARGO_PKG_VERSION"), "\n")
        )
    );
}

#[test]
fn every_subcommand_has_examples_in_its_help() {
    for args in [
        vec!["--help"],
        vec!["check", "--help"],
        vec!["rules", "--help"],
        vec!["completions", "--help"],
        vec!["explain", "--help"],
    ] {
        let (code, out, _) = stdout(crdlint().args(&args));
        assert_eq!(code, 0, "{args:?}");
        assert!(
            out.contains("\nExamples:\n  crdlint "),
            "{args:?} has no examples:\n{out}"
        );
    }
}

#[test]
fn rules_lists_every_registered_code() {
    let (code, out, _) = stdout(crdlint().arg("rules"));
    assert_eq!(code, 0);
    let mut lines = out.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["CODE", "SEVERITY", "SUMMARY"]);
    let rows: Vec<Vec<String>> = lines
        .map(|l| {
            l.splitn(3, "  ")
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    let expected: Vec<Vec<String>> = crdlint::codes::all()
        .iter()
        .map(|c| {
            vec![
                c.code.to_string(),
                c.severity.as_str().to_string(),
                c.summary.to_string(),
            ]
        })
        .collect();
    // Columns are separated by at least two spaces; codes and severities have none inside.
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| {
            let joined = r.join("  ");
            let mut parts = joined.split_whitespace();
            let code = parts.next().unwrap_or_default().to_string();
            let severity = parts.next().unwrap_or_default().to_string();
            let summary = parts.collect::<Vec<_>>().join(" ");
            vec![code, severity, summary]
        })
        .collect();
    let expected: Vec<Vec<String>> = expected
        .into_iter()
        .map(|mut r| {
            r[2] = r[2].split_whitespace().collect::<Vec<_>>().join(" ");
            r
        })
        .collect();
    assert_eq!(rows, expected);
}

#[test]
fn rules_json_lists_codes_with_their_documentation_links() {
    let (code, out, _) = stdout(crdlint().args(["rules", "-o", "json"]));
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["version"], 1);
    let rules = doc["rules"].as_array().unwrap();
    assert_eq!(rules.len(), crdlint::codes::all().len());
    let missing = rules.iter().find(|r| r["code"] == "missing-crd").unwrap();
    assert_eq!(
        missing,
        &serde_json::json!({
            "code": "missing-crd",
            "severity": "warning",
            "summary": crdlint::codes::find("missing-crd").unwrap().summary,
            "url": concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/rules/missing-crd.md"),
        })
    );
}

#[test]
fn rules_code_prints_the_doc_page() {
    let page = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules/missing-crd.md"),
    )
    .unwrap();
    let (code, out, _) = stdout(crdlint().args(["rules", "missing-crd"]));
    assert_eq!((code, out), (0, page.clone()));
    let (code, out, _) = stdout(crdlint().args(["rules", "missing-crd", "-o", "json"]));
    assert_eq!(code, 0);
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(doc["documentation"], page.as_str());
}

#[test]
fn every_registered_code_has_its_page_compiled_in() {
    let compiled: Vec<&str> = crdlint::cli::rules::documented_codes().collect();
    let missing: Vec<&str> = crdlint::codes::all()
        .iter()
        .map(|c| c.code)
        .filter(|c| !compiled.contains(c))
        .collect();
    assert!(missing.is_empty(), "no page compiled in for {missing:?}");
}

#[test]
fn rules_with_an_unknown_code_suggests_the_closest() {
    let (code, out, err) = stdout(crdlint().args(["rules", "missing-crdd"]));
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            2,
            "",
            "error: unknown code `missing-crdd` (did you mean `missing-crd`?); `crdlint rules` lists every code\n"
        )
    );
}

#[test]
fn github_output_is_workflow_commands() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join(".git")).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/bin,ary.yaml"), b"a: \x00\x01\n").unwrap();
    let (code, out, _) = stdout(
        crdlint()
            .current_dir(dir.path().join("sub"))
            .args(["check", "-o", "github", "."]),
    );
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "::error file=sub/bin%2Cary.yaml,title=crdlint(binary-file)::binary file (NUL byte at offset 3); not a YAML or JSON manifest%0Ahelp: exclude it with --exclude GLOB, or save it as UTF-8 text\n\
         1 file, 0 documents (0 CRDs, 0 custom resources): 1 error, 0 warnings\n"
    );
}
