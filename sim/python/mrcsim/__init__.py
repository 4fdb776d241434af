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

load() (and run(), reading back what it wrote) checks what it reads and raises
mrcsim.ResultsError naming the file (and the line, or the key) at fault: summary.json against
its schema (summary.schema.json, beside this file; unknown keys, wrong types, repeated keys or
run labels are errors), and each CSV against its header, its column types and ranges, the
summary's counts and the summary's "files" entry (rows, bytes, CRC-32 as the run wrote it), so
that a truncated or edited file, or one of another run, is refused. A run holds its directory's
lock (DIR/.mrcsim.lock) while it writes; load() takes it shared while it reads, so it never reads
a directory a run is writing (ResultsError) and a run never starts writing one load() reads.

A figure that is not defined (a collective none of whose instances completed has no time or
bandwidth; a run in which nothing completed has no completion time) is None in .summary and NaN
in .runs. The DataFrames are read from the CSV files the CLI writes (run() without out_dir
writes them to a temporary directory), so run(..., out_dir=D) and load(D) give equal tables.
"""
import errno
import fcntl
import io
import json
import math
import os
import stat
import tempfile
import zlib

import numpy as np

from _mrcsim import OutputDirectoryBusy, OutputLock, SpecError, __version__, expand_sweep, presets, topology, validate  # noqa: F401,E501
from _mrcsim import run as _run

SpecError.__module__ = __name__
OutputDirectoryBusy.__module__ = __name__
OutputLock.__module__ = __name__

# The tables of a transport's directory: attribute name -> CSV file, as the CLI writes them.
TABLES = {"messages": "messages.csv", "collectives": "collectives.csv", "timeseries": "timeseries.csv"}
# The time series' columns and their types (the CLI's TimeSeries; see .arrays).
SERIES_COLUMNS = {"time_us": np.float64, "plane": np.int32, "goodput_gbps": np.float64,
                  "uplink_utilisation": np.float64}


# Each table's columns as the CLI writes them, and what a cell holds: "str", "int" (a count or id,
# 0 to 2^63-1), "int32" (0 to 2^31-1: stored as numpy int32 in .arrays), "float" (finite, >= 0) or
# "float?" (the same, or empty: not defined).
COLUMNS = {
    "messages": {"workload": "str", "src": "int", "dst": "int", "bytes": "int", "posted_us": "float",
                 "done_us": "float", "time_us": "float", "ideal_us": "float", "slowdown": "float",
                 "fair_us": "float?"},
    "collectives": {"workload": "str", "algorithm": "str", "group": "int", "iteration": "int", "ranks": "int",
                    "bytes": "int", "start_us": "float", "end_us": "float", "time_us": "float", "ideal_us": "float",
                    "slowdown": "float", "algbw_gbps": "float", "busbw_gbps": "float"},
    "timeseries": {"time_us": "float", "plane": "int32", "goodput_gbps": "float", "uplink_utilisation": "float"},
}
INT_MAX = {"int": 2**63 - 1, "int32": 2**31 - 1}
SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "summary.schema.json")
LOCK_FILE = ".mrcsim.lock"  # the run's lock (sim/run/output-directory-lock.h)


class ResultsError(ValueError):
    """A results directory that load() cannot read; the message names the file and what is wrong."""


def _pandas():
    try:
        import pandas
    except ImportError as e:
        raise ImportError("mrcsim's DataFrames need pandas (Debian: apt-get install python3-pandas)") from e
    return pandas


_SCHEMA_VALIDATOR = []


def _schema_validator():
    if not _SCHEMA_VALIDATOR:
        try:
            import jsonschema
        except ImportError as e:
            raise ImportError("mrcsim.load() checks summary.json with jsonschema (Debian: apt-get install "
                              "python3-jsonschema)") from e
        with open(SCHEMA, encoding="utf-8") as f:
            schema = json.load(f)
        _SCHEMA_VALIDATOR.append(jsonschema.validators.validator_for(schema)(schema))
    return _SCHEMA_VALIDATOR[0]


def _regular_file(path, what):
    """Raises ResultsError unless `path` is a regular file (after symbolic links): a FIFO or a
    device would block or never end, a dangling link is not "missing"."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise ResultsError(f"{path}: a dangling symbolic link (to {os.readlink(path)}); expected {what}") from None
        raise ResultsError(f"{path}: missing; expected {what}") from None
    except OSError as e:
        raise ResultsError(f"{path}: cannot read it: {e.strerror}") from e
    if not stat.S_ISREG(st.st_mode):
        kind = ("a directory" if stat.S_ISDIR(st.st_mode) else "a FIFO" if stat.S_ISFIFO(st.st_mode)
                else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a socket" if stat.S_ISSOCK(st.st_mode) else "not a regular file")
        raise ResultsError(f"{path}: {kind}, not a regular file; expected {what}")
    return st


def _no_repeated_keys(pairs):
    keys = [k for k, _ in pairs]
    for k in keys:
        if keys.count(k) > 1:
            raise ValueError(f"key \"{k}\" given {keys.count(k)} times in one object")
    return dict(pairs)


def _read_summary(path):
    """summary.json, parsed and checked against the schema and what the schema cannot say."""
    _regular_file(path, "summary.json, written by `mrcsim run --out DIR`")
    try:
        with open(path, encoding="utf-8") as f:
            summary = json.load(f, object_pairs_hook=_no_repeated_keys,
                                parse_constant=lambda c: (_ for _ in ()).throw(ValueError(f"{c} is not JSON")))
    except json.JSONDecodeError as e:
        raise ResultsError(f"{path}: line {e.lineno}: not JSON: {e.msg}") from e
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ResultsError(f"{path}: cannot read it as JSON: {e}") from e
    _check_summary(summary, path)
    return summary


def _check_summary(summary, path):
    errors = list(_schema_validator().iter_errors(summary))
    if errors:
        e = min(errors, key=lambda e: len(e.path))
        at = "/" + "/".join(str(p) for p in e.path)
        raise ResultsError(f"{path}: at {at}: {e.message} (see summary.schema.json)")
    labels = [r["label"] for r in summary["runs"]]
    for i, label in enumerate(labels):
        if label in labels[:i]:
            raise ResultsError(f"{path}: at /runs/{i}: run \"{label}\" repeats /runs/{labels.index(label)} (a "
                               "transport label appears once)")
    wall = [w["label"] for w in summary["wall_clock"]]
    if wall != labels:
        raise ResultsError(f"{path}: at /wall_clock: labels {wall} differ from the runs' {labels}")
    files = summary["files"]
    for name in files:
        if name.split("/")[0] not in labels:
            raise ResultsError(f"{path}: at /files/{name}: no run is labelled \"{name.split('/')[0]}\"")
    for label in labels:
        for table in TABLES.values():
            if f"{label}/{table}" not in files:
                raise ResultsError(f"{path}: at /files: no entry for {label}/{table} (a summary of a run whose "
                                   "files were written)")


def _bad_cell(path, line, column, value, kind):
    expected = {"int": "an integer from 0 to 2^63-1", "int32": "an integer from 0 to 2^31-1",
                "float": "a finite number >= 0", "float?": "a finite number >= 0 or empty", "str": "text"}[kind]
    raise ResultsError(f"{path}: line {line}: {column} {value!r}: expected {expected}")


def _check_column(path, name, kind, column, texts):
    """Raises ResultsError naming the first line whose `column` is not of `kind`. Fast when the
    parser already read the column as numbers."""
    pd = _pandas()
    if kind == "str":
        bad = column.isna()
        if bad.any():
            _bad_cell(path, int(bad.to_numpy().argmax()) + 2, name, "", kind)
        return
    values = column if pd.api.types.is_numeric_dtype(column) else pd.to_numeric(column, errors="coerce")
    finite = np.isfinite(values.to_numpy(dtype=np.float64, na_value=np.nan))
    if kind == "float?":
        ok = finite | column.isna().to_numpy()
    else:
        ok = finite.copy()
    with np.errstate(invalid="ignore"):
        ok &= ~(values.to_numpy(dtype=np.float64, na_value=np.nan) < 0)
    if kind in INT_MAX:
        if pd.api.types.is_integer_dtype(column):
            ok &= column.to_numpy() <= INT_MAX[kind]
        else:  # read as floats or text: a cell is not an integer; find it in the text (slow, rare)
            for row in range(len(column)):
                text = texts(row, name)
                if not (text.isascii() and text.isdigit() and int(text) <= INT_MAX[kind]):
                    _bad_cell(path, row + 2, name, text, kind)
    if not ok.all():
        row = int((~ok).argmax())
        _bad_cell(path, row + 2, name, texts(row, name), kind)


def _read_table(path, name, entry, expected_rows):
    """One CSV of a run, checked; `entry` is summary.json's "files" entry for it, `expected_rows`
    the rows the summary's counts imply (None: no count)."""
    pd = _pandas()
    file = TABLES[name]
    st = _regular_file(path, f"{file}, as every run's directory holds")
    if st.st_size > 2 * entry["bytes"] + (1 << 20) or st.st_size == 0:
        # Not worth reading line by line: far from what the run wrote.
        raise ResultsError(f"{path}: {st.st_size} bytes, but summary.json says the run wrote {entry['bytes']}")
    with open(path, "rb") as f:
        data = f.read()
    header = ",".join(COLUMNS[name]).encode() + b"\n"
    first = data.split(b"\n", 1)[0] + (b"\n" if b"\n" in data else b"")
    if first != header:
        raise ResultsError(f"{path}: line 1: header {first.decode('utf-8', 'replace').rstrip()!r}; expected "
                           f"{header.decode().rstrip()!r}")
    lines = data.count(b"\n")
    if not data.endswith(b"\n"):
        last = data.rsplit(b"\n", 1)[-1][:80].decode("utf-8", "replace")
        raise ResultsError(f"{path}: line {lines + 1}: truncated (no end of line): {last!r}")
    try:
        table = pd.read_csv(io.BytesIO(data), keep_default_na=False, na_values={"fair_us": [""]},
                            dtype={c: str for c, k in COLUMNS[name].items() if k == "str"})
    except (ValueError, pd.errors.ParserError) as e:
        raise ResultsError(f"{path}: not a CSV table of {len(COLUMNS[name])} columns: {e}") from e
    if len(table) != lines - 1:
        raise ResultsError(f"{path}: {lines - 1} lines after the header but {len(table)} rows read (a blank or "
                           "quoted line?)")
    raw_lines = None

    def texts(row, column):
        nonlocal raw_lines
        if raw_lines is None:
            raw_lines = data.split(b"\n")
        fields = raw_lines[row + 1].split(b",")
        i = list(COLUMNS[name]).index(column)
        return fields[i].decode("utf-8", "replace") if i < len(fields) else ""

    for column, kind in COLUMNS[name].items():
        _check_column(path, column, kind, table[column], texts)
    if expected_rows is not None and len(table) != expected_rows:
        raise ResultsError(f"{path}: {len(table)} rows, but summary.json counts {expected_rows}")
    if len(table) != entry["rows"] or len(data) != entry["bytes"] or zlib.crc32(data) != entry["crc32"]:
        raise ResultsError(f"{path}: not the file this run wrote ({len(table)} rows, {len(data)} bytes, CRC-32 "
                           f"{zlib.crc32(data)}; summary.json's files entry: {entry['rows']} rows, {entry['bytes']} "
                           f"bytes, CRC-32 {entry['crc32']}): another run's, truncated or edited")
    return table


def _expected_rows(run, name):
    """The rows of a run's table that its summary counts (None where it counts none)."""
    if name == "messages":
        return run["messages"]["completed"]
    if name == "collectives":
        return sum(c["completed"] for c in run["collectives"])
    return None


class _SharedLock:
    """The results directory's lock, shared, while load() reads (none if no run ever locked it)."""

    def __init__(self, directory):
        self.path = os.path.join(directory, LOCK_FILE)
        self.fd = None
        try:
            self.fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            return
        except OSError as e:
            raise ResultsError(f"{self.path}: cannot open the results directory's lock: {e.strerror}") from e
        try:
            fcntl.flock(self.fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError as e:
            os.close(self.fd)
            self.fd = None
            if e.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise ResultsError(f"{directory}: a run is writing it (it holds {self.path}); load it once the run "
                                   "has ended") from None
            raise ResultsError(f"{self.path}: cannot lock it: {e.strerror}") from e

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


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
    """What run() and load() return; see the module's documentation for each attribute. Reads
    and checks the tables (ResultsError); `summary` has passed _check_summary()."""

    def __init__(self, summary, directory, arrays=None, partial=None, out_dir=None):
        pd = _pandas()
        self.summary = summary
        self.out_dir = out_dir
        labels = [r["label"] for r in summary["runs"]]
        self.partial = bool(summary["partial"]) if partial is None else partial
        self.runs = pd.DataFrame([_run_row(r) for r in summary["runs"]])
        for name, file in TABLES.items():
            frames = []
            for run in summary["runs"]:
                label = run["label"]
                table = _read_table(os.path.join(directory, label, file), name, summary["files"][f"{label}/{file}"],
                                    _expected_rows(run, name))
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
    bad scenario, ValueError on out_dir='' and mrcsim.OutputDirectoryBusy when another run (or a
    load()) holds out_dir: one run writes a directory at a time, and its lock is held until the
    files are read back (so that two threads running into one out_dir never get each other's
    results)."""
    if out_dir is not None:
        if os.fspath(out_dir) in ("", b""):
            raise ValueError("run: out_dir='' is an empty path; give a directory (or None: no files kept)")
        with OutputLock(out_dir) as lock:
            raw = _run(scenario, overrides=overrides, out_dir=out_dir, quiet=quiet, partitions=partitions, lock=lock)
            _check_summary(raw.summary, os.path.join(os.fspath(out_dir), "summary.json"))
            return Result(raw.summary, os.fspath(out_dir), raw.timeseries, raw.partial, raw.out_dir)
    with tempfile.TemporaryDirectory(prefix="mrcsim-run-") as directory:
        try:
            raw = _run(scenario, overrides=overrides, out_dir=directory, quiet=quiet, partitions=partitions)
        except KeyboardInterrupt:
            # Its partial results went to the temporary directory, which is about to go.
            raise KeyboardInterrupt("run interrupted") from None
        _check_summary(raw.summary, os.path.join(directory, "summary.json"))
        return Result(raw.summary, directory, raw.timeseries, raw.partial, None)


def load(directory):
    """load(directory) -> Result

    Reads a results directory: DIR/summary.json and DIR/<label>/{messages,collectives,
    timeseries}.csv, what `mrcsim run --out DIR` and run(out_dir=DIR) write. .arrays come from
    timeseries.csv. Everything is checked (see the module's documentation): raises
    mrcsim.ResultsError naming the file, and the line or key, that is missing, malformed, of
    another run or out of range, or the directory while a run writes it."""
    directory = os.fspath(directory)
    if not os.path.isdir(directory):
        what = "missing" if not os.path.lexists(directory) else "not a directory"
        raise ResultsError(f"{directory}: {what}; expected a directory written by `mrcsim run --out DIR`")
    with _SharedLock(directory):
        summary = _read_summary(os.path.join(directory, "summary.json"))
        return Result(summary, directory, out_dir=directory)
