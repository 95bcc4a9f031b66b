//! Validation of `default` values in a structural schema (`ValidateDefaults`): a default
//! must survive pruning unchanged and be valid against the schema where it stands.
//!
//! Value validation goes through [`super::Hooks::validate_value`]; until the OpenAPI value
//! validator of `crate::schema` is plugged in, [`basic_value_validation`] covers the
//! common keywords with kube-openapi's messages.

use crate::diag::{BadValue, FieldError, FieldPath};
use crate::model::schema::{SchemaOrArray, SchemaProps};
use crate::schema::objectmeta;
use crate::schema::structural::{Structural, StructuralOrBool};
use crate::source::{Mapping, Node, Value};
use std::collections::HashSet;

use super::SCHEMA_INVALID_DEFAULT;
use super::findings::Finding;
use super::hooks::Options;

/// Validates every default below `root` (the version's `openAPIV3Schema`): pruning,
/// value validation, then the CEL rules (through [`super::Hooks::cel_default`]).
pub fn validate_defaults(
    path: &FieldPath,
    root: &Structural,
    props: Option<&SchemaProps>,
    options: &Options<'_>,
    require_pruned: bool,
) -> Vec<Finding> {
    // Most schemas have few defaults: walk only the branches that lead to one.
    if !mark_defaulted(root, &mut None, 0) {
        return Vec::new();
    }
    // The server checks defaults with the root marked as an embedded resource. The
    // walk takes the mark from its depth (see `Walk::walk`) instead of cloning the
    // whole schema (~90 M instructions on the corpus), unless the root has a default
    // of its own, whose checks read the mark from the schema.
    let marked;
    let root = if root.generic.default.is_some() {
        let mut r = root.clone();
        r.extensions.x_embedded_resource = true;
        marked = r;
        &marked
    } else {
        root
    };
    let mut defaulted = Some(HashSet::new());
    mark_defaulted(root, &mut defaulted, 0);
    let mut w = Walk {
        options,
        require_pruned,
        errs: Vec::new(),
        defaulted: defaulted.unwrap_or_default(),
    };
    let node = At {
        path: path.clone(),
        s: root,
        props,
        resource_root: root,
        rel: Vec::new(),
        inside_meta: false,
    };
    w.walk(node, 0);
    w.errs
}

/// One step from a resource root to a schema node (the server's surrounding-object
/// builder: `Child(k)` or `Index()`).
#[derive(Clone)]
enum RelStep {
    Child(String),
    Index,
}

/// A schema node during the walk.
struct At<'a> {
    path: FieldPath,
    s: &'a Structural,
    props: Option<&'a SchemaProps>,
    /// The resource root this node belongs to (the schema root or the nearest
    /// embedded resource above) and the steps from it.
    resource_root: &'a Structural,
    rel: Vec<RelStep>,
    inside_meta: bool,
}

struct Walk<'o> {
    options: &'o Options<'o>,
    /// Report defaults that pruning changes (not on an update of a CRD that had one).
    require_pruned: bool,
    errs: Vec<Finding>,
    /// The nodes the walk follows ([`mark_defaulted`]).
    defaulted: HashSet<*const Structural>,
}

/// Whether `s` or a node below it (through `items` and `properties`, the walk's
/// edges) has a default; when `marked` is given, every such node is added to it (all
/// of them: the walk visits each), otherwise the answer comes at the first default.
fn mark_defaulted(
    s: &Structural,
    marked: &mut Option<HashSet<*const Structural>>,
    depth: usize,
) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let mut found = s.generic.default.is_some();
    let children = s
        .items
        .as_deref()
        .into_iter()
        .chain(s.properties.iter().map(|(_, p)| p));
    for child in children {
        if found && marked.is_none() {
            break;
        }
        found |= mark_defaulted(child, marked, depth + 1);
    }
    if found && let Some(set) = marked {
        set.insert(s as *const Structural);
    }
    found
}

/// The walk's recursion bound (the loader's nesting limit is lower).
const MAX_DEPTH: usize = 1000;

