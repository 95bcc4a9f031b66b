//! crdlint's benchmark: prints figures, asserts nothing.
//!
//! ```text
//! cargo bench --bench crdlint -- [--runs N] [--threads all,1] [--scale 1000,10000,100000]
//!     [--scale-crds 1,10,50] [--corpus DIR] [--no-corpus] [--oracle] [--instructions]
//! ```
//!
//! Every case runs the release `crdlint` binary as a child process and reads the
//! child's resource usage (`wait4`): wall time, CPU time (user + system), peak RSS.
//! The baseline is this same harness re-executed in `--parse-only` mode: walk, read
//! and parse the same files with `crdlint::source::yaml::parse` on the same rayon
//! pool, nothing else — the floor any checker built on that parser stands on. Stage
//! times come from crdlint's own `CRDLINT_TIMINGS=1` report. `--instructions` counts
//! instructions under valgrind (cachegrind, no cache simulation), a figure that does
//! not move with the load of a shared machine; `--oracle` times kubectl-validate
//! (/work/ref/oracle.sh) on the corpus CRDs.

#[path = "support/gen_scale.rs"]
mod gen_scale;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rayon::prelude::*;

// The same allocator as the crdlint binary, so the baseline is comparable.
#[global_allocator]
static ALLOCATOR: crdlint::alloc::Allocator = crdlint::alloc::Allocator;

/// What one child process cost.
#[derive(Clone, Copy, Debug, Default)]
struct Usage {
    wall: Duration,
    cpu: Duration,
    max_rss_kb: u64,
}

fn timeval(t: libc::timeval) -> Duration {
    Duration::from_secs(t.tv_sec as u64) + Duration::from_micros(t.tv_usec as u64)
}

/// Runs `command` to completion with stdout and stderr sent to files; its usage.
fn run(mut command: Command, stdout: &Path, stderr: &Path) -> Usage {
    command
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(stdout).expect("stdout file"))
        .stderr(std::fs::File::create(stderr).expect("stderr file"));
    let start = Instant::now();
    // Reaped below with wait4 (which also gives its resource usage), not Child::wait.
    #[allow(clippy::zombie_processes)]
    let child = command.spawn().expect("spawn");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes a full one.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pid is our own child, not yet waited for; the pointers are valid.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed();
    assert!(pid > 0, "wait4 failed");
    Usage {
        wall,
        cpu: timeval(usage.ru_utime) + timeval(usage.ru_stime),
        max_rss_kb: usage.ru_maxrss as u64,
    }
}

/// Several runs of one case: minimum and median of the times, the largest RSS.
#[derive(Clone, Debug)]
struct Figures {
    runs: Vec<Usage>,
}

impl Figures {
    fn sorted(&self, f: impl Fn(&Usage) -> Duration) -> Vec<Duration> {
        let mut v: Vec<Duration> = self.runs.iter().map(f).collect();
        v.sort();
        v
    }
    fn min_wall(&self) -> Duration {
        self.sorted(|u| u.wall)[0]
    }
    fn median_wall(&self) -> Duration {
        let v = self.sorted(|u| u.wall);
        v[v.len() / 2]
    }
    fn min_cpu(&self) -> Duration {
        self.sorted(|u| u.cpu)[0]
    }
    fn median_cpu(&self) -> Duration {
        let v = self.sorted(|u| u.cpu);
        v[v.len() / 2]
    }
    /// (max - min) / min of the CPU times, in percent: how noisy the runs were.
    fn cpu_spread(&self) -> f64 {
        let v = self.sorted(|u| u.cpu);
        let (lo, hi) = (v[0].as_secs_f64(), v[v.len() - 1].as_secs_f64());
        if lo > 0.0 {
            (hi - lo) / lo * 100.0
        } else {
            0.0
        }
    }
    fn max_rss_mb(&self) -> f64 {
        self.runs.iter().map(|u| u.max_rss_kb).max().unwrap_or(0) as f64 / 1024.0
    }
}

