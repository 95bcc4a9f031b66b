//! ObjectMeta of custom resources and of embedded resources
//! (`x-kubernetes-embedded-resource`): strict decoding into `metav1.ObjectMeta`
//! (unknown fields, Go type errors), and the apimachinery validation of names,
//! namespaces, labels, annotations, owner references and finalizers.

use crate::diag::{BadValue, Diagnostic, FieldError, FieldPath, LazyPath};
use crate::model::OBJECT_META_FIELDS;
use crate::model::decode::{At, Decoder, Field};
use crate::model::owner_ref::{self, OwnerRef};
use crate::names::{
    is_dns1035_label, is_dns1123_label, is_dns1123_subdomain, is_label_value, is_qualified_name,
    mask_trailing_dash,
};
use crate::source::{Mapping, Node, Span, Value};

use super::prune::UnknownField;
use super::structural::{Structural, StructuralOrBool};
use super::validate::SchemaError;

/// The parts of a decoded ObjectMeta that validation looks at, with spans.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// The `metadata` value (or the object when absent).
    pub span: Span,
    pub name: Option<Field<String>>,
    pub generate_name: Option<Field<String>>,
    pub namespace: Option<Field<String>>,
    pub generation: Option<Field<i64>>,
    pub labels: Vec<(Field<String>, Field<String>)>,
    pub labels_span: Option<Span>,
    pub annotations: Vec<(Field<String>, Field<String>)>,
    pub annotations_span: Option<Span>,
    pub finalizers: Vec<Field<String>>,
    pub finalizers_span: Option<Span>,
    pub owner_references: Vec<OwnerRef>,
    pub uid: Option<Field<String>>,
    pub creation_timestamp: Option<Field<String>>,
    pub deletion_timestamp: Option<Field<String>>,
    pub deletion_grace_period_seconds: Option<Field<i64>>,
    pub managed_fields: Vec<ManagedFieldsEntry>,
}

/// The parts of a `managedFields` entry `ValidateManagedFields` checks.
#[derive(Clone, Debug, Default)]
pub struct ManagedFieldsEntry {
    pub span: Span,
    pub manager: Option<Field<String>>,
    pub operation: Option<Field<String>>,
    pub fields_type: Option<Field<String>>,
    pub subresource: Option<Field<String>>,
}

/// A Go JSON decoding error of metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct MetaDecodeError {
    /// `json: cannot unmarshal number into Go struct field ObjectMeta.labels of type string`.
    pub message: String,
    pub span: Span,
}

#[derive(Clone, Debug, Default)]
pub struct MetaDecode {
    pub meta: Meta,
    /// Fields `metav1.ObjectMeta` does not declare (`metadata.foo`), with `prefix`.
    pub unknown: Vec<UnknownField>,
    pub error: Option<MetaDecodeError>,
}

/// Decodes `metadata` strictly (`GetObjectMetaWithOptions` with unknown-field paths).
/// `prefix` is the path of the metadata field (`metadata`, `spec.template.metadata`).
pub fn decode(metadata: &Node, prefix: &str) -> MetaDecode {
    // The server marshals the metadata map back to JSON (keys sorted) and decodes
    // that: of several type errors, the first in key order is reported.
    let sorted = sorted_keys(metadata, 0);
    let metadata = &sorted;
    // Type errors name Go struct fields from ObjectMeta itself.
    let mut dec = Decoder::new("");
    let meta = decode_meta(&mut dec, metadata, &At::root());
    let mut out = MetaDecode {
        meta,
        ..MetaDecode::default()
    };
    if dec.has_type_error() {
        if let Some(d) = dec.finish().into_iter().next() {
            out.error = Some(MetaDecodeError {
                message: d.detail.unwrap_or(d.message),
                span: d.span.unwrap_or(metadata.span),
            });
        }
        return out;
    }
    for d in dec.finish() {
        let Some(detail) = d.detail.as_deref() else {
            continue;
        };
        let strict = detail
            .strip_prefix("unknown field \"")
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(detail);
        out.unknown.push(UnknownField::new(
            format!("{prefix}.{strict}"),
            d.span.unwrap_or(metadata.span),
        ));
    }
    out
}

/// `node` with every mapping's keys in byte order (as `json.Marshal` writes a Go map).
fn sorted_keys(node: &Node, depth: usize) -> Node {
    let mut out = node.clone();
    sort_in_place(&mut out, depth);
    out
}

fn sort_in_place(node: &mut Node, depth: usize) {
    if depth > 1000 {
        return;
    }
    match &mut node.value {
        Value::Object(map) => {
            map.entries.sort_by(|a, b| a.key.cmp(&b.key));
            for e in &mut map.entries {
                sort_in_place(&mut e.value, depth + 1);
            }
        }
        Value::Array(items) => {
            for item in items {
                sort_in_place(item, depth + 1);
            }
        }
        _ => {}
    }
}

