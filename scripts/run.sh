#!/usr/bin/env bash
# The main job: sets up (scripts/setup.sh), prints the figures of the 131,072-GPU multiplane
# fabric next to the 4-tier fat tree it replaces, and writes the comparison plot under results/.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
cd "$here"
bin=build/bin/mrcsim
out=results/fabrics
mkdir -p "$out"

"$bin" topo --preset multiplane-131k --check
echo
"$bin" topo --preset fat-tree-4tier-131k --no-groups
echo
/usr/bin/python3 scripts/plot_fabrics.py --mrcsim "$bin" --out "$out"
