#!/usr/bin/python3
"""Generates the fuzz corpus of mrcsim's input readers (tests/fuzz/corpus/).

The hardening rule the corpus checks: every malformed input ends with a clear error, an exit
status (1 for a bad scenario, fabric spec or GraphML file; 2 for a bad command line) and a
message naming the file and the key (or, for the command line, the option) at fault; never a
signal, a hang or silent acceptance of a value that cannot be right.

Regenerate (deterministic: fixed seed, no clock, no environment; commit the result):

    /usr/bin/python3 tests/fuzz/generate.py            # rewrites tests/fuzz/corpus/
    /usr/bin/python3 tests/fuzz/generate.py --check    # fails if the committed corpus is stale

Run (CTest does this; see tests/fuzz/CMakeLists.txt):

    /usr/bin/python3 tests/fuzz/run_fuzz.py build/bin/mrcsim . --python-path build/python -j 2
    /usr/bin/python3 tests/fuzz/run_fuzz.py build/bin/mrcsim . -k graphml --keep   # a subset

Corpus layout
-------------
corpus/cases.json   the manifest: {"format": 1, "seed": N, "cases": [case, ...]}, one case a line
corpus/files/       the committed input files, each named after its case ("<id>.json",
                    "<id>.graphml", ...), so that the message check "names the file" names
                    this case's file and no other

A case:

    id        unique; letters, digits, '.', '-', '_'  (e.g. "scn.type.a.workloads.0.bytes.str")
    kind      scenario (mrcsim validate), fabric (mrcsim topo --spec, JSON), graphml (mrcsim
              topo --spec of a GraphML file), cli (usage errors of every command), run (mrcsim
              run: the file validates, the run must still fail cleanly), python (the module)
    mutation  what was done to a valid input (type-swap, range, missing-key, unknown-key,
              duplicate-key, deep-nesting, truncated, empty, utf8, huge, name, ...)
    note      one line for humans
    files     names in corpus/files/ copied into the case's temporary directory
    generate  files written at run time, too big to commit: [{"name": N, "parts": [...]}],
              a part being {"text": S} or {"repeat": S, "count": K} (S may hold "{i}", the
              repetition's index, when "numbered": true); S is UTF-8, with lone surrogates
              \\udc80-\\udcff standing for raw bytes 0x80-0xff (Python's surrogateescape)
    dirs      empty directories made in the temporary directory (a directory as the input)
    argv      the arguments after the binary; an item is a string (raw bytes as above) or
              {"parts": [...]}; "{src}" is the source directory; the working directory is the
              case's temporary directory, and runs write only below it (--out out/run)
    python    instead of argv: {"func": "validate" | "run" | "topology", "args": [...],
              "kwargs": {...}}; {"$float": "nan"} stands for a float JSON cannot hold
    expect    {"exit": N or [N, ...], "message": [S or [S, ...], ...]}: the exit status, and
              substrings the message must contain (case-insensitive; a list is any one of its
              items). The message is stderr up to the first line starting with "usage:" (the
              usage text that follows a usage error does not count). For python cases the
              status is 0 (returned), 1 (mrcsim.SpecError), 4 (TypeError) or 3 (anything else)
              and the message is the exception's.
    timeout   seconds (default 20; cases that hang today have less so that a run stays short)

Expectations are what a careful user deserves, not what the binary does today: a case fails
until the defect it covers is fixed. Do not weaken one to make it pass; if a case is in fact
valid input, make it expect exit 0 and say why in its note.
"""
import argparse
import filecmp
import json
import os
import random
import re
import shutil
import sys
import tempfile

SEED = 20240611
HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")

# --------------------------------------------------------------------------------------------
# JSON text with what the json module cannot write: raw number tokens, duplicate keys.


class Raw:
    """A token written as is (1e400, NaN, a number nlohmann reads as a float...)."""

    def __init__(self, text):
        self.text = text


class Pairs:
    """An object written from a list of (key, value) pairs: keys may repeat."""

    def __init__(self, pairs):
        self.pairs = pairs


def dumps(v, top=True):
    """Top-level keys on lines of their own, nested values inline (readable, stable)."""
    if isinstance(v, Raw):
        return v.text
    if isinstance(v, (dict, Pairs)):
        items = v.pairs if isinstance(v, Pairs) else list(v.items())
        if not items:
            return "{}"
        body = [json.dumps(k, ensure_ascii=False) + ": " + dumps(x, top=False) for k, x in items]
        if top:
            return "{\n  " + ",\n  ".join(body) + "\n}\n"
        return "{" + ", ".join(body) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(dumps(x, top=False) for x in v) + "]" + ("\n" if top else "")
    return json.dumps(v, ensure_ascii=False) + ("\n" if top else "")


def clone(v):
    return json.loads(json.dumps(v))


def get(doc, path):
    for k in path:
        doc = doc[k]
    return doc


def put(doc, path, value):
    get(doc, path[:-1])[path[-1]] = value


def delete(doc, path):
    del get(doc, path[:-1])[path[-1]]


def leaf_key(path):
    """The key a message about `path` must name: its last key that is not a list index."""
    for k in reversed(path):
        if isinstance(k, str):
            return k
    return None


def dotted(path):
    return ".".join(str(k) for k in path)


def ident(*parts):
    s = ".".join(str(p) for p in parts if p != "")
    s = re.sub(r"[^A-Za-z0-9._-]+", "_", s)
    return s


# --------------------------------------------------------------------------------------------
# Valid inputs the mutations start from. Each validates on its own (the "valid.*" cases check
# that) and builds only multiplane-64 or smaller, so that a case takes a fraction of a second.

COLLECTIVES = {
    "name": "fuzz-collectives",
    "description": "collectives on multiplane-64",
    "seed": 5,
    "topology": {"preset": "multiplane-64"},
    "transport": [
        {"type": "mrc", "label": "mrc", "attributes": {"ns3::MrcQueuePair::EvCount": 64}},
        {"type": "rocev2", "label": "roce", "qps_per_connection": 4},
    ],
    "workloads": [
        {"type": "ring_allreduce", "name": "ring", "gpus": {"first": 0, "count": 16, "stride": 2},
         "group_size": 8, "placement": "strided", "bytes": 1048576, "pipelined": True, "channels": 2,
         "chunk_bytes": 131072, "slots": 4, "iterations": 2, "compute_us": 5, "start_us": 1},
        {"type": "hd_allreduce", "name": "hd", "gpus": [32, 33, 34, 35, 36, 37, 38, 39], "group_size": 4,
         "bytes": 65536},
        {"type": "all_to_all", "name": "a2a", "gpus": "all", "mode": "pairwise", "bytes": 4096},
    ],
    "stop": {"sim_time_us": 10000, "wall_time_s": 60},
    "outputs": {"sample_interval_us": 5, "pcap": [{"id": 3}], "ports": [{"gpu": 1, "plane": 0}]},
}

PATTERNS = {
    "name": "fuzz-patterns",
    "seed": 9,
    "topology": {"preset": "multiplane-64"},
    "transport": {"type": "mrc"},
    "workloads": [
        {"type": "permutation", "name": "perm", "gpus": {"first": 0, "count": 8}, "bytes": 65536,
         "iterations": 1, "compute_us": 0},
        {"type": "incast", "name": "incast", "gpus": [0, 1, 2, 3, 4, 5, 6, 7], "receiver": 0, "senders": 3,
         "bytes": 8192},
        {"type": "random", "name": "bg", "gpus": {"first": 8, "count": 8}, "load": 0.5, "duration_us": 100,
         "bytes": 4096},
    ],
    "failures": [
        {"type": "link_down", "at_us": 10, "link": {"id": 5}},
        {"type": "link_up", "at_us": 20, "link": {"gpu": 3, "plane": 1}},
        {"type": "link_flap", "at_us": 30, "link": {"plane": 2, "t0": 1, "t1": 3}, "period_us": 10, "count": 2},
        {"type": "switch_down", "at_us": 40, "plane": 1, "tier": 1, "index": 2},
        {"type": "switch_up", "at_us": 50, "plane": 1, "tier": 1, "index": 2},
        {"type": "plane_down", "at_us": 60, "plane": 7},
        {"type": "plane_up", "at_us": 70, "plane": 7},
        {"type": "port_down", "at_us": 80, "gpu": 9, "plane": 4},
        {"type": "port_up", "at_us": 90, "gpu": 9, "plane": 4},
        {"type": "gray", "at_us": 100, "link": {"plane": 3, "t0": 0, "up_port": 2}, "loss_rate": 0.01,
         "rate_factor": 0.5},
        {"type": "random_links", "at_us": 5, "link_class": "t0-t1", "mtbf_us": 1000000, "mttr_us": 50,
         "until_us": 500},
    ],
    "link_loss": [{"link_class": "gpu-t0", "rate": 0.001}],
}

SWEEP = {
    "name": "fuzz-sweep",
    "seed": 1,
    "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc", "label": "mrc", "attributes": {"ns3::MrcQueuePair::EvCount": 128}}],
    "workloads": [{"type": "all_to_all", "name": "a2a", "gpus": {"first": 0, "count": 8}, "bytes": 65536}],
    "sweep": {"parameters": {"workloads.0.bytes": [4096, 8192]}, "seeds": [1, 2]},
}

MULTIPLANE_SPEC = {
    "kind": "multiplane", "name": "mp", "planes": 2, "port_rate_gbps": 200, "gpus": 16, "t0_down_ports": 8,
    "t0_up_ports": 8, "t0_per_plane": 2, "t1_per_plane": 4, "switch_ports": 16, "link_delay_ns": 500,
    "nic_port_planes": [1, 0], "power": {"switch_watts": 500, "port_watts_per_100g": 1.5},
}
FAT_TREE_SPEC = {"kind": "fat_tree", "name": "ft", "tiers": 2, "radix": 8, "port_rate_gbps": 400, "gpus": 32,
                 "link_delay_ns": 100}
RAIL_SPEC = {"kind": "rail_optimized", "name": "rail", "tiers": 3, "radix": 8, "port_rate_gbps": 400, "gpus": 64,
             "gpus_per_server": 4, "link_delay_ns": 100}

SPEC_SCENARIO = {
    "name": "fuzz-spec",
    "topology": {"spec": MULTIPLANE_SPEC},
    "transport": {"type": "rocev2", "qps_per_connection": 2},
    "workloads": [{"type": "all_to_all", "name": "a2a", "gpus": "all", "bytes": 4096}],
}

# A scenario that runs in a fraction of a second: 2 GPUs, one 4 KiB message.
TINY_RUN = {
    "name": "fuzz-tiny",
    "topology": {"preset": "multiplane-64"},
    "transport": {"type": "mrc"},
    "workloads": [{"type": "permutation", "name": "p", "gpus": {"first": 0, "count": 2}, "bytes": 4096}],
}

BASES = {"coll": COLLECTIVES, "pat": PATTERNS, "sweep": SWEEP, "spec": SPEC_SCENARIO}
FABRICS = {"mp": MULTIPLANE_SPEC, "ft": FAT_TREE_SPEC, "rail": RAIL_SPEC}

# --------------------------------------------------------------------------------------------
# What each numeric key accepts: (integer?, lo, hi, lo excluded?). Time keys that exclude 0
# must also be at least the time resolution (1 ps = 1e-6 us): a smaller one is 0 in the
# simulator (an interval of 0 never advances, a period of 0 divides by zero).
# Message sizes are RDMA WRITE lengths, 32 bits on the wire: `bytes` of a workload whose
# messages are its bytes (all_to_all per pair, permutation, incast, random) is < 2^32.

