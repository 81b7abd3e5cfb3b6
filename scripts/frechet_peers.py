#!/usr/bin/env python3
"""Fréchet means by the peers, and one common grader for everyone (scripts/bench_frechet_vs_peers.sh).

Subcommands:

  gen   --manifold {s2,so3,spdK} --n N --seed S --out FILE [--header]
        Seeded data sets: S² uniform within the geodesic ball of radius π/8 around the north pole (polar angle
        uniform in [0, π/8], azimuth uniform in [0, 2π)); SO(3) within the ball of radius π/8 around the
        identity (rotation angle uniform in [0, π/8], axis uniform on S²), as unit quaternions w,x,y,z (scalar
        first: the CLI's default quat-wxyz); SPD(K) drawn from the Wishart W(I/K, df = K) and kept if
        ρ(X, I) < 1.5 (affine-invariant distance). One point per row, '%.17g' (exact round trip). With --header,
        a first line naming the columns as `manifold-dp mean` reads them by default (x1,x2,x3 / w,x,y,z /
        m11,m12,…).

  command --cli BIN --fit FIT --manifold {s2,so3,spdK} --data FILE [--repeats R] [--min-seconds S] [--epsilon E]
        Times the whole `manifold-dp mean` command on FILE (a CSV with a header) as a subprocess: process start,
        argument parsing, reading the CSV, the Karcher mean and the private release, best wall-clock time as for
        `run`. Public parameters: S² `--space sphere:3 --center 0,0,1 --radius 22.5deg`, SO(3) `--space so3
        --center identity --radius 22.5deg`, SPD(K) `--space spd:K --center identity --radius 1.5` (the balls the
        data are drawn in), `--epsilon E` (default 1), `--json`. The command prints only its private release
        (noisy by design), so the Karcher mean it computes is graded through FIT
        (crates/manifold-dp-arrow/examples/mean_fit.rs: the same call, MeanPlan::fit, on the same rows, untimed);
        the error of the ε = E release is reported too (`release_distance`). Also times `BIN --version` (process
        start alone). Prints JSON lines for `run --ours`.

  run   --manifold {s2,so3,spdK} --data FILE [--repeats R] [--min-seconds S] [--matched] [--ours FILE.jsonl]
        Times geomstats' FrechetMean (Hypersphere(dim=2) / SpecialOrthogonal(n=3, point_type="vector") /
        SPDMatrices(n=K), affine-invariant metric) and, on SPD, pyriemann's mean_riemann, both at their default
        settings: best wall-clock time
        (time.perf_counter) after one untimed run, over at least R runs and until the runs have taken S seconds
        in all (as crates/manifold-dp/examples/frechet_bench.rs does). With --matched, also each peer with its stopping tolerance
        set to match our default (gradient norm <= 1e-12): geomstats epsilon = 1e-24 / dim (it stops when the
        squared norm is <= epsilon * dim), pyriemann tol = 1e-12; their other settings stay at the defaults.
        Then grades every mean — the peers' and the
        JSON lines of crates/manifold-dp/examples/frechet_bench.rs given with --ours — with the same numpy code: the Riemannian
        gradient norm ‖(1/n) Σ log_m x_i‖ and the distance to a reference mean computed here (see
        `reference_mean`). Prints one JSON line per tool (fields: tool, manifold, n, iterations, gradient_norm,
        distance_to_reference, seconds, mean, converged, ...) and one line for the reference.

  table FILE.jsonl...
        The markdown tables of graded JSON lines: a summary (whole command, library in memory, each peer at its
        defaults, time and distance to the reference, and the ratios peer time / ours) and every row in full;
        where a (manifold, n, tool) appears more than once (several rounds), the fastest round counts (the means
        of all rounds must agree, except the command's noisy releases).

Iteration counts are not exposed by either peer; they are read in the untimed first run: geomstats logs
"n_iter: ..." when its optimizer is verbose, and pyriemann's loop makes one `expm` call per iteration (counted
through a wrapper around the `expm` name of pyriemann.geometry.mean). The timed runs use neither.
"""

import argparse
import json
import math
import sys
import time
import warnings

import numpy as np

COMMAND = "manifold-dp mean (whole command)"
START = "manifold-dp --version (process start)"

# ---------------------------------------------------------------------------------------------------------------
# Data


