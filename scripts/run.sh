#!/usr/bin/env bash
# The main job: sets up (scripts/setup.sh), then runs a scenario (default
# scenarios/quickstart.json: MRC vs RoCEv2, all-to-all on 64 GPUs x 8 planes with a T0-T1 link
# failure) through scripts/compare.py, which prints the comparison table and writes
# results/<name>/compare.md with its figures. With no argument it also prints the 131,072-GPU
# fabric figures and plots fabrics under results/fabrics/. Ends by saying where the comparison is.
#   scripts/run.sh [SCENARIO.json [mrcsim run options (--set, --out, --quiet) or --variant ...]]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
cd "$here"
bin=build/bin/mrcsim
scenario="${1:-scenarios/quickstart.json}"
shift || true

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
/usr/bin/python3 scripts/compare.py "$scenario" --mrcsim "$bin" "$@" | tee "$log" || status=$?
if [ $# -eq 0 ] && [ "$scenario" = scenarios/quickstart.json ]; then
  echo
  "$bin" topo --preset multiplane-131k --check
  echo
  "$bin" topo --preset fat-tree-4tier-131k --no-groups
  mkdir -p results/fabrics
  /usr/bin/python3 scripts/plot_fabrics.py --mrcsim "$bin" --out results/fabrics
fi
echo
grep '^comparison: ' "$log" || echo "run: no comparison written (exit $status)" >&2
exit $status
