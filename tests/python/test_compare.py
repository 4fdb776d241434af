"""scripts/compare.py: runs a shrunk quickstart (a 16-GPU all-to-all of 16 KiB per pair, a few
seconds) and checks the report and its figures; re-plots with --from; partial runs, a --variant,
and older or empty results."""
import json
import os
import re
import shutil
import subprocess

import pytest
from matplotlib.transforms import Bbox

from conftest import ROOT, png_size

import compare  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "compare.py")
QUICKSTART = os.path.join(ROOT, "scenarios", "quickstart.json")
SHRINK = ["--set", "workloads.0.bytes=16384", "--set", 'workloads.0.gpus={"first": 0, "count": 16, "stride": 4}',
          "--set", "failures.0.at_us=5"]
FIGURES = {"collectives.png", "latency_cdf.png", "goodput.png", "retransmissions.png"}


def run(*args):
    return subprocess.run(["/usr/bin/python3", SCRIPT, *args], capture_output=True, text=True, timeout=120)


def figures_named(report):
    return re.findall(r"!\[[^\]]+\]\(([^)]+)\)", report)


def check_figures(directory):
    for name in FIGURES:
        path = os.path.join(directory, name)
        assert os.path.getsize(path) > 10_000, name
        width, height = png_size(path)
        # dpi 200 on figures several inches wide.
        assert width >= 1000 and height >= 500, (name, width, height)


def table_row(report, name):
    """The cells of the table row whose first cell is `name`."""
    for line in report.splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells and cells[0] == name:
            return cells[1:]
    raise AssertionError(f"no row {name!r} in the table")


@pytest.fixture(scope="module")
def compared(mrcsim, tmp_path_factory):
    out = str(tmp_path_factory.mktemp("compare") / "quickstart")
    p = run(QUICKSTART, "--mrcsim", mrcsim, "--out", out, "--quiet", *SHRINK,
            "--variant", "ev16@mrc:transport.attributes.ns3::MrcQueuePair::EvCount=16")
    assert p.returncode == 0, p.stdout + p.stderr
    return out, p


def test_the_report_names_exactly_its_figures_and_they_are_pngs(compared):
    out, p = compared
    report = open(os.path.join(out, "compare.md")).read()
    assert sorted(figures_named(report)) == sorted(FIGURES)
    # Each figure has its one-line caption right after it.
    lines = report.splitlines()
    for name in FIGURES:
        at = next(i for i, line in enumerate(lines) if line.endswith(f"({name})"))
        assert lines[at + 2].startswith("*") and lines[at + 2].endswith("*")
    check_figures(out)
    assert f"comparison: {out}/compare.md" in p.stdout
    # mrcsim's own table reaches the terminal.
    assert "completion us" in p.stdout


def test_the_table_holds_each_variants_figures(compared):
    out, _ = compared
    report = open(os.path.join(out, "compare.md")).read()
    summary = json.load(open(os.path.join(out, "summary.json")))
    variant = json.load(open(os.path.join(out, "variants", "ev16", "summary.json")))
    assert table_row(report, "") == ["**mrc**", "**rocev2**", "**ev16**"]
    runs = summary["runs"] + variant["runs"]
    assert variant["runs"][0]["label"] == "ev16"
    assert variant["runs"][0]["attributes"] == {"ns3::MrcQueuePair::EvCount": "16"}
    assert table_row(report, "status") == ["complete"] * 3
    assert table_row(report, "completion (µs)") == [f"{r['completion_us']:,.1f}" for r in runs]
    assert table_row(report, "message p99.9 (µs)") == [f"{r['messages']['time_us']['p99_9']:,.1f}" for r in runs]
    assert table_row(report, "packet latency p99 (µs)") == [f"{r['packet_latency_us']['p99']:,.2f}" for r in runs]
    assert table_row(report, "retransmissions") == [f"{r['counters']['retransmissions']:,}" for r in runs]
    assert table_row(report, "a2a: bus bandwidth (Gb/s)") == [f"{r['collectives'][0]['busbw_gbps']:,.1f}"
                                                             for r in runs]
    drops = table_row(report, "drops")
    assert [d.split(" ")[0] for d in drops] == [f"{sum(r['counters']['drops'].values()):,}" for r in runs]
    assert table_row(report, "scenario hash")[0] == f"`{summary['scenario_hash']}`"
    assert table_row(report, "scenario hash")[2] != table_row(report, "scenario hash")[0]
    assert f"seed {summary['seed']}" in report and "quickstart.json" in report
    assert "variant ev16: `transport.attributes.ns3::MrcQueuePair::EvCount=16`" in report


