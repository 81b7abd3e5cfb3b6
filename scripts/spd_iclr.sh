#!/usr/bin/env bash
# The exponential-wrapped mechanisms' SPD setting (ICLR 2026): n = 40, r = 1.5, SPD(2), SPD(4), SPD(5)
# (d = 3, 10, 15): our log-Euclidean Laplace and Gaussian means, and the affine-invariant Laplace for SPD(2);
# error (log-Euclidean distance to the exact mean) and time. Prints the Markdown tables of
# docs/spd_log_euclidean.md.
# Usage: scripts/spd_iclr.sh [REPETITIONS (default 200)] [SEED (default 2026)]
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p manifold-dp-studies --example spd_iclr -- "${1:-200}" "${2:-2026}"
