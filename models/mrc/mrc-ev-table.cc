#include "models/mrc/mrc-ev-table.h"

#include "models/engine/splitmix.h"
#include "models/fabric/fabric-packet.h"
#include "models/mrc/mrc-frame.h"
#include "models/mrc/mrc-queue-pair.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/mrc-probe-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <numeric>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcEvTable");

void
MrcEvTable::SetSelector(Ptr<EvSelector> selector, uint64_t stream)
{
  m_selector = selector;
  m_selector->SetStream(stream);
  m_selector->SetStateSetter([](void* table, uint16_t id, EvState state)
                             { static_cast<MrcEvTable*>(table)->SetState(id, state); },
                             this);
}

void
MrcEvTable::SetUp(uint32_t perPlane, uint32_t backups, bool srv6)
{
  RdmaNic& nic = Qp().Nic();
  const uint16_t ports = nic.NumPorts();
  const mrcsim::FabricRouting* routing = nic.GetRouting();
  const uint32_t remoteGpu = Qp().GetRemoteGpu();
  // Consecutive path indices from a per-connection offset: when a plane has more up-ports than a
  // QP has EVs there, different connections cover different up-ports (and T1s).
  uint64_t offsetState = (uint64_t(nic.GetGpu()) << 32) ^ remoteGpu ^ (uint64_t(Qp().GetQpn()) << 20);
  const uint64_t pathOffset = SplitMix64(offsetState) >> 16;
  NS_ABORT_MSG_IF(ports > 64, "MrcQueuePair: a NIC of " << ports << " ports; at most 64");
  m_numPorts = ports;
  m_portUp = ports == 64 ? ~uint64_t(0) : (uint64_t(1) << ports) - 1;
  m_peerPlaneUp = m_portUp;
  m_perPlane = static_cast<uint16_t>(perPlane);
  m_evsPerPort = perPlane + backups;
  const uint64_t total = uint64_t(ports) * m_evsPerPort;
  NS_ABORT_MSG_IF(total > EvEntropy::kEvMask + 1u, "MrcQueuePair: at most 16384 EVs (14 bits of UDP source port)");
  m_evs.Assign(static_cast<uint32_t>(total), EvState::Good);
  bool denied = false;
  if (srv6)
  {
    // Path index k: at the source T0 it picks up-port k mod (up-ports), so the EVs of a plane
    // cover its T1s evenly. An EV without a path is denied.
    std::vector<MrcPortPaths> paths(ports);
    for (uint16_t port = 0; port < ports; ++port)
    {
      paths[port] = MrcPathSets::Get(*routing, nic.GetGpu(), remoteGpu, nic.PlaneOfPort(port), pathOffset, m_evsPerPort);
      for (uint32_t k = 0; k < m_evsPerPort; ++k)
      {
        if (paths[port].PathOf(k) < 0)
        {
          m_evs.Set(port * m_evsPerPort + k, EvState::Denied);
          denied = true;
        }
      }
    }
    m_places.Assign(paths);
    m_pathSets = MrcPathSets::Share(*routing, paths);
  }
  m_lists.reset();
  if (denied)
  {
    // The lists hold only the GOOD EVs: they leave their first shape at once.
    Lists& lists = MakeLists();
    for (uint16_t port = 0; port < ports; ++port)
    {
      for (auto* list : { &lists.active[port], &lists.backups[port] })
      {
        list->erase(std::remove_if(list->begin(), list->end(), [&](uint16_t id) { return m_evs[id] != EvState::Good; }),
                    list->end());
      }
    }
  }
  NS_LOG_DEBUG("QP " << Qp().GetQpn() << ": " << m_evs.size() << " EVs over " << ports << " ports");
}

const uint16_t*
MrcEvTable::Ids()
{
  static const std::vector<uint16_t> ids = []
  {
    std::vector<uint16_t> v(EvEntropy::kEvMask + 1u);
    std::iota(v.begin(), v.end(), uint16_t(0));
    return v;
  }();
  return ids.data();
}

MrcEvTable::Lists&
MrcEvTable::MakeLists()
{
  if (!m_lists)
  {
    m_lists = std::make_unique<Lists>();
    m_lists->active.resize(m_numPorts);
    m_lists->backups.resize(m_numPorts);
    for (uint16_t port = 0; port < m_numPorts; ++port)
    {
      const uint16_t* first = Ids() + uint32_t(port) * m_evsPerPort;
      m_lists->active[port].assign(first, first + m_perPlane);
      m_lists->backups[port].assign(first + m_perPlane, first + m_evsPerPort);
    }
  }
  return *m_lists;
}

void
MrcEvTable::Dispose()
{
  if (m_probes)
    Simulator::Cancel(m_probes->timer);
  m_selector = nullptr;
}

int
MrcEvTable::EvPlane(uint16_t id) const
{
  return Qp().Nic().PlaneOfPort(PortOfEv(id));
}