E53 = 2 ** 53
U32 = 2 ** 32 - 1
T = 1e12
RES = 1e-6
SCENARIO_RANGES = {
    "seed": (True, 0, E53, False),
    "bytes": (True, 1, E53, False),
    "bytes<2^32": (True, 1, U32, False),
    "chunk_bytes": (True, 1, E53, False),
    "start_us": (False, 0, T, False),
    "compute_us": (False, 0, T, False),
    "iterations": (True, 1, 1000000, False),
    "group_size": (True, 2, U32, False),  # and it divides the GPUs (an out-of-range one never does here)
    "channels": (True, 1, 64, False),
    "slots": (True, 1, 64, False),
    "senders": (True, 1, 7, False),  # the incast's GPUs other than the receiver
    "receiver": (True, 0, 7, False),  # one of the incast's GPUs (0..7)
    # load: a fraction of the line rate, at least a millionth (below it nothing would be posted).
    "load": (False, 1e-6, 1, False),
    "duration_us": (False, RES, T, False),
    "first": (True, 0, 63, False),
    "count": (True, 1, 8, False),  # gpus.count (first 0/8, stride 1/2: at most 8 of 64 fit anyway)
    "stride": (True, 1, 2, False),
    "gpus": (True, 0, 63, False),
    "at_us": (False, 0, T, False),
    "period_us": (False, RES, T, False),
    "flap_count": (True, 1, 1000000, False),
    "plane": (True, 0, 7, False),
    "tier": (True, 0, 1, False),
    "index": (True, 0, 7, False),
    "gpu": (True, 0, 63, False),
    "id": (True, 0, 1023, False),
    "t0": (True, 0, 3, False),
    "t1": (True, 0, 7, False),
    "up_port": (True, 0, 15, False),
    "loss_rate": (False, 0, 1, False),
    # rate_factor scales a link's rate; below 1e-11 a 100G link carries < 1 b/s (and a packet
    # time overflows). The exact floor is the fixer's: 1e-12 and below must be refused.
    "rate_factor": (False, 1e-6, 1, False),
    "mtbf_us": (False, RES, T, False),
    "mttr_us": (False, RES, T, False),
    "until_us": (False, RES, T, False),
    "rate": (False, 0, 1, False),  # link_loss; 1 itself is refused too
    "sim_time_us": (False, RES, T, False),
    "wall_time_s": (False, 0, T, True),
    "sample_interval_us": (False, 0.1, 1e6, False),
    "qps_per_connection": (True, 1, 64, False),
    "seeds": (True, 0, E53, False),
    "seeds_count": (True, 1, 1000, False),
}
FABRIC_RANGES = {
    "planes": (True, 1, 64, False),
    "port_rate_gbps": (False, 1, 16000, False),
    "gpus": (True, 1, 2 ** 24, False),
    "t0_down_ports": (True, 1, 4096, False),
    "t0_up_ports": (True, 1, 4096, False),
    "t0_per_plane": (True, 1, 4096, False),
    "t1_per_plane": (True, 1, 4096, False),
    "switch_ports": (True, 1, 65535, False),
    "link_delay_ns": (True, 0, 10 ** 9, False),
    "nic_port_planes": (True, 0, 63, False),
    "switch_watts": (False, 0, 1e5, False),
    "port_watts_per_100g": (False, 0, 1e3, False),
    "tiers": (True, 2, 4, False),
    "radix": (True, 4, 4096, False),
    "gpus_per_server": (True, 1, 1024, False),
}

# The extreme values, as JSON tokens and as Python values (None: not a finite number).
EXTREMES = [
    ("neg1", "-1", -1),
    ("zero", "0", 0),
    ("2e31", str(2 ** 31), 2 ** 31),
    ("2e32", str(2 ** 32), 2 ** 32),
    ("2e63", str(2 ** 63), 2 ** 63),
    ("2e64", str(2 ** 64), 2 ** 64),
    ("1e400", "1e400", None),
    ("neg1e400", "-1e400", None),
    ("1e-320", "1e-320", 1e-320),
    ("nan-str", '"NaN"', None),
    ("inf-str", '"Infinity"', None),
    ("1.5", "1.5", 1.5),
    ("neg0.0", "-0.0", -0.0),
]


def accepts(rng_, token, value):
    """Whether a key with range `rng_` accepts the JSON token `token` (value `value`)."""
    integer, lo, hi, open_lo = rng_
    if value is None:
        return False
    is_int_token = re.fullmatch(r"-?[0-9]+", token) is not None and abs(value) < 2 ** 64
    if integer:
        return is_int_token and lo <= value <= hi
    return (value > lo if open_lo else value >= lo) and value <= hi


def range_name(path, base_doc):
    """The SCENARIO_RANGES entry of a numeric leaf."""
    k = leaf_key(path)
    if path[:2] == ("sweep", "parameters"):
        return "bytes<2^32"  # the sweep's values of workloads.0.bytes (an all-to-all)
    if k == "bytes":
        w = get(base_doc, path[:-1])
        return "bytes"  # a message above 2^31 bytes is posted as several RDMA writes
    if k == "count":
        return "flap_count" if path[0] == "failures" else ("seeds_count" if path[0] == "sweep" else "count")
    return k


# --------------------------------------------------------------------------------------------

class Corpus:
    def __init__(self, files_dir):
        self.files_dir = files_dir
        self.cases = []
        self.ids = set()

    def add(self, kind, mutation, cid, note, expect, argv=None, files=None, generate=None, dirs=None,
            python=None, timeout=None):
        assert cid not in self.ids, cid
        assert re.fullmatch(r"[A-Za-z0-9._-]+", cid), cid
        self.ids.add(cid)
        case = {"id": cid, "kind": kind, "mutation": mutation, "note": note}
        if files:
            case["files"] = sorted(files)
        if generate:
            case["generate"] = generate
        if dirs:
            case["dirs"] = dirs
        if argv is not None:
            case["argv"] = argv
        if python is not None:
            case["python"] = python
        case["expect"] = expect
        if timeout:
            case["timeout"] = timeout
        self.cases.append(case)

    def write(self, name, content):
        data = content.encode("utf-8", "surrogateescape") if isinstance(content, str) else content
        with open(os.path.join(self.files_dir, name), "wb") as f:
            f.write(data)
        return name


def err(*message, exit=1):
    return {"exit": exit, "message": list(message)}


def key(k):
    """A JSON key as a message names it: in a path ("at /workloads/0/bytes") or quoted. (A bare
    word would be found in any message: "name" in "not a valid name".)"""
    if "::" in k:
        return k  # ns-3 attribute names are distinctive as they are
    return ["/" + k, '"' + k + '"', "'" + k + "'"]


def anykey(ks):
    """Any of several keys, each as key() finds it."""
    ks = ks if isinstance(ks, list) else [ks]
    return [form for k in ks for form in key(k)]


OK = {"exit": 0, "message": []}


def scenario_case(c, mutation, cid, note, text, expect, timeout=None):
    """mrcsim validate <id>.json; the message must name the file and whatever `expect` adds."""
    name = c.write(cid + ".json", text)
    if expect["exit"] != 0:
        expect = dict(expect, message=[name] + expect["message"])
    c.add("scenario", mutation, cid, note, expect, argv=["validate", name], files=[name],
          timeout=timeout)


