// The ingress buffer accounting of one switch for PFC (IEEE 802.1Qbb): bytes of each lossless
// class that came in by each port and wait in some egress queue of the same switch. Crossing
// XOFF makes the ingress port PAUSE the class upstream; falling to XON, RESUME; a frame that
// would overflow XOFF plus the port's headroom is refused. Egress ports charge and release
// through it, so no port reaches another port's state.
// Leaves out: a shared buffer pool and dynamic thresholds (each ingress class has its own
// static XOFF/XON from its PortQueueConfig).
#ifndef MRCSIM_MODELS_PFC_ACCOUNTANT_H
#define MRCSIM_MODELS_PFC_ACCOUNTANT_H

#include "models/fabric/port-queue-config.h"

#include <array>
#include <cstdint>
#include <vector>

namespace ns3
{

class FabricPort;

/// \brief Per-switch PFC ingress accounting (see the file comment).
class FabricPfcAccountant
{
public:
  /// \brief Adds the switch's next port (ports are numbered by their interface index).
  void AddPort(FabricPort* port);
  void Clear();

  /// \brief Whether `bytes` more of lossless class `cls` may come in by port `in` (XOFF plus
  /// the port's headroom, FabricPort::PfcHeadroom, which it keeps from the port's first
  /// lossless frame on: the port's configuration, rate and cable are final by then).
  bool Admits(FabricPort& in, uint8_t cls, uint32_t bytes);
  /// \brief `bytes` of class `cls` came in by `in` and were queued: PAUSEs the class upstream
  /// when it rises above XOFF.
  void Charge(FabricPort& in, uint8_t cls, uint32_t bytes);
  /// \brief `bytes` of class `cls` that came in by port number `in` left (or were dropped):
  /// RESUMEs the class upstream when it falls to XON.
  void Release(uint16_t in, uint8_t cls, uint32_t bytes);
  /// \brief Bytes of class `cls` that came in by port number `in` and are queued.
  uint32_t IngressBytes(uint16_t in, uint8_t cls) const { return m_bytes[in][cls]; }

private:
  std::vector<FabricPort*> m_ports;
  std::vector<std::array<uint32_t, PortQueueConfig::kMaxClasses>> m_bytes;
  std::vector<uint64_t> m_headroom; ///< per port, 0 until its first lossless frame (Admits)
};

} // namespace ns3

#endif
