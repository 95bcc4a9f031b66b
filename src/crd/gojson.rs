//! Some server messages embed whole objects of the *internal* apiextensions types,
//! which have no JSON tags: `json.Marshal` prints Go field names in declaration order
//! and `null` for every unset pointer, slice and map. This reproduces that rendering
//! for the values those messages use (the versions list and a root schema).

use std::fmt::Write;

use crate::diag::gofmt;
use crate::model::crd::{PrinterColumn, SelectableField, Subresources, Version};
use crate::model::schema::{SchemaOrArray, SchemaOrBool, SchemaProps, ValidationRule};
use crate::source::Node;

fn string(out: &mut String, s: &str) {
    out.push_str(&gofmt::json_marshal(&serde_json::Value::String(
        s.to_string(),
    )));
}

fn opt_string(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.push_str("null"),
    }
}

fn float(out: &mut String, f: Option<f64>) {
    match f {
        Some(f) => out.push_str(&gofmt::json_float(f)),
        None => out.push_str("null"),
    }
}

fn int(out: &mut String, i: Option<i64>) {
    match i {
        Some(i) => {
            let _ = write!(out, "{i}");
        }
        None => out.push_str("null"),
    }
}

fn boolean(out: &mut String, b: bool) {
    out.push_str(if b { "true" } else { "false" });
}

fn value(out: &mut String, v: Option<&Node>) {
    match v {
        Some(n) => out.push_str(&gofmt::json_marshal(&n.to_json())),
        None => out.push_str("null"),
    }
}

fn strings(out: &mut String, list: Option<&[String]>) {
    match list {
        None => out.push_str("null"),
        Some(list) => {
            out.push('[');
            for (i, s) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(out, s);
            }
            out.push(']');
        }
    }
}

fn schema_list(out: &mut String, list: Option<&[SchemaProps]>) {
    match list {
        None => out.push_str("null"),
        Some(list) => {
            out.push('[');
            for (i, s) in list.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                schema(out, s);
            }
            out.push(']');
        }
    }
}

fn schema_map<'a>(
    out: &mut String,
    map: Option<impl Iterator<Item = (&'a String, &'a SchemaProps)>>,
) {
    match map {
        None => out.push_str("null"),
        Some(entries) => {
            let mut entries: Vec<_> = entries.collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (k, s)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                string(out, k);
                out.push(':');
                schema(out, s);
            }
            out.push('}');
        }
    }
}

fn or_bool(out: &mut String, v: Option<&SchemaOrBool>) {
    match v {
        None => out.push_str("null"),
        Some(SchemaOrBool::Bool(b, _)) => {
            out.push_str("{\"Allows\":");
            boolean(out, *b);
            out.push_str(",\"Schema\":null}");
        }
        Some(SchemaOrBool::Schema(s)) => {
            out.push_str("{\"Allows\":true,\"Schema\":");
            schema(out, s);
            out.push('}');
        }
    }
}

fn rules(out: &mut String, rules: Option<&[ValidationRule]>) {
    let Some(rules) = rules else {
        out.push_str("null");
        return;
    };
    out.push('[');
    for (i, r) in rules.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&validation_rule(r));
    }
    out.push(']');
}

/// One `ValidationRule` (internal field names).
pub fn validation_rule(r: &ValidationRule) -> String {
    let mut out = String::new();
    out.push_str("{\"Rule\":");
    string(&mut out, &r.rule);
    out.push_str(",\"Message\":");
    string(&mut out, r.message.as_deref().unwrap_or(""));
    out.push_str(",\"MessageExpression\":");
    string(&mut out, r.message_expression.as_deref().unwrap_or(""));
    out.push_str(",\"Reason\":");
    opt_string(&mut out, r.reason.as_deref());
    out.push_str(",\"FieldPath\":");
    string(&mut out, r.field_path.as_deref().unwrap_or(""));
    out.push_str(",\"OptionalOldSelf\":");
    match r.optional_old_self {
        Some(b) => boolean(&mut out, b),
        None => out.push_str("null"),
    }
    out.push('}');
    out
}

