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

/// The codes the guides show (in suppression comments, the short, github and json
/// output samples, `severity:` settings and links to rule pages): a sample naming a
/// code crdlint does not have teaches users a comment that silences nothing (the usage
/// guide's suppression sample did until session 53).
#[test]
fn codes_named_in_the_guides_exist() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let codes: BTreeSet<&str> = crdlint::codes::all().iter().map(|i| i.code).collect();
    let mut guides = vec![root.join("README.md")];
    for dir in ["docs", "docs/rules"] {
        for entry in std::fs::read_dir(root.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                guides.push(path);
            }
        }
    }
    // That page's failing example is a misspelt code, on purpose.
    guides.retain(|g| !g.ends_with("rules/invalid-suppression.md"));
    guides.sort();
    let mut named = BTreeSet::new();
    let mut unknown = Vec::new();
    for guide in &guides {
        let text = std::fs::read_to_string(guide).unwrap();
        for (line_number, line) in text.lines().enumerate() {
            for code in codes_on_line(line) {
                if !codes.contains(code.as_str()) {
                    unknown.push(format!(
                        "{}:{}: `{code}`",
                        guide.strip_prefix(root).unwrap().display(),
                        line_number + 1
                    ));
                }
                named.insert(code);
            }
        }
    }
    assert!(
        unknown.is_empty(),
        "guides name unknown codes:\n{}",
        unknown.join("\n")
    );
    // The scan finds the samples it is meant to check: the usage guide's suppression,
    // short output and severity samples, the CI guide's github sample, the links.
    for sample in [
        "schema-violation",
        "missing-crd",
        "duplicate-crd",
        "unused-suppression",
    ] {
        assert!(
            named.contains(sample),
            "`{sample}` not found in the guides: {named:?}"
        );
    }
}

/// Codes a guide line names, in the forms the guides use them.
fn codes_on_line(line: &str) -> Vec<String> {
    let is_code_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    let word_at =
        |rest: &str| -> String { rest.chars().take_while(|&c| is_code_char(c)).collect() };
    let mut found = Vec::new();
    // `# crdlint-ignore: a, b reason`
    if let Some((_, rest)) = line.split_once("crdlint-ignore: ") {
        let mut rest = rest;
        loop {
            let code = word_at(rest);
            if code.is_empty() || code.chars().all(|c| c.is_ascii_uppercase()) {
                break;
            }
            rest = rest[code.len()..].trim_start();
            found.push(code);
            match rest.strip_prefix(',') {
                Some(more) => rest = more.trim_start(),
                None => break,
            }
        }
    }
    // `error[code]` (short), `crdlint(code)` (github), `"code": "code"` (json),
    // `rules/code.md` (links).
    for (open, close) in [
        ("error[", ']'),
        ("warning[", ']'),
        ("info[", ']'),
        ("crdlint(", ')'),
        ("\"code\": \"", '"'),
        ("rules/", '.'),
    ] {
        for (at, _) in line.match_indices(open) {
            let rest = &line[at + open.len()..];
            let code = word_at(rest);
            if !code.is_empty() && rest[code.len()..].starts_with(close) {
                found.push(code);
            }
        }
    }
    // `  missing-crd: error` under `severity:` in a configuration sample.
    let trimmed = line.trim_start();
    if line.len() > trimmed.len()
        && let Some((key, value)) = trimmed.split_once(": ")
        && key.contains('-')
        && key.chars().all(is_code_char)
        && ["error", "warning", "info", "off"]
            .contains(&value.split_whitespace().next().unwrap_or(""))
    {
        found.push(key.to_string());
    }
    found
}
