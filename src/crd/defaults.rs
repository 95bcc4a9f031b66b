//! Validation of `default` values in a structural schema (`ValidateDefaults`): a default
//! must survive pruning unchanged and be valid against the schema where it stands.
//!
//! Value validation goes through [`Hooks::validate_value`]; until the OpenAPI value
//! validator of `crate::schema` is plugged in, [`basic_value_validation`] covers the
//! common keywords with kube-openapi's messages.

use crate::diag::{BadValue, FieldError, FieldPath};
use crate::schema::structural::{Structural, StructuralOrBool};
use crate::source::{Node, Value};

use super::SCHEMA_INVALID_DEFAULT;
use super::findings::Finding;
use super::hooks::Hooks;

/// Validates every default below `root` (the version's `openAPIV3Schema`): pruning,
/// value validation, then the CEL rules (through [`Hooks::cel_default`]).
pub fn validate_defaults(path: &FieldPath, root: &Structural, hooks: &Hooks) -> Vec<Finding> {
    let mut root = root.clone();
    root.extensions.x_embedded_resource = true;
    let mut errs = Vec::new();
    walk(path, &root, true, false, hooks, &mut errs, 0);
    errs
}

fn walk(
    path: &FieldPath,
    s: &Structural,
    is_resource_root: bool,
    inside_meta: bool,
    hooks: &Hooks,
    errs: &mut Vec<Finding>,
    depth: usize,
) {
    if depth > 1000 {
        return;
    }
    let inside_meta = inside_meta && !s.extensions.x_embedded_resource;
    let is_resource_root = is_resource_root || s.extensions.x_embedded_resource;
    if let Some(default) = &s.generic.default {
        let dpath = path.child("default");
        if !inside_meta {
            let mut pruned = default.to_json();
            prune(&mut pruned, Some(s), s.extensions.x_embedded_resource, 0);
            if pruned != default.to_json() {
                errs.push(finding(FieldError::invalid(
                    dpath.clone(),
                    BadValue::from(&default.value),
                    "must not have unknown fields",
                )));
            }
        }
        let value_errs = (hooks.validate_value)(s, default, &dpath);
        if !value_errs.is_empty() {
            errs.extend(value_errs.into_iter().map(finding));
        } else if let Some(cel) = hooks.cel_default {
            errs.extend(cel(s, is_resource_root, default, &dpath));
        }
    }
    if let Some(items) = &s.items {
        walk(
            &path.child("items"),
            items,
            false,
            inside_meta,
            hooks,
            errs,
            depth + 1,
        );
    }
    for (k, sub) in &s.properties {
        let sub_meta = inside_meta
            || (s.extensions.x_embedded_resource
                && matches!(k.as_str(), "metadata" | "apiVersion" | "kind"));
        walk(
            &path.child("properties").key(k),
            sub,
            false,
            sub_meta,
            hooks,
            errs,
            depth + 1,
        );
    }
}

/// A default-value error with its help.
fn finding(error: FieldError) -> Finding {
    let help = if error.detail == "must not have unknown fields" {
        "the default would be pruned: remove fields the schema does not declare"
    } else {
        "make the default valid against the schema where it stands"
    };
    Finding {
        code: SCHEMA_INVALID_DEFAULT,
        error,
        span: None,
        help: Some(help.to_string()),
        severity: crate::diag::Severity::Error,
    }
}

/// The server's pruning algorithm on a JSON value.
pub fn prune(
    x: &mut serde_json::Value,
    s: Option<&Structural>,
    is_resource_root: bool,
    depth: usize,
) {
    if depth > 1000 {
        return;
    }
    let root_clone;
    let s = if is_resource_root {
        let mut c = s.cloned().unwrap_or_default();
        c.extensions.x_embedded_resource = true;
        root_clone = c;
        Some(&root_clone)
    } else {
        s
    };
    prune_inner(x, s, depth);
}

fn is_meta(k: &str) -> bool {
    matches!(k, "metadata" | "apiVersion" | "kind")
}

fn ap_schema(s: &Structural) -> Option<&Structural> {
    match &s.additional_properties {
        Some(StructuralOrBool::Structural(x)) => Some(x),
        _ => None,
    }
}

