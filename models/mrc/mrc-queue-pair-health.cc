// EV health of an MRC queue pair: what a loss tells the NIC's QPs (MrcPathHealth), state changes
// and their trace, same-plane backups for EVs assumed bad, probes that bring them back (backing
// off), and NIC port status (local at once, the peer's after a port-status delay). The sending
// half is in mrc-queue-pair.cc and mrc-queue-pair-loss.cc, the receiving half in
// mrc-queue-pair-receiver.cc.
#include "models/fabric/fabric-packet.h"
#include "models/wire/mrc-probe-header.h"
#include "models/mrc/mrc-queue-pair.h"
#include "models/rdma/rdma-nic.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

void
MrcQueuePair::AckedSince(uint64_t seq, MrcPathHealth::Loss& loss) const
{
  // Rare (once per loss): a pass over the TX ring, which holds every send not yet below m_base.
  const Time lostAt = SentAt(seq);
  for (uint64_t s = m_base; s < m_sndNxt && !(loss.portAlive && loss.uplinkAlive); ++s)
  {
    const TxState& t = Tx(s);
    if (s == seq || !t.acked || TxPort(t) != loss.port || SentAt(s) <= lostAt)
    {
      continue;
    }
    loss.portAlive = true;
    loss.uplinkAlive = loss.uplinkAlive || (!loss.path.empty() && EvUsids(t.ev)[0] == loss.path[0]);
  }
}

uint32_t
MrcQueuePair::FirstSwitchAfterLeaf(uint16_t port, const UsidList& path) const
{
  // A uSID names the egress port of its hop plus one (0 ends the carrier).
  const mrcsim::Fabric& fabric = m_nic->GetRouting()->GetFabric();
  const mrcsim::VertexId leaf = fabric.Peer(fabric.Gpu(m_nic->GetGpu()), port).node;
  if (path.empty() || path[0] == 0 || path[0] > fabric.Degree(leaf))
  {
    return UINT32_MAX;
  }
  return static_cast<uint32_t>(fabric.Peer(leaf, static_cast<uint16_t>(path[0] - 1)).node);
}

int
MrcQueuePair::PlaneOfPort(uint16_t port) const
{
  return m_nic->PlaneOfPort(port);
}

uint32_t
MrcQueuePair::RemoteLeaf(int plane) const
{
  const mrcsim::Fabric& fabric = m_nic->GetRouting()->GetFabric();
  const mrcsim::VertexId gpu = fabric.Gpu(m_remoteGpu);
  for (uint16_t p = 0; p < fabric.Degree(gpu); ++p)
  {
    const mrcsim::VertexId leaf = fabric.Peer(gpu, p).node;
    if (fabric.Node(leaf).plane == plane)
    {
      return static_cast<uint32_t>(leaf);
    }
  }
  return UINT32_MAX;
}

void
MrcQueuePair::SetState(MrcEv& ev, EvState state)
{
  if (ev.state == state)
  {
    return;
  }
  EvState from = ev.state;
  ev.state = state;
  m_evStateTrace(m_qpn, ev.id, EvPlane(ev), from, state);
}

void
MrcQueuePair::MarkAssumedBad(uint16_t id)
{
  MrcEv& ev = m_evs[id];
  if (ev.state == EvState::AssumedBad || ev.state == EvState::Denied)
  {
    return;
  }
  SetState(ev, EvState::AssumedBad);
  if (ev.active)
  {
    auto& act = m_active[EvPort(ev)];
    act.erase(std::find(act.begin(), act.end(), id));
    ev.active = false;
    Activate(EvPort(ev)); // a backup of the same plane keeps the planes balanced
  }
  else
  {
    auto& bk = m_backups[EvPort(ev)];
    auto it = std::find(bk.begin(), bk.end(), id);
    if (it != bk.end())
      bk.erase(it);
  }
  m_probing.push_back(Probing{ id });
  StartProbes();
}

uint32_t
MrcQueuePair::MarkPathsAssumedBad(uint16_t port, const UsidList& prefix)
{
  if (!m_setUp || port >= m_active.size())
  {
    return 0;
  }
  uint32_t marked = 0;
  for (uint32_t id = uint32_t(port) * m_evsPerPort; id < uint32_t(port + 1) * m_evsPerPort; ++id)
  {
    const MrcEv& ev = m_evs[id];
    if (ev.state != EvState::Good && ev.state != EvState::Skip)
    {
      continue;
    }
    const UsidList path = EvUsids(static_cast<uint16_t>(id));
    if (path.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), path.begin()))
    {
      MarkAssumedBad(static_cast<uint16_t>(id));
      // The NIC's QPs lost packets on this path's links: what is still in flight on it is most
      // likely lost too. It goes again now rather than each loss being found one by one (a tail
      // with nothing after it would wait for a probe timeout).
      ResendInFlight([&](const TxState& t) { return t.ev == id; });
      ++marked;
    }
  }
  return marked;
}

template <typename Pred>
void
MrcQueuePair::ResendInFlight(Pred onPath)
{
  for (uint64_t s = m_base; s < m_sndNxt; ++s)
  {
    TxState& t = Tx(s);
    if (!t.acked && !t.lost && onPath(t))
    {
      t.lost = true;
      AgainOf(s); // declared lost
      AddInflight(TxPort(t), PacketBytes(s), false);
      m_losses->retx.insert(s);
    }
  }
}

