#include "models/wire/mrc-nack-header.h"

#include "models/wire/psn.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcNackHeader");

NS_OBJECT_ENSURE_REGISTERED(MrcNackHeader);

MrcNackHeader::MrcNackHeader() : m_psn(0), m_reason(Trimmed), m_echoedEv(0) {}

TypeId
MrcNackHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::MrcNackHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<MrcNackHeader>();
  return tid;
}

TypeId
MrcNackHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
MrcNackHeader::GetSerializedSize() const
{
  return kSize;
}

void
MrcNackHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  i.WriteHtonU32((static_cast<uint32_t>(m_reason) << 24) | m_psn);
  i.WriteHtonU16(m_echoedEv);
  i.WriteHtonU16(0);
}

uint32_t
MrcNackHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  uint32_t w = i.ReadNtohU32();
  m_reason = static_cast<Reason>(w >> 24);
  m_psn = w & kPsnMask;
  m_echoedEv = i.ReadNtohU16();
  i.Next(2);
  return kSize;
}

void
MrcNackHeader::Print(std::ostream& os) const
{
  os << "NACK psn=" << m_psn << " reason=" << ReasonName(m_reason) << " ev=" << m_echoedEv;
}

void
MrcNackHeader::SetPsn(uint32_t psn)
{
  NS_ABORT_MSG_IF(!IsValidPsn(psn), "MrcNackHeader::SetPsn: " << psn << " does not fit in 24 bits");
  m_psn = psn;
}

uint32_t
MrcNackHeader::GetPsn() const
{
  return m_psn;
}

void
MrcNackHeader::SetReason(Reason reason)
{
  m_reason = reason;
}

MrcNackHeader::Reason
MrcNackHeader::GetReason() const
{
  return m_reason;
}

void
MrcNackHeader::SetEchoedEv(uint16_t ev)
{
  m_echoedEv = ev;
}

uint16_t
MrcNackHeader::GetEchoedEv() const
{
  return m_echoedEv;
}

const char*
MrcNackHeader::ReasonName(Reason reason)
{
  switch (reason)
  {
    case Trimmed:
      return "TRIMMED";
    case OutOfBuffer:
      return "OUT_OF_BUFFER";
    case Other:
      return "OTHER";
  }
  return "UNKNOWN";
}

} // namespace ns3
