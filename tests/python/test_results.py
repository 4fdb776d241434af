"""scenarios/summary.schema.json and scripts/mrcsim_results.py: real summaries written by the
binary under test (a shrunk quickstart, a partial run, a run through every kind of failure and
link loss) match the schema exactly; the schema refuses what the writer never writes; the
accessors read the same figures as the raw JSON, and older summaries (the stored baselines) still
read without the check. Without the jsonschema module (scripts/setup.sh installs
python3-jsonschema) the schema tests are skipped, saying so, and the accessor tests still run."""
import copy
import json
import os
import re
import subprocess

import pytest

from conftest import ROOT

import mrcsim_results  # noqa: E402
from mrcsim_results import SummaryError, load_summary  # noqa: E402

QUICKSTART = os.path.join(ROOT, "scenarios", "quickstart.json")
BASELINE = os.path.join(ROOT, "results", "baselines", "a2a-failure.summary.json")
# The quickstart all-to-all shrunk to 16 GPUs and 16 KiB per pair: both transports in a second.
SHRINK = ["--set", "workloads.0.bytes=16384", "--set", 'workloads.0.gpus={"first": 0, "count": 16, "stride": 4}',
          "--set", "failures.0.at_us=5"]
# Eight GPUs of multiplane-64 through every kind of failure entry the summary logs, with link loss.
STORM = {
    "name": "tiny-storm",
    "seed": 3,
    "topology": {"preset": "multiplane-64"},
    "transport": [{"type": "mrc"},
                  {"type": "rocev2", "qps_per_connection": 2,
                   "attributes": {"ns3::FabricControlPlane::ReconvergenceDelay": "50us"}}],
    "workloads": [{"type": "all_to_all", "gpus": {"first": 0, "count": 8, "stride": 8}, "bytes": 65536},
                  {"type": "permutation", "gpus": {"first": 1, "count": 8, "stride": 8}, "bytes": 65536}],
    "link_loss": [{"link_class": "gpu-t0", "rate": 0.001}],
    "failures": [
        {"type": "random_links", "at_us": 1, "link_class": "t0-t1", "mtbf_us": 2000, "mttr_us": 20, "until_us": 50},
        {"type": "switch_down", "at_us": 2, "plane": 1, "tier": 1, "index": 0},
        {"type": "plane_down", "at_us": 3, "plane": 2},
        {"type": "link_flap", "at_us": 4, "link": {"plane": 3, "t0": 0, "up_port": 0}, "period_us": 10, "count": 2},
        {"type": "gray", "at_us": 5, "link": {"plane": 4, "t0": 0, "up_port": 0}, "loss_rate": 0.01},
        {"type": "port_down", "at_us": 6, "gpu": 8, "plane": 5},
        {"type": "link_down", "at_us": 7, "link": {"gpu": 16, "plane": 6}},
    ],
}


