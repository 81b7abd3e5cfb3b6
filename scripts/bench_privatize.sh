#!/usr/bin/env bash
# End-to-end throughput and peak memory of `manifold-dp privatize` on Parquet quat-wxyz files with an id and a
# timestamp column, at 10 M and 100 M rows (docs/benchmarks.md). Needs ~9 GB of free disk in $WORK.
# Usage: scripts/bench_privatize.sh [ROWS...]   (default: 10000000 100000000)
# Output: one CSV line per run. Time includes writing the output (into the page cache; this machine's disk
# sustains about 316 MB/s, i.e. 8 M rows/s of this table, so at 100 M rows the disk starts to matter).
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-$(mktemp -d)}
mkdir -p "$WORK"

ROWS=("$@")
[[ $# -eq 0 ]] && ROWS=(10000000 100000000)
cargo build --release -q -p manifold-dp-cli --bin manifold-dp --example gen_rotations_parquet
BIN=target/release/manifold-dp
GEN=target/release/examples/gen_rotations_parquet
echo "rows,mechanism,epsilon,seconds,rows_per_s,peak_rss_mib,input_mib"
for n in "${ROWS[@]}"; do
  in="$WORK/in_$n.parquet"
  [[ -f $in ]] || "$GEN" "$n" "$in"
  for mech in "laplace 1" "laplace 8" "bingham 1"; do
    set -- $mech
    out="$WORK/out_$n.parquet"
    # Start each run with no dirty pages: writeback of an earlier file would compete for the disk.
    sync
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$BIN" privatize --quiet --force --mechanism "$1" --epsilon "$2" \
      --input "$in" --output "$out"
    read -r secs kib < "$WORK/time"
    awk -v n="$n" -v m="$1" -v e="$2" -v s="$secs" -v k="$kib" -v sz="$(stat -c %s "$in")" \
      'BEGIN { printf "%d,%s,%s,%.2f,%.0f,%.0f,%.0f\n", n, m, e, s, n / s, k / 1024, sz / 1048576 }'
    rm -f "$out"
  done
done
[[ -n ${KEEP:-} ]] || rm -rf "$WORK"
