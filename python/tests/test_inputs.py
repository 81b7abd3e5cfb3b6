"""Every input kind and space: round trips at the largest epsilon, shapes and types preserved, inputs never
modified, other columns unchanged."""

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from conftest import random_quats
from scipy.spatial.transform import Rotation

import manifold_dp as mdp

BIG = 1e6  # noise of about a microradian


def same_rotation(a, b, tol=1e-4):
    """Quaternion rows a and b are the same rotation (q and -q are one rotation)."""
    d = np.minimum(np.linalg.norm(a - b, axis=-1), np.linalg.norm(a + b, axis=-1))
    return np.all(d < tol)


def test_numpy_quaternions_round_trip_and_keep_the_input(rng):
    q = random_quats(rng, 500)
    before = q.copy()
    out = mdp.Mechanism("so3", "laplace", epsilon=BIG).privatize(q, format="quat-xyzw")
    assert out.shape == q.shape and out.dtype == np.float64
    assert np.array_equal(q, before), "the input must not be modified"
    assert same_rotation(out, q)
    # Fortran order and strided views are read correctly.
    f = np.asfortranarray(q)
    assert same_rotation(mdp.privatize(f, space="so3", mechanism="laplace", epsilon=BIG, format="quat-xyzw"), q)
    wide = np.concatenate([q, q], axis=0)[::2]
    assert same_rotation(mdp.privatize(wide, space="so3", mechanism="laplace", epsilon=BIG, format="quat-xyzw"), wide)


def test_every_rotation_format(rng):
    rot = Rotation.from_quat(random_quats(rng, 50))
    mech = mdp.Mechanism("so3", "laplace", epsilon=BIG)
    for fmt, values, back in [
        ("quat-wxyz", np.roll(rot.as_quat(), 1, axis=1), lambda v: Rotation.from_quat(np.roll(v, -1, axis=1))),
        ("rotvec", rot.as_rotvec(), Rotation.from_rotvec),
        ("euler:xyz", rot.as_euler("xyz"), lambda v: Rotation.from_euler("xyz", v)),
        ("matrix", rot.as_matrix(), Rotation.from_matrix),
    ]:
        out = mech.privatize(values, format=None if fmt == "matrix" else fmt)
        assert out.shape == values.shape, fmt
        assert np.all((back(out) * rot.inv()).magnitude() < 1e-3), fmt


@pytest.mark.filterwarnings("ignore:.*farther than")  # a less accurate mechanism on purpose
def test_scipy_rotation_in_rotation_out(rng):
    rot = Rotation.from_quat(random_quats(rng, 100))
    out = mdp.Mechanism("so3", "bingham", epsilon=BIG).privatize(rot)
    assert isinstance(out, Rotation) and len(out) == 100
    assert np.all((out * rot.inv()).magnitude() < 0.05)
    one = mdp.Mechanism("so3", "laplace", epsilon=BIG).privatize(Rotation.identity())
    assert isinstance(one, Rotation) and one.single


@pytest.mark.filterwarnings("ignore:.*farther than")  # a less accurate mechanism on purpose
def test_directions_in_their_units():
    angles = np.array([0.1, 3.0, 6.2])
    out = mdp.privatize(angles, space="circle", mechanism="purkayastha", epsilon=BIG)
    assert out.shape == (3,) and np.allclose(out, angles, atol=1e-4)
    hours = np.array([0.5, 13.25, 23.9])
    out = mdp.privatize(hours, space="timeofday", mechanism="wrapped-laplace", epsilon=BIG)
    assert np.allclose(out, hours, atol=1e-4)
    places = np.array([[48.85, 2.35], [-33.9, 151.2]])
    out = mdp.privatize(places, space="latlon", mechanism="purkayastha", epsilon=BIG)
    assert out.shape == (2, 2) and np.allclose(out, places, atol=1e-3)
    units = np.array([[0.0, 0.6, 0.8, 0.0]])
    out = mdp.privatize(units, space="sphere:4", mechanism="vmf", epsilon=BIG)
    assert np.allclose(out, units, atol=1e-2) and np.allclose(np.linalg.norm(out, axis=1), 1.0)


