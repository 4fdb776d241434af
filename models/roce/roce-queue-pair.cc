#include "models/roce/roce-queue-pair.h"

#include "models/roce/dcqcn-rate-control.h"
#include "models/fabric/fabric-packet.h"
#include "models/wire/psn.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/roce-aeth-header.h"
#include "models/wire/roce-cnp-header.h"
#include "models/wire/roce-reth-header.h"

#include "ns3/boolean.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(RoceQueuePair);

TypeId
RoceQueuePair::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::RoceQueuePair")
      .SetParent<RdmaQueuePair>()
      .AddConstructor<RoceQueuePair>()
      .AddAttribute("Port",
                    "NIC port (hence plane) the QP is pinned to.",
                    UintegerValue(0),
                    MakeUintegerAccessor(&RoceQueuePair::m_port),
                    MakeUintegerChecker<uint16_t>())
      .AddAttribute("Entropy",
                    "UDP source port: the ECMP entropy fixing the QP's path.",
                    UintegerValue(0xC000),
                    MakeUintegerAccessor(&RoceQueuePair::m_entropy),
                    MakeUintegerChecker<uint16_t>())
      .AddAttribute("AckInterval",
                    "The receiver acknowledges every N in-order packets (and every ACK request).",
                    UintegerValue(16),
                    MakeUintegerAccessor(&RoceQueuePair::m_ackInterval),
                    MakeUintegerChecker<uint32_t>(1))
      .AddAttribute("RetransmitTimeout",
                    "Initial retransmission timeout; IB local ACK timeout 4.096 us x 2^t, here t = 8.",
                    TimeValue(NanoSeconds(4096 * 256)),
                    MakeTimeAccessor(&RoceQueuePair::m_rtoBase),
                    MakeTimeChecker(MicroSeconds(1)))
      .AddAttribute("RetryLimit",
                    "Timeouts in a row before the QP fails (IB retry_cnt, at most 7 in hardware).",
                    UintegerValue(7),
                    MakeUintegerAccessor(&RoceQueuePair::m_retryLimit),
                    MakeUintegerChecker<uint32_t>(0, 1000))
      .AddAttribute("CnpInterval",
                    "The receiver sends at most one CNP per interval (DCQCN NP; 50 us in Zhu et al.).",
                    TimeValue(MicroSeconds(50)),
                    MakeTimeAccessor(&RoceQueuePair::m_cnpInterval),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("Dcqcn",
                    "Rate-control the sender with DCQCN (ns3::DcqcnRateControl defaults).",
                    BooleanValue(true),
                    MakeBooleanAccessor(&RoceQueuePair::m_dcqcnEnabled),
                    MakeBooleanChecker())
      .AddTraceSource("Stall",
                      "Progress resumed after timeouts: (qpn, time without progress).",
                      MakeTraceSourceAccessor(&RoceQueuePair::m_stallTrace),
                      "ns3::RoceQueuePair::StallTracedCallback")
      .AddTraceSource("Rewind",
                      "Go-back-N: (qpn, PSN resent from, packets to resend, timeout or NAK).",
                      MakeTraceSourceAccessor(&RoceQueuePair::m_rewindTrace),
                      "ns3::RoceQueuePair::RewindTracedCallback");
  return tid;
}

RoceQueuePair::RoceQueuePair()
{
  m_hotLineMask = 0b111101; // the base class's first line and the sender's state after it
}

void
RoceQueuePair::DoDispose()
{
  Simulator::Cancel(m_timer);
  if (m_dcqcn)
  {
    m_dcqcn->Stop();
    m_dcqcn = nullptr;
  }
  RdmaQueuePair::DoDispose();
}

int
RoceQueuePair::Plane() const
{
  return m_nic->PlaneOfPort(m_port);
}

DataRate
RoceQueuePair::GetRate() const
{
  return m_dcqcn ? m_dcqcn->GetRate() : m_nic->GetHost()->GetPort(m_port)->GetDataRate();
}

