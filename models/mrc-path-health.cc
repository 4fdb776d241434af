#include "models/mrc-path-health.h"

#include "models/mrc-queue-pair.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MrcPathHealth);

TypeId
MrcPathHealth::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::MrcPathHealth")
      .SetParent<Object>()
      .AddConstructor<MrcPathHealth>()
      .AddAttribute("UplinkWindow",
                    "Losses through one T0 up-link toward two different T1 down-links within this time "
                    "mark the up-link bad for every QP of the NIC.",
                    TimeValue(MicroSeconds(50)),
                    MakeTimeAccessor(&MrcPathHealth::m_uplinkWindow),
                    MakeTimeChecker(Time(0)));
  return tid;
}

void
MrcPathHealth::DoDispose()
{
  m_qps.clear();
  m_uplinkLosses.clear();
  Object::DoDispose();
}

void
MrcPathHealth::ReportLoss(MrcQueuePair* reporter, uint16_t port, const UsidList& path)
{
  if (path.size() < 3)
  {
    return; // under one T0: the only link is the destination's own
  }
  // The T1's down-link toward the destination T0: the same first two uSIDs.
  Broadcast(reporter, port, UsidList(path.begin(), path.begin() + 2));
  // The up-link: losses through it toward different down-links point at it.
  const Time now = Simulator::Now();
  auto& losses = m_uplinkLosses[{ port, path[0] }];
  losses.erase(std::remove_if(losses.begin(),
                              losses.end(),
                              [&](const auto& l) { return now - l.first > m_uplinkWindow; }),
               losses.end());
  const bool another = std::any_of(losses.begin(), losses.end(), [&](const auto& l) { return l.second != path[1]; });
  losses.emplace_back(now, path[1]);
  if (another)
  {
    losses.clear();
    Broadcast(reporter, port, UsidList(path.begin(), path.begin() + 1));
  }
}

void
MrcPathHealth::Broadcast(MrcQueuePair* reporter, uint16_t port, const UsidList& prefix)
{
  for (MrcQueuePair* qp : m_qps)
  {
    const uint32_t marked = qp->MarkPathsAssumedBad(port, prefix);
    m_sharedMarks += qp == reporter ? 0 : marked;
  }
}

} // namespace ns3
