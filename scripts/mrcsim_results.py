"""Reading a run's summary.json: the one place the scripts know its shape.

scenarios/summary.schema.json describes the file exactly as mrcsim writes it. load_summary()
reads one (a results directory or the file) and, with check=True, validates it against that
schema, so a writer change the schema does not know fails here rather than as a KeyError deep in
a plot; check=False reads older or hand-trimmed summaries (stored baselines have no wall_clock,
older versions no messages.failed or packet histogram) as they are. The classes are thin views of
the parsed JSON (.raw): attributes for the keys, with the defaults older summaries need.

    s = load_summary("results/quickstart")
    for run in s.runs:
        print(run.label, run.completion_us, run.messages.time_us.p99, run.counters.drops_total)
"""
import json
import os
import stat

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCHEMA = os.path.join(ROOT, "scenarios", "summary.schema.json")
SUMMARY = "summary.json"


class SummaryError(Exception):
    """A summary that cannot be read or does not match the schema; `reason` is the cause alone
    (the message also names the file)."""

    def __init__(self, message, reason=None):
        super().__init__(message)
        self.reason = reason if reason is not None else message


def _validator(optional=()):
    """The schema's validator (its top-level keys `optional` not required), or None when the
    jsonschema module is absent (scripts/setup.sh installs python3-jsonschema)."""
    key = tuple(sorted(optional))
    if key not in _VALIDATORS:
        try:
            import jsonschema
        except ImportError:
            _VALIDATORS[key] = None
        else:
            with open(SCHEMA) as f:
                schema = json.load(f)
            schema["required"] = [k for k in schema["required"] if k not in key]
            _VALIDATORS[key] = jsonschema.validators.validator_for(schema)(schema)
    return _VALIDATORS[key]


_VALIDATORS = {}


def have_schema_check():
    """Whether summaries are checked against the schema (the jsonschema module is installed)."""
    return _validator() is not None


def check_summary(doc, where="summary", optional=()):
    """Raises SummaryError naming `where` and the first place `doc` departs from the schema.
    `optional`: top-level keys it may lack (e.g. wall_clock). Does nothing without jsonschema."""
    validator = _validator(optional)
    if validator is None:
        return
    errors = list(validator.iter_errors(doc))
    if errors:
        e = min(errors, key=lambda e: len(e.path))
        at = "/" + "/".join(str(p) for p in e.path)
        reason = f"at {at}: {e.message}" + (f" (and {len(errors) - 1} more)" if len(errors) > 1 else "")
        raise SummaryError(f"{where} does not match {os.path.relpath(SCHEMA, ROOT)}: {reason}", reason)


def summary_path(path):
    """DIR/summary.json for a results directory, else the path itself."""
    return os.path.join(path, SUMMARY) if os.path.isdir(path) else path


def load_summary(path, check=True, optional=()):
    """The Summary of a results directory or a summary.json file. check: validate against the
    schema (skipped when jsonschema is not installed); optional: top-level keys it may lack."""
    path = summary_path(os.fspath(path))
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO or a device would block or never end
            raise OSError(f"{path} is not a regular file")
        with open(path) as f:
            doc = json.load(f, object_pairs_hook=_no_repeated_keys)
    except (OSError, ValueError) as e:
        raise SummaryError(f"cannot read {path}: {e}", str(e))
    if check:
        check_summary(doc, path, optional)
        labels = [r["label"] for r in doc["runs"]]
        repeated = sorted({label for label in labels if labels.count(label) > 1})
        if repeated:
            reason = f"at /runs: run label(s) {', '.join(repeated)} appear more than once"
            raise SummaryError(f"{path}: {reason}", reason)
    return Summary(doc, path)


def _no_repeated_keys(pairs):
    keys = [k for k, _ in pairs]
    repeated = sorted({k for k in keys if keys.count(k) > 1})
    if repeated:
        raise ValueError(f"key(s) {', '.join(repeated)} given more than once in one object")
    return dict(pairs)


def _key(name, default=None, wrap=None, required=True):
    """A read-only attribute for raw[name] (wrapped), or `default` when absent (unless required)."""

    def get(self):
        if name not in self.raw and not required:
            return default
        value = self.raw[name]
        return wrap(value) if wrap else value

    return property(get, doc=f'"{name}"')


def _optional(name, default, wrap=None):
    return _key(name, default, wrap, required=False)


class View:
    """A read-only view of one JSON object of the summary."""

    def __init__(self, raw):
        self.raw = raw

    def __repr__(self):
        return f"<{type(self).__name__} {self.raw!r:.120}>"


class Stats(View):
    """A latency or slowdown summary: count, mean, p50, p90, p99, p99_9, max (all 0 when count is
    0) and, for packet latency, the histogram [[upper bound, count], ...]."""

    PERCENTILES = ("p50", "p90", "p99", "p99_9")
    STATS = ("mean", "p50", "p90", "p99", "p99_9", "max")
    count = _optional("count", 0)
    mean = _key("mean")
    p50 = _key("p50")
    p90 = _key("p90")
    p99 = _key("p99")
    p99_9 = _key("p99_9")
    max = _key("max")
    histogram = _optional("histogram", None)  # None in older summaries

    def stat(self, name):
        """One of STATS by name."""
        if name not in self.STATS:
            raise KeyError(name)
        return self.raw[name]