struct Harness {
    crdlint: PathBuf,
    me: PathBuf,
    scratch: PathBuf,
    runs: usize,
    threads: Vec<Option<usize>>,
}

impl Harness {
    fn measure(
        &self,
        what: &str,
        args: &[&str],
        threads: Option<usize>,
        env: &[(&str, &str)],
    ) -> Figures {
        let program = if what == "crdlint" {
            &self.crdlint
        } else {
            &self.me
        };
        let mut runs = Vec::new();
        for _ in 0..self.runs {
            let mut command = Command::new(program);
            command.args(args);
            match threads {
                Some(n) => command.env("RAYON_NUM_THREADS", n.to_string()),
                None => command.env_remove("RAYON_NUM_THREADS"),
            };
            command.env_remove("CRDLINT_TIMINGS");
            for (k, v) in env {
                command.env(k, v);
            }
            runs.push(run(
                command,
                &self.scratch.join("stdout"),
                &self.scratch.join("stderr"),
            ));
        }
        Figures { runs }
    }

    /// crdlint's summary of a run: (documents, errors, warnings).
    fn summary(&self, paths: &[&str]) -> (u64, u64, u64) {
        let mut args = vec!["check", "-o", "json", "--no-config"];
        args.extend(paths);
        self.measure("crdlint", &args, None, &[]);
        let text = std::fs::read_to_string(self.scratch.join("stdout")).unwrap_or_default();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let n = |k: &str| json["summary"][k].as_u64().unwrap_or(0);
        (n("documents"), n("errors"), n("warnings"))
    }

