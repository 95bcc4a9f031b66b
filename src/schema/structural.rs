//! The structural schema (apiextensions `schema.Structural`): the schema with every
//! type specified and value validations separated from the structure. Pruning,
//! defaulting and CEL typing run on it.

use super::property_index::PropertyIndex;
use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::model::schema::{SchemaOrArray, SchemaOrBool, SchemaProps, ValidationRule};
use crate::source::{Node, Span};

#[derive(Clone, Debug, Default)]
pub struct Structural {
    /// Where this node's schema is written (the schema mapping).
    pub span: Span,
    pub items: Option<Box<Structural>>,
    /// In source order.
    pub properties: Vec<(String, Structural)>,
    /// Lookups by name in `properties` (built by [`from_props`]; a node built otherwise
    /// has none and is scanned).
    pub property_index: PropertyIndex,
    pub additional_properties: Option<StructuralOrBool>,
    pub generic: Generic,
    pub extensions: Extensions,
    pub x_validations: Vec<ValidationRule>,
    pub value_validation: Option<Box<ValueValidation>>,
}

#[derive(Clone, Debug)]
pub enum StructuralOrBool {
    Structural(Box<Structural>),
    Bool(bool),
}

#[derive(Clone, Debug, Default)]
pub struct Generic {
    /// Whether a description is written: the structural rules only forbid one in some
    /// places, and nothing reads its text (not copying it saves ~1/3 of a CRD's bytes
    /// per structural schema).
    pub has_description: bool,
    /// Whether an empty `required`, `x-kubernetes-list-map-keys` or
    /// `x-kubernetes-validations` list is written: Go decodes it into a non-nil empty
    /// slice, which the root `metadata` check (a `reflect.DeepEqual`) counts as a
    /// restriction, unlike an absent one.
    pub has_empty_list: bool,
    /// Whether `example` or `externalDocs` is written (not null); see
    /// `validate::Rules::docs_are_generic`.
    pub has_example_or_external_docs: bool,
    /// `""` when unspecified (allowed only with x-kubernetes-int-or-string or
    /// x-kubernetes-preserve-unknown-fields). Borrowed for the known names: one
    /// allocation less per schema node.
    pub type_: Cow<'static, str>,
    pub title: String,
    pub default: Option<Box<Node>>,
    pub nullable: bool,
}

#[derive(Clone, Debug, Default)]
pub struct Extensions {
    pub x_preserve_unknown_fields: bool,
    pub x_embedded_resource: bool,
    pub x_int_or_string: bool,
    pub x_list_map_keys: Vec<String>,
    pub x_list_type: Option<String>,
    pub x_map_type: Option<String>,
}

#[derive(Clone, Debug, Default)]
pub struct ValueValidation {
    pub format: String,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: String,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub multiple_of: Option<f64>,
    pub enum_: Vec<Node>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Vec<String>,
    pub all_of: Vec<NestedValueValidation>,
    pub one_of: Vec<NestedValueValidation>,
    pub any_of: Vec<NestedValueValidation>,
    pub not: Option<Box<NestedValueValidation>>,
}

/// Value validation inside a logical junctor (allOf/anyOf/oneOf/not), where structure
/// (types, descriptions, most extensions) is forbidden.
#[derive(Clone, Debug, Default)]
pub struct NestedValueValidation {
    pub span: Span,
    pub value_validation: ValueValidation,
    pub x_validations: Vec<ValidationRule>,
    pub items: Option<Box<NestedValueValidation>>,
    pub properties: BTreeMap<String, NestedValueValidation>,
    /// Whether an empty `properties` mapping is written: Go keeps it as a non-nil
    /// empty map here (unlike in [`Structural`], which keeps only non-empty ones), so
    /// the int-or-string `anyOf` comparison (a `reflect.DeepEqual`) fails on it.
    pub has_empty_properties: bool,
    pub additional_properties: Option<Box<NestedValueValidation>>,
    /// `additionalProperties` written as a boolean: the server's conversion keeps
    /// `true` as an empty nested validation and drops `false`, but the validator of
    /// resources, which reads the schema as written, tells them from a schema.
    pub additional_properties_bool: Option<bool>,
    pub forbidden_generics: Generic,
    pub forbidden_extensions: Extensions,
}

