//! The API server's create pipeline for one custom resource, offline:
//! resolve the version → strict decoding (unknown fields) → prune → drop non-nullable
//! nulls → default → prepare for create (status, generation, generated name) →
//! validate (ObjectMeta, OpenAPI schema, scale paths, embedded resources, list types)
//! → CEL rules (through [`RuleEvaluator`], skipped after blocking errors).
//!
//! Build a [`CompiledCrd`] once per CRD and share it; [`CompiledCrd::check`] is cheap.

use crate::cel::reach::ValidatorReach;
use crate::cel::{KubeVersion, RuleCompileResult};
use crate::diag::{BadValue, Diagnostic, FieldError, FieldPath, Severity, budget};
use crate::model::crd::{Crd, Version};
use crate::model::owner_ref;
use crate::source::{Node, Span, Value};

use super::objectmeta::{self, NameRule};
use super::prune::{self, UnknownField};
use super::structural::sink::StructuralSink;
use super::structural::{self, Structural};
use super::validate::{self, SchemaError, Validator};

crate::declare_codes! {
    VERSION_NOT_SERVED = "version-not-served", Error, "The resource's apiVersion is not a served version of its CRD (no matches for kind)";
    DEPRECATED_VERSION = "deprecated-version", Warning, "The resource uses a version its CRD marks deprecated";
    UNKNOWN_FIELD = "unknown-field", Error, "A field the CRD schema does not declare (strict field validation rejects it; the server would prune it)";
    UNDECODABLE_RESOURCE = "undecodable-resource", Error, "The server cannot decode the resource (metadata or embedded resource of the wrong JSON type)";
    SCHEMA_VIOLATION = "schema-violation", Error, "A value violates the CRD's OpenAPI schema";
    INVALID_METADATA = "invalid-metadata", Error, "metadata breaks the API server's ObjectMeta rules (name, namespace, labels, annotations, finalizers, owner references)";
    INVALID_EMBEDDED_RESOURCE = "invalid-embedded-resource", Error, "An x-kubernetes-embedded-resource value lacks a valid apiVersion, kind or metadata";
    DUPLICATE_LIST_ITEM = "duplicate-list-item", Error, "An x-kubernetes-list-type set or map list repeats an item or key";
    INVALID_SCALE_REPLICAS = "invalid-scale-replicas", Error, "A scale subresource replicas/selector path holds a value of the wrong type or range";
    CEL_RULES_SKIPPED = "cel-rules-skipped", Error, "The server skips x-kubernetes-validations rules because the object already has blocking errors";
    UPDATE_CONFLICT = "update-conflict", Error, "An update (--old) whose resourceVersion is not the stored object's: the server answers 409 Conflict";
    DEFAULTS_LIMIT = "defaults-limit", Error, "crdlint stopped checking an object its CRD's defaults would grow past 16 MiB; the server could not store it";
    FINALIZER_NAME = "finalizer-name", Warning, "A finalizer name the server warns about (not domain-qualified)";
    DUPLICATE_OWNER_REFERENCE = "duplicate-owner-reference", Warning, "metadata.ownerReferences repeats an entry; the server drops the copy and warns";
}

/// What to do with fields the schema does not declare.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UnknownFields {
    /// kubectl's default `--validate=strict`: the request is rejected.
    #[default]
    Error,
    /// `--validate=warn`: the server prunes them and warns.
    Warn,
    /// `--validate=ignore` / `false`: pruned silently.
    Ignore,
}

/// Evaluates `x-kubernetes-validations` rules on the validated, defaulted object
/// (provided by the CEL module). Called only when the server would run them.
pub trait RuleEvaluator: Sync {
    fn evaluate(&self, version: &str, schema: &Structural, object: &Node) -> Vec<Diagnostic>;

    /// Evaluates the rules of an update (`oldSelf` bound to `old`). Evaluators that
    /// do not know updates evaluate the new object alone.
    fn evaluate_update(
        &self,
        version: &str,
        schema: &Structural,
        object: &Node,
        old: Option<&Node>,
    ) -> Vec<Diagnostic> {
        let _ = old;
        self.evaluate(version, schema, object)
    }
}

#[derive(Clone, Copy, Default)]
pub struct Options<'a> {
    pub unknown_fields: UnknownFields,
    pub rules: Option<&'a dyn RuleEvaluator>,
}

/// The outcome for one resource document.
#[derive(Clone, Debug, Default)]
pub struct ResourceOutcome {
    /// In the server's order (not sorted by position).
    pub diagnostics: Vec<Diagnostic>,
    /// The object as the server would store it (pruned, defaulted, status dropped when
    /// the status subresource is on, generation 1, apiVersion of the storage version),
    /// when it is valid.
    pub stored: Option<Node>,
    /// The version the resource was validated against.
    pub version: Option<String>,
    /// The storage version's name.
    pub storage_version: Option<String>,
    /// The CRD converts with a webhook: the stored apiVersion would be produced by it.
    pub webhook_conversion: bool,
}

impl ResourceOutcome {
    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == Severity::Error)
    }
}

/// One served version, prepared.
struct CompiledVersion {
    name: String,
    served: bool,
    deprecated: bool,
    deprecation_warning: Option<String>,
    structural: Option<Structural>,
    validator: Option<Validator>,
    /// The rules of `structural` as CRD validation compiled them, until the CRD's
    /// rule cache takes them ([`CompiledCrd::take_compiled_rules`]).
    compiled_rules: Option<Vec<RuleCompileResult>>,
    has_rules: bool,
    status_subresource: bool,
    scale: Option<ScalePaths>,
}

struct ScalePaths {
    spec_replicas: String,
    status_replicas: String,
    label_selector: Option<String>,
}

