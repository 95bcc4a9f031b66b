//! Finds where a server field path points in the document, so every finding can be
//! shown at the offending key or value.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::diag::ErrorType;
use crate::source::node::{Entry, Mapping};
use crate::source::{Node, Span, Value};

/// Finds the spans of many paths in one document. Mappings of more than
/// [`Locator::INDEXED`] keys are indexed on first use: each lookup scanned the keys, and
/// 16,000 findings under a schema of 16,000 properties took seconds.
pub struct Locator<'n> {
    root: &'n Node,
    /// Key → entry position, by mapping address.
    indexes: RefCell<HashMap<*const Mapping, HashMap<&'n str, usize>>>,
}

impl<'n> Locator<'n> {
    const INDEXED: usize = 16;

    pub fn new(root: &'n Node) -> Self {
        Locator {
            root,
            indexes: RefCell::new(HashMap::new()),
        }
    }

    fn entry(&self, map: &'n Mapping, key: &str) -> Option<&'n Entry> {
        if map.entries.len() <= Self::INDEXED {
            return map.entry(key);
        }
        let mut indexes = self.indexes.borrow_mut();
        let index = indexes.entry(map as *const Mapping).or_insert_with(|| {
            let mut index = HashMap::with_capacity(map.entries.len());
            for (i, e) in map.entries.iter().enumerate() {
                index.entry(e.key.as_str()).or_insert(i);
            }
            index
        });
        index.get(key).map(|&i| &map.entries[i])
    }

    /// [`span_for`] through the index.
    pub fn span_for(&self, path: &str, error_type: ErrorType) -> Span {
        locate(self.root, path, error_type, |map, key| self.entry(map, key))
    }
}

/// One step of a field path.
#[derive(Debug, PartialEq, Eq)]
enum Step<'a> {
    Field(&'a str),
    Key(&'a str),
    Index(usize),
}

/// Splits `a.b[key][0].c` into steps. Map keys may contain dots; a bracket group is
/// read up to its closing `]`.
fn steps(path: &str) -> Vec<Step<'_>> {
    let mut out = Vec::new();
    let mut rest = path;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']').unwrap_or(r.len());
            let inner = &r[..end];
            match inner.parse::<usize>() {
                Ok(i) => out.push(Step::Index(i)),
                Err(_) => out.push(Step::Key(inner)),
            }
            rest = r.get(end + 1..).unwrap_or("");
        } else {
            let r = rest.strip_prefix('.').unwrap_or(rest);
            let end = r.find(['.', '[']).unwrap_or(r.len());
            if end > 0 {
                out.push(Step::Field(&r[..end]));
            }
            rest = &r[end..];
            if end == 0 && !rest.starts_with('[') {
                // A stray dot: skip it.
                rest = rest.get(1..).unwrap_or("");
            }
        }
    }
    out
}

/// The span a finding at `path` should point at: the value of the deepest node the path
/// reaches (its key for Required/Forbidden findings, which are about the field's
/// presence), or the key of the nearest existing ancestor when the field is absent.
pub fn span_for(root: &Node, path: &str, error_type: ErrorType) -> Span {
    locate(root, path, error_type, |map, key| map.entry(key))
}

