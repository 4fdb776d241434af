#!/usr/bin/env bash
# `cmake --install` into a fresh prefix, then the installed pieces on their own: the Python
# package imported by /usr/bin/python3 from that prefix (not from the build) runs a small
# scenario, and the installed mrcsim command runs. Usage: python-install.sh BUILD_DIR
set -euo pipefail
build="$1"
prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"' EXIT
cmake --install "$build" --prefix "$prefix" >/dev/null
site="$prefix/lib/python3/dist-packages"
cd "$prefix"
PYTHONPATH="$site" /usr/bin/python3 - "$site" <<'PY'
import os, sys
import mrcsim
site = sys.argv[1]
assert os.path.realpath(mrcsim.__file__).startswith(os.path.realpath(site)), mrcsim.__file__
r = mrcsim.run({"name": "installed", "topology": {"preset": "multiplane-64"}, "transport": {"type": "mrc"},
                "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4}, "bytes": 65536}]})
assert not r.partial and len(r.messages) == 4, (r.partial, len(r.messages))
print("python-install: import mrcsim from", site, "ran", len(r.messages), "messages")
PY
"$prefix/bin/mrcsim" --version
"$prefix/bin/mrcsim" attributes ns3::DcqcnRateControl::G >/dev/null
