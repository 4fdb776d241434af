#!/usr/bin/python3
"""Compares the variants of one scenario: by default its transports (e.g. MRC and ECMP RoCEv2),
plus any --variant. Runs `mrcsim run` (or reads an existing results directory with --from) and
writes DIR/compare.md, a table of the key figures per variant with four figures beside it:

  collectives.png      run and collective completion times, bus bandwidth
  latency_cdf.png      message completion and packet latency: CDFs and their tails (1-CDF, log)
  goodput.png          goodput delivered per plane over time, one panel per variant, failures marked
  retransmissions.png  retransmissions, timeouts, trims, ECN marks and drops; drops by cause

usage: compare.py SCENARIO.json [--mrcsim PATH] [--out DIR] [--set PATH=VALUE ...]
                  [--variant LABEL[@TRANSPORT]:PATH=VALUE[,PATH=VALUE...] ...] [--quiet]
       compare.py --from DIR

A variant is one more `mrcsim run` of the scenario with overrides (--set syntax). With @TRANSPORT
it runs only that transport of the scenario file, relabelled LABEL and written as the object
"transport", so its paths start with "transport." (it always has "attributes"):
  --variant 'mrc-ev32@mrc:transport.attributes.ns3::MrcQueuePair::EvCount=32'
Without it, the variant runs every transport, labelled LABEL-<transport> (LABEL if only one):
  --variant 'big:workloads.0.bytes=1048576'
Exit status: 0, 3 if a run stopped early (partial; the figures cover what completed), 1 on errors.
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

import mrcsim_results  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
FIGURES = ("collectives.png", "latency_cdf.png", "goodput.png", "retransmissions.png")
DPI = 200
MANIFEST = "compare.json"
STYLE = {
    "font.size": 9,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


# Set when Ctrl-C reached a run: its partial results are plotted, no further variant runs.
INTERRUPTED = []


class CompareError(Exception):
    pass


@dataclass
class Variant:
    """One transport's run of one `mrcsim run`, as the comparison shows it."""

    label: str
    run: mrcsim_results.Run  # one entry of summary.json's "runs"
    summary: mrcsim_results.Summary  # the whole summary.json (scenario, seed, hash, fabric)
    csv_dir: str  # its collectives.csv, messages.csv, timeseries.csv
    overrides: list = field(default_factory=list)  # beyond the scenario's, for a --variant

    @property
    def partial(self):
        return self.run.partial

    @property
    def title(self):
        return self.label + (f" (PARTIAL: {self.run.stop_reason or 'stopped early'})" if self.partial else "")


# ---- running ------------------------------------------------------------------------------------


def parse_variant(text):
    """'LABEL[@TRANSPORT]:PATH=VALUE,...' -> (label, transport or None, [PATH=VALUE, ...])."""
    m = re.fullmatch(r"([A-Za-z0-9_.-]+)(?:@([A-Za-z0-9_.-]+))?:(.+)", text, re.S)
    if not m:
        raise CompareError(f"--variant {text!r}: expected LABEL[@TRANSPORT]:PATH=VALUE[,PATH=VALUE...]")
    # Split on the commas that start a new PATH=, so that JSON values may hold commas.
    sets = re.split(r",(?=[A-Za-z0-9_:.\-]+=)", m.group(3))
    for s in sets:
        if "=" not in s or s.startswith("="):
            raise CompareError(f"--variant {text!r}: {s!r} is not PATH=VALUE")
    return m.group(1), m.group(2), sets


def scenario_transports(doc):
    t = doc.get("transport", [])
    return [t] if isinstance(t, dict) else list(t)


def variant_sets(doc, label, transport, sets, scenario):
    """The --set arguments of one variant's run."""
    if transport is None:
        return list(sets)
    matches = [t for t in scenario_transports(doc) if t.get("label", t.get("type")) == transport]
    if not matches:
        known = ", ".join(t.get("label", t.get("type", "?")) for t in scenario_transports(doc))
        raise CompareError(f"--variant {label}@{transport}: {scenario} has no transport {transport!r} (it has {known})")
    t = dict(matches[0], label=label)
    t.setdefault("attributes", {})
    return ["transport=" + json.dumps(t)] + list(sets)


