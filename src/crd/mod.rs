//! CustomResourceDefinition validation: everything the API server checks when an
//! `apiextensions.k8s.io/v1` CRD is created (`ValidateCustomResourceDefinition` and
//! what it calls). CEL rule compilation and the CEL checks of defaults plug in through
//! [`Hooks`]; the defaults use [`crate::cel`] (see [`cel_rules`]).
//!
//! Findings carry the server's field path, reason and message. A schema (or
//! subresources, printer columns, selectable fields) shared by all versions is checked
//! once, as the server does, and reported with the server's path (`spec.validation…`,
//! after its internal conversion; see [`server_paths`]) at the first version's node.

pub mod cabundle;
pub mod cel_rules;
pub mod defaults;
pub mod findings;
pub mod gojson;
pub mod hooks;
pub mod locate;
pub mod openapi;
pub mod printer_jsonpath;
pub mod server_paths;
pub mod spec;
pub mod unpruned;
pub mod update;
pub mod warnings;

use crate::diag::{Diagnostic, FieldError, FieldPath, budget};
use crate::model::crd::Crd;

use crate::source::Node;
use gojson::Hoisted;

pub use findings::{Finding, Findings};
pub use hooks::{CelSchemaInput, Hooks, NodeCelFindings, Options, SchemaCelFindings};
pub use update::{OldCrd, Requirements};

crate::declare_codes! {
    METADATA = "crd-metadata", Error, "metadata of the CRD: name must be <plural>.<group>, valid labels, annotations, finalizers, owner references, API approval in protected groups";
    GROUP = "crd-group", Error, "spec.group must be a lowercase DNS subdomain with at least one dot";
    SCOPE = "crd-scope", Error, "spec.scope must be Namespaced or Cluster";
    NAMES = "crd-names", Error, "spec.names: plural, singular, kind, listKind, shortNames and categories must be present and DNS-1035 labels";
    VERSIONS = "crd-versions", Error, "spec.versions: valid unique names, exactly one storage version, a schema per version, valid deprecation warnings";
    CONVERSION = "crd-conversion", Error, "spec.conversion: strategy None or Webhook, and a valid webhook client config and review versions";
    PRESERVE_UNKNOWN_FIELDS = "crd-preserve-unknown-fields", Error, "spec.preserveUnknownFields must not be true in apiextensions.k8s.io/v1";
    PRINTER_COLUMNS = "crd-printer-columns", Error, "additionalPrinterColumns: name, type and format from the allowed sets, jsonPath starting with a dot";
    SUBRESOURCES = "crd-subresources", Error, "subresources.scale paths must be simple JSON paths under .spec / .status";
    SELECTABLE_FIELDS = "crd-selectable-fields", Error, "selectableFields: at most 8 unique paths to string, integer or boolean fields outside metadata";
    SCHEMA_STATUS_ROOT = "schema-status-root", Error, "with the status subresource, the root schema may only use a restricted set of keywords and type object";
    SCHEMA_FORBIDDEN_FIELD = "schema-forbidden-field", Error, "a JSON Schema keyword CRD schemas do not support ($ref, definitions, dependencies, patternProperties, uniqueItems, …)";
    SCHEMA_INVALID_TYPE = "schema-invalid-type", Error, "type must be one of array, boolean, integer, number, object, string";
    SCHEMA_NOT_STRUCTURAL = "schema-not-structural", Error, "the schema is not structural (missing types, structure inside junctors, metadata restrictions, undeclared fields)";
    SCHEMA_INVALID_PATTERN = "schema-invalid-pattern", Error, "pattern is not a valid Go (RE2) regular expression";
    SCHEMA_INVALID_DEFAULT = "schema-invalid-default", Error, "a default is not allowed here, would be pruned, or is invalid against its schema";
    SCHEMA_EXTENSION = "schema-extension", Error, "misuse of x-kubernetes-* extensions (list-type, list-map-keys, map-type, embedded-resource, preserve-unknown-fields, int-or-string)";
    SCHEMA_VALIDATION_RULE = "schema-validation-rule", Error, "x-kubernetes-validations entries: rule present, message/messageExpression/reason/fieldPath well-formed";
    SCHEMA_DEFAULT_NOT_EVALUATED = "schema-default-not-evaluated", Warning, "a CEL rule crdlint cannot evaluate yet applies to a default value, so the default was not checked against it";
    SCHEMA_PATTERN_NOT_EVALUATED = "schema-pattern-not-evaluated", Warning, "a pattern Go accepts is too large for crdlint to match values against, so values (and defaults) are not checked against it";
    SCHEMA_UNKNOWN_FORMAT = "schema-unknown-format", Warning, "a format the server does not recognize for the type (ignored during validation)";
    PRINTER_COLUMN_IGNORED = "crd-printer-column-ignored", Warning, "a printer column's jsonPath the server's table printer cannot parse: kubectl get shows neither that column nor any after it";
    SCHEMA_LIST_SET_NON_SCALAR = "schema-list-set-non-scalar", Warning, "x-kubernetes-list-type: set with object or array items is not supported by server-side apply or CEL";
}

