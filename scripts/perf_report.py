#!/usr/bin/python3
"""Performance figures and the README's results table from recorded runs: record, render, check
and compare.

  perf_report.py record [--runs N] [--only NAME ...] [--long] [--readme] [--side-by-side] [--mrcsim BIN]
      runs each benchmark N times (default 3; 1 for the multiplane-131k step and failure-storm) and writes
      results/perf/NAME.json: every run's figures, their median, minimum and maximum, the
      command, the commit (and whether the tree had changes), the date and the machine (cores,
      memory, CPU model). It also runs each row of the README's results table once (its figures
      are simulated and do not vary) and writes results/runs/NAME.json: the command, commit,
      date, machine and, per transport, the figures of the run's summary.json. Without --long
      it records what takes at most a minute or so a run; --long records only the long runs (the
      a2a-32k row, the multiplane-131k step, failure-storm, perm-8192 in two MPI ranks, the
      connections benchmark in four); --readme only the
      README's rows; --side-by-side only the comparisons whose benchmarks run in turn (A B C A B C
      ..., N rounds) into one record, results/perf/NAME.json; --only the runs named.
  perf_report.py render [--check] [--doc FILE ...]
      rewrites the marked blocks of docs/PERFORMANCE.md and README.md (the prose around them is
      not touched): <!-- perf NAME --> ... <!-- /perf --> from results/perf/NAME.json, and
      <!-- runs --> ... <!-- /runs --> (the README's results table) from results/runs/, and
      <!-- run NAME --> ... <!-- /run --> (one of its runs: time, events, memory) from
      results/runs/NAME.json, and <!-- side-by-side NAME --> (a comparison: each member's medians
      and its ratio to the first member, round by round) from results/perf/NAME.json. --check
      writes nothing and fails if a block differs from what the records give (a figure typed by
      hand), names a record that is missing, or a record is not one this script knows.
  perf_report.py compare --a BIN_A --b BIN_B [--runs N] [--only NAME ...]
      runs the benchmarks of two binaries in turn (A B A B ...) and prints, for each figure, the
      median of the pairwise ratios A/B and their range: a change's cost measured side by side
      rather than against a figure from another day.

Wall times on a shared machine vary; the records keep each run so that a spread is visible, and
the rendered tables show the median with the range. The benchmarks and runs themselves (commands,
figures) are in perf_benchmarks.py.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile

from perf_benchmarks import (BENCHMARKS, GROWTH_FABRIC, GROWTH_GROUPS, GROWTH_POINTS, GROWTH_SMALLER_FABRICS,
                             GROWTH_TRANSPORTS, MIB, RUNS, SIDE_BY_SIDE, TABLE_TRANSPORTS, get, growth_name)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RECORDS = os.path.join(ROOT, "results", "perf")
RUN_RECORDS = os.path.join(ROOT, "results", "runs")
DOCS = [os.path.join(ROOT, "docs", "PERFORMANCE.md"), os.path.join(ROOT, "README.md")]


class RecordError(Exception):
    """A record that cannot be used: missing, unknown, or without a key the render needs."""


def shown_path(path):
    """A path as messages show it: from the repository root when it is inside it."""
    rel = os.path.relpath(path, ROOT)
    return path if rel.startswith("..") else rel


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
    # The load when the record started: on a shared machine, what else was running.
    return {"cores": os.cpu_count(), "memory_gib": round(mem_kb / 2 ** 20, 1), "cpu": model,
            "system": platform.platform(), "load_1min": round(os.getloadavg()[0], 2)}


def commit():
    """The commit recorded from, and whether tracked files outside results/ differ from it (the
    records an earlier benchmark of the same call wrote there change no figure)."""
    def git(*args):
        return subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True).stdout.strip()
    changed = git("status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)results")
    return {"commit": git("rev-parse", "HEAD"), "changed": bool(changed)}


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def execute(argv, env=None, ok=(0,)):
    """Runs argv from the repository root: its stdout, wall and CPU seconds and peak RSS in bytes
    (of the process and the descendants it waited for)."""
    with tempfile.TemporaryFile(mode="w+") as out, tempfile.TemporaryFile(mode="w+") as err:
        start = datetime.datetime.now()
        try:
            p = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=err, env=dict(os.environ, **(env or {})))
        except OSError as e:
            raise RuntimeError("%s: %s" % (argv[0], e))
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        wall = (datetime.datetime.now() - start).total_seconds()
        out.seek(0)
        err.seek(0)
        if p.returncode not in ok:
            raise RuntimeError("%s exited %d: %s" % (shlex.join(argv), p.returncode, err.read().strip()[-300:]))
        return out.read(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024


def run_once(mrcsim, name):
    """One run of a benchmark: its figures (raw values, before any scaling for display)."""
    b = BENCHMARKS[name]
    out = tempfile.mkdtemp(prefix="perf-")
    try:
        args = [a.replace("{out}", out) for a in b["args"]]
        # 3: a run stopped before its work was done, written and marked partial (failure-storm's
        # RoCEv2 at its wall-time limit); only benchmarks that show it take one.
        stdout, wall, cpu, rss = execute([*b.get("launcher", []), mrcsim, *args], {**b.get("env", {}), **b.get("settings", {})},
                                         ok=(0, 3) if b.get("partial_ok") else (0,))
        if b["source"] == "json":
            data = json.loads(stdout)
            data["process"] = {"wall": wall, "cpu": cpu}
        elif b["source"] == "time":
            data = {"wall": wall, "cpu": cpu, "peak_rss_bytes": rss}
        else:
            with open(os.path.join(out, "summary.json")) as f:
                summary = json.load(f)
            data = {"wall": wall, "cpu": cpu, "summary": summary,
                    "peak_rss_bytes": max(w["peak_rss_bytes"] for w in summary["wall_clock"])}
        for key, derive in b.get("derive", {}).items():
            data[key] = derive(data)
        figures = {}
        for k, spec in b["figures"].items():
            try:
                figures[k] = float(get(data, spec[0]))
            except (KeyError, TypeError, ValueError):
                raise RuntimeError("%s: figure %s: no number at %s in its output" % (name, k, spec[0]))
        return figures, args
    finally:
        shutil.rmtree(out, ignore_errors=True)


def summarise(runs):
    out = {}
    for k in runs[0]:
        values = [r[k] for r in runs]
        out[k] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return out


def command(b, args):
    """The command of benchmark `b` as a record shows it: its settings, its launcher, the binary as
    `mrcsim`, the output directory as DIR."""
    settings = ["%s=%s" % kv for kv in sorted(b.get("settings", {}).items())]
    return shlex.join([*settings, *b.get("launcher", []), "mrcsim", *("DIR" if "perf-" in a else a for a in args)])


def transport_figures(summary, label):
    """One transport's figures in a README run's summary.json."""
    r = get(summary, "runs." + label)
    wc = get(summary, "wall_clock." + label)
    fig = {"partial": r["partial"], "completion_us": r["completion_us"], "fair_us": r["fair_us"]}
    if "not_computed" in r["fair_reference"]:
        fig["fair_not_computed"] = r["fair_reference"]["not_computed"]
    for c in ("retransmissions", "timeouts", "trims"):
        fig[c] = r["counters"][c]
    fig["collectives"] = {c["workload"]: {"ideal_us": c["ideal_us"], "mean_us": c["time_us"]["mean"] if c["completed"] else None}
                          for c in r["collectives"]}
    fig["events"] = r["events"]
    fig["wall_s"] = wc["seconds"]
    fig["peak_rss_mib"] = round(wc["peak_rss_bytes"] / MIB, 1)
    return fig


def record_run(mrcsim, name):
    """One README row's run: its record (results/runs/NAME.json)."""
    spec = RUNS[name]
    out = tempfile.mkdtemp(prefix="perf-")
    try:
        args = [*spec["args"], "--quiet", "--out", out]
        _, wall, _, _ = execute([mrcsim, *args], ok=(0, 3))  # 3: a partial run, marked as such
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        figures = {r["label"]: transport_figures(summary, r["label"]) for r in summary["runs"]}
        return {"run": name, "command": command({}, args), "date": now(), **commit(), "machine": machine(),
                "version": summary["version"], "scenario_hash": summary["scenario_hash"], "wall_s": round(wall, 2),
                "figures": figures}
    finally:
        shutil.rmtree(out, ignore_errors=True)


