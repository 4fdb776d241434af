#include "models/wire/pfc-pause-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("PfcPauseHeader");

NS_OBJECT_ENSURE_REGISTERED(PfcPauseHeader);

PfcPauseHeader::PfcPauseHeader() : m_classEnableVector(0), m_quanta{} {}

TypeId
PfcPauseHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::PfcPauseHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<PfcPauseHeader>();
  return tid;
}

TypeId
PfcPauseHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
PfcPauseHeader::GetSerializedSize() const
{
  return kSize;
}

void
PfcPauseHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  i.WriteHtonU16(kOpcode);
  i.WriteHtonU16(m_classEnableVector);
  for (uint16_t q : m_quanta)
  {
    i.WriteHtonU16(q);
  }
  i.WriteU8(0, kSize - kBodySize);
}

uint32_t
PfcPauseHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  uint16_t opcode = i.ReadNtohU16();
  NS_ABORT_MSG_IF(opcode != kOpcode,
                  "PfcPauseHeader::Deserialize: MAC control opcode 0x" << std::hex << opcode << ", expected 0x0101");
  m_classEnableVector = i.ReadNtohU16();
  for (uint16_t& q : m_quanta)
  {
    q = i.ReadNtohU16();
  }
  i.Next(kSize - kBodySize);
  return kSize;
}

void
PfcPauseHeader::Print(std::ostream& os) const
{
  os << "PFC cev=0x" << std::hex << m_classEnableVector << std::dec << " quanta=";
  for (uint32_t p = 0; p < kPriorities; ++p)
  {
    os << (p ? "," : "") << m_quanta[p];
  }
}

void
PfcPauseHeader::SetClassEnableVector(uint16_t vector)
{
  NS_ABORT_MSG_IF(vector & 0xFF00,
                  "PfcPauseHeader::SetClassEnableVector: reserved bits set in 0x" << std::hex << vector);
  m_classEnableVector = vector;
}

uint16_t
PfcPauseHeader::GetClassEnableVector() const
{
  return m_classEnableVector;
}

bool
PfcPauseHeader::IsClassEnabled(uint8_t priority) const
{
  NS_ABORT_MSG_IF(priority >= kPriorities,
                  "PfcPauseHeader::IsClassEnabled: priority " << static_cast<uint32_t>(priority) << ", allowed 0-7");
  return (m_classEnableVector >> priority) & 1u;
}

void
PfcPauseHeader::SetQuanta(uint8_t priority, uint16_t quanta)
{
  NS_ABORT_MSG_IF(priority >= kPriorities,
                  "PfcPauseHeader::SetQuanta: priority " << static_cast<uint32_t>(priority) << ", allowed 0-7");
  m_quanta[priority] = quanta;
}

uint16_t
PfcPauseHeader::GetQuanta(uint8_t priority) const
{
  NS_ABORT_MSG_IF(priority >= kPriorities,
                  "PfcPauseHeader::GetQuanta: priority " << static_cast<uint32_t>(priority) << ", allowed 0-7");
  return m_quanta[priority];
}

void
PfcPauseHeader::SetPause(uint8_t priority, uint16_t quanta)
{
  SetQuanta(priority, quanta);
  m_classEnableVector |= static_cast<uint16_t>(1u << priority);
}

Time
PfcPauseHeader::QuantaToTime(uint16_t quanta, DataRate rate)
{
  // One quantum is 512 bit times, i.e. 64 bytes at the link rate.
  return rate.CalculateBytesTxTime(64u * quanta);
}

Mac48Address
PfcPauseHeader::GetDestinationMac()
{
  return Mac48Address("01:80:C2:00:00:01");
}

} // namespace ns3
