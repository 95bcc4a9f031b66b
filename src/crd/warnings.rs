//! Warnings the server returns when a CRD is created (the strategy's
//! `WarningsOnCreate`): unrecognized formats and non-scalar `set` lists; and crdlint's
//! own warnings about what the server accepts but will not do (unparsable printer columns).

use crate::cel::KubeVersion;
use crate::diag::{Diagnostic, FieldPath, LazyPath, budget};
use crate::model::crd::Crd;
use crate::model::schema::{SchemaOrArray, SchemaOrBool, SchemaProps};

use super::{
    PRINTER_COLUMN_IGNORED, SCHEMA_LIST_SET_NON_SCALAR, SCHEMA_PATTERN_NOT_EVALUATED,
    SCHEMA_UNKNOWN_FORMAT,
};

/// `GetUnrecognizedFormats` for one schema node, as a server of the newest supported
/// version reports it.
pub fn is_unrecognized_format(ty: &str, format: &str) -> bool {
    is_unrecognized_format_at(ty, format, KubeVersion::NEWEST)
}

/// `GetUnrecognizedFormats` for one schema node on a server of `version`: it checks
/// formats at the server's compatibility version (one minor back), and before 1.36
/// only on `type: string`.
pub fn is_unrecognized_format_at(ty: &str, format: &str, version: KubeVersion) -> bool {
    if format.is_empty() {
        return false;
    }
    let compatibility = version.compatibility();
    let string_format_unknown = || {
        let introduced_1_34 = matches!(
            &*crate::schema::formats::normalize(format),
            "k8sshortname" | "k8slongname"
        );
        !crate::schema::formats::is_string_format(format)
            || (introduced_1_34 && compatibility < KubeVersion::new(1, 34))
    };
    if version < KubeVersion::new(1, 36) {
        return ty == "string" && string_format_unknown();
    }
    match ty {
        "" | "string" => string_format_unknown(),
        "integer" => format != "int32" && format != "int64",
        "number" => format != "float" && format != "double",
        _ => true,
    }
}

/// Visits every schema node like the server's `SchemaHas` (with paths).
pub fn visit<'a>(
    s: &'a SchemaProps,
    path: &LazyPath<'_>,
    f: &mut dyn FnMut(&'a SchemaProps, &LazyPath<'_>),
    depth: usize,
) {
    if depth > 1000 {
        return;
    }
    f(s, path);
    match &s.items {
        Some(SchemaOrArray::Schema(i)) => visit(i, &LazyPath::Child(path, "items"), f, depth + 1),
        Some(SchemaOrArray::Array(list)) => {
            let items = LazyPath::Child(path, "items");
            for (n, i) in list.iter().enumerate() {
                visit(i, &LazyPath::Index(&items, n), f, depth + 1);
            }
        }
        Some(SchemaOrArray::Neither) | None => {}
    }
    for (key, list) in [
        ("allOf", &s.rare().all_of),
        ("anyOf", &s.rare().any_of),
        ("oneOf", &s.rare().one_of),
    ] {
        let junctor = LazyPath::Child(path, key);
        for (n, i) in list.iter().flatten().enumerate() {
            visit(i, &LazyPath::Index(&junctor, n), f, depth + 1);
        }
    }
    if let Some(n) = &s.rare().not {
        visit(n, &LazyPath::Child(path, "not"), f, depth + 1);
    }
    let properties = LazyPath::Child(path, "properties");
    for (k, p) in s.properties.iter().flatten() {
        visit(p, &LazyPath::Key(&properties, k), f, depth + 1);
    }
    if let Some(SchemaOrBool::Schema(ap)) = &s.additional_properties {
        visit(
            ap,
            &LazyPath::Child(path, "additionalProperties"),
            f,
            depth + 1,
        );
    }
    let pattern_properties = LazyPath::Child(path, "patternProperties");
    for (k, p) in s.rare().pattern_properties.iter().flatten() {
        visit(p, &LazyPath::Key(&pattern_properties, k), f, depth + 1);
    }
    if let Some(SchemaOrBool::Schema(ai)) = &s.rare().additional_items {
        visit(ai, &LazyPath::Child(path, "additionalItems"), f, depth + 1);
    }
    let definitions = LazyPath::Child(path, "definitions");
    for (k, p) in s.rare().definitions.iter().flatten() {
        visit(p, &LazyPath::Key(&definitions, k), f, depth + 1);
    }
}

