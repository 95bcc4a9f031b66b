//! The `check` pipeline: inputs → files → documents → classification → CRD checks and
//! custom-resource checks → sorted diagnostics and a summary. Each stage lives in its
//! own module; this one only wires them in the server's order.

pub mod classify;
pub mod load;
pub mod policy;
pub mod resources;
pub mod suppress;
pub mod timings;
pub mod update;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use rayon::prelude::*;

use crate::cel::KubeVersion;
use crate::diag::{self, Diagnostic, ObjectRef, Severity};
use crate::source::walk::{self, Input, WalkOptions};
use crate::source::yaml::Limits;
use crate::source::{Node, SourceFile, Span, Value};
use classify::TypeMeta;

crate::declare_codes! {
    MISSING_CRD = "missing-crd", Warning, "A document's apiVersion/kind is neither built in nor defined by a CRD in the run";
    CRD_V1BETA1 = "crd-v1beta1-removed", Error, "apiextensions.k8s.io/v1beta1 CustomResourceDefinitions were removed in Kubernetes 1.22";
    DUPLICATE_CRD = "duplicate-crd", Warning, "Two CRDs with the same name in one run; the later one replaces the earlier";
    MISSING_TYPE_META = "missing-type-meta", Error, "A document has no apiVersion or kind";
    NOT_AN_OBJECT = "not-an-object", Error, "A document is not a mapping, so it is not a Kubernetes object";
    CEL_NOT_EVALUATED = "cel-not-evaluated", Warning, "crdlint could not evaluate a CEL rule on a custom resource (the verdict of that rule is unknown)";
}

/// What to do with documents whose kind no CRD in the run defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum MissingCrdPolicy {
    Error,
    #[default]
    Warn,
    Ignore,
}

#[derive(Clone, Debug)]
pub struct CheckOptions {
    /// Paths to check (`-` is stdin).
    pub paths: Vec<PathBuf>,
    /// Paths whose CRDs resolve custom resources but are not themselves reported on.
    pub crd_paths: Vec<PathBuf>,
    pub walk: WalkOptions,
    pub max_file_size: u64,
    pub limits: Limits,
    pub missing_crd: MissingCrdPolicy,
    /// The Kubernetes version to follow; `None` is the newest crdlint knows.
    pub kube_version: Option<policy::KubeVersion>,
    /// What to do with custom-resource fields no schema declares.
    pub unknown_fields: policy::UnknownFieldPolicy,
    /// Severity overrides by code (applied after inline suppression).
    pub severities: policy::Severities,
    /// `--old`: stored objects; matching custom resources are checked as updates.
    pub old_paths: Vec<PathBuf>,
}

