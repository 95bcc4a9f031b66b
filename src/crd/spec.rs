//! CRD object checks outside the schemas: metadata, group, scope, names, versions,
//! storage, deprecation, conversion, printer columns, subresources, selectable fields,
//! preserveUnknownFields and API approval — `ValidateCustomResourceDefinition` minus
//! the OpenAPI schema walk (see [`super::openapi`]).

use crate::diag::{BadValue, FieldError, FieldPath};
use crate::model::crd::{Crd, PrinterColumn, Scale, SelectableField, Version};
use crate::model::decode::Field;
use crate::model::owner_ref::{self, OwnerRef};
use crate::model::schema::{SchemaOrArray, SchemaOrBool, SchemaProps};
use crate::schema::structural::{self, Structural};
use crate::source::Node;

use super::findings::Findings;
use super::gojson::{self, Hoisted};
use super::update::{OldCrd, Requirements, Update};
use super::{
    CONVERSION, GROUP, METADATA, NAMES, PRESERVE_UNKNOWN_FIELDS, PRINTER_COLUMNS, SCOPE,
    SELECTABLE_FIELDS, SUBRESOURCES, VERSIONS,
};
use crate::cel::library::url;
use crate::names::{
    is_dns1035_label, is_dns1123_subdomain, is_label_value, is_qualified_name, mask_trailing_dash,
};
use crate::schema::fieldpath;
use crate::schema::objectmeta;

fn s(f: &Option<Field<String>>) -> &str {
    f.as_ref().map_or("", |f| f.value.as_str())
}

fn b(f: &Option<Field<bool>>) -> bool {
    f.as_ref().is_some_and(|f| f.value)
}

fn json_str(v: &str) -> BadValue {
    BadValue::Json(serde_json::Value::String(v.to_string()))
}

fn json_strings<'a>(items: impl IntoIterator<Item = &'a str>) -> BadValue {
    BadValue::Json(serde_json::Value::Array(
        items
            .into_iter()
            .map(|s| serde_json::Value::String(s.to_string()))
            .collect(),
    ))
}

/// The CRD after the v1 defaulting the server applies while decoding.
pub struct Defaulted<'a> {
    pub crd: &'a Crd,
    /// The manifest, when at hand.
    pub tree: Option<&'a Node>,
    pub singular: String,
    pub list_kind: String,
    pub hoisted: Hoisted,
}

impl<'a> Defaulted<'a> {
    /// `tree` is the manifest `crd` was decoded from, when at hand (it makes comparing
    /// the versions' schemas cheap).
    pub fn new(crd: &'a Crd, tree: Option<&'a Node>) -> Self {
        let kind = s(&crd.names.kind);
        let mut singular = s(&crd.names.singular).to_string();
        if singular.is_empty() {
            singular = kind.to_lowercase();
        }
        let mut list_kind = s(&crd.names.list_kind).to_string();
        if list_kind.is_empty() && !kind.is_empty() {
            list_kind = format!("{kind}List");
        }
        Defaulted {
            crd,
            tree,
            singular,
            list_kind,
            hoisted: hoisting(crd, tree),
        }
    }
}

/// Which per-version fields are identical in every version (the internal conversion
/// then moves them to the spec, and the server validates them once).
fn hoisting(crd: &Crd, tree: Option<&Node>) -> Hoisted {
    match crd.versions.as_slice() {
        [] => Hoisted::default(),
        // A single version shares everything with itself: nothing to render.
        [_] => Hoisted {
            schema: true,
            subresources: true,
            columns: true,
            selectable_fields: true,
        },
        [first, rest @ ..] => {
            let same = |which: &str| {
                if which == "schema" {
                    if same_schema_trees(crd, tree) {
                        return true;
                    }
                    if rest.iter().any(|v| schemas_differ(first, v)) {
                        return false;
                    }
                }
                let first = gojson::version_field(first, which);
                rest.iter().all(|v| {
                    let other = gojson::version_field(v, which);
                    // Equal texts normalize alike; only different ones need the work.
                    other == first || Normalized::new(&other).eq(Normalized::new(&first))
                })
            };
            Hoisted {
                schema: same("schema"),
                subresources: same("subresources"),
                columns: same("columns"),
                selectable_fields: same("selectable"),
            }
        }
    }
}

/// Whether every version's `schema` is written as the same data: most CRDs repeat
/// one schema in every version, and the same tree decodes and renders alike, so only
/// versions whose trees differ need rendering. `false` when unsure.
fn same_schema_trees(crd: &Crd, tree: Option<&Node>) -> bool {
    let Some(items) = tree
        .and_then(|t| t.get_path(&["spec", "versions"]))
        .and_then(Node::as_array)
    else {
        return false;
    };
    // The decoded versions are the list's items, in order (else: unsure).
    if items.len() != crd.versions.len() {
        return false;
    }
    let mut schemas = items.iter().map(|item| item.get("schema"));
    let Some(first) = schemas.next() else {
        return false;
    };
    schemas.all(|other| match (first, other) {
        (Some(a), Some(b)) => a.same_data(b),
        (None, None) => true,
        _ => false,
    })
}

/// Whether the schemas of two versions certainly render differently: a field printed
/// verbatim (type, description, format, pattern, title) differs, or a node's property
/// names differ, at any depth reached through properties, items and
/// additionalProperties. `false` means "maybe equal" (render to know). Versions that
/// differ usually do so here, so their (large) renderings are rarely needed.
fn schemas_differ(a: &Version, b: &Version) -> bool {
    if a.schema_field.is_some() != b.schema_field.is_some() {
        return true;
    }
    match (&a.schema, &b.schema) {
        (Some(x), Some(y)) => props_differ(x, y, 0),
        (None, None) => false,
        _ => true,
    }
}

fn props_differ(a: &SchemaProps, b: &SchemaProps, depth: usize) -> bool {
    if depth > 1000 {
        return false;
    }
    let differs = |x: Option<&str>, y: Option<&str>| x.unwrap_or("") != y.unwrap_or("");
    if differs(a.type_.as_deref(), b.type_.as_deref())
        || differs(a.description.as_deref(), b.description.as_deref())
        || differs(a.format.as_deref(), b.format.as_deref())
        || differs(a.pattern.as_deref(), b.pattern.as_deref())
        || differs(a.rare().title.as_deref(), b.rare().title.as_deref())
    {
        return true;
    }
    // Empty and absent property maps render alike; non-empty ones list their names.
    fn props(s: &SchemaProps) -> Vec<(&str, &SchemaProps)> {
        let mut v: Vec<(&str, &SchemaProps)> = s
            .properties
            .iter()
            .flatten()
            .map(|(k, p)| (k.as_str(), p))
            .collect();
        v.sort_unstable_by(|x, y| x.0.cmp(y.0));
        v
    }
    let (pa, pb) = (props(a), props(b));
    if pa.len() != pb.len() || pa.iter().zip(&pb).any(|(x, y)| x.0 != y.0) {
        return true;
    }
    if pa
        .iter()
        .zip(&pb)
        .any(|(x, y)| props_differ(x.1, y.1, depth + 1))
    {
        return true;
    }
    match (&a.items, &b.items) {
        (Some(SchemaOrArray::Schema(x)), Some(SchemaOrArray::Schema(y)))
            if props_differ(x, y, depth + 1) =>
        {
            return true;
        }
        _ => {}
    }
    match (&a.additional_properties, &b.additional_properties) {
        (Some(SchemaOrBool::Schema(x)), Some(SchemaOrBool::Schema(y))) => {
            props_differ(x, y, depth + 1)
        }
        _ => false,
    }
}

