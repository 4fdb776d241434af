"""The inputs of a hostile-input campaign (tests/fuzz/hostile/, kept as found) and what each must
now do: a crash, a hang, a silently wrapped value or an idle run that each once caused. Each
file is copied into the corpus under its case's name; a scenario's GraphML file is named as it
lies beside it (the campaign's files named it from the project's root)."""
import json
import os

from fuzzlib import OK, dumps, err, key

HOSTILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile")


def source(name):
    with open(os.path.join(HOSTILE, name), encoding="utf-8") as f:
        return f.read()


def copy(c, cid, name, ext=".json", replace=()):
    text = source(name)
    for old, new in replace:
        text = text.replace(old, new)
    return c.write(cid + ext, text)


def gen_hostile(c):
    def validate(cid, name, note, *message):
        f = copy(c, cid, name)
        c.add("scenario", "range", cid, note, err(f, *message), argv=["validate", f], files=[f], timeout=10)

    def run(cid, name, note, expect, extra=(), timeout=20):
        f = copy(c, cid, name)
        if expect["exit"] == 1:
            expect = dict(expect, message=[f] + expect["message"])
        c.add("run", "range", cid, note, expect, argv=["run", f, "--quiet", "--out", "out/run", *extra], files=[f],
              timeout=timeout)

    # D1: a GraphML GPU without a port in plane 1 (RoCEv2's QP was dealt the missing port).
    for tag, argv in [("run", ["run", None, "--quiet", "--out", "out/run", "--set", 'transport={"type":"rocev2"}']),
                      ("validate", ["validate", None])]:
        cid = "hostile.gml.gpu.fewer.ports." + tag
        gml = copy(c, cid, "gml.gpu.fewer.ports.graphml", ".graphml")
        scn = copy(c, cid, "gml.gpu.fewer.ports.scn.json",
                   replace=[("../shared/bad-inputs/gml.gpu.fewer.ports.graphml", gml)])
        c.add("graphml", "structure", cid, f"{tag}: GPU 1 has no port in plane 1",
              err(gml, "gpu1", "plane 1"), argv=[a if a is not None else scn for a in argv], files=[gml, scn],
              timeout=10)
    cid = "hostile.gml.gpu.fewer.ports.topo-check"
    gml = copy(c, cid, "gml.gpu.fewer.ports.graphml", ".graphml")
    spec = c.write(cid + ".json", json.dumps({"kind": "graphml", "name": "g", "file": gml}) + "\n")
    c.add("graphml", "structure", cid, "topo --check: GPU 1 has no port in plane 1", err(gml, "gpu1", "plane 1"),
          argv=["topo", "--spec", spec, "--check"], files=[gml, spec], timeout=10)

    # D3: times beyond the simulator's clock (2^63 ps); thresholds beyond 32 bits.
    validate("hostile.f.flap.huge", "f.flap.huge.json", "10^6 flaps of 10^12 us", key("period_us"))
    validate("hostile.f2.flap.1e11x10", "f2.flap.1e11x10.json", "100 flaps of 10^11 us", key("period_us"))
    run("hostile.tiny.flap-set-huge", "tiny.json", "--set a flap of 10^6 periods of 10^12 us",
        err("period_us"),
        extra=["--set", 'failures=[{"type":"link_flap","at_us":0,"link":{"id":0},"period_us":1e12,"count":1000000}]'])
    # These run (they used to abort while being set up) until a stop 2 ms in, short of their work:
    # a partial run, exit status 3.
    partial = {"exit": 3, "message": []}
    stop = ["--set", "stop.sim_time_us=2000"]
    run("hostile.f.random_links.gpu.mttr.huge", "f.random_links.gpu.mttr.huge.json",
        "GPU links fail every us until 1 ms, repaired after 10^12 us on average (repairs past every run's end "
        "never happen)", partial, extra=stop)
    run("hostile.fab.delay1e9", "fab.delay1e9.json",
        "1 s links (the schema's largest): BDP-derived thresholds beyond 32 bits are never reached", partial, extra=stop)
    run("hostile.at.FabricSwitch.ForwardingLatency.1000s", "at.FabricSwitch.ForwardingLatency.1000s.json",
        "switches forward in 1000 s (thresholds beyond 32 bits)", partial, extra=stop)
    run("hostile.at3.PostLatency.1e6s", "at3.PostLatency.1e6s.json", "PostLatency 1e6 s, the largest time", partial,
        extra=stop)

    # D4: attribute values whose checker accepts what the model cannot run.
    validate("hostile.at.PortQueueConfig.DataLimit.1", "at.PortQueueConfig.DataLimit.1.json",
             "DataLimit 1 byte", "ns3::PortQueueConfig::DataLimit", "frame")
    run("hostile.tiny.DataLimit-4000", "tiny.json", "--set DataLimit 4000 (below one frame)",
        err("ns3::PortQueueConfig::DataLimit", "frame"),
        extra=["--set", 'transport.attributes={"ns3::PortQueueConfig::DataLimit":4000}'])
    validate("hostile.at.MrcQueuePair.BackupEvsPerPlane.4096", "at.MrcQueuePair.BackupEvsPerPlane.4096.json",
             "4096 backup EVs in each of 8 planes", "ns3::MrcQueuePair::BackupEvsPerPlane", "16384")
    # DCQCN's periods of 0 s stand for the profile's (55 us in the Paper profile): the run completes.
    run("hostile.at.roce.DcqcnRateControl.AlphaUpdatePeriod.0s", "at.roce.DcqcnRateControl.AlphaUpdatePeriod.0s.json",
        "DCQCN alpha period 0 s: the profile's; the all-to-all completes", OK, timeout=60)
    cid = "hostile.at.roce.DcqcnRateControl.RateIncreasePeriod.0s"
    f = copy(c, cid, "at.roce.DcqcnRateControl.AlphaUpdatePeriod.0s.json",
             replace=[("AlphaUpdatePeriod", "RateIncreasePeriod")])
    c.add("run", "range", cid, "DCQCN rate-increase period 0 s: the profile's; the all-to-all completes",
          OK, argv=["run", f, "--quiet", "--out", "out/run"], files=[f], timeout=60)

    # D7: a reference rate of 0 turns threshold scaling off (it used to make every threshold 0 and
    # trim every packet); a trimming threshold below one frame is refused.
    run("hostile.at.PortQueueConfig.ReferenceRate.0bps", "at.PortQueueConfig.ReferenceRate.0bps.json",
        "ReferenceRate 0bps: no scaling; the all-to-all completes", OK, timeout=60)
    run("hostile.tiny.ReferenceRate-0bps", "tiny.json", "--set ReferenceRate 0bps on one 4 KiB message: completes", OK,
        extra=["--set", 'transport.attributes={"ns3::PortQueueConfig::ReferenceRate":"0bps"}'], timeout=30)
    validate("hostile.at.PortQueueConfig.TrimThreshold.0", "at.PortQueueConfig.TrimThreshold.0.json",
             "TrimThreshold 0: every queued packet trimmed", "ns3::PortQueueConfig::TrimThreshold", "frame")

    # D6 (and D13's repeated option): an empty results path, or two, is refused naming --out.
    cid = "hostile.tiny.out-empty"
    f = copy(c, cid, "tiny.json")
    c.add("cli", "usage", cid, "run --out '' (wrote nothing and said \"results in /\")",
          {"exit": 2, "message": ["--out", "empty"]}, argv=["run", f, "--quiet", "--out", ""], files=[f], timeout=10)
    cid = "hostile.tiny.out-twice"
    f = copy(c, cid, "tiny.json")
    c.add("cli", "usage", cid, "run --out out/a --out out/b (the last won silently)",
          {"exit": 2, "message": ["--out", "2 times"]}, argv=["run", f, "--quiet", "--out", "out/a", "--out", "out/b"],
          files=[f], timeout=10)
    c.add("python", "python", "hostile.py.run.out-dir-empty", "run(tiny, out_dir='') (read the working directory's "
          "CSVs)", {"exit": 3, "message": ["out_dir", "empty"]},
          python={"func": "run", "args": [json.loads(source("tiny.json"))], "kwargs": {"out_dir": ""}}, timeout=10)

    # D8: MRC with no path to its peers gives up ("no progress possible", partial, exit 3) instead of
    # probing until the simulated-time limit.
    run("hostile.f.link.ft.gpu.plane", "f.link.ft.gpu.plane.json", "a GPU's only link down: MRC gives up", partial,
        timeout=60)
    run("hostile.f2.t1.all.down.cross", "f2.t1.all.down.cross.json", "every T1 down, traffic across T0s: MRC gives up",
        partial, timeout=120)

    # D9: a workload that starts after the stop.
    validate("hostile.wl.start.beyond.stop", "wl.start.beyond.stop.json", "start_us 1e12 with the default stop",
             key("start_us"), "permutation-0")
    validate("hostile.wl.start.max.stop.max", "wl.start.max.stop.max.json", "start_us 1e12 = sim_time_us",
             key("start_us"), "permutation-0")

    # D10: values that used to wrap.
    validate("hostile.at.MrcQueuePair.LossProbeRtts.1e308", "at.MrcQueuePair.LossProbeRtts.1e+308.json",
             "LossProbeRtts 1e308", "ns3::MrcQueuePair::LossProbeRtts", "1000")
    validate("hostile.at.MrcQueuePair.RetransmitTimeout.1e30s", "at.MrcQueuePair.RetransmitTimeout.1e30s.json",
             "RetransmitTimeout 1e30 s", "ns3::MrcQueuePair::RetransmitTimeout", "at most")
    validate("hostile.at3.PostLatency.18446744073.709551616s", "at3.PostLatency.18446744073.709551616s.json",
             "PostLatency 2^64 ps (wrapped to 0.65 us)", "ns3::RdmaNic::PostLatency", "at most")

    # D12: a fabric whose GPUs cannot reach each other fails the routing check.
    cid = "hostile.gml.no.uplink.t0"
    gml = copy(c, cid, "gml.no.uplink.t0.graphml", ".graphml")
    spec = copy(c, cid, "gml.no.uplink.t0.json", replace=[("../shared/bad-inputs/gml.no.uplink.t0.graphml", gml)])
    c.add("graphml", "structure", cid, "topo --check of a fabric whose T0 has no up-link", err(spec, "cannot reach"),
          argv=["topo", "--spec", spec, "--check"], files=[gml, spec], timeout=10)

    # D13: the minor list.
    validate("hostile.tr.label.summary.json", "tr.label.summary.json", "transport label summary.json", key("label"))
    validate("hostile.at2.FabricChannel.Delay.100us", "at2.FabricChannel.Delay.100us.json",
             "FabricChannel::Delay (set per link by the fabric; was ignored)", "ns3::FabricChannel::Delay", "topology")
    cid = "hostile.tiny.workloads-00"
    f = copy(c, cid, "tiny.json")
    c.add("cli", "range", cid, "--set workloads.00.bytes: an index has one spelling (the override is named, as "
          "cli.set.* cases expect)", {"exit": [1, 2], "message": ["workloads.00"]},
          argv=["validate", f, "--set", "workloads.00.bytes=8192"], files=[f], timeout=10)
    cid = "hostile.tiny.sim-time-below-1ps"
    doc = json.loads(source("tiny.json"))
    doc["stop"] = {"sim_time_us": 1e-7}
    f = c.write(cid + ".json", dumps(doc))
    c.add("scenario", "range", cid, "sim_time_us 1e-7 (0.1 ps, below the resolution)", err(f, key("sim_time_us")),
          argv=["validate", f], files=[f], timeout=10)
    c.add("python", "python", "hostile.py.topology.fail-links-str", "topology(fail_links=['a'])",
          {"exit": 4, "message": ["fail_links"]},
          python={"func": "topology", "args": [], "kwargs": {"preset": "multiplane-64", "fail_links": ["a"]}})
