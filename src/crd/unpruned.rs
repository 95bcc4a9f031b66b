//! Whether a stored CRD has defaults that pruning changes (`schemaHasUnprunedDefaults`),
//! which lets its updates keep such defaults (`requirePrunedDefaults` is off).
//!
//! The server answers with `PruneDefaults`, which differs from the per-node check of a
//! new default: each default is placed where it stands in an object built around it
//! from the schema root (a property's key, a list's only item, `*` for a map value);
//! that object is coerced as a resource (`objectmeta.Coerce` dropping invalid fields:
//! non-string `apiVersion`/`kind` go, metadata is decoded field by field and written
//! back) and pruned as a resource root; the default is read back from where it was.
//! So metadata, `apiVersion` and `kind` of the root and of embedded resources are
//! coerced instead of pruned. A default that cannot be placed (a root default that is
//! not an object) makes the whole answer "no".

use serde_json::{Map, Value};

use super::defaults::prune;
use crate::schema::objectmeta;
use crate::schema::structural::{Structural, StructuralOrBool};
use crate::source::{Node, Span};

/// One step from the root to a default.
#[derive(Clone)]
enum Step {
    Child(String),
    Index,
}

/// `schemaHasUnprunedDefaults` on a structural schema (already checked structural).
pub fn has_unpruned_default(root: &Structural) -> bool {
    let mut changed = false;
    let mut steps = Vec::new();
    walk(root, root, &mut steps, &mut changed, 0).is_some() && changed
}

/// Visits every default (`None`: one could not be placed, an error for the server).
fn walk(
    root: &Structural,
    s: &Structural,
    steps: &mut Vec<Step>,
    changed: &mut bool,
    depth: usize,
) -> Option<()> {
    if depth > 1000 {
        return Some(());
    }
    if let Some(default) = &s.generic.default
        && !default.is_null()
    {
        let original = default.to_json();
        let after = prune_in_place(root, &original, steps)?;
        *changed |= after.as_ref() != Some(&original);
    }
    if let Some(StructuralOrBool::Structural(values)) = &s.additional_properties {
        steps.push(Step::Child("*".into()));
        walk(root, values, steps, changed, depth + 1)?;
        steps.pop();
    }
    if let Some(items) = s.items.as_deref() {
        steps.push(Step::Index);
        walk(root, items, steps, changed, depth + 1)?;
        steps.pop();
    }
    for (name, prop) in &s.properties {
        steps.push(Step::Child(name.clone()));
        walk(root, prop, steps, changed, depth + 1)?;
        steps.pop();
    }
    Some(())
}

/// The default as `PruneDefaults` leaves it (`Some(None)`: gone), or `None` when the
/// server fails to place or read it back.
fn prune_in_place(root: &Structural, default: &Value, steps: &[Step]) -> Option<Option<Value>> {
    let mut object = default.clone();
    for step in steps.iter().rev() {
        object = match step {
            Step::Child(k) => Value::Object(Map::from_iter([(k.clone(), object)])),
            Step::Index => Value::Array(vec![object]),
        };
    }
    if !object.is_object() {
        // "object root default value must be of object type"
        return None;
    }
    coerce(&mut object, root, true, 0);
    prune(&mut object, Some(root), true, 0);
    let mut at = &object;
    for step in steps {
        at = match (step, at) {
            (Step::Child(k), Value::Object(m)) => match m.get(k) {
                Some(v) => v,
                None => return Some(None),
            },
            (Step::Index, Value::Array(items)) => match items.first() {
                Some(v) => v,
                None => return Some(None),
            },
            // ".k must be of object type" / "[] must be of array type"
            _ => return None,
        };
    }
    Some(Some(at.clone()))
}

/// `objectmeta.Coerce(…, isResourceRoot, dropInvalidFields = true)` on JSON.
fn coerce(x: &mut Value, s: &Structural, resource: bool, depth: usize) {
    if depth > 1000 {
        return;
    }
    match x {
        Value::Object(map) => {
            if resource || s.extensions.x_embedded_resource {
                for key in ["apiVersion", "kind"] {
                    if map.get(key).is_some_and(|v| !v.is_string()) {
                        map.remove(key);
                    }
                }
                if let Some(metadata) = map.get_mut("metadata") {
                    rewrite_metadata(metadata);
                }
            }
            for (k, v) in map.iter_mut() {
                if let Some(prop) = s.property(k) {
                    coerce(v, prop, false, depth + 1);
                } else if let Some(StructuralOrBool::Structural(values)) = &s.additional_properties
                {
                    coerce(v, values, false, depth + 1);
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = s.items.as_deref() {
                for v in items {
                    coerce(v, item, false, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// `GetObjectMetaWithOptions` with `DropMalformedFields`, then `SetObjectMeta`: the
/// metadata decoded (field by field when it does not decode whole: a field that
/// fails alone is dropped) and written back; metadata that is not an object is left.
fn rewrite_metadata(metadata: &mut Value) {
    let span = Span::default();
    let mut node = Node::from_json(metadata, span);
    let decoded = objectmeta::decode(&node, "metadata");
    if decoded.error.is_some() {
        let Value::Object(fields) = &*metadata else {
            return;
        };
        let kept: Map<String, Value> = fields
            .iter()
            .filter(|(k, v)| {
                let one = Value::Object(Map::from_iter([((*k).clone(), (*v).clone())]));
                objectmeta::decode(&Node::from_json(&one, span), "metadata")
                    .error
                    .is_none()
            })
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        node = Node::from_json(&Value::Object(kept), span);
    }
    let decoded = objectmeta::decode(&node, "metadata");
    objectmeta::drop_unknown(&mut node, &decoded.unknown, "metadata");
    objectmeta::normalize(&mut node);
    *metadata = node.to_json();
}