fn decode_meta(dec: &mut Decoder, node: &Node, at: &At) -> Meta {
    const OM: &str = "ObjectMeta";
    let mut m = Meta {
        span: node.span,
        ..Meta::default()
    };
    let Some(entries) = dec.object(node, at, "v1.ObjectMeta", OBJECT_META_FIELDS) else {
        return m;
    };
    for e in entries {
        let fat = at.field(OM, &e.key);
        let field = |v: String| Field::new(v, e.key_span, e.value.span);
        match e.key.as_str() {
            "name" => m.name = dec.string(&e.value, &fat, "string").map(field),
            "generateName" => m.generate_name = dec.string(&e.value, &fat, "string").map(field),
            "namespace" => m.namespace = dec.string(&e.value, &fat, "string").map(field),
            "selfLink" | "resourceVersion" => {
                dec.string(&e.value, &fat, "string");
            }
            "uid" => m.uid = dec.string(&e.value, &fat, "types.UID").map(field),
            "generation" => {
                m.generation = dec
                    .int(&e.value, &fat, "int64")
                    .map(|i| Field::new(i, e.key_span, e.value.span));
            }
            "deletionGracePeriodSeconds" => {
                m.deletion_grace_period_seconds = dec
                    .int(&e.value, &fat, "int64")
                    .map(|i| Field::new(i, e.key_span, e.value.span));
            }
            "creationTimestamp" | "deletionTimestamp" => {
                dec.time(&e.value, &fat);
                let time = e
                    .value
                    .as_str()
                    .filter(|t| !t.is_empty())
                    .map(|t| field(t.to_string()));
                if e.key == "creationTimestamp" {
                    m.creation_timestamp = time;
                } else {
                    m.deletion_timestamp = time;
                }
            }
            "labels" => {
                m.labels = dec.string_map(&e.value, &fat).unwrap_or_default();
                m.labels_span = Some(e.key_span);
            }
            "annotations" => {
                m.annotations = dec.string_map(&e.value, &fat).unwrap_or_default();
                m.annotations_span = Some(e.key_span);
            }
            "finalizers" => {
                m.finalizers = dec.strings(&e.value, &fat, "[]string").unwrap_or_default();
                m.finalizers_span = Some(e.key_span);
            }
            "ownerReferences" => {
                if let Some(items) = dec.array(&e.value, &fat, "[]v1.OwnerReference") {
                    for (i, item) in items.iter().enumerate() {
                        m.owner_references
                            .push(owner_ref::decode(dec, item, &fat.index(i)));
                    }
                }
            }
            "managedFields" => {
                if let Some(items) = dec.array(&e.value, &fat, "[]v1.ManagedFieldsEntry") {
                    for (i, item) in items.iter().enumerate() {
                        m.managed_fields
                            .push(decode_managed_fields(dec, item, &fat.index(i)));
                    }
                }
            }
            _ => {}
        }
    }
    m
}

fn decode_managed_fields(dec: &mut Decoder, node: &Node, at: &At) -> ManagedFieldsEntry {
    const KEYS: &[&str] = &[
        "manager",
        "operation",
        "apiVersion",
        "time",
        "fieldsType",
        "fieldsV1",
        "subresource",
    ];
    let mut entry = ManagedFieldsEntry {
        span: node.span,
        ..ManagedFieldsEntry::default()
    };
    let Some(entries) = dec.object(node, at, "v1.ManagedFieldsEntry", KEYS) else {
        return entry;
    };
    for e in entries {
        let fat = at.field("ManagedFieldsEntry", &e.key);
        let field = |v: String| Field::new(v, e.key_span, e.value.span);
        match e.key.as_str() {
            "operation" => {
                entry.operation = dec
                    .string(&e.value, &fat, "v1.ManagedFieldsOperationType")
                    .map(field);
            }
            "time" => dec.time(&e.value, &fat),
            "fieldsV1" => {}
            key => {
                let value = dec.string(&e.value, &fat, "string").map(field);
                match key {
                    "manager" => entry.manager = value,
                    "fieldsType" => entry.fields_type = value,
                    "subresource" => entry.subresource = value,
                    _ => {}
                }
            }
        }
    }
    entry
}

// ---------------------------------------------------------------------------------
/// How a resource's names are checked: custom resources use DNS subdomains, embedded
/// resources only path-segment rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameRule {
    DnsSubdomain,
    PathSegment,
}

impl NameRule {
    fn check(self, name: &str, prefix: bool) -> Vec<String> {
        match self {
            NameRule::DnsSubdomain => {
                if prefix {
                    is_dns1123_subdomain(&mask_trailing_dash(name))
                } else {
                    is_dns1123_subdomain(name)
                }
            }
            NameRule::PathSegment => {
                if !prefix && (name == "." || name == "..") {
                    return vec![format!("may not be '{name}'")];
                }
                ["/", "%"]
                    .iter()
                    .filter(|c| name.contains(*c))
                    .map(|c| format!("may not contain '{c}'"))
                    .collect()
            }
        }
    }
}

/// The suffix crdlint uses where the server appends 5 random characters to a
/// `generateName`.
pub const GENERATED_SUFFIX: &str = "bcdfg";

/// The name the server generates from `generateName` (shown with a fixed suffix).
pub fn generated_name(base: &str) -> String {
    let mut cut = base.len().min(58);
    while !base.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{GENERATED_SUFFIX}", &base[..cut])
}

fn err(error: FieldError, span: Span) -> SchemaError {
    SchemaError { error, span }
}

