#!/usr/bin/python3
"""Validation suite: runs the fidelity claims of validation/*.json and gives each a verdict.

A claim states one thing the simulator must reproduce (an analytical figure, a published
measurement, or a direction such as "MRC finishes before RoCEv2"), where it comes from, the runs
that measure it, the metric, the expected figure and a relative tolerance; validation/README.md
describes the format and the metrics. This script runs every run the selected claims need, once
each even when several claims share it, as parallel `mrcsim run SCENARIO --out DIR --quiet
[--set path=value ...]` processes; extracts each claim's metric from the runs' summary.json and
CSVs; compares it with the expectation; prints a table (claim, expected, measured, verdict) and
writes the report. A claim that fails stays in the table as FAIL, with the `explanation` its file
gives. Measured figures always come from the runs: the same binary, claims and seeds give the
same report.

usage: validate.py [--quick] [--only ID ...] [-j N] [--mrcsim PATH] [--no-docs]
                   [--claims DIR] [--out DIR] [--docs FILE] [--timeout SECONDS]

  --quick      only the claims marked "quick": true (what CI runs)
  --only ID    only this claim (repeatable)
  -j N         runs at once (default 2)
  --no-docs    leave FILE and its figures alone

Outputs: OUT/validation.json (default results/validation/), each run's files in
OUT/runs/<claim>.<run>/ (named after the first claim using it; the command and its output in
run.log there) and, unless --no-docs, FILE (default docs/VALIDATION.md) with its figures in
validation/<claim>.png beside it.
Exit status: 0 when every claim that ran passed; 1 when one failed, or on bad input (a claim file
with an unknown key, a metric parameter that does not exist, a missing scenario: the message
names the file and the key).
"""
import argparse
import concurrent.futures
import glob
import inspect
import json
import math
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from dataclasses import dataclass

from mrcsim_results import SummaryError
from validation_metrics import METRICS, MetricError, RunOutput, Runs

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

KINDS = ("analytical", "published", "direction")
ID_PATTERN = re.compile(r"^[a-z0-9][a-z0-9-]*$")
LABEL_PATTERN = re.compile(r"^[A-Za-z0-9_.-]+$")
COMPARISON = re.compile(r"^\s*([A-Za-z0-9_.-]+)\s*(<=|>=|<|>)\s*([A-Za-z0-9_.-]+)\s*$")
# Keys of a claim file: required ones, then optional ones.
REQUIRED_KEYS = ("id", "claim", "source", "kind", "runs", "metric", "expected", "tolerance", "quick")
OPTIONAL_KEYS = ("explanation", "notes", "figure")
RUN_KEYS = ("scenario", "set")
FIGURE_KEYS = {"bars": ("type",), "goodput": ("type", "series")}
# Counters shown for each run in a claim's section, after its completion time (and drops).
CONTEXT_COUNTERS = ("retransmissions", "timeouts", "trims")


class ClaimError(Exception):
    """Bad input: a claim file (or option) that cannot be run; the message names file and key."""


# ---------------------------------------------------------------------------------------------
# Claim files.


@dataclass
class RunSpec:
    """A scenario (a path from the repository root, or an inline object) and its overrides."""
    scenario: object
    overrides: dict

    def key(self):
        return json.dumps([self.scenario, self.overrides], sort_keys=True)


@dataclass
class Claim:
    id: str
    path: str
    claim: str
    source: str
    kind: str
    runs: dict       # name -> RunSpec
    metric: dict     # operand label ("" for a single metric) -> (metric name, parameters)
    expected: object
    tolerance: float
    quick: bool
    explanation: str = ""
    notes: str = ""
    figure: dict = None


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def is_bound(v):
    return isinstance(v, dict) and v and set(v) <= {"min", "max"} and all(is_number(x) for x in v.values())


