#!/usr/bin/env bash
# The main job: sets up (scripts/setup.sh), then runs a scenario (default
# scenarios/quickstart.json: MRC vs RoCEv2, all-to-all on 64 GPUs x 8 planes with a T0-T1 link
# failure), prints the comparison table and plots it under results/<name>/. With no argument it
# also prints the 131,072-GPU fabric figures and plots fabrics under results/fabrics/.
#   scripts/run.sh [SCENARIO.json [mrcsim run options...]]
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
cd "$here"
bin=build/bin/mrcsim
scenario="${1:-scenarios/quickstart.json}"
shift || true

name=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["name"])' "$scenario")
status=0
"$bin" run "$scenario" "$@" || status=$?
if [ -f "results/$name/summary.json" ]; then
  /usr/bin/python3 scripts/plot_scenario.py "results/$name"
fi
if [ $# -eq 0 ] && [ "$scenario" = scenarios/quickstart.json ]; then
  echo
  "$bin" topo --preset multiplane-131k --check
  echo
  "$bin" topo --preset fat-tree-4tier-131k --no-groups
  mkdir -p results/fabrics
  /usr/bin/python3 scripts/plot_fabrics.py --mrcsim "$bin" --out results/fabrics
fi
exit $status
