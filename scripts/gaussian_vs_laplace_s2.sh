#!/usr/bin/env bash
# Jiang et al. (NeurIPS 2023), S² setting: the Riemannian Gaussian Fréchet mean at μ-GDP against the μ-matched
# pure Laplace, n = 10, r = π/8, μ ∈ {0.25, 0.5, 1, 2, 4}; prints the Markdown table of docs/riemannian_gaussian.md.
# Usage: scripts/gaussian_vs_laplace_s2.sh [REPETITIONS (default 5000)] [SEED (default 2023)]
set -euo pipefail
cd "$(dirname "$0")/.."
exec cargo run --release -q -p manifold-dp-studies --example gaussian_vs_laplace_s2 -- "${1:-5000}" "${2:-2023}"
