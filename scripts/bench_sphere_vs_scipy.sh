#!/usr/bin/env bash
# Single-core throughput of the exact sphere samplers (VMF, Purkayastha) against scipy.stats.vonmises_fisher,
# measured side by side in one run (docs/benchmarks.md, "Sphere samplers vs scipy").
# Usage: scripts/bench_sphere_vs_scipy.sh   (needs python3 with venv, and network access for pip)
#   SCIPY_N (default 1000000): draws per scipy call; RUST_DRAWS (default 4000000): draws per Rust case.
# scipy and numpy are installed into a throwaway venv under a temporary directory, removed at the end; the tests
# never need them. Both sides run on one core (taskset -c 0 when available; BLAS/OpenMP threads pinned to 1),
# on the same (n, κ) cases and the same fixed unit mean, best of 3 rounds over all cases (a burst of other load
# spoils one round of a case, not all three), and both time the CPU time of the timing thread (Python's
# time.thread_time, Rust's CLOCK_THREAD_CPUTIME_ID), so that other load on a shared machine does not count.
# Note: scipy draws from numpy's PCG64, which is NOT a CSPRNG and is cheaper than ChaCha12, the release
# generator the Rust side uses: the comparison gives scipy that advantage. scipy has no Purkayastha sampler;
# its rows are compared with scipy's VMF.
set -euo pipefail
cd "$(dirname "$0")/.."

SCIPY_N=${SCIPY_N:-1000000}
RUST_DRAWS=${RUST_DRAWS:-4000000}
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMEXPR_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1
PIN=()
if command -v taskset > /dev/null && taskset -c 0 true 2> /dev/null; then PIN=(taskset -c 0); fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

echo "installing scipy into a throwaway venv ($TMP/venv)..." >&2
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/pip" install -q --disable-pip-version-check scipy numpy >&2

cat > "$TMP/scipy_bench.py" << 'PY'
import sys, time
import numpy as np
import scipy
from scipy.stats import vonmises_fisher

n_draws = int(sys.argv[1])
print(f"scipy {scipy.__version__}, numpy {np.__version__}", file=sys.stderr)
cases = []
for dim in (3, 10, 100):
    # The same fixed oblique unit mean as crates/manifold-dp/examples/sphere_throughput.rs.
    mu = 1.0 + 0.37 * np.arange(dim)
    mu /= np.linalg.norm(mu)
    for kappa in (1.0, 100.0):
        cases.append((dim, kappa, vonmises_fisher(mu, kappa)))
for _, _, dist in cases:
    dist.rvs(10_000, random_state=np.random.default_rng(0))  # warm-up
# Three rounds over all cases, the best of each counting (as on the Rust side).
best = [float("inf")] * len(cases)
for rep in range(3):
    for i, (dim, kappa, dist) in enumerate(cases):
        rng = np.random.default_rng(1000 * rep + i + 1)
        t0 = time.thread_time()
        x = dist.rvs(n_draws, random_state=rng)
        best[i] = min(best[i], time.thread_time() - t0)
        assert x.shape == (n_draws, dim)
print("dim,kappa,samples_per_sec")
for (dim, kappa, _), t in zip(cases, best):
    print(f"{dim},{kappa:g},{n_draws / t:.0f}")
PY

echo "timing scipy (N = $SCIPY_N per call, best of 3 rounds)..." >&2
"${PIN[@]}" "$TMP/venv/bin/python" "$TMP/scipy_bench.py" "$SCIPY_N" > "$TMP/scipy.csv"

echo "timing Rust (ChaCha12, $RUST_DRAWS draws per case, best of 3 rounds)..." >&2
cargo build --release -q -p manifold-dp --example sphere_throughput
"${PIN[@]}" target/release/examples/sphere_throughput "$RUST_DRAWS" > "$TMP/rust.csv"

echo "CPU: $(lscpu 2> /dev/null | sed -n 's/^Model name: *//p'), $(nproc --all) cores; load average: $(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null)" >&2
echo "| sampler | n | κ | Rust (ChaCha12) samples/s | scipy VMF (PCG64) samples/s | Rust / scipy |"
echo "|---|---|---|---|---|---|"
awk -F, '
  function m(x) { return sprintf("%.2f M", x / 1e6) }
  FNR == 1 { next }
  NR == FNR { scipy[$1 "," $2 + 0] = $3; next }
  { s = scipy[$2 "," $3 + 0];
    printf "| %s | %s | %g | %s | %s | %.1f× |\n", ($1 == "vmf" ? "VMF" : "Purkayastha"), $2, $3, m($4), m(s),
      (s > 0 ? $4 / s : 0) }
' "$TMP/scipy.csv" "$TMP/rust.csv"
echo "note: scipy draws from numpy's PCG64 (not a CSPRNG), the Rust side from ChaCha12 (a CSPRNG): the comparison" \
  "favours scipy; scipy has no Purkayastha sampler, so those rows are compared with its VMF" >&2