def write_json(path, rec):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


def record_side_by_side(args, name):
    """A comparison's record: its members' benchmarks run in turn, round by round."""
    spec = SIDE_BY_SIDE[name]
    rounds = args.runs or spec["runs"]
    members = [{"benchmark": bench, "command": "", "runs": []} for _, bench, _ in spec["members"]]
    date = now()
    for i in range(rounds):
        for m in members:
            figures, argv = run_once(args.mrcsim, m["benchmark"])
            m["runs"].append(figures)
            m["command"] = command(BENCHMARKS[m["benchmark"]], argv)
            print("perf: %s round %d/%d: %s: %s" % (name, i + 1, rounds, m["benchmark"],
                                                   ", ".join("%s %.4g" % kv for kv in figures.items())), file=sys.stderr)
    return {"comparison": name, "date": date, **commit(), "machine": machine(), "rounds": rounds, "members": members}


def record(args):
    known = {**BENCHMARKS, **RUNS}
    if args.only:
        names = args.only
    elif args.side_by_side:
        names = list(SIDE_BY_SIDE)
    else:
        names = [n for n, spec in (RUNS if args.readme else known).items()
                 if not spec.get("member_only")
                 and (bool(spec.get("growth")) if args.growth else bool(spec.get("long")) == args.long
                      and not spec.get("growth"))]
    for name in names:
        if name in SIDE_BY_SIDE:
            write_json(os.path.join(args.records, name + ".json"), record_side_by_side(args, name))
            continue
        if name in RUNS:
            rec = record_run(args.mrcsim, name)
            print("perf: %s: %s" % (name, ", ".join("%s done at %s us" % (t, f["completion_us"])
                                                    for t, f in rec["figures"].items())), file=sys.stderr)
            write_json(os.path.join(args.run_records, name + ".json"), rec)
            continue
        b = BENCHMARKS[name]
        runs = []
        count = args.runs or b.get("runs", 3)
        for i in range(count):
            figures, argv = run_once(args.mrcsim, name)
            runs.append(figures)
            print("perf: %s run %d/%d: %s" % (name, i + 1, count,
                                              ", ".join("%s %.4g" % kv for kv in figures.items())), file=sys.stderr)
        rec = {"benchmark": name, "command": command(b, argv), "date": now(),
               **commit(), "machine": machine(), "runs": runs, "figures": summarise(runs)}
        write_json(os.path.join(args.records, name + ".json"), rec)
    return 0


