//! The streaming driver of `check` and `dry-run`. Memory stays bounded by the largest
//! file plus the CRDs, not by the number of files:
//!
//! 1. *scan*: every file is read (in parallel). A file whose text mentions
//!    `CustomResourceDefinition` is parsed at once: it defines CRDs. Any other file
//!    cannot define one (short of escapes, see below), so it is only remembered — with
//!    its text while the texts kept stay under [`KEPT_TEXT_BUDGET`], else to be read
//!    again.
//! 2. *registry*: the CRDs are classified in input order (the last definition of a name
//!    wins, as on a server) and indexed by (group, kind). Each is prepared for
//!    resources (structural schemas, validators, CEL) on first use, once.
//! 3. *check* (in parallel): CRD validation, the other documents of CRD files, and
//!    every remaining file — parsed, checked and dropped one by one; findings keep
//!    only the files they point into.
//! 4. *finish*: suppressions, severity overrides, one deterministic sort.
//!
//! A file can spell `CustomResourceDefinition` with YAML escapes (`"Custom\x52…"`) and
//! still define a CRD. The check pass notices such a definition and the run starts over
//! with that file among the CRD files, so the result never depends on the shortcut.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use super::classify::{self, TypeMeta};
use super::load::{self, LoadedFile};
use super::resources::PreparedCrd;
use super::timings::{self, Stage};
use super::{
    CheckOptions, CheckResult, Document, StoredObject, Summary, duplicate_crd, flatten,
    missing_crd, missing_type_meta, policy, suppress, update, v1beta1_removed,
};
use crate::cel::KubeVersion;
use crate::diag::{self, Diagnostic, Severity};
use crate::source::walk::{self, Input};
use crate::source::{Node, SourceFile};

/// Texts of non-CRD files kept between the scan and the check pass, in bytes; files
/// beyond it are read a second time instead (from the page cache: cheap). Small, as it
/// adds to the peak memory of large runs: at 64 MiB, 100,000 resources in 10,000 files
/// peaked at 85 MB, against 30 MB at 8 MiB.
const KEPT_TEXT_BUDGET: usize = 8 << 20;

/// The text that marks a file as a possible CRD definition.
const CRD_MARKER: &str = "CustomResourceDefinition";

/// What the check pass does with each custom resource.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// Validate CRDs and resources; report.
    Check,
    /// Run the resource pipeline (unknown fields pruned with a warning) and keep the
    /// objects the server would store.
    DryRun,
}

/// Everything a run produced.
pub(super) struct Output {
    pub result: CheckResult,
    pub objects: Vec<StoredObject>,
}

pub(super) fn execute(options: &CheckOptions, mode: Mode) -> Output {
    match pool() {
        Some(pool) => pool.install(|| execute_here(options, mode)),
        None => execute_here(options, mode),
    }
}

/// The workers of a run: rayon threads (`RAYON_NUM_THREADS` is honoured) whose stacks
/// are big enough for the CEL parser, which then runs on them directly. (The stacks
/// are reserved address space, committed only as far as they are used.) `None` when
/// such threads cannot be made: the global pool is used, and each parse gets a thread.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("crdlint-{i}"))
            .stack_size(crate::cel::parse::PARSER_STACK)
            .start_handler(|_| crate::cel::parse::declare_parser_stack())
            .build()
            .ok()
    })
    .as_ref()
}

fn execute_here(options: &CheckOptions, mode: Mode) -> Output {
    attempt(options, mode, false).unwrap_or_else(|()| {
        // A file defined a CRD without spelling the marker: start over with every file
        // parsed in the scan pass, which leaves nothing for the check pass to discover.
        attempt(options, mode, true).unwrap_or_else(|()| Output {
            result: CheckResult {
                diagnostics: Vec::new(),
                summary: Summary::default(),
                io_error: true,
            },
            objects: Vec::new(),
        })
    })
}

/// One input and whether its findings are reported (false for `--crds` sources).
struct Source {
    input: Input,
    reported: bool,
}

