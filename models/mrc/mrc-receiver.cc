#include "models/mrc/mrc-receiver.h"

#include "models/fabric/fabric-packet.h"
#include "models/mrc/mrc-ev.h"
#include "models/mrc/mrc-frame.h"
#include "models/mrc/mrc-psn.h"
#include "models/mrc/mrc-queue-pair.h"
#include "models/rdma/rdma-frame.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/mrc-nack-header.h"
#include "models/wire/mrc-sack-header.h"
#include "models/wire/roce-reth-header.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcReceiver");

namespace
{
/// Packets the receiver may track above its cumulative PSN (the ring grows to this on demand).
constexpr uint64_t kReceiveWindow = 1u << 16;
constexpr uint64_t kInitialRing = 256; ///< packets (a multiple of 128: see ReceivedAboveCum)
} // namespace

bool
MrcReceiver::Received(uint64_t seq) const
{
  const uint64_t bits = 64 * RingWords();
  if (seq - m_cum >= bits)
  {
    return false;
  }
  const uint64_t i = seq & (bits - 1);
  return (RingWord(i / 64) >> (i % 64)) & 1;
}

void
MrcReceiver::SetReceived(uint64_t seq, bool received)
{
  const uint64_t i = seq & (64 * RingWords() - 1);
  const uint64_t bit = uint64_t(1) << (i % 64);
  uint64_t& word = RingWord(i / 64);
  word = received ? word | bit : word & ~bit;
}

uint64_t
MrcReceiver::ReceivedAboveCum() const
{
  const uint64_t words = RingWords();
  if (words == 0)
  {
    return 0;
  }
  // The ring holds at least 256 packets, so the 64 above m_cum are all in it, in two words.
  const uint64_t i = m_cum & (64 * words - 1);
  const uint64_t lo = RingWord(i / 64) >> (i % 64);
  const uint64_t hi = i % 64 ? RingWord((i / 64 + 1) & (words - 1)) << (64 - i % 64) : 0;
  return lo | hi;
}

void
MrcReceiver::GrowReceiveRing(uint64_t seq)
{
  // A ring of power-of-two size over [m_cum, m_cum + size): small for most QPs, doubled when a
  // packet arrives further ahead (a QP's window decides how far).
  const uint64_t bits = 64 * RingWords();
  if (seq - m_cum < bits)
  {
    return;
  }
  uint64_t size = std::max<uint64_t>(bits, kInitialRing);
  while (seq - m_cum >= size)
  {
    size *= 2;
  }
  auto ring = std::make_unique<uint64_t[]>(1 + size / 64); // zeroed
  ring[0] = size / 64;
  for (uint64_t s = m_cum; s < m_cum + bits; ++s)
  {
    if (Received(s))
    {
      const uint64_t i = s & (size - 1);
      ring[1 + i / 64] |= uint64_t(1) << (i % 64);
    }
  }
  m_received = std::move(ring);
}

void
MrcReceiver::HandleData(const RdmaRxInfo& info)
{
  const FabricFrame& f = info.frame;
  const uint16_t ev = EvEntropy::Decode(f.srcPort);
  if (f.Dscp() == Qp().TrimmedDscp())
  {
    // Only the headers arrived: ask for it again now, and acknowledge what is held for
    // coalescing, so that the sender's window is not held by packets already here.
    NS_LOG_LOGIC("QP " << Qp().GetQpn() << ": PSN " << f.psn << " trimmed on EV " << ev << ", NACK");
    FlushSack();
    SendNack(f.psn, ev, info.port);
    return;
  }
  const uint64_t seq = MrcUnwrapPsn(f.psn, m_cum);
  const bool ecn = f.Ecn() == Ipv6UsidHeader::Ce;
  if (seq >= m_cum && seq < m_cum + kReceiveWindow)
  {
    GrowReceiveRing(seq);
  }
  if (seq < m_cum || seq >= m_cum + kReceiveWindow || Received(seq))
  {
    SendSack(seq, ev, ecn, info.port); // duplicate (or beyond the window): tell the sender again
    return;
  }
  RoceRethHeader reth;
  ReadInner(f, reth);
  const uint64_t mtu = Qp().Nic().Mtu();
  const uint64_t firstSeq = seq - reth.GetVirtualAddress() / mtu;
  RxMessage& msg = MessageAt(firstSeq);
  if (msg.received == 0)
  {
    msg.packets = static_cast<uint32_t>((uint64_t(reth.GetDmaLength()) + mtu - 1) / mtu);
    msg.firstArrival = Simulator::Now();
  }
  ++msg.received;
  msg.bytes += f.PayloadReceived();
  SetReceived(seq, true);
  const bool inOrder = seq == m_cum;
  while (Received(m_cum))
  {
    SetReceived(m_cum, false);
    ++m_cum;
  }
  // Completions in message order, as the RDMA completion queue reports them.
  bool ended = false;
  while (!m_rxMessages.empty() && m_rxMessages.front().firstSeq == m_nextRxMessage &&
         m_rxMessages.front().received == m_rxMessages.front().packets)
  {
    const RxMessage done = m_rxMessages.take_front();
    Qp().RecvComplete(m_rxMessageId++, done.bytes, done.firstArrival);
    m_nextRxMessage += done.packets;
    ended = true;
  }
  if (m_rxMessages.empty())
  {
    ReleaseIdle();
  }
  if (ecn || !inOrder || ended || f.ackRequest || ++m_sinceSack >= Qp().SackEvery())
  {
    SendSack(seq, ev, ecn, info.port);
    return;
  }
  m_heldSeq = seq;
  m_heldEv = ev;
  m_heldPort = info.port;
  if (!m_sackTimer.IsPending())
  {
    m_sackTimer = Qp().ScheduleTimer(Qp().SackDelay(), &MrcReceiver::OnSackTimer, this);
  }
}

