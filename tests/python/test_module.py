"""The Python module mrcsim: validation, runs (summary and numpy time series), determinism,
errors, Ctrl-C, and topology figures, checked against the CLI where both can say the same thing.

The module is looked for in $MRCSIM_PYTHONPATH (set by CTest), else in <repo>/build/python; the
CLI in $MRCSIM, else <repo>/build/bin/mrcsim. Missing either is a failure, not a skip."""
import copy
import csv
import json
import os
import pathlib
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
MODULE_DIR = os.environ.get("MRCSIM_PYTHONPATH") or str(ROOT / "build" / "python")
MRCSIM_BIN = os.environ.get("MRCSIM") or str(ROOT / "build" / "bin" / "mrcsim")
sys.path.insert(0, MODULE_DIR)
try:
    import mrcsim  # noqa: E402
except ImportError as e:
    raise ImportError(f"the mrcsim module is not built in {MODULE_DIR} (build the project first): {e}") from e

QUICKSTART = ROOT / "scenarios" / "quickstart.json"
# The quickstart all-to-all shrunk to 16 GPUs (4 per T0) and 64 KiB per pair, with its link
# failure moved into the run: both transports in about half a second.
SMALL = {"workloads.0.gpus": {"first": 0, "count": 16, "stride": 4}, "workloads.0.bytes": 65536, "failures.0.at_us": 5}
SMALL_MESSAGES = 16 * 15
# Eight GPUs, one per T0 stride, each sending 64 KiB to a permuted peer, on both transports.
TINY = {
    "name": "tiny",
    "seed": 3,
    "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}, {"type": "rocev2", "qps_per_connection": 8}],
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 8, "stride": 8}, "bytes": 65536}],
}
COLUMNS = {"time_us": np.float64, "plane": np.int32, "goodput_gbps": np.float64, "uplink_utilisation": np.float64}


def deterministic(summary):
    """A summary without what depends on the machine, the run or where the scenario came from."""
    s = copy.deepcopy(summary)
    s.pop("wall_clock")
    s.pop("run_id")
    s.pop("scenario_file")
    return s


@pytest.fixture(scope="module")
def quickstart_run():
    return mrcsim.run(QUICKSTART, overrides=SMALL)


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    return mrcsim.run(TINY, out_dir=tmp_path_factory.mktemp("tiny-module"))


def test_module_identity():
    # The package and its extension, both from MODULE_DIR.
    assert os.path.realpath(mrcsim.__file__).startswith(os.path.realpath(MODULE_DIR) + os.sep)
    assert os.path.realpath(sys.modules["_mrcsim"].__file__).startswith(os.path.realpath(MODULE_DIR) + os.sep)
    assert mrcsim.__version__.count(".") == 2
    assert issubclass(mrcsim.SpecError, ValueError)
    presets = mrcsim.presets()
    assert {"multiplane-64", "multiplane-131k", "fat-tree-4tier-131k"} <= set(presets)
    assert "8 x 100G planes" in presets["multiplane-64"]


def test_validate_a_file():
    d = mrcsim.validate(str(QUICKSTART))
    assert d["name"] == "quickstart" and d["file"] == str(QUICKSTART) and d["seed"] == 1
    assert [(t["label"], t["type"], t["qps_per_connection"]) for t in d["transports"]] == [
        ("mrc", "mrc", 1),
        ("rocev2", "rocev2", 8),
    ]
    assert d["workloads"] == [{"name": "a2a", "type": "all_to_all", "gpus": 64}]
    assert d["failures"] == [{"type": "link_down", "at_us": 100.0}]
    assert d["topology"]["name"] == "multiplane-64" and d["topology"]["planes"] == 8
    assert d["document"] == json.loads(QUICKSTART.read_text())
    # os.PathLike works the same as str.
    assert mrcsim.validate(QUICKSTART) == d


