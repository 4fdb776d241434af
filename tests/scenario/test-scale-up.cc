// Scale-up domains: the flow-level crossbar (max-min sharing of each GPU's egress and ingress, a
// mesh's pair links, the latency), the spec's checks, NCCL's rings over domains (layout, which hops
// reach the fabric, the ideal against the hierarchical ring's formula), PXN all-to-all, and a
// 64-GPU ring on 8 HGX servers run on the packet-level fabric.
#include "sim/workloads/collective-workload.h"
#include "sim/network/scale-up-fabric.h"
#include "sim/run/transport-run.h"
#include "sim/workloads/workload-params.h"
#include "sim/workloads/workload.h"

#include "topologies/fabric-spec.h"

#include "ns3/simulator.h"

#include <catch2/catch.hpp>

#include <array>
#include <functional>
#include <map>
#include <set>
#include <vector>

using namespace mrcsim;

namespace
{

ScaleUpSpec
Custom(uint32_t gpus, double gbps, double pairGbps, double latencyNs)
{
  ScaleUpSpec s;
  s.technology = "custom";
  s.gpusPerDomain = gpus;
  s.gpuGbps = gbps;
  s.pairGbps = pairGbps;
  s.latencyNs = latencyNs;
  return s;
}

/// Starts transfers (src, dst, bytes) at time 0 and returns when each was done, in seconds.
std::vector<double>
Finish(ScaleUpFabric& fabric, const std::vector<std::tuple<uint32_t, uint32_t, uint64_t>>& transfers)
{
  std::vector<double> done(transfers.size(), -1);
  for (std::size_t i = 0; i < transfers.size(); ++i)
  {
    const auto [src, dst, bytes] = transfers[i];
    ns3::Simulator::ScheduleNow([&fabric, &done, i, src = src, dst = dst, bytes = bytes]
                                { fabric.Transfer(src, dst, bytes, [&done, i] { done[i] = ns3::Simulator::Now().GetSeconds(); }); });
  }
  ns3::Simulator::Run();
  ns3::Simulator::Destroy();
  return done;
}

/// Counts what a workload posts, by tier, and completes every leg a fixed time later.
class TierCounter : public MessageService
{
public:
  explicit TierCounter(ScaleUpSpec spec) : m_spec(spec) {}
  void Send(uint32_t src, uint32_t dst, uint64_t bytes, std::function<void()> done) override
  {
    if (m_spec.SameDomain(src, dst))
    {
      ++scaleUpMessages;
      scaleUpBytes += bytes;
    }
    else
    {
      ++fabricMessages;
      fabricBytes += bytes;
      fabricPairs.emplace_back(src, dst);
    }
    ns3::Simulator::Schedule(ns3::NanoSeconds(100), std::move(done));
  }
  void SendVia(uint32_t src, uint32_t via, uint32_t dst, uint64_t bytes, std::function<void()> done) override
  {
    relays.push_back({ src, via, dst });
    MessageService::SendVia(src, via, dst, bytes, std::move(done));
  }

  ScaleUpSpec m_spec;
  uint64_t fabricMessages = 0;
  uint64_t fabricBytes = 0;
  uint64_t scaleUpMessages = 0;
  uint64_t scaleUpBytes = 0;
  std::vector<std::pair<uint32_t, uint32_t>> fabricPairs;
  std::vector<std::array<uint32_t, 3>> relays;
};

/// An idle-fabric model of 800 Gb/s NICs (1 us apart) with HGX-8 NVLink 4 domains.
IdealModel
HgxModel()
{
  IdealModel m;
  m.gpuBandwidthBps = 800e9;
  m.wireOverhead = 1.0;
  m.baseLatencyS = 1e-6;
  m.scaleUp = ScaleUpOf("nvlink4", 8);
  return m;
}

WorkloadSpec
RingSpec(const std::string& type, uint32_t gpus, uint64_t bytes, uint32_t channels)
{
  WorkloadSpec s;
  s.type = type;
  s.name = type;
  for (uint32_t g = 0; g < gpus; ++g)
    s.gpus.gpus.push_back(g);
  s.bytes = bytes;
  if (type.rfind("ring_", 0) == 0)
    EditParams<RingParams>(s.params).channels = channels;
  return s;
}

} // namespace

