#!/usr/bin/env bash
# Runs /usr/bin/python3 with the mrcsim module of build/ (scripts/setup.sh builds it) importable,
# without installing anything:
#   scripts/python.sh -c 'import mrcsim; print(mrcsim.presets())'
#   scripts/python.sh my_study.py
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -f "$here/build/python/mrcsim/__init__.py" ] || ! compgen -G "$here/build/python/_mrcsim*.so" >/dev/null; then
  echo "python.sh: no mrcsim module in $here/build/python; run scripts/setup.sh first" >&2
  exit 1
fi
export PYTHONPATH="$here/build/python${PYTHONPATH:+:$PYTHONPATH}"
exec /usr/bin/python3 "$@"
