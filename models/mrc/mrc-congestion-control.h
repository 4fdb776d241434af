// The congestion controller of an MRC queue pair: a window clocked by acknowledgements. A small
// interface so that other controllers can be added next to NSCC (NsccCongestionControl).
#ifndef MRCSIM_MODELS_MRC_CONGESTION_CONTROL_H
#define MRCSIM_MODELS_MRC_CONGESTION_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/// \brief Window-based congestion control for one MRC queue pair.
class MrcCongestionControl : public Object
{
public:
  static TypeId GetTypeId();

  /// \brief Sets the path's base RTT and the QP's line rate (the sum over its planes).
  virtual void Init(Time baseRtt, DataRate lineRate) = 0;
  /// \brief Bytes the QP may have in flight.
  virtual uint64_t GetWindow() const = 0;
  /// \brief `bytes` newly acknowledged; `rtt` measured on the packet that triggered the ACK;
  /// `ecn` whether that packet was marked.
  virtual void OnAck(uint64_t bytes, Time rtt, bool ecn) = 0;
  /// \brief A packet was trimmed (NACK) or declared lost.
  virtual void OnTrim() = 0;
  virtual void OnLoss() = 0;
};

} // namespace ns3

#endif
