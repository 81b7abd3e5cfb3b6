#!/usr/bin/env python3
"""Check the workspace's `rust-version` against every locked dependency's own.

CI machines reach no Rust toolchain but the one installed, so the minimum supported Rust version is checked in
two halves: clippy's `incompatible_msrv` lint (on by default, denied in CI) refuses standard-library APIs newer
than `rust-version`, and this script refuses a locked dependency that declares a newer `rust-version`.
"""

import json
import subprocess
import sys
import tomllib
from pathlib import Path


def version(text: str) -> tuple[int, ...]:
    """`1.89` or `1.89.0` as a tuple padded to three parts."""
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main() -> int:
    root = Path(__file__).resolve().parent.parent
    declared = tomllib.loads((root / "Cargo.toml").read_text())["workspace"]["package"]["rust-version"]
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    meta = json.loads(out)
    resolved = {node["id"] for node in meta["resolve"]["nodes"]}
    newer = sorted(
        f"{p['name']} {p['version']} needs Rust {p['rust_version']}"
        for p in meta["packages"]
        if p["id"] in resolved and p.get("rust_version") and version(p["rust_version"]) > version(declared)
    )
    if newer:
        print(f"error: the workspace declares rust-version = {declared}, but locked dependencies need more:", file=sys.stderr)
        for line in newer:
            print(f"  {line}", file=sys.stderr)
        print("raise rust-version in Cargo.toml, or pin the dependency to an older version", file=sys.stderr)
        return 1
    print(f"rust-version {declared}: all {len(resolved)} locked packages declare it or less")
    return 0


if __name__ == "__main__":
    sys.exit(main())