fn locate<'n>(
    root: &'n Node,
    path: &str,
    error_type: ErrorType,
    entry: impl Fn(&'n Mapping, &str) -> Option<&'n Entry>,
) -> Span {
    let mut node = root;
    // Span of the key under which `node` stands (the document for the root).
    let mut key_span = root.span;
    let all = steps(path);
    let mut reached = true;
    let mut i = 0;
    while i < all.len() {
        let mut taken = 1;
        let next = match (&all[i], &node.value) {
            (Step::Field(name) | Step::Key(name), Value::Object(map)) => {
                entry(map, name)
                    .map(|e| (&e.value, e.key_span))
                    .or_else(|| {
                        // `field.Path.Child` does not escape dots: `default.a.b` may be the
                        // key `a.b` of a default value.
                        let mut joined = name.to_string();
                        for (n, step) in all[i + 1..].iter().enumerate() {
                            let Step::Field(more) = step else {
                                break;
                            };
                            joined.push('.');
                            joined.push_str(more);
                            if let Some(e) = entry(map, &joined) {
                                taken = n + 2;
                                return Some((&e.value, e.key_span));
                            }
                        }
                        None
                    })
            }
            (Step::Index(i), Value::Array(items)) => items.get(*i).map(|n| (n, n.span)),
            _ => None,
        };
        match next {
            Some((n, k)) => {
                node = n;
                key_span = k;
                i += taken;
            }
            None => {
                reached = false;
                break;
            }
        }
    }
    if !reached {
        return key_span;
    }
    match error_type {
        ErrorType::Required | ErrorType::Forbidden => key_span,
        _ => node.span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_keys_with_dots_and_falls_back_to_the_nearest_key() {
        let text = "spec:\n  default:\n    a.b: 1\n    l: [x, y]\n";
        let parsed = crate::source::yaml::parse(text, &crate::source::yaml::Limits::default());
        let root = &parsed.documents[0].root;
        let at = |needle: &str| text.find(needle).expect("needle");
        let span = span_for(root, "spec.default.a.b", ErrorType::Invalid);
        assert_eq!(span.start, at("1\n"));
        let span = span_for(root, "spec.default.l[1]", ErrorType::Invalid);
        assert_eq!(span.start, at("y]"));
        let span = span_for(root, "spec.default.[1]", ErrorType::Invalid);
        assert_eq!(span.start, at("default"), "no list there: the nearest key");
        let span = span_for(root, "spec.default.missing", ErrorType::Required);
        assert_eq!(span.start, at("default"));
        let span = span_for(root, "spec.default", ErrorType::Required);
        assert_eq!(span.start, at("default"));
        let span = span_for(root, "spec.default", ErrorType::Invalid);
        assert_eq!(span.start, at("a.b"));
    }

    #[test]
    fn the_indexed_locator_finds_what_the_scan_finds() {
        let mut text = String::from("spec:\n  default:\n");
        for i in 0..40 {
            text.push_str(&format!("    k{i}: {i}\n    a.b{i}: [x, y]\n"));
        }
        let parsed = crate::source::yaml::parse(&text, &crate::source::yaml::Limits::default());
        let root = &parsed.documents[0].root;
        let locator = Locator::new(root);
        for i in [0, 17, 39, 40] {
            for (path, ty) in [
                (format!("spec.default.k{i}"), ErrorType::Invalid),
                (format!("spec.default.k{i}"), ErrorType::Required),
                (format!("spec.default.a.b{i}[1]"), ErrorType::Invalid),
                (format!("spec.default.missing{i}"), ErrorType::Invalid),
            ] {
                let scanned = span_for(root, &path, ty);
                assert_eq!(locator.span_for(&path, ty), scanned, "{path}");
            }
        }
        assert_eq!(
            locator
                .span_for("spec.default.k39", ErrorType::Invalid)
                .start,
            text.find("39\n").unwrap()
        );
    }

    #[test]
    fn splits_paths() {
        assert_eq!(
            steps("spec.versions[0].schema.openAPIV3Schema.properties[a.b].type"),
            vec![
                Step::Field("spec"),
                Step::Field("versions"),
                Step::Index(0),
                Step::Field("schema"),
                Step::Field("openAPIV3Schema"),
                Step::Field("properties"),
                Step::Key("a.b"),
                Step::Field("type"),
            ]
        );
        assert_eq!(
            steps("metadata.annotations[api-approved.kubernetes.io]"),
            vec![
                Step::Field("metadata"),
                Step::Field("annotations"),
                Step::Key("api-approved.kubernetes.io"),
            ]
        );
    }
}