/// `apiequality.Semantic.DeepEqual` of two internal-type renderings
/// ([`gojson::version_field`]).
pub fn semantically_equal(a: &str, b: &str) -> bool {
    a == b || Normalized::new(a).eq(Normalized::new(b))
}

/// Semantic equality treats empty and nil slices alike: in a rendering, `:[]` and empty
/// `Properties`, `PatternProperties`, `Definitions` and `Dependencies` maps read as
/// `null`. The normalized text, byte by byte, so that two renderings compare without
/// building either (and stop at the first difference). The patterns cannot overlap.
/// A `Default` or `Example` of `[]` is a JSON value, not a slice: a pointer to an empty
/// list, which is not equal to no default.
struct Normalized<'a> {
    text: &'a [u8],
    rest: &'a [u8],
    /// The rest of a replacement being produced.
    pending: &'static [u8],
}

impl<'a> Normalized<'a> {
    const PATTERNS: [(&'static str, &'static str); 5] = [
        (":[]", ":null"),
        ("\"Properties\":{}", "\"Properties\":null"),
        ("\"PatternProperties\":{}", "\"PatternProperties\":null"),
        ("\"Definitions\":{}", "\"Definitions\":null"),
        ("\"Dependencies\":{}", "\"Dependencies\":null"),
    ];

    fn new(text: &'a str) -> Self {
        Normalized {
            text: text.as_bytes(),
            rest: text.as_bytes(),
            pending: &[],
        }
    }
}

impl Iterator for Normalized<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        if let Some((&b, tail)) = self.pending.split_first() {
            self.pending = tail;
            return Some(b);
        }
        let (&b, tail) = self.rest.split_first()?;
        let before = &self.text[..self.text.len() - self.rest.len()];
        let json_value =
            b == b':' && (before.ends_with(b"\"Default\"") || before.ends_with(b"\"Example\""));
        if matches!(b, b':' | b'"') && !json_value {
            for (from, to) in Self::PATTERNS {
                if let Some(after) = self.rest.strip_prefix(from.as_bytes()) {
                    self.rest = after;
                    self.pending = &to.as_bytes()[1..];
                    return Some(to.as_bytes()[0]);
                }
            }
        }
        self.rest = tail;
        Some(b)
    }
}

/// `ValidateObjectMeta` with the CRD's name rule (a create).
pub fn validate_metadata(d: &Defaulted, f: &mut Findings) {
    validate_metadata_name(d, f);
    validate_metadata_common(d, false, f);
    validate_finalizers(d, f);
}

/// `ValidateObjectMetaUpdate` as the server runs it after `BeforeUpdate`, which keeps
/// the old uid, creationTimestamp, deletionTimestamp and grace period when the new
/// object omits them (kubectl's patch lands on the stored object, so resourceVersion
/// and generation are the stored ones). The name rule is not checked again: name,
/// group and plural are all immutable. The uid is compared only when both manifests
/// state one.
pub fn validate_metadata_update(d: &Defaulted, old: &OldCrd, f: &mut Findings) {
    let meta = &d.crd.metadata;
    let path = FieldPath::root("metadata");
    if old.deletion_timestamp.is_some()
        && let Some(finalizers) = &meta.finalizers
    {
        let before: Vec<&str> = old
            .crd
            .metadata
            .finalizers
            .iter()
            .flat_map(|l| l.value.iter().map(|x| x.value.as_str()))
            .collect();
        let mut added: Vec<&str> = finalizers
            .value
            .iter()
            .map(|x| x.value.as_str())
            .filter(|x| !before.contains(x))
            .collect();
        added.sort_unstable();
        added.dedup();
        if !added.is_empty() {
            let list: Vec<String> = added.iter().map(|x| crate::diag::gofmt::quote(x)).collect();
            f.push_at(
                METADATA,
                FieldError::forbidden(
                    path.child("finalizers"),
                    format!(
                        "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{}}}",
                        list.join(", ")
                    ),
                ),
                finalizers.span,
                "the stored CRD is being deleted: finalizers can only be removed",
            );
        }
    }
    if let (Some(new), Some(old_uid)) = (&meta.uid, &old.crd.metadata.uid)
        && !new.value.is_empty()
        && new.value != old_uid.value
    {
        f.push_at(
            METADATA,
            FieldError::invalid(path.child("uid"), new.value.as_str(), "field is immutable"),
            new.span,
            "remove metadata.uid (the server keeps the stored one)",
        );
    }
    if let Some(new) = d
        .tree
        .and_then(|t| t.get_path(&["metadata", "deletionTimestamp"]))
        .and_then(|n| n.as_str().map(|s| (s, n.span)))
        .filter(|(s, _)| !s.is_empty())
        && old.deletion_timestamp.is_none()
    {
        f.push_at(
            METADATA,
            FieldError::invalid(
                path.child("deletionTimestamp"),
                BadValue::Raw(go_time(new.0)),
                "field is immutable",
            ),
            new.1,
            "remove metadata.deletionTimestamp: only a delete sets it",
        );
    }
    if let Some(new) = &meta.deletion_grace_period_seconds
        && old.deletion_grace_period_seconds != Some(new.value)
    {
        f.push_at(
            METADATA,
            FieldError::invalid(
                path.child("deletionGracePeriodSeconds"),
                new.value,
                "field is immutable",
            ),
            new.span,
            "remove metadata.deletionGracePeriodSeconds: only a delete sets it",
        );
    }
    validate_metadata_common(d, true, f);
    // `BeforeUpdate` runs `ValidateObjectMetaAccessor` too: finalizers are checked on
    // every update.
    validate_finalizers(d, f);
}

/// Go's `time.Time.String()` of an RFC 3339 time in UTC (`2024-01-02 03:04:05 +0000
/// UTC`), as a bad value prints; other texts as they are.
fn go_time(text: &str) -> String {
    let b = text.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r.clone())
            .is_some_and(|x| x.iter().all(u8::is_ascii_digit))
    };
    if b.len() == 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && b[19] == b'Z'
    {
        return format!("{} {} +0000 UTC", &text[..10], &text[11..19]);
    }
    crate::diag::gofmt::quote(text)
}

/// `metadata.name` (or `generateName`) must be `<plural>.<group>`.
fn validate_metadata_name(d: &Defaulted, f: &mut Findings) {
    let crd = d.crd;
    let meta = &crd.metadata;
    let path = FieldPath::root("metadata");
    let required_name = format!("{}.{}", s(&crd.names.plural), s(&crd.group));
    let name_fn = |name: &str, prefix: bool| -> Vec<String> {
        let masked = if prefix {
            mask_trailing_dash(name)
        } else {
            name.to_string()
        };
        let mut errs = is_dns1123_subdomain(&masked);
        if name != required_name {
            errs.push("must be spec.names.plural+\".\"+spec.group".to_string());
        }
        errs
    };
    let generate_name = s(&meta.generate_name);
    if !generate_name.is_empty() {
        for msg in name_fn(generate_name, true) {
            f.push(
                METADATA,
                FieldError::invalid(path.child("generateName"), generate_name, msg),
                "CRDs cannot use generateName: set metadata.name to <spec.names.plural>.<spec.group>",
            );
        }
    }
    let mut name = s(&meta.name).to_string();
    if name.is_empty() && !generate_name.is_empty() {
        // The server generates a name from generateName before validating.
        name = format!("{generate_name}xxxxx");
    }
    if name.is_empty() {
        f.push(
            METADATA,
            FieldError::required(path.child("name"), "name or generateName is required"),
            "set metadata.name to <spec.names.plural>.<spec.group>",
        );
    } else {
        for msg in name_fn(&name, false) {
            f.push(
                METADATA,
                FieldError::invalid(path.child("name"), name.as_str(), msg),
                &format!(
                    "set metadata.name to \"{required_name}\" (<spec.names.plural>.<spec.group>)"
                ),
            );
        }
    }
}

