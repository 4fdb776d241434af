// What the MRC queue pairs of one NIC learn together about the fabric's links. A loss (not a
// trim) on an EV whose SRv6 path crosses a T1 names two suspects: the source T0's up-link (the
// path's first uSID) and the T1's down-link toward the destination T0 (the first two uSIDs).
// Other QPs of the NIC whose EVs take the same T1 down-link, i.e. go the same way to the same
// destination T0, mark those EVs assumed bad at once; when losses through one up-link come from
// paths toward two different destination T0s within UplinkWindow, the up-link itself is the fault
// and every EV of the NIC through it is marked. Likewise, losses toward one destination T0 through
// two different T1s point at that T0's own links: every EV of the plane toward it
// is marked, which takes the plane out of spraying toward that T0 until probes bring it back.
// Only losses found by RACK (a later packet delivered, not a timer's guess) count toward these
// broad marks, and neither is made when the reporting QP saw a later packet through the same
// up-link (for the first) or on the same plane (for the second) acknowledged. Each QP then probes its marked EVs and brings
// them back as usual. The sender cannot tell which link of a path failed: this inference is our
// choice (the sources say only that EV health is per QP and bypass takes tens of microseconds).
// Leaves out: entropy mode (an EV's links are unknown to the NIC there), switch-level failures
// beyond the first two hops.
#ifndef MRCSIM_MODELS_MRC_PATH_HEALTH_H
#define MRCSIM_MODELS_MRC_PATH_HEALTH_H

#include "models/engine/grow-by-eighth.h"
#include "models/wire/usid-list.h"

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
  void Register(MrcQueuePair* qp)
  {
    GrowByEighth(m_qps); // one entry per QP of the NIC, millions in a large run
    m_qps.push_back(qp);
  }
  /// \brief What a QP knows of one lost packet.
  struct Loss
  {
    uint16_t port;            ///< the NIC port it left by
    UsidList path;            ///< its SRv6 path
    uint32_t leaf;            ///< the destination GPU's T0 in that plane (a vertex)
    uint32_t spine;           ///< the T1 the path goes up to (a vertex)
    bool laterDelivered = false; ///< found by RACK: a packet sent after it was acknowledged
    bool portAlive = false;   ///< a packet sent later on the port was acknowledged
    bool uplinkAlive = false; ///< ... one through the same up-link
  };
  /// \brief `reporter` lost a packet: tells the NIC's QPs which of their paths share the
  /// suspect links. Evidence that the plane (the up-link) still works keeps the broad marks off:
  /// random loss also strikes different paths, but never all packets of one.
  void ReportLoss(MrcQueuePair* reporter, const Loss& loss);
  /// \brief EVs of other QPs marked assumed bad by what one QP learnt.
  uint64_t SharedMarks() const { return m_sharedMarks; }

protected:
  void DoDispose() override;

private:
  /// \brief Every QP (the reporter too) marks its EVs on `port` whose paths start with `prefix`;
  /// with `leaf` set, only the QPs toward GPUs under that T0.
  void Broadcast(MrcQueuePair* reporter, uint16_t port, const UsidList& prefix, uint32_t leaf = kAnyLeaf);
  /// \brief Records a loss at `now` under `key` with `tag`; true when a loss with another tag
  /// was recorded within UplinkWindow (the records are then forgotten).
  bool Corroborated(std::vector<std::pair<Time, uint32_t>>& losses, uint32_t tag);

  static constexpr uint32_t kAnyLeaf = UINT32_MAX;

  std::vector<MrcQueuePair*> m_qps;
  /// Per (port, up-link uSID): the recent losses through it, as (time, destination T0 vertex).
  std::map<std::pair<uint16_t, uint16_t>, std::vector<std::pair<Time, uint32_t>>> m_uplinkLosses;
  /// Per (port, destination T0 vertex): the recent losses toward it, as (time, T1 vertex).
  std::map<std::pair<uint16_t, uint32_t>, std::vector<std::pair<Time, uint32_t>>> m_leafLosses;
  Time m_uplinkWindow;
  uint64_t m_sharedMarks = 0;
};

} // namespace ns3

#endif
