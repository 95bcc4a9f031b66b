//! `JSONSchemaProps` (apiextensions v1) as a typed, spanned value.
//!
//! This is the schema exactly as written in the CRD (after strict decoding). CRD
//! validation and OpenAPI value validation of custom resources work on it; pruning,
//! defaulting and CEL work on the [`crate::schema::structural::Structural`] derived
//! from it.

use std::collections::BTreeMap;

use crate::source::{Node, Span};

/// One JSON Schema node of an `openAPIV3Schema`.
#[derive(Clone, Debug, Default)]
pub struct SchemaProps {
    /// Span of the whole schema object (the mapping).
    pub span: Span,
    /// Every keyword present in the source, with the spans of its key and value, in
    /// source order. Use [`SchemaProps::key_span`] / [`SchemaProps::value_span`].
    pub keywords: Vec<Keyword>,

    pub id: Option<String>,
    pub schema: Option<String>,
    pub reference: Option<String>,
    pub description: Option<String>,
    pub type_: Option<String>,
    pub format: Option<String>,
    pub title: Option<String>,
    pub default: Option<Node>,
    pub maximum: Option<f64>,
    pub exclusive_maximum: bool,
    pub minimum: Option<f64>,
    pub exclusive_minimum: bool,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub pattern: Option<String>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub unique_items: bool,
    pub multiple_of: Option<f64>,
    pub enum_: Option<Vec<Node>>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub required: Option<Vec<String>>,
    pub items: Option<SchemaOrArray>,
    pub all_of: Option<Vec<SchemaProps>>,
    pub one_of: Option<Vec<SchemaProps>>,
    pub any_of: Option<Vec<SchemaProps>>,
    pub not: Option<Box<SchemaProps>>,
    /// In source order; keys are unique (the loader rejects duplicates).
    pub properties: Option<Vec<(String, SchemaProps)>>,
    pub additional_properties: Option<SchemaOrBool>,
    pub pattern_properties: Option<BTreeMap<String, SchemaProps>>,
    pub dependencies: Option<Node>,
    pub additional_items: Option<SchemaOrBool>,
    pub definitions: Option<BTreeMap<String, SchemaProps>>,
    pub external_docs: Option<Node>,
    pub example: Option<Node>,
    pub nullable: bool,
    pub x_preserve_unknown_fields: Option<bool>,
    pub x_embedded_resource: bool,
    pub x_int_or_string: bool,
    pub x_list_map_keys: Option<Vec<String>>,
    pub x_list_type: Option<String>,
    pub x_map_type: Option<String>,
    pub x_validations: Option<Vec<ValidationRule>>,
}

/// A keyword as written: `type: string` has key span over `type` and value span over
/// `string`.
#[derive(Clone, Debug)]
pub struct Keyword {
    pub name: String,
    pub key_span: Span,
    pub value_span: Span,
}

#[derive(Clone, Debug)]
pub enum SchemaOrArray {
    Schema(Box<SchemaProps>),
    /// `items: [ ... ]` — decodes, but the server rejects it in CRDs.
    Array(Vec<SchemaProps>),
}

#[derive(Clone, Debug)]
pub enum SchemaOrBool {
    Schema(Box<SchemaProps>),
    Bool(bool, Span),
}

/// One entry of `x-kubernetes-validations`.
#[derive(Clone, Debug, Default)]
pub struct ValidationRule {
    pub span: Span,
    pub rule: String,
    /// The rule's string node, so positions inside the rule map back to the file.
    pub rule_node: Option<Node>,
    pub message: Option<String>,
    pub message_span: Option<Span>,
    pub message_expression: Option<String>,
    pub message_expression_node: Option<Node>,
    pub reason: Option<String>,
    pub reason_span: Option<Span>,
    pub field_path: Option<String>,
    pub field_path_span: Option<Span>,
    pub optional_old_self: Option<bool>,
    pub optional_old_self_span: Option<Span>,
}

impl SchemaProps {
    pub fn keyword(&self, name: &str) -> Option<&Keyword> {
        self.keywords.iter().find(|k| k.name == name)
    }

    /// Span of the keyword's key, falling back to the schema's span.
    pub fn key_span(&self, name: &str) -> Span {
        self.keyword(name).map(|k| k.key_span).unwrap_or(self.span)
    }

    /// Span of the keyword's value, falling back to the schema's span.
    pub fn value_span(&self, name: &str) -> Span {
        self.keyword(name)
            .map(|k| k.value_span)
            .unwrap_or(self.span)
    }

    pub fn property(&self, name: &str) -> Option<&SchemaProps> {
        self.properties
            .as_ref()?
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v)
    }
}
