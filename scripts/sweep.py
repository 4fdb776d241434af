#!/usr/bin/python3
"""Runs a scenario's sweep block: the cartesian product of its parameters' values and its seeds,
each point a separate `mrcsim run` process, N at a time. Writes one tidy CSV (a row per point and
transport) and plots a metric against a parameter: the median over seeds per transport, with a
band from the lowest to the highest seed.

usage: sweep.py SCENARIO.json [-j N] [--mrcsim PATH] [--out DIR] [--metric NAME] [--x PARAM]
                [--timeout SECONDS] [--replot]

The block (checked by mrcsim, as `mrcsim validate` does; at most 1000 points):
  "sweep": {"parameters": {"workloads.0.bytes": [65536, 1048576],
                           "transport.0.attributes.ns3::MrcQueuePair::EvCount": [32, 128]},
            "seeds": [1, 2, 3]}            (or {"count": 3}: the scenario's seed and the 2 after it)
The points come from mrcsim itself: its Python module's expand_sweep() (the module built beside
the --mrcsim binary, <build>/python, else one on PYTHONPATH, else build/python), numbered in the
file's order (the first parameter varies slowest, the seed fastest); point k runs `mrcsim run SCENARIO --quiet --set
sweep=null --set seed=S --set PATH=VALUE ... --out DIR/points/<k>` and logs to
DIR/points/<k>/run.log. DIR defaults to results/<name>-sweep.
Outputs: DIR/sweep.csv and DIR/<metric>-vs-<parameter>.png (the parameter by its last part, e.g.
EvCount); --replot redraws the plot from an existing DIR/sweep.csv. Exit status: 0, or 1 when a
point failed (exit code not 0 or 3: the CSV and plot hold what completed and the failures are
listed) or on bad input.
"""
import argparse
import concurrent.futures
import csv
import importlib
import json
import math
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

from mrcsim_results import SummaryError, load_summary

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# The metrics of a row, with their axis labels.
METRICS = {
    "completion_us": "completion time (µs)",
    "collective_mean_us": "collective time, mean (µs)",
    "collective_max_us": "collective time, max (µs)",
    "busbw_gbps": "collective bus bandwidth (Gb/s)",
    "messages_completed": "messages completed",
    "msg_p50_us": "message completion p50 (µs)",
    "msg_p99_us": "message completion p99 (µs)",
    "msg_p99_9_us": "message completion p99.9 (µs)",
    "msg_max_us": "message completion max (µs)",
    "pkt_p50_us": "packet latency p50 (µs)",
    "pkt_p99_us": "packet latency p99 (µs)",
    "pkt_p99_9_us": "packet latency p99.9 (µs)",
    "retransmissions": "retransmissions",
    "timeouts": "timeouts",
    "trims": "trims",
    "ecn_marks": "ECN marks",
    "drops": "drops",
    "pfc_paused_us": "PFC paused port time (µs)",
}


# run_point's codes for a point that did not exit by itself.
TIMED_OUT = -1000
NOT_STARTED = -1001


class SweepError(Exception):
    pass


@dataclass
class Point:
    index: int
    values: dict  # parameter path -> value, in the file's order
    seed: int
    scenario: dict = None  # the document the point runs (mrcsim.expand_sweep's)


def import_module(binary):
    """The mrcsim Python module: the one built beside `binary` (<build>/bin/mrcsim ->
    <build>/python), else one already importable (PYTHONPATH, scripts/python.sh), else build/'s."""
    if "mrcsim" in sys.modules:
        return sys.modules["mrcsim"]
    beside = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(binary))), "python")
    tried = []
    for directory in (beside, None, os.path.join(ROOT, "build", "python")):
        if directory is not None:
            if not os.path.isdir(directory):
                continue
            sys.path.insert(0, directory)
        try:
            return importlib.import_module("mrcsim")
        except ImportError as e:
            tried.append(f"{directory or 'PYTHONPATH'}: {e}")
        finally:
            if directory is not None:
                sys.path.remove(directory)
    raise SweepError("the mrcsim Python module is not built (" + "; ".join(tried or [beside]) +
                     "); build it first: scripts/setup.sh")


