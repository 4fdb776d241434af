"""The scenario runner in partitions: `mrcsim run --partitions N` gives the same results for any N.

Every CSV is byte-identical and summary.json is identical but for its wall_clock section (which
records N) and the event count of runs whose ports use PFC: a lossless port on a link between
partitions arms wakes that, in one partition, the last frame's arrival replaces (the frames start
at the same times either way). MRC runs, without PFC, have the same event count too.
"""

import copy
import filecmp
import json
import os
import subprocess

import pytest

from conftest import ROOT

# Small fabrics; failures and link downs (a2a-failure), PFC (quickstart's RoCEv2), incast.
SCENARIOS = ["scenarios/quickstart.json", "tests/regression/a2a-failure.json"]


def run(mrcsim, scenario, partitions, out):
    subprocess.run([mrcsim, "run", os.path.join(ROOT, scenario), "--partitions", str(partitions), "--out", str(out),
                    "--quiet"], check=True, stdout=subprocess.DEVNULL)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def files_of(directory):
    return sorted(os.path.relpath(os.path.join(r, f), directory) for r, _, fs in os.walk(directory) for f in fs)


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_partition_count_does_not_change_results(mrcsim, scenario, tmp_path):
    outs = {n: tmp_path / f"p{n}" for n in (1, 2, 3)}
    summaries = {n: run(mrcsim, scenario, n, out) for n, out in outs.items()}
    for n, s in summaries.items():
        assert [w["partitions"] for w in s["wall_clock"]] == [n] * len(s["runs"])
        assert all((w["links_between_partitions"] > 0) == (n > 1) for w in s["wall_clock"])
    reference = files_of(outs[1])
    assert "summary.json" in reference and len(reference) > 3
    pfc = {}
    for n in (2, 3):
        assert files_of(outs[n]) == reference
        for name in reference:
            if name != "summary.json":
                assert filecmp.cmp(outs[1] / name, outs[n] / name, shallow=False), f"{name} differs with {n} partitions"
        one, other = copy.deepcopy(summaries[1]), copy.deepcopy(summaries[n])
        one.pop("wall_clock"), other.pop("wall_clock")
        for a, b in zip(one["runs"], other["runs"]):
            if a["transport"] == "mrc":
                assert a["events"] == b["events"]
            pfc[a["label"]] = a["counters"]["pfc_paused_port_us"]
            a.pop("events"), b.pop("events")
        assert one == other, f"summary.json differs with {n} partitions"
    assert any(v > 0 for v in pfc.values()) or "quickstart" not in scenario  # the PFC case is covered


def test_partitions_out_of_range_are_refused(mrcsim, tmp_path):
    scenario = os.path.join(ROOT, "scenarios/quickstart.json")
    for bad in ("0", "65", "two"):
        p = subprocess.run([mrcsim, "run", scenario, "--partitions", bad, "--out", str(tmp_path)],
                           capture_output=True, text=True)
        assert p.returncode == 2 and "--partitions" in p.stderr, (bad, p.stderr)
