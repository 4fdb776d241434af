#!/usr/bin/python3
"""Plots a scenario's results (results/<name>/ as written by `mrcsim run`): goodput per plane
over time for each transport, and the distribution of message completion times."""
import argparse
import csv
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", help="results directory of one scenario run")
    args = parser.parse_args()
    summary_path = os.path.join(args.results, "summary.json")
    try:
        with open(summary_path) as f:
            summary = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"plot_scenario: cannot read {summary_path}: {e}")
    runs = summary["runs"]
    fig, axes = plt.subplots(1, len(runs) + 1, figsize=(5 * (len(runs) + 1), 4))
    for ax, run in zip(axes, runs):
        rows = read_csv(os.path.join(args.results, run["label"], "timeseries.csv"))
        planes = sorted({int(r["plane"]) for r in rows})
        for p in planes:
            pts = [(float(r["time_us"]), float(r["goodput_gbps"])) for r in rows if int(r["plane"]) == p]
            ax.plot([t for t, _ in pts], [g for _, g in pts], label=f"plane {p}", linewidth=1)
        for f in run["failures"]:
            ax.axvline(f["at_us"], color="red", linestyle="--", linewidth=1)
        ax.set_title(f"{run['label']}: goodput delivered per plane")
        ax.set_xlabel("simulated time (us)")
        ax.set_ylabel("Gb/s")
        ax.legend(fontsize=6, ncol=2)
    cdf = axes[-1]
    for run in runs:
        rows = read_csv(os.path.join(args.results, run["label"], "messages.csv"))
        times = sorted(float(r["time_us"]) for r in rows)
        if times:
            cdf.plot(times, [(i + 1) / len(times) for i in range(len(times))], label=run["label"])
    cdf.set_title("message completion time (CDF)")
    cdf.set_xlabel("us")
    cdf.set_ylabel("fraction of messages")
    cdf.legend()
    fig.suptitle(f"{summary['scenario']} (seed {summary['seed']})")
    fig.tight_layout()
    out = os.path.join(args.results, "comparison.png")
    fig.savefig(out, dpi=110)
    print(f"plot: {out}")


if __name__ == "__main__":
    main()
