"""Experiment seeds: integers only, never with a ledger, and announced on every seeded call (the rule lives in
the native core, shared with the command line)."""

from __future__ import annotations

import warnings
from typing import Any, Optional

from . import _native


def experiment_seed(seed: Any, ledger: bool = False, warn: bool = True, stacklevel: int = 3) -> Optional[int]:
    """``seed`` as the native core takes it: ``None``, or an integer in [0, 2**64). A bool raises ``TypeError``
    (``seed=True`` is not seed 1); a seed with a ledger raises :class:`BadInputError` before any work or charge.
    A seeded call warns (``warn``), since anyone who knows the seed can remove the noise."""
    value = _native.experiment_seed(seed, ledger)
    if value is not None and warn:
        warnings.warn(_native.SEEDED_WARNING, stacklevel=stacklevel)
    return value
