//! `JSONSchemaProps` (apiextensions v1) as a typed, spanned value.
//!
//! This is the schema exactly as written in the CRD (after strict decoding). CRD
//! validation and OpenAPI value validation of custom resources work on it; pruning,
//! defaulting and CEL work on the [`crate::schema::structural::Structural`] derived
//! from it.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::diag::{Diagnostic, FieldPath};
use crate::model::decode::{At, Decoder};
use crate::source::{Node, Span, Value};

/// One JSON Schema node of an `openAPIV3Schema`.
///
/// Kept small for the walks over the ~140,000 nodes of a large set of CRDs: the
/// keywords CRDs seldom write live in a box ([`RareKeywords`]), and `repr(C)` keeps
/// the fields in the order written here, so that what every walk reads (the
/// subschemas, the type, the flags) shares the first cache lines.
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct SchemaProps {
    pub items: Option<SchemaOrArray>,
    /// In source order; keys are unique (the loader rejects duplicates).
    pub properties: Option<Vec<(String, SchemaProps)>>,
    pub additional_properties: Option<SchemaOrBool>,
    /// The keywords CRDs seldom write; read them through [`SchemaProps::rare`].
    pub rare: Option<Box<RareKeywords>>,
    /// The standard type names are borrowed: one allocation less per schema node.
    pub type_: Option<Cow<'static, str>>,
    /// Span of the whole schema object (the mapping).
    pub span: Span,
    pub nullable: bool,
    pub x_preserve_unknown_fields: Option<bool>,
    pub x_embedded_resource: bool,
    pub x_int_or_string: bool,
    pub exclusive_maximum: bool,
    pub exclusive_minimum: bool,
    pub unique_items: bool,
    pub default: Option<Box<Node>>,
    pub x_validations: Option<Vec<ValidationRule>>,
    pub x_list_type: Option<String>,
    pub x_map_type: Option<String>,
    pub x_list_map_keys: Option<Vec<String>>,
    pub format: Option<String>,
    pub enum_: Option<Vec<Node>>,
    pub required: Option<Vec<String>>,
    pub pattern: Option<String>,
    /// Every keyword present in the source, with the spans of its key and value, in
    /// source order. Use [`SchemaProps::key_span`] / [`SchemaProps::value_span`].
    pub keywords: Vec<Keyword>,
    pub description: Option<String>,
}

/// The keywords of a schema that CRDs seldom write (numeric limits, junctors, JSON
/// Schema's references and documentation), boxed so that the common node stays small:
/// the schema walks over the ~140,000 nodes of the corpus touch fewer cache lines and
/// pages. Absent on a node that writes none of them.
#[derive(Clone, Debug, Default)]
pub struct RareKeywords {
    pub all_of: Option<Vec<SchemaProps>>,
    pub one_of: Option<Vec<SchemaProps>>,
    pub any_of: Option<Vec<SchemaProps>>,
    pub not: Option<Box<SchemaProps>>,
    pub maximum: Option<f64>,
    pub minimum: Option<f64>,
    pub multiple_of: Option<f64>,
    pub max_length: Option<i64>,
    pub min_length: Option<i64>,
    pub max_items: Option<i64>,
    pub min_items: Option<i64>,
    pub max_properties: Option<i64>,
    pub min_properties: Option<i64>,
    pub pattern_properties: Option<BTreeMap<String, SchemaProps>>,
    pub additional_items: Option<SchemaOrBool>,
    pub definitions: Option<BTreeMap<String, SchemaProps>>,
    pub dependencies: Option<Box<Node>>,
    pub id: Option<String>,
    pub schema: Option<String>,
    pub reference: Option<String>,
    pub title: Option<String>,
    pub external_docs: Option<Box<Node>>,
    pub example: Option<Box<Node>>,
}