/// `ValidateObjectMetaAccessor` on create. `name_override` is the name used when the
/// server generates one; `requires_namespace` is the resource's scope.
pub fn validate_meta(
    meta: &Meta,
    requires_namespace: bool,
    rule: NameRule,
    path: &FieldPath,
    key_span: Span,
) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    let generate_name = meta.generate_name.as_ref().filter(|g| !g.value.is_empty());
    if let Some(g) = generate_name {
        for msg in rule.check(&g.value, true) {
            errs.push(err(
                FieldError::invalid(path.child("generateName"), g.value.as_str(), msg),
                g.span,
            ));
        }
    }
    let name = meta.name.as_ref().filter(|n| !n.value.is_empty());
    match (name, generate_name) {
        (Some(n), _) => {
            for msg in rule.check(&n.value, false) {
                errs.push(err(
                    FieldError::invalid(path.child("name"), n.value.as_str(), msg),
                    n.span,
                ));
            }
        }
        (None, Some(g)) if rule == NameRule::DnsSubdomain => {
            // The server validates the generated name.
            let generated = generated_name(&g.value);
            for msg in rule.check(&generated, false) {
                errs.push(err(
                    FieldError::invalid(path.child("name"), generated.as_str(), msg),
                    g.span,
                ));
            }
        }
        (None, _) => errs.push(err(
            FieldError::required(path.child("name"), "name or generateName is required"),
            key_span,
        )),
    }
    errs.extend(validate_common(meta, requires_namespace, path, key_span));
    errs
}

fn validate_common(
    meta: &Meta,
    requires_namespace: bool,
    path: &FieldPath,
    key_span: Span,
) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    let namespace = meta.namespace.as_ref().filter(|n| !n.value.is_empty());
    if requires_namespace {
        match namespace {
            None => errs.push(err(
                FieldError::required(path.child("namespace"), ""),
                key_span,
            )),
            Some(ns) => {
                for msg in is_dns1123_label(&ns.value) {
                    errs.push(err(
                        FieldError::invalid(path.child("namespace"), ns.value.as_str(), msg),
                        ns.span,
                    ));
                }
            }
        }
    } else if let Some(ns) = namespace {
        errs.push(err(
            FieldError::forbidden(path.child("namespace"), "not allowed on this type"),
            ns.key_span,
        ));
    }
    if let Some(g) = &meta.generation
        && g.value < 0
    {
        errs.push(err(
            FieldError::invalid(
                path.child("generation"),
                g.value,
                "must be greater than or equal to 0",
            ),
            g.span,
        ));
    }
    errs.extend(validate_labels_annotations_owners(meta, path));
    let finalizers_path = path.child("finalizers");
    for f in &meta.finalizers {
        for msg in is_qualified_name(&f.value) {
            errs.push(err(
                FieldError::invalid(finalizers_path.clone(), f.value.as_str(), msg),
                f.span,
            ));
        }
    }
    let has = |name: &str| meta.finalizers.iter().any(|f| f.value == name);
    if has("orphan") && has("foregroundDeletion") {
        let list: Vec<serde_json::Value> = meta
            .finalizers
            .iter()
            .map(|f| serde_json::Value::String(f.value.clone()))
            .collect();
        errs.push(err(
            FieldError::invalid(
                finalizers_path,
                BadValue::Json(serde_json::Value::Array(list)),
                "finalizer orphan and foregroundDeletion cannot be both set",
            ),
            meta.finalizers_span.unwrap_or(meta.span),
        ));
    }
    errs
}

/// `ValidateManagedFields`: the last check of `ValidateObjectMetaAccessor`. Only
/// embedded metadata gets here as written: a resource's own entries pass through the
/// field manager first, which rebuilds them.
fn validate_managed_fields(meta: &Meta, path: &FieldPath) -> Vec<SchemaError> {
    fn text(f: &Option<Field<String>>) -> &str {
        f.as_ref().map_or("", |f| f.value.as_str())
    }
    /// `FieldManagerMaxLength` and `MaxSubresourceNameLength`.
    const MAX_MANAGER: usize = 128;
    const MAX_SUBRESOURCE: usize = 256;
    let mut errs = Vec::new();
    for (i, entry) in meta.managed_fields.iter().enumerate() {
        let at = path.child("managedFields").index(i);
        let span = |f: &Option<Field<String>>| f.as_ref().map_or(entry.span, |f| f.span);
        let operation = text(&entry.operation);
        if operation != "Apply" && operation != "Update" {
            errs.push(err(
                FieldError::invalid(
                    at.child("operation"),
                    operation,
                    "must be `Apply` or `Update`",
                ),
                span(&entry.operation),
            ));
        }
        let fields_type = text(&entry.fields_type);
        if !fields_type.is_empty() && fields_type != "FieldsV1" {
            errs.push(err(
                FieldError::invalid(at.child("fieldsType"), fields_type, "must be `FieldsV1`"),
                span(&entry.fields_type),
            ));
        }
        // `ValidateFieldManager`.
        let manager = text(&entry.manager);
        if manager.len() > MAX_MANAGER {
            errs.push(err(
                FieldError::too_long(at.child("manager"), MAX_MANAGER as i64),
                span(&entry.manager),
            ));
        }
        for (at_byte, c) in manager.char_indices() {
            if !crate::diag::gofmt::is_go_print(c) {
                errs.push(err(
                    FieldError::invalid(
                        at.child("manager"),
                        manager,
                        format!(
                            "invalid character U+{:04X} (at position {at_byte})",
                            c as u32
                        ),
                    ),
                    span(&entry.manager),
                ));
            }
        }
        if text(&entry.subresource).len() > MAX_SUBRESOURCE {
            errs.push(err(
                FieldError::too_long(at.child("subresource"), MAX_SUBRESOURCE as i64),
                span(&entry.subresource),
            ));
        }
    }
    errs
}

