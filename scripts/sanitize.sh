#!/usr/bin/env bash
# The sanitizer job (scripts/test.sh --sanitize): builds the unit tests and mrcsim with
# AddressSanitizer, LeakSanitizer and UndefinedBehaviorSanitizer (-DMRCSIM_SANITIZE=ON) into
# build-sanitize/, runs the unit tests (all but one timing test), the CLI tests and a few small
# scenarios, and fails on any test failure or sanitizer report. Runs scripts/setup.sh --deps-only
# first (packages and ns-3, nothing more when they are there). MRCSIM_SANITIZE_JOBS sets how
# many compilers, and then how many test processes, run at once (default: every core);
# MRCSIM_SANITIZE_FUZZ=1 adds the fuzz corpus.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$here"

# The packages and ns-3 (deps/) that configuring and building need; the release tree is not built.
"$here/scripts/setup.sh" --deps-only

build="$here/build-sanitize"
jobs="${MRCSIM_SANITIZE_JOBS:-$(nproc 2>/dev/null || echo 2)}"
# Release: NDEBUG as in the release build, so that the same code is checked; MRCSIM_SANITIZE's
# -O1 -g1 come after its -O3.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DPython_EXECUTABLE=/usr/bin/python3 \
  -DMRCSIM_SANITIZE=ON >/dev/null
# Not the Python module (nor the tests that need it): /usr/bin/python3 would have to preload
# libasan to import it.
start=$(date +%s)
cmake --build "$build" -j "$jobs" --target test-models test-topology test-scenario test-extending mrcsim
echo "sanitize: build $(($(date +%s) - start)) s" >&2

# Every report is fatal (the build adds -fno-sanitize-recover=all for UBSan) and goes to a file
# under $logs as well as ending its process: a report in a process whose exit status or stderr
# is not ours to see (the forked children of the abort tests, mrcsim under the CLI tests) still
# fails the job. Leaks are checked when each process exits.
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
logs="$out/reports"
mkdir -p "$logs"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:log_path=$logs/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$logs/ubsan"
export LSAN_OPTIONS="suppressions=$here/tests/sanitizer/lsan.supp:print_suppressions=0"

# The steps run $jobs at a time, longest first, each into its own log (shown if it fails).
mkdir -p "$out/steps"
names=()
step() {
  local id="${#names[@]}"
  names+=("$1")
  shift
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  (
    t0=$(date +%s)
    status=0
    "$@" >"$out/steps/$id.log" 2>&1 || status=$?
    echo "$status $(($(date +%s) - t0))" >"$out/steps/$id.status"
  ) &
}
start=$(date +%s)
mrcsim="$build/bin/mrcsim"
unit() {
  cd "$build/tests" && "$build/bin/$1" "${@:2}" # from where ctest runs them
}

# The fuzz corpus (tests/fuzz/: malformed scenarios, specs, GraphML and command lines; not the
# Python cases) on request, MRCSIM_SANITIZE_FUZZ=1: 560 processes, ~3 min of CPU under the
# sanitizers, which would take the job past its budget.
if [ "${MRCSIM_SANITIZE_FUZZ:-0}" = 1 ]; then
  step "fuzz corpus" /usr/bin/python3 tests/fuzz/run_fuzz.py "$mrcsim" "$here" -j 1 --timeout-scale 4
fi
# Every unit test, a process per binary (ctest would start one per test case, each paying ns-3's
# and the sanitizers' start-up); test-scenario's fidelity tests, half its time, on their own.
# Left out: "limits: the wall-time limit is the scenario's, ...", which needs the second
# transport's set-up to take under half the first's wall time, and the sanitizers slow set-up
# more than simulation.
step "test-scenario [fidelity]" unit test-scenario "[fidelity]"
step "test-scenario ~[fidelity]" unit test-scenario "~[fidelity]~limits: the wall-time limit is the scenario*"
step "test-models" unit test-models
step "test-extending" unit test-extending
# Exit codes and messages on good and bad input (parsers, error paths).
step "cli tests" /usr/bin/python3 tests/cli/test_cli.py "$mrcsim" "$here"
# Small scenarios, both transports each (seconds each; quickstart ~20 s): a link failure during
# an all-to-all, an incast with PFC pauses, trims, CNPs and packet captures, and a gray failure
# (degraded rate, random loss).
step "quickstart" "$mrcsim" run scenarios/quickstart.json --quiet --out "$out/quickstart"
step "test-topology" unit test-topology
step "pcap-incast (64 KiB)" "$mrcsim" run tests/pcap/pcap-incast.json --quiet --out "$out/pcap-incast" \
  --set workloads.0.bytes=65536
step "a2a-failure (gray link)" "$mrcsim" run tests/regression/a2a-failure.json --quiet --out "$out/a2a-gray" \
  --set 'failures.0={"type": "gray", "at_us": 10, "link": {"plane": 2, "t0": 0, "up_port": 0}, "rate_factor": 0.1, "loss_rate": 0.01}'
wait

failed=()
for id in "${!names[@]}"; do
  read -r status seconds <"$out/steps/$id.status"
  if [ "$status" -eq 0 ]; then
    echo "sanitize: ${names[$id]} passed ($seconds s)" >&2
  else
    cat "$out/steps/$id.log" >&2
    echo "sanitize: ${names[$id]} FAILED (exit $status, $seconds s)" >&2
    failed+=("${names[$id]}")
  fi
done
echo "sanitize: tests $(($(date +%s) - start)) s" >&2

if [ -n "$(ls -A "$logs")" ]; then
  for f in "$logs"/*; do
    echo "==== sanitizer report $(basename "$f")" >&2
    cat "$f" >&2
  done
  failed+=("sanitizer reports: $(ls "$logs" | tr '\n' ' ')")
fi
if [ "${#failed[@]}" -gt 0 ]; then
  echo "sanitize: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "sanitize: passed, no sanitizer reports" >&2