# Records as files: what each kind must and may hold.
PERF_KEYS = {"benchmark", "command", "date", "commit", "changed", "machine", "runs", "figures"}
SIDE_BY_SIDE_KEYS = {"comparison", "date", "commit", "changed", "machine", "rounds", "members"}
MEMBER_KEYS = {"benchmark", "command", "runs"}
RUN_KEYS = {"run", "command", "date", "commit", "changed", "machine", "version", "scenario_hash", "wall_s", "figures"}
# A row typed by hand before the table was rendered, kept until its run is recorded: the figures
# as typed and where they were typed (commit, date); the table marks it as such.
HAND_KEYS = {"run", "command", "hand_typed", "figures"}
TRANSPORT_KEYS = {"partial", "completion_us", "fair_us", "fair_not_computed", "retransmissions", "timeouts", "trims",
                  "collectives", "events", "wall_s", "peak_rss_mib"}


def load(path, what, name):
    if not os.path.isfile(path):
        raise RecordError("no record %s (scripts/perf_report.py record %s--only %s)"
                          % (shown_path(path), "--long " if what.get("long") else "", name))
    try:
        with open(path) as f:
            rec = json.load(f)
    except ValueError as e:
        raise RecordError("%s: not JSON: %s" % (shown_path(path), e))
    if not isinstance(rec, dict):
        raise RecordError("%s: not a JSON object" % shown_path(path))
    return rec


