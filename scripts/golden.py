#!/usr/bin/python3
"""Golden fingerprints: any change of behaviour fails, until it is re-blessed on purpose.

For each scenario listed in tests/golden/scenarios.txt, runs `mrcsim run` (both transports) and
takes, per transport, a fingerprint: the event count, the completion time, every counter and
the SHA-256 of messages.csv and collectives.csv. `--check` (the default) compares them with
tests/golden/<scenario>.json and exits 1 on any difference, printing what moved; `--update`
writes them anew. Re-bless only on purpose, and say why in the commit message.

usage: golden.py [--mrcsim build/bin/mrcsim] [--update] [-j N] [SCENARIO ...]
"""
import argparse
import concurrent.futures
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GOLDEN = os.path.join(ROOT, "tests", "golden")


def listed_scenarios():
    """Scenario paths (relative to the repository) listed in tests/golden/scenarios.txt."""
    with open(os.path.join(GOLDEN, "scenarios.txt")) as f:
        return [line.split("#")[0].strip() for line in f if line.split("#")[0].strip()]


def golden_name(scenario):
    return os.path.splitext(os.path.basename(scenario))[0]


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fingerprint(mrcsim, scenario):
    """{transport label: fingerprint} of one run of `scenario`."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([mrcsim, "run", os.path.join(ROOT, scenario), "--out", out, "--quiet"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"{scenario}: mrcsim run exited {proc.returncode}:\n{proc.stderr}")
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        prints = {}
        for run in summary["runs"]:
            label = run["label"]
            prints[label] = {
                "events": run["events"],
                "completion_us": run["completion_us"],
                "partial": run.get("partial", False),
                "counters": run["counters"],
                "messages_csv_sha256": sha256(os.path.join(out, label, "messages.csv")),
                "collectives_csv_sha256": sha256(os.path.join(out, label, "collectives.csv")),
            }
        return {"scenario": scenario, "seed": summary.get("seed"), "runs": prints}


def flatten(d, prefix=""):
    for k, v in d.items():
        if isinstance(v, dict):
            yield from flatten(v, prefix + k + ".")
        else:
            yield prefix + k, v


def differences(golden, new):
    """Lines naming each figure that differs between two fingerprints of one scenario."""
    lines = []
    for label in sorted(set(golden["runs"]) | set(new["runs"])):
        g = dict(flatten(golden["runs"].get(label, {})))
        n = dict(flatten(new["runs"].get(label, {})))
        for key in sorted(set(g) | set(n)):
            if g.get(key) != n.get(key):
                lines.append(f"  {label}: {key}: golden {g.get(key, '(none)')} -> now {n.get(key, '(none)')}")
    return lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mrcsim", default=os.path.join(ROOT, "build", "bin", "mrcsim"))
    ap.add_argument("--update", action="store_true", help="write the fingerprints anew (re-bless)")
    ap.add_argument("-j", type=int, default=2, help="scenarios run at once (default 2)")
    ap.add_argument("scenarios", nargs="*", help="default: those of tests/golden/scenarios.txt")
    args = ap.parse_args()
    scenarios = args.scenarios or listed_scenarios()
    failed = False
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.j)) as pool:
        futures = {s: pool.submit(fingerprint, args.mrcsim, s) for s in scenarios}
        for scenario in scenarios:
            path = os.path.join(GOLDEN, golden_name(scenario) + ".json")
            try:
                new = futures[scenario].result()
            except RuntimeError as e:
                print(f"golden: FAIL {e}")
                failed = True
                continue
            if args.update:
                with open(path, "w") as f:
                    json.dump(new, f, indent=1, sort_keys=True)
                    f.write("\n")
                print(f"golden: wrote {os.path.relpath(path, ROOT)}")
                continue
            if not os.path.exists(path):
                print(f"golden: FAIL {scenario}: no fingerprint {os.path.relpath(path, ROOT)} (run with --update)")
                failed = True
                continue
            with open(path) as f:
                golden = json.load(f)
            diff = differences(golden, new)
            if diff:
                failed = True
                print(f"golden: FAIL {scenario}: behaviour changed ({len(diff)} figures):")
                print("\n".join(diff))
            else:
                print(f"golden: ok {scenario}")
    if failed and not args.update:
        print("golden: if the change is deliberate, re-bless with scripts/golden.py --update and say why in the commit")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
