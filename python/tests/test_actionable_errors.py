"""Errors a user can act on: each case raises BadInputError (or warns) in the user's terms, never a bare
IndexError, a parser's complaint about its own input, or a message that contradicts itself."""

import math
import re

import numpy as np
import pyarrow as pa
import pytest

import manifold_dp as mdp


def test_a_mean_of_a_table_with_no_rows_says_there_are_none():
    empty = pa.table({c: pa.array([], pa.float64()) for c in "wxyz"})
    with pytest.raises(mdp.BadInputError, match="no rows"):
        mdp.mean(empty, space="so3", epsilon=1.0, radius="20deg", center=[1.0, 0.0, 0.0, 0.0])


def test_an_spd_matrix_beyond_double_precision_is_ill_conditioned_not_indefinite():
    rows = np.array([[[1e300, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 1.0]]])
    with pytest.raises(mdp.BadInputError) as e:
        mdp.mean(rows, space="spd:2", epsilon=1.0, radius=1.5, center=np.eye(2))
    assert "too ill-conditioned" in str(e.value) and "condition number 1e300" in str(e.value), str(e.value)
    assert "not positive definite" not in str(e.value)
    assert e.value.row == 0


def test_a_centre_of_the_wrong_length_says_how_many_numbers_the_space_needs():
    pts = np.array([[48.0, 2.0], [48.1, 2.1]])
    with pytest.raises(mdp.BadInputError, match=r"the centre needs 2 coordinates on latlon \(lat,lon\), got 1"):
        mdp.mean(pts, space="latlon", epsilon=1.0, radius="100km", center=[48.0])


@pytest.mark.parametrize("value", [math.inf, -math.inf, math.nan])
def test_a_budget_that_is_not_finite_is_named(tmp_path, value):
    ledger = mdp.Ledger(tmp_path / "l.sqlite")
    with pytest.raises(mdp.BadInputError, match="invalid epsilon = .*must be a finite number"):
        ledger.set_budget("d", {"notion": "pure_dp", "epsilon": value})
    with pytest.raises(mdp.BadInputError, match="invalid epsilon"):
        ledger.may_release("d", {"notion": "pure_dp", "epsilon": value})


def test_metric_budgets_take_the_space_names_users_know(tmp_path):
    ledger = mdp.Ledger(tmp_path / "l.sqlite")
    spent = ledger.set_budget("d", {"notion": "metric_dp", "epsilon": 0.5, "metric": "latlon", "unit": "km"})
    local = [n for n in spent["notions"] if n["notion"] == "metric"]
    assert local and local[0]["budget"]["metric"] == "sphere_surface" and local[0]["budget"]["unit"] == "km"
    assert "metric" in (mdp.Ledger.__doc__ or "") and "sphere_surface" in (mdp.Ledger.__doc__ or "")


def test_second_timestamps_beyond_the_nanosecond_range_are_times_of_day_not_nulls():
    # 10¹¹ s is the year 5138, beyond what a nanosecond timestamp holds; it is still a time of day (10:03:20).
    t = pa.table({"t": pa.array([0, 10**11, 3600], type=pa.timestamp("s"))})
    out = mdp.privatize(t, space="timeofday", mechanism="purkayastha", epsilon=1.0, columns=["t"])
    assert out.column("t").null_count == 0
    dates = [v.as_py().date() for v in out.column("t")]
    # The date never moves: the release changes the time of day only.
    assert dates[1].year == 5138 and dates[0].year == 1970, dates


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: mdp.Mechanism("so3", "laplace", epsilon="1"), "epsilon='1'"),
        (lambda: mdp.Mechanism("so3", "laplace", epsilon=[1]), "epsilon=[1]"),
        (lambda: mdp.Mechanism(3, "laplace", epsilon=1), "space=3"),
        (lambda: mdp.Mechanism("so3", "laplace", protect="1deg", level="1"), "level='1'"),
        (lambda: mdp.Mechanism("so3", "laplace", epsilon=True), "epsilon=True"),
        (lambda: mdp.privatize(np.array([[1.0, 0, 0, 0]]), space="so3", mechanism="laplace", epsilon=1,
                               format=3), "format=3"),
        (lambda: mdp.privatize(np.array([[1.0, 0, 0, 0]]), space="so3", mechanism="laplace", epsilon=1,
                               format="quat-wxyz", columns="wxyz"), "columns='wxyz'"),
        (lambda: mdp.privatize(np.array([1.0]), space="real", mechanism="laplace", epsilon=1, bounds=(0,)),
         "bounds=(0,)"),
        (lambda: mdp.mean(np.array([[1.0, 0, 0, 0]]), space="so3", epsilon="1", radius="10deg"), "epsilon='1'"),
        (lambda: mdp.audit("so3", "laplace", epsilon=1, samples="1000"), "samples='1000'"),
        (lambda: mdp.sample("so3", "laplace", 2.5, epsilon=1.0), "n=2.5"),
    ],
)
def test_a_wrong_type_names_the_argument(call, name):
    with pytest.raises(TypeError) as e:
        call()
    assert str(e.value).startswith(name), str(e.value)


