//! Finds where a server field path points in the document, so every finding can be
//! shown at the offending key or value.

use crate::diag::ErrorType;
use crate::source::{Node, Span, Value};

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
    let mut node = root;
    // Span of the key under which `node` stands (the document for the root).
    let mut key_span = root.span;
    let all = steps(path);
    let mut reached = true;
    for step in &all {
        let next = match (step, &node.value) {
            (Step::Field(name) | Step::Key(name), Value::Object(map)) => {
                map.entry(name).map(|e| (&e.value, e.key_span))
            }
            (Step::Index(i), Value::Array(items)) => items.get(*i).map(|n| (n, n.span)),
            _ => None,
        };
        match next {
            Some((n, k)) => {
                node = n;
                key_span = k;
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
