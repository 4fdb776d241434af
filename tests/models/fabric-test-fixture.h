// Shared set-up of the fabric model tests: a small fabric instantiated as ns-3 objects, data
// packets with real headers, header peeks for traces, and first-principles timing helpers.
// Every fixture resets the simulator, the seed and the attribute defaults it touched when it ends.
#ifndef MRCSIM_TESTS_MODELS_FABRIC_TEST_FIXTURE_H
#define MRCSIM_TESTS_MODELS_FABRIC_TEST_FIXTURE_H

#include "models/wire/fabric-address.h"
#include "models/fabric/fabric-network.h"
#include "models/fabric/fabric-packet.h"
#include "models/rdma/rdma-frame.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-udp-header.h"

#include "tests/topology/fabric-fixtures.h"
#include "topologies/fabric-spec.h"

#include "ns3/config.h"
#include "ns3/nstime.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mrcsim::test
{

/// Wire bytes a frame carries beyond the packet (PortQueueConfig FramingBytes default).
constexpr uint32_t kFraming = 18;
/// FabricSwitch ForwardingLatency default.
inline ns3::Time
DefaultForwardingLatency()
{
  return ns3::NanoSeconds(300);
}

/// Time to serialise `packetBytes` (plus framing) at `rateBps`, in integer picoseconds.
inline int64_t
WirePicoseconds(uint32_t packetBytes, uint64_t rateBps)
{
  return int64_t((uint64_t(packetBytes) + kFraming) * 8 * 1000000000000ull / rateBps);
}

/// One plane, 8 GPUs, 2 T0 (4 down / 2 up) and 2 T1: exactly one link per T0-T1 pair, so a
/// failed up-link changes which T1s other switches may use.
inline FabricSpec
OneLinkPerPair()
{
  FabricSpec s = TinyMultiplane();
  s.name = "one-link-per-pair";
  s.multiplane.planes = 1;
  s.multiplane.t0UpPorts = 2;
  s.multiplane.t1PerPlane = 2;
  return s;
}

/// A fabric instantiated as ns-3 objects for one test. Seeds and defaults are set before the
/// network is built (switch ECMP hashes and marking streams are drawn then).
class FabricFixture
{
public:
  explicit FabricFixture(const FabricSpec& spec, uint32_t seed = 1, uint64_t run = 1)
  {
    ns3::Simulator::Destroy();
    ns3::RngSeedManager::SetSeed(seed);
    ns3::RngSeedManager::SetRun(run);
    fabric = std::make_shared<const Fabric>(BuildFabric(spec));
    net = std::make_unique<ns3::FabricNetwork>(fabric);
  }
  ~FabricFixture()
  {
    ns3::Simulator::Destroy();
    net.reset();
    ns3::RngSeedManager::SetSeed(1);
    ns3::RngSeedManager::SetRun(1);
  }
  FabricFixture(const FabricFixture&) = delete;
  FabricFixture& operator=(const FabricFixture&) = delete;

  const FabricRouting& Routing() const { return net->Routing(); }

  /// The switch port (or NIC port) a GPU's NIC port `plane` attaches to.
  ns3::Ptr<ns3::FabricPort> LeafPortFacing(uint32_t gpu, int plane) const
  {
    const Attachment& a = Routing().Attach(gpu, plane);
    return net->GetPort(a.leaf, a.leafPort);
  }
  ns3::Ptr<ns3::FabricPort> NicPort(uint32_t gpu, int plane) const
  {
    return net->GetHost(gpu)->GetPort(Routing().Attach(gpu, plane).gpuPort);
  }

  std::shared_ptr<const Fabric> fabric;
  std::unique_ptr<ns3::FabricNetwork> net;
};

/// Sets an attribute default for the lifetime of the object, then restores the given value.
class ScopedDefault
{
public:
  ScopedDefault(std::string name, const ns3::AttributeValue& value, const ns3::AttributeValue& restore)
    : m_name(std::move(name)),
      m_restore(restore.Copy())
  {
    ns3::Config::SetDefault(m_name, value);
  }
  ~ScopedDefault() { ns3::Config::SetDefault(m_name, *m_restore); }
  ScopedDefault(const ScopedDefault&) = delete;
  ScopedDefault& operator=(const ScopedDefault&) = delete;

private:
  std::string m_name;
  ns3::Ptr<ns3::AttributeValue> m_restore;
};

/// A data packet src -> dst in `plane`: ECMP on the destination GPU when `usids` is empty.
inline ns3::Ptr<ns3::Packet>
DataPacket(uint32_t src, uint32_t dst, int plane, uint32_t payload, uint16_t entropy = 0xC000, uint32_t psn = 0,
           std::vector<uint16_t> usids = {})
{
  ns3::FabricPacketSpec s;
  s.srcGpu = src;
  s.dstGpu = dst;
  s.plane = plane;
  s.payloadBytes = payload;
  s.entropy = entropy;
  s.psn = psn;
  s.usids = std::move(usids);
  return ns3::MakeWritePacket(s);
}

/// Bytes of a data packet with RETH and `payload` bytes.
inline uint32_t
DataPacketBytes(uint32_t payload)
{
  return ns3::WriteHeaderBytes(true) + payload;
}

inline ns3::Ipv6UsidHeader
PeekIp(ns3::Ptr<const ns3::Packet> p)
{
  ns3::Ipv6UsidHeader ip;
  p->PeekHeader(ip);
  return ip;
}

inline ns3::RoceUdpHeader
PeekUdp(ns3::Ptr<const ns3::Packet> p)
{
  ns3::Ptr<ns3::Packet> c = p->Copy();
  ns3::Ipv6UsidHeader ip;
  c->RemoveHeader(ip);
  ns3::RoceUdpHeader udp;
  c->PeekHeader(udp);
  return udp;
}

/// The BTH of a packet (IPv6 and UDP stripped).
inline ns3::RoceBthHeader
PeekBth(ns3::Ptr<const ns3::Packet> p)
{
  ns3::Ptr<ns3::Packet> c = p->Copy();
  ns3::Ipv6UsidHeader ip;
  c->RemoveHeader(ip);
  ns3::RoceUdpHeader udp;
  c->RemoveHeader(udp);
  ns3::RoceBthHeader bth;
  c->PeekHeader(bth);
  return bth;
}

inline uint32_t
PeekPsn(ns3::Ptr<const ns3::Packet> p)
{
  return PeekBth(p).GetPsn();
}

inline uint8_t
PeekOpcode(ns3::Ptr<const ns3::Packet> p)
{
  return PeekBth(p).GetOpcode();
}

/// GPU index of a packet's source address.
inline uint32_t
SourceGpu(ns3::Ptr<const ns3::Packet> p)
{
  return ns3::GpuOfAddress(PeekIp(p).GetSourceBytes());
}

} // namespace mrcsim::test

#endif
