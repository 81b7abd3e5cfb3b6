"""Type stubs of the native module (Rust, PyO3). The public API is in ``manifold_dp``; this module is its
thin core and may change between releases."""

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
import pyarrow as pa

class BudgetRefused(RuntimeError):
    missing: Optional[str]

class Mechanism:
    def __init__(
        self,
        space: str,
        mechanism: str,
        epsilon: Optional[float] = None,
        protect: Optional[str] = None,
        level: Optional[float] = None,
        concentration: Optional[float] = None,
        snap: Optional[str] = None,
        bounds: Optional[Tuple[float, float]] = None,
        values: int = 1,
        clamp_releases: bool = False,
    ) -> None: ...
    @property
    def space(self) -> str: ...
    @property
    def mechanism(self) -> str: ...
    @property
    def note(self) -> Optional[str]: ...
    @property
    def unit(self) -> Tuple[str, float]: ...
    def guarantee_json(self) -> str: ...
    def ledger_label(self, command: str, columns: Optional[Sequence[str]], source: str) -> str: ...
    def renyi_json(self, times: int, delta: float) -> str: ...
    def radius(self, p: float) -> float: ...
    def mean_error(self) -> float: ...
    def angle_cdf(self, angles: Sequence[float]) -> List[float]: ...
    def value_columns(self, schema: Any, format: Optional[str] = None) -> List[str]: ...
    def privatize_batch(
        self,
        batch: pa.RecordBatch,
        format: Optional[str] = None,
        columns: Optional[Sequence[str]] = None,
        output_format: Optional[str] = None,
        seed: Optional[int] = None,
        key: Optional[bytes] = None,
        first_row: int = 0,
        id_column: Optional[str] = None,
    ) -> Tuple[pa.RecordBatch, List[Tuple[int, Optional[str], str]]]: ...
    def privatize_array(
        self,
        values: np.ndarray,
        format: Optional[str] = None,
        seed: Optional[int] = None,
        key: Optional[bytes] = None,
        first_row: int = 0,
    ) -> Tuple[np.ndarray, List[Tuple[int, Optional[str], str]]]: ...
    def sample(
        self,
        n: int,
        center: Union[str, Sequence[float], None] = None,
        format: Optional[str] = None,
        seed: Optional[int] = None,
        key: Optional[bytes] = None,
    ) -> np.ndarray: ...

class Ledger:
    def __init__(self, path: str, create: bool = True) -> None: ...
    @property
    def path(self) -> str: ...
    def set_budgets(
        self,
        dataset: str,
        budgets_json: Sequence[str],
        overall: Optional[float] = None,
        local_approx: Optional[Tuple[float, float]] = None,
    ) -> str: ...
    def spent(self, dataset: str) -> str: ...
    def releases(self, dataset: Optional[str] = None) -> str: ...
    def check(
        self, dataset: str, guarantees_json: str, request_id: Optional[str] = None, allow_unbudgeted: bool = False
    ) -> str: ...
    def prepare(
        self,
        dataset: str,
        mechanism: str,
        guarantees_json: str,
        request_id: Optional[str] = None,
        allow_unbudgeted: bool = False,
    ) -> Charge: ...

class Charge:
    def record(self, guarantees_json: str) -> Optional[str]: ...
    @property
    def recorded(self) -> bool: ...
    @property
    def dataset(self) -> str: ...

def audit(
    space: str,
    mechanism: str,
    epsilon: Optional[float] = None,
    samples: Optional[int] = None,
    alpha: float = 1e-06,
    seed: Optional[int] = None,
    concentration: Optional[float] = None,
    protect: Optional[str] = None,
    level: Optional[float] = None,
    delta: Optional[float] = None,
    order: Optional[int] = None,
) -> str: ...
def natural_unit(space: str) -> Tuple[str, float]: ...
def fresh_key() -> bytes: ...
def raise_rejected(
    rejected: Sequence[Tuple[int, Optional[str], str]], offset: int = 0, column_index: bool = False
) -> None:
    """Raises the first rejected row as ``BadInputError`` with ``.row`` (numbered from ``offset``) and
    ``.column`` (an index for numpy arrays when ``column_index``); does nothing when there are none."""