def test_validate_a_dict_with_overrides():
    d = mrcsim.validate(TINY)
    assert d["file"] == "<dict>" and d["name"] == "tiny"
    assert [t["label"] for t in d["transports"]] == ["mrc", "rocev2"]
    assert d["workloads"][0]["gpus"] == 8 and d["failures"] == []
    # Overrides as a dict (values are JSON values) or as --set strings give the same document.
    as_dict = mrcsim.validate(TINY, overrides={"workloads.0.bytes": 4096, "seed": 9, "name": "renamed"})
    as_list = mrcsim.validate(TINY, overrides=["workloads.0.bytes=4096", "seed=9", "name=renamed"])
    assert as_dict == as_list
    assert as_dict["seed"] == 9 and as_dict["name"] == "renamed"
    assert as_dict["document"]["workloads"][0]["bytes"] == 4096
    assert as_dict["hash"] != d["hash"]
    # The caller's dict is not modified.
    assert TINY["workloads"][0]["bytes"] == 65536


def test_errors_name_the_key_and_what_is_allowed():
    bad = copy.deepcopy(TINY)
    bad["workloads"][0]["byte"] = 5
    with pytest.raises(mrcsim.SpecError, match=r"<dict>: at /workloads/0/byte: unknown key"):
        mrcsim.validate(bad)
    with pytest.raises(ValueError, match=r"quickstart\.json.*workloads/0/bytes.*after overrides: workloads\.0\.bytes=-1"):
        mrcsim.validate(QUICKSTART, overrides={"workloads.0.bytes": -1})
    with pytest.raises(mrcsim.SpecError, match=r"workloads\.7\.bytes.*index 7 is out of range"):
        mrcsim.run(QUICKSTART, overrides=["workloads.7.bytes=1"])
    with pytest.raises(mrcsim.SpecError, match=r"none\.json: cannot open file"):
        mrcsim.validate("none.json")
    with pytest.raises(TypeError, match="expected a path"):
        mrcsim.validate(42)
    with pytest.raises(TypeError, match="overrides"):
        mrcsim.validate(TINY, overrides="seed=2")
    with pytest.raises(ValueError):
        mrcsim.validate(TINY, overrides={"seed": float("nan")})


def test_run_returns_the_summary_and_numpy_time_series(quickstart_run):
    r = quickstart_run
    s = r.summary
    assert not r.partial and not s["partial"] and r.out_dir is None
    assert s["scenario"] == "quickstart" and s["seed"] == 1
    assert s["fabric"] == {"name": "multiplane-64", "gpus": 64, "switches": 96, "links": 512 + 512}
    assert [run["label"] for run in s["runs"]] == ["mrc", "rocev2"]
    for run in s["runs"]:
        assert run["stop_reason"] == "all work done"
        assert run["messages"]["count"] == run["messages"]["completed"] == SMALL_MESSAGES
        assert run["collectives"][0]["completed"] == 1
        assert 0 < run["completion_us"] <= run["stopped_at_us"]
        assert run["counters"]["data_packets_sent"] >= SMALL_MESSAGES * 65536 // 4096
        # The up-link fails at 5 us, mid-run: packets on it are lost and sent again.
        assert run["failures"] == [{"type": "link_down", "at_us": 5.0, "links": [run["failures"][0]["links"][0]]}]
        assert run["counters"]["drops"]["link_down"] > 0 and run["counters"]["retransmissions"] > 0
    assert [w["label"] for w in s["wall_clock"]] == ["mrc", "rocev2"]
    assert "mrc" in repr(r)

    assert list(r.arrays) == ["mrc", "rocev2"]
    for label, run in zip(r.arrays, s["runs"]):
        ts = r.arrays[label]
        assert set(ts) == set(COLUMNS)
        n = len(ts["time_us"])
        for column, dtype in COLUMNS.items():
            assert isinstance(ts[column], np.ndarray) and ts[column].dtype == dtype and ts[column].shape == (n,)
        # One row per plane per 10 us sample (a stretch where nothing is pending keeps its last
        # sample only), planes in order, and a last one for the partial interval up to the run's
        # end.
        assert n % 8 == 0 and n > 0
        per_plane = ts["time_us"].reshape(-1, 8)
        assert (ts["plane"].reshape(-1, 8) == np.arange(8)).all()
        assert (per_plane == per_plane[:, :1]).all()
        assert np.allclose(per_plane[:-1, 0] % 10.0, 0.0) and (np.diff(per_plane[:-1, 0]) > 9.999).all()
        assert 0 < per_plane[-1, 0] - per_plane[-2, 0] <= 10.0
        assert per_plane[0, 0] == 10.0 and per_plane[-1, 0] == pytest.approx(run["stopped_at_us"])
        assert (ts["goodput_gbps"] >= 0).all() and (ts["goodput_gbps"] <= 64 * 100 * 1.0001).all()
        assert (ts["uplink_utilisation"] >= 0).all() and (ts["uplink_utilisation"] <= 1.0001).all()
        # Bytes the last-hop ports delivered: at least the payload, at most payload plus headers,
        # control packets and retransmissions.
        interval_s = np.diff(np.concatenate(([0.0], per_plane[:, 0]))) * 1e-6
        delivered = (ts["goodput_gbps"].reshape(-1, 8).sum(axis=1) * interval_s).sum() * 1e9 / 8
        payload = SMALL_MESSAGES * 65536
        assert payload <= delivered <= 1.5 * payload