/// Labels, annotations and owner references: checked on creates and updates alike.
fn validate_metadata_common(d: &Defaulted, update: bool, f: &mut Findings) {
    let meta = &d.crd.metadata;
    let path = FieldPath::root("metadata");
    if let Some(labels) = &meta.labels {
        for (k, v) in &labels.value {
            for msg in is_qualified_name(&k.value) {
                f.push_at(
                    METADATA,
                    FieldError::invalid(path.child("labels"), k.value.as_str(), msg),
                    k.span,
                    "label keys are an optional DNS-subdomain prefix and '/' plus a name of at most 63 alphanumerics, '-', '_' or '.'",
                );
            }
            for msg in is_label_value(&v.value) {
                f.push_at(
                    METADATA,
                    FieldError::invalid(path.child("labels"), v.value.as_str(), msg),
                    v.span,
                    "label values are at most 63 alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric",
                );
            }
        }
    }
    if let Some(annotations) = &meta.annotations {
        let mut total = 0usize;
        for (k, v) in &annotations.value {
            total += k.value.len() + v.value.len();
            for msg in is_qualified_name(&k.value.to_lowercase()) {
                f.push_at(
                    METADATA,
                    FieldError::invalid(path.child("annotations"), k.value.as_str(), msg),
                    k.span,
                    "annotation keys are an optional DNS-subdomain prefix and '/' plus a name of alphanumerics, '-', '_' or '.'",
                );
            }
        }
        if total > 256 * 1024 {
            f.push_at(
                METADATA,
                FieldError::too_long(path.child("annotations"), 256 * 1024),
                annotations.key_span,
                "annotations may hold at most 256 KiB in total",
            );
        }
    }
    if let Some(refs) = &meta.owner_references {
        validate_owner_references(&refs.value, update, f);
    }
}

/// The handlers drop repeated owner references before validation, and warn: a CRD
/// whose list repeats its controller reference is accepted.
fn validate_owner_references(refs: &[OwnerRef], update: bool, f: &mut Findings) {
    let mut kept = refs.to_vec();
    let dropped = owner_ref::dedup(&mut kept);
    if !dropped.is_empty() {
        f.prebuilt
            .push(objectmeta::duplicate_owner_warning(refs, &dropped, update));
    }
    let path = FieldPath::root("metadata").child("ownerReferences");
    for e in objectmeta::validate_owner_references(&kept, &path) {
        f.push_at(METADATA, e.error, e.span, "");
    }
}

fn validate_finalizers(d: &Defaulted, f: &mut Findings) {
    let meta = &d.crd.metadata;
    let path = FieldPath::root("metadata");
    if let Some(finalizers) = &meta.finalizers {
        let fpath = path.child("finalizers");
        for fin in &finalizers.value {
            for msg in is_qualified_name(&fin.value) {
                f.push_at(
                    METADATA,
                    FieldError::invalid(fpath.clone(), fin.value.as_str(), msg),
                    fin.span,
                    "finalizer names are qualified names such as example.com/cleanup",
                );
            }
        }
        let has = |n: &str| finalizers.value.iter().any(|x| x.value == n);
        if has("orphan") && has("foregroundDeletion") {
            f.push_at(
                METADATA,
                FieldError::invalid(
                    fpath,
                    json_strings(finalizers.value.iter().map(|x| x.value.as_str())),
                    "finalizer orphan and foregroundDeletion cannot be both set",
                ),
                finalizers.span,
                "",
            );
        }
    }
}

pub fn validate_group_scope(d: &Defaulted, f: &mut Findings) {
    let crd = d.crd;
    let spec = FieldPath::root("spec");
    let group = s(&crd.group);
    if group.is_empty() {
        f.push(
            GROUP,
            FieldError::required(spec.child("group"), ""),
            "set spec.group to a DNS subdomain you own, e.g. example.com",
        );
    } else {
        let errs = is_dns1123_subdomain(group);
        if !errs.is_empty() {
            f.push(
                GROUP,
                FieldError::invalid(spec.child("group"), group, errs.join(",")),
                "the group must be a lowercase DNS subdomain, e.g. stable.example.com",
            );
        } else if group.split('.').count() < 2 {
            f.push(
                GROUP,
                FieldError::invalid(
                    spec.child("group"),
                    group,
                    "should be a domain with at least one dot",
                ),
                "use a domain with at least one dot, e.g. example.com",
            );
        }
    }
    let scope = s(&crd.scope);
    if scope.is_empty() {
        f.push(
            SCOPE,
            FieldError::required(spec.child("scope"), ""),
            "set spec.scope to Namespaced or Cluster",
        );
    } else if scope != "Cluster" && scope != "Namespaced" {
        f.push(
            SCOPE,
            FieldError::not_supported(spec.child("scope"), scope, &["Cluster", "Namespaced"]),
            "spec.scope is case-sensitive: Namespaced or Cluster",
        );
    }
}

/// `validateDeprecationWarning`.
fn deprecation_errors(deprecated: bool, warning: Option<&str>) -> Vec<String> {
    let Some(w) = warning else {
        return Vec::new();
    };
    if !deprecated {
        return vec!["can only be set for deprecated versions".to_string()];
    }
    let mut errs = Vec::new();
    if w.len() > 256 {
        errs.push("must be <= 256 characters long".to_string());
    }
    if w.is_empty() {
        errs.push("must not be an empty string".to_string());
    }
    for (i, c) in w.char_indices() {
        if !crate::diag::gofmt::is_go_print(c) {
            errs.push(format!(
                "must only contain printable UTF-8 characters; non-printable character found at index {i}"
            ));
            break;
        }
    }
    errs
}

