"""Spark in local mode: recomputation, retries and repartitioning give bit-identical rows; two calls give
independent releases; the noise law holds (with a negative control); ids are checked; a ledger is charged
once. Few tests: each Spark job costs seconds."""

import os
import sys
import warnings

import numpy as np
import pytest

pyspark = pytest.importorskip("pyspark", reason="pyspark is installed by the test command")
from pyspark.sql import SparkSession  # noqa: E402
from pyspark.sql import functions as F  # noqa: E402
from scipy.stats import kstwo  # noqa: E402

import manifold_dp as mdp  # noqa: E402
from manifold_dp import spark as mdps  # noqa: E402

N = 20_000


@pytest.fixture(scope="module")
def spark():
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    s = (
        SparkSession.builder.master("local[2,2]")  # two cores; a failed task is retried once
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "3000")
        .getOrCreate()
    )
    yield s
    s.stop()


@pytest.fixture(scope="module")
def identities(spark):
    return spark.range(N).select(
        F.col("id"), F.lit(1.0).alias("w"), F.lit(0.0).alias("x"), F.lit(0.0).alias("y"), F.lit(0.0).alias("z")
    ).repartition(3)


def release(df, **kw):
    return mdps.privatize(df, space="so3", mechanism="laplace", epsilon=2.0, columns=["w", "x", "y", "z"],
                          format="quat-wxyz", id_column="id", **kw)


def rows(df):
    return np.array(sorted(tuple(r) for r in df.collect()))


def test_recomputation_and_repartitioning_give_the_same_bits(spark, identities):
    out = release(identities)
    assert out.schema == identities.schema
    first = rows(out)
    assert np.array_equal(first, rows(out)), "a second action is the same release"
    assert np.array_equal(first, rows(out.repartition(7))), "repartitioning the output"
    again = release(identities.repartition(5), seed=None)
    assert not np.array_equal(first[:, 1:], rows(again)[:, 1:]), "another call is another release"
    assert len(np.unique(first[:, 0])) == N


def test_a_retried_task_gives_the_same_bits(spark, identities, tmp_path):
    marker = str(tmp_path / "failed-once")

    def flaky(batches):
        # The first attempt of the task holding id 0 fails after reading its input; Spark retries it.
        for b in batches:
            if 0 in b.column("id").to_pylist() and not os.path.exists(marker):
                open(marker, "w").close()
                raise RuntimeError("injected task failure")
            yield b

    seeded = release(identities, seed=5)
    retried = release(identities.mapInArrow(flaky, identities.schema), seed=5)
    assert np.array_equal(rows(seeded), rows(retried))
    assert os.path.exists(marker), "the failure was injected"


def test_the_noise_law_with_a_negative_control(spark, identities):
    q = rows(release(identities))[:, 1:]
    angles = 2.0 * np.arccos(np.clip(np.abs(q[:, 0]), 0.0, 1.0))

    def p_value(mech):
        cdf = np.sort(np.asarray(mech._native.angle_cdf(list(angles))))
        i = np.arange(1, len(cdf) + 1)
        d = max(np.max(i / len(cdf) - cdf), np.max(cdf - (i - 1) / len(cdf)))
        return kstwo.sf(d, len(cdf))

    assert p_value(mdp.Mechanism("so3", "laplace", epsilon=2.0)) > 1e-6
    assert p_value(mdp.Mechanism("so3", "laplace", epsilon=2.3)) < 1e-6, "a 15% wrong law must be rejected"


def test_ids_are_checked_and_the_ledger_is_charged_once(spark, identities, tmp_path):
    dup = identities.union(identities.limit(3))
    with pytest.raises(mdp.BadInputError, match="repeats"):
        release(dup)
    nulls = identities.withColumn("id", F.when(F.col("id") == 7, None).otherwise(F.col("id")))
    with pytest.raises(mdp.BadInputError, match="null"):
        release(nulls)
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("poses", {"notion": "metric_dp", "epsilon": 3.0, "metric": "so3_geodesic", "unit": "rad"})
    out = release(identities, ledger=led, dataset="poses")
    out.count()
    out.collect()
    assert len(led.releases("poses")) == 1
    with pytest.raises(mdp.BudgetExceededError):
        release(identities, ledger=led, dataset="poses")


