//! The streaming driver of `check` and `dry-run`. Memory stays bounded by the largest
//! file plus the prepared CRDs, not by the number of files:
//!
//! 1. *read*: every file is read (in parallel). A file whose text mentions
//!    `CustomResourceDefinition` may define CRDs. Any other file cannot (short of
//!    escapes, see below), so it is only remembered. Texts are kept while they stay
//!    under [`KEPT_CRD_TEXT_BUDGET`] and [`KEPT_TEXT_BUDGET`], else read again. The
//!    kinds each text mentions are noted ([`kinds`]).
//! 2. *crds* (in parallel): the CRD files are parsed; each CRD is validated and, when
//!    some file mentions its kind, prepared for resources (structural schemas,
//!    validators, CEL) while its tree is fresh; then the tree is dropped, and the text
//!    too unless a finding points into it ([`evict_text`]).
//! 3. *registry*: the CRDs are classified in input order (the last definition of a name
//!    wins, as on a server) and indexed by (group, kind).
//! 4. *check* (in parallel): the other documents of CRD files and every remaining
//!    file — parsed, checked and dropped one by one; findings keep only the files they
//!    point into.
//! 5. *finish*: suppressions, severity overrides, one deterministic sort.
//!
//! Two shortcuts can be wrong, and then the run starts over without them, so the result
//! never depends on them: a file can spell `CustomResourceDefinition` with YAML escapes
//! (`"Custom\x52…"`) and still define a CRD, and a resource's kind can be written so that
//! the kind scan misses it (the check pass finds its CRD unprepared).

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use rayon::prelude::*;

use super::classify::{self, TypeMeta};
use super::kinds;
use super::load::{self, LoadedFile};
use super::request_size;
use super::resources::PreparedCrd;
use super::timings::{self, Stage};
use super::{
    CheckOptions, CheckResult, Document, StoredObject, Summary, duplicate_crd, flatten,
    missing_crd, missing_type_meta, policy, suppress, update, v1beta1_removed,
};
use crate::cel::KubeVersion;
use crate::diag::budget::RunBudget;
use crate::diag::{self, Diagnostic, ObjectRef, Severity};
use crate::schema::structural::sink::StructuralSink;
use crate::source::walk::{self, Input};
use crate::source::{Node, SourceFile, Span};

/// Texts of non-CRD files kept between the scan and the check pass, in bytes; files
/// beyond it are read a second time instead (from the page cache: cheap). Small, as it
/// adds to the peak memory of large runs: at 64 MiB, 100,000 resources in 10,000 files
/// peaked at 85 MB, against 30 MB at 8 MiB.
pub(super) const KEPT_TEXT_BUDGET: usize = 8 << 20;

/// Texts of CRD files kept between the scan and the CRD pass, in bytes; files beyond
/// it are read a second time instead. Large enough for the corpus's 218 CRDs (29 MB),
/// where reading every CRD file twice cost more CPU than the page faults it saved; it
/// bounds the memory of runs over more CRDs, whose texts are also dropped after the
/// CRD pass ([`evict_text`]).
pub(super) const KEPT_CRD_TEXT_BUDGET: usize = 32 << 20;

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

/// How many workers `RAYON_NUM_THREADS` asks for, at most 4 per core (64 on small
/// machines): more only contend for the cores, and starting them costs time of its own
/// (5,000 took 11 s to check one file on 2 cores; 100,000 did not finish). `0` lets
/// rayon choose (one per core), as it does for a value that is not a number.
fn worker_count(requested: Option<&str>, cores: usize) -> usize {
    let most = cores.saturating_mul(4).max(64);
    match requested.and_then(|v| v.trim().parse::<usize>().ok()) {
        Some(n) if n > 0 => n.min(most),
        _ => 0,
    }
}

/// The workers of a run: rayon threads (`RAYON_NUM_THREADS` is honoured) whose stacks
/// are big enough for the CEL parser, which then runs on them directly. (The stacks
/// are reserved address space, committed only as far as they are used.) When such
/// threads cannot be made (a limit on address space or threads), the calling thread
/// is the only worker and each parse tries a thread of its own: rayon's global pool,
/// the fallback before, could not be made either under such a limit, and rayon
/// panicked (`ulimit -v 400000`). `None` only if even that fails.
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: OnceLock<Option<rayon::ThreadPool>> = OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(worker_count(
                std::env::var("RAYON_NUM_THREADS").ok().as_deref(),
                std::thread::available_parallelism().map_or(1, |n| n.get()),
            ))
            .thread_name(|i| format!("crdlint-{i}"))
            .stack_size(crate::cel::parse::PARSER_STACK)
            .start_handler(|_| crate::cel::parse::declare_parser_stack())
            .build()
            .or_else(|_| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(1)
                    .use_current_thread()
                    .build()
            })
            .ok()
    })
    .as_ref()
}