/// A CRD prepared for checking resources: structural schemas and validators per version.
pub struct CompiledCrd {
    pub group: String,
    pub kind: String,
    /// `spec.names.plural`, for the server's messages about the resource.
    plural: String,
    pub namespaced: bool,
    preserve_unknown_fields: bool,
    versions: Vec<CompiledVersion>,
    storage_version: Option<String>,
    webhook_conversion: bool,
}

fn field_str(f: &Option<crate::model::decode::Field<String>>) -> String {
    f.as_ref().map(|f| f.value.clone()).unwrap_or_default()
}

fn field_bool(f: &Option<crate::model::decode::Field<bool>>) -> bool {
    f.as_ref().is_some_and(|f| f.value)
}

fn compile_version(
    v: &Version,
    kube_version: KubeVersion,
    built: Option<&StructuralSink>,
) -> CompiledVersion {
    let (structural, compiled_rules) = match v.schema.as_ref() {
        Some(s) => match built.and_then(|b| b.take(s)) {
            Some(b) => {
                let rules = b.rules.filter(|(v, _)| *v == kube_version).map(|(_, r)| r);
                (Some(b.structural), rules)
            }
            None => (structural::from_props(s).ok(), None),
        },
        None => (None, None),
    };
    // The server builds a validator only when one of its rules is on a node it
    // reaches (it then skips it after a blocking error).
    let has_rules = structural
        .as_ref()
        .is_some_and(|s| has_rules(s) && ValidatorReach::new(s, true).reaches_rules());
    let scale = v
        .subresources
        .as_ref()
        .and_then(|s| s.scale.as_ref())
        .map(|s| ScalePaths {
            spec_replicas: field_str(&s.spec_replicas_path),
            status_replicas: field_str(&s.status_replicas_path),
            label_selector: s.label_selector_path.as_ref().map(|f| f.value.clone()),
        });
    CompiledVersion {
        name: field_str(&v.name),
        served: field_bool(&v.served),
        deprecated: field_bool(&v.deprecated),
        deprecation_warning: v.deprecation_warning.as_ref().map(|f| f.value.clone()),
        validator: v.schema.as_ref().map(|s| match &structural {
            Some(st) => Validator::following(st, kube_version),
            None => Validator::new_at(s, kube_version),
        }),
        structural,
        compiled_rules,
        has_rules,
        status_subresource: v.subresources.as_ref().is_some_and(|s| s.status.is_some()),
        scale,
    }
}

fn has_rules(s: &Structural) -> bool {
    !s.x_validations.is_empty()
        || s.items.as_deref().is_some_and(has_rules)
        || s.properties.iter().any(|(_, p)| has_rules(p))
        || s.additional_properties_schema().is_some_and(has_rules)
}

impl CompiledCrd {
    /// The CRD as the newest supported server validates its resources.
    pub fn new(crd: &Crd) -> CompiledCrd {
        Self::new_at(crd, KubeVersion::NEWEST)
    }

    /// [`CompiledCrd::new`] for a server of `kube_version`.
    pub fn new_at(crd: &Crd, kube_version: KubeVersion) -> CompiledCrd {
        Self::new_reusing(crd, kube_version, None)
    }

    /// [`CompiledCrd::new_at`], taking the structural schemas CRD validation already
    /// built from `crd` out of `built`.
    pub fn new_reusing(
        crd: &Crd,
        kube_version: KubeVersion,
        built: Option<&StructuralSink>,
    ) -> CompiledCrd {
        CompiledCrd {
            group: field_str(&crd.group),
            kind: crd
                .names
                .kind
                .as_ref()
                .map(|k| k.value.clone())
                .unwrap_or_default(),
            plural: field_str(&crd.names.plural),
            namespaced: crd.scope.as_ref().is_none_or(|s| s.value != "Cluster"),
            preserve_unknown_fields: field_bool(&crd.preserve_unknown_fields),
            versions: crd
                .versions
                .iter()
                .map(|v| compile_version(v, kube_version, built))
                .collect(),
            storage_version: crd
                .versions
                .iter()
                .find(|v| field_bool(&v.storage))
                .map(|v| field_str(&v.name)),
            webhook_conversion: crd
                .conversion
                .as_ref()
                .and_then(|c| c.strategy.as_ref())
                .is_some_and(|s| s.value == "Webhook"),
        }
    }

    /// The rules CRD validation compiled, by version name and structural schema, taken
    /// out (once).
    pub fn take_compiled_rules(
        &mut self,
    ) -> impl Iterator<Item = (&str, &Structural, Vec<RuleCompileResult>)> {
        self.versions.iter_mut().filter_map(|v| {
            let rules = v.compiled_rules.take()?;
            Some((v.name.as_str(), v.structural.as_ref()?, rules))
        })
    }

    /// Whether this CRD defines the resource's group and kind.
    pub fn matches(&self, api_version: &str, kind: &str) -> bool {
        let group = api_version.rsplit_once('/').map(|(g, _)| g).unwrap_or("");
        group == self.group && kind == self.kind
    }

    /// The structural schema of a version (for CEL and other consumers).
    pub fn structural(&self, version: &str) -> Option<&Structural> {
        self.versions
            .iter()
            .find(|v| v.name == version)
            .and_then(|v| v.structural.as_ref())
    }

    /// Runs the create pipeline on one resource document.
    pub fn check(&self, doc: &Node, options: &Options) -> ResourceOutcome {
        Checker {
            crd: self,
            options,
            out: ResourceOutcome {
                storage_version: self.storage_version.clone(),
                webhook_conversion: self.webhook_conversion,
                ..ResourceOutcome::default()
            },
        }
        .run_bounded(doc, None)
    }

