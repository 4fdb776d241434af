#include "models/roce/roce-requester.h"

#include "models/fabric/fabric-packet.h"
#include "models/rdma/rdma-frame.h"
#include "models/rdma/rdma-nic.h"
#include "models/roce/roce-queue-pair.h"
#include "models/roce/roce-frame.h"
#include "models/wire/psn.h"
#include "models/wire/roce-aeth-header.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("RoceRequester");

void
RoceRequester::Dispose()
{
  m_timer.Cancel();
  if (m_dcqcn)
  {
    m_dcqcn->Stop();
    m_dcqcn = nullptr;
  }
}

void
RoceRequester::HandleCnp()
{
  ++Qp().Rare().cnpsReceived;
  if (!Qp().DcqcnEnabled())
  {
    return;
  }
  if (!m_dcqcn)
  {
    // Made now, not at the first message: until its first CNP, DCQCN holds the line rate and
    // changes nothing (no timer runs, no byte counts, alpha waits at its initial value), so a QP
    // never told of congestion needs no rate control, and a large run's QPs mostly are not.
    m_dcqcn = Qp().NewRateControl();
    m_dcqcn->Start(Wire().GetDataRate());
  }
  m_dcqcn->OnCnp();
}

DataRate
RoceRequester::GetRate() const
{
  return RateOn(Wire());
}

DataRate
RoceRequester::RateOn(const FabricPort& wire) const
{
  return m_dcqcn ? m_dcqcn->GetRate() : wire.GetDataRate();
}

const FabricPort&
RoceRequester::Wire() const
{
  return *Qp().Nic().GetHost()->PortAt(Qp().GetPort());
}

uint64_t
RoceRequester::PostWrite(uint64_t bytes)
{
  RdmaNic& nic = Qp().Nic();
  if (m_nextMessageId == 0 && Qp().DcqcnEnabled())
  {
    Qp().CheckRateControl(Wire().GetDataRate()); // as Start will at the first CNP
  }
  const uint64_t mtu = nic.Mtu();
  if (m_sndNxt == m_totalSeq)
  {
    nic.JoinTail(&Qp()); // nothing was left to send
  }
  Message m{ m_nextMessageId++, bytes, m_totalSeq, (bytes + mtu - 1) / mtu, Simulator::Now() };
  m_totalSeq += m.packets;
  m_messages.push_back(m);
  if (m_sndUna == m_highestSent)
  {
    m_lastProgress = Simulator::Now(); // idle until now: stalls are measured from here
  }
  if (!Qp().IsInError())
  {
    nic.NotifyReady(Qp().GetPort());
  }
  return m.id;
}

const RoceRequester::Message&
RoceRequester::MessageOf(uint64_t seq) const
{
  // Messages are few and ordered: the last unacknowledged one that starts at or before seq.
  return m_messages[LastAtOrBefore(m_messages, seq, [](const Message& m) { return m.firstSeq; })];
}

FramePtr
RoceRequester::BuildData(uint64_t seq)
{
  RdmaNic& nic = Qp().Nic();
  const Message& m = MessageOf(seq);
  const uint64_t index = seq - m.firstSeq;
  const uint64_t mtu = nic.Mtu();
  const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(mtu, m.bytes - index * mtu));
  const bool first = index == 0;
  const bool last = index + 1 == m.packets;
  FabricPacketSpec spec = Qp().DataSpec(Qp().Plane(), Qp().Entropy(), seq, first, last);
  spec.payloadBytes = payload;
  // The first packet's RETH: where the message goes (its DMA length is the packet's payload).
  return MakeWriteFrame(spec, first, index * mtu, payload);
}

FramePtr
RoceRequester::NextPacket(Time* retryAt)
{
  if (m_sndNxt >= m_totalSeq)
  {
    return FramePtr();
  }
  const Time now = Simulator::Now();
  if (Qp().DcqcnEnabled() && now < m_nextSendTime)
  {
    if (retryAt)
    {
      *retryAt = m_nextSendTime;
    }
    return FramePtr();
  }
  FramePtr p = BuildData(m_sndNxt);
  const bool wasIdle = m_sndUna == m_highestSent; // nothing was awaiting an ACK
  if (m_sndNxt < m_highestSent)
  {
    ++Qp().Rare().retransmissions;
  }
  ++m_sndNxt;
  m_highestSent = std::max(m_highestSent, m_sndNxt);
  ++m_packetsSent;
  if (Qp().DcqcnEnabled())
  {
    // Paced at DCQCN's rate: the line rate until the first CNP.
    const FabricPort& wire = Wire();
    const uint64_t bits = uint64_t(p->Size() + wire.QueueConfig()->FramingBytes()) * 8;
    m_nextSendTime = now + PicoSeconds(static_cast<int64_t>(bits * 1e12 / double(RateOn(wire).GetBitRate())));
    if (m_dcqcn)
    {
      m_dcqcn->OnBytesSent(p->Size());
    }
  }
  // The timer runs from the oldest send awaiting an ACK: the first send after an idle spell
  // restarts it even if a pending event (left from the last ACK) is still to fire.
  if (wasIdle || !m_timer.IsPending())
  {
    ArmTimer();
  }
  return p;
}

