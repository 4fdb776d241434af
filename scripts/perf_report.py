#!/usr/bin/python3
"""Performance figures from recorded runs: record, render, check and compare.

  perf_report.py record [--runs N] [--only NAME ...] [--long] [--mrcsim BIN]
      runs each benchmark N times (default 3) and writes results/perf/NAME.json: every run's
      figures, their median, minimum and maximum, the command, the commit (and whether the tree
      had changes), the date and the machine (cores, memory, CPU model). --long adds the
      benchmarks that take minutes a run (marked long below).
  perf_report.py render [--check]
      rewrites the blocks of docs/PERFORMANCE.md between <!-- perf NAME --> and <!-- /perf -->
      from results/perf/NAME.json (the prose around them is not touched); --check writes nothing
      and fails if a block differs from what the records give, or names a record that is missing.
  perf_report.py compare --a BIN_A --b BIN_B [--runs N] [--only NAME ...]
      runs the benchmarks of two binaries in turn (A B A B ...) and prints, for each figure, the
      median of the pairwise ratios A/B and their range: a change's cost measured side by side
      rather than against a figure from another day.

Wall times on a shared machine vary; the records keep each run so that a spread is visible, and
the rendered tables show the median with the range.
"""
import argparse
import datetime
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDS = os.path.join(ROOT, "results", "perf")
DOC = os.path.join(ROOT, "docs", "PERFORMANCE.md")


def get(d, path):
    for k in path.split("."):
        d = d[k]
    return d


