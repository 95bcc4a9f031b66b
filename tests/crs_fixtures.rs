//! Exact-output tests of the custom-resource pipeline: each `testdata/crs/<case>/`
//! holds `crd.yaml` (a CRD), `cr.yaml` (resources, several documents allowed) and
//! `expected.txt`: per document, one line per diagnostic
//! (`line:column severity[code] message`, the position of its span start), then the
//! stored object as `crdlint dry-run -o yaml` prints it when the object is valid;
//! `---` between documents. `CRDLINT_BLESS=1` rewrites the expectations.

use std::fs;
use std::path::Path;

use crdlint::dryrun;
use crdlint::model::crd;
use crdlint::schema::resource::{CompiledCrd, Options};
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

fn render(crd: &CompiledCrd, text: &str, doc: &Node) -> String {
    let lines = LineIndex::new(text);
    let outcome = crd.check(doc, &Options::default());
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
        let (_, crds) = parse(&case.join("crd.yaml"));
        let (decoded, diags) = crd::decode(&crds[0]);
        assert!(diags.is_empty(), "{}: {diags:?}", case.display());
        let compiled = CompiledCrd::new(&decoded);
        let (text, docs) = parse(&case.join("cr.yaml"));
        let got: Vec<String> = docs.iter().map(|d| render(&compiled, &text, d)).collect();
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