impl ValueValidation {
    /// Nothing is validated: what an absent `value_validation` means.
    pub fn is_empty(&self) -> bool {
        self.format.is_empty()
            && self.maximum.is_none()
            && !self.exclusive_maximum
            && self.minimum.is_none()
            && !self.exclusive_minimum
            && self.max_length.is_none()
            && self.min_length.is_none()
            && self.pattern.is_empty()
            && self.max_items.is_none()
            && self.min_items.is_none()
            && !self.unique_items
            && self.multiple_of.is_none()
            && self.enum_.is_empty()
            && self.max_properties.is_none()
            && self.min_properties.is_none()
            && self.required.is_empty()
            && self.all_of.is_empty()
            && self.one_of.is_empty()
            && self.any_of.is_empty()
            && self.not.is_none()
    }
}

impl Structural {
    pub fn property(&self, name: &str) -> Option<&Structural> {
        self.property_index
            .find(&self.properties, name)
            .map(|(_, v)| v)
    }

    /// The schema of map values, when `additionalProperties` is a schema.
    pub fn additional_properties_schema(&self) -> Option<&Structural> {
        match &self.additional_properties {
            Some(StructuralOrBool::Structural(s)) => Some(s),
            _ => None,
        }
    }
}

/// Why a schema cannot become a [`Structural`] (NewStructural's errors). CRD validation
/// reports these conditions as field errors first, so a validated CRD never hits them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StructuralError {
    pub message: String,
    pub span: Span,
}

impl std::fmt::Display for StructuralError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StructuralError {}

fn err(message: impl Into<String>, span: Span) -> StructuralError {
    StructuralError {
        message: message.into(),
        span,
    }
}

/// Converts a decoded schema into its structural form (the server's `NewStructural`):
/// value validations go into [`ValueValidation`], logical junctors become
/// [`NestedValueValidation`]s, and unsupported keywords are errors.
pub fn from_props(props: &SchemaProps) -> Result<Structural, StructuralError> {
    from_props_depth(props, 0)
}

const MAX_DEPTH: usize = 1000;

fn from_props_depth(s: &SchemaProps, depth: usize) -> Result<Structural, StructuralError> {
    let mut out = Structural::default();
    from_props_into(s, depth, &mut out)?;
    Ok(out)
}

/// [`from_props_depth`] into a default `out` where it stands: a `Structural` is 248
/// bytes, and the properties of a schema are filled in their list instead of being
/// built, returned and moved in.
fn from_props_into(
    s: &SchemaProps,
    depth: usize,
    out: &mut Structural,
) -> Result<(), StructuralError> {
    if depth > MAX_DEPTH {
        return Err(err("schema nesting is too deep", s.span));
    }
    check_unsupported(s)?;
    // Most schema nodes have no value validation: `None` keeps them 328 bytes smaller
    // (a used CRD's structural schemas live for the whole run), and they skip building
    // an empty one.
    if writes_value_validation(s) {
        let value_validation = value_validation(s, depth)?;
        out.value_validation = (!value_validation.is_empty()).then(|| Box::new(value_validation));
    } else {
        // Every test build checks the shortcut against the full conversion.
        debug_assert!(value_validation(s, depth).is_ok_and(|v| v.is_empty()));
    }
    out.span = s.span;
    out.generic = generic(s);
    out.extensions = extensions(s)?;
    out.x_validations = s.x_validations.clone().unwrap_or_default();
    match &s.items {
        Some(SchemaOrArray::Array(list)) if !list.is_empty() => {
            return Err(err(
                "OpenAPIV3Schema 'items' must be a schema, but is an array",
                s.value_span("items"),
            ));
        }
        Some(SchemaOrArray::Schema(item)) => {
            out.items = Some(Box::new(from_props_depth(item, depth + 1)?));
        }
        _ => {}
    }
    if let Some(props) = &s.properties {
        out.properties.reserve_exact(props.len());
        for (name, p) in props {
            out.properties.push((name.clone(), Structural::default()));
            let Some((_, slot)) = out.properties.last_mut() else {
                break;
            };
            from_props_into(p, depth + 1, slot)?;
        }
        out.property_index = PropertyIndex::new(&out.properties);
    }
    match &s.additional_properties {
        Some(SchemaOrBool::Schema(p)) => {
            out.additional_properties = Some(StructuralOrBool::Structural(Box::new(
                from_props_depth(p, depth + 1)?,
            )));
        }
        Some(SchemaOrBool::Bool(b, _)) => {
            out.additional_properties = Some(StructuralOrBool::Bool(*b));
        }
        None => {}
    }
    Ok(())
}

