"""Private releases of Spark DataFrames, through ``mapInArrow`` and the same native core as everything else.

Spark recomputes: a lazy DataFrame is evaluated again on every action, failed tasks are retried, speculative
tasks run twice. With ordinary random noise each recomputation would be a new, independent release of the
same rows. Here a row's noise is a function of (a fresh secret key drawn on the driver for this call, the
row's ``id_column`` value, the row's input values): collecting twice, retrying a task or repartitioning gives
bit-identical rows, a row whose input changed between two actions draws fresh noise, and two calls give
independent releases. The key travels only inside the task closure; it is never logged or
written.

>>> from manifold_dp import spark as mdps
>>> out = mdps.privatize(df, space="so3", mechanism="laplace", epsilon=1.0,
...                      columns=["w", "x", "y", "z"], format="quat-wxyz", id_column="id")

``out`` is a lazy DataFrame with ``df``'s schema. With ``ledger=`` and ``dataset=`` the release is checked and
charged once, on the driver, before the DataFrame is returned: further actions on it cost nothing more (they
are the same release).

:func:`mean` releases the private Fréchet mean of a distributed table in a few Spark jobs (per-partition fits
for a start, then Newton steps of per-partition tangent-space sums, added on the driver in partition order);
the noise is drawn once, on the driver, when the iteration has converged.

>>> res = mdps.mean(df, space="latlon", center=[45.0, 10.0], radius="300km", epsilon=1.0,
...                 columns=["lat", "lon"], outside="clip")
>>> res.mean, res.guarantee, res.clipped
"""

from __future__ import annotations

import json
import warnings
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa

from . import _native
from ._api import (
    Ledger,
    MeanResult,
    Mechanism,
    _charge_plan,
    _distance_text,
    _mean_plan,
    _mean_provenance,
    _mean_result,
    _release_mean,
)
from ._seed import experiment_seed
from .errors import BadInputError

__all__ = ["mean", "privatize"]


def _preflight(df: Any, module: str = "manifold_dp._native") -> None:
    """Runs a tiny Spark job that imports the package (``module``) on the executors, before any ledger charge: a
    release whose workers cannot run it must fail before its budget is spent."""
    sc = df.sparkSession.sparkContext

    def probe(_: Any) -> Iterator[str]:
        import importlib

        yield importlib.import_module(module).__name__

    try:
        sc.parallelize([0], 1).mapPartitions(probe).collect()
    except Exception as e:  # noqa: BLE001 - any failure of the job is the answer
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        raise RuntimeError(
            "the Spark executors cannot import manifold_dp, so nothing was released and the ledger was not charged: "
            "point them at a Python that has manifold-dp installed (set PYSPARK_PYTHON to it before the session "
            "starts, locally as on a cluster, or spark.pyspark.python / spark.executorEnv.PYSPARK_PYTHON); "
            f"the job said: {first}"
        ) from None


def _check_ids(df: Any, id_column: str) -> None:
    """Every row has an id, and no id appears twice (two rows with one id would get the same noise)."""
    from pyspark.sql import functions as F

    if id_column not in df.columns:
        raise BadInputError(f"no id column {id_column!r}; the columns are: {df.columns}", column=id_column)
    kind = df.schema[id_column].dataType.typeName()
    if kind not in ("byte", "short", "integer", "long", "string"):
        raise BadInputError(
            f"id column {id_column!r} holds {kind}; ids must be integers or strings (a natural key such as a code, "
            "or monotonically_increasing_id())",
            column=id_column,
        )
    if df.filter(F.col(id_column).isNull()).limit(1).count():
        raise BadInputError(f"id column {id_column!r} has null ids; every row needs one", column=id_column)
    dup = df.groupBy(id_column).count().filter(F.col("count") > 1).limit(5).collect()
    if dup:
        ids = [r[id_column] for r in dup]
        raise BadInputError(
            f"id column {id_column!r} repeats the ids {ids}; ids must be distinct, or two rows would get the "
            "same noise",
            column=id_column,
        )


