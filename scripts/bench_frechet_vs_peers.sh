#!/usr/bin/env bash
# Accuracy and single-thread speed of our Fréchet (Karcher) mean against geomstats' FrechetMean and pyriemann's
# mean_riemann at their default settings, side by side on the same seeded data, in one run
# (docs/frechet_benchmark.md): the whole `manifold-dp mean` command (process start and CSV reading included) and the
# library's in-memory call against the peers' in-memory calls.
# Usage: scripts/bench_frechet_vs_peers.sh   (needs python3 with venv, and network access for pip)
#   SIZES (default "1000 10000 200000"): numbers of points; ROUNDS (default 3): rounds over all cases, the fastest
#   round of each case counting; REPEATS (default 5) and MIN_SECONDS (default 0.5): within a round, each tool is
#   timed at least REPEATS times and until its runs have taken MIN_SECONDS, the best run counting;
#   MANIFOLDS (default "spd2 spd3 s2 so3"): the cases; SEED (default 2021): base seed of the data sets;
#   KEEP_JSON (default unset): a file to copy the graded JSON lines to; NUMPY_SPEC (default "numpy<2.4"): see
#   below; EPSILON (default 1): the command's budget.
# Data (scripts/frechet_peers.py gen): S² uniform within the geodesic ball of radius π/8 around the north pole
# (polar angle uniform in [0, π/8]); SO(3) within π/8 of the identity (angle uniform in [0, π/8], axis uniform),
# as quaternions w,x,y,z; SPD(2) and SPD(3) from the Wishart W(I/k, df = k), kept if ρ(X, I) < 1.5. One CSV per
# case, with the header the CLI reads by default.
# Tools, on the same CSV files:
# - `target/release/manifold-dp mean` (built here), the whole command as a subprocess: sphere:3 --center 0,0,1
#   --radius 22.5deg; so3 --center identity --radius 22.5deg; spd:K --center identity --radius 1.5; --epsilon 1
#   --json; the command prints only its private release, so the Karcher mean it computes is graded through
#   crates/manifold-dp-arrow/examples/mean_fit.rs (the same call, MeanPlan::fit, on the same rows, untimed);
# - crates/manifold-dp/examples/frechet_bench.rs, the library in memory: from the first point (geomstats' start)
#   at the default tolerance (gradient norm ≤ 1e-12) and at 1e-14, and from the extrinsic mean (the library's own
#   start, as in the command) at 1e-12;
# - geomstats FrechetMean (Hypersphere(dim=2) / SpecialOrthogonal(n=3, point_type="vector") / SPDMatrices(n=k),
#   affine-invariant metric) and pyriemann mean_riemann (SPD only) at their defaults, and each peer again with its
#   tolerance set to match our default ("matched" rows).
# Every mean is graded by the same numpy code in scripts/frechet_peers.py: the Riemannian gradient norm
# ‖(1/n) Σ log_m x_i‖ and the distance to a reference mean that script computes.
# geomstats, pyriemann, numpy and scipy are installed into a throwaway venv under a temporary directory, removed
# at the end. NumPy is pinned below 2.4 because geomstats 2.8.0's numpy backend imports numpy.trapz, which
# NumPy 2.4 removed (ImportError at `import geomstats.backend`). Every tool runs on one core (taskset -c 0 when
# available, the command included; BLAS/OpenMP threads pinned to 1) and times wall-clock time
# (std::time::Instant, time.perf_counter; the command from its spawn to its exit).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-"1000 10000 200000"}
ROUNDS=${ROUNDS:-3}
REPEATS=${REPEATS:-5}
MIN_SECONDS=${MIN_SECONDS:-0.5}
SEED=${SEED:-2021}
NUMPY_SPEC=${NUMPY_SPEC:-"numpy<2.4"}
EPSILON=${EPSILON:-1}
read -r -a MANIFOLDS <<< "${MANIFOLDS:-spd2 spd3 s2 so3}"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMEXPR_NUM_THREADS=1 VECLIB_MAXIMUM_THREADS=1
export PYTHONWARNINGS=ignore::DeprecationWarning MPLBACKEND=Agg
PIN=()
if command -v taskset > /dev/null && taskset -c 0 true 2> /dev/null; then PIN=(taskset -c 0); fi

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
export MPLCONFIGDIR="$TMP/mpl"

