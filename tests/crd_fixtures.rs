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

/// Parses the documents of a YAML text with the real loader.
fn documents(text: &str) -> Vec<Node> {
    let out = parse(text, &Limits::default());
    assert!(out.errors.is_empty(), "YAML errors: {:?}", out.errors);
    out.documents.into_iter().map(|d| d.root).collect()
}

/// One line per diagnostic: `line:column<TAB>code<TAB>reason<TAB>field<TAB>message`, in
/// position order (the start of the span, 1-based).
fn render(text: &str, diags: &[Diagnostic]) -> String {
    let index = LineIndex::new(text);
    let mut lines: Vec<(usize, String)> = diags
        .iter()
        .map(|d| {
            let start = d.span.map_or(0, |s| s.start);
            let p = index.position(text, start);
            let severity = match d.severity {
                Severity::Error => "",
                Severity::Warning => " (warning)",
                Severity::Info => " (info)",
            };
            (
                start,
                format!(
                    "{}:{}\t{}{severity}\t{}\t{}\t{}",
                    p.line,
                    p.column,
                    d.code,
                    d.reason.unwrap_or("-"),
                    d.field.as_deref().unwrap_or("-"),
                    d.message.replace('\n', "\\n")
                ),
            )
        })
        .collect();
    lines.sort();
    lines.into_iter().map(|(_, l)| l + "\n").collect()
}

/// Set `CRDLINT_BLESS=1` to rewrite the `.expected` files (then review the diff).
fn bless() -> bool {
    std::env::var_os("CRDLINT_BLESS").is_some()
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
        let docs = documents(&text);
        assert_eq!(docs.len(), 1, "{}: one CRD per fixture", case.display());
        let expected_path = case.with_extension("expected");
        let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
        let actual = render(&text, &crdlint::crd::validate_source(&docs[0], &text));
        if actual != expected {
            if bless() {
                std::fs::write(&expected_path, &actual).expect("write expected");
                continue;
            }
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
    let mut warnings = Vec::new();
    let mut crds = 0;
    for f in files {
        let text = std::fs::read_to_string(&f).expect("corpus file");
        for doc in documents(&text).iter().filter(|d| is_crd(d)) {
            crds += 1;
            for d in crdlint::crd::validate_source(doc, &text) {
                let line = format!("{}: {} {}", f.display(), d.code, d.message);
                match d.severity {
                    Severity::Error => errors.push(line),
                    _ => warnings.push(line),
                }
            }
        }
    }
    assert_eq!(crds, 218, "CRDs in the corpus");
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The oracle's only warnings on the corpus: two cilium CRDs use format idn-hostname
    // in four places each.
    assert_eq!(warnings.len(), 8, "{}", warnings.join("\n"));
    assert!(
        warnings
            .iter()
            .all(|w| w.contains("/cilium/") && w.contains("unrecognized format \"idn-hostname\"")),
        "{}",
        warnings.join("\n")
    );
}

/// Line and column (1-based) of a byte offset.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let p = LineIndex::new(text).position(text, offset);
    (p.line, p.column)
}

/// The errors of `text` (one CRD): (line, column, field, message cut to 160 bytes so
/// failures stay readable).
fn errors_of(text: &str) -> Vec<(usize, usize, String, String)> {
    let docs = documents(text);
    let mut out: Vec<_> = crdlint::crd::validate_source(&docs[0], text)
        .into_iter()
        .filter(|d| d.severity == Severity::Error)
        .map(|d| {
            let (line, column) = position(text, d.span.expect("span").start);
            let mut message = d.message;
            if message.len() > 160 {
                let mut cut = 160;
                while !message.is_char_boundary(cut) {
                    cut -= 1;
                }
                message.truncate(cut);
                message.push('…');
            }
            (line, column, d.field.unwrap_or_default(), message)
        })
        .collect();
    out.sort();
    out
}