/// Whether some node [`visit`] would visit satisfies `found`: the same walk, without
/// paths, that stops at the first such node.
pub fn any_node(
    s: &SchemaProps,
    found: &mut dyn FnMut(&SchemaProps) -> bool,
    depth: usize,
) -> bool {
    if depth > 1000 {
        return false;
    }
    if found(s) {
        return true;
    }
    let mut any = |c: &SchemaProps| any_node(c, found, depth + 1);
    let items = match &s.items {
        Some(SchemaOrArray::Schema(i)) => any(i),
        Some(SchemaOrArray::Array(list)) => list.iter().any(&mut any),
        Some(SchemaOrArray::Neither) | None => false,
    };
    items
        || [&s.rare().all_of, &s.rare().any_of, &s.rare().one_of]
            .into_iter()
            .flatten()
            .flatten()
            .any(&mut any)
        || s.rare().not.as_deref().is_some_and(&mut any)
        || s.properties.iter().flatten().any(|(_, p)| any(p))
        || matches!(&s.additional_properties, Some(SchemaOrBool::Schema(ap)) if any(ap))
        || s.rare()
            .pattern_properties
            .iter()
            .flatten()
            .any(|(_, p)| any(p))
        || matches!(&s.rare().additional_items, Some(SchemaOrBool::Schema(ai)) if any(ai))
        || s.rare().definitions.iter().flatten().any(|(_, p)| any(p))
}

/// Adds a warning, charged to the CRD's findings: its path is as long as its node is
/// deep (60,000 unknown formats 400 levels deep were 480 MB of warnings).
fn push_charged(out: &mut Vec<Diagnostic>, warning: Diagnostic) {
    budget::charge_finding(&warning);
    out.push(warning);
}

/// A warning for each printer column whose `jsonPath` the server's table printer
/// cannot parse (see [`super::printer_jsonpath`]): the CRD is accepted, and the table
/// keeps only the columns before the first such one. With `hoisted` columns (the same
/// in every version) only the first version's are looked at, as the server names them
/// once.
pub fn printer_column_warnings(crd: &Crd, hoisted: bool) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let versions = if hoisted {
        &crd.versions[..crd.versions.len().min(1)]
    } else {
        &crd.versions[..]
    };
    for (i, v) in versions.iter().enumerate() {
        let Some(columns) = &v.additional_printer_columns else {
            continue;
        };
        for (j, c) in columns.value.iter().enumerate() {
            let Some(path) = c.json_path.as_ref().filter(|p| !p.value.is_empty()) else {
                continue;
            };
            let Some(error) = super::printer_jsonpath::parse_error(&path.value) else {
                continue;
            };
            let name = c.name.as_ref().map_or("", |n| n.value.as_str());
            let warning = Diagnostic::warning(
                PRINTER_COLUMN_IGNORED,
                format!(
                    "printer column {} is not served: the server cannot parse its jsonPath ({error})",
                    crate::diag::gofmt::quote(name)
                ),
            )
            .with_field(
                FieldPath::root("spec")
                    .child("versions")
                    .index(i)
                    .child("additionalPrinterColumns")
                    .index(j)
                    .child("jsonPath")
                    .to_string(),
            )
            .with_span(path.span)
            .with_help("the server accepts the CRD, logs the error and serves NAME and the columns before the first unparsable one; close every [, ( and quote and quote map keys, e.g. .status.conditions[?(@.type==\"Ready\")].status");
            push_charged(&mut out, warning);
        }
    }
    out
}