def parse_runs(where, runs):
    if not isinstance(runs, dict) or not runs:
        example = {"healthy": {"scenario": "scenarios/quickstart.json", "set": {"failures": []}}}
        raise ClaimError(f"{where}: \"runs\" must be an object of named runs, e.g. {json.dumps(example)}")
    specs = {}
    for name, run in runs.items():
        at = f"{where}: runs.{name}"
        if not LABEL_PATTERN.match(name):
            raise ClaimError(f"{at}: a run name is letters, digits, '_', '.' or '-'")
        if not isinstance(run, dict):
            raise ClaimError(f"{at}: must be an object with \"scenario\" and optional \"set\"")
        for key in run:
            if key not in RUN_KEYS:
                raise ClaimError(f"{at}: unknown key {key!r} (allowed: {', '.join(RUN_KEYS)})")
        scenario = run.get("scenario")
        if isinstance(scenario, str):
            if not os.path.isfile(os.path.join(ROOT, scenario)):
                raise ClaimError(f"{at}.scenario: no file {scenario!r} (paths are from the repository root)")
        elif not isinstance(scenario, dict):
            raise ClaimError(f"{at}.scenario: must be a scenario file's path or an inline scenario object")
        overrides = run.get("set", {})
        if not isinstance(overrides, dict) or any("=" in k for k in overrides):
            raise ClaimError(f"{at}.set: must be an object of override paths (as for --set) and values")
        specs[name] = RunSpec(scenario, overrides)
    return specs


def parse_operand(where, spec, runs):
    if not isinstance(spec, dict) or "name" not in spec:
        raise ClaimError(f"{where}: must be an object naming a metric: {{\"name\": METRIC, parameters...}}")
    params = {k: v for k, v in spec.items() if k != "name"}
    name = spec["name"]
    if name not in METRICS:
        raise ClaimError(f"{where}.name: unknown metric {name!r} (known: {', '.join(sorted(METRICS))})")
    try:
        inspect.signature(METRICS[name][0]).bind(None, **params)
    except TypeError as e:
        allowed = [p for p in inspect.signature(METRICS[name][0]).parameters][1:]
        raise ClaimError(f"{where}: metric {name}: {e} (its parameters: {', '.join(allowed)})") from None
    for key in ("run", "base"):
        if key in params and params[key] not in runs:
            raise ClaimError(f"{where}.{key}: {params[key]!r} is not a run of this claim ({', '.join(runs)})")
    return name, params


def parse_metric(where, spec, runs):
    """One metric ({"name": ...}) or named operands ({"mrc": {"name": ...}, ...})."""
    if isinstance(spec, dict) and "name" in spec:
        return {"": parse_operand(f"{where}: metric", spec, runs)}
    if not isinstance(spec, dict) or not spec:
        raise ClaimError(f"{where}: \"metric\" must be {{\"name\": METRIC, parameters...}} "
                         "or an object of named operands")
    operands = {}
    for label, operand in spec.items():
        if not LABEL_PATTERN.match(label) or label in ("min", "max"):
            raise ClaimError(f"{where}: metric.{label}: an operand label is letters, digits, '_', '.' or '-' "
                             "(and not min or max)")
        operands[label] = parse_operand(f"{where}: metric.{label}", operand, runs)
    return operands


def check_expected(where, expected, operands, kind):
    labels = [label for label in operands if label]
    if isinstance(expected, str):
        m = COMPARISON.match(expected)
        if not m or m.group(1) not in labels or m.group(3) not in labels or m.group(1) == m.group(3):
            raise ClaimError(f"{where}: expected: a comparison is \"A < B\" (or <=, >, >=) between two of the "
                             f"metric's operands ({', '.join(labels) or 'it has none: name them'})")
    elif kind == "direction":
        raise ClaimError(f"{where}: expected: a direction claim expects a comparison such as \"mrc < rocev2\"")
    elif is_number(expected) or is_bound(expected):
        pass
    elif isinstance(expected, dict) and labels and set(expected) == set(labels):
        for label, e in expected.items():
            if not (is_number(e) or is_bound(e)):
                raise ClaimError(f"{where}: expected.{label}: a number or {{\"min\": A, \"max\": B}}")
    else:
        raise ClaimError(f"{where}: expected: a number, {{\"min\": A}} / {{\"max\": B}}, a comparison \"A < B\" "
                         "of two operands, or an object giving each operand a number or bound")


