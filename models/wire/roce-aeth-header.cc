#include "models/wire/roce-aeth-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceAethHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceAethHeader);

namespace
{
constexpr uint8_t kKindMask = 0x60;
constexpr uint8_t kKindAck = 0x00;
constexpr uint8_t kKindRnrNak = 0x20;
constexpr uint8_t kKindNak = 0x60;
constexpr uint8_t kValueMask = 0x1F;
} // namespace

RoceAethHeader::RoceAethHeader() : m_syndrome(kKindAck | kNoCredits), m_msn(0) {}

TypeId
RoceAethHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoceAethHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<RoceAethHeader>();
  return tid;
}

TypeId
RoceAethHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
RoceAethHeader::GetSerializedSize() const
{
  return kSize;
}

void
RoceAethHeader::Serialize(Buffer::Iterator start) const
{
  start.WriteHtonU32((static_cast<uint32_t>(m_syndrome) << 24) | m_msn);
}

uint32_t
RoceAethHeader::Deserialize(Buffer::Iterator start)
{
  uint32_t w = start.ReadNtohU32();
  m_syndrome = static_cast<uint8_t>(w >> 24);
  m_msn = w & 0xFFFFFF;
  return kSize;
}

void
RoceAethHeader::Print(std::ostream& os) const
{
  os << "AETH "
     << (IsAck()      ? "ACK"
         : IsRnrNak() ? "RNR-NAK"
         : IsNak()    ? "NAK"
                      : "RESERVED")
     << " value=" << static_cast<uint32_t>(GetSyndromeValue()) << " msn=" << m_msn;
}

void
RoceAethHeader::SetSyndrome(uint8_t syndrome)
{
  NS_ABORT_MSG_IF(syndrome & 0x80,
                  "RoceAethHeader::SetSyndrome: reserved bit 7 set in 0x" << std::hex
                                                                          << static_cast<uint32_t>(syndrome));
  m_syndrome = syndrome;
}

uint8_t
RoceAethHeader::GetSyndrome() const
{
  return m_syndrome;
}

void
RoceAethHeader::SetAck(uint8_t creditCount)
{
  NS_ABORT_MSG_IF(creditCount > kValueMask,
                  "RoceAethHeader::SetAck: credit count " << static_cast<uint32_t>(creditCount)
                                                          << " does not fit in 5 bits");
  m_syndrome = kKindAck | creditCount;
}

void
RoceAethHeader::SetRnrNak(uint8_t timer)
{
  NS_ABORT_MSG_IF(timer > kValueMask,
                  "RoceAethHeader::SetRnrNak: timer " << static_cast<uint32_t>(timer) << " does not fit in 5 bits");
  m_syndrome = kKindRnrNak | timer;
}

void
RoceAethHeader::SetNak(uint8_t nakCode)
{
  NS_ABORT_MSG_IF(nakCode > kValueMask,
                  "RoceAethHeader::SetNak: code " << static_cast<uint32_t>(nakCode) << " does not fit in 5 bits");
  m_syndrome = kKindNak | nakCode;
}

bool
RoceAethHeader::IsAck() const
{
  return (m_syndrome & kKindMask) == kKindAck;
}

bool
RoceAethHeader::IsRnrNak() const
{
  return (m_syndrome & kKindMask) == kKindRnrNak;
}

bool
RoceAethHeader::IsNak() const
{
  return (m_syndrome & kKindMask) == kKindNak;
}

uint8_t
RoceAethHeader::GetSyndromeValue() const
{
  return m_syndrome & kValueMask;
}

void
RoceAethHeader::SetMsn(uint32_t msn)
{
  NS_ABORT_MSG_IF(msn > 0xFFFFFF, "RoceAethHeader::SetMsn: " << msn << " does not fit in 24 bits");
  m_msn = msn;
}

uint32_t
RoceAethHeader::GetMsn() const
{
  return m_msn;
}

} // namespace ns3
