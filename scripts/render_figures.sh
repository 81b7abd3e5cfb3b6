#!/usr/bin/env bash
# Renders every figure the tool draws to PNG so that people can look at them (overlapping labels,
# clipped titles, legends over data). Quick settings; the figures' layout is what is checked, not the numbers.
# Needs rsvg-convert (Debian: librsvg2-bin). Usage: scripts/render_figures.sh [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-target/figures}
command -v rsvg-convert >/dev/null || { echo "rsvg-convert not found: apt-get install librsvg2-bin" >&2; exit 1; }
cargo build --release --quiet -p manifold-dp-cli
bin=target/release/manifold-dp
rm -rf "$out"
"$bin" reproduce so3-figures --samples 2000 --out "$out/so3" >/dev/null
"$bin" reproduce directional-mean --repetitions 20 --seed 7 --out "$out/directional" >/dev/null
"$bin" reproduce riemannian-mean --repetitions 20 --out "$out/riemannian" >/dev/null
(cd "$out" && "$OLDPWD/$bin" demo >/dev/null 2>&1 || true)
find "$out" -name '*.svg' | while read -r svg; do
  rsvg-convert -o "${svg%.svg}.png" "$svg"
  echo "${svg%.svg}.png"
done
