#!/usr/bin/python3
"""Runs a scenario's sweep block: the cartesian product of its parameters' values and its seeds,
each point a separate `mrcsim run` process, N at a time. Writes one tidy CSV (a row per point and
transport) and plots a metric against a parameter: the median over seeds per transport, with a
band from the lowest to the highest seed.

usage: sweep.py SCENARIO.json [-j N] [--mrcsim PATH] [--out DIR] [--metric NAME] [--x PARAM]
                [--timeout SECONDS] [--scheduler ADDRESS|local] [--no-reuse] [--replot]

The block (checked by mrcsim, as `mrcsim validate` does; at most 1000 points):
  "sweep": {"parameters": {"workloads.0.bytes": [65536, 1048576],
                           "transport.0.attributes.ns3::MrcQueuePair::EvCount": [32, 128]},
            "seeds": [1, 2, 3]}            (or {"count": 3}: the scenario's seed and the 2 after it)
The points come from mrcsim itself: its Python module's expand_sweep() (the module built beside
the --mrcsim binary, <build>/python, else one on PYTHONPATH, else build/python), numbered in the
file's order (the first parameter varies slowest, the seed fastest); point k runs `mrcsim run SCENARIO --quiet --set
sweep=null --set seed=S --set PATH=VALUE ... --out DIR/points/<k>` (or some of its transports, see
below) and logs to DIR/points/<k>/run.log. DIR defaults to results/<name>-sweep.
Outputs: DIR/sweep.csv and DIR/<metric>-vs-<parameter>.png (the parameter by its last part, e.g.
EvCount); --replot redraws the plot from an existing DIR/sweep.csv. Exit status: 0, or 1 when a
point failed (exit code not 0 or 3: the CSV and plot hold what completed and the failures are
listed) or on bad input; 130 after Ctrl-C (the CSV holds what ran, the rest "not run").

Transport-only parameters: mrcsim runs a scenario's transports one after the other, each from
ns-3's defaults and the scenario's seed, so transport K's results depend only on the parameters
that are not another transport's entry (transport.J...) and on the seed. When swept parameters are
transport.K paths, the first point with a given combination of those runs transport K; later
points reuse its row and run only the transports whose combination is new, with --set
transport=[their entries] (e.g. an EvCount sweep of MRC against RoCEv2 runs RoCEv2 once per seed).
A point then has a directory (and run.log) only if it ran something, and its summary.json holds
only the transports it ran; sweep.csv has the same rows as a run of every point in full (a point
one of whose runs failed gets one failed row). A point mrcsim rejects as a whole (two transports
with one label) runs alone and in full. --timeout applies to each run, so a point's transports
may each get the whole timeout, as may the scenario's stop.wall_time_s. --no-reuse runs every
point in full.

Executors: by default the runs are processes of this machine, -j at a time. --scheduler ADDRESS
runs them on a Dask distributed cluster (Debian package python3-distributed, imported only then):
ADDRESS of a running scheduler (tcp://host:8786; its workers' threads set the parallelism, -j is
not used), or "local" for a LocalCluster of -j single-threaded workers inside this process (tests,
laptops). Each run is an `mrcsim run --partitions 1` subprocess (one thread: the points are what
runs side by side), started by a worker, and the workers share
the filesystem: the mrcsim binary, the scenario file and DIR must be visible at the same absolute
paths on every worker (sweep.py gives them absolute paths), as must the ns-3 libraries the binary
loads. The CSV is byte-identical to a local run's; failures, --timeout (enforced on the worker),
the [n/N] progress lines and Ctrl-C (workers SIGINT their mrcsim, which writes partial results;
runs not started are not run) behave as locally. scripts/sweep_exec.py holds both executors.
"""
import argparse
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
from dataclasses import dataclass

from mrcsim_results import SummaryError, load_summary
from sweep_exec import LOST, NOT_STARTED, TIMED_OUT, ExecutorError, make_executor

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


TRANSPORT_PATH = re.compile(r"transport\.(\d+)(?:\.|$)")


def transport_of(path):
    """The index K of the transport a parameter path changes (transport.K...), else None."""
    m = TRANSPORT_PATH.match(path)
    return int(m.group(1)) if m else None


