"""The Python API: Mechanism, privatize, mean, sample, radius, Ledger."""

from __future__ import annotations

import json
import os
import warnings
from dataclasses import dataclass
from typing import Any, Dict, Generic, List, Optional, Sequence, Tuple, TypedDict, TypeVar, Union, cast, overload

import numpy as np
import pyarrow as pa

from . import _args as args
from . import _convert as cv
from . import _native
from ._seed import experiment_seed
from .errors import BadInputError, BudgetExceededError


class Guarantee(TypedDict, total=False):
    """A privacy guarantee as data, with the command line's JSON keys. ``notion`` is always there and says which
    of the others are: ``pure_dp`` (``epsilon``, and ``neighbouring`` when narrower than any one row),
    ``approx_dp`` (``epsilon``, ``delta``), ``zcdp`` (``rho``), ``gdp`` (``mu``), ``rao_dp`` (``theta``,
    ``family``), ``metric_dp`` (``epsilon`` per ``unit`` of ``metric``, plus the rounding's ``additive_epsilon``
    and the public ``grid`` a release lies on). ``pure_dp`` carries ``delta`` only when it is above 0: the
    samplers' negligible events (about 1e-300 for most releases), added to the probability bound between
    neighbours. ``metric_dp`` carries ``delta_base`` δ_B only when it is above 0: the probability of those
    events, whose δ between inputs d apart is δ_B·(1 + e^(ε·d + ε₀)). A local release by vmf, purkayastha,
    laplace or bingham carries ``renyi``, its noise law (``{"family": "vmf", "dim": 3, "kappa": 0.1}``), from
    which a ledger's ``local_approx`` budget computes its Rényi curve. A mean with ``outside="drop"`` adds
    ``rows``, ``domain`` and ``not_protected``: what the guarantee does not cover."""

    notion: str
    epsilon: float
    delta: float
    delta_base: float
    rho: float
    mu: float
    theta: float
    family: str
    metric: str
    unit: str
    additive_epsilon: float
    grid: Dict[str, Any]
    renyi: Dict[str, Any]
    neighbouring: str
    rows: int
    domain: str
    not_protected: str

#: What ``privatize`` takes and gives back: the same type in and out (a numpy array, a scipy ``Rotation``, a
#: pandas ``DataFrame``, a pyarrow ``Table`` or ``RecordBatch``).
_X = TypeVar("_X")

#: The type of a mean's point, which follows the input: a scipy ``Rotation`` for a ``Rotation``, a numpy array (or
#: one number on the circle, a time of day or one real column) for an array or table.
_M = TypeVar("_M")

#: The most releases one call to :func:`sample` draws (they are all held in memory).
MAX_SAMPLES = 100_000_000


#: What to call to add the missing budget, by the refusal's ``missing`` kind (the library names no front end's
#: calls; the command line names its flags the same way).
_ADD_BUDGET = {
    "central": " (add one: ledger.set_budget(dataset, {'notion': 'pure_dp', 'epsilon': E}), or an approx_dp, zcdp "
               "or gdp budget)",
    "local": " (add one: ledger.set_budget(dataset, {'notion': 'metric_dp', 'epsilon': E, 'metric': ..., "
             "'unit': ...}) in the release's metric)",
    "any": " (set one with ledger.set_budget(dataset, ...), or pass allow_unbudgeted=True)",
}


def _refusal(e: Exception) -> Exception:
    if not isinstance(e, _native.BudgetRefused):
        return e
    return BudgetExceededError(str(e) + _ADD_BUDGET.get(getattr(e, "missing", None) or "", ""))


class Ledger:
    """A privacy ledger: an SQLite file holding each data set's budgets and every release charged to them.

    >>> led = Ledger("budget.sqlite")                      # created if missing; the path is made absolute now
    >>> led.set_budget("airports", {"notion": "pure_dp", "epsilon": 2.0},
    ...                {"notion": "metric_dp", "epsilon": 0.5, "metric": "sphere_surface", "unit": "km"})
    >>> led.may_release("airports", {"notion": "pure_dp", "epsilon": 1.0})["allowed"]
    True
    >>> led.spent("airports")["combined"]

    One label holds a local budget (metric DP per unit, for ``privatize``; its ``additive_epsilon`` is the
    allowance for the releases' rounding costs, 0.1 unless given) and central budgets (pure, approximate, zCDP,
    GDP, for ``mean``) side by side, and optionally an ``overall`` pure cap. ``privatize`` and ``mean`` take
    ``ledger=`` and ``dataset=``: the release is checked before any work and recorded before the result is
    returned (the ledger crate's protocol, the command line's own); a refusal raises
    :class:`BudgetExceededError` and releases nothing.

    The path is resolved once, here: a later ``os.chdir`` does not move the ledger, and a file at that path that
    is no longer the one opened (moved, replaced or deleted) is refused.
    """

    def __init__(self, path: Union[str, "os.PathLike[str]"], create: bool = True):
        #: The ledger's absolute path, resolved when it was opened.
        self.path: str = os.path.abspath(os.fspath(path))
        try:
            self._native = _native.Ledger(self.path, create)
        except _native.BudgetRefused as e:  # pragma: no cover - opening refuses nothing
            raise _refusal(e) from None

    def __repr__(self) -> str:
        return f"Ledger({self.path!r})"

    def set_budget(
        self,
        dataset: str,
        *budgets: Guarantee,
        overall: Optional[float] = None,
        local_approx: Optional[Tuple[float, float]] = None,
    ) -> Dict[str, Any]:
        """Sets the budgets of ``dataset`` (guarantee dicts, e.g. ``{"notion": "pure_dp", "epsilon": 3}``, or a
        local ``{"notion": "metric_dp", "epsilon": 0.5, "metric": "sphere_surface", "unit": "km",
        "additive_epsilon": 0.05}``, whose ``"metric"`` may also name the space: ``"latlon"``, ``"timeofday"``,
        ``"circle"``, ``"sphere"`` or ``"so3"``) and, with ``overall=``, an overall pure-DP cap over every
        release (local ones at ε·diameter + their rounding cost); with ``local_approx=(ε, δ)``, an (ε, δ)
        budget of the local releases composed in Rényi DP (account ``"local_rdp"``: VMF, Purkayastha, SO(3)
        Laplace and Bingham releases charged by their Rényi curves, so many repeated releases fit where adding
        ε's would refuse them); returns what it has spent."""
        native = [_guarantee_json(b) for b in budgets]
        return json.loads(self._native.set_budgets(dataset, native, overall, local_approx))

    def spent(self, dataset: str) -> Dict[str, Any]:
        """What ``dataset`` has spent under each account, against its budgets, and ``"combined"``: the whole data
        set's guarantee, ε ≤ local·d + constant, with its standard-DP reading."""
        return json.loads(self._native.spent(dataset))

    def releases(self, dataset: Optional[str] = None) -> List[Dict[str, Any]]:
        """The releases recorded (of ``dataset``, or all)."""
        return json.loads(self._native.releases(dataset))

    def may_release(
        self,
        dataset: str,
        release: Union["Mechanism", Guarantee, Sequence[Guarantee]],
        *,
        request_id: Optional[str] = None,
        allow_unbudgeted: bool = False,
    ) -> Dict[str, Any]:
        """The dry run ("may it release this?"), as the command line's ``ledger add --dry-run``: would a release
        with these guarantees (a :class:`Mechanism`'s, a guarantee dict, or a list) be recorded now? Returns
        ``{"allowed": True, "spent_after": ...}`` or ``{"allowed": False, "refusal": "why, and what to change"}``.
        Writes nothing; the answer holds until another release is recorded."""
        guarantees = release.guarantee if isinstance(release, Mechanism) else release
        try:
            after = self._native.check(dataset, _guarantee_json(guarantees), request_id, allow_unbudgeted)
        except _native.BudgetRefused as e:
            return {"allowed": False, "refusal": str(e)}
        return {"allowed": True, "spent_after": json.loads(after)}

    def _prepare(
        self, dataset: str, what: str, guarantee: Guarantee, request_id: Optional[str], allow_unbudgeted: bool
    ) -> "_Charge":
        """The ledger crate's check: refused before any work; the returned charge records the release once."""
        try:
            return _Charge(self._native.prepare(dataset, what, json.dumps(guarantee), request_id, allow_unbudgeted))
        except _native.BudgetRefused as e:
            raise _refusal(e) from None


