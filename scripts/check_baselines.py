#!/usr/bin/python3
"""CI regression on simulated tail latency.

Runs the scenarios of tests/regression/ (both transports each), compares every transport's
completion time, collective times and message-latency tail (p99, p99.9) with the summaries kept
in results/baselines/, prints a table of what moved, and exits 1 when a figure got worse by more
than the tolerance. `--update` re-blesses the baselines on purpose.

usage: check_baselines.py [--mrcsim build/bin/mrcsim] [--tolerance 0.05] [--update]
       check_baselines.py --compare BASELINE.json SUMMARY.json [--tolerance 0.05]
"""
import argparse
import glob
import json
import os
import subprocess
import sys
import tempfile

from mrcsim_results import Summary, SummaryError, load_summary

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def figures(run):
    """The guarded figures of one transport's run (a mrcsim_results.Run), by name (all: lower is
    better)."""
    message = run.messages.time_us
    f = {
        "completion_us": run.completion_us,
        "message p99 us": message.p99,
        "message p99.9 us": message.p99_9,
        "message max us": message.max,
    }
    packet = run.packet_latency_us
    if packet is not None:
        f["packet p99 us"] = packet.p99
        f["packet p99.9 us"] = packet.p99_9
    for c in run.collectives:
        f[c.workload + " mean us"] = c.time_us.mean
    return f


def compare(baseline, summary, tolerance):
    """Rows (scenario, transport, figure, base, new, change, verdict) and whether all passed.
    baseline, summary: mrcsim_results.Summary or parsed summary.json (dict)."""
    baseline, summary = Summary.of(baseline), Summary.of(summary)
    rows = []
    ok = True
    base_runs = {r.label: r for r in baseline.runs}
    for run in summary.runs:
        label = run.label
        if label not in base_runs:
            rows.append((summary.scenario, label, "(transport)", None, None, None, "NEW: no baseline"))
            continue
        if run.partial:
            rows.append((summary.scenario, label, "(run)", None, None, None, "FAIL: partial run"))
            ok = False
            continue
        base = figures(base_runs[label])
        new = figures(run)
        for name, value in new.items():
            if name not in base:
                rows.append((summary.scenario, label, name, None, value, None, "NEW"))
                continue
            b = base[name]
            change = (value - b) / b if b else (0.0 if value == b else float("inf"))
            if change > tolerance:
                verdict = "FAIL: worse"
                ok = False
            elif change < -tolerance:
                verdict = "better"
            else:
                verdict = "ok"
            rows.append((summary.scenario, label, name, b, value, change, verdict))
    for label in base_runs:
        if label not in summary.labels:
            rows.append((summary.scenario, label, "(transport)", None, None, None, "FAIL: missing"))
            ok = False
    return rows, ok


def print_rows(rows):
    def fmt(v):
        return "-" if v is None else f"{v:.2f}"

    print(f"{'scenario':<28} {'transport':<9} {'figure':<30} {'baseline':>10} {'now':>10} {'change':>8}  verdict")
    for s, t, name, b, n, c, v in rows:
        change = "-" if c is None else f"{c * 100:+.1f}%"
        print(f"{s:<28} {t:<9} {name:<30} {fmt(b):>10} {fmt(n):>10} {change:>8}  {v}")


def load(path, check=False):
    """A summary; check: against the schema, wall_clock optional (what mrcsim just wrote). Stored
    baselines are read as they are: they have no wall_clock, and older versions lack keys."""
    try:
        return load_summary(path, check=check, optional=("wall_clock",))
    except SummaryError as e:
        sys.exit(f"check_baselines: {e}")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--mrcsim", default=os.path.join(ROOT, "build", "bin", "mrcsim"))
    p.add_argument("--tolerance", type=float, default=0.05, help="allowed relative worsening (default 0.05)")
    p.add_argument("--update", action="store_true", help="write the new summaries as the baselines")
    p.add_argument("--scenarios", default=os.path.join(ROOT, "tests", "regression"))
    p.add_argument("--baselines", default=os.path.join(ROOT, "results", "baselines"))
    p.add_argument("--compare", nargs=2, metavar=("BASELINE", "SUMMARY"))
    args = p.parse_args(argv)

    if args.compare:
        # Either may be a stored baseline (older versions lack keys): both read as they are.
        rows, ok = compare(load(args.compare[0]), load(args.compare[1]), args.tolerance)
        print_rows(rows)
        return 0 if ok else 1

    scenarios = sorted(glob.glob(os.path.join(args.scenarios, "*.json")))
    if not scenarios:
        sys.exit(f"check_baselines: no scenarios in {args.scenarios}")
    all_rows = []
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        for scenario in scenarios:
            name = os.path.splitext(os.path.basename(scenario))[0]
            out = os.path.join(tmp, name)
            run = subprocess.run([args.mrcsim, "run", scenario, "--out", out, "--quiet"], capture_output=True, text=True)
            if run.returncode != 0:
                print(run.stdout + run.stderr)
                sys.exit(f"check_baselines: {scenario} failed (exit {run.returncode})")
            summary = load(os.path.join(out, "summary.json"), check=True)
            target = os.path.join(args.baselines, name + ".summary.json")
            if args.update or not os.path.exists(target):
                os.makedirs(args.baselines, exist_ok=True)
                with open(target, "w") as f:
                    json.dump(summary.without_wall_clock(), f, indent=2, sort_keys=True)
                    f.write("\n")
                print(f"{'blessed' if args.update else 'new baseline'}: {target}")
                continue
            rows, passed = compare(load(target), summary, args.tolerance)
            all_rows += rows
            ok = ok and passed
    if all_rows:
        print_rows(all_rows)
    print("tail-latency regression check: " + ("passed" if ok else "FAILED (re-bless with --update if intended)"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