/// The versions-level checks (`validateCustomResourceDefinitionSpec`'s loop and the
/// storage / uniqueness / names checks after it). Schema validation of each version is
/// delegated through `schema_check`.
pub fn validate_versions(
    d: &Defaulted,
    f: &mut Findings,
    req: &Requirements,
    update: Option<&Update>,
    mut schema_check: impl FnMut(&mut Findings, usize, bool),
) {
    let crd = d.crd;
    let spec = FieldPath::root("spec");
    let vpath = spec.child("versions");

    // Every version needs a schema (unless a shared one exists); on an update of a CRD
    // that had versions without one, only the served ones, and none when unknown
    // fields are preserved.
    let shared_schema =
        d.hoisted.schema && crd.versions.first().is_some_and(|v| v.schema.is_some());
    let preserve = b(&crd.preserve_unknown_fields);
    if !shared_schema && (req.open_api_schema || !preserve) {
        for (i, v) in crd.versions.iter().enumerate() {
            if v.schema.is_some() || (!req.open_api_schema && !b(&v.served)) {
                continue;
            }
            let detail = if req.open_api_schema {
                ""
            } else {
                "because otherwise all fields are pruned"
            };
            f.push_at(
                VERSIONS,
                FieldError::required(vpath.index(i).child("schema").child("openAPIV3Schema"), detail),
                v.schema_key_span
                    .or(v.schema_field.as_ref().map(|x| x.key_span))
                    .or(v.name.as_ref().map(|x| x.key_span))
                    .unwrap_or(v.span),
                "every version needs schema.openAPIV3Schema (use x-kubernetes-preserve-unknown-fields: true for an untyped object)",
            );
        }
    }

    let any_status = crd
        .versions
        .iter()
        .any(|v| v.subresources.as_ref().is_some_and(|s| s.status.is_some()));
    let mut storage = 0;
    let mut seen = std::collections::HashSet::new();
    let mut unique = true;
    for (i, v) in crd.versions.iter().enumerate() {
        let name = s(&v.name);
        if b(&v.storage) {
            storage += 1;
        }
        if !seen.insert(name.to_string()) {
            unique = false;
        }
        let errs = is_dns1035_label(name);
        if !errs.is_empty() {
            f.push(
                VERSIONS,
                FieldError::invalid(vpath.index(i).child("name"), name, errs.join(",")),
                "version names are DNS-1035 labels such as v1, v1beta1, v2alpha1",
            );
        }
        validate_version(d, f, i, v, &mut schema_check, any_status, update);
    }

    if !unique {
        f.push_at(
            VERSIONS,
            FieldError::invalid(
                vpath.clone(),
                BadValue::Raw(versions_value(d)),
                "must contain unique version names",
            ),
            versions_span(crd),
            "give each entry of spec.versions a different name",
        );
    }
    if storage != 1 {
        f.push_at(
            VERSIONS,
            FieldError::invalid(
                vpath.clone(),
                BadValue::Raw(versions_value(d)),
                "must have exactly one version marked as storage version",
            ),
            versions_span(crd),
            "set storage: true on exactly one version and storage: false on the others",
        );
    }
    // The internal `spec.version` is the first version's name; an empty one is not
    // checked (`len(spec.Version) != 0`).
    if let Some(first) = crd.versions.first()
        && !s(&first.name).is_empty()
    {
        let name = s(&first.name);
        let errs = is_dns1035_label(name);
        if !errs.is_empty() {
            f.push(
                VERSIONS,
                FieldError::invalid(spec.child("version"), name, errs.join(",")),
                "the first version's name is also the CRD's default version and must be a DNS-1035 label",
            );
        }
    }

    // On a create the server fills status.storedVersions with the first storage
    // version; on an update it keeps the old ones and adds it when not among them.
    let stored_update = update.map(|u| u.stored_versions(crd));
    let stored: Vec<&str> = match &stored_update {
        Some(list) => list.iter().map(String::as_str).collect(),
        None => crd
            .versions
            .iter()
            .find(|v| b(&v.storage))
            .map(|v| s(&v.name))
            .into_iter()
            .collect(),
    };
    let spath = FieldPath::root("status").child("storedVersions");
    if stored.is_empty() {
        f.push_at(
            VERSIONS,
            FieldError::invalid(
                spath,
                BadValue::Raw("null".into()),
                "must have at least one stored version",
            ),
            versions_span(crd),
            "mark one version with storage: true",
        );
    } else {
        // Go's map of stored versions (name -> last index) loses a name once a version
        // with it is seen: a second storage version of the same name is reported too.
        // A map, not scans: 80,000 stored names took 14 s.
        let mut remaining: std::collections::HashMap<&str, usize> =
            stored.iter().enumerate().map(|(i, n)| (*n, i)).collect();
        // Each error quotes the whole list, as the server's does: built once, and no
        // more errors once the CRD's findings pass the budget (8,000 storage versions
        // against 8,000 stored names made 5 GB).
        let stored_list = BadValue::Raw(json_strings(stored.iter().copied()).render());
        for v in &crd.versions {
            let name = s(&v.name);
            let found = remaining.remove(name).is_some();
            if b(&v.storage) && !found && !crate::diag::budget::exhausted() {
                f.push_at(
                    VERSIONS,
                    FieldError::invalid(
                        spath.clone(),
                        stored_list.clone(),
                        format!("must have the storage version {name}"),
                    ),
                    v.storage.as_ref().map_or(v.span, |x| x.key_span),
                    "only one version can be the storage version",
                );
            }
        }
        // What remains was stored before and is gone from spec.versions. The status is
        // not in the file: these point at spec.versions, where the version must stay.
        // A name stored twice is reported once, at its last index (Go's map keeps it).
        for name in &stored {
            let Some(index) = remaining.remove(name) else {
                continue;
            };
            f.push_at(
                VERSIONS,
                FieldError::invalid(
                    spath.index(index),
                    *name,
                    format!("missing from spec.versions; {name} was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in {name} and removes {name} from status.storedVersions"),
                ),
                versions_span(crd),
                &format!("keep version {name} in spec.versions (served: false is enough) until its stored objects are migrated and {name} is removed from status.storedVersions"),
            );
        }
    }
}

fn versions_span(crd: &Crd) -> crate::source::Span {
    crd.versions_field
        .as_ref()
        .map_or(crd.spec_span, |x| x.key_span)
}

fn versions_value(d: &Defaulted) -> String {
    if d.crd.versions_field.is_none() {
        return "null".into();
    }
    gojson::versions(&d.crd.versions, d.hoisted)
}

/// `validateCustomResourceDefinitionVersion` plus the hoisted (spec-level) equivalents,
/// reported at the first version.
fn validate_version(
    d: &Defaulted,
    f: &mut Findings,
    i: usize,
    v: &Version,
    schema_check: &mut impl FnMut(&mut Findings, usize, bool),
    any_status: bool,
    update: Option<&Update>,
) {
    let crd = d.crd;
    let path = FieldPath::root("spec").child("versions").index(i);
    let deprecated = b(&v.deprecated);
    for msg in deprecation_errors(
        deprecated,
        v.deprecation_warning.as_ref().map(|w| w.value.as_str()),
    ) {
        let w = v
            .deprecation_warning
            .as_ref()
            .map(|w| w.value.as_str())
            .unwrap_or("");
        f.push(
            VERSIONS,
            FieldError::invalid(path.child("deprecationWarning"), json_str(w), msg),
            if deprecated {
                "use a non-empty, printable warning of at most 256 characters"
            } else {
                "set deprecated: true on this version, or remove deprecationWarning"
            },
        );
    }
    // Schemas: per version, or once (at the first version) when identical.
    if !d.hoisted.schema {
        if v.schema.is_some() {
            let status = status_enabled_for(d, v);
            schema_check(f, i, status);
        }
    } else if i == 0 && v.schema.is_some() {
        schema_check(f, i, any_status);
    }
    // Subresources.
    if (!d.hoisted.subresources || i == 0)
        && let Some(sub) = &v.subresources
        && let Some(scale) = &sub.scale
    {
        validate_scale(f, &path.child("subresources"), scale);
    }
    // Printer columns.
    if (!d.hoisted.columns || i == 0)
        && let Some(cols) = &v.additional_printer_columns
    {
        for (j, c) in cols.value.iter().enumerate() {
            validate_column(f, &path.child("additionalPrinterColumns").index(j), c);
        }
    }
    // Selectable fields.
    if let Some(fields) = &v.selectable_fields
        && !fields.value.is_empty()
    {
        let top_level = d.hoisted.selectable_fields;
        if top_level && i > 0 {
            return;
        }
        let spath = path.child("selectableFields");
        // The internal conversion moves identical selectable fields and identical
        // schemas to the spec independently: top-level selectable fields need the
        // top-level schema, per-version ones the version's own schema.
        let schema = if top_level == d.hoisted.schema {
            v.schema.as_ref()
        } else {
            None
        };
        match schema {
            None => {
                let (detail, help) = if top_level && v.schema.is_some() {
                    (
                        "may only be set when validations.schema is included",
                        "the server moves selectableFields shared by every version to the spec, where they need a schema shared by every version: make the versions' schemas identical or their selectableFields different",
                    )
                } else if top_level {
                    (
                        "may only be set when validations.schema is included",
                        "selectable fields need an openAPIV3Schema that declares the fields",
                    )
                } else {
                    (
                        "may only be set when `version.schema.openAPIV3Schema` is not included",
                        "the server moves a schema shared by every version to the spec, where per-version selectableFields cannot use it: declare the same selectableFields in every version",
                    )
                };
                f.push_at(
                    SELECTABLE_FIELDS,
                    FieldError::invalid(spath, "", detail),
                    fields.key_span,
                    help,
                );
            }
            Some(props) => {
                // More than 8 are kept when the old CRD had them, unchanged.
                let key = if top_level { "" } else { s(&v.name) };
                let allow_too_many =
                    update.is_some_and(|u| u.too_many_selectable_fields.contains(key));
                match structural::from_props(props) {
                    Err(e) => {
                        // The server names the shared schema `spec.schema.openAPIV3Schema`
                        // here (not `spec.validation…`), found in the first version.
                        let at = path.child("schema").child("openAPIV3Schema");
                        f.push(
                            SELECTABLE_FIELDS,
                            FieldError::invalid(
                                if top_level {
                                    FieldPath::root("spec")
                                        .child("schema")
                                        .child("openAPIV3Schema")
                                } else {
                                    at
                                },
                                "",
                                e.message,
                            ),
                            "",
                        );
                        // The server goes on with a nil schema.
                        validate_selectable_fields(f, &spath, &fields.value, None, allow_too_many);
                    }
                    Ok(st) => validate_selectable_fields(
                        f,
                        &spath,
                        &fields.value,
                        Some(&st),
                        allow_too_many,
                    ),
                }
            }
        }
    }
    let _ = crd;
}

