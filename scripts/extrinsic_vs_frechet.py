#!/usr/bin/env python3
"""The private extrinsic mean against the private Fréchet (Riemannian Laplace) mean, at small and large spread.

Rows are drawn around a known centre c; each estimator releases a mean at ε = 1, and the error is the angle
(degrees; the rotation angle on SO(3), the great-circle angle on S²) between the release and c, averaged over
repetitions (with its standard error). The Fréchet mean gets the best public ball it could have: centred on c,
radius 20° at small spread (every row inside); at large spread no ball below its limit (90° on SO(3), 45° on
spheres) holds the data, so it uses the widest allowed ball (89°, 44°) with outside="clip" — the only way it can
release at all — while the extrinsic mean takes the rows as they are. Also printed: the extrinsic releases' mean
stated 95 % error bound (against the exact extrinsic mean of the rows, not c), the share of them flagged unstable,
and the error of the exact (non-private) extrinsic mean, which is sampling alone.

    python3 scripts/extrinsic_vs_frechet.py [--reps 40] > docs/extrinsic_mean_table.md

Seeded (experiments only); needs the manifold_dp package (scripts/test.sh, or maturin develop), numpy, scipy.
"""
import argparse
import warnings

import numpy as np
from scipy.spatial.transform import Rotation

import manifold_dp as mdp

warnings.simplefilter("ignore")  # seeded runs warn; clipped means and unstable projections warn by design


def so3_rows(rng, n, spread_deg):
    """Rotations c·exp(v): axis uniform, angle uniform in [0, spread] (so up to `spread` from c)."""
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    angle = np.radians(spread_deg) * rng.uniform(size=(n, 1))
    return CENTRE_SO3 * Rotation.from_rotvec(axis * angle)


def s2_rows(rng, n, spread_deg):
    """Unit vectors uniform on the cap of angular radius `spread` around c = the north pole (90° = a hemisphere)."""
    z = rng.uniform(np.cos(np.radians(spread_deg)), 1.0, size=n)
    phi = rng.uniform(0, 2 * np.pi, size=n)
    r = np.sqrt(1 - z * z)
    return np.column_stack([r * np.cos(phi), r * np.sin(phi), z])


CENTRE_SO3 = Rotation.from_euler("z", 150, degrees=True)
CENTRE_S2 = np.array([0.0, 0.0, 1.0])


def error_so3(release):
    return float(np.degrees((release.inv() * CENTRE_SO3).magnitude()))


def error_s2(release):
    return float(np.degrees(np.arccos(np.clip(np.asarray(release) @ CENTRE_S2, -1, 1))))


def exact_extrinsic(space, x):
    """The non-private extrinsic mean: the nearest rotation to the mean matrix (SVD), or the normalised mean."""
    if space == "so3":
        u, _, vt = np.linalg.svd(x.as_matrix().mean(axis=0))
        return Rotation.from_matrix(u @ np.diag([1, 1, np.linalg.det(u @ vt)]) @ vt)
    m = x.mean(axis=0)
    return m / np.linalg.norm(m)


def run(space, spread, n, reps, eps):
    rows, err = (so3_rows, error_so3) if space == "so3" else (s2_rows, error_s2)
    limit = 89 if space == "so3" else 44
    radius = min(spread, limit)
    centre = CENTRE_SO3 if space == "so3" else CENTRE_S2.tolist()
    sp = "so3" if space == "so3" else "sphere:3"
    fre, ext, exact, bounds, unstable = [], [], [], [], 0
    for rep in range(reps):
        rng = np.random.default_rng(1000 * rep + n)
        x = rows(rng, n, spread)
        f = mdp.mean(x, space=sp, center=centre, radius=f"{radius}deg", epsilon=eps,
                     outside="clip" if spread > radius else "error", seed=2 * rep + 1)
        e = mdp.mean(x, space=sp, estimator="extrinsic", epsilon=eps, seed=2 * rep + 2)
        exact.append(err(exact_extrinsic(space, x)))
        fre.append(err(f.mean))
        ext.append(err(e.mean))
        if e.error_bound is None:
            unstable += 1
        else:
            bounds.append(np.degrees(e.error_bound))
    se = lambda v: np.std(v, ddof=1) / np.sqrt(len(v))  # noqa: E731
    ball = f"{radius}°" + (" clip" if spread > radius else "")
    return (f"| {space} | {spread}° | {n} | {ball} | {np.mean(fre):.3g} ± {se(fre):.2g} | "
            f"{np.mean(ext):.3g} ± {se(ext):.2g} | {np.mean(exact):.3g} | "
            f"{np.mean(bounds) if bounds else float('nan'):.3g} | {unstable}/{reps} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=40)
    ap.add_argument("--epsilon", type=float, default=1.0)
    a = ap.parse_args()
    print(f"Mean angle (degrees) between the release and the data's centre, ε = {a.epsilon}, {a.reps} repetitions "
          "(± one standard error).\n")
    print("| space | spread | n | Fréchet ball | Fréchet error | extrinsic error | exact extrinsic mean's error "
          "(sampling) | extrinsic 95 % bound | extrinsic unstable |")
    print("|---|---|---|---|---|---|---|---|---|")
    for space, large in (("so3", 150), ("s2", 90)):
        for spread in (20, large):
            for n in (100, 1000, 10000):
                print(run(space, spread, n, a.reps, a.epsilon), flush=True)


if __name__ == "__main__":
    main()