fn prune_inner(x: &mut serde_json::Value, s: Option<&Structural>, depth: usize) {
    if depth > 1000 {
        return;
    }
    if let Some(s) = s
        && s.extensions.x_preserve_unknown_fields
    {
        skip_prune(x, s, depth);
        return;
    }
    match x {
        serde_json::Value::Object(map) => {
            let Some(s) = s else {
                map.clear();
                return;
            };
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if s.extensions.x_embedded_resource && is_meta(&k) {
                    continue;
                }
                if let Some(prop) = s.property(&k) {
                    if let Some(v) = map.get_mut(&k) {
                        prune_inner(v, Some(prop), depth + 1);
                    }
                } else if s.additional_properties.is_some() {
                    if let Some(v) = map.get_mut(&k) {
                        prune_inner(v, ap_schema(s), depth + 1);
                    }
                } else {
                    map.remove(&k);
                }
            }
        }
        serde_json::Value::Array(items) => {
            let item_schema = s.and_then(|s| s.items.as_deref());
            for v in items {
                prune_inner(v, item_schema, depth + 1);
            }
        }
        _ => {}
    }
}

fn skip_prune(x: &mut serde_json::Value, s: &Structural, depth: usize) {
    if depth > 1000 {
        return;
    }
    match x {
        serde_json::Value::Object(map) => {
            let keys: Vec<String> = map.keys().cloned().collect();
            for k in keys {
                if s.extensions.x_embedded_resource && is_meta(&k) {
                    continue;
                }
                if let Some(prop) = s.property(&k) {
                    if let Some(v) = map.get_mut(&k) {
                        prune_inner(v, Some(prop), depth + 1);
                    }
                } else if s.additional_properties.is_some()
                    && let Some(v) = map.get_mut(&k)
                {
                    prune_inner(v, ap_schema(s), depth + 1);
                }
            }
        }
        serde_json::Value::Array(items) => {
            if let Some(item) = s.items.as_deref() {
                for v in items {
                    skip_prune(v, item, depth + 1);
                }
            }
        }
        _ => {}
    }
}