def gen(args):
    rng = np.random.default_rng(args.seed)
    n = args.n
    if args.manifold == "s2":
        r = math.pi / 8
        theta = rng.uniform(0.0, r, n)
        phi = rng.uniform(0.0, 2 * math.pi, n)
        x = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), np.cos(theta)], axis=1)
        x /= np.linalg.norm(x, axis=1, keepdims=True)
        rows = x
    elif args.manifold == "so3":
        half = 0.5 * rng.uniform(0.0, math.pi / 8, n)
        axis = rng.standard_normal((n, 3))
        axis /= np.linalg.norm(axis, axis=1, keepdims=True)
        q = np.concatenate([np.cos(half)[:, None], np.sin(half)[:, None] * axis], axis=1)
        rows = q / np.linalg.norm(q, axis=1, keepdims=True)
    else:
        k = spd_k(args.manifold)
        kept = []
        count = 0
        while count < n:
            # W(I/k, df = k): X = G Gᵀ with the k columns of G i.i.d. N(0, I/k), so that E X = I.
            g = rng.standard_normal((4 * n, k, k)) / math.sqrt(k)
            x = g @ np.swapaxes(g, 1, 2)
            x = 0.5 * (x + np.swapaxes(x, 1, 2))
            w = np.linalg.eigvalsh(x)
            with np.errstate(divide="ignore", invalid="ignore"):
                dist = np.sqrt(np.sum(np.log(w) ** 2, axis=1))
            ok = x[np.isfinite(dist) & (dist < 1.5)]
            kept.append(ok)
            count += len(ok)
        rows = np.concatenate(kept)[:n].reshape(n, k * k)
    with open(args.out, "w") as f:
        if args.header:
            f.write(",".join(column_names(args.manifold)) + "\n")
        for row in rows:
            f.write(",".join("%.17g" % v for v in row) + "\n")


def spd_k(manifold):
    if manifold.startswith("spd") and manifold[3:].isdigit():
        return int(manifold[3:])
    raise SystemExit(f"unknown manifold {manifold!r} (s2, so3 or spdK)")


def column_names(manifold):
    """The columns `manifold-dp mean` reads by default on this manifold."""
    if manifold == "s2":
        return ["x1", "x2", "x3"]
    if manifold == "so3":
        return ["w", "x", "y", "z"]
    k = spd_k(manifold)
    return [f"m{i}{j}" for i in range(1, k + 1) for j in range(1, k + 1)]


def load(manifold, path):
    # A header line (the CLI's copy of the data) is skipped.
    with open(path) as f:
        first = f.readline()
    skip = 0 if first[:1] in "0123456789-+." else 1
    x = np.loadtxt(path, delimiter=",", ndmin=2, skiprows=skip)
    if manifold == "s2":
        assert x.shape[1] == 3, x.shape
        return x
    if manifold == "so3":
        assert x.shape[1] == 4, x.shape
        return x
    k = spd_k(manifold)
    assert x.shape[1] == k * k, x.shape
    return x.reshape(-1, k, k)


# ---------------------------------------------------------------------------------------------------------------
# The common grader: plain numpy, float64, affine-invariant log through eigh. No library grades itself.


def sphere_mean_log(m, x):
    """(1/n) Σ log_m x_i on S² (m normalised): θ_i·u_i with θ_i = atan2(‖x_i − (m·x_i) m‖, m·x_i)."""
    c = x @ m
    v = x - c[:, None] * m
    s = np.linalg.norm(v, axis=1)
    theta = np.arctan2(s, c)
    scale = np.divide(theta, s, out=np.zeros_like(s), where=s > 0)
    return (v * scale[:, None]).mean(axis=0)


def sphere_exp(m, v):
    t = np.linalg.norm(v)
    if t == 0:
        return m
    y = math.cos(t) * m + math.sin(t) * v / t
    return y / np.linalg.norm(y)


def sphere_dist(a, b):
    return math.atan2(np.linalg.norm(np.cross(a, b)), float(a @ b))


def sym(a):
    return 0.5 * (a + np.swapaxes(a, -1, -2))


def spd_fn(a, f):
    w, u = np.linalg.eigh(sym(a))
    return sym((u * f(w)[..., None, :]) @ np.swapaxes(u, -1, -2))


def spd_mean_log(m, x):
    """(1/n) Σ log(m^{-1/2} x_i m^{-1/2}): the whitened tangent mean, whose Frobenius norm is the Riemannian
    norm at m."""
    s = spd_fn(m, lambda w: 1.0 / np.sqrt(w))
    return spd_fn(s @ x @ s, np.log).mean(axis=0)


