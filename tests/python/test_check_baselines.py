"""The tail-latency regression check: passes on its own baselines, fails on a worsened summary."""
import copy
import glob
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts"))

import check_baselines  # noqa: E402

BASELINES = sorted(glob.glob(os.path.join(ROOT, "results", "baselines", "*.summary.json")))


def load(path):
    with open(path) as f:
        return json.load(f)


def test_baselines_exist_for_every_regression_scenario():
    scenarios = glob.glob(os.path.join(ROOT, "tests", "regression", "*.json"))
    names = {os.path.basename(p).replace(".summary.json", "") for p in BASELINES}
    assert scenarios and names == {os.path.splitext(os.path.basename(s))[0] for s in scenarios}


def test_a_baseline_passes_against_itself():
    for path in BASELINES:
        base = load(path)
        rows, ok = check_baselines.compare(base, base, 0.05)
        assert ok
        assert rows and all(r[6] == "ok" for r in rows)


def test_a_worse_tail_fails_and_a_better_one_passes(tmp_path):
    base = load(BASELINES[0])
    worse = copy.deepcopy(base)
    worse["runs"][0]["messages"]["time_us"]["p99"] *= 1.10
    rows, ok = check_baselines.compare(base, worse, 0.05)
    assert not ok
    assert [r[2] for r in rows if r[6] == "FAIL: worse"] == ["message p99 us"]
    better = copy.deepcopy(base)
    better["runs"][0]["completion_us"] *= 0.5
    rows, ok = check_baselines.compare(base, better, 0.05)
    assert ok and any(r[6] == "better" for r in rows)
    # The command-line form exits 1 on the regression.
    b = tmp_path / "base.json"
    w = tmp_path / "worse.json"
    b.write_text(json.dumps(base))
    w.write_text(json.dumps(worse))
    assert check_baselines.main(["--compare", str(b), str(w)]) == 1
    assert check_baselines.main(["--compare", str(b), str(b)]) == 0


def test_a_missing_transport_or_partial_run_fails():
    base = load(BASELINES[0])
    missing = copy.deepcopy(base)
    missing["runs"] = missing["runs"][:1]
    assert not check_baselines.compare(base, missing, 0.05)[1]
    partial = copy.deepcopy(base)
    partial["runs"][0]["partial"] = True
    assert not check_baselines.compare(base, partial, 0.05)[1]