def parse_figure(where, figure, runs):
    if not isinstance(figure, dict) or figure.get("type") not in FIGURE_KEYS:
        raise ClaimError(f"{where}: figure: an object with \"type\" one of {', '.join(FIGURE_KEYS)}")
    for key in figure:
        if key not in FIGURE_KEYS[figure["type"]]:
            raise ClaimError(f"{where}: figure: unknown key {key!r} for type {figure['type']} "
                             f"(allowed: {', '.join(FIGURE_KEYS[figure['type']])})")
    if figure["type"] == "goodput":
        series = figure.get("series")
        if not isinstance(series, list) or not series or any(
                not isinstance(s, dict) or set(s) != {"run", "transport"} or s["run"] not in runs for s in series):
            raise ClaimError(f"{where}: figure.series: a list of {{\"run\": RUN, \"transport\": LABEL}} "
                             f"with runs of this claim ({', '.join(runs)})")
    return figure


def load_claim(path):
    where = os.path.relpath(path, ROOT) if path.startswith(ROOT) else path
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise ClaimError(f"{where}: cannot read: {e}") from None
    if not isinstance(doc, dict):
        raise ClaimError(f"{where}: a claim file is a JSON object")
    for key in doc:
        if key not in REQUIRED_KEYS + OPTIONAL_KEYS:
            raise ClaimError(f"{where}: unknown key {key!r} (allowed: {', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)})")
    for key in REQUIRED_KEYS:
        if key not in doc:
            raise ClaimError(f"{where}: missing key {key!r}")
    stem = os.path.splitext(os.path.basename(path))[0]
    if doc["id"] != stem or not ID_PATTERN.match(stem):
        raise ClaimError(f"{where}: id: {doc['id']!r} must be the file's name without .json ({stem!r}), "
                         "lower-case letters, digits and '-'")
    for key in ("claim", "source"):
        if not isinstance(doc[key], str) or not doc[key].strip():
            raise ClaimError(f"{where}: {key}: must be a non-empty string")
    for key in ("explanation", "notes"):
        if key in doc and not isinstance(doc[key], str):
            raise ClaimError(f"{where}: {key}: must be a string")
    if doc["kind"] not in KINDS:
        raise ClaimError(f"{where}: kind: {doc['kind']!r} is not one of {', '.join(KINDS)}")
    if not is_number(doc["tolerance"]) or doc["tolerance"] < 0:
        raise ClaimError(f"{where}: tolerance: a relative tolerance >= 0, e.g. 0.02")
    if not isinstance(doc["quick"], bool):
        raise ClaimError(f"{where}: quick: true or false")
    runs = parse_runs(where, doc["runs"])
    operands = parse_metric(where, doc["metric"], runs)
    check_expected(where, doc["expected"], operands, doc["kind"])
    figure = parse_figure(where, doc["figure"], runs) if "figure" in doc else None
    return Claim(doc["id"], path, doc["claim"], doc["source"], doc["kind"], runs, operands, doc["expected"],
                 float(doc["tolerance"]), doc["quick"], doc.get("explanation", ""), doc.get("notes", ""), figure)


def load_claims(directory):
    paths = sorted(glob.glob(os.path.join(directory, "*.json")))
    if not paths:
        raise ClaimError(f"{directory}: no claim files (*.json)")
    return [load_claim(p) for p in paths]


# ---------------------------------------------------------------------------------------------
# Judging a measured figure.


def within(value, expectation, tolerance):
    """Whether `value` meets a number (to a relative tolerance) or a bound (widened by it)."""
    if is_number(expectation):
        return abs(value - expectation) <= tolerance * abs(expectation)
    lo, hi = expectation.get("min"), expectation.get("max")
    return ((lo is None or value >= lo - tolerance * abs(lo)) and
            (hi is None or value <= hi + tolerance * abs(hi)))


def compare(a, op, b, tolerance):
    """A comparison of two measured figures; the tolerance widens it (A <= B x (1 + tol))."""
    if op in ("<", "<="):
        limit = b + tolerance * abs(b)
        return a < limit if op == "<" else a <= limit
    limit = b - tolerance * abs(b)
    return a > limit if op == ">" else a >= limit


def expectation_of(claim, label):
    """The number or bound operand `label` must meet; None when the claim is a comparison."""
    if isinstance(claim.expected, str):
        return None
    if isinstance(claim.expected, dict) and not is_bound(claim.expected):
        return claim.expected[label]
    return claim.expected