fn sources(options: &CheckOptions) -> (Vec<Source>, Vec<walk::WalkError>) {
    let (checked, mut errors) = walk::collect(&options.paths, &options.walk);
    let (crd_sources, crd_errors) = walk::collect(&options.crd_paths, &options.walk);
    errors.extend(crd_errors);
    // `collect` returns sorted inputs.
    let extra: Vec<Input> = crd_sources
        .into_iter()
        .filter(|i| checked.binary_search(i).is_err())
        .collect();
    let mut out: Vec<Source> = checked
        .into_iter()
        .map(|input| Source {
            input,
            reported: true,
        })
        .collect();
    out.extend(extra.into_iter().map(|input| Source {
        input,
        reported: false,
    }));
    (out, errors)
}

/// A file after the scan pass.
enum Scanned {
    /// Parsed now: it may define CRDs (or it could not be read at all).
    Loaded(LoadedFile),
    /// Checked later; its text when kept.
    Deferred(Option<String>),
}

fn scan(source: &Source, options: &CheckOptions, forced: bool, kept: &AtomicUsize) -> Scanned {
    let text = match load::read(&source.input, options.max_file_size) {
        Ok(text) => text,
        Err(unreadable) => return Scanned::Loaded(*unreadable),
    };
    if forced || memchr::memmem::find(text.as_bytes(), CRD_MARKER.as_bytes()).is_some() {
        let mut loaded = load::parse_text(&source.input, text, &options.limits);
        // Its CRDs stay in the registry for the whole run.
        for doc in &mut loaded.documents {
            doc.root.compact();
        }
        return Scanned::Loaded(loaded);
    }
    let size = text.len();
    if kept.fetch_add(size, Ordering::Relaxed) + size <= KEPT_TEXT_BUDGET {
        Scanned::Deferred(Some(text))
    } else {
        kept.fetch_sub(size, Ordering::Relaxed);
        Scanned::Deferred(None)
    }
}

/// The CRDs of the run, indexed for resolving resources.
struct Registry {
    /// Every `apiextensions.k8s.io/v1` CRD document, in input order.
    crds: Vec<Document>,
    /// `metadata.name` → index of its last definition (to warn about a second one).
    by_name: BTreeMap<String, usize>,
    /// (group, kind) → indices of the CRDs defining it, in input order.
    kinds: HashMap<(String, String), Vec<usize>>,
    /// Prepared on first use.
    prepared: Vec<OnceLock<PreparedCrd>>,
    kube_version: KubeVersion,
}

