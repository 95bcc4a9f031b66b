//! Every diagnostic code in the registry has a documentation page, and every page
//! belongs to a code: docs cannot silently fall behind the code.

use std::collections::BTreeSet;
use std::path::Path;

#[test]
fn every_code_has_a_doc_page_with_the_required_sections() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules");
    let mut missing = Vec::new();
    for info in crdlint::codes::all() {
        let page = docs.join(format!("{}.md", info.code));
        match std::fs::read_to_string(&page) {
            Err(_) => missing.push(format!("{}: no docs/rules/{}.md", info.code, info.code)),
            Ok(text) => {
                for section in [
                    "## What it checks",
                    "## Failing example",
                    "## Passing example",
                    "## How to fix",
                ] {
                    if !text.contains(section) {
                        missing.push(format!("{}: page lacks `{section}`", info.code));
                    }
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "rule docs incomplete:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_doc_page_names_a_registered_code() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/rules");
    let codes: BTreeSet<&str> = crdlint::codes::all().iter().map(|i| i.code).collect();
    let orphans: Vec<String> = std::fs::read_dir(docs)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| {
            e.file_name()
                .to_string_lossy()
                .trim_end_matches(".md")
                .to_string()
        })
        .filter(|name| !codes.contains(name.as_str()))
        .collect();
    assert!(orphans.is_empty(), "doc pages without a code: {orphans:?}");
}

#[test]
fn codes_are_unique_and_kebab_case() {
    let mut seen = BTreeSet::new();
    for info in crdlint::codes::all() {
        assert!(seen.insert(info.code), "duplicate code {}", info.code);
        assert!(
            info.code
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
            "code {} is not kebab-case",
            info.code
        );
        assert!(!info.summary.is_empty());
    }
}
