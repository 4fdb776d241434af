"""Metrics of the validation suite (scripts/validate.py): functions of the runs' outputs.

Each takes a claim's runs (name -> RunOutput) and its parameters from the claim file, by keyword;
the unit registered with it is shown beside its figures. validation/README.md lists them.
"""
import csv
import os

from mrcsim_results import Stats, load_summary


class MetricError(Exception):
    """A metric could not be taken from a run's outputs (the run failed, no such workload, ...)."""


METRICS = {}


def metric(unit):
    def register(fn):
        METRICS[fn.__name__] = (fn, unit)
        return fn
    return register


class RunOutput:
    """The files one finished run wrote: summary.json (a mrcsim_results.Summary, checked against
    the schema; SummaryError if unreadable) and <label>/*.csv per transport."""

    def __init__(self, directory):
        self.directory = directory
        self.summary = load_summary(directory)

    def labels(self):
        return self.summary.labels

    def transport(self, label):
        """The mrcsim_results.Run labelled `label`."""
        run = self.summary.run(label)
        if run is None:
            raise MetricError(f"no transport labelled {label!r} in the run (it has {', '.join(self.labels())})")
        return run

    def rows(self, label, name):
        self.transport(label)
        with open(os.path.join(self.directory, label, name), newline="") as f:
            return list(csv.DictReader(f))


class Runs(dict):
    """A claim's runs by name; a run that did not finish raises MetricError saying why."""

    def __init__(self, outputs, failures):
        super().__init__(outputs)
        self.failures = failures

    def __missing__(self, name):
        raise MetricError(f"run {name!r} gave no results: {self.failures.get(name, 'not run')}")


def collective(runs, run, transport, workload):
    every = runs[run].transport(transport).collectives
    entries = [c for c in every if workload is None or c.workload == workload]
    names = ", ".join(c.workload for c in every) or "none"
    if not entries:
        raise MetricError(f"no collective {workload!r} (the run's: {names})")
    if len(entries) > 1:
        raise MetricError(f"the run has several collectives ({names}): name one with \"workload\"")
    entry = entries[0]
    if entry.completed < entry.instances:
        raise MetricError(f"{entry.workload}: {entry.completed} of {entry.instances} instances completed")
    return entry


def statistic(values, stat):
    if stat == "max":
        return max(values)
    if stat == "mean":
        return sum(values) / len(values)
    raise MetricError(f"stat {stat!r} is not one of max, mean")


def messages(runs, run, transport, workload):
    rows = [r for r in runs[run].rows(transport, "messages.csv") if workload is None or r["workload"] == workload]
    if not rows:
        raise MetricError(f"no messages of workload {workload!r}")
    unfinished = [r for r in rows if not r["done_us"]]
    if unfinished:
        raise MetricError(f"{len(unfinished)} of {len(rows)} messages unfinished")
    return rows


@metric("µs")
def completion_us(runs, run, transport):
    """When the transport's last message completed (summary: completion_us)."""
    return runs[run].transport(transport).completion_us


@metric("µs")
def completion_delta_us(runs, run, base, transport):
    """How much later the transport completes in `run` than in `base` (e.g. a failure's cost)."""
    return runs[run].transport(transport).completion_us - runs[base].transport(transport).completion_us


@metric("µs")
def collective_time_us(runs, run, transport, workload=None, stat="mean"):
    """A collective's completion time over its instances (summary: collectives[].time_us[stat];
    stat is mean, max, p50, p90, p99 or p99_9). `workload` may be left out when there is one."""
    entry = collective(runs, run, transport, workload)
    if stat not in Stats.STATS:
        raise MetricError(f"stat {stat!r} is not one of mean, max, p50, p90, p99, p99_9")
    return entry.time_us.stat(stat)


@metric("x ideal")
def collective_slowdown(runs, run, transport, workload=None, stat="mean"):
    """A collective's time (as collective_time_us) over its idle-fabric ideal (ideal_us)."""
    ideal = collective(runs, run, transport, workload).ideal_us
    return collective_time_us(runs, run, transport, workload, stat) / ideal