def check_keys(path, d, allowed, where=""):
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise RecordError("%s: unknown key '%s%s' (allowed: %s)" % (shown_path(path), where, unknown[0],
                                                                    ", ".join(sorted(allowed))))
    missing = sorted(allowed - set(d))
    return missing


def need(path, d, key, where):
    if not isinstance(d, dict) or key not in d:
        raise RecordError("%s: no key '%s%s'" % (shown_path(path), where, key))
    return d[key]


def shown(name, key, value):
    spec = BENCHMARKS[name]["figures"][key]
    if callable(spec[1]):
        return spec[1](value)
    return spec[1].format(value / (spec[2] if len(spec) > 2 else 1))


def render_block(name, records):
    if name not in BENCHMARKS:
        raise RecordError("unknown benchmark '%s' (known: %s)" % (name, ", ".join(BENCHMARKS)))
    path = os.path.join(records, name + ".json")
    rec = load(path, BENCHMARKS[name], name)
    missing = check_keys(path, rec, PERF_KEYS)
    if missing:
        raise RecordError("%s: no key '%s'" % (shown_path(path), missing[0]))
    n = len(rec["runs"])
    lines = ["| figure | median | range (%d run%s) |" % (n, "" if n == 1 else "s"), "|---|---|---|"]
    for key, fig in rec["figures"].items():
        if key not in BENCHMARKS[name]["figures"]:
            raise RecordError("%s: unknown figure 'figures.%s' (%s has: %s)" % (
                shown_path(path), key, name, ", ".join(BENCHMARKS[name]["figures"])))
        lines.append("| %s | %s | %s to %s |" % (key, shown(name, key, fig["median"]), shown(name, key, fig["min"]),
                                                 shown(name, key, fig["max"])))
    m = rec["machine"]
    lines.append("")
    lines.append("Recorded %s at %s%s on %d cores, %s GiB (%s%s): `%s`." % (
        rec["date"], rec["commit"][:10], " with local changes" if rec["changed"] else "", m["cores"], m["memory_gib"],
        m["cpu"], "; load %.1f at the start" % m["load_1min"] if "load_1min" in m else "", rec["command"]))
    return "\n".join(lines)


