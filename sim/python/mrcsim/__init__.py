"""Packet-level simulation of MRC and RoCEv2 on multiplane AI fabrics (ns-3).

validate() and run() take a scenario file or dict, with overrides like the CLI's --set;
expand_sweep() gives the points of its sweep block; topology() builds a fabric and reports its
figures; load() reads a results directory (what run(out_dir=...) or `mrcsim run --out` writes).

run() and load() return a Result whose tables are pandas DataFrames, one row per record and a
leading `transport` column (the run's label, e.g. "mrc"), so that the transports compare with a
groupby:

    r = mrcsim.run("scenarios/quickstart.json")
    r.messages.groupby("transport")["time_us"].quantile(0.99)

  .summary      summary.json's content, as a dict
  .runs         one row per transport: label, transport, partial, stop_reason, completion_us,
                fair_us (the fair-share reference), stopped_at_us, events, messages/collectives completed, message time and
                slowdown percentiles, and the counters (drops summed: drops_total)
  .messages     messages.csv of every transport: workload, src, dst, bytes, posted_us, done_us,
                time_us, ideal_us, slowdown, fair_us (completed messages only; fair_us NaN where
                the fair-share reference was not computed)
  .collectives  collectives.csv of every transport: workload, algorithm, group, iteration, ranks,
                bytes, start_us, end_us, time_us, ideal_us, slowdown, algbw_gbps, busbw_gbps
  .timeseries   timeseries.csv of every transport: time_us, plane, goodput_gbps,
                uplink_utilisation
  .arrays       the time series as numpy arrays, {label: {column: array}}: time_us (float64),
                plane (int32), goodput_gbps and uplink_utilisation (float64)
  .partial      True when a limit stopped a run before all work was done
  .out_dir      the results directory, or None

A figure that is not defined (a collective none of whose instances completed has no time or
bandwidth; a run in which nothing completed has no completion time) is None in .summary and NaN
in .runs. The DataFrames are read from the CSV files the CLI writes (run() without out_dir
writes them to a temporary directory), so run(..., out_dir=D) and load(D) give equal tables.
"""
import json
import os
import tempfile

import numpy as np

from _mrcsim import SpecError, __version__, expand_sweep, presets, topology, validate  # noqa: F401
from _mrcsim import run as _run

SpecError.__module__ = __name__

# The tables of a transport's directory: attribute name -> CSV file, as the CLI writes them.
TABLES = {"messages": "messages.csv", "collectives": "collectives.csv", "timeseries": "timeseries.csv"}
# The time series' columns and their types (the CLI's TimeSeries; see .arrays).
SERIES_COLUMNS = {"time_us": np.float64, "plane": np.int32, "goodput_gbps": np.float64,
                  "uplink_utilisation": np.float64}


class ResultsError(ValueError):
    """A results directory that load() cannot read; the message names the file and what is wrong."""


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("mrcsim's DataFrames need pandas (Debian: apt-get install python3-pandas)") from e
    return pandas


def _read_table(path, name):
    pd = _pandas()
    if not os.path.isfile(path):
        raise ResultsError(f"{path}: missing; every run's directory holds {TABLES[name]}")
    try:
        return pd.read_csv(path)
    except (ValueError, pd.errors.ParserError) as e:
        raise ResultsError(f"{path}: not a CSV table: {e}") from e


def _number(value):
    """A summary figure for a DataFrame cell: None (not defined) becomes NaN."""
    return float("nan") if value is None else value


def _run_row(run):
    """One row of .runs: the run's scalar figures, flattened."""
    messages = run["messages"]
    row = {
        "transport": run["label"],
        "type": run["transport"],
        "partial": run["partial"],
        "stop_reason": run["stop_reason"],
        "completion_us": _number(run["completion_us"]),
        "fair_us": _number(run["fair_us"]),
        "stopped_at_us": run["stopped_at_us"],
        "events": run["events"],
        "messages": messages["count"],
        "messages_completed": messages["completed"],
        "messages_failed": messages["failed"],
        "collectives_completed": sum(c["completed"] for c in run["collectives"]),
        "gpu_idle_us": run["gpu_idle_us"],
    }
    for figure in ("time_us", "slowdown"):
        for stat in ("mean", "p50", "p99", "p99_9", "max"):
            row[f"message_{figure}_{stat}"] = messages[figure][stat]
    for name, value in run["counters"].items():
        if name == "drops":
            row["drops_total"] = sum(value.values())
        else:
            row[name] = value
    return row