/// What [`SchemaProps::rare`] reads on a node without rare keywords.
static NO_RARE_KEYWORDS: RareKeywords = RareKeywords {
    all_of: None,
    one_of: None,
    any_of: None,
    not: None,
    maximum: None,
    minimum: None,
    multiple_of: None,
    max_length: None,
    min_length: None,
    max_items: None,
    min_items: None,
    max_properties: None,
    min_properties: None,
    pattern_properties: None,
    additional_items: None,
    definitions: None,
    dependencies: None,
    id: None,
    schema: None,
    reference: None,
    title: None,
    external_docs: None,
    example: None,
};

/// A keyword as written: `type: string` has key span over `type` and value span over
/// `string`.
#[derive(Clone, Debug)]
pub struct Keyword {
    pub name: &'static str,
    pub key_span: Span,
    pub value_span: Span,
}

#[derive(Clone, Debug)]
pub enum SchemaOrArray {
    Schema(Box<SchemaProps>),
    /// `items: [ ... ]` — decodes, but the server rejects it in CRDs.
    Array(Vec<SchemaProps>),
    /// `items: false` (or any other scalar): Go's unmarshaler leaves both the schema
    /// and the list nil, but the field is set.
    Neither,
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
    /// The seldom written keywords (all absent when the node writes none).
    pub fn rare(&self) -> &RareKeywords {
        self.rare.as_deref().unwrap_or(&NO_RARE_KEYWORDS)
    }

    /// The seldom written keywords, to set one.
    pub fn rare_mut(&mut self) -> &mut RareKeywords {
        self.rare.get_or_insert_with(Box::default)
    }

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

    /// [`SchemaProps::property`] for a caller visiting names in this list's order,
    /// perhaps skipping some (a structural schema's properties): the search starts at
    /// `*next` and wraps around, and `*next` moves past the entry found. Looking each
    /// up from the start made a walk over 60,000 defaulted properties take 3.5 s.
    pub fn property_in_order(&self, name: &str, next: &mut usize) -> Option<&SchemaProps> {
        let properties = self.properties.as_ref()?;
        let start = (*next).min(properties.len());
        let (before, after) = properties.split_at(start);
        let at = match after.iter().position(|(k, _)| k == name) {
            Some(i) => start + i,
            None => before.iter().position(|(k, _)| k == name)?,
        };
        *next = at + 1;
        Some(&properties[at].1)
    }
}

/// A schema's `type`, borrowed when it is one of the standard names.
pub fn type_name(written: &str) -> Cow<'static, str> {
    match written {
        "" => Cow::Borrowed(""),
        "object" => Cow::Borrowed("object"),
        "array" => Cow::Borrowed("array"),
        "string" => Cow::Borrowed("string"),
        "integer" => Cow::Borrowed("integer"),
        "number" => Cow::Borrowed("number"),
        "boolean" => Cow::Borrowed("boolean"),
        other => Cow::Owned(other.to_string()),
    }
}

/// The JSON keys of `JSONSchemaProps` (apiextensions v1), in declaration order: the
/// keys [`decode_into`] knows (a test holds them equal).
pub const KEYWORDS: &[&str] = &[
    "id",
    "$schema",
    "$ref",
    "description",
    "type",
    "format",
    "title",
    "default",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "multipleOf",
    "enum",
    "maxProperties",
    "minProperties",
    "required",
    "items",
    "allOf",
    "oneOf",
    "anyOf",
    "not",
    "properties",
    "additionalProperties",
    "patternProperties",
    "dependencies",
    "additionalItems",
    "definitions",
    "externalDocs",
    "example",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];

const VALIDATION_RULE_KEYS: &[&str] = &[
    "rule",
    "message",
    "messageExpression",
    "reason",
    "fieldPath",
    "optionalOldSelf",
];

const JSP: &str = "JSONSchemaProps";