def experiment_seed(seed: Any, ledger: bool = False) -> Optional[int]: ...

SEEDED_WARNING: str
def clock_hours(text: str) -> float: ...
def mean_warnings(
    space: str,
    used: int,
    dropped: int,
    clipped: int,
    expected_error: float,
    radius: float,
    rounding_cost: float,
    epsilon: float,
) -> List[str]: ...
__version__: str

def parse_distance(space: str, text: str) -> float: ...
def epsilon_for_radius(space: str, mechanism: str, radius: str, level: float) -> Tuple[float, str]: ...
def extrinsic_request(
    space: str,
    center: Union[str, Sequence[float], None],
    radius: Optional[str],
    outside: str,
    format: Optional[str],
    columns: Optional[Sequence[str]],
    metric: str,
    bounds: Optional[Sequence[Tuple[float, float]]],
    noise: MeanNoise,
    source: str,
) -> str: ...
def mean_ledger_label(
    command: str,
    space: str,
    center: Union[str, Sequence[float], None],
    radius: Optional[str],
    outside: str,
    columns: Optional[Sequence[str]],
    bounds: Optional[Tuple[Sequence[Tuple[float, float]], Optional[Sequence[str]]]],
    epsilon: Optional[float],
    mu: Optional[float],
    source: str,
) -> str: ...
Rejected = Tuple[int, Optional[str], str]
# (sum, used, dropped, clipped, problem, summation depth, Hessian sum)
Pass = Tuple[Optional[List[float]], int, int, int, Optional[Rejected], int, Optional[List[float]]]

class MeanNoise:
    def __init__(
        self,
        mechanism: Optional[str] = None,
        epsilon: Optional[float] = None,
        delta: Optional[float] = None,
        mu: Optional[float] = None,
        conditioning: str = "auto",
    ) -> None: ...
    @property
    def mechanism(self) -> str: ...
    @property
    def epsilon(self) -> Optional[float]: ...
    @property
    def mu(self) -> Optional[float]: ...

class MeanPlan:
    def __init__(
        self,
        space: str,
        center: Union[str, Sequence[float], None],
        radius: Optional[str],
        outside: str = "error",
        format: Optional[str] = None,
        columns: Optional[Sequence[str]] = None,
        metric: str = "affine",
        bounds: Optional[Sequence[Tuple[float, float]]] = None,
        noise: Optional[MeanNoise] = None,
    ) -> None: ...
    @property
    def radius(self) -> float: ...
    def start(self) -> List[float]: ...
    def run_pass(self, batch: pa.RecordBatch, base: Sequence[float], hessian: bool = False) -> Pass: ...
    def guarantee(self, epsilon: float) -> str: ...
    def start_from(self, parts: Sequence[Tuple[Sequence[float], int]]) -> List[float]: ...
    @staticmethod
    def merge(passes: Sequence[Pass]) -> Pass: ...
    def step(self, base: Sequence[float], summed: Pass, iterations: int) -> Tuple[bool, Optional[List[float]]]: ...
    def release(
        self,
        mean: Sequence[float],
        n: int,
        epsilon: float,
        conditioning: str = "auto",
        seed: Optional[int] = None,
    ) -> str: ...
    def check(self, n: int, epsilon: float, conditioning: str = ...) -> None: ...
    def guarantee_for(self, noise: MeanNoise) -> str: ...
    def check_noise(self, n: int, noise: MeanNoise) -> None: ...
    def check_rows(self, n: int, noise: MeanNoise, radius: str) -> List[str]: ...
    def count_inside(self, batches: Sequence[pa.RecordBatch]) -> int: ...
    def release_with(self, mean: Sequence[float], n: int, noise: MeanNoise, seed: Optional[int] = None) -> str: ...
    def fit(self, batches: Sequence[pa.RecordBatch], rough: bool = False) -> Tuple[List[float], Pass]: ...

def extrinsic_mean(
    batch: pa.RecordBatch,
    space: str,
    epsilon: float,
    format: Optional[str] = None,
    columns: Optional[Sequence[str]] = None,
    seed: Optional[int] = None,
) -> Tuple[Optional[str], Optional[Rejected]]: ...

class DrawUnrepresentable(ValueError): ...