def point_overrides(point, transports=None):
    """The --set values of a point's run; with `transports` (indices into the scenario's transport
    list) only those transports: their entries as the point has them in place of the list (the
    transport.K overrides are in them)."""
    sets = ["sweep=null", f"seed={point.seed}"]
    for path, value in point.values.items():
        if transports is None or transport_of(path) is None:
            sets.append(f"{path}={json.dumps(value)}")
    if transports is not None:
        sets.append("transport=" + json.dumps([point.scenario["transport"][t] for t in transports]))
    return sets


def point_command(binary, scenario, point, directory, transports=None):
    """`mrcsim run` with the point's overrides (point_overrides), on one thread: a sweep runs its
    points side by side (-j, or a cluster's workers), and the results do not depend on the
    partitions."""
    cmd = [binary, "run", scenario, "--quiet", "--partitions", "1"]
    for value in point_overrides(point, transports):
        cmd += ["--set", value]
    return cmd + ["--out", directory]


@dataclass(eq=False)
class Run:
    """One `mrcsim run` of a sweep, into its point's directory: every transport of the point's
    scenario (transports None) or only some of them (their indices)."""
    point: Point
    transports: list = None


def labels(point, transports=None):
    """The labels of a point's transports (all, or those of the given indices)."""
    entries = point.scenario.get("transport")
    entries = entries if isinstance(entries, list) else [entries]
    picked = range(len(entries)) if transports is None else transports
    return [str(entries[t].get("label", entries[t].get("type"))) if isinstance(entries[t], dict) else str(t)
            for t in picked]


def plan(module, scenario, points, reuse=True):
    """The runs of a sweep and, per point index, where its rows come from: a list of (run,
    position), position the transport's place among the run's results, or None for all of them.

    Each point is a run of every transport, unless swept parameters are transport.K paths (and
    reuse is on): then transport K's results depend only on the parameters that are not another
    transport's and on the seed (mrcsim resets ns-3's defaults and seeds before each transport),
    and the first point with those values runs it; later points reuse its row. A point mrcsim
    rejects as a whole (e.g. two transports given one label) runs alone and in full."""
    runs, sources, seen = [], {}, {}
    split = reuse and points and any(transport_of(p) is not None for p in points[0].values)
    for point in points:
        entries = point.scenario.get("transport")
        if not split or not isinstance(entries, list) or len(entries) < 2 or not accepted(module, scenario, point):
            runs.append(Run(point))
            sources[point.index] = [(runs[-1], None)]
            continue
        keys = [(t, point.seed, json.dumps({p: v for p, v in point.values.items() if transport_of(p) in (None, t)},
                                           sort_keys=True)) for t in range(len(entries))]
        need = [t for t, key in enumerate(keys) if key not in seen]
        if need:
            runs.append(Run(point, None if len(need) == len(entries) else need))
            for position, t in enumerate(need):
                seen[keys[t]] = (runs[-1], t if runs[-1].transports is None else position)
        sources[point.index] = [seen[key] for key in keys]
    return runs, sources


def accepted(module, scenario, point):
    """Whether mrcsim accepts the point's whole scenario, as its `mrcsim run` would read it."""
    try:
        module.validate(scenario, overrides=point_overrides(point))
        return True
    except module.SpecError:
        return False

def exit_text(code):
    """"exit 1", or "signal SIGABRT" for a process a signal ended."""
    if code == TIMED_OUT:
        return "timed out"
    if code == NOT_STARTED:
        return "not started"
    if code == LOST:
        return "lost by the executor"
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


def row_base(point):
    return {"point": point.index, **{p: cell(v) for p, v in point.values.items()}, "seed": point.seed}


def transport_row(point, r):
    """The row of one transport's results (a run of summary.json) for a point."""
    c = r.counters
    coll = r.collectives[0] if r.collectives else None
    msg = r.messages.time_us
    pkt = r.packet_latency_us
    return {
        **row_base(point),
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
    }


