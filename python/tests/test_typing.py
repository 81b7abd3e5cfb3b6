"""The package's types as a user's type checker sees them: the output of ``privatize`` is the input's type, and a
mean of a numpy array holds an array (or one number). mypy reads the installed package (``py.typed``, stubs)."""

import subprocess
import sys
import textwrap

import pytest

SNIPPET = textwrap.dedent(
    """
    import numpy as np
    import manifold_dp as mdp

    x = np.zeros((3, 2))
    reveal_type(mdp.privatize(x, space="latlon", mechanism="vmf", epsilon=1.0))
    reveal_type(mdp.mean(x, space="latlon", center="0,0", radius="300km", epsilon=1.0).mean)
    reveal_type(mdp.mean(object(), space="latlon", center="0,0", radius="300km", epsilon=1.0).mean)
    mdp.privatize(x, space="latlon", mechanism="vmf", epsilon="1")  # a str where a float goes
    """
)


def test_return_types_follow_the_input(tmp_path):
    pytest.importorskip("mypy")
    path = tmp_path / "user.py"
    path.write_text(SNIPPET)
    out = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--ignore-missing-imports", str(path)],
        capture_output=True, text=True, cwd=tmp_path,
    ).stdout
    revealed = [line.split("Revealed type is ", 1)[1] for line in out.splitlines() if "Revealed type is" in line]
    assert len(revealed) == 3, out
    assert "ndarray" in revealed[0], revealed[0]
    assert "ndarray" in revealed[1] and "float" in revealed[1], revealed[1]
    assert revealed[2] == '"Any"', revealed[2]
    assert 'Argument "epsilon" to "privatize" has incompatible type "str"' in out, out
