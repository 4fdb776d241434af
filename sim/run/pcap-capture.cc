#include "sim/run/pcap-capture.h"

#include "models/engine/fabric-parallel-simulator.h"

#include <filesystem>
#include <set>
#include <utility>

namespace mrcsim
{

std::string
PcapFileName(const Fabric& fabric, VertexId v, uint16_t port)
{
  return "pcap/" + fabric.VertexName(v) + "-port" + std::to_string(port) + ".pcap";
}

std::vector<std::string>
EnablePcapCaptures(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net, const std::string& outDir)
{
  std::vector<std::string> files;
  if (spec.outputs.pcapLinks.empty())
  {
    return files;
  }
  const std::string where = spec.file + ": at /outputs/pcap: ";
  if (outDir.empty())
  {
    throw SpecError(where + "packet captures are written to the run's output directory, and this run has none "
                            "(mrcsim run --out DIR; out_dir in Python)");
  }
  // Frames are written as ns-3 Packets, whose free lists and uid counter no lock guards (the
  // same limit as packet trace sources, models/fabric/fabric-frame.cc).
  const ns3::FabricParallelSimulatorImpl* parallel = ns3::FabricParallelSimulatorImpl::Get();
  if (parallel && parallel->GetPartitions() > 1)
  {
    throw SpecError(where + "packet captures need a serial run, and this one has " +
                    std::to_string(parallel->GetPartitions()) +
                    " partitions: run with --partitions 1 (the default for a scenario with captures)");
  }
  const std::filesystem::path dir = std::filesystem::path(outDir) / "pcap";
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error)
  {
    throw SpecError(where + "cannot create " + dir.string() + ": " + error.message());
  }
  std::set<std::pair<VertexId, uint16_t>> done;
  for (const LinkSelector& s : spec.outputs.pcapLinks)
  {
    const uint32_t id = ResolveLink(fabric, s, spec.file);
    const auto [a, b] = fabric.Ends(id);
    const FabricLink& l = fabric.Link(id);
    for (const auto& [v, port] : { std::make_pair(a, l.portA), std::make_pair(b, l.portB) })
    {
      if (!done.insert({ v, port }).second)
      {
        continue;
      }
      const std::string file = (std::filesystem::path(outDir) / PcapFileName(fabric, v, port)).string();
      net.GetPort(v, port)->EnablePcap(file);
      files.push_back(file);
    }
  }
  return files;
}

} // namespace mrcsim