impl Walk<'_> {
    fn walk(&mut self, at: At<'_>, depth: usize) {
        // Past the CRD's findings limit the defaults left are not checked (the CRD
        // check says it stopped).
        if depth > MAX_DEPTH || !self.follows(at.s) || crate::diag::budget::exhausted() {
            return;
        }
        let s = at.s;
        // The root is walked as an embedded resource (`validate_defaults`).
        let embedded = s.extensions.x_embedded_resource || depth == 0;
        let (resource_root, rel, inside_meta) = if embedded {
            (s, Vec::new(), false)
        } else {
            (at.resource_root, at.rel, at.inside_meta)
        };
        let is_resource_root = std::ptr::eq(s, resource_root);
        if let Some(default) = &s.generic.default {
            self.check_default(
                &at.path,
                s,
                at.props,
                default,
                resource_root,
                &rel,
                inside_meta,
                is_resource_root,
            );
        }
        // (additionalProperties are not followed: defaults are forbidden there.)
        if let Some(items) = s.items.as_deref().filter(|i| self.follows(i)) {
            let item_props = match at.props.and_then(|p| p.items.as_ref()) {
                Some(SchemaOrArray::Schema(i)) => Some(&**i),
                _ => None,
            };
            let mut rel = rel.clone();
            rel.push(RelStep::Index);
            self.walk(
                At {
                    path: at.path.child("items"),
                    s: items,
                    props: item_props,
                    resource_root,
                    rel,
                    inside_meta,
                },
                depth + 1,
            );
        }
        let mut next_prop = 0;
        for (k, sub) in &s.properties {
            if !self.follows(sub) {
                continue;
            }
            let sub_meta = inside_meta
                || (embedded && matches!(k.as_str(), "metadata" | "apiVersion" | "kind"));
            let mut rel = rel.clone();
            rel.push(RelStep::Child(k.clone()));
            self.walk(
                At {
                    path: at.path.child("properties").key(k),
                    s: sub,
                    props: at
                        .props
                        .and_then(|p| p.property_in_order(k, &mut next_prop)),
                    resource_root,
                    rel,
                    inside_meta: sub_meta,
                },
                depth + 1,
            );
        }
    }

    /// Whether a default stands at or below `s`.
    fn follows(&self, s: &Structural) -> bool {
        self.defaulted.contains(&(s as *const Structural))
    }

    #[allow(clippy::too_many_arguments)]
    fn check_default(
        &mut self,
        path: &FieldPath,
        s: &Structural,
        props: Option<&SchemaProps>,
        default: &Node,
        resource_root: &Structural,
        rel: &[RelStep],
        inside_meta: bool,
        is_resource_root: bool,
    ) {
        let hooks = &self.options.hooks;
        let dpath = path.child("default");
        if inside_meta {
            // TypeMeta / ObjectMeta: the default must make a valid object around it.
            if let Some(msg) = surrounding_meta_error(default, resource_root, rel) {
                self.errs.push(finding(FieldError::invalid(
                    dpath,
                    BadValue::from(&default.value),
                    format!("must result in valid metadata: {msg}"),
                )));
                return;
            }
        }
        // The server coerces the default in place (embedded `metadata` is decoded and
        // written back: `null` becomes `{}`, unknown and empty fields go), and everything
        // after coercion, including the rendering of an earlier pruning error, sees the
        // coerced value.
        let mut coerced_default;
        let mut default = default;
        if !inside_meta {
            let mut pruned = default.to_json();
            prune(&mut pruned, Some(s), s.extensions.x_embedded_resource, 0);
            let unpruned = pruned != default.to_json();
            // ObjectMeta/TypeMeta of embedded resources in the default, first.
            let embedded = s.extensions.x_embedded_resource;
            coerced_default = default.clone();
            let coerced = objectmeta::coerce_at_path(&mut coerced_default, s, &dpath, embedded);
            if coerced.error.is_none() {
                default = &coerced_default;
            }
            if unpruned && self.require_pruned {
                self.errs.push(finding(FieldError::invalid(
                    dpath.clone(),
                    BadValue::from(&default.value),
                    "must not have unknown fields",
                )));
            }
            if let Some(e) = coerced.error {
                let mut f = finding(e.error);
                f.span = Some(e.span);
                self.errs.push(f);
                return;
            }
            let meta_errs = objectmeta::validate_at_path(s, default, &dpath, embedded);
            if !meta_errs.is_empty() {
                self.errs.extend(meta_errs.into_iter().map(|e| {
                    let mut f = finding(e.error);
                    f.span = Some(e.span);
                    f
                }));
                return;
            }
        }
        let value_errs =
            (hooks.validate_value)(props, s, default, &dpath, self.options.kube_version);
        if !value_errs.is_empty() {
            self.errs.extend(value_errs.into_iter().map(|(e, span)| {
                let mut f = finding(e);
                f.span = span;
                f
            }));
        } else if let Some(cel) = hooks.cel_default {
            self.errs.extend(cel(
                s,
                is_resource_root,
                default,
                &dpath,
                self.options.kube_version,
            ));
        }
    }
}

