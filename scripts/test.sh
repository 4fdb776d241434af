#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test under CTest. Exits non-zero on any failure.
# --sanitize: the sanitizer job instead (scripts/sanitize.sh: ASan, LSan and UBSan build in
# build-sanitize/, unit tests and small scenarios, failing on any report).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = "--sanitize" ]; then
  exec "$here/scripts/sanitize.sh"
fi
"$here/scripts/setup.sh"
cd "$here/build"
ctest --output-on-failure -j "$(nproc 2>/dev/null || echo 2)"