TEST_CASE("scale-up: transfers share a GPU's egress and ingress max-min fairly and pay the latency", "[scale-up]")
{
  // 100 Gb/s per GPU each way, 1 us: 1 MB takes 80 us alone.
  const ScaleUpSpec spec = Custom(4, 100, 0, 1000);
  {
    ScaleUpFabric fabric(spec, 8);
    const auto done = Finish(fabric, { { 0, 1, 1000000 } });
    CHECK(done[0] == Approx(81e-6).margin(1e-11));
  }
  {
    // Two from GPU 0 share its egress (50 Gb/s each); the shorter leaves at 80 us, the other
    // then has the whole egress for its last 0.5 MB (40 us more). A transfer in another domain is
    // not slowed.
    ScaleUpFabric fabric(spec, 8);
    const auto done = Finish(fabric, { { 0, 1, 1000000 }, { 0, 2, 500000 }, { 4, 5, 1000000 } });
    CHECK(done[1] == Approx(81e-6).margin(1e-11));
    CHECK(done[0] == Approx(121e-6).margin(1e-11));
    CHECK(done[2] == Approx(81e-6).margin(1e-11));
    CHECK(fabric.Transfers() == 3);
    CHECK(fabric.Bytes() == 2500000);
    CHECK(fabric.Outstanding() == 0);
  }
  {
    // Three senders into GPU 3's ingress: a third each; GPU 0 also sends to GPU 2, whose ingress
    // is free, and gets the rest of its egress (max-min: 100 - 33.3 Gb/s).
    ScaleUpFabric fabric(spec, 4);
    const auto done = Finish(fabric, { { 0, 3, 1000000 }, { 1, 3, 1000000 }, { 2, 3, 1000000 }, { 0, 2, 1000000 } });
    CHECK(done[0] == Approx(241e-6).margin(1e-11));
    CHECK(done[1] == Approx(241e-6).margin(1e-11));
    CHECK(done[2] == Approx(241e-6).margin(1e-11));
    // 1 MB at 200/3 Gb/s: 120 us.
    CHECK(done[3] == Approx(121e-6).margin(1e-11));
  }
}

TEST_CASE("scale-up: on a mesh each pair is limited to its own link", "[scale-up]")
{
  // xGMI-like: 300 Gb/s per GPU, 100 Gb/s per pair. One pair alone gets 100; three pairs from one
  // GPU get 100 each, the GPU's 300 in all.
  const ScaleUpSpec spec = Custom(4, 300, 100, 0);
  ScaleUpFabric fabric(spec, 4);
  const auto done = Finish(fabric, { { 0, 1, 1000000 }, { 0, 2, 1000000 }, { 0, 3, 1000000 } });
  for (double t : done)
    CHECK(t == Approx(80e-6).margin(1e-11));
  // xGMI's figures: 7 links of 64 GB/s each way, 448 GB/s per GPU.
  const ScaleUpSpec xgmi = ScaleUpOf("xgmi", 8);
  CHECK(xgmi.pairGbps == 512);
  CHECK(xgmi.gpuGbps == 7 * 512);
  CHECK(ScaleUpOf("nvlink4", 8).gpuGbps == 3600);
  CHECK(ScaleUpOf("nvlink5", 72).gpuGbps == 7200);
}

