"""scripts/perf_report.py against stand-ins for mrcsim (scripts printing or writing fixed figures):
record keeps every run with its median and range, commit, date and machine; render fills the
marked blocks of a document from the records, benchmarks and the README's results table alike;
--check fails on a figure that is not the record's, on a missing record, and on a record it does
not know; compare prints the pairwise ratios of two binaries."""
import json
import os
import stat
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "perf_report.py")


def fake_mrcsim(path, hops_per_second):
    """A stand-in that answers `bench forwarding --json` with fixed figures."""
    figures = {"packet_hops_per_second": hops_per_second, "events_per_packet_hop": 1.003,
               "bytes_per_link": 1450.0, "peak_rss_bytes": 37 << 20}
    with open(path, "w") as f:
        f.write("#!/bin/sh\necho '%s'\n" % json.dumps(figures))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def perf(*args):
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=ROOT)


def test_record_render_check(tmp_path):
    records = tmp_path / "perf"
    mrcsim = fake_mrcsim(str(tmp_path / "mrcsim"), 1.2e6)
    r = perf("record", "--only", "forwarding", "--runs", "2", "--records", str(records), "--mrcsim", mrcsim)
    assert r.returncode == 0, r.stderr
    rec = json.loads((records / "forwarding.json").read_text())
    assert len(rec["runs"]) == 2
    assert rec["figures"]["packet_hops_per_s"] == {"median": 1.2e6, "min": 1.2e6, "max": 1.2e6}
    assert rec["figures"]["bytes_per_link"]["median"] == 1450.0
    assert len(rec["commit"]) == 40 and rec["machine"]["cores"] >= 1 and rec["date"].endswith("UTC")
    assert rec["machine"]["load_1min"] >= 0

    doc = tmp_path / "doc.md"
    doc.write_text("Prose.\n\n<!-- perf forwarding -->\nhand-typed 9.99 M/s\n<!-- /perf -->\n\nMore prose.\n")
    r = perf("render", "--check", "--records", str(records), "--doc", str(doc))
    assert r.returncode == 1 and "differs" in r.stderr
    r = perf("render", "--records", str(records), "--doc", str(doc))
    assert r.returncode == 0, r.stderr
    text = doc.read_text()
    assert "| packet_hops_per_s | 1.20 M/s | 1.20 M/s to 1.20 M/s |" in text
    assert "| bytes_per_link | 1450 B |" in text
    assert "; load %.1f at the start): `mrcsim bench forwarding --json`." % rec["machine"]["load_1min"] in text
    assert text.startswith("Prose.\n") and text.endswith("More prose.\n") and "9.99" not in text
    assert perf("render", "--check", "--records", str(records), "--doc", str(doc)).returncode == 0

    # A figure edited by hand in the document, or a block without its record, fails the check.
    doc.write_text(text.replace("1450 B", "990 B", 1))
    assert perf("render", "--check", "--records", str(records), "--doc", str(doc)).returncode == 1
    doc.write_text(text + "\n<!-- perf topology -->\n<!-- /perf -->\n")
    r = perf("render", "--check", "--records", str(records), "--doc", str(doc))
    assert r.returncode == 1 and "no record %s" % (records / "topology.json") in r.stderr


def test_compare(tmp_path):
    a = fake_mrcsim(str(tmp_path / "a"), 1.1e6)
    b = fake_mrcsim(str(tmp_path / "b"), 1.0e6)
    r = perf("compare", "--a", a, "--b", b, "--only", "forwarding", "--runs", "2")
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if "packet_hops_per_s" in l)
    assert "A/B median 1.100" in line and "2 pairs" in line