    /// crdlint's own stage report (`CRDLINT_TIMINGS=1`) for one run.
    fn stages(&self, paths: &[&str], threads: Option<usize>) -> String {
        let mut args = vec!["check", "-o", "short", "--no-config"];
        args.extend(paths);
        self.measure("crdlint", &args, threads, &[("CRDLINT_TIMINGS", "1")]);
        let text = std::fs::read_to_string(self.scratch.join("stderr")).unwrap_or_default();
        text.lines()
            .filter(|l| l.starts_with("crdlint-timing"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// Compares `crdlint check` with the parse-only baseline on `paths`.
    fn case(&self, name: &str, paths: &[&str]) {
        let (documents, errors, warnings) = self.summary(paths);
        let bytes: u64 = paths.iter().map(|p| tree_bytes(Path::new(p))).sum();
        println!(
            "\n## {name}: {documents} documents, {:.1} MB ({errors} errors, {warnings} warnings reported)",
            bytes as f64 / 1e6
        );
        println!(
            "| threads | what | wall min | wall median | CPU min | CPU median | CPU spread | peak RSS | docs/s (wall) | × baseline (CPU) |"
        );
        println!("|---|---|---|---|---|---|---|---|---|---|");
        for &threads in &self.threads {
            let mut check_args = vec!["check", "-o", "json", "--no-config"];
            check_args.extend(paths);
            let mut base_args = vec!["--parse-only"];
            base_args.extend(paths);
            let base = self.measure("baseline", &base_args, threads, &[]);
            let check = self.measure("crdlint", &check_args, threads, &[]);
            let label = threads.map_or("all".to_string(), |n| n.to_string());
            for (what, f) in [("read+parse baseline", &base), ("crdlint check", &check)] {
                let ratio = f.min_cpu().as_secs_f64() / base.min_cpu().as_secs_f64().max(1e-9);
                println!(
                    "| {label} | {what} | {} | {} | {} | {} | {:.0}% | {:.0} MB | {:.0} | {:.2} |",
                    ms(f.min_wall()),
                    ms(f.median_wall()),
                    ms(f.min_cpu()),
                    ms(f.median_cpu()),
                    f.cpu_spread(),
                    f.max_rss_mb(),
                    documents as f64 / f.min_wall().as_secs_f64().max(1e-9),
                    ratio,
                );
            }
        }
        for &threads in &self.threads {
            let label = threads.map_or("all cores".to_string(), |n| format!("{n} thread(s)"));
            println!(
                "\nstages ({label}, one run):\n```\n{}\n```",
                self.stages(paths, threads)
            );
        }
    }

    /// Instructions executed (valgrind, single thread): crdlint and the baseline.
    fn instructions(&self, name: &str, paths: &[&str]) {
        let count = |program: &Path, args: &[&str]| -> Option<u64> {
            let mut command = Command::new("valgrind");
            command
                .args([
                    "--tool=cachegrind",
                    "--cache-sim=no",
                    "--cachegrind-out-file=/dev/null",
                ])
                .arg(program)
                .args(args)
                .env("RAYON_NUM_THREADS", "1");
            run(
                command,
                &self.scratch.join("stdout"),
                &self.scratch.join("stderr"),
            );
            let text = std::fs::read_to_string(self.scratch.join("stderr")).ok()?;
            let line = text
                .lines()
                .find(|l| l.contains("I refs:") || l.contains("I   refs:"))?;
            line.rsplit(':')
                .next()?
                .trim()
                .replace(',', "")
                .parse()
                .ok()
        };
        let mut check_args = vec!["check", "-o", "json", "--no-config"];
        check_args.extend(paths);
        let mut base_args = vec!["--parse-only"];
        base_args.extend(paths);
        let base = count(&self.me, &base_args);
        let check = count(&self.crdlint, &check_args);
        match (base, check) {
            (Some(b), Some(c)) => println!(
                "\n{name}: instructions (valgrind, 1 thread): read+parse baseline {:.3} G, crdlint check {:.3} G, × baseline {:.2}",
                b as f64 / 1e9,
                c as f64 / 1e9,
                c as f64 / b as f64
            ),
            _ => println!("\n{name}: instructions: valgrind not available or failed"),
        }
    }
}

fn ms(d: Duration) -> String {
    format!("{:.0} ms", d.as_secs_f64() * 1000.0)
}

fn tree_bytes(path: &Path) -> u64 {
    let Ok(meta) = std::fs::metadata(path) else {
        return 0;
    };
    if meta.is_file() {
        return meta.len();
    }
    std::fs::read_dir(path)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| tree_bytes(&e.path()))
        .sum()
}

/// The baseline: walk, read and parse, nothing else; prints the document count.
fn parse_only(paths: &[String]) {
    use crdlint::source::{read, walk, yaml};
    let paths: Vec<PathBuf> = paths.iter().map(PathBuf::from).collect();
    let (inputs, _) = walk::collect(&paths, &walk::WalkOptions::default());
    let limits = yaml::Limits::default();
    let documents: usize = inputs
        .par_iter()
        .map(|input| match read::read_input(input, 32 << 20) {
            Ok(text) => yaml::parse(&text, &limits).documents.len(),
            Err(_) => 0,
        })
        .sum();
    println!("{documents}");
}

fn corpus_dir(explicit: Option<String>) -> Option<PathBuf> {
    let candidates = explicit.map(PathBuf::from).into_iter().chain([
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus"),
        PathBuf::from("/work/shared/corpus"),
    ]);
    candidates.into_iter().find(|p| p.join("crds").is_dir())
}

fn list(value: &str) -> Vec<usize> {
    value
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--parse-only") {
        parse_only(&args[1..]);
        return;
    }
    let mut runs = 3;
    let mut threads = vec![None, Some(1)];
    let mut scale = vec![1_000, 10_000, 100_000];
    let mut scale_crds = vec![1, 10, 50];
    let mut corpus = None;
    let mut no_corpus = false;
    let mut oracle = false;
    let mut instructions = false;
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        match args[i].as_str() {
            "--runs" => runs = value.parse().unwrap_or(3),
            "--threads" => {
                threads = value
                    .split(',')
                    .map(|t| if t == "all" { None } else { t.parse().ok() })
                    .collect()
            }
            "--scale" => scale = list(&value),
            "--scale-crds" => scale_crds = list(&value),
            "--corpus" => corpus = Some(value),
            "--no-corpus" => {
                no_corpus = true;
                i -= 1;
            }
            "--oracle" => {
                oracle = true;
                i -= 1;
            }
            "--instructions" => {
                instructions = true;
                i -= 1;
            }
            // `cargo bench` passes `--bench`.
            _ => i -= 1,
        }
        i += 2;
    }
    let target = PathBuf::from(env!("CARGO_BIN_EXE_crdlint"));
    let scratch = std::env::temp_dir().join(format!("crdlint-bench-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let harness = Harness {
        crdlint: target.clone(),
        me: std::env::current_exe().expect("own path"),
        scratch: scratch.clone(),
        runs: runs.max(1),
        threads,
    };
    println!(
        "# crdlint benchmark ({} cores, {} runs per figure; CPU = user + sys of the child; load average {})",
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        harness.runs,
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split(' ')
            .next()
            .unwrap_or("?")
    );

    match (no_corpus, corpus_dir(corpus)) {
        (true, _) => {}
        (false, None) => println!("\ncorpus: SKIPPED (no ../shared/corpus; pass --corpus DIR)"),
        (false, Some(dir)) => {
            let crds = dir.join("crds").display().to_string();
            let crs = dir.join("crs").display().to_string();
            harness.case("corpus crds/ + crs/", &[&crds, &crs]);
            if instructions {
                harness.instructions("corpus crds/ + crs/", &[&crds, &crs]);
            }
            if oracle {
                oracle_comparison(&harness, &crds);
            }
        }
    }

    let data = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("target")
        .join("bench-scale");
    let data = std::env::var_os("CARGO_TARGET_DIR")
        .map(|t| PathBuf::from(t).join("bench-scale"))
        .unwrap_or(data);
    for &n_crds in &scale_crds {
        for &n_crs in &scale {
            let dir = data.join(format!("{n_crds}-{n_crs}"));
            if !dir.join("done").exists() {
                let _ = std::fs::remove_dir_all(&dir);
                match gen_scale::generate(&dir, n_crds, n_crs, 10) {
                    Ok(_) => {
                        let _ = std::fs::write(dir.join("done"), "");
                    }
                    Err(e) => {
                        println!("\nscale {n_crds} CRDs × {n_crs}: SKIPPED ({e})");
                        continue;
                    }
                }
            }
            let d = dir.display().to_string();
            harness.case(&format!("scale: {n_crds} CRDs, {n_crs} resources"), &[&d]);
            if instructions {
                harness.instructions(&format!("scale {n_crds}×{n_crs}"), &[&d]);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

/// kubectl-validate on the corpus CRDs against crdlint on the same files.
fn oracle_comparison(harness: &Harness, crds: &str) {
    let oracle = Path::new("/work/ref/oracle.sh");
    if !oracle.exists() {
        println!("\nkubectl-validate: SKIPPED (/work/ref/oracle.sh not found)");
        return;
    }
    let mut times = Vec::new();
    for _ in 0..harness.runs {
        let mut command = Command::new(oracle);
        command.arg(crds);
        times.push(run(
            command,
            &harness.scratch.join("stdout"),
            &harness.scratch.join("stderr"),
        ));
    }
    let kv = Figures { runs: times };
    let ours = harness.measure(
        "crdlint",
        &["check", "-o", "json", "--no-config", crds],
        None,
        &[],
    );
    println!("\n## kubectl-validate vs crdlint on the corpus CRDs (all cores)");
    println!("| tool | wall min | wall median | CPU min | peak RSS |");
    println!("|---|---|---|---|---|");
    for (tool, f) in [("kubectl-validate", &kv), ("crdlint check", &ours)] {
        println!(
            "| {tool} | {} | {} | {} | {:.0} MB |",
            ms(f.min_wall()),
            ms(f.median_wall()),
            ms(f.min_cpu()),
            f.max_rss_mb()
        );
    }
    println!(
        "crdlint is {:.1}× faster (wall, min) and {:.1}× (CPU, min)",
        kv.min_wall().as_secs_f64() / ours.min_wall().as_secs_f64(),
        kv.min_cpu().as_secs_f64() / ours.min_cpu().as_secs_f64()
    );
}
