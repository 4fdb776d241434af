#!/usr/bin/python3
"""Random scenarios drawn from scenarios/scenario.schema.json, run with invariants checked.

Every draw is valid by the schema: the generator walks the schema itself (types, enums, consts,
ranges, oneOf, required and optional keys, the if/then rules that forbid keys), so a key added to
the schema is drawn without a change here. Only the sizes are kept small (a fabric of at most 64
GPUs, kilobytes to a megabyte per message, milliseconds of simulated time, seconds of wall time),
and GPU, plane and switch indices are drawn inside the fabric, so that most draws run rather than
being refused. For each scenario:

  - `mrcsim validate` ends with exit 0 or 1 (refused, with a message naming the file), and what
    it accepts `mrcsim run` runs, ending with exit 0 or 3 (stopped at a limit); neither ends by a
    signal or outlives its wall-time limit;
  - a run's outputs are whole: summary.json parses, and every transport's CSVs parse with one
    message row per message the summary counts;
  - RoCEv2 never times out without a drop on a fabric without failures or random loss;
  - every `--rerun-every`-th run is run again in 2 partitions (the first in 1) and gives
    byte-identical CSVs and the same summary (wall-clock figures aside, and the event count where
    frames can be lost, which may differ by a few events; see summary.schema.json).

Usage: random_scenarios.py MRCSIM ROOT [--count N] [--seed S] [--rerun-every K] [-j J]
Prints one line per scenario that broke an invariant (with the scenario kept under --keep) and
a total; exits 1 if any did.
"""
import argparse
import concurrent.futures
import copy
import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile

# Small sizes for the keys whose schema ranges allow runs of hours or terabytes.
SMALL_NUMBERS = {
    "bytes": (1, 1 << 20),
    "chunk_bytes": (4096, 1 << 20),
    "iterations": (1, 3),
    "compute_us": (0, 50),
    "start_us": (0, 100),
    "at_us": (0, 300),
    "until_us": (1, 500),
    "period_us": (5, 200),
    "count": (1, 4),
    "mtbf_us": (50, 2000),
    "mttr_us": (5, 500),
    "sim_time_us": (100, 3000),
    "wall_time_s": (2, 8),
    "sample_interval_us": (1, 50),
    "channels": (1, 4),
    "slots": (1, 8),
    "senders": (1, 16),
    "qps_per_connection": (1, 8),
    "group_size": (2, 16),
    "seed": (0, 1000),
    "rate": (0, 0.01),
    "loss_rate": (0, 0.01),
    "planes": (1, 4),
    "gpus": (2, 32),
    "t0_down_ports": (1, 8),
    "t0_up_ports": (1, 4),
    "t0_per_plane": (1, 4),
    "t1_per_plane": (1, 4),
    "switch_ports": (4, 16),
    "radix": (4, 8),
    "tiers": (2, 3),
    "port_rate_gbps": (100, 400),
    "link_delay_ns": (0, 2000),
    "gpu_link_delay_ns": (0, 2000),
    "fabric_link_delay_ns": (0, 2000),
    "switch_watts": (0, 1000),
    "port_watts_per_100g": (0, 10),
    "rate_factor": (0.01, 1),
    "tier": (0, 2),
    "duration_us": (1, 300),
    "load": (0, 1),
}
# Indices drawn inside the fabric (GPUs) or small (planes, switches, ports).
INDEX_KEYS = {"gpu": "gpu", "receiver": "gpu", "first": "gpu", "plane": 4, "t0": 4, "t1": 4, "up_port": 4,
              "index": 8, "id": 64, "stride": 4}
SMALL_PRESETS = ["multiplane-64"]
FLOW_FILE = ""  # the repository's tests/flows/trace.csv (set by main)
FABRIC_GPUS = 64  # the bound for GPU indices; a spec's own count is smaller and refused cleanly


