//! The structural schema rules (`ValidateStructural`): every node specifies a type
//! (or is int-or-string / preserve-unknown-fields), logical junctors only hold value
//! validations, metadata at the root only restricts name and generateName, and every
//! field a junctor mentions is also specified outside of it. Errors come sorted by
//! their text, as the server sorts them.

use crate::cel::KubeVersion;
use crate::diag::{FieldError, FieldPath, LazyPath};

use super::{NestedValueValidation, Structural, ValueValidation};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Level {
    Root,
    Item,
    Field,
}

/// What differs between server versions.
#[derive(Clone, Copy)]
struct Rules {
    /// From 1.36 (apiextensions-apiserver 0.36) `example` and `externalDocs` are kept
    /// in the structural schema's generic fields, so the comparisons that ask for an
    /// otherwise empty schema (the root `metadata`, the int-or-string `anyOf` pair) see
    /// them; up to 1.35 the conversion dropped them.
    docs_are_generic: bool,
}

/// Validates `s` (standing at `path`) with the server's default options, as the
/// newest supported server does.
pub fn validate_structural(path: &FieldPath, s: &Structural) -> Vec<FieldError> {
    validate_structural_at(path, s, KubeVersion::NEWEST)
}

/// [`validate_structural`] as a server of `version` validates.
pub fn validate_structural_at(
    path: &FieldPath,
    s: &Structural,
    version: KubeVersion,
) -> Vec<FieldError> {
    let rules = Rules {
        docs_are_generic: version >= KubeVersion::new(1, 36),
    };
    let mut errs = Vec::new();
    invariants(s, Level::Root, &LazyPath::At(path), &mut errs, rules, 0);
    completeness(s, path, &mut errs);
    errs.sort_by_cached_key(|e| e.to_string());
    errs
}

const MAX_DEPTH: usize = 1000;

fn is_int_or_string_pair(list: &[NestedValueValidation], rules: Rules) -> bool {
    list.len() == 2
        && is_only_type(&list[0], "integer", rules)
        && is_only_type(&list[1], "string", rules)
}

/// A junctor clause that is exactly `{type: <ty>}`. The server compares with
/// `reflect.DeepEqual`, so an empty list or mapping that is written (`required: []`,
/// `properties: {}`) is not empty.
fn is_only_type(n: &NestedValueValidation, ty: &str, rules: Rules) -> bool {
    let g = &n.forbidden_generics;
    let more_than_type = g.has_empty_list
        || n.has_empty_properties
        || g.has_description
        || (rules.docs_are_generic && g.has_example_or_external_docs);
    g.type_ == ty
        && !more_than_type
        && g.title.is_empty()
        && g.default.is_none()
        && !g.nullable
        && is_empty_extensions(&n.forbidden_extensions)
        && n.value_validation.is_empty()
        && n.x_validations.is_empty()
        && n.items.is_none()
        && n.properties.is_empty()
        && n.additional_properties.is_none()
}

fn is_empty_extensions(x: &super::Extensions) -> bool {
    !x.x_preserve_unknown_fields
        && !x.x_embedded_resource
        && !x.x_int_or_string
        && x.x_list_map_keys.is_empty()
        && x.x_list_type.is_none()
        && x.x_map_type.is_none()
}