void
MrcEvTable::OnSack(uint16_t id, bool ecnEcho)
{
  if (id < m_evs.size())
  {
    if (ecnEcho)
    {
      if (m_evs[id] == EvState::Good)
        SetState(id, EvState::Skip);
      m_selector->OnFeedback(id, EvFeedback::Ecn);
    }
    else
    {
      m_selector->OnFeedback(id, EvFeedback::Acked);
    }
  }
}

void
MrcEvTable::OnTrim(uint16_t id)
{
  if (id < m_evs.size())
  {
    if (m_evs[id] == EvState::Good)
      SetState(id, EvState::Skip);
    m_selector->OnFeedback(id, EvFeedback::Trim);
  }
}

void
MrcEvTable::OnLoss(uint16_t id)
{
  m_selector->OnFeedback(id, EvFeedback::Loss);
  MarkAssumedBad(id);
}

void
MrcEvTable::SetState(uint16_t id, EvState state)
{
  const EvState from = m_evs[id];
  if (from == state)
  {
    return;
  }
  m_evs.Set(id, state);
  ++m_transitions;
  NS_LOG_LOGIC("QP " << Qp().GetQpn() << " EV " << id << ": " << EvStateName(from) << " -> "
                     << EvStateName(state));
  Qp().TraceEvState(id, EvPlane(id), from, state);
}

void
MrcEvTable::MarkAssumedBad(uint16_t id)
{
  const EvState state = m_evs[id];
  if (state == EvState::AssumedBad || state == EvState::Denied)
  {
    return;
  }
  SetState(id, EvState::AssumedBad);
  Lists& lists = MakeLists();
  const uint16_t port = PortOfEv(id);
  auto& act = lists.active[port];
  auto it = std::find(act.begin(), act.end(), id);
  if (it != act.end())
  {
    act.erase(it);
    Activate(port); // a backup of the same plane keeps the planes balanced
  }
  else
  {
    auto& bk = lists.backups[port];
    it = std::find(bk.begin(), bk.end(), id);
    if (it != bk.end())
      bk.erase(it);
  }
  MakeProbes().probing.push_back(Probing{ id });
  StartProbes();
}

uint32_t
MrcEvTable::MarkPathsAssumedBad(uint16_t port, const UsidList& prefix)
{
  uint32_t marked = 0;
  for (uint32_t id = uint32_t(port) * m_evsPerPort; id < uint32_t(port + 1) * m_evsPerPort; ++id)
  {
    const EvState state = m_evs[id];
    if (state != EvState::Good && state != EvState::Skip)
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
      Qp().LossDetector().ResendInFlightOnEv(static_cast<uint16_t>(id));
      ++marked;
    }
  }
  NS_LOG_DEBUG("QP " << Qp().GetQpn() << ": " << marked << " EVs of port " << port << " marked by what the NIC learnt");
  return marked;
}

void
MrcEvTable::Activate(uint16_t port)
{
  Lists& lists = MakeLists();
  auto& bk = lists.backups[port];
  while (!bk.empty())
  {
    uint16_t b = bk.front();
    bk.erase(bk.begin());
    if (m_evs[b] == EvState::Good)
    {
      lists.active[port].push_back(b);
      return;
    }
  }
}

void
MrcEvTable::SetPortUp(uint16_t port, bool up)
{
  // Locally at once: the plane's EVs are denied (or restored); peers learn it later.
  m_portUp = up ? m_portUp | uint64_t(1) << port : m_portUp & ~(uint64_t(1) << port);
  for (uint32_t id = uint32_t(port) * m_evsPerPort; id < uint32_t(port + 1) * m_evsPerPort; ++id)
  {
    const EvState state = m_evs[id];
    if (!up && state != EvState::Denied)
      SetState(static_cast<uint16_t>(id), EvState::Denied);
    else if (up && state == EvState::Denied)
      SetState(static_cast<uint16_t>(id), EvState::Good);
  }
}

void
MrcEvTable::SetPeerPlaneUp(int plane, bool up)
{
  RdmaNic& nic = Qp().Nic();
  for (uint16_t port = 0; port < nic.NumPorts(); ++port)
  {
    if (nic.PlaneOfPort(port) != plane)
      continue;
    m_peerPlaneUp = up ? m_peerPlaneUp | uint64_t(1) << port : m_peerPlaneUp & ~(uint64_t(1) << port);
    for (uint32_t id = uint32_t(port) * m_evsPerPort; id < uint32_t(port + 1) * m_evsPerPort; ++id)
    {
      const EvState state = m_evs[id];
      if (!up && state != EvState::Denied)
        SetState(static_cast<uint16_t>(id), EvState::Denied);
      else if (up && state == EvState::Denied && PortUp(port))
        SetState(static_cast<uint16_t>(id), EvState::Good);
    }
  }
}

void
MrcEvTable::StartProbes()
{
  if (m_probes && !m_probes->probing.empty() && !m_probes->timer.IsRunning())
  {
    m_probes->timer = Qp().ScheduleTimer(Qp().ProbeInterval(), &MrcEvTable::OnProbeTimer, this);
  }
}