# A stand-in for `mrcsim run SCENARIO [--set ...] --quiet --out DIR`: writes DIR/summary.json with
# the figures of FAKE_RUN (below) for each transport, the RoCEv2 fair-share reference computed only
# when the run has no failure (`--set failures=[]`), as the real one may leave it out.
FAKE_RUN = {
    "mrc": {"mean": 182.46, "completion": 190.04, "retransmissions": 10800, "timeouts": 2, "trims": 356},
    "rocev2": {"mean": 210.61, "completion": 1205.66, "retransmissions": 7, "timeouts": 1, "trims": 0},
    "ideal": 171.98, "fair": 204.63,
}
FAKE_MRCSIM_RUN = """#!/usr/bin/python3
import json, os, sys
figures = json.loads(%r)
args = sys.argv[1:]
out = args[args.index("--out") + 1]
fair = "failures=[]" in args
runs, wall = [], []
for label in ("mrc", "rocev2"):
    f = figures[label]
    collectives = [{"workload": w, "ideal_us": figures["ideal"], "completed": 1, "time_us": {"mean": f["mean"]}}
                   for w in ("a2a", "incast", "experts")]
    reference = {"paths": "spray" if label == "mrc" else "ecmp", "flows": 8}
    if not fair:
        reference["not_computed"] = "over the work limit"
    runs.append({"label": label, "partial": False, "completion_us": f["completion"],
                 "fair_us": figures["fair"] if fair else None, "fair_reference": reference, "events": 1000,
                 "counters": {k: f[k] for k in ("retransmissions", "timeouts", "trims")},
                 "collectives": collectives})
    wall.append({"label": label, "seconds": 1.5, "peak_rss_bytes": 100 << 20})
os.makedirs(out, exist_ok=True)
with open(os.path.join(out, "summary.json"), "w") as fh:
    json.dump({"version": "test", "scenario_hash": "00", "runs": runs, "wall_clock": wall}, fh)
"""


def fake_mrcsim_run(path):
    with open(path, "w") as f:
        f.write(FAKE_MRCSIM_RUN % json.dumps(FAKE_RUN))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def table_doc(path):
    path.write_text("# Title\n\nProse.\n\n<!-- runs -->\n| typed | by | hand |\n<!-- /runs -->\n\nMore prose.\n")
    return path


