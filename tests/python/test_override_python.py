"""Overrides into missing objects through the module's overrides= path (the CLI's code)."""
import os

import pytest

from conftest import ROOT

QUICKSTART = os.path.join(ROOT, "scenarios", "quickstart.json")


def test_overrides_create_allowed_objects_and_name_unknown_keys(mrcsim_module):
    mrcsim = mrcsim_module
    d = mrcsim.validate(QUICKSTART, overrides=["transport.0.attributes.ns3::MrcQueuePair::EvCount=64"])
    assert d["transports"][0]["attributes"] == {"ns3::MrcQueuePair::EvCount": "64"}
    d = mrcsim.validate(QUICKSTART, overrides={"transport.1.attributes.ns3::RdmaNic::Mtu": 2048, "stop.sim_time_us": 50})
    assert d["transports"][1]["attributes"] == {"ns3::RdmaNic::Mtu": "2048"} and d["stop"]["sim_time_us"] == 50
    with pytest.raises(mrcsim.SpecError, match=r"at /transport/0/colour: unknown key"):
        mrcsim.validate(QUICKSTART, overrides={"transport.0.colour.red": 1})
    with pytest.raises(mrcsim.SpecError, match=r"/outputs/pcap does not exist; set the whole list"):
        mrcsim.run(QUICKSTART, overrides=["outputs.pcap.0.gpu=1"])
    r = mrcsim.run(QUICKSTART, overrides={"workloads.0.gpus": {"first": 0, "count": 8, "stride": 8},
                                          "workloads.0.bytes": 16384,
                                          "transport.0.attributes.ns3::MrcQueuePair::EvCount": 16})
    assert r.summary["runs"][0]["attributes"] == {"ns3::MrcQueuePair::EvCount": "16"}
