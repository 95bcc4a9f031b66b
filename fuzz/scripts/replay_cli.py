#!/usr/bin/env python3
"""Replays a fuzz corpus through the release `crdlint` binary, one process per unit.

The fuzz targets call library functions in an instrumented build; this runs what users
run (argument parsing, the walker, every output path, the process's own limits) and
measures each unit: a crash (exit status other than 0, 1 or 2, or a panic message), a
run past the time limit, the slowest units and the largest peak RSS.

    cargo build --release
    python3 fuzz/scripts/replay_cli.py crd_validate check @ -o json
    python3 fuzz/scripts/replay_cli.py crd_validate cost @ -o json
    python3 fuzz/scripts/replay_cli.py cr_validate check --crds fuzz/crds/widgets.yaml @
    python3 fuzz/scripts/replay_cli.py cr_validate dry-run --crd fuzz/crds/widgets.yaml @

Options come before TARGET: `--binary PATH` (default target/release/crdlint),
`--timeout SECONDS` (default 60), `--top N` (default 10), `--corpus DIR` (another copy
of the corpus). `@` stands for the unit, copied to a temporary `u.yaml` (corpus units
have no extension, and the walker reads only .yaml, .yml and .json). Units a running
fuzzer deletes meanwhile are skipped. Exit status 1 when any unit crashed or timed out.
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run_unit(argv, timeout):
    """Runs argv; returns (exit status, or None after a timeout; seconds; stderr)."""
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return None, time.monotonic() - start, b""
    return proc.returncode, time.monotonic() - start, err


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("target", help="fuzz target whose corpus to replay (fuzz/corpus/TARGET)")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="crdlint arguments; @ is the unit")
    parser.add_argument("--binary", default=os.path.join(ROOT, "target/release/crdlint"))
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument("--corpus", help="corpus directory (default fuzz/corpus/TARGET)")
    opts = parser.parse_args()
    if "@" not in opts.args:
        parser.error("the crdlint arguments must contain @ (the unit)")
    corpus = opts.corpus or os.path.join(ROOT, "fuzz/corpus", opts.target)
    units = sorted(os.listdir(corpus))
    scratch = tempfile.mkdtemp(prefix="crdlint-replay-")
    unit_path = os.path.join(scratch, "u.yaml")
    timings, failures = [], 0
    started = time.monotonic()
    try:
        for name in units:
            try:
                shutil.copyfile(os.path.join(corpus, name), unit_path)
            except FileNotFoundError:
                continue  # reduced away by a fuzzer running on the same corpus
            argv = [opts.binary] + [unit_path if a == "@" else a for a in opts.args]
            status, seconds, err = run_unit(argv, opts.timeout)
            if status is None:
                failures += 1
                print(f"TIMEOUT after {opts.timeout:.0f} s: {name}", flush=True)
                continue
            if status not in (0, 1, 2) or b"panicked" in err:
                failures += 1
                print(f"CRASH status {status}: {name}\n{err[-2000:].decode(errors='replace')}", flush=True)
            timings.append((seconds, name))
    finally:
        shutil.rmtree(scratch)
    # The children's ru_maxrss is the largest peak of any one child: the unit that needed
    # the most memory.
    peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    timings.sort(reverse=True)
    total = time.monotonic() - started
    print(f"{len(timings)} units in {total:.0f} s; {failures} crashed or timed out; "
          f"largest peak RSS of any unit {peak_kib / 1024:.0f} MiB")
    print(f"slowest {min(opts.top, len(timings))} (wall seconds, unit):")
    for seconds, name in timings[: opts.top]:
        print(f"  {seconds:.3f} {name}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
