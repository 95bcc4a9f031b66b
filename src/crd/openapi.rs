//! Validation of one version's `openAPIV3Schema` (`validateCustomResourceDefinitionValidation`
//! and `ValidateCustomResourceDefinitionOpenAPISchema`): status-subresource root
//! restrictions, forbidden keywords, structural rules, defaults, `x-kubernetes-*`
//! extensions and the non-CEL parts of `x-kubernetes-validations`.

use crate::diag::{BadValue, ErrorType, FieldError, FieldPath, LazyPath};
use crate::model::schema::{SchemaOrArray, SchemaOrBool, SchemaProps};
use crate::schema::property_index::PropertyIndex;
use crate::schema::structural::{self, Structural};

use super::findings::Findings;
use super::hooks::{CelSchemaInput, Options};
use super::update::Requirements;
use super::{
    SCHEMA_EXTENSION, SCHEMA_FORBIDDEN_FIELD, SCHEMA_INVALID_DEFAULT, SCHEMA_INVALID_PATTERN,
    SCHEMA_INVALID_TYPE, SCHEMA_NOT_STRUCTURAL, SCHEMA_STATUS_ROOT, SCHEMA_VALIDATION_RULE,
};
use super::{defaults, gojson};
use crate::schema::fieldpath;

const ALLOWED_AT_ROOT: &[&str] = &[
    "Description",
    "Type",
    "Format",
    "Title",
    "Maximum",
    "ExclusiveMaximum",
    "Minimum",
    "ExclusiveMinimum",
    "MaxLength",
    "MinLength",
    "Pattern",
    "MaxItems",
    "MinItems",
    "UniqueItems",
    "MultipleOf",
    "Required",
    "Items",
    "Properties",
    "ExternalDocs",
    "Example",
    "XPreserveUnknownFields",
    "XValidations",
];

/// The internal struct fields of a schema that are not zero, in declaration order.
fn non_zero_fields(s: &SchemaProps) -> Vec<&'static str> {
    let mut out = Vec::new();
    let mut add = |cond: bool, name: &'static str| {
        if cond {
            out.push(name);
        }
    };
    let ne = |o: &Option<String>| o.as_deref().is_some_and(|v| !v.is_empty());
    add(ne(&s.rare().id), "ID");
    add(ne(&s.rare().schema), "Schema");
    add(s.rare().reference.is_some(), "Ref");
    add(ne(&s.description), "Description");
    add(s.type_.as_deref().is_some_and(|v| !v.is_empty()), "Type");
    add(s.nullable, "Nullable");
    add(ne(&s.format), "Format");
    add(ne(&s.rare().title), "Title");
    add(s.default.is_some(), "Default");
    add(s.rare().maximum.is_some(), "Maximum");
    add(s.exclusive_maximum, "ExclusiveMaximum");
    add(s.rare().minimum.is_some(), "Minimum");
    add(s.exclusive_minimum, "ExclusiveMinimum");
    add(s.rare().max_length.is_some(), "MaxLength");
    add(s.rare().min_length.is_some(), "MinLength");
    add(ne(&s.pattern), "Pattern");
    add(s.rare().max_items.is_some(), "MaxItems");
    add(s.rare().min_items.is_some(), "MinItems");
    add(s.unique_items, "UniqueItems");
    add(s.rare().multiple_of.is_some(), "MultipleOf");
    add(s.enum_.is_some(), "Enum");
    add(s.rare().max_properties.is_some(), "MaxProperties");
    add(s.rare().min_properties.is_some(), "MinProperties");
    add(s.required.is_some(), "Required");
    add(s.items.is_some(), "Items");
    add(s.rare().all_of.is_some(), "AllOf");
    add(s.rare().one_of.is_some(), "OneOf");
    add(s.rare().any_of.is_some(), "AnyOf");
    add(s.rare().not.is_some(), "Not");
    add(s.properties.is_some(), "Properties");
    add(s.additional_properties.is_some(), "AdditionalProperties");
    add(s.rare().pattern_properties.is_some(), "PatternProperties");
    add(s.rare().dependencies.is_some(), "Dependencies");
    add(s.rare().additional_items.is_some(), "AdditionalItems");
    add(s.rare().definitions.is_some(), "Definitions");
    add(s.rare().external_docs.is_some(), "ExternalDocs");
    add(s.rare().example.is_some(), "Example");
    add(
        s.x_preserve_unknown_fields.is_some(),
        "XPreserveUnknownFields",
    );
    add(s.x_embedded_resource, "XEmbeddedResource");
    add(s.x_int_or_string, "XIntOrString");
    add(s.x_list_map_keys.is_some(), "XListMapKeys");
    add(s.x_list_type.is_some(), "XListType");
    add(s.x_map_type.is_some(), "XMapType");
    add(s.x_validations.is_some(), "XValidations");
    out
}