def walk(v, path=()):
    """Every (path, value) below v, containers included (the root excluded)."""
    if isinstance(v, dict):
        for k, x in v.items():
            yield path + (k,), x
            yield from walk(x, path + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            yield path + (i,), x
            yield from walk(x, path + (i,))


def kind_of(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list):
        return "array"
    if isinstance(v, dict):
        return "object"
    return "null"


SWAPS = {
    "string": [("num", 42), ("bool", True), ("null", None), ("array", ["x"]), ("object", {"x": 1})],
    "int": [("str", "8"), ("bool", True), ("null", None), ("array", [8]), ("object", {"v": 8}), ("float", 2.5)],
    "number": [("str", "5"), ("bool", False), ("null", None), ("array", [5]), ("object", {})],
    "bool": [("str", "true"), ("num", 1), ("null", None), ("array", [True])],
    "array": [("str", "all"), ("num", 0), ("object", {}), ("null", None)],
    "object": [("str", "x"), ("num", 1), ("array", []), ("null", None)],
}


def swap_is_valid(path, new):
    """Type swaps that land on a form the format allows."""
    if path[-1] == "gpus":
        return new == "all"  # "all", a list or {"first", "count", "stride"}
    if path == ("sweep",) and new is None:
        return True  # "sweep": null is how one point of a sweep runs
    return False


# Which keys of each base the type swaps and extreme numbers visit (the others repeat coll's).
VISIT = {"coll": None, "pat": ("workloads", "failures", "link_loss"), "sweep": ("sweep",), "spec": ()}


def visited(bname, path, value):
    """Whether the type swaps and extreme numbers visit `path` of base `bname`."""
    if VISIT[bname] is not None and path[0] not in VISIT[bname]:
        return False
    if bname == "spec":
        return False
    if len(path) >= 2 and path[-2] == "attributes":
        return False  # attribute values are strings, numbers or booleans, checked by type below
    if isinstance(path[-1], int) and path[-1] > 0 and not isinstance(value, (dict, list)):
        return False  # the first item of a list of scalars stands for the others
    if bname == "pat" and path[0] == "failures" and len(path) > 1:
        if path[1] in (4, 6, 8):
            return False  # switch_up, plane_up, port_up read like their _down
        if path[-1] == "at_us" and path[1] not in (0, 10):
            return False
    return True


def gen_scenarios(c, rnd):
    # The valid bases themselves.
    for bname, base in sorted(BASES.items()):
        scenario_case(c, "valid", ident("valid.scn", bname), "an unmutated base scenario: valid", dumps(base), OK)

    # Type swaps: one per key and value type (the type chosen by the seed), over every key of every
    # base; a key met again in another base or list entry is not swapped again.
    seen = set()
    for bname, base in sorted(BASES.items()):
        for path, value in walk(base):
            if not visited(bname, path, value) or (leaf_key(path), kind_of(value)) in seen:
                continue
            seen.add((leaf_key(path), kind_of(value)))
            options = SWAPS[kind_of(value)]
            rname = range_name(path, base) if kind_of(value) == "int" else None
            if rname in SCENARIO_RANGES and not SCENARIO_RANGES[rname][0]:
                options = [o for o in options if o[0] != "float"]  # 2.5 is fine where any number is
            for tag, new in rnd.sample(options, 1):
                doc = clone(base)
                put(doc, path, new)
                cid = ident("scn.type", bname, dotted(path), tag)
                if swap_is_valid(path, new):
                    scenario_case(c, "type-swap", cid, f"{dotted(path)} = {json.dumps(new)}: an allowed form",
                                  dumps(doc), OK)
                else:
                    scenario_case(c, "type-swap", cid, f"{dotted(path)}: {kind_of(value)} -> {json.dumps(new)}",
                                  dumps(doc), err(key(leaf_key(path))))

    # Extreme numbers: for each numeric key (once per range), two of the values it must refuse
    # (chosen by the seed), plus every extreme on the keys with known defects.
    always = {
        ("workloads", 2, "bytes"): ["2e32", "2e63", "2e64", "1e400"],
        ("workloads", 1, "bytes"): ["2e32", "1e400", "neg1e400"],
        ("failures", 9, "rate_factor"): ["1e-320"],
        ("seed",): ["1e400", "2e64"],
        ("outputs", "sample_interval_us"): ["1e-320", "neg1e400"],
    }
    seen = set()
    for bname, base in sorted(BASES.items()):
        for path, value in walk(base):
            if kind_of(value) not in ("int", "number") or not visited(bname, path, value):
                continue
            rname = range_name(path, base)
            if (rname, leaf_key(path)) in seen and path not in always:
                continue
            seen.add((rname, leaf_key(path)))
            rng_ = SCENARIO_RANGES[rname]
            bad = [e for e in EXTREMES if not accepts(rng_, e[1], e[2])]
            chosen = {e[0] for e in rnd.sample(bad, 1)}
            chosen |= {e[0] for e in bad if e[0] in always.get(path, []) and bname in ("coll", "pat")}
            for tag, token, v in EXTREMES:
                if tag not in chosen:
                    continue
                doc = clone(base)
                put(doc, path, Raw(token))
                cid = ident("scn.range", bname, dotted(path), tag)
                scenario_case(c, "range", cid, f"{dotted(path)} = {token} (accepted: {rname} {rng_})", dumps(doc),
                              err(key(leaf_key(path))))
    # Values just inside the ranges with a defect nearby: must stay valid.
    for cid, path, token, note in [
        ("scn.range.coll.workloads.2.bytes.max", ("workloads", 2, "bytes"), str(U32), "2^32-1 bytes per pair: valid"),
        ("scn.range.coll.workloads.0.bytes.2e32", ("workloads", 0, "bytes"), str(2 ** 32),
         "a ring's buffer of 4 GiB (its messages are chunks): valid"),
        ("scn.range.coll.seed.max", ("seed",), str(E53), "seed 2^53: valid"),
    ]:
        doc = clone(COLLECTIVES if ".coll." in cid else PATTERNS)
        put(doc, path, Raw(token))
        scenario_case(c, "range", cid, note, dumps(doc), OK)
    # Attribute values (ns-3 attributes are checked against their types).
    for tag, token in [("neg1", "-1"), ("2e64", str(2 ** 64)), ("nan-str", '"NaN"'), ("1.5", "1.5"),
                       ("null", "null"), ("array", "[64]"), ("1e400", "1e400"), ("empty-str", '""')]:
        doc = clone(COLLECTIVES)
        doc["transport"][0]["attributes"]["ns3::MrcQueuePair::EvCount"] = Raw(token)
        scenario_case(c, "range", ident("scn.attr.EvCount", tag), f"EvCount = {token}", dumps(doc),
                      err("EvCount"))

    # Enumerations: values that are not among the allowed ones.
    for path, base, bname in [(("topology", "preset"), COLLECTIVES, "coll"), (("transport", 0, "type"), COLLECTIVES, "coll"),
                              (("workloads", 0, "type"), COLLECTIVES, "coll"), (("workloads", 0, "placement"), COLLECTIVES, "coll"),
                              (("workloads", 2, "mode"), COLLECTIVES, "coll"), (("failures", 0, "type"), PATTERNS, "pat"),
                              (("failures", 10, "link_class"), PATTERNS, "pat"), (("link_loss", 0, "link_class"), PATTERNS, "pat")]:
        variants = [("empty", ""), ("upper", get(base, path).upper()), ("space", " " + get(base, path))]
        for tag, new in [variants[len(c.cases) % 3]]:
            doc = clone(base)
            put(doc, path, new)
            scenario_case(c, "enum", ident("scn.enum", bname, dotted(path), tag), f"{dotted(path)} = {new!r}",
                          dumps(doc), err(key(leaf_key(path))))

    # Missing required keys.
    required = [
        ("coll", ("name",)), ("coll", ("topology",)), ("coll", ("transport",)), ("coll", ("workloads",)),
        ("coll", ("transport", 0, "type")), ("coll", ("workloads", 0, "type")), ("coll", ("workloads", 0, "bytes")),
        ("coll", ("workloads", 0, "gpus", "first")), ("coll", ("workloads", 0, "gpus", "count")),
        ("coll", ("topology", "preset")),
        ("pat", ("workloads", 1, "receiver")), ("pat", ("workloads", 1, "senders")), ("pat", ("workloads", 2, "load")),
        ("pat", ("workloads", 2, "duration_us")), ("pat", ("failures", 0, "type")), ("pat", ("failures", 0, "at_us")),
        ("pat", ("failures", 0, "link")), ("pat", ("failures", 2, "period_us")), ("pat", ("failures", 2, "count")),
        ("pat", ("failures", 3, "plane")), ("pat", ("failures", 3, "tier")), ("pat", ("failures", 3, "index")),
        ("pat", ("failures", 7, "gpu")), ("pat", ("failures", 7, "plane")), ("pat", ("failures", 10, "link_class")),
        ("pat", ("failures", 10, "mtbf_us")), ("pat", ("failures", 10, "mttr_us")), ("pat", ("failures", 10, "until_us")),
        ("pat", ("link_loss", 0, "rate")), ("pat", ("link_loss", 0, "link_class")),
        ("pat", ("failures", 2, "link", "t1")), ("pat", ("failures", 1, "link", "plane")),
        ("sweep", ("sweep", "parameters")),  # seeds alone: valid (see below)
        ("sweep", ("sweep", "seeds")),  # parameters alone: valid
        ("spec", ("topology", "spec", "kind")), ("spec", ("topology", "spec", "gpus")),
        ("spec", ("topology", "spec", "t1_per_plane")),
    ]
    for bname, path in required:
        doc = clone(BASES[bname])
        delete(doc, path)
        ok = path[0] == "sweep"  # a sweep of seeds only, or of parameters only
        scenario_case(c, "missing-key", ident("scn.missing", bname, dotted(path)),
                      f"{dotted(path)} removed" + (": valid" if ok else ""), dumps(doc), OK if ok else err(key(leaf_key(path))))
    doc = clone(SWEEP)
    doc["sweep"] = {}
    scenario_case(c, "missing-key", "scn.missing.sweep.sweep.both", "a sweep of nothing (no parameters, no seeds)",
                  dumps(doc), err(["parameters", "seeds"]))

    # Unknown keys, at every level (and near misses of real keys).
    unknown = [
        ("coll", (), "bogus_key"), ("coll", (), "Name"), ("coll", ("topology",), "bogus_key"),
        ("coll", ("transport", 0), "bogus_key"), ("coll", ("transport", 0, "attributes"), "bogus_key"),
        ("coll", ("workloads", 0), "byte"), ("coll", ("workloads", 0, "gpus"), "strid"),
        ("coll", ("stop",), "wall_time"), ("coll", ("outputs",), "pcaps"), ("coll", ("outputs", "pcap", 0), "link"),
        ("pat", ("failures", 0), "at"), ("pat", ("failures", 0, "link"), "uplink"), ("pat", ("link_loss", 0), "rates"),
        ("sweep", ("sweep",), "seed"), ("spec", ("topology", "spec"), "plane"),
        ("spec", ("topology", "spec", "power"), "watts"), ("coll", (), ""),
    ]
    for bname, path, k in unknown:
        doc = clone(BASES[bname])
        get(doc, path)[k] = 1
        expect = err(key(k)) if k else err('""')
        scenario_case(c, "unknown-key", ident("scn.unknown", bname, dotted(path) or "top", k or "empty"),
                      f"unknown key {k!r} in /{dotted(path)}", dumps(doc), expect)

    # Duplicate keys: JSON allows them syntactically, but one silently wins.
    dups = [
        ((), "name", "other"), ((), "seed", 5), ((), "topology", {"preset": "multiplane-512"}),
        (("workloads", 0), "bytes", 65536), (("workloads", 0), "type", "all_to_all"), (("transport", 1), "label", "roce"),
        (("stop",), "sim_time_us", 20), (("workloads", 0, "gpus"), "count", 4),
    ]
    for path, k, value in dups:
        doc = clone(COLLECTIVES)
        obj = get(doc, path)
        pairs = list(obj.items())
        i = [x for x, _ in pairs].index(k)
        pairs.insert(i + 1, (k, value))
        if path:
            put(doc, path, Pairs(pairs))
        else:
            doc = Pairs(pairs)
        scenario_case(c, "duplicate-key", ident("scn.dup", dotted(path) or "top", k),
                      f"key {k!r} twice in /{dotted(path)}", dumps(doc), err(key(k)))

    # Names and labels: they become file and directory names and table columns.
    names = [("dot", ".", False), ("dotdot", "..", False), ("empty", "", False), ("slash", "a/b", False),
             ("parent", "../x", False), ("abs", "/tmp/x", False), ("space", "a b", False), ("backslash", "a\\b", False),
             ("nul", "a\u0000b", False), ("accent", "caf\u00e9", False), ("newline", "a\nb", False),
             ("inner-dots", "a...b", True), ("dotted", "a.b-c_d", True)]
    for path in [("name",), ("transport", 1, "label"), ("workloads", 0, "name")]:
        for tag, value, ok in names:
            if path != ("name",) and tag not in ("dot", "dotdot", "empty", "slash", "inner-dots"):
                continue
            doc = clone(COLLECTIVES)
            put(doc, path, value)
            cid = ident("scn.name", dotted(path), tag)
            scenario_case(c, "name", cid, f"{dotted(path)} = {value!r}" + (": valid" if ok else ""), dumps(doc),
                          OK if ok else err(key(leaf_key(path))))

    # Not a scenario object at all, empty files, JSON that is not quite JSON.
    text = dumps(COLLECTIVES)
    for tag, content in [("empty", ""), ("space", "  \n\t\n"), ("bom-only", "\ufeff"), ("null", "null"),
                         ("array", "[]"), ("number", "42"), ("string", '"scenario"'), ("true", "true"),
                         ("nul-byte", "\u0000"), ("comment", "// a scenario\n" + text),
                         ("trailing-comma", text.rstrip().rstrip("}").rstrip() + ",\n}\n"),
                         ("single-quotes", text.replace('"', "'")), ("nan-literal", text.replace('"seed": 5', '"seed": NaN')),
                         ("two-documents", text + text), ("unclosed-string", '{"name": "abc')]:
        scenario_case(c, "empty" if tag in ("empty", "space", "bom-only") else "syntax", ident("scn.syntax", tag),
                      f"{tag}", content, err())
    scenario_case(c, "syntax", "scn.syntax.bom-valid", "a UTF-8 byte order mark before a valid document: valid",
                  "\ufeff" + text, OK)

    # Truncated files, at offsets spread over the document.
    for frac in (0.1, 0.25, 0.4, 0.5, 0.63, 0.77, 0.9, 0.99):
        n = int(len(text) * frac)
        scenario_case(c, "truncated", ident("scn.truncated", f"{n}of{len(text)}"), f"the first {n} bytes",
                      text[:n], err())
    utf = dumps(dict(COLLECTIVES, description="caf\u00e9 \u2603"))
    cut = utf.encode("utf-8").index("\u2603".encode("utf-8")) + 1
    scenario_case(c, "truncated", "scn.truncated.mid-utf8", "cut in the middle of a 3-byte UTF-8 character",
                  utf.encode("utf-8")[:cut], err())

    # Invalid UTF-8 (in values and in keys) and escapes of lone surrogates.
    for tag, raw in [("ff", b"\xff"), ("lone-continuation", b"\x80"), ("overlong-slash", b"\xc0\xaf"),
                     ("cesu-surrogate", b"\xed\xa0\x80"), ("truncated-seq", b"\xe2\x82"), ("beyond-unicode", b"\xf4\x90\x80\x80")]:
        body = dumps(COLLECTIVES).encode("utf-8")
        scenario_case(c, "utf8", ident("scn.utf8.description", tag), f"description holds {raw!r}",
                      body.replace(b"collectives on multiplane-64", b"coll" + raw + b"ectives"), err())
    body = dumps(COLLECTIVES).encode("utf-8")
    scenario_case(c, "utf8", "scn.utf8.key", "a key holds 0xff", body.replace(b'"stop"', b'"st\xffop"'), err())
    scenario_case(c, "utf8", "scn.utf8.name", "the name holds 0xfe 0xff", body.replace(b"fuzz-collectives", b"fuzz\xfe\xff"),
                  err())
    for tag, esc in [("high", "\\ud800"), ("low", "\\udc00"), ("reversed", "\\udc00\\ud800")]:
        scenario_case(c, "utf8", ident("scn.utf8.escape", tag), f"description holds the escape {esc}",
                      text.replace("collectives on multiplane-64", "x" + esc + "y"), err())
    scenario_case(c, "utf8", "scn.utf8.escape-pair-valid", "a proper surrogate pair escape: valid",
                  text.replace("collectives on multiplane-64", "\\ud83d\\ude00"), OK)

    # Deep nesting. Moderate depth is committed; 100,000 levels are generated at run time.
    deep_committed = [
        ("description-arrays-1000", "description", "[" * 1000 + "]" * 1000),
        ("unknown-objects-1000", "x", '{"a":' * 1000 + "1" + "}" * 1000),
    ]
    for tag, k, value in deep_committed:
        body = text.replace('"description": "collectives on multiplane-64"', json.dumps(k) + ": " + value)
        scenario_case(c, "deep-nesting", ident("scn.deep", tag), f"{k}: {tag}", body, err())
    prefix = text[: text.index('"description"')]
    suffix = text[text.index('"seed"'):]
    deep_generated = [
        ("top-arrays-100000", [{"repeat": "[", "count": 100000}, {"repeat": "]", "count": 100000}]),
        ("top-objects-100000", [{"repeat": '{"a":', "count": 100000}, {"text": "1"}, {"repeat": "}", "count": 100000}]),
        ("description-arrays-100000", [{"text": prefix + '"description": '}, {"repeat": "[", "count": 100000},
                                       {"repeat": "]", "count": 100000}, {"text": ",\n  " + suffix}]),
        ("workloads-objects-100000", [{"text": prefix.replace('"name": "fuzz-collectives"', '"workloads": [')},
                                      {"repeat": '{"type":', "count": 100000}, {"text": "1"},
                                      {"repeat": "}", "count": 100000}, {"text": '], "name": "x"}'}]),
        ("unclosed-arrays-100000", [{"repeat": "[", "count": 100000}]),
    ]
    for tag, parts in deep_generated:
        cid = ident("scn.deep", tag)
        c.add("scenario", "deep-nesting", cid, f"{tag} (generated)", err(cid + ".json"),
              argv=["validate", cid + ".json"], generate=[{"name": cid + ".json", "parts": parts}])

    # Huge strings (generated): 200 KB.
    big = 200000
    huge = [
        ("description", '"description": "collectives on multiplane-64"', '"description": "', True,
         "a 200 KB description: valid"),
        ("name", '"name": "fuzz-collectives"', '"name": "', False, "a 200 KB name (names become file names)"),
        ("label", '"label": "roce"', '"label": "', False, "a 200 KB transport label (labels become directory names)"),
        ("bytes-string", '"bytes": 4096', '"bytes": "', False, "a 200 KB string for bytes"),
    ]
    for tag, old, new, ok, note in huge:
        cid = ident("scn.huge", tag)
        i = text.index(old)
        parts = [{"text": text[:i] + new}, {"repeat": "a", "count": big}, {"text": '"' + text[i + len(old):]}]
        k = {"description": None, "name": "name", "label": "label", "bytes-string": "bytes"}[tag]
        c.add("scenario", "huge", cid, note, OK if ok else err(cid + ".json", key(k)), argv=["validate", cid + ".json"],
              generate=[{"name": cid + ".json", "parts": parts}])
    cid = "scn.huge.unknown-key"
    c.add("scenario", "huge", cid, "a 200 KB unknown key", err(cid + ".json", "unknown"),
          argv=["validate", cid + ".json"],
          generate=[{"name": cid + ".json", "parts": [{"text": '{"'}, {"repeat": "k", "count": big},
                                                      {"text": '": 1, ' + text.strip()[1:]}]}])
    cid = "scn.huge.whitespace"
    c.add("scenario", "huge", cid, "200 KB of whitespace before a valid document: valid", OK,
          argv=["validate", cid + ".json"],
          generate=[{"name": cid + ".json", "parts": [{"repeat": " \n", "count": big // 2}, {"text": text}]}])
    cid = "scn.huge.gpu-list"
    c.add("scenario", "huge", cid, "a list of 100,000 GPU indices (repeats)", err(cid + ".json", key("gpus")),
          argv=["validate", cid + ".json"],
          generate=[{"name": cid + ".json", "parts": [
              {"text": text[: text.index("[32, 33")] + "["}, {"repeat": "32, ", "count": 100000},
              {"text": "32" + text[text.index("39]") + 2:]}]}])


def gen_cli_sets(c):
    """--set overrides: bad paths, bad values, raw bytes."""
    base = c.write("cli.set.base.json", dumps(COLLECTIVES))
    sets = [
        ("no-equals", "name", [1, 2], ["name"]),
        ("empty-path", "=x", [1, 2], ["=x"]),
        ("empty-key", "workloads..bytes=1", [1, 2], ["workloads..bytes"]),
        ("dot-only", ".=1", [1, 2], [".=1"]),
        ("index-huge", "workloads.99999999999.bytes=1", [1, 2], ["99999999999"]),
        ("index-negative", "workloads.-1.bytes=1", [1, 2], ["-1"]),
        ("index-range", "workloads.3.bytes=1", [1, 2], ["workloads"]),
        ("through-string", "name.x=1", [1, 2], ["name"]),
        ("through-number", "seed.x.y=1", [1, 2], ["seed"]),
        ("missing-parent", "stop2.x=1", [1, 2], ["stop2"]),
        ("bytes-1e400", "workloads.2.bytes=1e400", [1], ["bytes"]),
        ("bytes-2e32", "workloads.2.bytes=4294967296", [0], []),  # valid: split into RDMA writes
        ("bytes-2e64", "workloads.2.bytes=18446744073709551616", [1], ["bytes"]),
        ("seed-nan", "seed=NaN", [1], ["seed"]),
        ("seed-neg", "seed=-1", [1], ["seed"]),
        ("name-dot", "name=.", [1], ["name"]),
        ("label-dotdot", "transport.1.label=..", [1], ["label"]),
        ("workloads-empty", "workloads=[]", [1], ["workloads"]),
        ("workload-number", "workloads.0=5", [1], ["workloads"]),
        ("sample-interval-tiny", "outputs.sample_interval_us=1e-9", [1], ["sample_interval_us"]),
        ("deep-path", ".".join(["a"] * 5000) + "=1", [1, 2], ["a"]),
        # Raw bytes: \udcXX is byte 0xXX on the command line.
        ("utf8-description", "description=\udcff\udcfe", [1, 2], ["description"]),
        ("utf8-description-overlong", "description=\udcc0\udcaf", [1, 2], ["description"]),
        ("utf8-name", "name=\udcff", [1, 2], ["name"]),
        ("utf8-attribute", "transport.0.attributes.ns3::MrcQueuePair::EvCount=\udcff", [1, 2], ["EvCount"]),
        ("utf8-path", "\udcff=1", [1, 2], [["\udcff", "\\xff", "utf-8", "utf8"]]),
        ("utf8-json-string", 'description="\udcff"', [1, 2], ["description"]),
    ]
    for tag, assignment, codes, message in sets:
        message = [key(m) + [m + "="] if m in ("name", "seed", "label", "bytes", "workloads") else m for m in message]
        cid = ident("cli.set", tag)
        c.add("cli", "set", cid, f"--set {assignment[:60]!r}", {"exit": codes, "message": message},
              argv=["validate", base, "--set", assignment], files=[base])
    # Deeply nested values on the command line (one argument is at most 128 KiB).
    cid = "cli.set.deep-value-60000"
    c.add("cli", "set", cid, "--set description=[[[...]]] 60,000 deep (generated)",
          {"exit": [1, 2], "message": ["description"]},
          argv=["validate", base, "--set", {"parts": [{"text": "description="}, {"repeat": "[", "count": 60000},
                                                      {"repeat": "]", "count": 60000}]}], files=[base])
    cid = "cli.set.deep-object-value-20000"
    c.add("cli", "set", cid, "--set workloads.0={\"a\":{\"a\":...}} 20,000 deep (generated)",
          {"exit": [1, 2], "message": ["workloads"]},
          argv=["validate", base, "--set", {"parts": [{"text": "workloads.0="}, {"repeat": '{"a":', "count": 20000},
                                                      {"text": "1"}, {"repeat": "}", "count": 20000}]}], files=[base])
    c.add("cli", "set", "cli.set.huge-name", "--set name=<100 KB>: names become file names",
          {"exit": [1, 2], "message": ["name"]},
          argv=["validate", base, "--set", {"parts": [{"text": "name="}, {"repeat": "n", "count": 100000}]}],
          files=[base])
    c.add("cli", "set", "cli.set.sweep-null-valid", "--set sweep=null on a scenario without a sweep: valid", OK,
          argv=["validate", base, "--set", "sweep=null"], files=[base])


def gen_cli(c):
    base = c.write("cli.base.json", dumps(COLLECTIVES))
    usage = [
        # (id, argv, exit, message)
        ("none", [], 2, []),  # usage alone on stderr
        ("empty-command", [""], 2, []),
        ("unknown-command", ["frobnicate"], 2, ["frobnicate"]),
        ("dash-command", ["--version"], 2, ["--version"]),
        ("validate.no-file", ["validate"], 2, ["scenario"]),
        ("validate.two-files", ["validate", base, "other.json"], 2, [["other.json", "one scenario"]]),
        ("validate.unknown-option", ["validate", base, "--bogus"], 2, ["--bogus"]),
        ("validate.set-no-value", ["validate", base, "--set"], 2, ["--set"]),
        ("validate.out", ["validate", base, "--out", "x"], 2, ["--out"]),
        ("validate.single-dash", ["validate", base, "-set", "seed=1"], 2, [["-set", "seed=1"]]),
        ("validate.help-valid", ["validate", "--help"], 0, []),
        ("run.no-file", ["run"], 2, ["scenario"]),
        ("run.no-file-quiet", ["run", "--quiet"], 2, ["scenario"]),
        ("run.out-no-value", ["run", base, "--out"], 2, ["--out"]),
        ("run.quiet-value", ["run", base, "--quiet=1", "--out", "out/run"], 2, ["--quiet"]),
        ("run.unknown-option", ["run", base, "--outt", "out/run"], 2, ["--outt"]),
        ("topo.none", ["topo"], 2, [["--preset", "--spec"]]),
        ("topo.both", ["topo", "--preset", "multiplane-64", "--spec", "x.json"], 2, [["--preset", "--spec"]]),
        ("topo.extra", ["topo", "--preset", "multiplane-64", "extra"], 2, ["extra"]),
        ("topo.unknown-option", ["topo", "--preset", "multiplane-64", "--planes", "2"], 2, ["--planes"]),
        ("topo.json-value", ["topo", "--preset", "multiplane-64", "--json=yes"], 2, ["--json"]),
        ("topo.graphml-no-value", ["topo", "--preset", "multiplane-64", "--graphml"], 2, ["--graphml"]),
        ("topo.fail-link-neg", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "-1"], 2, ["--fail-link"]),
        ("topo.fail-link-abc", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "abc"], 2, ["--fail-link"]),
        ("topo.fail-link-range", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "1024"], 2, ["--fail-link"]),
        ("topo.fail-link-2e32", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "4294967296"], 2, ["--fail-link"]),
        ("topo.fail-link-empty", ["topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", ""], 2, ["--fail-link"]),
        ("bench.none", ["bench"], 2, ["benchmark"]),
        ("bench.unknown", ["bench", "nope"], 2, ["nope"]),
        ("bench.unknown-option", ["bench", "topology", "--preset", "multiplane-64", "--fast"], 2, ["--fast"]),
        ("bench.topology.samples-abc", ["bench", "topology", "--preset", "multiplane-64", "--samples", "abc"], 2, ["--samples"]),
        ("bench.topology.samples-neg", ["bench", "topology", "--preset", "multiplane-64", "--samples", "-1"], 2, ["--samples"]),
        ("bench.topology.samples-2e64", ["bench", "topology", "--preset", "multiplane-64", "--samples",
                                         "18446744073709551616"], 2, ["--samples"]),
        ("bench.forwarding.both", ["bench", "forwarding", "--hosts", "8", "--preset", "multiplane-64"], 2, [["--hosts", "--preset"]]),
        ("bench.forwarding.hosts-abc", ["bench", "forwarding", "--hosts", "abc"], 2, ["--hosts"]),
        ("bench.forwarding.hosts-zero", ["bench", "forwarding", "--hosts", "0"], 2, ["--hosts"]),
        ("bench.forwarding.hosts-neg", ["bench", "forwarding", "--hosts", "-8"], 2, ["--hosts"]),
        ("bench.forwarding.hosts-2e32", ["bench", "forwarding", "--hosts", "4294967304"], 2, ["--hosts"]),
        ("bench.forwarding.packets-abc", ["bench", "forwarding", "--hosts", "8", "--packets", "abc"], 2, ["--packets"]),
        ("bench.forwarding.packets-neg", ["bench", "forwarding", "--hosts", "8", "--packets", "-1"], 2, ["--packets"]),
        ("bench.forwarding.payload-abc", ["bench", "forwarding", "--hosts", "8", "--payload", "4k"], 2, ["--payload"]),
        ("bench.forwarding.payload-huge", ["bench", "forwarding", "--hosts", "8", "--payload", "99999999999"], 2, ["--payload"]),
        ("bench.forwarding.payload-neg", ["bench", "forwarding", "--hosts", "8", "--payload", "-5"], 2, ["--payload"]),
        ("bench.forwarding.scheduler", ["bench", "forwarding", "--hosts", "8", "--scheduler", "ns3::NoSuchScheduler"], 2,
         ["ns3::NoSuchScheduler"]),
        ("bench.forwarding.scheduler-empty", ["bench", "forwarding", "--hosts", "8", "--scheduler", ""], 2, ["--scheduler"]),
        ("bench.forwarding.scheduler-not-scheduler", ["bench", "forwarding", "--hosts", "8", "--scheduler", "ns3::Object"], 2,
         ["ns3::Object"]),
        ("bench.perm.scheduler", ["bench", "perm-8192", "--preset", "perm-512", "--scheduler", "ns3::NoSuchScheduler"], 2,
         ["ns3::NoSuchScheduler"]),
        ("bench.perm.scheduler-utf8", ["bench", "perm-8192", "--preset", "perm-512", "--scheduler", "ns3::\udcff"], 2,
         ["--scheduler"]),
        ("bench.perm.bytes-abc", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "2MB"], 2, ["--bytes"]),
        ("bench.perm.bytes-zero", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "0"], 2, ["--bytes"]),
        ("bench.perm.bytes-neg", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "-1"], 2, ["--bytes"]),
        ("bench.perm.bytes-float", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "1e9"], 2, ["--bytes"]),
        ("bench.perm.bytes-hex", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "0x10"], 2, ["--bytes"]),
        ("bench.perm.bytes-empty", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", ""], 2, ["--bytes"]),
        ("bench.perm.bytes-2e32", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "4294967296"], 2, ["--bytes"]),
        ("bench.perm.bytes-2e63", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "9223372036854775808"], 2, ["--bytes"]),
        ("bench.perm.bytes-2e64m1", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "18446744073709551615"], 2,
         ["--bytes"]),
        ("bench.perm.bytes-2e64", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "18446744073709551616"], 2, ["--bytes"]),
        ("bench.perm.bytes-no-value", ["bench", "perm-8192", "--preset", "perm-512", "--bytes"], 2, ["--bytes"]),
        ("bench.perm.partitions-zero", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "0"], 2, ["--partitions"]),
        ("bench.perm.partitions-65", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "65"], 2, ["--partitions"]),
        ("bench.perm.partitions-2e32p2", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "4294967298"], 2,
         ["--partitions"]),
        ("bench.perm.partitions-abc", ["bench", "perm-8192", "--preset", "perm-512", "--partitions", "two"], 2, ["--partitions"]),
        ("bench.perm.seed-neg", ["bench", "perm-8192", "--preset", "perm-512", "--seed", "-1"], 2, ["--seed"]),
        ("bench.perm.preset", ["bench", "perm-8192", "--preset", "nope"], [1, 2], ["nope"]),
    ]
    for tag, argv, code, message in usage:
        cid = ident("cli", tag)
        uses = [a for a in argv if a == base]
        timeout = 5 if tag.startswith("bench.") else None
        c.add("cli", "usage", cid, " ".join(a if isinstance(a, str) else "<generated>" for a in argv)[:100],
              {"exit": code, "message": message}, argv=argv, files=[base] if uses else None, timeout=timeout)

    # Files that are not files: a directory, nothing, a device, an empty name.
    cid = "cli.validate.directory.json"
    c.add("cli", "path", cid, "a directory as the scenario", err(cid), argv=["validate", cid], dirs=[cid])
    cid = "cli.run.directory.json"
    c.add("cli", "path", cid, "a directory as the scenario of run", err(cid), argv=["run", cid, "--out", "out/run"],
          dirs=[cid])
    c.add("cli", "path", "cli.validate.missing", "a scenario file that does not exist", err("cli.validate.missing.json"),
          argv=["validate", "cli.validate.missing.json"])
    c.add("cli", "path", "cli.validate.dev-null", "/dev/null as the scenario", err("/dev/null"),
          argv=["validate", "/dev/null"])
    c.add("cli", "path", "cli.validate.dev-zero", "/dev/zero (endless NULs) as the scenario", err("/dev/zero"),
          argv=["validate", "/dev/zero"], timeout=10)
    c.add("cli", "path", "cli.validate.empty-name", "an empty file name", {"exit": [1, 2], "message": [["file", "scenario"]]},
          argv=["validate", ""])
    c.add("cli", "path", "cli.validate.utf8-name", "a file name with byte 0xff, missing",
          err([".json"]), argv=["validate", "cli\udcff.json"])
    cid = "cli.topo.spec-directory.json"
    c.add("cli", "path", cid, "a directory as the fabric spec", err(cid), argv=["topo", "--spec", cid], dirs=[cid])
    c.add("cli", "path", "cli.topo.spec-missing", "a fabric spec that does not exist", err("cli.topo.spec-missing.json"),
          argv=["topo", "--spec", "cli.topo.spec-missing.json"])
    c.add("cli", "path", "cli.topo.preset-unknown", "an unknown preset", {"exit": [1, 2], "message": ["nope"]},
          argv=["topo", "--preset", "nope"])
    c.add("cli", "path", "cli.topo.preset-empty", "an empty preset name", {"exit": [1, 2], "message": ["preset"]},
          argv=["topo", "--preset", ""])
    c.add("cli", "path", "cli.topo.graphml-no-dir", "--graphml into a directory that does not exist",
          err("cli.topo.graphml-no-dir.graphml"),
          argv=["topo", "--preset", "multiplane-64", "--no-groups", "--graphml", "nodir/cli.topo.graphml-no-dir.graphml"])
    cid = "cli.topo.graphml-is-dir"
    c.add("cli", "path", cid, "--graphml onto a directory", err(cid), dirs=[cid],
          argv=["topo", "--preset", "multiplane-64", "--no-groups", "--graphml", cid])
    c.add("cli", "path", "cli.bench.topology.spec-missing", "bench topology --spec of a missing file",
          err("cli.bench.spec-missing.json"), argv=["bench", "topology", "--spec", "cli.bench.spec-missing.json"])
    c.add("cli", "path", "cli.validate.src-schema", "the JSON Schema given as a scenario",
          err("scenario.schema.json"), argv=["validate", "{src}/scenarios/scenario.schema.json"])


