//! The `check` pipeline: inputs → files → documents → classification → CRD checks and
//! custom-resource checks → sorted diagnostics and a summary. Each stage lives in its
//! own module; this one only wires them in the server's order.

pub mod classify;
mod kinds;
pub mod load;
pub mod pipeline;
pub mod policy;
pub mod request_size;
pub mod resources;
pub mod suppress;
pub mod timings;
pub mod update;

use std::path::PathBuf;
use std::sync::Arc;

use crate::diag::{Diagnostic, ObjectRef, Severity};
use crate::source::walk::WalkOptions;
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
    /// The process ends after this run (the CLI): the CRD registry (the structural
    /// schemas and validators of the CRDs resources may use) is left to the OS instead of
    /// freed node by node. Library callers keep `false`.
    pub exit_after: bool,
    /// Bytes of file texts the read pass keeps for the passes that parse them; files
    /// beyond are read again.
    pub kept_text: KeptText,
}

/// See [`CheckOptions::kept_text`].
#[derive(Clone, Copy, Debug)]
pub struct KeptText {
    /// Texts of files that may define CRDs, kept for the CRD pass.
    pub crds: usize,
    /// Texts of other files, kept for the check pass.
    pub others: usize,
}

impl Default for KeptText {
    fn default() -> Self {
        KeptText {
            crds: pipeline::KEPT_CRD_TEXT_BUDGET,
            others: pipeline::KEPT_TEXT_BUDGET,
        }
    }
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
            exit_after: false,
            kept_text: KeptText::default(),
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
    /// Said on stderr, outside the findings (they describe the run, not a file).
    pub notes: Vec<String>,
}

/// One document (after `List` flattening) with what the pipeline knows about it.
pub struct Document {
    pub file: Arc<SourceFile>,
    pub index: usize,
    pub root: Node,
    pub object: Arc<ObjectRef>,
    /// Whether findings about it are reported (false for `--crds` sources).
    pub reported: bool,
    /// Loading reported an error in its YAML document (a duplicate key, …): kubectl
    /// would not send it, so `dry-run` stores nothing for it.
    pub load_failed: bool,
}

impl Document {
    fn diagnostic(&self, d: Diagnostic) -> Diagnostic {
        d.in_document(&self.file, self.index)
            .for_object(&self.object)
    }
}

pub fn run(options: &CheckOptions) -> CheckResult {
    pipeline::execute(options, pipeline::Mode::Check).result
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
    let output = pipeline::execute(options, pipeline::Mode::DryRun);
    DryRunResult {
        result: output.result,
        objects: output.objects,
    }
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
                let object = Arc::new(classify::object_ref(&item));
                out.push(Document {
                    file: file.clone(),
                    index,
                    root: item,
                    object,
                    reported,
                    load_failed: false,
                });
            }
        }
        return;
    }
    let object = Arc::new(classify::object_ref(&root));
    out.push(Document {
        file: file.clone(),
        index,
        root,
        object,
        reported,
        load_failed: false,
    });
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

/// A second definition of `name`, written at `span` of `file`; `previous` is the file
/// of the first and where its name is written.
fn duplicate_crd(
    name: &str,
    span: Span,
    previous: (&Arc<SourceFile>, Option<Span>),
    file: &Arc<SourceFile>,
) -> Diagnostic {
    let (previous_file, previous_name) = previous;
    let mut d = Diagnostic::warning(
        DUPLICATE_CRD,
        format!(
            "CustomResourceDefinition \"{name}\" is defined more than once; this definition replaces the one in {}",
            previous_file.path
        ),
    )
    .with_span(span)
    .with_label("defined again here")
    .with_help("keep one definition per CRD name in the files you check");
    if Arc::ptr_eq(file, previous_file)
        && let Some(previous_name) = previous_name
    {
        d = d.with_related(previous_name, "first defined here");
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