/// Validates the schema of one version. `path` is `spec.versions[i].schema`.
pub fn validate(
    f: &mut Findings,
    schema: &SchemaProps,
    path: &FieldPath,
    status_enabled: bool,
    options: &Options<'_>,
    req: &Requirements,
) {
    let hooks = &options.hooks;
    let root_path = path.child("openAPIV3Schema");
    let start = f.len();
    if status_enabled {
        for name in non_zero_fields(schema) {
            if name == "Type" {
                let ty = schema.type_.as_deref().unwrap_or("");
                if ty != "object" {
                    f.push(
                        SCHEMA_STATUS_ROOT,
                        FieldError::invalid(
                            path.child("openAPIV3Schema.type"),
                            ty,
                            "only \"object\" is allowed as the type at the root of the schema if the status subresource is enabled",
                        ),
                        "with the status subresource the root schema must be type: object",
                    );
                    break;
                }
                continue;
            }
            if !ALLOWED_AT_ROOT.contains(&name) {
                let mut rendered = String::new();
                gojson::schema(&mut rendered, schema);
                let key = keyword_of(name);
                let finding = f.push(
                    SCHEMA_STATUS_ROOT,
                    FieldError::invalid(
                        root_path.clone(),
                        BadValue::Raw(rendered),
                        format!(
                            "only [{}] fields are allowed at the root of the schema if the status subresource is enabled",
                            ALLOWED_AT_ROOT.join(" ")
                        ),
                    ),
                    &format!("with the status subresource the root schema may not use `{key}`; move it into properties.spec or remove it"),
                );
                finding.span = Some(schema.key_span(key));
                break;
            }
        }
    }
    if schema.nullable {
        f.push(
            SCHEMA_FORBIDDEN_FIELD,
            FieldError::forbidden(
                path.child("openAPIV3Schema.nullable"),
                "nullable cannot be true at the root",
            ),
            "remove nullable from the root schema",
        );
    }

    let mut structural_init: Option<FieldError> = None;
    let mut cel_allowed = false;
    let mut structural_ok: Option<Structural> = None;
    // (Not required only on an update of a CRD whose schemas were not structural and
    // that still preserves unknown fields: then neither defaults nor CEL are checked.)
    let structural = if req.structural_schema {
        Some(structural::from_props(schema))
    } else {
        None
    };
    match structural {
        None => {}
        Some(Err(e)) => {
            structural_init = Some(FieldError::invalid(root_path.clone(), "", e.message));
        }
        Some(Ok(ss)) => {
            let errs = structural::validate_structural_at(&root_path, &ss, options.kube_version);
            if !errs.is_empty() {
                for e in errs {
                    let code = if e.field.as_str().ends_with(".pattern")
                        && e.detail.starts_with("must be a valid regular expression")
                    {
                        SCHEMA_INVALID_PATTERN
                    } else {
                        SCHEMA_NOT_STRUCTURAL
                    };
                    let help = structural_help(&e);
                    f.push(code, e, &help);
                }
            } else {
                let found = defaults::validate_defaults(
                    &root_path,
                    &ss,
                    Some(schema),
                    options,
                    req.pruned_defaults,
                );
                cel_allowed = !found
                    .iter()
                    .any(|x| x.severity == crate::diag::Severity::Error);
                f.items.extend(found);
            }
            structural_ok = Some(ss);
        }
    }

    // The server compiles rules node by node during the walk; compiling the whole
    // schema once gives the same results, reported below only for the nodes the
    // server would compile.
    let mut compiled: std::collections::HashMap<String, Vec<crate::diag::Diagnostic>> =
        std::collections::HashMap::new();
    let mut cost = None;
    let mut compiled_rules = None;
    if cel_allowed && let (Some(compile), Some(ss)) = (hooks.cel_rules, structural_ok.as_ref()) {
        let input = CelSchemaInput {
            schema,
            structural: ss,
            path: &root_path,
            source: options.source,
            kube_version: options.kube_version,
            preexisting: options.old.map(|o| &o.preexisting),
        };
        let found = compile(&input);
        cost = found.cost;
        compiled_rules = found.compiled;
        for node in found.nodes {
            compiled
                .entry(node.node.as_str().to_string())
                .or_default()
                .extend(node.diagnostics);
        }
    }
    // The rules of each node (runs of rules sharing their node's steps), found by a
    // hash of the node's path and confirmed by building it: a set of node paths held
    // a copy per node (20,000 nodes with rules under a 50,000-character property name:
    // 1 GB).
    let cost_rules = cost.as_ref().map_or(&[][..], |c| c.rules.as_slice());
    let mut rule_nodes: std::collections::HashMap<u64, Vec<std::ops::Range<usize>>> =
        std::collections::HashMap::new();
    let mut run_start = 0;
    for (i, r) in cost_rules.iter().enumerate() {
        let last_of_node = cost_rules
            .get(i + 1)
            .is_none_or(|next| !next.node.ptr_eq(&r.node));
        if last_of_node {
            let node = r.field.node_path();
            rule_nodes
                .entry(path_hash(node.as_str()))
                .or_default()
                .push(run_start..i + 1);
            run_start = i + 1;
        }
    }
    let mut walker = Walker {
        f,
        req,
        compiled,
        cel_out: Vec::new(),
        rule_nodes: &rule_nodes,
        cost_rules,
        keep_cost: vec![false; cost_rules.len()],
    };
    let ssv = Ssv {
        allow_defaults: true,
        disallow_reason: String::new(),
        inside_resource_meta: false,
    };
    walker.walk(schema, &LazyPath::At(&root_path), &ssv, true, 0);
    let cel_out = std::mem::take(&mut walker.cel_out);
    let keep_cost = std::mem::take(&mut walker.keep_cost);
    drop(walker);
    drop(rule_nodes);
    f.prebuilt.extend(cel_out);

    if f.len() == start
        && let Some(e) = structural_init
    {
        f.push(SCHEMA_NOT_STRUCTURAL, e, "");
    }
    if let Some(mut cost) = cost {
        // Costs of rules the server does not compile are neither checked nor added
        // to the total.
        let mut keep = keep_cost.into_iter();
        cost.retain(|_| keep.next().unwrap_or(false));
        f.items.extend(super::cel_rules::cost_limit_findings(
            &cost,
            req.suppress_per_expression_cost,
        ));
    }
    if let (Some(sink), Some(ss)) = (options.structurals, structural_ok) {
        sink.put(
            schema,
            crate::schema::structural::sink::Built {
                structural: ss,
                rules: compiled_rules.map(|r| (options.kube_version, r)),
            },
        );
    }
}

