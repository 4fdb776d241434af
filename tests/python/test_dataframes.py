"""The mrcsim package's researcher-facing layer: run() and load() give pandas DataFrames of every
table (a `transport` column telling the runs apart), load() reads what run() and the CLI write,
the numpy arrays stay as .arrays, figures that are not defined are None/NaN, and the version."""
import json
import math
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT

# Eight GPUs, one per T0 stride, in an all-to-all of 16 KiB per pair (a collective, 56 messages),
# on both transports: well under a second.
A2A = {
    "name": "a2a8",
    "seed": 5,
    "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}, {"type": "rocev2", "qps_per_connection": 8}],
    "workloads": [{"type": "all_to_all", "name": "a2a", "gpus": {"first": 0, "count": 8, "stride": 8},
                   "bytes": 16384}],
}
MESSAGES = 8 * 7
LABELS = ["mrc", "rocev2"]


@pytest.fixture(scope="module")
def written(mrcsim_module, tmp_path_factory):
    """A run kept in a directory: (its Result, the directory)."""
    out = tmp_path_factory.mktemp("dataframes") / "a2a8"
    return mrcsim_module.run(A2A, out_dir=out), out


def test_run_gives_a_dataframe_per_table_with_a_transport_column(written):
    r, _ = written
    assert r.labels == LABELS
    assert list(r.messages.columns) == ["transport", "workload", "src", "dst", "bytes", "posted_us", "done_us",
                                        "time_us", "ideal_us", "slowdown", "fair_us"]
    assert r.messages.groupby("transport").size().to_dict() == {"mrc": MESSAGES, "rocev2": MESSAGES}
    assert (r.messages["bytes"] == 16384).all()
    assert list(r.collectives["transport"]) == LABELS and (r.collectives["algorithm"] == "all_to_all").all()
    assert list(r.timeseries.columns) == ["transport", "time_us", "plane", "goodput_gbps", "uplink_utilisation"]
    # .runs: one row per transport, the summary's figures flattened.
    assert list(r.runs["transport"]) == LABELS
    for row, run in zip(r.runs.itertuples(), r.summary["runs"]):
        assert row.completion_us == run["completion_us"] and row.events == run["events"]
        assert row.messages_completed == MESSAGES and row.drops_total == sum(run["counters"]["drops"].values())
        assert row.message_time_us_p99 == run["messages"]["time_us"]["p99"]
        # The tables agree with the summary (the CSV keeps 6 significant digits).
        messages = r.messages[r.messages["transport"] == run["label"]]
        assert messages["done_us"].max() == pytest.approx(run["completion_us"], rel=1e-5)
        coll = r.collectives[r.collectives["transport"] == run["label"]].iloc[0]
        assert coll["busbw_gbps"] == pytest.approx(run["collectives"][0]["busbw_gbps"], rel=1e-5)


def test_the_numpy_arrays_stay_and_match_the_timeseries_dataframe(written):
    r, _ = written
    assert list(r.arrays) == LABELS
    for label in LABELS:
        arrays = r.arrays[label]
        assert arrays["time_us"].dtype == np.float64 and arrays["plane"].dtype == np.int32
        rows = r.timeseries[r.timeseries["transport"] == label]
        assert len(rows) == len(arrays["time_us"]) > 0
        for column in ("time_us", "plane", "goodput_gbps", "uplink_utilisation"):
            assert np.allclose(rows[column].to_numpy(), arrays[column], rtol=1e-5, atol=1e-9), column


def test_load_reads_what_run_wrote_into_equal_dataframes(mrcsim_module, written):
    r, out = written
    loaded = mrcsim_module.load(out)
    assert loaded.summary == r.summary and loaded.out_dir == str(out) and not loaded.partial
    for name in ("runs", "messages", "collectives", "timeseries"):
        pd.testing.assert_frame_equal(getattr(loaded, name), getattr(r, name))
    for label in LABELS:
        for column, values in r.arrays[label].items():
            assert loaded.arrays[label][column].dtype == values.dtype
            assert np.allclose(loaded.arrays[label][column], values, rtol=1e-5, atol=1e-9)
    # Without out_dir the same tables, and no directory left behind.
    again = mrcsim_module.run(A2A)
    assert again.out_dir is None
    pd.testing.assert_frame_equal(again.messages, r.messages)
    assert "a2a8" in repr(again) and "mrc" in repr(again)


def test_load_reads_the_clis_results_and_a_groupby_compares_transports(mrcsim, mrcsim_module, tmp_path):
    scenario = tmp_path / "a2a8.json"
    scenario.write_text(json.dumps(A2A))
    out = tmp_path / "cli"
    p = subprocess.run([mrcsim, "run", str(scenario), "--out", str(out), "--quiet"], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    r = mrcsim_module.load(str(out))
    p99 = r.messages.groupby("transport")["time_us"].quantile(0.99)
    assert list(p99.index) == LABELS and (p99 > 0).all()
    assert r.runs.set_index("transport").loc["mrc", "messages_completed"] == MESSAGES


def test_load_names_the_file_it_cannot_read(mrcsim_module, written, tmp_path):
    ResultsError = mrcsim_module.ResultsError
    assert issubclass(ResultsError, ValueError)
    with pytest.raises(ResultsError, match=r"nowhere: missing; expected a directory written by"):
        mrcsim_module.load(tmp_path / "nowhere")
    with pytest.raises(ResultsError, match=r"summary\.json: missing; expected summary\.json"):
        mrcsim_module.load(tmp_path)
    (tmp_path / "summary.json").write_text("{")
    with pytest.raises(ResultsError, match=r"summary\.json: line 1: not JSON"):
        mrcsim_module.load(tmp_path)
    (tmp_path / "summary.json").write_text('{"runs": 3}')
    with pytest.raises(ResultsError, match=r"summary\.json: at /: '.*' is a required property"):
        mrcsim_module.load(tmp_path)
    # A run's directory without its messages.csv.
    _, out = written
    copy = tmp_path / "copy"
    os.makedirs(copy / "mrc")
    (copy / "summary.json").write_bytes((out / "summary.json").read_bytes())
    with pytest.raises(ResultsError, match=r"copy/mrc/messages\.csv: missing"):
        mrcsim_module.load(copy)


def test_figures_not_defined_are_none_in_the_summary_and_nan_in_runs(mrcsim_module):
    # Stopped at 1 us: no message, and so no collective, completed.
    r = mrcsim_module.run(A2A, overrides={"stop": {"sim_time_us": 1}})
    assert r.partial and len(r.messages) == 0 and list(r.messages.columns)[0] == "transport"
    for run in r.summary["runs"]:
        assert run["completion_us"] is None
        coll = run["collectives"][0]
        assert coll["completed"] == 0 and coll["time_us"]["count"] == 0
        assert [coll[k] for k in ("ideal_us", "slowdown_mean", "algbw_gbps", "busbw_gbps")] == [None] * 4
    assert r.runs["completion_us"].apply(math.isnan).all()
    assert list(r.runs["collectives_completed"]) == [0, 0]


def test_the_version_is_the_clis(mrcsim, mrcsim_module, written):
    out = subprocess.run([mrcsim, "--version"], capture_output=True, text=True, timeout=30).stdout
    assert out.startswith(f"mrcsim {mrcsim_module.__version__} (ns-3 ")
    assert written[0].summary["version"] == mrcsim_module.__version__
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        assert f"VERSION {mrcsim_module.__version__}" in f.read()