/// Labels, annotations and owner references: checked on create and on update.
fn validate_labels_annotations_owners(meta: &Meta, path: &FieldPath) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    let labels_path = path.child("labels");
    for (k, v) in &meta.labels {
        for msg in is_qualified_name(&k.value) {
            errs.push(err(
                FieldError::invalid(labels_path.clone(), k.value.as_str(), msg),
                k.key_span,
            ));
        }
        for msg in is_label_value(&v.value) {
            errs.push(err(
                FieldError::invalid(labels_path.clone(), v.value.as_str(), msg),
                v.span,
            ));
        }
    }
    let annotations_path = path.child("annotations");
    let mut total = 0usize;
    for (k, v) in &meta.annotations {
        for msg in is_qualified_name(&k.value.to_lowercase()) {
            errs.push(err(
                FieldError::invalid(annotations_path.clone(), k.value.as_str(), msg),
                k.key_span,
            ));
        }
        total += k.value.len() + v.value.len();
    }
    if total > 256 * 1024 {
        errs.push(err(
            FieldError::too_long(annotations_path, 256 * 1024),
            meta.annotations_span.unwrap_or(meta.span),
        ));
    }
    errs.extend(validate_owner_references(
        &meta.owner_references,
        &path.child("ownerReferences"),
    ));
    errs
}

/// `ValidateObjectMetaAccessorUpdate` after the server's `BeforeUpdate` (which keeps
/// the old uid, creationTimestamp, deletionTimestamp and grace period when the new
/// object omits them). `resourceVersion` is not required: crdlint simulates
/// `kubectl apply`, whose patch the server applies to the stored object. Fields the
/// old manifest does not state (uid, creationTimestamp) are not compared.
///
/// The server's `validateCommonFields` runs the whole `ValidateObjectMetaAccessor` on
/// an update too, with the path-segment name rule instead of the strategy's DNS
/// subdomain: finalizers, namespace and generateName are checked on every update, with
/// no ratcheting.
pub fn validate_meta_update(
    new: &Meta,
    old: &Meta,
    requires_namespace: bool,
    path: &FieldPath,
    key_span: Span,
) -> Vec<SchemaError> {
    let mut errs = validate_meta(
        new,
        requires_namespace,
        NameRule::PathSegment,
        path,
        key_span,
    );
    if old.deletion_timestamp.is_some() {
        let before: std::collections::HashSet<&str> =
            old.finalizers.iter().map(|f| f.value.as_str()).collect();
        let added: std::collections::BTreeSet<&str> = new
            .finalizers
            .iter()
            .map(|f| f.value.as_str())
            .filter(|f| !before.contains(f))
            .collect();
        if !added.is_empty() {
            let list = added
                .iter()
                .map(|f| crate::diag::gofmt::quote(f))
                .collect::<Vec<_>>()
                .join(", ");
            errs.push(err(
                FieldError::forbidden(
                    path.child("finalizers"),
                    format!(
                        "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{list}}}"
                    ),
                ),
                new.finalizers_span.unwrap_or(new.span),
            ));
        }
    }
    let immutable =
        |name: &str, new: &Option<Field<String>>, old: &Option<Field<String>>| match (new, old) {
            (Some(n), Some(o)) if n.value != o.value => Some(err(
                FieldError::invalid(path.child(name), n.value.as_str(), "field is immutable"),
                n.span,
            )),
            _ => None,
        };
    errs.extend(immutable("name", &new.name, &old.name));
    errs.extend(immutable("namespace", &new.namespace, &old.namespace));
    errs.extend(immutable("uid", &new.uid, &old.uid));
    errs.extend(immutable(
        "creationTimestamp",
        &new.creation_timestamp,
        &old.creation_timestamp,
    ));
    // A stored object has deletionTimestamp and deletionGracePeriodSeconds only while it
    // is being deleted (and then the old manifest, read from the cluster, shows them):
    // setting one is a change.
    if let Some(n) = set_or_changed(&new.deletion_timestamp, &old.deletion_timestamp) {
        errs.push(err(
            FieldError::invalid(
                path.child("deletionTimestamp"),
                n.value.as_str(),
                "field is immutable",
            ),
            n.span,
        ));
    }
    if let Some(n) = set_or_changed(
        &new.deletion_grace_period_seconds,
        &old.deletion_grace_period_seconds,
    ) {
        errs.push(err(
            FieldError::invalid(
                path.child("deletionGracePeriodSeconds"),
                n.value,
                "field is immutable",
            ),
            n.span,
        ));
    }
    errs
}

/// The new value, when it is set and the old one is unset or different.
fn set_or_changed<'a, T: PartialEq>(
    new: &'a Option<Field<T>>,
    old: &Option<Field<T>>,
) -> Option<&'a Field<T>> {
    new.as_ref()
        .filter(|n| old.as_ref().is_none_or(|o| o.value != n.value))
}

