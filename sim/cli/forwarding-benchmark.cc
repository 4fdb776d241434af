#include "sim/cli/forwarding-benchmark.h"

#include "sim/cli/commands.h"

#include "sim/run/process-stats.h"

#include "models/fabric/fabric-network.h"
#include "models/fabric/fabric-frame.h"
#include "models/rdma/rdma-frame.h"
#include "topologies/fabric-spec.h"

#include "ns3/core-module.h"

#include <iomanip>
#include <iostream>
#include <numeric>
#include <random>

namespace mrcsim
{

namespace
{

FabricSpec
HostsSpec(uint32_t hosts)
{
  FabricSpec s;
  s.kind = "multiplane";
  s.name = "multiplane-" + std::to_string(hosts);
  s.multiplane.planes = 8;
  s.multiplane.portRateGbps = 100;
  s.multiplane.gpus = hosts;
  s.multiplane.t0DownPorts = 32;
  s.multiplane.t0UpPorts = 32;
  s.multiplane.t1PerPlane = 16;
  return s;
}

void
CountReceived(uint64_t* count, ns3::Ptr<ns3::Packet>, uint16_t)
{
  ++*count;
}

} // namespace

int
BenchForwarding(const CliArgs& args)
{
  using namespace ns3;
  if (args.Has("--hosts") && args.Has("--preset"))
  {
    throw UsageError("give --hosts N or --preset NAME, not both");
  }
  FabricSpec spec = args.Has("--preset") ? PresetSpec(args.Value("--preset"))
                                         : HostsSpec(static_cast<uint32_t>(args.Unsigned("--hosts", "512", 2, 131072)));
  const uint32_t perHost = static_cast<uint32_t>(args.Unsigned("--packets", "128", 1, 1000000));
  const uint32_t payload = static_cast<uint32_t>(args.Unsigned("--payload", "4096", 1, 4096));
  const std::string scheduler = args.Value("--scheduler", "ns3::FabricScheduler");
  SetSchedulerOption(args);

  // ns-3 records every Time created before the first Simulator::Run (so that a later change of
  // resolution can convert them): 40 bytes and a tree insertion per Time. Running an empty
  // simulation fixes the resolution and stops the recording.
  Simulator::Run();

  Stopwatch clock;
  uint64_t rss0 = CurrentRssBytes();
  auto fabric = std::make_shared<const Fabric>(BuildFabric(spec, "benchmark"));
  double tFabric = clock.Seconds();
  const uint64_t heap1 = HeapInUseBytes();
  clock.Restart();
  FabricNetwork net(fabric);
  double tNetwork = clock.Seconds();
  const uint64_t heap2 = HeapInUseBytes();
  // NIC queues hold the whole offered load: no traffic-generator events are counted.
  net.GetNicPortConfig()->SetAttribute("DataLimit", UintegerValue(uint32_t(perHost) * (payload + 200) + 65536));

  // A random permutation; packet i of a host goes out of plane i mod P over a random T1.
  const uint32_t n = static_cast<uint32_t>(fabric->NumGpus());
  const int planes = fabric->NumPlanes();
  std::vector<uint32_t> dst(n);
  std::iota(dst.begin(), dst.end(), 0);
  std::mt19937_64 rng(1);
  std::shuffle(dst.begin(), dst.end(), rng);
  const FabricRouting& routing = net.Routing();
  clock.Restart();
  uint64_t sent = 0;
  for (uint32_t g = 0; g < n; ++g)
  {
    if (dst[g] == g)
    {
      continue;
    }
    for (uint32_t i = 0; i < perHost; ++i)
    {
      int plane = static_cast<int>(i % planes);
      FabricPacketSpec ps;
      ps.srcGpu = g;
      ps.dstGpu = dst[g];
      ps.plane = plane;
      ps.usids = routing.Usids(routing.Path(g, dst[g], plane, rng()), dst[g], plane);
      ps.psn = i;
      ps.payloadBytes = payload;
      net.GetHost(g)->Send(MakeWriteFrame(ps), routing.Attach(g, plane).gpuPort);
      ++sent;
    }
  }
  double tInject = clock.Seconds();
  uint64_t received = 0;
  for (uint32_t g = 0; g < n; ++g)
  {
    net.GetHost(g)->SetReceiveCallback(MakeBoundCallback(&CountReceived, &received));
  }

  uint64_t events0 = Simulator::GetEventCount();
  clock.Restart();
  Simulator::Run();
  double tRun = clock.Seconds();
  uint64_t events = Simulator::GetEventCount() - events0;
  Time simulated = Simulator::Now();

  uint64_t hops = 0;
  for (uint32_t id = 0; id < fabric->NumLinks(); ++id)
  {
    auto [a, b] = fabric->Ends(id);
    hops += net.GetPort(a, fabric->Link(id).portA)->TxPackets() + net.GetPort(b, fabric->Link(id).portB)->TxPackets();
  }
  uint64_t drops = 0;
  for (size_t c = 0; c < static_cast<size_t>(DropCause::Count); ++c)
    drops += net.CountDrops(static_cast<DropCause>(c));
  const uint64_t rss = PeakRssBytes();
  // The allocator's bytes, not the resident set's: with transparent huge pages (glibc's malloc
  // asks for them in a -DMRCSIM_MALLOC=system build: sim/cli/main.cc) the resident set grows 2 MiB
  // at a time, which moved this figure by up to 250 bytes per link (256 at 8,192 links) from run
  // to run.
  const double bytesPerLink = double(heap2 - heap1) / double(fabric->NumLinks());

  nlohmann::json j{ { "benchmark", "forwarding" },
                    { "fabric", fabric->Name() },
                    { "gpus", n },
                    { "switches", fabric->NumSwitches() },
                    { "links", fabric->NumLinks() },
                    { "scheduler", scheduler },
                    { "packets_sent", sent },
                    { "packets_received", received },
                    { "drops", drops },
                    { "packet_hops", hops },
                    { "events", events },
                    { "events_per_packet_hop", hops ? double(events) / double(hops) : 0.0 },
                    { "simulated_seconds", simulated.GetSeconds() },
                    { "seconds",
                      { { "fabric", tFabric }, { "network", tNetwork }, { "inject", tInject }, { "run", tRun } } },
                    { "packet_hops_per_second", tRun > 0 ? double(hops) / tRun : 0.0 },
                    { "events_per_second", tRun > 0 ? double(events) / tRun : 0.0 },
                    { "bytes_per_link", bytesPerLink },
                    { "rss_before_bytes", rss0 },
                    { "peak_rss_bytes", rss } };
  Simulator::Destroy();
  if (args.Flag("--json"))
  {
    std::cout << j.dump(2) << "\n";
  }
  else
  {
    std::cout << std::fixed << std::setprecision(2) << "forwarding benchmark: " << fabric->Name() << " (" << n
              << " GPUs, " << fabric->NumSwitches() << " switches, " << fabric->NumLinks() << " links), " << scheduler
              << "\n"
              << "  build            fabric " << tFabric << " s, ns-3 network " << tNetwork << " s, "
              << std::setprecision(0) << bytesPerLink << " bytes per link\n"
              << std::setprecision(2) << "  traffic          " << sent << " packets of " << payload
              << " B (random permutation, per-packet spraying over planes and T1s), " << received << " received, "
              << drops << " dropped\n"
              << "  run              " << tRun << " s for " << simulated.GetMicroSeconds() << " us simulated\n"
              << std::setprecision(0) << "  packet-hops/s    " << j["packet_hops_per_second"].get<double>() << " ("
              << hops << " packet-hops)\n"
              << "  events/s         " << j["events_per_second"].get<double>() << " (" << events << " events, "
              << std::setprecision(3) << j["events_per_packet_hop"].get<double>() << " per packet-hop)\n"
              << std::setprecision(1) << "  peak RSS         " << rss / 1048576.0 << " MiB\n";
  }
  return received + drops == sent ? 0 : 1;
}

} // namespace mrcsim