def test_readme_table_record_render_check(tmp_path):
    runs = tmp_path / "runs"
    mrcsim = fake_mrcsim_run(str(tmp_path / "mrcsim"))
    # Without --long, --readme records the table's quick rows; --long --readme its long row only.
    r = perf("record", "--readme", "--run-records", str(runs), "--mrcsim", mrcsim)
    assert r.returncode == 0, r.stderr
    quick = sorted(p.name for p in runs.iterdir())
    assert "a2a-32k.json" not in quick and "quickstart-no-failure.json" in quick and "incast.json" in quick
    r = perf("record", "--readme", "--long", "--run-records", str(runs), "--mrcsim", mrcsim)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in runs.iterdir()) == sorted(quick + ["a2a-32k.json"])

    rec = json.loads((runs / "quickstart-no-failure.json").read_text())
    assert rec["command"] == "mrcsim run scenarios/quickstart.json --set 'failures=[]' --quiet --out DIR"
    assert len(rec["commit"]) == 40 and rec["machine"]["cores"] >= 1 and rec["date"].endswith("UTC")
    mrc, roce = rec["figures"]["mrc"], rec["figures"]["rocev2"]
    assert mrc["collectives"]["a2a"] == {"ideal_us": FAKE_RUN["ideal"], "mean_us": FAKE_RUN["mrc"]["mean"]}
    assert roce["fair_us"] == FAKE_RUN["fair"] and "fair_not_computed" not in roce
    assert mrc["retransmissions"] == FAKE_RUN["mrc"]["retransmissions"]
    failed = json.loads((runs / "quickstart-link-failure.json").read_text())
    assert failed["figures"]["rocev2"]["fair_us"] is None and failed["figures"]["rocev2"]["fair_not_computed"]

    doc = table_doc(tmp_path / "README.md")
    check = ("render", "--check", "--run-records", str(runs), "--doc", str(doc))
    r = perf(*check)
    assert r.returncode == 1 and "differs" in r.stderr
    assert perf("render", "--run-records", str(runs), "--doc", str(doc)).returncode == 0
    text = doc.read_text()
    assert text.startswith("# Title\n\nProse.\n") and text.endswith("More prose.\n") and "typed" not in text
    rows = {line.split(" | ")[0]: line for line in text.splitlines() if line.startswith("| `")}
    m, q = FAKE_RUN["mrc"], FAKE_RUN["rocev2"]
    assert rows["| `quickstart` without its failure (`--set 'failures=[]'`)"].split(" | ")[1:] == [
        "%.1f us" % FAKE_RUN["ideal"], "%.1f us" % m["mean"], "%.1f us [%.1f]" % (q["mean"], FAKE_RUN["fair"]),
        "10.8k / %d / %d |" % (m["timeouts"], m["trims"])]
    # Not computed: "n/c"; the whole run's completion beside the collective's mean where the row asks.
    assert rows["| `quickstart` (a T0-T1 link fails at 100 us; ECMP repair after 1 ms)"].split(" | ")[3] == \
        "%.1f us [n/c]" % q["mean"]
    assert rows["| `moe-all-to-all` (512 GPUs: expert all-to-all mean; whole run)"].split(" | ")[2] == \
        "%.1f us; %.1f us" % (m["mean"], m["completion"])
    long_rec = json.loads((runs / "a2a-32k.json").read_text())
    assert "`a2a-32k`: a long run (`scripts/perf_report.py record --long`), recorded %s at %s" % (
        long_rec["date"], long_rec["commit"][:10]) in text
    assert perf(*check).returncode == 0

    # A figure edited in the table fails the check, as does a record's figure edited without
    # re-rendering.
    doc.write_text(text.replace("%.1f us" % m["mean"], "%.1f us" % (m["mean"] - 1), 1))
    r = perf(*check)
    assert r.returncode == 1 and "differs from its records" in r.stderr
    doc.write_text(text)
    rec["figures"]["mrc"]["trims"] += 1
    (runs / "quickstart-no-failure.json").write_text(json.dumps(rec))
    assert perf(*check).returncode == 1

    # A <!-- run NAME --> block shows one row's record per transport: time, events, events/s,
    # memory, its collective against the ideal; an unknown row's name fails.
    run_doc = tmp_path / "PERF.md"
    run_doc.write_text("# Perf\n\n<!-- run a2a-32k -->\n<!-- /run -->\n")
    assert perf("render", "--run-records", str(runs), "--doc", str(run_doc)).returncode == 0
    block = run_doc.read_text()
    f = long_rec["figures"]["mrc"]
    assert "| mrc | %.0f s | %.1f M | %.0f k |" % (f["wall_s"], f["events"] / 1e6, f["events"] / f["wall_s"] / 1e3) in block
    assert "%.1f us (%.1f us)" % (f["collectives"]["experts"]["mean_us"], f["collectives"]["experts"]["ideal_us"]) in block
    assert "| rocev2 |" in block and "Recorded %s at %s" % (long_rec["date"], long_rec["commit"][:10]) in block
    assert perf("render", "--check", "--run-records", str(runs), "--doc", str(run_doc)).returncode == 0
    run_doc.write_text("<!-- run no-such-row -->\n<!-- /run -->\n")
    r = perf("render", "--check", "--run-records", str(runs), "--doc", str(run_doc))
    assert r.returncode == 1 and "unknown run 'no-such-row'" in r.stderr