def run_mrcsim(binary, scenario, out, sets, quiet):
    """Runs `mrcsim run`, its table and progress going to the terminal. Ctrl-C reaches mrcsim too,
    which stops and writes partial results; those are then plotted."""
    cmd = [binary, "run", scenario, "--out", out]
    for s in sets:
        cmd += ["--set", s]
    if quiet:
        cmd.append("--quiet")
    def interrupted(*_):
        INTERRUPTED.append(True)

    previous = signal.signal(signal.SIGINT, interrupted)
    try:
        return subprocess.run(cmd).returncode
    except OSError as e:
        raise CompareError(f"cannot run {binary}: {e} (build it first: scripts/setup.sh)")
    finally:
        signal.signal(signal.SIGINT, previous)


def scenario_name(doc, sets):
    name = doc.get("name", "scenario")
    for s in sets:
        if s.startswith("name="):
            name = s[len("name="):]
    return name


def run_all(args):
    try:
        with open(args.scenario) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise CompareError(f"cannot read {args.scenario}: {e}")
    variants = [parse_variant(v) for v in args.variant]
    labels = [v[0] for v in variants]
    if len(set(labels)) != len(labels):
        raise CompareError(f"--variant labels must be unique, got {', '.join(labels)}")
    out = args.out or os.path.join("results", scenario_name(doc, args.set))
    os.makedirs(out, exist_ok=True)
    # Variants of an earlier comparison would otherwise be read back as if they were this one's.
    shutil.rmtree(os.path.join(out, "variants"), ignore_errors=True)
    manifest = {"scenario": args.scenario, "description": doc.get("description"), "sets": list(args.set),
                "variants": []}

    status = run_mrcsim(args.mrcsim, args.scenario, out, args.set, args.quiet)
    if status not in (0, 3):
        raise CompareError(f"mrcsim run {args.scenario} failed (exit {status})")
    base_labels = set(load_summary(out, check=True).labels)
    for label, transport, sets in variants:
        if INTERRUPTED:
            print(f"compare: interrupted; variant {label} not run", file=sys.stderr)
            continue
        if label in base_labels:
            raise CompareError(f"--variant {label}: the scenario already has a transport labelled {label}")
        vout = os.path.join(out, "variants", label)
        print(f"\ncompare: variant {label}" + (f" ({transport} only)" if transport else "") + ": " + ", ".join(sets),
              flush=True)
        vstatus = run_mrcsim(args.mrcsim, args.scenario, vout, list(args.set) + variant_sets(
            doc, label, transport, sets, args.scenario), args.quiet)
        if vstatus not in (0, 3):
            raise CompareError(f"mrcsim run for variant {label} failed (exit {vstatus})")
        manifest["variants"].append({"label": label, "transport": transport, "sets": sets})
    with open(os.path.join(out, MANIFEST), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    return out


# ---- reading ------------------------------------------------------------------------------------


def load_summary(directory, check=False):
    """DIR/summary.json; check: against the schema (what this script's runs just wrote), else as
    it is (--from may read summaries of older versions)."""
    try:
        return mrcsim_results.load_summary(os.path.join(directory, "summary.json"), check=check)
    except mrcsim_results.SummaryError as e:
        raise CompareError(str(e))


def load_variants(directory, check=False):
    """Every run of DIR/summary.json, then those of the --variant runs DIR/compare.json lists."""
    summary = load_summary(directory, check)
    out = [Variant(r.label, r, summary, os.path.join(directory, r.label)) for r in summary.runs]
    manifest = {}
    if os.path.exists(os.path.join(directory, MANIFEST)):
        with open(os.path.join(directory, MANIFEST)) as f:
            manifest = json.load(f)
    for v in manifest.get("variants", []):
        vdir = os.path.join(directory, "variants", v["label"])
        vsummary = load_summary(vdir, check)
        runs = vsummary.runs
        for r in runs:
            label = v["label"] if len(runs) == 1 else f"{v['label']}-{r.label}"
            out.append(Variant(label, r, vsummary, os.path.join(vdir, r.label), v["sets"]))
    if not out:
        raise CompareError(f"{directory}/summary.json has no runs")
    return out, manifest


def read_csv(path):
    try:
        with open(path, newline="") as f:
            return list(csv.DictReader(f))
    except OSError:
        return []


# ---- figures ------------------------------------------------------------------------------------


def colours(variants):
    cycle = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    return {v.label: cycle[i % len(cycle)] for i, v in enumerate(variants)}


def suptitle(fig, summary, what):
    fig.suptitle(f"{summary.scenario}: {what} (seed {summary.seed})", fontweight="bold")


def save(fig, path):
    fig.savefig(path, dpi=DPI, bbox_inches="tight")
    plt.close(fig)


def annotate_bar(ax, x, top, text, rotation=0):
    return ax.annotate(text, (x, top), xytext=(0, 2), textcoords="offset points", ha="center", va="bottom",
                       fontsize=7, rotation=rotation)


def fit_labels(fig, ax, labels):
    """Raises the top of `ax` until every label is inside it. Labels keep their size in points, so
    each raise leaves them a little less room: a few rounds, on the figure's final layout."""
    for _ in range(8):
        renderer = fig.canvas.get_renderer()
        box = ax.get_window_extent(renderer)
        highest = max((t.get_window_extent(renderer).y1 for t in labels), default=box.y1)
        if highest <= box.y1:
            return
        grow = (highest - box.y1) / box.height * 1.2 + 0.02
        bottom, top = ax.get_ylim()
        if ax.get_yscale() == "log":
            ax.set_ylim(bottom, top * (top / bottom) ** grow)
        else:
            ax.set_ylim(bottom, top + (top - bottom) * grow)


def plot_collectives(variants, summary, path):
    """Grouped bars: run completion, then each collective workload's mean time (whiskers p50 to
    max); beside it each collective's bus bandwidth."""
    col = colours(variants)
    workloads = []
    for v in variants:
        for c in v.run.collectives:
            if c.workload not in workloads:
                workloads.append(c.workload)
    panels = 2 if workloads else 1
    fig, axes = plt.subplots(1, panels, figsize=(5.5 * panels, 3.8), squeeze=False)
    for ax in axes[0]:
        ax.grid(False, axis="x")
    groups = ["whole run"] + workloads
    n = len(variants)
    width = 0.8 / n
    ax = axes[0][0]
    for i, v in enumerate(variants):
        by_name = {c.workload: c for c in v.run.collectives}
        for g, name in enumerate(groups):
            x = g + (i - (n - 1) / 2) * width
            hatch = "//" if v.partial else None
            if name == "whole run":
                # A partial run did not complete: it ran at least until it stopped.
                value = v.run.stopped_at_us if v.partial or v.run.completion_us is None else v.run.completion_us
                ax.bar(x, value, width, color=col[v.label], hatch=hatch, edgecolor="white")
                annotate_bar(ax, x, value, f"≥{value:.0f}" if v.partial else f"{value:.0f}")
                continue
            c = by_name.get(name)
            if c is None or c.completed == 0:
                annotate_bar(ax, x, 0, "none\ndone")
                continue
            t = c.time_us
            ax.bar(x, t.mean, width, color=col[v.label], hatch=hatch, edgecolor="white")
            if t.max > t.p50:
                ax.vlines(x, t.p50, t.max, color="black", linewidth=1)
            annotate_bar(ax, x, max(t.mean, t.max), f"{t.mean:.0f}")
    ax.set_xticks(range(len(groups)), groups)
    ax.set_ylabel("completion time (µs)")
    ax.set_title("Completion time (bars: mean; whiskers: p50 to max)")
    ax.margins(y=0.12)
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=col[v.label], hatch="//" if v.partial else None,
                             edgecolor="white") for v in variants]
    fig.legend(handles, [v.title for v in variants], loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(len(variants), 4), frameon=False)
    if workloads:
        ax = axes[0][1]
        for i, v in enumerate(variants):
            by_name = {c.workload: c for c in v.run.collectives}
            for g, name in enumerate(workloads):
                x = g + (i - (n - 1) / 2) * width
                c = by_name.get(name)
                if c is None or c.completed == 0:
                    annotate_bar(ax, x, 0, "none\ndone")
                    continue
                ax.bar(x, c.busbw_gbps, width, color=col[v.label], hatch="//" if v.partial else None,
                       edgecolor="white")
                annotate_bar(ax, x, c.busbw_gbps, f"{c.busbw_gbps:.0f}")
        ax.set_xticks(range(len(workloads)), workloads)
        ax.set_ylabel("bus bandwidth (Gb/s per GPU)")
        ax.set_title("Collective bus bandwidth (mean over instances)")
        ax.margins(y=0.12)
    suptitle(fig, summary, "collective completion")
    fig.tight_layout()
    save(fig, path)


