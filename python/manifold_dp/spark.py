"""Private releases of Spark DataFrames, through ``mapInArrow`` and the same native core as everything else.

Spark recomputes: a lazy DataFrame is evaluated again on every action, failed tasks are retried, speculative
tasks run twice. With ordinary random noise each recomputation would be a new, independent release of the
same rows. Here a row's noise is a function of (a fresh secret key drawn on the driver for this call, the
row's ``id_column`` value): collecting twice, retrying a task or repartitioning gives bit-identical rows, and
two calls give independent releases. The key travels only inside the task closure; it is never logged or
written.

>>> from manifold_dp import spark as mdps
>>> out = mdps.privatize(df, space="so3", mechanism="laplace", epsilon=1.0,
...                      columns=["w", "x", "y", "z"], format="quat-wxyz", id_column="id")

``out`` is a lazy DataFrame with ``df``'s schema. With ``ledger=`` and ``dataset=`` the release is checked and
charged once, on the driver, before the DataFrame is returned: further actions on it cost nothing more (they
are the same release).
"""

from __future__ import annotations

from typing import Any, Iterator, Optional, Sequence

import pyarrow as pa

from . import _native
from ._api import Ledger, Mechanism
from .errors import BadInputError

__all__ = ["privatize"]


def _check_ids(df: Any, id_column: str) -> None:
    """Every row has an id, and no id appears twice (two rows with one id would get the same noise)."""
    from pyspark.sql import functions as F

    if id_column not in df.columns:
        raise BadInputError(f"no id column {id_column!r}; the columns are: {df.columns}", column=id_column)
    kind = df.schema[id_column].dataType.typeName()
    if kind not in ("byte", "short", "integer", "long"):
        raise BadInputError(
            f"id column {id_column!r} holds {kind}; ids must be integers (e.g. monotonically_increasing_id())",
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

    ``id_column`` (integers, distinct, non-null; checked with two Spark jobs unless ``check_ids=False``)
    keys each row's noise. A row that is not a point fails the job with an error naming its id and column.
    ``seed`` replaces the secret key, for experiments only. ``snap`` rounds releases onto a coarser public grid
    at no cost, as in :class:`manifold_dp.Mechanism`.
    """
    mech = Mechanism(space, mechanism, epsilon, protect=protect, level=level, snap=snap)
    cols = list(columns)
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
    params = (space, mechanism, epsilon, protect, level, None, snap)
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
        # Charged once, here, before any row can be written: every later action is the same release.
        ledger._check(dataset, mech.guarantee, request_id, allow_unbudgeted)
        ledger._record(dataset, f"spark privatize {space} {mechanism}", mech.guarantee, request_id, allow_unbudgeted)
    return df.mapInArrow(release, schema)
