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
import shutil
import sys
import tempfile

from fuzzlib import *  # noqa: F401,F403 (the generator's shared vocabulary)
from gen_hostile import gen_hostile  # noqa: E402
from gen_scenarios import gen_cli, gen_cli_sets, gen_run, gen_scenarios  # noqa: E402
from gen_topologies import gen_fabrics, gen_graphml, gml_render, tiny_fabric  # noqa: E402

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
    gen_hostile(c)
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