void
MrcReceiver::ReleaseIdle()
{
  // Every message received is complete, so nothing above the cumulative PSN is marked: the
  // ring holds no information (checked, not assumed), and an absent ring reads the same.
  const uint64_t words = RingWords();
  for (uint64_t w = 0; w < words; ++w)
  {
    if (RingWord(w) != 0)
    {
      return;
    }
  }
  m_rxMessages.clear();
  m_received.reset();
}

MrcReceiver::RxMessage&
MrcReceiver::MessageAt(uint64_t firstSeq)
{
  // Messages arrive in sequence order but for the few whose first packet overtakes an earlier
  // message's: the ring's back, or a short search.
  if (!m_rxMessages.empty())
  {
    const uint32_t at = LastAtOrBefore(m_rxMessages, firstSeq, [](const RxMessage& m) { return m.firstSeq; });
    if (m_rxMessages[at].firstSeq == firstSeq)
    {
      return m_rxMessages[at];
    }
  }
  RxMessage& added = m_rxMessages.emplace_back();
  added.firstSeq = firstSeq;
  uint32_t i = m_rxMessages.size() - 1;
  for (; i > 0 && m_rxMessages[i - 1].firstSeq > firstSeq; --i)
  {
    std::swap(m_rxMessages[i - 1], m_rxMessages[i]);
  }
  return m_rxMessages[i];
}

void
MrcReceiver::Dispose()
{
  m_sackTimer.Cancel();
}

void
MrcReceiver::FlushSack()
{
  if (m_sinceSack > 0)
  {
    SendSack(m_heldSeq, m_heldEv, false, m_heldPort);
  }
}

void
MrcReceiver::OnSackTimer()
{
  // Armed by the first packet held after a SACK: what is still held has waited at most SackDelay.
  m_sackTimer.Clear();
  FlushSack();
}

void
MrcReceiver::SendSack(uint64_t seq, uint16_t ev, bool ecn, uint16_t port)
{
  m_sinceSack = 0;
  ++m_sacksSent;
  MrcSackHeader sack;
  sack.SetCumulativeAckPsn(static_cast<uint32_t>((m_cum - 1) & kPsnMask));
  sack.SetSackBaseOffset(1);
  sack.SetBitmap(ReceivedAboveCum());
  sack.SetAckedPsn(static_cast<uint32_t>(seq & kPsnMask));
  sack.SetEchoedEv(ev);
  sack.SetEcnEcho(ecn);
  sack.SetTimestampEcho(static_cast<uint32_t>(Simulator::Now().GetNanoSeconds()));
  FabricPacketSpec spec =
    Qp().ControlSpec(MrcQueuePair::kOpSack, Qp().Nic().PlaneOfPort(port), EvEntropy::Encode(ev));
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  Qp().Nic().SendControl(MakeControlFrame(spec, sack), port);
}

void
MrcReceiver::SendNack(uint32_t psn, uint16_t ev, uint16_t port)
{
  MrcNackHeader nack;
  nack.SetPsn(psn);
  nack.SetReason(MrcNackHeader::Trimmed);
  nack.SetEchoedEv(ev);
  FabricPacketSpec spec =
    Qp().ControlSpec(MrcQueuePair::kOpNack, Qp().Nic().PlaneOfPort(port), EvEntropy::Encode(ev));
  spec.psn = psn;
  Qp().Nic().SendControl(MakeControlFrame(spec, nack), port);
}

} // namespace ns3
