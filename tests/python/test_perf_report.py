"""scripts/perf_report.py against a stand-in for mrcsim (a script printing fixed figures): record
keeps every run with its median and range, commit, date and machine; render fills the marked
blocks of a document from the records; --check fails on a figure that is not the record's, and
on a missing record; compare prints the pairwise ratios of two binaries."""
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

    doc = tmp_path / "doc.md"
    doc.write_text("Prose.\n\n<!-- perf forwarding -->\nhand-typed 9.99 M/s\n<!-- /perf -->\n\nMore prose.\n")
    r = perf("render", "--check", "--records", str(records), "--doc", str(doc))
    assert r.returncode == 1 and "differs" in r.stderr
    r = perf("render", "--records", str(records), "--doc", str(doc))
    assert r.returncode == 0, r.stderr
    text = doc.read_text()
    assert "| packet_hops_per_s | 1.20 M/s | 1.20 M/s to 1.20 M/s |" in text
    assert "| bytes_per_link | 1450 B |" in text
    assert text.startswith("Prose.\n") and text.endswith("More prose.\n") and "9.99" not in text
    assert perf("render", "--check", "--records", str(records), "--doc", str(doc)).returncode == 0

    # A figure edited by hand in the document, or a block without its record, fails the check.
    doc.write_text(text.replace("1450 B", "990 B", 1))
    assert perf("render", "--check", "--records", str(records), "--doc", str(doc)).returncode == 1
    doc.write_text(text + "\n<!-- perf topology -->\n<!-- /perf -->\n")
    r = perf("render", "--check", "--records", str(records), "--doc", str(doc))
    assert r.returncode == 1 and "no record results/perf/topology.json" in r.stderr


def test_compare(tmp_path):
    a = fake_mrcsim(str(tmp_path / "a"), 1.1e6)
    b = fake_mrcsim(str(tmp_path / "b"), 1.0e6)
    r = perf("compare", "--a", a, "--b", b, "--only", "forwarding", "--runs", "2")
    assert r.returncode == 0, r.stderr
    line = next(l for l in r.stdout.splitlines() if "packet_hops_per_s" in l)
    assert "A/B median 1.100" in line and "2 pairs" in line

