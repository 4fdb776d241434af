// The receiving half of an MRC queue pair: placement in any order, message completions in
// order, SACKs (cumulative PSN, 64-bit bitmap, echoed EV, ECN echo) and trim NACKs. The sending
// half is in mrc-queue-pair.cc.
#include "models/fabric-packet.h"
#include "models/mrc-nack-header.h"
#include "models/mrc-queue-pair.h"
#include "models/mrc-sack-header.h"
#include "models/psn.h"
#include "models/rdma-nic.h"
#include "models/roce-reth-header.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

namespace
{
/// Packets the receiver may track above its cumulative PSN (the ring grows to this on demand).
constexpr uint64_t kReceiveWindow = 1u << 16;
constexpr uint64_t kInitialRing = 256;
} // namespace

bool
MrcQueuePair::Received(uint64_t seq) const
{
  return seq - m_cum < m_received.size() && m_received[seq & (m_received.size() - 1)];
}

void
MrcQueuePair::GrowReceiveRing(uint64_t seq)
{
  // A ring of power-of-two size over [m_cum, m_cum + size): small for most QPs, doubled when a
  // packet arrives further ahead (a QP's window decides how far).
  if (seq - m_cum < m_received.size())
  {
    return;
  }
  uint64_t size = std::max<uint64_t>(m_received.size(), kInitialRing);
  while (seq - m_cum >= size)
  {
    size *= 2;
  }
  std::vector<bool> ring(size, false);
  for (uint64_t s = m_cum; s < m_cum + m_received.size(); ++s)
  {
    ring[s & (size - 1)] = Received(s);
  }
  m_received.swap(ring);
}

void
MrcQueuePair::HandleData(const RdmaRxInfo& info)
{
  const FabricFrame& f = info.frame;
  const uint16_t ev = f.srcPort & 0x3FFF;
  if (f.Dscp() == m_trimmedDscp)
  {
    SendNack(f.psn, ev, info.port); // only the headers arrived: ask for it again now
    return;
  }
  const uint64_t seq = Unwrap(f.psn, m_cum);
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
  const uint64_t mtu = m_nic->Mtu();
  const uint64_t firstSeq = seq - reth.GetVirtualAddress() / mtu;
  RxMessage& msg = m_rxMessages[firstSeq];
  if (msg.received == 0)
  {
    msg.packets = (uint64_t(reth.GetDmaLength()) + mtu - 1) / mtu;
    msg.firstArrival = Simulator::Now();
  }
  ++msg.received;
  msg.bytes += f.PayloadReceived();
  m_received[seq & (m_received.size() - 1)] = true;
  const bool inOrder = seq == m_cum;
  while (Received(m_cum))
  {
    m_received[m_cum & (m_received.size() - 1)] = false;
    ++m_cum;
  }
  // Completions in message order, as the RDMA completion queue reports them.
  bool ended = false;
  while (!m_rxMessages.empty() && m_rxMessages.begin()->first == m_nextRxMessage &&
         m_rxMessages.begin()->second.received == m_rxMessages.begin()->second.packets)
  {
    const RxMessage& done = m_rxMessages.begin()->second;
    m_recvComplete(m_qpn, m_rxMessageId++, done.bytes, done.firstArrival);
    m_nextRxMessage += done.packets;
    m_rxMessages.erase(m_rxMessages.begin());
    ended = true;
  }
  if (ecn || !inOrder || ended || f.ackRequest || ++m_sinceSack >= m_sackEvery)
  {
    SendSack(seq, ev, ecn, info.port);
  }
}

void
MrcQueuePair::SendSack(uint64_t seq, uint16_t ev, bool ecn, uint16_t port)
{
  m_sinceSack = 0;
  ++m_sacksSent;
  MrcSackHeader sack;
  sack.SetCumulativeAckPsn(static_cast<uint32_t>((m_cum - 1) & kPsnMask));
  sack.SetSackBaseOffset(1);
  uint64_t bitmap = 0;
  for (uint32_t i = 0; i < 64; ++i)
  {
    if (Received(m_cum + i))
    {
      bitmap |= uint64_t(1) << i;
    }
  }
  sack.SetBitmap(bitmap);
  sack.SetAckedPsn(static_cast<uint32_t>(seq & kPsnMask));
  sack.SetEchoedEv(ev);
  sack.SetEcnEcho(ecn);
  sack.SetTimestampEcho(static_cast<uint32_t>(Simulator::Now().GetNanoSeconds()));
  FabricPacketSpec spec = ControlSpec(kOpSack, m_nic->PlaneOfPort(port), static_cast<uint16_t>(0xC000 | ev));
  spec.psn = static_cast<uint32_t>(seq & kPsnMask);
  m_nic->SendControl(MakeControlFrame(spec, sack), port);
}

void
MrcQueuePair::SendNack(uint32_t psn, uint16_t ev, uint16_t port)
{
  MrcNackHeader nack;
  nack.SetPsn(psn);
  nack.SetReason(MrcNackHeader::Trimmed);
  nack.SetEchoedEv(ev);
  FabricPacketSpec spec = ControlSpec(kOpNack, m_nic->PlaneOfPort(port), static_cast<uint16_t>(0xC000 | ev));
  spec.psn = psn;
  m_nic->SendControl(MakeControlFrame(spec, nack), port);
}

} // namespace ns3
