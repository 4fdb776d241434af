#include "models/mrc/mrc-sender.h"

#include "models/fabric/fabric-packet.h"
#include "models/mrc/mrc-frame.h"
#include "models/mrc/mrc-psn.h"
#include "models/mrc/mrc-queue-pair.h"
#include "models/rdma/rdma-frame.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/ipv6-usid-header.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-sack-header.h"
#include "models/wire/roce-bth-header.h"
#include "models/wire/roce-reth-header.h"
#include "models/wire/roce-udp-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcSender");

uint32_t
MrcSender::PacketBytes(const Message& m, uint64_t seq) const
{
  return kDataHeaderBytes + PayloadOf(m, seq);
}

uint32_t
MrcSender::PayloadOf(const Message& m, uint64_t seq) const
{
  const uint64_t mtu = Qp().Nic().Mtu();
  return static_cast<uint32_t>(std::min<uint64_t>(mtu, m.bytes - (seq - m.firstSeq) * mtu));
}

void
MrcSender::AddInflight(uint16_t nicPort, uint32_t bytes, bool add)
{
  uint32_t& port = m_portInflight[nicPort];
  if (add)
  {
    NS_ABORT_MSG_IF(port > UINT32_MAX - bytes, "MrcSender: 4 GiB in flight on one NIC port");
    m_inflight += bytes;
    port += bytes;
  }
  else
  {
    m_inflight -= bytes;
    port -= bytes;
  }
}

void
MrcSender::TakeOutOfFlight(uint64_t seq)
{
  AddInflight(TxPort(Tx(seq)), PacketBytes(seq), false);
}

uint64_t
MrcSender::PortShare() const
{
  // The window is split evenly over the ports that can carry data: the NIC visits ports one
  // after another, and without a share the first port visited after an ACK would take all the
  // window that ACK opened, loading one plane and starving the others.
  const uint32_t usable = Qp().EvTable().UsablePorts();
  const uint64_t mtu = Qp().Nic().Mtu();
  return std::max<uint64_t>(mtu, m_cc->GetWindow() / std::max<uint32_t>(usable, 1));
}

uint64_t
MrcSender::PostWrite(uint64_t bytes)
{
  RdmaNic& nic = Qp().Nic();
  const uint64_t mtu = nic.Mtu();
  if (m_sndNxt == m_totalSeq && Qp().LossDetector().NothingToResend())
  {
    nic.JoinTail(&Qp()); // nothing was left to send
  }
  const uint64_t packets = bytes / mtu + (bytes % mtu != 0);
  NS_ABORT_MSG_IF(packets > UINT32_MAX, "MrcQueuePair::PostWrite: " << bytes << " bytes are 2^32 packets or more");
  const Message m{ m_totalSeq, Simulator::Now(), bytes, static_cast<uint32_t>(packets) };
  m_totalSeq += m.packets;
  m_messages.push_back(m);
  return m_nextMessageId++;
}

MrcSender::Message&
MrcSender::MessageOf(uint64_t seq)
{
  // The last message starting at or before seq (messages are in sequence order).
  return m_messages[LastAtOrBefore(m_messages, seq, [](const Message& m) { return m.firstSeq; })];
}

FramePtr
MrcSender::BuildData(const Message& m, uint64_t seq, uint16_t ev, int plane, bool ackRequest)
{
  RdmaNic& nic = Qp().Nic();
  const uint64_t index = seq - m.firstSeq;
  const uint64_t mtu = nic.Mtu();
  const uint32_t payload = PayloadOf(m, seq);
  const bool first = index == 0;
  const bool last = index + 1 == m.packets;
  FabricPacketSpec spec = Qp().DataSpec(plane, EvEntropy::Encode(ev), seq, first, last);
  spec.usids = Qp().EvTable().EvUsids(ev);
  spec.ackRequest = last || ackRequest;
  spec.payloadBytes = payload;
  // Every packet carries its place in the message: offset and the message's length.
  return MakeWriteFrame(spec, true, index * mtu, static_cast<uint32_t>(m.bytes));
}

