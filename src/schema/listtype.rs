//! `x-kubernetes-list-type: set | map` uniqueness, as the server checks it after
//! OpenAPI validation (`listtype.ValidateListSetsAndMaps`).

use crate::diag::{BadValue, FieldError, FieldPath, LazyPath};
use crate::source::{Node, Span, Value};

use super::structural::{Structural, StructuralOrBool};
use super::validate::SchemaError;

/// Validates every list-type set/map under the root object.
pub fn validate(s: &Structural, obj: &Node) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    validate_object(&LazyPath::Root, s, obj, &mut errs, 0);
    errs
}

const MAX_DEPTH: usize = 1000;

fn validate_object(
    path: &LazyPath<'_>,
    s: &Structural,
    obj: &Node,
    errs: &mut Vec<SchemaError>,
    depth: usize,
) {
    let Some(map) = obj.as_object() else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    if let Some(StructuralOrBool::Structural(ap)) = &s.additional_properties {
        for e in &map.entries {
            validate_value(&LazyPath::Key(path, &e.key), ap, &e.value, errs, depth + 1);
        }
    }
    for e in &map.entries {
        if let Some(sub) = s.property(&e.key) {
            validate_value(
                &LazyPath::Child(path, &e.key),
                sub,
                &e.value,
                errs,
                depth + 1,
            );
        }
    }
}

fn validate_value(
    path: &LazyPath<'_>,
    s: &Structural,
    v: &Node,
    errs: &mut Vec<SchemaError>,
    depth: usize,
) {
    match &v.value {
        Value::Array(items) => validate_array(path, s, items, errs, depth),
        Value::Object(_) => validate_object(path, s, v, errs, depth),
        _ => {}
    }
}

fn validate_array(
    path: &LazyPath<'_>,
    s: &Structural,
    items: &[Node],
    errs: &mut Vec<SchemaError>,
    depth: usize,
) {
    match s.extensions.x_list_type.as_deref() {
        Some("set") => {
            for i in non_unique(items.iter().map(key_of)) {
                errs.push(SchemaError {
                    error: FieldError::duplicate(
                        path.to_path().index(i),
                        BadValue::from(&items[i].value),
                    ),
                    span: items[i].span,
                });
            }
        }
        Some("map") => validate_map(path, s, items, errs),
        _ => {}
    }
    if let Some(item_schema) = &s.items {
        for (i, item) in items.iter().enumerate() {
            validate_value(
                &LazyPath::Index(path, i),
                item_schema,
                item,
                errs,
                depth + 1,
            );
        }
    }
}

/// A value as Go compares it in the uniqueness check: scalars by Go type and value,
/// compound values by their JSON encoding.
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Unspecified,
    Null,
    Bool(bool),
    Int(i64),
    Float(u64),
    Str(String),
    Compound(String),
}

fn key_of(n: &Node) -> Key {
    match &n.value {
        Value::Null => Key::Null,
        Value::Bool(b) => Key::Bool(*b),
        Value::Int(i) => Key::Int(*i),
        Value::Float(f) => Key::Float(f.to_bits()),
        Value::String(s) => Key::Str(s.clone()),
        other => Key::Compound(crate::diag::gofmt::json_marshal(&other.to_json())),
    }
}

/// Indices of the second occurrence of each duplicated key (later repeats are not
/// reported again).
fn non_unique(keys: impl Iterator<Item = Key>) -> Vec<usize> {
    let keys: Vec<Key> = keys.collect();
    if keys.len() <= 1 {
        return Vec::new();
    }
    let mut seen: std::collections::HashMap<&Key, usize> = std::collections::HashMap::new();
    let mut out = Vec::new();
    for (i, k) in keys.iter().enumerate() {
        let times = seen.entry(k).or_insert(0);
        *times += 1;
        if *times == 2 {
            out.push(i);
        }
    }
    out
}

fn validate_map(path: &LazyPath<'_>, s: &Structural, items: &[Node], errs: &mut Vec<SchemaError>) {
    for (i, x) in items.iter().enumerate() {
        if !x.is_null() && x.as_object().is_none() {
            errs.push(SchemaError {
                error: FieldError::invalid(
                    path.to_path().index(i),
                    BadValue::from(&x.value),
                    "must be an object for an array of list-type map",
                ),
                span: x.span,
            });
            return;
        }
    }
    if items.len() <= 1 {
        return;
    }
    let key_fields = &s.extensions.x_list_map_keys;
    if key_fields.len() == 1 {
        let field = &key_fields[0];
        let keys: Vec<Key> = items
            .iter()
            .map(|x| match x.get(field) {
                Some(v) => key_of(v),
                None => Key::Unspecified,
            })
            .collect();
        for i in non_unique(keys.into_iter()) {
            let value = match items[i].get(field) {
                None => serde_json::json!({}),
                Some(v) => serde_json::json!({ field.clone(): v.to_json() }),
            };
            errs.push(dup(path.to_path().index(i), value, items[i].span));
        }
        return;
    }
    let key_maps: Vec<serde_json::Map<String, serde_json::Value>> = items
        .iter()
        .map(|x| {
            key_fields
                .iter()
                .filter_map(|k| x.get(k).map(|v| (k.clone(), v.to_json())))
                .collect()
        })
        .collect();
    let keys = key_maps.iter().map(|m| {
        Key::Compound(crate::diag::gofmt::json_marshal(
            &serde_json::Value::Object(m.clone()),
        ))
    });
    for i in non_unique(keys) {
        errs.push(dup(
            path.to_path().index(i),
            serde_json::Value::Object(key_maps[i].clone()),
            items[i].span,
        ));
    }
}

fn dup(path: FieldPath, value: serde_json::Value, span: Span) -> SchemaError {
    SchemaError {
        error: FieldError::duplicate(path, BadValue::Json(value)),
        span,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::schema::decode;
    use serde_json::json;

    fn check(schema: serde_json::Value, obj: serde_json::Value) -> Vec<String> {
        let node = Node::from_json(&schema, Span::default());
        let (props, _) = decode(&node, &FieldPath::root("schema"));
        let s = crate::schema::structural::from_props(&props).expect("structural");
        validate(&s, &Node::from_json(&obj, Span::default()))
            .into_iter()
            .map(|e| e.error.to_string())
            .collect()
    }

    #[test]
    fn sets_and_maps_report_duplicates_like_the_server() {
        let schema = json!({"type": "object", "properties": {"spec": {"type": "object", "properties": {
            "tags": {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string"}},
            "ports": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["containerPort"],
                      "items": {"type": "object", "properties": {"containerPort": {"type": "integer"}, "protocol": {"type": "string"}}}},
            "multi": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["a", "b"],
                      "items": {"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}}}
        }}}});
        let obj = json!({"spec": {
            "tags": ["a", "b", "a", "a"],
            "ports": [{"containerPort": 80}, {"containerPort": 80, "protocol": "UDP"}, {}, {}],
            "multi": [{"a": "x", "b": "y"}, {"b": "y", "a": "x"}]
        }});
        assert_eq!(
            check(schema, obj),
            [
                "spec.tags[2]: Duplicate value: \"a\"",
                "spec.ports[1]: Duplicate value: {\"containerPort\":80}",
                "spec.ports[3]: Duplicate value: {}",
                "spec.multi[1]: Duplicate value: {\"a\":\"x\",\"b\":\"y\"}",
            ]
        );
    }
}
