//! Exact-output tests of the custom-resource pipeline: each `testdata/crs/<case>/`
//! holds `crd.yaml` (a CRD), `cr.yaml` (resources, several documents allowed) and
//! `expected.txt`: per document, one line per diagnostic
//! (`line:column severity[code] message`, the position of its span start), then the
//! stored object as `crdlint dry-run -o yaml` prints it when the object is valid;
//! `---` between documents. An optional `old.yaml` holds stored objects: a resource
//! with the same apiVersion, kind, namespace and name is checked as an update of it.
//! `CRDLINT_BLESS=1` rewrites the expectations.

use std::fs;
use std::path::Path;

use crdlint::cel::CrdRules;
use crdlint::diag::Diagnostic;
use crdlint::dryrun;
use crdlint::model::crd;
use crdlint::schema::resource::{CompiledCrd, Options, RuleEvaluator};
use crdlint::schema::structural::Structural;
use crdlint::source::yaml;
use crdlint::source::{LineIndex, Node};

fn parse(path: &Path) -> (String, Vec<Node>) {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parsed = yaml::parse(&text, &Default::default());
    assert!(
        parsed.errors.is_empty(),
        "{}: {:?}",
        path.display(),
        parsed.errors
    );
    let docs = parsed.documents.into_iter().map(|d| d.root).collect();
    (text, docs)
}

fn identity(doc: &Node) -> [String; 4] {
    let text = |path: &[&str]| {
        doc.get_path(path)
            .and_then(Node::as_str)
            .unwrap_or("")
            .to_string()
    };
    [
        text(&["apiVersion"]),
        text(&["kind"]),
        text(&["metadata", "namespace"]),
        text(&["metadata", "name"]),
    ]
}

/// The CEL rules, evaluated as `crdlint check` does (for Kubernetes 1.35, the oracle).
struct Cel(CrdRules);

impl RuleEvaluator for Cel {
    fn evaluate(&self, version: &str, schema: &Structural, object: &Node) -> Vec<Diagnostic> {
        self.evaluate_update(version, schema, object, None)
    }

    fn evaluate_update(
        &self,
        version: &str,
        schema: &Structural,
        object: &Node,
        old: Option<&Node>,
    ) -> Vec<Diagnostic> {
        let outcome = self.0.evaluate_update(version, schema, object, old);
        assert!(
            outcome.not_evaluated.is_empty(),
            "{:?}",
            outcome.not_evaluated
        );
        let mut d = outcome.diagnostics;
        d.extend(outcome.warnings);
        d
    }
}

fn render(crd: &CompiledCrd, text: &str, doc: &Node, olds: &[Node]) -> String {
    let lines = LineIndex::new(text);
    let old = olds.iter().find(|o| identity(o) == identity(doc));
    let cel = Cel(CrdRules::new(crdlint::cel::KubeVersion::new(1, 35)));
    let options = Options {
        rules: Some(&cel),
        ..Options::default()
    };
    let outcome = match old {
        Some(old) => crd.check_update(doc, old, &options),
        None => crd.check(doc, &options),
    };
    let mut out = String::new();
    for d in &outcome.diagnostics {
        let pos = lines.position(text, d.span.map(|s| s.start).unwrap_or(0));
        out.push_str(&format!(
            "{}:{} {}[{}] {}\n",
            pos.line,
            pos.column,
            d.severity.as_str(),
            d.code,
            d.message
        ));
    }
    if let Some(stored) = &outcome.stored {
        out.push_str("stored:\n");
        out.push_str(&dryrun::render(&[stored], dryrun::Format::Yaml));
    }
    out
}