class Result:
    """What run() and load() return; see the module's documentation for each attribute."""

    def __init__(self, summary, directory, arrays=None, partial=None, out_dir=None):
        pd = _pandas()
        self.summary = summary
        self.out_dir = out_dir
        labels = [r["label"] for r in summary["runs"]]
        self.partial = bool(summary.get("partial", False)) if partial is None else partial
        self.runs = pd.DataFrame([_run_row(r) for r in summary["runs"]])
        for name, file in TABLES.items():
            frames = []
            for label in labels:
                table = _read_table(os.path.join(directory, label, file), name)
                table.insert(0, "transport", label)
                frames.append(table)
            setattr(self, name, pd.concat(frames, ignore_index=True) if frames else pd.DataFrame())
        if arrays is None:
            arrays = {}
            for label in labels:
                rows = self.timeseries[self.timeseries["transport"] == label]
                arrays[label] = {c: rows[c].to_numpy(dtype=t) for c, t in SERIES_COLUMNS.items()}
        self.arrays = arrays

    @property
    def labels(self):
        """The transports' labels, in the scenario's order."""
        return [r["label"] for r in self.summary["runs"]]

    def __repr__(self):
        return (f"<mrcsim.Result {self.summary.get('scenario')} runs={self.labels!r}"
                + (" partial" if self.partial else "") + ">")


def run(scenario, overrides=None, out_dir=None, quiet=True, partitions=0):
    """run(scenario, overrides=None, out_dir=None, quiet=True, partitions=0) -> Result

    Runs the scenario on each of its transports, as `mrcsim run`. scenario: a path (str or
    os.PathLike) or a dict in the scenario file format; overrides: {"workloads.0.bytes": 1048576}
    or ["workloads.0.bytes=1048576"], as --set. out_dir: also keep summary.json and
    <label>/*.csv there (default: written to a temporary directory, read, and removed).
    quiet=False prints progress lines on stderr. partitions: of each run's fabric, one thread each
    (1 to 64; 0, the default: 2, or 1 for a scenario with outputs.pcap); the results do not
    depend on it. Same scenario and seed, same results (but
    wall_clock). Ctrl-C stops the run and raises KeyboardInterrupt. Raises mrcsim.SpecError on a
    bad scenario."""
    if out_dir is not None:
        raw = _run(scenario, overrides=overrides, out_dir=out_dir, quiet=quiet, partitions=partitions)
        return Result(raw.summary, os.fspath(out_dir), raw.timeseries, raw.partial, raw.out_dir)
    with tempfile.TemporaryDirectory(prefix="mrcsim-run-") as directory:
        try:
            raw = _run(scenario, overrides=overrides, out_dir=directory, quiet=quiet, partitions=partitions)
        except KeyboardInterrupt:
            # Its partial results went to the temporary directory, which is about to go.
            raise KeyboardInterrupt("run interrupted") from None
        return Result(raw.summary, directory, raw.timeseries, raw.partial, None)


def load(directory):
    """load(directory) -> Result

    Reads a results directory: DIR/summary.json and DIR/<label>/{messages,collectives,
    timeseries}.csv, what `mrcsim run --out DIR` and run(out_dir=DIR) write. .arrays come from
    timeseries.csv. Raises mrcsim.ResultsError naming the file that is missing or malformed."""
    directory = os.fspath(directory)
    path = os.path.join(directory, "summary.json")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f)
    except FileNotFoundError as e:
        raise ResultsError(f"{path}: missing; expected a directory written by `mrcsim run --out DIR`") from e
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ResultsError(f"{path}: cannot read it as JSON: {e}") from e
    runs = summary.get("runs") if isinstance(summary, dict) else None
    if not isinstance(runs, list) or not all(isinstance(r, dict) and isinstance(r.get("label"), str) for r in runs):
        raise ResultsError(f"{path}: at /runs: expected a list of runs, each with a \"label\" (a summary.json "
                           "written by mrcsim run)")
    try:
        return Result(summary, directory, out_dir=directory)
    except (KeyError, TypeError, AttributeError) as e:
        raise ResultsError(f"{path}: not a summary mrcsim wrote: a run lacks {e} (see "
                           "scenarios/summary.schema.json)") from e