void
RoceRequester::HandleAck(const RdmaRxInfo& info)
{
  RoceAethHeader aeth;
  ReadInner(info.frame, aeth);
  const uint64_t seq = m_sndUna + PsnDiff(info.frame.psn, static_cast<uint32_t>(m_sndUna & kPsnMask));
  const bool nak = aeth.IsNak();
  // An ACK covers seq; a NAK covers everything before the PSN it expects.
  const uint64_t una = std::min(nak ? seq : seq + 1, m_highestSent);
  if (una > m_sndUna)
  {
    const Time now = Simulator::Now();
    m_sndUna = una;
    while (!m_messages.empty() && m_messages.front().firstSeq + m_messages.front().packets <= m_sndUna)
    {
      const Message& m = m_messages.front();
      Qp().SendComplete(m.id, m.bytes, m.posted);
      m_messages.pop_front();
    }
    if (m_messages.empty())
    {
      m_messages.clear(); // idle: the ring gives its slots back
    }
    if (m_stalled)
    {
      Qp().TraceStall(now - m_lastProgress);
      m_stalled = false;
    }
    m_lastProgress = now;
    m_retries = 0;
    m_rto = Qp().RtoBase();
    if (m_sndNxt < m_sndUna)
    {
      m_sndNxt = m_sndUna;
    }
    ArmTimer();
  }
  if (nak && seq >= m_sndUna)
  {
    Rewind(seq, false);
  }
}

void
RoceRequester::Rewind(uint64_t toSeq, bool timeout)
{
  if (toSeq >= m_sndNxt)
  {
    return;
  }
  NS_LOG_DEBUG("QP " << Qp().GetQpn() << ": go back to PSN " << (toSeq & kPsnMask) << ", " << m_sndNxt - toSeq
                     << " packets" << (timeout ? " (timeout)" : " (NAK)"));
  Qp().TraceRewind(static_cast<uint32_t>(toSeq & kPsnMask), m_sndNxt - toSeq, timeout);
  m_sndNxt = toSeq;
  Qp().Nic().NotifyReady(Qp().GetPort());
}

void
RoceRequester::ArmTimer()
{
  if (m_rto.IsZero())
  {
    m_rto = Qp().RtoBase();
  }
  m_deadline = Simulator::Now() + m_rto;
  // Re-armed, not re-created: an earlier pending event looks at the deadline and waits on.
  if (!m_timer.IsPending())
  {
    m_timer = Qp().ScheduleTimer(m_rto, &RoceRequester::OnTimer, this);
  }
}

void
RoceRequester::OnTimer()
{
  m_timer.Clear();
  if (Qp().IsInError() || m_sndUna >= m_highestSent)
  {
    return; // nothing outstanding
  }
  const Time now = Simulator::Now();
  if (now < m_deadline)
  {
    m_timer = Qp().ScheduleTimer(m_deadline - now, &RoceRequester::OnTimer, this);
    return;
  }
  const uint64_t timeouts = ++Qp().Rare().timeouts;
  m_stalled = true;
  NS_LOG_DEBUG("QP " << Qp().GetQpn() << ": retransmission timeout " << timeouts << " at PSN "
                     << (m_sndUna & kPsnMask));
  if (++m_retries > Qp().RetryLimit())
  {
    Qp().FailQp("retry limit " + std::to_string(Qp().RetryLimit()) + " exceeded: PSN " +
                std::to_string(m_sndUna & kPsnMask) + " unacknowledged after " + std::to_string(timeouts) +
                " timeouts");
    return;
  }
  m_rto = m_rto * 2; // exponential backoff until progress
  Rewind(m_sndUna, true);
  m_deadline = now + m_rto;
  m_timer = Qp().ScheduleTimer(m_rto, &RoceRequester::OnTimer, this);
}

} // namespace ns3
