// What the MRC queue pairs of one NIC learn together about the fabric's links. A loss (not a
// trim) on an EV whose SRv6 path crosses a T1 names two suspects: the source T0's up-link (the
// path's first uSID) and the T1's down-link toward the destination T0 (the first two uSIDs).
// Other QPs of the NIC whose EVs take the same T1 down-link, i.e. go the same way to the same
// destination T0, mark those EVs assumed bad at once; when losses through one up-link come from
// paths toward two different T1 down-links within UplinkWindow, the up-link itself is the fault
// and every EV of the NIC through it is marked. Each QP then probes its marked EVs and brings
// them back as usual. The sender cannot tell which link of a path failed: this inference is our
// choice (the sources say only that EV health is per QP and bypass takes tens of microseconds).
// Leaves out: entropy mode (an EV's links are unknown to the NIC there), switch-level failures
// beyond the first two hops.
#ifndef MRCSIM_MODELS_MRC_PATH_HEALTH_H
#define MRCSIM_MODELS_MRC_PATH_HEALTH_H

#include "models/usid-list.h"

#include "ns3/nstime.h"
#include "ns3/object.h"

#include <map>
#include <utility>
#include <vector>

namespace ns3
{

class MrcQueuePair;

/// \brief Path health shared by the MRC QPs of one NIC (aggregated onto the RdmaNic).
class MrcPathHealth : public Object
{
public:
  static TypeId GetTypeId();

  /// \brief `qp` shares in what the NIC's QPs learn.
  void Register(MrcQueuePair* qp) { m_qps.push_back(qp); }
  /// \brief `reporter` lost a packet on NIC port `port` along `path`: tells the other QPs
  /// which of their paths share the suspect links.
  void ReportLoss(MrcQueuePair* reporter, uint16_t port, const UsidList& path);
  /// \brief EVs of other QPs marked assumed bad by what one QP learnt.
  uint64_t SharedMarks() const { return m_sharedMarks; }

protected:
  void DoDispose() override;

private:
  /// \brief Every QP (the reporter too) marks its EVs on `port` whose paths start with `prefix`.
  void Broadcast(MrcQueuePair* reporter, uint16_t port, const UsidList& prefix);

  std::vector<MrcQueuePair*> m_qps;
  /// Per (port, up-link uSID): the recent losses through it, as (time, T1 down-link uSID).
  std::map<std::pair<uint16_t, uint16_t>, std::vector<std::pair<Time, uint16_t>>> m_uplinkLosses;
  Time m_uplinkWindow;
  uint64_t m_sharedMarks = 0;
};

} // namespace ns3

#endif
