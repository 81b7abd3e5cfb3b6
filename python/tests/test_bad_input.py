"""Bad input raises BadInputError (a ValueError) naming the row (0-based) and the column; nothing is
returned, nothing is modified."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import manifold_dp as mdp

LAPLACE = mdp.Mechanism("so3", "laplace", epsilon=1.0)


def bad(call, row=None, column=None, text=None):
    with pytest.raises(mdp.BadInputError) as e:
        call()
    assert isinstance(e.value, ValueError)
    assert e.value.row == row and e.value.column == column, (e.value.row, e.value.column, str(e.value))
    if text:
        assert text in str(e.value), str(e.value)
    return e.value


def test_nan_and_non_unit_rows_are_named():
    q = np.tile([0.0, 0.0, 0.0, 1.0], (5, 1))
    q[3, 2] = np.nan
    bad(lambda: LAPLACE.privatize(q, format="quat-xyzw"), row=3, column=2, text="not a finite number")
    q = np.tile([0.0, 0.0, 0.0, 1.0], (5, 1))
    q[1] = [0.5, 0.0, 0.0, 0.5]
    bad(lambda: LAPLACE.privatize(q, format="quat-xyzw"), row=1, text="norm")
    places = np.array([[10.0, 20.0], [95.0, 0.0]])
    bad(lambda: mdp.privatize(places, space="latlon", mechanism="vmf", epsilon=1), row=1, column=0, text="latitude")
    df = pd.DataFrame({"lat": [1.0, 2.0], "lon": [3.0, 400.0]})
    bad(lambda: mdp.privatize(df, space="latlon", mechanism="vmf", epsilon=1, columns=["lat", "lon"]), 1, "lon")


def test_shapes_types_and_empty_arrays():
    bad(lambda: LAPLACE.privatize(np.zeros((3, 4))), text="format=")
    bad(lambda: LAPLACE.privatize(np.zeros((3, 5)), format="quat-xyzw"), text="shape")
    bad(lambda: mdp.privatize(np.zeros((3, 2)), space="circle", mechanism="vmf", epsilon=1), text="shape")
    bad(lambda: LAPLACE.privatize(np.array([["a", "b", "c", "d"]]), format="quat-xyzw"), text="dtype")
    bad(lambda: LAPLACE.privatize(np.zeros((0, 4)), format="quat-xyzw"), text="no rows")
    bad(lambda: LAPLACE.privatize(np.zeros((2, 4)), format="quat-abcd"), text="unknown rotation format")


def test_bad_parameters():
    bad(lambda: mdp.sample("so3", "laplace", 10**12, epsilon=1.0), text="n must be")
    bad(lambda: mdp.sample("so3", "laplace", 0, epsilon=1.0), text="n must be")
    bad(lambda: mdp.Mechanism("torus", "laplace", epsilon=1), text="unknown space")
    bad(lambda: mdp.Mechanism("so3", "vmf", epsilon=1), text="is for spheres")
    bad(lambda: mdp.Mechanism("so3", "laplace", epsilon=-1), text="epsilon")
    bad(lambda: mdp.Mechanism("so3", "laplace"), text="budget")
    bad(lambda: mdp.Mechanism("latlon", "vmf", protect="2", level=1), text="unit")
    bad(lambda: mdp.Mechanism("so3", "laplace", epsilon=1).radius(1.5))


def test_missing_columns_in_tables():
    t = pa.table({"a": [1.0], "b": [2.0]})
    bad(lambda: LAPLACE.privatize(t), text="no column")
    df = pd.DataFrame({"a": [1.0]})
    bad(lambda: LAPLACE.privatize(df, columns=["w", "x", "y", "z"]), column="w")


def test_the_native_core_raises_bad_input_itself():
    """The native module raises the package's BadInputError (with .row and .column where a row is at fault), so no
    front end has to translate its ValueErrors; a bare ValueError would fail here."""
    from manifold_dp import _native

    with pytest.raises(mdp.BadInputError) as e:
        _native.Mechanism("so3", "laplace", -1.0, None, None, None, None, None, 1, False)
    assert e.value.row is None and "epsilon" in str(e.value)
    native = _native.Mechanism("latlon", "vmf", 1.0, None, None, None, None, None, 1, False)
    _, rejected = native.privatize_array(np.array([[10.0, 20.0], [95.0, 0.0], [91.0, 0.0]]), None, 1, None, 0)
    with pytest.raises(mdp.BadInputError) as e:
        _native.raise_rejected(rejected, 10, True)
    assert (e.value.row, e.value.column) == (11, 0)
    assert str(e.value).startswith("row 11, column 0: latitude") and "(2 invalid rows in all)" in str(e.value)
    _native.raise_rejected([], 0, False)  # nothing rejected: nothing raised
