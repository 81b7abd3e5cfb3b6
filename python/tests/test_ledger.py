"""The ledger from Python: checked before any work, charged once per release, refusals release nothing."""

import numpy as np
import pytest

import manifold_dp as mdp


def test_budgets_are_enforced_and_refusals_release_nothing(tmp_path):
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("trips", {"notion": "pure_dp", "epsilon": 1.0})
    x = np.eye(3)[:1].repeat(50, axis=0)
    res = mdp.mean(x, space="sphere:3", center=[1, 0, 0], radius="20deg", epsilon=0.6, ledger=led, dataset="trips")
    assert res.n == 50 and res.guarantee["notion"] == "pure_dp"
    assert len(led.releases("trips")) == 1
    with pytest.raises(mdp.BudgetExceededError):
        mdp.mean(x, space="sphere:3", center=[1, 0, 0], radius="20deg", epsilon=0.6, ledger=led, dataset="trips")
    assert len(led.releases("trips")) == 1, "a refusal records nothing"


def test_unbudgeted_labels_and_reused_request_ids_are_refused(tmp_path):
    led = mdp.Ledger(tmp_path / "l.sqlite")
    mech = mdp.Mechanism("circle", "vmf", epsilon=1.0)
    x = np.zeros(10)
    with pytest.raises(mdp.BudgetExceededError):
        mech.privatize(x, ledger=led, dataset="typo")
    assert led.releases() == []
    mech.privatize(x, ledger=led, dataset="typo", allow_unbudgeted=True, request_id="r1")
    with pytest.raises(mdp.BudgetExceededError):
        mech.privatize(x, ledger=led, dataset="typo", allow_unbudgeted=True, request_id="r1")
    assert len(led.releases()) == 1
    with pytest.raises(mdp.BadInputError):
        mech.privatize(x, ledger=led)


def test_bad_rows_are_refused_before_the_ledger_is_charged(tmp_path):
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("d", {"notion": "metric_dp", "epsilon": 10.0, "metric": "sphere_surface", "unit": "rad"})
    x = np.array([0.1, np.nan])
    with pytest.raises(mdp.BadInputError):
        mdp.Mechanism("circle", "purkayastha", epsilon=1.0).privatize(x, ledger=led, dataset="d")
    assert led.releases() == []