def _guarantee_json(guarantee: Any) -> str:
    """A guarantee (or a list of them) as the JSON the native module reads. JSON has no ∞ or NaN, and no
    guarantee or budget has one: name the parameter instead of letting the parser fail on its spelling."""

    def check(value: Any, key: str) -> None:
        if isinstance(value, dict):
            for k, v in value.items():
                check(v, str(k))
        elif isinstance(value, (list, tuple)):
            for v in value:
                check(v, key)
        elif isinstance(value, float) and not np.isfinite(value):
            raise BadInputError(f"invalid {key} = {value}: a guarantee's or budget's {key} must be a finite number "
                                "(to set no budget under a notion, leave that notion out)")

    check(guarantee, "value")
    try:
        return json.dumps(guarantee, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise BadInputError(
            f"a guarantee must be a dict such as {{'notion': 'pure_dp', 'epsilon': 1.0}}: {e}") from None


class _Charge:
    """A release checked by a ledger (``_native.Charge``): :meth:`record` records it, once, just before its result
    is handed back."""

    def __init__(self, native: Any):
        self._native = native

    def record(self, guarantee: Guarantee) -> None:
        try:
            self._native.record(json.dumps(guarantee))
        except _native.BudgetRefused as e:
            raise _refusal(e) from None


def _charge_plan(ledger: Optional[Ledger], dataset: Optional[str]) -> None:
    if (ledger is None) != (dataset is None):
        raise BadInputError("ledger= and dataset= go together")


def _source(x: Any) -> str:
    """What a release was computed from, for the ledger entry (the command line names the input file)."""
    if cv.is_rotation(x):
        return f"python scipy Rotation ({len(np.atleast_2d(x.as_quat()))} rows)"
    if isinstance(x, (pa.Table, pa.RecordBatch)):
        return f"python pyarrow.{type(x).__name__} ({x.num_rows} rows)"
    if cv.is_pandas(x):
        return f"python pandas.DataFrame ({len(x)} rows)"
    shape = np.shape(x)
    return f"python array ({shape[0] if shape else 1} rows)"


class Mechanism:
    """A per-row privacy mechanism on a space, as on the command line.

    ``Mechanism("so3", "laplace", epsilon=1.0)`` or ``Mechanism("latlon", "purkayastha", protect="2km",
    level=1)`` (ε = level / distance). Spaces: ``so3``, ``circle`` (radians), ``timeofday`` (hours),
    ``latlon`` (degrees), ``sphere:N``. Mechanisms: ``laplace``, ``bingham`` (so3); ``purkayastha``, ``vmf``,
    ``wrapped-laplace`` (circle and timeofday) on the others; ``"auto"`` picks the one with the smallest
    expected error at the budget, from the exact laws (``.mechanism`` says which, ``.why`` why). Naming one
    that moves points 2× or more farther than another at the same guarantee warns.

    Releases are float-safe: rounded onto a public grid chosen from the budget, its small cost in the
    guarantee. ``snap="1s"`` (or ``"10m"``, ``"0.01deg"``) rounds them again onto a coarser grid whose step is
    the largest power of two no larger than that distance; this is post-processing and costs nothing, and the
    guarantee names the grid.

    >>> mech = Mechanism("so3", "laplace", protect="10deg", level=1)
    >>> mech.guarantee["notion"]
    'metric_dp'
    """

    def __init__(
        self,
        space: str,
        mechanism: str,
        epsilon: Optional[float] = None,
        *,
        protect: Union[str, float, None] = None,
        level: Optional[float] = None,
        concentration: Optional[float] = None,
        snap: Optional[str] = None,
        bounds: Optional[Tuple[float, float]] = None,
        values: int = 1,
        clamp_releases: bool = False,
    ):
        space, mechanism = args.text("space", space) or "", args.text("mechanism", mechanism) or ""
        epsilon, level = args.number("epsilon", epsilon), args.number("level", level)
        concentration, snap = args.number("concentration", concentration), args.text("snap", snap)
        bounds = args.pair("bounds", bounds)
        values = args.integer("values", values)
        protect = _distance_text(protect)  # protect=2 is 2 rad where a bare number is, as on the command line
        b = None if bounds is None else (float(bounds[0]), float(bounds[1]))
        self._native = _native.Mechanism(space, mechanism, epsilon, protect, level, concentration, snap, b,
                                         int(values), bool(clamp_releases))
        self.space = self._native.space
        #: The unit distances are answered in (:attr:`expected_error`, :meth:`radius`): the one the command line
        #: reports in, ``"km"`` on latlon, ``"h"`` on timeofday, ``"deg"`` on so3, circle and spheres, ``"unit"``
        #: on real.
        self.unit: str
        self.unit, self._radians_per_unit = self._native.unit
        #: The mechanism's name: what ``"auto"`` chose, from the exact laws.
        self.mechanism = self._native.mechanism
        #: Why ``"auto"`` chose it (the expected errors compared), else ``None``.
        self.why: Optional[str] = None
        note = self._native.note
        if mechanism.strip().lower() == "auto":
            self.why = note
        elif note is not None:
            warnings.warn(note, stacklevel=2)

    def __repr__(self) -> str:
        return f"Mechanism({self.space!r}, {self.mechanism!r}, guarantee={self.guarantee!r})"

    @property
    def guarantee(self) -> Guarantee:
        """The guarantee of each released row, with the command line's JSON keys (``notion``, ``epsilon``,
        ``metric``, ``unit``, and the float-safety ``additive_epsilon`` and ``grid``)."""
        return json.loads(self._native.guarantee_json())

    def renyi(self, times: int = 1, *, delta: float = 1e-6) -> Dict[str, Any]:
        """``times`` releases of one point composed by the mechanism's Rényi curve (vmf, purkayastha, laplace,
        bingham) and stated as (ε, ``delta``)-DP between any two inputs, with the command line's keys
        (``budget compose --local-mechanism``'s ``renyi`` object): ``total`` (an ``approx_dp`` guarantee),
        ``order``, ``orders``, ``epsilons`` (the composed curve), ``mechanism``, ``releases``. Proof:
        ``docs/proofs/renyi_local.md``.

        >>> Mechanism("so3", "laplace", epsilon=0.1).renyi(1000)["total"]["epsilon"]  # vs 314 in pure DP
        """
        try:
            return cast(Dict[str, Any], json.loads(self._native.renyi_json(times, delta)))
        except (ValueError, OverflowError) as e:
            raise BadInputError(f"renyi(times={times!r}, delta={delta!r}): {e}") from None

    @property
    def expected_error(self) -> float:
        """The expected distance between a release and its input, from the exact law, in :attr:`unit` (km on
        latlon, hours on timeofday, degrees elsewhere)."""
        return self._native.mean_error() / self._radians_per_unit

    def radius(self, level: Optional[float] = None, *, probability: Optional[float] = None) -> float:
        """The radius of indistinguishability: the distance, in :attr:`unit`, within which a fraction
        ``probability`` (0.683 unless given; ``level`` is its older name) of releases fall.

        >>> Mechanism("latlon", "purkayastha", protect="2km", level=1).radius(probability=0.9)  # km
        """
        if level is not None and probability is not None:
            raise BadInputError("give probability= (or its older name level=), not both")
        p = probability if probability is not None else (level if level is not None else 0.683)
        try:
            return self._native.radius(p) / self._radians_per_unit
        except ValueError as e:
            raise BadInputError(f"probability={p!r}: {e}") from None

    def privatize(
        self,
        x: _X,
        *,
        format: Optional[str] = None,
        columns: Optional[Sequence[str]] = None,
        seed: Optional[int] = None,
        ledger: Optional[Ledger] = None,
        dataset: Optional[str] = None,
        request_id: Optional[str] = None,
        allow_unbudgeted: bool = False,
    ) -> _X:
        """A private copy of ``x``, of the same kind; ``x`` is never modified.

        - numpy: so3 ``(n, 4)`` quaternions (``format="quat-xyzw"`` or ``"quat-wxyz"`` required), ``(n, 3)``
          with ``format="rotvec"`` or ``"euler:xyz"``, ``(n, 3, 3)`` matrices; circle ``(n,)`` radians;
          timeofday ``(n,)`` hours; latlon ``(n, 2)`` degrees; sphere:N ``(n, N)`` unit vectors.
        - ``scipy.spatial.transform.Rotation`` → ``Rotation``.
        - ``pandas.DataFrame``, ``pyarrow.Table`` or ``RecordBatch`` → the same type, the value ``columns``
          replaced and every other column unchanged, in order (times of day may be text: ``"13:30"``,
          timestamps).

        Bad rows raise :class:`BadInputError` with ``.row`` (0-based) and ``.column``. ``seed`` (an integer) makes
        the noise reproducible, for experiments only: anyone who knows it can remove the noise, so it warns, and
        with ``ledger=`` it is refused.
        """
        format, columns = args.text("format", format), args.names("columns", columns)
        dataset, request_id = args.text("dataset", dataset), args.text("request_id", request_id)
        seed = experiment_seed(seed, ledger is not None)
        _charge_plan(ledger, dataset)
        charge = None
        if ledger is not None:
            assert dataset is not None
            charge = ledger._prepare(dataset, self._provenance("privatize", columns, _source(x)), self.guarantee,
                                     request_id, allow_unbudgeted)
        key = _native.fresh_key() if seed is None else None
        out = self._privatize(x, format, columns, seed, key)
        if charge is not None:
            charge.record(self.guarantee)
        return out

    def _provenance(self, command: str, columns: Optional[Sequence[str]], source: str) -> str:
        """The ledger entry's text, as the command line writes it: command, space, mechanism, budget as given,
        bounds and columns, and what it was computed from."""
        return self._native.ledger_label(command, None if columns is None else list(columns), source)

    def _release(self, batch: pa.RecordBatch, first: int, format, columns, seed, key, column_index: bool):
        out, rejected = self._native.privatize_batch(batch, format, columns, None, seed, key, first, None)
        _native.raise_rejected(rejected, first, column_index)
        return out

    def _privatize(self, x: Any, format, columns, seed, key) -> Any:
        cols = list(columns) if columns is not None else None
        if cv.is_rotation(x):
            if self.space != "so3":
                raise BadInputError(f"a scipy Rotation is a point of so3, not of {self.space}")
            from scipy.spatial.transform import Rotation

            single = x.single
            quat = np.atleast_2d(x.as_quat())
            noisy = self._privatize(quat, "quat-xyzw", None, seed, key)
            return Rotation.from_quat(noisy[0] if single else noisy)
        if isinstance(x, pa.RecordBatch):
            return self._release(x, 0, format, cols, seed, key, False)
        if isinstance(x, pa.Table):
            batches = cv.over_batches(
                cv.table_batches(x), lambda b, first: self._release(b, first, format, cols, seed, key, False)
            )
            if not batches:
                raise BadInputError("the table has no rows; nothing to privatize")
            return pa.Table.from_batches(batches)
        if cv.is_pandas(x):
            cv.check_frame(x)
            if cols is None:
                # The columns a table of the same schema is read from (the command line's defaults: w,x,y,z,
                # lat,lon, angle, time, x1…xN), found by the core.
                try:
                    schema = pa.Schema.from_pandas(x, preserve_index=False)
                    cols = self._native.value_columns(schema, format)
                except (ValueError, TypeError, pa.ArrowException) as e:
                    raise BadInputError(f"{e}; give columns= for a DataFrame: the value columns, in order") from None
            missing = [c for c in cols if c not in x.columns]
            if missing:
                raise BadInputError(f"no column {missing[0]!r}; the columns are: {list(x.columns)}", column=missing[0])
            values = pa.Table.from_pandas(x[cols], preserve_index=False)
            noisy = self._privatize(values, format, cols, seed, key).to_pandas()
            out = x.copy()
            for c in cols:
                out[c] = noisy[c].to_numpy()
            return out
        arr = cv.numeric(x)
        if arr.shape[0] == 0 if arr.ndim else True:
            raise BadInputError("no rows: nothing to privatize")
        width, fmt = cv.array_width(self.space, format, arr.shape)
        if self.space in ("circle",) and fmt is None:
            fmt = "rad"
        # Read in place by the native core (copied once only when strided) and released straight into a new
        # array: no Arrow columns on the way, so memory stays at the input plus the output.
        flat = arr.reshape(arr.shape[0], width) if arr.ndim > 1 else arr.reshape(-1, 1)
        out, rejected = self._native.privatize_array(flat, fmt, seed, key, 0)
        _native.raise_rejected(rejected, 0, True)
        return out.reshape(arr.shape) if arr.ndim > 1 else out[:, 0]


def privatize(
    x: _X,
    *,
    space: str,
    mechanism: str,
    epsilon: Optional[float] = None,
    protect: Optional[str] = None,
    level: Optional[float] = None,
    snap: Optional[str] = None,
    bounds: Optional[Tuple[float, float]] = None,
    clamp_releases: bool = False,
    format: Optional[str] = None,
    columns: Optional[Sequence[str]] = None,
    seed: Optional[int] = None,
    ledger: Optional[Ledger] = None,
    dataset: Optional[str] = None,
    request_id: Optional[str] = None,
    allow_unbudgeted: bool = False,
) -> _X:
    """``Mechanism(space, mechanism, epsilon or protect/level, snap=).privatize(x, format=, columns=, seed=,
    ledger=, dataset=, request_id=, allow_unbudgeted=)`` in one call: a private copy of ``x`` of the same type
    (numpy array, scipy ``Rotation``, pandas ``DataFrame``, pyarrow ``Table`` or ``RecordBatch``).

    On ``space="real"`` give ``bounds=(lo, hi)``: each row's values (one per column, or per array column) are
    clamped into them and released with pure ε-DP per row. ``clamp_releases=True`` clamps every released value
    back into the bounds too (post-processing: the guarantee is unchanged; no negative counts, at the price of a
    bias towards the bounds near them).
    """
    values = 1
    if bounds is not None:
        if columns is not None:
            values = len(columns)
        elif not (isinstance(x, (pa.Table, pa.RecordBatch)) or cv.is_pandas(x)):
            shape = np.shape(cast(Any, x))
            values = shape[1] if len(shape) == 2 else 1
    mech = Mechanism(space, mechanism, epsilon, protect=protect, level=level, snap=snap, bounds=bounds, values=values,
                     clamp_releases=clamp_releases)
    return mech.privatize(x, format=format, columns=columns, seed=seed, ledger=ledger, dataset=dataset,
                          request_id=request_id, allow_unbudgeted=allow_unbudgeted)


def sample(
    space: str,
    mechanism: str,
    n: int,
    *,
    epsilon: float,
    center: Union[str, Sequence[float], float, None] = None,
    seed: Optional[int] = None,
    format: Optional[str] = None,
) -> np.ndarray:
    """``n`` independent releases of ``center`` as a numpy array in the space's layout (``(n, 4)`` quaternions in
    ``format``, default ``"quat-xyzw"``; ``(n,)`` angles or hours; ``(n, 2)`` degrees; ``(n, N)`` unit vectors).

    ``center`` is read as the command line's ``sample --center`` reads it — text such as ``"identity"``,
    ``"13:00"``, ``"30deg"`` or ``"48.85,2.35"`` — or given as numbers in the layout of ``format``; the default
    is the identity rotation, angle 0, 00:00, 0°N 0°E or the first axis. Releases of one point compose: together
    the ``n`` rows are ``n`` times as costly as one (``n``·ε), and their average approaches the point. With the
    same ``seed`` the rows are the command line's, bit for bit."""
    n = args.integer("n", n)
    if not 1 <= n <= MAX_SAMPLES:
        raise BadInputError(f"n must be between 1 and {MAX_SAMPLES:.0e} (one call holds them all in memory)")
    mech = Mechanism(space, mechanism, epsilon)
    if mech.space == "so3":
        format = format or "quat-xyzw"
    point: Union[str, List[float], None]
    if center is None or isinstance(center, str):
        point = center
    else:
        point = [float(v) for v in np.ravel(cv.numeric(center))]
    key = _native.fresh_key() if seed is None else None
    out = mech._native.sample(n, point, args.text("format", format), experiment_seed(seed, False), key)
    return out[:, 0] if out.shape[1] == 1 else out


def radius(space: str, mechanism: str, *, epsilon: float, level: Optional[float] = None,
           probability: Optional[float] = None) -> float:
    """The radius of indistinguishability of ``mechanism`` on ``space`` at ``epsilon`` (per radian): the distance
    within which a fraction ``probability`` (0.683 unless given; ``level`` is its older name) of releases fall,
    in the space's unit (km on latlon, hours on timeofday, degrees elsewhere: :attr:`Mechanism.unit`)."""
    return Mechanism(space, mechanism, epsilon).radius(level, probability=probability)


def epsilon_for_radius(space: str, mechanism: str, radius: Union[str, float], *, probability: Optional[float] = None,
                       level: Optional[float] = None) -> float:
    """The ε per radian at which a fraction ``probability`` (0.683 unless given; ``level`` is its older name) of
    ``mechanism``'s releases on ``space`` fall within ``radius`` (text with a unit, ``"2km"``, ``"10deg"``,
    ``"1h"``; a plain number is radians where the command line takes one): the inverse of :func:`radius`, solved
    from the exact law, as ``manifold-dp radius --radius`` does. Give the result as ``epsilon=``.

    >>> eps = mdp.epsilon_for_radius("latlon", "purkayastha", "2km", probability=0.9)
    >>> mdp.radius("latlon", "purkayastha", epsilon=eps, probability=0.9)   # 2.0 (km)
    """
    space, mechanism = args.text("space", space) or "", args.text("mechanism", mechanism) or ""
    if level is not None and probability is not None:
        raise BadInputError("give probability= (or its older name level=), not both")
    p = probability if probability is not None else (level if level is not None else 0.683)
    text = _distance_text(radius)
    if text is None:
        raise BadInputError("radius= is needed: the distance the releases should fall within")
    epsilon, _ = _native.epsilon_for_radius(space, mechanism, text, float(p))
    return epsilon


def audit(
    space: str,
    mechanism: str,
    *,
    epsilon: Optional[float] = None,
    protect: Union[str, float, None] = None,
    level: Optional[float] = None,
    samples: Optional[int] = None,
    alpha: float = 1e-6,
    seed: Optional[int] = None,
    concentration: Optional[float] = None,
    delta: Optional[float] = None,
    order: Optional[int] = None,
) -> "AuditReport":
    """An empirical check of the privacy claim of ``mechanism`` on ``space`` at ``epsilon`` (or at
    ``protect="10deg", level=1``, read in the space's units as for a release): draws ``samples`` releases per
    input of each test pair (default 200 000, 20 000 on ``spd:K``) and bounds the privacy loss from below with
    Clopper–Pearson intervals at total false-alarm probability ``alpha``. ``delta`` is the δ of an (ε, δ) claim
    (the Gaussian mechanisms), ``order`` the generalized Gaussian's degree, ``concentration`` Bingham's κ.
    Returns an :class:`AuditReport` (its ``report`` has the CLI's ``audit --json`` keys: ``verdict``,
    ``epsilon_lower_bound``, …). Negative controls are audited by name, e.g.
    ``mechanism="control:bingham-4eps"``. The rules (ranges, defaults, which options go together) are the
    command line's, from the same core request."""
    space, mechanism = args.text("space", space) or "", args.text("mechanism", mechanism) or ""
    epsilon, concentration = args.number("epsilon", epsilon), args.number("concentration", concentration)
    level, delta = args.number("level", level), args.number("delta", delta)
    samples_n = None if samples is None else args.integer("samples", samples)
    order_n = None if order is None else args.integer("order", order)
    alpha = args.number("alpha", alpha) or 0.0
    seed = experiment_seed(seed, warn=False)  # an audit releases nothing
    try:
        report = json.loads(_native.audit(space, mechanism, epsilon, samples_n, alpha, seed, concentration,
                                          _distance_text(protect), level, delta, order_n))
    except (ValueError, OverflowError) as e:
        raise BadInputError(str(e)) from None
    return AuditReport(
        verdict=report["verdict"], epsilon_lower_bound=report["epsilon_lower_bound"], epsilon=report["epsilon"],
        delta=report["delta"], claim=report["claim"], guarantee=report["guarantee"], samples=report["samples"],
        alpha=report["alpha"], pairs_tested=report["pairs_tested"], strongest=report.get("strongest"),
        violating=report.get("violating"), per_pair=report.get("per_pair", []), report=report)


@dataclass(frozen=True)
class AuditReport:
    """What :func:`audit` found. ``verdict`` is ``"no_violation_found"`` or ``"violation"``;
    ``epsilon_lower_bound`` is the largest privacy loss the draws prove at confidence 1 − ``alpha`` (a
    violation when it exceeds the claimed ``epsilon``); ``claim`` and ``guarantee`` say what was checked;
    ``strongest`` is the test pair and event behind the bound, ``violating`` the one that broke the claim (or
    ``None``), ``per_pair`` one entry per pair of inputs. ``report`` holds every key of the command line's
    ``audit --json``, and ``report["verdict"]`` (or ``r["verdict"]`` on the report itself) reads them."""

    verdict: str
    epsilon_lower_bound: float
    epsilon: float
    delta: float
    claim: str
    guarantee: Guarantee
    samples: int
    alpha: float
    pairs_tested: int
    strongest: Optional[Dict[str, Any]]
    violating: Optional[Dict[str, Any]]
    per_pair: List[Dict[str, Any]]
    report: Dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.report[key]


@dataclass(frozen=True)
class MeanResult(Generic[_M]):
    """A private Fréchet mean: ``mean`` (in the input's layout: a scipy ``Rotation`` for a ``Rotation`` input, a
    quaternion in the input's format, ``[lat, lon]``
    in degrees, an angle, hours, a unit vector or a K×K matrix), its pure-DP ``guarantee``, the ``sensitivity``
    Δ, noise scale ``sigma`` and ``expected_error`` in ``unit`` (the command line's: ``"km"`` on latlon, ``"h"``
    on timeofday, ``"deg"`` on so3, circle and spheres, the values' own on real, ``""`` for the SPD distance;
    the guarantee's ε stays per radian, as its ``metric`` says), the number of rows ``n``
    the mean is over, and how many rows outside the ball were ``dropped`` or ``clipped`` (counts for you, the
    curator: they are not private, so do not publish them). ``grid`` is the public grid the release is rounded
    onto (``{"chart": ..., "spacing_log2": ...}``, as in the guarantees of ``privatize``; ``None`` for ``real``,
    whose release is drawn exactly on a power-of-two grid); ``rounding_cost`` is what rounding costs, taken
    inside the ε asked (its ε₀, twice when ``conditioned``): the guarantee is exactly that ε, and the noise is
    calibrated at ``noise_epsilon``, with ``noise_epsilon + rounding_cost ≤ ε``.

    With ``outside="drop"`` the ``guarantee`` says what it does not protect: ``neighbouring:
    "replace_one_row_in_ball"``, ``rows`` (the rows kept), ``domain`` and ``not_protected`` (whether a row lies outside,
    and how many do — which ``sigma``, ``sensitivity`` and ``n`` reveal; ``docs/proofs/mean_outside_ball.md``).

    With ``estimator="extrinsic"`` the ``guarantee`` also says between which data sets it holds
    (``neighbouring: "replace_one_row"``, ``rows``, ``domain``); ``sensitivity``, ``sigma`` and ``expected_error``
    are in the embedding (Frobenius between rotation matrices, chordal between unit vectors); ``error_bound`` is
    the largest angle (in ``unit``) between the release and the projection of the exact extrinsic mean at
    ``confidence`` (0.95), ``None`` with ``stable=False`` where the projection is unstable (then
    ``degeneracy_probability`` says how likely noise large enough to have come from a degenerate mean was, and a
    ``UserWarning`` says so); ``mean`` is ``None`` only where no nearest point exists.

    With ``mechanism="gaussian"`` the ``guarantee`` is ``{"notion": "gdp", "mu": μ}`` (``mu`` is that μ; on spheres
    and so3 with ``"delta": 2e-280``, the certificate's negligible δ), ``sigma``
    is the Riemannian Gaussian's σ, ``rounding_cost`` is inside the certified μ and ``noise_epsilon`` is ``None``."""

    mean: _M
    guarantee: Guarantee
    sensitivity: float
    sigma: float
    expected_error: float
    conditioned: bool
    n: int
    dropped: int = 0
    clipped: int = 0
    grid: Optional[Dict[str, Any]] = None
    rounding_cost: float = 0.0
    noise_epsilon: Optional[float] = 0.0
    estimator: str = "frechet"
    error_bound: Optional[float] = None
    stable: Optional[bool] = None
    confidence: Optional[float] = None
    degeneracy_probability: Optional[float] = None
    mechanism: str = "laplace"
    mu: Optional[float] = None
    unit: str = ""


def _distance_text(r: Union[float, str, None]) -> Optional[str]:
    """A distance as the command line's parser reads it: text as given; a plain number as its digits, which is
    radians where the command line takes a bare number (so3, circle, spheres) and refused, with the parser's
    message, where it needs a unit (``"2km"`` on latlon, ``"1h"`` on timeofday). A bool is not a distance."""
    if r is None or isinstance(r, str):
        return r
    if isinstance(r, bool) or not isinstance(r, (int, float, np.integer, np.floating)):
        raise BadInputError(f"{r!r} is not a distance: give a number (radians) or text with a unit, e.g. '10deg'")
    return repr(float(r))


def _center_arg(space: str, center: Any, format: Optional[str]) -> Union[str, List[float], None]:
    """The centre as the native plan takes it: text as given (``"identity"``, a clock time such as ``"13:00"``,
    or numbers, read by the core as the command line reads ``--center``); a scipy ``Rotation`` on so3, in the
    input's rotation format; else the point's values in the input's layout."""
    if center is None or isinstance(center, str):
        return center
    if cv.is_rotation(center):
        if space != "so3":
            raise BadInputError(f"center=Rotation(...) is a rotation: it goes with space='so3', not {space!r}")
        if len(np.atleast_2d(center.as_quat())) != 1:
            raise BadInputError("center=Rotation(...) must hold one rotation")
        forms = {
            "quat-xyzw": lambda r: r.as_quat(),
            "quat-wxyz": lambda r: np.roll(r.as_quat(), 1),
            "rotvec": lambda r: r.as_rotvec(),
            "matrix": lambda r: r.as_matrix(),
        }
        convert = forms.get(format or "")
        if convert is None and (format or "").startswith("euler:"):
            seq, _, unit = format[len("euler:"):].partition(":")  # type: ignore[index]
            convert = lambda r: r.as_euler(seq, degrees=unit != "rad")  # noqa: E731 (scipy's sequences)
        if convert is None:
            raise BadInputError(f"center=Rotation(...) with format={format!r}: give the centre as numbers in that "
                                "format, or use format='quat-xyzw', 'quat-wxyz', 'rotvec' or 'matrix'")
        return [float(v) for v in np.ravel(convert(center))]
    try:
        return [float(v) for v in np.asarray(center, dtype=np.float64).ravel()]
    except (TypeError, ValueError):
        raise BadInputError(f"center={center!r}: give the point's values, or text such as 'identity'") from None


# The native arguments of a mean's plan, in ``_native.MeanPlan``'s order (Spark's executors rebuild it from them).
_PlanArgs = Tuple[str, Union[str, List[float], None], Optional[str], str, Optional[str], Optional[Sequence[str]], str,
                  Optional[List[Tuple[float, float]]]]


def _mean_plan(
    space: str,
    center: Any,
    radius: Union[float, str, None],
    outside: str,
    format: Optional[str],
    columns: Optional[Sequence[str]],
    metric: str,
    bounds: Any = None,
    noise: Any = None,
) -> Tuple[Any, _PlanArgs]:
    """The native plan of a mean (the core's request: its rules, centre and radius), and the native arguments
    that rebuild it (Spark's executors do). ``noise`` (a ``_native.MeanNoise``) is checked against the space."""
    if bounds is not None:
        pairs, columns = _mean_bounds(bounds, columns)
        args: _PlanArgs = (space, None, None, outside, format, columns, metric, pairs)
    else:
        args = (space, _center_arg(space, center, format), _distance_text(radius), outside, format, columns, metric,
                None)
    return _native.MeanPlan(*args, noise=noise), args


def _release_mean(
    space: str,
    plan: Any,
    at: List[float],
    counts: Any,
    epsilon: Optional[float],
    conditioning: str,
    seed: Optional[int],
    charge: Optional[_Charge],
    noise: Any = None,
) -> Dict[str, Any]:
    """Draws the noise once at the exact mean ``at`` of ``counts = (used, dropped, clipped)`` rows and records
    the release with ``charge`` (also when the draw is not representable: that outcome is a function of the
    draw). ``noise`` (a ``_native.MeanNoise``) replaces ``epsilon`` and ``conditioning`` where given. The
    plan's rounding cost is not warned here: ``check_rows`` warned it before the Karcher iteration."""
    used, dropped, clipped = counts
    if noise is None:
        noise = _native.MeanNoise("laplace", None if epsilon is None else float(epsilon), None, None, conditioning)
    try:
        out = json.loads(plan.release_with(at, used, noise, seed))
    except _native.DrawUnrepresentable as e:
        if charge is not None:
            charge.record(json.loads(plan.guarantee_for(noise)))
        raise BadInputError(str(e)) from None
    except ValueError as e:
        raise BadInputError(str(e)) from None
    if charge is not None:
        charge.record(out["guarantee"])
    # The core's warnings, as the command line prints them (in the space's unit); the rounding cost's came
    # before the Karcher iteration.
    for note in _native.mean_warnings(space, int(used), int(dropped), int(clipped), float(out["expected_error"]),
                                      float(plan.radius), 0.0, float("inf")):
        warnings.warn(note, stacklevel=3)
    out["dropped"], out["clipped"] = dropped, clipped
    return out


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_))


