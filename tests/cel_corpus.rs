//! CEL rules evaluated through the custom-resource pipeline on the shared corpus,
//! compared with the reference server (kubectl-validate with the v0.35 apiextensions
//! libraries; answers recorded in `testdata/cel/*-1.35.json`):
//! - `invalid-crs/` (gateway-api's invalid examples) and the CEL cases of
//!   `kubectl-validate-testcases/`: every cause the server reports is reproduced;
//! - `crs/` (accepted by real clusters): no rule fails.
//!
//! Skips with a message when the corpus is absent.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use crdlint::cel::{CrdRules, KubeVersion};
use crdlint::diag::Diagnostic;
use crdlint::model::crd;
use crdlint::schema::resource::{CompiledCrd, Options, RuleEvaluator};
use crdlint::schema::structural::Structural;
use crdlint::source::Node;

/// The pipeline's rule seam, with rules crdlint cannot evaluate reported as errors so
/// that they show up in the comparison.
struct Rules(CrdRules);

impl RuleEvaluator for Rules {
    fn evaluate(&self, version: &str, schema: &Structural, object: &Node) -> Vec<Diagnostic> {
        let out = self.0.evaluate_update(version, schema, object, None);
        let mut ds = out.diagnostics;
        for n in out.not_evaluated {
            ds.push(Diagnostic::error(
                "cel-not-evaluated",
                format!("{}: not evaluated: {} ({})", n.field, n.rule, n.reason),
            ));
        }
        ds
    }
}

fn corpus() -> Option<PathBuf> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    let p = if p.exists() {
        p
    } else {
        PathBuf::from("/work/shared/corpus")
    };
    if !p.exists() {
        eprintln!("SKIP: corpus not found at ../shared/corpus");
        return None;
    }
    Some(p)
}

fn documents(path: &Path) -> Vec<Node> {
    let text = fs::read_to_string(path).unwrap_or_default();
    crdlint::source::yaml::parse(&text, &Default::default())
        .documents
        .into_iter()
        .map(|d| d.root)
        .collect()
}

fn yaml_files(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml" || e == "yml"))
        .collect();
    out.sort();
    out
}

fn registry(dirs: &[PathBuf]) -> Vec<CompiledCrd> {
    let mut out = Vec::new();
    for d in dirs {
        for f in yaml_files(d) {
            for doc in documents(&f) {
                if doc.get("kind").and_then(Node::as_str) != Some("CustomResourceDefinition") {
                    continue;
                }
                let (c, _diags) = crd::decode(&doc);
                out.push(CompiledCrd::new(&c));
            }
        }
    }
    out
}

/// Errors (and the not-evaluated warnings) for one document, as `field: message`.
fn check(registry: &[CompiledCrd], rules: &Rules, doc: &Node) -> Option<Vec<String>> {
    let api_version = doc.get("apiVersion").and_then(Node::as_str).unwrap_or("");
    let kind = doc.get("kind").and_then(Node::as_str).unwrap_or("");
    let c = registry.iter().find(|c| c.matches(api_version, kind))?;
    let options = Options {
        rules: Some(rules),
        ..Options::default()
    };
    let outcome = c.check(doc, &options);
    Some(
        outcome
            .diagnostics
            .iter()
            .filter(|d| {
                d.severity == crdlint::diag::Severity::Error || d.code == "cel-not-evaluated"
            })
            .map(|d| d.message.clone())
            .collect(),
    )
}

fn facts(name: &str) -> BTreeMap<String, serde_json::Value> {
    let text = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(name))
        .expect("recorded facts");
    serde_json::from_str(&text).expect("json")
}

fn is_cel(message: &str) -> bool {
    !message.contains(" in body ")
        && !message.contains("Required value")
        && !message.contains("Unsupported value")
        && !message.contains("Duplicate value")
        && !message.contains("some validation rules were not checked")
}