def privatize(
    df: Any,
    *,
    space: str,
    mechanism: str,
    epsilon: Optional[float] = None,
    protect: Optional[str] = None,
    level: Optional[float] = None,
    snap: Optional[str] = None,
    bounds: Optional[Tuple[float, float]] = None,
    clamp_releases: bool = False,
    columns: Sequence[str],
    format: Optional[str] = None,
    id_column: str,
    seed: Optional[int] = None,
    ledger: Optional[Ledger] = None,
    dataset: Optional[str] = None,
    request_id: Optional[str] = None,
    allow_unbudgeted: bool = False,
    check_ids: bool = True,
) -> Any:
    """A lazy DataFrame with ``df``'s schema whose value ``columns`` are privatized row by row (spaces,
    mechanisms, budgets and formats as in :class:`manifold_dp.Mechanism`); every other column unchanged.

    ``id_column`` (integers or strings, distinct, non-null; checked with two Spark jobs unless
    ``check_ids=False``) keys each row's noise. A row that is not a point fails the job with an error naming
    its id and column. ``seed`` (an integer) replaces the secret key, for experiments only: it warns, and with
    ``ledger=`` it is refused. ``snap`` rounds releases onto a coarser public grid at no cost, as in
    :class:`manifold_dp.Mechanism`. On ``space="real"`` give ``bounds=(lo, hi)``: every value is clamped into
    them and each row is pure ε-DP (``clamp_releases=True`` clamps the released values too). Ids may be natural
    keys such as an airport code; a row's noise is keyed by (the call's key, its id, its input values), so a row
    whose values change between two actions draws fresh noise (materialise the input once: ``docs/spark.md``).
    """
    seed = experiment_seed(seed, ledger is not None)
    cols = list(columns)
    values = len(cols) if bounds is not None else 1
    mech = Mechanism(space, mechanism, epsilon, protect=protect, level=level, snap=snap, bounds=bounds,
                     values=values, clamp_releases=clamp_releases)
    missing = [c for c in cols if c not in df.columns]
    if missing:
        raise BadInputError(f"no column {missing[0]!r}; the columns are: {df.columns}", column=missing[0])
    if (ledger is None) != (dataset is None):
        raise BadInputError("ledger= and dataset= go together")
    if check_ids:
        _check_ids(df, id_column)
    # Numbers are released as doubles: other numeric value columns are cast first (text stays text).
    casts = {
        c: df[c].cast("double")
        for c in cols
        if df.schema[c].dataType.typeName() in ("byte", "short", "integer", "long", "float", "decimal")
    }
    if casts:
        df = df.withColumns(casts)
    # The executors rebuild the mechanism from its parameters (validated above on the driver).
    b = None if bounds is None else (float(bounds[0]), float(bounds[1]))
    params = (space, mechanism, epsilon, protect, level, None, snap, b, values, bool(clamp_releases))
    key = None if seed is not None else _native.fresh_key()
    schema = df.schema

    def release(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        native = _native.Mechanism(*params)
        for batch in batches:
            if batch.num_rows == 0:
                yield batch
                continue
            out, rejected = native.privatize_batch(batch, format, cols, None, seed, key, 0, id_column)
            if rejected:
                row, column, reason = rejected[0]
                row_id = batch.column(id_column)[row].as_py()
                raise ValueError(f"{id_column} = {row_id}" + (f", column {column!r}" if column else "") + f": {reason}")
            yield out

    if ledger is not None:
        assert dataset is not None
        # Checked, then the executors shown able to run the release, then charged once, here, before any row can
        # be written: every later action is the same release.
        charge = ledger._prepare(dataset, mech._provenance("spark privatize", cols, "spark DataFrame"),
                                 mech.guarantee, request_id, allow_unbudgeted)
        _preflight(df)
        charge.record(mech.guarantee)
    return df.mapInArrow(release, schema)


def _partition() -> int:
    """The running task's partition (inside a Spark task only)."""
    from pyspark import TaskContext

    context = TaskContext.get()
    assert context is not None, "called outside a Spark task"
    return context.partitionId()


# One row per partition and Karcher step: its pass (see ``_native.MeanPlan.run_pass``), and where its first
# unusable row is.
_PASS_SCHEMA = pa.schema(
    [
        ("part", pa.int32()),
        ("sum", pa.list_(pa.float64())),
        ("used", pa.int64()),
        ("dropped", pa.int64()),
        ("clipped", pa.int64()),
        ("row", pa.int64()),
        ("col", pa.string()),
        ("reason", pa.string()),
        ("ident", pa.string()),
        ("depth", pa.int64()),
        ("hessian", pa.list_(pa.float64())),
        ("rows", pa.int64()),
    ]
)
_PASS_DDL = ("part int, sum array<double>, used long, dropped long, clipped long, row long, col string, "
             "reason string, ident string, depth long, hessian array<double>, rows long")
# The most rows of a partition its exact mean is fitted on for the start (the first pass): the start needs
# no exactness, only closeness, and the rows are held in memory for it.
_START_ROWS = 1_000_000


def mean(
    df: Any,
    *,
    space: str,
    center: Any = None,
    radius: Union[float, str, None] = None,
    epsilon: Optional[float] = None,
    columns: Sequence[str],
    mechanism: str = "laplace",
    mu: Optional[float] = None,
    delta: Optional[float] = None,
    format: Optional[str] = None,
    outside: str = "error",
    conditioning: str = "auto",
    metric: str = "affine",
    bounds: Any = None,
    id_column: Optional[str] = None,
    seed: Optional[int] = None,
    ledger: Optional[Ledger] = None,
    dataset: Optional[str] = None,
    request_id: Optional[str] = None,
    allow_unbudgeted: bool = False,
) -> "MeanResult[Any]":
    """The private Fréchet mean of the rows of a Spark DataFrame, with the arguments, guarantee and result of
    :func:`manifold_dp.mean` (``outside="error"|"drop"|"clip"``; ``.dropped`` and ``.clipped`` count the rows
    outside the ball). ``mechanism="gaussian"`` with ``mu=`` (or ``epsilon=`` with ``delta=``) releases the
    Gaussian mean where :func:`manifold_dp.mean` does (spheres, so3, spd:K): μ-GDP, ``{"notion": "gdp", "mu": μ}``
    (with the δ it states), charged to a ledger as there.

    The mean takes a few Spark jobs over the rows. The first fits each partition's own mean roughly (on up to a
    million of its rows: their extrinsic mean and one Newton step); their average, weighted by rows, is the
    start. Each later job is one Newton step
    (spheres, SO(3); a gradient step on SPD): every partition sums log_base(x) and its Hessian over its rows,
    and the driver adds the sums in partition order and steps, until the certified stop test holds (usually
    the second or third step). The value columns are cached for the iteration and released after.
    The noise is drawn once, on the driver; with ``ledger=`` and ``dataset=`` the release is checked before the
    first job and charged once, on the driver. A row that is not a point (or, with ``outside="error"``, lies
    outside the ball) stops it with an error naming the row by ``id_column`` when given, else by partition.
    """
    from pyspark import StorageLevel

    seed = experiment_seed(seed, ledger is not None)
    cols = list(columns)
    missing = [c for c in cols + ([id_column] if id_column else []) if c not in df.columns]
    if missing:
        raise BadInputError(f"no column {missing[0]!r}; the columns are: {df.columns}", column=missing[0])
    # Which budget goes with which mechanism is the core's rule (mdp.mean's and the command line's too).
    noise = _native.MeanNoise(mechanism, epsilon, delta, mu, conditioning)
    _charge_plan(ledger, dataset)
    # The executors rebuild the plan from the same native arguments (validated here, on the driver).
    # A space without the mechanism's sampler is refused before the ledger is touched (the core's request).
    plan, args = _mean_plan(space, center, radius, outside, format, cols, metric, bounds, noise=noise)
    charge = None
    if ledger is not None:
        assert dataset is not None
        what = _mean_provenance("spark mean", space, center, radius, bounds, noise.epsilon, outside, cols,
                                "spark DataFrame", mu=noise.mu)
        charge = ledger._prepare(dataset, what, json.loads(plan.guarantee_for(noise)), request_id,
                                 allow_unbudgeted)
        _preflight(df)
    # The value columns are cached for the passes, unless the table already is (caching it again costs a copy).
    cached = df.storageLevel.useMemory or df.storageLevel.useDisk
    data = df.select(*(cols + ([id_column] if id_column else [])))
    if not cached:
        data = data.persist(StorageLevel.MEMORY_AND_DISK)

    def check(over: int) -> None:
        # Refusals and warnings that depend only on the rows the mean is over, the radius and the budget come
        # before the Karcher passes (the core's rule and wording, as mdp.mean's).
        for note in plan.check_rows(over, noise, _distance_text(radius) or ""):
            warnings.warn(note, UserWarning, stacklevel=4)

    def local_fit(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        # The partition's rows (with outside="drop" those in the ball, by the fit's own placement; a row that is
        # not a point is not counted: the passes name it), counted while the batches stream past, and its exact
        # mean on its first rows, for the start; a partition with an unusable row offers no mean.
        native = _native.MeanPlan(*args)
        kept: List[pa.RecordBatch] = []
        rows, over = 0, 0
        for batch in batches:
            if not batch.num_rows:
                continue
            over += native.count_inside([batch]) if outside == "drop" else batch.num_rows
            if rows < _START_ROWS:
                kept.append(batch)
                rows += batch.num_rows
        record: Dict[str, Any] = {"part": _partition(), "rows": over}
        if kept:
            try:
                at, p = native.fit(kept, True)
            except ValueError:
                p = None
            if p is not None and p[4] is None and p[1] > 0:
                record.update({"sum": at, "used": p[1]})
        yield pa.RecordBatch.from_pylist([record], _PASS_SCHEMA)

    def start() -> List[float]:
        # One job: the rows counted for the checks, then the start from the partitions' fits.
        if space == "real":
            check(sum(r["rows"] for r in data.mapInArrow(count_rows, _PASS_DDL).collect()))
            return plan.start()
        records = data.mapInArrow(local_fit, _PASS_DDL).collect()
        check(sum(r["rows"] for r in records))
        fits = sorted((r for r in records if r["sum"] is not None), key=lambda r: r["part"])
        return plan.start_from([(list(r["sum"]), r["used"]) for r in fits])

    def count_rows(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        # The real line's start needs no fit: its rows (in the bounds, with outside="drop") alone.
        native = _native.MeanPlan(*args)
        over = sum(native.count_inside([b]) if outside == "drop" else b.num_rows for b in batches if b.num_rows)
        yield pa.RecordBatch.from_pylist([{"part": _partition(), "rows": over}], _PASS_SCHEMA)

    def run(base: List[float], newton: bool) -> Any:
        def partial(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            native = _native.MeanPlan(*args)
            part = _partition()
            passes = []
            offset = 0
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                p = native.run_pass(batch, base, newton)
                if p[4] is not None:
                    row, column, reason = p[4]
                    ident = str(batch.column(id_column)[row].as_py()) if id_column else None
                    yield pa.RecordBatch.from_pylist(
                        [{"part": part, "row": offset + row, "col": column, "reason": reason, "ident": ident}],
                        _PASS_SCHEMA,
                    )
                    return
                passes.append(p)
                offset += batch.num_rows
            total, used, dropped, clipped, _, depth, hessian = _native.MeanPlan.merge(passes)
            yield pa.RecordBatch.from_pylist(
                [{"part": part, "sum": total, "used": used, "dropped": dropped, "clipped": clipped, "depth": depth,
                  "hessian": hessian}],
                _PASS_SCHEMA,
            )

        rows = sorted(data.mapInArrow(partial, _PASS_DDL).collect(), key=lambda r: r["part"])
        for r in rows:
            if r["reason"] is not None:
                where = f"{id_column} = {r['ident']}" if id_column else f"partition {r['part']}, row {r['row']}"
                col = f", column {r['col']!r}" if r["col"] else ""
                raise BadInputError(f"{where}{col}: {r['reason']}", column=r["col"])
        return _native.MeanPlan.merge(
            [(list(r["sum"]) if r["sum"] is not None else None, r["used"], r["dropped"], r["clipped"], None,
              r["depth"] or 0, list(r["hessian"]) if r["hessian"] is not None else None)
             for r in rows]
        )

    try:
        base, iterations = start(), 0
        # The Hessian steers Newton steps; once a step was tiny, the next pass most likely only certifies the
        # stop, and a gradient step would do if it does not: that pass skips the Hessian's work.
        newton = True
        while True:
            summed = run(base, newton)
            converged, following = plan.step(base, summed, iterations)
            if converged:
                break
            newton = float(np.linalg.norm(np.subtract(following, base))) > 1e-6
            base, iterations = following, iterations + 1
    finally:
        if not cached:
            data.unpersist()
    _, used, dropped, clipped, _, _, _ = summed
    out = _release_mean(space, plan, base, (used, dropped, clipped), noise.epsilon, conditioning, seed, charge,
                        noise=noise)
    m: Any = np.asarray(out["mean"], dtype=np.float64)
    if space.startswith("spd:"):
        k = int(space.split(":", 1)[1])
        m = m.reshape(k, k)
    elif space in ("circle", "timeofday") or (space == "real" and len(cols) == 1):
        m = float(m[0])
    return _mean_result(out, m, space)
