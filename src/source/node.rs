//! The spanned document tree: a JSON-like value where every node and every mapping key
//! remembers where it stands in the source file.

use super::span::Span;

/// How a scalar was written; needed to map an offset inside a decoded string back to
/// the bytes of the file (quotes, escapes and block-scalar folding shift characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ScalarStyle {
    #[default]
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    /// Not a scalar (mapping or sequence), or a value synthesised by crdlint.
    NotScalar,
}

/// A value of a Kubernetes manifest after YAML-to-JSON conversion (sigs.k8s.io/yaml):
/// exactly the JSON data model, with integers kept apart from floats like Go's
/// unstructured decoder does.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    String(String),
    Array(Vec<Node>),
    Object(Mapping),
}

/// A value and where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub value: Value,
    /// The span of the value: for quoted scalars it includes the quotes; for block
    /// scalars it starts at the indicator (`|` or `>`); for collections it covers the
    /// whole collection.
    pub span: Span,
    pub style: ScalarStyle,
}

/// A mapping keeps its entries in source order; keys are unique (the loader rejects
/// duplicates as Kubernetes' strict decoding does).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Mapping {
    pub entries: Vec<Entry>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_span: Span,
    pub value: Node,
}

impl Mapping {
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|e| &e.value)
    }

    pub fn entry(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Node> {
        self.entries
            .iter_mut()
            .find(|e| e.key == key)
            .map(|e| &mut e.value)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.entry(key).is_some()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Node)> {
        self.entries.iter().map(|e| (e.key.as_str(), &e.value))
    }

    /// Inserts or replaces; new keys go at the end.
    pub fn insert(&mut self, key: String, value: Node) {
        match self.entries.iter_mut().find(|e| e.key == key) {
            Some(e) => e.value = value,
            None => self.entries.push(Entry {
                key_span: value.span,
                key,
                value,
            }),
        }
    }

    pub fn remove(&mut self, key: &str) -> Option<Node> {
        let at = self.entries.iter().position(|e| e.key == key)?;
        Some(self.entries.remove(at).value)
    }
}

impl Node {
    pub fn new(value: Value, span: Span) -> Self {
        Node {
            value,
            span,
            style: ScalarStyle::NotScalar,
        }
    }

    /// A node made by crdlint (a default, a converted value): it points at `span`,
    /// the place in the file that caused it.
    pub fn synthetic(value: Value, span: Span) -> Self {
        Node::new(value, span)
    }

    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_object()?.get(key)
    }

    /// Drops the spare capacity of every string, key and collection below: for trees
    /// kept for a whole run (the CRDs). saphyr reserves 128 bytes for every plain
    /// scalar: on the corpus CRDs, 38.5 MB of key capacity held 2.5 MB of keys and
    /// 35.6 MB of string capacity 10.9 MB. Iterative: no recursion limit to respect.
    pub fn compact(&mut self) {
        let mut stack: Vec<&mut Node> = vec![self];
        while let Some(node) = stack.pop() {
            match &mut node.value {
                Value::String(s) => s.shrink_to_fit(),
                Value::Array(items) => {
                    items.shrink_to_fit();
                    stack.extend(items.iter_mut());
                }
                Value::Object(m) => {
                    m.entries.shrink_to_fit();
                    for e in m.entries.iter_mut() {
                        e.key.shrink_to_fit();
                        stack.push(&mut e.value);
                    }
                }
                Value::Null | Value::Bool(_) | Value::Int(_) | Value::Float(_) => {}
            }
        }
    }

    /// The same data written in the same order, wherever and however it was written
    /// (spans and scalar styles are ignored). Stricter than JSON equality (key order
    /// counts, NaN differs from itself), so a `true` lets callers skip comparing
    /// anything derived from the data; linear, unlike a key-order-free comparison.
    pub fn same_data(&self, other: &Node) -> bool {
        match (&self.value, &other.value) {
            (Value::Null, Value::Null) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a == b,
            (Value::String(a), Value::String(b)) => a == b,
            (Value::Array(a), Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_data(y))
            }
            (Value::Object(a), Value::Object(b)) => {
                a.len() == b.len()
                    && a.entries
                        .iter()
                        .zip(&b.entries)
                        .all(|(x, y)| x.key == y.key && x.value.same_data(&y.value))
            }
            _ => false,
        }
    }

    /// Follows a chain of object keys.
    pub fn get_path(&self, keys: &[&str]) -> Option<&Node> {
        keys.iter().try_fold(self, |node, key| node.get(key))
    }

    pub fn as_object(&self) -> Option<&Mapping> {
        match &self.value {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Mapping> {
        match &mut self.value {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Node]> {
        match &self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.value {
            Value::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self.value {
            Value::Int(i) => Some(i),
            _ => None,
        }
    }

    /// Any JSON number as f64 (integers included), as Go's validators see numbers.
    pub fn as_f64(&self) -> Option<f64> {
        match self.value {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.value, Value::Null)
    }

    /// The JSON type name the way Kubernetes validation messages name it.
    pub fn json_type(&self) -> &'static str {
        self.value.json_type()
    }

    /// Converts to serde_json, dropping spans (for output and for hashing values).
    pub fn to_json(&self) -> serde_json::Value {
        self.value.to_json()
    }

    /// Builds a span-less node from JSON (spans all point at `span`).
    pub fn from_json(json: &serde_json::Value, span: Span) -> Node {
        let value = match json {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(*b),
            serde_json::Value::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            serde_json::Value::String(s) => Value::String(s.clone()),
            serde_json::Value::Array(items) => {
                Value::Array(items.iter().map(|i| Node::from_json(i, span)).collect())
            }
            serde_json::Value::Object(map) => Value::Object(Mapping {
                entries: map
                    .iter()
                    .map(|(k, v)| Entry {
                        key: k.clone(),
                        key_span: span,
                        value: Node::from_json(v, span),
                    })
                    .collect(),
            }),
        };
        Node::synthetic(value, span)
    }
}

impl Value {
    pub fn json_type(&self) -> &'static str {
        match self {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Float(_) => "number",
            Value::String(_) => "string",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    }

    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(*b),
            Value::Int(i) => serde_json::Value::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null),
            Value::String(s) => serde_json::Value::String(s.clone()),
            Value::Array(items) => items.iter().map(Node::to_json).collect(),
            Value::Object(map) => serde_json::Value::Object(
                map.entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::source::yaml::{Limits, parse};

    fn doc(text: &str) -> super::Node {
        let mut out = parse(text, &Limits::default());
        assert!(out.errors.is_empty(), "{text}: {:?}", out.errors);
        out.documents.remove(0).root
    }

    #[test]
    fn same_data_ignores_where_and_how_values_are_written() {
        let a = doc("a: 1\nb: [x, 'z']\nc: {d: null}\n");
        let b = doc("{a: 1,   b: [\"x\", z], c: {d: ~}}");
        assert!(a.same_data(&b));
        // (go-yaml v2 reads a plain `y` as true.)
        assert!(!doc("a: 'y'").same_data(&doc("a: y")));
        // Key order counts (a cheap check may say "different" for equal JSON).
        assert!(!a.same_data(&doc("b: [x, z]\na: 1\nc: {d: null}\n")));
        // Integers and floats differ, as in Go's decoded values.
        assert!(!doc("a: 1").same_data(&doc("a: 1.5")));
        assert!(!doc("a: [1]").same_data(&doc("a: [1, 2]")));
        assert!(!doc("a: {b: 1}").same_data(&doc("a: {c: 1}")));
    }
}