def run_mrcsim(mrcsim, scenario, out, *sets, code=0):
    p = subprocess.run([mrcsim, "run", scenario, "--out", out, "--quiet", *sets], capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == code, p.stdout + p.stderr
    return json.load(open(os.path.join(out, "summary.json")))


@pytest.fixture(scope="module")
def summaries(mrcsim, tmp_path_factory):
    """{name: (directory, parsed summary.json)} of three real runs."""
    tmp = tmp_path_factory.mktemp("summaries")
    storm = tmp / "storm.json"
    storm.write_text(json.dumps(STORM))
    out = {}
    for name, scenario, sets, code in [
        ("quickstart", QUICKSTART, SHRINK, 0),
        ("partial", QUICKSTART, SHRINK + ["--set", 'stop={"sim_time_us": 9}'], 3),
        # RoCEv2's QPs on the planes that fail stay in error (no failover across planes): partial.
        ("failures", str(storm), [], 3),
    ]:
        directory = str(tmp / name)
        out[name] = directory, run_mrcsim(mrcsim, scenario, directory, *sets, code=code)
    return out


@pytest.fixture(scope="module")
def jsonschema():
    return pytest.importorskip(
        "jsonschema", reason="python3-jsonschema is not installed (scripts/setup.sh installs it): schema not checked")


@pytest.fixture(scope="module")
def schema(jsonschema):
    with open(mrcsim_results.SCHEMA) as f:
        doc = json.load(f)
    jsonschema.validators.validator_for(doc).check_schema(doc)
    return doc


def errors(schema, doc):
    import jsonschema

    validator = jsonschema.validators.validator_for(schema)(schema)
    return [(list(e.absolute_path), e.message) for e in validator.iter_errors(doc)]


@pytest.mark.parametrize("name", ["quickstart", "partial", "failures"])
def test_real_summaries_match_the_schema(summaries, schema, name):
    directory, doc = summaries[name]
    assert errors(schema, doc) == []
    assert load_summary(directory).raw == doc  # load_summary checks it too


def test_the_runs_cover_what_the_schema_describes(summaries):
    _, partial = summaries["partial"]
    assert partial["partial"] and all(r["partial"] and r["stop_reason"] == "sim_time limit" for r in partial["runs"])
    _, storm = summaries["failures"]
    run = storm["runs"][1]
    assert [f["type"] for f in run["failures"]] == [f["type"] for f in STORM["failures"]]
    assert {type(f.get("links")).__name__ for f in run["failures"]} == {"list", "int", "NoneType"}
    assert run["link_loss"] == [{"link_class": "gpu-t0", "rate": 0.001, "links": 512}]
    assert run["attributes"] == {"ns3::FabricControlPlane::ReconvergenceDelay": "50us"}
    assert len(run["collectives"]) == 2 and run["packet_latency_us"]["histogram"]


def test_the_schema_knows_every_drop_cause_and_failure_type(schema):
    # The lists the C++ enumerates: a new drop cause or failure type needs the schema updated.
    header = open(os.path.join(ROOT, "models", "fabric", "drop-cause.h")).read()
    causes = re.findall(r'return "([a-z_]+)";', header)
    causes.remove("unknown")
    drops = schema["$defs"]["run"]["properties"]["counters"]["properties"]["drops"]
    assert sorted(drops["properties"]) == sorted(causes) == sorted(drops["required"])
    scenario_schema = json.load(open(os.path.join(ROOT, "scenarios", "scenario.schema.json")))
    assert (schema["$defs"]["failure"]["properties"]["type"]["enum"]
            == scenario_schema["$defs"]["failure"]["properties"]["type"]["enum"])


@pytest.mark.parametrize("change, where", [
    (lambda s: s.update(extra=1), "'extra' was unexpected"),
    (lambda s: s.pop("wall_clock"), "'wall_clock' is a required property"),
    (lambda s: s["runs"][0]["counters"].update(drops_total=3), "'drops_total' was unexpected"),
    (lambda s: s["runs"][0]["counters"]["drops"].pop("queue_full"), "'queue_full' is a required property"),
    (lambda s: s["runs"][0]["messages"]["time_us"].update(p99="1"), "'1' is not of type 'number'"),
    (lambda s: s["runs"][0].update(partial=True), "should not be valid"),  # complete yet partial
    (lambda s: s["runs"][0].update(transport="tcp"), "'tcp' is not one of"),
    (lambda s: s["runs"][0]["packet_latency_us"]["histogram"].append([1.0, 0]), "less than the minimum of 1"),
    (lambda s: s["runs"][0]["failures"][0].update(links=[]), "is not valid under any of the given schemas"),
    # A mean over completed instances is null exactly when none completed.
    (lambda s: s["runs"][0]["collectives"][0].update(busbw_gbps=None), "None is not of type 'number'"),
    (lambda s: s["runs"][0]["collectives"][0].update(completed=0), "is not of type 'null'"),
])
def test_the_schema_refuses_what_the_writer_never_writes(summaries, schema, tmp_path, change, where):
    doc = copy.deepcopy(summaries["quickstart"][1])
    change(doc)
    found = errors(schema, doc)
    assert found and any(where in message for _, message in found), found
    path = tmp_path / "summary.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(SummaryError, match=r"summary\.json does not match scenarios/summary\.schema\.json: at /"):
        load_summary(str(tmp_path))


def test_figures_not_defined_are_null_and_match_the_schema(mrcsim, schema, tmp_path):
    # Stopped at 1 us: nothing completed, so no completion time and no collective means.
    doc = run_mrcsim(mrcsim, QUICKSTART, str(tmp_path), *SHRINK, "--set", 'stop={"sim_time_us": 1}', code=3)
    assert errors(schema, doc) == []
    for run in load_summary(str(tmp_path)).runs:
        assert run.completion_us is None and run.collectives[0].completed == 0
        assert (run.collectives[0].busbw_gbps, run.collectives[0].algbw_gbps, run.collectives[0].ideal_us,
                run.collectives[0].slowdown_mean) == (None, None, None, None)


def test_accessors_read_the_raw_figures(summaries):
    directory, raw = summaries["failures"]
    s = load_summary(directory)
    assert s.path == os.path.join(directory, "summary.json")
    assert (s.scenario, s.seed, s.scenario_hash, s.version, s.partial) == (
        raw["scenario"], raw["seed"], raw["scenario_hash"], raw["version"], raw["partial"])
    assert (s.fabric.name, s.fabric.gpus, s.fabric.links) == (
        raw["fabric"]["name"], raw["fabric"]["gpus"], raw["fabric"]["links"])
    assert s.labels == ["mrc", "rocev2"] and s.run("rocev2").label == "rocev2" and s.run("tcp") is None
    for run, r in zip(s.runs, raw["runs"]):
        assert (run.transport, run.partial, run.stop_reason, run.completion_us, run.stopped_at_us, run.events) == (
            r["transport"], r["partial"], r["stop_reason"], r["completion_us"], r["stopped_at_us"], r["events"])
        assert run.qps_per_connection == r["qps_per_connection"] and run.attributes == r["attributes"]
        m = run.messages
        assert (m.count, m.completed, m.failed) == (r["messages"]["count"], r["messages"]["completed"],
                                                    r["messages"]["failed"])
        for stat in ("mean", "p50", "p90", "p99", "p99_9", "max"):
            assert m.time_us.stat(stat) == getattr(m.time_us, stat) == r["messages"]["time_us"][stat]
            assert run.packet_latency_us.stat(stat) == r["packet_latency_us"][stat]
        assert m.slowdown.count == r["messages"]["slowdown"]["count"]
        assert run.packet_latency_us.histogram == r["packet_latency_us"]["histogram"]
        c = run.counters
        for key in ("data_packets_sent", "retransmissions", "timeouts", "loss_probes", "trims", "ecn_marks",
                    "pfc_paused_port_us", "ev_transitions", "qp_errors"):
            assert getattr(c, key) == c.get(key) == c.lookup(key) == r["counters"][key]
        assert c.drops == r["counters"]["drops"]
        assert c.drops_total == c.lookup("drops") == sum(r["counters"]["drops"].values())
        assert c.lookup("drops.link_down") == r["counters"]["drops"]["link_down"]
        with pytest.raises(KeyError):
            c.lookup("drops.nothing")
        for coll, rc in zip(run.collectives, r["collectives"]):
            assert (coll.workload, coll.algorithm, coll.instances, coll.completed, coll.busbw_gbps, coll.algbw_gbps,
                    coll.ideal_us, coll.slowdown_mean, coll.time_us.mean) == (
                rc["workload"], rc["algorithm"], rc["instances"], rc["completed"], rc["busbw_gbps"],
                rc["algbw_gbps"], rc["ideal_us"], rc["slowdown_mean"], rc["time_us"]["mean"])
            assert run.collective(rc["workload"]).raw == rc
        assert [(f.type, f.at_us, f.links, f.links_in_class, f.failures_drawn) for f in run.failures] == [
            (f["type"], f["at_us"], f.get("links"), f.get("links_in_class"), f.get("failures_drawn"))
            for f in r["failures"]]
        assert run.gpu_bandwidth_gbps == r["ideal_model"]["gpu_bandwidth_gbps"]
        assert run.link_loss == r["link_loss"] and run.qp_errors == r["qp_errors"]
    assert s.without_wall_clock() == {k: v for k, v in raw.items() if k not in ("wall_clock", "run_id", "files")}


def test_older_summaries_read_without_the_check(jsonschema, tmp_path):
    # A stored baseline (no wall_clock, dropped on purpose) as an older version wrote it: without
    # messages.failed.
    with open(BASELINE) as f:
        raw = json.load(f)
    for run in raw["runs"]:
        run["messages"].pop("failed")
        # The baseline predates "traffic" too; given here so that "failed" is the one key missing.
        run.setdefault("traffic", {"fabric": {"messages": 0, "bytes": 0}, "scale_up": {"messages": 0, "bytes": 0}})
    older = tmp_path / "summary.json"
    older.write_text(json.dumps(raw))
    with pytest.raises(SummaryError, match=r"at /runs/0/messages: 'failed' is a required property"):
        load_summary(str(older), optional=("wall_clock", "run_id", "files"))
    s = load_summary(str(older), check=False)
    assert s.runs[0].messages.failed == 0 and s.wall_clock == []
    old = copy.deepcopy(s.raw)
    run = old["runs"][0]
    for key in ("packet_latency_us", "stopped_at_us", "failures", "stop_reason"):
        run.pop(key)
    run["counters"].pop("pfc_paused_port_us")
    r = mrcsim_results.Summary(old).runs[0]
    assert (r.packet_latency_us, r.stopped_at_us, r.failures, r.stop_reason, r.counters.pfc_paused_port_us) == (
        None, 0, [], None, 0)


def test_unreadable_summaries_name_the_file(tmp_path):
    with pytest.raises(SummaryError, match=r"cannot read .*nothing/summary\.json|cannot read .*nothing"):
        load_summary(str(tmp_path / "nothing"))
    (tmp_path / "summary.json").write_text("{")
    with pytest.raises(SummaryError, match=r"cannot read .*summary\.json: Expecting") as e:
        load_summary(str(tmp_path))
    assert e.value.reason.startswith("Expecting")


def test_repeated_keys_runs_and_special_files_are_refused(summaries, jsonschema, tmp_path):
    raw = copy.deepcopy(summaries["quickstart"][1])
    raw["runs"].append(raw["runs"][0])
    raw["wall_clock"].append(raw["wall_clock"][0])
    (tmp_path / "summary.json").write_text(json.dumps(raw))
    with pytest.raises(SummaryError, match=r"summary\.json: at /runs: run label\(s\) mrc appear more than once"):
        load_summary(str(tmp_path))
    (tmp_path / "summary.json").write_text('{"seed": 1, "seed": 2}')
    with pytest.raises(SummaryError, match=r"key\(s\) seed given more than once"):
        load_summary(str(tmp_path), check=False)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # opened, it would wait for a writer for ever
    with pytest.raises(SummaryError, match=r"fifo is not a regular file"):
        load_summary(str(fifo))


def test_the_modules_summary_matches_the_schema_too(mrcsim_module, schema, tmp_path):
    # mrcsim.run() returns the summary it writes; the same writer, checked the same way.
    result = mrcsim_module.run(STORM, overrides={"failures": [], "link_loss": []}, out_dir=tmp_path)
    assert errors(schema, result.summary) == []
    assert load_summary(tmp_path).raw == result.summary