/// The server's checks of a default inside TypeMeta/ObjectMeta: the object built
/// around it (`{"apiVersion": "validation/v1", "kind": "Validation", …: default}`) must
/// coerce (apiVersion and kind strings, decodable metadata) and validate as the
/// metadata of a resource. The error text, if any.
fn surrounding_meta_error(default: &Node, root: &Structural, rel: &[RelStep]) -> Option<String> {
    let mut x = default.clone();
    for step in rel.iter().rev() {
        x = match step {
            RelStep::Child(k) => {
                let mut m = Mapping::default();
                m.insert(k.clone(), x);
                Node::synthetic(Value::Object(m), default.span)
            }
            RelStep::Index => Node::synthetic(Value::Array(vec![x]), default.span),
        };
    }
    let Value::Object(mut obj) = x.value else {
        // "object root default value must be of object type" (cannot happen inside meta).
        return None;
    };
    for (k, v) in [("kind", "Validation"), ("apiVersion", "validation/v1")] {
        if !obj.contains_key(k) {
            obj.insert(
                k.to_string(),
                Node::synthetic(Value::String(v.to_string()), default.span),
            );
        }
    }
    // The objectmeta helpers check embedded resources below a root: wrap the object
    // one level down and strip that level from the paths.
    const WRAP: &str = "x";
    let mut root = root.clone();
    root.extensions.x_embedded_resource = true;
    let wrapper_schema = Structural {
        properties: vec![(WRAP.to_string(), root)],
        ..Structural::default()
    };
    let mut wrapper = Mapping::default();
    wrapper.insert(
        WRAP.to_string(),
        Node::synthetic(Value::Object(obj), default.span),
    );
    let mut wrapper = Node::synthetic(Value::Object(wrapper), default.span);
    let unwrap = |mut e: FieldError| {
        let p = e.field.as_str();
        let rest = p.strip_prefix(WRAP).unwrap_or(p);
        e.field = FieldPath::root(rest.strip_prefix('.').unwrap_or(rest));
        e
    };
    let coerced = objectmeta::coerce_embedded(&mut wrapper, &wrapper_schema);
    if let Some(e) = coerced.error {
        return Some(unwrap(e.error).to_string());
    }
    let errs: Vec<FieldError> = objectmeta::validate_embedded(&wrapper_schema, &wrapper)
        .into_iter()
        .map(|e| unwrap(e.error))
        .collect();
    super::aggregate(&errs)
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

/// [`super::Hooks::validate_value`]'s default: kube-openapi's validator
/// ([`crate::schema::validate::Validator`]) on the default, built as the server builds it
/// for defaults (from the structural schema, so `x-kubernetes-int-or-string` adds no type
/// check of its own); [`basic_value_validation`] when the written schema is unknown.
pub fn openapi_value_validation(
    props: Option<&SchemaProps>,
    schema: &Structural,
    value: &Node,
    path: &FieldPath,
    kube_version: crate::cel::KubeVersion,
) -> Vec<(FieldError, Option<crate::source::Span>)> {
    let Some(props) = props else {
        return basic_value_validation(schema, value, path)
            .into_iter()
            .map(|e| (e, None))
            .collect();
    };
    let validator =
        crate::schema::validate::Validator::new_for_default_value(props, value, kube_version);
    validator
        .validate(value)
        .into_iter()
        .map(|e| {
            let mut error = e.error;
            // The validator charged its relative text; the path goes into the field
            // and the message (20,000 invalid defaults 400 levels deep made 244 MB).
            crate::diag::budget::charge_more(2 * path.as_str().len());
            // `ValidateCustomResource(path, …)`: the validator's names go under `path`.
            error.field = if error.field.is_empty() {
                path.clone()
            } else {
                path.child(error.field.as_str())
            };
            (error, Some(e.span))
        })
        .collect()
}

/// A small OpenAPI value validator with kube-openapi's messages, used until the full
/// validator is plugged in through [`super::Hooks::validate_value`]. It checks types
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
    let ty = s.generic.type_.as_ref();
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