/// The warnings for one version schema at `path` (`…openAPIV3Schema`); none once the
/// CRD's findings budget is spent.
pub fn schema_warnings(
    schema: &SchemaProps,
    path: &FieldPath,
    seen_sets: &mut Vec<String>,
    version: KubeVersion,
) -> Vec<Diagnostic> {
    // Servers return non-scalar set warnings from 1.37; crdlint gives them as advice
    // from its newest version (1.36) on.
    let set_warnings = version >= KubeVersion::new(1, 36);
    let mut out = Vec::new();
    visit(
        schema,
        &LazyPath::At(path),
        &mut |s, p| {
            if budget::exhausted() {
                return;
            }
            let ty = s.type_.as_deref().unwrap_or("");
            if let Some(format) = s.format.as_deref()
                && is_unrecognized_format_at(ty, format, version)
            {
                let typed = if ty.is_empty() || ty == "string" {
                    ""
                } else {
                    " (integers take int32/int64, numbers float/double)"
                };
                let warning = Diagnostic::warning(
                    SCHEMA_UNKNOWN_FORMAT,
                    format!("unrecognized format {}", crate::diag::gofmt::quote(format)),
                )
                .with_field(p.to_path().child("format").to_string())
                .with_span(s.value_span("format"))
                .with_help(format!(
                    "the server ignores this format when validating{typed}; use a supported format or remove it",
                ));
                push_charged(&mut out, warning);
            }
            if let Some(pattern) = s.pattern.as_deref()
                && crate::schema::regex::too_large_to_match(pattern)
            {
                let warning = Diagnostic::warning(
                    SCHEMA_PATTERN_NOT_EVALUATED,
                    format!(
                        "{}, so values are not checked against this pattern",
                        crate::schema::regex::RegexError::TooLargeToMatch
                    ),
                )
                .with_field(p.to_path().child("pattern").to_string())
                .with_span(s.value_span("pattern"))
                .with_help("the server accepts the pattern and checks values against it; raise --max-regex-size (MiB) to have crdlint check them too");
                push_charged(&mut out, warning);
            }
            if set_warnings
                && s.x_list_type.as_deref() == Some("set")
                && let Some(SchemaOrArray::Schema(items)) = &s.items
                && let Some(it @ ("object" | "array")) = items.type_.as_deref()
            {
                let msg = format!(
                    "x-kubernetes-list-type: set for items of type {} is not supported by server-side apply or CEL validation rules",
                    crate::diag::gofmt::quote(it)
                );
                if !seen_sets.contains(&msg) {
                    seen_sets.push(msg.clone());
                    let warning = Diagnostic::warning(SCHEMA_LIST_SET_NON_SCALAR, msg)
                        .with_field(p.to_path().child("x-kubernetes-list-type").to_string())
                        .with_span(s.value_span("x-kubernetes-list-type"))
                        .with_help("use x-kubernetes-list-type: map with x-kubernetes-list-map-keys for lists of objects");
                    push_charged(&mut out, warning);
                }
            }
        },
        0,
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `any_node` reaches every node `visit` reaches (and only those).
    #[test]
    fn any_node_walks_what_visit_walks() {
        let text = "type: object\nproperties:\n  a:\n    items: [{type: string}, {default: 1}]\n    allOf: [{not: {minimum: 1}}]\n    anyOf: [{}]\n    oneOf: [{}]\n  m:\n    additionalProperties: {patternProperties: {x: {}}}\n    additionalItems: {definitions: {d: {}}}\n";
        let parsed = crate::source::yaml::parse(text, &Default::default());
        let (schema, _) =
            crate::model::schema::decode(&parsed.documents[0].root, &FieldPath::root("s"));
        let mut spans = Vec::new();
        visit(&schema, &LazyPath::Root, &mut |n, _| spans.push(n.span), 0);
        assert_eq!(spans.len(), 13);
        for span in &spans {
            assert!(any_node(&schema, &mut |n| n.span == *span, 0), "{span:?}");
        }
        assert!(!any_node(&schema, &mut |n| n.span.start == 1, 0));
        assert!(any_node(&schema, &mut |n| n.default.is_some(), 0));
    }

    /// 1.35 facts recorded from crdoracle (apiextensions-apiserver v0.35): only
    /// `type: string` formats are checked; 1.36 (v0.36.0 source) checks every type.
    #[test]
    fn format_warnings_follow_the_server_version() {
        let v135 = KubeVersion::new(1, 35);
        let cases = [
            ("string", "idn-hostname", true, true),
            ("string", "date-time", false, false),
            ("string", "k8s-short-name", false, false),
            ("integer", "int16", false, true),
            ("number", "int64", false, true),
            ("", "percent", false, true),
            ("boolean", "x", false, true),
        ];
        for (ty, format, at_135, at_136) in cases {
            assert_eq!(
                is_unrecognized_format_at(ty, format, v135),
                at_135,
                "{ty} {format}"
            );
            assert_eq!(is_unrecognized_format(ty, format), at_136, "{ty} {format}");
        }
        // k8s-short-name arrived at compatibility version 1.34 (servers from 1.35).
        assert!(is_unrecognized_format_at(
            "string",
            "k8s-short-name",
            KubeVersion::new(1, 34)
        ));
    }
}
