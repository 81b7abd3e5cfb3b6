#!/usr/bin/env python3
"""Backbone frames of adenylate kinase, open (4AKE) and closed (1AKE), and their private extrinsic means.

The structures are the ones MDAnalysis's test data ship (``adk_open.pdb`` is 4AKE, ``adk_closed.pdb`` is 1AKE,
214 residues each, in a common frame), read from the MDAnalysisTests sdist as pip downloads it:

    pip download --no-deps MDAnalysisTests -d /tmp/mda
    python3 scripts/adk_extrinsic.py /tmp/mda/mdanalysistests-*.tar.gz --out /tmp/adk

Each residue's frame is the rotation with columns e1 = (C − CA)/|C − CA|, e2 = the unit part of N − CA orthogonal
to e1, e3 = e1 × e2. The frames are written as quat-wxyz CSVs (``adk_open_frames.csv``, ``adk_closed_frames.csv``),
each released with ``manifold-dp mean --space so3 --estimator extrinsic --epsilon 1 --json`` (OS randomness: real
releases), and the script prints the angle between the two releases and between the two exact (non-private)
extrinsic means (nearest rotations to the mean rotation matrices, by the SVD). numpy only.
"""
import argparse
import json
import os
import subprocess
import sys
import tarfile

import numpy as np


def read_backbone(text):
    atoms = {}
    for line in text.splitlines():
        if not line.startswith("ATOM"):
            continue
        name = line[12:16].strip()
        if name not in ("N", "CA", "C"):
            continue
        key = (line[21], int(line[22:26]), line[26])
        atoms.setdefault(key, {})[name] = np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])])
    return [atoms[k] for k in sorted(atoms) if len(atoms[k]) == 3]


def frame(res):
    e1 = res["C"] - res["CA"]
    e1 /= np.linalg.norm(e1)
    v = res["N"] - res["CA"]
    e2 = v - (v @ e1) * e1
    e2 /= np.linalg.norm(e2)
    return np.column_stack([e1, e2, np.cross(e1, e2)])


def quat_wxyz(r):
    """The unit quaternion (w, x, y, z) of a rotation matrix (Shepperd's method)."""
    t = np.trace(r)
    cands = [1 + t, 1 + 2 * r[0, 0] - t, 1 + 2 * r[1, 1] - t, 1 + 2 * r[2, 2] - t]
    i = int(np.argmax(cands))
    s = 2 * np.sqrt(cands[i])
    if i == 0:
        q = [s / 4, (r[2, 1] - r[1, 2]) / s, (r[0, 2] - r[2, 0]) / s, (r[1, 0] - r[0, 1]) / s]
    elif i == 1:
        q = [(r[2, 1] - r[1, 2]) / s, s / 4, (r[0, 1] + r[1, 0]) / s, (r[0, 2] + r[2, 0]) / s]
    elif i == 2:
        q = [(r[0, 2] - r[2, 0]) / s, (r[0, 1] + r[1, 0]) / s, s / 4, (r[1, 2] + r[2, 1]) / s]
    else:
        q = [(r[1, 0] - r[0, 1]) / s, (r[0, 2] + r[2, 0]) / s, (r[1, 2] + r[2, 1]) / s, s / 4]
    q = np.array(q)
    return q / np.linalg.norm(q)


def matrix(q):
    w, x, y, z = q
    return np.array([
        [w * w + x * x - y * y - z * z, 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), w * w - x * x + y * y - z * z, 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), w * w - x * x - y * y + z * z],
    ])


def nearest_rotation(m):
    u, _, vt = np.linalg.svd(m)
    d = np.sign(np.linalg.det(u @ vt))
    return u @ np.diag([1, 1, d]) @ vt


def angle(a, b):
    c = (np.trace(a.T @ b) - 1) / 2
    return float(np.degrees(np.arccos(np.clip(c, -1, 1))))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sdist", help="the MDAnalysisTests sdist (.tar.gz) or a folder holding adk_open.pdb, adk_closed.pdb")
    ap.add_argument("--out", default="adk_frames")
    ap.add_argument("--cli", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "manifold-dp"))
    ap.add_argument("--epsilon", default="1")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    texts = {}
    for name in ("adk_open.pdb", "adk_closed.pdb"):
        if os.path.isdir(a.sdist):
            texts[name] = open(os.path.join(a.sdist, name)).read()
        else:
            with tarfile.open(a.sdist) as tar:
                member = next(m for m in tar.getmembers() if m.name.endswith("/data/" + name))
                texts[name] = tar.extractfile(member).read().decode()
    results = {}
    for label, name in (("open", "adk_open.pdb"), ("closed", "adk_closed.pdb")):
        frames = [frame(r) for r in read_backbone(texts[name])]
        path = os.path.join(a.out, f"adk_{label}_frames.csv")
        with open(path, "w") as f:
            f.write("w,x,y,z\n")
            for r in frames:
                f.write(",".join(repr(float(v)) for v in quat_wxyz(r)) + "\n")
        angles = [angle(np.eye(3), r) for r in frames]
        out = subprocess.run([a.cli, "mean", "--space", "so3", "--estimator", "extrinsic", "--epsilon", a.epsilon,
                              "--input", path, "--json"], capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"{path}: {out.stderr}")
        release = json.loads(out.stdout)
        exact = nearest_rotation(np.mean(frames, axis=0))
        s = np.linalg.svd(np.mean(frames, axis=0), compute_uv=False)
        results[label] = (release, exact)
        print(f"{label}: {len(frames)} frames, median angle from the identity {np.median(angles):.1f} deg; "
              f"mean matrix singular values {np.round(s, 3).tolist()} (det {np.linalg.det(np.mean(frames, axis=0)):+.2e})")
        bound = release["error_bound_deg"]
        bound = "none: unstable" if bound is None else f"{bound:.3g} deg"
        print(f"  release (quat-wxyz) {np.round(release['mean'], 4).tolist()}, 95 % error bound {bound}, "
              f"degeneracy distance {release['degeneracy_distance']:.3g} (probability {release['degeneracy_probability']:.3g}), "
              f"sensitivity {release['sensitivity']:.4g}, sigma {release['sigma']:.4g}")
        print(f"  guarantee {json.dumps(release['guarantee'])}")
        if out.stderr:
            print("  " + out.stderr.strip())
    (ro, eo), (rc, ec) = results["open"], results["closed"]
    print(f"angle between the exact extrinsic means (open vs closed): {angle(eo, ec):.2f} deg")
    print(f"angle between the private releases (open vs closed):      "
          f"{angle(matrix(ro['mean']), matrix(rc['mean'])):.2f} deg")
    print(f"release vs exact: open {angle(matrix(ro['mean']), eo):.2f} deg, closed {angle(matrix(rc['mean']), ec):.2f} deg")


if __name__ == "__main__":
    main()
