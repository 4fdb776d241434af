"""MRC gives up on peers that no path reaches (issue 33, D8): a run whose work cannot complete ends
soon with "no progress possible" and the QPs' cause in summary.json, instead of probing and timing
out until sim_time (10 s of simulated time, millions of drops).

usage: test_mrc_gives_up.py MRCSIM ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

CASES = [
    # (scenario, QPs that fail at least)
    ("tests/failures/all-t1-down.json", 48),  # 8 GPUs on 8 T0s: 56 peers, 8 under one T0
    ("tests/failures/gpu-link-down.json", 7),  # the 7 peers of GPU 0
]


def main(mrcsim, root):
    failed = []
    for scenario, failing in CASES:
        with tempfile.TemporaryDirectory() as out:
            try:
                p = subprocess.run([mrcsim, "run", os.path.join(root, scenario), "--out", out, "--quiet"],
                                   capture_output=True, text=True, timeout=60)
            except subprocess.TimeoutExpired:
                failed.append(f"{scenario}: still running after 60 s")
                continue
            if p.returncode != 3:
                failed.append(f"{scenario}: exit status {p.returncode}, not 3 (partial)\n{p.stderr}")
                continue
            with open(os.path.join(out, "summary.json")) as f:
                run = json.load(f)["runs"][0]
            reason = run["stop_reason"]
            errors = run["qp_errors"]
            if not reason.startswith("no progress possible:") or "failed on QPs in error" not in reason:
                failed.append(f"{scenario}: stop reason {reason!r}")
            elif not errors or not all("no path to GPU" in e and "NoPathTimeout" in e for e in errors):
                failed.append(f"{scenario}: QP errors {errors!r}")
            elif run["messages"]["failed"] < failing:
                failed.append(f"{scenario}: {run['messages']['failed']} failed messages, expected {failing} or more")
            elif run["stopped_at_us"] > 50000:
                failed.append(f"{scenario}: stopped at {run['stopped_at_us']} us")
            else:
                print(f"ok {scenario}: {reason} at {run['stopped_at_us']:.0f} us")
    for f in failed:
        print("FAIL", f)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