def message_samples(v):
    return sorted(float(r["time_us"]) for r in read_csv(os.path.join(v.csv_dir, "messages.csv")))


def distribution_from_samples(xs):
    """(x, CDF, fraction at or above x) of sorted samples."""
    n = len(xs)
    return xs, [(i + 1) / n for i in range(n)], [(n - i) / n for i in range(n)], n


def distribution_from_summary(stats):
    """The same from a summary's histogram, or (older summaries) from its percentiles."""
    n = stats.count
    if not n:
        return [], [], [], 0
    hist = stats.histogram
    if hist:
        xs, cdf, tail = [], [], []
        seen = 0
        for bound, count in hist:
            xs.append(bound)
            tail.append((n - seen) / n)
            seen += count
            cdf.append(seen / n)
        return xs, cdf, tail, n
    qs = [(0.5, "p50"), (0.9, "p90"), (0.99, "p99"), (0.999, "p99_9")]
    xs = [stats.stat(k) for _, k in qs] + [stats.max]
    cdf = [q for q, _ in qs] + [1.0]
    tail = [1 - q for q, _ in qs] + [1 / n]
    return xs, cdf, tail, n


def plot_latency(variants, summary, path):
    col = colours(variants)
    fig, axes = plt.subplots(2, 2, figsize=(10, 7))
    kinds = [
        ("message completion time (µs)", "messages", lambda v: distribution_from_samples(message_samples(v))),
        ("packet one-way latency (µs)", "packets", lambda v: distribution_from_summary(v.run.packet_latency_us)),
    ]
    for column, (xlabel, noun, get) in enumerate(kinds):
        top, bottom = axes[0][column], axes[1][column]
        smallest, largest, most = math.inf, 0.0, 1
        drawn = 0
        for v in variants:
            xs, cdf, tail, n = get(v)
            style = {"color": col[v.label], "linestyle": "--" if v.partial else "-", "linewidth": 1.4}
            if n == 0:
                top.plot([], [], label=f"{v.title}: no {noun}", **style)
                continue
            drawn += 1
            top.step(xs, cdf, where="post", label=f"{v.title} (n={n})", **style)
            bottom.step(xs, tail, where="post", label=v.title, **style)
            smallest, largest, most = min(smallest, xs[0]), max(largest, xs[-1]), max(most, n)
        top.set_ylim(0, 1.02)
        top.set_ylabel("CDF")
        top.set_title(f"{noun.capitalize()}: distribution")
        bottom.set_title(f"{noun.capitalize()}: tail (1 - CDF, log scale)")
        bottom.set_ylabel(f"fraction of {noun} ≥ x")
        for ax in (top, bottom):
            ax.set_xlabel(xlabel)
        if drawn == 0:
            for ax in (top, bottom):
                ax.text(0.5, 0.5, f"no completed {noun}", ha="center", va="center", transform=ax.transAxes)
        else:
            bottom.set_yscale("log")
            bottom.set_ylim(0.5 / most, 1.5)
            # A stalled message (a retransmission timeout) can sit orders of magnitude past the body.
            if smallest > 0 and largest / smallest > 100:
                for ax in (top, bottom):
                    ax.set_xscale("log")
        top.legend(loc="lower right")
    suptitle(fig, summary, "latency")
    fig.tight_layout()
    save(fig, path)