@metric("x")
def collective_speedup(runs, run, transport, over, workload=None, stat="mean"):
    """How many times faster `transport` runs a collective than transport `over` in the same run:
    over's collective time over transport's (each as collective_time_us)."""
    return (collective_time_us(runs, run, over, workload, stat)
            / collective_time_us(runs, run, transport, workload, stat))


@metric("of line rate")
def collective_bus_fraction(runs, run, transport, workload=None):
    """A collective's mean bus bandwidth (NCCL's busbw, summary: busbw_gbps) over one GPU's NIC
    line rate (ideal_model: gpu_bandwidth_gbps)."""
    line = runs[run].transport(transport).gpu_bandwidth_gbps
    return collective(runs, run, transport, workload).busbw_gbps / line


@metric("Gb/s")
def collective_busbw_gbps(runs, run, transport, workload=None):
    """A collective's mean bus bandwidth as nccl-tests defines it (summary: busbw_gbps)."""
    return collective(runs, run, transport, workload).busbw_gbps


@metric("Gb/s")
def collective_ideal_busbw_gbps(runs, run, transport, workload=None):
    """The bus bandwidth a collective would have in its ideal time (ideal_us): busbw_gbps x
    time / ideal, over its instances' means (exact for one instance)."""
    entry = collective(runs, run, transport, workload)
    return entry.busbw_gbps * entry.time_us.stat("mean") / entry.ideal_us


@metric("")
def traffic(runs, run, transport, tier, what="messages"):
    """Messages or bytes (`what`) one tier carried (`tier`: fabric, through the NICs, or scale_up;
    summary: traffic); each leg of a relayed (PXN) message counts."""
    counts = runs[run].transport(transport).traffic
    if counts is None:
        raise MetricError("the summary has no \"traffic\" (an older mrcsim)")
    if tier not in counts or what not in ("messages", "bytes"):
        raise MetricError(f"tier {tier!r} / {what!r}: allowed fabric or scale_up, messages or bytes")
    return counts[tier][what]


@metric("µs")
def message_time_us(runs, run, transport, workload=None, stat="max"):
    """Messages' completion times, post to last byte at the receiver (messages.csv: time_us;
    stat max or mean)."""
    return statistic([float(r["time_us"]) for r in messages(runs, run, transport, workload)], stat)


@metric("Gb/s")
def message_goodput_gbps(runs, run, transport, workload=None):
    """Payload bits delivered over the span from the first post to the last completion
    (messages.csv), in Gb/s."""
    rows = messages(runs, run, transport, workload)
    span = max(float(r["done_us"]) for r in rows) - min(float(r["posted_us"]) for r in rows)
    return sum(int(r["bytes"]) for r in rows) * 8 / span / 1e3


@metric("")
def counter(runs, run, transport, counter):
    """A counter of the summary: retransmissions, timeouts, trims, ecn_marks, qp_errors, ...;
    `drops` is every cause summed, `drops.<cause>` one cause."""
    try:
        return runs[run].transport(transport).counters.lookup(counter)
    except KeyError:
        raise MetricError(f"the summary has no counter {counter!r}")


@metric("x fair")
def fair_ratio(runs, run, transport):
    """The transport's completion over its fair-share reference (summary: completion_us / fair_us):
    how far its congestion control is from max-min fair sharing of the paths the run used."""
    r = runs[run].transport(transport)
    if r.fair_us is None:
        raise MetricError(f"{transport}: no fair-share reference ({r.raw.get('fair_reference', {}).get('not_computed', '')})")
    return r.completion_us / r.fair_us


@metric("x fair")
def message_fair_slowdown(runs, run, transport, workload=None, stat="max"):
    """Messages' times over their fair-share times (messages.csv: time_us / fair_us; stat max or
    mean)."""
    rows = messages(runs, run, transport, workload)
    if any(not r["fair_us"] for r in rows):
        raise MetricError(f"{transport}: messages without a fair-share time")
    return statistic([float(r["time_us"]) / float(r["fair_us"]) for r in rows], stat)


@metric("")
def timeouts_without_drops(runs, run, transport):
    """Retransmission timeouts when nothing was dropped (summary: counters), else 0: with no
    packet lost, every timeout is spurious."""
    counters = runs[run].transport(transport).counters
    return 0 if counters.lookup("drops") > 0 else counters.lookup("timeouts")
