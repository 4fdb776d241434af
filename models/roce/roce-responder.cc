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
RoceResponder::Dispose()
{
  Simulator::Cancel(m_ackTimer);
}

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
    return;
  }
  // Coalescing holds the ACK, but not for long: an IB channel adapter acknowledges a request
  // within its Local CA ACK Delay, and the requester's local ACK timeout is chosen above it (IBA
  // Vol. 1: 4.096 us x 2^ack_timeout = 4.096 us x 2^ack_delay + 2 x packet life time, as Linux's
  // cm_ack_timeout, drivers/infiniband/core/cm.c, computes it); a software responder flushes its
  // deferred ACKs at the end of each receive batch (Linux hfi1, rc.c). Held until the next
  // AckInterval-th packet instead, an ACK waits as long as the sender takes to send that packet,
  // and a sender that DCQCN paces slowly times out with nothing lost.
  m_ackEntropy = info.frame.srcPort;
  if (m_unacked == 1)
  {
    m_ackDeadline = now + m_qp.AckDelay();
    // An earlier pending event fires before the deadline and waits on (OnAckTimer).
    if (!m_ackTimer.IsRunning())
    {
      m_ackTimer = m_qp.ScheduleTimer(m_qp.AckDelay(), &RoceResponder::OnAckTimer, this);
    }
  }
}

void
RoceResponder::OnAckTimer()
{
  if (m_unacked == 0)
  {
    return; // acknowledged meanwhile
  }
  const Time now = Simulator::Now();
  if (now < m_ackDeadline)
  {
    m_ackTimer = m_qp.ScheduleTimer(m_ackDeadline - now, &RoceResponder::OnAckTimer, this);
    return;
  }
  SendAck(m_expected - 1, false, m_ackEntropy);
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