class Draw:
    def __init__(self, schema, rnd):
        self.schema = schema
        self.rnd = rnd

    def resolve(self, node):
        while isinstance(node, dict) and "$ref" in node:
            path = node["$ref"].lstrip("#/").split("/")
            target = self.schema
            for p in path:
                target = target[p]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
        return node

    def value(self, node, key, depth=0):
        node = self.resolve(node)
        if node is True or node == {}:
            return self.rnd.choice([0, 1, "x", True])
        if "const" in node:
            return node["const"]
        if "enum" in node:
            options = node["enum"]
            if key == "preset":
                options = [o for o in options if o in SMALL_PRESETS] or options
            return self.rnd.choice(options)
        for combinator in ("oneOf", "anyOf"):
            if combinator in node:
                return self.value(self.rnd.choice(node[combinator]), key, depth + 1)
        kind = node.get("type")
        if isinstance(kind, list):
            kind = self.rnd.choice(kind)
        if kind == "object" or "properties" in node:
            return self.obj(node, depth)
        if kind == "array":
            lo = node.get("minItems", 0)
            hi = min(node.get("maxItems", lo + 3), lo + 3)
            if key == "transport":
                lo = max(lo, 1)
            items = []
            for _ in range(self.rnd.randint(lo, max(lo, hi))):
                item = self.value(node.get("items", {}), key, depth + 1)
                if not node.get("uniqueItems") or item not in items:
                    items.append(item)
            return items or ([self.value(node.get("items", {}), key, depth + 1)] if lo else [])
        if kind == "integer":
            return int(self.number(node, key, True))
        if kind == "number":
            return self.number(node, key, False)
        if kind == "boolean":
            return self.rnd.random() < 0.5
        if kind == "string":
            return "r%d" % self.rnd.randint(0, 99)
        return None

    def number(self, node, key, integer):
        lo = node.get("minimum", node.get("exclusiveMinimum", 0))
        hi = node.get("maximum", node.get("exclusiveMaximum", lo + 1000))
        if key in INDEX_KEYS:
            bound = FABRIC_GPUS if INDEX_KEYS[key] == "gpu" else INDEX_KEYS[key]
            hi = min(hi, lo + bound - 1)
        elif key in SMALL_NUMBERS:
            slo, shi = SMALL_NUMBERS[key]
            lo, hi = max(lo, slo), min(hi, shi)
        if integer:
            lo_i = int(lo) + (1 if "exclusiveMinimum" in node and int(lo) == lo else 0)
            hi_i = int(hi) - (1 if "exclusiveMaximum" in node and int(hi) == hi else 0)
            return self.rnd.randint(lo_i, max(lo_i, hi_i))
        v = self.rnd.uniform(lo, hi)
        if "exclusiveMinimum" in node and v <= lo:
            v = lo + (hi - lo) / 2 or lo + 1
        return round(v, 3) if round(v, 3) > lo or "exclusiveMinimum" not in node else v

    def rules(self, node, doc):
        """What the if/then rules of `node` say for the values drawn so far: the keys they forbid,
        the keys they require, and the narrower schemas they give some keys."""
        forbidden, required, narrowed = set(), [], {}
        for rule in node.get("allOf", []):
            cond, then = rule.get("if", {}), rule.get("then", {})
            if self.matches(cond, doc):
                for k, v in then.get("properties", {}).items():
                    if v is False:
                        forbidden.add(k)
                    else:
                        narrowed[k] = v
                required += then.get("required", [])
        return forbidden, required, narrowed

    def matches(self, cond, doc):
        for k in cond.get("required", []):
            if k not in doc:
                return False
        for k, sub in cond.get("properties", {}).items():
            if k not in doc:
                continue
            v = doc[k]
            if "not" in sub and v in sub["not"].get("enum", []):
                return False
            if "enum" in sub and v not in sub["enum"]:
                return False
            if "const" in sub and v != sub["const"]:
                return False
        return True

    def obj(self, node, depth):
        props = node.get("properties", {})
        required = node.get("required", [])
        doc = {}
        for k in required:
            doc[k] = self.value(props.get(k, {}), k, depth + 1)
        optional = [k for k in props if k not in required and props[k] is not False]
        # Deep structures get fewer optional keys; "sweep" and "outputs.pcap" are left out (a
        # sweep runs only its base; captures slow the run down without testing more).
        share = 0.5 if depth < 2 else 0.3
        for k in optional:
            if k in ("sweep", "pcap", "description") or self.rnd.random() >= share:
                continue
            if k in self.rules(node, doc)[0]:
                continue
            doc[k] = self.value(props[k], k, depth + 1)
        forbidden, required, narrowed = self.rules(node, doc)
        for k in forbidden:
            doc.pop(k, None)
        for k in required:
            if k not in doc:
                doc[k] = self.value(props.get(k, {}), k, depth + 1)
        for k, sub in narrowed.items():
            if k in doc:
                doc[k] = self.value({**self.resolve(props.get(k, {})), **sub}, k, depth + 1)
        return doc


def draw_scenario(schema, rnd, index):
    d = Draw(schema, rnd)
    doc = d.value(schema, "")
    doc["name"] = "random-%d" % index
    doc.setdefault("stop", {})
    doc["stop"]["wall_time_s"] = min(doc["stop"].get("wall_time_s", 5), 8)
    doc["stop"].setdefault("sim_time_us", rnd.randint(200, 3000))
    repair_topology(doc, rnd)
    repair_references(doc, rnd)
    labels = set()
    transports = doc["transport"] if isinstance(doc["transport"], list) else [doc["transport"]]
    for i, t in enumerate(transports):
        t.pop("attributes", None)  # free-form ns-3 names: the hostile corpus covers them
        label = t.get("label", t["type"])
        if label in labels:
            t["label"] = "%s-%d" % (t["type"], i)
        labels.add(t.get("label", t["type"]))
    names = set()
    for i, w in enumerate(doc.get("workloads", [])):
        if w.get("name") in names:
            w["name"] = "w%d" % i
        names.add(w.get("name"))
    return doc