def failure_times(v):
    return [(f.at_us, f.type) for f in v.run.failures]


def run_length(v, per_plane):
    """How long a variant's run lasted (µs): until it stopped, else (older summaries) its last
    sample."""
    last = max((t for pts in per_plane.values() for t, _ in pts), default=0.0)
    return v.run.stopped_at_us or last or 1.0


def plot_goodput(variants, summary, path):
    """One panel per variant (a line per plane), then the total over planes of every variant."""
    col = colours(variants)
    n = len(variants)
    # Each variant on its own time axis, as long as its run: a short run is not squashed into the
    # start of a long one's. The last panel compares the totals on the longest run's axis.
    fig, axes = plt.subplots(n + 1, 1, figsize=(9, 2.3 * (n + 1)), squeeze=False)
    axes = [a[0] for a in axes]
    series = {}
    planes = set()
    for v in variants:
        per = {}
        for r in read_csv(os.path.join(v.csv_dir, "timeseries.csv")):
            per.setdefault(int(r["plane"]), []).append((float(r["time_us"]), float(r["goodput_gbps"])))
        series[v.label] = per
        planes |= set(per)
    planes = sorted(planes)
    cmap = plt.get_cmap("viridis" if len(planes) > 10 else "tab10")
    plane_colour = {p: cmap(i / max(1, len(planes) - 1)) if len(planes) > 10 else cmap(i % 10)
                    for i, p in enumerate(planes)}
    top = 0.0
    for ax, v in zip(axes, variants):
        per = series[v.label]
        for p in planes:
            pts = per.get(p, [])
            if pts:
                ax.plot([t for t, _ in pts], [g for _, g in pts], color=plane_colour[p], linewidth=1,
                        label=f"plane {p}")
                top = max(top, max(g for _, g in pts))
        if not per:
            ax.text(0.5, 0.5, "no samples", ha="center", va="center", transform=ax.transAxes)
        ax.set_title(f"{v.title}: goodput delivered per plane (all GPUs)")
        ax.set_ylabel("goodput (Gb/s)")
        ax.set_xlim(0, run_length(v, per))
    total_ax = axes[-1]
    total_ax.set_xlim(0, max(run_length(v, series[v.label]) for v in variants))
    for v in variants:
        per = series[v.label]
        totals = {}
        for pts in per.values():
            for t, g in pts:
                totals[t] = totals.get(t, 0.0) + g
        if totals:
            ts = sorted(totals)
            total_ax.plot(ts, [totals[t] for t in ts], color=col[v.label], linewidth=1.4,
                          linestyle="--" if v.partial else "-", label=v.title)
    total_ax.set_title("Goodput delivered, all planes")
    total_ax.set_ylabel("goodput (Gb/s)")
    for ax in axes:
        ax.set_xlabel("simulated time (µs)")
    if total_ax.lines:
        total_ax.legend(loc="upper right")
    for ax in axes[:-1]:
        ax.set_ylim(0, top * 1.1 if top > 0 else 1)
    # Failures: a dashed red line at each event of the timeline (the same in every variant).
    marked = False
    for ax, v in zip(axes, list(variants) + [variants[0]]):
        for at, kind in failure_times(v):
            ax.axvline(at, color="red", linestyle="--", linewidth=0.9, alpha=0.8)
            marked = True
        if v.partial and ax is not total_ax:
            ax.axvline(v.run.stopped_at_us, color="grey", linestyle=":", linewidth=1.2)
    handles, labels = axes[0].get_legend_handles_labels()
    if marked:
        handles.append(Line2D([], [], color="red", linestyle="--", linewidth=0.9))
        kinds = sorted({k for v in variants for _, k in failure_times(v)})
        labels.append("failure: " + ", ".join(kinds))
    if any(v.partial for v in variants):
        handles.append(Line2D([], [], color="grey", linestyle=":", linewidth=1.2))
        labels.append("run stopped (partial)")
    if handles:
        fig.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, 0.0),
                   ncol=min(len(handles), 5), frameon=False)
    suptitle(fig, summary, "goodput over time")
    fig.tight_layout()
    save(fig, path)