/// Decodes one `JSONSchemaProps` standing at `path` (e.g.
/// `spec.versions[0].schema.openAPIV3Schema`) strictly, as the API server decodes a CRD.
/// The diagnostics are the server's decoding errors (`crd-wrong-type`,
/// `crd-unknown-field`); the returned props hold whatever decoded.
pub fn decode(node: &Node, path: &FieldPath) -> (SchemaProps, Vec<Diagnostic>) {
    let mut dec = Decoder::new(crate::model::crd::DECODE_PREFIX);
    let at = At::at_path(path, "CustomResourceValidation");
    let props = decode_with(&mut dec, node, &at).unwrap_or_default();
    (props, dec.finish())
}

/// A schema written as JSON, decoded; for tests, which expect it to be valid.
#[cfg(test)]
pub(crate) fn from_json(v: &serde_json::Value) -> SchemaProps {
    let node = Node::from_json(v, Span::default());
    let (p, diags) = decode(&node, &FieldPath::root("s"));
    assert!(diags.is_empty(), "{diags:?}");
    p
}

/// Decodes a `JSONSchemaProps` value (an object; anything else is a type error of the
/// enclosing field, reported by the caller's decoder).
pub(crate) fn decode_with(dec: &mut Decoder, node: &Node, at: &At) -> Option<SchemaProps> {
    let mut p = SchemaProps::default();
    decode_into(dec, node, at, &mut p).then_some(p)
}