fn status_enabled_for(d: &Defaulted, v: &Version) -> bool {
    let crd = d.crd;
    let per_version =
        !d.hoisted.subresources && crd.versions.iter().any(|x| x.subresources.is_some());
    let sub = if per_version {
        let name = s(&v.name);
        crd.versions
            .iter()
            .find(|x| s(&x.name) == name)
            .and_then(|x| x.subresources.as_ref())
    } else {
        crd.versions.first().and_then(|x| x.subresources.as_ref())
    };
    sub.is_some_and(|s| s.status.is_some())
}

/// `validateSimpleJSONPath`.
fn simple_json_path(p: &str, path: &FieldPath) -> Option<FieldError> {
    if p.is_empty() {
        return Some(FieldError::invalid(path.clone(), p, "must not be empty"));
    }
    if !p.starts_with('.') {
        return Some(FieldError::invalid(
            path.clone(),
            p,
            "must be a simple json path starting with .",
        ));
    }
    None
}

fn validate_scale(f: &mut Findings, path: &FieldPath, scale: &Scale) {
    let spec_path = path.child("scale.specReplicasPath");
    match scale
        .spec_replicas_path
        .as_ref()
        .map(|x| x.value.as_str())
        .unwrap_or("")
    {
        "" => {
            f.push_at(
                SUBRESOURCES,
                FieldError::required(spec_path, ""),
                scale.key_span,
                "set specReplicasPath, e.g. .spec.replicas",
            );
        }
        p => {
            if let Some(e) = simple_json_path(p, &spec_path) {
                f.push(
                    SUBRESOURCES,
                    e,
                    "write a JSON path in dot notation, e.g. .spec.replicas",
                );
            } else if !p.starts_with(".spec.") {
                f.push(
                    SUBRESOURCES,
                    FieldError::invalid(spec_path, p, "should be a json path under .spec"),
                    "specReplicasPath must point under .spec, e.g. .spec.replicas",
                );
            }
        }
    }
    let status_path = path.child("scale.statusReplicasPath");
    match scale
        .status_replicas_path
        .as_ref()
        .map(|x| x.value.as_str())
        .unwrap_or("")
    {
        "" => {
            f.push_at(
                SUBRESOURCES,
                FieldError::required(status_path, ""),
                scale.key_span,
                "set statusReplicasPath, e.g. .status.replicas",
            );
        }
        p => {
            if let Some(e) = simple_json_path(p, &status_path) {
                f.push(
                    SUBRESOURCES,
                    e,
                    "write a JSON path in dot notation, e.g. .status.replicas",
                );
            } else if !p.starts_with(".status.") {
                f.push(
                    SUBRESOURCES,
                    FieldError::invalid(status_path, p, "should be a json path under .status"),
                    "statusReplicasPath must point under .status, e.g. .status.replicas",
                );
            }
        }
    }
    if let Some(sel) = &scale.label_selector_path
        && !sel.value.is_empty()
    {
        let sel_path = path.child("scale.labelSelectorPath");
        if let Some(e) = simple_json_path(&sel.value, &sel_path) {
            f.push(
                SUBRESOURCES,
                e,
                "write a JSON path in dot notation, e.g. .status.selector",
            );
        } else if !sel.value.starts_with(".spec.") && !sel.value.starts_with(".status.") {
            f.push(
                SUBRESOURCES,
                FieldError::invalid(
                    sel_path,
                    json_str(&sel.value),
                    "should be a json path under either .spec or .status",
                ),
                "labelSelectorPath must point under .spec or .status, e.g. .status.selector",
            );
        }
    }
}

const COLUMN_TYPES: &str = "boolean,date,integer,number,string";
const COLUMN_FORMATS: &str = "byte,date,date-time,double,float,int32,int64,password";

fn validate_column(f: &mut Findings, path: &FieldPath, c: &PrinterColumn) {
    if s(&c.name).is_empty() {
        f.push_at(
            PRINTER_COLUMNS,
            FieldError::required(path.child("name"), ""),
            c.name.as_ref().map_or(c.span, |x| x.key_span),
            "give the column a name (shown as the header in kubectl get)",
        );
    }
    let ty = s(&c.type_);
    if ty.is_empty() {
        f.push_at(
            PRINTER_COLUMNS,
            FieldError::required(path.child("type"), format!("must be one of {COLUMN_TYPES}")),
            c.type_.as_ref().map_or(c.span, |x| x.key_span),
            "set type to one of integer, number, string, boolean, date",
        );
    } else if !COLUMN_TYPES.split(',').any(|t| t == ty) {
        f.push(
            PRINTER_COLUMNS,
            FieldError::invalid(path.child("type"), ty, format!("must be one of {COLUMN_TYPES}")),
            "printer column types are integer, number, string, boolean or date (not OpenAPI array/object)",
        );
    }
    let format = s(&c.format);
    if !format.is_empty() && !COLUMN_FORMATS.split(',').any(|t| t == format) {
        f.push(
            PRINTER_COLUMNS,
            FieldError::invalid(
                path.child("format"),
                format,
                format!("must be one of {COLUMN_FORMATS}"),
            ),
            "use one of the supported formats or remove format",
        );
    }
    let json_path = s(&c.json_path);
    let jp = path.child("JSONPath");
    if json_path.is_empty() {
        f.push_at(
            PRINTER_COLUMNS,
            FieldError::required(jp, ""),
            c.json_path.as_ref().map_or(c.span, |x| x.key_span),
            "set jsonPath to the field to show, e.g. .spec.replicas",
        );
    } else if let Some(e) = simple_json_path(json_path, &jp) {
        f.push(
            PRINTER_COLUMNS,
            e,
            "printer column paths start with a dot, e.g. .status.phase",
        );
    }
}

/// The server's answer to a request that crashed it while it checked `field` (HTTP 500,
/// with no field errors); see [`fieldpath::NIL_SCHEMA_PANIC`].
pub(super) fn server_panic(
    code: &'static str,
    field: &FieldPath,
    span: crate::source::Span,
    help: &str,
) -> crate::diag::Diagnostic {
    crate::diag::Diagnostic::error(code, fieldpath::SERVER_PANIC_RESPONSE)
        .with_field(field.to_string())
        .with_detail(format!("{field}: {}", fieldpath::NIL_SCHEMA_PANIC))
        .with_span(span)
        .with_help(help)
}