/// A small OpenAPI value validator with kube-openapi's messages, used until the full
/// validator is plugged in through [`Hooks::validate_value`]. It checks types
/// (nullable), enum, required, string lengths and patterns, numeric bounds and
/// multipleOf, item and property counts, recursively through properties, items and
/// additionalProperties.
pub fn basic_value_validation(
    schema: &Structural,
    value: &Node,
    path: &FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    check(schema, value, path, "", &mut errs, 0);
    errs
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Int(_) => "integer",
        Value::Float(f) if f.fract() == 0.0 && f.is_finite() => "integer",
        Value::Float(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn type_matches(ty: &str, v: &Value) -> bool {
    match ty {
        "" => true,
        "number" => matches!(v, Value::Int(_) | Value::Float(_)),
        other => type_name(v) == other,
    }
}

fn num(v: f64) -> String {
    crate::diag::gofmt::float_v(v)
}

fn child_name(name: &str, key: &str) -> String {
    if name.is_empty() {
        key.to_string()
    } else {
        format!("{name}.{key}")
    }
}

fn err_path(path: &FieldPath, name: &str) -> FieldPath {
    if name.is_empty() {
        path.clone()
    } else {
        path.child(name)
    }
}

fn check(
    s: &Structural,
    v: &Node,
    path: &FieldPath,
    name: &str,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > 1000 {
        return;
    }
    let ty = s.generic.type_.as_str();
    let ep = err_path(path, name);
    if v.is_null() && (s.generic.nullable || ty.is_empty()) {
        return;
    }
    let int_or_string = s.extensions.x_int_or_string;
    let type_ok = if int_or_string {
        matches!(v.value, Value::Int(_) | Value::String(_)) || (v.is_null() && s.generic.nullable)
    } else {
        type_matches(ty, &v.value)
    };
    if !type_ok {
        let actual = type_name(&v.value);
        let expected = if int_or_string { "integer,string" } else { ty };
        errs.push(FieldError::type_invalid(
            ep,
            actual,
            format!("{name} in body must be of type {expected}: {:?}", actual),
        ));
        return;
    }
    let Some(vv) = s.value_validation.as_deref() else {
        return;
    };
    if !vv.enum_.is_empty() {
        let json = v.to_json();
        if !vv.enum_.iter().any(|e| e.to_json() == json) {
            let allowed: Vec<String> = vv
                .enum_
                .iter()
                .map(|e| match &e.value {
                    Value::String(s) => s.clone(),
                    _ => crate::diag::gofmt::json_marshal(&e.to_json()),
                })
                .collect();
            errs.push(FieldError::not_supported(
                ep.clone(),
                BadValue::from(&v.value),
                &allowed,
            ));
        }
    }
    match &v.value {
        Value::String(st) => {
            let len = st.chars().count() as i64;
            if let Some(max) = vv.max_length
                && len > max
            {
                errs.push(FieldError::too_long(ep, max));
                return;
            }
            if let Some(min) = vv.min_length
                && len < min
            {
                errs.push(FieldError::invalid(
                    ep,
                    st.as_str(),
                    format!("{name} in body should be at least {min} chars long"),
                ));
                return;
            }
            if !vv.pattern.is_empty()
                && let Ok(re) = crate::schema::regex::compile_go(&vv.pattern)
                && !re.is_match(st)
            {
                errs.push(FieldError::invalid(
                    ep,
                    st.as_str(),
                    format!("{name} in body should match '{}'", vv.pattern),
                ));
            }
        }
        Value::Int(_) | Value::Float(_) => {
            let x = v.as_f64().unwrap_or(0.0);
            let bad = BadValue::from(&v.value);
            if let Some(m) = vv.multiple_of
                && m != 0.0
                && (x / m).fract() != 0.0
            {
                errs.push(FieldError::invalid(
                    ep.clone(),
                    bad.clone(),
                    format!("{name} in body should be a multiple of {}", num(m)),
                ));
            }
            if let Some(max) = vv.maximum
                && (x > max || (vv.exclusive_maximum && x >= max))
            {
                let rel = if vv.exclusive_maximum {
                    "less than"
                } else {
                    "less than or equal to"
                };
                errs.push(FieldError::invalid(
                    ep.clone(),
                    bad.clone(),
                    format!("{name} in body should be {rel} {}", num(max)),
                ));
            }
            if let Some(min) = vv.minimum
                && (x < min || (vv.exclusive_minimum && x <= min))
            {
                let rel = if vv.exclusive_minimum {
                    "greater than"
                } else {
                    "greater than or equal to"
                };
                errs.push(FieldError::invalid(
                    ep,
                    bad,
                    format!("{name} in body should be {rel} {}", num(min)),
                ));
            }
        }
        Value::Array(items) => {
            let n = items.len() as i64;
            if let Some(max) = vv.max_items
                && n > max
            {
                errs.push(FieldError::too_many(ep.clone(), n, max));
            }
            if let Some(min) = vv.min_items
                && n < min
            {
                errs.push(FieldError::invalid(
                    ep.clone(),
                    BadValue::from(&v.value),
                    format!("{name} in body should have at least {min} items"),
                ));
            }
            if let Some(item_schema) = s.items.as_deref() {
                for (i, item) in items.iter().enumerate() {
                    check(
                        item_schema,
                        item,
                        path,
                        &format!("{}[{i}]", name),
                        errs,
                        depth + 1,
                    );
                }
            }
        }
        Value::Object(map) => {
            let n = map.len() as i64;
            if let Some(max) = vv.max_properties
                && n > max
            {
                errs.push(FieldError::too_many(ep.clone(), n, max));
            }
            if let Some(min) = vv.min_properties
                && n < min
            {
                errs.push(FieldError::invalid(
                    ep.clone(),
                    BadValue::from(&v.value),
                    format!("{name} in body should have at least {min} properties"),
                ));
            }
            for r in &vv.required {
                if !map.contains_key(r) {
                    errs.push(FieldError::required(
                        err_path(path, &child_name(name, r)),
                        "",
                    ));
                }
            }
            for e in &map.entries {
                if let Some(p) = s.property(&e.key) {
                    check(
                        p,
                        &e.value,
                        path,
                        &child_name(name, &e.key),
                        errs,
                        depth + 1,
                    );
                } else if let Some(ap) = ap_schema(s) {
                    check(
                        ap,
                        &e.value,
                        path,
                        &child_name(name, &e.key),
                        errs,
                        depth + 1,
                    );
                }
            }
        }
        _ => {}
    }
}