TEST_CASE("scale-up: domains must divide the fabric's GPUs; bad values are refused with the key named", "[scale-up]")
{
  FabricSpec spec = PresetSpec("multiplane-64");
  spec.scaleUp = ScaleUpOf("nvlink4", 6);
  CHECK_THROWS_WITH(CheckFabricSpec(spec, "f.json: at /topology/spec"),
                    Catch::Contains("scale_up/gpus_per_domain") && Catch::Contains("64 GPUs"));
  spec.scaleUp = ScaleUpOf("nvlink4", 8);
  CHECK_NOTHROW(CheckFabricSpec(spec, "f.json"));
  spec.scaleUp.latencyNs = -1;
  CHECK_THROWS_WITH(CheckFabricSpec(spec, "f.json"), Catch::Contains("scale_up/latency_ns"));
  CHECK_THROWS_WITH(ScaleUpOf("nvlink9", 8), Catch::Contains("nvlink4"));

  nlohmann::json j = nlohmann::json::parse(R"({"kind": "multiplane", "planes": 8, "port_rate_gbps": 100, "gpus": 64,
    "t0_down_ports": 16, "t0_up_ports": 16, "t1_per_plane": 8,
    "scale_up": {"technology": "custom", "gpus_per_domain": 8, "latency_ns": 100}})");
  JsonReader r(j, "f.json", "");
  CHECK_THROWS_WITH(ParseFabricSpec(r), Catch::Contains("f.json") && Catch::Contains("gpu_bandwidth_gbps"));
  j["scale_up"]["gpu_bandwidth_gbps"] = 1000;
  j["scale_up"]["speed"] = 1;
  JsonReader r2(j, "f.json", "");
  CHECK_THROWS_WITH(ParseFabricSpec(r2), Catch::Contains("speed"));
  j["scale_up"].erase("speed");
  JsonReader r3(j, "f.json", "");
  const FabricSpec parsed = ParseFabricSpec(r3);
  CHECK(parsed.scaleUp.gpuGbps == 1000);
  CHECK(FabricSpecToJson(parsed).at("scale_up").at("gpus_per_domain") == 8);
  // Presets with domains: HGX servers and NVL72 racks on multiplane fabrics.
  CHECK(PresetSpec("multiplane-64-hgx8").scaleUp.gpusPerDomain == 8);
  CHECK(PresetSpec("multiplane-576-nvl72").scaleUp.gpusPerDomain == 72);
  CHECK_FALSE(PresetSpec("multiplane-64").scaleUp.Enabled());
}

TEST_CASE("scale-up: NCCL's ring enters and leaves each server through one rail per channel", "[scale-up]")
{
  const ScaleUpSpec hgx = ScaleUpOf("nvlink4", 8);
  std::vector<uint32_t> gpus(64);
  for (uint32_t g = 0; g < 64; ++g)
    gpus[g] = g;
  const RingLayout layout = DomainRingLayout(gpus, hgx, 8);
  REQUIRE(layout.order.size() == 8);
  REQUIRE(layout.via.size() == 8);
  for (uint32_t c = 0; c < 8; ++c)
  {
    std::set<uint32_t> seen(layout.order[c].begin(), layout.order[c].end());
    CHECK(seen.size() == 64);
    uint32_t crossings = 0;
    for (uint32_t p = 0; p < 64; ++p)
    {
      const uint32_t from = gpus[layout.order[c][p]];
      const uint32_t to = gpus[layout.order[c][(p + 1) % 64]];
      const int32_t via = layout.via[c][p];
      if (hgx.SameDomain(from, to))
      {
        CHECK(via == -1);
        continue;
      }
      ++crossings;
      // Leaves through the NIC of local rank c (its entry GPU), to local rank c of the next server.
      REQUIRE(via >= 0);
      CHECK(hgx.SameDomain(from, gpus[via]));
      CHECK(hgx.LocalRank(gpus[via]) == c);
      CHECK(hgx.LocalRank(to) == c);
      CHECK(hgx.DomainOf(to) == (hgx.DomainOf(from) + 1) % 8);
    }
    CHECK(crossings == 8);
  }
  // Without domains: the flat ring.
  CHECK(DomainRingLayout(gpus, ScaleUpSpec{}, 8).order.empty());
  // One GPU per domain (a data-parallel ring of one local rank): domain after domain, no relay.
  const RingLayout strided = DomainRingLayout({ 3, 11, 19, 27 }, hgx, 8);
  REQUIRE(strided.order.size() == 1);
  CHECK(strided.via.empty());
}