def test_from_replots_an_existing_directory_the_same_way(compared, tmp_path):
    out, _ = compared
    copy = str(tmp_path / "copy")
    shutil.copytree(out, copy)
    before = open(os.path.join(copy, "compare.md")).read()
    for name in FIGURES | {"compare.md"}:
        os.remove(os.path.join(copy, name))
    p = run("--from", copy)
    assert p.returncode == 0, p.stderr
    assert open(os.path.join(copy, "compare.md")).read() == before
    check_figures(copy)


def test_a_partial_run_is_marked_and_still_plotted(mrcsim, tmp_path):
    out = str(tmp_path / "partial")
    p = run(QUICKSTART, "--mrcsim", mrcsim, "--out", out, "--quiet", *SHRINK, "--set", 'stop={"sim_time_us": 9}')
    assert p.returncode == 3, p.stdout + p.stderr
    report = open(os.path.join(out, "compare.md")).read()
    status = table_row(report, "status")
    assert all(s.startswith("**PARTIAL** (sim_time limit)") for s in status), status
    assert table_row(report, "completion (µs)")[0] == "≥ 9.0 (stopped)"
    assert "> **Partial runs:** mrc stopped early (sim_time limit)" in report
    assert sorted(figures_named(report)) == sorted(FIGURES)
    check_figures(out)


def test_results_without_csvs_histograms_or_any_event_still_plot(tmp_path):
    # A summary of an older version (no packet histogram) whose CSVs are gone, and a run that
    # completed nothing and counted nothing: zeros on log scales, empty distributions.
    baseline = json.load(open(os.path.join(ROOT, "results", "baselines", "a2a-failure.summary.json")))
    empty = json.loads(json.dumps(baseline["runs"][1]))
    empty["label"] = "idle"
    empty["partial"] = True
    empty["stop_reason"] = "interrupted"
    empty["messages"]["completed"] = 0
    empty["messages"]["time_us"] = {k: 0 for k in empty["messages"]["time_us"]}
    empty["packet_latency_us"] = {k: 0 for k in empty["packet_latency_us"]}
    empty["collectives"][0]["completed"] = 0
    for key in ("retransmissions", "timeouts", "trims", "ecn_marks"):
        empty["counters"][key] = 0
    empty["counters"]["drops"] = {k: 0 for k in empty["counters"]["drops"]}
    baseline["runs"].append(empty)
    with open(tmp_path / "summary.json", "w") as f:
        json.dump(baseline, f)
    assert compare.main(["--from", str(tmp_path)]) == 3
    report = open(tmp_path / "compare.md").read()
    assert table_row(report, "")[-1] == "**idle**"
    assert table_row(report, "messages completed")[-1] == "0 / 240"
    assert table_row(report, "all_to_all-0: mean / max (µs) (done)")[-1] == "none done (0/1)"
    assert table_row(report, "drops")[-1] == "0"
    check_figures(str(tmp_path))


