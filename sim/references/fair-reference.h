// The fair-share reference of one run (sim/references/fair-share.h) on the paths the run used: each message
// part is a fluid flow from the time its message was posted, over
// - a RoCEv2 QP's one ECMP path (its plane and UDP source port hashed at every switch, as the
//   routing tables stood when it was posted: a failed link counts until the tables drop it, so a
//   failure's stall is not in the reference, only the path routing leaves the flow on), or
// - for a transport that sprays (MRC), its sender's and receiver's whole NICs (every plane): on a
//   full-bisection fabric, perfect spraying meets no other bottleneck.
// A message's fair time is when its last part would finish there, plus its pair's latency for
// the last packet (IdealModel::PairLatencyS: NIC pipelines and host latencies, cables, switches),
// so a message alone on an idle fabric has its ideal time, and a transport's time against it
// separates the paths' cost (hash collisions) from its congestion control's.
#ifndef MRCSIM_SIM_REFERENCES_FAIR_REFERENCE_H
#define MRCSIM_SIM_REFERENCES_FAIR_REFERENCE_H

#include "sim/references/fair-share.h"
#include "sim/references/ideal-model.h"

#include "models/fabric/fabric-network.h"
#include "models/rdma/rdma-queue-pair.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace mrcsim
{

class FairReference
{
public:
  /// Message parts beyond which the reference is not computed (null in the results): millions of
  /// flows would take longer than the run.
  static constexpr uint64_t kFlowLimit = 200000;

  FairReference(ns3::FabricNetwork& net, const IdealModel& ideal);

  /// \brief What the reference needs of a QP's path, taken when the QP is made (in a run across
  /// MPI ranks another rank's QP is not kept): one hashed path (RoCEv2: its plane and UDP source
  /// port, the fields besides the addresses that switches hash) or spraying over every plane.
  struct Route
  {
    bool pinned = false;
    uint16_t plane = 0;
    uint16_t entropy = 0;
  };
  static Route RouteOf(const ns3::RdmaQueuePair& qp);

  /// \brief A message of `bytes` from `src` to `dst` posted at `posted`, carried in `parts` (the
  /// route of a QP and the bytes it carries of it).
  void AddMessage(uint32_t src,
                  uint32_t dst,
                  uint64_t bytes,
                  ns3::Time posted,
                  const std::vector<std::pair<Route, uint64_t>>& parts);
  /// \brief Computes every message's fair time (once, after the run).
  void Compute();
  /// \brief Leaves the reference out, saying why (a run stopped before its work was done has
  /// not posted all its messages: the reference of those it did would not be the run's).
  void Skip(const std::string& why);
  /// \brief The fair time (post to completion) of the next unclaimed message from `src` to `dst`
  /// of `bytes` posted at `posted`, in posting order; nullopt when not computed or the pair has
  /// no path.
  std::optional<double> TakeMessageTimeS(uint32_t src, uint32_t dst, uint64_t bytes, ns3::Time posted);
  /// \brief "fair_us" (when the last message would complete) and what the reference is.
  nlohmann::json Summary() const;
  std::optional<double> LastCompletionS() const { return m_last; }

private:
  using Key = std::tuple<uint32_t, uint32_t, uint64_t, int64_t>; // src, dst, bytes, posted ticks
  struct Message
  {
    Key key;
    std::vector<uint32_t> flows; ///< indices into m_input.flows
    bool routed = true;          ///< every part has a path
  };

  /// Directed links of a pinned route's ECMP path from `src` to `dst` (empty when there is none).
  std::vector<uint32_t> EcmpPath(const Route& route, uint32_t src, uint32_t dst);
  uint32_t NicLink(uint32_t gpu, bool out) const { return m_nicLinkBase + 2 * gpu + (out ? 0 : 1); }

  ns3::FabricNetwork& m_net;
  const IdealModel& m_ideal;
  uint32_t m_nicLinkBase = 0;
  FairShareInput m_input;
  std::vector<Message> m_messages;
  uint64_t m_flowCount = 0;
  bool m_overLimit = false;
  std::string m_skipped; ///< why the reference was left out (Skip)
  bool m_computed = false;
  bool m_ecmp = false;  ///< some part went over one ECMP path
  bool m_spray = false; ///< some part sprayed
  std::optional<double> m_last;
  std::map<Key, std::vector<std::optional<double>>> m_times; ///< per key, in posting order
  std::map<Key, std::size_t> m_taken;
};

} // namespace mrcsim

#endif