# Each benchmark: its command (after the binary; {out} is a fresh directory), where its figures
# come from ("json": the command's JSON output; "summary": OUT/summary.json), the figures kept
# (name -> JSON path, and how a table shows it), and whether it is long.
MIB = 1 << 20
BENCHMARKS = {
    "topology": {
        "args": ["bench", "topology", "--json"],
        "source": "json",
        "figures": {
            "generate_s": ("seconds.generate", "{:.2f} s"),
            "route_s": ("seconds.route", "{:.2f} s"),
            "validate_s": ("seconds.validate", "{:.2f} s"),
            "total_s": ("seconds.total", "{:.2f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "forwarding": {
        "args": ["bench", "forwarding", "--json"],
        "source": "json",
        "figures": {
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
            "events_per_packet_hop": ("events_per_packet_hop", "{:.3f}"),
            "bytes_per_link": ("bytes_per_link", "{:.0f} B"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "perm-8192": {
        "args": ["bench", "perm-8192", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.1f} s"),
            "events_m": ("events", "{:.2f} M", 1e6),
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
            "peak_rss_mib": ("peak_rss_bytes", "{:.1f} MiB", MIB),
        },
    },
    "perm-8192-1p": {
        "args": ["bench", "perm-8192", "--partitions", "1", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.1f} s"),
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
            "peak_rss_mib": ("peak_rss_bytes", "{:.1f} MiB", MIB),
        },
    },
    "perm-8192-256k": {
        "args": ["bench", "perm-8192", "--bytes", "262144", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.2f} s"),
            "events_m": ("events", "{:.2f} M", 1e6),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "perm-512": {
        "args": ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "1048576", "--partitions", "1", "--json"],
        "source": "json",
        "figures": {
            "run_s": ("seconds.run", "{:.2f} s"),
            "packet_hops_per_s": ("packet_hops_per_second", "{:.2f} M/s", 1e6),
        },
    },
    "quickstart": {
        "args": ["run", "scenarios/quickstart.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "figures": {
            "wall_s": ("wall", "{:.2f} s"),
            "cpu_s": ("cpu", "{:.2f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "runner-perm-8192": {
        "args": ["run", "scenarios/bench/perm-8192.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "figures": {
            "wall_s": ("wall", "{:.1f} s"),
            "cpu_s": ("cpu", "{:.1f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "runner-perm-8192-1p": {
        "args": ["run", "scenarios/bench/perm-8192.json", "--quiet", "--partitions", "1", "--out", "{out}"],
        "source": "summary",
        "figures": {
            "wall_s": ("wall", "{:.1f} s"),
            "cpu_s": ("cpu", "{:.1f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
    "multiplane-131k": {
        "args": ["run", "scenarios/multiplane-131k.json", "--quiet", "--out", "{out}"],
        "source": "summary",
        "long": True,
        "figures": {
            "wall_s": ("wall", "{:.0f} s"),
            "peak_rss_mib": ("peak_rss_bytes", "{:.0f} MiB", MIB),
        },
    },
}


def machine():
    model = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            mem_kb = int(re.search(r"MemTotal:\s+(\d+)", f.read()).group(1))
    except OSError:
        mem_kb = 0
    return {"cores": os.cpu_count(), "memory_gib": round(mem_kb / 2 ** 20, 1), "cpu": model,
            "system": platform.platform()}


def commit():
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True).stdout.strip()
    return {"commit": git("rev-parse", "HEAD"), "changed": bool(git("status", "--porcelain", "--untracked-files=no"))}


def run_once(mrcsim, name):
    """One run: its figures (raw values, before any scaling for display)."""
    b = BENCHMARKS[name]
    out = tempfile.mkdtemp(prefix="perf-")
    try:
        args = [a.replace("{out}", out) for a in b["args"]]
        start = datetime.datetime.now()
        t0 = os.times()
        p = subprocess.Popen([mrcsim, *args], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        stdout, stderr = p.communicate()
        wall = (datetime.datetime.now() - start).total_seconds()
        t1 = os.times()
        if p.returncode != 0:
            raise RuntimeError("%s exited %d: %s" % (" ".join(args), p.returncode, stderr.strip()[-300:]))
        cpu = (t1.children_user - t0.children_user) + (t1.children_system - t0.children_system)
        if b["source"] == "json":
            data = json.loads(stdout)
        else:
            with open(os.path.join(out, "summary.json")) as f:
                summary = json.load(f)
            data = {"wall": wall, "cpu": cpu,
                    "peak_rss_bytes": max(w["peak_rss_bytes"] for w in summary["wall_clock"])}
        return {k: float(get(data, spec[0])) for k, spec in b["figures"].items()}, args
    finally:
        shutil.rmtree(out, ignore_errors=True)


def summarise(runs):
    out = {}
    for k in runs[0]:
        values = [r[k] for r in runs]
        out[k] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return out


def record(args):
    names = args.only or [n for n, b in BENCHMARKS.items() if args.long or not b.get("long")]
    os.makedirs(args.records, exist_ok=True)
    for name in names:
        runs = []
        for i in range(args.runs):
            figures, argv = run_once(args.mrcsim, name)
            runs.append(figures)
            print("perf: %s run %d/%d: %s" % (name, i + 1, args.runs,
                                              ", ".join("%s %.4g" % kv for kv in figures.items())), file=sys.stderr)
        rec = {"benchmark": name, "command": "mrcsim " + " ".join(a if "perf-" not in a else "DIR" for a in argv),
               "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               **commit(), "machine": machine(), "runs": runs, "figures": summarise(runs)}
        with open(os.path.join(args.records, name + ".json"), "w") as f:
            json.dump(rec, f, indent=1)
            f.write("\n")
    return 0


def shown(name, key, value):
    spec = BENCHMARKS[name]["figures"][key]
    return spec[1].format(value / (spec[2] if len(spec) > 2 else 1))


def render_block(name, records):
    path = os.path.join(records, name + ".json")
    if not os.path.isfile(path):
        raise FileNotFoundError("no record results/perf/%s.json (scripts/perf_report.py record --only %s)" % (name, name))
    with open(path) as f:
        rec = json.load(f)
    lines = ["| figure | median | range (%d runs) |" % len(rec["runs"]), "|---|---|---|"]
    for key, fig in rec["figures"].items():
        lines.append("| %s | %s | %s to %s |" % (key, shown(name, key, fig["median"]), shown(name, key, fig["min"]),
                                                 shown(name, key, fig["max"])))
    m = rec["machine"]
    lines.append("")
    lines.append("Recorded %s at %s%s on %d cores, %s GiB (%s): `%s`." % (
        rec["date"], rec["commit"][:10], " with local changes" if rec["changed"] else "", m["cores"], m["memory_gib"],
        m["cpu"], rec["command"]))
    return "\n".join(lines)


BLOCK = re.compile(r"(<!-- perf (?P<name>[\w.-]+) -->\n)(?P<body>.*?)(<!-- /perf -->)", re.S)


def render(args):
    with open(args.doc) as f:
        text = f.read()
    problems = []

    def replace(m):
        try:
            body = render_block(m.group("name"), args.records) + "\n"
        except (FileNotFoundError, KeyError) as e:
            problems.append("%s: %s" % (m.group("name"), e))
            return m.group(0)
        if body != m.group("body"):
            problems.append("%s: the block differs from results/perf/%s.json" % (m.group("name"), m.group("name")))
        return m.group(1) + body + m.group(4)

    new = BLOCK.sub(replace, text)
    if not BLOCK.search(text):
        problems.append("docs/PERFORMANCE.md has no <!-- perf NAME --> block")
    if args.check:
        for p in problems:
            print("perf_report: " + p, file=sys.stderr)
        return 1 if problems else 0
    with open(args.doc, "w") as f:
        f.write(new)
    missing = [p for p in problems if "no record" in p]
    for p in missing:
        print("perf_report: " + p, file=sys.stderr)
    return 1 if missing else 0


def compare(args):
    names = args.only or [n for n, b in BENCHMARKS.items() if not b.get("long")]
    for name in names:
        ratios = {}
        for _ in range(args.runs):
            a, _ = run_once(args.a, name)
            b, _ = run_once(args.b, name)
            for k in a:
                if b[k]:
                    ratios.setdefault(k, []).append(a[k] / b[k])
        for k, r in ratios.items():
            print("%-18s %-20s A/B median %.3f (range %.3f to %.3f, %d pairs)"
                  % (name, k, statistics.median(r), min(r), max(r), len(r)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("record")
    r.add_argument("--runs", type=int, default=3)
    r.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    r.add_argument("--long", action="store_true")
    r.add_argument("--mrcsim", default=os.path.join(ROOT, "build", "bin", "mrcsim"))
    d = sub.add_parser("render")
    d.add_argument("--check", action="store_true")
    c = sub.add_parser("compare")
    c.add_argument("--a", required=True)
    c.add_argument("--b", required=True)
    c.add_argument("--runs", type=int, default=3)
    c.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    for p in (r, d):
        p.add_argument("--records", default=RECORDS, help="folder of the records (default results/perf)")
    d.add_argument("--doc", default=DOC, help="the document to render (default docs/PERFORMANCE.md)")
    args = ap.parse_args()
    return {"record": record, "render": render, "compare": compare}[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
