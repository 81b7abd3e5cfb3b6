"""mdp.mean(..., estimator="extrinsic"): rows anywhere on the space, no centre or radius; the input's own form back
(a Rotation for a Rotation), the guarantee with its neighbouring relation, the instability warning, the ledger,
and bad input."""

import warnings

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import manifold_dp as mdp

pytestmark = pytest.mark.filterwarnings("ignore:seeded run")


def spread_frames(n=400, seed=3):
    """Rotations spread widely (rotation vectors of about 80° spread) around 150° about z: no ball below 90° holds
    them all, but their extrinsic mean is well defined."""
    rng = np.random.default_rng(seed)
    centre = Rotation.from_euler("z", 150, degrees=True)
    return centre * Rotation.from_rotvec(rng.normal(size=(n, 3)) * 0.8), centre


def test_a_rotation_in_gives_a_rotation_out_with_a_stated_guarantee():
    rot, centre = spread_frames()
    res = mdp.mean(rot, space="so3", estimator="extrinsic", epsilon=2.0, seed=1)
    assert isinstance(res.mean, Rotation)
    assert res.estimator == "extrinsic" and res.stable and res.confidence == 0.95
    # Replace-one neighbours, the default relation (not written out).
    # Plus the K-norm direction's negligible δ_N·(1 + e^ε) (float_safety.md §6), stated, never hidden.
    g = dict(res.guarantee)
    assert 0 < g.pop("delta") < 1e-290
    assert g == {"notion": "pure_dp", "epsilon": 2.0, "rows": 400, "domain": "rows anywhere on SO(3)"}
    assert 2 * np.sqrt(2) / 400 <= res.sensitivity < 2 * np.sqrt(2) / 400 * (1 + 1e-6)
    assert res.grid["chart"] == "embedding" and res.noise_epsilon + res.rounding_cost <= 2.0
    # The exact extrinsic mean: the nearest rotation to the mean matrix (SVD); the release lies within its bound.
    u, _, vt = np.linalg.svd(rot.as_matrix().mean(axis=0))
    exact = Rotation.from_matrix(u @ np.diag([1, 1, np.linalg.det(u @ vt)]) @ vt)
    assert (res.mean.inv() * exact).magnitude() <= res.error_bound
    assert (exact.inv() * centre).magnitude() < 0.2  # 400 random rows: their mean is near the centre
    # The same rows as quaternion arrays (w, x, y, z) give the same release under the same seed, as an array.
    wxyz = np.roll(rot.as_quat(), 1, axis=1)
    arr = mdp.mean(wxyz, space="so3", format="quat-wxyz", estimator="extrinsic", epsilon=2.0, seed=1)
    assert isinstance(arr.mean, np.ndarray) and arr.mean.shape == (4,)
    assert np.allclose(Rotation.from_quat(np.roll(arr.mean, -1)).as_matrix(), res.mean.as_matrix(), atol=1e-12)


def test_directions_times_and_places_come_back_in_their_own_form():
    hours = np.array([23.0, 23.5, 0.5, 1.0])
    res = mdp.mean(hours, space="timeofday", estimator="extrinsic", epsilon=1e3, seed=2)
    assert isinstance(res.mean, float) and not 0.1 < res.mean < 23.9
    ll = mdp.mean(np.array([[45.0, 10.0], [46.0, 10.0], [45.0, 11.0]]), space="latlon", estimator="extrinsic",
                  epsilon=1e4, seed=3)
    assert ll.mean.shape == (2,) and abs(ll.mean[0] - 45.3) < 0.1 and abs(ll.mean[1] - 10.3) < 0.1
    deg = mdp.mean(np.array([350.0, 10.0]), space="circle", format="deg", estimator="extrinsic", epsilon=1e3,
                   seed=4)
    assert isinstance(deg.mean, float) and not 1 < deg.mean < 359


def test_evenly_spread_data_warn_that_the_projection_is_unstable():
    angles = np.arange(12) * np.pi / 6  # the exact extrinsic mean is 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = mdp.mean(angles, space="circle", estimator="extrinsic", epsilon=1.0, seed=6)
    assert not res.stable and res.error_bound is None and 0 < res.degeneracy_probability <= 1
    assert any("projection is unstable" in str(w.message) for w in caught)


@pytest.mark.filterwarnings("ignore:the projection is unstable")
def test_the_ledger_charges_the_extrinsic_mean_as_a_central_release(tmp_path):
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("frames", {"notion": "pure_dp", "epsilon": 1.5})
    rot, _ = spread_frames(50)
    mdp.mean(rot, space="so3", estimator="extrinsic", epsilon=1.0, ledger=led, dataset="frames")
    with pytest.raises(mdp.BudgetExceededError):
        mdp.mean(rot, space="so3", estimator="extrinsic", epsilon=1.0, ledger=led, dataset="frames")
    spent = led.spent("frames")
    assert spent["releases"] == 1
    assert next(n for n in spent["notions"] if n["account"] == "pure")["total"]["epsilon"] == 1.0
    what = led.releases("frames")[0]["mechanism"]
    assert what.startswith("mean so3 --estimator extrinsic --epsilon 1: "), what


def test_bad_input_is_refused_clearly():
    rot, _ = spread_frames(20)
    for extra in ({"center": "identity"}, {"radius": "30deg"}, {"outside": "clip"}, {"conditioning": "ball"}):
        with pytest.raises(mdp.BadInputError, match='is not used by estimator="extrinsic"'):
            mdp.mean(rot, space="so3", estimator="extrinsic", epsilon=1.0, **extra)
    with pytest.raises(mdp.BadInputError, match="no rows"):
        mdp.mean(np.zeros((0, 4)), space="so3", format="quat-wxyz", estimator="extrinsic", epsilon=1.0)
    with pytest.raises(mdp.BadInputError, match="applies to so3, sphere:N"):
        mdp.mean(np.stack([np.eye(2)] * 3), space="spd:2", estimator="extrinsic", epsilon=1.0)
    with pytest.raises(mdp.BadInputError, match="estimator='median'"):
        mdp.mean(rot, space="so3", estimator="median", epsilon=1.0)
    with pytest.raises(mdp.BadInputError) as e:
        mdp.mean(np.array([[1.0, 0, 0], [np.nan, 0, 0]]), space="sphere:3", estimator="extrinsic", epsilon=1.0)
    assert e.value.row == 1