/// Whether `s` writes a value validation [`value_validation`] would not find empty
/// (and so might fail on): the same fields, tested on the schema as written.
fn writes_value_validation(s: &SchemaProps) -> bool {
    let text = |v: &Option<String>| v.as_deref().is_some_and(|t| !t.is_empty());
    let list = |v: &Option<Vec<SchemaProps>>| v.as_ref().is_some_and(|l| !l.is_empty());
    text(&s.format)
        || s.rare().maximum.is_some()
        || s.exclusive_maximum
        || s.rare().minimum.is_some()
        || s.exclusive_minimum
        || s.rare().max_length.is_some()
        || s.rare().min_length.is_some()
        || text(&s.pattern)
        || s.rare().max_items.is_some()
        || s.rare().min_items.is_some()
        || s.unique_items
        || s.rare().multiple_of.is_some()
        || s.enum_.as_ref().is_some_and(|e| !e.is_empty())
        || s.rare().max_properties.is_some()
        || s.rare().min_properties.is_some()
        || s.required.as_ref().is_some_and(|r| !r.is_empty())
        || list(&s.rare().all_of)
        || list(&s.rare().one_of)
        || list(&s.rare().any_of)
        || s.rare().not.is_some()
}

fn check_unsupported(s: &SchemaProps) -> Result<(), StructuralError> {
    let nonempty = |o: &Option<String>| o.as_deref().is_some_and(|v| !v.is_empty());
    if nonempty(&s.rare().id) {
        return Err(err(
            "OpenAPIV3Schema 'id' is not supported",
            s.key_span("id"),
        ));
    }
    if nonempty(&s.rare().schema) {
        return Err(err(
            "OpenAPIV3Schema 'schema' is not supported",
            s.key_span("$schema"),
        ));
    }
    if nonempty(&s.rare().reference) {
        return Err(err(
            "OpenAPIV3Schema '$ref' is not supported",
            s.key_span("$ref"),
        ));
    }
    if s.rare()
        .pattern_properties
        .as_ref()
        .is_some_and(|m| !m.is_empty())
    {
        return Err(err(
            "OpenAPIV3Schema 'patternProperties' is not supported",
            s.key_span("patternProperties"),
        ));
    }
    if s.rare()
        .dependencies
        .as_ref()
        .and_then(|d| d.as_object())
        .is_some_and(|m| !m.is_empty())
    {
        return Err(err(
            "OpenAPIV3Schema 'dependencies' is not supported",
            s.key_span("dependencies"),
        ));
    }
    if s.rare().additional_items.is_some() {
        return Err(err(
            "OpenAPIV3Schema 'additionalItems' is not supported",
            s.key_span("additionalItems"),
        ));
    }
    if s.rare().definitions.as_ref().is_some_and(|m| !m.is_empty()) {
        return Err(err(
            "OpenAPIV3Schema 'definitions' is not supported",
            s.key_span("definitions"),
        ));
    }
    Ok(())
}

fn generic(s: &SchemaProps) -> Generic {
    Generic {
        has_description: s.description.as_deref().is_some_and(|d| !d.is_empty()),
        has_empty_list: s.required.as_ref().is_some_and(Vec::is_empty)
            || s.x_list_map_keys.as_ref().is_some_and(Vec::is_empty)
            || s.x_validations.as_ref().is_some_and(Vec::is_empty),
        has_example_or_external_docs: s.rare().example.is_some()
            || s.rare().external_docs.is_some(),
        type_: s.type_.clone().unwrap_or_default(),
        title: s.rare().title.clone().unwrap_or_default(),
        default: s.default.clone(),
        nullable: s.nullable,
    }
}

fn extensions(s: &SchemaProps) -> Result<Extensions, StructuralError> {
    if s.x_preserve_unknown_fields == Some(false) {
        return Err(err(
            "internal error: 'x-kubernetes-preserve-unknown-fields' must be true or undefined",
            s.value_span("x-kubernetes-preserve-unknown-fields"),
        ));
    }
    Ok(Extensions {
        x_preserve_unknown_fields: s.x_preserve_unknown_fields == Some(true),
        x_embedded_resource: s.x_embedded_resource,
        x_int_or_string: s.x_int_or_string,
        x_list_map_keys: s.x_list_map_keys.clone().unwrap_or_default(),
        x_list_type: s.x_list_type.clone(),
        x_map_type: s.x_map_type.clone(),
    })
}

