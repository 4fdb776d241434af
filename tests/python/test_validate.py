"""scripts/validate.py: claim files parsed and checked (an unknown key names the file and the key),
expectations judged with their tolerance, and a tiny suite run end to end: a claim that passes,
one that fails with its explanation, a run shared by two claims, the printed table, the markdown
report with its figure and validation.json."""
import json
import os
import subprocess

import pytest

from conftest import ROOT, png_size

import validate  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "validate.py")

# One 4 KiB write from GPU 0 to GPU 63 of multiplane-64: a single packet over 4 links and
# 3 switches, 4 x 4,190 B x 8 / 100 Gb/s + 2 x 25 ns + 2 x 490 ns of cable + 3 x 300 ns + 1.05 us
# of NICs = 4.3208 us.
PACKET = {
    "name": "packet", "seed": 1, "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}],
    "workloads": [{"type": "incast", "gpus": [0, 63], "receiver": 63, "senders": 1, "bytes": 4096}],
}


def claim(claim_id, **changes):
    doc = {
        "id": claim_id,
        "claim": "A single-packet write arrives after the per-hop sum.",
        "source": "analytical: 4 x 4,190 B x 8 / 100 Gb/s + 2 x 25 ns + 2 x 490 ns + 3 x 300 ns + 1.05 us of NICs",
        "kind": "analytical",
        "runs": {"packet": {"scenario": PACKET}},
        "metric": {"name": "message_time_us", "run": "packet", "transport": "mrc"},
        "expected": 4.3208,
        "tolerance": 0.02,
        "quick": True,
    }
    doc.update(changes)
    return doc


def write_claims(directory, *docs):
    directory.mkdir(exist_ok=True)
    for doc in docs:
        (directory / f"{doc['id']}.json").write_text(json.dumps(doc, indent=2))
    return directory


def run(*args):
    return subprocess.run(["/usr/bin/python3", SCRIPT, *args], capture_output=True, text=True, timeout=120)


def test_a_claim_file_is_parsed(tmp_path):
    doc = claim("packet-latency", metric={
        "mrc": {"name": "message_time_us", "run": "packet", "transport": "mrc", "stat": "mean"},
        "slow": {"name": "counter", "run": "packet", "transport": "mrc", "counter": "drops.queue_full"}},
        expected={"mrc": 4.3208, "slow": {"max": 0}}, runs={
            "packet": {"scenario": PACKET},
            "healthy": {"scenario": "scenarios/quickstart.json", "set": {"failures": []}}},
        notes="derivation", figure={"type": "bars"})
    c = validate.load_claim(str(write_claims(tmp_path / "claims", doc) / "packet-latency.json"))
    assert (c.id, c.kind, c.tolerance, c.quick, c.notes) == ("packet-latency", "analytical", 0.02, True, "derivation")
    assert c.metric == {"mrc": ("message_time_us", {"run": "packet", "transport": "mrc", "stat": "mean"}),
                        "slow": ("counter", {"run": "packet", "transport": "mrc", "counter": "drops.queue_full"})}
    assert c.runs["healthy"] == validate.RunSpec("scenarios/quickstart.json", {"failures": []})
    assert validate.describe_expected(c) == "mrc: 4.321 µs ±2%; slow: ≤ 0 ±2%"
    # The repository's own claims all load.
    assert len(validate.load_claims(os.path.join(ROOT, "validation"))) > 0