def test_readme_table_bad_records(tmp_path):
    runs = tmp_path / "runs"
    mrcsim = fake_mrcsim_run(str(tmp_path / "mrcsim"))
    assert perf("record", "--readme", "--run-records", str(runs), "--mrcsim", mrcsim).returncode == 0
    doc = table_doc(tmp_path / "README.md")
    check = ("render", "--check", "--run-records", str(runs), "--doc", str(doc))

    # A row without its record: named, with the command that records it.
    r = perf(*check)
    assert r.returncode == 1 and "no record %s (scripts/perf_report.py record --long --only a2a-32k)" % (
        runs / "a2a-32k.json") in r.stderr

    # A row typed by hand (no run recorded yet) renders its figures with a line saying so.
    hand = {"run": "a2a-32k", "command": "mrcsim run scenarios/a2a-32k.json --quiet --out DIR",
            "hand_typed": {"commit": "a" * 40, "date": "2000-01-01"},
            "figures": {t: {"retransmissions": 4, "timeouts": 0, "trims": 0,
                            "collectives": {"experts": {"ideal_us": 24.7, "mean_us": v}}}
                        for t, v in (("mrc", 37.7), ("rocev2", 60.9))}}
    (runs / "a2a-32k.json").write_text(json.dumps(hand))
    assert perf("render", "--run-records", str(runs), "--doc", str(doc)).returncode == 0
    text = doc.read_text()
    assert "| 24.7 us | 37.7 us | 60.9 us | 4 / 0 / 0 |" in text
    assert "`a2a-32k`: typed by hand at aaaaaaaaaa (2000-01-01), not a recorded run" in text
    assert perf(*check).returncode == 0

    # Unknown inputs are errors naming the file and the key.
    rec = json.loads((runs / "incast.json").read_text())
    rec["figures"]["mrc"]["retransmits"] = 1
    (runs / "incast.json").write_text(json.dumps(rec))
    r = perf(*check)
    assert r.returncode == 1 and "%s: unknown key 'figures.mrc.retransmits'" % (runs / "incast.json") in r.stderr
    del rec["figures"]["mrc"]["retransmits"]
    del rec["figures"]["rocev2"]["collectives"]["incast"]
    (runs / "incast.json").write_text(json.dumps(rec))
    r = perf(*check)
    assert r.returncode == 1 and "%s: no key 'figures.rocev2.collectives.incast'" % (runs / "incast.json") in r.stderr
    (runs / "incast.json").unlink()
    (runs / "incast-old.json").write_text("{}")
    r = perf(*check)
    assert r.returncode == 1 and "%s: not a record this script knows" % (runs / "incast-old.json") in r.stderr
    assert "no record %s" % (runs / "incast.json") in r.stderr
    # A document with no block at all is refused, not passed.
    (runs / "incast-old.json").unlink()
    empty = tmp_path / "empty.md"
    empty.write_text("Nothing rendered here.\n")
    r = perf("render", "--check", "--run-records", str(runs), "--doc", str(empty))
    assert r.returncode == 1 and "has no <!-- perf NAME --> or <!-- runs --> block" in r.stderr


def test_timed_command_and_bad_benchmark_records(tmp_path):
    # A benchmark timed from outside (the fat tree's `topo`): wall and CPU time and peak RSS of
    # the process, whatever it prints.
    records = tmp_path / "perf"
    mrcsim = tmp_path / "mrcsim"
    mrcsim.write_text("#!/bin/sh\necho figures\n")
    mrcsim.chmod(0o755)
    r = perf("record", "--only", "topo-fat-tree-131k", "--runs", "1", "--records", str(records), "--mrcsim", str(mrcsim))
    assert r.returncode == 0, r.stderr
    rec = json.loads((records / "topo-fat-tree-131k.json").read_text())
    assert rec["command"] == "mrcsim topo --preset fat-tree-4tier-131k --no-groups"
    assert set(rec["runs"][0]) == {"wall_s", "cpu_s", "peak_rss_mib"} and rec["runs"][0]["peak_rss_mib"] > 0

    doc = tmp_path / "doc.md"
    doc.write_text("<!-- perf topo-fat-tree-131k -->\n<!-- /perf -->\n")
    assert perf("render", "--records", str(records), "--doc", str(doc)).returncode == 0
    assert "| wall_s |" in doc.read_text() and "range (1 run) |" in doc.read_text()
    check = ("render", "--check", "--records", str(records), "--doc", str(doc))
    assert perf(*check).returncode == 0
    # A figure the benchmark does not have, a record file of no benchmark, a block naming none.
    rec["figures"]["user_s"] = rec["figures"]["cpu_s"]
    (records / "topo-fat-tree-131k.json").write_text(json.dumps(rec))
    r = perf(*check)
    assert r.returncode == 1 and "unknown figure 'figures.user_s'" in r.stderr
    (records / "topo-fat-tree-131k.json").unlink()
    (records / "topology.json").write_text("{}")
    (records / "fat-tree.json").write_text("{}")
    doc.write_text("<!-- perf fat-tree -->\n<!-- /perf -->\n")
    r = perf(*check)
    assert r.returncode == 1 and "%s: not a record this script knows" % (records / "fat-tree.json") in r.stderr
    assert "unknown benchmark 'fat-tree'" in r.stderr
    doc.write_text("<!-- perf topology -->\n<!-- /perf -->\n")
    r = perf(*check)
    assert r.returncode == 1 and "%s: no key 'benchmark'" % (records / "topology.json") in r.stderr