uint64_t
RoceQueuePair::PostWrite(uint64_t bytes)
{
  NS_ABORT_MSG_IF(bytes == 0, "RoceQueuePair::PostWrite: empty message");
  if (m_dcqcnEnabled && !m_dcqcn)
  {
    m_dcqcn = CreateObject<DcqcnRateControl>();
    m_dcqcn->Start(m_nic->GetHost()->GetPort(m_port)->GetDataRate());
  }
  const uint64_t mtu = m_nic->Mtu();
  if (m_sndNxt == m_totalSeq)
  {
    m_nic->JoinTail(this); // nothing was left to send
  }
  Message m{ m_nextMessageId++, bytes, m_totalSeq, (bytes + mtu - 1) / mtu, Simulator::Now() };
  m_totalSeq += m.packets;
  m_messages.push_back(m);
  if (m_sndUna == m_highestSent)
  {
    m_lastProgress = Simulator::Now(); // idle until now: stalls are measured from here
  }
  if (!m_error)
  {
    m_nic->NotifyReady(m_port);
  }
  return m.id;
}

const RoceQueuePair::Message&
RoceQueuePair::MessageOf(uint64_t seq) const
{
  // Messages are few and ordered: a binary search over the unacknowledged ones.
  auto it = std::upper_bound(
    m_messages.begin(), m_messages.end(), seq, [](uint64_t s, const Message& m) { return s < m.firstSeq; });
  return *(it - 1);
}

FramePtr
RoceQueuePair::BuildData(uint64_t seq)
{
  const Message& m = MessageOf(seq);
  const uint64_t index = seq - m.firstSeq;
  const uint64_t mtu = m_nic->Mtu();
  const uint32_t payload = static_cast<uint32_t>(std::min<uint64_t>(mtu, m.bytes - index * mtu));
  const bool first = index == 0;
  const bool last = index + 1 == m.packets;
  FabricPacketSpec spec;
  spec.srcGpu = m_nic->GetGpu();
  spec.dstGpu = m_remoteGpu;
  spec.plane = Plane();
  spec.entropy = m_entropy;
  spec.dscp = m_nic->DataDscp();
  spec.ecn = Ipv6UsidHeader::Ect0;
  spec.destQp = m_remoteQpn;
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  spec.opcode = first && last ? RoceBthHeader::kRcWriteOnly
                : first       ? RoceBthHeader::kRcWriteFirst
                : last        ? RoceBthHeader::kRcWriteLast
                              : RoceBthHeader::kRcWriteMiddle;
  spec.ackRequest = last;
  spec.reth = first;
  spec.remoteAddress = index * mtu;
  spec.payloadBytes = payload;
  return MakeFrame(spec);
}

FramePtr
RoceQueuePair::NextPacket(uint16_t port, Time* retryAt)
{
  if (m_error || port != m_port || m_sndNxt >= m_totalSeq)
  {
    return FramePtr();
  }
  const Time now = Simulator::Now();
  if (m_dcqcn && now < m_nextSendTime)
  {
    if (retryAt)
    {
      *retryAt = m_nextSendTime;
    }
    return FramePtr();
  }
  FramePtr p = BuildData(m_sndNxt);
  if (m_sndNxt < m_highestSent)
  {
    ++m_retransmissions;
  }
  ++m_sndNxt;
  m_highestSent = std::max(m_highestSent, m_sndNxt);
  ++m_packetsSent;
  if (m_dcqcn)
  {
    const uint64_t bits = uint64_t(p->Size() + m_nic->GetHost()->GetPort(m_port)->QueueConfig()->FramingBytes()) * 8;
    m_nextSendTime = now + PicoSeconds(static_cast<int64_t>(bits * 1e12 / double(m_dcqcn->GetRate().GetBitRate())));
    m_dcqcn->OnBytesSent(p->Size());
  }
  if (!m_timer.IsRunning())
  {
    ArmTimer();
  }
  return p;
}

void
RoceQueuePair::Receive(const RdmaRxInfo& info)
{
  const uint8_t op = info.frame.opcode;
  if (op == RoceBthHeader::kRcAck)
  {
    HandleAck(info);
  }
  else if (op == RoceBthHeader::kCnp)
  {
    ++m_cnpsReceived;
    if (m_dcqcn)
    {
      m_dcqcn->OnCnp();
    }
  }
  else if (RoceBthHeader::IsRdmaWrite(op))
  {
    HandleData(info);
  }
}

