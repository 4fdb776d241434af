#include "topologies/fabric-spec.h"

#include "topologies/graphml-io.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace mrcsim
{

const std::vector<std::string>&
FabricKinds()
{
  static const std::vector<std::string> kinds{ "multiplane", "fat_tree", "rail_optimized", "graphml" };
  return kinds;
}

namespace
{

constexpr int64_t kMaxCount = 1 << 24; ///< GPUs
constexpr int64_t kMaxPorts = 4096;    ///< T0 down or up ports
constexpr int64_t kMaxRadix = 4096;
constexpr double kMinRateGbps = kMinLinkRateBps / 1e9;
constexpr double kMaxRateGbps = kMaxLinkRateBps / 1e9;
/// The fastest scale-up rate per GPU accepted: 100 Tb/s, 14 times NVLink 5's 7.2 Tb/s each way.
constexpr double kMaxScaleUpGbps = 1e5;

PowerModel
ParsePower(JsonReader r)
{
  PowerModel p;
  p.switchWatts = r.Number("switch_watts", 0, 1e5, p.switchWatts);
  p.portWattsPer100G = r.Number("port_watts_per_100g", 0, 1e3, p.portWattsPer100G);
  r.Finish();
  return p;
}

/// link_delay_ns sets every link; gpu_link_delay_ns and fabric_link_delay_ns one class each.
LinkDelays
ParseDelays(JsonReader& r, LinkDelays d)
{
  if (r.Has("link_delay_ns"))
  {
    for (const char* key : { "gpu_link_delay_ns", "fabric_link_delay_ns" })
      if (r.Has(key))
        r.Fail(key, "give either link_delay_ns (every link) or gpu_link_delay_ns and fabric_link_delay_ns (each "
                    "class), not both");
    d.gpuNs = d.fabricNs = static_cast<uint32_t>(r.Int("link_delay_ns", 0, kMaxLinkDelayNs));
    return d;
  }
  d.gpuNs = static_cast<uint32_t>(r.Int("gpu_link_delay_ns", 0, kMaxLinkDelayNs, d.gpuNs));
  d.fabricNs = static_cast<uint32_t>(r.Int("fabric_link_delay_ns", 0, kMaxLinkDelayNs, d.fabricNs));
  return d;
}

/// "scale_up": a technology's figures (ScaleUpTechnologies), any of them overridden, or "custom"
/// with its own rate.
ScaleUpSpec
ParseScaleUp(JsonReader r)
{
  r.Expect({ "technology", "gpus_per_domain", "gpu_bandwidth_gbps", "pair_bandwidth_gbps", "latency_ns" });
  std::vector<std::string> names;
  for (const ScaleUpTechnology& t : ScaleUpTechnologies())
    names.push_back(t.name);
  names.push_back("custom");
  const std::string technology = r.Choice("technology", names);
  const uint32_t gpus = static_cast<uint32_t>(r.Int("gpus_per_domain", 1, kMaxCount));
  ScaleUpSpec s;
  if (technology == "custom")
  {
    s.technology = technology;
    s.gpusPerDomain = gpus;
    s.gpuGbps = r.Number("gpu_bandwidth_gbps", kMinRateGbps, kMaxScaleUpGbps);
  }
  else
  {
    s = ScaleUpOf(technology, gpus);
    s.gpuGbps = r.Number("gpu_bandwidth_gbps", kMinRateGbps, kMaxScaleUpGbps, s.gpuGbps);
  }
  s.pairGbps = r.Number("pair_bandwidth_gbps", 0, kMaxScaleUpGbps, s.pairGbps);
  s.latencyNs = r.Number("latency_ns", 0, kMaxLinkDelayNs, s.latencyNs);
  r.Finish();
  return s;
}

} // namespace

FabricSpec
ParseFabricSpec(JsonReader& r)
{
  FabricSpec s;
  s.kind = r.Choice("kind", FabricKinds());
  static const std::map<std::string, std::vector<std::string>> keys{
    { "multiplane",
      { "planes",
        "port_rate_gbps",
        "gpus",
        "t0_down_ports",
        "t0_up_ports",
        "t0_per_plane",
        "t1_per_plane",
        "switch_ports",
        "link_delay_ns",
        "gpu_link_delay_ns",
        "fabric_link_delay_ns",
        "nic_port_planes" } },
    { "fat_tree", { "tiers", "radix", "port_rate_gbps", "gpus", "link_delay_ns", "gpu_link_delay_ns", "fabric_link_delay_ns" } },
    { "rail_optimized",
      { "tiers", "radix", "port_rate_gbps", "gpus", "link_delay_ns", "gpu_link_delay_ns", "fabric_link_delay_ns",
        "gpus_per_server" } },
    { "graphml", { "file" } },
  };
  std::vector<std::string> allowed = keys.at(s.kind);
  allowed.insert(allowed.end(), { "name", "power", "scale_up" });
  r.Expect(allowed);
  s.name = r.String("name", s.kind);
  if (r.Has("power"))
  {
    s.power = ParsePower(r.Object("power"));
  }
  if (r.Has("scale_up"))
  {
    s.scaleUp = ParseScaleUp(r.Object("scale_up"));
  }
  if (s.kind == "multiplane")
  {
    MultiplaneSpec& m = s.multiplane;
    m.planes = static_cast<int>(r.Int("planes", 1, kMaxPlanes));
    m.portRateGbps = r.Number("port_rate_gbps", kMinRateGbps, kMaxRateGbps);
    m.gpus = static_cast<uint32_t>(r.Int("gpus", 1, kMaxCount));
    m.t0DownPorts = static_cast<uint32_t>(r.Int("t0_down_ports", 1, kMaxPorts));
    m.t0UpPorts = static_cast<uint32_t>(r.Int("t0_up_ports", 1, kMaxPorts));
    m.t0PerPlane = static_cast<uint32_t>(r.Int("t0_per_plane", 1, kMaxSwitchesPerSlot, 0));
    m.t1PerPlane = static_cast<uint32_t>(r.Int("t1_per_plane", 1, kMaxSwitchesPerSlot));
    m.switchPorts = static_cast<uint32_t>(r.Int("switch_ports", 1, 65535, 0));
    m.delays = ParseDelays(r, m.delays);
    if (r.Has("nic_port_planes"))
    {
      for (int64_t p : r.IntList("nic_port_planes", 0, kMaxPlanes - 1))
      {
        m.nicPortPlanes.push_back(static_cast<int>(p));
      }
    }
  }
  else if (s.kind == "fat_tree" || s.kind == "rail_optimized")
  {
    FatTreeSpec& f = s.fatTree;
    f.tiers = static_cast<int>(r.Int("tiers", 2, 4));
    f.radix = static_cast<uint32_t>(r.Int("radix", 4, kMaxRadix));
    f.portRateGbps = r.Number("port_rate_gbps", kMinRateGbps, kMaxRateGbps);
    f.gpus = static_cast<uint32_t>(r.Int("gpus", 1, kMaxCount));
    f.delays = ParseDelays(r, f.delays);
    if (s.kind == "rail_optimized")
    {
      f.gpusPerServer = static_cast<uint32_t>(r.Int("gpus_per_server", 1, 1024));
    }
  }
  else
  {
    s.graphmlFile = BesideDocument(r.Origin(), r.String("file"));
  }
  r.Finish();
  CheckFabricSpec(s, r.Origin() + ": at " + (r.Path().empty() ? "/" : r.Path()));
  return s;
}

FabricSpec
ReadFabricSpecFile(const std::string& file)
{
  nlohmann::json j = ReadJsonFile(file);
  JsonReader r(j, file, "");
  return ParseFabricSpec(r);
}

nlohmann::json
FabricSpecToJson(const FabricSpec& s)
{
  nlohmann::json j{ { "kind", s.kind }, { "name", s.name } };
  j["power"] = { { "switch_watts", s.power.switchWatts }, { "port_watts_per_100g", s.power.portWattsPer100G } };
  if (s.kind == "multiplane")
  {
    const MultiplaneSpec& m = s.multiplane;
    j.update({ { "planes", m.planes },
               { "port_rate_gbps", m.portRateGbps },
               { "gpus", m.gpus },
               { "t0_down_ports", m.t0DownPorts },
               { "t0_up_ports", m.t0UpPorts },
               { "t1_per_plane", m.t1PerPlane },
               { "gpu_link_delay_ns", m.delays.gpuNs },
               { "fabric_link_delay_ns", m.delays.fabricNs } });
    if (m.t0PerPlane)
      j["t0_per_plane"] = m.t0PerPlane;
    if (m.switchPorts)
      j["switch_ports"] = m.switchPorts;
    if (!m.nicPortPlanes.empty())
      j["nic_port_planes"] = m.nicPortPlanes;
  }
  else if (s.kind == "fat_tree" || s.kind == "rail_optimized")
  {
    const FatTreeSpec& f = s.fatTree;
    j.update({ { "tiers", f.tiers },
               { "radix", f.radix },
               { "port_rate_gbps", f.portRateGbps },
               { "gpus", f.gpus },
               { "gpu_link_delay_ns", f.delays.gpuNs },
               { "fabric_link_delay_ns", f.delays.fabricNs } });
    if (s.kind == "rail_optimized")
      j["gpus_per_server"] = f.gpusPerServer;
  }
  else
  {
    j["file"] = s.graphmlFile;
  }
  if (s.scaleUp.Enabled())
  {
    const ScaleUpSpec& u = s.scaleUp;
    j["scale_up"] = { { "technology", u.technology },
                      { "gpus_per_domain", u.gpusPerDomain },
                      { "gpu_bandwidth_gbps", u.gpuGbps },
                      { "pair_bandwidth_gbps", u.pairGbps },
                      { "latency_ns", u.latencyNs } };
  }
  return j;
}

uint64_t
FatTreeMaxGpus(int tiers, uint32_t radix)
{
  uint64_t n = radix;
  for (int t = 1; t < tiers; ++t)
  {
    n *= radix / 2;
  }
  return n;
}

void
CheckScaleUp(const ScaleUpSpec& u, uint64_t gpus, const std::string& where)
{
  if (!u.Enabled())
    return;
  auto fail = [&](const std::string& key, const std::string& msg)
  { throw SpecError(where + (where.empty() || where.back() == '/' ? "" : "/") + "scale_up/" + key + ": " + msg); };
  if (gpus % u.gpusPerDomain != 0)
    fail("gpus_per_domain",
         std::to_string(gpus) + " GPUs are not a whole number of domains of " + std::to_string(u.gpusPerDomain) +
           "; use a divisor of the GPU count");
  if (!(u.gpuGbps >= kMinRateGbps && u.gpuGbps <= kMaxScaleUpGbps))
    fail("gpu_bandwidth_gbps", "expected a number in [1, 100000], got " + std::to_string(u.gpuGbps));
  if (!(u.pairGbps >= 0 && u.pairGbps <= kMaxScaleUpGbps))
    fail("pair_bandwidth_gbps", "expected a number in [0, 100000] (0: switched), got " + std::to_string(u.pairGbps));
  if (!(u.latencyNs >= 0 && u.latencyNs <= kMaxLinkDelayNs))
    fail("latency_ns", "expected a number in [0, " + std::to_string(kMaxLinkDelayNs) + "], got " +
                         std::to_string(u.latencyNs));
}

void
CheckFabricSpec(const FabricSpec& s, const std::string& where)
{
  auto fail = [&](const std::string& key, const std::string& msg)
  { throw SpecError(where + (where.empty() || where.back() == '/' ? "" : "/") + key + ": " + msg); };
  // The ranges ParseFabricSpec enforces, again for specs built in code: several are divisors.
  auto range = [&](const std::string& key, int64_t x, int64_t lo, int64_t hi)
  {
    if (x < lo || x > hi)
      fail(key,
           "expected a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], got " +
             std::to_string(x));
  };
  auto rate = [&](double gbps)
  {
    if (!(gbps >= kMinRateGbps && gbps <= kMaxRateGbps))
      fail("port_rate_gbps", "expected a number in [1, 16000], got " + std::to_string(gbps));
  };
  // `need` says what needs how many, e.g. "4096 GPUs at 1 per T0 need 4096 T0s".
  auto slot = [&](const std::string& key, uint64_t switches, const std::string& need)
  {
    if (switches > kMaxSwitchesPerSlot)
      fail(key,
           need + "; at most " + std::to_string(kMaxSwitchesPerSlot) +
             " per tier of a plane (the 12-bit switch index of a node uSID)");
  };
  auto links = [&](const std::string& key, uint64_t n, const std::string& make)
  {
    if (n > kMaxLinks)
      fail(key, make + "; at most " + std::to_string(kMaxLinks) + " links in a fabric");
  };
  if (s.kind == "multiplane")
    CheckScaleUp(s.scaleUp, s.multiplane.gpus, where);
  else if (s.kind == "fat_tree" || s.kind == "rail_optimized")
    CheckScaleUp(s.scaleUp, s.fatTree.gpus, where);
  else
    CheckScaleUp(s.scaleUp, s.scaleUp.gpusPerDomain, where); // ranges only; the count once built
  if (s.kind == "multiplane")
  {
    const MultiplaneSpec& m = s.multiplane;
    range("planes", m.planes, 1, kMaxPlanes);
    rate(m.portRateGbps);
    range("gpus", m.gpus, 1, kMaxCount);
    range("t0_down_ports", m.t0DownPorts, 1, kMaxPorts);
    range("t0_up_ports", m.t0UpPorts, 1, kMaxPorts);
    if (m.t0PerPlane)
      range("t0_per_plane", m.t0PerPlane, 1, kMaxSwitchesPerSlot);
    range("t1_per_plane", m.t1PerPlane, 1, kMaxSwitchesPerSlot);
    range("gpu_link_delay_ns", m.delays.gpuNs, 0, kMaxLinkDelayNs);
    range("fabric_link_delay_ns", m.delays.fabricNs, 0, kMaxLinkDelayNs);
    uint64_t minT0 = (static_cast<uint64_t>(m.gpus) + m.t0DownPorts - 1) / m.t0DownPorts;
    if (m.t0PerPlane && m.t0PerPlane < minT0)
      fail("t0_per_plane",
           std::to_string(m.t0PerPlane) + " T0s x " + std::to_string(m.t0DownPorts) + " down ports cannot hold " +
             std::to_string(m.gpus) + " GPUs; need at least " + std::to_string(minT0));
    if (m.t0UpPorts % m.t1PerPlane != 0)
      fail("t0_up_ports",
           std::to_string(m.t0UpPorts) + " up ports cannot be spread evenly over " + std::to_string(m.t1PerPlane) +
             " T1s; use a multiple of t1_per_plane");
    uint64_t t0 = m.t0PerPlane ? m.t0PerPlane : minT0;
    slot("t0_down_ports",
         t0,
         std::to_string(m.gpus) + " GPUs at " + std::to_string(m.t0DownPorts) + " per T0 need " + std::to_string(t0) +
           " T0s");
    uint64_t t1Down = t0 * m.t0UpPorts / m.t1PerPlane;
    if (m.switchPorts)
    {
      if (m.t0DownPorts + m.t0UpPorts > m.switchPorts)
        fail("switch_ports",
             "a T0 needs " + std::to_string(m.t0DownPorts + m.t0UpPorts) + " ports (down + up), but switches have " +
               std::to_string(m.switchPorts));
      if (t1Down > m.switchPorts)
        fail("switch_ports",
             "each T1 needs " + std::to_string(t1Down) + " down ports (" + std::to_string(t0) + " T0s x " +
               std::to_string(m.t0UpPorts / m.t1PerPlane) + " links), but switches have " +
               std::to_string(m.switchPorts));
    }
    if (t1Down > 65535)
      fail("t1_per_plane", "each T1 would need " + std::to_string(t1Down) + " ports; at most 65535");
    const uint64_t gpuLinks = uint64_t(m.planes) * m.gpus;
    links("gpus",
          gpuLinks,
          std::to_string(m.planes) + " planes x " + std::to_string(m.gpus) + " GPUs make " + std::to_string(gpuLinks) +
            " GPU links");
    const uint64_t upLinks = uint64_t(m.planes) * t0 * m.t0UpPorts;
    links("t0_up_ports",
          gpuLinks + upLinks,
          std::to_string(gpuLinks) + " GPU links and " + std::to_string(upLinks) + " T0-T1 links (" +
            std::to_string(m.planes) + " planes x " + std::to_string(t0) + " T0s x " + std::to_string(m.t0UpPorts) +
            " up ports) make " + std::to_string(gpuLinks + upLinks));
    if (!m.nicPortPlanes.empty())
    {
      std::vector<int> sorted = m.nicPortPlanes;
      std::sort(sorted.begin(), sorted.end());
      for (int p = 0; p < static_cast<int>(sorted.size()); ++p)
      {
        if (static_cast<int>(sorted.size()) != m.planes || sorted[p] != p)
          fail("nic_port_planes",
               "must list each plane 0.." + std::to_string(m.planes - 1) + " exactly once (one NIC port per plane)");
      }
    }
  }
  else if (s.kind == "fat_tree" || s.kind == "rail_optimized")
  {
    const FatTreeSpec& f = s.fatTree;
    range("radix", f.radix, 4, kMaxRadix);
    if (f.radix % 2 != 0)
      fail("radix", std::to_string(f.radix) + " is not divisible by 2 (half the ports go down, half up)");
    if (f.tiers < 2 || f.tiers > 4)
      fail("tiers", "expected 2, 3 or 4, got " + std::to_string(f.tiers));
    rate(f.portRateGbps);
    range("gpus", f.gpus, 1, kMaxCount);
    range("gpu_link_delay_ns", f.delays.gpuNs, 0, kMaxLinkDelayNs);
    range("fabric_link_delay_ns", f.delays.fabricNs, 0, kMaxLinkDelayNs);
    if (s.kind == "rail_optimized")
      range("gpus_per_server", f.gpusPerServer, 1, 1024);
    uint64_t max = FatTreeMaxGpus(f.tiers, f.radix);
    if (f.gpus > max)
      fail("gpus",
           std::to_string(f.gpus) + " GPUs do not fit a " + std::to_string(f.tiers) + "-tier fat tree of radix " +
             std::to_string(f.radix) + " (at most " + std::to_string(max) + "); add a tier or use a larger radix");
    if (s.kind == "rail_optimized")
    {
      if (f.gpus % f.gpusPerServer != 0)
        fail("gpus_per_server",
             std::to_string(f.gpus) + " GPUs are not a whole number of servers of " + std::to_string(f.gpusPerServer));
      // Each leaf holds GPU r of radix/2 servers, so a partly filled server group still takes G leaves.
      uint64_t h = f.radix / 2;
      uint64_t servers = f.gpus / f.gpusPerServer;
      uint64_t leaves = (servers + h - 1) / h * f.gpusPerServer;
      uint64_t maxLeaves = max / h;
      if (leaves > maxLeaves)
        fail("gpus_per_server",
             "rails of " + std::to_string(f.gpusPerServer) + " GPUs need " + std::to_string(leaves) +
               " leaves; the fat tree holds " + std::to_string(maxLeaves));
    }
    const FatTreeShape shape = FatTreeShapeOf(f);
    for (size_t t = 0; t < shape.switchesPerTier.size(); ++t)
      slot("gpus",
           shape.switchesPerTier[t],
           std::to_string(f.gpus) + " GPUs at radix " + std::to_string(f.radix) + " need " +
             std::to_string(shape.switchesPerTier[t]) + " tier-" + std::to_string(t) + " switches");
    links("gpus",
          shape.links,
          std::to_string(f.gpus) + " GPUs at radix " + std::to_string(f.radix) + " make " +
            std::to_string(shape.links) + " links");
  }
  else if (s.kind == "graphml")
  {
    if (s.graphmlFile.empty())
      fail("file", "expected a GraphML file path");
  }
  else
  {
    fail("kind", "unknown kind \"" + s.kind + "\"");
  }
}

Fabric
BuildFabric(const FabricSpec& s, const std::string& origin)
{
  CheckFabricSpec(s, origin);
  if (s.kind == "multiplane")
  {
    return BuildMultiplane(s.multiplane, s.name);
  }
  if (s.kind == "graphml")
  {
    Fabric f = ReadFabricGraphml(s.graphmlFile);
    f.SetName(s.name);
    CheckScaleUp(s.scaleUp, f.NumGpus(), origin);
    return f;
  }
  return BuildFatTree(s.fatTree, s.name);
}

} // namespace mrcsim