#[test]
fn invalid_gateway_examples_get_the_servers_cel_messages() {
    let Some(root) = corpus() else {
        return;
    };
    let mut cel_total = 0;
    let mut cel_matched = 0;
    let mut files_identical = 0;
    let mut report = Vec::new();
    let expected = facts("testdata/cel/invalid-crs-1.35.json");
    for (file, want) in &expected {
        let channel = file.split('/').nth(1).unwrap_or("");
        let reg = registry(&[root.join("crds").join(channel)]);
        // One rule cache per registry: it is keyed by schema identity, which a dropped
        // registry's schemas would hand on to the next one's.
        let rules = Rules(CrdRules::new(KubeVersion::new(1, 35)));
        let mut got = Vec::new();
        for doc in documents(&root.join(file)) {
            got.extend(check(&reg, &rules, &doc).unwrap_or_default());
        }
        let mut want: Vec<String> = want
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(String::from))
            .collect();
        want.sort();
        got.sort();
        for w in want.iter().filter(|w| is_cel(w)) {
            cel_total += 1;
            if got.contains(w) {
                cel_matched += 1;
            } else {
                report.push(format!(
                    "{file}: server {w:?} not reproduced (crdlint: {got:?})"
                ));
            }
        }
        for g in got.iter().filter(|g| is_cel(g)) {
            if !want.contains(g) {
                report.push(format!("{file}: crdlint adds {g:?}"));
            }
        }
        if want == got {
            files_identical += 1;
        }
    }
    eprintln!(
        "invalid-crs: {cel_matched}/{cel_total} CEL messages reproduced; {files_identical}/{} files with identical cause lists",
        expected.len()
    );
    for r in &report {
        eprintln!("  {r}");
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

#[test]
fn kubectl_validate_cel_cases_match() {
    let Some(root) = corpus() else {
        return;
    };
    let base = root.join("kubectl-validate-testcases");
    let reg = registry(&[base.join("crds")]);
    let rules = Rules(CrdRules::new(KubeVersion::new(1, 35)));
    let expected = facts("testdata/cel/kv-testcases-1.35.json");
    let mut compared = 0;
    let mut failures = Vec::new();
    for (file, want) in &expected {
        let docs = documents(&root.join(file));
        for (i, doc) in docs.iter().enumerate() {
            let Some(mut got) = check(&reg, &rules, doc) else {
                continue; // a built-in kind: not this module's concern
            };
            let mut want: Vec<String> = want[i]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|v| v.as_str().map(String::from))
                .collect();
            want.sort();
            got.sort();
            compared += 1;
            if want != got {
                failures.push(format!("{file}#{i}: server {want:?}\n   crdlint {got:?}"));
            }
        }
    }
    eprintln!(
        "kubectl-validate-testcases: {}/{compared} custom resources with the server's causes",
        compared - failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn accepted_corpus_resources_pass_their_rules() {
    let Some(root) = corpus() else {
        return;
    };
    let mut total = 0;
    let mut failures = Vec::new();
    let crs = root.join("crs");
    let mut projects: Vec<PathBuf> = fs::read_dir(&crs)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    projects.sort();
    for project in projects {
        let name = project.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let dirs: Vec<PathBuf> = match name {
            "envoy-gateway" => vec!["envoy-gateway", "gateway-api-experimental"],
            "flux-kustomize-controller" => {
                vec!["flux-kustomize-controller", "flux-source-controller"]
            }
            "jobset" => vec!["jobset", "kueue"],
            p => vec![p],
        }
        .into_iter()
        .map(|d| root.join("crds").join(d))
        .collect();
        let reg = registry(&dirs);
        let rules = Rules(CrdRules::new(KubeVersion::new(1, 35)));
        for f in yaml_files(&project) {
            for (i, doc) in documents(&f).iter().enumerate() {
                let Some(errors) = check(&reg, &rules, doc) else {
                    continue;
                };
                total += 1;
                if !errors.is_empty() {
                    failures.push(format!("{}#{i}: {}", f.display(), errors.join(" | ")));
                }
            }
        }
    }
    eprintln!(
        "crs: {total} resources checked with CEL, {} with errors",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
