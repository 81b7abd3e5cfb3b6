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


KM = {"notion": "metric_dp", "epsilon": 0.5, "metric": "sphere_surface", "unit": "km"}
AIRPORTS = np.array([[48.85, 2.35], [48.86, 2.33], [48.84, 2.36], [48.85, 2.34]] * 10)


def test_the_analysts_workflow_from_python(tmp_path):
    """A 5 km local release and two central means at ε = 1 on one label with a 0.5/km local and a
    pure-2 central budget; a third mean and a 3 km release are refused; nothing refused is recorded."""
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("airports", {"notion": "pure_dp", "epsilon": 2.0}, KM)
    mech = mdp.Mechanism("latlon", "purkayastha", protect="5km", level=1)
    assert led.may_release("airports", mech)["allowed"]
    mech.privatize(AIRPORTS, ledger=led, dataset="airports")
    kw = dict(space="latlon", center=[48.85, 2.35], radius="50km", epsilon=1.0, ledger=led, dataset="airports")
    for _ in range(2):
        res = mdp.mean(AIRPORTS, **kw)
        g = dict(res.guarantee)
        assert 0 < g.pop("delta") < 1e-290, "the sampler's negligible δ, stated (float_safety.md §6)"
        assert g == {"notion": "pure_dp", "epsilon": 1.0}, "ask ε, pay ε"
        assert 0 < res.rounding_cost and res.noise_epsilon + res.rounding_cost <= 1.0
    with pytest.raises(mdp.BudgetExceededError, match="pure total"):
        mdp.mean(AIRPORTS, **kw)
    three = mdp.Mechanism("latlon", "purkayastha", protect="3km", level=1)
    answer = led.may_release("airports", three)
    assert not answer["allowed"] and "metric:sphere_surface:km" in answer["refusal"]
    with pytest.raises(mdp.BudgetExceededError):
        three.privatize(AIRPORTS, ledger=led, dataset="airports")
    spent = led.spent("airports")
    assert spent["releases"] == 3
    pure = next(n for n in spent["notions"] if n["account"] == "pure")
    assert pure["total"]["epsilon"] == 2.0
    combined = spent["combined"]
    assert combined["local"]["epsilon"] == 0.2 and 2.0 < combined["constant"] < 2.01
    # The same provenance as the command line: command, space, mechanism, budget as given, and the source.
    what = [r["mechanism"] for r in led.releases("airports")]
    assert what[0] == "privatize latlon purkayastha --protect 5km --level 1: python array (40 rows)", what
    assert what[1] == ("mean latlon --center 48.85,2.35 --radius 50km --epsilon 1 --outside error: "
                       "python array (40 rows)")


def test_unbudgeted_kinds_are_refused(tmp_path):
    """A label with only a local km budget took central means."""
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("airports", KM)
    with pytest.raises(mdp.BudgetExceededError, match=r"none for central releases.*set_budget"):
        mdp.mean(AIRPORTS, space="latlon", center=[48.85, 2.35], radius="50km", epsilon=5.0, ledger=led,
                 dataset="airports")
    with pytest.raises(mdp.BudgetExceededError, match="cannot be expressed"):
        mdp.Mechanism("so3", "laplace", epsilon=100.0).privatize(
            np.array([[0.0, 0.0, 0.0, 1.0]]), format="quat-xyzw", ledger=led, dataset="airports")
    assert led.releases() == []


def test_a_ledger_keeps_its_absolute_path_and_refuses_a_replaced_file(tmp_path, monkeypatch):
    """``Ledger("budget.sqlite")`` re-resolved its relative path on every call, so after
    ``chdir`` releases were charged to another file."""
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    monkeypatch.chdir(first)
    led = mdp.Ledger("budget.sqlite")
    assert led.path == str(first / "budget.sqlite")
    led.set_budget("d", {"notion": "metric_dp", "epsilon": 10.0, "metric": "sphere_surface", "unit": "rad"})
    mdp.Ledger(second / "budget.sqlite").set_budget(
        "d", {"notion": "metric_dp", "epsilon": 10.0, "metric": "sphere_surface", "unit": "rad"})
    monkeypatch.chdir(second)
    mdp.Mechanism("circle", "purkayastha", epsilon=1.0).privatize(np.zeros(3), ledger=led, dataset="d")
    assert len(mdp.Ledger(first / "budget.sqlite").releases()) == 1
    assert mdp.Ledger(second / "budget.sqlite").releases() == []
    # A file that is no longer the one opened (moved away and replaced) is refused.
    (first / "budget.sqlite").rename(first / "moved.sqlite")
    mdp.Ledger(first / "budget.sqlite")
    with pytest.raises(mdp.BadInputError, match="no longer the ledger"):
        led.spent("d")


def test_python_charges_through_the_ledger_crates_protocol(tmp_path, monkeypatch):
    """Python checked and recorded with its own sequence of calls.
    Now every charge is one ``_native.Charge`` (the ledger crate's check → work → record): prepared once
    before any work, recorded once after it."""
    from manifold_dp import _native

    calls = []
    real = _native.Ledger.prepare

    def spy(self, *args, **kwargs):
        calls.append(args[1])
        return real(self, *args, **kwargs)

    monkeypatch.setattr(_native.Ledger, "prepare", spy, raising=False)
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("d", {"notion": "pure_dp", "epsilon": 5.0},
                   {"notion": "metric_dp", "epsilon": 10.0, "metric": "sphere_surface", "unit": "rad"})
    mdp.Mechanism("circle", "purkayastha", epsilon=1.0).privatize(np.zeros(3), ledger=led, dataset="d",
                                                                  request_id="job-1")
    mdp.mean(np.zeros(5), space="circle", center=0.0, radius="40deg", epsilon=1.0, ledger=led, dataset="d")
    assert [c.split(" ")[0] for c in calls] == ["privatize", "mean"]
    assert not hasattr(led, "_check") and not hasattr(led, "_record")
    assert [r["request_id"] for r in led.releases()] == ["job-1", None]


def test_repeated_local_releases_compose_in_renyi_dp_under_a_local_approx_budget(tmp_path):
    # VMF on S² at κ = 0.1: ε_p = 2κ + ε₀ ≈ 0.2 a release, so adding ε's admits 14 under ε = 3; the ledger's
    # local Rényi account admits 22 (as the command line does), then refuses.
    led = mdp.Ledger(tmp_path / "l.sqlite")
    mech = mdp.Mechanism("sphere:3", "vmf", epsilon=0.1)
    assert mech.guarantee["renyi"] == {"family": "vmf", "dim": 3, "kappa": 0.1}
    led.set_budget("pts", local_approx=(3.0, 1e-6))
    x = np.array([[1.0, 0.0, 0.0], [0.0, 0.6, 0.8]])
    admitted = 0
    for _ in range(60):
        try:
            mech.privatize(x, ledger=led, dataset="pts")
        except mdp.BudgetExceededError:
            break
        admitted += 1
    assert 20 <= admitted < 60, admitted
    assert len(led.releases("pts")) == admitted, "a refusal records nothing"
    spent = led.spent("pts")
    rdp = next(n for n in spent["notions"] if n["account"] == "local_rdp")
    assert rdp["total"]["notion"] == "approx_dp" and rdp["total"]["epsilon"] <= 3.0
    assert rdp["budget"] == {"notion": "approx_dp", "epsilon": 3.0, "delta": 1e-6}
    assert led.releases("pts")[0]["guarantees"][0]["renyi"] == mech.guarantee["renyi"]