def plot_counters(variants, summary, path):
    col = colours(variants)
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    for ax in (left, right):
        ax.grid(False, axis="x")
    names = [("retransmissions", "retransmissions"), ("timeouts", "timeouts"), ("trims", "trims"),
             ("ecn_marks", "ECN marks"), (None, "drops")]
    n = len(variants)
    width = 0.8 / n
    largest = 0
    labels = []
    for i, v in enumerate(variants):
        c = v.run.counters
        for g, (key, _) in enumerate(names):
            value = c.drops_total if key is None else c.get(key, 0)
            x = g + (i - (n - 1) / 2) * width
            if value > 0:
                left.bar(x, value, width, color=col[v.label], hatch="//" if v.partial else None, edgecolor="white")
            # Upright labels: side by side, several variants' counts would run into each other.
            labels.append(annotate_bar(left, x, max(value, 1), f"{value:,}", rotation=90))
            largest = max(largest, value)
    left.set_xticks(range(len(names)), [label for _, label in names])
    left.set_ylabel("count (log scale)")
    left.set_yscale("log")
    left.set_ylim(0.8, max(10, largest) * 4)
    left.set_title("Loss recovery and congestion signals")
    handles = [plt.Rectangle((0, 0), 1, 1, facecolor=col[v.label], hatch="//" if v.partial else None, edgecolor="white")
               for v in variants]
    # Below the panels, where it covers no bar.
    fig.legend(handles, [v.title for v in variants], loc="upper center", bbox_to_anchor=(0.5, 0.0),
               ncol=min(len(variants), 4), frameon=False)

    causes = sorted({k for v in variants for k, x in v.run.counters.drops.items() if x > 0})
    drop_labels = []
    if causes:
        for i, v in enumerate(variants):
            d = v.run.counters.drops
            for g, cause in enumerate(causes):
                x = g + (i - (n - 1) / 2) * width
                right.bar(x, d.get(cause, 0), width, color=col[v.label], hatch="//" if v.partial else None,
                          edgecolor="white")
                drop_labels.append(annotate_bar(right, x, d.get(cause, 0), f"{d.get(cause, 0):,}", rotation=90))
        right.set_xticks(range(len(causes)), [c.replace("_", " ") for c in causes])
    else:
        right.set_xticks([])
        right.text(0.5, 0.5, "no packet dropped in any variant", ha="center", va="center",
                   transform=right.transAxes)
    right.set_ylabel("packets dropped")
    right.set_title("Drops by cause")
    suptitle(fig, summary, "retransmissions and drops")
    fig.tight_layout()
    fit_labels(fig, left, labels)
    fit_labels(fig, right, drop_labels)
    save(fig, path)


