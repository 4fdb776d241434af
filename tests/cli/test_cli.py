#!/usr/bin/python3
"""Command-line tests of mrcsim: exit codes, messages on bad input, JSON and GraphML output.

usage: test_cli.py MRCSIM_BINARY SOURCE_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

BIN, SRC = sys.argv[1], sys.argv[2]
failures = []
passed = 0


def run(*args):
    p = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout, p.stderr


def check(name, cond, detail=""):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(f"{name}: {detail}")


def expect_error(name, args, status, *fragments):
    code, out, err = run(*args)
    check(name + " exit status", code == status, f"got {code}, expected {status}; stderr: {err.strip()}")
    for frag in fragments:
        check(name + " message", frag in err, f"{frag!r} not in stderr: {err.strip()}")


with tempfile.TemporaryDirectory() as tmp:
    def spec(name, body):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            f.write(body)
        return path

    # The version, as summary.json records it.
    code, out, _ = run("--version")
    check("version", code == 0 and out.startswith("mrcsim ") and "(ns-3 3." in out, out)
    version = out.split()[1] if len(out.split()) > 1 else ""

    # Presets listed; figures as JSON with the fields the plots use.
    code, out, _ = run("topo", "--list")
    check("list", code == 0 and "multiplane-131k" in out and "fat-tree-4tier-131k" in out, out)
    code, out, _ = run("topo", "--preset", "multiplane-64", "--json", "--check")
    check("json exit", code == 0)
    j = json.loads(out)
    check("json gpus", j["gpus"] == 64)
    check("json switches", j["switches"]["total"] == 96)
    check("json hops", j["max_switch_hops"] == 3)
    check("json check", j["check"]["ok"] is True and j["check"]["paths_walked"] > 0, j.get("check"))

    # Failures reported as reachability: link 0 is GPU 0's plane-0 port.
    code, out, _ = run("topo", "--preset", "multiplane-64", "--json", "--fail-link", "0")
    j = json.loads(out)
    check("fail-link detached", j["routing"]["detached_gpus_per_plane"][0] == 1, j["routing"])
    check("fail-link unreachable", j["routing"]["unreachable_pairs_per_plane"][0] == 2 * 63, j["routing"])
    check("fail-link all planes", j["routing"]["unreachable_pairs_all_planes"] == 0, j["routing"])
    # A link given twice fails once, and is counted once.
    code, out, _ = run("topo", "--preset", "multiplane-64", "--json", "--fail-link", "5", "--fail-link", "5")
    check("fail-link twice counted once", code == 0 and json.loads(out)["routing"]["failed_links"] == 1, out[-300:])
    code, out, _ = run("topo", "--preset", "multiplane-64", "--no-groups", "--fail-link", "5", "--fail-link", "5")
    check("fail-link twice printed once", code == 0 and any(
        line.split()[:2] == ["failed", "links"] and line.split()[-1] == "1" for line in out.splitlines()), out)
    # What a command prints must reach its destination: a full disk is an error, not exit 0.
    with open("/dev/full", "w") as full:
        for args in (["topo", "--preset", "multiplane-64", "--no-groups", "--json"], ["topo", "--list"]):
            p = subprocess.run([BIN, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
            check("stdout on a full disk " + args[-1], p.returncode == 1 and "cannot write the standard output" in p.stderr,
                  f"{p.returncode}: {p.stderr.strip()}")

    # GraphML export, then the exported file as a spec gives the same figures.
    gml = os.path.join(tmp, "f.graphml")
    code, out, _ = run("topo", "--preset", "fat-tree-2tier-2k", "--json", "--graphml", gml)
    a = json.loads(out)
    path = spec("g.json", json.dumps({"kind": "graphml", "name": "fat-tree-2tier-2k", "file": gml}))
    code, out, err = run("topo", "--spec", path, "--json")
    check("graphml reimport exit", code == 0, err)
    b = json.loads(out)
    for key in ("gpus", "switches", "links", "optics", "max_switch_hops", "shortest_paths", "bisection_tbps", "power_kw"):
        check("graphml " + key, a[key] == b[key], f"{a[key]} != {b[key]}")

    # Bad input: a clear message naming the file and key, non-zero exit.
    expect_error("unknown preset", ["topo", "--preset", "nope"], 1, "unknown preset \"nope\"", "multiplane-131k")
    bad = spec("radix.json", '{"kind": "fat_tree", "tiers": 3, "radix": 63, "port_rate_gbps": 800, "gpus": 64}')
    expect_error("odd radix", ["topo", "--spec", bad], 1, "radix.json", "/radix", "not divisible by 2")
    bad = spec("planes.json", '{"kind": "multiplane", "planes": 0, "port_rate_gbps": 100, "gpus": 8,'
                              ' "t0_down_ports": 4, "t0_up_ports": 4, "t1_per_plane": 2}')
    expect_error("zero planes", ["topo", "--spec", bad], 1, "planes.json", "/planes", "[1, 64]")
    bad = spec("key.json", '{"kind": "multiplane", "planes": 2, "port_rate_gbps": 100, "gpus": 8,'
                           ' "t0_down_ports": 4, "t0_up_ports": 4, "t1_per_plane": 2, "colour": "blue"}')
    expect_error("unknown key", ["topo", "--spec", bad], 1, "key.json", "/colour: unknown key")
    bad = spec("syntax.json", '{"kind": ')
    expect_error("bad json", ["topo", "--spec", bad], 1, "syntax.json", "not valid JSON")
    expect_error("missing file", ["topo", "--spec", os.path.join(tmp, "none.json")], 1, "cannot open")
    expect_error("both sources", ["topo", "--preset", "multiplane-64", "--spec", bad], 2, "exactly one")
    expect_error("bad option", ["topo", "--presett", "x"], 2, "unknown option --presett")
    expect_error("bad link", ["topo", "--preset", "multiplane-64", "--fail-link", "99999"], 2, "--fail-link 99999")
    expect_error("bad command", ["frobnicate"], 2, "unknown command")
    expect_error("bad partitions", ["bench", "perm-8192", "--partitions", "0"], 2,
                 "--partitions 0: expected an integer of at least 1")
    expect_error("bad bytes", ["bench", "perm-8192", "--bytes", "2MB"], 2, "--bytes 2MB: expected an integer")

    # Scenarios: every shipped file validates; a bad one stops before anything runs.
    scen_dir = os.path.join(SRC, "scenarios")
    for root, _, files in os.walk(scen_dir):
        for name in sorted(files):
            if name.endswith(".json") and not name.endswith(".schema.json"):
                code, out, err = run("validate", os.path.join(root, name))
                check("validate " + name, code == 0 and "valid" in out, err.strip())
    bad = spec("bad-scenario.json", '{"name": "x", "topology": {"preset": "multiplane-64"}, "transport": '
                                    '{"type": "mrc"}, "workloads": [{"type": "permutation", "bytes": -5}]}')
    expect_error("bad scenario", ["run", bad], 1, "bad-scenario.json", "/workloads/0/bytes")
    expect_error("bad override", ["validate", os.path.join(scen_dir, "quickstart.json"), "--set", "workloads.7.bytes=1"],
                 1, "workloads.7.bytes")
    # The --help example: an override into a missing "attributes" object creates it; an unknown
    # key is still named.
    code, out, err = run("validate", os.path.join(scen_dir, "quickstart.json"), "--set",
                         "transport.0.attributes.ns3::MrcQueuePair::EvCount=64")
    check("override creates attributes", code == 0 and "valid" in out, err)
    expect_error("override unknown key", ["validate", os.path.join(scen_dir, "quickstart.json"), "--set",
                                          "transport.0.colour.red=1"], 1, "at /transport/0/colour: unknown key")
    expect_error("run no file", ["run"], 2)
    # A tiny run writes the summary and the CSVs, and prints the comparison table.
    tiny = spec("tiny.json", '{"name": "tiny", "topology": {"preset": "multiplane-64"}, "transport": '
                             '[{"type": "mrc"}, {"type": "rocev2", "qps_per_connection": 8}], "workloads": '
                             '[{"type": "permutation", "gpus": {"first": 0, "count": 8, "stride": 8}, "bytes": 65536}]}')
    outdir = os.path.join(tmp, "tiny-out")
    code, out, err = run("run", tiny, "--out", outdir, "--quiet")
    check("run exit", code == 0, err)
    check("run table", "mrc" in out and "rocev2" in out and "complete" in out, out)
    summary = json.load(open(os.path.join(outdir, "summary.json")))
    check("run summary", [r["label"] for r in summary["runs"]] == ["mrc", "rocev2"]
          and not summary["partial"] and summary["runs"][0]["messages"]["completed"] == 8, summary)
    check("run version", summary["version"] == version, (summary["version"], version))
    with open("/dev/full", "w") as full:
        p = subprocess.run([BIN, "run", tiny, "--out", os.path.join(tmp, "full-out")], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=120)
        check("run table to a full disk", p.returncode == 1 and "cannot write the standard output" in p.stderr,
              f"{p.returncode}: {p.stderr.strip()}")

    # A scenario's GraphML file is found beside the scenario, whatever the working directory.
    gml_dir = os.path.join(tmp, "gml-scenario")
    os.makedirs(gml_dir)
    code, _, err = run("topo", "--preset", "multiplane-64", "--no-groups", "--graphml", os.path.join(gml_dir, "f.graphml"))
    check("graphml export for a scenario", code == 0, err)
    gml_scenario = os.path.join(gml_dir, "s.json")
    with open(gml_scenario, "w") as f:
        json.dump({"name": "g", "topology": {"spec": {"kind": "graphml", "file": "f.graphml"}},
                   "transport": {"type": "mrc"}, "workloads": [{"type": "permutation", "gpus": [0, 1], "bytes": 4096}]}, f)
    p = subprocess.run([BIN, "validate", gml_scenario], capture_output=True, text=True, timeout=120, cwd=SRC)
    check("graphml beside its scenario", p.returncode == 0, p.stderr.strip())
    # And beside a fabric spec file, for topo --spec as for a scenario.
    gml_spec = os.path.join(gml_dir, "fabric.json")
    with open(gml_spec, "w") as f:
        json.dump({"kind": "graphml", "file": "f.graphml"}, f)
    p = subprocess.run([BIN, "topo", "--spec", gml_spec, "--check"], capture_output=True, text=True, timeout=120,
                       cwd=SRC)
    check("graphml beside its fabric spec", p.returncode == 0 and re.search(r"routing check +ok", p.stdout),
          f"{p.returncode}: {p.stderr.strip()}")
    for label in ("mrc", "rocev2"):
        for csv_name in ("collectives.csv", "messages.csv", "timeseries.csv"):
            check("run " + label + " " + csv_name, os.path.getsize(os.path.join(outdir, label, csv_name)) > 0)

    # A run stopped before anything completed: no completion time, bus bandwidth or latency to
    # show, "n/a" in the table and null in summary.json (histogram summaries: count 0).
    stopped = os.path.join(tmp, "stopped-out")
    code, out, err = run("run", tiny, "--out", stopped, "--quiet", "--set",
                         'workloads.0={"type": "all_to_all", "gpus": {"first": 0, "count": 8, "stride": 8}, '
                         '"bytes": 65536}', "--set", 'stop={"sim_time_us": 1}')
    rows = [line.split() for line in out.splitlines() if line.split()[:1] in (["mrc"], ["rocev2"])]
    check("stopped exit", code == 3, err)
    check("stopped table n/a", len(rows) == 2 and all(r[1:8] == ["n/a"] * 7 for r in rows), out)
    runs = json.load(open(os.path.join(stopped, "summary.json")))["runs"]
    check("stopped summary null", all(r["completion_us"] is None and r["collectives"][0]["completed"] == 0
                                      and r["collectives"][0]["busbw_gbps"] is None
                                      and r["collectives"][0]["algbw_gbps"] is None for r in runs), runs)

    # A sweep block: validate counts its points; run runs the base scenario and says how to run
    # the sweep; a point ("sweep": null) runs without the note.
    swept = json.loads(open(tiny).read())
    swept["sweep"] = {"parameters": {"workloads.0.bytes": [4096, 16384, 65536]}, "seeds": {"count": 2}}
    swept_path = spec("swept.json", json.dumps(swept))
    code, out, err = run("validate", swept_path)
    check("validate sweep", code == 0 and "sweep of 6 point(s): 3 values x 2 seed(s)" in out, out + err)
    code, out, err = run("run", swept_path, "--out", os.path.join(tmp, "swept-out"), "--quiet")
    check("run sweep exit", code == 0, err)
    check("run sweep note", "has a sweep block (6 point(s)" in err and "scripts/sweep.py " + swept_path in err
          and err.count("\n") == 1, err)
    check("run sweep base", json.load(open(os.path.join(tmp, "swept-out", "summary.json")))["seed"] == 1)
    code, out, err = run("run", swept_path, "--out", os.path.join(tmp, "point-out"), "--quiet",
                         "--set", "sweep=null", "--set", "workloads.0.bytes=4096", "--set", "seed=2")
    check("run sweep point", code == 0 and "sweep" not in err, err)
    bad = spec("bad-sweep.json", json.dumps(dict(swept, sweep={"parameters": {"workloads.0.bytes": [0]}})))
    expect_error("bad sweep", ["validate", bad], 1, "bad-sweep.json", "/sweep/parameters/workloads.0.bytes/0")

    # Hardening: usage errors say what is missing; bad benchmark options are usage errors; output
    # that cannot be written is an error naming the file; SIGTERM and SIGHUP stop a run cleanly.
    expect_error("validate no file", ["validate"], 2, "expected a scenario file")
    expect_error("validate two files", ["validate", tiny, tiny], 2, "expected one scenario file, got 2")
    expect_error("bench none", ["bench"], 2, "expected a benchmark")
    expect_error("bad scheduler", ["bench", "forwarding", "--hosts", "64", "--scheduler", "ns3::Nope"], 2,
                 "--scheduler ns3::Nope: not an ns-3 event scheduler")
    expect_error("bench bytes 2^32", ["bench", "perm-8192", "--preset", "perm-512", "--bytes", "4294967296"], 2,
                 "--bytes 4294967296: expected an integer in [1, 2147483648]")
    expect_error("graphml to a full disk", ["topo", "--preset", "multiplane-64", "--graphml", "/dev/full"], 1,
                 "cannot write /dev/full")
    expect_error("fail-link empty", ["topo", "--preset", "multiplane-64", "--fail-link", ""], 2, "--fail-link")
    # The attribute listing: a filter, JSON, and a filter that matches nothing is a usage error.
    code, out, err = run("attributes", "DcqcnRateControl", "--json")
    listed = {a["name"]: a for a in json.loads(out)} if code == 0 else {}
    check("attributes json", "ns3::DcqcnRateControl::G" in listed and listed["ns3::DcqcnRateControl::G"]["settable"]
          and all("DcqcnRateControl" in n for n in listed), err)
    code, out, err = run("attributes", "FabricChannel::Delay")
    check("attributes text", code == 0 and "not settable from a scenario" in out and "topology" in out, err)
    expect_error("attributes nothing", ["attributes", "NoSuchThing"], 2, "no attribute name contains \"NoSuchThing\"")
    # An old summary.json never stays beside new CSVs. A run refused while its scenario is read
    # (here: a random workload of more messages than a run may hold, which validate and run both
    # refuse) touches nothing: the previous run's files stay whole, summary and CSVs together.
    stale = os.path.join(tmp, "stale-out")
    code, _, err = run("run", tiny, "--out", stale, "--quiet")
    check("stale first run", code == 0 and os.path.exists(os.path.join(stale, "summary.json")), err)
    with open(os.path.join(stale, "summary.json")) as f:
        first = f.read()
    with open(os.path.join(stale, "mrc", "messages.csv")) as f:
        first_csv = f.read()
    too_many = 'workloads.0={"type": "random", "gpus": "all", "bytes": 1, "load": 1, "duration_us": 1e6}'
    code, _, err = run("validate", tiny, "--set", too_many)
    check("validate refuses too many messages", code == 1 and "at most 5e7" in err and
          "tiny.json: at /workloads/0/load" in err, err)
    code, _, err = run("run", tiny, "--out", stale, "--quiet", "--set", too_many)
    check("stale failing run", code == 1 and "at most 5e7" in err and "tiny.json: at /workloads/0/load" in err, err)
    with open(os.path.join(stale, "summary.json")) as f:
        same_summary = f.read() == first
    with open(os.path.join(stale, "mrc", "messages.csv")) as f:
        same_csv = f.read() == first_csv
    check("refused run leaves the previous results whole", same_summary and same_csv)
    import fcntl
    import signal
    import time
    long_run = spec("long.json", json.dumps({
        "name": "long", "topology": {"preset": "multiplane-64"}, "transport": {"type": "mrc"},
        "workloads": [{"type": "all_to_all", "gpus": "all", "bytes": 1 << 24}], "outputs": {"sample_interval_us": 1e6}}))

    # --out: an empty path is refused (it used to print "results in /" and write nothing), and so
    # is an option that takes one value given twice (the last used to win silently).
    nowhere = [os.path.join(tmp, "out-a"), os.path.join(tmp, "out-b")]
    expect_error("empty --out", ["run", tiny, "--out", "", "--quiet"], 2, "--out: an empty path")
    expect_error("--out twice", ["run", tiny, "--out", nowhere[0], "--out=" + nowhere[1], "--quiet"], 2,
                 "option --out given 2 times", nowhere[0], nowhere[1])
    check("--out twice writes nothing", not any(os.path.exists(d) for d in nowhere))
    expect_error("--partitions twice", ["run", tiny, "--partitions", "1", "--partitions", "2"], 2,
                 "option --partitions given 2 times")
    expect_error("--preset twice", ["topo", "--preset", "multiplane-64", "--preset", "multiplane-64"], 2,
                 "option --preset given 2 times")

    # One writer per results directory: a run holds DIR/.mrcsim.lock (flock) while it writes; a
    # second run into DIR fails at once (exit 2), naming DIR, and leaves the files alone.
    locked = os.path.join(tmp, "locked-out")
    code, _, err = run("run", tiny, "--out", locked, "--quiet")
    check("locked first run", code == 0, err)
    before = {n: open(os.path.join(locked, n), "rb").read() for n in ("summary.json", "mrc/messages.csv")}
    first = json.loads(before["summary.json"])
    with open(os.path.join(locked, ".mrcsim.lock")) as holder:
        fcntl.flock(holder, fcntl.LOCK_EX | fcntl.LOCK_NB)
        start = time.monotonic()
        expect_error("run into a held directory", ["run", tiny, "--out", locked, "--quiet", "--set", "seed=2"], 2,
                     "results directory " + locked + " is in use", "another mrcsim run")
        check("held directory fails fast", time.monotonic() - start < 10)
    check("held directory untouched", all(open(os.path.join(locked, n), "rb").read() == b for n, b in before.items()))
    code, _, err = run("run", tiny, "--out", locked, "--quiet")
    second = json.load(open(os.path.join(locked, "summary.json")))
    check("lock let go", code == 0, err)
    check("run_id per run", second["run_id"] != first["run_id"], second["run_id"])
    check("run_id only: same results", {**second, "run_id": 0, "wall_clock": 0} == {**first, "run_id": 0,
                                                                                     "wall_clock": 0})
    check("no temporaries left", sorted(os.listdir(os.path.join(locked, "mrc"))) ==
          ["collectives.csv", "messages.csv", "timeseries.csv"], os.listdir(os.path.join(locked, "mrc")))
    # Two processes: the second starts while the first holds the directory.
    busy = os.path.join(tmp, "busy-out")
    p = subprocess.Popen([BIN, "run", long_run, "--out", busy, "--quiet"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=dict(os.environ, MRCSIM_HUGE_PAGES="0"))
    held = False
    deadline = time.monotonic() + 30
    while not held and time.monotonic() < deadline and p.poll() is None:
        try:
            with open(os.path.join(busy, ".mrcsim.lock")) as probe:
                fcntl.flock(probe, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            held = True
        except FileNotFoundError:
            pass
        time.sleep(0.02)
    check("first run holds the lock", held)
    expect_error("second process into a busy directory", ["run", tiny, "--out", busy, "--quiet"], 2,
                 busy + " is in use")
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    check("first run carries on", p.returncode == 3, err)
    s = json.load(open(os.path.join(busy, "summary.json")))
    check("first run's summary", s["scenario"] == "long" and set(s["files"]) == {
        "mrc/" + n for n in ("collectives.csv", "messages.csv", "timeseries.csv")}, s.get("files"))
    check("first run's files", all(os.path.getsize(os.path.join(busy, n)) == e["bytes"] for n, e in s["files"].items()))
    for sig, name in ((signal.SIGTERM, "SIGTERM"), (signal.SIGHUP, "SIGHUP")):
        out_dir = os.path.join(tmp, "signal-" + name)
        p = subprocess.Popen([BIN, "run", long_run, "--out", out_dir, "--quiet"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=dict(os.environ, MRCSIM_HUGE_PAGES="0"))
        time.sleep(1.5)
        p.send_signal(sig)
        out, err = p.communicate(timeout=60)
        check(name + " exit", p.returncode == 3, f"{p.returncode}: {err}")
        s = json.load(open(os.path.join(out_dir, "summary.json"))) if os.path.exists(
            os.path.join(out_dir, "summary.json")) else {}
        check(name + " partial summary", s.get("partial") is True
              and s["runs"][0]["stop_reason"] == "interrupted (" + name + ")", s.get("runs", [{}])[0].get("stop_reason"))

print(f"{passed} passed, {len(failures)} failed")
for f in failures:
    print("FAIL", f)
sys.exit(1 if failures else 0)
