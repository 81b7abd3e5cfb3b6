#!/usr/bin/env bash
# Writes docs/renyi_local.md: k repeated local releases, Rényi composition against linear and advanced
# composition (proofs: docs/proofs/renyi_local.md).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo run --quiet --release -p manifold-dp --example renyi_local_table > docs/renyi_local.md
echo "wrote docs/renyi_local.md"
