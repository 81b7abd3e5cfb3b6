"""Rényi curves of local releases from Python: the same keys and numbers as the command line, bounds that lie
above the closed-form divergence (VMF on S², ``docs/proofs/renyi_local.md``), and clear errors."""

import json
import math
import os
import subprocess

import pytest

import manifold_dp as mdp

CLI = os.environ.get("MANIFOLD_DP_CLI")


def test_many_releases_cost_far_less_than_linear():
    r = mdp.Mechanism("so3", "laplace", epsilon=0.1).renyi(1000)
    assert r["total"]["notion"] == "approx_dp" and r["total"]["delta"] == 1e-6
    assert 15 < r["total"]["epsilon"] < 30  # linear: 1000 · 0.1 · π ≈ 314
    assert r["releases"] == 1000 and r["mechanism"] == "laplace"
    assert len(r["orders"]) == len(r["epsilons"]) and r["order"] in r["orders"]
    assert all(a <= b * (1 + 1e-9) for a, b in zip(r["epsilons"], r["epsilons"][1:]))


def vmf_s2(kappa: float, alpha: float) -> float:
    def ln_shc(x: float) -> float:  # ln(sinh x / x)
        return x + math.log(-math.expm1(-2 * x) / (2 * x))

    return (ln_shc((2 * alpha - 1) * kappa) - ln_shc(kappa)) / (alpha - 1)


def test_the_curve_bounds_the_closed_form_and_a_wrong_one_is_caught():
    m = mdp.Mechanism("sphere:3", "vmf", epsilon=0.5)
    r = m.renyi(1)
    eps0 = m.guarantee.get("additive_epsilon", 0.0)
    for alpha, e in zip(r["orders"], r["epsilons"]):
        exact = vmf_s2(0.5, alpha)
        cap = min(1 + eps0, alpha * (1 + eps0) ** 2 / 2)  # the pure (and its zCDP) bounds
        assert e >= min(exact, cap) - 1e-12
        assert e <= exact + eps0 * (2 * alpha - 1) / (alpha - 1) + 2e-3 * (1 + exact) / min(alpha - 1, 1)
        # Control: the divergence of twice the concentration is not below this curve's bound: a curve that
        # claimed it would be caught by the first check.
        assert not vmf_s2(1.0, alpha) <= e


def test_bad_input_is_a_clear_error():
    m = mdp.Mechanism("so3", "bingham", epsilon=1.0)
    with pytest.raises(mdp.BadInputError, match="times"):
        m.renyi(0)
    with pytest.raises(mdp.BadInputError, match="delta"):
        m.renyi(10, delta=2.0)
    with pytest.raises(mdp.BadInputError, match="wrapped Laplace"):
        mdp.Mechanism("circle", "wrapped-laplace", epsilon=1.0).renyi(10)


@pytest.mark.skipif(CLI is None, reason="set MANIFOLD_DP_CLI to the manifold-dp binary (the test command does)")
def test_the_same_object_as_the_command_line():
    out = subprocess.run(
        [CLI, "budget", "compose", "--notion", "metric", "--metric", "so3", "--local-mechanism", "laplace", "0.1",
         "--times", "1000", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    assert json.loads(out)["renyi"] == mdp.Mechanism("so3", "laplace", epsilon=0.1).renyi(1000)