def rows_of_points(points, sources, results, out):
    """The rows of every point, in order: one per transport of a finished point (from the run that
    ran that transport), one with the error for a point one of whose runs failed or did not run.
    Also the failed points: (point, exit code, last line of stderr) of the failing run."""
    rows, failed, summaries = [], [], {}
    total = len(points)
    for point in points:
        status = None
        for run, _ in sources[point.index]:
            result = results.get(run)
            if result is None:
                status = "not run (interrupted)"
            elif result[0] not in (0, 3) or not os.path.exists(
                    os.path.join(point_dir(out, run.point, total), "summary.json")):
                status = f"failed: {exit_text(result[0])}"
                if result[0] not in (0, 3):
                    failed.append((point, result[0], result[2]))
            if status:
                break
        if status:
            rows.append({**row_base(point), "transport": "", "status": status})
            continue
        for run, position in sources[point.index]:
            if run not in summaries:
                directory = point_dir(out, run.point, total)
                try:
                    summaries[run] = load_summary(directory).runs
                except SummaryError as e:
                    raise SweepError(f"point {run.point.index}: {e}")
            done = summaries[run] if position is None else summaries[run][position:position + 1]
            rows += [transport_row(point, r) for r in done]
    return rows, failed

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


def describe(point):
    return ", ".join(f"{short(p)}={cell(v)}" for p, v in point.values.items()) + f", seed={point.seed}"


def run_sweep(args, points, out, runs, sources, executor):
    """Runs `runs` on the executor, printing each as it ends; returns the rows of every point, the
    failed points and whether Ctrl-C stopped the sweep."""
    shutil.rmtree(os.path.join(out, "points"), ignore_errors=True)
    os.makedirs(os.path.join(out, "points"))
    total = len(points)
    results = {}
    interrupted = False
    futures = {}
    for run in runs:
        binary, scenario, directory = args.mrcsim, args.scenario, point_dir(out, run.point, total)
        if executor.absolute_paths:  # the workers' working directory is not ours
            binary = os.path.abspath(binary) if os.sep in binary else binary
            scenario, directory = os.path.abspath(scenario), os.path.abspath(directory)
        cmd = point_command(binary, scenario, run.point, directory, run.transports)
        futures[executor.submit(cmd, directory, args.timeout)] = run
    try:
        for n, future in enumerate(executor.as_completed(futures), 1):
            run = futures[future]
            code, seconds, last = results[run] = executor.result(future)
            what = describe(run.point) + ("" if run.transports is None else
                                          "; " + ", ".join(labels(run.point, run.transports)) + " only")
            if code in (0, 3):
                note = " (partial)" if code == 3 else ""
                print(f"[{n}/{len(runs)}] point {run.point.index} ({what}): {seconds:.1f} s{note}", flush=True)
            else:
                print(f"[{n}/{len(runs)}] point {run.point.index} ({what}): FAILED ({exit_text(code)}): {last}",
                      flush=True)
    except KeyboardInterrupt:
        # mrcsim gets the Ctrl-C too (from the terminal, or on a cluster from the executor) and
        # writes its partial results; start nothing new.
        interrupted = True
        for future, result in executor.interrupt(futures).items():
            results.setdefault(futures[future], result)
    rows, failed = rows_of_points(points, sources, results, out)
    return rows, failed, interrupted


def plan_note(points, runs):
    """How many times each transport runs, when reuse saves runs."""
    counts = {}
    for run in runs:
        for label in labels(run.point, run.transports):
            counts[label] = counts.get(label, 0) + 1
    return (f"sweep: only some transports' parameters are swept: {len(runs)} runs for {len(points)} points ("
            + ", ".join(f"{label} {k} times" for label, k in counts.items())
            + "); the others' rows are reused across them (--no-reuse runs every point in full)")

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
    p.add_argument("--scheduler", metavar="ADDRESS", help="run the points on a Dask distributed cluster: a "
                   "scheduler's address (tcp://host:8786), or 'local' for a LocalCluster of -j workers in this "
                   "process (needs the Debian package python3-distributed)")
    p.add_argument("--no-reuse", action="store_true", help="run every transport of every point, even when the "
                   "swept parameters only change one transport's entry")
    args = p.parse_args(argv)
    if args.jobs < 1:
        p.error("-j must be at least 1")
    try:
        module = import_module(args.mrcsim)
        points = expand(module, args.scenario)
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
        runs, sources = plan(module, args.scenario, points, reuse=not args.no_reuse)
        try:
            executor = make_executor(args.scheduler, args.jobs)
        except ExecutorError as e:
            raise SweepError(str(e))
        try:
            os.makedirs(out, exist_ok=True)
            print(f"sweep: {len(points)} points, {executor.description}, into {out}/points/", flush=True)
            if len(runs) < len(points) or any(run.transports is not None for run in runs):
                print(plan_note(points, runs), flush=True)
            rows, failed, interrupted = run_sweep(args, points, out, runs, sources, executor)
        finally:
            executor.close()
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