    /// Runs the update pipeline: `doc` replaces `old` (the object as stored, e.g. the
    /// previous revision of the manifest). Metadata update rules, OpenAPI ratcheting
    /// (errors under unchanged values are dropped), list-type checks only when the old
    /// object passed them, and CEL rules with the old object.
    pub fn check_update(&self, doc: &Node, old: &Node, options: &Options) -> ResourceOutcome {
        Checker {
            crd: self,
            options,
            out: ResourceOutcome {
                storage_version: self.storage_version.clone(),
                webhook_conversion: self.webhook_conversion,
                ..ResourceOutcome::default()
            },
        }
        .run_bounded(doc, Some(old))
    }

    /// The old object of an update as the server reads it from storage: converted to
    /// the request's version (as the `None` strategy does: only `apiVersion` changes),
    /// metadata decoded, pruned and defaulted (its own errors are not reported).
    fn stored_old(&self, old: &Node, schema: &Structural, version: &str) -> OldObject {
        let mut obj = old.clone();
        if let Some(api_version) = obj.as_object_mut().and_then(|m| m.get_mut("apiVersion")) {
            let converted = format!("{}/{}", self.group, version);
            if api_version.as_str() != Some(converted.as_str()) {
                *api_version = Node::synthetic(Value::String(converted), api_version.span);
            }
        }
        let mut meta = objectmeta::Meta::default();
        if let Some(m) = old.get("metadata") {
            let decoded = objectmeta::decode(m, "metadata");
            if decoded.error.is_none() {
                if let Some(m) = obj.as_object_mut().and_then(|m| m.get_mut("metadata")) {
                    objectmeta::drop_unknown(m, &decoded.unknown, "metadata");
                }
                meta = decoded.meta;
            }
        }
        if !self.preserve_unknown_fields {
            prune::prune_unreported(&mut obj, schema, true);
            prune::prune_nulls(&mut obj, Some(schema));
        }
        let _ = objectmeta::coerce_embedded(&mut obj, schema);
        let _ = default_and_coerce(&mut obj, schema, self.preserve_unknown_fields);
        OldObject { obj, meta }
    }

    fn deprecation_warning(&self, v: &CompiledVersion) -> String {
        if let Some(w) = &v.deprecation_warning {
            return w.clone();
        }
        let mut msg = format!("{}/{} {} is deprecated", self.group, v.name, self.kind);
        let mut newer: Vec<&str> = self
            .versions
            .iter()
            .filter(|o| o.served && !o.deprecated && compare_kube_versions(&v.name, &o.name) < 0)
            .map(|o| o.name.as_str())
            .collect();
        newer.sort_by(|a, b| compare_kube_versions(b, a).cmp(&0));
        if let Some(first) = newer.first() {
            msg.push_str(&format!("; use {}/{} {}", self.group, first, self.kind));
        }
        msg
    }
}

/// Convenience: compile and check in one go.
pub fn validate(crd: &Crd, doc: &Node, options: &Options) -> ResourceOutcome {
    CompiledCrd::new(crd).check(doc, options)
}

/// apimachinery's `CompareKubeAwareVersionStrings` (> 0 when `a` is newer).
pub fn compare_kube_versions(a: &str, b: &str) -> i64 {
    fn parse(v: &str) -> Option<(i64, i64, i64)> {
        let rest = v.strip_prefix('v')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        let major: i64 = rest[..digits].parse().ok()?;
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some((major, 2, 0));
        }
        let (kind, minor) = if let Some(m) = tail.strip_prefix("alpha") {
            (0, m)
        } else if let Some(m) = tail.strip_prefix("beta") {
            (1, m)
        } else {
            return None;
        };
        if minor.is_empty() || !minor.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((major, kind, minor.parse().ok()?))
    }
    if a == b {
        return 0;
    }
    match (parse(a), parse(b)) {
        (None, None) => match b.cmp(a) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        },
        (None, Some(_)) => -1,
        (Some(_), None) => 1,
        (Some((am, at, an)), Some((bm, bt, bn))) => {
            if at != bt {
                at - bt
            } else if am != bm {
                am - bm
            } else {
                an - bn
            }
        }
    }
}

/// The old object of an update, as stored.
struct OldObject {
    obj: Node,
    meta: objectmeta::Meta,
}

struct Checker<'a> {
    crd: &'a CompiledCrd,
    options: &'a Options<'a>,
    out: ResourceOutcome,
}

fn diag(code: &'static str, e: &SchemaError) -> Diagnostic {
    Diagnostic::from_field_error(code, &e.error, e.span)
}

