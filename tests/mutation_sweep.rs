//! Robustness sweeps over the CRD and resource fixtures: structured mutations that
//! byte-level fuzzing rarely produces, each of which must validate without a panic.
//!
//! - Multi-byte characters: every string and mapping key with "é" (two bytes), "€"
//!   (three) or "😀" (four) inserted at each position, and "é" put in place of each
//!   character (first positions only). Hunts byte-offset slicing (`&s[..n]`) that
//!   lands inside a character.
//! - Type swaps: every value replaced by values of the other JSON types (null, a
//!   boolean, integers, a float, strings, an empty and a non-empty list and map).
//!   Hunts code that assumes a shape the schema or the server would have refused.
//!
//! Plain `cargo test` (debug) checks a spread sample; `cargo test --release --test
//! mutation_sweep` checks every mutant.

use std::path::Path;

use crdlint::check::resources::PreparedCrd;
use crdlint::schema::resource::UnknownFields;
use crdlint::source::{Mapping, Node, Span, Value, yaml};

/// Strings longer than this are only mutated in their first positions.
const MAX_POSITIONS: usize = 24;

/// Every `stride`-th mutant is checked: 1 in release builds, `debug` in debug ones.
fn stride(debug: usize) -> usize {
    if cfg!(debug_assertions) { debug } else { 1 }
}

fn docs(path: &Path) -> Vec<Node> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    yaml::parse(&text, &Default::default())
        .documents
        .into_iter()
        .map(|d| d.root)
        .collect()
}

fn string_mutants(s: &str) -> Vec<String> {
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

fn swaps(span: Span) -> Vec<Value> {
    let node = |value| Node::new(value, span);
    vec![
        Value::Null,
        Value::Bool(true),
        Value::Int(0),
        Value::Int(-1),
        Value::Int(i64::MAX),
        Value::Int(i64::MIN),
        Value::Float(9.5),
        Value::Float(-1e300),
        Value::String(String::new()),
        Value::String("x".into()),
        Value::Array(Vec::new()),
        Value::Array(vec![node(Value::Object(Mapping::default()))]),
        Value::Object(Mapping::default()),
        Value::Object(Mapping {
            entries: vec![crdlint::source::Entry {
                key: "x".into(),
                key_span: span,
                value: node(Value::Int(1)),
            }],
        }),
    ]
}

/// Where a mutation applies: the value at `path` (indices into arrays and mapping
/// entries), or the key of the entry at `path`.
struct Target {
    path: Vec<usize>,
    key: bool,
}

fn targets(node: &Node, path: &mut Vec<usize>, out: &mut Vec<Target>) {
    out.push(Target {
        path: path.clone(),
        key: false,
    });
    match &node.value {
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                path.push(i);
                targets(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (i, e) in map.entries.iter().enumerate() {
                path.push(i);
                out.push(Target {
                    path: path.clone(),
                    key: true,
                });
                targets(&e.value, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn node_at<'a>(root: &'a Node, path: &[usize]) -> Option<(&'a str, &'a Node)> {
    let mut key = "";
    let mut node = root;
    for &i in path {
        (key, node) = match &node.value {
            Value::Array(items) => ("", items.get(i)?),
            Value::Object(map) => map.entries.get(i).map(|e| (e.key.as_str(), &e.value))?,
            _ => return None,
        };
    }
    Some((key, node))
}

fn entry_mut<'a>(
    root: &'a mut Node,
    path: &[usize],
) -> Option<(Option<&'a mut String>, &'a mut Node)> {
    let mut key = None;
    let mut node = root;
    for &i in path {
        (key, node) = match &mut node.value {
            Value::Array(items) => (None, items.get_mut(i)?),
            Value::Object(map) => map
                .entries
                .get_mut(i)
                .map(|e| (Some(&mut e.key), &mut e.value))?,
            _ => return None,
        };
    }
    Some((key, node))
}

/// Every mutant of `root` (one change each), handed to `visit`.
fn each_mutant(root: &Node, visit: &mut dyn FnMut(&Node)) {
    let mut all = Vec::new();
    targets(root, &mut Vec::new(), &mut all);
    for t in all {
        let Some((key, node)) = node_at(root, &t.path) else {
            continue;
        };
        if t.key {
            for m in string_mutants(key) {
                let mut copy = root.clone();
                if let Some((Some(k), _)) = entry_mut(&mut copy, &t.path) {
                    *k = m;
                }
                visit(&copy);
            }
            continue;
        }
        if let Some(s) = node.as_str() {
            for m in string_mutants(s) {
                let mut copy = root.clone();
                if let Some((_, n)) = entry_mut(&mut copy, &t.path) {
                    n.value = Value::String(m);
                }
                visit(&copy);
            }
        }
        // The root stays a mapping (anything else is not an object at all).
        if t.path.is_empty() {
            continue;
        }
        for value in swaps(node.span) {
            if std::mem::discriminant(&value) == std::mem::discriminant(&node.value)
                && value == node.value
            {
                continue;
            }
            let mut copy = root.clone();
            if let Some((_, n)) = entry_mut(&mut copy, &t.path) {
                n.value = value;
            }
            visit(&copy);
        }
    }
}

#[test]
fn resource_mutants_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crs");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .expect("testdata/crs")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("crd.yaml").exists())
        .collect();
    cases.sort();
    let every = stride(8);
    let (mut seen, mut runs) = (0usize, 0usize);
    for case in cases {
        let Some(crd) = docs(&case.join("crd.yaml")).into_iter().next() else {
            continue;
        };
        let prepared = PreparedCrd::new(&crd, crdlint::cel::KubeVersion::NEWEST);
        for doc in docs(&case.join("cr.yaml")) {
            each_mutant(&doc, &mut |mutant| {
                seen += 1;
                if seen.is_multiple_of(every) {
                    runs += 1;
                    let _ = prepared.check(mutant, UnknownFields::Error);
                }
            });
        }
    }
    eprintln!("mutation sweep: {runs} of {seen} resource mutants checked");
    assert!(runs > 1000, "too few mutants: {runs}");
}

#[test]
fn crd_mutants_do_not_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/crd");
    let mut files: Vec<_> = std::fs::read_dir(&root)
        .expect("testdata/crd")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    let options = crdlint::crd::Options::default();
    let every = stride(60);
    let (mut seen, mut runs) = (0usize, 0usize);
    for file in files {
        for doc in docs(&file) {
            each_mutant(&doc, &mut |mutant| {
                seen += 1;
                if seen.is_multiple_of(every) {
                    runs += 1;
                    let _ = crdlint::crd::validate_with_options(mutant, &options);
                }
            });
        }
    }
    eprintln!("mutation sweep: {runs} of {seen} CRD mutants checked");
    assert!(runs > 1000, "too few mutants: {runs}");
}