MrcEvTable::Probes&
MrcEvTable::MakeProbes()
{
  if (!m_probes)
    m_probes = std::make_unique<Probes>();
  return *m_probes;
}

void
MrcEvTable::OnProbeTimer()
{
  // Probing pauses while the QP has nothing to send (PostWrite resumes it): an idle QP would
  // otherwise keep a simulation of a permanent failure running for ever.
  Probes& probes = *m_probes; // the timer runs only once an EV was assumed bad
  if (Qp().IsInError() || probes.probing.empty() || !Qp().Sender().HasMessages())
  {
    probes.silentSince = Time(-1); // not watching while the timer pauses
    return;
  }
  // No path works: EVs were assumed bad and probed, and nothing has come back from the peer (no
  // acknowledgement, NACK or probe answer, on any EV of any plane) for NoPathTimeout while the QP
  // had work. It gives up then, as when one packet exceeds its retry limit, instead of probing
  // until the run's end. Read here, at the probe rounds that run anyway: no event more, and no
  // cost on the packets' path.
  const Time now = Simulator::Now();
  const uint64_t heard = Heard();
  if (probes.silentSince.IsStrictlyNegative() || heard != probes.heardThen)
  {
    probes.silentSince = now;
    probes.heardThen = heard;
  }
  else if (now - probes.silentSince >= Qp().NoPathTimeout())
  {
    Qp().FailQp("no path to GPU " + std::to_string(Qp().GetRemoteGpu()) + ": nothing came back on any EV of any "
                "plane for " + std::to_string((now - probes.silentSince).GetMicroSeconds()) +
                " us, probes unanswered (NoPathTimeout " + std::to_string(Qp().NoPathTimeout().GetMicroSeconds()) +
                " us)");
    return;
  }
  const Time interval = Qp().ProbeInterval();
  const uint64_t maxRounds = std::max<int64_t>(1, Qp().ProbeIntervalMax().GetTimeStep() / interval.GetTimeStep());
  for (Probing& p : probes.probing)
  {
    if (!PortUp(PortOfEv(p.id)) || --p.countdown > 0)
    {
      continue;
    }
    // Probed now; unless a response brings it back, next after twice as many rounds.
    p.rounds = static_cast<uint16_t>(std::min<uint64_t>(2 * uint64_t(p.rounds), std::min<uint64_t>(maxRounds, 0x8000)));
    p.countdown = p.rounds;
    NS_LOG_LOGIC("QP " << Qp().GetQpn() << " probes EV " << p.id << ", next in " << p.rounds << " rounds");
    MrcProbeHeader probe;
    probe.SetType(MrcProbeHeader::Request);
    probe.SetEv(p.id);
    probe.SetSequence(m_probeSeq++);
    probe.SetSendTime(Simulator::Now());
    FabricPacketSpec spec = Qp().ControlSpec(MrcQueuePair::kOpProbe, EvPlane(p.id), EvEntropy::Encode(p.id));
    spec.usids = EvUsids(p.id); // along the EV's own path
    Qp().Nic().SendControl(MakeControlFrame(spec, probe), PortOfEv(p.id));
  }
  probes.timer = Qp().ScheduleTimer(interval, &MrcEvTable::OnProbeTimer, this);
}

uint64_t
MrcEvTable::Heard() const
{
  return Qp().Sender().Base() + Qp().LossDetector().NacksReceived() + (m_probes ? m_probes->answers : 0);
}

void
MrcEvTable::HandleProbe(const RdmaRxInfo& info)
{
  MrcProbeHeader probe;
  ReadInner(info.frame, probe);
  if (probe.IsRequest())
  {
    probe.SetType(MrcProbeHeader::Response);
    FabricPacketSpec spec =
      Qp().ControlSpec(MrcQueuePair::kOpProbe, Qp().Nic().PlaneOfPort(info.port), info.frame.srcPort);
    Qp().Nic().SendControl(MakeControlFrame(spec, probe), info.port);
    return;
  }
  const uint16_t id = probe.GetEv();
  if (id >= m_evs.size() || m_evs[id] != EvState::AssumedBad)
  {
    return;
  }
  // The path works again: back to GOOD, as a backup of its plane (or active if the plane is short).
  const uint16_t port = PortOfEv(id);
  Probes& probes = MakeProbes(); // made when the EV was assumed bad
  ++probes.answers;
  SetState(id, EvState::Good);
  probes.probing.erase(
    std::find_if(probes.probing.begin(), probes.probing.end(), [&](const Probing& p) { return p.id == id; }));
  Lists& lists = MakeLists();
  lists.backups[port].push_back(id);
  const uint32_t target = std::max<uint32_t>(1, Qp().EvCount() / Qp().Nic().NumPorts());
  while (lists.active[port].size() < target && !lists.backups[port].empty())
  {
    size_t before = lists.active[port].size();
    Activate(port);
    if (lists.active[port].size() == before)
      break;
  }
  Qp().WakeAllPorts();
}

} // namespace ns3
