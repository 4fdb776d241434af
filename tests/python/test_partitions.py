"""The scenario runner in partitions: `mrcsim run --partitions N` gives the same results for any N.

Every CSV is byte-identical and summary.json is identical but for its wall_clock section and run_id (which
records N). Ports that start frames only when they must (LazyStart, the default) give the same
results as ports that start every frame with an event of its own, in fewer events.
"""

import copy
import filecmp
import json
import os
import subprocess

import pytest

from conftest import ROOT

# Small fabrics with failures and link downs; PFC pauses ports in quickstart's RoCEv2 run.
# rank-scope reaches links and ports in every way a scenario can (loss, gray links, failures, sampled
# ports), which a rank must do on the links it built and skip on those it left out.
SCENARIOS = ["scenarios/quickstart.json", "tests/regression/a2a-failure.json", "scenarios/incast.json",
             "tests/partitions/rank-scope.json"]
# Scenarios whose event counts depend on the partitioning (their results do not): random loss on
# links between partitions. A port starts its frames lazily, when something catches it up; after
# a frame lost on the link, nothing arrives to do so, and the port wakes itself (an event) if
# frames wait. In one partition the catch-up that starts a frame is the previous frame's
# arrival, between partitions it is the window's end: a lost frame is started at another moment,
# so whether its successors are already due then (no wake) differs.
EVENTS_DEPEND_ON_PARTITIONS = {"tests/partitions/rank-scope.json"}


def run(mrcsim, scenario, partitions, out, env=None):
    subprocess.run([mrcsim, "run", os.path.join(ROOT, scenario), "--partitions", str(partitions), "--out", str(out),
                    "--quiet"], check=True, stdout=subprocess.DEVNULL, env=env)
    with open(os.path.join(out, "summary.json")) as f:
        return json.load(f)


def files_of(directory):
    return sorted(os.path.relpath(os.path.join(r, f), directory) for r, _, fs in os.walk(directory) for f in fs)


def assert_same_results(one_dir, one, other_dir, other, what, events=True):
    assert files_of(other_dir) == files_of(one_dir)
    for name in files_of(one_dir):
        if name != "summary.json":
            assert filecmp.cmp(one_dir / name, other_dir / name, shallow=False), f"{name} differs {what}"
    one, other = copy.deepcopy(one), copy.deepcopy(other)
    for s in (one, other):
        s.pop("wall_clock"), s.pop("run_id")
    if not events:
        for a, b in zip(one["runs"], other["runs"]):
            assert a.pop("events") > 0 and b.pop("events") > 0
    assert one == other, f"summary.json differs {what}"


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_partition_count_does_not_change_results(mrcsim, scenario, tmp_path):
    outs = {n: tmp_path / f"p{n}" for n in (1, 2, 3)}
    summaries = {n: run(mrcsim, scenario, n, out) for n, out in outs.items()}
    for n, s in summaries.items():
        assert [w["partitions"] for w in s["wall_clock"]] == [n] * len(s["runs"])
        assert all((w["links_between_partitions"] > 0) == (n > 1) for w in s["wall_clock"])
    assert len(files_of(outs[1])) > 3
    if "incast" in scenario:
        assert any(r["counters"]["pfc_paused_port_us"] > 0 for r in summaries[1]["runs"])  # PFC at work
    for n in (2, 3):
        assert_same_results(outs[1], summaries[1], outs[n], summaries[n], f"with {n} partitions",
                            events=scenario not in EVENTS_DEPEND_ON_PARTITIONS)


def test_lazy_frame_starts_do_not_change_results(mrcsim, tmp_path):
    scenario = SCENARIOS[0]
    lazy = run(mrcsim, scenario, 2, tmp_path / "lazy")
    env = dict(os.environ, NS_ATTRIBUTE_DEFAULT="ns3::FabricPort::LazyStart=false")
    eager = run(mrcsim, scenario, 2, tmp_path / "eager", env=env)
    assert_same_results(tmp_path / "lazy", lazy, tmp_path / "eager", eager, "with LazyStart off", events=False)
    assert all(a["events"] < b["events"] for a, b in zip(lazy["runs"], eager["runs"]))


def test_partitions_out_of_range_are_refused(mrcsim, tmp_path):
    scenario = os.path.join(ROOT, "scenarios/quickstart.json")
    for bad in ("0", "65", "two", ""):
        p = subprocess.run([mrcsim, "run", scenario, "--partitions", bad, "--out", str(tmp_path)],
                           capture_output=True, text=True)
        assert p.returncode == 2 and "--partitions" in p.stderr, (bad, p.stderr)


