"""A numpy array is read in place and released straight into a new array: the same bits as the Arrow path
(the same rows held in columns), for C-order, Fortran-order and strided inputs, every space; the input is never
modified; bad rows are named as before."""

import numpy as np
import pyarrow as pa
import pytest
from conftest import random_quats

import manifold_dp as mdp


def by_columns(mech, flat, fmt, seed):
    """The rows of the 2-D array ``flat`` released through the Arrow path, as a row-major array."""
    width = flat.shape[1]
    names = [f"c{j}" for j in range(width)]
    batch = pa.RecordBatch.from_arrays([pa.array(np.ascontiguousarray(flat[:, j])) for j in range(width)],
                                       names=names)
    out, rejected = mech._native.privatize_batch(batch, fmt, names, None, seed, None, 0, None)
    assert rejected == []
    return np.column_stack([out.column(j).to_numpy() for j in range(out.num_columns)])


def layouts(x):
    """``x`` in C order, in Fortran order, and as a strided view of a larger array."""
    big = np.zeros((2 * x.shape[0],) + x.shape[1:-1] + (3 * x.shape[-1],))
    big[::2, ..., ::3] = x
    return {"C": np.ascontiguousarray(x), "F": np.asfortranarray(x), "strided": big[::2, ..., ::3]}


def same_bits(a, b):
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def unit_rows(rng, n, k):
    x = rng.normal(size=(n, k))
    return x / np.linalg.norm(x, axis=1, keepdims=True)


CASES = [
    ("so3", "laplace", "quat-xyzw", lambda rng: random_quats(rng, 3000), {}),
    ("so3", "bingham", "quat-wxyz", lambda rng: random_quats(rng, 3000), {}),
    ("so3", "laplace", "rotvec", lambda rng: rng.uniform(-2, 2, (3000, 3)), {}),
    ("so3", "laplace", "matrix", lambda rng: np.stack([np.eye(3)] * 3000), {}),
    ("latlon", "purkayastha", None, lambda rng: np.column_stack([rng.uniform(-80, 80, 3000),
                                                                 rng.uniform(-180, 180, 3000)]), {}),
    ("sphere:3", "vmf", None, lambda rng: unit_rows(rng, 3000, 3), {}),
    ("circle", "vmf", None, lambda rng: rng.uniform(-7, 7, 3000), {}),
    ("timeofday", "purkayastha", None, lambda rng: rng.uniform(0, 24, 3000), {}),
    ("real", "laplace", None, lambda rng: rng.uniform(-5, 15, (3000, 2)), {"bounds": (0.0, 10.0), "values": 2}),
]


@pytest.mark.parametrize("space,mechanism,fmt,make,extra", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_direct_path_gives_the_arrow_paths_bits_in_every_layout(rng, space, mechanism, fmt, make, extra):
    x = make(rng)
    mech = mdp.Mechanism(space, mechanism, epsilon=2.0, **extra)
    flat = x.reshape(x.shape[0], -1) if x.ndim > 1 else x.reshape(-1, 1)
    code_fmt = "rad" if space == "circle" else fmt
    want = by_columns(mech, flat, code_fmt, 7).reshape(x.shape)
    for name, arr in layouts(x if x.ndim > 1 else x[:, None]).items():
        arr = arr if x.ndim > 1 else arr[:, 0]
        before = arr.copy()
        got = mech.privatize(arr, format=fmt, seed=7)
        assert np.array_equal(arr, before), f"{name}: the input must not be modified"
        assert same_bits(got, want), name
        assert not np.shares_memory(got, arr), name


def test_bad_rows_are_named_as_before(rng):
    q = random_quats(rng, 5000)
    q[4321, 2] = np.nan
    q[4500] = [1.0, 1.0, 0.0, 0.0]
    for arr in layouts(q).values():
        with pytest.raises(mdp.BadInputError) as e:
            mdp.privatize(arr, space="so3", mechanism="laplace", epsilon=1.0, format="quat-xyzw")
        assert e.value.row == 4321 and e.value.column == 2
        assert str(e.value) == "row 4321, column 2: NaN is not a finite number (2 invalid rows in all)"


def test_integer_and_readonly_inputs(rng):
    ints = np.array([[0, 0, 0, 1]] * 10)
    out = mdp.privatize(ints, space="so3", mechanism="laplace", epsilon=2.0, format="quat-xyzw", seed=1)
    assert same_bits(out, mdp.privatize(ints.astype(float), space="so3", mechanism="laplace", epsilon=2.0,
                                        format="quat-xyzw", seed=1))
    q = random_quats(rng, 100)
    q.flags.writeable = False
    mdp.privatize(q, space="so3", mechanism="laplace", epsilon=2.0, format="quat-xyzw")