/// An internal `JSONSchemaProps`.
pub fn schema(out: &mut String, s: &SchemaProps) {
    out.push_str("{\"ID\":");
    string(out, s.rare().id.as_deref().unwrap_or(""));
    out.push_str(",\"Schema\":");
    string(out, s.rare().schema.as_deref().unwrap_or(""));
    out.push_str(",\"Ref\":");
    opt_string(out, s.rare().reference.as_deref());
    out.push_str(",\"Description\":");
    string(out, s.description.as_deref().unwrap_or(""));
    out.push_str(",\"Type\":");
    string(out, s.type_.as_deref().unwrap_or(""));
    out.push_str(",\"Nullable\":");
    boolean(out, s.nullable);
    out.push_str(",\"Format\":");
    string(out, s.format.as_deref().unwrap_or(""));
    out.push_str(",\"Title\":");
    string(out, s.rare().title.as_deref().unwrap_or(""));
    out.push_str(",\"Default\":");
    value(out, s.default.as_deref());
    out.push_str(",\"Maximum\":");
    float(out, s.rare().maximum);
    out.push_str(",\"ExclusiveMaximum\":");
    boolean(out, s.exclusive_maximum);
    out.push_str(",\"Minimum\":");
    float(out, s.rare().minimum);
    out.push_str(",\"ExclusiveMinimum\":");
    boolean(out, s.exclusive_minimum);
    out.push_str(",\"MaxLength\":");
    int(out, s.rare().max_length);
    out.push_str(",\"MinLength\":");
    int(out, s.rare().min_length);
    out.push_str(",\"Pattern\":");
    string(out, s.pattern.as_deref().unwrap_or(""));
    out.push_str(",\"MaxItems\":");
    int(out, s.rare().max_items);
    out.push_str(",\"MinItems\":");
    int(out, s.rare().min_items);
    out.push_str(",\"UniqueItems\":");
    boolean(out, s.unique_items);
    out.push_str(",\"MultipleOf\":");
    float(out, s.rare().multiple_of);
    out.push_str(",\"Enum\":");
    match &s.enum_ {
        None => out.push_str("null"),
        Some(items) => {
            out.push('[');
            for (i, n) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                value(out, Some(n));
            }
            out.push(']');
        }
    }
    out.push_str(",\"MaxProperties\":");
    int(out, s.rare().max_properties);
    out.push_str(",\"MinProperties\":");
    int(out, s.rare().min_properties);
    out.push_str(",\"Required\":");
    strings(out, s.required.as_deref());
    out.push_str(",\"Items\":");
    match &s.items {
        None => out.push_str("null"),
        Some(SchemaOrArray::Schema(item)) => {
            out.push_str("{\"Schema\":");
            schema(out, item);
            out.push_str(",\"JSONSchemas\":null}");
        }
        Some(SchemaOrArray::Array(list)) => {
            out.push_str("{\"Schema\":null,\"JSONSchemas\":");
            schema_list(out, Some(list));
            out.push('}');
        }
        Some(SchemaOrArray::Neither) => out.push_str("{\"Schema\":null,\"JSONSchemas\":null}"),
    }
    out.push_str(",\"AllOf\":");
    schema_list(out, s.rare().all_of.as_deref());
    out.push_str(",\"OneOf\":");
    schema_list(out, s.rare().one_of.as_deref());
    out.push_str(",\"AnyOf\":");
    schema_list(out, s.rare().any_of.as_deref());
    out.push_str(",\"Not\":");
    match &s.rare().not {
        Some(n) => schema(out, n),
        None => out.push_str("null"),
    }
    out.push_str(",\"Properties\":");
    schema_map(
        out,
        s.properties.as_ref().map(|p| p.iter().map(|(k, v)| (k, v))),
    );
    out.push_str(",\"AdditionalProperties\":");
    or_bool(out, s.additional_properties.as_ref());
    out.push_str(",\"PatternProperties\":");
    schema_map(out, s.rare().pattern_properties.as_ref().map(|m| m.iter()));
    out.push_str(",\"Dependencies\":");
    dependencies(out, s.rare().dependencies.as_deref());
    out.push_str(",\"AdditionalItems\":");
    or_bool(out, s.rare().additional_items.as_ref());
    out.push_str(",\"Definitions\":");
    schema_map(out, s.rare().definitions.as_ref().map(|m| m.iter()));
    out.push_str(",\"ExternalDocs\":");
    match &s.rare().external_docs {
        None => out.push_str("null"),
        Some(n) => {
            out.push_str("{\"Description\":");
            string(
                out,
                n.get("description").and_then(Node::as_str).unwrap_or(""),
            );
            out.push_str(",\"URL\":");
            string(out, n.get("url").and_then(Node::as_str).unwrap_or(""));
            out.push('}');
        }
    }
    out.push_str(",\"Example\":");
    value(out, s.rare().example.as_deref());
    out.push_str(",\"XPreserveUnknownFields\":");
    match s.x_preserve_unknown_fields {
        Some(b) => boolean(out, b),
        None => out.push_str("null"),
    }
    out.push_str(",\"XEmbeddedResource\":");
    boolean(out, s.x_embedded_resource);
    out.push_str(",\"XIntOrString\":");
    boolean(out, s.x_int_or_string);
    out.push_str(",\"XListMapKeys\":");
    strings(out, s.x_list_map_keys.as_deref());
    out.push_str(",\"XListType\":");
    opt_string(out, s.x_list_type.as_deref());
    out.push_str(",\"XMapType\":");
    opt_string(out, s.x_map_type.as_deref());
    out.push_str(",\"XValidations\":");
    rules(out, s.x_validations.as_deref());
    out.push('}');
}