def expand(module, scenario):
    """The points of a scenario's sweep block, expanded by mrcsim (module.expand_sweep), which
    checks the scenario and each swept value first."""
    if not hasattr(module, "expand_sweep"):
        raise SweepError(f"the mrcsim module {module.__file__} has no expand_sweep (built from older sources); "
                         "rebuild it: scripts/setup.sh")
    try:
        return [Point(p["index"], p["values"], p["seed"], p["scenario"]) for p in module.expand_sweep(scenario)]
    except module.SpecError as e:
        raise SweepError(str(e))  # names the file, the key and what is allowed


def point_dir(out, point, total):
    return os.path.join(out, "points", str(point.index).zfill(len(str(max(0, total - 1)))))


def point_command(binary, scenario, point, directory):
    cmd = [binary, "run", scenario, "--quiet", "--set", "sweep=null", "--set", f"seed={point.seed}"]
    for path, value in point.values.items():
        cmd += ["--set", f"{path}={json.dumps(value)}"]
    return cmd + ["--out", directory]


def run_point(binary, scenario, point, directory, timeout):
    """Runs one point; returns (exit code, seconds, last line of its stderr)."""
    os.makedirs(directory, exist_ok=True)
    start = time.monotonic()
    cmd = point_command(binary, scenario, point, directory)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        code, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        code, out, err = TIMED_OUT, e.stdout or "", (e.stderr or "") + f"\nsweep: timed out after {timeout} s"
        out = out.decode() if isinstance(out, bytes) else out
        err = err.decode() if isinstance(err, bytes) else err
    except OSError as e:
        code, out, err = NOT_STARTED, "", f"cannot run {binary}: {e}"
    with open(os.path.join(directory, "run.log"), "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + out + err)
    lines = [line for line in err.strip().splitlines() if line.strip()]
    return code, time.monotonic() - start, lines[-1] if lines else ""


def exit_text(code):
    """"exit 1", or "signal SIGABRT" for a process a signal ended."""
    if code == TIMED_OUT:
        return "timed out"
    if code == NOT_STARTED:
        return "not started"
    if code < 0:
        try:
            return "signal " + signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit {code}"


def cell(value):
    """A parameter value as CSV text: numbers and strings as they are, anything else as JSON."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return json.dumps(value)
    return str(value)


def rows_of_point(point, directory, status):
    """One row per transport of a finished point; one row with the error for a failed one."""
    base = {"point": point.index, **{p: cell(v) for p, v in point.values.items()}, "seed": point.seed}
    if status is not None:
        return [{**base, "transport": "", "status": status}]
    try:
        summary = load_summary(directory)
    except SummaryError as e:
        raise SweepError(f"point {point.index}: {e}")
    rows = []
    for r in summary.runs:
        c = r.counters
        coll = r.collectives[0] if r.collectives else None
        msg = r.messages.time_us
        pkt = r.packet_latency_us
        rows.append({
            **base,
            "transport": r.label,
            "status": f"partial: {r.stop_reason}" if r.partial else "complete",
            "partial": "true" if r.partial else "false",
            "completion_us": r.completion_us,
            "collective_mean_us": coll.time_us.mean if coll else "",
            "collective_max_us": coll.time_us.max if coll else "",
            "busbw_gbps": coll.busbw_gbps if coll else "",
            "messages_completed": r.messages.completed,
            "msg_p50_us": msg.p50,
            "msg_p99_us": msg.p99,
            "msg_p99_9_us": msg.p99_9,
            "msg_max_us": msg.max,
            "pkt_p50_us": pkt.p50,
            "pkt_p99_us": pkt.p99,
            "pkt_p99_9_us": pkt.p99_9,
            "retransmissions": c.retransmissions,
            "timeouts": c.timeouts,
            "trims": c.trims,
            "ecn_marks": c.ecn_marks,
            "drops": c.drops_total,
            "pfc_paused_us": c.pfc_paused_port_us,
        })
    return rows


def columns(paths):
    return ["point", *paths, "seed", "transport", "status", "partial", *METRICS]


def write_csv(path, paths, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=columns(paths), restval="", lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def read_csv(path):
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            return list(reader), reader.fieldnames or []
    except OSError as e:
        raise SweepError(f"cannot read {path}: {e}")


def as_number(text):
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def check_axes(metric, x, params):
    if metric not in METRICS:
        raise SweepError(f"--metric {metric}: expected one of {', '.join(METRICS)}")
    if x not in params + ["seed"]:
        raise SweepError(f"--x {x}: expected a swept parameter ({', '.join(params + ['seed'])})")


def plot_name(metric, x, params):
    """<metric>-vs-<x>.png, x by its last part unless another parameter ends the same way."""
    name = short(x) if [short(p) for p in params + ["seed"]].count(short(x)) == 1 else x
    return f"{metric}-vs-{re.sub(r'[^A-Za-z0-9_.-]+', '_', name)}.png"


def plot(csv_path, out_png, metric, x, title):
    """Median of `metric` over seeds against parameter `x`, one line per transport (and per value
    of any other parameter), with a min-max band over the seeds."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows, header = read_csv(csv_path)
    params = header[header.index("point") + 1:header.index("seed")] if "seed" in header else []
    check_axes(metric, x, params)
    others = [p for p in params if p != x]
    done = [r for r in rows if r["transport"] and as_number(r.get(metric)) is not None]
    xs_text = list(dict.fromkeys(r[x] for r in rows))
    numeric = all(as_number(v) is not None for v in xs_text) and xs_text
    position = (lambda v: as_number(v)) if numeric else (lambda v: xs_text.index(v))
    groups = {}
    for r in done:
        key = (r["transport"],) + tuple(r[p] for p in others)
        groups.setdefault(key, {}).setdefault(r[x], []).append(r)

    plt.rcParams.update({"font.size": 9, "axes.grid": True, "grid.alpha": 0.3, "axes.spines.top": False,
                         "axes.spines.right": False})
    fig, ax = plt.subplots(figsize=(7, 4.2))
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    seeds = sorted({r["seed"] for r in done}, key=lambda s: int(s) if s.isdigit() else s)
    any_partial = False
    for i, (key, by_x) in enumerate(groups.items()):
        order = sorted(by_x, key=position)
        px = [position(v) for v in order]
        values = [[float(r[metric]) for r in by_x[v]] for v in order]
        colour = cycle[i % len(cycle)]
        label = key[0] + "".join(f", {short(p)}={v}" for p, v in zip(others, key[1:]))
        ax.plot(px, [statistics.median(v) for v in values], marker="o", markersize=4, color=colour, label=label)
        if len(seeds) > 1:
            ax.fill_between(px, [min(v) for v in values], [max(v) for v in values], color=colour, alpha=0.2,
                            linewidth=0)
        partial = [(position(v), float(r[metric])) for v in order for r in by_x[v] if r["partial"] == "true"]
        if partial:
            any_partial = True
            ax.scatter([p for p, _ in partial], [y for _, y in partial], marker="x", color=colour, zorder=3)
    if not groups:
        ax.text(0.5, 0.5, "no completed point", ha="center", va="center", transform=ax.transAxes)
    if numeric:
        ticks = sorted({as_number(v) for v in xs_text})
        if ticks[0] > 0 and ticks[-1] / ticks[0] > 10:
            ax.set_xscale("log")
            ax.minorticks_off()
        if len(ticks) <= 12:
            ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    else:
        ax.set_xticks(range(len(xs_text)), xs_text)
    ax.set_xlabel(x)
    ax.set_ylabel(METRICS[metric])
    band = f"line: median over {len(seeds)} seeds, band: min to max" if len(seeds) > 1 else f"seed {seeds[0]}" \
        if seeds else ""
    ax.set_title(f"{title}: {METRICS[metric].split(' (')[0]} vs {short(x)}\n({band}"
                 + ("; x: a partial run" if any_partial else "") + ")", fontsize=10)
    if groups:
        ax.legend(fontsize=8)
    ax.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(out_png, dpi=200, bbox_inches="tight")
    plt.close(fig)


def short(path):
    """The last part of a path: "EvCount" for "transport.0.attributes.ns3::MrcQueuePair::EvCount"."""
    return path.split(".")[-1].split("::")[-1]


def validate(binary, scenario):
    try:
        p = subprocess.run([binary, "validate", scenario], capture_output=True, text=True)
    except OSError as e:
        raise SweepError(f"cannot run {binary}: {e} (build it first: scripts/setup.sh)")
    if p.returncode != 0:
        raise SweepError(f"{scenario} is not valid:\n{p.stderr.strip()}")
    return p.stdout.strip()


def run_sweep(args, points, out):
    shutil.rmtree(os.path.join(out, "points"), ignore_errors=True)
    os.makedirs(os.path.join(out, "points"))
    total = len(points)
    results = {}
    failed = []

    def describe(point):
        return ", ".join(f"{short(p)}={cell(v)}" for p, v in point.values.items()) + f", seed={point.seed}"

    interrupted = False
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_point, args.mrcsim, args.scenario, p, point_dir(out, p, total), args.timeout): p
                   for p in points}
        try:
            for n, future in enumerate(concurrent.futures.as_completed(futures), 1):
                point = futures[future]
                code, seconds, last = future.result()
                results[point.index] = code
                if code in (0, 3):
                    note = " (partial)" if code == 3 else ""
                    print(f"[{n}/{total}] point {point.index} ({describe(point)}): {seconds:.1f} s{note}", flush=True)
                else:
                    failed.append((point, code, last))
                    print(f"[{n}/{total}] point {point.index} ({describe(point)}): FAILED ({exit_text(code)}): {last}",
                          flush=True)
        except KeyboardInterrupt:
            # mrcsim got the Ctrl-C too and writes its partial results; start nothing new.
            interrupted = True
            pool.shutdown(wait=True, cancel_futures=True)
            for f, p in futures.items():
                if f.done() and not f.cancelled() and p.index not in results:
                    results[p.index] = f.result()[0]
    rows = []
    for point in points:
        code = results.get(point.index)
        directory = point_dir(out, point, total)
        if code is None:
            rows += rows_of_point(point, directory, "not run (interrupted)")
        elif code in (0, 3) and os.path.exists(os.path.join(directory, "summary.json")):
            rows += rows_of_point(point, directory, None)
        else:
            rows += rows_of_point(point, directory, f"failed: {exit_text(code)}")
    return rows, failed, interrupted


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenario", help="scenario file with a sweep block")
    p.add_argument("-j", "--jobs", type=int, default=1, help="points run at once (default 1)")
    p.add_argument("--mrcsim", default=os.path.join(ROOT, "build", "bin", "mrcsim"), help="the mrcsim binary")
    p.add_argument("--out", help="output directory (default: results/<name>-sweep)")
    p.add_argument("--metric", default="completion_us", help="metric to plot (a column of sweep.csv; default "
                   "completion_us): " + ", ".join(METRICS))
    p.add_argument("--x", help="parameter on the x axis (default: the first swept parameter, or seed)")
    p.add_argument("--timeout", type=float, help="seconds a point may run before it counts as failed")
    p.add_argument("--replot", action="store_true", help="only redraw the plot from DIR/sweep.csv")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("-j must be at least 1")
    try:
        points = expand(import_module(args.mrcsim), args.scenario)
        params = list(points[0].values)
        name = points[0].scenario["name"]
        out = args.out or os.path.join("results", name + "-sweep")
        x = args.x or (params[0] if params else "seed")
        check_axes(args.metric, x, params)
        csv_path = os.path.join(out, "sweep.csv")
        png = os.path.join(out, plot_name(args.metric, x, params))
        if args.replot:
            plot(csv_path, png, args.metric, x, name)
            print(f"plot: {png}")
            return 0
        print(validate(args.mrcsim, args.scenario))
        os.makedirs(out, exist_ok=True)
        print(f"sweep: {len(points)} points, {args.jobs} at a time, into {out}/points/", flush=True)
        rows, failed, interrupted = run_sweep(args, points, out)
        write_csv(csv_path, params, rows)
        plot(csv_path, png, args.metric, x, name)
    except SweepError as e:
        print(f"sweep: {e}", file=sys.stderr)
        return 1
    print(f"sweep: {len(rows)} rows in {csv_path}; plot: {png}")
    if failed:
        print(f"sweep: {len(failed)} of {len(points)} points FAILED (logs in {out}/points/<k>/run.log):",
              file=sys.stderr)
        for point, code, last in failed:
            print(f"  point {point.index}: {exit_text(code)}: {last}", file=sys.stderr)
        return 1
    if interrupted:
        print("sweep: interrupted; the CSV holds the points that ran", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