/// The server reports every controller reference after the first, each error with the
/// whole list: output quadratic in the list. crdlint stops at this many, or once the
/// lists quoted reach a MiB (the first is always reported; docs/limits.md).
const MAX_EXTRA_CONTROLLER_ERRORS: usize = 100;
const MAX_EXTRA_CONTROLLER_BYTES: usize = 1 << 20;

/// The handlers' warning for the owner references [`owner_ref::dedup`] dropped from
/// `before` (indexes `dropped`, not empty), at the first copy. An update (kubectl
/// apply's patch of a stored object) dedups after mutating admission, and the warning
/// says so.
pub fn duplicate_owner_warning(before: &[OwnerRef], dropped: &[usize], update: bool) -> Diagnostic {
    let uids: Vec<&str> = dropped.iter().map(|&i| before[i].uid.as_str()).collect();
    let when = if update {
        " after mutating admission happens"
    } else {
        ""
    };
    Diagnostic::warning(
        super::resource::DUPLICATE_OWNER_REFERENCE,
        format!(
            ".metadata.ownerReferences contains duplicate entries{when}; API server dedups owner references in 1.20+, and may reject such requests as early as 1.24; please fix your requests; duplicate UID(s) observed: {}",
            uids.join(", ")
        ),
    )
    .with_field("metadata.ownerReferences")
    .with_span(dropped.first().map_or(Span::default(), |&i| before[i].span))
    .with_help("remove the repeated entry")
}

/// `ValidateOwnerReferences` of CRDs and custom resources alike, on the list left by
/// [`owner_ref::dedup`].
pub fn validate_owner_references(refs: &[OwnerRef], path: &FieldPath) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    let mut first_controller: Option<String> = None;
    let mut extra_controllers = 0;
    let mut list: Option<String> = None;
    for r in refs {
        // Up to Kubernetes 1.36 each reference is checked at the list's own path (no
        // index), with `Invalid` errors; the indexed `Required` form came in 1.37.
        let p = path;
        // `schema.FromAPIVersionAndKind`: an unparsable apiVersion has no version.
        let (group, version) = parse_group_version(&r.api_version).unwrap_or(("", ""));
        if version.is_empty() {
            errs.push(err(
                FieldError::invalid(
                    p.child("apiVersion"),
                    r.api_version.as_str(),
                    "version must not be empty",
                ),
                r.api_version_span.unwrap_or(r.span),
            ));
        }
        for (field, value, span) in [
            ("kind", &r.kind, r.kind_span),
            ("name", &r.name, r.name_span),
            ("uid", &r.uid, r.uid_span),
        ] {
            if value.is_empty() {
                errs.push(err(
                    FieldError::invalid(p.child(field), "", "must not be empty"),
                    span.unwrap_or(r.span),
                ));
            }
        }
        if group.is_empty() && version == "v1" && r.kind == "Event" {
            errs.push(err(
                FieldError::invalid(
                    p.clone(),
                    BadValue::Raw(r.to_go_json()),
                    "/v1, Kind=Event is disallowed from being an owner",
                ),
                r.span,
            ));
        }
        if r.controller == Some(true) {
            let current = format!("{}/{}", r.kind, r.name);
            match &first_controller {
                Some(_)
                    if extra_controllers == MAX_EXTRA_CONTROLLER_ERRORS
                        || list.as_ref().is_some_and(|l| {
                            extra_controllers * l.len() >= MAX_EXTRA_CONTROLLER_BYTES
                        }) => {}
                Some(first) => {
                    extra_controllers += 1;
                    let list = list.get_or_insert_with(|| {
                        let items: Vec<String> = refs.iter().map(OwnerRef::to_go_json).collect();
                        format!("[{}]", items.join(","))
                    });
                    errs.push(err(
                        FieldError::invalid(
                            path.clone(),
                            BadValue::Raw(list.clone()),
                            format!(
                                "Only one reference can have Controller set to true. Found \"true\" in references for {first} and {current}"
                            ),
                        ),
                        r.span,
                    ));
                }
                None => first_controller = Some(current),
            }
        }
    }
    errs
}

/// `schema.ParseGroupVersion`: (group, version), or `None` for more than one `/`.
pub fn parse_group_version(gv: &str) -> Option<(&str, &str)> {
    if gv.is_empty() || gv == "/" {
        return Some(("", ""));
    }
    match gv.matches('/').count() {
        0 => Some(("", gv)),
        1 => gv.split_once('/'),
        _ => None,
    }
}

/// Warnings the server returns for finalizer names on create.
pub fn finalizer_warnings(meta: &Meta) -> Vec<(String, Span)> {
    const STANDARD: &[&str] = &["orphan", "foregroundDeletion", "kubernetes"];
    let mut out = Vec::new();
    let mut sorted: Vec<&Field<String>> = meta.finalizers.iter().collect();
    sorted.sort_by(|a, b| a.value.cmp(&b.value));
    // Sorted, a repeated name follows its first (each name is warned about once: a
    // list of seen names made 100,000 finalizers take 3.4 s).
    let mut previous: Option<&str> = None;
    for f in sorted {
        if previous == Some(f.value.as_str()) {
            continue;
        }
        previous = Some(&f.value);
        let q = crate::diag::gofmt::quote(&f.value);
        for msg in is_qualified_name(&f.value) {
            out.push((format!("metadata.finalizers: {q}: {msg}"), f.span));
        }
        if !f.value.contains('/') && !STANDARD.contains(&f.value.as_str()) {
            let msg = if f.value.contains('.') {
                "prefer a domain-qualified finalizer name including a path (/) to avoid accidental conflicts with other finalizer writers"
            } else {
                "prefer a domain-qualified finalizer name to avoid accidental conflicts with other finalizer writers"
            };
            out.push((format!("metadata.finalizers: {q}: {msg}"), f.span));
        }
    }
    out
}

