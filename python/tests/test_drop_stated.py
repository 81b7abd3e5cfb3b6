"""An outside="drop" mean states in its guarantee what it does not protect; the ledger still reads
it as the pure ε it is."""

import numpy as np
import pytest

import manifold_dp as mdp


@pytest.mark.filterwarnings("ignore")
def test_a_drop_mean_states_what_it_does_not_protect(tmp_path):
    angles = np.radians([0.0, 5.0, -5.0, 10.0, 90.0, 180.0])
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("d", {"notion": "pure_dp", "epsilon": 3.0})
    kw = dict(space="circle", center=0.0, radius="30deg", epsilon=1.0, ledger=led, dataset="d")
    drop = mdp.mean(angles, outside="drop", **kw)
    g = drop.guarantee
    assert (g["notion"], g["epsilon"], g["neighbouring"], g["rows"]) == ("pure_dp", 1.0, "replace_one_row_in_ball", 4)
    assert "how many rows do" in g["not_protected"] and drop.dropped == 2 and drop.n == 4
    clip = mdp.mean(angles, outside="clip", **kw)
    assert clip.guarantee == {"notion": "pure_dp", "epsilon": 1.0}
    pure = next(n for n in led.spent("d")["notions"] if n["account"] == "pure")
    assert pure["total"]["epsilon"] == 2.0
