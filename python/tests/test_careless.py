"""Careless use: a seed is an integer (a bool is refused), a seeded call warns every time, and
a seed with a ledger is refused before any work or charge, as on the command line."""

import numpy as np
import pytest

import manifold_dp as mdp

ANGLES = np.array([0.1, 0.2, 0.3])


@pytest.mark.parametrize("seed", [True, False, 1.5, "7"])
def test_a_seed_is_an_integer(seed):
    with pytest.raises(TypeError, match="seed"):
        mdp.privatize(ANGLES, space="circle", mechanism="purkayastha", epsilon=1.0, seed=seed)
    with pytest.raises(TypeError, match="seed"):
        mdp.mean(ANGLES, space="circle", center=0.0, radius="40deg", epsilon=1.0, seed=seed)
    with pytest.raises(TypeError, match="seed"):
        mdp.sample("circle", "purkayastha", 2, epsilon=1.0, seed=seed)


def test_a_seed_is_in_range():
    with pytest.raises(mdp.BadInputError, match="2\\*\\*64"):
        mdp.privatize(ANGLES, space="circle", mechanism="purkayastha", epsilon=1.0, seed=-1)


def test_every_seeded_call_warns_and_numpy_integers_are_seeds():
    for _ in range(2):
        with pytest.warns(UserWarning, match="seeded run, for experiments only"):
            a = mdp.privatize(ANGLES, space="circle", mechanism="purkayastha", epsilon=1.0, seed=np.int64(3))
    with pytest.warns(UserWarning, match="seeded run"):
        b = mdp.privatize(ANGLES, space="circle", mechanism="purkayastha", epsilon=1.0, seed=3)
    assert np.array_equal(a, b)
    with pytest.warns(UserWarning, match="seeded run"):
        mdp.mean(ANGLES, space="circle", center=0.0, radius="40deg", epsilon=1e3, seed=1)
    with pytest.warns(UserWarning, match="seeded run"):
        mdp.sample("circle", "purkayastha", 2, epsilon=1.0, seed=1)


def test_a_seed_with_a_ledger_is_refused_before_any_charge(tmp_path):
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("angles", {"notion": "pure_dp", "epsilon": 100.0})
    with pytest.raises(mdp.BadInputError, match="seeded run cannot be charged to a privacy ledger"):
        mdp.privatize(ANGLES, space="circle", mechanism="purkayastha", epsilon=1.0, seed=1, ledger=led,
                      dataset="angles")
    with pytest.raises(mdp.BadInputError, match="seeded run cannot be charged"):
        mdp.mean(ANGLES, space="circle", center=0.0, radius="40deg", epsilon=1.0, seed=0, ledger=led,
                 dataset="angles")
    assert led.releases("angles") == []