impl Default for CheckOptions {
    fn default() -> Self {
        CheckOptions {
            paths: vec![PathBuf::from(".")],
            crd_paths: Vec::new(),
            walk: WalkOptions::default(),
            max_file_size: 32 * 1024 * 1024,
            limits: Limits::default(),
            missing_crd: MissingCrdPolicy::Warn,
            kube_version: None,
            unknown_fields: policy::UnknownFieldPolicy::default(),
            severities: policy::Severities::default(),
            old_paths: Vec::new(),
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    pub files: usize,
    pub documents: usize,
    pub crds: usize,
    pub resources: usize,
    pub errors: usize,
    pub warnings: usize,
}

pub struct CheckResult {
    /// Sorted by file, document, position.
    pub diagnostics: Vec<Diagnostic>,
    pub summary: Summary,
    /// A path could not be read: the run exits with status 2.
    pub io_error: bool,
}

/// One document (after `List` flattening) with what the pipeline knows about it.
pub struct Document {
    pub file: Arc<SourceFile>,
    pub index: usize,
    pub root: Node,
    pub object: ObjectRef,
    /// Whether findings about it are reported (false for `--crds` sources).
    pub reported: bool,
}

impl Document {
    fn diagnostic(&self, d: Diagnostic) -> Diagnostic {
        d.in_document(&self.file, self.index)
            .for_object(&self.object)
    }
}

pub fn run(options: &CheckOptions) -> CheckResult {
    let phase = timings::phase("load");
    let mut loaded = load_inputs(options);
    drop(phase);
    let phase = timings::phase("classify");
    let classified = classify_all(
        &loaded.documents,
        options,
        &mut loaded.diagnostics,
        &mut loaded.summary,
    );
    drop(phase);
    let phase = timings::phase("check");
    let mut diagnostics = std::mem::take(&mut loaded.diagnostics);
    let olds = update::OldObjects::load(
        &options.old_paths,
        &options.walk,
        options.max_file_size,
        &options.limits,
    );
    loaded.io_error |= olds.io_error;
    diagnostics.extend(olds.diagnostics.iter().cloned());
    check_documents(&classified, options, &olds, &mut diagnostics);
    drop(phase);
    let _phase = timings::phase("finish");
    finish(diagnostics, &loaded, options)
}

/// A custom resource as the server would store it (`crdlint dry-run`).
pub struct StoredObject {
    pub file: Arc<SourceFile>,
    pub document: usize,
    /// The object as written.
    pub original: Node,
    /// Pruned, defaulted, prepared for create, in the storage version's apiVersion
    /// (unless the CRD converts with a webhook).
    pub stored: Node,
    /// The CRD converts with a webhook that crdlint does not run: the object keeps the
    /// request's apiVersion.
    pub webhook_conversion: bool,
}

pub struct DryRunResult {
    pub result: CheckResult,
    /// The valid resources, in input order.
    pub objects: Vec<StoredObject>,
}

/// Runs the resource pipeline on every custom resource and returns the objects the
/// server would store. Unknown fields are pruned with a warning, as with
/// `kubectl create --validate=false`, since showing pruning is the point.
pub fn dry_run(options: &CheckOptions) -> DryRunResult {
    let mut loaded = load_inputs(options);
    let classified = classify_all(
        &loaded.documents,
        options,
        &mut loaded.diagnostics,
        &mut loaded.summary,
    );
    let mut diagnostics = std::mem::take(&mut loaded.diagnostics);
    let prepared = prepare_crds(&classified, options);
    let outcomes: Vec<_> = prepared
        .resolved
        .par_iter()
        .map(|(doc, crd)| {
            let outcome = crd
                .and_then(|crd| prepared.get(crd))
                .map(|crd| crd.outcome(&doc.root, policy::UnknownFieldPolicy::Warn));
            (*doc, outcome)
        })
        .collect();
    let mut objects = Vec::new();
    for (doc, outcome) in outcomes {
        let Some(outcome) = outcome else { continue };
        let failed = outcome.has_errors();
        diagnostics.extend(outcome.diagnostics.into_iter().map(|d| doc.diagnostic(d)));
        if let (false, Some(stored)) = (failed, outcome.stored) {
            objects.push(StoredObject {
                file: doc.file.clone(),
                document: doc.index,
                original: doc.root.clone(),
                stored,
                webhook_conversion: outcome.webhook_conversion,
            });
        }
    }
    DryRunResult {
        result: finish(diagnostics, &loaded, options),
        objects,
    }
}

/// Files read and documents flattened, with what went wrong on the way.
struct Loaded {
    documents: Vec<Document>,
    diagnostics: Vec<Diagnostic>,
    summary: Summary,
    reported_files: Vec<Arc<SourceFile>>,
    io_error: bool,
}

fn load_inputs(options: &CheckOptions) -> Loaded {
    let (checked, mut walk_errors) = walk::collect(&options.paths, &options.walk);
    let (crd_sources, crd_walk_errors) = walk::collect(&options.crd_paths, &options.walk);
    walk_errors.extend(crd_walk_errors);

    let mut inputs: Vec<(Input, bool)> = checked.into_iter().map(|i| (i, true)).collect();
    inputs.extend(
        crd_sources
            .into_iter()
            .filter(|i| !inputs.iter().any(|(c, _)| c == i))
            .map(|i| (i, false))
            .collect::<Vec<_>>(),
    );

    let files: Vec<(load::LoadedFile, bool)> = inputs
        .par_iter()
        .map(|(input, reported)| {
            (
                load::load(input, options.max_file_size, &options.limits),
                *reported,
            )
        })
        .collect();

    let diagnostics: Vec<Diagnostic> = walk_errors
        .into_iter()
        .map(|e| {
            let file = SourceFile::new(e.path.clone(), String::new());
            Diagnostic::error(crate::source::IO_ERROR, e.message).in_file(&file)
        })
        .collect();
    let mut loaded = Loaded {
        io_error: !diagnostics.is_empty(),
        diagnostics,
        documents: Vec::new(),
        summary: Summary::default(),
        reported_files: Vec::new(),
    };
    for (file, reported) in files {
        loaded.io_error |= file.io_error;
        if reported {
            loaded.summary.files += 1;
            loaded.reported_files.push(file.file.clone());
        }
        loaded.diagnostics.extend(file.diagnostics);
        for parsed in file.documents {
            flatten(
                &file.file,
                parsed.index,
                parsed.root,
                reported,
                &mut loaded.documents,
            );
        }
    }
    loaded
}

/// Applies suppressions and severity overrides, sorts, and counts.
fn finish(
    mut diagnostics: Vec<Diagnostic>,
    loaded: &Loaded,
    options: &CheckOptions,
) -> CheckResult {
    suppress::apply(&loaded.reported_files, &mut diagnostics);
    options.severities.apply(&mut diagnostics);
    diag::sort(&mut diagnostics);
    let mut summary = loaded.summary;
    summary.errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    summary.warnings = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    CheckResult {
        diagnostics,
        summary,
        io_error: loaded.io_error,
    }
}

/// Each resource with the CRD it resolves to, and each needed CRD prepared once.
struct Prepared<'a> {
    resolved: Vec<(&'a Document, Option<&'a Document>)>,
    crds: BTreeMap<usize, resources::PreparedCrd>,
}

impl Prepared<'_> {
    fn get(&self, crd: &Document) -> Option<&resources::PreparedCrd> {
        self.crds.get(&(crd as *const Document as usize))
    }
}

