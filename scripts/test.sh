#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test under CTest. Exits non-zero on any failure.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$here/scripts/setup.sh"
cd "$here/build"
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