FramePtr
MrcSender::NextPacket(uint16_t port, Time* retryAt)
{
  RdmaNic& nic = Qp().Nic();
  MrcLossDetector& loss = Qp().LossDetector();
  MrcEvTable& evs = Qp().EvTable();
  // Nothing to send, new or again: the NIC visits every QP of a port (with many peers, most have
  // nothing), so this comes before the window's arithmetic.
  if (m_sndNxt >= m_totalSeq && loss.NothingToResend())
  {
    return nullptr;
  }
  const uint64_t mtu = nic.Mtu();
  uint64_t seq;
  const bool room = m_inflight + mtu <= m_cc->GetWindow() && m_portInflight[port] + mtu <= PortShare();
  // A trimmed packet waits for window room like new data (else a heavy incast recycles trims at
  // line rate); a packet declared lost (RACK or timeout) goes at once.
  bool resend = !loss.NothingToResend() && (room || !loss.NextResendTrimmed());
  if (resend)
  {
    seq = loss.NextResend();
  }
  else if (loss.NothingToResend() && m_sndNxt < m_totalSeq && room)
  {
    seq = m_sndNxt;
  }
  else
  {
    return nullptr; // an acknowledgement (or the timer) wakes the ports when this changes
  }
  const Time now = Simulator::Now();
  // A pacing controller's "not before": the NIC's visit of this port comes back then (its one
  // pending visit, no event more). An unpaced controller costs one flag here.
  if (m_cc->Paces() && now < m_cc->NotBefore())
  {
    if (retryAt)
    {
      *retryAt = m_cc->NotBefore();
    }
    return nullptr;
  }
  const int selected = evs.Select(port);
  if (selected < 0)
  {
    return nullptr;
  }
  const uint16_t ev = static_cast<uint16_t>(selected);
  const int plane = nic.PlaneOfPort(port); // the EV's: it is one of the port's
  // Ask for a SACK at once when this packet fills the window (or is a resend, or the last that can
  // go now): the receiver otherwise waits for SackEvery packets that the window will not let come.
  const bool fills =
    m_inflight + 2 * mtu > m_cc->GetWindow() || resend || (loss.NothingToResend() && seq + 1 >= m_totalSeq);
  const Message& m = MessageOf(seq);
  FramePtr p = BuildData(m, seq, ev, plane, fills);
  if (resend)
  {
    loss.TakeResend();
    loss.CountResend();
  }
  else
  {
    m_tx.emplace_back();
    ++m_sndNxt;
  }
  loss.SetSentAt(seq, now); // a store only: the new slot is usually out of the caches
  MrcTxState& t = Tx(seq);
  t.ev = ev;
  t.lost = false;
  if (resend)
  {
    loss.OnResent(seq, m_sndNxt);
  }
  const uint32_t bytes = PacketBytes(m, seq);
  NS_ABORT_MSG_IF(bytes != p->Size(), "MrcQueuePair: PacketBytes " << bytes << " for a packet of " << p->Size());
  AddInflight(port, bytes, true);
  ++m_packetsSent;
  if (m_cc->Paces())
  {
    m_cc->OnSent(bytes, now);
  }
  loss.OnProgress(now);
  Qp().TraceDataSent(static_cast<uint32_t>(seq & kPsnMask), ev, plane, resend);
  loss.ArmIfIdle();
  return p;
}

void
MrcSender::Ack(uint64_t seq, uint64_t& newlyAcked)
{
  if (!Tracked(seq))
  {
    return;
  }
  MrcTxState& t = Tx(seq);
  if (t.acked)
  {
    return;
  }
  t.acked = true;
  Message& m = MessageOf(seq);
  const uint32_t bytes = PacketBytes(m, seq);
  if (t.lost)
  {
    Qp().LossDetector().Arrived(seq); // it arrived after all
  }
  else
  {
    AddInflight(TxPort(t), bytes, false);
  }
  newlyAcked += bytes;
  ++m.acked;
}

