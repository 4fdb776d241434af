"""scripts/sweep.py: the expansion of a sweep block (mrcsim's own, through the Python module:
the same points as the block says and the same scenarios as the CLI's --set), a tiny sweep run two
points at a time (and again one at a time: the same CSV), a failing point, a sweep mrcsim rejects,
re-plotting, the same sweep on a local Dask cluster (the same CSV), and sweeps of one transport's
parameters that run the other transports once per combination of the rest (the same CSV as
running every point in full)."""
import csv
import importlib
import itertools
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT, SCRIPT_ENV, png_size

import sweep  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "sweep.py")


def run(*args):
    return subprocess.run(["/usr/bin/python3", SCRIPT, *args], capture_output=True, text=True, timeout=120,
                          env=SCRIPT_ENV)


def scenario(tmp_path, sweep_block, transport=None, name="tiny"):
    """A scenario that runs in a fraction of a second: 8 GPUs, one message each."""
    doc = {
        "name": name,
        "seed": 1,
        "topology": {"preset": "multiplane-64"},
        "transport": transport or [{"type": "mrc", "attributes": {}}, {"type": "rocev2", "qps_per_connection": 8}],
        "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 8, "stride": 8}, "bytes": 65536}],
        "sweep": sweep_block,
    }
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc, indent=2))
    return str(path), doc