# ---- the report ---------------------------------------------------------------------------------


def fmt(x, digits=1):
    """A figure for the report; None (not defined, e.g. nothing completed) is "n/a"."""
    return "n/a" if x is None else f"{x:,.{digits}f}"


def table(variants):
    def row(name, cells):
        return f"| {name} | " + " | ".join(cells) + " |"

    lines = [row("", [f"**{v.label}**" for v in variants]), "|---|" + "---:|" * len(variants)]

    def add(name, get):
        lines.append(row(name, [get(v) for v in variants]))

    add("status", lambda v: f"**PARTIAL** ({v.run.stop_reason or ''})" if v.partial else "complete")
    add("transport", lambda v: v.run.transport + (f", {v.run.qps_per_connection} QPs/pair"
                                                  if v.run.transport == "rocev2" else ""))
    add("completion (µs)", lambda v: f"≥ {fmt(v.run.stopped_at_us)} (stopped)" if v.partial
        else fmt(v.run.completion_us))
    workloads = []
    for v in variants:
        for c in v.run.collectives:
            if c.workload not in workloads:
                workloads.append(c.workload)
    for w in workloads:
        def coll(v, key, w=w):
            c = v.run.collective(w)
            if c is None:
                return "-"
            if c.completed == 0:
                return "n/a" if key == "busbw" else f"none done (0/{c.instances})"
            if key == "busbw":
                return fmt(c.busbw_gbps)
            return f"{fmt(c.time_us.mean)} / {fmt(c.time_us.max)} ({c.completed}/{c.instances})"

        add(f"{w}: mean / max (µs) (done)", lambda v: coll(v, "time"))
        add(f"{w}: bus bandwidth (Gb/s)", lambda v: coll(v, "busbw"))
    m = lambda v: v.run.messages  # noqa: E731
    add("messages completed", lambda v: f"{m(v).completed:,} / {m(v).count:,}")
    for key, name in (("p50", "p50"), ("p99", "p99"), ("p99_9", "p99.9")):
        add(f"message {name} (µs)", lambda v, key=key: fmt(m(v).time_us.stat(key)))
    for key, name in (("p99", "p99"), ("p99_9", "p99.9")):
        add(f"packet latency {name} (µs)", lambda v, key=key: fmt(v.run.packet_latency_us.stat(key), 2))
    counters = lambda v: v.run.counters  # noqa: E731
    add("retransmissions", lambda v: f"{counters(v).retransmissions:,}")
    add("timeouts", lambda v: f"{counters(v).timeouts:,}")
    add("trims", lambda v: f"{counters(v).trims:,}")

    def drops(v):
        by = [f"{k.replace('_', ' ')} {x:,}" for k, x in sorted(counters(v).drops.items()) if x]
        return f"{counters(v).drops_total:,}" + (f" ({', '.join(by)})" if by else "")

    add("drops", drops)
    add("PFC paused port time (µs)", lambda v: fmt(counters(v).pfc_paused_port_us))
    add("seed", lambda v: str(v.summary.seed))
    add("scenario hash", lambda v: f"`{v.summary.scenario_hash}`")
    return lines