TEST_CASE("scale-up: a 64-GPU ring on 8 servers puts only inter-server hops on the fabric, at NCCL's "
          "hierarchical bus bandwidth",
          "[scale-up]")
{
  // 8 channels, 1 GiB: each channel's chunk share is 2 MiB, 4 slices of 512 KiB per ring step.
  const uint32_t n = 64;
  const uint64_t bytes = uint64_t(1) << 30;
  const IdealModel model = HgxModel();
  TierCounter service(model.scaleUp);
  auto w = MakeWorkload(RingSpec("ring_allreduce", n, bytes, 8), 1, model);
  w->Start(service);
  ns3::Simulator::Run();
  ns3::Simulator::Destroy();
  REQUIRE(w->Done());
  const uint64_t slices = 4;
  const uint64_t steps = 2 * (n - 1) * slices;
  // Per step and channel: 8 inter-server hops, each relayed (one NVLink leg, one NIC leg), and 56
  // hops inside the servers.
  CHECK(service.fabricMessages == 8 * steps * 8);
  CHECK(service.scaleUpMessages == 64 * steps * 8);
  for (const auto& [src, dst] : service.fabricPairs)
  {
    CHECK(model.scaleUp.LocalRank(src) == model.scaleUp.LocalRank(dst));
    CHECK(model.scaleUp.DomainOf(dst) == (model.scaleUp.DomainOf(src) + 1) % 8);
  }
  // Every byte of the ring crosses NVLink once per hop; the fabric carries 1/8 of the hops.
  CHECK(service.scaleUpBytes + service.fabricBytes == w->BytesTotal() + service.fabricBytes);
  CHECK(service.fabricBytes * 8 == w->BytesTotal());

  // NCCL's hierarchical ring: each GPU's NVLink port carries 2(n-1)/n of the buffer (every hop, the
  // relayed ones included, leaves a GPU over NVLink once), each server's 8 NICs 2(n-1)/n of it in
  // all (one channel each): bus bandwidth min(B_nvlink, 8 x B_nic) = min(3600, 6400) Gb/s.
  const CollectiveRecord& r = w->Collectives().at(0);
  CHECK(r.busFactor == Approx(2.0 * (n - 1) / n));
  const double busbwBound = std::min(model.scaleUp.gpuGbps * 1e9, 8 * model.gpuBandwidthBps);
  const double bandwidthTerm = double(bytes) * 8 * r.busFactor / busbwBound;
  const double idealBusbw = double(bytes) * 8 * r.busFactor / r.idealS;
  CHECK(r.idealS >= bandwidthTerm);
  // Latency and the pipeline's fill add little at 1 GiB.
  CHECK(idealBusbw == Approx(busbwBound).epsilon(0.05));

  // Flat, on the same NICs without domains: one NIC per GPU carries every hop.
  IdealModel flat = model;
  flat.scaleUp = ScaleUpSpec{};
  TierCounter flatService(flat.scaleUp);
  auto f = MakeWorkload(RingSpec("ring_allreduce", n, bytes, 8), 1, flat);
  f->Start(flatService);
  ns3::Simulator::Run();
  ns3::Simulator::Destroy();
  CHECK(flatService.scaleUpMessages == 0);
  const double flatBusbw = double(bytes) * 8 * r.busFactor / f->Collectives().at(0).idealS;
  CHECK(flatBusbw <= model.gpuBandwidthBps);
  CHECK(flatBusbw == Approx(model.gpuBandwidthBps).epsilon(0.05));
}

TEST_CASE("scale-up: ring all-gather and reduce-scatter are one half of the all-reduce", "[scale-up]")
{
  const uint32_t n = 16;
  const IdealModel model = HgxModel();
  for (const std::string type : { "ring_allgather", "ring_reducescatter" })
  {
    TierCounter service(model.scaleUp);
    auto w = MakeWorkload(RingSpec(type, n, 1 << 20, 8), 1, model);
    w->Start(service);
    ns3::Simulator::Run();
    ns3::Simulator::Destroy();
    REQUIRE(w->Done());
    const CollectiveRecord& r = w->Collectives().at(0);
    CHECK(r.algorithm == type);
    CHECK(r.busFactor == Approx(double(n - 1) / n));
    // n-1 steps of one slice, 8 channels: 2 inter-server hops per step and channel.
    CHECK(service.fabricMessages == 2 * (n - 1) * 8);
    CHECK(w->BytesTotal() == uint64_t(n) * (n - 1) * ((1 << 20) / n));
  }
}