def test_variant_arguments():
    assert compare.parse_variant("ev32@mrc:transport.attributes.ns3::MrcQueuePair::EvCount=32") == (
        "ev32", "mrc", ["transport.attributes.ns3::MrcQueuePair::EvCount=32"])
    # Commas inside a JSON value do not split it.
    assert compare.parse_variant('w:workloads.0.gpus={"first": 0, "count": 8},seed=3') == (
        "w", None, ['workloads.0.gpus={"first": 0, "count": 8}', "seed=3"])
    for bad in ("nolabel", "a b:seed=1", "x:seed", "x:=3", "x:"):
        with pytest.raises(compare.CompareError):
            compare.parse_variant(bad)
    doc = json.load(open(QUICKSTART))
    sets = compare.variant_sets(doc, "fast", "rocev2", ["transport.qps_per_connection=4"], "q.json")
    assert json.loads(sets[0][len("transport="):]) == {"type": "rocev2", "label": "fast", "qps_per_connection": 8,
                                                       "attributes": {}}
    assert sets[1:] == ["transport.qps_per_connection=4"]
    with pytest.raises(compare.CompareError, match="has no transport 'tcp' .it has mrc, rocev2"):
        compare.variant_sets(doc, "x", "tcp", [], "q.json")


def test_bad_input_is_reported(mrcsim, tmp_path):
    p = run(QUICKSTART, "--mrcsim", mrcsim, "--out", str(tmp_path / "o"), "--set", "workloads.0.bytes=-1")
    assert p.returncode == 1
    assert "/workloads/0/bytes" in p.stderr and "compare: mrcsim run" in p.stderr
    p = run(QUICKSTART, "--mrcsim", mrcsim, "--out", str(tmp_path / "o"), "--quiet", *SHRINK,
            "--variant", "mrc:seed=2")
    assert p.returncode == 1 and "already has a transport labelled mrc" in p.stderr
    p = run("--from", str(tmp_path / "nothing"))
    assert p.returncode == 1 and "cannot read" in p.stderr
    p = run()
    assert p.returncode == 2 and "--from DIR" in p.stderr


@pytest.fixture()
def replotted(compared, tmp_path, monkeypatch):
    """The figures of the compared directory, re-plotted in this process and kept open:
    {file name: matplotlib figure}."""
    out, _ = compared
    copy = str(tmp_path / "replot")
    shutil.copytree(out, copy)
    figures = {}

    def keep(fig, path):
        fig.savefig(path, dpi=compare.DPI, bbox_inches="tight")  # also lays the figure out
        figures[os.path.basename(path)] = fig

    monkeypatch.setattr(compare, "save", keep)
    assert compare.main(["--from", copy]) == 0
    yield figures
    for fig in figures.values():
        compare.plt.close(fig)


def test_goodput_gives_each_variant_a_time_axis_as_long_as_its_run(compared, replotted):
    out, _ = compared
    summary = json.load(open(os.path.join(out, "summary.json")))
    variant = json.load(open(os.path.join(out, "variants", "ev16", "summary.json")))
    lengths = [r["stopped_at_us"] for r in summary["runs"] + variant["runs"]]
    axes = replotted["goodput.png"].axes
    assert len(axes) == len(lengths) + 1
    for ax, length in zip(axes, lengths):
        assert ax.get_xlim() == pytest.approx((0, length))
    # The shrunk quickstart's runs differ in length, so the axes do too; the totals panel spans
    # the longest.
    assert len({round(x) for x in lengths}) > 1
    assert axes[-1].get_xlim() == pytest.approx((0, max(lengths)))


def test_retransmission_labels_do_not_overlap_and_the_legend_covers_no_bar(replotted):
    fig = replotted["retransmissions.png"]
    renderer = fig.canvas.get_renderer()
    boxes = []
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        for text in ax.texts:
            box = text.get_window_extent(renderer)
            # Inside its panel, clear of the title above it.
            assert frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1, \
                text.get_text()
            boxes.append((text.get_text(), box))
    assert len(boxes) >= 5 * 3  # a count per variant and counter, at least
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            assert not box_a.overlaps(box_b), (a, b)
    legends = fig.legends + [ax.get_legend() for ax in fig.axes if ax.get_legend()]
    assert len(legends) == 1
    legend = legends[0].get_window_extent(renderer)
    for ax in fig.axes:
        frame = ax.get_window_extent(renderer)
        for bar in ax.patches:
            # What is drawn of the bar: on a log scale it reaches down to 0, far below the panel.
            shown = Bbox.intersection(bar.get_window_extent(renderer), frame)
            assert shown is None or not legend.overlaps(shown)
        assert not legend.overlaps(frame)