/// The 1-based line and column of the `n`th occurrence of `needle`.
fn find(text: &str, needle: &str) -> (usize, usize) {
    position(text, text.find(needle).expect("needle"))
}

fn corpus_file(name: &str) -> Option<String> {
    let files = corpus_files()?;
    let file = files.iter().find(|f| f.ends_with(name))?;
    Some(std::fs::read_to_string(file).expect("corpus file"))
}

/// Broken copies of real CRDs; the expected answers are the oracle's (crdoracle on the
/// same edits), paths as they stand in the file.
#[test]
fn broken_corpus_crd_is_caught_at_the_right_place() {
    let Some(original) = corpus_file("cert-manager/cert-manager.io_issuers.yaml") else {
        eprintln!("skipping broken-copy test: corpus file missing");
        return;
    };
    assert!(errors_of(&original).is_empty());

    // 1. Remove the `type: object` of the root schema's `spec` property.
    let spec_key =
        "\n          spec:\n            description: Desired state of the Issuer resource.\n";
    let at = original.find(spec_key).expect("spec property") + spec_key.len();
    let type_line = "            type: object\n";
    let rel = original[at..]
        .find(&format!("\n{type_line}"))
        .expect("type of spec")
        + 1;
    let mut text = original.clone();
    text.replace_range(at + rel..at + rel + type_line.len(), "");
    let (line, column) = position(&text, original.find(spec_key).expect("spec") + 11);
    assert_eq!(
        errors_of(&text),
        vec![(
            line,
            column,
            "spec.validation.openAPIV3Schema.properties[spec].type".to_string(),
            "spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields".to_string()
        )]
    );

    // 2. Add a `$ref` to the root schema (which, with the status subresource, also breaks
    // the root restrictions).
    let root = "      openAPIV3Schema:\n";
    let text = original.replacen(root, &format!("{root}        $ref: '#/definitions/x'\n"), 1);
    let (line, column) = find(&text, "$ref:");
    let errs = errors_of(&text);
    assert_eq!(errs.len(), 2, "{errs:?}");
    assert_eq!(
        errs[1],
        (
            line,
            column,
            "spec.validation.openAPIV3Schema.$ref".to_string(),
            "spec.validation.openAPIV3Schema.$ref: Forbidden: $ref is not supported".to_string()
        )
    );
    assert_eq!(
        (errs[0].0, errs[0].1, errs[0].2.as_str()),
        (line, column, "spec.validation.openAPIV3Schema")
    );
    assert!(errs[0].3.starts_with(
        "spec.validation.openAPIV3Schema: Invalid value: {\"ID\":\"\",\"Schema\":\"\",\"Ref\":\"#/definitions/x\","
    ));

    // 3. Two storage versions.
    let Some(multi) = corpus_file("cluster-api/cluster.x-k8s.io_machinehealthchecks.yaml") else {
        return;
    };
    assert!(errors_of(&multi).is_empty());
    let text = multi.replace("storage: false", "storage: true");
    let errs = errors_of(&text);
    assert_eq!(errs.len(), 2, "{errs:?}");
    let (line, column) = find(&text, "versions:");
    assert_eq!(
        (errs[0].0, errs[0].1, errs[0].2.as_str()),
        (line, column, "spec.versions")
    );
    assert!(
        errs[0].3.starts_with(
            "spec.versions: Invalid value: [{\"Name\":\"v1beta1\",\"Served\":true,\"Storage\":true,"
        ),
        "{errs:?}"
    );
    // The server's storedVersions comes from the first storage version; it points at
    // the storage flag of the one it wants.
    let second = text.rfind("storage: true").expect("storage");
    assert_eq!(
        (errs[1].0, errs[1].1, errs[1].2.as_str()),
        (
            position(&text, second).0,
            position(&text, second).1,
            "status.storedVersions"
        )
    );
    assert_eq!(
        errs[1].3,
        "status.storedVersions: Invalid value: [\"v1beta1\"]: must have the storage version v1beta2"
    );
}
