// Egress queueing policy shared by many ports: traffic classes with strict priority and byte
// limits, RED-style ECN marking, packet trimming and PFC thresholds. One object serves every port
// of a kind (e.g. all T0 down-ports), so a 2M-link fabric keeps one copy of each setting.
// Leaves out: shared-buffer (dynamic threshold) admission and WRR/DWRR scheduling.
#ifndef MRCSIM_MODELS_PORT_QUEUE_CONFIG_H
#define MRCSIM_MODELS_PORT_QUEUE_CONFIG_H

#include "ns3/data-rate.h"
#include "ns3/object.h"

#include <cstdint>

namespace ns3
{

/// \brief Queueing policy of an egress port (and PFC policy of the matching ingress).
/// Class 0 is the control class (ACK, NACK, CNP, trimmed headers); classes 1.. carry data.
class PortQueueConfig : public Object
{
public:
  static TypeId GetTypeId();
  PortQueueConfig();

  static constexpr uint8_t kMaxClasses = 4;
  static constexpr uint8_t kControlClass = 0;

  uint8_t NumClasses() const { return m_numClasses; }
  uint32_t ClassLimit(uint8_t cls) const { return cls == kControlClass ? m_controlLimit : m_dataLimit; }

  /// \brief Marking probability for a class holding `bytes` (RED: 0 below Kmin, linear to Pmax
  /// at Kmax, 1 above Kmax), on a port of ReferenceRate.
  double MarkProbability(uint32_t bytes) const;
  /// \brief By how much a port of `rateBps` scales the ECN and trim thresholds: rateBps /
  /// ReferenceRate, so that they stay the same fraction of its BDP (1 if either rate is 0).
  double ThresholdScale(uint64_t rateBps) const
  {
    const uint64_t ref = m_referenceRate.GetBitRate();
    return ref && rateBps ? double(rateBps) / double(ref) : 1.0;
  }
  bool EcnEnabled() const { return m_ecnEnabled; }
  /// \brief Where a port decides to mark: on the queue a packet joins, or on the queue it leaves
  /// behind when it starts on the wire.
  enum EcnPoint
  {
    ENQUEUE,
    DEQUEUE,
  };
  EcnPoint EcnMarkPoint() const { return m_ecnPoint; }

  bool TrimEnabled() const { return m_trimEnabled; }
  uint32_t TrimThreshold() const { return m_trimThreshold; }
  uint32_t TrimmedSize() const { return m_trimmedSize; }
  uint8_t TrimmedDscp() const { return m_trimmedDscp; }
  uint8_t ControlDscp() const { return m_controlDscp; }
  /// \brief Traffic class of a packet by its DSCP.
  uint8_t ClassOfDscp(uint8_t dscp) const
  {
    return (dscp == m_controlDscp || dscp == m_trimmedDscp) ? kControlClass : 1;
  }

  bool PfcEnabled(uint8_t cls) const { return m_pfcEnabled && cls != kControlClass; }
  uint32_t PfcXoff() const { return m_pfcXoff; }
  uint32_t PfcXon() const { return m_pfcXon; }
  uint16_t PfcPauseQuanta() const { return m_pfcPauseQuanta; }
  uint32_t PfcHeadroom() const { return m_pfcHeadroom; }
  /// \brief Headroom of a lossless class at an ingress port of `rateBps` whose cable has
  /// `cableDelay`: PfcHeadroom when set, else derived (see the attribute).
  uint64_t PfcHeadroomOf(uint64_t rateBps, Time cableDelay) const;

  /// \brief Bytes a frame occupies on the wire beyond the packet (Ethernet header and FCS by
  /// default; add 20 for preamble and inter-frame gap).
  uint32_t FramingBytes() const { return m_framingBytes; }

private:
  uint32_t m_framingBytes;
  DataRate m_referenceRate;
  uint8_t m_numClasses;
  uint32_t m_controlLimit;
  uint32_t m_dataLimit;
  bool m_ecnEnabled;
  EcnPoint m_ecnPoint;
  uint32_t m_ecnKmin;
  uint32_t m_ecnKmax;
  double m_ecnPmax;
  bool m_trimEnabled;
  uint32_t m_trimThreshold;
  uint32_t m_trimmedSize;
  uint8_t m_trimmedDscp;
  uint8_t m_controlDscp;
  bool m_pfcEnabled;
  uint32_t m_pfcXoff;
  uint32_t m_pfcXon;
  uint16_t m_pfcPauseQuanta;
  uint32_t m_pfcHeadroom;
  Time m_pfcResponseTime;
  uint32_t m_pfcMaxFrame;
};

} // namespace ns3

#endif
