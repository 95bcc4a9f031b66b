//! Runs the yaml_spans invariants (`crdlint_fuzz::check_yaml`) over every input read
//! from stdin, inputs separated by NUL bytes, and reports each one that breaks them
//! (without stopping). For exhaustive sweeps of small generated shapes: a generator
//! pipes millions of inputs here instead of writing millions of files for libFuzzer.
//!
//!     python3 sweeps/props_markers.py | target/release/examples/yaml_sweep
use std::io::{BufRead, Write};

fn main() -> std::process::ExitCode {
    // The panic message of each failure is printed by the default hook; keep it.
    let stdin = std::io::stdin().lock();
    let mut stdout = std::io::stdout().lock();
    let (mut total, mut failed) = (0u64, 0u64);
    for input in stdin.split(0) {
        let Ok(input) = input else { break };
        total += 1;
        let Ok(text) = std::str::from_utf8(&input) else {
            continue;
        };
        if std::panic::catch_unwind(|| crdlint_fuzz::check_yaml(text)).is_err() {
            failed += 1;
            let _ = writeln!(stdout, "FAILED {text:?}");
        }
    }
    let _ = writeln!(stdout, "{total} inputs, {failed} failed");
    if failed == 0 {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