/// `dependencies` as written: a map of schemas or string lists.
fn dependencies(out: &mut String, deps: Option<&Node>) {
    let Some(map) = deps.and_then(Node::as_object) else {
        out.push_str("null");
        return;
    };
    let mut entries: Vec<_> = map.entries.iter().collect();
    entries.sort_by(|a, b| a.key.cmp(&b.key));
    out.push('{');
    for (i, e) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        string(out, &e.key);
        out.push_str(":{\"Schema\":");
        if e.value.as_object().is_some() {
            let (p, _) = crate::model::schema::decode(&e.value, &crate::diag::FieldPath::root("x"));
            schema(out, &p);
        } else {
            out.push_str("null");
        }
        out.push_str(",\"Property\":");
        match e.value.as_array() {
            Some(items) => {
                let list: Vec<String> = items
                    .iter()
                    .map(|n| n.as_str().unwrap_or_default().to_string())
                    .collect();
                strings(out, Some(&list));
            }
            None => out.push_str("null"),
        }
        out.push('}');
    }
    out.push('}');
}

fn subresources(out: &mut String, s: Option<&Subresources>) {
    let Some(s) = s else {
        out.push_str("null");
        return;
    };
    out.push_str("{\"Status\":");
    out.push_str(if s.status.is_some() { "{}" } else { "null" });
    out.push_str(",\"Scale\":");
    match &s.scale {
        None => out.push_str("null"),
        Some(sc) => {
            out.push_str("{\"SpecReplicasPath\":");
            string(out, sc.spec_replicas_path.as_ref().map_or("", |f| &f.value));
            out.push_str(",\"StatusReplicasPath\":");
            string(
                out,
                sc.status_replicas_path.as_ref().map_or("", |f| &f.value),
            );
            out.push_str(",\"LabelSelectorPath\":");
            opt_string(
                out,
                sc.label_selector_path.as_ref().map(|f| f.value.as_str()),
            );
            out.push('}');
        }
    }
    out.push('}');
}

fn columns(out: &mut String, cols: Option<&[PrinterColumn]>) {
    let Some(cols) = cols else {
        out.push_str("null");
        return;
    };
    out.push('[');
    for (i, c) in cols.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let s = |f: &Option<crate::model::decode::Field<String>>| {
            f.as_ref().map(|f| f.value.clone()).unwrap_or_default()
        };
        out.push_str("{\"Name\":");
        string(out, &s(&c.name));
        out.push_str(",\"Type\":");
        string(out, &s(&c.type_));
        out.push_str(",\"Format\":");
        string(out, &s(&c.format));
        out.push_str(",\"Description\":");
        string(out, &s(&c.description));
        out.push_str(",\"Priority\":");
        int(out, Some(c.priority.as_ref().map_or(0, |f| f.value)));
        out.push_str(",\"JSONPath\":");
        string(out, &s(&c.json_path));
        out.push('}');
    }
    out.push(']');
}