impl Registry {
    /// The CRD a resource is checked against: when several CRDs define its kind (a
    /// `duplicate-crd` warning was given), the last one that serves its version, else
    /// the last one.
    fn resolve(&self, meta: &TypeMeta) -> Option<usize> {
        let candidates = self.kinds.get(&(meta.group.clone(), meta.kind.clone()))?;
        let serves = |i: &usize| {
            self.crds[*i]
                .root
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
            .find(|i| serves(i))
            .or(candidates.last())
            .copied()
    }

    fn defines(&self, meta: &TypeMeta) -> bool {
        self.kinds
            .contains_key(&(meta.group.clone(), meta.kind.clone()))
    }

    fn prepared(&self, index: usize) -> &PreparedCrd {
        self.prepared[index].get_or_init(|| {
            timings::time(Stage::CrdCompile, || {
                PreparedCrd::new(&self.crds[index].root, self.kube_version)
            })
        })
    }
}

/// What a document is, as far as the pipeline is concerned.
enum Class {
    /// No usable apiVersion/kind (a finding was made if reported).
    Untyped,
    /// An `apiextensions.k8s.io/v1beta1` CRD (a finding was made if reported).
    RemovedCrd,
    /// An `apiextensions.k8s.io/v1` CRD.
    Crd,
    /// Anything else: a custom resource, a built-in object or an unknown kind.
    Object(TypeMeta),
}

fn class_of(doc: &Document, summary: &mut Summary, findings: &mut Vec<Diagnostic>) -> Class {
    if doc.reported {
        summary.documents += 1;
    }
    let Some(meta) = classify::type_meta(&doc.root) else {
        if doc.reported {
            findings.push(doc.diagnostic(missing_type_meta(&doc.root)));
        }
        return Class::Untyped;
    };
    if !classify::is_crd(&meta) {
        return Class::Object(meta);
    }
    if meta.version == "v1beta1" {
        if doc.reported {
            findings.push(doc.diagnostic(v1beta1_removed(&doc.root)));
        }
        return Class::RemovedCrd;
    }
    if meta.version != "v1" {
        return Class::Object(meta);
    }
    if doc.reported {
        summary.crds += 1;
    }
    Class::Crd
}

/// Findings, counts and stored objects of one piece of work.
#[derive(Default)]
struct Outcome {
    diagnostics: Vec<Diagnostic>,
    summary: Summary,
    io_error: bool,
    objects: Vec<StoredObject>,
    /// A file checked in the check pass turned out to define a CRD.
    missed_crd: bool,
}

/// Per source of the scan pass: the classified objects of a CRD file, or the text of a
/// file deferred to the check pass (`None`: read it again).
type PendingSource = Result<Vec<(Document, TypeMeta)>, Option<String>>;

/// One unit of the check pass, in input order.
enum Task<'a> {
    ValidateCrd(&'a Document),
    /// A non-CRD document of a CRD file, already classified.
    Object(Box<(Document, TypeMeta)>),
    /// A file of the check pass and its text when kept.
    File(&'a Source, Option<String>),
}

struct Context<'a> {
    options: &'a CheckOptions,
    registry: &'a Registry,
    /// `--old`: stored objects that make a matching resource an update.
    olds: &'a update::OldObjects,
    mode: Mode,
}

impl Context<'_> {
    fn run(&self, task: Task) -> Outcome {
        match task {
            Task::ValidateCrd(doc) => Outcome {
                diagnostics: self.validate_crd(doc),
                ..Outcome::default()
            },
            Task::Object(object) => {
                let (doc, meta) = *object;
                let mut out = Outcome::default();
                self.object(&doc, &meta, &mut out);
                out
            }
            Task::File(source, text) => self.file(source, text),
        }
    }

    fn validate_crd(&self, doc: &Document) -> Vec<Diagnostic> {
        // A CRD with the name of an old one is an update of it.
        let old = doc
            .root
            .get_path(&["metadata", "name"])
            .and_then(Node::as_str)
            .and_then(|name| self.olds.find_crd(name))
            .map(crate::crd::OldCrd::new);
        let options = crate::crd::Options {
            source: Some(&doc.file.text),
            kube_version: self.registry.kube_version,
            old: old.as_ref(),
            ..crate::crd::Options::default()
        };
        timings::time(Stage::CrdValidate, || {
            crate::crd::validate_with_options(&doc.root, &options)
        })
        .into_iter()
        .map(|d| doc.diagnostic(d))
        .collect()
    }

    /// A document that is not a CRD: resolved and checked, or reported as unknown.
    fn object(&self, doc: &Document, meta: &TypeMeta, out: &mut Outcome) {
        if !doc.reported {
            return;
        }
        if !self.registry.defines(meta) {
            if !classify::is_built_in_group(&meta.group)
                && let Some(d) = missing_crd(doc, meta, self.options.missing_crd)
            {
                out.diagnostics.push(doc.diagnostic(d));
            }
            return;
        }
        out.summary.resources += 1;
        let Some(crd) = self.registry.resolve(meta) else {
            return;
        };
        let crd = self.registry.prepared(crd);
        match self.mode {
            Mode::Check => {
                let old = self.olds.find(&doc.root);
                let findings = timings::time(Stage::Resource, || {
                    crd.outcome_with_old(&doc.root, old, self.options.unknown_fields)
                        .diagnostics
                });
                out.diagnostics
                    .extend(findings.into_iter().map(|d| doc.diagnostic(d)));
            }
            Mode::DryRun => {
                let old = self.olds.find(&doc.root);
                let outcome = timings::time(Stage::Resource, || {
                    crd.outcome_with_old(&doc.root, old, policy::UnknownFieldPolicy::Warn)
                });
                let failed = outcome.has_errors() || doc.load_failed;
                out.diagnostics
                    .extend(outcome.diagnostics.into_iter().map(|d| doc.diagnostic(d)));
                if let (false, Some(stored)) = (failed, outcome.stored) {
                    out.objects.push(StoredObject {
                        file: doc.file.clone(),
                        document: doc.index,
                        original: doc.root.clone(),
                        stored,
                        webhook_conversion: outcome.webhook_conversion,
                    });
                }
            }
        }
    }