/// [`decode_with`] into a default `p` where it stands (a schema is ~370 bytes: the
/// lists of subschemas are filled in place instead of moving each one into them);
/// `false`, with `p` untouched, when `node` is not an object.
fn decode_into(dec: &mut Decoder, node: &Node, at: &At, p: &mut SchemaProps) -> bool {
    // One pass over the keys, as Go's decoder makes: each arm decodes its keyword and
    // names it ('static, so the keyword list borrows nothing); any other key is an
    // unknown field.
    let Some(entries) = dec.map(node, at, "v1.JSONSchemaProps") else {
        return false;
    };
    p.span = node.span;
    // A rare keyword set only when present: a node that writes none has no box.
    macro_rules! set_rare {
        ($field:ident, $value:expr) => {{
            let value = $value;
            if value.is_some() {
                p.rare_mut().$field = value;
            }
        }};
    }
    p.keywords = Vec::with_capacity(entries.len());
    for e in entries {
        let v = &e.value;
        let fat = at.field(JSP, &e.key);
        let name: &'static str = match e.key.as_str() {
            "id" => {
                set_rare!(id, dec.string(v, &fat, "string"));
                "id"
            }
            "$schema" => {
                set_rare!(schema, dec.string(v, &fat, "v1.JSONSchemaURL"));
                "$schema"
            }
            "$ref" => {
                set_rare!(reference, dec.string(v, &fat, "string"));
                "$ref"
            }
            "description" => {
                p.description = dec.string(v, &fat, "string");
                "description"
            }
            "type" => {
                p.type_ = dec.str(v, &fat, "string").map(type_name);
                "type"
            }
            "format" => {
                p.format = dec.string(v, &fat, "string");
                "format"
            }
            "title" => {
                set_rare!(title, dec.string(v, &fat, "string"));
                "title"
            }
            "default" => {
                p.default = raw(v).map(Box::new);
                "default"
            }
            "maximum" => {
                set_rare!(maximum, dec.float(v, &fat));
                "maximum"
            }
            "exclusiveMaximum" => {
                p.exclusive_maximum = dec.boolean(v, &fat).unwrap_or(false);
                "exclusiveMaximum"
            }
            "minimum" => {
                set_rare!(minimum, dec.float(v, &fat));
                "minimum"
            }
            "exclusiveMinimum" => {
                p.exclusive_minimum = dec.boolean(v, &fat).unwrap_or(false);
                "exclusiveMinimum"
            }
            "maxLength" => {
                set_rare!(max_length, dec.int(v, &fat, "int64"));
                "maxLength"
            }
            "minLength" => {
                set_rare!(min_length, dec.int(v, &fat, "int64"));
                "minLength"
            }
            "pattern" => {
                p.pattern = dec.string(v, &fat, "string");
                "pattern"
            }
            "maxItems" => {
                set_rare!(max_items, dec.int(v, &fat, "int64"));
                "maxItems"
            }
            "minItems" => {
                set_rare!(min_items, dec.int(v, &fat, "int64"));
                "minItems"
            }
            "uniqueItems" => {
                p.unique_items = dec.boolean(v, &fat).unwrap_or(false);
                "uniqueItems"
            }
            "multipleOf" => {
                set_rare!(multiple_of, dec.float(v, &fat));
                "multipleOf"
            }
            "enum" => {
                p.enum_ = dec.array(v, &fat, "[]v1.JSON").map(|items| items.to_vec());
                "enum"
            }
            "maxProperties" => {
                set_rare!(max_properties, dec.int(v, &fat, "int64"));
                "maxProperties"
            }
            "minProperties" => {
                set_rare!(min_properties, dec.int(v, &fat, "int64"));
                "minProperties"
            }
            "required" => {
                p.required = dec
                    .strings(v, &fat, "[]string")
                    .map(|items| items.into_iter().map(|f| f.value).collect());
                "required"
            }
            "items" => {
                p.items = decode_items(dec, v, &fat);
                "items"
            }
            "allOf" => {
                set_rare!(all_of, decode_list(dec, v, &fat));
                "allOf"
            }
            "oneOf" => {
                set_rare!(one_of, decode_list(dec, v, &fat));
                "oneOf"
            }
            "anyOf" => {
                set_rare!(any_of, decode_list(dec, v, &fat));
                "anyOf"
            }
            "not" => {
                set_rare!(not, decode_with(dec, v, &fat).map(Box::new));
                "not"
            }
            "properties" => {
                p.properties = decode_map(dec, v, &fat, "map[string]v1.JSONSchemaProps");
                "properties"
            }
            "additionalProperties" => {
                p.additional_properties = decode_or_bool(dec, v, &fat);
                "additionalProperties"
            }
            "patternProperties" => {
                set_rare!(
                    pattern_properties,
                    decode_map(dec, v, &fat, "map[string]v1.JSONSchemaProps")
                        .map(|m| m.into_iter().collect())
                );
                "patternProperties"
            }
            "dependencies" => {
                decode_dependencies(dec, v, &fat);
                set_rare!(dependencies, raw(v).map(Box::new));
                "dependencies"
            }
            "additionalItems" => {
                set_rare!(additional_items, decode_or_bool(dec, v, &fat));
                "additionalItems"
            }
            "definitions" => {
                set_rare!(
                    definitions,
                    decode_map(dec, v, &fat, "v1.JSONSchemaDefinitions")
                        .map(|m| m.into_iter().collect())
                );
                "definitions"
            }
            "externalDocs" => {
                if let Some(entries) =
                    dec.object(v, &fat, "v1.ExternalDocumentation", &["description", "url"])
                {
                    for e in entries {
                        let at = fat.field("ExternalDocumentation", &e.key);
                        dec.string(&e.value, &at, "string");
                    }
                    set_rare!(external_docs, Some(Box::new(v.clone())));
                }
                "externalDocs"
            }
            "example" => {
                set_rare!(example, raw(v).map(Box::new));
                "example"
            }
            "nullable" => {
                p.nullable = dec.boolean(v, &fat).unwrap_or(false);
                "nullable"
            }
            "x-kubernetes-preserve-unknown-fields" => {
                p.x_preserve_unknown_fields = dec.boolean(v, &fat);
                "x-kubernetes-preserve-unknown-fields"
            }
            "x-kubernetes-embedded-resource" => {
                p.x_embedded_resource = dec.boolean(v, &fat).unwrap_or(false);
                "x-kubernetes-embedded-resource"
            }
            "x-kubernetes-int-or-string" => {
                p.x_int_or_string = dec.boolean(v, &fat).unwrap_or(false);
                "x-kubernetes-int-or-string"
            }
            "x-kubernetes-list-map-keys" => {
                p.x_list_map_keys = dec
                    .strings(v, &fat, "[]string")
                    .map(|items| items.into_iter().map(|f| f.value).collect());
                "x-kubernetes-list-map-keys"
            }
            "x-kubernetes-list-type" => {
                p.x_list_type = dec.string(v, &fat, "string");
                "x-kubernetes-list-type"
            }
            "x-kubernetes-map-type" => {
                p.x_map_type = dec.string(v, &fat, "string");
                "x-kubernetes-map-type"
            }
            "x-kubernetes-validations" => {
                p.x_validations = decode_rules(dec, v, &fat);
                "x-kubernetes-validations"
            }
            _ => {
                dec.unknown_field(at, &e.key, e.key_span);
                continue;
            }
        };
        p.keywords.push(Keyword {
            name,
            key_span: e.key_span,
            value_span: v.span,
        });
    }
    true
}

