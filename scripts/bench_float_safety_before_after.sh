#!/usr/bin/env bash
# Speed target, measured in one run: releases per second of SO(3) Laplace and Bingham and S² VMF and
# Purkayastha (ε = 1, one thread, ChaCha12, 2·10⁶ draws, best of three), one point per call (`privatize`) and in
# batches of 4096 (`privatize_slice`, the path of the criterion benches, the CLI and Python), at the commit before float-safe releases
# (fbbab2d^, where `privatize` was the raw f64 pipeline), then this tree's `float_safety_cost` example (the raw
# pipeline of today and the float-safe release). Both pinned to one core (taskset -c 0 when available).
# Usage: scripts/bench_float_safety_before_after.sh   (builds the old commit in a temporary worktree, ~2 min)
#   END_TO_END=1 also times `manifold-dp privatize` end to end as scripts/bench_privatize.sh runs it (a Parquet
#   file of ROWS rotations, default 10⁷, with an id and a timestamp column; both threads; best of three runs
#   each) with the old commit's command and this tree's: CSV `mechanism,epsilon,before_s,now_s,now_over_before`
#   (throughput now / before; the old command is built too, ~6 more minutes).
set -euo pipefail
cd "$(dirname "$0")/.."
BASE=fbbab2d^
PIN=()
if command -v taskset > /dev/null && taskset -c 0 true 2> /dev/null; then PIN=(taskset -c 0); fi
TMP=$(mktemp -d)
trap 'git worktree remove --force "$TMP/old" > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
git worktree add -q --detach "$TMP/old" "$BASE"
cat > "$TMP/old/crates/manifold-dp/examples/before_float_safety.rs" << 'RS'
use manifold_dp::mechanism::{BinghamSo3, LaplaceSo3, Mechanism, PurkayasthaSphere, VmfSphere};
use manifold_dp::sample::rng::seeded_rng_for_experiments;
use nalgebra::{DVector, UnitQuaternion, Vector3};
use std::hint::black_box;
use std::time::Instant;

// The same loop as float_safety_cost's `rate` and `compare`, on `privatize` as it was (the raw pipeline).
fn rate(n: usize, mut draw: impl FnMut()) -> f64 {
    (0..3)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..n {
                draw();
            }
            n as f64 / start.elapsed().as_secs_f64()
        })
        .fold(0.0, f64::max)
}

fn one<M: Mechanism>(name: &str, m: &M, x: M::Point, n: usize) {
    let mut rng = seeded_rng_for_experiments(1);
    let r = rate(n, || {
        black_box(m.privatize(black_box(&x), &mut rng));
    });
    println!("{name},{r:.0}");
}

// The criterion benches' batch path: `privatize_slice` on batches of 4096 copies of the point.
fn batch<M: Mechanism>(name: &str, m: &M, x: M::Point, n: usize)
where
    M::Point: Clone,
{
    let mut rng = seeded_rng_for_experiments(1);
    let inputs = vec![x; 4096];
    let mut buf = inputs.clone();
    let r = rate(n / 4096, || {
        buf.clone_from_slice(&inputs);
        m.privatize_slice(black_box(&mut buf), &mut rng);
    }) * 4096.0;
    println!("{name},{r:.0}");
}

fn main() {
    let n = 2_000_000;
    let q = UnitQuaternion::from_scaled_axis(Vector3::new(0.3, -0.2, 0.9));
    let v = DVector::from_vec(vec![0.6, 0.8, 0.0]);
    println!("mechanism,before_float_safety_per_sec");
    one("laplace-so3", &LaplaceSo3::new(1.0).unwrap(), q, n);
    one("bingham-so3", &BinghamSo3::new(1.0).unwrap(), q, n);
    one("vmf-s2", &VmfSphere::new(3, 1.0).unwrap(), v.clone(), n);
    one("purkayastha-s2", &PurkayasthaSphere::new(3, 1.0).unwrap(), v.clone(), n);
    println!("mechanism,before_float_safety_batch_per_sec");
    batch("laplace-so3", &LaplaceSo3::new(1.0).unwrap(), q, n);
    batch("bingham-so3", &BinghamSo3::new(1.0).unwrap(), q, n);
    batch("vmf-s2", &VmfSphere::new(3, 1.0).unwrap(), v.clone(), n);
    batch("purkayastha-s2", &PurkayasthaSphere::new(3, 1.0).unwrap(), v, n);
}
RS
echo "building $BASE (before float safety) and this tree..." >&2
(cd "$TMP/old" && CARGO_TARGET_DIR="$TMP/target" cargo build --release -q -p manifold-dp --example before_float_safety)
cargo build --release -q -p manifold-dp --example float_safety_cost
echo "CPU: $(lscpu 2> /dev/null | sed -n 's/^Model name: *//p'); load average: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
"${PIN[@]}" "$TMP/target/release/examples/before_float_safety"
"${PIN[@]}" target/release/examples/float_safety_cost
if [ "${END_TO_END:-0}" = 1 ]; then
  ROWS=${ROWS:-10000000}
  (cd "$TMP/old" && CARGO_TARGET_DIR="$TMP/target" cargo build --release -q -p manifold-dp-cli --bin manifold-dp)
  cargo build --release -q -p manifold-dp-cli --bin manifold-dp --example gen_rotations_parquet
  target/release/examples/gen_rotations_parquet "$ROWS" "$TMP/in.parquet"
  best() { # seconds of the fastest of three runs of `privatize` with the command $1 and mechanism $2, ε $3
    for _ in 1 2 3; do
      sync
      /usr/bin/time -f "%e" -o "$TMP/time" "$1" privatize --quiet --force --mechanism "$2" --epsilon "$3" \
        --input "$TMP/in.parquet" --output "$TMP/out.parquet"
      cat "$TMP/time"
    done | sort -g | head -1
  }
  echo "mechanism,epsilon,before_s,now_s,now_over_before"
  for mech in "laplace 1" "laplace 8" "bingham 1"; do
    set -- $mech
    before=$(best "$TMP/target/release/manifold-dp" "$1" "$2")
    now=$(best target/release/manifold-dp "$1" "$2")
    awk -v m="$1" -v e="$2" -v b="$before" -v n="$now" 'BEGIN { printf "%s,%s,%.2f,%.2f,%.2f\n", m, e, b, n, b / n }'
  done
fi