void
MrcQueuePair::Activate(uint16_t port)
{
  auto& bk = m_backups[port];
  while (!bk.empty())
  {
    uint16_t b = bk.front();
    bk.erase(bk.begin());
    if (m_evs[b].state == EvState::Good)
    {
      m_evs[b].active = true;
      m_active[port].push_back(b);
      return;
    }
  }
}

void
MrcQueuePair::StartProbes()
{
  if (!m_probing.empty() && !m_probeTimer.IsRunning())
  {
    m_probeTimer = ScheduleTimer(m_probeInterval, &MrcQueuePair::OnProbeTimer, this);
  }
}

void
MrcQueuePair::OnProbeTimer()
{
  // Probing pauses while the QP has nothing to send (PostWrite resumes it): an idle QP would
  // otherwise keep a simulation of a permanent failure running for ever.
  if (m_error || m_probing.empty() || m_messages.empty())
  {
    return;
  }
  const uint64_t maxRounds = std::max<int64_t>(1, m_probeIntervalMax.GetTimeStep() / m_probeInterval.GetTimeStep());
  for (Probing& p : m_probing)
  {
    const MrcEv& ev = m_evs[p.id];
    if (!PortUp(EvPort(ev)) || --p.countdown > 0)
    {
      continue;
    }
    // Probed now; unless a response brings it back, next after twice as many rounds.
    p.rounds = static_cast<uint16_t>(std::min<uint64_t>(2 * uint64_t(p.rounds), std::min<uint64_t>(maxRounds, 0x8000)));
    p.countdown = p.rounds;
    MrcProbeHeader probe;
    probe.SetType(MrcProbeHeader::Request);
    probe.SetEv(p.id);
    probe.SetSequence(m_probeSeq++);
    probe.SetSendTime(Simulator::Now());
    FabricPacketSpec spec = ControlSpec(kOpProbe, EvPlane(ev), ev.Entropy());
    spec.usids = EvUsids(ev.id); // along the EV's own path
    m_nic->SendControl(MakeControlFrame(spec, probe), EvPort(ev));
  }
  m_probeTimer = ScheduleTimer(m_probeInterval, &MrcQueuePair::OnProbeTimer, this);
}

void
MrcQueuePair::HandleProbe(const RdmaRxInfo& info)
{
  MrcProbeHeader probe;
  ReadInner(info.frame, probe);
  if (probe.IsRequest())
  {
    probe.SetType(MrcProbeHeader::Response);
    FabricPacketSpec spec = ControlSpec(kOpProbe, m_nic->PlaneOfPort(info.port), info.frame.srcPort);
    m_nic->SendControl(MakeControlFrame(spec, probe), info.port);
    return;
  }
  const uint16_t id = probe.GetEv();
  if (id >= m_evs.size() || m_evs[id].state != EvState::AssumedBad)
  {
    return;
  }
  // The path works again: back to GOOD, as a backup of its plane (or active if the plane is short).
  MrcEv& ev = m_evs[id];
  SetState(ev, EvState::Good);
  m_probing.erase(std::find_if(m_probing.begin(), m_probing.end(), [&](const Probing& p) { return p.id == id; }));
  m_backups[EvPort(ev)].push_back(id);
  const uint32_t target = std::max<uint32_t>(1, m_evCount / m_nic->NumPorts());
  while (m_active[EvPort(ev)].size() < target && !m_backups[EvPort(ev)].empty())
  {
    size_t before = m_active[EvPort(ev)].size();
    Activate(EvPort(ev));
    if (m_active[EvPort(ev)].size() == before)
      break;
  }
  WakeAllPorts();
}

void
MrcQueuePair::PortStateChanged(uint16_t port, bool up)
{
  if (!m_setUp)
  {
    return;
  }
  // Locally at once: the plane's EVs are denied (or restored); peers learn it later.
  m_portUp = up ? m_portUp | uint64_t(1) << port : m_portUp & ~(uint64_t(1) << port);
  for (MrcEv& ev : m_evs)
  {
    if (EvPort(ev) == port)
    {
      if (!up && ev.state != EvState::Denied)
        SetState(ev, EvState::Denied);
      else if (up && ev.state == EvState::Denied)
        SetState(ev, EvState::Good);
    }
  }
  if (!up)
  {
    // What was in flight on that port is lost: resend it elsewhere now.
    ResendInFlight([&](const TxState& t) { return TxPort(t) == port; });
    WakeAllPorts();
  }
  if (m_peer)
  {
    // An event of the peer's node: in a parallel run it may be in another partition.
    Simulator::ScheduleWithContext(
      m_peer->NodeId(), m_portStatusDelay, &MrcQueuePair::PeerPortStateChanged, m_peer, m_nic->PlaneOfPort(port), up);
  }
}

void
MrcQueuePair::PeerPortStateChanged(int plane, bool up)
{
  if (!m_setUp)
  {
    return;
  }
  for (uint16_t port = 0; port < m_nic->NumPorts(); ++port)
  {
    if (m_nic->PlaneOfPort(port) != plane)
      continue;
    m_peerPlaneUp = up ? m_peerPlaneUp | uint64_t(1) << port : m_peerPlaneUp & ~(uint64_t(1) << port);
    for (MrcEv& ev : m_evs)
    {
      if (EvPort(ev) != port)
        continue;
      if (!up && ev.state != EvState::Denied)
        SetState(ev, EvState::Denied);
      else if (up && ev.state == EvState::Denied && PortUp(port))
        SetState(ev, EvState::Good);
    }
  }
  WakeAllPorts();
}

} // namespace ns3