fn keyword_of(internal: &str) -> &'static str {
    match internal {
        "ID" => "id",
        "Schema" => "$schema",
        "Ref" => "$ref",
        "Nullable" => "nullable",
        "Default" => "default",
        "Enum" => "enum",
        "MaxProperties" => "maxProperties",
        "MinProperties" => "minProperties",
        "AllOf" => "allOf",
        "OneOf" => "oneOf",
        "AnyOf" => "anyOf",
        "Not" => "not",
        "AdditionalProperties" => "additionalProperties",
        "PatternProperties" => "patternProperties",
        "Dependencies" => "dependencies",
        "AdditionalItems" => "additionalItems",
        "Definitions" => "definitions",
        "XEmbeddedResource" => "x-kubernetes-embedded-resource",
        "XIntOrString" => "x-kubernetes-int-or-string",
        "XListMapKeys" => "x-kubernetes-list-map-keys",
        "XListType" => "x-kubernetes-list-type",
        "XMapType" => "x-kubernetes-map-type",
        _ => "type",
    }
}

fn structural_help(e: &FieldError) -> String {
    let d = e.detail.as_str();
    if d.starts_with("must be a valid regular expression") {
        return "patterns are Go RE2 regular expressions: no lookaround, no backreferences".into();
    }
    if d.starts_with("must not be empty for") || d == "must not be empty at the root" {
        return "add a type (object, array, string, integer, number, boolean), or x-kubernetes-int-or-string / x-kubernetes-preserve-unknown-fields".into();
    }
    if d.contains("to be structural") {
        return "inside allOf/anyOf/oneOf/not only value validations are allowed; move types, descriptions, defaults and x-kubernetes-* to the enclosing schema".into();
    }
    if d.starts_with("because it is defined in") {
        return "every property mentioned inside allOf/anyOf/oneOf/not must also be declared in the enclosing schema's properties".into();
    }
    if d.contains("metadata is implicitly specified") {
        return "the root metadata schema may only restrict name and generateName; remove other properties and keywords".into();
    }
    if e.error_type == ErrorType::Required && e.field.as_str().ends_with(".items") {
        return "arrays need an items schema".into();
    }
    "structural schemas are required in apiextensions.k8s.io/v1; see https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema".into()
}

/// `specStandardValidatorV3` state.
#[derive(Clone)]
struct Ssv {
    allow_defaults: bool,
    disallow_reason: String,
    inside_resource_meta: bool,
}

impl Ssv {
    fn forbid_defaults(&self, reason: String) -> Ssv {
        Ssv {
            allow_defaults: false,
            disallow_reason: reason,
            ..self.clone()
        }
    }
}