def spd_exp(m, v):
    r = spd_fn(m, np.sqrt)
    return sym(r @ spd_fn(v, np.exp) @ r)


def spd_dist(a, b):
    s = spd_fn(a, lambda w: 1.0 / np.sqrt(w))
    w = np.linalg.eigvalsh(sym(s @ b @ s))
    return math.sqrt(float(np.sum(np.log(w) ** 2)))


def quat_mul(a, b):
    """Hamilton products of quaternions (w, x, y, z), broadcast over leading axes."""
    aw, ax, ay, az = np.moveaxis(np.asarray(a), -1, 0)
    bw, bx, by, bz = np.moveaxis(np.asarray(b), -1, 0)
    return np.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        axis=-1,
    )


def quat_conj(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def quat_rotvec(q):
    """The rotation vector (angle in [0, π] times the axis) of unit quaternions (w, x, y, z)."""
    q = np.where(q[..., :1] < 0, -q, q)
    s = np.linalg.norm(q[..., 1:], axis=-1)
    angle = 2.0 * np.arctan2(s, q[..., 0])
    scale = np.divide(angle, s, out=np.full_like(s, 2.0), where=s > 0)
    return q[..., 1:] * scale[..., None]


def quat_from_rotvec(v):
    v = np.asarray(v, dtype=float)
    t = np.linalg.norm(v, axis=-1)
    # sin(t/2)/t, → 1/2 as t → 0.
    scale = np.divide(np.sin(0.5 * t), t, out=np.full_like(t, 0.5), where=t > 0)
    q = np.concatenate([np.cos(0.5 * t)[..., None], v * scale[..., None]], axis=-1)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def so3_mean_log(m, x):
    """(1/n) Σ log_m x_i on SO(3): the mean body rotation vector of m⁻¹x_i; its norm is the Riemannian norm in
    the rotation-angle metric (radians)."""
    return quat_rotvec(quat_mul(quat_conj(m), x)).mean(axis=0)


def so3_exp(m, v):
    q = quat_mul(m, quat_from_rotvec(v))
    return q / np.linalg.norm(q)


def so3_dist(a, b):
    r = quat_mul(quat_conj(a), b)
    return 2.0 * math.atan2(float(np.linalg.norm(r[1:])), abs(float(r[0])))


class Geometry:
    def __init__(self, manifold):
        self.manifold = manifold
        if manifold == "s2":
            self.mean_log, self.exp, self.dist = sphere_mean_log, sphere_exp, sphere_dist
        elif manifold == "so3":
            self.mean_log, self.exp, self.dist = so3_mean_log, so3_exp, so3_dist
        else:
            self.k = spd_k(manifold)
            self.mean_log, self.exp, self.dist = spd_mean_log, spd_exp, spd_dist

    def point(self, flat):
        """A tool's mean as a point (a sphere mean or a quaternion (w, x, y, z) normalised, with w ≥ 0; an SPD
        mean symmetrised)."""
        p = np.asarray(flat, dtype=float)
        if self.manifold == "s2":
            return p.reshape(3) / np.linalg.norm(p)
        if self.manifold == "so3":
            q = p.reshape(4) / np.linalg.norm(p)
            return -q if q[0] < 0 else q
        return sym(p.reshape(self.k, self.k))

    def gradient_norm(self, m, x):
        return float(np.linalg.norm(self.mean_log(m, x)))


def reference_mean(geo, x):
    """The reference mean: Karcher iteration with unit step from the arithmetic mean (normalised on S²; of the
    quaternions put in the first one's hemisphere, normalised, on SO(3)), in this script's own numpy code, run
    until the gradient norm is ≤ 1e-16 or has not decreased for 5 iterations; the iterate with the smallest
    gradient norm. Returns (mean, gradient norm, iterations)."""
    if geo.manifold == "so3":
        aligned = np.where((x @ x[0])[:, None] < 0, -x, x)
        m = geo.point(aligned.mean(axis=0))
    else:
        m = x.mean(axis=0)
        m = m / np.linalg.norm(m) if geo.manifold == "s2" else sym(m)
    best, best_g, since = m, math.inf, 0
    for it in range(200):
        v = geo.mean_log(m, x)
        g = float(np.linalg.norm(v))
        if g < best_g:
            best, best_g, since = m, g, 0
        else:
            since += 1
        if g <= 1e-16 or since >= 5:
            break
        m = geo.exp(m, v)
    return best, best_g, it


# ---------------------------------------------------------------------------------------------------------------
# Peers


def best_time(fn, repeats, min_seconds):
    """The best time of at least `repeats` runs of `fn`, run until they have taken `min_seconds` in all (at most
    100 000 runs), and the number of runs."""
    best, total, runs = math.inf, 0.0, 0
    while runs < repeats or (total < min_seconds and runs < 100_000):
        t0 = time.perf_counter()
        fn()
        seconds = time.perf_counter() - t0
        best = min(best, seconds)
        total += seconds
        runs += 1
    return best, runs


class LogCapture:
    """Collects the log records geomstats writes (its verbose "n_iter" line and its max_iter warning)."""

    def __init__(self):
        import logging

        self.logging = logging
        self.records = []
        outer = self

        class Handler(logging.Handler):
            def emit(self, record):
                outer.records.append(record.getMessage())

        self.handler = Handler(level=logging.DEBUG)

    def __enter__(self):
        root = self.logging.getLogger()
        self.old_level, self.old_handlers = root.level, root.handlers[:]
        root.handlers[:] = [self.handler]
        root.setLevel(self.logging.DEBUG)
        return self

    def __exit__(self, *exc):
        root = self.logging.getLogger()
        root.handlers[:] = self.old_handlers
        root.setLevel(self.old_level)


def run_geomstats(manifold, x, repeats, min_seconds, matched=False):
    import geomstats
    from geomstats.learning.frechet_mean import FrechetMean

    if manifold == "s2":
        from geomstats.geometry.hypersphere import Hypersphere

        space = Hypersphere(dim=2)
    elif manifold == "so3":
        from geomstats.geometry.special_orthogonal import SpecialOrthogonal

        # Rotation vectors with the bi-invariant metric (distance = rotation angle, as ours). The matrix form
        # (point_type="matrix") gives the same mean but took 47 s at n = 1000 (expm/logm per point).
        space = SpecialOrthogonal(n=3, point_type="vector")
        # The data in geomstats' own form, converted before any timing.
        x = quat_rotvec(x)
    else:
        from geomstats.geometry.spd_matrices import SPDAffineMetric, SPDMatrices

        space = SPDMatrices(n=spd_k(manifold))
        # The affine-invariant metric is SPDMatrices' default in geomstats 2.x; equipped explicitly to be sure.
        space.equip_with_metric(SPDAffineMetric)
    def make():
        estimator = FrechetMean(space)
        if matched:
            estimator.set(epsilon=1e-24 / space.dim)
        return estimator

    estimator = make()
    optimizer = estimator.optimizer
    settings = {
        "optimizer": type(optimizer).__name__,
        "max_iter": optimizer.max_iter,
        "epsilon": optimizer.epsilon,
        "init_step_size": optimizer.init_step_size,
        "init_point": "first data point" if optimizer.init_point is None else "given",
        "stop": f"squared norm of the tangent mean <= epsilon * dim = {optimizer.epsilon * space.dim:g}",
    }
    # Untimed run with verbose logging, for the iteration count (the result is the same as the timed runs').
    optimizer.verbose = True
    with LogCapture() as log:
        estimator.fit(x)
    optimizer.verbose = False
    first = np.array(estimator.estimate_, dtype=float)
    iterations = None
    reached_max = False
    for message in log.records:
        if message.startswith("n_iter:"):
            iterations = int(message.split(",")[0].split(":")[1])
        if "Maximum number of iterations" in message:
            reached_max = True

    result = {}

    def compute():
        result["mean"] = make().fit(x).estimate_

    seconds, runs = best_time(compute, repeats, min_seconds)
    mean = np.array(result["mean"], dtype=float)
    assert np.array_equal(mean, first), "geomstats' mean differs between runs"
    if manifold == "so3":
        # Graded as a quaternion (w, x, y, z), like ours.
        mean = quat_from_rotvec(mean.reshape(3))
    return {
        "tool": f"geomstats {geomstats.__version__}" + (" (epsilon = 1e-24/dim)" if matched else ""),
        "iterations": iterations,
        "seconds": seconds,
        "runs": runs,
        "mean": mean.reshape(-1).tolist(),
        "converged": not reached_max,
        "settings": settings,
    }


def run_pyriemann(manifold, x, repeats, min_seconds, matched=False):
    import inspect

    import pyriemann
    import pyriemann.geometry.mean as pm
    from pyriemann.geometry.mean import mean_riemann

    kwargs = {"tol": 1e-12} if matched else {}

    defaults = {
        name: p.default
        for name, p in inspect.signature(mean_riemann).parameters.items()
        if p.default is not inspect.Parameter.empty
    }
    settings = {
        "tol": defaults.get("tol"),
        "maxiter": defaults.get("maxiter"),
        "init": "arithmetic (Euclidean) mean" if defaults.get("init") is None else "given",
        "stop": "Frobenius norm of the whitened tangent mean at the previous iterate <= tol, or step size nu <= tol",
    }
    # Untimed run counting the loop's expm calls (one per iteration) and catching its non-convergence warning.
    original = pm.expm
    calls = [0]

    def counting_expm(*a, **kw):
        calls[0] += 1
        return original(*a, **kw)

    pm.expm = counting_expm
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first = np.array(mean_riemann(x, **kwargs), dtype=float)
    finally:
        pm.expm = original
    converged = not any("Convergence not reached" in str(w.message) for w in caught)

    result = {}

    def compute():
        result["mean"] = mean_riemann(x, **kwargs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seconds, runs = best_time(compute, repeats, min_seconds)
    mean = np.array(result["mean"], dtype=float)
    assert np.array_equal(mean, first), "pyriemann's mean differs between runs"
    if matched:
        settings["tol"] = kwargs["tol"]
    return {
        "tool": f"pyriemann {pyriemann.__version__}" + (" (tol = 1e-12)" if matched else ""),
        "iterations": calls[0],
        "seconds": seconds,
        "runs": runs,
        "mean": mean.reshape(-1).tolist(),
        "converged": converged,
        "settings": settings,
    }


def cli_arguments(manifold):
    """The public parameters of `manifold-dp mean` on each data set: the balls the data are drawn in."""
    if manifold == "s2":
        return ["--space", "sphere:3", "--center", "0,0,1", "--radius", "22.5deg"]
    if manifold == "so3":
        return ["--space", "so3", "--center", "identity", "--radius", "22.5deg"]
    return ["--space", f"spd:{spd_k(manifold)}", "--center", "identity", "--radius", "1.5"]


def command(args):
    """Times the whole `manifold-dp mean` command (see the module docstring)."""
    import subprocess

    def invoke(argv):
        done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
        return done.stdout

    timed = [args.cli, "mean", *cli_arguments(args.manifold), "--input", args.data, "--json"]
    timed += ["--epsilon", repr(args.epsilon)]
    options = cli_arguments(args.manifold)
    # The fit example takes the radius in radians: π/8 is the ball the data are drawn in (22.5deg).
    radius = options[5] if args.manifold.startswith("spd") else repr(math.pi / 8)
    fit = json.loads(invoke([args.fit, options[1], options[3], radius, args.data]))
    out = {}

    def once():
        out["stdout"] = invoke(timed)

    seconds, runs = best_time(once, args.repeats, args.min_seconds)
    release = json.loads(out["stdout"])
    assert release["n"] == fit["n"], (release["n"], fit["n"])
    print(
        json.dumps(
            {
                "tool": COMMAND,
                "manifold": args.manifold,
                "n": fit["n"],
                "iterations": fit["iterations"],
                "seconds": seconds,
                "runs": runs,
                # The Karcher mean inside the command (MeanPlan::fit through the fit example).
                "mean": fit["mean"],
                "release": release["mean"],
                "release_expected_error": release["expected_error"],
                "noisy": True,
                "settings": {"argv": " ".join(timed[1:]), "sigma": release["sigma"], "conditioned": release["conditioned"]},
            }
        )
    )
    seconds, runs = best_time(lambda: invoke([args.cli, "--version"]), args.repeats, args.min_seconds)
    print(json.dumps({"tool": START, "manifold": args.manifold, "n": fit["n"], "seconds": seconds, "runs": runs}))


def run(args):
    x = load(args.manifold, args.data)
    n = len(x)
    geo = Geometry(args.manifold)
    rows = []
    if args.ours:
        with open(args.ours) as f:
            for line in f:
                if line.strip():
                    ours = json.loads(line)
                    assert ours["manifold"] == args.manifold and ours["n"] == n, (ours["manifold"], ours["n"])
                    if ours["tool"] != "manifold-dp":
                        # The whole command and the process start (`command`): graded as they are.
                        rows.append({k: v for k, v in ours.items() if k not in ("manifold", "n")})
                        continue
                    tool = "manifold-dp"
                    if ours.get("tolerance") not in (None, 1e-12):
                        tool += f" (tol {ours['tolerance']:g})"
                    if ours.get("start") == "euclidean":
                        tool += " (extrinsic start)"
                    rows.append(
                        {
                            "tool": tool,
                            "iterations": ours["iterations"],
                            "seconds": ours["seconds"],
                            "runs": ours.get("runs"),
                            "mean": ours["mean"],
                            "converged": True,
                            "self_reported_gradient_norm": ours["gradient_norm"],
                            "settings": {k: ours[k] for k in ("tolerance", "max_iterations", "start") if k in ours},
                        }
                    )
    peers = [run_geomstats]
    if args.manifold.startswith("spd"):
        peers.append(run_pyriemann)
    for matched in [False, True] if args.matched else [False]:
        for peer in peers:
            name = peer.__name__.replace("run_", "") + (" (matched tolerance)" if matched else "")
            try:
                rows.append(peer(args.manifold, x, args.repeats, args.min_seconds, matched))
            except Exception as e:  # report and go on: the other peer still runs
                print(f"{name} failed: {type(e).__name__}: {e}", file=sys.stderr)
                rows.append({"tool": name, "error": f"{type(e).__name__}: {e}"})

    ref, ref_g, ref_it = reference_mean(geo, x)
    for row in rows:
        row.update({"manifold": args.manifold, "n": n})
        if "mean" in row:
            m = geo.point(row["mean"])
            row["gradient_norm"] = geo.gradient_norm(m, x)
            row["distance_to_reference"] = geo.dist(ref, m)
        if "release" in row:
            row["release_distance"] = geo.dist(ref, geo.point(row["release"]))
        print(json.dumps(row))
    print(
        json.dumps(
            {
                "tool": "reference",
                "manifold": args.manifold,
                "n": n,
                "iterations": ref_it,
                "gradient_norm": ref_g,
                "mean": ref.reshape(-1).tolist(),
                "how": "numpy float64 Karcher iteration (this script), best iterate",
            }
        )
    )
    sys.stdout.flush()


# ---------------------------------------------------------------------------------------------------------------
# Table


def pretty_manifold(m):
    if m == "s2":
        return "S²"
    if m == "so3":
        return "SO(3)"
    return f"SPD({m[3:]})"


def ms(seconds):
    return f"{seconds:.2f} s" if seconds >= 1 else f"{seconds * 1e3:.3g} ms"


def table(args):
    merged = {}
    for path in args.files:
        with open(path) as f:
            for line in f:
                if not line.strip():
                    continue
                r = json.loads(line)
                key = (r["manifold"], r["n"], r["tool"])
                old = merged.get(key)
                if old is None:
                    merged[key] = r
                    continue
                noisy = r.get("noisy") or old.get("noisy")
                if not noisy and "mean" in r and "mean" in old and r["mean"] != old["mean"]:
                    raise SystemExit(f"{key}: the mean differs between rounds")
                if "seconds" in r and r["seconds"] < old.get("seconds", math.inf):
                    merged[key] = r
    rows = list(merged.values())
    by = {(r["manifold"], r["n"], r["tool"]): r for r in rows}
    cases = sorted({(r["manifold"], r["n"]) for r in rows}, key=lambda c: (order(c[0]), c[1]))

    def pick(case, want):
        for r in rows:
            if (r["manifold"], r["n"]) == case and want(r["tool"]) and "seconds" in r and "error" not in r:
                return r
        return None

    def cell(r):
        return "—" if r is None else f"{ms(r['seconds'])}, {r['distance_to_reference']:.0e}"

    def ratio(peer, ours):
        return "—" if peer is None or ours is None else f"{peer['seconds'] / ours['seconds']:.2f}×"

    print(
        "| data | n | `manifold-dp mean` (whole command) | library, in memory | geomstats defaults | pyriemann defaults "
        "| pyriemann / command | geomstats / library | geomstats / command |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for case in cases:
        command = by.get((*case, COMMAND))
        library = by.get((*case, "manifold-dp (extrinsic start)")) or by.get((*case, "manifold-dp"))
        geomstats = pick(case, lambda t: t.startswith("geomstats") and "epsilon" not in t)
        pyriemann = pick(case, lambda t: t.startswith("pyriemann") and "tol" not in t)
        print(
            f"| {pretty_manifold(case[0])} | {case[1]} | {cell(command)} | {cell(library)} | {cell(geomstats)} "
            f"| {cell(pyriemann)} | {ratio(pyriemann, command)} | {ratio(geomstats, library)} "
            f"| {ratio(geomstats, command)} |"
        )
    starts = [r["seconds"] for r in rows if r["tool"] == START]
    if starts:
        print()
        print(f"Process start alone (`manifold-dp --version`, best of all runs): {ms(min(starts))}.")
    releases = [r for r in rows if r["tool"] == COMMAND and "release_distance" in r]
    if releases:
        print()
        print(
            "The command's timed releases (ε = 1) are private, so noisy by design; their distance to the reference "
            "(the command's own expected error in brackets): "
            + "; ".join(
                f"{pretty_manifold(r['manifold'])} n = {r['n']}: {r['release_distance']:.1e} "
                f"({r['release_expected_error']:.1e})"
                for r in sorted(releases, key=lambda r: (order(r["manifold"]), r["n"]))
            )
            + "."
        )

    ours = {(r["manifold"], r["n"]): r["seconds"] for r in rows if r["tool"] == "manifold-dp"}
    print()
    print("| manifold | n | tool | seconds | ratio to ours | iterations | gradient norm | distance to reference |")
    print("|---|---|---|---|---|---|---|---|")
    notes = []
    for r in sorted(rows, key=lambda r: (order(r["manifold"]), r["n"])):
        if r["tool"] == START:
            continue
        if r["tool"] == "reference":
            notes.append(f"{pretty_manifold(r['manifold'])}, n = {r['n']}: {r['gradient_norm']:.1e}")
            continue
        key = (r["manifold"], r["n"])
        if "error" in r:
            print(f"| {pretty_manifold(key[0])} | {key[1]} | {r['tool']} | failed: {r['error']} | | | | |")
            continue
        base = ours.get(key)
        ratio_text = f"{r['seconds'] / base:.2f}×" if base else "–"
        iterations = "?" if r.get("iterations") is None else str(r["iterations"])
        if not r.get("converged", True):
            iterations += " (max, not converged)"
        print(
            f"| {pretty_manifold(key[0])} | {key[1]} | {r['tool']} | {r['seconds']:.3g} | {ratio_text} | {iterations} "
            f"| {r['gradient_norm']:.1e} | {r['distance_to_reference']:.1e} |"
        )
    if notes:
        print()
        print(
            "Reference means (numpy float64 Karcher iteration in scripts/frechet_peers.py), their own gradient norms: "
            + "; ".join(notes)
            + "."
        )


def order(manifold):
    """Table order: SPD(2), SPD(3), S², SO(3)."""
    return {"s2": 100, "so3": 101}.get(manifold, spd_k(manifold) if manifold.startswith("spd") else 200)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--manifold", required=True)
    g.add_argument("--n", type=int, required=True)
    g.add_argument("--seed", type=int, required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--header", action="store_true", help="a first line naming the columns (for the CLI)")
    c = sub.add_parser("command")
    c.add_argument("--cli", required=True, help="the manifold-dp executable")
    c.add_argument("--fit", required=True, help="crates/manifold-dp-arrow/examples/mean_fit, built")
    c.add_argument("--manifold", required=True)
    c.add_argument("--data", required=True, help="a CSV file with a header")
    c.add_argument("--repeats", type=int, default=5)
    c.add_argument("--min-seconds", type=float, default=0.5)
    c.add_argument("--epsilon", type=float, default=1.0)
    r = sub.add_parser("run")
    r.add_argument("--manifold", required=True)
    r.add_argument("--data", required=True)
    r.add_argument("--repeats", type=int, default=5)
    r.add_argument("--min-seconds", type=float, default=0.5)
    r.add_argument("--matched", action="store_true", help="also run each peer at our default tolerance")
    r.add_argument("--ours", help="JSON lines from crates/manifold-dp/examples/frechet_bench.rs on the same data, to grade")
    t = sub.add_parser("table")
    t.add_argument("files", nargs="+")
    args = parser.parse_args()
    {"gen": gen, "command": command, "run": run, "table": table}[args.command](args)


if __name__ == "__main__":
    main()
