//! Warnings the server returns when a CRD is created (the strategy's
//! `WarningsOnCreate`): unrecognized formats and non-scalar `set` lists.

use crate::diag::{Diagnostic, FieldPath};
use crate::model::schema::{SchemaOrArray, SchemaOrBool, SchemaProps};

use super::{SCHEMA_LIST_SET_NON_SCALAR, SCHEMA_UNKNOWN_FORMAT};

const STRING_FORMATS: &[&str] = &[
    "bsonobjectid",
    "uri",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "cidr",
    "mac",
    "uuid",
    "uuid3",
    "uuid4",
    "uuid5",
    "isbn",
    "isbn10",
    "isbn13",
    "creditcard",
    "ssn",
    "hexcolor",
    "rgbcolor",
    "byte",
    "password",
    "date",
    "duration",
    "datetime",
    "k8sshortname",
    "k8slongname",
];

/// `GetUnrecognizedFormats` for one schema node.
pub fn is_unrecognized_format(ty: &str, format: &str) -> bool {
    if format.is_empty() {
        return false;
    }
    match ty {
        "" | "string" => !STRING_FORMATS.contains(&format.replace('-', "").as_str()),
        "integer" => format != "int32" && format != "int64",
        "number" => format != "float" && format != "double",
        _ => true,
    }
}

/// Visits every schema node like the server's `SchemaHas` (with paths).
pub fn visit<'a>(
    s: &'a SchemaProps,
    path: &FieldPath,
    f: &mut dyn FnMut(&'a SchemaProps, &FieldPath),
    depth: usize,
) {
    if depth > 1000 {
        return;
    }
    f(s, path);
    match &s.items {
        Some(SchemaOrArray::Schema(i)) => visit(i, &path.child("items"), f, depth + 1),
        Some(SchemaOrArray::Array(list)) => {
            for (n, i) in list.iter().enumerate() {
                visit(i, &path.child("items").index(n), f, depth + 1);
            }
        }
        None => {}
    }
    for (key, list) in [
        ("allOf", &s.all_of),
        ("anyOf", &s.any_of),
        ("oneOf", &s.one_of),
    ] {
        for (n, i) in list.iter().flatten().enumerate() {
            visit(i, &path.child(key).index(n), f, depth + 1);
        }
    }
    if let Some(n) = &s.not {
        visit(n, &path.child("not"), f, depth + 1);
    }
    for (k, p) in s.properties.iter().flatten() {
        visit(p, &path.child("properties").key(k), f, depth + 1);
    }
    if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
        visit(ap, &path.child("additionalProperties"), f, depth + 1);
    }
    for (k, p) in s.pattern_properties.iter().flatten() {
        visit(p, &path.child("patternProperties").key(k), f, depth + 1);
    }
    if let Some(SchemaOrBool::Schema(ai)) = &s.additional_items {
        visit(ai, &path.child("additionalItems"), f, depth + 1);
    }
    for (k, p) in s.definitions.iter().flatten() {
        visit(p, &path.child("definitions").key(k), f, depth + 1);
    }
}

/// The warnings for one version schema at `path` (`…openAPIV3Schema`).
pub fn schema_warnings(
    schema: &SchemaProps,
    path: &FieldPath,
    seen_sets: &mut Vec<String>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    visit(
        schema,
        path,
        &mut |s, p| {
            let ty = s.type_.as_deref().unwrap_or("");
            if let Some(format) = s.format.as_deref()
                && is_unrecognized_format(ty, format)
            {
                out.push(
                Diagnostic::warning(
                    SCHEMA_UNKNOWN_FORMAT,
                    format!("unrecognized format {}", crate::diag::gofmt::quote(format)),
                )
                .with_field(p.child("format").to_string())
                .with_span(s.value_span("format"))
                .with_help(format!(
                    "the server ignores this format when validating{}; use a supported format or remove it",
                    if ty.is_empty() || ty == "string" { "" } else { " (integers take int32/int64, numbers float/double)" }
                )),
            );
            }
            if s.x_list_type.as_deref() == Some("set")
                && let Some(SchemaOrArray::Schema(items)) = &s.items
                && let Some(it @ ("object" | "array")) = items.type_.as_deref()
            {
                let msg = format!(
                    "x-kubernetes-list-type: set for items of type {} is not supported by server-side apply or CEL validation rules",
                    crate::diag::gofmt::quote(it)
                );
                if !seen_sets.contains(&msg) {
                    seen_sets.push(msg.clone());
                    out.push(
                    Diagnostic::warning(SCHEMA_LIST_SET_NON_SCALAR, msg)
                        .with_field(p.child("x-kubernetes-list-type").to_string())
                        .with_span(s.value_span("x-kubernetes-list-type"))
                        .with_help("use x-kubernetes-list-type: map with x-kubernetes-list-map-keys for lists of objects"),
                );
                }
            }
        },
        0,
    );
    out
}