fn prepare_crds<'a>(classified: &Classified<'a>, options: &CheckOptions) -> Prepared<'a> {
    let resolved: Vec<(&Document, Option<&Document>)> = classified
        .resources
        .iter()
        .map(|(doc, meta)| (*doc, classified.resolve(meta)))
        .collect();
    let mut crds = BTreeMap::new();
    for crd in resolved.iter().filter_map(|(_, crd)| *crd) {
        crds.entry(crd as *const Document as usize)
            .or_insert_with(|| {
                resources::PreparedCrd::new(
                    &crd.root,
                    options.kube_version.unwrap_or(KubeVersion::NEWEST),
                )
            });
    }
    Prepared { resolved, crds }
}

/// Runs the CRD checks on reported CRDs and the resource checks on custom resources.
/// (The CRD and custom-resource validators plug in here.)
fn check_documents(
    classified: &Classified<'_>,
    options: &CheckOptions,
    olds: &update::OldObjects,
    diagnostics: &mut Vec<Diagnostic>,
) {
    let crd_findings: Vec<Diagnostic> = classified
        .crds
        .iter()
        .filter(|doc| doc.reported)
        .collect::<Vec<_>>()
        .par_iter()
        .flat_map_iter(|doc| {
            timings::time(timings::Stage::CrdValidate, || {
                crate::crd::validate_with_options(
                    &doc.root,
                    &crate::crd::Options {
                        source: Some(&doc.file.text),
                        kube_version: options.kube_version.unwrap_or(KubeVersion::NEWEST),
                        ..crate::crd::Options::default()
                    },
                )
            })
            .into_iter()
            .map(|d| doc.diagnostic(d))
        })
        .collect();
    diagnostics.extend(crd_findings);

    let prepared = prepare_crds(classified, options);
    let resource_findings: Vec<Diagnostic> = prepared
        .resolved
        .par_iter()
        .flat_map_iter(|(doc, crd)| {
            crd.and_then(|crd| prepared.get(crd))
                .map(|crd| {
                    let old = olds.find(&doc.root);
                    timings::time(timings::Stage::Resource, || {
                        crd.outcome_with_old(&doc.root, old, options.unknown_fields)
                            .diagnostics
                    })
                })
                .unwrap_or_default()
                .into_iter()
                .map(|d| doc.diagnostic(d))
        })
        .collect();
    diagnostics.extend(resource_findings);
}