impl Checker<'_> {
    fn push(&mut self, d: Diagnostic) {
        self.out.diagnostics.push(d);
    }

    /// An error of the request's decoding (embedded resources' `apiVersion`, `kind` and
    /// `metadata` are coerced there): the handler answers 400 BadRequest with the
    /// decoder's error after `<Kind> in version "<v>" cannot be handled as a <Kind>: `,
    /// and no causes.
    fn undecodable(&self, version: &str, e: &SchemaError) -> Diagnostic {
        let mut d = diag(UNDECODABLE_RESOURCE, e);
        d.message = format!(
            "{} in version {} cannot be handled as a {}: {}",
            self.crd.kind,
            go_q(version),
            self.crd.kind,
            d.message
        );
        d.reason = None;
        d
    }

    /// [`Checker::run`] with the object's findings bounded (see [`budget`]).
    fn run_bounded(self, doc: &Node, old: Option<&Node>) -> ResourceOutcome {
        let findings = budget::ObjectBudget::start();
        let mut out = self.run(doc, old);
        if findings.exhausted() {
            out.stored = None;
            out.diagnostics.push(budget::findings_limit(doc.span));
        }
        out
    }

    fn run(mut self, doc: &Node, old: Option<&Node>) -> ResourceOutcome {
        let Some(map) = doc.as_object() else {
            self.push(
                Diagnostic::error(
                    UNDECODABLE_RESOURCE,
                    "Object 'Kind' is missing in the document",
                )
                .with_span(doc.span),
            );
            return self.out;
        };
        let api_version = map.get("apiVersion").and_then(Node::as_str).unwrap_or("");
        let kind = map.get("kind").and_then(Node::as_str).unwrap_or("");
        let version_name = api_version
            .rsplit_once('/')
            .map(|(_, v)| v)
            .unwrap_or(api_version);
        let Some(version) = self
            .crd
            .versions
            .iter()
            .find(|v| v.name == version_name && v.served)
        else {
            let span = map.get("apiVersion").map(|n| n.span).unwrap_or(doc.span);
            self.push(
                Diagnostic::error(
                    VERSION_NOT_SERVED,
                    format!(
                        "no matches for kind {} in version {}",
                        go_q(kind),
                        go_q(api_version)
                    ),
                )
                .with_field("apiVersion")
                .with_span(span)
                .with_help(format!(
                    "served versions of {}.{}: {}",
                    self.crd.kind,
                    self.crd.group,
                    self.served_list()
                )),
            );
            return self.out;
        };
        self.out.version = Some(version.name.clone());
        if version.deprecated {
            let span = map.get("apiVersion").map(|n| n.span).unwrap_or(doc.span);
            self.push(
                Diagnostic::warning(DEPRECATED_VERSION, self.crd.deprecation_warning(version))
                    .with_field("apiVersion")
                    .with_span(span),
            );
        }
        let mut obj = doc.clone();
        let empty = Structural::default();
        let schema = version.structural.as_ref().unwrap_or(&empty);
        let old = old.map(|o| self.crd.stored_old(o, schema, &version.name));

        // Strict decoding: metadata into ObjectMeta, then the schema.
        let mut unknown: Vec<UnknownField> = Vec::new();
        let mut meta = objectmeta::Meta {
            span: doc.span,
            ..Default::default()
        };
        let mut meta_key_span = doc.span;
        if let Some(entry) = map.entry("metadata") {
            meta_key_span = entry.key_span;
            let decoded = objectmeta::decode(&entry.value, "metadata");
            if let Some(e) = decoded.error {
                self.push(
                    Diagnostic::error(
                        UNDECODABLE_RESOURCE,
                        format!(
                            "{} in version {} cannot be handled as a {}: {}",
                            self.crd.kind,
                            go_q(&version.name),
                            self.crd.kind,
                            e.message
                        ),
                    )
                    .with_field("metadata")
                    .with_detail(e.message)
                    .with_span(e.span),
                );
                return self.out;
            }
            if let Some(m) = obj.as_object_mut().and_then(|m| m.get_mut("metadata")) {
                objectmeta::drop_unknown(m, &decoded.unknown, "metadata");
            }
            unknown.extend(decoded.unknown);
            meta = decoded.meta;
        }
        if !self.crd.preserve_unknown_fields {
            if self.options.unknown_fields == UnknownFields::Ignore {
                prune::prune_unreported(&mut obj, schema, true);
            } else {
                unknown.extend(prune::prune(&mut obj, schema, true));
            }
            prune::prune_nulls(&mut obj, Some(schema));
        }
        let coerced = objectmeta::coerce_embedded(&mut obj, schema);
        unknown.extend(coerced.unknown);
        if let Some(e) = coerced.error {
            self.push(self.undecodable(&version.name, &e));
            return self.out;
        }
        self.report_unknown(unknown);
        match default_and_coerce(&mut obj, schema, self.crd.preserve_unknown_fields) {
            Ok(()) => {}
            Err(DefaultingStop::Undecodable(e)) => {
                self.push(self.undecodable(&version.name, &e));
                return self.out;
            }
            Err(DefaultingStop::OverLimit { path, run }) => {
                self.push(defaults_limit(doc.span, &path, run));
                return self.out;
            }
        }
        if !self.crd.namespaced {
            // The server clears the namespace of a cluster-scoped object.
            meta.namespace = None;
            if let Some(m) = obj
                .as_object_mut()
                .and_then(|m| m.get_mut("metadata"))
                .and_then(Node::as_object_mut)
            {
                m.remove("namespace");
            }
        }
        self.dedup_owner_references(&mut obj, &mut meta, old.is_some());
        if let Some(old) = &old
            && self.resource_version_on_update(&obj, old)
        {
            // The store refuses the update before the strategy sees it.
            return self.out;
        }
        match &old {
            Some(old) => self.prepare_for_update(&mut obj, version, &mut meta, old),
            None => self.prepare_for_create(&mut obj, version, &mut meta),
        }

        // Validation, in the strategy's order.
        let mut blocking = false;
        let mut note = |code: &'static str, e: &SchemaError| {
            blocking |= validate::blocks_cel(e.error.error_type);
            diag(code, e)
        };
        let mut found = Vec::new();
        let metadata_path = FieldPath::root("metadata");
        // An absent or empty namespace is filled in by kubectl from the context.
        let requires_namespace =
            self.crd.namespaced && meta.namespace.as_ref().is_some_and(|n| !n.value.is_empty());
        let meta_errors = match &old {
            Some(old) => objectmeta::validate_meta_update(
                &meta,
                &old.meta,
                requires_namespace,
                &metadata_path,
                meta_key_span,
            ),
            None => objectmeta::validate_meta(
                &meta,
                requires_namespace,
                NameRule::DnsSubdomain,
                &metadata_path,
                meta_key_span,
            ),
        };
        for e in meta_errors {
            found.push(note(INVALID_METADATA, &e));
        }
        if let Some(validator) = &version.validator {
            let errors = match &old {
                Some(old) => validator.validate_update(&obj, &old.obj, schema),
                None => validator.validate_following(&obj, schema),
            };
            for e in errors {
                found.push(note(SCHEMA_VIOLATION, &e));
            }
        }
        if let Some(scale) = &version.scale {
            for e in validate_scale(&obj, scale) {
                found.push(note(INVALID_SCALE_REPLICAS, &e));
            }
        }
        for e in objectmeta::validate_embedded(schema, &obj) {
            found.push(note(INVALID_EMBEDDED_RESOURCE, &e));
        }
        // On update, list uniqueness is enforced only when the old object satisfied it.
        let old_lists_valid = old
            .as_ref()
            .is_none_or(|o| super::listtype::validate(schema, &o.obj).is_empty());
        if old_lists_valid {
            for e in super::listtype::validate(schema, &obj) {
                found.push(note(DUPLICATE_LIST_ITEM, &e));
            }
        }
        for d in &mut found {
            if d.code == SCHEMA_VIOLATION || d.code == INVALID_METADATA {
                add_help(d);
            }
        }
        self.out.diagnostics.extend(found);
        if version.has_rules {
            if blocking {
                let e = FieldError::invalid(
                    FieldPath::empty(),
                    BadValue::Json(serde_json::Value::Null),
                    "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
                );
                self.push(
                    Diagnostic::from_field_error(CEL_RULES_SKIPPED, &e, doc.span)
                        .with_help("fix the errors above; the server then evaluates the CRD's x-kubernetes-validations rules"),
                );
            } else if let Some(rules) = self.options.rules {
                let ds = match &old {
                    Some(old) => rules.evaluate_update(&version.name, schema, &obj, Some(&old.obj)),
                    None => rules.evaluate(&version.name, schema, &obj),
                };
                self.out.diagnostics.extend(ds);
            }
        }
        let mut warned = meta.clone();
        if let Some(old) = &old {
            // Only finalizers the update adds are warned about.
            warned
                .finalizers
                .retain(|f| !old.meta.finalizers.iter().any(|o| o.value == f.value));
        }
        for (message, span) in objectmeta::finalizer_warnings(&warned) {
            self.push(Diagnostic::warning(FINALIZER_NAME, message).with_span(span));
        }
        if old.is_none() && !self.out.has_errors() {
            self.resource_version_on_create(&obj);
        }
        if !self.out.has_errors() {
            self.fill_system_metadata(&mut obj);
            if let (Some(storage), Some(m)) = (&self.crd.storage_version, obj.as_object_mut())
                && !self.crd.webhook_conversion
            {
                let api = if self.crd.group.is_empty() {
                    storage.clone()
                } else {
                    format!("{}/{}", self.crd.group, storage)
                };
                if let Some(v) = m.get_mut("apiVersion") {
                    v.value = Value::String(api);
                }
                if *storage != version.name {
                    self.coerce_for_storage(&mut obj, storage);
                }
            }
            self.out.stored = Some(obj);
        }
        self.out
    }

    /// The handlers drop repeated owner references before validation and warn: on a
    /// create before mutating admission, on kubectl apply's patch of a stored object
    /// after it (the warning says so).
    fn dedup_owner_references(
        &mut self,
        obj: &mut Node,
        meta: &mut objectmeta::Meta,
        update: bool,
    ) {
        let total = meta.owner_references.len();
        if total < 2 {
            return;
        }
        let before = meta.owner_references.clone();
        let dropped = owner_ref::dedup(&mut meta.owner_references);
        if dropped.is_empty() {
            return;
        }
        if let Some(Value::Array(items)) = obj
            .as_object_mut()
            .and_then(|m| m.get_mut("metadata"))
            .and_then(|m| m.as_object_mut())
            .and_then(|m| m.get_mut("ownerReferences"))
            .map(|n| &mut n.value)
            && items.len() == total
        {
            let mut index = 0;
            items.retain(|_| {
                index += 1;
                dropped.binary_search(&(index - 1)).is_err()
            });
        }
        self.push(objectmeta::duplicate_owner_warning(
            &before, &dropped, update,
        ));
    }

    /// Storage refuses to create an object that carries a resource version (a
    /// manifest exported from a cluster): etcd3's `ErrResourceVersionSetOnCreate`,
    /// after validation passed. "" and "0" mean none; text that is not a decimal
    /// number is ignored there (and replaced).
    fn resource_version_on_create(&mut self, obj: &Node) {
        let Some(rv) = obj.get_path(&["metadata", "resourceVersion"]) else {
            return;
        };
        let set = rv.as_str().is_some_and(|v| {
            !v.is_empty()
                && v.bytes().all(|b| b.is_ascii_digit())
                && v.parse::<u64>().is_ok_and(|n| n != 0)
        });
        if set {
            self.push(
                Diagnostic::error(
                    INVALID_METADATA,
                    "Internal error occurred: resourceVersion should not be set on objects to be created",
                )
                .with_field("metadata.resourceVersion")
                .with_span(rv.span)
                .with_help("remove it (the manifest looks exported from a cluster); an update of an existing object can be checked with --old"),
            );
        }
    }

    /// The store's preconditions on the `resourceVersion` of an update (the request's
    /// value, when the manifest has one; kubectl sends none of its own): `0` is refused
    /// (custom resources allow no unconditional update), and a value other than the
    /// stored object's is a conflict. The stored value is known only when the old
    /// manifest has one. Returns whether the update was refused.
    fn resource_version_on_update(&mut self, obj: &Node, old: &OldObject) -> bool {
        let Some(rv) = obj.get_path(&["metadata", "resourceVersion"]) else {
            return false;
        };
        let Some(text) = rv.as_str().filter(|t| !t.is_empty()) else {
            return false;
        };
        let Ok(new) = text.parse::<u64>() else {
            // Not a number: the server's own parse error, left alone.
            return false;
        };
        let name = obj
            .get_path(&["metadata", "name"])
            .and_then(Node::as_str)
            .unwrap_or("");
        let resource = if self.crd.group.is_empty() {
            self.crd.plural.clone()
        } else {
            format!("{}.{}", self.crd.plural, self.crd.group)
        };
        if new == 0 {
            let e = FieldError::invalid(
                FieldPath::root("metadata").child("resourceVersion"),
                BadValue::Raw("0".into()),
                "must be specified for an update",
            );
            self.push(
                Diagnostic::from_field_error(INVALID_METADATA, &e, rv.span).with_help(
                    "remove resourceVersion from the manifest (kubectl then updates whatever is stored)",
                ),
            );
            return true;
        }
        let stored = old
            .obj
            .get_path(&["metadata", "resourceVersion"])
            .and_then(Node::as_str)
            .and_then(|t| t.parse::<u64>().ok());
        if let Some(stored) = stored
            && stored != new
        {
            self.push(
                Diagnostic::error(
                    UPDATE_CONFLICT,
                    format!(
                        "Operation cannot be fulfilled on {resource} {}: the object has been modified; please apply your changes to the latest version and try again",
                        go_q(name)
                    ),
                )
                .with_field("metadata.resourceVersion")
                .with_span(rv.span)
                .with_help(format!(
                    "the stored object has resourceVersion {stored}; remove resourceVersion from the manifest, or start from the stored object"
                )),
            );
            return true;
        }
        false
    }

    /// What the server writes into every created object itself: `uid` and
    /// `creationTimestamp` (`FillObjectMetaSystemFields`), `resourceVersion` (storage)
    /// and `managedFields` (its field manager). A stored object shows none of the
    /// request's values; crdlint prints no generated ones. A namespaced object without
    /// a namespace gets kubectl's default one. The rest is written back as the decoded
    /// `ObjectMeta` ([`objectmeta::normalize`]: empty fields go).
    fn fill_system_metadata(&self, obj: &mut Node) {
        let Some(metadata) = obj.as_object_mut().and_then(|m| m.get_mut("metadata")) else {
            return;
        };
        objectmeta::normalize(metadata);
        let Some(m) = metadata.as_object_mut() else {
            return;
        };
        for key in [
            "uid",
            "creationTimestamp",
            "resourceVersion",
            "managedFields",
        ] {
            m.remove(key);
        }
        if self.crd.namespaced {
            let span = m.get("name").map_or(Span::default(), |n| n.span);
            match m.get_mut("namespace") {
                Some(n) if n.as_str().is_some_and(|s| !s.is_empty()) => {}
                Some(n) => n.value = Value::String("default".into()),
                None => {
                    m.insert(
                        "namespace".into(),
                        Node::synthetic(Value::String("default".into()), span),
                    );
                }
            }
        }
    }

    /// The storage encoding converts the object to the storage version and coerces it
    /// again with that version's schema (the server's `schemaCoercingConverter`):
    /// fields the storage schema does not know are pruned, non-nullable nulls
    /// dropped, embedded metadata coerced. No defaulting happens on this path.
    fn coerce_for_storage(&self, obj: &mut Node, storage: &str) {
        let Some(schema) = self
            .crd
            .versions
            .iter()
            .find(|v| v.name == storage)
            .and_then(|v| v.structural.as_ref())
        else {
            return;
        };
        if !self.crd.preserve_unknown_fields {
            prune::prune_unreported(obj, schema, true);
            prune::prune_nulls(obj, Some(schema));
        }
        // An error here would fail the server's storage conversion; the request
        // version's coercion already accepted the same metadata.
        let _ = objectmeta::coerce_embedded(obj, schema);
    }

    fn served_list(&self) -> String {
        let served: Vec<String> = self
            .crd
            .versions
            .iter()
            .filter(|v| v.served)
            .map(|v| format!("{}/{}", self.crd.group, v.name))
            .collect();
        if served.is_empty() {
            "none".into()
        } else {
            served.join(", ")
        }
    }

    fn report_unknown(&mut self, unknown: Vec<UnknownField>) {
        let severity = match self.options.unknown_fields {
            UnknownFields::Error => Severity::Error,
            UnknownFields::Warn => Severity::Warning,
            UnknownFields::Ignore => return,
        };
        // Each was charged to the findings budget when found (`UnknownField::new`).
        for u in unknown {
            let message = format!("unknown field {}", go_q(&u.path));
            self.push(
                Diagnostic::new(UNKNOWN_FIELD, severity, message.clone())
                    .with_field(u.path)
                    .with_detail(message)
                    .with_span(u.key_span)
                    .with_help(
                        "the CRD schema does not declare this field: remove it or fix its spelling \
                         (the server prunes it; kubectl's default --validate=strict rejects the object)",
                    ),
            );
        }
    }

    /// `BeforeUpdate` and `PrepareForUpdate`: generation, status and system fields
    /// come from the old object; the generation increments when anything outside
    /// metadata changed.
    fn prepare_for_update(
        &self,
        obj: &mut Node,
        version: &CompiledVersion,
        meta: &mut objectmeta::Meta,
        old: &OldObject,
    ) {
        let span = obj.span;
        let at = Span::point(span.start);
        let old_map = old.obj.as_object();
        let Some(map) = obj.as_object_mut() else {
            return;
        };
        if version.status_subresource {
            match old_map.and_then(|m| m.get("status")) {
                Some(status) => {
                    map.insert("status".into(), status.clone());
                }
                None => {
                    map.remove("status");
                }
            }
        }
        // Storage repairs a stored generation of 0 (`repairGeneration`).
        let old_generation = old
            .meta
            .generation
            .as_ref()
            .map_or(1, |g| if g.value == 0 { 1 } else { g.value });
        let changed = {
            // Borrowed, and the old fields by name: copying both objects and scanning
            // the old fields for each new one took 11 s for 120,000 top-level fields.
            fn outside_metadata(
                m: &crate::source::Mapping,
            ) -> std::collections::HashMap<&str, &Node> {
                m.entries
                    .iter()
                    .filter(|e| e.key != "metadata")
                    .map(|e| (e.key.as_str(), &e.value))
                    .collect()
            }
            let new_rest = outside_metadata(map);
            let old_rest = old_map.map(outside_metadata).unwrap_or_default();
            new_rest.len() != old_rest.len()
                || new_rest.iter().any(|(k, v)| {
                    old_rest
                        .get(k)
                        .is_none_or(|ov| !validate::go_deep_equal(v, ov))
                })
        };
        if !map.contains_key("metadata") {
            map.insert(
                "metadata".into(),
                Node::synthetic(Value::Object(Default::default()), at),
            );
        }
        let Some(m) = map.get_mut("metadata").and_then(Node::as_object_mut) else {
            return;
        };
        let generation = if changed {
            old_generation.saturating_add(1)
        } else {
            old_generation
        };
        m.insert(
            "generation".into(),
            Node::synthetic(Value::Int(generation), at),
        );
        // The server validates the generation BeforeUpdate copied from the stored
        // object; only a hand-written old manifest can make it negative.
        meta.generation =
            (generation < 0).then(|| crate::model::decode::Field::new(generation, at, at));
        let mut keep = |key: &str,
                        new: &mut Option<crate::model::decode::Field<String>>,
                        old: &Option<crate::model::decode::Field<String>>,
                        always: bool| {
            if let Some(o) = old
                && (always || new.is_none())
            {
                m.insert(
                    key.into(),
                    Node::synthetic(Value::String(o.value.clone()), at),
                );
                *new = Some(o.clone());
            }
        };
        keep("uid", &mut meta.uid, &old.meta.uid, false);
        keep(
            "creationTimestamp",
            &mut meta.creation_timestamp,
            &old.meta.creation_timestamp,
            true,
        );
        keep(
            "deletionTimestamp",
            &mut meta.deletion_timestamp,
            &old.meta.deletion_timestamp,
            true,
        );
        // kubectl sends no resourceVersion: its patch applies to the stored object,
        // whose version the object being validated then carries.
        let old_resource_version = old
            .obj
            .get_path(&["metadata", "resourceVersion"])
            .and_then(Node::as_str)
            .filter(|v| !v.is_empty());
        let has_resource_version = m
            .get("resourceVersion")
            .and_then(Node::as_str)
            .is_some_and(|v| !v.is_empty());
        if let Some(v) = old_resource_version
            && !has_resource_version
        {
            m.insert(
                "resourceVersion".into(),
                Node::synthetic(Value::String(v.to_string()), at),
            );
        }
        if let Some(o) = &old.meta.deletion_grace_period_seconds
            && meta.deletion_grace_period_seconds.is_none()
        {
            m.insert(
                "deletionGracePeriodSeconds".into(),
                Node::synthetic(Value::Int(o.value), at),
            );
            meta.deletion_grace_period_seconds = Some(o.clone());
        }
    }

    /// `PrepareForCreate` and name generation.
    fn prepare_for_create(
        &self,
        obj: &mut Node,
        version: &CompiledVersion,
        meta: &mut objectmeta::Meta,
    ) {
        let span = obj.span;
        let Some(map) = obj.as_object_mut() else {
            return;
        };
        if version.status_subresource {
            map.remove("status");
        }
        if !map.contains_key("metadata") {
            map.insert(
                "metadata".into(),
                Node::synthetic(Value::Object(Default::default()), Span::point(span.start)),
            );
        }
        let Some(m) = map.get_mut("metadata").and_then(Node::as_object_mut) else {
            return;
        };
        let at = Span::point(span.start);
        let generate = meta.name.as_ref().is_none_or(|n| n.value.is_empty());
        if generate && let Some(g) = meta.generate_name.as_ref().filter(|g| !g.value.is_empty()) {
            m.insert(
                "name".into(),
                Node::synthetic(Value::String(objectmeta::generated_name(&g.value)), g.span),
            );
        }
        m.insert("generation".into(), Node::synthetic(Value::Int(1), at));
        // Generation is reset before validation.
        meta.generation = None;
    }
}

