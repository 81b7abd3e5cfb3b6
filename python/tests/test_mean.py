"""Private Fréchet means from Python: every space, the guarantee, and rows outside the ball named."""

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import manifold_dp as mdp


def test_so3_sphere_and_spd_means():
    rot = Rotation.from_rotvec(np.random.default_rng(1).normal(scale=0.1, size=(200, 3)))
    res = mdp.mean(rot, space="so3", center="identity", radius="60deg", epsilon=1e3, seed=1)
    assert res.mean.shape == (4,) and res.n == 200
    true = rot.mean().as_quat()
    assert min(np.linalg.norm(res.mean - true), np.linalg.norm(res.mean + true)) < 1e-3
    assert res.guarantee["notion"] == "pure_dp" and res.sensitivity > 0 and res.sigma > 0
    v = np.vstack([np.array([np.cos(t), np.sin(t), 0.0]) for t in np.linspace(-0.1, 0.1, 101)])
    res = mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius=0.3, epsilon=1e3, seed=2)
    assert np.allclose(res.mean, [1, 0, 0], atol=1e-4)
    spd = np.array([[[2.0, 0.5], [0.5, 1.0]]] * 20)
    res = mdp.mean(spd, space="spd:2", center="identity", radius=2.0, epsilon=1e3, seed=3)
    assert res.mean.shape == (2, 2) and np.allclose(res.mean, spd[0], atol=1e-2)


def test_a_row_outside_the_ball_is_named():
    v = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    with pytest.raises(mdp.BadInputError) as e:
        mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0)
    assert e.value.row == 1 and "outside the radius" in str(e.value)
    with pytest.raises(mdp.BadInputError):
        mdp.mean(v, space="sphere:3", center=[1, 0, 0], radius="30deg", epsilon=1.0, outside="clip")
