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
  m_ackTimer.Cancel();
}

void
RoceResponder::HandleData(const RdmaRxInfo& info)
{
  const Time now = Simulator::Now();
  if (info.frame.Ecn() == Ipv6UsidHeader::Ce && (!m_cnpSentOnce || now - m_lastCnp >= Qp().CnpInterval()))
  {
    SendCnp();
  }
  const uint64_t seq = m_expected + PsnDiff(info.frame.psn, static_cast<uint32_t>(m_expected & kPsnMask));
  if (seq > m_expected)
  {
    // Go-back-N: out-of-order data is dropped; one NAK per gap names the PSN expected.
    ++Qp().Rare().outOfOrder;
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
    Qp().RecvComplete(m_rxMessageId++, m_rxMessageBytes, m_rxMessageStart);
    m_rxMessageBytes = 0;
  }
  if (info.frame.ackRequest || ++m_unacked >= Qp().AckInterval())
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
    m_ackDeadline = now + Qp().AckDelay();
    // An earlier pending event fires before the deadline and waits on (OnAckTimer).
    if (!m_ackTimer.IsPending())
    {
      m_ackTimer = Qp().ScheduleTimer(Qp().AckDelay(), &RoceResponder::OnAckTimer, this);
    }
  }
}

void
RoceResponder::OnAckTimer()
{
  m_ackTimer.Clear();
  if (m_unacked == 0)
  {
    return; // acknowledged meanwhile
  }
  const Time now = Simulator::Now();
  if (now < m_ackDeadline)
  {
    m_ackTimer = Qp().ScheduleTimer(m_ackDeadline - now, &RoceResponder::OnAckTimer, this);
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
    ++Qp().Rare().naksSent;
    NS_LOG_LOGIC("QP " << Qp().GetQpn() << ": NAK, expecting PSN " << (seq & kPsnMask));
  }
  RoceAethHeader aeth;
  if (nak)
    aeth.SetNak(RoceAethHeader::kNakPsnSequenceError);
  else
    aeth.SetAck();
  aeth.SetMsn(static_cast<uint32_t>(m_rxMessageId & 0xFFFFFF));
  FabricPacketSpec spec = Qp().ControlSpec(RoceBthHeader::kRcAck, Qp().Plane(), entropy);
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  Qp().Nic().SendControl(MakeControlFrame(spec, aeth), Qp().GetPort());
}

void
RoceResponder::SendCnp()
{
  m_lastCnp = Simulator::Now();
  m_cnpSentOnce = true;
  const uint64_t cnps = ++Qp().Rare().cnpsSent;
  NS_LOG_LOGIC("QP " << Qp().GetQpn() << ": CNP " << cnps);
  FabricPacketSpec spec = Qp().ControlSpec(RoceBthHeader::kCnp, Qp().Plane(), Qp().Entropy());
  Qp().Nic().SendControl(MakeControlFrame(spec, RoceCnpHeader()), Qp().GetPort());
}

} // namespace ns3
