//! kubectl-validate's own test cases (`../shared/corpus/kubectl-validate-testcases`):
//! every manifest is run through `crdlint check --crds crds/ -o json`, and each
//! document's verdict and messages are compared with the Status JSON written in the
//! comment above it (the answer of the real validation code).
//!
//! Custom resources of the test CRDs and CRDs must match exactly (verdict and every
//! `field: message`). Documents with YAML errors (crdlint words its own parser's
//! errors) must get the same verdict. Built-in kinds (Pod, ConfigMap, …) are out of crdlint's
//! scope: they are listed as skipped, visibly. Without the corpus the test says so
//! and passes.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn corpus() -> Option<PathBuf> {
    let local = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    [local, PathBuf::from("/work/shared/corpus")]
        .into_iter()
        .map(|c| c.join("kubectl-validate-testcases"))
        .find(|c| c.join("manifests").is_dir())
}

/// The expected Status of each `---` section that has one, by section index.
fn expected_statuses(text: &str) -> BTreeMap<usize, serde_json::Value> {
    let mut out = BTreeMap::new();
    let mut section = 0;
    let mut buffer: Option<String> = None;
    let mut done = false;
    for line in text.lines() {
        if line.trim_end() == "---" {
            section += 1;
            buffer = None;
            done = false;
            continue;
        }
        if done {
            continue;
        }
        let Some(comment) = line.strip_prefix('#') else {
            if buffer.is_some() {
                done = true;
            }
            continue;
        };
        let comment = comment.strip_prefix(' ').unwrap_or(comment);
        match &mut buffer {
            None if comment.starts_with('{') => buffer = Some(comment.to_string()),
            None => {}
            Some(b) => {
                b.push('\n');
                b.push_str(comment);
            }
        }
        if let Some(b) = &buffer
            && let Ok(status) = serde_json::from_str::<serde_json::Value>(b)
        {
            out.insert(section, status);
            buffer = None;
            done = true;
        }
    }
    out
}

/// `field: message` of each cause (the message alone when there is no field).
fn expected_messages(status: &serde_json::Value) -> Vec<String> {
    let mut out: Vec<String> = status["details"]["causes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| {
            let field = c["field"].as_str().unwrap_or("");
            let message = c["message"].as_str().unwrap_or("");
            if field.is_empty() {
                message.to_string()
            } else {
                format!("{field}: {message}")
            }
        })
        .collect();
    out.sort();
    out
}

#[derive(Default)]
struct Tally {
    exact: Vec<String>,
    verdict_only: Vec<String>,
    skipped: Vec<String>,
    failures: Vec<String>,
}

#[test]
fn kubectl_validate_testcases() {
    let Some(root) = corpus() else {
        eprintln!("SKIP: ../shared/corpus/kubectl-validate-testcases not found");
        return;
    };
    let crds = root.join("crds");
    // Which (group, kind) the test CRDs define.
    let mut crd_kinds = Vec::new();
    for entry in fs::read_dir(&crds).expect("crds").filter_map(Result::ok) {
        let text = fs::read_to_string(entry.path()).unwrap_or_default();
        for doc in crdlint::source::yaml::parse(&text, &Default::default()).documents {
            let group = doc
                .root
                .get_path(&["spec", "group"])
                .and_then(|n| n.as_str());
            let kind = doc
                .root
                .get_path(&["spec", "names", "kind"])
                .and_then(|n| n.as_str());
            if let (Some(g), Some(k)) = (group, kind) {
                crd_kinds.push((g.to_string(), k.to_string()));
            }
        }
    }
    let mut manifests: Vec<PathBuf> = fs::read_dir(root.join("manifests"))
        .expect("manifests")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    manifests.sort();
    assert_eq!(manifests.len(), 31, "the 31 enabled test cases");

    let mut tally = Tally::default();
    for manifest in &manifests {
        let name = manifest.file_name().unwrap().to_string_lossy().to_string();
        let text = fs::read_to_string(manifest).expect("manifest");
        let output = Command::cargo_bin("crdlint")
            .unwrap()
            .args(["check", "--no-config", "-o", "json", "--crds"])
            .arg(&crds)
            .arg(manifest)
            .output()
            .expect("run crdlint");
        let report: serde_json::Value =
            serde_json::from_slice(&output.stdout).expect("crdlint JSON output");
        let mut errors: BTreeMap<usize, Vec<String>> = BTreeMap::new();
        for d in report["diagnostics"].as_array().into_iter().flatten() {
            if d["severity"] == "error" {
                let doc = d["document"].as_u64().unwrap_or(0) as usize;
                errors
                    .entry(doc)
                    .or_default()
                    .push(d["message"].as_str().unwrap_or("").to_string());
            }
        }
        let parsed = crdlint::source::yaml::parse(&text, &Default::default());
        let expected = expected_statuses(&text);
        if expected.is_empty() {
            // Comment-only or empty files: nothing to validate, nothing reported.
            let label = format!("{name}: no documents");
            if errors.is_empty() {
                tally.exact.push(label);
            } else {
                tally
                    .failures
                    .push(format!("{label}, but crdlint: {errors:?}"));
            }
            continue;
        }
        for (section, status) in &expected {
            let label = format!("{name}#{section}");
            let want_ok = status["status"] == "Success";
            let mut got = errors.get(section).cloned().unwrap_or_default();
            got.sort();
            let root_node = parsed
                .documents
                .iter()
                .find(|d| d.index == *section)
                .map(|d| &d.root);
            let api_version = root_node
                .and_then(|r| r.get("apiVersion"))
                .and_then(|n| n.as_str())
                .unwrap_or("");
            let kind = root_node
                .and_then(|r| r.get("kind"))
                .and_then(|n| n.as_str())
                .unwrap_or("");
            let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
            let is_cr = crd_kinds.iter().any(|(g, k)| g == group && k == kind);
            let yaml_error = !parsed.errors.is_empty();
            // CRDs get the server's exact causes too (paths of shared schemas included).
            let is_crd = !yaml_error && group == "apiextensions.k8s.io";
            if is_cr || is_crd {
                let want = if want_ok {
                    Vec::new()
                } else {
                    expected_messages(status)
                };
                if got == want {
                    tally.exact.push(label);
                } else {
                    tally
                        .failures
                        .push(format!("{label}: server {want:?}, crdlint {got:?}"));
                }
            } else if yaml_error || group == "apiextensions.k8s.io" {
                if got.is_empty() == want_ok {
                    if !want_ok && got != expected_messages(status) {
                        eprintln!(
                            "  {label}: same verdict; server says {:?}, crdlint {got:?}",
                            expected_messages(status)
                        );
                    }
                    tally.verdict_only.push(label);
                } else {
                    tally.failures.push(format!(
                        "{label}: server {}, crdlint {got:?}",
                        status["status"]
                    ));
                }
            } else {
                tally
                    .skipped
                    .push(format!("{label} ({api_version} {kind}: built-in kind)"));
            }
        }
    }
    eprintln!(
        "kubectl-validate test cases: {} exact, {} same verdict, {} skipped (built-in kinds are not checked by crdlint), {} failing",
        tally.exact.len(),
        tally.verdict_only.len(),
        tally.skipped.len(),
        tally.failures.len()
    );
    for s in &tally.skipped {
        eprintln!("  skipped: {s}");
    }
    assert!(tally.failures.is_empty(), "{}", tally.failures.join("\n"));
    assert!(tally.exact.len() >= 8, "{:?}", tally.exact);
}