TEST_CASE("scale-up: PXN relays a message through the sender's GPU on the destination's rail", "[scale-up]")
{
  const uint32_t n = 32; // 4 servers of 8
  const IdealModel model = HgxModel();
  TierCounter direct(model.scaleUp);
  WorkloadSpec spec = RingSpec("all_to_all", n, 4096, 1);
  auto d = MakeWorkload(spec, 1, model);
  d->Start(direct);
  ns3::Simulator::Run();
  ns3::Simulator::Destroy();
  // Direct: 8 x 24 pairs across servers per GPU on the NICs, 7 per GPU on NVLink.
  CHECK(direct.fabricMessages == n * 24);
  CHECK(direct.scaleUpMessages == n * 7);
  CHECK(direct.relays.empty());

  EditParams<AllToAllParams>(spec.params).pxn = true;
  TierCounter pxn(model.scaleUp);
  auto p = MakeWorkload(spec, 1, model);
  p->Start(pxn);
  ns3::Simulator::Run();
  ns3::Simulator::Destroy();
  REQUIRE(p->Done());
  // Of a GPU's 24 remote destinations, 3 are on its own rail (direct); 21 go through the rail GPU.
  CHECK(pxn.relays.size() == n * 21);
  CHECK(pxn.fabricMessages == n * 24);
  CHECK(pxn.scaleUpMessages == n * 7 + n * 21);
  for (const auto& [src, via, dst] : pxn.relays)
  {
    CHECK(model.scaleUp.SameDomain(src, via));
    CHECK(model.scaleUp.LocalRank(via) == model.scaleUp.LocalRank(dst));
  }
  // Every fabric leg stays on one rail.
  for (const auto& [src, dst] : pxn.fabricPairs)
    CHECK(model.scaleUp.LocalRank(src) == model.scaleUp.LocalRank(dst));
  // Without domains PXN is refused.
  IdealModel flat = model;
  flat.scaleUp = ScaleUpSpec{};
  CHECK_THROWS_WITH(MakeWorkload(spec, 1, flat), Catch::Contains("pxn"));
}

TEST_CASE("scale-up: a 64-GPU ring on 8 HGX servers runs with only inter-server hops on the fabric", "[scale-up]")
{
  // The packet-level fabric (MRC) under the domains: the summary counts the tiers, and the run
  // cannot beat its ideal.
  nlohmann::json doc = nlohmann::json::parse(R"({"name": "t", "seed": 1, "topology": {"preset": "multiplane-64-hgx8"},
    "transport": {"type": "mrc"},
    "workloads": [{"type": "ring_allreduce", "name": "ring", "gpus": "all", "bytes": 4194304, "channels": 8}]})");
  const ScenarioSpec spec = ParseScenario(doc, "<test>");
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, "<test>"));
  RunOptions options;
  options.progress = false;
  const nlohmann::json summary = RunTransport(spec, spec.transports[0], fabric, options).summary;
  REQUIRE_FALSE(summary.at("partial").get<bool>());
  // 4 MiB / 64 chunks / 8 channels: one 8-KiB slice per ring step and channel.
  const uint64_t hops = 2 * 63 * 8;
  CHECK(summary.at("traffic").at("fabric").at("messages") == 8 * hops);
  CHECK(summary.at("traffic").at("fabric").at("bytes") == 8 * hops * 8192);
  CHECK(summary.at("traffic").at("scale_up").at("messages") == 64 * hops);
  const nlohmann::json& ring = summary.at("collectives").at(0);
  CHECK(ring.at("time_us").at("mean").get<double>() >= ring.at("ideal_us").get<double>());
  CHECK(summary.at("ideal_model").at("scale_up").at("gpus_per_domain") == 8);
}