@pytest.mark.parametrize("change, message", [
    ({"tolerence": 0.02}, "unknown key 'tolerence'"),
    ({"runs": {"packet": {"scenario": PACKET, "overrides": {}}}}, "runs.packet: unknown key 'overrides'"),
    ({"metric": {"name": "message_time_us", "run": "packet", "transport": "mrc", "percentile": 99}},
     "unexpected keyword argument 'percentile'"),
    ({"metric": {"name": "message_latency", "run": "packet", "transport": "mrc"}}, "unknown metric 'message_latency'"),
    ({"metric": {"name": "completion_us", "run": "healthy", "transport": "mrc"}}, "'healthy' is not a run"),
    ({"runs": {"packet": {"scenario": "scenarios/no-such.json"}}}, "no file 'scenarios/no-such.json'"),
    ({"expected": "mrc < rocev2"}, "a comparison is \"A < B\""),
    ({"kind": "direction"}, "a direction claim expects a comparison"),
    ({"kind": "measured"}, "kind: 'measured' is not one of"),
    ({"tolerance": -1}, "tolerance"),
    ({"id": "other"}, "must be the file's name"),
    ({"figure": {"type": "bars", "log": True}}, "figure: unknown key 'log'"),
])
def test_a_bad_claim_file_is_an_error_naming_the_file_and_key(tmp_path, change, message):
    doc = claim("bad", **change)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(validate.ClaimError) as e:
        validate.load_claim(str(path))
    assert str(path) in str(e.value) and message in str(e.value)


def test_missing_keys_and_the_command_line_error(tmp_path):
    doc = claim("bad")
    del doc["quick"]
    claims = write_claims(tmp_path / "claims", doc)
    with pytest.raises(validate.ClaimError, match="missing key 'quick'"):
        validate.load_claims(str(claims))
    (claims / "bad.json").write_text(json.dumps(claim("bad", extra=1)))
    p = run("--claims", str(claims), "--out", str(tmp_path / "out"), "--no-docs")
    assert p.returncode == 1
    assert f"{claims / 'bad.json'}: unknown key 'extra'" in p.stderr
    assert not (tmp_path / "out").exists()


def test_expectations_and_their_tolerance():
    assert validate.within(101.9, 100, 0.02) and not validate.within(102.1, 100, 0.02)
    assert validate.within(97.9, 100, 0.0) is False and validate.within(100, 100, 0)
    assert validate.within(52, {"max": 50}, 0.05) and not validate.within(53, {"max": 50}, 0.05)
    assert validate.within(0, {"max": 0}, 0.5) and not validate.within(1, {"max": 0}, 0.5)
    assert validate.within(5, {"min": 1, "max": 10}, 0) and not validate.within(11, {"min": 1, "max": 10}, 0)
    assert validate.compare(100, "<", 100, 0.01) and not validate.compare(100, "<", 100, 0)
    assert validate.compare(100, "<=", 100, 0) and not validate.compare(101, "<=", 100, 0)
    assert validate.compare(99, ">=", 100, 0.01) and not validate.compare(98, ">", 100, 0.01)
    operands = {"a": ("completion_us", {}), "b": ("completion_us", {})}
    c = validate.Claim("x", "x.json", "c", "s", "direction", {}, operands, "a < b", 0.0, True)
    assert validate.judge(c, {"a": 1.0, "b": 2.0}) == {"": True}
    assert validate.judge(c, {"a": 2.0, "b": 1.0}) == {"": False}
    assert validate.judge(c, {"a": 1.0}) == {"": False}