def _mean_bounds(bounds: Any, columns: Optional[Sequence[str]]) -> Tuple[List[Tuple[float, float]],
                                                                         Optional[List[str]]]:
    """A real mean's bounds as the native plan takes them, and the columns they imply: ``(lo, hi)`` for every
    column; a list of pairs, one per column in order; or ``{"depth": (0, 700), "mag": (4, 7)}``, which names the
    columns (of a table; the command line's ``--bounds depth=0:700,mag=4:7``)."""
    def pair(v: Any, what: str) -> Tuple[float, float]:
        if isinstance(v, (str, bytes)) or not hasattr(v, "__len__") or len(v) != 2 or not all(map(_is_number, v)):
            raise BadInputError(f"bounds: {what} {v!r} is not a pair (lo, hi) of numbers")
        return float(v[0]), float(v[1])

    if isinstance(bounds, dict):
        names = [str(k) for k in bounds]
        if columns is not None and list(columns) != names:
            raise BadInputError(f"bounds= names the columns {names}, but the columns are {list(columns)}: for an "
                                "array give a list of (lo, hi) pairs, one per column; for a table drop columns=")
        return [pair(v, f"column {k!r}:") for k, v in bounds.items()], names
    if hasattr(bounds, "__len__") and len(bounds) == 2 and all(map(_is_number, bounds)):
        return [pair(bounds, "")], (list(columns) if columns is not None else None)
    if isinstance(bounds, (str, bytes)) or not hasattr(bounds, "__iter__"):
        raise BadInputError(f"bounds={bounds!r}: give (lo, hi), a list of (lo, hi) pairs or a dict of them")
    pairs = [pair(v, f"item {i}:") for i, v in enumerate(bounds)]
    return pairs, (list(columns) if columns is not None else None)


