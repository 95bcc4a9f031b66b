//! How much text the findings of one object may take.
//!
//! The server lists every error of an object, however many, and an error can repeat a
//! long text of the schema: an enum of 5,000 values quoted by each of 2,000 failing
//! items (a 4 KB resource) is 230 MB of output, a rule's message or the 5 KiB a
//! `messageExpression` may return is repeated for every item, and a long key is part
//! of the path of every error below it. Within the server's 3 MiB request limit that
//! is terabytes. The validators charge what they produce to the object being checked
//! and stop checking it once its findings pass [`MAX_FINDING_BYTES`]; the caller then
//! says so (`findings-limit`). The count lives in a thread-local cell because an
//! object is validated on one thread from start to end, by code that has no handle to
//! share (compiled validators are shared by every object of a CRD).

use std::cell::{Cell, RefCell};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Diagnostic;
use crate::source::Span;

crate::declare_codes! {
    FINDINGS_LIMIT = "findings-limit", Error, "crdlint stopped checking an object whose findings passed 64 MiB; the server would list more";
}

/// What the findings of one object may take (their text, and [`FINDING_OVERHEAD`]
/// each, about 262,000 findings at most): far above what a real manifest gets, far
/// below what hurts a CI runner.
pub const MAX_FINDING_BYTES: usize = 64 << 20;

/// What the findings of all objects of one run may take. Many small objects can each
/// repeat a long text of their CRD (2,000 four-line resources, each with a value
/// outside an enum of 5,000 values, made 230 MB of output from 171 KB), so the
/// per-object limit alone does not bound a run.
pub const MAX_RUN_FINDING_BYTES: usize = 256 << 20;

thread_local! {
    /// Bytes charged to the object being checked on this thread; `None` outside
    /// [`ObjectBudget`] (unit tests, library calls on parts of an object), where
    /// nothing is counted.
    static SPENT: Cell<Option<usize>> = const { Cell::new(None) };
    /// The run the object being checked on this thread belongs to (see [`RunBudget::enter`]).
    static RUN: RefCell<Option<RunBudget>> = const { RefCell::new(None) };
}

/// The findings of one run, shared by its threads. Past the limit, the objects not yet
/// checked are skipped: which ones depends on the order threads reach them, but
/// whether the limit is reached does not (the findings of every object are fixed).
#[derive(Clone, Debug, Default)]
pub struct RunBudget {
    findings: Arc<AtomicUsize>,
    /// Bytes of JSON structural defaulting added to the run's objects (see
    /// [`MAX_RUN_DEFAULT_BYTES`]).
    defaults: Arc<AtomicUsize>,
}

impl RunBudget {
    pub fn exhausted(&self) -> bool {
        self.findings.load(Ordering::Relaxed) > MAX_RUN_FINDING_BYTES
    }

    /// Objects checked on this thread while the guard lives count toward this run.
    pub fn enter(&self) -> RunGuard {
        RunGuard {
            previous: RUN.replace(Some(self.clone())),
        }
    }
}

pub struct RunGuard {
    previous: Option<RunBudget>,
}

impl Drop for RunGuard {
    fn drop(&mut self) {
        RUN.set(self.previous.take());
    }
}

/// Bytes the run of this thread's object has spent, with those of objects that
/// finished.
fn run_spent() -> Option<usize> {
    RUN.with_borrow(|run| run.as_ref().map(|r| r.findings.load(Ordering::Relaxed)))
}

/// Counts the findings of one object while it lives.
pub struct ObjectBudget {
    previous: Option<usize>,
}

impl ObjectBudget {
    pub fn start() -> ObjectBudget {
        ObjectBudget {
            previous: SPENT.replace(Some(0)),
        }
    }

    /// Whether the object's findings passed the limit (checking stopped).
    pub fn exhausted(&self) -> bool {
        exhausted()
    }
}

impl Drop for ObjectBudget {
    fn drop(&mut self) {
        let spent = SPENT.replace(self.previous).unwrap_or(0);
        RUN.with_borrow(|run| {
            if let Some(run) = run {
                run.findings.fetch_add(spent, Ordering::Relaxed);
            }
        });
    }
}

/// What structural defaulting may add to all objects of one run, in bytes of JSON
/// (each object may take 16 MiB: `schema::prune::DEFAULTS_LIMIT`). A default is copied
/// wherever its field is missing, so a few kilobytes of resources can ask for that
/// much each: 300 resources of 150 empty items under a 100 KB default (165 KB) took
/// 4 GB of defaults, 11 s to check and 24 GB to print with `dry-run`, which keeps the
/// objects it prints.
pub const MAX_RUN_DEFAULT_BYTES: usize = 256 << 20;

