// Why a packet was dropped: every drop in the fabric is counted and traced with one of these.
#ifndef MRCSIM_MODELS_DROP_CAUSE_H
#define MRCSIM_MODELS_DROP_CAUSE_H

#include <cstdint>

namespace ns3
{

/// \brief Cause of a packet drop (ports, links and switches).
enum class DropCause : uint8_t
{
  QueueFull,   ///< egress class over its byte limit (drop-tail)
  PfcHeadroom, ///< ingress buffer beyond XOFF + headroom (PFC could not stop the sender)
  LinkDown,    ///< sent to, or in flight on, a link that is down
  RandomLoss,  ///< gray failure: random loss on the link
  NoRoute,     ///< ECMP group empty (destination unreachable from this switch)
  NextHopDown, ///< the uSID or ECMP choice points at a port whose link is down
  BadUsid,     ///< carrier empty, locator mismatch or uSID naming no port
  HopLimit,    ///< hop limit reached zero
  Count        ///< number of causes (not a cause)
};

/// \brief Short name of a cause, for traces and CSV columns.
inline const char*
DropCauseName(DropCause c)
{
  switch (c)
  {
    case DropCause::QueueFull:
      return "queue_full";
    case DropCause::PfcHeadroom:
      return "pfc_headroom";
    case DropCause::LinkDown:
      return "link_down";
    case DropCause::RandomLoss:
      return "random_loss";
    case DropCause::NoRoute:
      return "no_route";
    case DropCause::NextHopDown:
      return "next_hop_down";
    case DropCause::BadUsid:
      return "bad_usid";
    case DropCause::HopLimit:
      return "hop_limit";
    case DropCause::Count:
      break;
  }
  return "unknown";
}

} // namespace ns3

#endif
