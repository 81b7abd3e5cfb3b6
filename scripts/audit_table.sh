#!/usr/bin/env bash
# Regenerates the tables of docs/audit.md (seeded, so the numbers are reproducible; timings are not).
#   scripts/audit_table.sh [OUT_DIR]
# Takes about an hour on two cores (the 10^7-draw tightness table dominates).
set -euo pipefail
out="${1:-audit-output}"
mkdir -p "$out"
cargo build --release -p manifold-dp --example audit_table
bin=target/release/examples/audit_table
"$bin" controls --samples 200000 >"$out/controls.md" 2>"$out/controls.log"
"$bin" miscalibration --samples 1000000 >"$out/miscalibration.md" 2>"$out/miscalibration.log"
"$bin" table --samples 10000000 >"$out/tightness.md" 2>"$out/tightness.log"
"$bin" table --samples 1000000 --filter circle --llr-resolution 0 >"$out/raw_float_circle.md" 2>"$out/raw_float_circle.log"
"$bin" table --samples 1000000 --filter real --llr-resolution 0 >"$out/raw_float_real.md" 2>"$out/raw_float_real.log"
echo "tables in $out/"