#[test]
fn fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crs");
    let mut cases: Vec<_> = fs::read_dir(&root)
        .expect("testdata/crs")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(!cases.is_empty());
    let mut failures = Vec::new();
    for case in cases {
        let (_, crds) = parse(&case.join("crd.yaml"));
        let (decoded, diags) = crd::decode(&crds[0]);
        assert!(diags.is_empty(), "{}: {diags:?}", case.display());
        let compiled = CompiledCrd::new(&decoded);
        let (text, docs) = parse(&case.join("cr.yaml"));
        let olds = if case.join("old.yaml").exists() {
            parse(&case.join("old.yaml")).1
        } else {
            Vec::new()
        };
        let got: Vec<String> = docs
            .iter()
            .map(|d| render(&compiled, &text, d, &olds))
            .collect();
        let got = got.join("---\n");
        let expected_path = case.join("expected.txt");
        if std::env::var_os("CRDLINT_BLESS").is_some() {
            fs::write(&expected_path, &got).expect("write expected");
            continue;
        }
        let expected = fs::read_to_string(&expected_path).unwrap_or_default();
        if got != expected {
            failures.push(format!(
                "== {}\n-- expected\n{expected}-- got\n{got}",
                case.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The error messages of each document in an `expected.txt` (`field: detail`), and
/// the oracle's in an `oracle.txt`, sorted.
fn messages_by_document(text: &str, oracle: bool) -> Vec<Vec<String>> {
    let mut docs: Vec<Vec<String>> = Vec::new();
    if !oracle {
        docs.push(Vec::new());
    }
    for line in text.lines() {
        // The caret snippet of a CEL compile error continues its message.
        if line.starts_with(" | ") {
            if let Some(last) = docs.last_mut().and_then(|d| d.last_mut()) {
                last.push('\n');
                last.push_str(line);
            }
            continue;
        }
        if oracle {
            if line.starts_with("--- ") {
                docs.push(Vec::new());
            } else if !line.starts_with('#')
                && let Some(d) = docs.last_mut()
            {
                d.push(line.to_string());
            }
            continue;
        }
        if line == "---" {
            docs.push(Vec::new());
            continue;
        }
        // `line:col error[code] message`
        let Some((_, rest)) = line.split_once(' ') else {
            continue;
        };
        if let Some(rest) = rest.strip_prefix("error[")
            && let Some((_, message)) = rest.split_once("] ")
            && let Some(d) = docs.last_mut()
        {
            d.push(message.to_string());
        }
    }
    for d in &mut docs {
        d.sort();
    }
    docs
}

/// Every fixture's error messages equal the reference oracle's answer recorded in
/// `oracle.txt` (testdata/crs/record-oracle.py), except for the differences listed in
/// `differences.txt`: `+ doc N: message` (crdlint only) and `- doc N: message`
/// (oracle only), each explained by `#` lines above it.
#[test]
fn fixtures_agree_with_the_oracle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crs");
    let mut cases: Vec<_> = fs::read_dir(&root)
        .expect("testdata/crs")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.join("oracle.txt").exists())
        .collect();
    cases.sort();
    assert!(cases.len() >= 20, "oracle facts missing: {}", cases.len());
    let mut failures = Vec::new();
    for case in cases {
        let read = |name: &str| fs::read_to_string(case.join(name)).unwrap_or_default();
        let ours = messages_by_document(&read("expected.txt"), false);
        let theirs = messages_by_document(&read("oracle.txt"), true);
        let mut got = Vec::new();
        for i in 0..ours.len().max(theirs.len()) {
            let empty = Vec::new();
            let (o, t) = (
                ours.get(i).unwrap_or(&empty),
                theirs.get(i).unwrap_or(&empty),
            );
            got.extend(
                o.iter()
                    .filter(|m| !t.contains(m))
                    .map(|m| format!("+ doc {i}: {m}")),
            );
            got.extend(
                t.iter()
                    .filter(|m| !o.contains(m))
                    .map(|m| format!("- doc {i}: {m}")),
            );
        }
        got.sort();
        let mut listed: Vec<String> = read("differences.txt")
            .lines()
            .filter(|l| l.starts_with("+ ") || l.starts_with("- "))
            .map(str::to_string)
            .collect();
        listed.sort();
        if got != listed {
            failures.push(format!(
                "== {}: differences from the oracle not as listed in differences.txt\n{}",
                case.display(),
                got.join("\n")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
