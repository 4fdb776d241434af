// Loss detection of an MRC queue pair's sending half: the send-time log of the TX ring, the send
// order that RACK and the timer read, RACK's declarations, the tail-loss probe and the
// retransmission timeout. The rest of the sending half is in mrc-queue-pair.cc.
#include "models/mrc/mrc-queue-pair.h"

#include "models/wire/psn.h"
#include "models/rdma/rdma-nic.h"

#include "ns3/simulator.h"

#include <algorithm>
#include <string>

namespace ns3
{

void
MrcQueuePair::DeclareLost(uint64_t seq, bool laterDelivered)
{
  TxState& t = Tx(seq);
  t.lost = true;
  Again& again = AgainOf(seq); // before Losses::retx holds it
  AddInflight(TxPort(t), PacketBytes(seq), false);
  m_losses->retx.insert(seq);
  m_cc->OnLoss();
  m_selector->OnFeedback(m_evs[t.ev], EvFeedback::Loss);
  MarkAssumedBad(t.ev);
  if (m_health)
  {
    const uint16_t port = TxPort(t);
    const UsidList path = EvUsids(t.ev);
    MrcPathHealth::Loss loss{ port, path, RemoteLeaf(PlaneOfPort(port)), FirstSwitchAfterLeaf(port, path) };
    loss.laterDelivered = laterDelivered;
    AckedSince(seq, loss);
    m_health->ReportLoss(this, loss);
  }
  if (++again.retries > m_retryLimit)
  {
    Fail("PSN " + std::to_string(seq & kPsnMask) + " lost " + std::to_string(again.retries) + " times (retry limit " +
         std::to_string(m_retryLimit) + ")");
  }
}

void
MrcQueuePair::SetSendTimeBits(uint32_t bits)
{
  NS_ABORT_MSG_IF(bits < 4 || bits > 32, "MrcQueuePair: send times of " << bits << " bits; 4 to 32");
  s_sendTimeBits = bits;
}

Time
MrcQueuePair::SentAt(uint64_t seq) const
{
  const uint32_t after = Tx(seq).SentAfterBase();
  return after == FarSend() ? m_losses->farSends.at(seq) : SentAfterBase(after);
}

void
MrcQueuePair::SetSentAt(uint64_t seq, Time now)
{
  if (uint64_t((now - m_sentBase).GetTimeStep()) >= FarSend())
  {
    RebaseSendTimes(now, seq);
  }
  ForgetFarSend(seq); // if it had a far send (not read from the slot: that would be a load)
  Tx(seq).SetSentAfterBase(static_cast<uint32_t>((now - m_sentBase).GetTimeStep()));
}

void
MrcQueuePair::RebaseSendTimes(Time now, uint64_t sending)
{
  // Rare: once per half span at most (2.1 ms of a QP's sending), a pass over the TX ring. Acked
  // packets there keep their times too: a late SACK naming one reads it (HandleSack).
  const Time base = now - TimeStep(int64_t(FarSend() / 2));
  for (uint64_t s = m_base; s < m_sndNxt; ++s)
  {
    TxState& t = Tx(s);
    if (s == sending || t.SentAfterBase() == FarSend())
    {
      continue;
    }
    const Time at = SentAfterBase(t.SentAfterBase());
    if (at < base)
    {
      LossesOf().farSends[s] = at;
      t.SetSentAfterBase(FarSend());
    }
    else
    {
      t.SetSentAfterBase(static_cast<uint32_t>((at - base).GetTimeStep()));
    }
  }
  m_sentBase = base;
  ++m_sendTimeRebases;
}

void
MrcQueuePair::ForgetFarSend(uint64_t seq)
{
  if (m_losses && !m_losses->farSends.empty())
  {
    m_losses->farSends.erase(seq);
  }
}

bool
MrcQueuePair::PruneSendOrder()
{
  // A first send is outstanding until its packet is acknowledged, declared lost or resent; none
  // of these is undone, so m_firstSend only moves forward. All below m_base are acknowledged.
  m_firstSend = std::max(m_firstSend, m_base);
  while (m_firstSend < m_sndNxt)
  {
    const TxState& t = Tx(m_firstSend);
    if (!t.acked && !t.lost && !Resent(m_firstSend))
    {
      break;
    }
    ++m_firstSend;
  }
  while (!m_resends.empty())
  {
    const ResendRecord& r = m_resends.front();
    if (Tracked(r.seq))
    {
      const TxState& t = Tx(r.seq);
      if (!t.acked && !t.lost && DeclaredLost(r.seq).sends == r.sends)
      {
        break;
      }
    }
    m_resends.pop_front();
  }
  return m_firstSend < m_sndNxt || !m_resends.empty();
}

void
MrcQueuePair::PopFront()
{
  if (FrontIsFirstSend())
  {
    ++m_firstSend;
  }
  else
  {
    m_resends.pop_front();
  }
}

void
MrcQueuePair::SampleRtt(Time rtt)
{
  m_srtt = m_srtt + (rtt - m_srtt) / 8;
}

Time
MrcQueuePair::ProbeTimeout() const
{
  return m_srtt * m_lossProbeRtts + m_sackDelay;
}

void
MrcQueuePair::ArmTimer()
{
  // The one timer of the QP fires at the oldest outstanding packet's deadline, or earlier for a
  // tail-loss probe. An ACK moves neither deadline's timer: OnTimer looks again when it fires.
  if (!PruneSendOrder())
  {
    return;
  }
  Time at = SentAt(FrontSeq()) + m_rto;
  if (m_lossProbeRtts > 0)
  {
    at = std::min(at, m_lastProgress + ProbeTimeout());
  }
  at = std::max(at, Simulator::Now());
  Simulator::Cancel(m_timer);
  m_timer = ScheduleTimer(at - Simulator::Now(), &MrcQueuePair::OnTimer, this);
}

void
MrcQueuePair::OnTimer()
{
  if (m_error)
  {
    return;
  }
  const Time now = Simulator::Now();
  bool fired = false;
  while (!m_error && PruneSendOrder() && SentAt(FrontSeq()) + m_rto <= now)
  {
    const uint64_t s = FrontSeq();
    PopFront();
    DeclareLost(s, false);
    fired = true;
  }
  if (fired)
  {
    ++m_timeouts;
    m_rto = m_rto * 2; // backoff until something is acknowledged
    WakeAllPorts();
  }
  else if (m_lossProbeRtts > 0 && now >= m_lastProgress + ProbeTimeout() && PruneSendOrder())
  {
    // Silence while packets are outstanding: nothing later will be acknowledged to reveal a lost
    // tail. The oldest goes again on another EV; a SACK of it declares the others lost (RACK).
    const uint64_t s = FrontSeq();
    PopFront();
    DeclareLost(s, false);
    ++m_lossProbes;
    m_lastProgress = now;
    WakeAllPorts();
  }
  ArmTimer();
}

} // namespace ns3
