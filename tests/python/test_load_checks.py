"""mrcsim.load() refuses results it cannot vouch for, and one run writes a directory at a time.

Each case takes a results directory the CLI wrote (a small run of both transports), damages one
thing in a copy (a truncated or edited CSV, a header-only CSV, a summary of the wrong type, a
repeated or missing run, a value out of range, something that is not a regular file in place of
a CSV, another run's CSV) and expects a ResultsError naming the file and the line or key. The
lock cases hold a directory's lock (DIR/.mrcsim.lock) and expect runs and load() to refuse it."""
import json
import os
import shutil
import subprocess
import threading
import zlib

import pytest

TINY = {
    "name": "load-checks",
    "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"}, {"type": "rocev2"}],
    "workloads": [{"type": "permutation", "gpus": {"first": 0, "count": 4, "stride": 8}, "bytes": 8192}],
}


def write_run(mrcsim, directory, *sets):
    scenario = directory.parent / (directory.name + ".json")
    scenario.write_text(json.dumps(TINY))
    sets = [a for s in sets for a in ("--set", s)]
    p = subprocess.run([mrcsim, "run", str(scenario), "--out", str(directory), "--quiet", *sets],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    return directory


@pytest.fixture(scope="module")
def pristine(mrcsim, tmp_path_factory):
    return write_run(mrcsim, tmp_path_factory.mktemp("load") / "pristine")


@pytest.fixture(scope="module")
def other(mrcsim, tmp_path_factory):
    """Another run of the same scenario, messages of other sizes: as many rows, other bytes."""
    return write_run(mrcsim, tmp_path_factory.mktemp("load") / "other", "workloads.0.bytes=12288")


@pytest.fixture
def results(pristine, tmp_path):
    d = tmp_path / "results"
    shutil.copytree(pristine, d)
    return d


def edit_summary(d, change):
    s = json.loads((d / "summary.json").read_text())
    change(s)
    (d / "summary.json").write_text(json.dumps(s, indent=2))


def rewrite_csv(d, name, change, bless=False):
    """Applies `change` to the text of d/name; bless: also makes summary.json's files entry
    match (so that only the content checks can see the damage)."""
    path = d / name
    text = change(path.read_text())
    path.write_text(text)
    if bless:
        data = text.encode()
        edit_summary(d, lambda s: s["files"].__setitem__(name, {"rows": data.count(b"\n") - 1, "bytes": len(data),
                                                                "crc32": zlib.crc32(data)}))


def refused(mrcsim_module, d, *fragments):
    with pytest.raises(mrcsim_module.ResultsError) as e:
        mrcsim_module.load(d)
    for f in fragments:
        assert f in str(e.value), str(e.value)
    return str(e.value)


def test_an_intact_directory_loads_and_matches_its_files_entries(mrcsim_module, results):
    r = mrcsim_module.load(results)
    s = r.summary
    assert set(s["files"]) == {f"{label}/{n}" for label in ("mrc", "rocev2")
                               for n in ("collectives.csv", "messages.csv", "timeseries.csv")}
    for name, entry in s["files"].items():
        data = (results / name).read_bytes()
        assert entry == {"rows": data.count(b"\n") - 1, "bytes": len(data), "crc32": zlib.crc32(data)}
    assert len(r.messages) == sum(run["messages"]["completed"] for run in s["runs"]) > 0
    assert s["run_id"]


def test_a_truncated_csv_names_its_last_line(mrcsim_module, results):
    path = results / "mrc" / "messages.csv"
    data = path.read_bytes()
    path.write_bytes(data[:data.index(b"\n", data.index(b"\n") + 1) + 10])  # header, a row, part of the next
    refused(mrcsim_module, results, str(path), "line 3: truncated")


def test_a_header_only_csv_where_rows_are_expected(mrcsim_module, results):
    rewrite_csv(results, "mrc/messages.csv", lambda t: t.split("\n")[0] + "\n", bless=True)
    refused(mrcsim_module, results, "mrc/messages.csv", "0 rows, but summary.json counts 4")


def test_an_edited_value_of_the_same_length(mrcsim_module, results):
    rewrite_csv(results, "rocev2/messages.csv", lambda t: t.replace(",8192,", ",8193,", 1))
    refused(mrcsim_module, results, "rocev2/messages.csv", "not the file this run wrote", "another run's")


def test_another_runs_csv(mrcsim_module, results, other):
    shutil.copy(other / "mrc" / "messages.csv", results / "mrc" / "messages.csv")
    refused(mrcsim_module, results, "mrc/messages.csv", "not the file this run wrote")


def test_a_wrong_header(mrcsim_module, results):
    rewrite_csv(results, "mrc/collectives.csv", lambda t: t.replace("workload,", "wl,", 1), bless=True)
    refused(mrcsim_module, results, "mrc/collectives.csv", "line 1: header")


def test_a_plane_beyond_int32_names_the_line(mrcsim_module, results):
    def change(text):
        lines = text.split("\n")
        fields = lines[2].split(",")
        fields[1] = "99999999999"
        lines[2] = ",".join(fields)
        return "\n".join(lines)

    rewrite_csv(results, "rocev2/timeseries.csv", change, bless=True)
    refused(mrcsim_module, results, "rocev2/timeseries.csv", "line 3: plane '99999999999'", "2^31-1")


@pytest.mark.parametrize("cell, column, index", [("-1", "src", 1), ("x", "bytes", 3), ("nan", "time_us", 6),
                                                 ("1.5", "dst", 2), ("", "slowdown", 8)])
def test_bad_cells_name_line_and_column(mrcsim_module, results, cell, column, index):
    def change(text):
        lines = text.split("\n")
        fields = lines[4].split(",")
        fields[index] = cell
        lines[4] = ",".join(fields)
        return "\n".join(lines)

    rewrite_csv(results, "mrc/messages.csv", change, bless=True)
    refused(mrcsim_module, results, "mrc/messages.csv", f"line 5: {column} {cell!r}")


@pytest.mark.parametrize("change, where", [
    (lambda s: s.__setitem__("partial", "yes"), "at /partial: 'yes' is not of type 'boolean'"),
    (lambda s: s.__setitem__("runs", []), "at /runs: []"),
    (lambda s: s.__setitem__("surprise", 1), "'surprise' was unexpected"),
    (lambda s: s.pop("run_id"), "'run_id' is a required property"),
    (lambda s: s["runs"][0]["messages"].__setitem__("completed", -1), "at /runs/0/messages/completed"),
    (lambda s: s["files"].pop("rocev2/timeseries.csv"), "at /files: no entry for rocev2/timeseries.csv"),
    (lambda s: s["files"].__setitem__("x/messages.csv", s["files"]["mrc/messages.csv"]),
     "at /files/x/messages.csv: no run is labelled"),
])
def test_summaries_out_of_schema(mrcsim_module, results, change, where):
    edit_summary(results, change)
    refused(mrcsim_module, results, "summary.json", where)


def test_a_repeated_run(mrcsim_module, results):
    edit_summary(results, lambda s: (s["runs"].append(s["runs"][0]), s["wall_clock"].append(s["wall_clock"][0])))
    refused(mrcsim_module, results, "summary.json", "at /runs/2: run \"mrc\" repeats /runs/0")


def test_a_repeated_json_key_and_broken_json(mrcsim_module, results):
    text = (results / "summary.json").read_text()
    (results / "summary.json").write_text(text.replace('"seed"', '"seed": 3, "seed"', 1))
    refused(mrcsim_module, results, "summary.json", "key \"seed\" given 2 times")
    (results / "summary.json").write_text(text[:200])
    refused(mrcsim_module, results, "summary.json", "line ")


@pytest.mark.parametrize("kind", ["dangling", "fifo", "dev-zero", "directory"])
def test_not_a_regular_file_in_place_of_a_csv(mrcsim_module, results, kind):
    path = results / "mrc" / "timeseries.csv"
    path.unlink()
    if kind == "dangling":
        path.symlink_to(results / "nowhere.csv")
        expected = "a dangling symbolic link"
    elif kind == "fifo":
        os.mkfifo(path)  # opened for reading, it would wait for a writer for ever
        expected = "a FIFO"
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")  # read, it would never end
        expected = "a device"
    else:
        path.mkdir()
        expected = "a directory"
    refused(mrcsim_module, results, str(path), expected, "not a regular file" if kind != "dangling" else "")


def test_a_directory_being_written_is_not_read(mrcsim_module, results):
    with mrcsim_module.OutputLock(results) as lock:
        assert lock.held
        refused(mrcsim_module, results, str(results), "a run is writing it")
    assert mrcsim_module.load(results).summary["scenario"] == "load-checks"


def test_empty_out_dir_is_refused(mrcsim_module, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for out_dir in ("", b""):
        with pytest.raises(ValueError, match="out_dir='' is an empty path"):
            mrcsim_module.run(TINY, out_dir=out_dir)
    assert os.listdir(tmp_path) == []


def test_a_run_into_a_held_directory_fails_and_leaves_it_alone(mrcsim_module, results):
    before = {p: p.read_bytes() for p in results.rglob("*") if p.is_file()}
    with mrcsim_module.OutputLock(results):
        with pytest.raises(mrcsim_module.OutputDirectoryBusy, match=f"results directory {results} is in use"):
            mrcsim_module.run(TINY, out_dir=results)
    assert {p: p.read_bytes() for p in results.rglob("*") if p.is_file()} == before
    again = mrcsim_module.run(TINY, out_dir=results)  # the lock let go
    assert again.summary["run_id"] != json.loads(before[results / "summary.json"])["run_id"]
    assert mrcsim_module.load(results).summary == again.summary


def test_threads_running_into_one_directory_never_get_each_others_results(mrcsim_module, tmp_path):
    # Two scenarios whose messages differ; the threads start together. Either may win the
    # directory; the other fails with OutputDirectoryBusy or runs after it; each result that
    # comes back is its own scenario's.
    d = tmp_path / "shared"
    scenarios = [TINY, {**TINY, "workloads": [{**TINY["workloads"][0], "bytes": 24576}]}]
    alone = [mrcsim_module.run(s).messages for s in scenarios]
    for attempt in range(3):
        barrier = threading.Barrier(2)
        got = [None, None]

        def go(i):
            barrier.wait()
            try:
                got[i] = mrcsim_module.run(scenarios[i], out_dir=d).messages
            except mrcsim_module.OutputDirectoryBusy as e:
                got[i] = e

        threads = [threading.Thread(target=go, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        for i in range(2):
            if not isinstance(got[i], Exception):
                assert got[i].equals(alone[i]), f"attempt {attempt}: thread {i} got another run's messages"
            else:
                assert str(d) in str(got[i])
