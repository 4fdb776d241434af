#include "models/wire/mrc-sack-header.h"

#include "models/wire/psn.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcSackHeader");

NS_OBJECT_ENSURE_REGISTERED(MrcSackHeader);

namespace
{
constexpr uint8_t kFlagEcnEcho = 0x80;
} // namespace

MrcSackHeader::MrcSackHeader()
  : m_cumulativeAckPsn(0)
  , m_ackedPsn(0)
  , m_ecnEcho(false)
  , m_sackBaseOffset(1)
  , m_echoedEv(0)
  , m_bitmap(0)
  , m_timestampEcho(0)
{
}

TypeId
MrcSackHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::MrcSackHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<MrcSackHeader>();
  return tid;
}

TypeId
MrcSackHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
MrcSackHeader::GetSerializedSize() const
{
  return kSize;
}

void
MrcSackHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  i.WriteHtonU32(m_cumulativeAckPsn);
  i.WriteHtonU32((static_cast<uint32_t>(m_ecnEcho ? kFlagEcnEcho : 0) << 24) | m_ackedPsn);
  i.WriteHtonU16(m_sackBaseOffset);
  i.WriteHtonU16(m_echoedEv);
  i.WriteHtonU64(m_bitmap);
  i.WriteHtonU32(m_timestampEcho);
}

uint32_t
MrcSackHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  m_cumulativeAckPsn = i.ReadNtohU32() & kPsnMask;
  uint32_t w = i.ReadNtohU32();
  m_ecnEcho = ((w >> 24) & kFlagEcnEcho) != 0;
  m_ackedPsn = w & kPsnMask;
  m_sackBaseOffset = i.ReadNtohU16();
  m_echoedEv = i.ReadNtohU16();
  m_bitmap = i.ReadNtohU64();
  m_timestampEcho = i.ReadNtohU32();
  return kSize;
}

void
MrcSackHeader::Print(std::ostream& os) const
{
  os << "SACK cack=" << m_cumulativeAckPsn << " acked=" << m_ackedPsn << " base=" << GetSackBasePsn() << " bitmap=0x"
     << std::hex << m_bitmap << std::dec << " ev=" << m_echoedEv << " ecn=" << m_ecnEcho << " ts=" << m_timestampEcho;
}

void
MrcSackHeader::SetCumulativeAckPsn(uint32_t psn)
{
  NS_ABORT_MSG_IF(!IsValidPsn(psn), "MrcSackHeader::SetCumulativeAckPsn: " << psn << " does not fit in 24 bits");
  m_cumulativeAckPsn = psn;
}

uint32_t
MrcSackHeader::GetCumulativeAckPsn() const
{
  return m_cumulativeAckPsn;
}

void
MrcSackHeader::SetAckedPsn(uint32_t psn)
{
  NS_ABORT_MSG_IF(!IsValidPsn(psn), "MrcSackHeader::SetAckedPsn: " << psn << " does not fit in 24 bits");
  m_ackedPsn = psn;
}

uint32_t
MrcSackHeader::GetAckedPsn() const
{
  return m_ackedPsn;
}

void
MrcSackHeader::SetSackBaseOffset(uint16_t offset)
{
  m_sackBaseOffset = offset;
}

uint16_t
MrcSackHeader::GetSackBaseOffset() const
{
  return m_sackBaseOffset;
}

uint32_t
MrcSackHeader::GetSackBasePsn() const
{
  return PsnAdd(m_cumulativeAckPsn, m_sackBaseOffset);
}

void
MrcSackHeader::SetBitmap(uint64_t bitmap)
{
  m_bitmap = bitmap;
}

uint64_t
MrcSackHeader::GetBitmap() const
{
  return m_bitmap;
}

void
MrcSackHeader::SetEchoedEv(uint16_t ev)
{
  m_echoedEv = ev;
}

uint16_t
MrcSackHeader::GetEchoedEv() const
{
  return m_echoedEv;
}

void
MrcSackHeader::SetEcnEcho(bool ecnEcho)
{
  m_ecnEcho = ecnEcho;
}

bool
MrcSackHeader::GetEcnEcho() const
{
  return m_ecnEcho;
}

void
MrcSackHeader::SetTimestampEcho(uint32_t ns)
{
  m_timestampEcho = ns;
}

uint32_t
MrcSackHeader::GetTimestampEcho() const
{
  return m_timestampEcho;
}

bool
MrcSackHeader::IsSacked(uint32_t psn) const
{
  NS_ABORT_MSG_IF(!IsValidPsn(psn), "MrcSackHeader::IsSacked: " << psn << " does not fit in 24 bits");
  if (PsnLessOrEqual(psn, m_cumulativeAckPsn))
  {
    return true;
  }
  int32_t bit = PsnDiff(psn, GetSackBasePsn());
  if (bit < 0 || bit >= static_cast<int32_t>(kBitmapBits))
  {
    return false;
  }
  return (m_bitmap >> bit) & 1u;
}

void
MrcSackHeader::SetSacked(uint32_t psn)
{
  NS_ABORT_MSG_IF(!IsValidPsn(psn), "MrcSackHeader::SetSacked: " << psn << " does not fit in 24 bits");
  if (PsnLessOrEqual(psn, m_cumulativeAckPsn))
  {
    return;
  }
  int32_t bit = PsnDiff(psn, GetSackBasePsn());
  NS_ABORT_MSG_IF(bit < 0 || bit >= static_cast<int32_t>(kBitmapBits),
                  "MrcSackHeader::SetSacked: PSN " << psn << " outside the bitmap window [" << GetSackBasePsn()
                                                   << ", base + 64)");
  m_bitmap |= uint64_t{ 1 } << bit;
}

uint32_t
MrcSackHeader::TimestampDelta(uint32_t later, uint32_t earlier)
{
  // Unsigned subtraction wraps modulo 2^32, which is what a 32-bit ns clock does.
  return later - earlier;
}

} // namespace ns3
