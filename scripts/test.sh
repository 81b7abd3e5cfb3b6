#!/usr/bin/env bash
# Every test of the project: the Rust workspace (statistical tests in --release) and its docs, then the Python
# package built from ./python into a throwaway virtual environment, its lint (ruff) and type check (mypy), and
# its pytest suite (Python API and Spark in local mode). CI's .ci/run runs exactly this, plus cargo fmt --check
# and clippy.
set -euo pipefail
cd "$(dirname "$0")/.."
# Comments cite only what the repository holds: no issue numbers and no planning files from outside it.
if grep -rnE "DESIGN\.md|MATH\.md|[Ii]ssue [0-9]+" crates python/manifold_dp python/tests scripts \
    --include='*.rs' --include='*.py' --include='*.pyi' --include='*.sh' --exclude=test.sh; then
    echo "error: the lines above cite an issue or a file outside the repository; say what they mean instead" >&2
    exit 1
fi
# The declared minimum Rust version holds for every locked dependency (clippy's incompatible_msrv lint checks
# the standard library's APIs against it).
python3 scripts/check_msrv.py
cargo test --workspace --release
# The API docs build with no broken or private links.
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
venv=target/test-venv
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet "./python[test]"
# The Python package is linted (ruff) and type-checked against its own stubs (mypy), as configured in
# python/pyproject.toml.
(cd python && "../$venv/bin/ruff" check . && "../$venv/bin/mypy")
# The cross-front-end test compares the Python package's bits with this binary's (built by cargo test).
MANIFOLD_DP_CLI="$PWD/target/release/manifold-dp" "$venv/bin/python" -m pytest -q -p no:cacheprovider python/tests