def test_side_by_side_record_render_check(tmp_path):
    # The benchmarks of a comparison run in turn, round by round, into one record; the table shows
    # each member's medians and, after the first, its ratios to the first in the same round. A
    # stand-in mrcsim writes a summary.json whose peak tells the members apart (2 partitions: 2x
    # the memory), and a stand-in mpirun runs the command after its options.
    records = tmp_path / "perf"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls"
    mrcsim = bin_dir / "mrcsim"
    mrcsim.write_text("#!/bin/sh\necho \"$@\" >> %s\nout=\nparts=2\nwhile [ $# -gt 0 ]; do\n"
                      "  case $1 in --out) out=$2; shift;; --partitions) parts=$2; shift;; esac; shift\ndone\n"
                      "echo '{\"wall_clock\": [{\"peak_rss_bytes\": '$((parts * 1048576))'}]}' > $out/summary.json\n"
                      % log)
    mpirun = bin_dir / "mpirun"
    mpirun.write_text("#!/bin/sh\nshift 2\nexec \"$@\"\n")
    for f in (mrcsim, mpirun):
        f.chmod(0o755)
    env = dict(os.environ, PATH="%s:%s" % (bin_dir, os.environ["PATH"]))
    r = subprocess.run([sys.executable, SCRIPT, "record", "--only", "side-by-side-perm-8192", "--runs", "2",
                        "--records", str(records), "--mrcsim", str(mrcsim)], capture_output=True, text=True,
                       cwd=ROOT, env=env)
    assert r.returncode == 0, r.stderr
    # In turn: 1 partition, 2 partitions, MPI; then again.
    calls = log.read_text().splitlines()
    assert len(calls) == 6 and [("--partitions 1" in c) for c in calls] == [True, False, False] * 2
    rec = json.loads((records / "side-by-side-perm-8192.json").read_text())
    assert rec["rounds"] == 2 and [m["benchmark"] for m in rec["members"]] == [
        "runner-perm-8192-1p", "runner-perm-8192", "runner-perm-8192-mpi"]
    assert rec["members"][2]["command"] == "mpirun -np 2 mrcsim run scenarios/bench/perm-8192.json --quiet --out DIR"
    assert [r["peak_rss_mib"] for r in rec["members"][0]["runs"]] == [1048576.0] * 2  # raw, as figures are kept

    doc = tmp_path / "doc.md"
    doc.write_text("<!-- side-by-side side-by-side-perm-8192 -->\n| typed | 22.0 s |\n<!-- /side-by-side -->\n")
    check = ("render", "--check", "--records", str(records), "--doc", str(doc))
    r = perf(*check)
    assert r.returncode == 1 and "differs" in r.stderr
    assert perf("render", "--records", str(records), "--doc", str(doc)).returncode == 0
    text = doc.read_text()
    assert "| | wall | CPU | peak RSS |" in text and "22.0 s" not in text
    assert "| 1 partition (`--partitions 1`) |" in text and "| 1 MiB (1 MiB to 1 MiB) |" in text
    assert "2 MiB (2 MiB to 2 MiB); x2.00 (2.00 to 2.00) |" in text
    assert "Medians and ranges of 2 rounds, each running the 3 in turn" in text
    assert perf(*check).returncode == 0
    # A record whose members are not the comparison's, or miss a round, fails the check.
    bad = dict(rec, members=rec["members"][::-1])
    (records / "side-by-side-perm-8192.json").write_text(json.dumps(bad))
    r = perf(*check)
    assert r.returncode == 1 and "does not hold runner-perm-8192-1p, runner-perm-8192, runner-perm-8192-mpi" in r.stderr
    rec["members"][1]["runs"].pop()
    (records / "side-by-side-perm-8192.json").write_text(json.dumps(rec))
    r = perf(*check)
    assert r.returncode == 1 and "members.1 holds 1 runs, not the 2 rounds" in r.stderr