def gen_run(c):
    """The file validates (or should have been refused), and the run must end cleanly."""
    def run_case(tag, doc, expect, extra=(), timeout=None, note="", out="out/run"):
        cid = ident("run", tag)
        name = c.write(cid + ".json", dumps(doc))
        c.add("run", "run", cid, note or tag, expect, argv=["run", name, "--quiet", "--out", out, *extra],
              files=[name], timeout=timeout)
        return name

    run_case("valid", TINY_RUN, OK, note="the tiny scenario runs: valid")
    doc = clone(TINY_RUN)
    doc["outputs"] = {"sample_interval_us": 1e-7}
    run_case("sample-interval-below-resolution", doc, err("run.sample-interval-below-resolution.json", "sample_interval_us"),
             timeout=5, note="sample_interval_us 1e-7 (0.1 ps, below the time resolution)")
    doc = clone(TINY_RUN)
    doc["outputs"] = {"sample_interval_us": Raw("1e-320")}
    run_case("sample-interval-denormal", doc, err("run.sample-interval-denormal.json", "sample_interval_us"), timeout=5,
             note="sample_interval_us 1e-320")
    for tag, factor in [("1e-12", "1e-12"), ("1e-300", "1e-300")]:
        doc = clone(TINY_RUN)
        doc["failures"] = [{"type": "gray", "at_us": 0, "link": {"gpu": 0, "plane": 0}, "rate_factor": Raw(factor)}]
        run_case("gray-rate-factor-" + tag, doc, err(f"run.gray-rate-factor-{tag}.json", "rate_factor"), timeout=5,
                 note=f"gray rate_factor {factor}")
    doc = clone(TINY_RUN)
    doc["workloads"][0]["load"] = Raw("1e-300")
    doc["workloads"][0]["type"] = "random"
    doc["workloads"][0]["duration_us"] = 10
    run_case("random-load-tiny", doc, err("run.random-load-tiny.json", key("load")), timeout=5,
             note="random traffic at 1e-300 of the line rate (a gap longer than any time)")
    for tag, label in [("dot", "."), ("dotdot", "..")]:
        doc = clone(TINY_RUN)
        doc["transport"] = {"type": "mrc", "label": label}
        run_case("label-" + tag, doc, err(f"run.label-{tag}.json", key("label")), out="out/a/run",
                 note=f"transport label {label!r} (results would land in the results directory's parent)")
    name = "run.utf8-description.json"
    c.write(name, dumps(TINY_RUN))
    c.add("run", "run", "run.utf8-description", "--set description=<0xff 0xfe>: caught only when summary.json is written",
          {"exit": [1, 2], "message": ["description"]},
          argv=["run", name, "--quiet", "--out", "out/run", "--set", "description=\udcff\udcfe"], files=[name])
    cid = "run.out-under-file"
    name = c.write(cid + ".json", dumps(TINY_RUN))
    blocker = c.write(cid + ".blocker", "a regular file\n")
    c.add("run", "run", cid, "--out below a regular file", err(blocker),
          argv=["run", name, "--quiet", "--out", blocker + "/run"], files=[name, blocker])
    cid = "run.out-is-file"
    name = c.write(cid + ".json", dumps(TINY_RUN))
    blocker = c.write(cid + ".blocker", "a regular file\n")
    c.add("run", "run", cid, "--out names a regular file", err(blocker),
          argv=["run", name, "--quiet", "--out", blocker], files=[name, blocker])


