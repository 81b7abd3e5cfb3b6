#!/usr/bin/env bash
# The Python package against an exact vectorised numpy implementation and against the Rust library's own
# batch rate, in one run (the targets: >= 10x numpy, within 1.5x of Rust). Needs python3 with pip.
# BENCH_PYTHON=path/to/python uses an environment that already has numpy and the package (no install).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000000}
if [ -n "${BENCH_PYTHON:-}" ]; then
  python=$BENCH_PYTHON
else
  venv=target/bench-venv
  [ -x "$venv/bin/python" ] || { python3 -m venv "$venv"; "$venv/bin/python" -m pip install --quiet numpy; }
  "$venv/bin/python" -m pip install --quiet ./python
  python=$venv/bin/python
fi
cargo build --release --quiet --example keyed_batch_rate -p manifold-dp
rust=$(target/release/examples/keyed_batch_rate "$n")
py=$("$python" scripts/bench_python.py "$n")
python3 - "$rust" "$py" <<'PY'
import json, sys
rust, py = json.loads(sys.argv[1]), json.loads(sys.argv[2])
py["rust_rows_per_second"] = rust["rows_per_second"]
py["rust_over_package"] = rust["rows_per_second"] / py["package_rows_per_second"]
print(json.dumps(py, indent=1))
PY