echo "installing geomstats, pyriemann, numpy, scipy into a throwaway venv ($TMP/venv)..." >&2
python3 -m venv "$TMP/venv"
"$TMP/venv/bin/pip" install -q --disable-pip-version-check geomstats pyriemann "$NUMPY_SPEC" scipy >&2
PY="$TMP/venv/bin/python"
"$PY" - >&2 << 'PY'
import sys, importlib.metadata as md
print("python " + sys.version.split()[0] + ", " + ", ".join(
    f"{p} {md.version(p)}" for p in ("geomstats", "pyriemann", "numpy", "scipy", "scikit-learn")))
PY

echo "building the examples frechet_bench and mean_fit and the manifold-dp command (release)..." >&2
cargo build --release -q -p manifold-dp --example frechet_bench
cargo build --release -q -p manifold-dp-arrow --example mean_fit
cargo build --release -q -p manifold-dp-cli --bin manifold-dp
BENCH=target/release/examples/frechet_bench
FIT=target/release/examples/mean_fit
CLI=target/release/manifold-dp
echo "$(rustc --version)" >&2

echo "generating data (seed base $SEED)..." >&2
mkdir -p "$TMP/data" "$TMP/out"
seed=$SEED
for m in "${MANIFOLDS[@]}"; do
  for n in $SIZES; do
    "$PY" scripts/frechet_peers.py gen --manifold "$m" --n "$n" --seed "$seed" --out "$TMP/data/$m-$n.csv" --header
    seed=$((seed + 1))
  done
done

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round of $ROUNDS..." >&2
  for m in "${MANIFOLDS[@]}"; do
    for n in $SIZES; do
      data="$TMP/data/$m-$n.csv"
      ours="$TMP/out/ours-$m-$n-$round.jsonl"
      "${PIN[@]}" "$BENCH" "$m" "$data" --repeats "$REPEATS" --min-seconds "$MIN_SECONDS" > "$ours"
      "${PIN[@]}" "$BENCH" "$m" "$data" --repeats "$REPEATS" --min-seconds "$MIN_SECONDS" --tolerance 1e-14 >> "$ours"
      "${PIN[@]}" "$BENCH" "$m" "$data" --repeats "$REPEATS" --min-seconds "$MIN_SECONDS" --start euclidean >> "$ours"
      "${PIN[@]}" "$PY" scripts/frechet_peers.py command --cli "$CLI" --fit "$FIT" --manifold "$m" --data "$data" \
        --repeats "$REPEATS" --min-seconds "$MIN_SECONDS" --epsilon "$EPSILON" >> "$ours"
      "${PIN[@]}" "$PY" scripts/frechet_peers.py run --manifold "$m" --data "$data" --repeats "$REPEATS" \
        --min-seconds "$MIN_SECONDS" --matched --ours "$ours" > "$TMP/out/graded-$m-$n-$round.jsonl"
    done
  done
done

graded=()
for m in "${MANIFOLDS[@]}"; do
  for n in $SIZES; do
    for round in $(seq 1 "$ROUNDS"); do graded+=("$TMP/out/graded-$m-$n-$round.jsonl"); done
  done
done
if [ -n "${KEEP_JSON:-}" ]; then cat "${graded[@]}" > "$KEEP_JSON"; fi
echo "CPU: $(lscpu 2> /dev/null | sed -n 's/^Model name: *//p'), $(nproc --all) cores, one thread per tool;" \
  "load average: $(cut -d' ' -f1-3 /proc/loadavg 2> /dev/null)" >&2
"$PY" scripts/frechet_peers.py table "${graded[@]}"
