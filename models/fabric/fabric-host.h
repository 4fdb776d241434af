// A GPU host as the fabric sees it: a node with one NIC port per plane. It sends IPv6 packets out
// of a chosen port and hands what arrives to whatever endpoint sits on it (an RDMA NIC model, or
// a test sink). Leaves out: PCIe, host memory and the GPU itself.
#ifndef MRCSIM_MODELS_FABRIC_HOST_H
#define MRCSIM_MODELS_FABRIC_HOST_H

#include "models/fabric/fabric-port.h"

#include "ns3/callback.h"
#include "ns3/node.h"
#include "ns3/traced-callback.h"

#include <vector>

namespace ns3
{

/// \brief Takes the frames a host receives (an RDMA NIC): the fast path, no conversion.
class FabricFrameSink
{
public:
  virtual ~FabricFrameSink() = default;
  virtual void ReceiveFrame(FramePtr frame, uint16_t port) = 0;
  /// \brief What every ReceiveFrame reads first (see FabricPacketHandler::GetArrivalLines): two lines.
  virtual std::array<const void*, 2> GetArrivalLines() const { return {}; }
  /// \brief A NIC port's link went up or down (before the link-state callback, if one is set).
  virtual void LinkStateChanged(uint16_t port, bool up) {}
};

/// \brief A GPU's NIC ports, one per plane.
class FabricHost
  : public Node
  , public FabricPacketHandler
{
public:
  static TypeId GetTypeId();
  FabricHost();

  void SetGpuIndex(uint32_t gpu) { m_gpu = gpu; }
  uint32_t GetGpuIndex() const { return m_gpu; }
  void AddPort(Ptr<FabricPort> port);
  /// \brief Adds the next port number without a port, wired to a switch of plane `plane`: one
  /// left out of this process (FabricNetwork's constructor), which never sends or receives here.
  void AddAbsentPort(int plane);
  /// \brief NIC port `i`; null when left out (AddAbsentPort).
  Ptr<FabricPort> GetPort(uint16_t i) const { return m_ports[i]; }
  /// \brief The plane of the switch NIC port `i` is wired to (-1: none).
  int PlaneOfPort(uint16_t i) const;
  /// \brief NIC port `i` without a reference count (for per-packet paths); null when left out.
  FabricPort* PortAt(uint16_t i) const { return PeekPointer(m_ports[i]); }
  uint16_t NumPorts() const { return static_cast<uint16_t>(m_ports.size()); }

  /// \brief Sends an IPv6 frame out of NIC port `port`; its class comes from its DSCP.
  bool Send(FramePtr frame, uint16_t port);
  /// \brief Sends an IPv6 packet (read into a frame, see FromPacket).
  bool Send(Ptr<Packet> packet, uint16_t port);

  /// \brief Receives every frame that arrives (takes precedence over the packet callback).
  void SetFrameSink(FabricFrameSink* sink) { m_sink = sink; }
  /// \brief Receives every IPv6 packet that arrives, as a packet (ToPacket): (packet, NIC port).
  void SetReceiveCallback(Callback<void, Ptr<Packet>, uint16_t> cb) { m_receive = cb; }
  /// \brief Told when a NIC port's link goes up or down: (NIC port, up).
  void SetLinkStateCallback(Callback<void, uint16_t, bool> cb) { m_linkState = cb; }

  void HandleFrame(FabricPort& in, FramePtr frame) override;
  void HandleLinkState(FabricPort& port, bool up) override;
  /// \brief This host's first line and its sink's.
  ArrivalLines GetArrivalLines() const override;

  typedef void (*RxTracedCallback)(Ptr<const Packet> packet, uint16_t port);

protected:
  void DoDispose() override;

private:
  uint32_t m_gpu = 0;
  std::vector<Ptr<FabricPort>> m_ports;
  std::vector<std::pair<uint16_t, int>> m_absentPlanes; ///< (port, plane) of ports left out
  FabricFrameSink* m_sink = nullptr;
  Callback<void, Ptr<Packet>, uint16_t> m_receive;
  Callback<void, uint16_t, bool> m_linkState;
  TracedCallback<Ptr<const Packet>, uint16_t> m_rxTrace;
};

} // namespace ns3

#endif
