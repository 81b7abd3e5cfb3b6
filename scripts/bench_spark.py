"""Spark on local[2]: privatizing N rotations (manifold_dp.spark.privatize) against the plainest job over the
same rows, an identity mapInArrow pass (privatization may add at most 43 %, i.e. the identity
pass's time / privatize's time >= 0.7). Both read the same cached DataFrame and end in the same action (the
`noop` sink, which computes every row and writes nothing); the best of three runs counts. Prints JSON.

It also times the distributed private mean (manifold_dp.spark.mean: a job of per-partition fits, then one job
per Newton step) on N rotations within 60° of the identity, beside the identity pass (the mean may
take at most 2.5 times as long) and the plainest aggregation over the same rows (a column average, one job).

Usage: python scripts/bench_spark.py N PARQUET_OUT (the rows are also written to PARQUET_OUT for the CLI).
"""

import json
import os
import sys
import time

from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from manifold_dp import spark as mdps

n, parquet_out = int(sys.argv[1]), sys.argv[2]
os.environ["PYSPARK_PYTHON"] = sys.executable
spark = (
    SparkSession.builder.master("local[2]")
    .config("spark.ui.enabled", "false")
    .config("spark.driver.memory", "6g")
    .getOrCreate()
)
spark.sparkContext.setLogLevel("ERROR")
# Random unit quaternions from Gaussian coordinates, computed once and cached.
g = [F.randn(seed) for seed in range(4)]
norm = F.sqrt(sum(c * c for c in g))
rows = (
    spark.range(n, numPartitions=8)
    .select("id", *[(c / norm).alias(name) for c, name in zip(g, ["w", "x", "y", "z"])])
    .cache()
)
rows.count()
# One Parquet file for the CLI.
rows.coalesce(1).write.mode("overwrite").parquet(parquet_out + ".d")
part = next(f for f in os.listdir(parquet_out + ".d") if f.endswith(".parquet"))
os.replace(os.path.join(parquet_out + ".d", part), parquet_out)


def identity(batches):
    yield from batches


def timed(make):
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        make().write.format("noop").mode("overwrite").save()
        best = min(best, time.perf_counter() - start)
    return best


plain = timed(lambda: rows.mapInArrow(identity, rows.schema))
private = timed(
    lambda: mdps.privatize(rows, space="so3", mechanism="laplace", epsilon=1.0, columns=["w", "x", "y", "z"],
                           format="quat-wxyz", id_column="id", check_ids=False)
)
# Rotations within 60° of the identity (small Gaussian rotation vectors, clipped by the mean if need be).
half = [F.randn(10 + seed) * 0.1 for seed in range(3)]
angle = F.sqrt(sum(c * c for c in half))
near = spark.range(n, numPartitions=8).select(
    "id", F.cos(angle).alias("w"), *[(c * F.sin(angle) / angle).alias(k) for c, k in zip(half, ["x", "y", "z"])]
).cache()
near.count()


def timed_action(action):
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


average = timed_action(lambda: near.agg(*[F.avg(c) for c in ["w", "x", "y", "z"]]).collect())
mean = timed_action(
    lambda: mdps.mean(near, space="so3", center="identity", radius="60deg", epsilon=1.0,
                      columns=["w", "x", "y", "z"], format="quat-wxyz", outside="clip")
)
print(json.dumps({
    "rows": n,
    "identity_map_in_arrow_seconds": plain,
    "privatize_seconds": private,
    "identity_over_privatize": plain / private,
    "privatize_rows_per_second": n / private,
    "column_average_seconds": average,
    "private_mean_seconds": mean,
    "private_mean_rows_per_second": n / mean,
    "private_mean_over_identity": mean / plain,
}))
spark.stop()