def render_side_by_side(name, records):
    """A comparison as a table: a row per member, each column's median with its range, and for
    the members after the first the median and range of their round-by-round ratios to it."""
    if name not in SIDE_BY_SIDE:
        raise RecordError("unknown comparison '%s' (known: %s)" % (name, ", ".join(SIDE_BY_SIDE)))
    spec = SIDE_BY_SIDE[name]
    path = os.path.join(records, name + ".json")
    rec = load(path, SIDE_BY_SIDE[name], name)
    missing = check_keys(path, rec, SIDE_BY_SIDE_KEYS)
    if missing:
        raise RecordError("%s: no key '%s'" % (shown_path(path), missing[0]))
    members = rec["members"]
    expected = [b for _, b, _ in spec["members"]]
    if not isinstance(members, list) or [m.get("benchmark") for m in members] != expected:
        raise RecordError("%s: key 'members' does not hold %s in that order" % (shown_path(path), ", ".join(expected)))
    for i, m in enumerate(members):
        missing = check_keys(path, m, MEMBER_KEYS, "members.%d." % i)
        if missing:
            raise RecordError("%s: no key 'members.%d.%s'" % (shown_path(path), i, missing[0]))
        if len(m["runs"]) != rec["rounds"]:
            raise RecordError("%s: members.%d holds %d runs, not the %d rounds" % (
                shown_path(path), i, len(m["runs"]), rec["rounds"]))
    base_keys = spec["members"][0][2]
    lines = ["| | " + " | ".join(spec["columns"]) + " |", "|---" * (len(spec["columns"]) + 1) + "|"]
    for i, ((label, bench, keys), m) in enumerate(zip(spec["members"], members)):
        cells = []
        for key, base_key in zip(keys, base_keys):
            values = [need(path, r, key, "members.%d.runs." % i) for r in m["runs"]]
            cell = "%s (%s to %s)" % (shown(bench, key, statistics.median(values)), shown(bench, key, min(values)),
                                      shown(bench, key, max(values)))
            if i:
                ratios = [v / need(path, b, base_key, "members.0.runs.") for v, b in zip(values, members[0]["runs"])]
                cell += "; x%.2f (%.2f to %.2f)" % (statistics.median(ratios), min(ratios), max(ratios))
            cells.append(cell)
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
    m = rec["machine"]
    lines.append("")
    lines.append("Medians and ranges of %d rounds, each running the %d in turn; x: the ratio to the first row "
                 "in the same round. Recorded %s at %s%s on %d cores, %s GiB (%s%s): %s." % (
                     rec["rounds"], len(members), rec["date"], rec["commit"][:10],
                     " with local changes" if rec["changed"] else "", m["cores"], m["memory_gib"], m["cpu"],
                     "; load %.1f at the start" % m["load_1min"] if "load_1min" in m else "",
                     "; ".join("`%s`" % x["command"] for x in members)))
    return "\n".join(lines)


def us(value):
    return "n/a" if value is None else "%.1f us" % value


def count(value):
    return "%d" % value if value < 10000 else "%.1fk" % (value / 1000)


def table_row(name, rec, path):
    spec = RUNS[name]
    figs = need(path, rec, "figures", "")
    cells = {}
    for t in TABLE_TRANSPORTS:
        f = need(path, figs, t, "figures.")
        where = "figures.%s." % t
        check_keys(path, f, TRANSPORT_KEYS, where)
        c = need(path, need(path, f, "collectives", where), spec["workload"], where + "collectives.")
        cell = us(need(path, c, "mean_us", where + "collectives.%s." % spec["workload"]))
        if spec.get("whole_run"):
            cell += "; " + us(need(path, f, "completion_us", where))
        if t != "mrc" and "fair_us" in f:
            cell += " [%s]" % ("%.1f" % f["fair_us"] if f["fair_us"] is not None
                               else "n/c" if "fair_not_computed" in f else "n/a")
        if f.get("partial"):
            cell += " (partial)"
        cells[t] = (cell, f, c)
    ideal = need(path, cells["mrc"][2], "ideal_us", "figures.mrc.collectives.%s." % spec["workload"])
    mrc = cells["mrc"][1]
    counters = " / ".join(count(need(path, mrc, k, "figures.mrc.")) for k in ("retransmissions", "timeouts", "trims"))
    return "| %s | %s | %s | %s | %s |" % (spec["label"], us(ideal), cells["mrc"][0], cells["rocev2"][0], counters)


