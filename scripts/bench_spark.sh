#!/usr/bin/env bash
# Spark local[2]: manifold_dp.spark.privatize against an identity mapInArrow pass over the same 4 M rows, and the
# CLI on the same rows (the speed item), in one run. Needs python3 with pip and Java 17.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-4000000}
venv=target/bench-spark-venv
[ -x "$venv/bin/python" ] || { python3 -m venv "$venv"; "$venv/bin/python" -m pip install --quiet "pyspark>=3.5"; }
"$venv/bin/python" -m pip install --quiet "./python[spark]"
cargo build --release --quiet -p manifold-dp-cli
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
spark=$("$venv/bin/python" scripts/bench_spark.py "$n" "$dir/rows.parquet")
best=inf
for _ in 1 2 3; do
  start=$(date +%s.%N)
  target/release/manifold-dp privatize --input "$dir/rows.parquet" --output "$dir/out.parquet" --space so3 \
    --mechanism laplace --epsilon 1 --threads 2 --quiet --force
  t=$(echo "$(date +%s.%N) - $start" | bc)
  best=$(python3 -c "print(min(float('$best'), $t))")
done
python3 - "$spark" "$best" "$n" <<'PY'
import json, sys
spark, cli, n = json.loads(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
spark["cli_seconds"] = cli
spark["cli_rows_per_second"] = n / cli
print(json.dumps(spark, indent=1))
PY