def test_pandas_frame_keeps_index_and_other_columns():
    df = pd.DataFrame(
        {"venue": ["a", "b", "c"], "lat": [48.85, 48.86, 48.87], "lon": [2.35, 2.36, 2.37], "n": [1, 2, 3]},
        index=[10, 20, 30],
    )
    before = df.copy()
    out = mdp.Mechanism("latlon", "purkayastha", protect="2km", level=1).privatize(df, columns=["lat", "lon"])
    assert isinstance(out, pd.DataFrame)
    pd.testing.assert_frame_equal(df, before)
    assert list(out.columns) == list(df.columns) and list(out.index) == [10, 20, 30]
    assert out["venue"].tolist() == ["a", "b", "c"] and out["n"].tolist() == [1, 2, 3]
    assert not np.allclose(out["lat"], df["lat"])
    # Clock times as text stay text, in their own form.
    times = pd.DataFrame({"t": ["13:30", "2024-05-01T08:00:00Z"], "k": [1, 2]})
    out = mdp.Mechanism("timeofday", "purkayastha", epsilon=BIG).privatize(times, columns=["t"])
    assert out["t"].tolist() == ["13:30", "2024-05-01T08:00:00Z"]


def test_arrow_table_and_batch_keep_their_type_and_columns(rng):
    q = random_quats(rng, 1000)
    table = pa.table({"id": np.arange(1000), "w": q[:, 3], "x": q[:, 0], "y": q[:, 1], "z": q[:, 2]})
    table = pa.Table.from_batches(table.to_batches(max_chunksize=300))
    mech = mdp.Mechanism("so3", "laplace", epsilon=BIG)
    out = mech.privatize(table, seed=3)
    assert isinstance(out, pa.Table) and out.schema == table.schema
    assert out.column("id").equals(table.column("id"))
    noisy = np.stack([out.column(c).to_numpy() for c in ["x", "y", "z", "w"]], axis=1)
    assert same_rotation(noisy, q)
    # Batching never changes a row's noise.
    whole = mech.privatize(table.combine_chunks(), seed=3)
    assert whole.equals(out)
    batch = table.combine_chunks().to_batches()[0]
    b = mech.privatize(batch, seed=3)
    assert isinstance(b, pa.RecordBatch) and pa.Table.from_batches([b]).equals(whole)


def test_distances_are_answered_in_the_unit_the_command_line_reports():
    # protect="2km" at level 1: ε = 1/2 per km, and a release moves a few km (answered in km, not radians).
    latlon = mdp.Mechanism("latlon", "purkayastha", protect="2km", level=1)
    assert latlon.unit == "km"
    assert 2.0 < latlon.expected_error < 6.0 and 2.0 < latlon.radius(probability=0.683) < 8.0
    hours = mdp.Mechanism("timeofday", "purkayastha", protect="1h", level=1)
    assert hours.unit == "h" and 0.5 < hours.expected_error < 4.0
    # The same numbers as the command line's report keys (mean_error_in_unit, radius_in_unit): the core's
    # unit, converted once.
    assert abs(latlon.expected_error - latlon._native.mean_error() * 6371.0088) < 1e-9
    with pytest.raises(mdp.BadInputError, match="not both"):
        latlon.radius(0.5, probability=0.5)
    with pytest.raises(mdp.BadInputError, match="probability=1.5"):
        latlon.radius(probability=1.5)


def test_data_frames_use_the_command_lines_default_columns():
    # A frame whose columns have the default names needs no columns=, as a pyarrow Table and the CLI do not;
    # the other columns and the index are kept.
    frame = pd.DataFrame({"id": [7, 8], "w": [1.0, 0.0], "x": [0.0, 1.0], "y": [0.0, 0.0], "z": [0.0, 0.0]},
                         index=[10, 20])
    out = mdp.privatize(frame, space="so3", mechanism="laplace", epsilon=1e6)
    assert list(out.columns) == ["id", "w", "x", "y", "z"] and list(out.index) == [10, 20]
    assert np.allclose(np.abs(out[["w", "x", "y", "z"]].to_numpy()), np.abs(frame[["w", "x", "y", "z"]]), atol=1e-4)
    places = pd.DataFrame({"lat": [48.85], "lon": [2.35], "name": ["Paris"]})
    assert list(mdp.privatize(places, space="latlon", mechanism="auto", protect="1km", level=1).columns) == [
        "lat", "lon", "name"]
    # Without the default names, the message says which columns it looked for and how to name others.
    with pytest.raises(mdp.BadInputError, match="columns="):
        mdp.privatize(pd.DataFrame({"a": [1.0]}), space="latlon", mechanism="auto", epsilon=1.0)