def read_rows(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        return reader.fieldnames, list(reader)


def cli_document(module, path, point):
    """The scenario `mrcsim run PATH --set sweep=null --set seed=S --set PATH=VALUE ...` runs."""
    return module.validate(path, overrides=sweep.point_overrides(point))["document"]


def test_expansion_is_the_cartesian_product_in_file_order(mrcsim, mrcsim_module, tmp_path):
    # The file lists workloads.* before transport.*: not the order of a parsed nlohmann::json.
    block = {"parameters": {"workloads.0.bytes": [4096, 16384, 65536],
                            "transport.0.attributes.ns3::MrcQueuePair::EvCount": [16, 64]},
             "seeds": [5, 7]}
    path, doc = scenario(tmp_path, block)
    points = sweep.expand(mrcsim_module, path)
    assert [p.index for p in points] == list(range(12))
    expected = list(itertools.product([4096, 16384, 65536], [16, 64], [5, 7]))
    assert [(*p.values.values(), p.seed) for p in points] == expected
    assert all(list(p.values) == list(block["parameters"]) for p in points)
    # Each point's scenario is the one its `mrcsim run ... --set` runs.
    for p in points[:3] + points[-2:]:
        assert p.scenario == cli_document(mrcsim_module, path, p)
        assert p.scenario["sweep"] is None and p.scenario["seed"] == p.seed
    # mrcsim counts the same points (its parameters by path).
    out = subprocess.run([mrcsim, "validate", path], capture_output=True, text=True, timeout=60).stdout
    assert "sweep of 12 point(s): 2 x 3 values x 2 seed(s)" in out
    # A dict expands as its file does; {"count": N} starts at the scenario's seed; no parameters:
    # one point per seed.
    assert [(p.values, p.seed) for p in sweep.expand(mrcsim_module, doc)] == [(p.values, p.seed) for p in points]
    doc["seed"] = 10
    doc["sweep"] = {"seeds": {"count": 3}}
    assert [(p.values, p.seed) for p in sweep.expand(mrcsim_module, doc)] == [({}, 10), ({}, 11), ({}, 12)]
    doc["sweep"] = {"parameters": {"workloads.0.bytes": [1, 2]}}
    assert [(p.values, p.seed) for p in sweep.expand(mrcsim_module, doc)] == [({"workloads.0.bytes": 1}, 10),
                                                                              ({"workloads.0.bytes": 2}, 10)]


def test_the_expansion_of_sweep_ev_count_is_the_blocks_and_the_clis(mrcsim, mrcsim_module):
    path = os.path.join(ROOT, "scenarios", "sweep-ev-count.json")
    doc = json.load(open(path))
    params = doc["sweep"]["parameters"]
    seeds = [doc["seed"] + k for k in range(doc["sweep"]["seeds"]["count"])]
    points = sweep.expand(mrcsim_module, path)
    assert [(p.index, p.values, p.seed) for p in points] == [
        (k, dict(zip(params, combo)), seed)
        for k, (*combo, seed) in enumerate(itertools.product(*params.values(), seeds))]
    out = subprocess.run([mrcsim, "validate", path], capture_output=True, text=True, timeout=60).stdout
    assert f"sweep of {len(points)} point(s)" in out
    for p in points:
        assert p.scenario == cli_document(mrcsim_module, path, p)
    # The module's own form: dicts, values in the file's order, the point's whole scenario.
    raw = mrcsim_module.expand_sweep(path)
    assert raw[5] == {"index": 5, "values": {"transport.0.attributes.ns3::MrcQueuePair::EvCount": 32}, "seed": 3,
                      "scenario": points[5].scenario}
    assert raw[5]["scenario"]["transport"][0]["attributes"]["ns3::MrcQueuePair::EvCount"] == 32
    # Overrides apply before the expansion, as --set before a run.
    again = mrcsim_module.expand_sweep(path, overrides={"sweep.seeds": [9]})
    assert [(p["values"], p["seed"]) for p in again] == [(p.values, 9) for p in points[::3]]


@pytest.mark.parametrize("block, message", [
    ({"parameters": {"workloads.0.bytes": [4096, 0]}},
     r"tiny\.json: at /sweep/parameters/workloads\.0\.bytes/1: the value 0 does not apply"),
    ({"parameters": {"workloads.0.bytes": []}},
     r"tiny\.json: at /sweep/parameters/workloads\.0\.bytes: expected a non-empty list of values"),
    ({"seeds": {"count": 0}}, r"tiny\.json: at /sweep/seeds/count: .*"),
    ({"parameters": {"seed": [1, 2]}}, r"at /sweep/parameters/seed: the seed is swept by \"seeds\""),
    ({"parameters": {"workloads.0.bytes": [1]}, "extra": 1}, r"at /sweep/extra: unknown key"),
    (None, r"tiny\.json: has no sweep block"),
])
def test_expansion_errors_name_the_file_and_the_key(mrcsim_module, tmp_path, block, message):
    path, _ = scenario(tmp_path, block)
    with pytest.raises(sweep.SweepError, match=message):
        sweep.expand(mrcsim_module, path)
    with pytest.raises(mrcsim_module.SpecError, match=message):
        mrcsim_module.expand_sweep(path)


def test_a_point_runs_with_its_overrides(tmp_path):
    point = sweep.Point(3, {"workloads.0.bytes": 4096, "transport.0.attributes.ns3::X::Y": "1us",
                            "workloads.0.gpus": {"first": 0, "count": 2}}, 9)
    cmd = sweep.point_command("mrcsim", "s.json", point, "out/points/03")
    assert cmd == ["mrcsim", "run", "s.json", "--quiet", "--partitions", "1", "--set", "sweep=null", "--set", "seed=9",
                   "--set", "workloads.0.bytes=4096", "--set", 'transport.0.attributes.ns3::X::Y="1us"',
                   "--set", 'workloads.0.gpus={"first": 0, "count": 2}', "--out", "out/points/03"]
    assert sweep.point_dir("out", point, 12) == os.path.join("out", "points", "03")
    assert sweep.point_dir("out", point, 10) == os.path.join("out", "points", "3")


def test_a_tiny_sweep_aggregates_every_point_and_transport(mrcsim, tmp_path):
    path, _ = scenario(tmp_path, {"parameters": {"workloads.0.bytes": [16384, 262144]}, "seeds": [1, 2]})
    out = str(tmp_path / "out")
    p = run(path, "-j", "2", "--mrcsim", mrcsim, "--out", out)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "sweep of 4 point(s)" in p.stdout
    header, rows = read_rows(os.path.join(out, "sweep.csv"))
    assert header[:6] == ["point", "workloads.0.bytes", "seed", "transport", "status", "partial"]
    assert set(sweep.METRICS) <= set(header)
    assert [(r["point"], r["workloads.0.bytes"], r["seed"], r["transport"]) for r in rows] == [
        (str(k), b, s, t) for k, (b, s) in enumerate(itertools.product(["16384", "262144"], ["1", "2"]))
        for t in ("mrc", "rocev2")]
    assert all(r["status"] == "complete" and r["partial"] == "false" for r in rows)
    for r in rows:
        summary = json.load(open(os.path.join(out, "points", r["point"], "summary.json")))
        run_ = next(x for x in summary["runs"] if x["label"] == r["transport"])
        assert float(r["completion_us"]) == run_["completion_us"]
        assert float(r["msg_p99_us"]) == run_["messages"]["time_us"]["p99"]
        assert summary["seed"] == int(r["seed"])
        assert int(r["messages_completed"]) == 8
    # 240 KiB more per GPU take about their time at 8 x 100 Gb/s (2.5 us) longer, on every transport
    # and seed.
    by = {(r["workloads.0.bytes"], r["seed"], r["transport"]): float(r["completion_us"]) for r in rows}
    for s, t in itertools.product(["1", "2"], ["mrc", "rocev2"]):
        assert by[("262144", s, t)] > by[("16384", s, t)] + 2.0
    png = os.path.join(out, "completion_us-vs-bytes.png")
    assert png in p.stdout
    assert png_size(png)[0] >= 1000
    # Deterministic: one at a time, the same CSV.
    again = str(tmp_path / "again")
    p = run(path, "-j", "1", "--mrcsim", mrcsim, "--out", again)
    assert p.returncode == 0, p.stderr
    assert open(os.path.join(again, "sweep.csv")).read() == open(os.path.join(out, "sweep.csv")).read()
    # Another metric from the same CSV, without running anything.
    p = run(path, "--out", out, "--replot", "--metric", "msg_p99_us", "--x", "seed", "--mrcsim", "/nonexistent")
    assert p.returncode == 0, p.stderr
    assert png_size(os.path.join(out, "msg_p99_us-vs-seed.png"))[0] >= 1000


def test_a_failing_point_is_reported_and_the_rest_written(mrcsim, tmp_path):
    # Each value is valid alone (mrcsim checks them one by one); one combination is not: GPUs 8, 16,
    # ... 64 run past the 64-GPU fabric, which mrcsim reports when that point runs.
    path, doc = scenario(tmp_path, {"parameters": {"workloads.0.gpus.first": [0, 8],
                                                   "workloads.0.gpus.stride": [1, 8]}},
                         transport=[{"type": "mrc", "attributes": {}}])
    doc["workloads"][0]["gpus"] = {"first": 0, "count": 8, "stride": 1}
    with open(path, "w") as f:
        json.dump(doc, f)
    out = str(tmp_path / "out")
    p = run(path, "-j", "2", "--mrcsim", mrcsim, "--out", out)
    assert p.returncode == 1
    assert re.search(r"point 3 \(first=8, stride=8, seed=1\): FAILED \(exit 1\)", p.stdout), p.stdout
    assert "1 of 4 points FAILED" in p.stderr
    _, rows = read_rows(os.path.join(out, "sweep.csv"))
    assert [(r["point"], r["transport"], r["status"]) for r in rows] == [("0", "mrc", "complete"),
                                                                         ("1", "mrc", "complete"),
                                                                         ("2", "mrc", "complete"),
                                                                         ("3", "", "failed: exit 1")]
    assert rows[3]["completion_us"] == "" and all(float(r["completion_us"]) > 0 for r in rows[:3])
    assert "/workloads/0/gpus" in open(os.path.join(out, "points", "3", "run.log")).read()
    assert os.path.exists(os.path.join(out, "completion_us-vs-first.png"))


def test_a_sweep_mrcsim_rejects_runs_nothing(mrcsim, tmp_path):
    path, _ = scenario(tmp_path, {"parameters": {"workloads.0.bytes": [4096, 0]}})
    out = tmp_path / "out"
    p = run(path, "--mrcsim", mrcsim, "--out", str(out))
    assert p.returncode == 1
    assert "at /sweep/parameters/workloads.0.bytes/1: the value 0 does not apply" in p.stderr
    assert not out.exists()


@pytest.mark.parametrize("args, message", [
    (["--metric", "speed"], "--metric speed: expected one of completion_us"),
    (["--x", "workloads.0.gpus"], "--x workloads.0.gpus: expected a swept parameter (workloads.0.bytes, seed)"),
])
def test_bad_axes_are_reported_before_running(tmp_path, args, message):
    path, _ = scenario(tmp_path, {"parameters": {"workloads.0.bytes": [4096]}})
    p = run(path, "--mrcsim", "/nonexistent", *args)
    assert p.returncode == 1 and message in p.stderr


def test_a_scenario_without_a_sweep_is_refused(tmp_path):
    path = os.path.join(ROOT, "scenarios", "quickstart.json")
    p = run(path, "--mrcsim", "/nonexistent")
    assert p.returncode == 1 and "has no sweep block" in p.stderr


def dask_or_skip():
    """Dask distributed, or a skip naming the Debian package (scripts/setup.sh installs it)."""
    try:
        importlib.import_module("distributed")
    except ImportError as e:
        pytest.skip(f"dask distributed is not importable ({e}); install python3-distributed")


def runs_by_label(out):
    """How many times each transport ran in a sweep's directory, and how many run logs it has."""
    counts = {}
    logs = 0
    for k in os.listdir(os.path.join(out, "points")):
        directory = os.path.join(out, "points", k)
        logs += os.path.exists(os.path.join(directory, "run.log"))
        if os.path.exists(os.path.join(directory, "summary.json")):
            for r in json.load(open(os.path.join(directory, "summary.json")))["runs"]:
                counts[r["label"]] = counts.get(r["label"], 0) + 1
    return counts, logs


def test_a_sweep_on_a_local_dask_cluster_writes_the_same_csv(mrcsim, tmp_path):
    dask_or_skip()
    # Two points that run and one that fails (GPUs 8, 16, ... 64 run past the 64-GPU fabric).
    path, doc = scenario(tmp_path, {"parameters": {"workloads.0.gpus.first": [0, 8],
                                                   "workloads.0.gpus.stride": [1, 8]}})
    doc["workloads"][0]["gpus"] = {"first": 0, "count": 8, "stride": 1}
    with open(path, "w") as f:
        json.dump(doc, f)
    csvs = {}
    for how, args in (("local", ["-j", "2"]), ("dask", ["-j", "2", "--scheduler", "local"])):
        out = str(tmp_path / how)
        p = run(path, "--mrcsim", mrcsim, "--out", out, *args)
        assert p.returncode == 1, p.stdout + p.stderr
        assert re.search(r"point 3 \(first=8, stride=8, seed=1\): FAILED \(exit 1\)", p.stdout), p.stdout
        assert re.search(r"\[4/4\] point \d", p.stdout), p.stdout
        assert "1 of 4 points FAILED" in p.stderr
        csvs[how] = open(os.path.join(out, "sweep.csv")).read()
    assert "on a local Dask cluster" in p.stdout
    assert csvs["dask"] == csvs["local"]
    _, rows = read_rows(os.path.join(tmp_path / "dask", "sweep.csv"))
    assert [(r["point"], r["transport"], r["status"]) for r in rows] == [
        ("0", "mrc", "complete"), ("0", "rocev2", "complete"), ("1", "mrc", "complete"),
        ("1", "rocev2", "complete"), ("2", "mrc", "complete"), ("2", "rocev2", "complete"),
        ("3", "", "failed: exit 1")]
    # A timeout fails the point on the cluster too.
    p = run(path, "--mrcsim", mrcsim, "--out", str(tmp_path / "slow"), "--scheduler", "local", "--timeout", "0.001")
    assert p.returncode == 1 and "4 of 4 points FAILED" in p.stderr and "timed out after 0.001 s" in p.stderr


EV = "transport.0.attributes.ns3::MrcQueuePair::EvCount"


@pytest.mark.parametrize("block, runs, logs, code", [
    # Only MRC's entry is swept: RoCEv2 runs once per seed.
    ({"parameters": {EV: [16, 32, 64]}, "seeds": [1, 2]}, {"mrc": 6, "rocev2": 2}, 6, 0),
    # Each transport's own parameter and a workload's: each runs once per its own combination (point
    # 3 and 7 run nothing); on a local Dask cluster too.
    ({"parameters": {"workloads.0.bytes": [16384, 65536], "transport.1.qps_per_connection": [4, 8], EV: [16, 64]}},
     {"mrc": 4, "rocev2": 4}, 6, 0),
    # Two labels that are each fine alone but not together: that point fails as a whole, as it does
    # when run in full.
    ({"parameters": {"transport.0.label": ["a", "b"], "transport.1.label": ["b", "c"]}},
     {"a": 1, "b": 2, "c": 1, "rocev2": 0}, 4, 1),
])
def test_a_transport_only_sweep_reruns_only_that_transport(mrcsim, tmp_path, block, runs, logs, code):
    path, _ = scenario(tmp_path, block)
    points = len(list(itertools.product(*block["parameters"].values()))) * len(block.get("seeds", [1]))
    extra = ["--scheduler", "local"] if "workloads.0.bytes" in block["parameters"] else []
    if extra:
        dask_or_skip()
    full, reuse = str(tmp_path / "full"), str(tmp_path / "reuse")
    p = run(path, "-j", "2", "--mrcsim", mrcsim, "--out", full, "--no-reuse")
    assert p.returncode == code, p.stdout + p.stderr
    p = run(path, "-j", "2", "--mrcsim", mrcsim, "--out", reuse, *extra)
    assert p.returncode == code, p.stdout + p.stderr
    assert "only some transports' parameters are swept" in p.stdout
    # The same rows, as if every point had run every transport.
    assert open(os.path.join(reuse, "sweep.csv")).read() == open(os.path.join(full, "sweep.csv")).read()
    # Fewer runs: a run log in the directory of each point that ran something.
    assert runs_by_label(reuse) == ({label: k for label, k in runs.items() if k}, logs)
    full_counts, full_logs = runs_by_label(full)
    assert full_logs == points
    if code == 0:
        assert set(full_counts.values()) == {points}
        assert re.search(r"point \d+ \(.*; mrc only\)", p.stdout), p.stdout
