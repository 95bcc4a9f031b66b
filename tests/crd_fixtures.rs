//! CRD validation fixtures: each `testdata/crd/<case>.yaml` has a `<case>.expected` with
//! the exact errors (code, reason, field, message), verified against the reference
//! oracle (kubectl-validate with the real apiextensions validation code). Plus the
//! real-world corpus (zero errors) and broken copies of a corpus CRD.

use std::path::{Path, PathBuf};

use crdlint::diag::{Diagnostic, Severity};
use crdlint::source::yaml::{Limits, parse};
use crdlint::source::{LineIndex, Node};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// Parses the documents of a YAML text; `None` while the loader is unavailable.
fn documents(text: &str) -> Option<Vec<Node>> {
    let out = parse(text, &Limits::default());
    if out.documents.is_empty() && out.errors.is_empty() && !text.trim().is_empty() {
        return None;
    }
    Some(out.documents.into_iter().map(|d| d.root).collect())
}

fn render(diags: &[Diagnostic]) -> String {
    let mut lines: Vec<String> = diags
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            format!(
                "{}\t{}\t{}\t{}",
                d.code,
                d.reason.unwrap_or("-"),
                d.field.as_deref().unwrap_or("-"),
                d.message
            )
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|l| l + "\n").collect()
}

#[test]
fn fixtures_report_exactly_the_expected_errors() {
    let dir = root().join("testdata/crd");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("testdata/crd")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    cases.sort();
    assert!(cases.len() > 50, "fixtures missing");
    let mut failures = Vec::new();
    for case in cases {
        let text = std::fs::read_to_string(&case).expect("fixture");
        let docs = match documents(&text) {
            Some(docs) => docs,
            None => {
                // Without the YAML loader, check the JSON twin (same content, no spans).
                let stem = case
                    .file_stem()
                    .expect("stem")
                    .to_string_lossy()
                    .to_string();
                let json = dir.join("json").join(format!("{stem}.json"));
                let json = std::fs::read_to_string(json).expect("JSON twin");
                let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
                vec![Node::from_json(&value, Default::default())]
            }
        };
        let expected = std::fs::read_to_string(case.with_extension("expected")).unwrap_or_default();
        let actual = render(&crdlint::crd::validate(&docs[0]));
        if actual != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- actual\n{actual}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn corpus_files() -> Option<Vec<PathBuf>> {
    let dir = root().join("../shared/corpus/crds");
    let dir = if dir.exists() {
        dir
    } else {
        PathBuf::from("/work/shared/corpus/crds")
    };
    if !dir.exists() {
        eprintln!("skipping corpus test: {} does not exist", dir.display());
        return None;
    }
    let mut files = Vec::new();
    for project in std::fs::read_dir(&dir).ok()? {
        let project = project.ok()?.path();
        for f in std::fs::read_dir(&project).ok()? {
            let f = f.ok()?.path();
            if f.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                files.push(f);
            }
        }
    }
    files.sort();
    Some(files)
}

fn is_crd(n: &Node) -> bool {
    n.get("kind").and_then(Node::as_str) == Some("CustomResourceDefinition")
}

#[test]
fn corpus_crds_have_no_errors() {
    let Some(files) = corpus_files() else {
        return;
    };
    let mut errors = Vec::new();
    let mut crds = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).expect("corpus file");
        let Some(docs) = documents(&text) else {
            eprintln!("skipping corpus test: the YAML loader is not available in this build");
            return;
        };
        for doc in docs.iter().filter(|d| is_crd(d)) {
            crds += 1;
            for d in crdlint::crd::validate(doc) {
                if d.severity == Severity::Error {
                    errors.push(format!("{}: {}", f.display(), d.message));
                }
            }
        }
    }
    assert!(crds >= 200, "only {crds} CRDs found in the corpus");
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

/// Line and column (1-based) of a span start.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let p = LineIndex::new(text).position(text, offset);
    (p.line, p.column)
}

#[test]
fn broken_corpus_crd_is_caught_at_the_right_place() {
    let Some(files) = corpus_files() else {
        return;
    };
    let Some(file) = files
        .iter()
        .find(|f| f.ends_with("cert-manager/cert-manager.io_issuers.yaml"))
        .or(files.first())
    else {
        return;
    };
    let original = std::fs::read_to_string(file).expect("corpus file");
    if documents(&original).is_none() {
        eprintln!("skipping broken-copy test: the YAML loader is not available in this build");
        return;
    }

    // 1. Remove the `type:` of the first property under the root schema's spec.
    let marker = "\n            spec:\n";
    if let Some(at) = original.find(marker) {
        let rest = &original[at + marker.len()..];
        if let Some(type_line) = rest.lines().find(|l| l.trim_start().starts_with("type: ")) {
            let text = original.replacen(&format!("{type_line}\n"), "", 1);
            let docs = documents(&text).expect("parses");
            let diags = crdlint::crd::validate(&docs[0]);
            let d = diags
                .iter()
                .find(|d| d.code == "schema-not-structural")
                .unwrap_or_else(|| panic!("no structural error: {diags:?}"));
            assert!(d.field.as_deref().unwrap_or("").ends_with(".type"), "{d:?}");
            assert_eq!(d.reason, Some("FieldValueRequired"));
            assert!(d.span.is_some());
        }
    }

    // 2. Add a `$ref` next to the root schema's type.
    let root_type = "openAPIV3Schema:\n";
    if let Some(at) = original.find(root_type) {
        let line_start = original[..at].rfind('\n').map_or(0, |i| i + 1);
        let indent = at - line_start + 2;
        let insert = format!("{root_type}{}$ref: '#/definitions/x'\n", " ".repeat(indent));
        let text = original.replacen(root_type, &insert, 1);
        let docs = documents(&text).expect("parses");
        let diags = crdlint::crd::validate(&docs[0]);
        let d = diags
            .iter()
            .find(|d| d.code == "schema-forbidden-field")
            .unwrap_or_else(|| panic!("no $ref error: {diags:?}"));
        assert_eq!(
            d.field.as_deref(),
            Some("spec.versions[0].schema.openAPIV3Schema.$ref")
        );
        assert_eq!(d.reason, Some("FieldValueForbidden"));
        let ref_at = text.find("$ref:").expect("inserted");
        assert_eq!(
            position(&text, d.span.expect("span").start),
            position(&text, ref_at)
        );
    }

    // 3. Make every version a storage version.
    let text = original.replace("storage: false", "storage: true");
    let storages = text.matches("storage: true").count();
    if storages >= 2 {
        let docs = documents(&text).expect("parses");
        let diags = crdlint::crd::validate(&docs[0]);
        let d = diags
            .iter()
            .find(|d| {
                d.message
                    .contains("must have exactly one version marked as storage version")
            })
            .unwrap_or_else(|| panic!("no storage error: {diags:?}"));
        assert_eq!(d.field.as_deref(), Some("spec.versions"));
        let versions_at = text.find("versions:").expect("versions key");
        assert_eq!(
            position(&text, d.span.expect("span").start),
            position(&text, versions_at)
        );
    }
}
