#include "models/mrc/mrc-path-health.h"

#include "models/mrc/mrc-queue-pair.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcPathHealth");

NS_OBJECT_ENSURE_REGISTERED(MrcPathHealth);

TypeId
MrcPathHealth::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::MrcPathHealth")
      .SetParent<Object>()
      .AddConstructor<MrcPathHealth>()
      .AddAttribute("UplinkWindow",
                    "Losses through one T0 up-link toward two different destination T0s within this time "
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
  m_leafLosses.clear();
  Object::DoDispose();
}

void
MrcPathHealth::ReportLoss(MrcQueuePair* reporter, const Loss& loss)
{
  const UsidList& path = loss.path;
  if (path.size() < 3)
  {
    return; // under one T0: the only link is the destination's own
  }
  NS_LOG_FUNCTION(this << loss.port << loss.leaf << loss.spine << loss.laterDelivered);
  // The T1's down-link toward the destination T0: the same first two uSIDs.
  Broadcast(reporter, loss.port, UsidList(path.begin(), path.begin() + 2));
  if (!loss.laterDelivered)
  {
    return;
  }
  // The up-link: losses through it toward different destination T0s point at it.
  if (Corroborated(m_uplinkLosses[{ loss.port, path[0] }], loss.leaf) && !loss.uplinkAlive)
  {
    NS_LOG_DEBUG("port " << loss.port << " up-link uSID " << path[0] << " assumed bad for the NIC's QPs");
    Broadcast(reporter, loss.port, UsidList(path.begin(), path.begin() + 1));
  }
  // The destination T0: losses toward it through different T1s point at its links.
  if (loss.leaf != kAnyLeaf && Corroborated(m_leafLosses[{ loss.port, loss.leaf }], loss.spine) && !loss.portAlive)
  {
    NS_LOG_DEBUG("port " << loss.port << " T0 " << loss.leaf << " assumed bad for the NIC's QPs");
    Broadcast(reporter, loss.port, UsidList(), loss.leaf);
  }
}

bool
MrcPathHealth::Corroborated(std::vector<std::pair<Time, uint32_t>>& losses, uint32_t tag)
{
  const Time now = Simulator::Now();
  losses.erase(std::remove_if(losses.begin(),
                              losses.end(),
                              [&](const auto& l) { return now - l.first > m_uplinkWindow; }),
               losses.end());
  const bool another = std::any_of(losses.begin(), losses.end(), [&](const auto& l) { return l.second != tag; });
  losses.emplace_back(now, tag);
  if (another)
  {
    losses.clear();
  }
  return another;
}

void
MrcPathHealth::Broadcast(MrcQueuePair* reporter, uint16_t port, const UsidList& prefix, uint32_t leaf)
{
  for (MrcQueuePair* qp : m_qps)
  {
    if (leaf != kAnyLeaf && qp->RemoteLeaf(qp->PlaneOfPort(port)) != leaf)
    {
      continue;
    }
    const uint32_t marked = qp->MarkPathsAssumedBad(port, prefix);
    m_sharedMarks += qp == reporter ? 0 : marked;
  }
}

} // namespace ns3
