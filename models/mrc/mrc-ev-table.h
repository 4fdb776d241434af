// The EV table of an MRC queue pair: its entropy values and their SRv6 paths (shared with the QPs
// between the same T0s: MrcPathSet), which EVs of each NIC port spray (active) and which wait as
// backups (a range of ids per port until an EV first leaves or joins a list, then lists kept
// apart), their states (one byte each: GOOD, SKIP,
// ASSUMED_BAD, DENIED) and the trace of every change, the per-packet choice among the active
// ones (a pluggable EvSelector), the probes that bring EVs assumed bad back (backing off), and the
// port status of both ends (a NIC port down denies its plane's EVs). Leaves out what is in flight
// on an EV (MrcSender, MrcLossDetector) and what the NIC's QPs learn together (MrcPathHealth).
#ifndef MRCSIM_MODELS_MRC_EV_TABLE_H
#define MRCSIM_MODELS_MRC_EV_TABLE_H

#include "models/mrc/ev-selector.h"
#include "models/mrc/mrc-ev.h"
#include "models/mrc/mrc-path-set.h"
#include "models/rdma/rdma-queue-pair.h"
#include "models/wire/usid-list.h"

#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace ns3
{

class MrcQueuePair;

/// \brief The EVs of one MRC queue pair, their paths, states, probes and port status (see the
/// file comment). A member of its MrcQueuePair, which it asks for the NIC, the configuration and
/// the sender's state (whether it has messages).
class MrcEvTable
{
public:
  MrcEvTable() = default;
  MrcEvTable(const MrcEvTable&) = delete;
  MrcEvTable& operator=(const MrcEvTable&) = delete;

  /// \brief Takes `selector` as the table's EV selector and gives it the QP's stable `stream`
  /// id (EvSelector::SetStream).
  void SetSelector(Ptr<EvSelector> selector, uint64_t stream);
  /// \brief Builds the table at the QP's first message: per NIC port `perPlane` active EVs and
  /// `backups` backups, on SRv6 paths (`srv6`) or as UDP entropy only. All ports up.
  void SetUp(uint32_t perPlane, uint32_t backups, bool srv6);
  /// \brief Cancels the probe timer and drops the selector.
  void Dispose();

  /// \brief The EV for the next packet on NIC port `port` (an index into Evs()), or -1.
  int Select(uint16_t port) { return m_selector->Select(m_evs, ActiveEvs(port), port); }
  const MrcEvStates& Evs() const { return m_evs; }
  /// \brief EV state changes so far (each one the EvState trace source reports).
  uint32_t Transitions() const { return m_transitions; }
  /// \brief NIC ports of the table (0 before SetUp).
  uint16_t NumPorts() const { return m_numPorts; }
  /// \brief The NIC port of EV `id` (the EVs are numbered port by port).
  uint16_t PortOfEv(uint16_t id) const { return static_cast<uint16_t>(id / m_evsPerPort); }
  /// \brief The plane of EV `id`.
  int EvPlane(uint16_t id) const;
  /// \brief The SRv6 path of EV `id` (empty in entropy mode, or if it has none).
  UsidList EvUsids(uint16_t id) const
  {
    if (!m_pathSets)
    {
      return UsidList();
    }
    const uint16_t port = PortOfEv(id);
    return m_places.At(port).Usids((*m_pathSets)[port].get(), id - uint32_t(port) * m_evsPerPort);
  }
  /// \brief Active (spraying) EVs of NIC port `port`.
  MrcEvIds ActiveEvs(uint16_t port) const
  {
    if (m_lists)
    {
      const std::vector<uint16_t>& active = m_lists->active[port];
      return MrcEvIds(active.data(), static_cast<uint32_t>(active.size()));
    }
    return MrcEvIds(Ids() + uint32_t(port) * m_evsPerPort, m_perPlane);
  }
  bool PortUp(uint16_t port) const { return (m_portUp >> port) & 1; }
  bool PeerPlaneUp(uint16_t port) const { return (m_peerPlaneUp >> port) & 1; }
  /// \brief NIC ports that can carry data: up at both ends, with an active EV.
  uint32_t UsablePorts() const
  {
    uint32_t usable = 0;
    for (uint16_t p = 0; p < m_numPorts; ++p)
    {
      usable += PortUp(p) && PeerPlaneUp(p) && !ActiveEvs(p).empty();
    }
    return usable;
  }
  /// \brief Whether the active and backup lists left their first shape (kept apart).
  bool ListsKeptApart() const { return m_lists != nullptr; }

  /// \brief A SACK echoed EV `id` (ignored if out of range): an ECN echo skips it one rotation.
  void OnSack(uint16_t id, bool ecnEcho);
  /// \brief A NACK echoed EV `id` (ignored if out of range): it is skipped one rotation.
  void OnTrim(uint16_t id);
  /// \brief A packet on EV `id` was declared lost: it is assumed bad.
  void OnLoss(uint16_t id);
  /// \brief Marks EV `id` assumed bad (a backup of its plane takes its place) and probes it.
  void MarkAssumedBad(uint16_t id);
  /// \brief Marks assumed bad the usable EVs of NIC port `port` whose SRv6 paths start with
  /// `prefix`, resending what is in flight on each; returns how many.
  uint32_t MarkPathsAssumedBad(uint16_t port, const UsidList& prefix);
  /// \brief The local NIC port `port` went down or up: its EVs are denied (or restored).
  void SetPortUp(uint16_t port, bool up);
  /// \brief The peer's NIC port of `plane` went down or up.
  void SetPeerPlaneUp(int plane, bool up);

  /// \brief Starts the probe timer if EVs wait for probes (it pauses while the QP is idle).
  void StartProbes();
  /// \brief A probe arrived: answers a request; a response brings its EV back to GOOD.
  void HandleProbe(const RdmaRxInfo& info);
  /// \brief Probes sent on EVs assumed bad.
  uint32_t ProbesSent() const { return m_probeSeq; }

private:
  /// \brief The QP this part is a member of, found from where the part sits in it (no
  /// reference kept: 8 bytes a part, millions of QPs). Defined in mrc-queue-pair.h.
  inline MrcQueuePair& Qp() const;
  /// The active and backup EVs of each NIC port, in order, once they differ from the ranges the
  /// table starts with (the first PerPlane EVs of a port active, the rest backups, in id order):
  /// made at the first EV that leaves or joins a list (most QPs never have one).
  struct Lists
  {
    std::vector<std::vector<uint16_t>> active;  ///< per NIC port
    std::vector<std::vector<uint16_t>> backups; ///< per NIC port, taken from the front
  };

  void SetState(uint16_t id, EvState state);
  /// \brief Moves the first GOOD backup of `port` into the active set.
  void Activate(uint16_t port);
  /// \brief The lists, made from the ranges the first time.
  Lists& MakeLists();
  void OnProbeTimer();
  /// \brief What has come back from the peer so far, as a count that grows with each: packets
  /// acknowledged in order, NACKs, probe answers (all the QP already counts; read at probe rounds).
  uint64_t Heard() const;
  /// \brief The ids 0, 1, 2, ... (every QP's ranges point into it).
  static const uint16_t* Ids();

  // What the QP's NextPacket reads first (the QP keeps it in its hot lines).
  uint64_t m_portUp = 0;      ///< local NIC ports, a bit each (a NIC has at most 64)
  uint64_t m_peerPlaneUp = 0; ///< by NIC port index (same plane at the peer), a bit each
  std::unique_ptr<Lists> m_lists; ///< null while every port has its first ranges
  Ptr<EvSelector> m_selector;
  MrcEvStates m_evs;
  /// SRv6 mode (null in entropy mode): per NIC port, the set its EVs' paths are in (one block
  /// shared by the QPs whose ports have the same sets) and where they start in it, with the
  /// destination's uSIDs.
  SharedValue<MrcPortSets> m_pathSets;
  MrcPortPlaces m_places;
  uint32_t m_evsPerPort = 1; ///< active and backup EVs of each NIC port
  uint16_t m_perPlane = 0;   ///< active EVs of each NIC port at set-up
  uint16_t m_numPorts = 0;

  // colder: backups and probes
  uint32_t m_probeSeq = 0;
  uint32_t m_transitions = 0; ///< EV state changes (Transitions)
  /// An EV assumed bad, probed until a response brings it back: every `rounds` probe rounds,
  /// a number that doubles after each probe (up to ProbeIntervalMax / ProbeInterval).
  struct Probing
  {
    uint16_t id;
    uint16_t rounds = 1;
    uint16_t countdown = 1; ///< rounds until its next probe
  };
  /// The probing of EVs assumed bad: made at the first (most QPs never have one), kept apart from
  /// the lists (a new set-up starts the lists again, not the probes).
  struct Probes
  {
    std::vector<Probing> probing;
    EventId timer;
    /// No path works (NoPathTimeout): since when nothing came back from the peer while probes
    /// ran (negative: not watching), and what had come back then (Heard).
    Time silentSince{ -1 };
    uint64_t heardThen = 0;
    uint64_t answers = 0; ///< probe responses that brought an EV back
  };
  Probes& MakeProbes();
  std::unique_ptr<Probes> m_probes; ///< null until an EV is first assumed bad
};

} // namespace ns3

#endif