def test_frame_column_layouts_a_table_cannot_hold_are_named():
    import pandas as pd

    dup = pd.DataFrame([[48.0, 2.0, 1.0]], columns=["lat", "lon", "lat"])
    multi = pd.DataFrame([[48.0, 2.0]], columns=pd.MultiIndex.from_tuples([("p", "lat"), ("p", "lon")]))
    numbered = pd.DataFrame([[48.0, 2.0]])
    for frame, text in [(dup, "two columns named 'lat'"), (multi, "MultiIndex columns"),
                        (numbered, "column names must be text")]:
        with pytest.raises(mdp.BadInputError, match=text):
            mdp.privatize(frame, space="latlon", mechanism="auto", epsilon=1.0)
        with pytest.raises(mdp.BadInputError, match=text):
            mdp.mean(frame, space="latlon", epsilon=1.0, center=[48.0, 2.0], radius="100km")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, 'give a budget: epsilon=E (per radian) or protect="DISTANCE" level=L'),
        ({"protect": "10deg"}, "protect= needs level=L"),
        ({"level": 1.0}, 'level= goes with protect="DISTANCE"'),
        ({"epsilon": 1.0, "concentration": 2.0}, "give one budget"),
        ({"protect": "10km", "level": 1.0}, 'protect="10km": '),
        ({"epsilon": 1.0, "bounds": (0.0, 1.0)}, 'bounds=(LO, HI) goes with space="real"'),
        ({"epsilon": 1.0, "clamp_releases": True}, "clamp_releases=True applies to"),
    ],
)
def test_a_request_is_refused_by_the_core_rule_in_python_keywords(kwargs, message):
    # The rule and its wording are the core's (the command line shows the same text with --flags).
    with pytest.raises(mdp.BadInputError, match=re.escape(message)):
        mdp.Mechanism("so3", "laplace", **kwargs)


def test_real_takes_laplace_and_epsilon_alone():
    with pytest.raises(mdp.BadInputError, match='mechanism="vmf": space real has one mechanism here, laplace'):
        mdp.Mechanism("real", "vmf", epsilon=1.0, bounds=(0.0, 1.0))
    with pytest.raises(mdp.BadInputError, match=r'space="real" takes epsilon=E \(pure DP per row\), not protect='):
        mdp.Mechanism("real", "laplace", protect="1", level=1.0, bounds=(0.0, 1.0))


def test_audit_reads_protect_in_the_space_units_and_the_core_defaults():
    # The command line's rules and defaults, from the same core request: protect="2km" on latlon is
    # ε = R/2 per radian; samples below 1000 are refused naming the keyword; spd:K defaults to 20 000 draws.
    r = mdp.audit("latlon", "purkayastha", protect="2km", level=1.0, samples=1000, seed=1)
    assert r.epsilon == pytest.approx(6371.0088 / 2.0, rel=1e-6)
    with pytest.raises(mdp.BadInputError, match="samples=500 is out of range"):
        mdp.audit("so3", "laplace", epsilon=1.0, samples=500)
    with pytest.raises(mdp.BadInputError, match="protect=.* and level=L go together"):
        mdp.audit("so3", "laplace", protect="10deg")


def test_epsilon_for_radius_inverts_radius_from_the_core_request():
    eps = mdp.epsilon_for_radius("latlon", "purkayastha", "2km", probability=0.9)
    assert mdp.radius("latlon", "purkayastha", epsilon=eps, probability=0.9) == pytest.approx(2.0, rel=1e-6)
    # The core's refusals, in Python's keywords.
    with pytest.raises(mdp.BadInputError, match='mechanism="auto": solving epsilon for a radius needs one mechanism'):
        mdp.epsilon_for_radius("latlon", "auto", "2km")
    with pytest.raises(mdp.BadInputError, match='radius="2": '):
        mdp.epsilon_for_radius("latlon", "purkayastha", "2")


def test_the_ledger_records_the_command_lines_text(tmp_path):
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("trips", {"notion": "metric_dp", "epsilon": 10.0, "metric": "latlon", "unit": "km"},
                   {"notion": "pure_dp", "epsilon": 5.0})
    points = np.array([[48.85, 2.35], [48.86, 2.34]])
    mech = mdp.Mechanism("latlon", "purkayastha", protect="2km", level=1)
    mech.privatize(points, ledger=led, dataset="trips")
    mdp.mean(points, space="latlon", center=[48.85, 2.35], radius="50km", epsilon=1.0, ledger=led, dataset="trips")
    local, central = (r["mechanism"] for r in led.releases("trips"))
    assert local.startswith("privatize latlon purkayastha --protect 2km --level 1: "), local
    assert central.startswith("mean latlon --center 48.85,2.35 --radius 50km --epsilon 1 --outside error: "), central