def describe_failures(summary):
    seen = []
    for r in summary.runs[:1]:
        for f in r.failures:
            what = f.type + f" at {f.at_us:g} µs"
            if f.links is not None:
                links = f.links
                what += f" (links {', '.join(map(str, links))})" if isinstance(links, list) else f" ({links} links)"
            seen.append(what)
    return "; ".join(seen) if seen else "none"


def write_report(directory, variants, manifest):
    summary = variants[0].summary
    fabric = summary.fabric
    lines = [f"# {summary.scenario}: {' vs '.join(v.label for v in variants)}", ""]
    description = manifest.get("description")
    if description:
        lines += [description, ""]
    scenario_file = manifest.get("scenario") or summary.scenario_file
    scenario_file = "?" if scenario_file is None else scenario_file
    lines += [
        f"- scenario: `{scenario_file}`, seed {summary.seed}, hash `{summary.scenario_hash}`, "
        f"mrcsim {summary.version if summary.version is not None else '?'}",
        f"- fabric: {fabric.name}: {fabric.gpus:,} GPUs, {fabric.switches:,} switches, {fabric.links:,} links"
        if fabric else "- fabric: ?",
        f"- failures: {describe_failures(summary)}",
    ]
    if manifest.get("sets"):
        lines.append("- overrides (every variant): " + ", ".join(f"`{s}`" for s in manifest["sets"]))
    for v in variants:
        if v.overrides:
            lines.append(f"- variant {v.label}: " + ", ".join(f"`{s}`" for s in v.overrides))
    partial = [v for v in variants if v.partial]
    if partial:
        lines += ["", "> **Partial runs:** " + "; ".join(f"{v.label} stopped early ({v.run.stop_reason or '?'})"
                                                         for v in partial)
                  + ". Their figures cover only what completed before the stop."]
    lines += ["", *table(variants), ""]
    captions = {
        "collectives.png": ("Completion times",
                            "Whole-run and per-collective completion time (mean, whiskers p50 to max) and collective "
                            "bus bandwidth per variant; hatched bars are partial runs (whole run: when it stopped)."),
        "latency_cdf.png": ("Latency distributions",
                            "Message completion time and packet one-way latency: CDF (top) and tail as 1 - CDF on a "
                            "log scale (bottom); dashed lines are partial runs."),
        "goodput.png": ("Goodput per plane",
                        "Goodput delivered to the GPUs per plane over simulated time, one panel per variant, then "
                        "the total of all planes; red dashed lines mark the failure timeline."),
        "retransmissions.png": ("Retransmissions and drops",
                                "Retransmissions, timeouts, trims, ECN marks and drops per variant (log scale, counts "
                                "on the bars), and drops by cause."),
    }
    lines += ["## Figures", ""]
    for name in FIGURES:
        title, caption = captions[name]
        lines += [f"![{title}]({name})", "", f"*{caption}*", ""]
    path = os.path.join(directory, "compare.md")
    with open(path, "w") as f:
        f.write("\n".join(lines))
    return path