fn validate_selectable_fields(
    f: &mut Findings,
    path: &FieldPath,
    fields: &[SelectableField],
    schema: Option<&Structural>,
    allow_too_many: bool,
) {
    let mut unique = std::collections::HashSet::new();
    for (i, field) in fields.iter().enumerate() {
        let ipath = path.index(i);
        let jp = field
            .json_path
            .as_ref()
            .map(|x| x.value.as_str())
            .unwrap_or("");
        if jp.is_empty() {
            f.push_at(
                SELECTABLE_FIELDS,
                FieldError::required(ipath.child("jsonPath"), ""),
                field.json_path.as_ref().map_or(field.span, |x| x.key_span),
                "set jsonPath to a string, integer or boolean field, e.g. .spec.color",
            );
            continue;
        }
        let jpath = ipath.child("jsonPath");
        match fieldpath::valid_field_path_from(jp, schema, false) {
            Err(e) if e == fieldpath::NIL_SCHEMA_PANIC => {
                let span = field.json_path.as_ref().map_or(field.span, |x| x.span);
                f.prebuilt.push(server_panic(
                    SELECTABLE_FIELDS,
                    &jpath,
                    span,
                    "the server follows this path through a schema it does not have (the schema is not structural, or a map's additionalProperties is a boolean) and crashes; fix the schema errors, or point the path at a declared field",
                ));
                // The request ends there.
                return;
            }
            Err(e) => {
                f.push(
                    SELECTABLE_FIELDS,
                    FieldError::invalid(jpath, jp, format!("is an invalid path: {e}")),
                    "the path must name declared properties in dot notation, e.g. .spec.color",
                );
            }
            Ok((p, found)) => {
                if matches!(p.first(), Some(fieldpath::PathStep::Field(n)) if n == "metadata") {
                    f.push(
                        SELECTABLE_FIELDS,
                        FieldError::invalid(jpath.clone(), jp, "must not point to fields in metadata"),
                        "metadata.name and metadata.namespace are always selectable; pick a spec or status field",
                    );
                }
                if !matches!(
                    found.map(|s| s.generic.type_.as_ref()),
                    Some("string" | "boolean" | "integer")
                ) {
                    f.push(
                        SELECTABLE_FIELDS,
                        FieldError::invalid(jpath.clone(), jp, "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed."),
                        "selectable fields must be strings, booleans or integers",
                    );
                }
                if !unique.insert(fieldpath::render(&p)) {
                    f.push(
                        SELECTABLE_FIELDS,
                        FieldError::duplicate(jpath, jp),
                        "list each selectable field once",
                    );
                }
            }
        }
    }
    if unique.len() > 8 && !allow_too_many {
        f.push(
            SELECTABLE_FIELDS,
            FieldError::too_many(path.clone(), unique.len() as i64, 8),
            "a version may declare at most 8 selectable fields",
        );
    }
}

pub fn validate_names(d: &Defaulted, f: &mut Findings) {
    let crd = d.crd;
    let n = &crd.names;
    let path = FieldPath::root("spec").child("names");
    let plural = s(&n.plural);
    let kind = s(&n.kind);
    let names_span = n.key_span;
    let req = |f: &mut Findings, field: &str, help: &str| {
        f.push_at(
            NAMES,
            FieldError::required(path.child(field), ""),
            names_span,
            help,
        );
    };
    if plural.is_empty() {
        req(
            f,
            "plural",
            "set names.plural to the lowercase plural resource name, e.g. crontabs",
        );
    }
    if d.singular.is_empty() {
        req(
            f,
            "singular",
            "set names.singular (or names.kind, from which it defaults)",
        );
    }
    if kind.is_empty() {
        req(
            f,
            "kind",
            "set names.kind to the CamelCase kind, e.g. CronTab",
        );
    }
    if d.list_kind.is_empty() {
        req(
            f,
            "listKind",
            "set names.listKind (or names.kind, from which it defaults)",
        );
    }
    let check = |f: &mut Findings,
                 field: &str,
                 value: &str,
                 lower: bool,
                 span: Option<crate::source::Span>| {
        if value.is_empty() {
            return;
        }
        let errs = if lower {
            is_dns1035_label(&value.to_lowercase())
        } else {
            is_dns1035_label(value)
        };
        if errs.is_empty() {
            return;
        }
        let detail = if lower {
            format!(
                "may have mixed case, but should otherwise match: {}",
                errs.join(",")
            )
        } else {
            errs.join(",")
        };
        let err = FieldError::invalid(path.child(field), value, detail);
        let help = "names must be DNS-1035 labels: lowercase letters, digits and '-', starting with a letter";
        match span {
            Some(sp) => f.push_at(NAMES, err, sp, help),
            None => {
                f.push(NAMES, err, help);
            }
        }
    };
    check(f, "plural", plural, false, None);
    let singular_span = if n.singular.is_none() {
        n.kind.as_ref().map(|k| k.span)
    } else {
        None
    };
    check(f, "singular", &d.singular, false, singular_span);
    check(f, "kind", kind, true, None);
    let list_kind_span = if n.list_kind.is_none() {
        n.kind.as_ref().map(|k| k.span)
    } else {
        None
    };
    check(f, "listKind", &d.list_kind, true, list_kind_span);
    if let Some(short) = &n.short_names {
        for (i, sn) in short.value.iter().enumerate() {
            let errs = is_dns1035_label(&sn.value);
            if !errs.is_empty() {
                f.push_at(
                    NAMES,
                    FieldError::invalid(
                        path.child("shortNames").index(i),
                        sn.value.as_str(),
                        errs.join(","),
                    ),
                    sn.span,
                    "short names must be lowercase DNS-1035 labels, e.g. ct",
                );
            }
        }
    }
    if !kind.is_empty() && kind == d.list_kind {
        f.push(
            NAMES,
            FieldError::invalid(
                path.child("listKind"),
                d.list_kind.as_str(),
                "kind and listKind may not be the same",
            ),
            "listKind is conventionally <kind>List",
        );
    }
    if let Some(categories) = &n.categories {
        for (i, c) in categories.value.iter().enumerate() {
            let errs = is_dns1035_label(&c.value);
            if !errs.is_empty() {
                f.push_at(
                    NAMES,
                    FieldError::invalid(
                        path.child("categories").index(i),
                        c.value.as_str(),
                        errs.join(","),
                    ),
                    c.span,
                    "categories must be lowercase DNS-1035 labels, e.g. all",
                );
            }
        }
    }
}