/// Bytes of JSON defaulting may still add to objects of this thread's run; `None`
/// outside a run (no run limit).
pub fn run_defaults_remaining() -> Option<usize> {
    RUN.with_borrow(|run| {
        run.as_ref()
            .map(|r| MAX_RUN_DEFAULT_BYTES.saturating_sub(r.defaults.load(Ordering::Relaxed)))
    })
}

/// Charges `bytes` of defaults to this thread's run.
pub fn charge_defaults(bytes: usize) {
    RUN.with_borrow(|run| {
        if let Some(run) = run {
            run.defaults.fetch_add(bytes, Ordering::Relaxed);
        }
    });
}

/// What a finding costs beyond its text (its diagnostic's other fields; a finding
/// takes near a kilobyte in memory by the time it is reported): 1.5 million one-letter
/// findings are 384 MiB, not 1.5 MB.
const FINDING_OVERHEAD: usize = 256;

/// Whether the object's own findings passed [`MAX_FINDING_BYTES`] (else its run's
/// passed [`MAX_RUN_FINDING_BYTES`]).
fn object_passed_limit() -> bool {
    SPENT.get().is_some_and(|n| n > MAX_FINDING_BYTES)
}

/// What the caller reports when an object's findings passed the limit, at `span` (the
/// object).
pub fn findings_limit(span: Span) -> Diagnostic {
    let message = if object_passed_limit() {
        format!(
            "crdlint stopped checking this object: its findings passed {} MiB (the server would list more)",
            MAX_FINDING_BYTES >> 20
        )
    } else {
        format!(
            "crdlint stopped checking: the findings of this run passed {} MiB; this object and others were not checked to the end",
            MAX_RUN_FINDING_BYTES >> 20
        )
    };
    Diagnostic::error(FINDINGS_LIMIT, message)
        .with_span(span)
        .with_help("fix the findings reported, which repeat one problem, and check again")
}

/// What the caller reports when an object's findings passed the limit while its
/// warnings were listed, all its checks done without an error: a warning, as the
/// verdict is complete.
pub fn warnings_limit(span: Span) -> Diagnostic {
    let message = if object_passed_limit() {
        format!(
            "crdlint stopped listing this object's warnings: its findings passed {} MiB (the server would list more)",
            MAX_FINDING_BYTES >> 20
        )
    } else {
        format!(
            "crdlint stopped listing this object's warnings: the findings of this run passed {} MiB",
            MAX_RUN_FINDING_BYTES >> 20
        )
    };
    Diagnostic::warning(FINDINGS_LIMIT, message)
        .with_span(span)
        .with_help("the object has no errors; fix the warnings reported, which repeat one problem")
}

/// Charges a finding with `text_bytes` of text to the object being checked, if any.
pub fn charge(text_bytes: usize) {
    SPENT.with(|spent| {
        if let Some(n) = spent.get() {
            spent.set(Some(
                n.saturating_add(text_bytes)
                    .saturating_add(FINDING_OVERHEAD),
            ));
        }
    });
}

/// Charges a finding built as a [`Diagnostic`] (not from a `FieldError`, which is
/// charged when built): its message, field path and detail.
pub fn charge_finding(finding: &Diagnostic) {
    let text = |s: &Option<String>| s.as_ref().map_or(0, String::len);
    charge(finding.message.len() + text(&finding.field) + text(&finding.detail));
}

/// Charges `text_bytes` more to a finding charged already (text added to it later, as
/// the path a relative error is placed under).
pub fn charge_more(text_bytes: usize) {
    SPENT.with(|spent| {
        if let Some(n) = spent.get() {
            spent.set(Some(n.saturating_add(text_bytes)));
        }
    });
}

/// Whether the object being checked has used up its budget, or its run has:
/// validators stop.
pub fn exhausted() -> bool {
    let Some(spent) = SPENT.get() else {
        return false;
    };
    spent > MAX_FINDING_BYTES
        || run_spent().is_some_and(|run| run.saturating_add(spent) > MAX_RUN_FINDING_BYTES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_only_inside_a_scope_and_restores_the_outer_one() {
        charge(MAX_FINDING_BYTES + 1);
        assert!(!exhausted());
        let outer = ObjectBudget::start();
        charge(MAX_FINDING_BYTES - FINDING_OVERHEAD);
        assert!(!outer.exhausted());
        {
            let inner = ObjectBudget::start();
            charge(MAX_FINDING_BYTES + 1);
            assert!(inner.exhausted());
        }
        assert!(!outer.exhausted());
        charge(0);
        assert!(outer.exhausted());
        drop(outer);
        assert!(!exhausted());
    }
}
