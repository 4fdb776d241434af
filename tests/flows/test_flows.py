#!/usr/bin/python3
"""The flows workload: traffic brought from outside.

- uet-htsim's own serial all-to-all matrix runs on both transports: all 240 flows complete, and
  each source sends its flows one after another, each posted when its predecessor completed
  (oneshot triggers);
- the same trace as CSV and as JSON gives the same messages, and a flow waiting for others is
  posted at the later of their completions and its own start;
- a bad file is refused with exit 1, naming the scenario, the key and the file with its line.

Usage: test_flows.py MRCSIM ROOT
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

mrcsim, root = sys.argv[1], sys.argv[2]
here = os.path.join(root, "tests", "flows")
failures = []


def check(name, cond, detail=""):
    if not cond:
        failures.append(name)
        print("FAIL %s: %s" % (name, detail))


def run(*args):
    p = subprocess.run([mrcsim, *args], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def messages(out, label):
    with open(os.path.join(out, label, "messages.csv"), newline="") as f:
        return list(csv.DictReader(f))


tmp = tempfile.mkdtemp(prefix="flows-test-")

# uet-htsim's matrix: 16 nodes, each sending 2 MB to the 15 others in a chain of triggers.
out = os.path.join(tmp, "htsim")
code, _, err = run("run", os.path.join(here, "htsim-alltoall.json"), "--quiet", "--out", out)
check("htsim runs", code == 0, err)
if code == 0:
    with open(os.path.join(out, "summary.json")) as f:
        summary = json.load(f)
    gpus = list(range(0, 64, 4))
    for r in summary["runs"]:
        label = r["label"]
        rows = messages(out, label)
        check(label + ": 240 messages, all done", len(rows) == 240 and r["messages"]["completed"] == 240,
              "%d rows, %s" % (len(rows), r["messages"]))
        check(label + ": nodes on the workload's GPUs", {int(m["src"]) for m in rows} == set(gpus))
        by_src = {}
        for m in rows:
            by_src.setdefault(int(m["src"]), []).append(m)
        for src, ms in by_src.items():
            ms.sort(key=lambda m: float(m["posted_us"]))
            chained = all(abs(float(b["posted_us"]) - float(a["done_us"])) < 1e-6 for a, b in zip(ms, ms[1:]))
            check("%s: GPU %d's 15 flows chained" % (label, src), len(ms) == 15 and chained,
                  [(m["posted_us"], m["done_us"]) for m in ms[:3]])

# The same trace as CSV and JSON.
traces = {}
for name in ("trace.csv", "trace.json"):
    out = os.path.join(tmp, name)
    code, _, err = run("run", os.path.join(here, "htsim-alltoall.json"), "--quiet", "--out", out,
                       "--set", "workloads.0.file=" + name, "--set", 'workloads.0.gpus="all"')
    check(name + " runs", code == 0, err)
    traces[name] = messages(out, "mrc") if code == 0 else []
check("csv and json agree", traces["trace.csv"] == traces["trace.json"] and len(traces["trace.csv"]) == 4)
if len(traces["trace.csv"]) == 4:
    m = traces["trace.csv"]
    posted = [float(x["posted_us"]) for x in m]
    done = [float(x["done_us"]) for x in m]
    check("starts", posted[0] == 0 and posted[1] == 10, posted)
    check("after both", abs(posted[2] - max(done[0], done[1])) < 1e-6, (posted, done))
    check("after and start", abs(posted[3] - max(30.0, done[2])) < 1e-6, (posted, done))

# Bad files: exit 1 naming the scenario, /workloads/0/file and the flow file with its line.
bad = {
    "unknown-token.cm": ("Nodes 4\nConnections 1\n0->1 start 0 size 100 colour red\n", ":3:", "unknown token \"colour\""),
    "no-trigger-line.cm": ("Nodes 4\nConnections 2\n0->1 id 1 start 0 size 100 send_done_trigger 1\n"
                           "1->2 id 2 trigger 1 size 100\n", ":3:", "has no \"trigger id 1"),
    "count.cm": ("Nodes 4\nConnections 3\n0->1 start 0 size 100\n", "count.cm:", "\"Connections 3\" but 1 flow lines"),
    "node.cm": ("Nodes 4\nConnections 1\n0->4 start 0 size 100\n", ":3:", "node 4 but \"Nodes 4\""),
    "multishot.cm": ("Nodes 4\nConnections 2\n0->1 id 1 start 0 size 100 send_done_trigger 1\n"
                     "1->2 id 2 trigger 1 size 100\ntrigger id 1 multishot\n", ":5:", "multishot"),
    "both.cm": ("Nodes 4\nConnections 1\n0->1 id 1 start 0 trigger 1 size 100\ntrigger id 1 oneshot\n", ":3:",
                "both \"start\" and \"trigger\""),
    "fields.csv": ("src,dst,bytes\n0,1,100\n0,1\n", ":3:", "2 fields"),
    "column.csv": ("src,dst,size\n0,1,100\n", ":1:", "unknown column \"size\""),
    "after.csv": ("id,src,dst,bytes,after\n1,0,1,100,7\n", ":2:", "names flow 7"),
    "cycle.csv": ("id,src,dst,bytes,after\n1,0,1,100,2\n2,1,2,100,1\n", ":2:", "can never start"),
    "self.json": ('[{"src": 2, "dst": 2, "bytes": 10}]', ":1:", "to itself"),
    "key.json": ('[{"src": 0, "dst": 1, "bytes": 10, "size": 3}]', ":1:", "unknown key \"size\""),
    "nodes.csv": ("src,dst,bytes\n0,70,100\n", "71 nodes", "64 GPUs"),
    "prio.cm": ("Nodes 4\nConnections 1\n0->1 start 0 size 100 prio 3\n", ":3:", "\"prio\" is not modelled"),
    "format.txt": ("src,dst,bytes\n0,1,100\n", "", "no format known"),
}
for name, (text, where, what) in bad.items():
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    scenario = os.path.join(tmp, "bad-" + name + ".json")
    with open(scenario, "w") as f:
        json.dump({"name": "bad", "topology": {"preset": "multiplane-64"}, "transport": {"type": "mrc"},
                   "workloads": [{"type": "flows", "file": name}]}, f)
    code, _, err = run("validate", scenario)
    ok = code == 1 and scenario in err and "/workloads/0/file" in err and what in err and (name + where) in err \
        if where.startswith(":") else code == 1 and scenario in err and what in err and where in err
    check("refused: " + name, ok, "exit %d: %s" % (code, err.strip()))

# "bytes" belongs to the file, not the workload.
code, _, err = run("validate", os.path.join(here, "htsim-alltoall.json"), "--set", "workloads.0.bytes=10")
check("bytes refused", code == 1 and "bytes" in err, err)

print("%d failed" % len(failures) if failures else "flows: all passed")
sys.exit(1 if failures else 0)