# --------------------------------------------------------------------------------------------
# Fabric specs (mrcsim topo --spec FILE.json).


def fabric_case(c, mutation, cid, note, content, expect, extra=None, timeout=None):
    name = c.write(cid + ".json", content)
    files = [name] + (extra or [])
    if expect["exit"] != 0:
        expect = dict(expect, message=[name] + expect["message"])
    c.add("fabric", mutation, cid, note, expect, argv=["topo", "--spec", name, "--no-groups"], files=files,
          timeout=timeout)


def gen_fabrics(c, rnd):
    # Each key once (type swap, two extremes, removal), in the first spec that has it.
    seen = set()
    for fname in ("mp", "ft", "rail"):
        spec = FABRICS[fname]
        fabric_case(c, "valid", ident("valid.fabric", fname), "an unmutated fabric spec: valid", dumps(spec), OK)
        for path, value in walk(spec):
            if leaf_key(path) in seen or (isinstance(path[-1], int) and path[-1] > 0):
                continue
            options = SWAPS[kind_of(value)]
            if kind_of(value) == "int" and not FABRIC_RANGES[leaf_key(path)][0]:
                options = [o for o in options if o[0] != "float"]  # 2.5 is fine where any number is
            for tag, new in rnd.sample(options, 1):
                doc = clone(spec)
                put(doc, path, new)
                fabric_case(c, "type-swap", ident("fab.type", fname, dotted(path), tag),
                            f"{dotted(path)}: {kind_of(value)} -> {json.dumps(new)}", dumps(doc), err(key(leaf_key(path))))
            if kind_of(value) in ("int", "number"):
                rng_ = FABRIC_RANGES[leaf_key(path)]
                bad = [e for e in EXTREMES if not accepts(rng_, e[1], e[2])]
                for tag, token, _ in rnd.sample(bad, 1):
                    doc = clone(spec)
                    put(doc, path, Raw(token))
                    fabric_case(c, "range", ident("fab.range", fname, dotted(path), tag), f"{dotted(path)} = {token}",
                                dumps(doc), err(key(leaf_key(path))))
        for k in spec:
            if k in ("name", "power", "t0_per_plane", "switch_ports", "link_delay_ns", "nic_port_planes") or k in seen:
                continue  # optional, or done
            doc = clone(spec)
            del doc[k]
            fabric_case(c, "missing-key", ident("fab.missing", fname, k), f"{k} removed", dumps(doc), err(key(k)))
        seen |= {leaf_key(p) for p, _ in walk(spec)}
        doc = clone(spec)
        doc["bogus_key"] = 1
        fabric_case(c, "unknown-key", ident("fab.unknown", fname), "an unknown key", dumps(doc), err("bogus_key"))
    # Keys of another kind.
    doc = clone(FAT_TREE_SPEC)
    doc["planes"] = 2
    fabric_case(c, "unknown-key", "fab.unknown.ft-planes", "planes in a fat tree", dumps(doc), err(key("planes")))
    doc = clone(MULTIPLANE_SPEC)
    doc["kind"] = "graphml"
    fabric_case(c, "unknown-key", "fab.unknown.mp-as-graphml", "multiplane keys under kind graphml", dumps(doc),
                err(anykey([k for k in MULTIPLANE_SPEC if k not in ("kind", "name", "power")])))
    # Fabrics too large to build: refused by the checks, naming a key, quickly.
    for tag, changes, keys in [
        ("gpus-max-one-down-port", {"gpus": 2 ** 24, "t0_down_ports": 1, "t0_per_plane": None, "switch_ports": None},
         [["gpus", "t0_down_ports", "t0_per_plane", "t1_per_plane"]]),
        ("t0-per-plane-max", {"t0_per_plane": 4096, "t0_up_ports": 4096, "t1_per_plane": 1, "switch_ports": None},
         [["t0_per_plane", "t1_per_plane", "t0_up_ports"]]),
        ("nic-port-planes-dup", {"nic_port_planes": [0, 0]}, ["nic_port_planes"]),
        ("nic-port-planes-short", {"nic_port_planes": [0]}, ["nic_port_planes"]),
        ("up-ports-uneven", {"t0_up_ports": 7, "switch_ports": None}, ["t0_up_ports"]),
        ("switch-ports-small", {"switch_ports": 8}, ["switch_ports"]),
    ]:
        doc = clone(MULTIPLANE_SPEC)
        for k, v in changes.items():
            if v is None:
                doc.pop(k, None)
            else:
                doc[k] = v
        fabric_case(c, "range", ident("fab.combo.mp", tag), tag, dumps(doc), err(*[anykey(k) for k in keys]), timeout=10)
    for tag, changes, keys in [
        ("gpus-too-many", {"gpus": 33}, ["gpus"]),
        ("radix-odd", {"radix": 7}, ["radix"]),
        ("4-tiers-radix-4096", {"tiers": 4, "radix": 4096, "gpus": 2 ** 24}, [["gpus", "radix", "tiers"]]),
    ]:
        doc = clone(FAT_TREE_SPEC)
        doc.update(changes)
        fabric_case(c, "range", ident("fab.combo.ft", tag), tag, dumps(doc), err(*[anykey(k) for k in keys]), timeout=10)
    doc = clone(RAIL_SPEC)
    doc["gpus_per_server"] = 3
    fabric_case(c, "range", "fab.combo.rail.uneven-servers", "64 GPUs in servers of 3", dumps(doc),
                err(key("gpus_per_server")))
    # Syntax.
    text = dumps(MULTIPLANE_SPEC)
    for tag, content in [("empty", ""), ("array", "[]"), ("truncated", text[: len(text) // 2]),
                         ("utf8", text.encode().replace(b'"mp"', b'"m\xffp"')),
                         ("dup-planes", text.replace('"planes": 2', '"planes": 2, "planes": 3')),
                         ("1e400", text.replace('"port_rate_gbps": 200', '"port_rate_gbps": 1e400'))]:
        keys = {"dup-planes": [key("planes")], "1e400": [key("port_rate_gbps")]}.get(tag, [])
        fabric_case(c, "syntax", ident("fab.syntax", tag), tag, content, err(*keys))
    cid = "fab.deep.top-arrays-100000"
    c.add("fabric", "deep-nesting", cid, "100,000 nested arrays (generated)", err(cid + ".json"),
          argv=["topo", "--spec", cid + ".json", "--no-groups"],
          generate=[{"name": cid + ".json", "parts": [{"repeat": "[", "count": 100000}, {"repeat": "]", "count": 100000}]}])
    cid = "fab.deep.name-objects-100000"
    c.add("fabric", "deep-nesting", cid, "the name a 100,000-deep object (generated)", err(cid + ".json"),
          argv=["topo", "--spec", cid + ".json", "--no-groups"],
          generate=[{"name": cid + ".json", "parts": [{"text": '{"kind": "fat_tree", "name": '},
                                                      {"repeat": '{"a":', "count": 100000}, {"text": "1"},
                                                      {"repeat": "}", "count": 100000}, {"text": "}"}]}])
    # Inline in a scenario (validate builds the fabric as well).
    for tag, changes, k in [("planes-zero", {"planes": 0}, "planes"), ("gpus-2e63", {"gpus": Raw(str(2 ** 63))}, "gpus"),
                            ("delay-1e400", {"link_delay_ns": Raw("1e400")}, "link_delay_ns"),
                            ("kind-unknown", {"kind": "torus"}, "kind")]:
        doc = clone(SPEC_SCENARIO)
        doc["topology"]["spec"].update(changes)
        scenario_case(c, "range", ident("scn.fabric", tag), f"topology.spec {tag}", dumps(doc), err(key(k)))


# --------------------------------------------------------------------------------------------
# GraphML (mrcsim topo --spec of a {"kind": "graphml"} spec).

GML_KEYS = {"role": ("o", "node", "string"), "tier": ("t", "node", "int"), "plane": ("p", "node", "int"),
            "rate_bps": ("r", "edge", "long"), "delay_ns": ("d", "edge", "long"), "link": ("l", "edge", "long")}


def tiny_fabric(planes=2, gpus=4, t0=2, t1=2, rate=100_000_000_000, delay=1000):
    """2 planes, 4 GPUs, 2 T0 and 2 T1 per plane: nodes (switches first) and edges."""
    nodes, edges, sw = [], [], {}
    for p in range(planes):
        for tier, count in ((0, t0), (1, t1)):
            for i in range(count):
                sw[(p, tier, i)] = len(nodes)
                nodes.append({"role": "switch", "tier": tier, "plane": p})
    g0 = len(nodes)
    for _ in range(gpus):
        nodes.append({"role": "gpu"})
    for p in range(planes):
        for g in range(gpus):
            edges.append({"s": g0 + g, "t": sw[(p, 0, g * t0 // gpus)], "rate_bps": rate, "delay_ns": delay})
        for i in range(t0):
            for j in range(t1):
                edges.append({"s": sw[(p, 0, i)], "t": sw[(p, 1, j)], "rate_bps": rate, "delay_ns": delay})
    return nodes, edges


def gml_head(types=None):
    types = types or {}
    keys = "".join(f'<key id="{kid}" for="{on}" attr.name="{name}" attr.type="{types.get(name, ty)}"/>\n'
                   for name, (kid, on, ty) in GML_KEYS.items())
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n' + keys +
            '<graph id="G" edgedefault="undirected">\n')


def gml_render(nodes, edges, types=None, ids=None):
    out = [gml_head(types)]
    for i, n in enumerate(nodes):
        nid = ids[i] if ids else f"n{i}"
        out.append(f'<node id="{nid}">' + "".join(f'<data key="{GML_KEYS[k][0]}">{v}</data>' for k, v in n.items()) +
                   "</node>\n")
    for e in edges:
        s = e["s"] if isinstance(e["s"], str) else f"n{e['s']}"
        t = e["t"] if isinstance(e["t"], str) else f"n{e['t']}"
        out.append(f'<edge source="{s}" target="{t}">' +
                   "".join(f'<data key="{GML_KEYS[k][0]}">{v}</data>' for k, v in e.items() if k not in ("s", "t")) +
                   "</edge>\n")
    out.append("</graph>\n</graphml>\n")
    return "".join(out)


def graphml_case(c, mutation, cid, note, content, expect, timeout=None, generate=None, via="topo"):
    gml = cid + ".graphml"
    files = []
    if content is not None:
        files.append(c.write(gml, content))
    if via == "topo":
        spec = c.write(cid + ".json", json.dumps({"kind": "graphml", "name": "g", "file": gml}) + "\n")
        argv = ["topo", "--spec", spec, "--no-groups"]
    else:
        doc = clone(TINY_RUN)
        doc["topology"] = {"spec": {"kind": "graphml", "file": gml}}
        doc["workloads"][0]["gpus"] = [0, 1]
        spec = c.write(cid + ".json", dumps(doc))
        argv = ["validate", spec]
    files.append(spec)
    if expect["exit"] != 0:
        expect = dict(expect, message=[gml] + expect["message"])
    c.add("graphml", mutation, cid, note, expect, argv=argv, files=files, generate=generate, timeout=timeout)


def gen_graphml(c):
    nodes, edges = tiny_fabric()
    graphml_case(c, "valid", "valid.graphml", "the tiny two-plane fabric: valid", gml_render(nodes, edges), OK)
    graphml_case(c, "valid", "valid.graphml.scenario", "the tiny fabric under a scenario: valid",
                 gml_render(nodes, edges), OK, via="validate")
    # Node attributes: node 0 is a tier-0 switch of plane 0, node 8 the first GPU.
    node_values = [
        ("plane", ["-1", "65536", "40000", "32768", "2147483648", "abc", "", "1e400"]),
        ("tier", ["-1", "15", "65536", "x"]),
        ("role", ["router", "", "GPU"]),
    ]
    for key, values in node_values:
        for v in values:
            n, e = tiny_fabric()
            n[0][key] = v
            message = [key]
            if key in ("plane", "tier") and re.fullmatch(r"[0-9]+", v) and int(v) > 32767:
                message.append(v)  # the value, not what it became in 16 bits
            graphml_case(c, "attribute", ident("gml.node", key, v or "empty"), f"switch node 0: {key} = {v!r}",
                         gml_render(n, e), err(*message))
        n, e = tiny_fabric()
        del n[0][key]
        graphml_case(c, "attribute", ident("gml.node", key, "missing"), f"switch node 0 without {key}",
                     gml_render(n, e), err(key))
    edge_values = [
        ("rate_bps", ["0", "-1", "9223372036854775808", "abc", "1.5"]),
        ("delay_ns", ["-1", "4294967296", "4294967301", "9223372036854775807", "9223372036854775808", "x"]),
        ("link", ["x", "9223372036854775808"]),
    ]
    for key, values in edge_values:
        for v in values:
            n, e = tiny_fabric()
            e[0][key] = v
            message = [key]
            if re.fullmatch(r"[0-9]+", v) and int(v) >= 2 ** 32 and int(v) < 2 ** 63:
                message.append(v)
            graphml_case(c, "attribute", ident("gml.edge", key, v or "empty"), f"edge 0: {key} = {v!r}",
                         gml_render(n, e), err(*message))
    for key in ("rate_bps", "delay_ns"):
        n, e = tiny_fabric()
        del e[0][key]
        graphml_case(c, "attribute", ident("gml.edge", key, "missing"), f"edge 0 without {key}", gml_render(n, e),
                     err(key))
    # Attribute types declared differently.
    n, e = tiny_fabric()
    n[0]["plane"] = "zero"
    graphml_case(c, "attribute", "gml.key.plane-string-typed", "plane declared as a string, holding 'zero'",
                 gml_render(n, e, types={"plane": "string"}), err("plane"))
    graphml_case(c, "attribute", "gml.key.delay-double-typed", "delay_ns declared as a double (values 1000)",
                 gml_render(*tiny_fabric(), types={"delay_ns": "double"}), OK)

    # Structure.
    n, e = tiny_fabric()
    sw = [x for x in n if x["role"] == "switch"]
    graphml_case(c, "structure", "gml.struct.no-gpu", "switches and their links, no GPU",
                 gml_render(sw, [x for x in e if x["s"] < len(sw) and x["t"] < len(sw)]), err("gpu"))
    graphml_case(c, "structure", "gml.struct.empty-graph", "a graph with no node", gml_render([], []), err(["gpu", "node"]))
    graphml_case(c, "structure", "gml.struct.gpus-only", "four GPUs, no switch, no link",
                 gml_render([{"role": "gpu"}] * 4, []), err("gpu"))
    graphml_case(c, "structure", "gml.struct.switch-only", "one switch, nothing else",
                 gml_render([{"role": "switch", "tier": 0, "plane": 0}], []), err("gpu"))
    n, e = tiny_fabric()
    e[0]["t"] = "n999"
    graphml_case(c, "structure", "gml.struct.edge-to-missing-node", "edge 0 ends at node n999, which is not declared",
                 gml_render(n, e), err(["n999", "edge"]))
    n, e = tiny_fabric()
    e[0]["s"] = "ghost"
    e[0]["t"] = "phantom"
    graphml_case(c, "structure", "gml.struct.edge-between-missing-nodes", "edge 0 joins two undeclared nodes",
                 gml_render(n, e), err(["ghost", "phantom", "edge"]))
    n, e = tiny_fabric()
    ids = [f"n{i}" for i in range(len(n))]
    ids[1] = "n0"
    graphml_case(c, "structure", "gml.struct.duplicate-node-id", "two nodes with id n0", gml_render(n, e, ids=ids),
                 err(["n0", "duplicate", "twice"]))
    n, e = tiny_fabric()
    e[0]["t"] = e[0]["s"]
    graphml_case(c, "structure", "gml.struct.self-loop", "edge 0 joins GPU 0 to itself", gml_render(n, e),
                 err(["edge", "itself"]))
    n, e = tiny_fabric()
    e.append({"s": 8, "t": 9, "rate_bps": 10 ** 11, "delay_ns": 1})
    graphml_case(c, "structure", "gml.struct.gpu-gpu", "a link between two GPUs", gml_render(n, e), err("gpu"))
    n, e = tiny_fabric()
    e.append({"s": 8, "t": 1, "rate_bps": 10 ** 11, "delay_ns": 1})
    graphml_case(c, "structure", "gml.struct.two-ports-one-plane", "GPU 0 with a second port in plane 0",
                 gml_render(n, e), err("plane"))
    n, e = tiny_fabric()
    e[0]["t"] = 2
    graphml_case(c, "structure", "gml.struct.gpu-to-tier1", "GPU 0 wired to a tier-1 switch", gml_render(n, e),
                 err("tier"))
    n, e = tiny_fabric()
    e.append({"s": 0, "t": 6, "rate_bps": 10 ** 11, "delay_ns": 1})
    graphml_case(c, "structure", "gml.struct.cross-plane", "a link from plane 0 to plane 1", gml_render(n, e),
                 err("plane"))
    n, e = tiny_fabric()
    e = [x for x in e if x["s"] != 8]
    graphml_case(c, "structure", "gml.struct.isolated-gpu", "GPU 0 has no link", gml_render(n, e), err("gpu"))
    text = gml_render(*tiny_fabric())
    graphml_case(c, "structure", "gml.struct.directed", "a directed graph",
                 text.replace('edgedefault="undirected"', 'edgedefault="directed"'), err(["directed"]))
    graphml_case(c, "structure", "gml.struct.no-key-declarations", "data elements whose keys are not declared",
                 re.sub(r"<key [^>]*/>\n", "", text), err(["key", "role"]))
    graphml_case(c, "structure", "gml.struct.two-graphs", "two graph elements",
                 text.replace("</graph>", '</graph>\n<graph id="H" edgedefault="undirected"><node id="z"/></graph>'),
                 {"exit": [0, 1], "message": []})
    # 4,097 switches in one (plane, tier): more than 12-bit uSIDs number (generated, ~250 KB).
    head = gml_head()
    cid = "gml.struct.4097-switches"
    graphml_case(c, "structure", cid, "4,097 tier-1 switches in plane 0 (generated)", None,
                 err(["switch", "tier"]), timeout=15,
                 generate=[{"name": cid + ".graphml", "parts": [
                     {"text": head + '<node id="g"><data key="o">gpu</data></node>\n'
                              '<node id="t0"><data key="o">switch</data><data key="t">0</data><data key="p">0</data></node>\n'
                              '<edge source="g" target="t0"><data key="r">100000000000</data><data key="d">1</data></edge>\n'},
                     {"repeat": '<node id="s{i}"><data key="o">switch</data><data key="t">1</data><data key="p">0</data></node>\n',
                      "count": 4097, "numbered": True},
                     {"text": "</graph>\n</graphml>\n"}]}])

    # XML level.
    graphml_case(c, "empty", "gml.xml.empty", "an empty file", "", err())
    graphml_case(c, "syntax", "gml.xml.not-xml", "plain text", "this is not GraphML\n", err())
    graphml_case(c, "syntax", "gml.xml.json", "a JSON document", '{"nodes": []}\n', err())
    for frac in (0.05, 0.3, 0.6, 0.97):
        n = int(len(text) * frac)
        graphml_case(c, "truncated", ident("gml.xml.truncated", f"{n}of{len(text)}"), f"the first {n} bytes", text[:n],
                     err())
    graphml_case(c, "utf8", "gml.xml.utf8-role", "the role of node 0 holds 0xff",
                 text.replace("switch", "swi\udcfftch", 1), err("role"))
    graphml_case(c, "utf8", "gml.xml.utf8-node-id", "a node id holds 0xff (its edges too)",
                 text.replace('"n0"', '"n\udcff0"'), {"exit": [0, 1], "message": []})
    graphml_case(c, "utf8", "gml.xml.utf8-tag", "an element name holds 0xfe",
                 text.replace("<graph id", "<gr\udcfeaph id").replace("</graph>", "</gr\udcfeaph>"), err())
    laughs = ('<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;'
              '&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>\n')
    graphml_case(c, "syntax", "gml.xml.entities", "entity definitions (billion laughs, three levels), used as a role",
                 text.replace('<?xml version="1.0" encoding="UTF-8"?>\n', laughs).replace(">switch<", ">&lol3;<", 1),
                 err("role"))
    graphml_case(c, "syntax", "gml.xml.external-entity", "an external entity naming /etc/passwd",
                 text.replace('<?xml version="1.0" encoding="UTF-8"?>\n',
                              '<?xml version="1.0"?>\n<!DOCTYPE g [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n')
                 .replace(">switch<", ">&x;<", 1), err("role"))
    inner = text.index("</graph>")
    graphml_case(c, "deep-nesting", "gml.xml.deep-1000", "1,000 nested unknown elements inside the graph",
                 text[:inner] + "<x>" * 1000 + "</x>" * 1000 + text[inner:], {"exit": [0, 1], "message": []})
    cid = "gml.xml.deep-100000"
    graphml_case(c, "deep-nesting", cid, "100,000 nested unknown elements inside the graph (generated)", None, err(),
                 generate=[{"name": cid + ".graphml", "parts": [{"text": text[:inner]}, {"repeat": "<x>", "count": 100000},
                                                                 {"repeat": "</x>", "count": 100000},
                                                                 {"text": text[inner:]}]}])
    cid = "gml.xml.deep-data-100000"
    graphml_case(c, "deep-nesting", cid, "node 0's role holds 100,000 nested elements (generated)", None, err(),
                 generate=[{"name": cid + ".graphml", "parts": [
                     {"text": text[: text.index(">switch<") + 1]}, {"repeat": "<b>", "count": 100000},
                     {"repeat": "</b>", "count": 100000}, {"text": text[text.index(">switch<") + 7:]}]}])
    cid = "gml.xml.huge-role"
    graphml_case(c, "huge", cid, "node 0's role is 200 KB of letters (generated)", None, err("role"),
                 generate=[{"name": cid + ".graphml", "parts": [
                     {"text": text[: text.index(">switch<") + 1]}, {"repeat": "s", "count": 200000},
                     {"text": text[text.index(">switch<") + 7:]}]}])
    # Through a scenario (mrcsim validate).
    n, e = tiny_fabric()
    sw = [x for x in n if x["role"] == "switch"]
    graphml_case(c, "structure", "gml.scn.no-gpu", "a scenario on a GraphML fabric without GPUs",
                 gml_render(sw, [x for x in e if x["s"] < len(sw) and x["t"] < len(sw)]), err("gpu"), via="validate")
    n, e = tiny_fabric()
    n[0]["plane"] = 65536
    graphml_case(c, "attribute", "gml.scn.plane-65536", "a scenario on a GraphML fabric with plane 65536",
                 gml_render(n, e), err("plane", "65536"), via="validate")
    n, e = tiny_fabric()
    e[0]["delay_ns"] = 4294967301
    graphml_case(c, "attribute", "gml.scn.delay-2e32p5", "a scenario on a GraphML fabric with delay_ns 2^32+5",
                 gml_render(n, e), err("delay_ns", "4294967301"), via="validate")
    for tag, file, key in [("missing", "gml.spec.missing.graphml", "gml.spec.missing.graphml"), ("empty", "", "file"),
                           ("dev-null", "/dev/null", "/dev/null")]:
        cid = ident("gml.spec.file", tag)
        name = c.write(cid + ".json", json.dumps({"kind": "graphml", "file": file}) + "\n")
        c.add("graphml", "path", cid, f"file = {file!r}", err(name if not file or tag == "empty" else file, key),
              argv=["topo", "--spec", name, "--no-groups"], files=[name])
    cid = "gml.spec.file.directory"
    name = c.write(cid + ".json", json.dumps({"kind": "graphml", "file": cid + ".graphml"}) + "\n")
    c.add("graphml", "path", cid, "file names a directory", err(cid + ".graphml"),
          argv=["topo", "--spec", name, "--no-groups"], files=[name], dirs=[cid + ".graphml"])


# --------------------------------------------------------------------------------------------
# The Python module.


def gen_python(c):
    tiny = clone(TINY_RUN)

    def py(cid, note, func, args, kwargs=None, expect=None, files=(), generate=None, dirs=None, timeout=None):
        c.add("python", "python", cid, note, expect, python={"func": func, "args": args, "kwargs": kwargs or {}},
              files=list(files) or None, generate=generate, dirs=dirs, timeout=timeout)

    spec_error = lambda *m: {"exit": 1, "message": list(m)}  # noqa: E731
    py("py.validate.valid", "validate() of a valid dict: valid", "validate", [COLLECTIVES], expect=OK)
    d = clone(COLLECTIVES)
    d["name"] = "\ud800"
    py("py.validate.lone-surrogate-name", "a dict whose name is a lone surrogate", "validate", [d],
       expect=spec_error("<dict>", key("name")))
    d = clone(COLLECTIVES)
    d["description"] = "a\udcffb"
    py("py.validate.lone-surrogate-description", "a dict whose description holds a lone low surrogate", "validate", [d],
       expect=spec_error("<dict>", key("description")))
    d = clone(COLLECTIVES)
    d["workloads"][2]["\ud800"] = 1
    py("py.validate.lone-surrogate-key", "a workload key that is a lone surrogate", "validate", [d],
       expect=spec_error("<dict>", key("workloads")))
    py("py.validate.override-lone-surrogate", "overrides={'name': lone surrogate}", "validate", [COLLECTIVES],
       {"overrides": {"name": "\ud800"}}, expect=spec_error(key("name") + ["name="]))
    py("py.validate.override-list-lone-surrogate", "overrides=['description=<lone surrogate>']", "validate",
       [COLLECTIVES], {"overrides": ["description=\ud800"]}, expect=spec_error("description"))
    py("py.validate.override-path-lone-surrogate", "overrides={<lone surrogate>: 1}", "validate", [COLLECTIVES],
       {"overrides": {"\ud800": 1}}, expect=spec_error(["override", "\\ud800", "surrogate"]))
    py("py.validate.path-undecodable", "a path holding byte 0xff (surrogateescape), missing", "validate",
       ["py\udcff.json"], expect=spec_error(".json"))
    py("py.validate.path-lone-surrogate", "a path holding a lone high surrogate", "validate", ["py\ud800.json"],
       expect=spec_error(".json"))
    d = clone(COLLECTIVES)
    d["workloads"][2]["bytes"] = {"$float": "nan"}
    py("py.validate.nan-bytes", "bytes = float('nan') in a dict", "validate", [d], expect=spec_error("<dict>", key("bytes")))
    d = clone(COLLECTIVES)
    d["stop"]["sim_time_us"] = {"$float": "inf"}
    py("py.validate.inf-sim-time", "stop.sim_time_us = float('inf') in a dict", "validate", [d],
       expect=spec_error("<dict>", key("sim_time_us")))
    py("py.validate.override-nan", "overrides={'workloads.2.bytes': nan}", "validate", [COLLECTIVES],
       {"overrides": {"workloads.2.bytes": {"$float": "nan"}}}, expect=spec_error(key("bytes") + ["workloads.2.bytes"]))
    d = clone(COLLECTIVES)
    d["seed"] = 2 ** 70
    py("py.validate.seed-2e70", "seed = 2**70 in a dict", "validate", [d], expect=spec_error("<dict>", key("seed")))
    d = clone(COLLECTIVES)
    d["workloads"][2]["bytes"] = 2 ** 32
    py("py.validate.bytes-2e32", "bytes = 2**32 per all-to-all pair in a dict: valid", "validate", [d], expect=OK)
    py("py.validate.override-dot-name", "overrides={'name': '.'}", "validate", [COLLECTIVES], {"overrides": {"name": "."}},
       expect=spec_error(key("name") + ["name="]))
    py("py.validate.directory", "a directory as the scenario", "validate", ["py.dir.json"], dirs=["py.dir.json"],
       expect=spec_error("py.dir.json"))
    name = c.write("py.dup.json", dumps(Pairs(list(COLLECTIVES.items()) + [("seed", 6)])))
    py("py.validate.duplicate-key", "a file with seed twice", "validate", [name], files=[name],
       expect=spec_error(name, key("seed")))
    name = c.write("py.1e400.json", dumps(dict(COLLECTIVES, seed=Raw("1e400"))))
    py("py.validate.1e400", "a file with seed 1e400", "validate", [name], files=[name], expect=spec_error(name, key("seed")))
    py("py.validate.deep", "a file of 100,000 nested arrays (generated)", "validate", ["py.deep.json"],
       generate=[{"name": "py.deep.json", "parts": [{"repeat": "[", "count": 100000}, {"repeat": "]", "count": 100000}]}],
       expect=spec_error("py.deep.json"))
    py("py.validate.type-error", "validate(42): a TypeError", "validate", [42], expect={"exit": 4, "message": ["scenario"]})
    py("py.validate.overrides-type-error", "overrides=5: a TypeError", "validate", [COLLECTIVES], {"overrides": 5},
       expect={"exit": 4, "message": ["overrides"]})
    d = clone(tiny)
    d["failures"] = [{"type": "gray", "at_us": 0, "link": {"gpu": 0, "plane": 0}, "rate_factor": 1e-12}]
    py("py.run.gray-rate-factor-1e-12", "run() with a gray failure at rate_factor 1e-12", "run", [d], {"out_dir": "out/run"},
       expect=spec_error("<dict>", "rate_factor"), timeout=5)
    d = clone(tiny)
    d["outputs"] = {"sample_interval_us": 1e-7}
    py("py.run.sample-interval-1e-7", "run() with sample_interval_us 1e-7", "run", [d], expect=spec_error("<dict>", "sample_interval_us"),
       timeout=5)
    d = clone(tiny)
    d["description"] = "\udcff"
    py("py.run.lone-surrogate-description", "run() of a dict whose description is a lone surrogate", "run", [d],
       expect=spec_error("<dict>", key("description")))
    n, e = tiny_fabric()
    sw = [x for x in n if x["role"] == "switch"]
    gml = c.write("py.nogpu.graphml", gml_render(sw, [x for x in e if x["s"] < len(sw) and x["t"] < len(sw)]))
    py("py.topology.graphml-no-gpu", "topology() of a GraphML fabric without GPUs", "topology", [],
       {"spec": {"kind": "graphml", "file": gml}}, files=[gml], expect=spec_error(gml, "gpu"))
    d = clone(MULTIPLANE_SPEC)
    d["planes"] = 2 ** 70
    py("py.topology.planes-2e70", "topology(spec=dict) with planes 2**70", "topology", [], {"spec": d},
       expect=spec_error("<dict>", key("planes")))


# --------------------------------------------------------------------------------------------


def generate(out_dir):
    files = os.path.join(out_dir, "files")
    os.makedirs(files, exist_ok=True)
    c = Corpus(files)
    rnd = random.Random(SEED)
    gen_scenarios(c, rnd)
    gen_cli_sets(c)
    gen_cli(c)
    gen_run(c)
    gen_fabrics(c, rnd)
    gen_graphml(c)
    gen_python(c)
    c.cases.sort(key=lambda x: x["id"])
    with open(os.path.join(out_dir, "cases.json"), "w", encoding="ascii") as f:
        f.write('{"format": 1, "seed": %d, "cases": [\n' % SEED)
        f.write(",\n".join(json.dumps(case, sort_keys=False) for case in c.cases))
        f.write("\n]}\n")
    return c.cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="fail if the committed corpus differs from a fresh one")
    ap.add_argument("--out", default=CORPUS, help="where to write the corpus (default: tests/fuzz/corpus)")
    a = ap.parse_args()
    if a.check:
        with tempfile.TemporaryDirectory() as tmp:
            generate(tmp)
            cmp = filecmp.dircmp(tmp, CORPUS)
            stale = []

            def diff(d, prefix=""):
                stale.extend(prefix + x for x in d.left_only + d.right_only + d.diff_files + d.funny_files)
                for name, sub in d.subdirs.items():
                    diff(sub, prefix + name + "/")

            diff(cmp)
            # dircmp compares shallowly (size and times): compare the bytes.
            for root, _, names in os.walk(tmp):
                for name in names:
                    p = os.path.join(root, name)
                    q = os.path.join(CORPUS, os.path.relpath(p, tmp))
                    if os.path.exists(q) and not filecmp.cmp(p, q, shallow=False):
                        stale.append(os.path.relpath(p, tmp))
            if stale:
                print(f"tests/fuzz/corpus is stale ({len(set(stale))} files differ, e.g. {sorted(set(stale))[0]}); "
                      "run tests/fuzz/generate.py", file=sys.stderr)
                return 1
            print("tests/fuzz/corpus is up to date")
            return 0
    if os.path.abspath(a.out) == CORPUS and os.path.isdir(CORPUS):
        shutil.rmtree(CORPUS)
    cases = generate(a.out)
    size = sum(os.path.getsize(os.path.join(r, n)) for r, _, ns in os.walk(a.out) for n in ns)
    kinds = {}
    for case in cases:
        kinds[case["kind"]] = kinds.get(case["kind"], 0) + 1
    print(f"{len(cases)} cases ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}), {size} bytes in {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