fn go_q(s: &str) -> String {
    crate::diag::gofmt::quote(s)
}

fn add_help(d: &mut Diagnostic) {
    let help = match d.reason {
        Some("FieldValueRequired") => "add the missing field",
        Some("FieldValueTypeInvalid") => "write a value of the type the schema declares",
        Some("FieldValueNotSupported") => "use one of the supported values",
        Some("FieldValueTooLong") => "shorten the value",
        Some("FieldValueTooMany") => "remove entries to respect the schema's maximum",
        _ => return,
    };
    d.help = Some(help.to_string());
}

/// Go's `%v` of a decoded JSON value and `%T` of its Go type.
fn go_v_and_t(v: &Value) -> (String, &'static str) {
    match v {
        Value::Null => ("<nil>".into(), "<nil>"),
        Value::Bool(b) => (b.to_string(), "bool"),
        Value::Int(i) => (i.to_string(), "int64"),
        Value::Float(f) => (crate::diag::gofmt::float_v(*f), "float64"),
        Value::String(s) => (s.clone(), "string"),
        Value::Array(items) => (
            format!(
                "[{}]",
                items
                    .iter()
                    .map(|i| go_v_and_t(&i.value).0)
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            "[]interface {}",
        ),
        Value::Object(m) => {
            let mut entries: Vec<_> = m.entries.iter().collect();
            entries.sort_by(|a, b| a.key.cmp(&b.key));
            (
                format!(
                    "map[{}]",
                    entries
                        .iter()
                        .map(|e| format!("{}:{}", e.key, go_v_and_t(&e.value.value).0))
                        .collect::<Vec<_>>()
                        .join(" ")
                ),
                "map[string]interface {}",
            )
        }
    }
}

/// `unstructured.NestedFieldNoCopy` then a type check; `Err` is the accessor error.
fn nested<'a>(obj: &'a Node, path: &str, want: &str) -> Result<Option<&'a Node>, (String, Span)> {
    let fields: Vec<&str> = path.trim_start_matches('.').split('.').collect();
    let mut cur = obj;
    for (i, f) in fields.iter().enumerate() {
        if cur.is_null() {
            return Ok(None);
        }
        let Some(m) = cur.as_object() else {
            let (v, t) = go_v_and_t(&cur.value);
            return Err((
                format!(
                    ".{} accessor error: {v} is of the type {t}, expected map[string]interface{{}}",
                    fields[..=i].join(".")
                ),
                cur.span,
            ));
        };
        match m.get(f) {
            Some(n) => cur = n,
            None => return Ok(None),
        }
    }
    let ok = matches!(
        (&cur.value, want),
        (Value::Int(_), "int64") | (Value::String(_), "string")
    );
    if ok {
        Ok(Some(cur))
    } else {
        let (v, t) = go_v_and_t(&cur.value);
        Err((
            format!(
                ".{} accessor error: {v} is of the type {t}, expected {want}",
                fields.join(".")
            ),
            cur.span,
        ))
    }
}

