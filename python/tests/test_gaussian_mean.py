"""The μ-GDP Fréchet mean from Python: mechanism="gaussian" with mu=, its guarantee, a Rotation in and out,
refusals naming the keyword, and the ledger's gdp account."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import manifold_dp as mdp


def _latlon(n=30):
    a = np.arange(n) * 0.7
    return np.column_stack([45.0 + 0.4 * np.sin(a), 10.0 + 0.5 * np.cos(a)])


@pytest.mark.filterwarnings("ignore:seeded run")
def test_gaussian_mean_states_gdp_at_the_mu_asked():
    res = mdp.mean(_latlon(), space="latlon", center=[45.0, 10.0], radius="200km", mechanism="gaussian", mu=1,
                   seed=1)
    # μ-GDP up to the certificate's tail and the proposal's far piece (riemannian_gaussian.md §2, §5), printed.
    assert res.guarantee == {"notion": "gdp", "mu": 1.0, "delta": 2e-280}
    assert res.mu == 1.0 and res.mechanism == "gaussian" and res.noise_epsilon is None
    assert res.sigma >= res.sensitivity and res.expected_error > 0 and res.grid is not None
    assert res.mean.shape == (2,) and abs(res.mean[0] - 45.0) < 3 and abs(res.mean[1] - 10.0) < 3
    # (ε, δ) is converted through the exact GDP curve: (1, 1e-6) is about 0.2-GDP.
    res = mdp.mean(_latlon(), space="latlon", center=[45.0, 10.0], radius="200km", mechanism="gaussian",
                   epsilon=1.0, delta=1e-6, seed=1)
    assert res.guarantee["notion"] == "gdp" and 0.15 < res.guarantee["mu"] < 0.3


@pytest.mark.filterwarnings("ignore:seeded run")
def test_rotation_in_rotation_out():
    rot = Rotation.from_rotvec(np.random.default_rng(2).normal(scale=0.05, size=(20, 3)))
    res = mdp.mean(rot, space="so3", center="identity", radius="30deg", mechanism="gaussian", mu=2.0, seed=3)
    assert isinstance(res.mean, Rotation) and res.guarantee == {"notion": "gdp", "mu": 2.0, "delta": 2e-280}


@pytest.mark.parametrize(
    "kwargs, needle",
    [
        ({"epsilon": 1.0, "mu": 1.0}, "mu= goes with mechanism= gaussian"),
        ({"mechanism": "gaussian"}, "mechanism= gaussian needs a budget: mu= M"),
        ({"mechanism": "gaussian", "epsilon": 1.0}, "epsilon= alone"),
        ({"mechanism": "gaussian", "mu": 1.0, "conditioning": "ball"}, "conditioning="),
        ({"mechanism": "gaussian", "mu": 1.0, "estimator": "extrinsic"}, 'estimator="frechet"'),
        ({}, "give epsilon= E"),
    ],
)
def test_budgets_that_do_not_fit_the_mechanism_are_refused(kwargs, needle):
    if kwargs.get("estimator") == "extrinsic":
        ball = {}
    else:
        ball = {"center": [45.0, 10.0], "radius": "200km"}
    with pytest.raises(mdp.BadInputError, match=needle.replace("(", r"\(")):
        mdp.mean(_latlon(), space="latlon", **ball, **kwargs)


def test_spd_affine_gaussian_mean_for_k_up_to_3():
    spd = np.array([[[2.0, 0.5], [0.5, 1.0]]] * 5)
    res = mdp.mean(spd, space="spd:2", center="identity", radius=2.0, mechanism="gaussian", mu=1.0, seed=1)
    assert res.guarantee == {"notion": "gdp", "mu": 1.0}
    assert res.mean.shape == (2, 2)
    assert np.allclose(res.mean, res.mean.T)
    assert np.all(np.linalg.eigvalsh(res.mean) > 0)
    with pytest.raises(mdp.BadInputError, match="affine-invariant metric is offered for k ≤ 3"):
        mdp.mean(np.array([np.eye(4)] * 5), space="spd:4", center="identity", radius=2.0, mechanism="gaussian",
                 mu=1.0)


def test_spd_log_euclidean_means_up_to_k_8():
    rng = np.random.default_rng(4)
    for k in (4, 8):
        s = rng.normal(size=(30, k, k)) * 0.05
        s = (s + np.swapaxes(s, 1, 2)) / 2
        w, v = np.linalg.eigh(s)
        spd = np.einsum("nij,nj,nkj->nik", v, np.exp(w), v)
        res = mdp.mean(spd, space=f"spd:{k}", center="identity", radius=1.5, metric="log-euclidean",
                       mechanism="gaussian", mu=1e3, seed=1)
        assert res.guarantee == {"notion": "gdp", "mu": 1e3}
        assert res.mean.shape == (k, k)
        assert np.allclose(res.mean, res.mean.T)
        assert abs(res.sensitivity - 2 * 1.5 / 30) < 1e-6
        lap = mdp.mean(spd, space=f"spd:{k}", center="identity", radius=1.5, metric="log-euclidean",
                       epsilon=1e3, seed=1)
        assert lap.guarantee["notion"] == "pure_dp"
        # Both near the exact log-Euclidean mean (noise scale 1e-4).
        mean_log = np.mean(s, axis=0)
        for r in (res, lap):
            ww, vv = np.linalg.eigh(r.mean)
            assert np.abs((vv * np.log(ww)) @ vv.T - mean_log).max() < 0.02
    with pytest.raises(mdp.BadInputError, match="k ≤ 8"):
        mdp.mean(np.array([np.eye(9)] * 3), space="spd:9", center="identity", radius=1.5,
                 metric="log-euclidean", mechanism="gaussian", mu=1.0)


def test_the_ledger_charges_the_gdp_account(tmp_path):
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("places", {"notion": "gdp", "mu": 1.0})
    kw = dict(space="latlon", center=[45.0, 10.0], radius="200km", mechanism="gaussian", mu=0.6, ledger=led,
              dataset="places")
    res = mdp.mean(_latlon(), **kw)
    assert res.guarantee == {"notion": "gdp", "mu": 0.6, "delta": 2e-280}
    assert led.releases("places")[0]["guarantees"] == [{"notion": "gdp", "mu": 0.6, "delta": 2e-280}]
    assert "--mechanism gaussian --mu 0.6" in led.releases("places")[0]["mechanism"]
    gdp = next(a for a in led.spent("places")["notions"] if a["account"] == "gdp")
    assert gdp["total"]["mu"] == pytest.approx(0.6, rel=1e-12)
    # The δ is stated beside the total, not charged (accounting.md, "GDP up to δ").
    assert gdp["negligible_delta"] == 2e-280 and "delta" not in gdp["total"]
    mdp.mean(_latlon(), **kw)  # √(0.6² + 0.6²) ≈ 0.85 ≤ 1
    with pytest.raises(mdp.BudgetExceededError):
        mdp.mean(_latlon(), **kw)  # √1.08 > 1
    assert len(led.releases("places")) == 2, "a refusal records nothing"
