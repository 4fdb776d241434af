// A switch of one plane: a forwarding latency, then either SRv6 uSID shift-and-forward (the
// destination is in the fc00::/16 block: match the plane's locator, take the active uSID as the
// egress port, shift it out) or ECMP (hash of addresses, flow label and UDP ports onto the group
// toward the destination GPU). A packet whose next hop is down is dropped and counted by cause.
// Leaves out: a routing protocol's messages (see FabricControlPlane), ACLs, and multicast.
#ifndef MRCSIM_MODELS_FABRIC_SWITCH_H
#define MRCSIM_MODELS_FABRIC_SWITCH_H

#include "models/fabric/drop-cause.h"
#include "models/wire/fabric-address.h"
#include "models/fabric/fabric-port.h"
#include "models/wire/ipv6-usid-header.h"

#include "topologies/fabric.h"

#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <array>
#include <vector>

namespace ns3
{

class FabricControlPlane;

/// \brief A fabric switch (T0, T1, ...) with its own forwarding.
class FabricSwitch
  : public Node
  , public FabricPacketHandler
{
public:
  static TypeId GetTypeId();
  FabricSwitch();

  /// \brief Places the switch in the fabric: its vertex, plane, and the routing it consults.
  void SetFabricPosition(mrcsim::VertexId vertex, int plane, Ptr<FabricControlPlane> controlPlane);
  /// \brief Adds the next port (port numbers follow the fabric's).
  void AddPort(Ptr<FabricPort> port);
  /// \brief Adds the next port number without a port: one left out of this process
  /// (FabricNetwork's constructor), whose frames the switch never handles here.
  void AddAbsentPort();
  /// \brief Port `i`; null when left out (AddAbsentPort).
  Ptr<FabricPort> GetPort(uint16_t i) const { return m_ports[i]; }
  uint16_t NumPorts() const { return static_cast<uint16_t>(m_ports.size()); }
  mrcsim::VertexId GetVertex() const { return m_vertex; }
  int GetPlane() const { return m_plane; }
  /// \brief The port a frame addressed to one of this switch's uSIDs leaves by (the active uSID
  /// names it), or null if the frame is not addressed so.
  FabricPort* UsidEgress(const FabricFrame& frame) const
  {
    if (!IsUsidAddress(frame.dst) || frame.Locator() != m_locator)
    {
      return nullptr;
    }
    const uint16_t usid = frame.ActiveUsid();
    return usid != 0 && usid <= m_ports.size() ? PeekPointer(m_ports[usid - 1]) : nullptr;
  }
  /// \brief Prefetch hints (PrefetchingEvent::Lines entries) for what forwarding `frame` reads:
  /// the hot lines of the port its uSID names, or, for a frame routed by ECMP (a SACK to a GPU
  /// address, say), where its egress lookup starts (its destination's attachment in the routing
  /// tables). The egress port's own next entry and frame, which a catch-up there reads, are one
  /// load too deep to list.
  std::array<uintptr_t, 2> ForwardLines(const FabricFrame& frame) const;
  Time GetForwardingLatency() const { return m_latency; }
  /// \brief ForwardingLatency as a switch made now would have it (the attribute's default,
  /// as a scenario sets it): what models that reckon path latencies without a switch at hand use.
  static Time DefaultForwardingLatency();
  /// \brief The port ECMP picks for a frame as the routing tables stand (the last
  /// reconvergence), without this switch's own detection of failed links; -1 when the frame is
  /// not routed by ECMP or has no route. What the fair-share reference walks (sim/references/fair-reference.h).
  int TableEgress(const FabricFrame& frame) const;

  /// \brief Whether ECMP may use a port (false once the failure of its link is detected).
  void SetPortRoutable(uint16_t port, bool routable) { m_routable[port] = routable; }
  bool IsPortRoutable(uint16_t port) const { return m_routable[port]; }

  void HandleFrame(FabricPort& in, FramePtr frame) override;
  void HandleLinkState(FabricPort& port, bool up) override {}
  int GetFabricPlane() const override { return m_plane; }

  uint64_t Forwarded() const { return m_forwarded; }
  uint64_t Drops(DropCause cause) const { return m_drops[static_cast<size_t>(cause)]; }

  typedef void (*DropTracedCallback)(Ptr<const Packet> packet, DropCause cause);

protected:
  void DoDispose() override;

private:
  void Drop(const FabricFrame& frame, DropCause cause);
  int EcmpEgress(const FabricFrame& frame);
  /// The flow's port among `ports` (n of them): a hash of its addresses, flow label and UDP ports.
  int PickEcmpPort(const FabricFrame& frame, const uint16_t* ports, uint32_t n) const;

  mrcsim::VertexId m_vertex = 0;
  int m_plane = 0;
  uint32_t m_locator = 0;
  uint64_t m_hashSeed = 0;
  Time m_latency;
  Ptr<FabricControlPlane> m_controlPlane;
  std::vector<Ptr<FabricPort>> m_ports;
  FabricPfcAccountant m_pfc; ///< ingress accounting of the lossless classes of every port
  std::vector<bool> m_routable;
  std::vector<uint16_t> m_scratch;
  uint64_t m_forwarded = 0;
  std::array<uint64_t, static_cast<size_t>(DropCause::Count)> m_drops{};
  TracedCallback<Ptr<const Packet>, DropCause> m_dropTrace;
};

} // namespace ns3

#endif