fn validate_scale(obj: &Node, scale: &ScalePaths) -> Vec<SchemaError> {
    let mut errs = Vec::new();
    for path in [&scale.spec_replicas, &scale.status_replicas] {
        if path.is_empty() {
            continue;
        }
        let field = FieldPath::root(path);
        match nested(obj, path, "int64") {
            Err((message, span)) => errs.push(SchemaError {
                error: FieldError::invalid(field, 0, message),
                span,
            }),
            Ok(Some(n)) => {
                let v = n.as_i64().unwrap_or(0);
                if v < 0 {
                    errs.push(SchemaError {
                        error: FieldError::invalid(field, v, "should be a non-negative integer"),
                        span: n.span,
                    });
                } else if v > i32::MAX as i64 {
                    errs.push(SchemaError {
                        error: FieldError::invalid(
                            field,
                            v,
                            "should be less than or equal to 2147483647",
                        ),
                        span: n.span,
                    });
                }
            }
            Ok(None) => {}
        }
    }
    if let Some(path) = &scale.label_selector
        && let Err((message, span)) = nested(obj, path, "string")
    {
        errs.push(SchemaError {
            error: FieldError::invalid(FieldPath::root(path), "", message),
            span,
        });
    }
    errs
}

/// Why defaulting stopped the check of an object.
enum DefaultingStop {
    /// The defaults passed [`prune::DEFAULTS_LIMIT`] at this path, or (`run`) those of
    /// the whole run passed [`budget::MAX_RUN_DEFAULT_BYTES`].
    OverLimit { path: String, run: bool },
    /// An embedded-metadata error of the decoding.
    Undecodable(Box<crate::schema::validate::SchemaError>),
}