def test_same_input_same_summary_in_one_process(quickstart_run):
    again = mrcsim.run(str(QUICKSTART), overrides=[f"{k}={json.dumps(v)}" for k, v in SMALL.items()])
    assert deterministic(again.summary) == deterministic(quickstart_run.summary)
    for label, columns in quickstart_run.arrays.items():
        for name, values in columns.items():
            assert np.array_equal(again.arrays[label][name], values)
    # A different seed is a different run.
    other = mrcsim.run(QUICKSTART, overrides={**SMALL, "seed": 2})
    assert other.summary["runs"][0]["messages"] != quickstart_run.summary["runs"][0]["messages"]


def test_a_run_agrees_with_the_cli_and_writes_the_same_files(tiny_run, tmp_path):
    assert os.path.exists(MRCSIM_BIN), f"the mrcsim CLI is not built at {MRCSIM_BIN}"
    scenario = tmp_path / "tiny.json"
    scenario.write_text(json.dumps(TINY))
    out = tmp_path / "cli"
    p = subprocess.run([MRCSIM_BIN, "run", str(scenario), "--out", str(out), "--quiet"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    cli = json.loads((out / "summary.json").read_text())
    assert cli["scenario_file"] == str(scenario) and tiny_run.summary["scenario_file"] == "<dict>"
    assert deterministic(tiny_run.summary) == deterministic(cli)

    # The module's out_dir holds the same files; its summary.json is the returned summary.
    mod = pathlib.Path(tiny_run.out_dir)
    assert json.loads((mod / "summary.json").read_text()) == tiny_run.summary
    for label in ("mrc", "rocev2"):
        for name in ("collectives.csv", "messages.csv", "timeseries.csv"):
            assert (mod / label / name).read_bytes() == (out / label / name).read_bytes(), (label, name)
        # The arrays are the CSV's columns (the CSV rounds to 6 digits).
        with open(out / label / "timeseries.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        ts = tiny_run.arrays[label]
        assert len(rows) == len(ts["time_us"]) > 0
        for column in COLUMNS:
            expected = np.array([float(row[column]) for row in rows])
            assert np.allclose(ts[column], expected, rtol=1e-5, atol=1e-9), column


def test_runs_from_several_threads_at_once(tiny_run):
    # In a fresh process, so that the threads are the first to make numpy arrays. Runs take turns
    # (one ns-3 simulator per process) and give the summary of a run on its own.
    script = f"""
import json, sys, threading
sys.path.insert(0, {MODULE_DIR!r})
import mrcsim
scenario = json.loads({json.dumps(TINY)!r})
out = [None] * 4
def go(i):
    out[i] = mrcsim.run(scenario).summary
threads = [threading.Thread(target=go, args=(i,)) for i in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
print(json.dumps(out))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    summaries = json.loads(p.stdout)
    assert len(summaries) == 4
    for s in summaries:
        assert deterministic(s) == deterministic(tiny_run.summary)


def test_a_failed_run_leaves_the_next_one_intact(tiny_run):
    bad = {"transport.0.attributes": {"ns3::MrcQueuePair::NoSuchAttribute": 1}}
    with pytest.raises(mrcsim.SpecError, match=r"type ns3::MrcQueuePair has no attribute \"NoSuchAttribute\""):
        mrcsim.run(TINY, overrides=bad)
    again = mrcsim.run(TINY)
    assert again.out_dir is None
    assert deterministic(again.summary) == deterministic(tiny_run.summary)


def test_ctrl_c_stops_a_run_and_python_gets_its_handler_back():
    endless = {
        "name": "endless",
        "topology": {"preset": "multiplane-64"},
        "transport": {"type": "mrc"},
        "workloads": [{"type": "random", "load": 0.5, "duration_us": 1e5, "bytes": 65536}],
        "stop": {"wall_time_s": 30},
    }
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt, match="run interrupted"):
            mrcsim.run(endless)
    finally:
        timer.cancel()
    assert time.monotonic() - start < 10
    # Python's own handler is back: the next Ctrl-C interrupts Python code.
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(5)


def test_topology_of_a_preset_matches_the_cli():
    t = mrcsim.topology("multiplane-64", check=True)
    assert t["gpus"] == 64 and t["planes"] == 8 and t["tiers"] == 2
    assert t["switches"]["total"] == 96 and t["max_switch_hops"] == 3
    assert t["check"]["ok"] is True and t["check"]["paths_walked"] > 0
    assert t["spec"]["kind"] == "multiplane"
    assert t["routing"]["failed_links"] == 0 and t["routing"]["unreachable_pairs_all_planes"] == 0
    p = subprocess.run([MRCSIM_BIN, "topo", "--preset", "multiplane-64", "--json", "--check"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout) == t
    # Link 0 is GPU 0's plane-0 port: GPU 0 is cut off in plane 0 only.
    failed = mrcsim.topology(preset="multiplane-64", fail_links=[0])
    assert failed["routing"]["detached_gpus_per_plane"][0] == 1
    assert failed["routing"]["unreachable_pairs_per_plane"][0] == 2 * 63
    assert failed["routing"]["unreachable_pairs_all_planes"] == 0


def test_topology_of_a_spec_and_its_errors(tmp_path):
    spec = {"kind": "fat_tree", "name": "ft", "tiers": 2, "radix": 8, "port_rate_gbps": 400, "gpus": 32}
    t = mrcsim.topology(spec=spec)
    assert t["gpus"] == 32 and t["tiers"] == 2 and t["spec"]["name"] == "ft"
    assert t["switches"]["total"] == 8 + 4
    path = tmp_path / "ft.json"
    path.write_text(json.dumps(spec))
    gml = tmp_path / "ft.graphml"
    assert mrcsim.topology(spec=path, graphml=gml) == t
    assert gml.stat().st_size > 0
    with pytest.raises(mrcsim.SpecError, match=r'unknown preset "nope".*multiplane-131k'):
        mrcsim.topology("nope")
    with pytest.raises(mrcsim.SpecError, match=r"<dict>.*/colour: unknown key"):
        mrcsim.topology(spec={**spec, "colour": "blue"})
    with pytest.raises(ValueError, match="exactly one"):
        mrcsim.topology()
    with pytest.raises(ValueError, match=r"link 99999 does not exist"):
        mrcsim.topology("multiplane-64", fail_links=[99999])
