// The time a NIC put a data packet on the wire, carried as an ns-3 packet tag so that the
// receiving NIC can report the packet's one-way latency. Added only when latency tracing is on
// (a tag costs an allocation per packet).
#ifndef MRCSIM_MODELS_SEND_TIME_TAG_H
#define MRCSIM_MODELS_SEND_TIME_TAG_H

#include "ns3/nstime.h"
#include "ns3/tag.h"

namespace ns3
{

/// \brief Send time of a packet (picoseconds since the start).
class SendTimeTag : public Tag
{
public:
  static TypeId GetTypeId();
  TypeId GetInstanceTypeId() const override { return GetTypeId(); }
  uint32_t GetSerializedSize() const override { return 8; }
  void Serialize(TagBuffer buffer) const override { buffer.WriteU64(static_cast<uint64_t>(m_time.GetTimeStep())); }
  void Deserialize(TagBuffer buffer) override { m_time = TimeStep(buffer.ReadU64()); }
  void Print(std::ostream& os) const override { os << "sent=" << m_time; }

  void SetTime(Time t) { m_time = t; }
  Time GetTime() const { return m_time; }

private:
  Time m_time;
};

} // namespace ns3

#endif