def judge(claim, measured):
    """{operand: passed} for the operands measured (judged alone), or {"": passed} for a
    comparison (judged together; False when an operand is missing)."""
    if isinstance(claim.expected, str):
        a, op, b = COMPARISON.match(claim.expected).groups()
        return {"": a in measured and b in measured and compare(measured[a], op, measured[b], claim.tolerance)}
    return {label: within(value, expectation_of(claim, label), claim.tolerance) for label, value in measured.items()}


def fmt(value):
    if value == 0 or (abs(value) >= 100 and value == int(value)):
        return f"{value:.0f}"
    if abs(value) >= 100:
        return f"{value:.1f}"
    return f"{value:.4g}"


def with_unit(text, unit):
    return f"{text} {unit}" if unit else text


def unit_of(claim, label):
    return METRICS[claim.metric[label][0]][1]


def describe_expectation(expectation, unit, tolerance):
    tol = f" ±{tolerance * 100:g}%" if tolerance else ""
    if is_number(expectation):
        return with_unit(fmt(expectation), unit) + tol
    if set(expectation) == {"min", "max"}:
        return with_unit(f"{fmt(expectation['min'])} to {fmt(expectation['max'])}", unit) + tol
    return with_unit(("≥ " if "min" in expectation else "≤ ") + fmt(next(iter(expectation.values()))), unit) + tol


def describe_expected(claim, separator="; "):
    """The expectation in one text: shared by every operand, per operand, or a comparison."""
    if isinstance(claim.expected, str):
        return claim.expected + (f" ±{claim.tolerance * 100:g}%" if claim.tolerance else "")
    texts = {label: describe_expectation(expectation_of(claim, label), unit_of(claim, label), claim.tolerance)
             for label in claim.metric}
    if len(set(texts.values())) == 1:
        return next(iter(texts.values()))
    return separator.join(f"{label}: {text}" for label, text in texts.items())


# ---------------------------------------------------------------------------------------------
# Running.


@dataclass
class Planned:
    """A run to make once, whichever claims use it, and what came of it."""
    spec: RunSpec
    directory: str
    slow: bool = False  # used by a claim outside the quick subset: likely long, so started first
    code: int = None
    seconds: float = 0.0
    error: str = ""
    output: RunOutput = None

    def command(self, mrcsim):
        scenario = os.path.join(self.directory, "scenario.json") if isinstance(self.spec.scenario, dict) \
            else os.path.join(ROOT, self.spec.scenario)
        cmd = [mrcsim, "run", scenario, "--out", self.directory, "--quiet"]
        for path, value in self.spec.overrides.items():
            cmd += ["--set", f"{path}={json.dumps(value)}"]
        return cmd

    def shown(self):
        """The command as a reader would type it, from the repository root."""
        scenario = "<inline scenario>" if isinstance(self.spec.scenario, dict) else self.spec.scenario
        sets = "".join(f" --set '{path}={json.dumps(value)}'" for path, value in self.spec.overrides.items())
        return f"mrcsim run {scenario}{sets}"


def plan_runs(claims, out):
    """The distinct runs of the claims, in claim order; the first user names the directory."""
    planned = {}
    for claim in claims:
        for name, spec in claim.runs.items():
            key = spec.key()
            if key not in planned:
                planned[key] = Planned(spec, os.path.join(out, "runs", f"{claim.id}.{name}"))
            planned[key].slow |= not claim.quick
    return list(planned.values())


def execute(run, mrcsim, timeout):
    """Runs one planned run in a fresh directory; records its exit code, time and outputs."""
    shutil.rmtree(run.directory, ignore_errors=True)
    os.makedirs(run.directory)
    if isinstance(run.spec.scenario, dict):
        with open(os.path.join(run.directory, "scenario.json"), "w") as f:
            json.dump(run.spec.scenario, f, indent=1)
    cmd = run.command(mrcsim)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        run.code, log = p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        run.code, log = -1, f"validate: timed out after {timeout} s\n"
    except OSError as e:
        run.code, log = -1, f"validate: cannot run {mrcsim}: {e}\n"
    run.seconds = time.monotonic() - start
    with open(os.path.join(run.directory, "run.log"), "w") as f:
        f.write("$ " + " ".join(cmd) + "\n" + log)
    # 0: complete; 3: stopped early with what was gathered (marked partial in the summary).
    if run.code in (0, 3):
        try:
            run.output = RunOutput(run.directory)
        except SummaryError as e:
            run.error = f"unreadable summary.json: {e.reason}"
    else:
        lines = [line for line in log.strip().splitlines() if line.strip()]
        run.error = f"exit {run.code}: {lines[-1] if lines else 'no output'}"


