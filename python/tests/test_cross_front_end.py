"""The same seed and rows give the same bits from Python as from the command line (one library path)."""

import os
import subprocess

import numpy as np
import pandas as pd
import pyarrow.csv as pacsv
import pytest

import manifold_dp as mdp

CLI = os.environ.get("MANIFOLD_DP_CLI")


@pytest.mark.skipif(CLI is None, reason="set MANIFOLD_DP_CLI to the manifold-dp binary (the test command does)")
@pytest.mark.parametrize("space,mechanism,columns", [
    ("so3", "laplace", ["w", "x", "y", "z"]),
    ("latlon", "purkayastha", ["lat", "lon"]),
    ("circle", "vmf", ["angle"]),
])
def test_python_and_cli_release_the_same_bits(tmp_path, space, mechanism, columns):
    rng = np.random.default_rng(5)
    n = 5000
    if space == "so3":
        q = rng.normal(size=(n, 4))
        values = q / np.linalg.norm(q, axis=1, keepdims=True)
    elif space == "latlon":
        values = np.column_stack([rng.uniform(-80, 80, n), rng.uniform(-180, 180, n)])
    else:
        values = rng.uniform(0, 6, (n, 1))
    df = pd.DataFrame(values, columns=columns)
    df.insert(0, "id", np.arange(n))
    src, dst = tmp_path / "in.csv", tmp_path / "out.csv"
    df.to_csv(src, index=False, float_format="%.17g")
    subprocess.run([CLI, "privatize", "--space", space, "--mechanism", mechanism, "--epsilon", "2", "--seed", "11",
                    "--input", str(src), "--output", str(dst), "--quiet"], check=True)
    # Arrow's CSV reader parses every float exactly (correctly rounded).
    from_cli = pacsv.read_csv(dst).to_pandas()
    from_py = mdp.privatize(pacsv.read_csv(src).to_pandas(), space=space, mechanism=mechanism, epsilon=2.0,
                            columns=columns, seed=11)
    for c in columns:
        assert np.array_equal(from_cli[c].to_numpy(), from_py[c].to_numpy()), c
    # A bare numpy array (read in place by the native core, no Arrow columns) gives the same bits too.
    arr = pacsv.read_csv(src).to_pandas()[columns].to_numpy()
    arr = arr if arr.shape[1] > 1 else arr[:, 0]
    direct = mdp.privatize(arr, space=space, mechanism=mechanism, epsilon=2.0, seed=11,
                           format="quat-wxyz" if space == "so3" else None)
    assert np.array_equal(from_cli[columns].to_numpy().reshape(direct.shape), direct)


@pytest.mark.skipif(CLI is None, reason="set MANIFOLD_DP_CLI to the manifold-dp binary (the test command does)")
@pytest.mark.parametrize("space,mechanism,center,fmt", [
    ("so3", "laplace", None, "quat-wxyz"),
    ("timeofday", "vmf", "13:30", None),
    ("latlon", "purkayastha", "48.85,2.35", None),
    ("circle", "vmf", "30deg", None),
])
def test_sample_reads_the_centre_and_draws_the_bits_of_the_cli(tmp_path, space, mechanism, center, fmt):
    """One request reads the centre (text in the space's terms, or the default point) for both front ends, and
    release i comes from row stream i of the key in both."""
    dst = tmp_path / "s.csv"
    argv = [CLI, "sample", "--space", space, "--mechanism", mechanism, "--epsilon", "200", "-n", "300", "--seed", "3",
            "--output", str(dst)]
    subprocess.run(argv + (["--center", center] if center else []), check=True, capture_output=True)
    from_cli = pacsv.read_csv(dst).to_pandas().to_numpy()
    from_py = mdp.sample(space, mechanism, 300, epsilon=200.0, center=center, seed=3, format=fmt)
    assert np.array_equal(from_cli.reshape(from_py.shape), from_py)
