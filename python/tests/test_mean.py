"""Private Fréchet means from Python: every space, the guarantee, and rows outside the ball named."""

import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import manifold_dp as mdp


def test_so3_sphere_and_spd_means():
    rot = Rotation.from_rotvec(np.random.default_rng(1).normal(scale=0.1, size=(200, 3)))
    res = mdp.mean(rot, space="so3", center="identity", radius="60deg", epsilon=1e3, seed=1)
    assert isinstance(res.mean, Rotation) and res.n == 200  # a Rotation in, a Rotation out
    assert (res.mean * rot.mean().inv()).magnitude() < 2e-3
    assert res.guarantee["notion"] == "pure_dp" and res.sensitivity > 0 and res.sigma > 0
    # The public grid the release lies on and its cost, which the guarantee's ε includes.
    assert res.grid["chart"] == "quaternion_cube_map" and res.rounding_cost > 0
    assert res.guarantee["epsilon"] == 1e3  # ask ε, pay ε: the rounding cost is taken inside
    v = np.vstack([np.array([np.cos(t), np.sin(t), 0.0]) for t in np.linspace(-0.1, 0.1, 101)])
    res = mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius=0.3, epsilon=1e3, seed=2)
    assert np.allclose(res.mean, [1, 0, 0], atol=1e-4)
    spd = np.array([[[2.0, 0.5], [0.5, 1.0]]] * 20)
    res = mdp.mean(spd, space="spd:2", center="identity", radius=2.0, epsilon=1e3, seed=3)
    assert res.mean.shape == (2, 2) and np.allclose(res.mean, spd[0], atol=1e-2)
    # Affine-invariant SPD releases are rounded in the log chart at the centre.
    assert res.grid["chart"] == "spd_log_at_center" and 0 < res.rounding_cost < 1e-3


@pytest.mark.filterwarnings("ignore:the expected error")  # two rows: the noise exceeds the radius, as warned
def test_a_row_outside_the_ball_is_named():
    v = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    with pytest.raises(mdp.BadInputError) as e:
        mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0)
    assert e.value.row == 1 and "outside the radius" in str(e.value)

    # Clipped: row 1 moves onto the ball's edge; n and the guarantee are those of two rows in the ball.
    clip = mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0, outside="clip", seed=1)
    assert (clip.n, clip.clipped, clip.dropped) == (2, 1, 0)
    inside = mdp.mean(v[:1].repeat(2, axis=0), space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0)
    assert clip.guarantee == inside.guarantee and clip.sensitivity == inside.sensitivity
    # Dropped: the mean is over the one row left, and its noise is calibrated for n = 1.
    drop = mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0, outside="drop", seed=1)
    assert (drop.n, drop.clipped, drop.dropped) == (1, 0, 1) and drop.sensitivity > clip.sensitivity
    # Its guarantee says what it does not protect; a clipped one covers any row.
    assert drop.guarantee.get("neighbouring") == "replace_one_row_in_ball" and "neighbouring" not in clip.guarantee
    with pytest.raises(mdp.BadInputError, match="no rows lie in the ball"):
        mdp.mean(v[1:], space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0, outside="drop")
    with pytest.raises(mdp.BadInputError, match="error.*drop.*clip"):
        mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0, outside="clamp")


def test_directions_in_the_units_people_use():
    # Latitude/longitude in degrees, radius in km; a pandas table with its own column names.
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"la": [44.5, 45.0, 45.5, 45.0], "lo": [10.0, 9.5, 10.0, 10.5], "other": list("abcd")})
    res = mdp.mean(df, space="latlon", center=[45.0, 10.0], radius="300km", epsilon=1e4, columns=["la", "lo"],
                   seed=4)
    assert res.mean.shape == (2,) and np.allclose(res.mean, [45.0, 10.0], atol=0.05), res.mean
    # Times of day across midnight, in hours: the mean of 23:00 and 01:00 is midnight, not noon.
    res = mdp.mean(np.array([23.0, 1.0, 23.5, 0.5]), space="timeofday", center=0.0, radius="2h", epsilon=1e4,
                   seed=5)
    assert isinstance(res.mean, float) and min(res.mean, 24 - res.mean) < 0.05, res.mean
    # Angles in degrees.
    res = mdp.mean(np.array([350.0, 10.0, 0.0]), space="circle", format="deg", center=0.0, radius="30deg",
                   epsilon=1e4, seed=6)
    assert min(res.mean, 360 - res.mean) < 0.5, res.mean
    with pytest.raises(mdp.BadInputError, match="lat,lon"):
        mdp.mean(df, space="latlon", center="identity", radius="300km", epsilon=1.0, columns=["la", "lo"])


