//! Robustness: every string and mapping key of the CRD and resource fixtures, with a
//! two-byte character put in at each position (bounded), must validate without a
//! panic. Byte-offset slicing (`&s[..n]`) that lands inside a character is the bug
//! this hunts; byte-level fuzzing rarely produces a well-formed multi-byte character
//! exactly where a check slices.

use std::path::Path;

use crdlint::check::resources::PreparedCrd;
use crdlint::schema::resource::UnknownFields;
use crdlint::source::{Node, Value, yaml};

/// Strings longer than this are only mutated in their first positions.
const MAX_POSITIONS: usize = 24;

/// Debug builds (plain `cargo test`) check every STRIDE-th mutant, spread over all
/// fixtures; `cargo test --release --test multibyte_sweep` checks them all (~400,000).
fn stride(release_stride: usize, debug_stride: usize) -> usize {
    if cfg!(debug_assertions) {
        debug_stride
    } else {
        release_stride
    }
}

fn docs(path: &Path) -> Vec<Node> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    yaml::parse(&text, &Default::default())
        .documents
        .into_iter()
        .map(|d| d.root)
        .collect()
}

/// Mutants of `s`: "é" inserted at each char boundary and put in place of each char;
/// "€" (three bytes) and "😀" (four) inserted at each boundary.
fn mutants(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bounds: Vec<usize> = s
        .char_indices()
        .map(|(i, _)| i)
        .chain([s.len()])
        .take(MAX_POSITIONS)
        .collect();
    for &i in &bounds {
        for wide in ["é", "€", "😀"] {
            out.push(format!("{}{wide}{}", &s[..i], &s[i..]));
        }
        if let Some(c) = s[i..].chars().next() {
            out.push(format!("{}é{}", &s[..i], &s[i + c.len_utf8()..]));
        }
    }
    out
}

/// Every copy of `root` with one string (value or key) replaced by one of its mutants.
fn each_mutation(root: &Node, visit: &mut dyn FnMut(&Node)) {
    // Paths to strings, found first, then mutated one at a time on a copy.
    let mut targets: Vec<(Vec<usize>, bool)> = Vec::new();
    fn find(node: &Node, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, bool)>) {
        match &node.value {
            Value::String(_) => out.push((path.clone(), false)),
            Value::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    path.push(i);
                    find(item, path, out);
                    path.pop();
                }
            }
            Value::Object(map) => {
                for (i, e) in map.entries.iter().enumerate() {
                    path.push(i);
                    out.push((path.clone(), true));
                    find(&e.value, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }
    find(root, &mut Vec::new(), &mut targets);
    for (path, is_key) in targets {
        let original = string_at(root, &path, is_key);
        for m in mutants(&original) {
            let mut copy = root.clone();
            set_string(&mut copy, &path, is_key, m);
            visit(&copy);
        }
    }
}

fn step(node: &Node, i: usize) -> Option<(&str, &Node)> {
    match &node.value {
        Value::Array(items) => items.get(i).map(|n| ("", n)),
        Value::Object(map) => map.entries.get(i).map(|e| (e.key.as_str(), &e.value)),
        _ => None,
    }
}

fn string_at(root: &Node, path: &[usize], is_key: bool) -> String {
    let mut node = root;
    let mut key = "";
    for &i in path {
        let Some((k, n)) = step(node, i) else {
            return String::new();
        };
        key = k;
        node = n;
    }
    if is_key {
        key.to_string()
    } else {
        node.as_str().unwrap_or_default().to_string()
    }
}

fn set_string(root: &mut Node, path: &[usize], is_key: bool, value: String) {
    let mut node = root;
    for (depth, &i) in path.iter().enumerate() {
        let last = depth + 1 == path.len();
        match &mut node.value {
            Value::Array(items) => match items.get_mut(i) {
                Some(n) => node = n,
                None => return,
            },
            Value::Object(map) => match map.entries.get_mut(i) {
                Some(e) => {
                    if last && is_key {
                        e.key = value;
                        return;
                    }
                    node = &mut e.value;
                }
                None => return,
            },
            _ => return,
        }
    }
    if !is_key {
        node.value = Value::String(value);
    }
}

#[test]
fn multibyte_characters_anywhere_in_resources_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crs");
    let mut runs = 0usize;
    let mut seen = 0usize;
    let every = stride(1, 8);
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .expect("testdata/crs")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("crd.yaml").exists())
        .collect();
    cases.sort();
    for case in cases {
        let Some(crd) = docs(&case.join("crd.yaml")).into_iter().next() else {
            continue;
        };
        let prepared = PreparedCrd::new(&crd, crdlint::cel::KubeVersion::NEWEST);
        for doc in docs(&case.join("cr.yaml")) {
            each_mutation(&doc, &mut |mutant| {
                seen += 1;
                if seen.is_multiple_of(every) {
                    runs += 1;
                    let _ = prepared.check(mutant, UnknownFields::Error);
                }
            });
        }
    }
    eprintln!("multibyte sweep: {runs} of {seen} resource mutants checked");
    assert!(runs > 1000, "too few mutants: {runs}");
}

#[test]
fn multibyte_characters_anywhere_in_crds_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crd");
    let mut runs = 0usize;
    let mut seen = 0usize;
    let every = stride(1, 40);
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .expect("testdata/crd")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let options = crdlint::crd::Options::default();
    for file in files {
        for doc in docs(&file) {
            each_mutation(&doc, &mut |mutant| {
                seen += 1;
                if seen.is_multiple_of(every) {
                    runs += 1;
                    let _ = crdlint::crd::validate_with_options(mutant, &options);
                }
            });
        }
    }
    eprintln!("multibyte sweep: {runs} of {seen} CRD mutants checked");
    assert!(runs > 1000, "too few mutants: {runs}");
}