void
RoceQueuePair::HandleData(const RdmaRxInfo& info)
{
  const Time now = Simulator::Now();
  if (info.frame.Ecn() == Ipv6UsidHeader::Ce && (!m_cnpSentOnce || now - m_lastCnp >= m_cnpInterval))
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
    m_recvComplete(m_qpn, m_rxMessageId++, m_rxMessageBytes, m_rxMessageStart);
    m_rxMessageBytes = 0;
  }
  if (info.frame.ackRequest || ++m_unacked >= m_ackInterval)
  {
    SendAck(m_expected - 1, false, info.frame.srcPort);
  }
}

void
RoceQueuePair::SendAck(uint64_t seq, bool nak, uint16_t entropy)
{
  m_unacked = 0;
  if (nak)
  {
    ++m_naksSent;
  }
  RoceAethHeader aeth;
  if (nak)
    aeth.SetNak(RoceAethHeader::kNakPsnSequenceError);
  else
    aeth.SetAck();
  aeth.SetMsn(static_cast<uint32_t>(m_rxMessageId & 0xFFFFFF));
  FabricPacketSpec spec = ControlSpec(RoceBthHeader::kRcAck, Plane(), entropy);
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  m_nic->SendControl(MakeControlFrame(spec, aeth), m_port);
}

void
RoceQueuePair::SendCnp()
{
  m_lastCnp = Simulator::Now();
  m_cnpSentOnce = true;
  ++m_cnpsSent;
  FabricPacketSpec spec = ControlSpec(RoceBthHeader::kCnp, Plane(), m_entropy);
  m_nic->SendControl(MakeControlFrame(spec, RoceCnpHeader()), m_port);
}

void
RoceQueuePair::HandleAck(const RdmaRxInfo& info)
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
      m_sendComplete(m_qpn, m.id, m.bytes, m.posted);
      m_messages.pop_front();
    }
    if (m_stalled)
    {
      m_stallTrace(m_qpn, now - m_lastProgress);
      m_stalled = false;
    }
    m_lastProgress = now;
    m_retries = 0;
    m_rto = m_rtoBase;
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
RoceQueuePair::Rewind(uint64_t toSeq, bool timeout)
{
  if (toSeq >= m_sndNxt)
  {
    return;
  }
  m_rewindTrace(m_qpn, static_cast<uint32_t>(toSeq & kPsnMask), m_sndNxt - toSeq, timeout);
  m_sndNxt = toSeq;
  m_nic->NotifyReady(m_port);
}

void
RoceQueuePair::ArmTimer()
{
  if (m_rto.IsZero())
  {
    m_rto = m_rtoBase;
  }
  m_deadline = Simulator::Now() + m_rto;
  // Re-armed, not re-created: an earlier pending event looks at the deadline and waits on.
  if (!m_timer.IsRunning())
  {
    m_timer = ScheduleTimer(m_rto, &RoceQueuePair::OnTimer, this);
  }
}

void
RoceQueuePair::OnTimer()
{
  if (m_error || m_sndUna >= m_highestSent)
  {
    return; // nothing outstanding
  }
  const Time now = Simulator::Now();
  if (now < m_deadline)
  {
    m_timer = ScheduleTimer(m_deadline - now, &RoceQueuePair::OnTimer, this);
    return;
  }
  ++m_timeouts;
  m_stalled = true;
  if (++m_retries > m_retryLimit)
  {
    Fail("retry limit " + std::to_string(m_retryLimit) + " exceeded: PSN " + std::to_string(m_sndUna & kPsnMask) +
         " unacknowledged after " + std::to_string(m_timeouts) + " timeouts");
    return;
  }
  m_rto = m_rto * 2; // exponential backoff until progress
  Rewind(m_sndUna, true);
  m_deadline = now + m_rto;
  m_timer = ScheduleTimer(m_rto, &RoceQueuePair::OnTimer, this);
}

} // namespace ns3
