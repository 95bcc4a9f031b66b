//! Output of `crdlint dry-run`: the objects the server would store, printed like
//! `kubectl get -o yaml` / `-o json` (keys sorted; several objects become a `v1 List`),
//! and a unified diff of what pruning and defaulting changed.

mod yaml;

use crate::source::{Mapping, Node, Value};

pub use yaml::to_yaml;

/// Output format of `crdlint dry-run -o`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Format {
    #[default]
    Yaml,
    Json,
}

/// Renders the stored objects: one object as itself, several as a `v1 List`
/// (as kubectl prints them), nothing for none.
pub fn render(objects: &[&Node], format: Format) -> String {
    let value = match objects {
        [] => return String::new(),
        [one] => one.to_json(),
        many => list(many),
    };
    match format {
        Format::Yaml => yaml::to_yaml(&value),
        Format::Json => to_json(&value),
    }
}

/// Prints `object` with [`to_yaml`] and reads the text back with crdlint's loader:
/// `Err` says how it did not come back as the same object (an error or warning, not one
/// document, or other JSON; numbers compare by value, as `1.0` prints as `1`). The
/// property tests and the `cr_validate` fuzz target hold the printer to it.
pub fn check_reads_back(object: &serde_json::Value) -> Result<(), String> {
    let printed = to_yaml(object);
    let out = crate::source::yaml::parse(&printed, &crate::source::yaml::Limits::default());
    if !out.errors.is_empty() {
        return Err(format!("{:?} in\n{printed}", out.errors));
    }
    let [document] = out.documents.as_slice() else {
        return Err(format!("{} documents in\n{printed}", out.documents.len()));
    };
    let back = document.root.to_json();
    if !same_json(object, &back) {
        return Err(format!("printed\n{printed}\nread back as {back}"));
    }
    Ok(())
}

fn same_json(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value as J;
    match (a, b) {
        (J::Number(x), J::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (J::Array(x), J::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same_json(x, y))
        }
        (J::Object(x), J::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| same_json(v, w)))
        }
        _ => a == b,
    }
}

/// A `v1 List` of objects, as kubectl wraps several results.
pub fn list(objects: &[&Node]) -> serde_json::Value {
    serde_json::json!({
        "apiVersion": "v1",
        "items": objects.iter().map(|o| o.to_json()).collect::<Vec<_>>(),
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    })
}

/// `json.MarshalIndent(obj, "", "    ")`: sorted keys, HTML-safe escaping, a final
/// newline.
pub fn to_json(v: &serde_json::Value) -> String {
    let mut out = String::new();
    write_json(&mut out, v, 0);
    out.push('\n');
    out
}

fn write_json(out: &mut String, v: &serde_json::Value, depth: usize) {
    let pad = |n: usize| "    ".repeat(n);
    match v {
        serde_json::Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                write_json(out, item, depth + 1);
                if i + 1 < items.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(depth));
            out.push(']');
        }
        serde_json::Value::Object(map) if !map.is_empty() => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push_str("{\n");
            for (i, k) in keys.iter().enumerate() {
                out.push_str(&pad(depth + 1));
                out.push_str(&crate::diag::gofmt::json_marshal(
                    &serde_json::Value::String((*k).clone()),
                ));
                out.push_str(": ");
                write_json(out, &map[*k], depth + 1);
                if i + 1 < keys.len() {
                    out.push(',');
                }
                out.push('\n');
            }
            out.push_str(&pad(depth));
            out.push('}');
        }
        other => out.push_str(&crate::diag::gofmt::json_marshal(other)),
    }
}

/// A unified diff (YAML renderings) from the object as written to the object as
/// stored; `color` adds ANSI colours (red removals, green additions, cyan hunks).
pub fn diff(before: &Node, after: &Node, label: &str, color: bool) -> String {
    let old = yaml::to_yaml(&before.to_json());
    let new = yaml::to_yaml(&after.to_json());
    let text = similar::TextDiff::from_lines(&old, &new);
    let mut out = String::new();
    let unified = text
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("{label} (as written)"),
            &format!("{label} (as stored)"),
        )
        .to_string();
    if !color {
        return unified;
    }
    for line in unified.lines() {
        let colored = if line.starts_with("+++") || line.starts_with("---") {
            format!("\x1b[1m{line}\x1b[0m")
        } else if line.starts_with('+') {
            format!("\x1b[32m{line}\x1b[0m")
        } else if line.starts_with('-') {
            format!("\x1b[31m{line}\x1b[0m")
        } else if line.starts_with("@@") {
            format!("\x1b[36m{line}\x1b[0m")
        } else {
            line.to_string()
        };
        out.push_str(&colored);
        out.push('\n');
    }
    out
}

/// Sorts an object's keys recursively (the order kubectl prints).
pub fn sorted(node: &Node) -> Node {
    let mut n = node.clone();
    sort_in_place(&mut n);
    n
}

fn sort_in_place(n: &mut Node) {
    match &mut n.value {
        Value::Object(Mapping { entries }) => {
            entries.sort_by(|a, b| a.key.cmp(&b.key));
            entries.iter_mut().for_each(|e| sort_in_place(&mut e.value));
        }
        Value::Array(items) => items.iter_mut().for_each(sort_in_place),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Node {
        Node::from_json(&v, Span::default())
    }

    #[test]
    fn yaml_like_kubectl() {
        let obj = node(json!({
            "spec": {"replicas": 1, "cronSpec": "5 0 * * *", "image": "my-awesome-cron-image",
                     "list": [{"b": 2, "a": "x"}, "plain"], "empty": {}, "none": [], "n": null,
                     "t": "true", "num": "10", "multi": "a\nb\n", "colon": "a: b", "f": 0.5},
            "metadata": {"name": "my-new-cron-object", "generation": 1},
            "kind": "CronTab",
            "apiVersion": "stable.example.com/v1"
        }));
        assert_eq!(
            render(&[&obj], Format::Yaml),
            "apiVersion: stable.example.com/v1\n\
             kind: CronTab\n\
             metadata:\n  generation: 1\n  name: my-new-cron-object\n\
             spec:\n  colon: 'a: b'\n  cronSpec: 5 0 * * *\n  empty: {}\n  f: 0.5\n  image: my-awesome-cron-image\n\
             \x20 list:\n  - a: x\n    b: 2\n  - plain\n  multi: |\n    a\n    b\n  \"n\": null\n  none: []\n  num: \"10\"\n  replicas: 1\n  t: \"true\"\n"
        );
    }

    #[test]
    fn json_and_list() {
        let a = node(json!({"kind": "A", "apiVersion": "v1", "x": "<"}));
        assert_eq!(
            render(&[&a], Format::Json),
            "{\n    \"apiVersion\": \"v1\",\n    \"kind\": \"A\",\n    \"x\": \"\\u003c\"\n}\n"
        );
        let both = render(&[&a, &a], Format::Json);
        assert!(both.starts_with("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n"));
        assert!(both.ends_with("    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"));
    }

    #[test]
    fn diff_shows_defaults() {
        let before = node(json!({"spec": {"image": "x"}}));
        let after = node(json!({"spec": {"image": "x", "replicas": 1}}));
        let d = diff(&before, &after, "crontab.yaml", false);
        assert!(d.contains("+  replicas: 1\n"), "{d}");
        assert!(d.starts_with("--- crontab.yaml (as written)\n+++ crontab.yaml (as stored)\n"));
    }
}