def repair_topology(doc, rnd):
    """Keeps the fabric small and buildable: rules of the fabric builder that the schema cannot
    state (even radix, up ports spread evenly over the T1s, one form of link delay, whole servers).
    A GraphML file (none exists here) becomes the small preset."""
    spec = doc["topology"].get("spec")
    if spec is None or spec.get("kind") == "graphml" or rnd.random() < 0.4:
        doc["topology"] = {"preset": rnd.choice(SMALL_PRESETS)}
        return
    if "link_delay_ns" in spec:
        spec.pop("gpu_link_delay_ns", None)
        spec.pop("fabric_link_delay_ns", None)
    if spec["kind"] == "multiplane":
        spec["t0_up_ports"] = spec["t1_per_plane"] * rnd.randint(1, 2)
        spec.pop("switch_ports", None)
        spec.pop("nic_port_planes", None)
    else:
        spec["radix"] = 2 * rnd.randint(2, 4)
        spec["tiers"] = min(spec["tiers"], 3)
    if spec["kind"] == "rail_optimized":
        spec["gpus_per_server"] = rnd.choice([1, 2, 4])
        spec["gpus"] = spec["gpus_per_server"] * rnd.randint(1, 8)


def fabric_gpus(doc):
    spec = doc["topology"].get("spec")
    return spec["gpus"] if spec else 64  # SMALL_PRESETS: multiplane-64