/// `JSON` fields take any value; `null` means absent.
fn raw(v: &Node) -> Option<Node> {
    (!v.is_null()).then(|| v.clone())
}

fn decode_list(dec: &mut Decoder, v: &Node, at: &At) -> Option<Vec<SchemaProps>> {
    let items = dec.array(v, at, "[]v1.JSONSchemaProps")?;
    let mut out: Vec<SchemaProps> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = at.index(i);
        out.push(SchemaProps::default());
        let Some(slot) = out.last_mut() else { break };
        if item.is_null() {
            slot.span = item.span;
        } else if !decode_into(dec, item, &at, slot) {
            out.pop();
        }
    }
    Some(out)
}

fn decode_map(
    dec: &mut Decoder,
    v: &Node,
    at: &At,
    go_type: &str,
) -> Option<Vec<(String, SchemaProps)>> {
    let entries = dec.map(v, at, go_type)?;
    let mut out: Vec<(String, SchemaProps)> = Vec::with_capacity(entries.len());
    for e in entries {
        let at = at.key(&e.key);
        out.push((e.key.clone(), SchemaProps::default()));
        let Some((_, slot)) = out.last_mut() else {
            break;
        };
        if e.value.is_null() {
            slot.span = e.value.span;
        } else if !decode_into(dec, &e.value, &at, slot) {
            out.pop();
        }
    }
    Some(out)
}

/// `JSONSchemaPropsOrArray`: an object is a schema, an array a list of schemas, both
/// decoded leniently; anything else is silently ignored, as the server's unmarshaler
/// does.
fn decode_items(dec: &mut Decoder, v: &Node, at: &At) -> Option<SchemaOrArray> {
    match &v.value {
        Value::Object(_) => {
            let inner = dec.enter_lenient(at);
            let mut p = Box::<SchemaProps>::default();
            let decoded = decode_into(dec, v, &inner, &mut p);
            dec.exit_lenient();
            decoded.then_some(SchemaOrArray::Schema(p))
        }
        Value::Array(_) => {
            let inner = dec.enter_lenient(at);
            let list = decode_list(dec, v, &inner);
            dec.exit_lenient();
            list.map(SchemaOrArray::Array)
        }
        Value::Null => None,
        _ => Some(SchemaOrArray::Neither),
    }
}

/// `JSONSchemaPropsOrBool`: a schema (decoded leniently), `true` or `false`; any other
/// value fails the whole decoding.
fn decode_or_bool(dec: &mut Decoder, v: &Node, at: &At) -> Option<SchemaOrBool> {
    match &v.value {
        Value::Null => None,
        Value::Bool(b) => Some(SchemaOrBool::Bool(*b, v.span)),
        Value::Object(_) => {
            let inner = dec.enter_lenient(at);
            let mut p = Box::<SchemaProps>::default();
            let decoded = decode_into(dec, v, &inner, &mut p);
            dec.exit_lenient();
            decoded.then_some(SchemaOrBool::Schema(p))
        }
        _ => {
            dec.fatal_message(at, v.span, "boolean or JSON schema expected");
            None
        }
    }
}