/// Turns a parsed document into pipeline documents, expanding `kind: List` items.
fn flatten(
    file: &Arc<SourceFile>,
    index: usize,
    root: Node,
    reported: bool,
    out: &mut Vec<Document>,
) {
    let is_list = classify::type_meta(&root).is_some_and(|m| classify::is_list(&m));
    if is_list && let Value::Object(mut map) = root.value {
        if let Some(Node {
            value: Value::Array(items),
            ..
        }) = map.remove("items")
        {
            for item in items {
                let object = classify::object_ref(&item);
                out.push(Document {
                    file: file.clone(),
                    index,
                    root: item,
                    object,
                    reported,
                });
            }
        }
        return;
    }
    let object = classify::object_ref(&root);
    out.push(Document {
        file: file.clone(),
        index,
        root,
        object,
        reported,
    });
}

/// The documents sorted into CRDs and custom resources; every other document has been
/// counted or reported.
pub struct Classified<'a> {
    /// Every v1 CRD of the run in input order, duplicates included (each is checked).
    pub crds: Vec<&'a Document>,
    /// Custom resources with the (group, kind) of their CRD.
    pub resources: Vec<(&'a Document, TypeMeta)>,
    /// (group, kind) → the CRDs defining it, in input order.
    pub kinds: BTreeMap<(String, String), Vec<&'a Document>>,
}

impl<'a> Classified<'a> {
    /// The CRD a resource is checked against: when several CRDs define its kind (a
    /// `duplicate-crd` warning was given), the last one that serves its version, else
    /// the last one.
    pub fn resolve(&self, meta: &TypeMeta) -> Option<&'a Document> {
        let candidates = self.kinds.get(&(meta.group.clone(), meta.kind.clone()))?;
        let serves = |doc: &&Document| {
            doc.root
                .get_path(&["spec", "versions"])
                .and_then(Node::as_array)
                .is_some_and(|versions| {
                    versions.iter().any(|v| {
                        v.get("name").and_then(Node::as_str) == Some(meta.version.as_str())
                            && v.get("served").and_then(Node::as_bool) == Some(true)
                    })
                })
        };
        candidates
            .iter()
            .rev()
            .find(|doc| serves(doc))
            .or(candidates.last())
            .copied()
    }
}

fn classify_all<'a>(
    documents: &'a [Document],
    options: &CheckOptions,
    diagnostics: &mut Vec<Diagnostic>,
    summary: &mut Summary,
) -> Classified<'a> {
    let mut crds = Vec::new();
    // To warn about a second definition of the same name.
    let mut by_name: BTreeMap<String, &Document> = BTreeMap::new();
    // (group, kind) → CRD, to resolve custom resources.
    let mut kinds: BTreeMap<(String, String), Vec<&Document>> = BTreeMap::new();
    let mut others = Vec::new();
    for doc in documents {
        if doc.reported {
            summary.documents += 1;
        }
        let Some(meta) = classify::type_meta(&doc.root) else {
            if doc.reported {
                diagnostics.push(doc.diagnostic(missing_type_meta(&doc.root)));
            }
            continue;
        };
        if !classify::is_crd(&meta) {
            others.push((doc, meta));
            continue;
        }
        if meta.version == "v1beta1" {
            if doc.reported {
                diagnostics.push(doc.diagnostic(v1beta1_removed(&doc.root)));
            }
            continue;
        }
        if meta.version != "v1" {
            others.push((doc, meta));
            continue;
        }
        if doc.reported {
            summary.crds += 1;
        }
        let name = doc
            .root
            .get_path(&["metadata", "name"])
            .and_then(Node::as_str)
            .unwrap_or_default()
            .to_string();
        crds.push(doc);
        if let Some(previous) = by_name.insert(name.clone(), doc)
            && doc.reported
            && !name.is_empty()
        {
            diagnostics.push(doc.diagnostic(duplicate_crd(&name, doc, previous)));
        }
        let group = doc.root.get_path(&["spec", "group"]).and_then(Node::as_str);
        let kind = doc
            .root
            .get_path(&["spec", "names", "kind"])
            .and_then(Node::as_str);
        if let (Some(group), Some(kind)) = (group, kind) {
            kinds
                .entry((group.to_string(), kind.to_string()))
                .or_default()
                .push(doc);
        }
    }

    let mut resources = Vec::new();
    for (doc, meta) in others {
        if !doc.reported {
            continue;
        }
        if kinds.contains_key(&(meta.group.clone(), meta.kind.clone())) {
            summary.resources += 1;
            resources.push((doc, meta));
        } else if classify::is_built_in_group(&meta.group) {
            // Built-in kinds are counted, not checked.
        } else if let Some(d) = missing_crd(doc, &meta, options.missing_crd) {
            diagnostics.push(doc.diagnostic(d));
        }
    }
    Classified {
        crds,
        resources,
        kinds,
    }
}