def test_packet_captures_run_in_one_partition(mrcsim, tmp_path):
    # Captures make ns-3 packets, which a parallel run may not: by default such a scenario runs in
    # one partition; asking for more is refused, naming the key.
    scenario = os.path.join(ROOT, "tests/pcap/pcap-incast.json")
    s = run(mrcsim, "tests/pcap/pcap-incast.json", 1, tmp_path / "one")
    assert s["wall_clock"][0]["partitions"] == 1
    p = subprocess.run([mrcsim, "run", scenario, "--out", str(tmp_path / "default"), "--quiet"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with open(tmp_path / "default" / "summary.json") as f:
        assert [w["partitions"] for w in json.load(f)["wall_clock"]] == [1, 1]
    p = subprocess.run([mrcsim, "run", scenario, "--partitions", "2", "--out", str(tmp_path / "two"), "--quiet"],
                       capture_output=True, text=True)
    assert p.returncode != 0 and "/outputs/pcap" in p.stderr, p.stderr


def mpirun(ranks, *args):
    """`mpirun -np RANKS ARGS` with Open MPI (installed by scripts/setup.sh), as root if need be."""
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    return subprocess.run(["mpirun", "-np", str(ranks), *args], capture_output=True, text=True, env=env)


# Two ranks on every scenario; three and four (more processes than this machine's cores, so slower) on
# the two small ones.
MPI_RUNS = [(2, s) for s in SCENARIOS] + [(ranks, s) for ranks in (3, 4) for s in SCENARIOS[1:]]


@pytest.mark.parametrize("ranks, scenario", MPI_RUNS)
def test_mpi_ranks_give_the_results_of_as_many_partitions(mrcsim, ranks, scenario, tmp_path):
    # Processes (ns-3's MPI module) running one partition each: frames between them cross as
    # bytes, completions as global events every rank runs; rank 0 writes what one process with as
    # many partitions writes, byte for byte (event counts included), which is what one partition
    # writes (test_partition_count_does_not_change_results).
    threads = run(mrcsim, scenario, ranks, tmp_path / "threads")
    p = mpirun(ranks, mrcsim, "run", os.path.join(ROOT, scenario), "--out", str(tmp_path / "mpi"), "--quiet")
    assert p.returncode == (3 if any(r["partial"] for r in threads["runs"]) else 0), p.stdout + p.stderr
    with open(tmp_path / "mpi" / "summary.json") as f:
        mpi = json.load(f)
    assert [w["ranks"] for w in mpi["wall_clock"]] == [ranks] * len(mpi["runs"])
    assert [w["partitions"] for w in mpi["wall_clock"]] == [ranks] * len(mpi["runs"])
    assert_same_results(tmp_path / "threads", threads, tmp_path / "mpi", mpi, f"in {ranks} MPI ranks")
    # Each rank holds its own GPUs' QPs only: together the ranks hold the one process's QPs once.
    for w_mpi, w_threads in zip(mpi["wall_clock"], threads["wall_clock"]):
        (all_qps,) = w_threads["qps_by_rank"]
        assert len(w_mpi["qps_by_rank"]) == ranks
        assert sum(w_mpi["qps_by_rank"]) == all_qps
        assert max(w_mpi["qps_by_rank"]) < all_qps
        assert all(peak > 0 for peak in w_mpi["peak_rss_bytes_by_rank"])
        # Each rank builds the ports of the links touching its own nodes only: every link is built
        # somewhere, none everywhere (the one process builds them all).
        (all_links,) = w_threads["links_built_by_rank"]
        assert len(w_mpi["links_built_by_rank"]) == ranks
        assert sum(w_mpi["links_built_by_rank"]) >= all_links
        assert max(w_mpi["links_built_by_rank"]) < all_links
    if ranks > 2:
        one = run(mrcsim, scenario, 1, tmp_path / "one")
        assert_same_results(tmp_path / "one", one, tmp_path / "mpi", mpi, f"in {ranks} MPI ranks against one",
                            events=scenario not in EVENTS_DEPEND_ON_PARTITIONS)


def test_mpi_ranks_need_a_partition_each(mrcsim, tmp_path):
    p = mpirun(2, mrcsim, "run", os.path.join(ROOT, SCENARIOS[0]), "--partitions", "1", "--out", str(tmp_path),
               "--quiet")
    assert p.returncode != 0 and "partition per rank" in p.stdout + p.stderr, p.stdout + p.stderr
