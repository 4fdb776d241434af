// The congestion controller of an MRC queue pair: a window clocked by acknowledgements. A small
// interface so that other controllers can be added next to NSCC (NsccCongestionControl).
// The contract: the QP makes the controller from its type (MrcQueuePair::CongestionControl),
// calls Init once, before anything else, with what it knows of its path (MrcCcPath), reads
// GetWindow before each data packet and reports every acknowledgement, trim and loss. A
// controller needs no attribute of any particular name: its own settings are its attributes.
#ifndef MRCSIM_MODELS_MRC_CONGESTION_CONTROL_H
#define MRCSIM_MODELS_MRC_CONGESTION_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/// \brief What a congestion controller is told of its queue pair once, at set-up (Init).
struct MrcCcPath
{
  Time baseRtt;      ///< an uncongested round trip on the QP's paths
  DataRate lineRate; ///< the QP's NIC rate, summed over its ports (planes)
  uint32_t mtu = 0;  ///< payload bytes of a full data packet (RdmaNic::Mtu), the unit windows count in
};

/// \brief Window-based congestion control for one MRC queue pair (see the file comment).
class MrcCongestionControl : public Object
{
public:
  static TypeId GetTypeId();

  /// \brief Called once, before any other call, with the QP's path.
  virtual void Init(const MrcCcPath& path) = 0;
  /// \brief Bytes the QP may have in flight.
  virtual uint64_t GetWindow() const = 0;
  /// \brief `bytes` newly acknowledged; `rtt` measured on the packet that triggered the ACK;
  /// `ecn` whether that packet was marked.
  virtual void OnAck(uint64_t bytes, Time rtt, bool ecn) = 0;
  /// \brief A packet was trimmed (its NACK came back). Called once per packet declared lost so.
  virtual void OnTrim() = 0;
  /// \brief A packet was declared lost without a trim (RACK, tail-loss probe or timeout). Not
  /// called for packets resent because their port or path failed: that is no congestion.
  virtual void OnLoss() = 0;
};

} // namespace ns3

#endif
