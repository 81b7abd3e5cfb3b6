"""Assumption (L) of ``docs/proofs/float_safety.md`` measured: the C library's ``ln``, ``ln_1p``, ``exp``,
``exp_m1``, ``sin``, ``cos`` and ``atan2`` are within one ulp of the exact value. Python's ``math`` calls the same
libm the native module and the command line link (glibc on Linux), so this measures what releases run on. The
reference is mpmath at 160 bits; the arguments are seeded, over the ranges the releases use and beyond.

The proofs assume one ulp (two in (K)'s bounds); a function found above one ulp on any argument fails the test,
and the control (``exp`` made four ulps wrong) shows that the measurement would see it."""

import math
import random

import pytest

mp = pytest.importorskip("mpmath")

N = 10_000


def worst_ulps(f, exact, args):
    """The largest |f(a) − exact(a)| over the arguments, in ulps of the exact value."""
    worst = 0.0
    for a in args:
        y = exact(*[mp.mpf(v) for v in a])
        if y == 0 or not mp.isfinite(y):
            continue
        worst = max(worst, float(abs(mp.mpf(f(*a)) - y) / math.ulp(float(y))))
    return worst


def arguments(seed):
    rng = random.Random(seed)

    def uniform(lo, hi):
        return [(rng.uniform(lo, hi),) for _ in range(N)]

    def log_uniform(lo, hi):
        return [(math.exp(rng.uniform(math.log(lo), math.log(hi))),) for _ in range(N)]

    return {
        "exp": (math.exp, mp.exp, uniform(-700, 700) + uniform(-1, 1)),
        "exp_m1": (math.expm1, mp.expm1, uniform(-40, 40) + log_uniform(1e-300, 1)),
        "ln": (math.log, mp.log, log_uniform(1e-300, 1e300) + uniform(0.5, 2)),
        "ln_1p": (math.log1p, mp.log1p, log_uniform(1e-300, 1e10) + uniform(-0.999, 1)),
        "sin": (math.sin, mp.sin, uniform(-1e3, 1e3) + uniform(-4, 4)),
        "cos": (math.cos, mp.cos, uniform(-1e3, 1e3) + uniform(-4, 4)),
        "atan2": (math.atan2, mp.atan2, [(rng.uniform(-1, 1), rng.uniform(-1, 1)) for _ in range(N)]),
    }


def test_libm_is_within_one_ulp_where_the_proofs_assume_it():
    mp.mp.prec = 160
    measured = {name: worst_ulps(f, exact, args) for name, (f, exact, args) in arguments(2026).items()}
    assert all(v <= 1.0 for v in measured.values()), measured
    # The control: four ulps off is seen.
    wrong = lambda x: math.exp(x) * (1 + 8 * 2.0**-53)  # noqa: E731
    assert worst_ulps(wrong, mp.exp, arguments(2026)["exp"][2][:1000]) > 1.0