def render_table(run_records):
    """The README's results table: a row per run of RUNS, from results/runs/NAME.json, and a line
    under it for each long or hand-typed row saying where its figures come from."""
    lines = ["| scenario | ideal | MRC | RoCEv2 [fair] | MRC retx / timeouts / trims |", "|---|---|---|---|---|"]
    notes = []
    for name, spec in RUNS.items():
        path = os.path.join(run_records, name + ".json")
        rec = load(path, spec, name)
        hand = "hand_typed" in rec
        missing = check_keys(path, rec, HAND_KEYS if hand else RUN_KEYS)
        if missing:
            raise RecordError("%s: no key '%s'" % (shown_path(path), missing[0]))
        if rec["run"] != name:
            raise RecordError("%s: key 'run' is '%s', not '%s'" % (shown_path(path), rec["run"], name))
        lines.append(table_row(name, rec, path))
        label = spec["label"].split(" ", 1)[0]
        if hand:
            h = rec["hand_typed"]
            notes.append("%s: typed by hand at %s (%s), not a recorded run; `scripts/perf_report.py record "
                         "--only %s` records it." % (label, need(path, h, "commit", "hand_typed.")[:10],
                                                     need(path, h, "date", "hand_typed."), name))
        elif spec.get("long"):
            notes.append("%s: a long run (`scripts/perf_report.py record --long`), recorded %s at %s%s." % (
                label, rec["date"], rec["commit"][:10], " with local changes" if rec["changed"] else ""))
    if notes:
        lines.append("")
        lines.extend(notes)
    return "\n".join(lines)


def render_run_block(name, run_records):
    """One README run's record as PERFORMANCE.md shows it: per transport its time, events, events
    per second and peak memory, and its collective's time against the ideal."""
    if name not in RUNS:
        raise RecordError("unknown run '%s' (known: %s)" % (name, ", ".join(RUNS)))
    spec = RUNS[name]
    path = os.path.join(run_records, name + ".json")
    rec = load(path, spec, name)
    missing = check_keys(path, rec, RUN_KEYS)
    if missing:
        raise RecordError("%s: no key '%s'" % (shown_path(path), missing[0]))
    lines = ["| transport | wall time | events | events/s | peak RSS | %s mean (ideal) | completion |" % spec["workload"],
             "|---|---|---|---|---|---|---|"]
    for label, f in need(path, rec, "figures", "").items():
        where = "figures.%s." % label
        c = need(path, need(path, f, "collectives", where), spec["workload"], where + "collectives.")
        wall, events = need(path, f, "wall_s", where), need(path, f, "events", where)
        lines.append("| %s | %.0f s | %.1f M | %.0f k | %.0f MiB | %s (%s) | %s%s |" % (
            label, wall, events / 1e6, events / wall / 1e3, need(path, f, "peak_rss_mib", where),
            us(need(path, c, "mean_us", where + "collectives.%s." % spec["workload"])),
            us(need(path, c, "ideal_us", where + "collectives.%s." % spec["workload"])),
            us(need(path, f, "completion_us", where)), " (partial)" if f.get("partial") else ""))
    m = rec["machine"]
    lines.append("")
    lines.append("Recorded %s at %s%s on %d cores, %s GiB (%s%s): `%s`, %.0f s in all." % (
        rec["date"], rec["commit"][:10], " with local changes" if rec["changed"] else "", m["cores"], m["memory_gib"],
        m["cpu"], "; load %.1f at the start" % m["load_1min"] if "load_1min" in m else "", rec["command"],
        rec["wall_s"]))
    return "\n".join(lines)


def growth_records(records):
    """The growth sweep's records, by (transport, fabric, group)."""
    out = {}
    for t in GROWTH_TRANSPORTS:
        for f, g in GROWTH_POINTS:
            name = growth_name(t, f, g)
            path = os.path.join(records, name + ".json")
            rec = load(path, BENCHMARKS[name], name)
            missing = check_keys(path, rec, PERF_KEYS)
            if missing:
                raise RecordError("%s: no key '%s'" % (shown_path(path), missing[0]))
            out[t, f, g] = rec
    return out