def test_a_release_noisier_than_the_radius_is_warned_about():
    v = np.array([[1.0, 0.0, 0.0]] * 3)
    with pytest.warns(UserWarning, match="exceeds the radius"):
        mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius="10deg", epsilon=0.01)


def test_plain_numbers_per_row_and_bounded_means():
    pd = pytest.importorskip("pandas")
    quakes = pd.DataFrame({"place": list("abcd"), "depth": [10.0, 35.0, 700.0, 12.0], "mag": [4.5, 5.1, 6.2, 4.8]})
    out = mdp.privatize(quakes, space="real", mechanism="laplace", epsilon=1e4, bounds=(0, 100),
                        columns=["depth", "mag"], seed=1)
    assert list(out["place"]) == list("abcd")
    assert np.allclose(out["depth"], [10.0, 35.0, 100.0, 12.0], atol=1.0)  # 700 clamped to 100
    mech = mdp.Mechanism("real", "laplace", epsilon=2.0, bounds=(0, 10), values=2)
    assert mech.guarantee == {"notion": "pure_dp", "epsilon": 2.0} and mech.expected_error == 10.0
    with pytest.raises(mdp.BadInputError, match="rows of 2 values"):
        mech.privatize(np.array([1.0, 2.0]))
    with pytest.raises(mdp.BadInputError, match="bounds"):
        mdp.Mechanism("real", "laplace", epsilon=1.0)
    # clamp_releases=True: the same draws clamped back into the bounds (at ε = 0.05 most leave them).
    x = np.array([1.0, 50.0, 99.0] * 20)
    raw = mdp.privatize(x, space="real", mechanism="laplace", epsilon=0.05, bounds=(0, 100), seed=4)
    kept = mdp.privatize(x, space="real", mechanism="laplace", epsilon=0.05, bounds=(0, 100), seed=4,
                         clamp_releases=True)
    assert np.any((raw < 0) | (raw > 100)) and np.array_equal(np.clip(raw, 0, 100), kept)
    with pytest.raises(mdp.BadInputError, match="clamp_releases"):
        mdp.Mechanism("so3", "laplace", epsilon=1.0, clamp_releases=True)
    res = mdp.mean(quakes, space="real", bounds=(0, 100), epsilon=1e4, columns=["depth", "mag"], outside="clip")
    assert res.n == 4 and res.clipped == 1 and res.sensitivity == 50.0
    assert np.allclose(res.mean, [39.25, 5.15], atol=0.1)
    res = mdp.mean(np.array([1.0, 2.0, 3.0, 50.0]), space="real", bounds=(0, 10), epsilon=1e4, outside="drop")
    assert isinstance(res.mean, float) and abs(res.mean - 2.0) < 0.1 and res.dropped == 1
    assert res.guarantee["neighbouring"] == "replace_one_row_in_ball"
    with pytest.raises(mdp.BadInputError) as e:
        mdp.mean(np.array([1.0, 50.0]), space="real", bounds=(0, 10), epsilon=1.0)
    assert e.value.row == 1 and "outside the bounds" in str(e.value)


def test_a_mean_of_mostly_clipped_or_dropped_rows_warns():
    """Half or more of the rows outside the ball: the release mostly shows the ball, and the warning says what
    its expected error is the error of. A minority outside is not warned about."""
    near = np.tile([1.0, 0.0, 0.0], (3, 1))
    far = np.tile([0.0, 1.0, 0.0], (7, 1))
    v = np.vstack([near, far])
    kw = dict(space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0, seed=1)
    with pytest.warns(UserWarning, match=r"7 of 10 rows \(70 %\) lay outside the radius and were moved onto"):
        mdp.mean(v, outside="clip", **kw)
    with pytest.warns(UserWarning, match=r"7 of 10 rows \(70 %\) lay outside the radius and were left out"):
        mdp.mean(v, outside="drop", **kw)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mdp.mean(np.vstack([np.tile(near, (4, 1)), far[:1]]), outside="clip", **kw)
    assert not any("lay outside" in str(w.message) for w in caught)