/// Validates one `apiextensions.k8s.io/v1` CRD document as the API server does on
/// create: decoding errors first (then nothing else, as the server stops there), else
/// every validation error (CEL included), else the server's warnings. Without the source
/// text, CEL compile errors point at the whole rule; see [`validate_source`].
pub fn validate(root: &Node) -> Vec<Diagnostic> {
    validate_with_options(root, &Options::default())
}

/// [`validate`] for a document parsed from `source`: CEL compile errors point at the
/// exact character inside the rule string.
pub fn validate_source(root: &Node, source: &str) -> Vec<Diagnostic> {
    validate_with_options(
        root,
        &Options {
            source: Some(source),
            ..Options::default()
        },
    )
}

/// [`validate`] with CEL and value-validation hooks.
pub fn validate_with(root: &Node, hooks: &Hooks) -> Vec<Diagnostic> {
    validate_with_options(
        root,
        &Options {
            hooks: *hooks,
            ..Options::default()
        },
    )
}

/// [`validate`] with hooks, source text and the server version; with `options.old`, as
/// an update of that stored CRD (`ValidateCustomResourceDefinitionUpdate`).
pub fn validate_with_options(root: &Node, options: &Options<'_>) -> Vec<Diagnostic> {
    let (crd, decode_errors) = crate::model::crd::decode(root);
    validate_decoded(root, &crd, decode_errors, options)
}

/// [`validate_with_options`] of a CRD already decoded from `root` (with the errors of
/// that decoding), so that a caller who also needs the model decodes it once.
pub fn validate_decoded(
    root: &Node,
    crd: &Crd,
    decode_errors: Vec<Diagnostic>,
    options: &Options<'_>,
) -> Vec<Diagnostic> {
    if !decode_errors.is_empty() {
        return decode_errors;
    }
    let findings_budget = budget::ObjectBudget::start();
    let (findings, hoisted) = check_tree(crd, Some(root), options);
    let server_paths = server_paths::ServerPaths::new(crd, hoisted);
    let has_errors = findings.has_errors();
    let mut out = findings.into_diagnostics(root);
    // Warnings come last, and only without errors: when they alone pass the findings
    // limit, every check was done and the limit is a warning.
    let checked_to_the_end = !has_errors && !findings_budget.exhausted();
    if !has_errors {
        let mut warnings = create_warnings_at(crd, options.kube_version);
        if let Some(old) = options.old {
            // `WarningsOnUpdate`: only formats the old object did not have.
            // Sets: 40,000 formats in both CRDs took 2.9 s scanning lists.
            let before: std::collections::HashSet<String> = old
                .unrecognized_formats(options.kube_version)
                .iter()
                .map(|f| format!("unrecognized format {}", crate::diag::gofmt::quote(f)))
                .collect();
            let old_sets = old_set_warnings(old, options.kube_version);
            warnings.retain(|w| match w.code {
                SCHEMA_UNKNOWN_FORMAT => !before.contains(&w.message),
                SCHEMA_LIST_SET_NON_SCALAR => !old_sets.contains(&w.message),
                _ => true,
            });
        }
        out.extend(warnings);
        out.extend(warnings::printer_column_warnings(crd, hoisted.columns));
    }
    for d in &mut out {
        server_paths.apply(d);
    }
    if findings_budget.exhausted() {
        out.push(if checked_to_the_end {
            budget::warnings_limit(root.span)
        } else {
            budget::findings_limit(root.span)
        });
    }
    out
}

/// The non-scalar `set` warnings the old object would get (not repeated on an update).
fn old_set_warnings(
    old: &OldCrd,
    version: crate::cel::KubeVersion,
) -> std::collections::HashSet<String> {
    create_warnings_at(&old.crd, version)
        .into_iter()
        .filter(|w| w.code == SCHEMA_LIST_SET_NON_SCALAR)
        .map(|w| w.message)
        .collect()
}

/// All validation findings of a decoded CRD, in the server's order.
pub fn check(crd: &Crd, hooks: &Hooks) -> Findings {
    check_with(
        crd,
        &Options {
            hooks: *hooks,
            ..Options::default()
        },
    )
}

/// [`check`] with source text and server version.
pub fn check_with(crd: &Crd, options: &Options<'_>) -> Findings {
    check_tree(crd, None, options).0
}