fn execute_here(options: &CheckOptions, mode: Mode) -> Output {
    let shortcuts = Plan {
        parse_all: false,
        prepare_all: false,
    };
    let none = Plan {
        parse_all: true,
        prepare_all: true,
    };
    attempt(options, mode, shortcuts).unwrap_or_else(|()| {
        // A file defined a CRD without spelling the marker, or a resource's kind was
        // not seen by the kind scan: start over without either shortcut, which leaves
        // nothing for the check pass to discover.
        attempt(options, mode, none).unwrap_or_else(|()| Output {
            result: CheckResult {
                diagnostics: Vec::new(),
                summary: Summary::default(),
                io_error: true,
                notes: Vec::new(),
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

/// Which shortcuts an attempt takes; the second attempt of a run takes none.
#[derive(Clone, Copy)]
struct Plan {
    /// Parse every file in the CRD pass (no file is taken to be free of CRDs).
    parse_all: bool,
    /// Prepare every CRD for resources (no kind is taken to be unused).
    prepare_all: bool,
}

/// A file after the read pass.
enum Scanned {
    /// It could not be read: its diagnostic.
    Unreadable(LoadedFile),
    /// It may define CRDs: parsed in the CRD pass, from its text when kept, else read
    /// again (`None`: beyond the budget; stdin's text is always kept).
    Crds(Option<KeptCrdText>),
    /// Checked in the check pass; its text when kept.
    Deferred(Option<String>),
}

/// The text of a possible CRD file, kept from the read pass for the CRD pass.
struct KeptCrdText {
    text: String,
    /// It has a suppression comment (looked for while the text was fresh from the
    /// read; by the CRD pass it is out of the caches).
    suppresses: bool,
}

/// Whether a text has a suppression comment (it is then kept to the end of the run).
fn suppresses(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), suppress::MARKER.as_bytes()).is_some()
}

/// Bytes of texts kept by the read pass, against the budgets of
/// [`CheckOptions::kept_text`] ([`KEPT_CRD_TEXT_BUDGET`] and [`KEPT_TEXT_BUDGET`] by
/// default).
#[derive(Default)]
struct Kept {
    others: AtomicUsize,
    crds: AtomicUsize,
}

/// Whether `size` more bytes fit in `budget` (and are then counted).
fn fits(kept: &AtomicUsize, size: usize, budget: usize) -> bool {
    if kept.fetch_add(size, Ordering::Relaxed) + size <= budget {
        true
    } else {
        kept.fetch_sub(size, Ordering::Relaxed);
        false
    }
}

/// Reads one file and notes the kinds its text mentions.
fn read(
    source: &Source,
    options: &CheckOptions,
    plan: Plan,
    kept: &Kept,
) -> (Scanned, kinds::Kinds) {
    let mut mentioned = kinds::Kinds::default();
    let text = match load::read_reusing(&source.input, options.max_file_size) {
        Ok(text) => text,
        Err(unreadable) => return (Scanned::Unreadable(*unreadable), mentioned),
    };
    if plan.parse_all || memchr::memmem::find(text.as_bytes(), CRD_MARKER.as_bytes()).is_some() {
        kinds::top_level(&text, &mut mentioned);
        // Beyond the budget, the CRD pass reads it again (from the page cache) into a
        // buffer it recycles: the texts of all CRD files are never in memory at once.
        let keep = matches!(source.input, Input::Stdin)
            || fits(&kept.crds, text.len(), options.kept_text.crds);
        let kept_text = if keep {
            Some(KeptCrdText {
                suppresses: suppresses(&text),
                text: load::fitted(text),
            })
        } else {
            load::recycle(text);
            None
        };
        return (Scanned::Crds(kept_text), mentioned);
    }
    kinds::mentioned(&text, &mut mentioned);
    let kept_text = if fits(&kept.others, text.len(), options.kept_text.others) {
        Some(load::fitted(text))
    } else {
        load::recycle(text);
        None
    };
    (Scanned::Deferred(kept_text), mentioned)
}

/// A CRD of the run, as resolving and checking resources needs it. Its tree is
/// dropped once it is validated and prepared.
struct CrdEntry {
    /// Its file; without its text when nothing needed it after the CRD pass
    /// ([`evict_text`]).
    file: Arc<SourceFile>,
    /// The file's text was dropped: its length, to read it back for a late finding.
    evicted: Option<usize>,
    /// The document's index in its file and its identity, for findings.
    index: usize,
    object: Arc<ObjectRef>,
    reported: bool,
    name: String,
    /// Where `metadata.name` is written (the document when it is not).
    name_span: Option<Span>,
    span: Span,
    group: Option<String>,
    kind: Option<String>,
    /// The versions with `served: true`.
    served: Vec<String>,
    /// `None` when no file mentions its kind (see [`kinds`]).
    prepared: Option<PreparedCrd>,
}

impl CrdEntry {
    fn diagnostic(&self, d: Diagnostic) -> Diagnostic {
        d.in_document(&self.file, self.index)
            .for_object(&self.object)
    }
}

/// The CRDs of the run, indexed for resolving resources.
struct Registry {
    /// Every `apiextensions.k8s.io/v1` CRD document, in input order.
    crds: Vec<CrdEntry>,
    /// `metadata.name` → index of its last definition (to warn about a second one).
    by_name: BTreeMap<String, usize>,
    /// group → kind → indices of the CRDs defining it, in input order. (Nested so that
    /// a resource's lookup borrows its group and kind instead of building a key.)
    kinds: HashMap<String, HashMap<String, Vec<usize>>>,
    /// Dropped CRD file texts read back for late findings, by path (once per file).
    restored: HashMap<String, Option<Arc<SourceFile>>>,
}

impl Registry {
    /// The CRD a resource is checked against: when several CRDs define its kind (a
    /// `duplicate-crd` warning was given), the last one that serves its version, else
    /// the last one.
    fn resolve(&self, meta: &TypeMeta) -> Option<usize> {
        let candidates = self.candidates(meta)?;
        let serves = |i: &usize| self.crds[*i].served.contains(&meta.version);
        candidates
            .iter()
            .rev()
            .find(|i| serves(i))
            .or(candidates.last())
            .copied()
    }

    fn defines(&self, meta: &TypeMeta) -> bool {
        self.candidates(meta).is_some()
    }

    fn candidates(&self, meta: &TypeMeta) -> Option<&Vec<usize>> {
        self.kinds.get(&meta.group)?.get(&meta.kind)
    }

    /// Adds a v1 CRD read from `source` (the last definition of a name wins).
    fn register(
        &mut self,
        entry: CrdEntry,
        source: &Source,
        max_file_size: u64,
    ) -> Option<Diagnostic> {
        let index = self.crds.len();
        let mut finding = None;
        if let Some(previous) = self.by_name.insert(entry.name.clone(), index)
            && entry.reported
            && !entry.name.is_empty()
        {
            let previous = &self.crds[previous];
            let d = duplicate_crd(
                &entry.name,
                entry.name_span.unwrap_or(entry.span),
                (&previous.file, previous.name_span),
                &entry.file,
            );
            finding = Some(match entry.evicted {
                None => entry.diagnostic(d),
                Some(length) => {
                    let file = self
                        .restored
                        .entry(entry.file.path.clone())
                        .or_insert_with(|| {
                            restore_text(&source.input, &entry.file.path, length, max_file_size)
                        });
                    let spans = d.span.iter().chain(d.related.iter().map(|l| &l.span));
                    match file {
                        Some(file) if spans_fit(&file.text, spans) => {
                            d.in_document(file, entry.index).for_object(&entry.object)
                        }
                        _ => {
                            let mut d = entry.diagnostic(d);
                            d.span = None;
                            d.related.clear();
                            d
                        }
                    }
                }
            });
        }
        if let (Some(group), Some(kind)) = (&entry.group, &entry.kind) {
            self.kinds
                .entry(group.clone())
                .or_default()
                .entry(kind.clone())
                .or_default()
                .push(index);
        }
        self.crds.push(entry);
        finding
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

/// A file of the CRD pass, parsed and classified; its CRDs validated and prepared.
struct CrdFile {
    file: Arc<SourceFile>,
    io_error: bool,
    /// Loading and classification findings, then those of its CRDs.
    diagnostics: Vec<Diagnostic>,
    summary: Summary,
    crds: Vec<CrdEntry>,
    /// Its other documents, for the check pass.
    objects: Vec<(Document, TypeMeta)>,
}

/// The CRD pass: each CRD is validated and prepared while its tree is fresh in the
/// caches, and then the tree is dropped. (Holding the trees of all CRDs until resources
/// needed them made the corpus peak at 150 MB and cost ~37,000 page faults.)
struct CrdPass<'a> {
    options: &'a CheckOptions,
    mode: Mode,
    plan: Plan,
    olds: &'a update::OldObjects,
    /// Every kind some file mentions.
    mentioned: &'a kinds::Kinds,
    kube_version: KubeVersion,
    /// The findings of the run so far (see [`crate::diag::budget`]).
    findings: &'a RunBudget,
}

impl CrdPass<'_> {
    /// `suppresses`: the text has a suppression comment (it is then kept).
    fn file(&self, source: &Source, loaded: LoadedFile, suppresses: bool) -> CrdFile {
        let LoadedFile {
            file,
            documents,
            diagnostics,
            io_error,
        } = loaded;
        let mut out = CrdFile {
            file,
            io_error,
            diagnostics,
            summary: Summary::default(),
            crds: Vec::new(),
            objects: Vec::new(),
        };
        if source.reported {
            out.summary.files += 1;
        }
        let documents = documents_of(&out.file, documents, source.reported, &out.diagnostics);
        let mut crds = Vec::new();
        for mut doc in documents {
            match class_of(&doc, &mut out.summary, &mut out.diagnostics) {
                Class::Crd => crds.push(doc),
                Class::Object(meta) => {
                    // It waits for the check pass.
                    doc.root.compact();
                    out.objects.push((doc, meta));
                }
                Class::Untyped | Class::RemovedCrd => {}
            }
        }
        // A bundle of many CRDs in one file is still spread over the workers.
        let settled: Vec<(CrdEntry, Vec<Diagnostic>)> = crds
            .into_par_iter()
            .with_max_len(1)
            .map(|doc| self.crd(doc))
            .collect();
        for (entry, findings) in settled {
            out.crds.push(entry);
            out.diagnostics.extend(findings);
        }
        if !suppresses {
            evict_text(source, &mut out);
        }
        out
    }

    /// Validates one CRD (when checking and reported) and prepares it for resources
    /// (when its kind is mentioned); its entry and findings.
    fn crd(&self, doc: Document) -> (CrdEntry, Vec<Diagnostic>) {
        let root = &doc.root;
        let text = |path: &[&str]| {
            root.get_path(path)
                .and_then(Node::as_str)
                .map(str::to_string)
        };
        let kind = text(&["spec", "names", "kind"]);
        // Past the run's findings limit, the CRDs left are not checked (the object that
        // passed it says so).
        let validate = self.mode == Mode::Check && doc.reported && !self.findings.exhausted();
        let prepare =
            self.plan.prepare_all || kind.as_ref().is_some_and(|k| self.mentioned.may_contain(k));
        let mut findings = Vec::new();
        // The server refuses such a CRD unread: that is all there is to report. It is
        // still prepared, so that its resources are checked against it.
        let validate = match validate.then(|| request_size::check(root)).flatten() {
            Some(d) => {
                findings.push(doc.diagnostic(d));
                false
            }
            None => validate,
        };
        let mut prepared = None;
        if validate || prepare {
            // One decoding serves both (timed with the validation, when there is one).
            let stage = if validate {
                Stage::CrdValidate
            } else {
                Stage::CrdCompile
            };
            let (model, decode_errors) =
                timings::time_untallied(stage, || crate::model::crd::decode(root));
            // Validation hands its structural schemas on to the preparation.
            let built = StructuralSink::default();
            if validate {
                let sink = prepare.then_some(&built);
                findings = self.validate(&doc, &model, decode_errors, sink);
            }
            if prepare {
                prepared = Some(timings::time(Stage::CrdCompile, || {
                    PreparedCrd::from_model(&model, self.kube_version, Some(&built))
                }));
            }
        }
        let served = root
            .get_path(&["spec", "versions"])
            .and_then(Node::as_array)
            .map(|versions| {
                versions
                    .iter()
                    .filter(|v| v.get("served").and_then(Node::as_bool) == Some(true))
                    .filter_map(|v| v.get("name").and_then(Node::as_str))
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        let entry = CrdEntry {
            name: text(&["metadata", "name"]).unwrap_or_default(),
            name_span: root.get_path(&["metadata", "name"]).map(|n| n.span),
            span: root.span,
            group: text(&["spec", "group"]),
            kind,
            served,
            prepared,
            file: doc.file,
            evicted: None,
            index: doc.index,
            object: doc.object,
            reported: doc.reported,
        };
        (entry, findings)
    }

    fn validate(
        &self,
        doc: &Document,
        model: &crate::model::crd::Crd,
        decode_errors: Vec<Diagnostic>,
        structurals: Option<&StructuralSink>,
    ) -> Vec<Diagnostic> {
        // A CRD with the name of an old one is an update of it.
        let old = doc
            .root
            .get_path(&["metadata", "name"])
            .and_then(Node::as_str)
            .and_then(|name| self.olds.find_crd(name))
            .map(crate::crd::OldCrd::new);
        let options = crate::crd::Options {
            source: Some(&doc.file.text),
            kube_version: self.kube_version,
            old: old.as_ref(),
            structurals,
            ..crate::crd::Options::default()
        };
        let _run = self.findings.enter();
        timings::time(Stage::CrdValidate, || {
            crate::crd::validate_decoded(&doc.root, model, decode_errors, &options)
        })
        .into_iter()
        .map(|d| doc.diagnostic(d))
        .collect()
    }
}

/// Findings, counts and stored objects of one piece of work.
#[derive(Default)]
struct Outcome {
    diagnostics: Vec<Diagnostic>,
    summary: Summary,
    io_error: bool,
    objects: Vec<StoredObject>,
    /// A file checked in the check pass turned out to define a CRD, or a resource
    /// needed a CRD the plan did not prepare: the run starts over without shortcuts.
    start_over: bool,
}

/// Per source of the read pass: the classified objects of a CRD file, or the text of a
/// file deferred to the check pass (`None`: read it again).
type PendingSource = Result<Vec<(Document, TypeMeta)>, Option<String>>;

/// One unit of the check pass, in input order.
enum Task<'a> {
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
    /// The findings of the run so far (see [`crate::diag::budget`]).
    findings: &'a RunBudget,
}

impl Context<'_> {
    fn run(&self, task: Task) -> Outcome {
        match task {
            Task::Object(object) => {
                let (doc, meta) = *object;
                let mut out = Outcome::default();
                self.object(&doc, &meta, &mut out);
                out
            }
            Task::File(source, text) => self.file(source, text),
        }
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
        let Some(crd) = &self.registry.crds[crd].prepared else {
            out.start_over = true;
            return;
        };
        if let Some(d) = request_size::check(&doc.root) {
            out.diagnostics.push(doc.diagnostic(d));
            return;
        }
        // Past the run's findings limit, the resources left are not checked (the object
        // that passed it says so).
        if self.findings.exhausted() {
            return;
        }
        let _run = self.findings.enter();
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
            // Read again (it was over the kept-text budget) into this thread's spare
            // buffer: the scan's buffer for the same text is not kept twice.
            None => match load::read_reusing(&source.input, self.options.max_file_size) {
                Ok(text) => {
                    load::parse_text(&source.input, load::fitted(text), &self.options.limits)
                }
                Err(unreadable) => *unreadable,
            },
        };
        let mut out = Outcome {
            io_error: loaded.io_error,
            diagnostics: loaded.diagnostics,
            ..Outcome::default()
        };
        if source.reported {
            out.summary.files += 1;
        }
        let documents = documents_of(
            &loaded.file,
            loaded.documents,
            source.reported,
            &out.diagnostics,
        );
        for doc in documents {
            let mut findings = Vec::new();
            match class_of(&doc, &mut out.summary, &mut findings) {
                Class::Crd => {
                    out.start_over = true;
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

/// Drops the text of a CRD file without suppression comments once nothing can point
/// into it: no finding was made in it, no other document of it waits for the check
/// pass (and it can be read again). Only a second definition of one of its CRDs' names can
/// still need it; the registry reads it back then ([`restore_text`]). Its buffer is
/// recycled for the next file this thread reads: memory stays bounded by the largest
/// files in flight instead of growing with every CRD file of the run.
fn evict_text(source: &Source, out: &mut CrdFile) {
    let evictable = matches!(source.input, Input::Path(_))
        && out.diagnostics.is_empty()
        && out.objects.is_empty()
        && !out.crds.is_empty();
    if !evictable {
        return;
    }
    let length = out.file.text.len();
    let stub = SourceFile::new(out.file.path.clone(), String::new());
    for entry in &mut out.crds {
        entry.file = stub.clone();
        entry.evicted = Some(length);
    }
    let file = std::mem::replace(&mut out.file, stub);
    // Every other reference (documents, trees' findings) is gone by now; if one were
    // not, the text would simply be freed later.
    if let Ok(file) = Arc::try_unwrap(file) {
        load::recycle(file.text);
    }
}

/// The text of an evicted CRD file (`length` bytes), read back for a late finding:
/// `None` when it can no longer be read as it was (the finding then goes without a
/// position).
fn restore_text(
    input: &Input,
    path: &str,
    length: usize,
    max_file_size: u64,
) -> Option<Arc<SourceFile>> {
    let text = load::line_terminated(load::read(input, max_file_size).ok()?);
    // A file changed since: its positions would point at the wrong text.
    (text.len() == length).then(|| SourceFile::new(path.to_string(), text))
}

/// Whether every span lies in `text` on character boundaries.
fn spans_fit<'a>(text: &str, mut spans: impl Iterator<Item = &'a Span>) -> bool {
    spans.all(|s| text.get(s.start..s.end).is_some())
}

fn add_summary(total: &mut Summary, part: &Summary) {
    total.files += part.files;
    total.documents += part.documents;
    total.crds += part.crds;
    total.resources += part.resources;
}

/// One pass over the inputs; `Err` when a shortcut of the plan proved wrong.
fn attempt(options: &CheckOptions, mode: Mode, plan: Plan) -> Result<Output, ()> {
    let phase = timings::phase("walk");
    let (sources, walk_errors) = sources(options);
    drop(phase);

    let phase = timings::phase("read");
    let kept = Kept::default();
    let read: Vec<(Scanned, kinds::Kinds)> = sources
        .par_iter()
        .with_max_len(1)
        .map(|s| read(s, options, plan, &kept))
        .collect();
    let mut mentioned = kinds::Kinds::default();
    let mut scanned = Vec::with_capacity(read.len());
    for (file, kinds) in read {
        mentioned.merge(kinds);
        scanned.push(file);
    }
    drop(phase);

    let olds = update::OldObjects::load(
        &options.old_paths,
        &options.walk,
        options.max_file_size,
        &options.limits,
    );

    let phase = timings::phase("crds");
    let findings = RunBudget::default();
    let crd_pass = CrdPass {
        options,
        mode,
        plan,
        olds: &olds,
        mentioned: &mentioned,
        kube_version: options.kube_version.unwrap_or(KubeVersion::NEWEST),
        findings: &findings,
    };
    // Per source, in input order: a parsed CRD file, or the deferred text.
    let passed: Vec<Result<CrdFile, Option<String>>> = sources
        .par_iter()
        .zip(scanned)
        .with_max_len(1)
        .map(|(source, scanned)| match scanned {
            Scanned::Deferred(text) => Err(text),
            Scanned::Unreadable(loaded) => Ok(crd_pass.file(source, loaded, true)),
            Scanned::Crds(kept) => {
                let text = match kept {
                    Some(kept) => Ok(kept),
                    // (Fitted: a text with findings is kept to the end of the run.)
                    None => load::read_reusing(&source.input, crd_pass.options.max_file_size).map(
                        |text| KeptCrdText {
                            suppresses: suppresses(&text),
                            text: load::fitted(text),
                        },
                    ),
                };
                Ok(match text {
                    Ok(KeptCrdText { text, suppresses }) => {
                        let loaded =
                            load::parse_text(&source.input, text, &crd_pass.options.limits);
                        crd_pass.file(source, loaded, suppresses)
                    }
                    Err(unreadable) => crd_pass.file(source, *unreadable, true),
                })
            }
        })
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
        restored: HashMap::new(),
    };
    // CRD files whose findings are reported (their suppressions apply at the end).
    let mut crd_files: Vec<Arc<SourceFile>> = Vec::new();
    let mut pending: Vec<PendingSource> = Vec::new();
    for (source, passed) in sources.iter().zip(passed) {
        let crd_file = match passed {
            Err(text) => {
                pending.push(Err(text));
                continue;
            }
            Ok(crd_file) => crd_file,
        };
        io_error |= crd_file.io_error;
        if source.reported {
            crd_files.push(crd_file.file.clone());
        }
        add_summary(&mut summary, &crd_file.summary);
        diagnostics.extend(crd_file.diagnostics);
        for entry in crd_file.crds {
            diagnostics.extend(registry.register(entry, source, options.max_file_size));
        }
        pending.push(Ok(crd_file.objects));
    }
    drop(phase);

    let phase = timings::phase("check");
    let mut tasks: Vec<Task> = Vec::new();
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
    io_error |= olds.io_error;
    diagnostics.extend(olds.diagnostics.iter().cloned());
    let context = Context {
        options,
        registry: &registry,
        olds: &olds,
        mode,
        findings: &findings,
    };
    let outcomes: Vec<Outcome> = tasks
        .into_par_iter()
        .with_max_len(1)
        .map(|task| context.run(task))
        .collect();
    drop(phase);

    let _phase = timings::phase("finish");
    if outcomes.iter().any(|o| o.start_over) {
        return Err(());
    }
    // (Past the findings limit, objects went unchecked and may have had old ones.)
    let notes: Vec<String> = match findings.exhausted() {
        true => Vec::new(),
        false => olds.unused_note().into_iter().collect(),
    };
    if options.exit_after {
        std::mem::forget(registry);
    }
    let mut objects = Vec::new();
    for outcome in outcomes {
        if diagnostics.is_empty() {
            // Taken over rather than copied: a file of millions of findings held them
            // twice at the peak.
            diagnostics = outcome.diagnostics;
        } else {
            diagnostics.extend(outcome.diagnostics);
        }
        objects.extend(outcome.objects);
        io_error |= outcome.io_error;
        add_summary(&mut summary, &outcome.summary);
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
            notes,
        },
        objects,
    })
}

/// A loaded file's documents, `List`s flattened into their items, each marked when
/// loading reported an error in it.
fn documents_of(
    file: &Arc<SourceFile>,
    parsed: Vec<crate::source::yaml::ParsedDocument>,
    reported: bool,
    load_diagnostics: &[Diagnostic],
) -> Vec<Document> {
    let mut documents = Vec::with_capacity(parsed.len());
    for p in parsed {
        flatten(file, p.index, p.root, reported, &mut documents);
    }
    mark_load_failures(&mut documents, load_diagnostics);
    documents
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_workers_are_capped_at_four_per_core_or_64() {
        assert_eq!(worker_count(None, 2), 0);
        assert_eq!(worker_count(Some("abc"), 2), 0);
        assert_eq!(worker_count(Some("0"), 2), 0);
        assert_eq!(worker_count(Some(" 3 "), 2), 3);
        assert_eq!(worker_count(Some("64"), 2), 64);
        assert_eq!(worker_count(Some("100000"), 2), 64);
        assert_eq!(worker_count(Some("100000"), 32), 128);
        assert_eq!(worker_count(Some("99999999999999999999999"), 2), 0);
    }

    #[test]
    fn a_dropped_text_is_read_back_only_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("crd.yaml");
        std::fs::write(&path, "metadata:\n  name: a\n").unwrap();
        let input = Input::Path(path);
        let file = restore_text(&input, "crd.yaml", 20, 1 << 20).unwrap();
        assert_eq!(file.text, "metadata:\n  name: a\n");
        assert!(spans_fit(&file.text, [Span::new(18, 19)].iter()));
        // A position the text does not have.
        assert!(!spans_fit(&file.text, [Span::new(18, 30)].iter()));
        // Another length: the file changed since it was checked.
        assert!(restore_text(&input, "crd.yaml", 21, 1 << 20).is_none());
        // Now too large, or gone.
        assert!(restore_text(&input, "crd.yaml", 20, 10).is_none());
        std::fs::remove_file(dir.path().join("crd.yaml")).unwrap();
        assert!(restore_text(&input, "crd.yaml", 20, 1 << 20).is_none());
    }
}
