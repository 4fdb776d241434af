// The transports: for each, the keys it takes (the registry, TransportTypes()), the reader of
// those keys, its fabric policy and its connection of two GPUs.
#include "sim/network/transport-types.h"

#include "models/engine/splitmix.h"
#include "models/fabric/port-queue-config.h"
#include "models/mrc/mrc-connect.h"
#include "models/roce/dcqcn-rate-control.h"
#include "models/roce/roce-connect.h"
#include "models/wire/udp-entropy.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <limits>

namespace mrcsim
{

namespace
{

using ns3::PortQueueConfig;
using ns3::Ptr;

constexpr int64_t kMaxQps = 64;

/// Sets a boolean attribute of a port class, unless the scenario set the same attribute itself.
void
Policy(const FabricPolicyContext& c, Ptr<PortQueueConfig> cfg, const std::string& attr, bool value)
{
  if (!c.userSet.count(attr))
    cfg->SetAttribute(attr, ns3::BooleanValue(value));
}

// ---- MRC ----------------------------------------------------------------------------------------

void
ParseMrc(JsonReader&, TransportSpec&)
{
}

void
ConfigureMrcFabric(const FabricPolicyContext& c)
{
  ns3::FabricNetwork& net = c.net;
  Policy(c, net.GetLastHopPortConfig(), "EcnEnabled", false); // a mark means mid-fabric congestion
  Policy(c, net.GetFabricPortConfig(), "TrimEnabled", true);
  Policy(c, net.GetLastHopPortConfig(), "TrimEnabled", true);
  // Thresholds in BDPs of the fabric (docs/MODEL.md): ECN from 0.2 to 0.8 BDP, trimming above
  // 1 BDP, 1.5 on the last hop. The BDP is that of the reference rate over the base round trip
  // (twice the longest path's one-way latency); ports of other rates scale it. A reference rate
  // of 0 turns scaling off: every port then has the thresholds of the fabric's fastest link, so
  // that none is below its own BDP (a BDP at rate 0 would trim every packet).
  const auto bdpBytes = [&](double bdps)
  {
    ns3::DataRateValue reference;
    net.GetFabricPortConfig()->GetAttribute("ReferenceRate", reference);
    double rateBps = double(reference.Get().GetBitRate());
    if (rateBps == 0 && c.ideal.paths)
      rateBps = std::max(c.ideal.paths->gpuLinkRateBps, c.ideal.paths->fabricLinkRateBps);
    const double bytes = bdps * 2 * c.ideal.baseLatencyS * rateBps / 8;
    // The thresholds are 32-bit byte counts, as a port's queue is (DataLimit): a threshold
    // beyond that (a fabric of very long links or latencies) is never reached, as the BDP's is.
    return static_cast<uint64_t>(std::min(bytes, double(std::numeric_limits<uint32_t>::max())));
  };
  const auto threshold = [&](Ptr<PortQueueConfig> cfg, const std::string& attr, double bdps)
  {
    if (!c.userSet.count(attr))
      cfg->SetAttribute(attr, ns3::UintegerValue(bdpBytes(bdps)));
  };
  threshold(net.GetFabricPortConfig(), "EcnKmin", 0.2);
  threshold(net.GetFabricPortConfig(), "EcnKmax", 0.8);
  threshold(net.GetFabricPortConfig(), "TrimThreshold", 1.0);
  threshold(net.GetLastHopPortConfig(), "TrimThreshold", 1.5);
}

/// One QP pair over every plane, copied from the run's prototype.
Connector
MrcConnector(ns3::FabricNetwork& net, const TransportSpec&)
{
  return [&net, prototype = ns3::MrcQueuePair::CreatePrototype()](uint32_t a, uint32_t b)
  {
    auto qp = ns3::ConnectMrc(net, a, b, *prototype);
    return std::vector<QpPair>{ QpPair(qp.first, qp.second) };
  };
}

// ---- RoCEv2 -------------------------------------------------------------------------------------

void
ParseRoce(JsonReader& r, TransportSpec& t)
{
  t.qpsPerConnection = static_cast<uint32_t>(r.Int("qps_per_connection", 1, kMaxQps, 1));
}

void
ConfigureRoceFabric(const FabricPolicyContext& c)
{
  for (auto cfg : { c.net.GetFabricPortConfig(), c.net.GetLastHopPortConfig(), c.net.GetNicPortConfig() })
    Policy(c, cfg, "PfcEnabled", true);
  // The switches mark as the DCQCN profile's source says (the CP goes with the RP it was tuned
  // for; DcqcnRateControl::EcnThresholdsOf), at the ports' reference rate (other rates scale).
  const auto profile = ns3::DcqcnRateControl::DefaultProfile();
  for (auto cfg : { c.net.GetFabricPortConfig(), c.net.GetLastHopPortConfig() })
  {
    ns3::DataRateValue reference;
    cfg->GetAttribute("ReferenceRate", reference);
    const auto ecn = ns3::DcqcnRateControl::EcnThresholdsOf(profile, reference.Get());
    if (!c.userSet.count("EcnKmin"))
      cfg->SetAttribute("EcnKmin", ns3::UintegerValue(ecn.kminBytes));
    if (!c.userSet.count("EcnKmax"))
      cfg->SetAttribute("EcnKmax", ns3::UintegerValue(ecn.kmaxBytes));
    if (!c.userSet.count("EcnPmax"))
      cfg->SetAttribute("EcnPmax", ns3::DoubleValue(ecn.pmax));
  }
}

/// qps_per_connection QP pairs, each on its own UDP source port, dealt over the NIC ports (planes)
/// in turn. When they cannot fill every port equally, the first port is the pair's hash: one
/// hashed plane per QP, as ECMP hashes a path, so that a fabric's connections use every plane
/// (starting every pair at port 0 would put all single-QP connections on plane 0).
std::vector<QpPair>
ConnectRocePairs(ns3::FabricNetwork& net, const TransportSpec& t, const ns3::RoceQueuePair& prototype, uint32_t a, uint32_t b)
{
  std::vector<QpPair> pairs;
  const uint16_t ports = net.GetHost(a)->NumPorts();
  uint64_t pair = (uint64_t(a) << 32) | b;
  const uint32_t first = t.qpsPerConnection % ports == 0 ? 0 : static_cast<uint32_t>(ns3::SplitMix64(pair) % ports);
  for (uint32_t q = 0; q < t.qpsPerConnection; ++q)
  {
    uint64_t h = (uint64_t(a) << 32) ^ (uint64_t(b) << 8) ^ q;
    const uint16_t entropy = ns3::EvEntropy::Encode(static_cast<uint16_t>(ns3::SplitMix64(h) & ns3::EvEntropy::kEvMask));
    auto qp = ns3::ConnectRoce(net, a, b, static_cast<uint16_t>((first + q) % ports), entropy, prototype);
    pairs.emplace_back(qp.first, qp.second);
  }
  return pairs;
}

/// ConnectRocePairs with the QPs copied from the run's prototype.
Connector
RoceConnector(ns3::FabricNetwork& net, const TransportSpec& t)
{
  return [&net, &t, prototype = ns3::RoceQueuePair::CreatePrototype()](uint32_t a, uint32_t b)
  { return ConnectRocePairs(net, t, *prototype, a, b); };
}

TypeRegistry<TransportType>
BuildRegistry()
{
  return TypeRegistry<TransportType>(
    "transport",
    { { "type", KeyUse::Required }, { "label" }, { "attributes" } },
    { "qps_per_connection" },
    {
      { { "mrc", "MRC: multipath over every plane, packet trimming, no PFC", {} },
        &ParseMrc,
        &ConfigureMrcFabric,
        &MrcConnector },
      { { "rocev2", "RoCEv2: go-back-N over one path per QP, PFC", { { "qps_per_connection" } } },
        &ParseRoce,
        &ConfigureRoceFabric,
        &RoceConnector },
    });
}

TypeRegistry<TransportType>&
Registry()
{
  static TypeRegistry<TransportType> registry = BuildRegistry();
  return registry;
}

} // namespace

const TypeRegistry<TransportType>&
TransportTypes()
{
  return Registry();
}

void
RegisterTransportType(TransportType type)
{
  NS_ABORT_MSG_IF(!type.parse || !type.configureFabric || !type.connector,
                  "transport '" << type.name << "' needs parse, configureFabric and connector");
  Registry().Add(std::move(type));
}

} // namespace mrcsim
