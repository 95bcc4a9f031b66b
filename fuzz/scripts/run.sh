#!/bin/sh
# Runs one fuzz target for SECONDS (default 600) on stable Rust (no sanitizer:
# `-s none`; coverage instrumentation works without nightly).
#   fuzz/scripts/run.sh yaml_spans 600
# Seeds come from fuzz/scripts/seed.py (fuzz/corpus is gitignored); crashes land in
# fuzz/artifacts/.
set -eu
target=$1
seconds=${2:-600}
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$(cd .. && pwd)/target/fuzz}
cargo fuzz build -s none -O "$target"
[ -d "corpus/$target" ] || python3 scripts/seed.py
case $target in
  yaml_spans) dict=dict/yaml.dict; max_len=65536 ;;
  crd_validate) cat dict/yaml.dict dict/crd.dict > dict/.crd_all.dict; dict=dict/.crd_all.dict; max_len=65536 ;;
  cel_rule) dict=dict/cel.dict; max_len=4096; extra=-len_control=0 ;;
  crd_cr) cat dict/yaml.dict dict/crd.dict > dict/.crd_all.dict; dict=dict/.crd_all.dict; max_len=65536 ;;
  cr_validate) cat dict/yaml.dict dict/crd.dict > dict/.crd_all.dict; dict=dict/.crd_all.dict; max_len=65536 ;;
  *) echo "unknown target $target" >&2; exit 2 ;;
esac
mkdir -p artifacts
extra=${extra:-}
exec "$CARGO_TARGET_DIR/x86_64-unknown-linux-gnu/release/$target" \
  -max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048 \
  -dict="$dict" -print_final_stats=1 $extra -artifact_prefix="artifacts/$target-" \
  "corpus/$target"
