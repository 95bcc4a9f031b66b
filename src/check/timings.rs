//! An opt-in stage timer: with `CRDLINT_TIMINGS=1` in the environment, crdlint prints to
//! stderr how long each stage took. Off, a stage costs one relaxed atomic load.
//!
//! Two kinds of figures: *phases* are wall-clock spans of the run, one after the other;
//! *work* is time summed over the rayon workers doing one kind of job (reading one file,
//! parsing it, …), so on several cores it can exceed the phase around it.

use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::time::Instant;

/// A kind of work, timed per item and summed over workers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Reading a file into text (includes the UTF-8 check).
    Read,
    /// YAML parsing into spanned trees.
    Parse,
    /// Validating one CRD definition (schema, CEL compile and cost included).
    CrdValidate,
    /// Preparing a CRD for resources (structural schemas, validators).
    CrdCompile,
    /// Compiling a CRD's CEL rules for resources (on first use).
    CelCompile,
    /// Checking one custom resource (prune, default, validate, CEL; includes
    /// `CelCompile` when it happens on the way).
    Resource,
}

const STAGES: [(Stage, &str); 6] = [
    (Stage::Read, "read"),
    (Stage::Parse, "parse"),
    (Stage::CrdValidate, "CRD validate"),
    (Stage::CrdCompile, "CRD compile"),
    (Stage::CelCompile, "CEL compile"),
    (Stage::Resource, "CR validate"),
];

static NANOS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
static COUNTS: [AtomicU64; 6] = [const { AtomicU64::new(0) }; 6];
/// 0 = not looked up yet, 1 = off, 2 = on.
static STATE: AtomicU8 = AtomicU8::new(0);

/// Whether `CRDLINT_TIMINGS` asks for timings (any value but empty or `0`).
pub fn enabled() -> bool {
    match STATE.load(Ordering::Relaxed) {
        1 => false,
        2 => true,
        _ => {
            let on = std::env::var_os("CRDLINT_TIMINGS").is_some_and(|v| !v.is_empty() && v != "0");
            STATE.store(if on { 2 } else { 1 }, Ordering::Relaxed);
            on
        }
    }
}

fn index(stage: Stage) -> usize {
    STAGES.iter().position(|(s, _)| *s == stage).unwrap_or(0)
}

/// Runs `f`, adding its duration to `stage` when timings are on.
#[inline]
pub fn time<T>(stage: Stage, f: impl FnOnce() -> T) -> T {
    timed(stage, 1, f)
}

/// [`time`] for a part of an item another call counts.
pub fn time_untallied<T>(stage: Stage, f: impl FnOnce() -> T) -> T {
    timed(stage, 0, f)
}

fn timed<T>(stage: Stage, items: u64, f: impl FnOnce() -> T) -> T {
    if !enabled() {
        return f();
    }
    let start = Instant::now();
    let out = f();
    let i = index(stage);
    NANOS[i].fetch_add(start.elapsed().as_nanos() as u64, Ordering::Relaxed);
    COUNTS[i].fetch_add(items, Ordering::Relaxed);
    out
}

/// A wall-clock phase of the run: prints its duration when dropped (timings on).
pub struct Phase {
    name: &'static str,
    start: Option<Instant>,
}

/// Starts a phase; keep the guard alive for the phase's extent.
pub fn phase(name: &'static str) -> Phase {
    Phase {
        name,
        start: enabled().then(Instant::now),
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        if let Some(start) = self.start {
            crate::report::to_stderr(&format!(
                "crdlint-timing phase {:<14} {:>9.1} ms (wall){}",
                self.name,
                start.elapsed().as_secs_f64() * 1e3,
                memory()
            ));
        }
    }
}

/// Resident memory now and at its peak, where the system tells (Linux).
fn memory() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .map(|v| v.trim().to_string())
            .unwrap_or_default()
    };
    format!("  RSS {}, peak {}", field("VmRSS:"), field("VmHWM:"))
}

/// Prints the summed work per stage (timings on).
pub fn report() {
    if !enabled() {
        return;
    }
    for (i, (_, name)) in STAGES.iter().enumerate() {
        let count = COUNTS[i].load(Ordering::Relaxed);
        if count == 0 {
            continue;
        }
        crate::report::to_stderr(&format!(
            "crdlint-timing work  {:<14} {:>9.1} ms over {count} items (summed over workers)",
            name,
            NANOS[i].load(Ordering::Relaxed) as f64 / 1e6
        ));
    }
}