def _mean_provenance(command: str, space: str, center: Any, radius: Any, bounds: Any, epsilon: Optional[float],
                     outside: str, columns: Optional[Sequence[str]], source: str, mu: Optional[float] = None,
                     format: Optional[str] = None) -> str:
    """A mean's ledger entry, the core's words as the command line writes them (``mu`` for the Gaussian, in place
    of ``epsilon``)."""
    named = None
    if bounds is not None:
        pairs, names = _mean_bounds(bounds, None if isinstance(bounds, dict) else columns)
        named = (pairs, names if isinstance(bounds, dict) else None)
    return _native.mean_ledger_label(command, space, _center_arg(space, center, format), _distance_text(radius),
                                     outside, None if columns is None else list(columns), named, epsilon, mu,
                                     source)


def _mean_result(out: Dict[str, Any], m: Any, space: str) -> "MeanResult[Any]":
    # Distances in the unit the command line reports in (km on latlon, h on timeofday, deg elsewhere); the
    # extrinsic estimator's sensitivity, sigma and expected error are in the embedding, not angles.
    unit, per_unit = _native.natural_unit(space)
    estimator = out.get("estimator", "frechet")
    angle = (lambda v: v / per_unit) if estimator == "frechet" else (lambda v: v)
    bound = out.get("error_bound")
    return MeanResult(m, out["guarantee"], angle(out["sensitivity"]), angle(out["sigma"]),
                      angle(out["expected_error"]), out["conditioned"], out["n"], out["dropped"], out["clipped"],
                      out["grid"], out["rounding_cost"], out["noise_epsilon"], estimator,
                      None if bound is None else bound / per_unit, out.get("stable"), out.get("confidence"),
                      out.get("degeneracy_probability"), out.get("mechanism", "laplace"), out.get("mu"), unit)


