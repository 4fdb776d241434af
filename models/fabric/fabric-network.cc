#include "models/fabric/fabric-network.h"

#include "models/engine/fabric-parallel-simulator.h"
#include "models/engine/splitmix.h"

#include "ns3/log.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("FabricNetwork");

/// \brief What a process holds of a link whose ports it did not build (FabricNetwork's
/// constructor): an ns-3 channel with no devices, so that channel ids are the same in every
/// process (a frame crossing between ranks names its channel by id, and ids key the order of
/// simultaneous arrivals and seed the links' loss draws), at about a fifth of a FabricChannel's
/// memory. Its up or down state is FabricNetwork's.
class FabricAbsentLink : public Channel
{
public:
  static TypeId GetTypeId()
  {
    static TypeId tid = TypeId("ns3::FabricAbsentLink").SetParent<Channel>().SetGroupName("Fabric");
    return tid;
  }
  std::size_t GetNDevices() const override { return 0; }
  Ptr<NetDevice> GetDevice(std::size_t) const override { return nullptr; }
};

NS_OBJECT_ENSURE_REGISTERED(FabricAbsentLink);

FabricNetwork::FabricNetwork(std::shared_ptr<const mrcsim::Fabric> fabric, std::vector<bool> runs)
  : m_fabric(std::move(fabric))
  , m_portAndLinkDrops(static_cast<size_t>(DropCause::Count), 0)
{
  const mrcsim::Fabric& f = *m_fabric;
  NS_ABORT_MSG_IF(!runs.empty() && runs.size() != f.NumVertices(),
                  "FabricNetwork: " << runs.size() << " vertices to run, the fabric has " << f.NumVertices());
  auto built = [&runs](mrcsim::VertexId a, mrcsim::VertexId b) { return runs.empty() || runs[a] || runs[b]; };
  m_controlPlane = CreateObject<FabricControlPlane>();
  m_controlPlane->Initialize(f);
  m_fabricConfig = CreateObject<PortQueueConfig>();
  m_lastHopConfig = CreateObject<PortQueueConfig>();
  m_nicConfig = CreateObject<PortQueueConfig>();

  m_switches.resize(f.NumVertices());
  m_hosts.resize(f.NumGpus());
  std::vector<FabricSwitch*> byVertex(f.NumVertices(), nullptr);
  for (mrcsim::VertexId v = 0; v < f.NumVertices(); ++v)
  {
    const mrcsim::FabricNode& n = f.Node(v);
    if (n.role == mrcsim::NodeRole::Switch)
    {
      m_switches[v] = CreateObject<FabricSwitch>();
      m_switches[v]->SetFabricPosition(v, n.plane, m_controlPlane);
      byVertex[v] = PeekPointer(m_switches[v]);
    }
    else
    {
      m_hosts[n.index] = CreateObject<FabricHost>();
      m_hosts[n.index]->SetGpuIndex(n.index);
    }
  }
  m_controlPlane->SetSwitches(std::move(byVertex));

  // Ports are created in port order at every vertex: walk each vertex's ports, creating a link's
  // channel and its two ports when built here, or its placeholder, when its first end is
  // reached. A port left out keeps its place in its node's list, empty.
  const uint64_t seed = RngSeedManager::GetSeed();
  const uint64_t run = RngSeedManager::GetRun();
  std::vector<Ptr<FabricPort>> farEnd(f.NumLinks());
  m_channels.resize(f.NumLinks());
  m_absentDown.resize(f.NumLinks());
  std::vector<bool> absentMade(f.NumLinks());
  auto makePort = [&](mrcsim::VertexId v, uint16_t port, const mrcsim::FabricLink& link, bool facesGpu)
  {
    Ptr<FabricPort> p = CreateObject<FabricPort>();
    p->SetDataRate(DataRate(link.rateBps));
    const mrcsim::FabricNode& n = f.Node(v);
    p->SetQueueConfig(n.role == mrcsim::NodeRole::Gpu ? m_nicConfig : facesGpu ? m_lastHopConfig : m_fabricConfig);
    p->SetMarkingSeed(SplitMixSeed(seed, run, uint64_t(v) << 16 | port));
    p->SetDropCounters(m_portAndLinkDrops.data());
    return p;
  };
  for (mrcsim::VertexId v = 0; v < f.NumVertices(); ++v)
  {
    for (uint16_t port = 0; port < f.Degree(v); ++port)
    {
      mrcsim::PortPeer peer = f.Peer(v, port);
      const mrcsim::FabricLink& link = f.Link(peer.link);
      if (!built(v, peer.node))
      {
        if (!absentMade[peer.link])
        {
          CreateObject<FabricAbsentLink>(); // the ChannelList holds it, for its id
          absentMade[peer.link] = true;
        }
        if (m_switches[v])
          m_switches[v]->AddAbsentPort();
        else
          m_hosts[f.Node(v).index]->AddAbsentPort(f.Node(peer.node).plane);
        continue;
      }
      Ptr<FabricPort> p = farEnd[peer.link];
      if (!p)
      {
        const mrcsim::FabricNode& self = f.Node(v);
        const mrcsim::FabricNode& other = f.Node(peer.node);
        p = makePort(v, port, link, other.role == mrcsim::NodeRole::Gpu);
        Ptr<FabricPort> q = makePort(peer.node, peer.port, link, self.role == mrcsim::NodeRole::Gpu);
        Ptr<FabricChannel> ch = CreateObject<FabricChannel>();
        ch->SetDelay(NanoSeconds(link.delayNs));
        ch->Attach(p, q);
        ch->SetDropCounters(m_portAndLinkDrops.data());
        m_channels[peer.link] = ch;
        farEnd[peer.link] = q;
        ++m_linksBuilt;
      }
      else
      {
        farEnd[peer.link] = nullptr;
      }
      if (m_switches[v])
        m_switches[v]->AddPort(p);
      else
        m_hosts[f.Node(v).index]->AddPort(p);
    }
  }
}