/// Defaults `obj`, then coerces it again as the server's decoder does after
/// defaulting: fields a default brought that the schema does not know are pruned
/// (silently: they are not the request's), non-nullable nulls in defaults dropped,
/// embedded metadata coerced. Only when a default was applied: the first coercion
/// left nothing else to do. An embedded-metadata error is the decoding's error.
fn default_and_coerce(
    obj: &mut Node,
    schema: &Structural,
    preserve_unknown_fields: bool,
) -> Result<(), DefaultingStop> {
    let run_left = budget::run_defaults_remaining();
    let limit = run_left.map_or(prune::DEFAULTS_LIMIT, |left| {
        left.min(prune::DEFAULTS_LIMIT)
    });
    let defaulting = prune::default_within(obj, schema, limit);
    budget::charge_defaults(defaulting.bytes);
    if let Some(path) = defaulting.over_limit {
        let run = limit < prune::DEFAULTS_LIMIT;
        return Err(DefaultingStop::OverLimit { path, run });
    }
    if defaulting.added.is_empty() {
        return Ok(());
    }
    if !preserve_unknown_fields {
        prune::prune_unreported(obj, schema, true);
        prune::prune_nulls(obj, Some(schema));
    }
    match objectmeta::coerce_embedded(obj, schema).error {
        Some(e) => Err(DefaultingStop::Undecodable(Box::new(e))),
        None => Ok(()),
    }
}

/// `defaults-limit`: the object is not checked further.
fn defaults_limit(span: Span, path: &str, run: bool) -> Diagnostic {
    let message = if run {
        format!(
            "crdlint stopped checking this object: the defaults applied to the objects of this run passed {} MiB (at {path})",
            budget::MAX_RUN_DEFAULT_BYTES >> 20
        )
    } else {
        format!(
            "crdlint stopped checking this object: its CRD's defaults would make it larger than {} MiB (at {path}); the server could not store it",
            prune::DEFAULTS_LIMIT >> 20
        )
    };
    Diagnostic::error(DEFAULTS_LIMIT, message)
    .with_span(span)
    .with_help("a default is copied into every object, list item or map value that lacks the field: give fewer items a large default, or make the default smaller")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kube_version_order() {
        assert!(compare_kube_versions("v2", "v1") > 0);
        assert!(compare_kube_versions("v1", "v1beta1") > 0);
        assert!(compare_kube_versions("v1beta2", "v1beta1") > 0);
        assert!(compare_kube_versions("v1alpha1", "foo") > 0);
        assert!(compare_kube_versions("bar", "foo") > 0);
    }
}