@overload
def mean(
    x: np.ndarray,
    *,
    space: str,
    center: Any = None,
    radius: Union[float, str, None] = None,
    epsilon: Optional[float] = None,
    mechanism: str = "laplace",
    mu: Optional[float] = None,
    delta: Optional[float] = None,
    outside: str = "error",
    format: Optional[str] = None,
    columns: Optional[Sequence[str]] = None,
    conditioning: str = "auto",
    metric: str = "affine",
    bounds: Any = None,
    estimator: str = "frechet",
    seed: Optional[int] = None,
    ledger: Optional[Ledger] = None,
    dataset: Optional[str] = None,
    request_id: Optional[str] = None,
    allow_unbudgeted: bool = False,
) -> "MeanResult[Union[np.ndarray, float, None]]": ...


@overload
def mean(
    x: Any,
    *,
    space: str,
    center: Any = None,
    radius: Union[float, str, None] = None,
    epsilon: Optional[float] = None,
    mechanism: str = "laplace",
    mu: Optional[float] = None,
    delta: Optional[float] = None,
    outside: str = "error",
    format: Optional[str] = None,
    columns: Optional[Sequence[str]] = None,
    conditioning: str = "auto",
    metric: str = "affine",
    bounds: Any = None,
    estimator: str = "frechet",
    seed: Optional[int] = None,
    ledger: Optional[Ledger] = None,
    dataset: Optional[str] = None,
    request_id: Optional[str] = None,
    allow_unbudgeted: bool = False,
) -> "MeanResult[Any]": ...


