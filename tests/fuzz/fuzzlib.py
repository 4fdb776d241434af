"""Shared pieces of the fuzz corpus generator (tests/fuzz/generate.py): document helpers, the
valid base inputs, the accepted ranges, the corpus writer and the case expectations."""
import json
import os
import re

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