TEST_CASE("scale-up: a training step keeps TP on NVLink, EP and DP on the NICs, with compute between", "[scale-up]")
{
  // 64 GPUs in 8 servers: TP 8 (a server), EP 4 (4 servers), DP 2.
  const IdealModel model = HgxModel();
  WorkloadSpec spec = RingSpec("train_step", 64, 0, 1);
  EditParams<TrainStepParams>(spec.params).tp = 8;
  EditParams<TrainStepParams>(spec.params).ep = 4;
  EditParams<TrainStepParams>(spec.params).dp = 2;
  EditParams<TrainStepParams>(spec.params).layers = 2;
  EditParams<TrainStepParams>(spec.params).tpBytes = 1 << 20;
  EditParams<TrainStepParams>(spec.params).a2aBytes = 65536;
  EditParams<TrainStepParams>(spec.params).dpBytes = 4 << 20;
  EditParams<TrainStepParams>(spec.params).computeUs = 20;
  TierCounter service(model.scaleUp);
  auto w = MakeWorkload(spec, 1, model);
  w->Start(service);
  ns3::Simulator::Run();
  ns3::Simulator::Destroy();
  REQUIRE(w->Done());
  // Per layer: a TP ring of 8 (14 steps) in each server, all NVLink: 64 x 14 messages; two EP
  // all-to-alls of 3 peers, each in another server: 2 x 64 x 3 on the NICs. Then the DP ring of 2
  // (2 steps) between the halves: 64 x 2 on the NICs.
  CHECK(service.scaleUpMessages == 2 * 64 * 14);
  CHECK(service.fabricMessages == 2 * 2 * 64 * 3 + 64 * 2);
  CHECK(service.relays.empty());
  const CollectiveRecord& r = w->Collectives().at(0);
  CHECK(r.algorithm == "train_step");
  // 7 collectives, 6 compute gaps of 20 us: in the step's time and in its ideal.
  CHECK((r.end - r.start).GetSeconds() >= 6 * 20e-6);
  CHECK(r.idealS >= 6 * 20e-6);
  // GPU idle time leaves the compute out: 64 GPUs x (step time - 120 us).
  CHECK(w->GpuIdle().GetSeconds() == Approx(64 * ((r.end - r.start).GetSeconds() - 120e-6)).epsilon(1e-9));
  // The sizes must multiply to the GPU count.
  EditParams<TrainStepParams>(spec.params).dp = 3;
  CHECK_THROWS_WITH(MakeWorkload(spec, 1, model), Catch::Contains("tp"));
  EditParams<TrainStepParams>(spec.params).dp = 2;
  EditParams<TrainStepParams>(spec.params).tp = 16;
  EditParams<TrainStepParams>(spec.params).ep = 2;
  CHECK_THROWS_WITH(MakeWorkload(spec, 1, model), Catch::Contains("scale-up domain"));
}

TEST_CASE("scale-up: the small training-step scenario runs on both transports", "[scale-up]")
{
  const ScenarioSpec spec = ReadScenarioFile(std::string(MRCSIM_SOURCE_DIR) + "/scenarios/scaleup-train-step.json");
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec.topology, "<test>"));
  RunOptions options;
  options.progress = false;
  for (const TransportSpec& t : spec.transports)
  {
    const nlohmann::json summary = RunTransport(spec, t, fabric, options).summary;
    CHECK_FALSE(summary.at("partial").get<bool>());
    CHECK(summary.at("traffic").at("scale_up").at("messages") == 2 * 64 * 14);
    CHECK(summary.at("traffic").at("fabric").at("messages") == 2 * 2 * 64 * 3 + 64 * 2);
    const nlohmann::json& step = summary.at("collectives").at(0);
    CHECK(step.at("time_us").at("mean").get<double>() >= step.at("ideal_us").get<double>());
  }
}