def mean(
    x: Any,
    *,
    space: str,
    center: Any = None,
    radius: Union[float, str, None] = None,
    epsilon: Optional[float] = None,
    mechanism: str = "laplace",
    mu: Optional[float] = None,
    delta: Optional[float] = None,
    outside: str = "error",
    format: Optional[str] = None,
    columns: Optional[Sequence[str]] = None,
    conditioning: str = "auto",
    metric: str = "affine",
    bounds: Any = None,
    estimator: str = "frechet",
    seed: Optional[int] = None,
    ledger: Optional[Ledger] = None,
    dataset: Optional[str] = None,
    request_id: Optional[str] = None,
    allow_unbudgeted: bool = False,
) -> "MeanResult[Any]":
    """The Fréchet mean of the rows of ``x`` with pure ε-DP (Riemannian Laplace mechanism), for so3
    (quaternions with ``format=``, or a scipy ``Rotation``), sphere:N ``(n, N)``, latlon ``(n, 2)`` degrees,
    circle ``(n,)`` radians (``format="deg"`` for degrees), timeofday ``(n,)`` hours and spd:K ``(n, K, K)``;
    or a pyarrow/pandas table with ``columns=``.

    ``center`` (public, chosen without looking at the data: ``"identity"`` or a scipy ``Rotation`` on so3,
    ``"identity"`` on spd:K, a clock time such as ``"13:00"`` or hours on timeofday, else the point in the input's
    layout, e.g. ``[45.0, 10.0]`` on latlon) and ``radius`` (every row
    used lies within it: radians or text with a unit like ``"30deg"``, ``"300km"``, ``"2h"``; a plain number on
    spd:K) bound one row's influence. On ``space="real"`` give ``bounds=(lo, hi)`` instead (or one pair per
    column: ``bounds={"depth": (0, 700), "mag": (4, 7)}`` for a table, a list of pairs for an array; the ℓ₁
    sensitivity is then Σ_k (hi_k − lo_k)/n): the mean of each
    value column (``(n,)`` or ``(n, k)`` arrays), with Laplace noise at ℓ₁ sensitivity k·(hi − lo)/n, and
    ``outside="clip"`` clamps. A row outside the ball is, by ``outside=``:

    - ``"error"``: refused, naming it (nothing is released);
    - ``"clip"``: moved onto the ball along the geodesic from the centre; the guarantee is unchanged;
    - ``"drop"``: left out; the mean is over the rows in the ball and their number sets the noise, so the
      guarantee protects rows in the ball, not whether a row lies outside it, and says so:
      ``{"notion": "pure_dp", "epsilon": ε, "neighbouring": "replace_one_row_in_ball"}``; ``n``, ``sigma`` and
      ``sensitivity`` reveal the number of rows inside (``docs/proofs/mean_outside_ball.md``).

    >>> res = mdp.mean(angles_deg, space="circle", format="deg", center=0.0, radius="40deg", epsilon=1.0,
    ...                outside="clip")
    >>> res.mean, res.guarantee, res.clipped

    ``estimator="extrinsic"`` (so3, sphere:N, latlon, circle, timeofday) needs no ``center`` or ``radius``: rows
    may lie anywhere on the space. The rows are embedded (rotation matrices in R⁹, unit vectors), averaged, noised
    by the ℓ₂ K-norm mechanism at sensitivity 2√2/n (so3) or 2/n (spheres), rounded onto a public grid and
    projected back (nearest rotation; normalisation): pure ε-DP, ``docs/proofs/extrinsic_mean.md``. A ball's
    options (``center``, ``radius``, ``bounds``, ``outside``, ``conditioning``, ``metric``) are refused there.

    >>> res = mdp.mean(frames, space="so3", estimator="extrinsic", epsilon=1.0)   # a Rotation in, a Rotation out
    >>> res.mean, res.error_bound, res.stable

    ``mechanism="gaussian"`` with ``mu=`` (so3, sphere:N, latlon, circle, timeofday) releases the same Fréchet
    mean with Riemannian Gaussian noise (density ∝ exp(−d²/2σ²)) at the smallest σ whose certified μ is at most
    ``mu``: μ-Gaussian DP up to a negligible δ, ``guarantee == {"notion": "gdp", "mu": mu, "delta": 2e-280}``
    (``docs/riemannian_gaussian.md``). μ = 1
    means telling two neighbouring data sets apart is as hard as telling N(0, 1) from N(1, 1); releases at μ₁,
    μ₂, … compose to √(Σ μᵢ²). ``epsilon=`` with ``delta=`` instead of ``mu=`` gives the largest μ that is
    (ε, δ)-DP (the exact GDP curve); ``epsilon=`` alone, ``conditioning=`` and ``estimator="extrinsic"`` are
    refused with it, as ``mu=`` is with the Laplace. At the same privacy its error is about half the Laplace's.
    On spd:K (K ≤ 8) with ``metric="log-euclidean"`` both means work in the flat log domain: the Laplace with
    ℓ₂ K-norm noise, the Gaussian with exact per-coordinate Gaussian cells at σ = Δ/μ, Δ = 2·radius/n
    (``docs/proofs/spd_log_euclidean_mean.md``). On spd:K (K ≤ 3) with the default affine-invariant metric the
    Gaussian is the exponential-wrapped Gaussian at the centre: exact Gaussian cells in the log chart there,
    σ = (Δ + 2e_F)/μ with the chart's float error e_F (§8 of the same proof).

    >>> res = mdp.mean(latlon, space="latlon", center=[48.86, 2.34], radius="200km", mechanism="gaussian", mu=1.0)
    >>> res.guarantee, res.sigma, res.expected_error     # {'notion': 'gdp', 'mu': 1.0, 'delta': 2e-280}, radians
    >>> mdp.mean(rot, space="so3", center="identity", radius="30deg", mechanism="gaussian", mu=0.5).mean  # Rotation

    ``seed`` (an integer) is for experiments only: it warns, and with ``ledger=`` it is refused.
    """
    space, format = args.text("space", space) or "", args.text("format", format)
    columns = args.names("columns", columns)
    epsilon, delta, mu = args.number("epsilon", epsilon), args.number("delta", delta), args.number("mu", mu)
    mechanism = args.text("mechanism", mechanism) or ""
    # Which budget goes with which mechanism is the core's rule (the command line's too).
    noise = _native.MeanNoise(mechanism, epsilon, delta, mu, conditioning)
    if estimator not in ("frechet", "extrinsic"):
        raise BadInputError(f"estimator={estimator!r}: use 'frechet' (a public ball) or 'extrinsic' (rows anywhere)")
    extrinsic_record = None
    if estimator == "extrinsic":
        # No ball, pure ε, a space it is defined on: the core's request (the command line's), and its ledger record.
        extrinsic_record = _native.extrinsic_request(
            space, _center_arg(space, center, format), _distance_text(radius), outside, format,
            None if columns is None else list(columns), metric,
            None if bounds is None else _mean_bounds(bounds, None)[0], noise, _source(x))
    seed = experiment_seed(seed, ledger is not None)
    _charge_plan(ledger, dataset)
    rotation_in = cv.is_rotation(x)
    if rotation_in:
        x, format = np.atleast_2d(x.as_quat()), "quat-xyzw"
    if isinstance(x, (pa.Table, pa.RecordBatch)) or cv.is_pandas(x):
        if cv.is_pandas(x):
            cv.check_frame(x)
        table = pa.Table.from_pandas(x, preserve_index=False) if cv.is_pandas(x) else x
        batch = table if isinstance(table, pa.RecordBatch) else _one_batch(table)
        cols, column_index, shape = (list(columns) if columns else None), False, None
    else:
        arr = cv.numeric(x)
        width, format = cv.array_width(space, format, arr.shape)
        batch, cols, column_index, shape = cv.array_to_batch(arr, width), cv.names(width), True, arr.shape
    if extrinsic_record is not None and noise.epsilon is not None:
        out = _extrinsic_release(extrinsic_record, batch, space, noise.epsilon, format, cols, column_index, seed,
                                 ledger, dataset, request_id, allow_unbudgeted)
        return _mean_result(out, _mean_form(out["mean"], space, shape, rotation_in), space)
    # A space without the mechanism's sampler is refused before the ledger is touched.
    plan, _ = _mean_plan(space, center, radius, outside, format, cols, metric, bounds, noise=noise)
    charge = None
    if ledger is not None:
        assert dataset is not None
        what = _mean_provenance("mean", space, center, radius, bounds, noise.epsilon, outside, columns, _source(x),
                                mu=noise.mu, format=format)
        charge = ledger._prepare(dataset, what, json.loads(plan.guarantee_for(noise)), request_id, allow_unbudgeted)
    # Refusals and warnings that depend only on the rows the mean is over, the radius and the budget come before
    # the Karcher iteration (the core's rule and wording): every row, or with outside="drop" the rows in the ball
    # (a counting pass, the fit's own placement).
    over = plan.count_inside([batch]) if outside == "drop" else batch.num_rows
    for note in plan.check_rows(over, noise, _distance_text(radius) or ""):
        warnings.warn(note, UserWarning, stacklevel=2)
    at, (_, used, dropped, clipped, problem, _, _) = plan.fit([batch])
    if problem is not None:
        _native.raise_rejected([problem], 0, column_index)
    out = _release_mean(space, plan, at, (used, dropped, clipped), noise.epsilon, conditioning, seed, charge,
                        noise=noise)
    return _mean_result(out, _mean_form(out["mean"], space, shape, rotation_in), space)