    /// A file without CRDs: parsed, every document classified and checked, suppressions
    /// applied; then everything but the findings is dropped.
    fn file(&self, source: &Source, text: Option<String>) -> Outcome {
        let loaded = match text {
            Some(text) => load::parse_text(&source.input, text, &self.options.limits),
            None => load::load(
                &source.input,
                self.options.max_file_size,
                &self.options.limits,
            ),
        };
        let mut out = Outcome {
            io_error: loaded.io_error,
            diagnostics: loaded.diagnostics,
            ..Outcome::default()
        };
        if source.reported {
            out.summary.files += 1;
        }
        let mut documents = Vec::new();
        for parsed in loaded.documents {
            flatten(
                &loaded.file,
                parsed.index,
                parsed.root,
                source.reported,
                &mut documents,
            );
        }
        mark_load_failures(&mut documents, &out.diagnostics);
        for doc in documents {
            let mut findings = Vec::new();
            match class_of(&doc, &mut out.summary, &mut findings) {
                Class::Crd => {
                    out.missed_crd = true;
                    return out;
                }
                Class::Object(meta) => self.object(&doc, &meta, &mut out),
                Class::Untyped | Class::RemovedCrd => {}
            }
            out.diagnostics.append(&mut findings);
        }
        if source.reported {
            suppress::apply(std::slice::from_ref(&loaded.file), &mut out.diagnostics);
        }
        out
    }
}

