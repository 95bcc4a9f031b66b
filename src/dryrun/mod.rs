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
    let mut config = similar::TextDiff::configure();
    if myers_work(&old, &new) > DIFF_WORK_LIMIT {
        // A deadline already past makes Myers give up at once: the lines between the
        // common start and end become one removal and one addition (one hunk), the
        // same on every machine.
        let now = std::time::Instant::now();
        config.deadline(
            now.checked_sub(std::time::Duration::from_secs(1))
                .unwrap_or(now),
        );
    }
    let text = config.diff_lines(&old, &new);
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

/// Steps of Myers' diff ([`myers_work`]) beyond which `--diff` shows the changed lines
/// as one block: about a second.
const DIFF_WORK_LIMIT: u64 = 1 << 30;

/// A lower bound of Myers' work on two texts: (lines between their common first and
/// last lines) × (edits at least: lines of one that the other lacks, counted with
/// repeats). Defaults added to each of 50,000 list items (every line changes) took
/// 30 s to diff, and 390,000 items fit in a resource.
fn myers_work(old: &str, new: &str) -> u64 {
    let (a, b): (Vec<&str>, Vec<&str>) = (old.lines().collect(), new.lines().collect());
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let suffix = a[prefix..]
        .iter()
        .rev()
        .zip(b[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[prefix..a.len() - suffix], &b[prefix..b.len() - suffix]);
    let mut counts: std::collections::HashMap<&str, i64> = std::collections::HashMap::new();
    for line in a {
        *counts.entry(line).or_default() += 1;
    }
    for line in b {
        *counts.entry(line).or_default() -= 1;
    }
    let edits: u64 = counts.values().map(|c| c.unsigned_abs()).sum();
    ((a.len() + b.len()) as u64).saturating_mul(edits)
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
    fn diffs_too_costly_for_myers_are_one_block() {
        // Every line changes: at least 40,000 edits over 40,000 lines, past the limit.
        let n = 20_000;
        let before = node(json!({"spec": {"l": (0..n).collect::<Vec<_>>()}}));
        let after =
            node(json!({"spec": {"l": (0..n).map(|i| json!({"a": i})).collect::<Vec<_>>()}}));
        let d = diff(&before, &after, "r.yaml", false);
        let lines: Vec<&str> = d.lines().collect();
        assert_eq!(
            lines[..5],
            [
                "--- r.yaml (as written)",
                "+++ r.yaml (as stored)",
                "@@ -1,20002 +1,20002 @@",
                " spec:",
                "   l:"
            ]
        );
        assert_eq!(lines.len(), 5 + 2 * n);
        assert!(
            lines[5..5 + n]
                .iter()
                .enumerate()
                .all(|(i, l)| *l == format!("-  - {i}"))
        );
        assert!(
            lines[5 + n..]
                .iter()
                .enumerate()
                .all(|(i, l)| *l == format!("+  - a: {i}"))
        );
        // Below the limit the diff is Myers' own: the unchanged line between the two
        // changes is kept as context.
        let before = node(json!({"spec": {"l": [1, 2, 3]}}));
        let after = node(json!({"spec": {"l": [0, 2, 4]}}));
        assert_eq!(
            diff(&before, &after, "r.yaml", false),
            "--- r.yaml (as written)\n+++ r.yaml (as stored)\n@@ -1,5 +1,5 @@\n spec:\n   l:\n-  - 1\n+  - 0\n   - 2\n-  - 3\n+  - 4\n"
        );
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