def test_guarantee_radius_and_sample():
    mech = mdp.Mechanism("so3", "laplace", epsilon=1.0)
    g = mech.guarantee
    assert g["notion"] == "metric_dp" and g["epsilon"] == 1.0 and g["unit"] == "rad"
    assert "so3" in g["metric"]
    assert mech.unit == "deg" and 0 < mech.radius(0.5) < mech.radius(0.9) < 180
    assert mech.radius(0.3) < mech.expected_error < mech.radius(0.9)
    assert mdp.radius("so3", "laplace", epsilon=1.0, level=0.5) == mech.radius(0.5)
    assert mech.radius(probability=0.5) == mech.radius(0.5)
    latlon = mdp.Mechanism("latlon", "purkayastha", protect="2km", level=1)
    p = latlon.guarantee
    assert abs(p["epsilon"] - 6371.0088 / 2) < 1e-6
    s = mdp.sample("so3", "laplace", 1000, epsilon=2.0, seed=1)
    assert s.shape == (1000, 4) and np.allclose(np.linalg.norm(s, axis=1), 1.0)
    assert np.array_equal(s, mdp.sample("so3", "laplace", 1000, epsilon=2.0, seed=1))
    assert not np.array_equal(s, mdp.sample("so3", "laplace", 1000, epsilon=2.0))
    c = mdp.sample("circle", "vmf", 10, epsilon=1.0, center=1.0)
    assert c.shape == (10,)


def test_the_negligible_delta_is_in_the_guarantee_only_where_a_sampler_has_one():
    # The Bingham proposal's normals have Lemma N's negligible event (float_safety.md §6); the Laplace has none.
    # A metric guarantee states the base δ_B, its δ per pair d apart being δ_B·(1 + e^(ε·d + ε₀)).
    bingham = mdp.Mechanism("so3", "bingham", epsilon=1.0).guarantee
    assert bingham["delta_base"] == 1e-300 and "delta" not in bingham
    laplace = mdp.Mechanism("so3", "laplace", epsilon=1.0).guarantee
    assert "delta" not in laplace and "delta_base" not in laplace


def test_fresh_keys_give_independent_releases():
    x = np.zeros(100)
    mech = mdp.Mechanism("circle", "purkayastha", epsilon=1.0)
    a, b = mech.privatize(x), mech.privatize(x)
    assert not np.any(a == b)


def test_snap_rounds_onto_a_coarser_grid_at_no_cost():
    plain = mdp.Mechanism("timeofday", "purkayastha", protect="1h", level=1)
    coarse = mdp.Mechanism("timeofday", "purkayastha", protect="1h", level=1, snap="1s")
    # One second is 1/86400 turn: the grid is 2^-17 turns; the cost is the float-safe grid's.
    assert coarse.guarantee["grid"]["spacing_log2"] == -17
    assert coarse.guarantee["additive_epsilon"] == plain.guarantee["additive_epsilon"]
    hours = np.array([0.5, 13.25, 23.9, 7.0])
    out = mdp.privatize(hours, space="timeofday", mechanism="purkayastha", protect="1h", level=1, snap="1s")
    turns = out / 24.0 * 2**17
    assert np.allclose(turns, np.round(turns), atol=1e-6)
    with pytest.raises(mdp.BadInputError, match="finer than the float-safe grid"):
        mdp.Mechanism("timeofday", "purkayastha", protect="1h", level=1, snap="1e-9s")


def test_distances_as_numbers_read_as_the_command_line_reads_them():
    """protect=2 is 2 rad where a bare number is radians (it failed with "'int' object is not an instance of
    'str'"); on latlon and timeofday a bare number is refused with the parser's message, as the CLI
    refuses it, for protect= and radius= alike; a bool is not a distance."""
    assert mdp.Mechanism("so3", "laplace", protect=2, level=1).guarantee == mdp.Mechanism(
        "so3", "laplace", protect="2rad", level=1
    ).guarantee
    with pytest.raises(mdp.BadInputError, match="unit"):
        mdp.Mechanism("latlon", "purkayastha", protect=2, level=1)
    with pytest.raises(mdp.BadInputError, match="unit"):
        mdp.mean(np.array([[45.0, 10.0]] * 3), space="latlon", center=[45, 10], radius=0.01, epsilon=1.0)
    with pytest.raises(mdp.BadInputError, match="not a distance"):
        mdp.Mechanism("so3", "laplace", protect=True, level=1)