/// `JSONSchemaDependencies`: a map of schemas or string lists, decoded leniently.
fn decode_dependencies(dec: &mut Decoder, v: &Node, at: &At) {
    let Some(entries) = dec.map(v, at, "v1.JSONSchemaDependencies") else {
        return;
    };
    for e in entries {
        let at = at.key(&e.key);
        match &e.value.value {
            Value::Object(_) => {
                let inner = dec.enter_lenient(&at);
                decode_with(dec, &e.value, &inner);
                dec.exit_lenient();
            }
            Value::Array(_) => {
                let inner = dec.enter_lenient(&at);
                dec.strings(&e.value, &inner, "[]string");
                dec.exit_lenient();
            }
            _ => {}
        }
    }
}

fn decode_rules(dec: &mut Decoder, v: &Node, at: &At) -> Option<Vec<ValidationRule>> {
    let items = dec.array(v, at, "v1.ValidationRules")?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let at = at.index(i);
        let mut rule = ValidationRule {
            span: item.span,
            ..ValidationRule::default()
        };
        if item.is_null() {
            out.push(rule);
            continue;
        }
        let Some(entries) = dec.object(item, &at, "v1.ValidationRule", VALIDATION_RULE_KEYS) else {
            continue;
        };
        for e in entries {
            let fat = at.field("ValidationRule", &e.key);
            let v = &e.value;
            match e.key.as_str() {
                "rule" => {
                    if let Some(s) = dec.string(v, &fat, "string") {
                        rule.rule = s;
                        rule.rule_node = Some(v.clone());
                    }
                }
                "message" => {
                    rule.message = dec.string(v, &fat, "string");
                    rule.message_span = Some(v.span);
                }
                "messageExpression" => {
                    rule.message_expression = dec.string(v, &fat, "string");
                    if rule.message_expression.is_some() {
                        rule.message_expression_node = Some(v.clone());
                    }
                }
                "reason" => {
                    rule.reason = dec.string(v, &fat, "v1.FieldValueErrorReason");
                    rule.reason_span = Some(v.span);
                }
                "fieldPath" => {
                    rule.field_path = dec.string(v, &fat, "string");
                    rule.field_path_span = Some(v.span);
                }
                "optionalOldSelf" => {
                    rule.optional_old_self = dec.boolean(v, &fat);
                    rule.optional_old_self_span = Some(v.span);
                }
                _ => {}
            }
        }
        out.push(rule);
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_is_decoded_and_no_other() {
        let mut text: String = KEYWORDS
            .iter()
            .map(|k| format!("\"{k}\": null\n"))
            .collect();
        text.push_str("unknownKeyword: 1\n");
        let parsed = crate::source::yaml::parse(&text, &Default::default());
        let root = &parsed.documents[0].root;
        let (props, diagnostics) = decode(root, &FieldPath::root("schema"));
        let names: Vec<&str> = props.keywords.iter().map(|k| k.name).collect();
        assert_eq!(names, KEYWORDS);
        let unknown: Vec<String> = diagnostics.iter().map(|d| d.message.clone()).collect();
        assert_eq!(
            unknown,
            [
                "CustomResourceDefinition in version \"v1\" cannot be handled as a CustomResourceDefinition: strict decoding error: unknown field \"schema.unknownKeyword\""
            ]
        );
    }
}

#[cfg(all(test, target_pointer_width = "64"))]
mod footprint {
    /// The walks over a CRD's schemas read every node; its size decides how many cache
    /// lines and pages they touch (800 bytes before the rare keywords moved out).
    #[test]
    fn a_schema_node_stays_small() {
        let size = std::mem::size_of::<super::SchemaProps>();
        assert!(size <= 384, "SchemaProps grew to {size} bytes");
    }
}