def render_growth(records):
    """The growth sweep as a table: a row per transport and group size, from its records."""
    recs = growth_records(records)
    keys = ["directed_pairs", "connections", "connect_s", "us_per_connection", "kib_per_connection", "peak_rss_mib",
            "events_per_s"]
    lines = ["| transport | fabric | group | " + " | ".join(k.replace("_", " ") for k in keys) + " |",
             "|---|---|---|" + "---|" * len(keys)]
    for (t, f, g), rec in recs.items():
        name = growth_name(t, f, g)
        lines.append("| %s | %s | %d | %s |" % (
            t, f, g, " | ".join(shown(name, k, rec["figures"][k]["median"]) for k in keys)))
    first = next(iter(recs.values()))
    m = first["machine"]
    dates = sorted({r["date"] for r in recs.values()})
    commits = sorted({r["commit"][:10] + (" with local changes" if r["changed"] else "") for r in recs.values()})
    lines.append("")
    lines.append("Recorded %s at %s on %d cores, %s GiB (%s), one run each: `%s` with each group size%s." % (
        dates[0] if len(dates) == 1 else "%s to %s" % (dates[0], dates[-1]), " and ".join(commits), m["cores"],
        m["memory_gib"], m["cpu"], first["command"].replace(" --set workloads.0.group_size=%d" % GROWTH_GROUPS[0], ""),
        ", `--set topology.preset=NAME` for the smaller fabrics (RoCEv2: `--set 'transport=[{\"type\": \"rocev2\"}]'`)"))
    return "\n".join(lines)


