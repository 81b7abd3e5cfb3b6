"""The float-safe real Laplace against its peers, in one run: numpy's raw `clip + rng.laplace`
(not float-safe), OpenDP's float-safe vector Laplace, and this package's
`mdp.privatize(x, space="real", mechanism="laplace", bounds=(0, 100), epsilon=1)` (scale 100 everywhere).

Usage: python bench_laplace_peers.py [N] [N_OPENDP]   (run by scripts/bench_laplace_peers.sh)
Environment: BEFORE_PATH names a second copy of the package (say, an earlier commit's), timed in a child process
in the same run. Prints one JSON object: rows/s (median of the repeats) and ratios to numpy.
"""

import json
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
N_OPENDP = int(sys.argv[2]) if len(sys.argv) > 2 else 200_000
REPEATS = 5
LO, HI, EPS = 0.0, 100.0, 1.0
SCALE = (HI - LO) / EPS


def median_rate(n, f, repeats=REPEATS):
    rates = []
    for _ in range(repeats):
        start = time.perf_counter()
        f()
        rates.append(n / (time.perf_counter() - start))
    return statistics.median(rates)


def package_rate(x):
    warnings.simplefilter("ignore")  # seed= warns that it is for experiments only
    import manifold_dp as mdp

    return median_rate(
        len(x), lambda: mdp.privatize(x, space="real", mechanism="laplace", bounds=(LO, HI), epsilon=EPS, seed=7)
    )


def main():
    if os.environ.get("CHILD_PACKAGE_ONLY"):
        x = np.random.default_rng(1).uniform(LO, HI, N)
        print(package_rate(x))
        return
    x = np.random.default_rng(1).uniform(LO, HI, N)
    rng = np.random.default_rng(2)
    out = {"rows": N, "opendp_rows": N_OPENDP}
    out["numpy_raw"] = median_rate(N, lambda: np.clip(x, LO, HI) + rng.laplace(0.0, SCALE, N))
    out["manifold_dp"] = package_rate(x)
    before = os.environ.get("BEFORE_PATH")
    if before:
        env = dict(os.environ, PYTHONPATH=before, CHILD_PACKAGE_ONLY="1")
        child = subprocess.run([sys.executable, __file__, str(N)], env=env, capture_output=True, text=True, check=True)
        out["manifold_dp_before"] = float(child.stdout.strip())
    # Interleaved: numpy again after the package, so that a change in the machine's load shows.
    out["numpy_raw_again"] = median_rate(N, lambda: np.clip(x, LO, HI) + rng.laplace(0.0, SCALE, N))
    import opendp.prelude as dp

    dp.enable_features("contrib")
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.l1_distance(T=float)
    laplace = dp.m.make_laplace(*space, scale=SCALE)
    assert laplace.map(HI - LO) <= EPS
    xs = list(np.clip(x[:N_OPENDP], LO, HI))
    out["opendp"] = median_rate(N_OPENDP, lambda: laplace(xs), repeats=3)
    numpy = statistics.mean([out["numpy_raw"], out["numpy_raw_again"]])
    for k in ["manifold_dp", "manifold_dp_before", "opendp"]:
        if k in out:
            out[k + "_over_numpy"] = out[k] / numpy
    out["manifold_dp_over_opendp"] = out["manifold_dp"] / out["opendp"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
