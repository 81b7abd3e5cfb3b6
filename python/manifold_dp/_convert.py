"""Turning what users hold (numpy arrays, scipy Rotations, pandas frames, pyarrow tables) into Arrow batches
for the native core, and the results back into the same kind of object. No mathematics here."""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence, Tuple

import numpy as np
import pyarrow as pa

from .errors import BadInputError

# The width of one row of each space in a numpy array, and the format a bare array is read in.
_SO3_WIDTH = {"quat-wxyz": 4, "quat-xyzw": 4, "rotvec": 3, "matrix": 9}


def _so3_width(fmt: str) -> int:
    if fmt in _SO3_WIDTH:
        return _SO3_WIDTH[fmt]
    if fmt.startswith("euler:"):
        return 3
    raise BadInputError(f"unknown rotation format {fmt!r}: use quat-wxyz, quat-xyzw, rotvec, matrix or euler:SEQ[:deg]")


def array_width(space: str, fmt: Optional[str], shape: Tuple[int, ...]) -> Tuple[int, Optional[str]]:
    """The number of values per row for ``space`` and the codec format, checking the array's shape."""
    if space == "so3":
        if len(shape) == 3 and shape[1:] == (3, 3):
            if fmt not in (None, "matrix"):
                raise BadInputError(f"an (n, 3, 3) array holds rotation matrices, not {fmt!r}")
            return 9, "matrix"
        if fmt is None:
            raise BadInputError(
                "a bare rotation array needs format=: 'quat-xyzw' (scipy's order), 'quat-wxyz', 'rotvec', "
                "'matrix' or 'euler:SEQ[:deg]'; the order is never guessed"
            )
        width = _so3_width(fmt)
    elif space in ("circle", "timeofday"):
        width = 1
    elif space == "latlon":
        width = 2
    elif space.startswith("sphere:"):
        width = int(space.split(":", 1)[1])
    elif space == "real":
        width = shape[1] if len(shape) == 2 else 1
    elif space.startswith("spd:"):
        k = int(space.split(":", 1)[1])
        if len(shape) == 3 and shape[1:] == (k, k):
            return k * k, fmt
        width = k * k
    else:
        raise BadInputError(f"unknown space {space!r}")
    ok = (len(shape) == 2 and shape[1] == width) or (width == 1 and len(shape) == 1)
    if not ok:
        want = "(n,)" if width == 1 else f"(n, {width})"
        raise BadInputError(f"space {space} needs an array of shape {want}, got {shape}")
    return width, fmt


def numeric(x: Any) -> np.ndarray:
    """``x`` as a float64 array, without copying when it already is one (any layout)."""
    arr = np.asarray(x)
    if arr.dtype.kind not in "fiu":
        raise BadInputError(f"values must be numbers, got an array of dtype {arr.dtype}")
    return arr.astype(np.float64, copy=False)


def names(width: int) -> List[str]:
    return [f"c{j}" for j in range(width)]


def array_to_batch(arr: np.ndarray, width: int) -> pa.RecordBatch:
    """One Arrow column per value of a row (a strided column is copied once, into Arrow)."""
    flat = arr.reshape(arr.shape[0], width) if arr.ndim > 1 else arr.reshape(-1, 1)
    # One transposing copy makes every column contiguous; Arrow then wraps each without copying.
    columns = np.ascontiguousarray(flat.T)
    return pa.RecordBatch.from_arrays([pa.array(columns[j]) for j in range(width)], names=names(width))


def is_rotation(x: Any) -> bool:
    try:
        from scipy.spatial.transform import Rotation
    except ImportError:  # pragma: no cover - scipy is optional
        return False
    return isinstance(x, Rotation)


def is_pandas(x: Any) -> bool:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is optional
        return False
    return isinstance(x, pd.DataFrame)


def table_batches(table: pa.Table) -> List[pa.RecordBatch]:
    return table.combine_chunks().to_batches() if table.num_rows else []


def over_batches(
    batches: Sequence[pa.RecordBatch], release: Callable[[pa.RecordBatch, int], pa.RecordBatch]
) -> List[pa.RecordBatch]:
    """Releases each batch with its first row's index (noise is keyed by row, so batching changes nothing)."""
    out, first = [], 0
    for b in batches:
        out.append(release(b, first))
        first += b.num_rows
    return out


def check_frame(frame: Any) -> None:
    """Refuses the pandas column layouts a table cannot hold, naming what to do: duplicate names, MultiIndex
    columns, names that are not text."""
    cols = frame.columns
    if getattr(cols, "nlevels", 1) > 1:
        raise BadInputError("the frame has MultiIndex columns; flatten them first, e.g. "
                            "df.columns = ['_'.join(map(str, c)) for c in df.columns]")
    bad = [c for c in cols if not isinstance(c, str)]
    if bad:
        raise BadInputError(f"column names must be text; the frame has {bad[0]!r}: rename the columns, e.g. "
                            "df.columns = [str(c) for c in df.columns]", column=None)
    seen = set()
    for c in cols:
        if c in seen:
            raise BadInputError(f"the frame has two columns named {c!r}; rename one so that each name is used once",
                                column=c)
        seen.add(c)
