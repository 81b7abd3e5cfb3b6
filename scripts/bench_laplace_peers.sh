#!/usr/bin/env bash
# The float-safe real Laplace against numpy's raw Laplace and OpenDP's float-safe vector Laplace, in one run
# (docs/benchmarks.md, "Real numbers: Laplace against numpy and OpenDP"). Needs python3 with venv and pip.
# Usage: scripts/bench_laplace_peers.sh [N (4000000)] [N_OPENDP (200000)]
#   Builds the native module (release), puts it beside python/manifold_dp under target/laplace-peers/, and times
#   it with numpy and OpenDP from a throwaway environment target/laplace-peers/venv (numpy, pyarrow, opendp).
#   BEFORE_SO=path/to/lib_native.so also times that build of the module (say, an earlier commit's) in the same run.
# Output: JSON, rows/s (median of 5 runs; OpenDP 3 runs on N_OPENDP rows) and ratios to numpy (the mean of its two
#   timings, before and after the package's).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=target/laplace-peers
venv=$dir/venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv"; "$venv/bin/python" -m pip install --quiet numpy pyarrow opendp; }
cargo build --release --quiet -p manifold-dp-py
rm -rf "$dir/now" "$dir/before"
mkdir -p "$dir/now/manifold_dp"
cp -r python/manifold_dp/. "$dir/now/manifold_dp/"
cp target/release/lib_native.so "$dir/now/manifold_dp/_native.abi3.so"
if [ -n "${BEFORE_SO:-}" ]; then
  mkdir -p "$dir/before/manifold_dp"
  cp -r python/manifold_dp/. "$dir/before/manifold_dp/"
  cp "$BEFORE_SO" "$dir/before/manifold_dp/_native.abi3.so"
  export BEFORE_PATH=$PWD/$dir/before
fi
PYTHONPATH=$dir/now "$venv/bin/python" scripts/bench_laplace_peers.py "$@"