pub fn validate_conversion(d: &Defaulted, f: &mut Findings, req: &Requirements) {
    let crd = d.crd;
    let path = FieldPath::root("spec").child("conversion");
    let preserve = b(&crd.preserve_unknown_fields);
    // Absent conversion defaults to {strategy: None}.
    let Some(conv) = &crd.conversion else {
        return;
    };
    let strategy = s(&conv.strategy);
    if strategy != "None" && preserve {
        f.push(
            CONVERSION,
            FieldError::invalid(
                path.child("strategy"),
                strategy,
                "must be None if spec.preserveUnknownFields is true",
            ),
            "set spec.preserveUnknownFields to false (required in v1) to use webhook conversion",
        );
    }
    if strategy.is_empty() {
        f.push_at(
            CONVERSION,
            FieldError::required(path.child("strategy"), ""),
            conv.key_span,
            "set conversion.strategy to None or Webhook",
        );
    } else if strategy != "None" && strategy != "Webhook" {
        f.push(
            CONVERSION,
            FieldError::not_supported(path.child("strategy"), strategy, &["None", "Webhook"]),
            "conversion.strategy is None or Webhook (case-sensitive)",
        );
    }
    let webhook = conv.webhook.as_ref();
    let cc = webhook.and_then(|w| w.client_config.as_ref());
    let review = webhook.and_then(|w| w.conversion_review_versions.as_ref());
    let cc_path = path.child("webhookClientConfig");
    if strategy == "Webhook" {
        match cc {
            None => {
                f.push_at(
                    CONVERSION,
                    FieldError::required(
                        cc_path.clone(),
                        "required when strategy is set to Webhook",
                    ),
                    webhook.map_or(conv.key_span, |w| w.key_span),
                    "add webhook.clientConfig with a service or an https url",
                );
            }
            Some(cc) => match (&cc.url, &cc.service) {
                (Some(_), Some(_)) | (None, None) => {
                    f.push_at(
                        CONVERSION,
                        FieldError::required(
                            cc_path.clone(),
                            "exactly one of url or service is required",
                        ),
                        cc.key_span,
                        "set either clientConfig.url or clientConfig.service, not both",
                    );
                }
                (Some(url), None) => validate_webhook_url(f, &cc_path.child("url"), url),
                (None, Some(svc)) => {
                    let spath = cc_path.child("service");
                    // apiextensions passes (Name, Namespace) to ValidateWebhookService,
                    // whose parameters are (namespace, name): a missing name is reported
                    // at `namespace` and a missing namespace at `name`.
                    if s(&svc.namespace).is_empty() {
                        f.push_at(
                            CONVERSION,
                            FieldError::required(spath.child("name"), ""),
                            svc.key_span,
                            "set the namespace of the webhook Service (the server reports a missing namespace at `name`)",
                        );
                    }
                    if s(&svc.name).is_empty() {
                        f.push_at(
                            CONVERSION,
                            FieldError::required(spath.child("namespace"), ""),
                            svc.key_span,
                            "name the Service that serves the conversion webhook (the server reports a missing name at `namespace`)",
                        );
                    }
                    let port = svc.port.as_ref().map_or(443, |p| p.value);
                    if !(1..=65535).contains(&port) {
                        f.push(
                            CONVERSION,
                            FieldError::invalid(
                                spath.child("port"),
                                port,
                                "port is not valid: must be between 1 and 65535, inclusive",
                            ),
                            "use a port between 1 and 65535 (default 443)",
                        );
                    }
                    if let Some(p) = &svc.path {
                        validate_service_path(f, &spath.child("path"), &p.value);
                    }
                }
            },
        }
        if let Some(bundle) = cc.and_then(|c| c.ca_bundle.as_ref())
            && !bundle.value.is_empty()
            && !req.allow_invalid_ca_bundle
            && let Err(e) = super::cabundle::validate(&bundle.value)
        {
            f.push_at(
                CONVERSION,
                FieldError::invalid(
                    cc_path.child("caBundle"),
                    BadValue::Raw(super::cabundle::bad_value(&bundle.value)),
                    e,
                ),
                bundle.span,
                "caBundle is the base64 of PEM-encoded CA certificates (-----BEGIN CERTIFICATE-----) that sign the webhook's serving certificate",
            );
        }
        let rpath = path.child("conversionReviewVersions");
        match review.filter(|r| !r.value.is_empty()) {
            None => {
                f.push_at(
                    CONVERSION,
                    FieldError::required(rpath, ""),
                    webhook.map_or(conv.key_span, |w| w.key_span),
                    "list the ConversionReview versions your webhook understands, e.g. [v1]",
                );
            }
            Some(list) => {
                let mut seen = std::collections::HashSet::new();
                let mut accepted = false;
                for (i, v) in list.value.iter().enumerate() {
                    if !seen.insert(v.value.as_str()) {
                        f.push_at(
                            CONVERSION,
                            FieldError::invalid(
                                rpath.index(i),
                                v.value.as_str(),
                                "duplicate version",
                            ),
                            v.span,
                            "list each version once",
                        );
                        continue;
                    }
                    for e in is_dns1035_label(&v.value) {
                        f.push_at(
                            CONVERSION,
                            FieldError::invalid(rpath.index(i), v.value.as_str(), e),
                            v.span,
                            "ConversionReview versions look like v1 or v1beta1",
                        );
                    }
                    if v.value == "v1" || v.value == "v1beta1" {
                        accepted = true;
                    }
                }
                if !accepted && req.recognized_conversion_review_version {
                    f.push_at(
                        CONVERSION,
                        FieldError::invalid(
                            rpath,
                            json_strings(list.value.iter().map(|x| x.value.as_str())),
                            "must include at least one of v1, v1beta1",
                        ),
                        list.span,
                        "include v1 (or v1beta1) in conversionReviewVersions",
                    );
                }
            }
        }
    } else {
        if let Some(cc) = cc {
            f.push_at(
                CONVERSION,
                FieldError::forbidden(
                    cc_path,
                    "should not be set when strategy is not set to Webhook",
                ),
                cc.key_span,
                "remove webhook.clientConfig, or set strategy: Webhook",
            );
        }
        if let Some(r) = review.filter(|r| !r.value.is_empty()) {
            f.push_at(
                CONVERSION,
                FieldError::forbidden(
                    path.child("conversionReviewVersions"),
                    "should not be set when strategy is not set to Webhook",
                ),
                r.key_span,
                "remove webhook.conversionReviewVersions, or set strategy: Webhook",
            );
        }
    }
}

fn validate_webhook_url(f: &mut Findings, path: &FieldPath, url: &Field<String>) {
    const FORM: &str = "; desired format: https://host[/path]";
    match url::parse(&url.value) {
        Err(e) => {
            f.push_at(
                CONVERSION,
                FieldError::required(path.clone(), format!("url must be a valid URL: {e}{FORM}")),
                url.span,
                "write an absolute https URL such as https://webhook.example.com/convert",
            );
        }
        Ok(u) => {
            if u.scheme != "https" {
                f.push_at(
                    CONVERSION,
                    FieldError::invalid(
                        path.clone(),
                        u.scheme.as_str(),
                        format!("'https' is the only allowed URL scheme{FORM}"),
                    ),
                    url.span,
                    "conversion webhooks must use https",
                );
            }
            if u.host.is_empty() {
                f.push_at(
                    CONVERSION,
                    FieldError::invalid(
                        path.clone(),
                        u.host.as_str(),
                        format!("host must be specified{FORM}"),
                    ),
                    url.span,
                    "write an absolute https URL with a host",
                );
            }
            if let Some(user) = u.userinfo() {
                f.push_at(
                    CONVERSION,
                    FieldError::invalid(
                        path.clone(),
                        user.as_str(),
                        "user information is not permitted in the URL",
                    ),
                    url.span,
                    "remove user:password@ from the URL; use caBundle and TLS instead",
                );
            }
            if !u.fragment.is_empty() {
                f.push_at(
                    CONVERSION,
                    FieldError::invalid(
                        path.clone(),
                        u.fragment.as_str(),
                        "fragments are not permitted in the URL",
                    ),
                    url.span,
                    "remove the #fragment from the URL",
                );
            }
            if !u.raw_query.is_empty() {
                f.push_at(
                    CONVERSION,
                    FieldError::invalid(
                        path.clone(),
                        u.raw_query.as_str(),
                        "query parameters are not permitted in the URL",
                    ),
                    url.span,
                    "remove the ?query from the URL",
                );
            }
        }
    }
}

