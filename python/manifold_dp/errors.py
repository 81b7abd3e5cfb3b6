"""The exceptions of manifold_dp."""

from __future__ import annotations

from typing import Optional, Union

from . import _native


class BadInputError(ValueError):
    """Input that is not what the release needs: a row that is not a point, a missing column, a wrong shape, a
    parameter out of its range. The native core raises it itself, with the row and column it found at fault.

    ``row`` is the 0-based row of the input (None when the problem is not one row's) and ``column`` the
    column at fault: its name for tables and data frames, its index for numpy arrays (None when the row as a
    whole is at fault).
    """

    def __init__(self, message: str, row: Optional[int] = None, column: Union[str, int, None] = None):
        super().__init__(message)
        self.row = row
        self.column = column


class BudgetExceededError(_native.BudgetRefused):
    """A release that the privacy ledger refused: over a budget, an unbudgeted data set, a reused request id.
    Nothing was released and nothing was recorded."""