struct Walker<'f> {
    f: &'f mut Findings,
    req: &'f Requirements,
    /// CEL findings by schema node path, reported when the node has no schema errors.
    compiled: std::collections::HashMap<String, Vec<crate::diag::Diagnostic>>,
    cel_out: Vec<crate::diag::Diagnostic>,
    /// The indices of each node's rules in the cost estimate, by [`path_hash`] of the
    /// node's path.
    rule_nodes: &'f std::collections::HashMap<u64, Vec<std::ops::Range<usize>>>,
    cost_rules: &'f [crate::cel::cost::RuleCost],
    /// By index in the cost estimate: the rule's node has no schema errors at or below
    /// it (the server compiles its rules).
    keep_cost: Vec<bool>,
}

/// A hash of a schema node's path, to find the node's rules without keeping the path.
fn path_hash(path: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    path.hash(&mut h);
    h.finish()
}

const TYPES: &[&str] = &["array", "boolean", "integer", "number", "object", "string"];

fn json_opt_str(v: Option<&str>) -> BadValue {
    match v {
        Some(s) => BadValue::Json(serde_json::Value::String(s.to_string())),
        None => BadValue::Raw("null".into()),
    }
}

fn json_strings(list: &[String]) -> BadValue {
    BadValue::Json(serde_json::Value::Array(
        list.iter()
            .map(|s| serde_json::Value::String(s.clone()))
            .collect(),
    ))
}

fn has_newlines(s: &str) -> bool {
    s.contains(['\n', '\r'])
}