def _one_batch(table: pa.Table) -> pa.RecordBatch:
    """The table's rows as one record batch (a table with no rows has no batches: an empty one then)."""
    batches = table.combine_chunks().to_batches()
    if batches:
        return batches[0]
    return pa.RecordBatch.from_arrays([pa.array([], type=f.type) for f in table.schema], schema=table.schema)


def _mean_form(values: Any, space: str, shape: Any, rotation_in: bool) -> Any:
    """A released mean in the input's own form (``None`` stays ``None``)."""
    if values is None:
        return None
    m: Any = np.asarray(values, dtype=np.float64)
    if shape is not None and len(shape) == 3:
        m = m.reshape(shape[1:])
    elif space in ("circle", "timeofday") or (space == "real" and shape is not None and len(shape) == 1):
        m = float(m[0])
    if rotation_in:
        from scipy.spatial.transform import Rotation  # present: the input was one

        m = Rotation.from_quat(m)  # scalar-last, as the input was read
    return m


def _extrinsic_release(what: str, batch: Any, space: str, epsilon: float, format: Optional[str], cols: Any,
                       column_index: bool, seed: Optional[int], ledger: Optional[Ledger], dataset: Optional[str],
                       request_id: Optional[str], allow_unbudgeted: bool) -> Dict[str, Any]:
    """The extrinsic mean's release (``_native.extrinsic_mean``), checked against and recorded in ``ledger`` as
    ``what`` (the core's record of the request)."""
    charge = None
    if ledger is not None:
        assert dataset is not None
        charge = ledger._prepare(dataset, what, {"notion": "pure_dp", "epsilon": float(epsilon)}, request_id,
                                 allow_unbudgeted)
    text, problem = _native.extrinsic_mean(batch, space, float(epsilon), format, cols, seed)
    if problem is not None:
        _native.raise_rejected([problem], 0, column_index)
    out = json.loads(text)  # type: ignore[arg-type]
    if charge is not None:
        charge.record(out["guarantee"])
    for note in out["warnings"]:
        warnings.warn(note, stacklevel=4)
    out.update(conditioned=False, dropped=0, clipped=0, estimator="extrinsic", stable=out["error_bound"] is not None)
    return out
