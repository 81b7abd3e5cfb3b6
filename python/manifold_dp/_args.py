"""Arguments checked for their type before anything else reads them, so that a wrong type is reported with the
argument's name (``TypeError``), never as a formatting or attribute error from deep inside."""

from __future__ import annotations

from numbers import Real
from typing import Any, List, Optional, Sequence, Tuple


def _kind(v: Any) -> str:
    return type(v).__name__


def number(name: str, v: Any) -> Optional[float]:
    """``v`` as a float, or ``None``; a bool or anything that is not a real number is refused."""
    if v is None:
        return None
    if isinstance(v, bool) or not isinstance(v, Real):
        raise TypeError(f"{name}={v!r}: give a number, not {_kind(v)}")
    return float(v)


def integer(name: str, v: Any) -> int:
    """``v`` as an int; a bool, a float or text is refused."""
    if isinstance(v, bool) or not hasattr(v, "__index__"):
        raise TypeError(f"{name}={v!r}: give an integer, not {_kind(v)}")
    return int(v.__index__())


def text(name: str, v: Any) -> Optional[str]:
    """``v`` as it is if it is text, or ``None``."""
    if v is None or isinstance(v, str):
        return v
    raise TypeError(f"{name}={v!r}: give text (a str), not {_kind(v)}")


def names(name: str, v: Any) -> Optional[List[str]]:
    """A list of column names, or ``None``. One string is refused (``"wxyz"`` is not four names)."""
    if v is None:
        return None
    if isinstance(v, str):
        raise TypeError(f"{name}={v!r}: give a list of column names, e.g. [{v!r}], not one string")
    try:
        out = list(v)
    except TypeError:
        raise TypeError(f"{name}={v!r}: give a list of column names, not {_kind(v)}") from None
    for c in out:
        if not isinstance(c, str):
            raise TypeError(f"{name}: column names are text, not {_kind(c)} ({c!r})")
    return out


def pair(name: str, v: Any) -> Optional[Tuple[float, float]]:
    """``(lo, hi)`` as two floats, or ``None``."""
    if v is None:
        return None
    if isinstance(v, (str, bytes)) or not isinstance(v, Sequence) or len(v) != 2:
        raise TypeError(f"{name}={v!r}: give two numbers (lo, hi)")
    lo, hi = number(f"{name}[0]", v[0]), number(f"{name}[1]", v[1])
    assert lo is not None and hi is not None
    return lo, hi