def test_centres_as_the_command_line_reads_them():
    """A Rotation centre in the input's rotation format, 'identity', and a clock time on timeofday."""
    rot = Rotation.from_rotvec(np.random.default_rng(4).normal(scale=0.1, size=(100, 3)))
    kw = dict(space="so3", radius="60deg", epsilon=10.0, seed=5)
    by_name = mdp.mean(rot, center="identity", **kw)
    by_rotation = mdp.mean(rot, center=Rotation.identity(), **kw)
    assert np.array_equal(by_name.mean.as_quat(), by_rotation.mean.as_quat())
    assert by_name.guarantee == by_rotation.guarantee
    wxyz = np.roll(rot.as_quat(), 1, axis=1)
    shifted = Rotation.from_rotvec([0.2, 0.0, 0.0])
    as_array = mdp.mean(wxyz, format="quat-wxyz", center=shifted, **kw)
    as_values = mdp.mean(wxyz, format="quat-wxyz", center=np.roll(shifted.as_quat(), 1), **kw)
    assert np.array_equal(as_array.mean, as_values.mean)
    with pytest.raises(mdp.BadInputError, match="goes with space='so3'"):
        mdp.mean(np.ones((3, 3)) / np.sqrt(3), space="sphere:3", center=shifted, radius=1.0, epsilon=1.0)
    hours = np.array([12.5, 13.0, 13.25, 13.5])
    clock = mdp.mean(hours, space="timeofday", center="13:00", radius="2h", epsilon=5.0, seed=6)
    number = mdp.mean(hours, space="timeofday", center=13.0, radius="2h", epsilon=5.0, seed=6)
    assert clock.mean == number.mean
    with pytest.raises(mdp.BadInputError, match='center="25:99"'):
        mdp.mean(hours, space="timeofday", center="25:99", radius="2h", epsilon=5.0)
    # The command line's centre text: numbers as text too (the core reads both front ends' centres).
    paris = np.array([[48.8, 2.3], [48.9, 2.4]])
    typed = mdp.mean(paris, space="latlon", center="48.85,2.35", radius="50km", epsilon=1.0, seed=3)
    given = mdp.mean(paris, space="latlon", center=[48.85, 2.35], radius="50km", epsilon=1.0, seed=3)
    assert np.array_equal(typed.mean, given.mean)


def test_real_means_take_each_columns_own_bounds():
    """One pair of bounds per column (a shared 0..700 made the magnitude's mean 8.42 against 4.62):
    a dict names the columns of a table, a list gives an array's in order; Δ₁ adds the widths; malformed
    bounds are BadInputErrors, not TypeErrors."""
    pd = pytest.importorskip("pandas")

    quakes = pd.DataFrame({"depth": [10.0, 20.0, 30.0, 700.0], "mag": [4.0, 5.0, 6.0, 9.0]})
    res = mdp.mean(quakes, space="real", bounds={"depth": (0, 700), "mag": (4, 7)}, epsilon=1e4, outside="clip")
    assert res.sensitivity == (700 + 3) / 4 and res.clipped == 1
    assert np.allclose(res.mean, [190.0, 5.5], atol=0.2)
    arr = quakes.to_numpy()
    listed = mdp.mean(arr, space="real", bounds=[(0, 700), (4, 7)], epsilon=1e4, outside="clip", seed=2)
    assert listed.sensitivity == res.sensitivity
    with pytest.raises(mdp.BadInputError, match="names the columns"):
        mdp.mean(arr, space="real", bounds={"depth": (0, 700), "mag": (4, 7)}, epsilon=1.0, outside="clip")
    with pytest.raises(mdp.BadInputError, match="one pair of bounds per column"):
        mdp.mean(arr, space="real", bounds=[(0, 700)] * 3, epsilon=1.0, outside="clip")
    with pytest.raises(mdp.BadInputError, match="not a pair"):
        mdp.mean(quakes, space="real", bounds={"depth": (0, 700), "mag": "4..7"}, epsilon=1.0)