def execute_all(runs, mrcsim, jobs, timeout):
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(execute, run, mrcsim, timeout): run for run in sorted(runs, key=lambda r: not r.slow)}
        for done, future in enumerate(concurrent.futures.as_completed(futures), 1):
            future.result()
            run = futures[future]
            status = "ok" if run.output else f"FAILED ({run.error})"
            print(f"validate: [{done}/{len(runs)}] {os.path.basename(run.directory)} {run.seconds:.1f} s {status}",
                  file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# Verdicts.


@dataclass
class Result:
    claim: Claim
    runs: dict       # run name -> Planned
    measured: dict   # operand -> value (the operands that could be taken)
    errors: dict     # operand -> why it could not be taken
    judged: dict     # operand -> passed; {"": passed} for a comparison

    @property
    def passed(self):
        return not self.errors and all(self.judged.values())

    @property
    def verdict(self):
        return "PASS" if self.passed else "FAIL"

    def rows(self):
        """(operand, expected, measured, verdict) per operand; a comparison's expectation and
        verdict are on its first row."""
        rows = []
        for i, label in enumerate(self.claim.metric):
            unit = unit_of(self.claim, label)
            measured = f"error: {self.errors[label]}" if label in self.errors \
                else with_unit(fmt(self.measured[label]), unit)
            expectation = expectation_of(self.claim, label)
            if expectation is None:
                expected, verdict = (describe_expected(self.claim), self.verdict) if i == 0 else ("", "")
            else:
                expected = describe_expectation(expectation, unit, self.claim.tolerance)
                verdict = "PASS" if self.judged.get(label) else "FAIL"
            rows.append((label, expected, measured, verdict))
        return rows


def evaluate(claim, planned):
    runs = {name: planned[spec.key()] for name, spec in claim.runs.items()}
    outputs = Runs({n: r.output for n, r in runs.items() if r.output},
                   {n: r.error for n, r in runs.items() if not r.output})
    measured, errors = {}, {}
    for label, (name, params) in claim.metric.items():
        try:
            measured[label] = float(METRICS[name][0](outputs, **params))
        except MetricError as e:
            errors[label] = str(e)
        except (OSError, KeyError, ValueError, TypeError, AttributeError, ZeroDivisionError) as e:
            errors[label] = f"unreadable output: {type(e).__name__}: {e}"
    return Result(claim, runs, measured, errors, judge(claim, measured))


# ---------------------------------------------------------------------------------------------
# Reports.


def shorten(text, width=72):
    return text if len(text) <= width else text[:width - 1] + "…"


def table(results):
    """The plain-text table printed at the end of a run: a row per operand."""
    rows = [("claim", "operand", "expected", "measured", "verdict")]
    for r in results:
        rows += [(r.claim.id if i == 0 else "", *row) for i, row in enumerate(r.rows())]
    rows = [row[:3] + (shorten(row[3]),) + row[4:] for row in rows]
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4] for row in rows)


def versions(results):
    return sorted({r.output.summary.version or "?" for res in results for r in res.runs.values() if r.output})