def repair_references(doc, rnd):
    """Draws GPU indices inside the fabric and counts that fit the workload's GPUs (rules that
    depend on other values, which the schema cannot state); most draws then run. A share is left
    as drawn, so the checker's refusals stay exercised."""
    if rnd.random() < 0.15:
        return
    n = fabric_gpus(doc)
    for w in doc["workloads"]:
        if w["type"] == "flows":
            # A file that exists: the repository's small trace (8 nodes) on the fabric's GPUs.
            w["file"] = FLOW_FILE
            w.pop("format", None)
            if n >= 8:
                w["gpus"] = "all"
        gpus = w.get("gpus", "all")
        if isinstance(gpus, list):
            gpus = sorted({g % n for g in gpus})
            if len(gpus) < 2 and n >= 2:
                gpus = sorted({gpus[0], (gpus[0] + 1) % n})
            w["gpus"] = gpus
            size = len(gpus)
        elif isinstance(gpus, dict):
            stride = gpus.get("stride", 1) % n or 1
            gpus["stride"] = stride
            gpus["count"] = max(2, min(gpus["count"], n // stride))
            gpus["first"] = gpus["first"] % max(1, n - (gpus["count"] - 1) * stride)
            size = gpus["count"]
        else:
            size = n
        if "receiver" in w:
            members = w["gpus"] if isinstance(w.get("gpus"), list) else None
            w["receiver"] = rnd.choice(members) if members else w["receiver"] % n
            w["senders"] = max(1, min(w["senders"], size - 1))
        if "group_size" in w:
            divisors = [d for d in range(2, size + 1) if size % d == 0]
            if w["type"] == "hd_allreduce":
                divisors = [d for d in divisors if d & (d - 1) == 0]
            if divisors:
                w["group_size"] = rnd.choice(divisors)
            else:
                w.pop("group_size")
        if w.get("pipelined") is False:
            for k in ("channels", "chunk_bytes", "slots"):
                w.pop(k, None)
    seen = set()
    doc["link_loss"] = [e for e in doc.get("link_loss", []) if not (e["link_class"] in seen or seen.add(e["link_class"]))]
    if not doc["link_loss"]:
        doc.pop("link_loss")
    for f in doc.get("failures", []):
        if f["type"] == "gray" and "loss_rate" not in f and "rate_factor" not in f:
            f["rate_factor"] = round(rnd.uniform(0.1, 1), 3)
        if "gpu" in f:
            f["gpu"] %= n


def run(cmd, timeout):
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stderr
    except subprocess.TimeoutExpired:
        return "hang", ""


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        raise ValueError("%s: empty" % path)
    width = len(rows[0])
    for n, row in enumerate(rows[1:], 2):
        if len(row) != width:
            raise ValueError("%s:%d: %d fields, header has %d" % (path, n, len(row), width))
    return rows


def outputs(out):
    """The run's CSVs by relative path, and its summary without wall-clock figures."""
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    files = {}
    for r in summary["runs"]:
        for name in ("messages.csv", "collectives.csv", "timeseries.csv"):
            path = os.path.join(out, r["label"], name)
            rows = read_csv(path)
            files[os.path.join(r["label"], name)] = rows
            if name == "messages.csv" and not r["partial"] and len(rows) - 1 != r["messages"]["count"]:
                raise ValueError("%s: %d rows, summary counts %d messages" % (path, len(rows) - 1, r["messages"]["count"]))
    for key in ("wall_clock", "run_id", "scenario_file"):
        summary.pop(key, None)
    return summary, files


def check(mrcsim, doc, work, rerun):
    """Broken invariants of one scenario (an empty list when it held)."""
    path = os.path.join(work, "scenario.json")
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)
    problems = []
    code, err = run([mrcsim, "validate", path], 30)
    if code not in (0, 1):
        return ["validate: exit %s %s" % (code, err.strip()[-200:])], "ran"
    if code == 1:
        if path not in err:
            problems.append("validate refused without naming the file: %s" % err.strip()[-200:])
        return problems, "refused"
    limit = doc["stop"]["wall_time_s"] + 30
    out = os.path.join(work, "out")
    code, err = run([mrcsim, "run", path, "--quiet", "--partitions", "1", "--out", out], limit)
    if code not in (0, 1, 3):
        return ["run: exit %s %s" % (code, err.strip()[-300:])], "ran"
    if code == 1:
        # What validate accepts must run: a refusal here means the checker and the run disagree.
        return problems + ["validate accepted it, run refused it: %s" % err.strip()[-300:]], "refused by run only"
    try:
        summary, files = outputs(out)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        return ["outputs: %s" % e], "ran"
    if not doc.get("failures") and not doc.get("link_loss"):
        for r in summary["runs"]:
            drops = sum(r["counters"]["drops"].values())
            if r["transport"] == "rocev2" and r["counters"]["timeouts"] > 0 and drops == 0:
                problems.append("%s: %d RoCEv2 timeouts with no drop" % (r["label"], r["counters"]["timeouts"]))
    if rerun:
        again = os.path.join(work, "again")
        code2, err2 = run([mrcsim, "run", path, "--quiet", "--partitions", "2", "--out", again], limit)
        if code2 != code:
            problems.append("rerun: exit %s, first run %s" % (code2, code))
        elif code == 0:
            try:
                summary2, files2 = outputs(again)
            except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
                return problems + ["rerun outputs: %s" % e], "ran"
            if files2 != files:
                problems.append("rerun (2 partitions): CSVs differ: %s" % sorted(k for k in files if files[k] != files2.get(k)))
            for r in summary["runs"] + summary2["runs"]:
                r.pop("wall_clock", None)
                # The event count may differ by a few between partition counts when frames are
                # lost at random on links between partitions (summary.schema.json); results may not.
                if doc.get("link_loss") or doc.get("failures"):
                    r.pop("events", None)
            if summary2 != summary:
                problems.append("rerun (2 partitions): summary.json differs")
    return problems, "ran"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("mrcsim")
    ap.add_argument("root")
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rerun-every", type=int, default=5)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--keep", default=None, help="folder for the scenarios that broke an invariant")
    args = ap.parse_args()
    global FLOW_FILE
    FLOW_FILE = os.path.abspath(os.path.join(args.root, "tests", "flows", "trace.csv"))
    with open(os.path.join(args.root, "scenarios", "scenario.schema.json")) as f:
        schema = json.load(f)
    rnd = random.Random(args.seed)
    docs = [draw_scenario(schema, rnd, i) for i in range(args.count)]
    tmp = tempfile.mkdtemp(prefix="random-scenarios-")
    tally = {"ran": 0, "refused": 0, "refused by run only": 0}
    failed = 0

    def one(i):
        work = os.path.join(tmp, str(i))
        os.makedirs(work)
        problems, outcome = check(args.mrcsim, docs[i], work, args.rerun_every > 0 and i % args.rerun_every == 0)
        shutil.rmtree(work, ignore_errors=True)
        return i, problems, outcome

    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=args.j) as pool:
            for i, problems, outcome in pool.map(one, range(args.count)):
                tally[outcome] += 1
                if problems:
                    failed += 1
                    print("random scenario %d (seed %d): %s" % (i, args.seed, "; ".join(problems)))
                    if args.keep:
                        os.makedirs(args.keep, exist_ok=True)
                        with open(os.path.join(args.keep, "random-%d-%d.json" % (args.seed, i)), "w") as f:
                            json.dump(docs[i], f, indent=1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("random scenarios: %d drawn (seed %d), %d ran, %d refused cleanly (%d of them by run after validate "
          "accepted), %d broke an invariant"
          % (args.count, args.seed, tally["ran"], tally["refused"] + tally["refused by run only"],
             tally["refused by run only"], failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