// ---------------------------------------------------------------------------------
// Embedded resources.

/// What coercion of embedded resources found: unknown metadata fields and the first
/// hard error (the server fails the request with it).
#[derive(Debug, Default)]
pub struct Coerced {
    pub unknown: Vec<UnknownField>,
    pub error: Option<SchemaError>,
}

/// `objectmeta.Coerce` below the root: checks `apiVersion`/`kind` types and decodes
/// the metadata of every embedded resource, dropping its unknown fields.
pub fn coerce_embedded(obj: &mut Node, s: &Structural) -> Coerced {
    let mut out = Coerced::default();
    coerce_at(obj, Some(s), &LazyPath::Root, &mut out, 0, true);
    out.unknown.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// `objectmeta.Coerce(path, obj, s, isResourceRoot, false)` (used on CRD defaults):
/// like [`coerce_embedded`], under `path`, with `obj` itself treated as a resource
/// when `is_resource_root`.
pub fn coerce_at_path(
    obj: &mut Node,
    s: &Structural,
    path: &FieldPath,
    is_resource_root: bool,
) -> Coerced {
    let mut out = Coerced::default();
    if is_resource_root && !s.extensions.x_embedded_resource {
        let mut as_resource = s.clone();
        as_resource.extensions.x_embedded_resource = true;
        coerce_at(
            obj,
            Some(&as_resource),
            &LazyPath::At(path),
            &mut out,
            0,
            false,
        );
    } else {
        coerce_at(
            obj,
            Some(s),
            &LazyPath::At(path),
            &mut out,
            0,
            !is_resource_root,
        );
    }
    out
}

fn coerce_at(
    x: &mut Node,
    s: Option<&Structural>,
    path: &LazyPath<'_>,
    out: &mut Coerced,
    depth: usize,
    root: bool,
) {
    let Some(s) = s else {
        return;
    };
    if depth > 1000 || out.error.is_some() {
        return;
    }
    match &mut x.value {
        Value::Object(map) => {
            if s.extensions.x_embedded_resource && !root {
                for e in &mut map.entries {
                    match e.key.as_str() {
                        "apiVersion" | "kind" if !matches!(e.value.value, Value::String(_)) => {
                            out.error = Some(err(
                                FieldError::invalid(
                                    path.to_path().child(&e.key),
                                    BadValue::from(&e.value.value),
                                    "must be a string",
                                ),
                                e.value.span,
                            ));
                            return;
                        }
                        "metadata" => {
                            let metadata_path = path.to_path().child("metadata");
                            let prefix = metadata_path.to_string();
                            let decoded = decode(&e.value, &prefix);
                            if let Some(de) = decoded.error {
                                out.error = Some(err(
                                    FieldError::invalid(
                                        metadata_path,
                                        BadValue::from(&e.value.value),
                                        de.message,
                                    ),
                                    de.span,
                                ));
                                return;
                            }
                            drop_unknown(&mut e.value, &decoded.unknown, &prefix);
                            normalize(&mut e.value);
                            out.unknown.extend(decoded.unknown);
                        }
                        _ => {}
                    }
                }
            }
            for e in &mut map.entries {
                if let Some(prop) = s.property(&e.key) {
                    coerce_at(
                        &mut e.value,
                        Some(prop),
                        &LazyPath::Child(path, &e.key),
                        out,
                        depth + 1,
                        false,
                    );
                } else if let Some(StructuralOrBool::Structural(ap)) = &s.additional_properties {
                    coerce_at(
                        &mut e.value,
                        Some(ap),
                        &LazyPath::Key(path, &e.key),
                        out,
                        depth + 1,
                        false,
                    );
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                coerce_at(
                    item,
                    s.items.as_deref(),
                    &LazyPath::Index(path, i),
                    out,
                    depth + 1,
                    false,
                );
            }
        }
        _ => {}
    }
}

/// Removes the top-level unknown keys of a metadata object (nested unknown fields in
/// owner references and managed fields are dropped the same way).
pub fn drop_unknown(metadata: &mut Node, unknown: &[UnknownField], prefix: &str) {
    for u in unknown {
        let Some(rel) = u
            .path
            .strip_prefix(prefix)
            .and_then(|r| r.strip_prefix('.'))
        else {
            continue;
        };
        remove_path(metadata, rel);
    }
}

/// The metadata the server writes back after decoding it into an `ObjectMeta`
/// (`SetObjectMeta`: `runtime.DefaultUnstructuredConverter.ToUnstructured`, which
/// honours `omitempty`): `null` becomes `{}`; empty strings, zero generations, `null`
/// pointers and empty maps and lists go; `null` strings inside labels, annotations and
/// finalizers become `""`; owner references get their four always-written fields. A
/// zero `creationTimestamp` is removed as `objectmeta.Coerce` removes it. `metadata`
/// must have decoded without error (unknown fields already dropped).
pub fn normalize(metadata: &mut Node) {
    if metadata.is_null() {
        metadata.value = Value::Object(Mapping::default());
        return;
    }
    let Value::Object(m) = &mut metadata.value else {
        return;
    };
    m.entries.retain_mut(|e| {
        let v = &mut e.value;
        match e.key.as_str() {
            "name" | "generateName" | "namespace" | "selfLink" | "uid" | "resourceVersion" => {
                v.as_str().is_some_and(|s| !s.is_empty())
            }
            "generation" => !v.is_null() && v.as_i64() != Some(0),
            "creationTimestamp" | "deletionTimestamp" | "deletionGracePeriodSeconds" => {
                !v.is_null()
            }
            "labels" | "annotations" => {
                if let Value::Object(pairs) = &mut v.value {
                    for pair in &mut pairs.entries {
                        null_to_empty_string(&mut pair.value);
                    }
                }
                v.as_object().is_some_and(|pairs| !pairs.is_empty())
            }
            "finalizers" => {
                if let Value::Array(items) = &mut v.value {
                    items.iter_mut().for_each(null_to_empty_string);
                }
                v.as_array().is_some_and(|items| !items.is_empty())
            }
            "ownerReferences" => {
                if let Value::Array(items) = &mut v.value {
                    items.iter_mut().for_each(normalize_owner_reference);
                }
                v.as_array().is_some_and(|items| !items.is_empty())
            }
            "managedFields" => {
                if let Value::Array(items) = &mut v.value {
                    items.iter_mut().for_each(normalize_managed_fields_entry);
                }
                v.as_array().is_some_and(|items| !items.is_empty())
            }
            _ => true,
        }
    });
}

fn null_to_empty_string(v: &mut Node) {
    if v.is_null() {
        v.value = Value::String(String::new());
    }
}

/// `OwnerReference`: apiVersion, kind, name and uid are always written; the two
/// `*bool` fields only when set.
fn normalize_owner_reference(r: &mut Node) {
    let span = Span::point(r.span.start);
    if r.is_null() {
        r.value = Value::Object(Mapping::default());
    }
    let Value::Object(m) = &mut r.value else {
        return;
    };
    m.entries.retain(|e| {
        !(matches!(e.key.as_str(), "controller" | "blockOwnerDeletion") && e.value.is_null())
    });
    for key in ["apiVersion", "kind", "name", "uid"] {
        match m.get_mut(key) {
            Some(v) => null_to_empty_string(v),
            None => m.insert(
                key.into(),
                Node::synthetic(Value::String(String::new()), span),
            ),
        }
    }
}

/// `ManagedFieldsEntry`: every field is `omitempty`.
fn normalize_managed_fields_entry(entry: &mut Node) {
    if entry.is_null() {
        entry.value = Value::Object(Mapping::default());
    }
    if let Value::Object(m) = &mut entry.value {
        m.entries.retain(|e| match &e.value.value {
            Value::Null => false,
            Value::String(s) => !s.is_empty(),
            _ => true,
        });
    }
}

/// Removes `a.b[0].c` from a node.
fn remove_path(node: &mut Node, path: &str) {
    let (head, rest) = match path.find(['.', '[']) {
        Some(i) => (&path[..i], &path[i..]),
        None => (path, ""),
    };
    let Some(map) = node.as_object_mut() else {
        return;
    };
    if rest.is_empty() {
        map.remove(head);
        return;
    }
    let Some(child) = map.get_mut(head) else {
        return;
    };
    if let Some(r) = rest.strip_prefix('.') {
        remove_path(child, r);
    } else if let Some(r) = rest.strip_prefix('[') {
        let (idx, after) = r.split_once(']').unwrap_or((r, ""));
        if let (Ok(i), Some(items)) = (idx.parse::<usize>(), child.as_array_mut_opt())
            && let Some(item) = items.get_mut(i)
        {
            remove_path(item, after.strip_prefix('.').unwrap_or(after));
        }
    }
}

trait ArrayMut {
    fn as_array_mut_opt(&mut self) -> Option<&mut Vec<Node>>;
}

impl ArrayMut for Node {
    fn as_array_mut_opt(&mut self) -> Option<&mut Vec<Node>> {
        match &mut self.value {
            Value::Array(items) => Some(items),
            _ => None,
        }
    }
}

/// `objectmeta.Validate` below the root: apiVersion/kind/metadata of every embedded
/// resource.
pub fn validate_embedded(s: &Structural, obj: &Node) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    walk_embedded(obj, Some(s), &LazyPath::Root, &mut errs, 0, true);
    errs
}

/// `objectmeta.Validate(path, obj, s, isResourceRoot)` (used on CRD defaults): like
/// [`validate_embedded`], under `path`, with `obj` itself validated as a resource when
/// `is_resource_root`.
pub fn validate_at_path(
    s: &Structural,
    obj: &Node,
    path: &FieldPath,
    is_resource_root: bool,
) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    if is_resource_root && !s.extensions.x_embedded_resource {
        let mut as_resource = s.clone();
        as_resource.extensions.x_embedded_resource = true;
        walk_embedded(
            obj,
            Some(&as_resource),
            &LazyPath::At(path),
            &mut errs,
            0,
            false,
        );
    } else {
        walk_embedded(
            obj,
            Some(s),
            &LazyPath::At(path),
            &mut errs,
            0,
            !is_resource_root,
        );
    }
    errs
}