def report_json(results, subset, mrcsim):
    return {
        "subset": subset,
        "mrcsim": mrcsim,
        "versions": versions(results),
        "passed": sum(r.passed for r in results),
        "failed": sum(not r.passed for r in results),
        "claims": [{
            "id": r.claim.id,
            "claim": r.claim.claim,
            "source": r.claim.source,
            "kind": r.claim.kind,
            "quick": r.claim.quick,
            "expected": r.claim.expected,
            "tolerance": r.claim.tolerance,
            "measured": {label or "value": {"value": v, "unit": unit_of(r.claim, label)}
                         for label, v in r.measured.items()},
            "errors": {label or "value": e for label, e in r.errors.items()},
            "verdict": r.verdict,
            "explanation": r.claim.explanation,
            "runs": {name: {"command": run.shown(), "directory": os.path.relpath(run.directory, ROOT),
                            "exit_code": run.code, "wall_s": round(run.seconds, 3), "error": run.error,
                            "seed": run.output.summary.seed if run.output else None,
                            "scenario_hash": run.output.summary.scenario_hash if run.output else None,
                            "partial": run.output.summary.partial if run.output else None}
                     for name, run in r.runs.items()},
        } for r in results],
    }


def md_cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def context_lines(result):
    """A table of each run's transports: completion, recovery counters, drops, partial."""
    lines = ["| run | transport | completion µs | " + " | ".join(CONTEXT_COUNTERS) + " | drops | partial |",
             "|---|---|---:|" + "---:|" * len(CONTEXT_COUNTERS) + "---:|---|"]
    for name, run in result.runs.items():
        if not run.output:
            lines.append(f"| {name} | (failed: {md_cell(run.error)}) |" + " |" * (len(CONTEXT_COUNTERS) + 3))
            continue
        for t in run.output.summary.runs:
            counters = t.counters
            cells = [fmt(t.completion_us)] + [str(counters.lookup(c)) for c in CONTEXT_COUNTERS]
            cells += [str(counters.drops_total), "yes" if t.partial else "no"]
            lines.append(f"| {name} | {t.label} | " + " | ".join(cells) + " |")
    return lines


