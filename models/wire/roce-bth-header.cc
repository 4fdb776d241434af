#include "models/wire/roce-bth-header.h"

#include "models/wire/psn.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceBthHeader");

NS_OBJECT_ENSURE_REGISTERED(RoceBthHeader);

bool
RoceBthHeader::IsRdmaWrite(uint8_t opcode)
{
  return opcode >= kRcWriteFirst && opcode <= kRcWriteOnlyImm;
}

bool
RoceBthHeader::HasStandardReth(uint8_t opcode)
{
  return opcode == kRcWriteFirst || opcode == kRcWriteOnly || opcode == kRcWriteOnlyImm;
}

bool
RoceBthHeader::HasImmediate(uint8_t opcode)
{
  return opcode == kRcWriteLastImm || opcode == kRcWriteOnlyImm || opcode == kRcSendLastImm || opcode == kRcSendOnlyImm;
}

bool
RoceBthHeader::IsLastOfMessage(uint8_t opcode)
{
  return opcode == kRcWriteLast || opcode == kRcWriteLastImm || opcode == kRcWriteOnly || opcode == kRcWriteOnlyImm ||
         opcode == kRcSendLast || opcode == kRcSendLastImm || opcode == kRcSendOnly || opcode == kRcSendOnlyImm;
}

RoceBthHeader::RoceBthHeader()
  : m_opcode(kRcWriteOnly)
  , m_se(false)
  , m_migReq(false)
  , m_padCount(0)
  , m_tver(0)
  , m_pkey(kDefaultPkey)
  , m_fecn(false)
  , m_becn(false)
  , m_destQp(0)
  , m_ackReq(false)
  , m_psn(0)
{
}

TypeId
RoceBthHeader::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoceBthHeader").SetParent<Header>().SetGroupName("Mrcsim").AddConstructor<RoceBthHeader>();
  return tid;
}

TypeId
RoceBthHeader::GetInstanceTypeId() const
{
  return GetTypeId();
}

uint32_t
RoceBthHeader::GetSerializedSize() const
{
  return kSize;
}

void
RoceBthHeader::Serialize(Buffer::Iterator start) const
{
  Buffer::Iterator i = start;
  i.WriteU8(m_opcode);
  i.WriteU8(static_cast<uint8_t>((m_se ? 0x80 : 0) | (m_migReq ? 0x40 : 0) | (m_padCount << 4) | m_tver));
  i.WriteHtonU16(m_pkey);
  i.WriteHtonU32((m_fecn ? 0x80000000u : 0) | (m_becn ? 0x40000000u : 0) | m_destQp);
  i.WriteHtonU32((m_ackReq ? 0x80000000u : 0) | m_psn);
}

uint32_t
RoceBthHeader::Deserialize(Buffer::Iterator start)
{
  Buffer::Iterator i = start;
  m_opcode = i.ReadU8();
  uint8_t flags = i.ReadU8();
  m_se = (flags & 0x80) != 0;
  m_migReq = (flags & 0x40) != 0;
  m_padCount = (flags >> 4) & 0x3;
  m_tver = flags & 0xF;
  m_pkey = i.ReadNtohU16();
  uint32_t w1 = i.ReadNtohU32();
  m_fecn = (w1 & 0x80000000u) != 0;
  m_becn = (w1 & 0x40000000u) != 0;
  m_destQp = w1 & 0xFFFFFF;
  uint32_t w2 = i.ReadNtohU32();
  m_ackReq = (w2 & 0x80000000u) != 0;
  m_psn = w2 & kPsnMask;
  return kSize;
}

void
RoceBthHeader::Print(std::ostream& os) const
{
  os << "BTH op=0x" << std::hex << static_cast<uint32_t>(m_opcode) << " pkey=0x" << m_pkey << std::dec
     << " qp=" << m_destQp << " psn=" << m_psn << " se=" << m_se << " a=" << m_ackReq << " fecn=" << m_fecn
     << " becn=" << m_becn << " pad=" << static_cast<uint32_t>(m_padCount);
}

void
RoceBthHeader::SetOpcode(uint8_t opcode)
{
  m_opcode = opcode;
}

uint8_t
RoceBthHeader::GetOpcode() const
{
  return m_opcode;
}

void
RoceBthHeader::SetSolicitedEvent(bool se)
{
  m_se = se;
}

bool
RoceBthHeader::GetSolicitedEvent() const
{
  return m_se;
}

void
RoceBthHeader::SetMigReq(bool m)
{
  m_migReq = m;
}

bool
RoceBthHeader::GetMigReq() const
{
  return m_migReq;
}

void
RoceBthHeader::SetPadCount(uint8_t pad)
{
  NS_ABORT_MSG_IF(pad > 3, "RoceBthHeader::SetPadCount: " << static_cast<uint32_t>(pad) << " does not fit in 2 bits");
  m_padCount = pad;
}

uint8_t
RoceBthHeader::GetPadCount() const
{
  return m_padCount;
}

void
RoceBthHeader::SetTver(uint8_t tver)
{
  NS_ABORT_MSG_IF(tver > 15, "RoceBthHeader::SetTver: " << static_cast<uint32_t>(tver) << " does not fit in 4 bits");
  m_tver = tver;
}

uint8_t
RoceBthHeader::GetTver() const
{
  return m_tver;
}

void
RoceBthHeader::SetPkey(uint16_t pkey)
{
  m_pkey = pkey;
}

uint16_t
RoceBthHeader::GetPkey() const
{
  return m_pkey;
}

void
RoceBthHeader::SetFecn(bool fecn)
{
  m_fecn = fecn;
}

bool
RoceBthHeader::GetFecn() const
{
  return m_fecn;
}

void
RoceBthHeader::SetBecn(bool becn)
{
  m_becn = becn;
}

bool
RoceBthHeader::GetBecn() const
{
  return m_becn;
}

void
RoceBthHeader::SetDestQp(uint32_t qp)
{
  NS_ABORT_MSG_IF(qp > 0xFFFFFF, "RoceBthHeader::SetDestQp: " << qp << " does not fit in 24 bits");
  m_destQp = qp;
}

uint32_t
RoceBthHeader::GetDestQp() const
{
  return m_destQp;
}

void
RoceBthHeader::SetAckReq(bool a)
{
  m_ackReq = a;
}

bool
RoceBthHeader::GetAckReq() const
{
  return m_ackReq;
}

void
RoceBthHeader::SetPsn(uint32_t psn)
{
  NS_ABORT_MSG_IF(!IsValidPsn(psn), "RoceBthHeader::SetPsn: " << psn << " does not fit in 24 bits");
  m_psn = psn;
}

uint32_t
RoceBthHeader::GetPsn() const
{
  return m_psn;
}

} // namespace ns3
