#!/usr/bin/python3
"""A small sweep studied with pandas, as one would in a notebook: how many EVs MRC needs around a
failed link (scenarios/sweep-ev-count.json), shrunk to 8 GPUs and two EV counts so that it runs in
seconds, each point through the mrcsim module, every run's figures gathered in one DataFrame,
then one figure: message p99 against the EV count, per transport.

usage: scripts/python.sh examples/sweep_dataframe.py FIGURE.png [--ev-counts 8,128] [--seeds N]
       (or PYTHONPATH=build/python /usr/bin/python3 examples/sweep_dataframe.py ...)

Prints the DataFrame (a row per point and transport) and writes FIGURE.png.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

try:
    import mrcsim  # noqa: E402
except ImportError as e:
    sys.exit(f"sweep_dataframe.py: cannot import mrcsim ({e}); build it (scripts/setup.sh) and run this with "
             "scripts/python.sh or PYTHONPATH=build/python")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, "scenarios", "sweep-ev-count.json")
EV_COUNT = "transport.0.attributes.ns3::MrcQueuePair::EvCount"


def shrunk(ev_counts, seeds):
    """Overrides that make the scenario's sweep tiny: 8 GPUs of 16 KiB per pair, the failure
    early in the run, and only the EV counts and seeds asked for."""
    return {
        "workloads.0.gpus": {"first": 0, "count": 8, "stride": 8},
        "workloads.0.bytes": 16384,
        "failures.0.at_us": 2,
        "sweep": {"parameters": {EV_COUNT: ev_counts}, "seeds": {"count": seeds}},
    }


def sweep(ev_counts, seeds):
    """Runs every point of the shrunk sweep: one DataFrame, a row per point and transport (the
    columns of Result.runs, plus ev_count, seed and message_p99_us from the messages table)."""
    frames = []
    for point in mrcsim.expand_sweep(SCENARIO, overrides=shrunk(ev_counts, seeds)):
        result = mrcsim.run(point["scenario"])
        runs = result.runs.copy()
        runs.insert(0, "ev_count", point["values"][EV_COUNT])
        runs.insert(1, "seed", point["seed"])
        # From the messages table: each transport's p99 message time, for this point.
        p99 = result.messages.groupby("transport")["time_us"].quantile(0.99)
        runs["message_p99_us"] = runs["transport"].map(p99)
        frames.append(runs)
    return pd.concat(frames, ignore_index=True)


def plot(df, path):
    fig, ax = plt.subplots(figsize=(6, 3.5))
    for transport, rows in df.groupby("transport"):
        mean = rows.groupby("ev_count")["message_p99_us"].mean()
        ax.plot(mean.index, mean.values, marker="o", label=transport)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("MRC EVs per QP (RoCEv2 unchanged)")
    ax.set_ylabel("message p99 (µs)")
    ax.set_title("Message tail latency around a failed link")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=150)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("figure", help="where to write the figure (PNG)")
    p.add_argument("--ev-counts", default="8,128", help="comma-separated EV counts (default 8,128)")
    p.add_argument("--seeds", type=int, default=1, help="seeds per EV count (default 1)")
    args = p.parse_args(argv)
    try:
        ev_counts = [int(x) for x in args.ev_counts.split(",")]
    except ValueError:
        p.error(f"--ev-counts {args.ev_counts}: expected integers separated by commas, e.g. 8,128")
    df = sweep(ev_counts, args.seeds)
    with pd.option_context("display.width", 160, "display.max_columns", 8):
        print(df[["ev_count", "seed", "transport", "completion_us", "message_p99_us", "retransmissions"]])
    plot(df, args.figure)
    print(f"figure: {args.figure}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
