#include "models/roce/roce-responder.h"

#include "models/fabric/fabric-packet.h"
#include "models/rdma/rdma-nic.h"
#include "models/roce/roce-queue-pair.h"
#include "models/roce/roce-frame.h"
#include "models/wire/psn.h"
#include "models/wire/roce-aeth-header.h"
#include "models/wire/roce-cnp-header.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceResponder");

void
RoceResponder::HandleData(const RdmaRxInfo& info)
{
  const Time now = Simulator::Now();
  if (info.frame.Ecn() == Ipv6UsidHeader::Ce && (!m_cnpSentOnce || now - m_lastCnp >= m_qp.CnpInterval()))
  {
    SendCnp();
  }
  const uint64_t seq = m_expected + PsnDiff(info.frame.psn, static_cast<uint32_t>(m_expected & kPsnMask));
  if (seq > m_expected)
  {
    // Go-back-N: out-of-order data is dropped; one NAK per gap names the PSN expected.
    ++m_outOfOrder;
    if (!m_nakPending)
    {
      m_nakPending = true;
      SendAck(m_expected, true, info.frame.srcPort);
    }
    return;
  }
  if (seq < m_expected)
  {
    SendAck(m_expected - 1, false, info.frame.srcPort); // duplicate: the ACK may have been lost
    return;
  }
  const uint8_t op = info.frame.opcode;
  const uint32_t payload = info.frame.PayloadReceived();
  if (RoceBthHeader::HasStandardReth(op))
  {
    m_rxMessageStart = now;
  }
  ++m_expected;
  m_nakPending = false;
  m_rxMessageBytes += payload;
  if (RoceBthHeader::IsLastOfMessage(op))
  {
    m_qp.RecvComplete(m_rxMessageId++, m_rxMessageBytes, m_rxMessageStart);
    m_rxMessageBytes = 0;
  }
  if (info.frame.ackRequest || ++m_unacked >= m_qp.AckInterval())
  {
    SendAck(m_expected - 1, false, info.frame.srcPort);
  }
}

void
RoceResponder::SendAck(uint64_t seq, bool nak, uint16_t entropy)
{
  m_unacked = 0;
  if (nak)
  {
    ++m_naksSent;
    NS_LOG_LOGIC("QP " << m_qp.GetQpn() << ": NAK, expecting PSN " << (seq & kPsnMask));
  }
  RoceAethHeader aeth;
  if (nak)
    aeth.SetNak(RoceAethHeader::kNakPsnSequenceError);
  else
    aeth.SetAck();
  aeth.SetMsn(static_cast<uint32_t>(m_rxMessageId & 0xFFFFFF));
  FabricPacketSpec spec = m_qp.ControlSpec(RoceBthHeader::kRcAck, m_qp.Plane(), entropy);
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  m_qp.Nic().SendControl(MakeControlFrame(spec, aeth), m_qp.GetPort());
}

void
RoceResponder::SendCnp()
{
  m_lastCnp = Simulator::Now();
  m_cnpSentOnce = true;
  ++m_cnpsSent;
  NS_LOG_LOGIC("QP " << m_qp.GetQpn() << ": CNP " << m_cnpsSent);
  FabricPacketSpec spec = m_qp.ControlSpec(RoceBthHeader::kCnp, m_qp.Plane(), m_qp.Entropy());
  m_qp.Nic().SendControl(MakeControlFrame(spec, RoceCnpHeader()), m_qp.GetPort());
}

} // namespace ns3