class Collective(View):
    """One workload's collectives: instances and completed, time_us (Stats), ideal_us, the mean
    slowdown and algorithm/bus bandwidth (Gb/s, mean over the completed; None, as null in the
    summary, when none completed)."""

    workload = _key("workload")
    algorithm = _key("algorithm")
    instances = _key("instances")
    completed = _key("completed")
    time_us = _key("time_us", wrap=Stats)
    ideal_us = _key("ideal_us")
    slowdown_mean = _key("slowdown_mean")
    algbw_gbps = _key("algbw_gbps")
    busbw_gbps = _key("busbw_gbps")


class Messages(View):
    count = _key("count")
    completed = _key("completed")
    failed = _optional("failed", 0)
    time_us = _key("time_us", wrap=Stats)
    slowdown = _key("slowdown", wrap=Stats)
    fair_slowdown = _optional("fair_slowdown", None, wrap=Stats)  # time over fair time


class Counters(View):
    """Counts of one run; drops by cause (drops_total: every cause summed)."""

    data_packets_sent = _key("data_packets_sent")
    retransmissions = _key("retransmissions")
    timeouts = _key("timeouts")
    loss_probes = _key("loss_probes")
    trims = _key("trims")
    ecn_marks = _key("ecn_marks")
    pfc_paused_port_us = _optional("pfc_paused_port_us", 0)
    drops = _key("drops")  # {cause: count}
    ev_transitions = _key("ev_transitions")
    qp_errors = _key("qp_errors")

    @property
    def drops_total(self):
        return sum(self.drops.values())

    def get(self, name, default=None):
        """A counter by name ("retransmissions", ...), `default` if the summary lacks it."""
        return self.raw.get(name, default)

    def lookup(self, dotted):
        """A counter by a dotted name: "trims", "drops" (summed) or "drops.<cause>"; KeyError if
        there is none."""
        value = self.raw
        for part in dotted.split("."):
            if not isinstance(value, dict) or part not in value:
                raise KeyError(dotted)
            value = value[part]
        return sum(value.values()) if isinstance(value, dict) else value


class Failure(View):
    """One event of the failure timeline; links: a list of link ids, or how many links (None for
    random_links, which has links_in_class and failures_drawn)."""

    type = _key("type")
    at_us = _key("at_us")
    links = _optional("links", None)
    links_in_class = _optional("links_in_class", None)
    failures_drawn = _optional("failures_drawn", None)


class Run(View):
    """One transport's run of the scenario."""

    label = _key("label")
    transport = _key("transport")
    attributes = _optional("attributes", {})
    qps_per_connection = _optional("qps_per_connection", 1)
    partial = property(lambda self: bool(self.raw.get("partial")), doc='"partial"')
    stop_reason = _optional("stop_reason", None)
    completion_us = _key("completion_us")  # None when nothing completed
    fair_us = _optional("fair_us", None)  # fair-share reference; None when not computed
    stopped_at_us = _optional("stopped_at_us", 0)
    events = _key("events")
    messages = _key("messages", wrap=Messages)
    packet_latency_us = _optional("packet_latency_us", None, wrap=Stats)  # None in older summaries
    counters = _key("counters", wrap=Counters)
    qp_errors = _optional("qp_errors", [])
    gpu_idle_us = _key("gpu_idle_us")
    link_loss = _optional("link_loss", [])
    traffic = _optional("traffic", None)  # {"fabric"|"scale_up": {"messages", "bytes"}}; None in older summaries

    @property
    def collectives(self):
        return [Collective(c) for c in self.raw["collectives"]]

    def collective(self, workload):
        """The Collective of a workload, or None."""
        return next((c for c in self.collectives if c.workload == workload), None)

    @property
    def failures(self):
        return [Failure(f) for f in self.raw.get("failures", [])]

    @property
    def gpu_bandwidth_gbps(self):
        """One GPU's NIC line rate (ideal_model)."""
        return self.raw["ideal_model"]["gpu_bandwidth_gbps"]


class Fabric(View):
    name = _key("name")
    gpus = _key("gpus")
    switches = _key("switches")
    links = _key("links")


class Summary(View):
    """A whole summary.json; `path` where it was read from (None for a dict)."""

    def __init__(self, raw, path=None):
        super().__init__(raw)
        self.path = path

    @classmethod
    def of(cls, value):
        """A Summary as it is, or one of a parsed summary (a dict) without checking it."""
        return value if isinstance(value, Summary) else cls(value)

    scenario = _key("scenario")
    scenario_file = _optional("scenario_file", None)
    scenario_hash = _key("scenario_hash")
    seed = _key("seed")
    version = _optional("version", None)
    partial = property(lambda self: bool(self.raw.get("partial")), doc='"partial"')
    wall_clock = _optional("wall_clock", [])

    @property
    def fabric(self):
        """The Fabric, or None in a summary without one."""
        return Fabric(self.raw["fabric"]) if "fabric" in self.raw else None

    @property
    def runs(self):
        return [Run(r) for r in self.raw["runs"]]

    @property
    def labels(self):
        return [r.label for r in self.runs]

    def run(self, label):
        """The Run labelled `label`, or None."""
        return next((r for r in self.runs if r.label == label), None)

    def without_wall_clock(self):
        """The raw summary without what belongs to one run on one machine, as baselines are stored:
        wall_clock, run_id and files (the CSVs, which baselines do not keep)."""
        return {k: v for k, v in self.raw.items() if k not in ("wall_clock", "run_id", "files")}