FabricNetwork::~FabricNetwork()
{
  for (auto& ch : m_channels)
  {
    if (ch)
    {
      ch->Dispose();
    }
  }
}

std::vector<uint32_t>
FabricNetwork::VertexPartitions(const mrcsim::Fabric& f, uint32_t n)
{
  std::vector<uint32_t> part(f.NumVertices(), 0);
  for (int plane = 0; plane < f.NumPlanes(); ++plane)
  {
    for (int tier = 0; tier < f.NumTiers(); ++tier)
    {
      const std::vector<mrcsim::VertexId>& group = f.Switches(plane, tier);
      for (std::size_t i = 0; i < group.size(); ++i)
      {
        part[group[i]] = static_cast<uint32_t>(i * n / group.size());
      }
    }
  }
  for (mrcsim::VertexId v : f.Gpus())
  {
    part[v] = f.Degree(v) > 0 ? part[f.Peer(v, 0).node] : 0;
  }
  return part;
}

std::vector<bool>
FabricNetwork::RanksVertices(const mrcsim::Fabric& f, uint32_t partitions, uint32_t rank, uint32_t ranks)
{
  const std::vector<uint32_t> part = VertexPartitions(f, partitions);
  std::vector<bool> runs(part.size());
  for (std::size_t v = 0; v < part.size(); ++v)
  {
    runs[v] = FabricParallelSimulatorImpl::RankOfPartition(part[v], partitions, ranks) == rank;
  }
  return runs;
}

Ptr<FabricPort>
FabricNetwork::GetPort(mrcsim::VertexId v, uint16_t port) const
{
  if (m_switches[v])
  {
    return m_switches[v]->GetPort(port);
  }
  return m_hosts[m_fabric->Node(v).index]->GetPort(port);
}

uint32_t
FabricNetwork::Partition(uint32_t n)
{
  NS_LOG_FUNCTION(this << n);
  FabricParallelSimulatorImpl* sim = FabricParallelSimulatorImpl::Get();
  if (!sim)
  {
    NS_ABORT_MSG_IF(n > 1,
                    "FabricNetwork::Partition: " << n << " partitions need the simulator implementation "
                                                 << "ns3::FabricParallelSimulatorImpl");
    return 0;
  }
  const mrcsim::Fabric& f = *m_fabric;
  sim->SetPartitions(n);
  const std::vector<uint32_t> part = VertexPartitions(f, n);
  for (mrcsim::VertexId v = 0; v < f.NumVertices(); ++v)
  {
    Ptr<Node> node = m_switches[v] ? Ptr<Node>(m_switches[v]) : Ptr<Node>(m_hosts[f.Node(v).index]);
    sim->SetPartitionOf(node->GetId(), part[v]);
  }
  uint32_t crossing = 0;
  Time lookahead = Time::Max();
  for (uint32_t id = 0; id < f.NumLinks(); ++id)
  {
    auto [a, b] = f.Ends(id);
    const bool split = part[a] != part[b];
    if (HasPorts(id)) // a link left out here carries nothing
      m_channels[id]->SetHandover(split);
    if (split)
    {
      ++crossing;
      if (HasPorts(id))
        lookahead = std::min(lookahead, m_channels[id]->GetMinArrivalDelay());
    }
  }
  sim->SetLookahead(crossing ? lookahead : Time::Max()); // no link between partitions: no limit
  return crossing;
}

void
FabricNetwork::SetLinkUp(uint32_t link, bool up)
{
  NS_LOG_FUNCTION(this << link << up);
  if (IsLinkUp(link) == up)
  {
    return;
  }
  if (const Ptr<FabricChannel>& ch = m_channels[link])
    ch->SetUp(up);
  else
    m_absentDown[link] = !up;
  m_controlPlane->NotifyLinkState(link, up);
}

void
FabricNetwork::ScheduleLinkUp(Time at, uint32_t link, bool up)
{
  Simulator::Schedule(at - Simulator::Now(), &FabricNetwork::SetLinkUp, this, link, up);
}

uint64_t
FabricNetwork::CountDrops(DropCause cause) const
{
  uint64_t n = m_portAndLinkDrops[static_cast<size_t>(cause)];
  for (const auto& s : m_switches)
  {
    if (s)
    {
      n += s->Drops(cause);
    }
  }
  return n;
}

} // namespace ns3
