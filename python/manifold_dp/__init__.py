"""manifold_dp: differential privacy for rotations, directions and SPD matrices.

Exact samplers, tight calibrations with proofs, float-safe releases and a privacy ledger, over the Rust core
of the ``manifold-dp`` command-line tool (the same code path: the same seed and rows give the same bits).

>>> import manifold_dp as mdp
>>> mech = mdp.Mechanism("so3", "laplace", protect="10deg", level=1)
>>> noisy = mech.privatize(rotations)          # a scipy Rotation, numpy array, pandas frame or Arrow table
>>> mech.guarantee                              # what the release guarantees, as data

See ``help(mdp.Mechanism)``, ``help(mdp.mean)`` and ``help(mdp.Ledger)``.
"""

from . import _native
from ._api import (
    AuditReport,
    Guarantee,
    Ledger,
    MeanResult,
    Mechanism,
    audit,
    epsilon_for_radius,
    mean,
    privatize,
    radius,
    sample,
)
from .errors import BadInputError, BudgetExceededError

__all__ = [
    "AuditReport",
    "BadInputError",
    "BudgetExceededError",
    "Guarantee",
    "Ledger",
    "Mechanism",
    "MeanResult",
    "audit",
    "mean",
    "privatize",
    "radius",
    "epsilon_for_radius",
    "sample",
]
__version__: str = _native.__version__  # the workspace Cargo.toml's, the one place it is written