/// [`check_with`] given the manifest `crd` was decoded from (which makes comparing
/// the versions' schemas cheaper), and what the server's conversion moves to the spec.
fn check_tree(crd: &Crd, tree: Option<&Node>, options: &Options<'_>) -> (Findings, Hoisted) {
    let d = spec::Defaulted::new(crd, tree);
    let update = options.old.map(|old| update::Update::new(old, &d));
    let mut req = update
        .as_ref()
        .map_or(Requirements::CREATE, |u| u.old.requirements);
    let mut f = Findings::default();
    match &update {
        Some(u) => spec::validate_metadata_update(&d, u.old, &mut f),
        None => spec::validate_metadata(&d, &mut f),
    }
    spec::validate_group_scope(&d, &mut f);
    let has_defaults = crd.versions.iter().any(|v| {
        v.schema
            .as_ref()
            .is_some_and(|s| warnings::any_node(s, &mut |n| n.default.is_some(), 0))
    });
    // Pruning unknown fields, defaults and `x-kubernetes-*` extensions need structural
    // schemas whatever the old object was.
    let preserve = crd
        .preserve_unknown_fields
        .as_ref()
        .is_some_and(|p| p.value);
    if !preserve || has_defaults || has_kubernetes_extensions(crd) {
        req.structural_schema = true;
    }
    spec::validate_versions(&d, &mut f, &req, update.as_ref(), |f, i, status| {
        let Some(version) = crd.versions.get(i) else {
            return;
        };
        if let Some(schema) = &version.schema {
            let path = FieldPath::root("spec")
                .child("versions")
                .index(i)
                .child("schema");
            let mut req = req;
            let name = version.name.as_ref().map_or("", |n| n.value.as_str());
            req.suppress_per_expression_cost = update
                .as_ref()
                .is_some_and(|u| u.unchanged_schemas.contains(name));
            openapi::validate(f, schema, &path, status, options, &req);
        }
    });
    spec::validate_names(&d, &mut f);
    spec::validate_conversion(&d, &mut f, &req);
    if let Some(u) = &update {
        spec::validate_immutable(&d, u.old, &req, &mut f);
    }
    spec::validate_preserve_and_approval(&d, &mut f, has_defaults, options.old);
    (f, d.hoisted)
}

/// `specHasKubernetesExtensions`.
fn has_kubernetes_extensions(crd: &Crd) -> bool {
    crd.versions
        .iter()
        .filter_map(|v| v.schema.as_ref())
        .any(|s| {
            warnings::any_node(
                s,
                &mut |n| {
                    n.x_embedded_resource
                        || n.x_preserve_unknown_fields.is_some()
                        || n.x_int_or_string
                        || n.x_list_map_keys.as_ref().is_some_and(|k| !k.is_empty())
                        || n.x_list_type.is_some()
                        || n.x_validations.as_ref().is_some_and(|v| !v.is_empty())
                },
                0,
            )
        })
}

/// The warnings the server returns on a successful create.
pub fn create_warnings(crd: &Crd) -> Vec<Diagnostic> {
    create_warnings_at(crd, crate::cel::KubeVersion::NEWEST)
}

/// [`create_warnings`] of a server of `version`.
pub fn create_warnings_at(crd: &Crd, version: crate::cel::KubeVersion) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for (i, v) in crd.versions.iter().enumerate() {
        if let Some(s) = &v.schema {
            let path = FieldPath::root("spec")
                .child("versions")
                .index(i)
                .child("schema")
                .child("openAPIV3Schema");
            out.extend(warnings::schema_warnings(s, &path, &mut seen, version));
        }
    }
    out
}

/// The message of the `NonStructuralSchema` condition the server would set on this
/// CRD (`None` when every schema is structural), as its controller words it.
pub fn nonstructural_condition(crd: &Crd) -> Option<String> {
    let mut errs: Vec<FieldError> = Vec::new();
    if crd
        .preserve_unknown_fields
        .as_ref()
        .is_some_and(|p| p.value)
    {
        errs.push(FieldError::invalid(
            FieldPath::root("spec").child("preserveUnknownFields"),
            true,
            "must be false",
        ));
    }
    for (i, v) in crd.versions.iter().enumerate() {
        let Some(schema) = &v.schema else {
            continue;
        };
        match crate::schema::structural::from_props(schema) {
            Err(e) => {
                let name = v.name.as_ref().map_or("", |n| n.value.as_str());
                return Some(format!(
                    "failed to check validation schema for version {name}: {e}"
                ));
            }
            Ok(s) => {
                let path = FieldPath::root("spec")
                    .child("versions")
                    .index(i)
                    .child("schema")
                    .child("openAPIV3Schema");
                errs.extend(crate::schema::structural::validate_structural(&path, &s));
            }
        }
    }
    aggregate(&errs)
}

/// `ErrorList.ToAggregate().Error()`: one message, or `[a, b]` without duplicates.
pub fn aggregate(errs: &[FieldError]) -> Option<String> {
    let mut msgs: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for e in errs {
        let m = e.to_string();
        if seen.insert(m.clone()) {
            msgs.push(m);
        }
    }
    match msgs.len() {
        0 => None,
        1 => msgs.pop(),
        _ => Some(format!("[{}]", msgs.join(", "))),
    }
}
