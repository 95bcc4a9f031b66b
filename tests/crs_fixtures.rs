//! Exact-output tests of the custom-resource pipeline: each `testdata/crs/<case>/`
//! holds `crd.json` (a CRD), `cr.json` (one resource, or an array of resources) and
//! `expected.txt` (one line per diagnostic: `severity[code] message`, a `---` line
//! between documents). Inputs are JSON, which is YAML, so the cases keep working when
//! they are read through the YAML loader.

use std::fs;
use std::path::Path;

use crdlint::dryrun;
use crdlint::model::crd;
use crdlint::schema::resource::{CompiledCrd, Options};
use crdlint::source::{Node, Span};

fn load(path: &Path) -> serde_json::Value {
    let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Diagnostics, then (when the object is valid) the stored object as
/// `crdlint dry-run -o yaml` prints it.
fn render(crd: &CompiledCrd, doc: &serde_json::Value) -> String {
    let node = Node::from_json(doc, Span::default());
    let outcome = crd.check(&node, &Options::default());
    let mut out: String = outcome
        .diagnostics
        .iter()
        .map(|d| format!("{}[{}] {}\n", d.severity.as_str(), d.code, d.message))
        .collect();
    if let Some(stored) = &outcome.stored {
        out.push_str("stored:\n");
        out.push_str(&dryrun::render(
            std::slice::from_ref(stored),
            dryrun::Format::Yaml,
        ));
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
        let crd_json = load(&case.join("crd.json"));
        let (decoded, diags) = crd::decode(&Node::from_json(&crd_json, Span::default()));
        assert!(diags.is_empty(), "{}: {diags:?}", case.display());
        let compiled = CompiledCrd::new(&decoded);
        let docs = match load(&case.join("cr.json")) {
            serde_json::Value::Array(docs) => docs,
            doc => vec![doc],
        };
        let got: Vec<String> = docs.iter().map(|d| render(&compiled, d)).collect();
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