def test_the_executors_are_checked_before_the_ledger_is_charged(spark, identities, tmp_path, monkeypatch):
    """Spark charged the ledger before the workers had shown that they could import the package (a
    failed job, budget spent). A tiny job imports it first; its error says how to point the executors at the
    right Python."""
    with pytest.raises(RuntimeError, match="PYSPARK_PYTHON"):
        mdps._preflight(identities, module="manifold_dp_not_installed_here")
    mdps._preflight(identities)
    real = mdps._preflight

    def broken(df, module="manifold_dp._native"):
        real(df, module="manifold_dp_not_installed_here")

    monkeypatch.setattr(mdps, "_preflight", broken)
    led = mdp.Ledger(tmp_path / "l.sqlite")
    led.set_budget("poses", {"notion": "metric_dp", "epsilon": 3.0, "metric": "so3_geodesic", "unit": "rad"},
                   {"notion": "pure_dp", "epsilon": 3.0})
    with pytest.raises(RuntimeError, match="not charged"):
        release(identities, ledger=led, dataset="poses")
    with pytest.raises(RuntimeError, match="not charged"):
        mdps.mean(identities, space="so3", center="identity", radius="30deg", epsilon=1.0,
                  columns=["w", "x", "y", "z"], format="quat-wxyz", ledger=led, dataset="poses")
    assert led.releases() == []


def test_a_bad_row_fails_the_job_naming_its_id(spark, identities):
    bad = identities.withColumn("w", F.when(F.col("id") == 1234, 7.0).otherwise(F.col("w")))
    with pytest.raises(Exception, match=r"id = 1234.*norm"):
        release(bad, check_ids=False).collect()


@pytest.fixture(scope="module")
def places(spark):
    """20 000 latitude/longitude rows near (45 N, 10 E), a few of them far away, with ids."""
    import pandas as pd

    rng = np.random.default_rng(11)
    lat, lon = 45.0 + rng.normal(scale=0.5, size=N), 10.0 + rng.normal(scale=0.7, size=N)
    lat[:25], lon[:25] = 48.0, 20.0  # about 800 km away: outside a 300 km ball
    pdf = pd.DataFrame({"id": np.arange(N), "lat": lat, "lon": lon})
    return pdf, spark.createDataFrame(pdf).repartition(3)


def test_the_distributed_mean_is_the_single_machine_mean(spark, places):
    pdf, df = places
    kw = dict(space="latlon", center=[45.0, 10.0], radius="300km", epsilon=1.0, columns=["lat", "lon"], seed=7)
    for outside in ("clip", "drop"):
        dist = mdps.mean(df, outside=outside, **kw)
        single = mdp.mean(pdf, outside=outside, **kw)
        # The same noise (seeded) at the same exact mean, up to the order of floating-point additions.
        assert np.allclose(dist.mean, single.mean, rtol=0, atol=1e-9), (dist.mean, single.mean)
        assert (dist.n, dist.dropped, dist.clipped) == (single.n, single.dropped, single.clipped)
        assert dist.guarantee == single.guarantee and dist.sensitivity == single.sensitivity
    assert (dist.n, dist.dropped) == (N - 25, 25)
    # Repartitioned, the mean is the same up to rounding.
    again = mdps.mean(df.repartition(5), outside="drop", **kw)
    assert np.allclose(again.mean, dist.mean, rtol=0, atol=1e-9)
    # Three Spark jobs over a table that needs no shuffle: the per-partition fits (which also count the rows in
    # the ball, at which a drop mean's rounding is checked before the passes), one Newton step and the certifying
    # pass (on data spread wider, gradient steps from the centre take five or more: the arrow crate's
    # newton_passes_from_local_fits_reach_the_mean_in_few_passes).
    sc = spark.sparkContext
    sc.setJobGroup("mean-jobs", "a distributed mean")
    plain = mdps.mean(spark.createDataFrame(pdf), outside="drop", **kw)
    sc.setJobGroup("other", "other")
    assert len(sc.statusTracker().getJobIdsForGroup("mean-jobs")) == 3
    assert np.allclose(plain.mean, dist.mean, rtol=0, atol=1e-9)


def test_the_distributed_mean_names_bad_rows_and_charges_once(spark, places, tmp_path):
    _, df = places
    kw = dict(space="latlon", center=[45.0, 10.0], radius="300km", epsilon=1.0, columns=["lat", "lon"])
    with pytest.raises(mdp.BadInputError, match=r"id = \d+: the point is at distance .* outside the radius"):
        mdps.mean(df, id_column="id", **kw)
    led = mdp.Ledger(tmp_path / "m.sqlite")
    led.set_budget("places", {"notion": "pure_dp", "epsilon": 1.5})
    res = mdps.mean(df, outside="clip", ledger=led, dataset="places", **kw)
    assert res.clipped == 25 and res.guarantee["notion"] == "pure_dp"
    assert abs(res.mean[0] - 45.0) < 0.2 and abs(res.mean[1] - 10.0) < 0.2
    assert len(led.releases("places")) == 1
    with pytest.raises(mdp.BudgetExceededError):
        mdps.mean(df, outside="clip", ledger=led, dataset="places", **kw)