fn value_validation(s: &SchemaProps, depth: usize) -> Result<ValueValidation, StructuralError> {
    let nested_list =
        |list: &Option<Vec<SchemaProps>>| -> Result<Vec<NestedValueValidation>, StructuralError> {
            list.iter()
                .flatten()
                .map(|x| nested(x, depth + 1))
                .collect()
        };
    Ok(ValueValidation {
        format: s.format.clone().unwrap_or_default(),
        maximum: s.rare().maximum,
        exclusive_maximum: s.exclusive_maximum,
        minimum: s.rare().minimum,
        exclusive_minimum: s.exclusive_minimum,
        max_length: s.rare().max_length,
        min_length: s.rare().min_length,
        pattern: s.pattern.clone().unwrap_or_default(),
        max_items: s.rare().max_items,
        min_items: s.rare().min_items,
        unique_items: s.unique_items,
        multiple_of: s.rare().multiple_of,
        enum_: s.enum_.clone().unwrap_or_default(),
        max_properties: s.rare().max_properties,
        min_properties: s.rare().min_properties,
        required: s.required.clone().unwrap_or_default(),
        all_of: nested_list(&s.rare().all_of)?,
        one_of: nested_list(&s.rare().one_of)?,
        any_of: nested_list(&s.rare().any_of)?,
        not: match &s.rare().not {
            Some(n) => Some(Box::new(nested(n, depth + 1)?)),
            None => None,
        },
    })
}

fn nested(s: &SchemaProps, depth: usize) -> Result<NestedValueValidation, StructuralError> {
    if depth > MAX_DEPTH {
        return Err(err("schema nesting is too deep", s.span));
    }
    check_unsupported(s)?;
    let mut out = NestedValueValidation {
        span: s.span,
        value_validation: value_validation(s, depth)?,
        x_validations: s.x_validations.clone().unwrap_or_default(),
        items: None,
        properties: BTreeMap::new(),
        has_empty_properties: s.properties.as_ref().is_some_and(Vec::is_empty),
        additional_properties: None,
        additional_properties_bool: None,
        forbidden_generics: generic(s),
        forbidden_extensions: extensions(s)?,
    };
    match &s.items {
        Some(SchemaOrArray::Array(list)) if !list.is_empty() => {
            return Err(err(
                "OpenAPIV3Schema 'items' must be a schema, but is an array",
                s.value_span("items"),
            ));
        }
        Some(SchemaOrArray::Schema(item)) => {
            out.items = Some(Box::new(nested(item, depth + 1)?));
        }
        _ => {}
    }
    if let Some(props) = &s.properties {
        for (name, p) in props {
            out.properties.insert(name.clone(), nested(p, depth + 1)?);
        }
    }
    match &s.additional_properties {
        Some(SchemaOrBool::Schema(p)) => {
            out.additional_properties = Some(Box::new(nested(p, depth + 1)?));
        }
        Some(SchemaOrBool::Bool(allows, _)) => {
            out.additional_properties_bool = Some(*allows);
            if *allows {
                out.additional_properties = Some(Box::default());
            }
        }
        None => {}
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props(v: serde_json::Value) -> SchemaProps {
        crate::model::schema::from_json(&v)
    }

    #[test]
    fn converts_structure_and_value_validation() {
        let p = props(json!({
            "type": "object",
            "required": ["a"],
            "properties": {
                "a": {"type": "string", "maxLength": 3, "default": "x"},
                "b": {"type": "array", "items": {"type": "integer"}}
            },
            "anyOf": [{"required": ["b"]}],
            "x-kubernetes-preserve-unknown-fields": true
        }));
        let s = from_props(&p).unwrap();
        assert_eq!(s.generic.type_, "object");
        assert!(s.extensions.x_preserve_unknown_fields);
        let vv = s.value_validation.as_ref().unwrap();
        assert_eq!(vv.required, ["a"]);
        assert_eq!(vv.any_of.len(), 1);
        let a = s.property("a").unwrap();
        assert_eq!(a.value_validation.as_ref().unwrap().max_length, Some(3));
        assert!(a.generic.default.is_some());
        let b = s.property("b").unwrap();
        assert_eq!(b.items.as_ref().unwrap().generic.type_, "integer");
    }

    #[test]
    fn rejects_unsupported_keywords() {
        let e = from_props(&props(json!({"$ref": "#/x"}))).unwrap_err();
        assert_eq!(e.message, "OpenAPIV3Schema '$ref' is not supported");
        let e = from_props(&props(json!({"items": [{"type": "string"}]}))).unwrap_err();
        assert_eq!(
            e.message,
            "OpenAPIV3Schema 'items' must be a schema, but is an array"
        );
        let e = from_props(&props(
            json!({"x-kubernetes-preserve-unknown-fields": false}),
        ))
        .unwrap_err();
        assert!(e.message.contains("must be true or undefined"));
    }
}

pub mod sink;
pub mod validate;
pub use validate::{validate_structural, validate_structural_at};
