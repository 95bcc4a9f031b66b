//! Old and new values side by side for update ratcheting (apiserver's
//! `CorrelatedObject`): a child of the new object has an old counterpart when both
//! objects have the key and the schema declares it (a property or
//! `additionalProperties`), or, in an `x-kubernetes-list-type: map` list, when an old
//! item has the same key values. Sets and atomic lists never correlate by index.
//!
//! Unchanged values are compared the same way: an object whose keys the schema does
//! not declare, or a map list whose items cannot all be correlated, is never
//! "unchanged", which is what the server concludes too.

use crate::source::{Mapping, Node, Value};
use std::cell::RefCell;
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
        let old = field_of(self.old.as_object()?, field)?;
        field_of(new.as_object()?, field)?;
        let schema = self
            .schema
            .property(field)
            .or_else(|| self.schema.additional_properties_schema())?;
        Some(Correlation { old, schema })
    }

    /// The correlations of a map list's items (by key values; the first old item
    /// with a key wins), built once for the whole list: a scan of the old items for
    /// each new one was quadratic (20,000 items took seconds). `None` when no item
    /// can correlate (not a map list, or the old value is not a list).
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
                // The first old item with a key, as the server's `MapList` keeps it.
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
        // Validation asks this of every ancestor of an error: remembered for lists and
        // maps while the trees are borrowed, each subtree is compared once (a changed
        // leaf under 400 levels beside an unchanged map of 40,000 keys took 5 s).
        let composite = matches!(
            (&self.old.value, &new.value),
            (Value::Array(_), Value::Array(_)) | (Value::Object(_), Value::Object(_))
        );
        let key = (
            self.old as *const Node as usize,
            new as *const Node as usize,
            self.schema as *const Structural as usize,
        );
        if composite
            && let Some(known) = KEY_INDEXES.with(|k| {
                let k = k.borrow();
                if k.depth == 0 {
                    None
                } else {
                    k.unchanged.get(&key).copied()
                }
            })
        {
            return known;
        }
        let unchanged = self.compare(new, depth);
        if composite {
            KEY_INDEXES.with(|k| {
                let mut k = k.borrow_mut();
                if k.depth > 0 {
                    k.unchanged.insert(key, unchanged);
                }
            });
        }
        unchanged
    }

    fn compare(&self, new: &Node, depth: usize) -> bool {
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
                // A scope of its own when no caller holds one: one comparison reads
                // each key of the old map.
                let _lookups = key_lookups();
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

/// Below this many keys, reading them all is as quick as hashing.
const INDEXED_FROM: usize = 32;

/// Keeps indexes of the mappings [`field_of`] searches until dropped. Only while
/// the old and new objects are borrowed unchanged: an index is known by its mapping's
/// address and length.
pub struct KeyLookups(());

/// Starts keeping key indexes (nested scopes share them; the outermost clears them).
pub fn key_lookups() -> KeyLookups {
    KEY_INDEXES.with(|k| k.borrow_mut().depth += 1);
    KeyLookups(())
}

impl Drop for KeyLookups {
    fn drop(&mut self) {
        KEY_INDEXES.with(|k| {
            let mut k = k.borrow_mut();
            k.depth -= 1;
            if k.depth == 0 {
                k.maps.clear();
                k.unchanged.clear();
            }
        });
    }
}

#[derive(Default)]
struct KeyIndexes {
    depth: usize,
    /// By the mapping's address and length: each key's first position.
    maps: HashMap<(usize, usize), HashMap<String, u32>>,
    /// [`Correlation::unchanged`] of lists and maps, by the old value's, the new
    /// value's and the schema's addresses.
    unchanged: HashMap<(usize, usize, usize), bool>,
}

thread_local! {
    static KEY_INDEXES: RefCell<KeyIndexes> = RefCell::new(KeyIndexes::default());
}

/// `m.get(key)`, by an index kept while [`key_lookups`] is held. Correlating every
/// child of a map with the old map's entry of the same key read the old map once
/// per child: 40,000 keys took 4 s (9 s with a transition rule on the values).
pub fn field_of<'m>(m: &'m Mapping, key: &str) -> Option<&'m Node> {
    if m.len() < INDEXED_FROM {
        return m.get(key);
    }
    let found = KEY_INDEXES.with(|k| {
        let mut k = k.borrow_mut();
        if k.depth == 0 {
            return None;
        }
        let index = k
            .maps
            .entry((m as *const Mapping as usize, m.len()))
            .or_insert_with(|| {
                let mut index = HashMap::with_capacity(m.len());
                for (i, e) in m.entries.iter().enumerate() {
                    index.entry(e.key.clone()).or_insert(i as u32);
                }
                index
            });
        Some(index.get(key).copied())
    });
    match found {
        Some(Some(i)) => m
            .entries
            .get(i as usize)
            .filter(|e| e.key == key)
            .map(|e| &e.value),
        Some(None) => None,
        None => m.get(key),
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
            // Go compares float64 map keys by value: -0 is 0, NaN matches nothing.
            Value::Float(f) if f.is_nan() => return None,
            Value::Float(f) if *f == 0.0 => Scalar::Float(0.0f64.to_bits()),
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
        let items = c.items().expect("a map list");
        let first = &new.as_array().unwrap()[0];
        assert_eq!(
            items
                .get(first)
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
        assert!(c.items().is_none());
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

    /// Keys compare as Go compares them: typed (1 is not 1.0), -0 is 0, a single
    /// NaN key matches nothing, composite floats by their `%f` rendering, and the
    /// first of duplicate old keys wins.
    #[test]
    fn map_list_keys_compare_like_go() {
        let one = |keys: serde_json::Value| {
            schema(json!({"type": "array", "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": keys,
                "items": {"type": "object", "x-kubernetes-preserve-unknown-fields": true}}))
        };
        let single = one(json!(["k"]));
        let old = node(json!([{"k": 1, "n": "int"}, {"k": 1.0, "n": "float"},
            {"k": -0.0, "n": "zero"}, {"k": 1, "n": "second int"}]));
        let items = Correlation::new(&old, &single).items().unwrap();
        let found = |new: serde_json::Value| {
            items
                .get(&node(new))
                .and_then(|c| c.old.get("n").and_then(Node::as_str).map(str::to_owned))
        };
        assert_eq!(found(json!({"k": 1})).as_deref(), Some("int"));
        assert_eq!(found(json!({"k": 1.0})).as_deref(), Some("float"));
        assert_eq!(found(json!({"k": 0.0})).as_deref(), Some("zero"));
        assert_eq!(found(json!({"k": "1"})), None);
        let mut with_nan = node(json!({"k": 0}));
        if let Value::Object(m) = &mut with_nan.value {
            m.entries[0].value.value = Value::Float(f64::NAN);
        }
        assert!(items.get(&with_nan).is_none());

        let composite = one(json!(["a", "b"]));
        let old = node(json!([{"a": 1.0000001, "b": "x", "n": "first"}]));
        let items = Correlation::new(&old, &composite).items().unwrap();
        let close = node(json!({"a": 1.0000002, "b": "x"}));
        assert_eq!(
            items
                .get(&close)
                .map(|c| c.old.get("n").and_then(Node::as_str)),
            Some(Some("first")),
            "%f renders both as 1.000000"
        );
    }
}