def report(directory, check=False):
    variants, manifest = load_variants(directory, check)
    summary = variants[0].summary
    if "description" not in manifest:
        # Results of a plain `mrcsim run`: the scenario file may still be where it was.
        try:
            with open(summary.scenario_file or "") as f:
                manifest["description"] = json.load(f).get("description")
        except (OSError, ValueError, AttributeError):
            pass
    plt.rcParams.update(STYLE)
    plot_collectives(variants, summary, os.path.join(directory, "collectives.png"))
    plot_latency(variants, summary, os.path.join(directory, "latency_cdf.png"))
    plot_goodput(variants, summary, os.path.join(directory, "goodput.png"))
    plot_counters(variants, summary, os.path.join(directory, "retransmissions.png"))
    path = write_report(directory, variants, manifest)
    return path, variants


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scenario", nargs="?", help="scenario file to run")
    p.add_argument("--from", dest="from_dir", metavar="DIR", help="plot an existing results directory, run nothing")
    p.add_argument("--mrcsim", default=os.path.join(ROOT, "build", "bin", "mrcsim"), help="the mrcsim binary")
    p.add_argument("--out", help="results directory (default: results/<name>, as mrcsim run)")
    p.add_argument("--set", action="append", default=[], metavar="PATH=VALUE", help="override for every variant")
    p.add_argument("--variant", action="append", default=[], metavar="LABEL[@TRANSPORT]:PATH=VALUE,...",
                   help="one more run with these overrides")
    p.add_argument("--quiet", action="store_true", help="no progress lines from mrcsim")
    args = p.parse_args(argv)
    if bool(args.scenario) == bool(args.from_dir):
        p.error("give a scenario file to run, or --from DIR to plot existing results")
    if args.from_dir and (args.set or args.variant or args.out):
        p.error("--from plots what DIR holds; --set, --variant and --out apply to a run")
    try:
        # Summaries this script's runs just wrote are checked against the schema; --from reads
        # what DIR holds, older versions included.
        directory = args.from_dir or run_all(args)
        path, variants = report(directory, check=not args.from_dir)
    except CompareError as e:
        print(f"compare: {e}", file=sys.stderr)
        return 1
    print(f"comparison: {path} (figures {', '.join(FIGURES)} beside it)")
    return 3 if any(v.partial for v in variants) else 0


if __name__ == "__main__":
    sys.exit(main())
