//! Old and new values side by side for update ratcheting (apiserver's
//! `CorrelatedObject`): a child of the new object has an old counterpart when both
//! objects have the key and the schema declares it (a property or
//! `additionalProperties`), or, in an `x-kubernetes-list-type: map` list, when an old
//! item has the same key values. Sets and atomic lists never correlate by index.
//!
//! Unchanged values are compared the same way: an object whose keys the schema does
//! not declare, or a map list whose items cannot all be correlated, is never
//! "unchanged", which is what the server concludes too.

use crate::source::{Node, Value};
use std::collections::HashMap;

use super::structural::Structural;

/// Recursion bound for comparisons (documents are already depth-limited).
const MAX_DEPTH: usize = 1000;

/// An old value correlated with a new one, with the structural schema of both.
#[derive(Clone, Copy, Debug)]
pub struct Correlation<'a> {
    pub old: &'a Node,
    pub schema: &'a Structural,
}

impl<'a> Correlation<'a> {
    pub fn new(old: &'a Node, schema: &'a Structural) -> Self {
        Correlation { old, schema }
    }

    /// The correlation of `new`'s field `field`.
    pub fn key(&self, new: &Node, field: &str) -> Option<Correlation<'a>> {
        let old = self.old.as_object()?.get(field)?;
        new.as_object()?.get(field)?;
        let schema = self
            .schema
            .property(field)
            .or_else(|| self.schema.additional_properties_schema())?;
        Some(Correlation { old, schema })
    }

    /// The correlation of `new`'s item `index`: only in map lists, by key values (the
    /// first old item with the same keys).
    pub fn index(&self, new: &Node, index: usize) -> Option<Correlation<'a>> {
        let current = new.as_array()?.get(index)?;
        let old_items = self.old.as_array()?;
        if self.schema.extensions.x_list_type.as_deref() != Some("map")
            || self.schema.generic.type_ != "array"
        {
            return None;
        }
        let keys = &self.schema.extensions.x_list_map_keys;
        let wanted = composite_key(current, keys)?;
        let old = old_items
            .iter()
            .find(|item| composite_key(item, keys).as_ref() == Some(&wanted))?;
        let schema = self.schema.items.as_deref()?;
        Some(Correlation { old, schema })
    }

    /// The correlations of a map list's items, built once for the whole list (a scan
    /// of the old items for each new one was quadratic: 20,000 items took seconds).
    /// `None` when `index` would give `None` for every item.
    pub fn items(&self) -> Option<ItemCorrelations<'a>> {
        let old_items = self.old.as_array()?;
        if self.schema.extensions.x_list_type.as_deref() != Some("map")
            || self.schema.generic.type_ != "array"
        {
            return None;
        }
        let keys = &self.schema.extensions.x_list_map_keys;
        let schema = self.schema.items.as_deref()?;
        let mut by_key = HashMap::with_capacity(old_items.len());
        for item in old_items {
            if let Some(key) = composite_key(item, keys) {
                // The first old item with a key, as `index` finds it.
                by_key.entry(key).or_insert(item);
            }
        }
        Some(ItemCorrelations {
            by_key,
            keys,
            schema,
        })
    }

    /// Whether `new` equals the old value (`CachedDeepEqual`).
    pub fn unchanged(&self, new: &Node, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            return false;
        }
        match (&self.old.value, &new.value) {
            (Value::Null, Value::Null) => true,
            (Value::Null, _) | (_, Value::Null) => false,
            (Value::Array(old), Value::Array(items)) => {
                if old.len() != items.len() {
                    return false;
                }
                let is_map_list = self.schema.extensions.x_list_type.as_deref() == Some("map");
                let correlations = self.items();
                for item in items {
                    match correlations.as_ref().and_then(|c| c.get(item)) {
                        Some(child) => {
                            if !child.unchanged(item, depth + 1) {
                                return false;
                            }
                        }
                        // Not a map list: plain deep equality of the whole list.
                        None if !is_map_list => {
                            return super::validate::go_deep_equal(self.old, new);
                        }
                        None => return false,
                    }
                }
                true
            }
            (Value::Object(old), Value::Object(map)) => {
                old.len() == map.len()
                    && map.entries.iter().all(|e| {
                        self.key(new, &e.key)
                            .is_some_and(|child| child.unchanged(&e.value, depth + 1))
                    })
            }
            (Value::Array(_), _) | (_, Value::Array(_)) => false,
            (Value::Object(_), _) | (_, Value::Object(_)) => false,
            _ => super::validate::go_deep_equal(self.old, new),
        }
    }
}

