#include "models/wire/mrc-probe-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcProbeHeader");

NS_OBJECT_ENSURE_REGISTERED(MrcProbeHeader);

MrcProbeHeader::MrcProbeHeader() : m_type(Request), m_ev(0), m_sequence(0), m_sendTimestamp(0) {}

TypeId
MrcProbeHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::MrcProbeHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<MrcProbeHeader>();
  return tid;
}

TypeId
MrcProbeHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
MrcProbeHeader::GetSerializedSize() const
{
  return kSize;
}

void
MrcProbeHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  i.WriteU8(m_type);
  i.WriteU8(0);
  i.WriteHtonU16(m_ev);
  i.WriteHtonU32(m_sequence);
  i.WriteHtonU64(m_sendTimestamp);
}

uint32_t
MrcProbeHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  uint8_t type = i.ReadU8();
  NS_ABORT_MSG_IF(type > Response,
                  "MrcProbeHeader::Deserialize: unknown probe type " << static_cast<uint32_t>(type)
                                                                     << " (0 or 1 allowed)");
  m_type = static_cast<Type>(type);
  i.Next(1);
  m_ev = i.ReadNtohU16();
  m_sequence = i.ReadNtohU32();
  m_sendTimestamp = i.ReadNtohU64();
  return kSize;
}

void
MrcProbeHeader::Print(std::ostream& os) const
{
  os << "PROBE " << (m_type == Request ? "request" : "response") << " ev=" << m_ev << " seq=" << m_sequence
     << " ts=" << m_sendTimestamp;
}

void
MrcProbeHeader::SetType(Type type)
{
  NS_ABORT_MSG_IF(type != Request && type != Response,
                  "MrcProbeHeader::SetType: unknown type " << static_cast<uint32_t>(type));
  m_type = type;
}

MrcProbeHeader::Type
MrcProbeHeader::GetType() const
{
  return m_type;
}

bool
MrcProbeHeader::IsRequest() const
{
  return m_type == Request;
}

void
MrcProbeHeader::SetEv(uint16_t ev)
{
  m_ev = ev;
}

uint16_t
MrcProbeHeader::GetEv() const
{
  return m_ev;
}

void
MrcProbeHeader::SetSequence(uint32_t seq)
{
  m_sequence = seq;
}

uint32_t
MrcProbeHeader::GetSequence() const
{
  return m_sequence;
}

void
MrcProbeHeader::SetSendTimestamp(uint64_t ns)
{
  m_sendTimestamp = ns;
}

uint64_t
MrcProbeHeader::GetSendTimestamp() const
{
  return m_sendTimestamp;
}

void
MrcProbeHeader::SetSendTime(Time t)
{
  NS_ABORT_MSG_IF(t.IsStrictlyNegative(), "MrcProbeHeader::SetSendTime: negative time " << t);
  m_sendTimestamp = static_cast<uint64_t>(t.GetNanoSeconds());
}

Time
MrcProbeHeader::GetSendTime() const
{
  return NanoSeconds(static_cast<int64_t>(m_sendTimestamp));
}

} // namespace ns3