def test_a_costly_rounding_is_refused_before_the_mean_in_the_users_terms() -> None:
    """Refused once the row count is known, before the Karcher pass (the far last row, which the pass
    would report, is not reached), naming the rows, the radius as given and epsilon; no SPD clause."""
    # On the circle within 1e-9 rad at epsilon=100 the noise is finer than the circle's relative release
    # resolves (cells below 2^-50 turns), and the absolute turn grid costs twice epsilon (float_safety.md §3i).
    angles = np.zeros(1000)
    angles[-1] = 3.0
    with pytest.raises(mdp.BadInputError) as info:
        mdp.mean(angles, space="circle", center=0.0, radius="1e-9rad", epsilon=100.0, seed=1)
    text = str(info.value)
    assert "before computing the mean" in text and "1000 rows" in text and 'radius="1e-9rad"' in text, text
    assert "epsilon=100" in text and "SPD" not in text, text


def test_a_costly_rounding_is_warned_before_the_mean_in_the_users_terms() -> None:
    """A rounding above 1 % of epsilon is a UserWarning once the rows are counted, before the Karcher pass
    (with a far last row, which the pass then refuses, it is still raised), naming the rows, the radius as
    given and epsilon; a release that succeeds warns once."""
    angles = np.zeros(1000)
    angles[-1] = 3.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(mdp.BadInputError, match="row"):
            mdp.mean(angles, space="circle", center=0.0, radius="1e-8rad", epsilon=100.0, seed=1)
    notes = [str(w.message) for w in caught if issubclass(w.category, UserWarning) and "float-safely" in str(w.message)]
    assert len(notes) == 1, notes
    assert notes[0].startswith('rounding the mean of 1000 rows within radius="1e-8rad" at epsilon=100'), notes
    assert "more than 1 %" in notes[0], notes
    angles[-1] = 0.0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mdp.mean(angles, space="circle", center=0.0, radius="1e-8rad", epsilon=100.0, seed=1)
    notes = [str(w.message) for w in caught if "float-safely" in str(w.message)]
    assert len(notes) == 1 and notes[0].startswith("rounding the mean of 1000 rows"), notes


def test_a_drop_mean_is_checked_at_its_rows_in_the_ball_before_the_mean() -> None:
    """With outside="drop" the rows in the ball are counted before the Karcher pass: a rounding above 1 % of
    epsilon is a UserWarning at that count, and a release its parameters rule out is refused at it, both before
    the pass reaches the last row, which is not a number (the far row before it is left out)."""
    angles = np.zeros(1001)
    angles[-2], angles[-1] = 3.0, np.nan
    kw = dict(space="circle", center=0.0, epsilon=100.0, outside="drop", seed=1)
    with pytest.warns(UserWarning, match=r'^rounding the mean of 999 rows within radius="1e-8rad" at epsilon=100'):
        with pytest.raises(mdp.BadInputError, match="not a finite number"):
            mdp.mean(angles, radius="1e-8rad", **kw)
    with pytest.raises(mdp.BadInputError, match=r'checked before computing the mean\): 999 rows, radius="1e-9rad"'):
        mdp.mean(angles, radius="1e-9rad", **kw)


def test_a_mean_answers_in_the_unit_the_user_speaks():
    # The same points as latitude/longitude and as unit vectors of R³: the sensitivity, the noise scale and the
    # expected error come back in km on latlon and in degrees on sphere:3, one the other's restatement.
    lat = np.linspace(48.80, 48.90, 50)
    lon = np.linspace(2.30, 2.40, 50)
    ll = np.column_stack([lat, lon])
    phi, lam = np.radians(lat), np.radians(lon)
    xyz = np.column_stack([np.cos(phi) * np.cos(lam), np.cos(phi) * np.sin(lam), np.sin(phi)])
    centre = [np.cos(np.radians(48.85)) * np.cos(np.radians(2.35)),
              np.cos(np.radians(48.85)) * np.sin(np.radians(2.35)), np.sin(np.radians(48.85))]
    km = mdp.mean(ll, space="latlon", center=[48.85, 2.35], radius="50km", epsilon=1.0, seed=1)
    deg = mdp.mean(xyz, space="sphere:3", center=centre, radius=50 / 6371.0088, epsilon=1.0, seed=1)
    assert (km.unit, deg.unit) == ("km", "deg")
    per_km = 180 / np.pi / 6371.0088  # degrees of great circle per km
    for a, b in [(km.sensitivity, deg.sensitivity), (km.sigma, deg.sigma), (km.expected_error, deg.expected_error)]:
        assert a * per_km == pytest.approx(b, rel=1e-9)
    assert 0.01 < km.expected_error < 10.0  # km, not radians