def test_a_costly_rounding_is_warned_before_the_distributed_passes(spark):
    """The rounding's cost above 1 % of epsilon is a UserWarning in the user's terms once the rows are counted,
    before the Karcher passes: with a far last row, which the passes then refuse, it is still raised first; with
    outside="drop", at the count of the rows in the ball."""
    angles = [0.0] * 999 + [3.0]
    df = spark.createDataFrame([(a,) for a in angles], "angle double").repartition(2)
    kw = dict(space="circle", center=0.0, radius="1e-8rad", epsilon=100.0, columns=["angle"], seed=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(mdp.BadInputError, match="outside the radius"):
            mdps.mean(df, **kw)
    notes = [str(w.message) for w in caught if "float-safely" in str(w.message)]
    assert len(notes) == 1 and notes[0].startswith('rounding the mean of 1000 rows within radius="1e-8rad"'), notes
    # outside="drop": the rows in the ball (the far row left out) counted in one job, warned at their count before
    # the passes, which then refuse the row that is not a number.
    df = spark.createDataFrame([(a,) for a in angles + [float("nan")]], "angle double").repartition(2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(mdp.BadInputError, match="not a finite number"):
            mdps.mean(df, outside="drop", **kw)
    notes = [str(w.message) for w in caught if "float-safely" in str(w.message)]
    assert len(notes) == 1 and notes[0].startswith('rounding the mean of 999 rows within radius="1e-8rad"'), notes


def test_a_changed_input_draws_fresh_noise_and_ids_may_be_text(spark, tmp_path):
    # Natural keys, and a file rewritten between two actions on one release (one value changed, to another of
    # the same length: the file's size is what Spark listed).
    path = tmp_path / "depths.csv"
    codes = ["CDG", "ORY", "LHR", "FRA", "AMS"]

    def write(depths):
        path.write_text("code,depth\n" + "".join(f"{c},{d}\n" for c, d in zip(codes, depths)))

    write(["10.5", "20.5", "30.5", "40.5", "50.5"])
    df = spark.read.csv(str(path), header=True, schema="code string, depth double")
    with pytest.warns(UserWarning, match="seeded run"):
        out = mdps.privatize(df, space="real", mechanism="laplace", epsilon=1.0, bounds=(0.0, 100.0),
                             columns=["depth"], id_column="code", seed=11)
    first = {r["code"]: r["depth"] for r in out.collect()}
    write(["10.5", "20.5", "39.5", "40.5", "50.5"])
    second = {r["code"]: r["depth"] for r in out.collect()}
    for c in ["CDG", "ORY", "FRA", "AMS"]:
        assert first[c] == second[c], "an unchanged row recomputes bit for bit"
    # With the noise reused, the two releases of LHR would differ by exactly the change (9.0), giving it away.
    assert abs((second["LHR"] - first["LHR"]) - 9.0) > 1e-3, (first["LHR"], second["LHR"])
    with pytest.raises(TypeError, match="not a bool"):
        mdps.privatize(df, space="real", mechanism="laplace", epsilon=1.0, bounds=(0.0, 100.0), columns=["depth"],
                       id_column="code", seed=True)


def test_the_distributed_gaussian_mean_is_the_single_machine_one_and_charges_gdp_once(spark, places, tmp_path):
    pdf, df = places
    kw = dict(space="latlon", center=[45.0, 10.0], radius="300km", mechanism="gaussian", mu=0.2,
              columns=["lat", "lon"], outside="clip")
    dist = mdps.mean(df, seed=7, **kw)
    single = mdp.mean(pdf, seed=7, **kw)
    # The same noise (seeded) at the same exact mean, up to the order of floating-point additions.
    assert np.allclose(dist.mean, single.mean, rtol=0, atol=1e-9), (dist.mean, single.mean)
    assert dist.guarantee == single.guarantee == {"notion": "gdp", "mu": 0.2, "delta": 2e-280}
    assert dist.sigma == single.sigma and dist.clipped == 25
    # A ledger's gdp account: μ = 0.2 twice fits a budget of 0.3 (√0.08 ≈ 0.28), a third release does not.
    # (μ is small because σ = Δ/μ must stay above about 1e-5 rad, where the certificate reaches, at 20 000 rows.)
    led = mdp.Ledger(tmp_path / "g.sqlite")
    led.set_budget("places", {"notion": "gdp", "mu": 0.3})
    for _ in range(2):
        assert mdps.mean(df, ledger=led, dataset="places", **kw).guarantee["notion"] == "gdp"
    assert len(led.releases("places")) == 2
    with pytest.raises(mdp.BudgetExceededError):
        mdps.mean(df, ledger=led, dataset="places", **kw)
    with pytest.raises(mdp.BadInputError, match="mu= goes with mechanism= gaussian"):
        mdps.mean(df, space="latlon", center=[45.0, 10.0], radius="300km", epsilon=1.0, mu=1.0, columns=["lat", "lon"])