fn missing_type_meta(root: &Node) -> Diagnostic {
    let Some(map) = root.as_object() else {
        return Diagnostic::error(
            NOT_AN_OBJECT,
            format!(
                "document is {}, not a Kubernetes object",
                with_article(root.json_type())
            ),
        )
        .with_span(root.span)
        .with_label("not a mapping")
        .with_help("a manifest document must be a mapping with apiVersion, kind and metadata");
    };
    let missing: Vec<&str> = ["apiVersion", "kind"]
        .into_iter()
        .filter(|k| {
            map.get(k)
                .is_none_or(|v| v.as_str().is_none_or(str::is_empty))
        })
        .collect();
    let message = missing
        .iter()
        .map(|k| format!("{k} not set"))
        .collect::<Vec<_>>()
        .join(", ");
    Diagnostic::error(MISSING_TYPE_META, message)
        .with_span(Span::new(root.span.start, root.span.start))
        .with_label("object starts here")
        .with_help("every Kubernetes object needs a string apiVersion and kind")
}

fn v1beta1_removed(root: &Node) -> Diagnostic {
    let span = root.get("apiVersion").map(|n| n.span).unwrap_or(root.span);
    Diagnostic::error(
        CRD_V1BETA1,
        "no matches for kind \"CustomResourceDefinition\" in version \"apiextensions.k8s.io/v1beta1\": apiextensions.k8s.io/v1beta1 was removed in Kubernetes 1.22",
    )
    .with_span(span)
    .with_label("removed API version")
    .with_help(
        "migrate to apiextensions.k8s.io/v1: move spec.validation into each spec.versions[*].schema, spec.subresources and spec.additionalPrinterColumns into each version (JSONPath becomes jsonPath), set preserveUnknownFields to false or drop it, and give every schema a type",
    )
}

fn duplicate_crd(name: &str, doc: &Document, previous: &Document) -> Diagnostic {
    let span = doc
        .root
        .get_path(&["metadata", "name"])
        .map(|n| n.span)
        .unwrap_or(doc.root.span);
    let mut d = Diagnostic::warning(
        DUPLICATE_CRD,
        format!(
            "CustomResourceDefinition \"{name}\" is defined more than once; this definition replaces the one in {}",
            previous.file.path
        ),
    )
    .with_span(span)
    .with_label("defined again here")
    .with_help("keep one definition per CRD name in the files you check");
    if Arc::ptr_eq(&doc.file, &previous.file)
        && let Some(n) = previous.root.get_path(&["metadata", "name"])
    {
        d = d.with_related(n.span, "first defined here");
    }
    d
}

fn missing_crd(doc: &Document, meta: &TypeMeta, policy: MissingCrdPolicy) -> Option<Diagnostic> {
    let severity = match policy {
        MissingCrdPolicy::Ignore => return None,
        MissingCrdPolicy::Warn => Severity::Warning,
        MissingCrdPolicy::Error => Severity::Error,
    };
    let span = doc
        .root
        .get("kind")
        .map(|n| n.span)
        .unwrap_or(doc.root.span);
    Some(
        Diagnostic::new(
            MISSING_CRD,
            severity,
            format!(
                "no matches for kind \"{}\" in version \"{}\": no CRD in the checked files or --crds defines it",
                meta.kind,
                meta.api_version()
            ),
        )
        .with_span(span)
        .with_label("no CRD defines this kind")
        .with_help("pass the CRD that defines this kind with --crds PATH, or --missing-crd ignore to skip such documents"),
    )
}

/// "an array", "a string": JSON type names with their article.
fn with_article(type_name: &str) -> String {
    let article = if type_name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {type_name}")
}