impl Walker<'_> {
    fn push(&mut self, code: &'static str, e: FieldError, help: &str) {
        // Past the object's findings budget the CRD is reported as stopped
        // (`findings-limit`); what would follow is not kept.
        if !crate::diag::budget::exhausted() {
            self.f.push(code, e, help);
        }
    }

    /// `ssv.validate`: keywords forbidden in CRD schemas.
    fn forbidden(&mut self, s: &SchemaProps, path: &LazyPath<'_>, ssv: &Ssv) {
        let ty = s.type_.as_deref().unwrap_or("");
        if self.req.valid_property_type && !ty.is_empty() && !TYPES.contains(&ty) {
            self.push(
                SCHEMA_INVALID_TYPE,
                FieldError::not_supported(path.to_path().child("type"), ty, TYPES),
                "OpenAPI v3 types are array, boolean, integer, number, object and string",
            );
        }
        if s.default.is_some() && !ssv.allow_defaults {
            let mut detail = "must not be set".to_string();
            if !ssv.disallow_reason.is_empty() {
                detail.push(' ');
                detail.push_str(&ssv.disallow_reason);
            }
            self.push(
                SCHEMA_INVALID_DEFAULT,
                FieldError::forbidden(path.to_path().child("default"), detail),
                "remove this default; defaults are not allowed in metadata (except via name/generateName rules)",
            );
        }
        let forbid = |w: &mut Self, key: &str, detail: &str| {
            w.push(
                SCHEMA_FORBIDDEN_FIELD,
                FieldError::forbidden(path.to_path().child(key), detail),
                &format!("remove `{key}`: CRD schemas do not support it"),
            );
        };
        if s.rare().id.as_deref().is_some_and(|v| !v.is_empty()) {
            forbid(self, "id", "id is not supported");
        }
        if s.rare().additional_items.is_some() {
            forbid(self, "additionalItems", "additionalItems is not supported");
        }
        if s.rare()
            .pattern_properties
            .as_ref()
            .is_some_and(|m| !m.is_empty())
        {
            forbid(
                self,
                "patternProperties",
                "patternProperties is not supported",
            );
        }
        if s.rare().definitions.as_ref().is_some_and(|m| !m.is_empty()) {
            forbid(self, "definitions", "definitions is not supported");
        }
        if s.rare().dependencies.is_some() {
            forbid(self, "dependencies", "dependencies is not supported");
        }
        if s.rare().reference.is_some() {
            self.push(
                SCHEMA_FORBIDDEN_FIELD,
                FieldError::forbidden(path.to_path().child("$ref"), "$ref is not supported"),
                "CRD schemas must be self-contained: inline the referenced schema instead of $ref",
            );
        }
        if ty == "null" {
            self.push(
                SCHEMA_FORBIDDEN_FIELD,
                FieldError::forbidden(
                    path.to_path().child("type"),
                    "type cannot be set to null, use nullable as an alternative",
                ),
                "use nullable: true on a typed schema instead of type: null",
            );
        }
        if let Some(SchemaOrArray::Array(list)) = &s.items
            && !list.is_empty()
        {
            self.push(
                SCHEMA_FORBIDDEN_FIELD,
                FieldError::forbidden(
                    path.to_path().child("items"),
                    "items must be a schema object and not an array",
                ),
                "write items as one schema object (tuples are not supported)",
            );
        }
        if ssv.inside_resource_meta && s.x_embedded_resource {
            self.push(
                SCHEMA_EXTENSION,
                FieldError::forbidden(
                    path.to_path().child("x-kubernetes-embedded-resource"),
                    "must not be used inside of resource meta",
                ),
                "remove x-kubernetes-embedded-resource from metadata/apiVersion/kind schemas",
            );
        }
    }

    fn walk(
        &mut self,
        s: &SchemaProps,
        path: &LazyPath<'_>,
        ssv: &Ssv,
        is_root: bool,
        depth: usize,
    ) {
        if depth > 1000 {
            return;
        }
        let start = self.f.len();
        self.forbidden(s, path, ssv);
        if s.unique_items {
            self.push(
                SCHEMA_FORBIDDEN_FIELD,
                FieldError::forbidden(path.to_path().child("uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"),
                "remove uniqueItems; use x-kubernetes-list-type: set (or map) for unique list items",
            );
        }
        if let Some(ap) = &s.additional_properties {
            let has_props = s.properties.as_ref().is_some_and(|p| !p.is_empty());
            let disallows = matches!(ap, SchemaOrBool::Bool(false, _) | SchemaOrBool::Schema(_));
            if has_props && disallows {
                self.push(
                    SCHEMA_FORBIDDEN_FIELD,
                    FieldError::forbidden(path.to_path().child("additionalProperties"), "additionalProperties and properties are mutual exclusive"),
                    "use properties for structs or additionalProperties for maps, not both (unknown fields are pruned anyway)",
                );
            }
            if let SchemaOrBool::Schema(sub) = ap {
                let sub_ssv = if ssv.inside_resource_meta {
                    ssv.forbid_defaults(
                        "inside additionalProperties applying to object metadata".into(),
                    )
                } else {
                    ssv.clone()
                };
                self.walk(
                    sub,
                    &LazyPath::Child(path, "additionalProperties"),
                    &sub_ssv,
                    false,
                    depth + 1,
                );
            }
        }
        if let Some(props) = &s.properties {
            for (name, sub) in props {
                // (Where oldSelf cannot be correlated is decided by the CEL compiler.)
                let mut sub_ssv = ssv.clone();
                if (is_root || s.x_embedded_resource)
                    && matches!(name.as_str(), "metadata" | "kind" | "apiVersion")
                {
                    sub_ssv.inside_resource_meta = true;
                    if is_root {
                        sub_ssv = sub_ssv.forbid_defaults(format!("in top-level {name}"));
                    }
                }
                self.walk(
                    sub,
                    &LazyPath::Key(&LazyPath::Child(path, "properties"), name),
                    &sub_ssv,
                    false,
                    depth + 1,
                );
            }
        }
        if let Some(not) = &s.rare().not {
            self.walk(not, &LazyPath::Child(path, "not"), ssv, false, depth + 1);
        }
        for (key, list) in [
            ("allOf", &s.rare().all_of),
            ("oneOf", &s.rare().one_of),
            ("anyOf", &s.rare().any_of),
        ] {
            for (i, sub) in list.iter().flatten().enumerate() {
                self.walk(
                    sub,
                    &LazyPath::Index(&LazyPath::Child(path, key), i),
                    ssv,
                    false,
                    depth + 1,
                );
            }
        }
        if let Some(defs) = &s.rare().definitions {
            for (name, sub) in defs {
                self.walk(
                    sub,
                    &LazyPath::Key(&LazyPath::Child(path, "definitions"), name),
                    ssv,
                    false,
                    depth + 1,
                );
            }
        }
        if let Some(items) = &s.items {
            let sub_ssv = ssv.clone();
            match items {
                SchemaOrArray::Schema(sub) => {
                    self.walk(
                        sub,
                        &LazyPath::Child(path, "items"),
                        &sub_ssv,
                        false,
                        depth + 1,
                    );
                }
                SchemaOrArray::Array(list) => {
                    for (i, sub) in list.iter().enumerate() {
                        self.walk(
                            sub,
                            &LazyPath::Index(&LazyPath::Child(path, "items"), i),
                            &sub_ssv,
                            false,
                            depth + 1,
                        );
                    }
                }
                SchemaOrArray::Neither => {}
            }
        }
        if let Some(deps) = s.rare().dependencies.as_ref().and_then(|d| d.as_object()) {
            for e in &deps.entries {
                if e.value.as_object().is_some() {
                    let (sub, _) = crate::model::schema::decode(
                        &e.value,
                        &path.to_path().child("dependencies").key(&e.key),
                    );
                    self.walk(
                        &sub,
                        &LazyPath::Key(&LazyPath::Child(path, "dependencies"), &e.key),
                        ssv,
                        false,
                        depth + 1,
                    );
                }
            }
        }
        self.extensions(s, path);
        self.rules(s, path);
        // CEL is compiled only where this node and everything below it is free of
        // schema errors (CEL findings of children do not count).
        let schema_errors_here = self.f.len() > start;
        let has_rules = s.x_validations.as_ref().is_some_and(|r| !r.is_empty());
        // (Most schemas compile cleanly and have no rules: no path to make.)
        if !schema_errors_here && (has_rules || !self.compiled.is_empty()) {
            let here = path.to_path();
            if has_rules && let Some(runs) = self.rule_nodes.get(&path_hash(here.as_str())) {
                for run in runs {
                    if self.cost_rules[run.start].field.node_path() == here {
                        self.keep_cost[run.clone()].fill(true);
                    }
                }
            }
            if let Some(found) = self.compiled.remove(here.as_str()) {
                self.cel_out.extend(found);
            }
        }
    }

    #[allow(clippy::collapsible_match, clippy::collapsible_if)]
    fn extensions(&mut self, s: &SchemaProps, path: &LazyPath<'_>) {
        let ty = s.type_.as_deref().unwrap_or("");
        if s.x_preserve_unknown_fields == Some(false) {
            self.push(
                SCHEMA_EXTENSION,
                FieldError::invalid(
                    path.to_path().child("x-kubernetes-preserve-unknown-fields"),
                    false,
                    "must be true or undefined",
                ),
                "remove x-kubernetes-preserve-unknown-fields: false (false is the default)",
            );
        }
        if let Some(mt) = s.x_map_type.as_deref() {
            if ty != "object" {
                if ty.is_empty() {
                    self.push(
                        SCHEMA_EXTENSION,
                        FieldError::required(
                            path.to_path().child("type"),
                            "must be object if x-kubernetes-map-type is specified",
                        ),
                        "x-kubernetes-map-type applies to type: object",
                    );
                } else {
                    self.push(
                        SCHEMA_EXTENSION,
                        FieldError::invalid(
                            path.to_path().child("type"),
                            ty,
                            "must be object if x-kubernetes-map-type is specified",
                        ),
                        "x-kubernetes-map-type applies to type: object",
                    );
                }
            }
            if mt != "atomic" && mt != "granular" {
                self.push(
                    SCHEMA_EXTENSION,
                    FieldError::not_supported(
                        path.to_path().child("x-kubernetes-map-type"),
                        mt,
                        &["atomic", "granular"],
                    ),
                    "x-kubernetes-map-type is atomic or granular",
                );
            }
        }
        let lt = s.x_list_type.as_deref();
        if lt.is_some() && ty != "array" {
            if ty.is_empty() {
                self.push(
                    SCHEMA_EXTENSION,
                    FieldError::required(
                        path.to_path().child("type"),
                        "must be array if x-kubernetes-list-type is specified",
                    ),
                    "x-kubernetes-list-type applies to type: array",
                );
            } else {
                self.push(
                    SCHEMA_EXTENSION,
                    FieldError::invalid(
                        path.to_path().child("type"),
                        ty,
                        "must be array if x-kubernetes-list-type is specified",
                    ),
                    "x-kubernetes-list-type applies to type: array",
                );
            }
        } else if self.req.atomic_set_type
            && lt == Some("set")
            && let Some(SchemaOrArray::Schema(is)) = &s.items
        {
            match is.type_.as_deref() {
                Some("array") => {
                    if is.x_list_type.as_deref().is_some_and(|l| l != "atomic") {
                        self.push(
                            SCHEMA_EXTENSION,
                            FieldError::invalid(path.to_path().child("items").child("x-kubernetes-list-type"), json_opt_str(is.x_list_type.as_deref()), "must be atomic as item of a list with x-kubernetes-list-type=set"),
                            "items of a set must be atomic: set x-kubernetes-list-type: atomic on the item arrays",
                        );
                    }
                }
                Some("object") => {
                    if is.x_map_type.as_deref() != Some("atomic") {
                        self.push(
                            SCHEMA_EXTENSION,
                            FieldError::invalid(path.to_path().child("items").child("x-kubernetes-map-type"), json_opt_str(is.x_list_type.as_deref()), "must be atomic as item of a list with x-kubernetes-list-type=set"),
                            "items of a set must be atomic: set x-kubernetes-map-type: atomic on the item objects (or use x-kubernetes-list-type: map)",
                        );
                    }
                }
                _ => {}
            }
        }
        if let Some(lt) = lt
            && lt != "atomic"
            && lt != "set"
            && lt != "map"
        {
            self.push(
                SCHEMA_EXTENSION,
                FieldError::not_supported(
                    path.to_path().child("x-kubernetes-list-type"),
                    lt,
                    &["atomic", "set", "map"],
                ),
                "x-kubernetes-list-type is atomic, set or map",
            );
        }
        let keys = s.x_list_map_keys.as_deref().unwrap_or(&[]);
        if !keys.is_empty() {
            match lt {
                None => self.push(
                    SCHEMA_EXTENSION,
                    FieldError::required(
                        path.to_path().child("x-kubernetes-list-type"),
                        "must be map if x-kubernetes-list-map-keys is non-empty",
                    ),
                    "add x-kubernetes-list-type: map",
                ),
                Some("map") => {}
                Some(other) => self.push(
                    SCHEMA_EXTENSION,
                    FieldError::invalid(
                        path.to_path().child("x-kubernetes-list-type"),
                        other,
                        "must be map if x-kubernetes-list-map-keys is non-empty",
                    ),
                    "x-kubernetes-list-map-keys requires x-kubernetes-list-type: map",
                ),
            }
        }
        if lt == Some("map") {
            if keys.is_empty() {
                self.push(
                    SCHEMA_EXTENSION,
                    FieldError::required(
                        path.to_path().child("x-kubernetes-list-map-keys"),
                        "must not be empty if x-kubernetes-list-type is map",
                    ),
                    "name the key properties in x-kubernetes-list-map-keys, e.g. [name]",
                );
            }
            match &s.items {
                None => self.push(
                    SCHEMA_EXTENSION,
                    FieldError::required(
                        path.to_path().child("items"),
                        "must have a schema if x-kubernetes-list-type is map",
                    ),
                    "map lists need an items schema of type object",
                ),
                Some(items @ (SchemaOrArray::Array(_) | SchemaOrArray::Neither)) => {
                    let v = match items {
                        SchemaOrArray::Array(list) => {
                            let mut v = String::from("{\"Schema\":null,\"JSONSchemas\":[");
                            for (i, x) in list.iter().enumerate() {
                                if i > 0 {
                                    v.push(',');
                                }
                                gojson::schema(&mut v, x);
                            }
                            v.push_str("]}");
                            v
                        }
                        _ => "{\"Schema\":null,\"JSONSchemas\":null}".to_string(),
                    };
                    self.push(
                        SCHEMA_EXTENSION,
                        FieldError::invalid(
                            path.to_path().child("items"),
                            BadValue::Raw(v),
                            "must only have a single schema if x-kubernetes-list-type is map",
                        ),
                        "write items as one object schema",
                    );
                }
                Some(SchemaOrArray::Schema(is)) => {
                    let ity = is.type_.as_deref().unwrap_or("");
                    if ity != "object" {
                        self.push(
                            SCHEMA_EXTENSION,
                            FieldError::invalid(
                                path.to_path().child("items").child("type"),
                                ity,
                                "must be object if parent array's x-kubernetes-list-type is map",
                            ),
                            "items of a map list are objects",
                        );
                    } else {
                        let mut seen = std::collections::HashSet::new();
                        let props = is.properties.as_deref().unwrap_or(&[]);
                        let index = PropertyIndex::new(props);
                        // The errors below quote the whole list: rendered once, as the
                        // text each of them prints.
                        let mut quoted_keys: Option<BadValue> = None;
                        let mut quoted = || {
                            quoted_keys
                                .get_or_insert_with(|| BadValue::Raw(json_strings(keys).render()))
                                .clone()
                        };
                        for k in keys {
                            // Each error below quotes every key: stop at the budget.
                            if crate::diag::budget::exhausted() {
                                break;
                            }
                            match index.find(props, k).map(|(_, p)| p) {
                                Some(p) => {
                                    if matches!(p.type_.as_deref(), Some("array" | "object")) {
                                        self.push(SCHEMA_EXTENSION, FieldError::invalid(path.to_path().child("items").child("properties").key(k).child("type"), ity, "must be a scalar type if parent array's x-kubernetes-list-type is map"), "list map keys must be scalars (string, integer, number, boolean)");
                                    }
                                }
                                None => self.push(
                                    SCHEMA_EXTENSION,
                                    FieldError::invalid(
                                        path.to_path().child("x-kubernetes-list-map-keys"),
                                        quoted(),
                                        "entries must all be names of item properties",
                                    ),
                                    "every key must be a property of the items schema",
                                ),
                            }
                            if !seen.insert(k.as_str()) {
                                self.push(
                                    SCHEMA_EXTENSION,
                                    FieldError::invalid(
                                        path.to_path().child("x-kubernetes-list-map-keys"),
                                        quoted(),
                                        "must not contain duplicate entries",
                                    ),
                                    "list each key once",
                                );
                            }
                        }
                    }
                }
            }
        }
        // validateMapListKeysMapSet
        if let (true, Some(lt @ ("set" | "map")), Some(SchemaOrArray::Schema(is))) =
            (self.req.map_list_keys_map_set_validation, lt, &s.items)
        {
            if is.nullable {
                self.push(
                    SCHEMA_EXTENSION,
                    FieldError::forbidden(
                        path.to_path().child("items").child("nullable"),
                        format!("cannot be nullable when x-kubernetes-list-type is {lt}"),
                    ),
                    "remove nullable from the items schema",
                );
            }
            if lt == "map" {
                // Indexed: a list may name thousands of keys (a scan per key was
                // quadratic).
                let required: std::collections::HashSet<&str> =
                    is.required.iter().flatten().map(String::as_str).collect();
                let props = is.properties.as_deref().unwrap_or(&[]);
                let index = PropertyIndex::new(props);
                for k in keys {
                    let Some((_, p)) = index.find(props, k) else {
                        continue;
                    };
                    if !required.contains(k.as_str()) && p.default.is_none() {
                        self.push(SCHEMA_EXTENSION, FieldError::required(path.to_path().child("items").child("properties").key(k).child("default"), "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"), "add the key to the items' required list, or give it a default");
                    }
                    if p.nullable {
                        self.push(SCHEMA_EXTENSION, FieldError::forbidden(path.to_path().child("items").child("properties").key(k).child("nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"), "list map keys cannot be nullable");
                    }
                }
            }
        }
    }

    /// The structural checks of `x-kubernetes-validations` (CEL compilation is the CEL
    /// module's, through the hook).
    fn rules(&mut self, s: &SchemaProps, path: &LazyPath<'_>) {
        let Some(rules) = &s.x_validations else {
            return;
        };
        if rules.is_empty() {
            return;
        }
        // The node's path is made once, and a rule's only for its findings: made per
        // rule, it rebuilt every ancestor's path (O(D^2) bytes a rule), which was a
        // good part of checking 40,000 rules at depth 400 (5.4 s).
        let list_path = path.to_path().child("x-kubernetes-validations");
        for (i, rule) in rules.iter().enumerate() {
            let rp = || list_path.index(i);
            let trimmed_rule = rule.rule.trim();
            let message = rule.message.as_deref().unwrap_or("");
            let trimmed_msg = message.trim();
            if trimmed_rule.is_empty() {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::required(rp().child("rule"), "rule is not specified"),
                    "write a CEL expression in rule",
                );
            } else if !message.is_empty() && trimmed_msg.is_empty() {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::invalid(
                        rp().child("message"),
                        message,
                        "must be non-empty if specified",
                    ),
                    "write a message or remove it",
                );
            } else if has_newlines(trimmed_msg) {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::invalid(
                        rp().child("message"),
                        message,
                        "must not contain line breaks",
                    ),
                    "write the message on one line",
                );
            } else if has_newlines(trimmed_rule) && trimmed_msg.is_empty() {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::required(
                        rp().child("message"),
                        "message must be specified if rule contains line breaks",
                    ),
                    "add a message for multi-line rules",
                );
            }
            let me = rule.message_expression.as_deref().unwrap_or("");
            if !me.is_empty() && me.trim().is_empty() {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::required(
                        rp().child("messageExpression"),
                        "messageExpression must be non-empty if specified",
                    ),
                    "write a CEL expression or remove messageExpression",
                );
            }
            if let Some(reason) = rule.reason.as_deref()
                && !matches!(
                    reason,
                    "FieldValueRequired"
                        | "FieldValueForbidden"
                        | "FieldValueInvalid"
                        | "FieldValueDuplicate"
                )
            {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::not_supported(rp().child("reason"), reason, &["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"]),
                    "reason is one of FieldValueInvalid, FieldValueForbidden, FieldValueRequired, FieldValueDuplicate",
                );
            }
            let fp = rule.field_path.as_deref().unwrap_or("");
            if !fp.is_empty() && fp.trim().is_empty() {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::invalid(
                        rp().child("fieldPath"),
                        fp,
                        "must be non-empty if specified",
                    ),
                    "write a field path such as .spec.replicas or remove fieldPath",
                );
            }
            if has_newlines(fp) {
                self.push(
                    SCHEMA_VALIDATION_RULE,
                    FieldError::invalid(
                        rp().child("fieldPath"),
                        fp,
                        "must not contain line breaks",
                    ),
                    "write the field path on one line",
                );
            }
            if !fp.is_empty()
                && let Ok(ss) = structural::from_props(s)
                && let Err(e) = fieldpath::valid_field_path(fp, &ss, true)
            {
                if e == fieldpath::NIL_SCHEMA_PANIC {
                    let span = rule.field_path_span.unwrap_or(rule.span);
                    self.f.prebuilt.push(super::spec::server_panic(
                        SCHEMA_VALIDATION_RULE,
                        &rp().child("fieldPath"),
                        span,
                        "the server follows this path past a map whose additionalProperties is a boolean (no schema) and crashes; end the path at the map, or give additionalProperties a schema",
                    ));
                } else {
                    self.push(SCHEMA_VALIDATION_RULE, FieldError::invalid(rp().child("fieldPath"), fp, "must be a valid path"), "fieldPath is relative to this schema node and must name declared fields, e.g. .spec.replicas or .labels['a']");
                }
            }
        }
    }
}