fn walk_embedded(
    x: &Node,
    s: Option<&Structural>,
    path: &LazyPath<'_>,
    errs: &mut Vec<SchemaError>,
    depth: usize,
    root: bool,
) {
    let Some(s) = s else {
        return;
    };
    if depth > 1000 {
        return;
    }
    match &x.value {
        Value::Object(map) => {
            if s.extensions.x_embedded_resource && !root {
                validate_embedded_resource(&path.to_path(), x, errs);
            }
            for e in &map.entries {
                if let Some(prop) = s.property(&e.key) {
                    walk_embedded(
                        &e.value,
                        Some(prop),
                        &LazyPath::Child(path, &e.key),
                        errs,
                        depth + 1,
                        false,
                    );
                } else if let Some(StructuralOrBool::Structural(ap)) = &s.additional_properties {
                    walk_embedded(
                        &e.value,
                        Some(ap),
                        &LazyPath::Key(path, &e.key),
                        errs,
                        depth + 1,
                        false,
                    );
                }
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_embedded(
                    item,
                    s.items.as_deref(),
                    &LazyPath::Index(path, i),
                    errs,
                    depth + 1,
                    false,
                );
            }
        }
        _ => {}
    }
}

fn validate_embedded_resource(path: &FieldPath, x: &Node, errs: &mut Vec<SchemaError>) {
    let Some(map) = x.as_object() else {
        return;
    };
    if !map.contains_key("apiVersion") {
        errs.push(err(
            FieldError::required(path.child("apiVersion"), ""),
            x.span,
        ));
    }
    if !map.contains_key("kind") {
        errs.push(err(FieldError::required(path.child("kind"), ""), x.span));
    }
    for e in &map.entries {
        let v = &e.value;
        match e.key.as_str() {
            "apiVersion" => match &v.value {
                Value::String(s) if s.is_empty() => errs.push(err(
                    FieldError::invalid(path.child("apiVersion"), "", "must not be empty"),
                    v.span,
                )),
                Value::String(s) => {
                    if parse_group_version(s).is_none() {
                        errs.push(err(
                            FieldError::invalid(
                                path.child("apiVersion"),
                                s.as_str(),
                                format!("unexpected GroupVersion string: {s}"),
                            ),
                            v.span,
                        ));
                    }
                }
                other => errs.push(err(
                    FieldError::invalid(
                        path.child("apiVersion"),
                        BadValue::from(other),
                        "must be a string",
                    ),
                    v.span,
                )),
            },
            "kind" => match &v.value {
                Value::String(s) if s.is_empty() => errs.push(err(
                    FieldError::invalid(path.child("kind"), "", "must not be empty"),
                    v.span,
                )),
                Value::String(s) => {
                    let msgs = is_dns1035_label(&s.to_lowercase());
                    if !msgs.is_empty() {
                        errs.push(err(
                            FieldError::invalid(
                                path.child("kind"),
                                s.as_str(),
                                format!(
                                    "may have mixed case, but should otherwise match: {}",
                                    msgs.join(",")
                                ),
                            ),
                            v.span,
                        ));
                    }
                }
                other => errs.push(err(
                    FieldError::invalid(
                        path.child("kind"),
                        BadValue::from(other),
                        "must be a string",
                    ),
                    v.span,
                )),
            },
            "metadata" => {
                let decoded = decode(v, "");
                if let Some(de) = decoded.error {
                    errs.push(err(
                        FieldError::invalid(
                            path.child("metadata"),
                            BadValue::from(&v.value),
                            de.message,
                        ),
                        de.span,
                    ));
                    continue;
                }
                let mut meta = decoded.meta;
                if meta.name.as_ref().is_none_or(|n| n.value.is_empty()) {
                    meta.name = Some(Field::new("fakename".to_string(), e.key_span, v.span));
                }
                let requires_namespace =
                    meta.namespace.as_ref().is_some_and(|n| !n.value.is_empty());
                errs.extend(validate_meta(
                    &meta,
                    requires_namespace,
                    NameRule::PathSegment,
                    &path.child("metadata"),
                    e.key_span,
                ));
                errs.extend(validate_managed_fields(&meta, &path.child("metadata")));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_key_messages_match_apimachinery() {
        assert_eq!(
            is_qualified_name("a/b/c"),
            [
                "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ]
        );
        assert_eq!(
            is_label_value("-bad"),
            [
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ]
        );
        assert!(is_qualified_name("example.com/my-key_1").is_empty());
        assert_eq!(is_qualified_name("/x"), ["prefix part must be non-empty"]);
    }

    #[test]
    fn names() {
        assert_eq!(
            is_dns1123_subdomain("Bad_Name"),
            [
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        assert_eq!(is_dns1123_label("a.b"), ["must not contain dots"]);
        assert!(NameRule::DnsSubdomain.check("foo-", true).is_empty());
        assert_eq!(
            NameRule::PathSegment.check("x/y", false),
            ["may not contain '/'"]
        );
        assert_eq!(generated_name("foo-"), "foo-bcdfg");
    }
}