def plot_bars(result, path, plt):
    """Each measured operand as a bar (red when it fails), its expectation as a line: solid for
    a number (the band is the tolerance), dashed for a bound."""
    claim = result.claim
    labels = list(result.measured)
    fig, ax = plt.subplots(figsize=(max(4.0, 1.1 * len(labels) + 2), 3.6))
    ok = [result.judged.get(label, result.judged.get("")) for label in labels]
    ax.bar(range(len(labels)), [result.measured[label] for label in labels], width=0.6,
           color=["tab:green" if passed else "tab:red" for passed in ok])
    for i, label in enumerate(labels):
        expectation = expectation_of(claim, label)
        if is_number(expectation):
            ax.plot([i - 0.4, i + 0.4], [expectation] * 2, color="black", lw=1.5)
            ax.fill_between([i - 0.4, i + 0.4], expectation * (1 - claim.tolerance),
                            expectation * (1 + claim.tolerance), color="black", alpha=0.15, lw=0)
        elif expectation is not None:
            for bound in expectation.values():
                ax.plot([i - 0.4, i + 0.4], [bound] * 2, color="black", lw=1.5, ls="--")
    ax.set_xticks(range(len(labels)), [label or claim.id for label in labels])
    ax.set_ylabel(unit_of(claim, labels[0]) or "value")
    if isinstance(claim.expected, str):
        title = f"{claim.id}: expected {describe_expected(claim)}"
    else:
        band = f", band ±{claim.tolerance * 100:g}%" if claim.tolerance else ""
        title = f"{claim.id}: measured (bars) against expected (lines{band})"
    ax.set_title(textwrap.fill(title, 70), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def plot_goodput(result, path, plt):
    """The fabric's goodput (summed over planes) against time, a panel per transport, a line per
    run, failures marked."""
    series = result.claim.figure["series"]
    transports = list(dict.fromkeys(s["transport"] for s in series))
    fig, axes = plt.subplots(len(transports), 1, figsize=(7, 2.6 * len(transports)), squeeze=False)
    for ax, label in zip(axes[:, 0], transports):
        for s in (s for s in series if s["transport"] == label):
            output = result.runs[s["run"]].output
            if not output:
                continue
            totals = {}
            for row in output.rows(label, "timeseries.csv"):
                totals[float(row["time_us"])] = totals.get(float(row["time_us"]), 0.0) + float(row["goodput_gbps"])
            times = sorted(totals)
            ax.plot(times, [totals[t] for t in times], label=s["run"], lw=1.2)
            for failure in output.transport(label).failures:
                ax.axvline(failure.at_us, color="grey", ls=":", lw=1)
        # A log scale above 10 Gb/s shows the few flows of a tail next to the whole fabric's rate.
        ax.set_yscale("symlog", linthresh=10)
        ax.set_ylim(bottom=0)
        ax.set_title(label, fontsize=9)
        ax.set_ylabel("goodput (Gb/s)")
        ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel("time (µs); dotted: failures")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_figures(results, directory):
    """Writes the figures claims ask for; returns {claim id: file name}."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    os.makedirs(directory, exist_ok=True)
    written = {}
    for r in results:
        if not r.claim.figure or (r.errors and r.claim.figure["type"] == "bars") or not r.measured:
            continue
        name = f"{r.claim.id}.png"
        (plot_bars if r.claim.figure["type"] == "bars" else plot_goodput)(r, os.path.join(directory, name), plt)
        written[r.claim.id] = name
    return written


INTRO = """# Validation

Each fidelity claim the simulator makes is stated in one file under `validation/` (the format:
`validation/README.md`): the claim in one sentence, its source (a paper, specification or vendor
document, or an analytical formula), the runs that measure it, the metric taken from their
`summary.json` and CSVs, the expected figure with a relative tolerance, and, for a claim that
fails, why. `scripts/validate.py` runs every run the claims need (once each, in parallel),
measures, compares and writes this page and `results/validation/validation.json`. The measured
column always comes from the runs: nothing here is typed in by hand, and the same binary, claims
and seeds give the same page.

Kinds: *analytical* claims check the simulator against a closed-form figure (serialisation,
propagation, forwarding, the ideal times of the workloads); *published* claims check it against a
figure or behaviour reported in the literature or a standard; *direction* claims check that one
transport beats another where the sources say it should. A tolerance widens the expectation:
a number must be met within it, a bound (`≤`, `≥`) is widened by it, and `A < B` passes when
A < B x (1 + tolerance).

    scripts/validate.py              # every claim, 2 runs at a time; rewrites this page
    scripts/validate.py --quick      # the quick subset (what CI runs, with --no-docs)
    scripts/validate.py --only line-rate -j 1
"""


def write_markdown(results, path, subset, total, figures):
    passed = sum(r.passed for r in results)
    lines = [INTRO.rstrip(), ""]
    scope = "every claim" if subset == "all" else f"the {subset} subset ({len(results)} of {total} claims)"
    lines.append(f"This page was written from {scope}, mrcsim {', '.join(versions(results)) or '?'}: "
                 f"**{passed} passed, {len(results) - passed} failed**.")
    lines += ["", "| claim | source | expected | measured | verdict |", "|---|---|---|---|---|"]
    for r in results:
        expected = md_cell(describe_expected(r.claim, "<br>"))
        measured = "<br>".join(md_cell(f"{label}: {m}" if label else m) for label, _, m, _ in r.rows())
        lines.append(f"| [{r.claim.id}](#{r.claim.id}): {md_cell(r.claim.claim)} | {md_cell(r.claim.source)} | "
                     f"{expected} | {measured} | **{r.verdict}** |")
    lines += ["", "## Claims"]
    for r in results:
        c = r.claim
        lines += ["", f"### {c.id}", "", c.claim, "",
                  f"- **Kind:** {c.kind}{'' if c.quick else ' (not in the quick subset)'}",
                  f"- **Source:** {c.source}",
                  f"- **Verdict:** **{r.verdict}**"]
        if not r.passed:
            lines.append(f"- **Why it fails:** {c.explanation or 'no explanation recorded yet.'}")
        lines += ["", "| operand | expected | measured | verdict |", "|---|---|---|---|"]
        lines += [f"| {md_cell(label or c.id)} | {md_cell(e)} | {md_cell(m)} | {v} |" for label, e, m, v in r.rows()]
        if c.notes:
            lines += ["", c.notes]
        lines += ["", "Runs (`--out` and `--quiet` left out):", ""]
        for name, run in r.runs.items():
            seed = f" (seed {run.output.summary.seed})" if run.output else ""
            lines.append(f"- `{name}`: `{run.shown()}`{seed}")
        lines += [""] + context_lines(r)
        if c.id in figures:
            lines += ["", f"![{c.id}](validation/{figures[c.id]})"]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------------------------


def select(claims, quick, only):
    if only:
        known = {c.id for c in claims}
        unknown = [i for i in only if i not in known]
        if unknown:
            raise ClaimError(f"--only: no claim {', '.join(unknown)} (claims: {', '.join(sorted(known))})")
        return [c for c in claims if c.id in only], "only"
    if quick:
        return [c for c in claims if c.quick], "quick"
    return claims, "all"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="only the claims marked quick (what CI runs)")
    ap.add_argument("--only", action="append", metavar="ID", help="only this claim (repeatable)")
    ap.add_argument("-j", type=int, default=2, help="runs at once (default 2)")
    ap.add_argument("--mrcsim", default=os.path.join(ROOT, "build", "bin", "mrcsim"))
    ap.add_argument("--no-docs", action="store_true", help="do not rewrite the markdown report or its figures")
    ap.add_argument("--claims", default=os.path.join(ROOT, "validation"), help="directory of claim files")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "validation"), help="runs and validation.json")
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "VALIDATION.md"), help="markdown report")
    ap.add_argument("--timeout", type=float, default=1800, help="seconds a run may take (default 1800)")
    ap.add_argument("--verdicts", default=None,
                    help="each claim's recorded verdict, written with the markdown report (default: "
                         "validation/verdicts.json beside it)")
    ap.add_argument("--against-recorded", action="store_true",
                    help="exit 0 when every claim that ran has the verdict recorded in --verdicts (what CI "
                         "runs: a claim that regresses or newly passes fails until the report is rewritten)")
    args = ap.parse_args(argv)
    try:
        claims = load_claims(args.claims)
        selected, subset = select(claims, args.quick, args.only)
    except ClaimError as e:
        print(f"validate: error: {e}", file=sys.stderr)
        return 1
    out = os.path.abspath(args.out)
    runs = plan_runs(selected, out)
    start = time.monotonic()
    execute_all(runs, args.mrcsim, args.j, args.timeout)
    planned = {run.spec.key(): run for run in runs}
    results = [evaluate(c, planned) for c in selected]
    print(table(results))
    for r in results:
        if r.passed and r.claim.explanation:
            print(f"validate: note: {r.claim.id} passes; its explanation of a failure is stale", file=sys.stderr)
    if args.verdicts is None:
        args.verdicts = os.path.join(os.path.dirname(os.path.abspath(args.docs)), "validation", "verdicts.json")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "validation.json"), "w") as f:
        json.dump(report_json(results, subset, args.mrcsim), f, indent=1)
        f.write("\n")
    written = [os.path.join(out, "validation.json")]
    if not args.no_docs:
        docs = os.path.abspath(args.docs)
        figures = write_figures(results, os.path.join(os.path.dirname(docs), "validation"))
        write_markdown(results, docs, subset, len(claims), figures)
        written.append(docs)
        if subset == "all":
            with open(args.verdicts, "w") as f:
                json.dump({r.claim.id: r.verdict for r in results}, f, indent=1, sort_keys=True)
                f.write("\n")
            written.append(args.verdicts)
    failed = sum(not r.passed for r in results)
    print(f"validate: claims: {len(results)}, passed: {len(results) - failed}, failed: {failed}; "
          f"runs: {len(runs)} in {time.monotonic() - start:.0f} s; wrote "
          + ", ".join(os.path.relpath(p) for p in written))
    if args.against_recorded:
        return compare_recorded(results, args.verdicts)
    return 1 if failed else 0


def compare_recorded(results, path):
    """0 when each claim's verdict is the one recorded in `path`; else names those that moved."""
    with open(path) as f:
        recorded = json.load(f)
    moved = [(r.claim.id, recorded.get(r.claim.id, "(not recorded)"), r.verdict)
             for r in results if recorded.get(r.claim.id) != r.verdict]
    for claim, was, now in moved:
        print(f"validate: {claim}: recorded {was}, now {now}", file=sys.stderr)
    if moved:
        print("validate: verdicts moved; re-run scripts/validate.py (all claims) to rewrite docs/VALIDATION.md",
              file=sys.stderr)
        return 1
    print(f"validate: all {len(results)} verdicts as recorded in {os.path.relpath(path, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