def test_a_tiny_suite_passes_and_fails_claims(mrcsim, tmp_path):
    claims = write_claims(
        tmp_path / "claims",
        claim("packet-latency"),
        # The same run (scenario and overrides) in another claim: made once.
        claim("packet-too-slow", expected={"max": 3}, tolerance=0, figure={"type": "bars"},
              explanation="The bound is below the per-hop sum on purpose."),
        claim("packet-vs-write", kind="direction", runs={
            "packet": {"scenario": PACKET},
            "write": {"scenario": PACKET, "set": {"workloads.0.bytes": 65536}}},
            metric={"packet": {"name": "message_time_us", "run": "packet", "transport": "mrc"},
                    "write": {"name": "message_time_us", "run": "write", "transport": "mrc"}},
            expected="packet < write", tolerance=0, quick=False))
    out, docs = tmp_path / "out", tmp_path / "docs" / "VALIDATION.md"
    p = run("--claims", str(claims), "--out", str(out), "--docs", str(docs), "--mrcsim", mrcsim, "-j", "2")
    assert p.returncode == 1, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].split() == ["claim", "operand", "expected", "measured", "verdict"]
    rows = {line.split()[0]: line for line in lines[1:] if line.startswith("packet")}
    assert rows["packet-latency"].split()[-3:] == ["4.321", "µs", "PASS"]
    assert "4.321 µs ±2%" in rows["packet-latency"]
    assert rows["packet-too-slow"].split()[-3:] == ["4.321", "µs", "FAIL"] and "≤ 3 µs" in rows["packet-too-slow"]
    assert "packet < write" in rows["packet-vs-write"] and rows["packet-vs-write"].endswith("PASS")
    assert "claims: 3, passed: 2, failed: 1; runs: 2 in" in lines[-1]
    assert sorted(os.listdir(out / "runs")) == ["packet-latency.packet", "packet-vs-write.write"]
    assert "--set workloads.0.bytes=65536" in (out / "runs" / "packet-vs-write.write" / "run.log").read_text()

    report = json.loads((out / "validation.json").read_text())
    assert (report["subset"], report["passed"], report["failed"]) == ("all", 2, 1)
    by_id = {c["id"]: c for c in report["claims"]}
    assert by_id["packet-latency"]["measured"]["value"] == {"value": pytest.approx(4.3208, rel=1e-6), "unit": "µs"}
    assert by_id["packet-too-slow"]["verdict"] == "FAIL"
    assert by_id["packet-too-slow"]["explanation"].startswith("The bound is below")
    assert by_id["packet-vs-write"]["runs"]["write"]["command"] == \
        "mrcsim run <inline scenario> --set 'workloads.0.bytes=65536'"

    md = docs.read_text()
    assert "| claim | source | expected | measured | verdict |" in md
    assert "| [packet-too-slow](#packet-too-slow): A single-packet write arrives after the per-hop sum. | " \
           "analytical: 4 x 4,190 B x 8 / 100 Gb/s + 2 x 25 ns + 2 x 490 ns + 3 x 300 ns + 1.05 us of NICs | ≤ 3 µs | 4.321 µs | **FAIL** |" in md
    assert "- **Why it fails:** The bound is below the per-hop sum on purpose." in md
    assert "| packet | packet < write | 4.321 µs |" in md
    assert "every claim" in md and "2 passed, 1 failed" in md
    assert "![packet-too-slow](validation/packet-too-slow.png)" in md
    assert png_size(docs.parent / "validation" / "packet-too-slow.png")[0] > 100

    # The quick subset and --only select; with every claim passing the exit status is 0, and
    # --no-docs leaves the report alone.
    docs.write_text("kept")
    p = run("--claims", str(claims), "--out", str(out), "--docs", str(docs), "--mrcsim", mrcsim, "--quick",
            "--only", "packet-latency", "--no-docs")
    assert p.returncode == 0, p.stdout + p.stderr
    assert "claims: 1, passed: 1, failed: 0" in p.stdout and docs.read_text() == "kept"
    assert json.loads((out / "validation.json").read_text())["subset"] == "only"
    p = run("--claims", str(claims), "--out", str(out), "--mrcsim", mrcsim, "--quick", "--no-docs")
    assert "claims: 2, passed: 1, failed: 1" in p.stdout and "packet-vs-write" not in p.stdout


def test_a_run_that_fails_fails_its_claims(tmp_path):
    claims = write_claims(tmp_path / "claims", claim("packet-latency"))
    p = run("--claims", str(claims), "--out", str(tmp_path / "out"), "--mrcsim", "/bin/false", "--no-docs")
    assert p.returncode == 1
    assert "error: run 'packet' gave no results: exit 1" in p.stdout
    report = json.loads((tmp_path / "out" / "validation.json").read_text())
    assert report["claims"][0]["verdict"] == "FAIL" and report["claims"][0]["runs"]["packet"]["exit_code"] == 1