/// One pass over the inputs (`parse_all`: every file in the scan pass); `Err` when a
/// file of the check pass defined a CRD.
fn attempt(options: &CheckOptions, mode: Mode, parse_all: bool) -> Result<Output, ()> {
    let phase = timings::phase("walk");
    let (sources, walk_errors) = sources(options);
    drop(phase);

    let phase = timings::phase("scan");
    let kept = AtomicUsize::new(0);
    let scanned: Vec<Scanned> = sources
        .par_iter()
        .with_max_len(1)
        .map(|s| scan(s, options, parse_all, &kept))
        .collect();
    drop(phase);

    let phase = timings::phase("registry");
    let mut diagnostics: Vec<Diagnostic> = walk_errors
        .into_iter()
        .map(|e| {
            let file = SourceFile::new(e.path.clone(), String::new());
            Diagnostic::error(crate::source::IO_ERROR, e.message).in_file(&file)
        })
        .collect();
    let mut io_error = !diagnostics.is_empty();
    let mut summary = Summary::default();
    let mut registry = Registry {
        crds: Vec::new(),
        by_name: BTreeMap::new(),
        kinds: HashMap::new(),
        prepared: Vec::new(),
        kube_version: options.kube_version.unwrap_or(KubeVersion::NEWEST),
    };
    // CRD files whose findings are reported (their suppressions apply at the end).
    let mut crd_files: Vec<Arc<SourceFile>> = Vec::new();
    // Per source, in input order: the objects of a CRD file, or the deferred file.
    let mut pending: Vec<PendingSource> = Vec::new();
    for (source, scanned) in sources.iter().zip(scanned) {
        let loaded = match scanned {
            Scanned::Deferred(text) => {
                pending.push(Err(text));
                continue;
            }
            Scanned::Loaded(loaded) => loaded,
        };
        io_error |= loaded.io_error;
        if source.reported {
            summary.files += 1;
            crd_files.push(loaded.file.clone());
        }
        let mut documents = Vec::new();
        for parsed in loaded.documents {
            flatten(
                &loaded.file,
                parsed.index,
                parsed.root,
                source.reported,
                &mut documents,
            );
        }
        mark_load_failures(&mut documents, &loaded.diagnostics);
        diagnostics.extend(loaded.diagnostics);
        let mut objects = Vec::new();
        for doc in documents {
            match class_of(&doc, &mut summary, &mut diagnostics) {
                Class::Crd => register(&mut registry, doc, &mut diagnostics),
                Class::Object(meta) => objects.push((doc, meta)),
                Class::Untyped | Class::RemovedCrd => {}
            }
        }
        pending.push(Ok(objects));
    }
    registry.prepared = registry.crds.iter().map(|_| OnceLock::new()).collect();
    drop(phase);

    let phase = timings::phase("check");
    let mut tasks: Vec<Task> = Vec::new();
    if mode == Mode::Check {
        // Every definition is checked, duplicates included.
        tasks.extend(
            registry
                .crds
                .iter()
                .filter(|doc| doc.reported)
                .map(Task::ValidateCrd),
        );
    }
    for (source, pending) in sources.iter().zip(pending) {
        match pending {
            Ok(objects) => tasks.extend(
                objects
                    .into_iter()
                    .map(|object| Task::Object(Box::new(object))),
            ),
            Err(text) => tasks.push(Task::File(source, text)),
        }
    }
    let olds = update::OldObjects::load(
        &options.old_paths,
        &options.walk,
        options.max_file_size,
        &options.limits,
    );
    io_error |= olds.io_error;
    diagnostics.extend(olds.diagnostics.iter().cloned());
    let context = Context {
        options,
        registry: &registry,
        olds: &olds,
        mode,
    };
    let outcomes: Vec<Outcome> = tasks
        .into_par_iter()
        .with_max_len(1)
        .map(|task| context.run(task))
        .collect();
    drop(phase);

    let _phase = timings::phase("finish");
    if outcomes.iter().any(|o| o.missed_crd) {
        return Err(());
    }
    if options.exit_after {
        std::mem::forget(registry);
    }
    let mut objects = Vec::new();
    for outcome in outcomes {
        diagnostics.extend(outcome.diagnostics);
        objects.extend(outcome.objects);
        io_error |= outcome.io_error;
        summary.files += outcome.summary.files;
        summary.documents += outcome.summary.documents;
        summary.crds += outcome.summary.crds;
        summary.resources += outcome.summary.resources;
    }
    // Files checked in the check pass applied their own suppressions.
    suppress::apply(&crd_files, &mut diagnostics);
    options.severities.apply(&mut diagnostics);
    diag::sort(&mut diagnostics);
    summary.errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    summary.warnings = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Warning)
        .count();
    Ok(Output {
        result: CheckResult {
            diagnostics,
            summary,
            io_error,
        },
        objects,
    })
}

/// Marks the documents that loading reported an error in.
fn mark_load_failures(documents: &mut [Document], load_diagnostics: &[Diagnostic]) {
    // One pass over the documents (a file of 40,000 documents with an error each
    // scanned them all for every error).
    let failed: std::collections::HashSet<usize> = load_diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .filter_map(|d| d.document)
        .collect();
    if failed.is_empty() {
        return;
    }
    for doc in documents.iter_mut() {
        if failed.contains(&doc.index) {
            doc.load_failed = true;
        }
    }
}

/// Adds a v1 CRD to the registry (the last definition of a name wins).
fn register(registry: &mut Registry, doc: Document, diagnostics: &mut Vec<Diagnostic>) {
    let index = registry.crds.len();
    let name = doc
        .root
        .get_path(&["metadata", "name"])
        .and_then(Node::as_str)
        .unwrap_or_default()
        .to_string();
    if let Some(previous) = registry.by_name.insert(name.clone(), index)
        && doc.reported
        && !name.is_empty()
    {
        diagnostics.push(doc.diagnostic(duplicate_crd(&name, &doc, &registry.crds[previous])));
    }
    let group = doc.root.get_path(&["spec", "group"]).and_then(Node::as_str);
    let kind = doc
        .root
        .get_path(&["spec", "names", "kind"])
        .and_then(Node::as_str);
    if let (Some(group), Some(kind)) = (group, kind) {
        registry
            .kinds
            .entry((group.to_string(), kind.to_string()))
            .or_default()
            .push(index);
    }
    registry.crds.push(doc);
}