/// A map list's old items by key ([`Correlation::items`]).
pub struct ItemCorrelations<'a> {
    by_key: HashMap<Key, &'a Node>,
    keys: &'a [String],
    schema: &'a Structural,
}

impl<'a> ItemCorrelations<'a> {
    /// The correlation of a new item: the first old item with the same keys.
    pub fn get(&self, item: &Node) -> Option<Correlation<'a>> {
        let old = *self.by_key.get(&composite_key(item, self.keys)?)?;
        Some(Correlation {
            old,
            schema: self.schema,
        })
    }
}

/// The identity of a map-list item: its key values (scalars only), typed like Go's.
#[derive(Debug, PartialEq, Eq, Hash)]
enum Key {
    Single(Scalar),
    Composite(String),
}

#[derive(Debug, PartialEq, Eq, Hash)]
enum Scalar {
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
}

fn composite_key(item: &Node, keys: &[String]) -> Option<Key> {
    let map = item.as_object()?;
    if keys.is_empty() {
        return None;
    }
    if keys.len() == 1 {
        let v = map.get(&keys[0])?;
        return Some(Key::Single(match &v.value {
            Value::Bool(b) => Scalar::Bool(*b),
            Value::Int(i) => Scalar::Int(*i),
            Value::Float(f) => Scalar::Float(f.to_bits()),
            Value::String(s) => Scalar::Str(s.clone()),
            _ => return None,
        }));
    }
    // Go joins `%t`, `%f`, `%d` and `%q` renderings with NUL bytes.
    let mut out = String::new();
    for k in keys {
        out.push('\0');
        match &map.get(k)?.value {
            Value::Bool(b) => out.push_str(&b.to_string()),
            Value::Float(f) => out.push_str(&format!("{f:.6}")),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::String(s) => out.push_str(&crate::diag::gofmt::quote(s)),
            _ => return None,
        }
    }
    Some(Key::Composite(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;
    use serde_json::json;

    fn node(v: serde_json::Value) -> Node {
        Node::from_json(&v, Span::default())
    }

    fn schema(v: serde_json::Value) -> Structural {
        let (props, diags) =
            crate::model::schema::decode(&node(v), &crate::diag::FieldPath::empty());
        assert!(diags.is_empty(), "{diags:?}");
        super::super::structural::from_props(&props).expect("structural")
    }

    #[test]
    fn map_lists_correlate_by_key_and_ignore_order() {
        let s = schema(json!({"type": "array", "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            "items": {"type": "object", "properties": {"name": {"type": "string"}, "v": {"type": "integer"}}}}));
        let old = node(json!([{"name": "a", "v": 1}, {"name": "b", "v": 2}]));
        let new = node(json!([{"name": "b", "v": 2}, {"name": "a", "v": 1}]));
        let c = Correlation::new(&old, &s);
        assert!(c.unchanged(&new, 0));
        assert_eq!(
            c.index(&new, 0)
                .map(|c| c.old.get("v").and_then(Node::as_i64)),
            Some(Some(2))
        );
        let changed = node(json!([{"name": "b", "v": 3}, {"name": "a", "v": 1}]));
        assert!(!c.unchanged(&changed, 0));
    }

    #[test]
    fn sets_do_not_correlate_but_compare_deeply() {
        let s = schema(
            json!({"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}}),
        );
        let old = node(json!(["a", "b"]));
        let c = Correlation::new(&old, &s);
        assert!(c.index(&node(json!(["a", "b"])), 0).is_none());
        assert!(c.unchanged(&node(json!(["a", "b"])), 0));
        assert!(!c.unchanged(&node(json!(["b", "a"])), 0));
    }

    #[test]
    fn undeclared_keys_are_never_unchanged() {
        let s = schema(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
        let old = node(json!({"a": 1}));
        let c = Correlation::new(&old, &s);
        assert!(!c.unchanged(&node(json!({"a": 1})), 0));
        assert!(!c.unchanged(&node(json!({})), 0));
    }
}