fn selectable(out: &mut String, fields: Option<&[SelectableField]>) {
    let Some(fields) = fields else {
        out.push_str("null");
        return;
    };
    out.push('[');
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"JSONPath\":");
        string(out, f.json_path.as_ref().map_or("", |f| &f.value));
        out.push('}');
    }
    out.push(']');
}

/// Which per-version fields the v1→internal conversion moved to the spec (because they
/// are identical in every version); those print as `null` in each version.
#[derive(Clone, Copy, Debug, Default)]
pub struct Hoisted {
    pub schema: bool,
    pub subresources: bool,
    pub columns: bool,
    pub selectable_fields: bool,
}

/// One per-version field (`schema`, `subresources`, `columns`, `selectable`) as the
/// internal type prints it; used to decide whether all versions share it.
pub fn version_field(v: &Version, which: &str) -> String {
    let mut out = String::new();
    match which {
        "schema" => {
            if v.schema_field.is_none() {
                out.push_str("null");
            } else {
                out.push_str("{\"OpenAPIV3Schema\":");
                match &v.schema {
                    Some(s) => schema(&mut out, s),
                    None => out.push_str("null"),
                }
                out.push('}');
            }
        }
        "subresources" => subresources(&mut out, v.subresources.as_ref()),
        "columns" => columns(
            &mut out,
            v.additional_printer_columns
                .as_ref()
                .map(|f| f.value.as_slice())
                .filter(|c| !c.is_empty()),
        ),
        _ => selectable(
            &mut out,
            v.selectable_fields
                .as_ref()
                .map(|f| f.value.as_slice())
                .filter(|c| !c.is_empty()),
        ),
    }
    out
}

/// The internal `[]CustomResourceDefinitionVersion` as `json.Marshal` prints it.
pub fn versions(list: &[Version], hoisted: Hoisted) -> String {
    let mut out = String::from("[");
    for (i, v) in list.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str("{\"Name\":");
        string(&mut out, v.name.as_ref().map_or("", |f| &f.value));
        out.push_str(",\"Served\":");
        boolean(&mut out, v.served.as_ref().is_some_and(|f| f.value));
        out.push_str(",\"Storage\":");
        boolean(&mut out, v.storage.as_ref().is_some_and(|f| f.value));
        out.push_str(",\"Deprecated\":");
        boolean(&mut out, v.deprecated.as_ref().is_some_and(|f| f.value));
        out.push_str(",\"DeprecationWarning\":");
        opt_string(
            &mut out,
            v.deprecation_warning.as_ref().map(|f| f.value.as_str()),
        );
        out.push_str(",\"Schema\":");
        if hoisted.schema || v.schema_field.is_none() {
            out.push_str("null");
        } else {
            out.push_str("{\"OpenAPIV3Schema\":");
            match &v.schema {
                Some(s) => schema(&mut out, s),
                None => out.push_str("null"),
            }
            out.push('}');
        }
        out.push_str(",\"Subresources\":");
        subresources(
            &mut out,
            if hoisted.subresources {
                None
            } else {
                v.subresources.as_ref()
            },
        );
        out.push_str(",\"AdditionalPrinterColumns\":");
        columns(
            &mut out,
            if hoisted.columns {
                None
            } else {
                v.additional_printer_columns
                    .as_ref()
                    .map(|f| f.value.as_slice())
            },
        );
        out.push_str(",\"SelectableFields\":");
        selectable(
            &mut out,
            if hoisted.selectable_fields {
                None
            } else {
                v.selectable_fields.as_ref().map(|f| f.value.as_slice())
            },
        );
        out.push('}');
    }
    out.push(']');
    out
}