fn invariants(
    s: &Structural,
    lvl: Level,
    path: &LazyPath<'_>,
    errs: &mut Vec<FieldError>,
    rules: Rules,
    depth: usize,
) {
    // Past the findings limit (see `budget`), the caller says checking stopped.
    if depth > MAX_DEPTH || crate::diag::budget::exhausted() {
        return;
    }
    let ty = s.generic.type_.as_ref();
    if ty == "array" && s.items.is_none() {
        errs.push(FieldError::required(
            path.to_path().child("items"),
            "must be specified",
        ));
    }
    if let Some(items) = &s.items {
        invariants(
            items,
            Level::Item,
            &LazyPath::Child(path, "items"),
            errs,
            rules,
            depth + 1,
        );
    }
    for (k, v) in &s.properties {
        invariants(
            v,
            Level::Field,
            &LazyPath::Key(&LazyPath::Child(path, "properties"), k),
            errs,
            rules,
            depth + 1,
        );
    }
    if let Some(ap) = &s.additional_properties {
        if lvl == Level::Root {
            errs.push(FieldError::forbidden(
                path.to_path().child("additionalProperties"),
                "must not be used at the root",
            ));
        }
        if let super::StructuralOrBool::Structural(sub) = ap {
            invariants(
                sub,
                Level::Field,
                &LazyPath::Child(path, "additionalProperties"),
                errs,
                rules,
                depth + 1,
            );
        }
    }
    let x = &s.extensions;
    if x.x_int_or_string && x.x_preserve_unknown_fields {
        errs.push(FieldError::invalid(
            path.to_path().child("x-kubernetes-preserve-unknown-fields"),
            true,
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if x.x_int_or_string && x.x_embedded_resource {
        errs.push(FieldError::invalid(
            path.to_path().child("x-kubernetes-embedded-resource"),
            true,
            "must be false if x-kubernetes-int-or-string is true",
        ));
    }
    if let Some(vv) = &s.value_validation {
        let skip_any_of = is_int_or_string_pair(&vv.any_of, rules);
        let skip_first_all_of_any_of = vv
            .all_of
            .first()
            .is_some_and(|a| is_int_or_string_pair(&a.value_validation.any_of, rules));
        value_validation(
            vv,
            skip_any_of,
            skip_first_all_of_any_of,
            lvl,
            path,
            errs,
            depth,
        );
    }
    let check_metadata = lvl == Level::Root || x.x_embedded_resource;
    if x.x_embedded_resource && ty != "object" {
        if ty.is_empty() {
            errs.push(FieldError::required(
                path.to_path().child("type"),
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        } else {
            errs.push(FieldError::invalid(
                path.to_path().child("type"),
                ty,
                "must be object if x-kubernetes-embedded-resource is true",
            ));
        }
    } else if ty.is_empty() && !x.x_int_or_string && !x.x_preserve_unknown_fields {
        let detail = match lvl {
            Level::Root => "must not be empty at the root",
            Level::Item => "must not be empty for specified array items",
            Level::Field => "must not be empty for specified object fields",
        };
        errs.push(FieldError::required(path.to_path().child("type"), detail));
    }
    if x.x_embedded_resource && s.additional_properties.is_some() {
        errs.push(FieldError::forbidden(
            path.to_path().child("additionalProperties"),
            "must not be used if x-kubernetes-embedded-resource is set",
        ));
    }
    if lvl == Level::Root && !ty.is_empty() && ty != "object" {
        errs.push(FieldError::invalid(
            path.to_path().child("type"),
            ty,
            "must be object at the root",
        ));
    }
    if check_metadata {
        for key in ["kind", "apiVersion"] {
            if let Some(p) = s.property(key)
                && p.generic.type_ != "string"
            {
                errs.push(FieldError::invalid(
                    path.to_path().child("properties").key(key).child("type"),
                    p.generic.type_.as_ref(),
                    "must be string",
                ));
            }
        }
    }
    if let Some(metadata) = s.property("metadata") {
        metadata_invariants(
            metadata,
            check_metadata,
            lvl,
            &LazyPath::Key(&LazyPath::Child(path, "properties"), "metadata"),
            errs,
            rules,
        );
    }
    if x.x_embedded_resource && !x.x_preserve_unknown_fields && s.properties.is_empty() {
        errs.push(FieldError::required(
            path.to_path().child("properties"),
            "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
        ));
    }
}

fn metadata_invariants(
    s: &Structural,
    check_metadata: bool,
    lvl: Level,
    path: &LazyPath<'_>,
    errs: &mut Vec<FieldError>,
    rules: Rules,
) {
    if check_metadata && s.generic.type_ != "object" {
        errs.push(FieldError::invalid(
            path.to_path().child("type"),
            s.generic.type_.as_ref(),
            "must be object",
        ));
    }
    if lvl != Level::Root {
        return;
    }
    // Only restrictions of name and generateName are allowed; type and default are
    // checked elsewhere.
    let names_only = {
        let has = |n: &str| s.property(n).is_some();
        let (name, generate) = (has("name"), has("generateName"));
        (name && generate && s.properties.len() == 2)
            || ((name || generate) && s.properties.len() == 1)
    };
    let g = &s.generic;
    let clean = (s.properties.is_empty() || names_only)
        && s.items.is_none()
        && s.additional_properties.is_none()
        && !g.has_description
        && !g.has_empty_list
        && !(rules.docs_are_generic && g.has_example_or_external_docs)
        && g.title.is_empty()
        && !g.nullable
        && is_empty_extensions(&s.extensions)
        && s.x_validations.is_empty()
        && s.value_validation
            .as_deref()
            .is_none_or(ValueValidation::is_empty);
    if !clean {
        errs.push(FieldError::forbidden(
            path.to_path(),
            "must not specify anything other than name and generateName, but metadata is implicitly specified",
        ));
    }
}

#[allow(clippy::too_many_arguments)]
fn value_validation(
    v: &ValueValidation,
    skip_any_of: bool,
    skip_first_all_of_any_of: bool,
    lvl: Level,
    path: &LazyPath<'_>,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    if !skip_any_of {
        for (i, n) in v.any_of.iter().enumerate() {
            nested(
                n,
                false,
                lvl,
                &LazyPath::Index(&LazyPath::Child(path, "anyOf"), i),
                errs,
                depth + 1,
            );
        }
    }
    for (i, n) in v.all_of.iter().enumerate() {
        let skip = skip_first_all_of_any_of && i == 0;
        nested(
            n,
            skip,
            lvl,
            &LazyPath::Index(&LazyPath::Child(path, "allOf"), i),
            errs,
            depth + 1,
        );
    }
    for (i, n) in v.one_of.iter().enumerate() {
        nested(
            n,
            false,
            lvl,
            &LazyPath::Index(&LazyPath::Child(path, "oneOf"), i),
            errs,
            depth + 1,
        );
    }
    if let Some(n) = &v.not {
        nested(
            n,
            false,
            lvl,
            &LazyPath::Child(path, "not"),
            errs,
            depth + 1,
        );
    }
    if !v.pattern.is_empty()
        && let Some(e) = crate::schema::regex::go_error(&v.pattern)
    {
        errs.push(FieldError::invalid(
            path.to_path().child("pattern"),
            v.pattern.as_str(),
            format!("must be a valid regular expression, but isn't: {e}"),
        ));
    }
}

fn nested(
    v: &NestedValueValidation,
    skip_any_of: bool,
    lvl: Level,
    path: &LazyPath<'_>,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    value_validation(
        &v.value_validation,
        skip_any_of,
        false,
        lvl,
        path,
        errs,
        depth,
    );
    if let Some(items) = &v.items {
        nested(
            items,
            false,
            lvl,
            &LazyPath::Child(path, "items"),
            errs,
            depth + 1,
        );
    }
    for (k, f) in &v.properties {
        nested(
            f,
            false,
            Level::Field,
            &LazyPath::Key(&LazyPath::Child(path, "properties"), k),
            errs,
            depth + 1,
        );
    }
    // A schema inside allOf/anyOf/oneOf/not may only restrict values: every
    // structural keyword written there is forbidden, reported in the server's order.
    let g = &v.forbidden_generics;
    let x = &v.forbidden_extensions;
    const EMPTY: &str = "must be empty to be structural";
    const UNDEFINED: &str = "must be undefined to be structural";
    const FALSE: &str = "must be false to be structural";
    let forbidden = [
        (!g.type_.is_empty(), "type", EMPTY),
        (
            v.additional_properties.is_some(),
            "additionalProperties",
            UNDEFINED,
        ),
        (g.default.is_some(), "default", UNDEFINED),
        (!g.title.is_empty(), "title", EMPTY),
        (g.has_description, "description", EMPTY),
        (g.nullable, "nullable", FALSE),
        (
            x.x_preserve_unknown_fields,
            "x-kubernetes-preserve-unknown-fields",
            FALSE,
        ),
        (
            x.x_embedded_resource,
            "x-kubernetes-embedded-resource",
            FALSE,
        ),
        (x.x_int_or_string, "x-kubernetes-int-or-string", FALSE),
        (
            !x.x_list_map_keys.is_empty(),
            "x-kubernetes-list-map-keys",
            EMPTY,
        ),
        (x.x_list_type.is_some(), "x-kubernetes-list-type", UNDEFINED),
        (x.x_map_type.is_some(), "x-kubernetes-map-type", UNDEFINED),
        (
            !v.x_validations.is_empty(),
            "x-kubernetes-validations",
            EMPTY,
        ),
    ];
    for (present, field, detail) in forbidden {
        if present {
            errs.push(FieldError::forbidden(path.to_path().child(field), detail));
        }
    }
    if v.properties.contains_key("metadata") {
        errs.push(FieldError::forbidden(
            path.to_path().child("properties").key("metadata"),
            "must not be specified in a nested context",
        ));
    }
}

fn completeness(s: &Structural, path: &FieldPath, errs: &mut Vec<FieldError>) {
    if let Some(vv) = &s.value_validation {
        vv_completeness(vv, Some(s), path, path, errs, 0);
    }
}

fn vv_completeness(
    v: &ValueValidation,
    s: Option<&Structural>,
    s_path: &FieldPath,
    v_path: &FieldPath,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(s) = s else {
        errs.push(FieldError::required(
            s_path.clone(),
            format!("because it is defined in {v_path}"),
        ));
        return;
    };
    if let Some(n) = &v.not {
        nested_completeness(n, Some(s), s_path, &v_path.child("not"), errs, depth + 1);
    }
    for (i, n) in v.all_of.iter().enumerate() {
        nested_completeness(
            n,
            Some(s),
            s_path,
            &v_path.child("allOf").index(i),
            errs,
            depth + 1,
        );
    }
    for (i, n) in v.any_of.iter().enumerate() {
        nested_completeness(
            n,
            Some(s),
            s_path,
            &v_path.child("anyOf").index(i),
            errs,
            depth + 1,
        );
    }
    for (i, n) in v.one_of.iter().enumerate() {
        nested_completeness(
            n,
            Some(s),
            s_path,
            &v_path.child("oneOf").index(i),
            errs,
            depth + 1,
        );
    }
}

fn nested_completeness(
    v: &NestedValueValidation,
    s: Option<&Structural>,
    s_path: &FieldPath,
    v_path: &FieldPath,
    errs: &mut Vec<FieldError>,
    depth: usize,
) {
    if depth > MAX_DEPTH {
        return;
    }
    let Some(s) = s else {
        errs.push(FieldError::required(
            s_path.clone(),
            format!("because it is defined in {v_path}"),
        ));
        return;
    };
    vv_completeness(
        &v.value_validation,
        Some(s),
        s_path,
        v_path,
        errs,
        depth + 1,
    );
    if let Some(items) = &v.items {
        nested_completeness(
            items,
            s.items.as_deref(),
            &s_path.child("items"),
            &v_path.child("items"),
            errs,
            depth + 1,
        );
    }
    for (k, vf) in &v.properties {
        match s.property(k) {
            None => errs.push(FieldError::required(
                s_path.child("properties").key(k),
                format!(
                    "because it is defined in {}",
                    v_path.child("properties").key(k)
                ),
            )),
            Some(sf) => nested_completeness(
                vf,
                Some(sf),
                &s_path.child("properties").key(k),
                &v_path.child("properties").key(k),
                errs,
                depth + 1,
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{Node, Span};
    use serde_json::json;

    fn errors(v: serde_json::Value) -> Vec<String> {
        let n = Node::from_json(&v, Span::default());
        let (p, _) = crate::model::schema::decode(&n, &FieldPath::root("s"));
        let s = super::super::from_props(&p).unwrap();
        validate_structural(&FieldPath::root("s"), &s)
            .iter()
            .map(|e| e.to_string())
            .collect()
    }

    #[test]
    fn the_four_rules() {
        assert_eq!(
            errors(json!({"type": "object", "properties": {"a": {}}})),
            ["s.properties[a].type: Required value: must not be empty for specified object fields"]
        );
        assert_eq!(
            errors(
                json!({"type": "object", "properties": {"a": {"type": "string"}},
                "anyOf": [{"type": "string"}, {"properties": {"b": {}}}]})
            ),
            [
                "s.anyOf[0].type: Forbidden: must be empty to be structural",
                "s.properties[b]: Required value: because it is defined in s.anyOf[1].properties[b]",
            ]
        );
        assert_eq!(
            errors(
                json!({"type": "object", "properties": {"metadata": {"type": "object",
                "properties": {"labels": {"type": "object"}}}}})
            ),
            [
                "s.properties[metadata]: Forbidden: must not specify anything other than name and generateName, but metadata is implicitly specified"
            ]
        );
        assert!(
            errors(json!({"x-kubernetes-int-or-string": true,
            "anyOf": [{"type": "integer"}, {"type": "string"}]}))
            .is_empty()
        );
        assert_eq!(
            errors(json!({"type": "array"})),
            [
                "s.items: Required value: must be specified",
                "s.type: Invalid value: \"array\": must be object at the root",
            ]
        );
    }
}