def plot_growth(records, path):
    """docs/performance/connection-growth.png from the growth records: time and memory per
    connection against the connections made, per transport."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    recs = growth_records(records)
    fig, (a, b) = plt.subplots(1, 2, figsize=(9, 3.6))
    for t in GROWTH_TRANSPORTS:
        points = [recs[t, GROWTH_FABRIC, g]["figures"] for g in GROWTH_GROUPS]
        n = [p["connections"]["median"] for p in points]
        a.plot(n, [p["us_per_connection"]["median"] for p in points], "o-", label=t)
        b.plot(n, [p["kib_per_connection"]["median"] / 1024 for p in points], "o-", label=t)
    for ax, what in ((a, "set-up time per connection (us)"), (b, "peak memory per connection (KiB)")):
        ax.set_xscale("log")
        ax.set_xlabel("connections (%s, groups of %d to %d)" % (GROWTH_FABRIC, GROWTH_GROUPS[0], GROWTH_GROUPS[-1]))
        ax.set_ylabel(what)
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    os.makedirs(os.path.dirname(path), exist_ok=True)
    fig.savefig(path, dpi=100, metadata={"Software": None})
    plt.close(fig)


GROWTH_PLOT = os.path.join(ROOT, "docs", "performance", "connection-growth.png")

BLOCK = re.compile(r"(<!-- (?P<kind>perf|runs|run|growth|side-by-side)(?: (?P<name>[\w.-]+))? -->\n)(?P<body>.*?)(<!-- /(?P=kind) -->)", re.S)


def check_record_files(records, run_records):
    """Every file in the record folders is a record of a known benchmark or run."""
    problems = []
    for folder, known in ((records, {**BENCHMARKS, **SIDE_BY_SIDE}), (run_records, RUNS)):
        if not os.path.isdir(folder):
            continue
        for f in sorted(os.listdir(folder)):
            name, ext = os.path.splitext(f)
            if ext != ".json" or name not in known:
                problems.append("%s: not a record this script knows (known: %s)"
                                % (shown_path(os.path.join(folder, f)), ", ".join(known)))
    return problems


def render_doc(doc, args, problems):
    """The document with its blocks rendered; what went wrong is added to problems."""
    with open(doc) as f:
        text = f.read()

    def replace(m):
        kind, name = m.group("kind"), m.group("name")
        what = "%s %s" % (shown_path(doc), name or "results table")
        try:
            if kind == "growth":
                body = render_growth(args.records) + "\n"
            elif kind == "side-by-side":
                body = render_side_by_side(name, args.records) + "\n"
            elif kind == "runs":
                if name:
                    raise RecordError("<!-- runs --> takes no name (found '%s')" % name)
                body = render_table(args.run_records) + "\n"
            elif kind == "run":
                if not name:
                    raise RecordError("<!-- run --> needs a README run's name")
                body = render_run_block(name, args.run_records) + "\n"
            else:
                if not name:
                    raise RecordError("<!-- perf --> needs a benchmark's name")
                body = render_block(name, args.records) + "\n"
        except RecordError as e:
            problems.append("%s: %s" % (what, e))
            return m.group(0)
        if body != m.group("body"):
            problems.append("%s: the block differs from its records (%s)" % (
                what, "results/perf/%s.json" % name if kind in ("perf", "side-by-side") else
                "results/runs/%s.json" % name if kind == "run" else "results/runs/"))
        return m.group(1) + body + m.group(5)

    new = BLOCK.sub(replace, text)
    if not BLOCK.search(text):
        problems.append("%s has no <!-- perf NAME --> or <!-- runs --> block" % shown_path(doc))
    return new


def render(args):
    problems = check_record_files(args.records, args.run_records)
    fatal = list(problems)
    rendered = {}
    for doc in args.doc or DOCS:
        before = len(problems)
        rendered[doc] = render_doc(doc, args, problems)
        fatal += [p for p in problems[before:] if "differs" not in p]
    if args.check:
        for p in problems:
            print("perf_report: " + p, file=sys.stderr)
        return 1 if problems else 0
    for doc, text in rendered.items():
        with open(doc, "w") as f:
            f.write(text)
        if "<!-- growth -->" in text:
            try:
                plot_growth(args.records, GROWTH_PLOT)
            except RecordError as e:
                fatal.append("%s: %s" % (shown_path(GROWTH_PLOT), e))
    for p in fatal:
        print("perf_report: " + p, file=sys.stderr)
    return 1 if fatal else 0


def compare(args):
    names = args.only or [n for n, b in BENCHMARKS.items() if not b.get("long") and not b.get("member_only")]
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
    r = sub.add_parser("record", help="run the benchmarks and the README's runs and write their records")
    r.add_argument("--runs", type=int, help="runs of each benchmark (default 3; 1 for multiplane-131k and failure-storm)")
    r.add_argument("--only", action="append", choices=sorted({**BENCHMARKS, **RUNS, **SIDE_BY_SIDE}),
                   help="only this run (repeat)")
    r.add_argument("--side-by-side", action="store_true",
                   help="only the comparisons whose benchmarks run in turn (%s; minutes)" % ", ".join(SIDE_BY_SIDE))
    r.add_argument("--long", action="store_true", help="only the long runs (each takes minutes to an hour)")
    r.add_argument("--readme", action="store_true", help="only the README results table's runs")
    r.add_argument("--growth", action="store_true",
                   help="only the growth sweep (connections benchmark, groups of %s on %s, groups of 16 on %s; "
                   "minutes)" % (", ".join(map(str, GROWTH_GROUPS)), GROWTH_FABRIC, ", ".join(GROWTH_SMALLER_FABRICS)))
    r.add_argument("--mrcsim", default=os.path.join(ROOT, "build", "bin", "mrcsim"))
    d = sub.add_parser("render", help="rewrite the marked blocks of the documents from the records")
    d.add_argument("--check", action="store_true", help="write nothing; fail if a block is not what the records give")
    d.add_argument("--doc", action="append",
                   help="a document to render (repeat; default docs/PERFORMANCE.md and README.md)")
    c = sub.add_parser("compare", help="run two binaries' benchmarks in turn and print their ratios")
    c.add_argument("--a", required=True)
    c.add_argument("--b", required=True)
    c.add_argument("--runs", type=int, default=3)
    c.add_argument("--only", action="append", choices=sorted(BENCHMARKS))
    for p in (r, d):
        p.add_argument("--records", default=RECORDS, help="folder of the benchmark records (default results/perf)")
        p.add_argument("--run-records", default=RUN_RECORDS,
                       help="folder of the README table's run records (default results/runs)")
    args = ap.parse_args()
    try:
        return {"record": record, "render": render, "compare": compare}[args.command](args)
    except (RecordError, RuntimeError) as e:
        print("perf_report: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