fn validate_service_path(f: &mut Findings, path: &FieldPath, p: &str) {
    if p == "/" || p.is_empty() {
        return;
    }
    let help = "service paths start with '/' and consist of DNS-subdomain segments, e.g. /convert";
    if p == "//" {
        f.push(
            CONVERSION,
            FieldError::invalid(path.clone(), p, "segment[0] may not be empty"),
            help,
        );
        return;
    }
    if !p.starts_with('/') {
        f.push(
            CONVERSION,
            FieldError::invalid(path.clone(), p, "must start with a '/'"),
            help,
        );
    }
    // Go drops the first byte whatever it is; a cut inside a character leaves broken
    // bytes, which fail the segment check just as U+FFFD does.
    let rest = String::from_utf8_lossy(p.as_bytes().get(1..).unwrap_or_default());
    let mut check: &str = &rest;
    if let Some(stripped) = check.strip_suffix('/') {
        check = stripped;
    }
    for (i, step) in check.split('/').enumerate() {
        if step.is_empty() {
            f.push(
                CONVERSION,
                FieldError::invalid(path.clone(), p, format!("segment[{i}] may not be empty")),
                help,
            );
            continue;
        }
        for e in is_dns1123_subdomain(step) {
            f.push(
                CONVERSION,
                FieldError::invalid(path.clone(), p, format!("segment[{i}]: {e}")),
                help,
            );
        }
    }
}

/// `preserveUnknownFields: true` (with defaults, and in itself) and the API approval
/// annotation of protected groups.
pub fn validate_preserve_and_approval(
    d: &Defaulted,
    f: &mut Findings,
    has_defaults: bool,
    old: Option<&OldCrd>,
) {
    let crd = d.crd;
    let preserve = b(&crd.preserve_unknown_fields);
    let path = FieldPath::root("spec").child("preserveUnknownFields");
    if has_defaults && preserve {
        f.push(
            PRESERVE_UNKNOWN_FIELDS,
            FieldError::invalid(path.clone(), true, "must be false in order to use defaults in the schema"),
            "remove preserveUnknownFields (it must be false in v1); use x-kubernetes-preserve-unknown-fields in the schema",
        );
    }
    // An old CRD that preserved unknown fields may go on doing so.
    if preserve && !old.is_some_and(OldCrd::preserve_unknown_fields) {
        f.push(
            PRESERVE_UNKNOWN_FIELDS,
            FieldError::invalid(path, true, "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead"),
            "remove spec.preserveUnknownFields; mark the objects that keep unknown fields with x-kubernetes-preserve-unknown-fields: true",
        );
    }
    let group = s(&crd.group);
    let protected = group == "k8s.io"
        || group.ends_with(".k8s.io")
        || group == "kubernetes.io"
        || group.ends_with(".kubernetes.io");
    if !protected {
        return;
    }
    const ANNOTATION: &str = "api-approved.kubernetes.io";
    let value = crd
        .metadata
        .annotations
        .as_ref()
        .and_then(|a| a.value.iter().find(|(k, _)| k.value == ANNOTATION))
        .map(|(_, v)| v.value.as_str())
        .unwrap_or("");
    // An update that keeps the approval state (missing, bypassed, approved or
    // invalid) is never refused for it.
    if let Some(old) = old
        && approval_state(old.annotation(ANNOTATION).unwrap_or("")) == approval_state(value)
    {
        return;
    }
    let apath = FieldPath::root("metadata")
        .child("annotations")
        .key(ANNOTATION);
    let help = "CRDs in *.k8s.io / *.kubernetes.io groups need the api-approved.kubernetes.io annotation set to the URL of the approving PR (or a value starting with \"unapproved\")";
    if value.is_empty() {
        f.push(
            METADATA,
            FieldError::required(apath, format!("protected groups must have approval annotation {:?}, see https://github.com/kubernetes/enhancements/pull/1111", ANNOTATION)),
            help,
        );
    } else if value.starts_with("unapproved") {
    } else if !request_uri_has_host_and_scheme(value) {
        f.push(
            METADATA,
            FieldError::invalid(apath, value, format!("protected groups must have approval annotation {:?} with either a URL or a reason starting with \"unapproved\", see https://github.com/kubernetes/enhancements/pull/1111", ANNOTATION)),
            help,
        );
    }
}

/// `GetAPIApprovalState`: 0 missing, 1 bypassed, 2 approved, 3 invalid.
fn approval_state(value: &str) -> u8 {
    if value.is_empty() {
        0
    } else if value.starts_with("unapproved") {
        1
    } else if request_uri_has_host_and_scheme(value) {
        2
    } else {
        3
    }
}

/// The fields an update may not change: the group and the plural always (they make
/// the resource's name), the scope and the kind once the CRD is Established.
pub fn validate_immutable(d: &Defaulted, old: &OldCrd, req: &Requirements, f: &mut Findings) {
    let new = d.crd;
    let spec = FieldPath::root("spec");
    let mut check = |code: &'static str,
                     path: FieldPath,
                     now: &Option<Field<String>>,
                     before: &Option<Field<String>>,
                     help: &str| {
        let (now_text, before_text) = (s(now), s(before));
        if now_text != before_text {
            let err = FieldError::invalid(path, now_text, "field is immutable");
            let help = format!("{help} (it was {})", crate::diag::gofmt::quote(before_text));
            match now {
                Some(n) => f.push_at(code, err, n.span, &help),
                None => {
                    f.push(code, err, &help);
                }
            }
        }
    };
    if req.immutable_names {
        check(
            SCOPE,
            spec.child("scope"),
            &new.scope,
            &old.crd.scope,
            "the scope of an installed CRD cannot change: create a new CRD (another group or plural) and migrate",
        );
        check(
            NAMES,
            spec.child("names").child("kind"),
            &new.names.kind,
            &old.crd.names.kind,
            "the kind of an installed CRD cannot change",
        );
    }
    check(
        GROUP,
        spec.child("group"),
        &new.group,
        &old.crd.group,
        "the group is part of the CRD's name and cannot change: create a new CRD",
    );
    check(
        NAMES,
        spec.child("names").child("plural"),
        &new.names.plural,
        &old.crd.names.plural,
        "the plural is part of the CRD's name and cannot change: create a new CRD",
    );
}

/// `url.ParseRequestURI(v)` succeeds with a scheme and a host (`GetAPIApprovalState`;
/// unlike `url.Parse`, a `#` is no fragment: `https://host#x` has a bad host).
fn request_uri_has_host_and_scheme(v: &str) -> bool {
    match url::parse_request_uri(v) {
        Ok(u) => !u.scheme.is_empty() && !u.host.is_empty(),
        Err(_) => false,
    }
}

#[cfg(test)]
mod normalize_tests {
    use super::Normalized;

    fn normalize_empty(s: &str) -> String {
        String::from_utf8(Normalized::new(s).collect()).unwrap()
    }

    /// The streamed normalization gives what replacing each pattern in turn gives.
    #[test]
    fn one_pass_normalization_matches_sequential_replacement() {
        let sequential = |s: &str| {
            let mut s = s.replace(":[]", ":null");
            for key in [
                "Properties",
                "PatternProperties",
                "Definitions",
                "Dependencies",
            ] {
                s = s.replace(&format!("\"{key}\":{{}}"), &format!("\"{key}\":null"));
            }
            s
        };
        for text in [
            "",
            "{\"Required\":[],\"Properties\":{},\"PatternProperties\":{}}",
            "{\"Definitions\":{},\"Dependencies\":{\"a\":[]},\"x\":\"::[]\"}",
            "\"Properties\":{\"Properties\":{}}:[]:[]\"\"é:{}",
            "{\"Enum\":[1],\"Items\":null}",
        ] {
            assert_eq!(normalize_empty(text), sequential(text), "{text}");
        }
    }
}
