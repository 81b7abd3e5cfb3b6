#!/usr/bin/env bash
# Throughput of `manifold-dp sample` writing CSV to a file (README, "sample"; the ≥ 10 M rows/s).
# Usage: [SPECS=…] [ROWS=…] scripts/bench_sample.sh [OLD_BINARY]
#   Times this tree's release binary, and OLD_BINARY (say, a copy built at an earlier commit) in turn with it,
#   three runs each, on 10⁷ rows (ROWS=…) per space and mechanism, into a file in $WORK (default: a temporary
#   directory beside the repository, on the same disk as a user's output would be). Says when the two binaries
#   wrote different bytes.
# Output: one line per run: space, mechanism, binary, wall seconds, rows/s, user and system CPU seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000000}
WORK=${WORK:-$(mktemp -d -p "$PWD/target")}
cargo build --release -q -p manifold-dp-cli --bin manifold-dp
BINS=("$PWD/target/release/manifold-dp")
[[ $# -ge 1 ]] && BINS=("$1" "${BINS[@]}")
echo "space,mechanism,binary,seconds,rows_per_s,user_s,sys_s"
# SPECS="space mechanism;…" picks other rows (say "so3 bingham;sphere:10 vmf").
IFS=';' read -r -a specs <<< "${SPECS:-so3 laplace;sphere:3 vmf;sphere:3 purkayastha;latlon purkayastha;circle purkayastha}"
for spec in "${specs[@]}"; do
  set -- $spec
  sums=()
  for bin in "${BINS[@]}"; do
    for _ in 1 2 3; do
      rm -f "$WORK/out.csv"
      # Start each run with no dirty pages: writeback of an earlier file would compete for the disk.
      sync
      /usr/bin/time -f "%e %U %S" -o "$WORK/time" "$bin" sample --space "$1" --mechanism "$2" --epsilon 1 \
        -n "$ROWS" --seed 5 --output "$WORK/out.csv" 2>/dev/null
      read -r secs user sys < "$WORK/time"
      awk -v s="$1" -v m="$2" -v b="$bin" -v t="$secs" -v u="$user" -v y="$sys" -v n="$ROWS" \
        'BEGIN { printf "%s,%s,%s,%.2f,%.1fM,%.2f,%.2f\n", s, m, b, t, n / t / 1e6, u, y }'
    done
    sums+=("$(md5sum < "$WORK/out.csv")")
  done
  # Different bytes are expected only where a change altered the releases on purpose; say so, and go on.
  [[ ${#sums[@]} -eq 1 || ${sums[0]} == "${sums[1]}" ]] || echo "$1 $2: the two binaries wrote different files" >&2
done
rm -rf "$WORK"
