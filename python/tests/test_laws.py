"""The noise laws, seen from Python: the distance between release and input follows the exact law of the
mechanism (one-sample Kolmogorov–Smirnov against the library's exact CDF). Each test fails with probability
at most 1e-6 when the sampler is right (the exact distribution of the KS statistic, scipy's ``kstwo``), and
a negative control (releases at a 15 % larger epsilon, tested against the claimed law) shows the test
catches a wrong sampler."""

import numpy as np
import pytest
from scipy.stats import kstwo

import manifold_dp as mdp

ALPHA = 1e-6
N = 20_000


def so3_angles(q_xyzw):
    return 2.0 * np.arccos(np.clip(np.abs(q_xyzw[:, 3]), 0.0, 1.0))


def sphere_angles(x, center):
    # atan2 of the chord halves: accurate near 0 and pi.
    return 2.0 * np.arctan2(np.linalg.norm(x - center, axis=1), np.linalg.norm(x + center, axis=1))


def ks_pvalue(angles, mech):
    cdf = np.asarray(mech._native.angle_cdf(list(angles)))
    cdf_sorted = np.sort(cdf)
    n = len(cdf_sorted)
    i = np.arange(1, n + 1)
    d = max(np.max(i / n - cdf_sorted), np.max(cdf_sorted - (i - 1) / n))
    return kstwo.sf(d, n)


CASES = [
    ("so3", "laplace", 2.0),
    ("so3", "bingham", 3.0),
    ("sphere:3", "purkayastha", 2.0),
    ("sphere:3", "vmf", 4.0),
    ("circle", "wrapped-laplace", 1.5),
    ("sphere:5", "purkayastha", 3.0),
]


def draw(space, mechanism, epsilon, seed):
    if space == "so3":
        return so3_angles(mdp.sample(space, mechanism, N, epsilon=epsilon, seed=seed))
    if space == "circle":
        z = mdp.sample(space, mechanism, N, epsilon=epsilon, seed=seed)
        return np.abs(np.angle(np.exp(1j * z)))
    n = int(space.split(":")[1])
    center = np.eye(n)[0]
    return sphere_angles(mdp.sample(space, mechanism, N, epsilon=epsilon, seed=seed), center)


@pytest.mark.parametrize("space,mechanism,epsilon", CASES)
def test_release_distances_follow_the_exact_law(space, mechanism, epsilon):
    mech = mdp.Mechanism(space, mechanism, epsilon)
    p = ks_pvalue(draw(space, mechanism, epsilon, seed=7), mech)
    assert p > ALPHA, f"{space} {mechanism}: KS p = {p:.3g}"


@pytest.mark.parametrize("space,mechanism,epsilon", CASES)
def test_negative_control_a_wrong_epsilon_is_caught(space, mechanism, epsilon):
    mech = mdp.Mechanism(space, mechanism, epsilon)
    p = ks_pvalue(draw(space, mechanism, epsilon * 1.15, seed=8), mech)
    assert p < ALPHA, f"{space} {mechanism}: the KS test missed a 15% epsilon error (p = {p:.3g})"


def test_auto_picks_the_most_accurate_mechanism_and_a_poor_pick_warns():
    import warnings

    mech = mdp.Mechanism("latlon", "auto", protect="5km", level=1)
    assert mech.mechanism == "purkayastha" and "vmf: expected error 223" in mech.why
    with pytest.warns(UserWarning, match=r"vmf moves points 22\.\d+× farther than purkayastha"):
        mdp.Mechanism("latlon", "vmf", protect="5km", level=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the better choice is silent
        assert mdp.Mechanism("so3", "laplace", epsilon=1.0).why is None
