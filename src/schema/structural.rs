//! The structural schema (apiextensions `schema.Structural`): the schema with every
//! type specified and value validations separated from the structure. Pruning,
//! defaulting and CEL typing run on it.

use std::collections::BTreeMap;

use crate::model::schema::ValidationRule;
use crate::source::{Node, Span};

#[derive(Clone, Debug, Default)]
pub struct Structural {
    /// Where this node's schema is written (the schema mapping).
    pub span: Span,
    pub items: Option<Box<Structural>>,
    /// In source order.
    pub properties: Vec<(String, Structural)>,
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
    pub description: String,
    /// `""` when unspecified (allowed only with x-kubernetes-int-or-string or
    /// x-kubernetes-preserve-unknown-fields).
    pub type_: String,
    pub title: String,
    pub default: Option<Node>,
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
    pub additional_properties: Option<Box<NestedValueValidation>>,
    pub forbidden_generics: Generic,
    pub forbidden_extensions: Extensions,
}

impl Structural {
    pub fn property(&self, name: &str) -> Option<&Structural> {
        self.properties
            .iter()
            .find(|(k, _)| k == name)
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
