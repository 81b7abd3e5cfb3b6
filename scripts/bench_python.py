"""Privatizing 4 M quaternions from numpy: the manifold_dp package against an exact vectorised numpy
implementation of the same law (SO(3) Laplace: Gamma(3, 1/eps) proposal with rejection, uniform axis,
Hamilton product), and against the Rust library's own batch rate; and the package's peak memory.
Run by scripts/bench_python.sh; prints one JSON object."""

import json
import subprocess
import sys
import time

import numpy as np

N = int(sys.argv[1]) if len(sys.argv) > 1 else 4_000_000
EPS = 2.0


def numpy_laplace_so3(q_xyzw, eps, rng):
    """Exact: theta has density ∝ sin²(θ/2)·exp(−εθ) on [0, π]; Gamma(3, 1/ε) proposal accepted with
    probability (sin(θ/2)/(θ/2))² when θ ≤ π."""
    n = len(q_xyzw)
    theta = np.empty(n)
    todo = np.arange(n)
    while todo.size:
        t = rng.gamma(3.0, 1.0 / eps, todo.size)
        u = rng.random(todo.size)
        half = t / 2
        ok = (t <= np.pi) & (u * half * half <= np.sin(half) ** 2)
        theta[todo[ok]] = t[ok]
        todo = todo[~ok]
    axis = rng.normal(size=(n, 3))
    axis /= np.linalg.norm(axis, axis=1, keepdims=True)
    s = np.sin(theta / 2)[:, None]
    nx, ny, nz, nw = (axis * s)[:, 0], (axis * s)[:, 1], (axis * s)[:, 2], np.cos(theta / 2)
    x, y, z, w = q_xyzw.T
    return np.stack([
        w * nx + x * nw + y * nz - z * ny,
        w * ny - x * nz + y * nw + z * nx,
        w * nz + x * ny - y * nx + z * nw,
        w * nw - x * nx - y * ny - z * nz,
    ], axis=1)


def best_of(f, repeat=3):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def peak_rss_child(route):
    """Memory (MiB) a fresh process needs beyond its input to privatize it once: the peak resident size during
    the release minus the resident size just before it (the input made, its temporaries freed). The peak is
    the kernel's high-water mark, reset just before the release (/proc/self/clear_refs): getrusage's
    ru_maxrss would also count the peak of making the input and, in a child, its parent's peak (Linux carries
    it across fork and exec). ``route``: "package" (``Mechanism.privatize``), or "arrow" (the same rows
    through Arrow columns, the package's route before the direct numpy path), for comparison."""
    code = (
        "import numpy as np, manifold_dp as mdp, pyarrow as pa\n"
        "from manifold_dp import _convert as cv\n"
        "def kib(field):\n"
        "    return next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith(field + ':'))\n"
        "mech = mdp.Mechanism('so3', 'laplace', epsilon=%r)\n"
        "mech.privatize(np.array([[0.0, 0.0, 0.0, 1.0]]), format='quat-xyzw')\n"  # load and warm up first
        "q = np.random.default_rng(1).normal(size=(%d, 4)); q /= np.linalg.norm(q, axis=1, keepdims=True)\n"
        "import gc; gc.collect()\n"
        "before = kib('VmRSS')\n"
        "open('/proc/self/clear_refs', 'w').write('5')\n"  # resets VmHWM to the current resident size
        "if %r == 'package':\n"
        "    out = mech.privatize(q, format='quat-xyzw')\n"
        "else:\n"
        "    b, _ = mech._native.privatize_batch(cv.array_to_batch(q, 4), 'quat-xyzw', cv.names(4), None, 1)\n"
        "    out = np.column_stack([b.column(j).to_numpy() for j in range(4)])\n"
        "print(before / 1024, kib('VmHWM') / 1024)\n"
    ) % (EPS, N, route)
    before, peak = map(float, subprocess.check_output([sys.executable, "-c", code]).split())
    return before, peak


def main():
    import manifold_dp as mdp

    rng = np.random.default_rng(1)
    q = rng.normal(size=(N, 4))
    q /= np.linalg.norm(q, axis=1, keepdims=True)
    mech = mdp.Mechanism("so3", "laplace", epsilon=EPS)
    t_pkg = best_of(lambda: mech.privatize(q, format="quat-xyzw"))
    t_np = best_of(lambda: numpy_laplace_so3(q, EPS, rng))
    before, peak = peak_rss_child("package")
    arrow_before, arrow_peak = peak_rss_child("arrow")
    io_mib = 2 * q.nbytes / 2**20
    print(json.dumps({
        "rows": N,
        "numpy_version": np.__version__,
        "package_seconds": t_pkg,
        "package_rows_per_second": N / t_pkg,
        "numpy_exact_seconds": t_np,
        "speedup_vs_numpy": t_np / t_pkg,
        "extra_peak_rss_mib": peak - before,
        "output_mib": io_mib / 2,
        "extra_peak_over_output": (peak - before) / (io_mib / 2),
        "arrow_route_extra_peak_rss_mib": arrow_peak - arrow_before,
    }))


if __name__ == "__main__":
    main()