void
MrcSender::HandleSack(const RdmaRxInfo& info)
{
  MrcLossDetector& loss = Qp().LossDetector();
  MrcSackHeader sack;
  ReadInner(info.frame, sack);
  const Time now = Simulator::Now();
  const uint64_t ackedSeq = MrcUnwrapPsn(sack.GetAckedPsn(), m_base);
  Time rtt;
  Time ackedSentAt;
  bool fresh = false;
  if (Tracked(ackedSeq))
  {
    ackedSentAt = loss.SentAt(ackedSeq);
    fresh = !loss.Resent(ackedSeq);
    rtt = now - ackedSentAt;
  }
  uint64_t newly = 0;
  // All below `cum` acknowledged (unwrapped from cumulative PSN + 1, which is 0 when the
  // receiver has nothing in order yet).
  const uint64_t cum = MrcUnwrapPsn((sack.GetCumulativeAckPsn() + 1) & kPsnMask, m_base);
  for (uint64_t s = m_base; s < std::min(cum, m_sndNxt); ++s)
  {
    Ack(s, newly);
  }
  const uint64_t bitmapBase = cum - 1 + sack.GetSackBaseOffset();
  uint64_t bits = sack.GetBitmap();
  for (uint32_t i = 0; bits; ++i, bits >>= 1)
  {
    if (bits & 1)
    {
      Ack(bitmapBase + i, newly);
    }
  }
  Ack(ackedSeq, newly);

  Qp().EvTable().OnSack(sack.GetEchoedEv(), sack.GetEcnEcho());
  if (newly > 0)
  {
    m_cc->OnAck(newly, fresh ? rtt : m_baseRtt, sack.GetEcnEcho());
    loss.OnAcked(now, fresh, rtt);
  }
  // Loss without trim: what is still outstanding although it was sent a reordering window
  // before a packet now acknowledged (RACK).
  if (!ackedSentAt.IsZero())
  {
    loss.DetectLosses(ackedSentAt);
  }
  while (!m_tx.empty() && m_tx.front().acked)
  {
    loss.Forget(m_base);
    m_tx.pop_front();
    ++m_base;
  }
  if (m_tx.empty())
  {
    loss.StopTimer(); // nothing outstanding: no deadline to watch
  }
  while (!m_messages.empty() && m_messages.front().acked == m_messages.front().packets)
  {
    const Message& m = m_messages.front();
    Qp().SendComplete(m_nextMessageId - m_messages.size(), m.bytes, m.posted);
    m_messages.pop_front();
  }
  if (m_messages.empty() && m_tx.empty())
  {
    // Idle: the rings give their slots back (a large run's QPs are mostly idle at a time).
    m_messages.clear();
    m_tx.clear();
  }
  if (Qp().IsInError())
  {
    return;
  }
  Qp().WakeAllPorts();
}

void
MrcSender::HandleNack(const RdmaRxInfo& info)
{
  MrcNackHeader nack;
  ReadInner(info.frame, nack);
  Qp().LossDetector().CountNack();
  const uint64_t seq = MrcUnwrapPsn(nack.GetPsn(), m_base);
  Qp().EvTable().OnTrim(nack.GetEchoedEv()); // feedback on the path, as a SACK's ECN echo
  // Resent as soon as the window allows: no timeout. A NACK of a packet acknowledged or already
  // declared lost changes nothing more.
  if (Qp().LossDetector().DeclareLost(seq, MrcLossCause::Trim))
  {
    NS_LOG_LOGIC("QP " << Qp().GetQpn() << ": PSN " << nack.GetPsn() << " trimmed on EV " << nack.GetEchoedEv());
    Qp().WakeAllPorts();
  }
}

} // namespace ns3
