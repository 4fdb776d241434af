#include "models/mrc/mrc-loss-detector.h"

#include "models/mrc/mrc-queue-pair.h"
#include "models/rdma/rdma-nic.h"
#include "models/wire/psn.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <string>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("MrcLossDetector");

void
MrcLossDetector::Start(Time baseRtt)
{
  m_srtt = baseRtt;
  m_rto = Qp().RtoBase();
  const uint32_t bits = Qp().SendTimeBits();
  m_farSend = bits >= 32 ? UINT32_MAX : (1u << bits) - 1;
}

void
MrcLossDetector::Dispose()
{
  m_timer.Cancel();
}

void
MrcLossDetector::StopTimer()
{
  m_timer.Cancel();
}

namespace
{
const char*
LossCauseName(MrcLossCause cause)
{
  switch (cause)
  {
  case MrcLossCause::Rack:
    return "RACK";
  case MrcLossCause::Timer:
    return "timer";
  case MrcLossCause::Probe:
    return "tail-loss probe";
  case MrcLossCause::Trim:
    return "trim";
  case MrcLossCause::PathDown:
    return "path down";
  }
  return "?";
}
} // namespace

bool
MrcLossDetector::DeclareLost(uint64_t seq, MrcLossCause cause)
{
  MrcSender& sender = Qp().Sender();
  if (!sender.Tracked(seq) || sender.Tx(seq).acked || sender.Tx(seq).lost)
  {
    return false;
  }
  MrcTxState& t = sender.Tx(seq);
  NS_LOG_DEBUG("QP " << Qp().GetQpn() << ": PSN " << (seq & kPsnMask) << " on EV " << t.ev << " lost ("
                     << LossCauseName(cause) << ")");
  // The packet's own state: out of flight, waiting in the resend set (a trimmed one for window
  // room, MrcSender::NextPacket).
  t.lost = true;
  Again& again = MakeLosses().again[seq]; // kept until the packet leaves the TX ring (Forget)
  again.trimmed = cause == MrcLossCause::Trim;
  sender.TakeOutOfFlight(seq);
  m_losses->retx.insert(seq);
  // Who must know, by cause (the table in the header).
  switch (cause)
  {
  case MrcLossCause::Trim:
    sender.CongestionControl().OnTrim();
    return true;
  case MrcLossCause::PathDown:
    return true;
  case MrcLossCause::Rack:
  case MrcLossCause::Timer:
  case MrcLossCause::Probe:
    break;
  }
  sender.CongestionControl().OnLoss();
  Qp().EvTable().OnLoss(t.ev);
  Qp().ReportPathLoss(seq, cause == MrcLossCause::Rack);
  if (cause != MrcLossCause::Probe && ++again.retries > Qp().RetryLimit())
  {
    Qp().FailQp("PSN " + std::to_string(seq & kPsnMask) + " lost " + std::to_string(again.retries) +
                " times (retry limit " + std::to_string(Qp().RetryLimit()) + ")");
  }
  return true;
}

template <typename Pred>
void
MrcLossDetector::ResendInFlight(Pred onPath)
{
  MrcSender& sender = Qp().Sender();
  for (uint64_t s = sender.Base(); s < sender.SndNxt(); ++s)
  {
    const MrcTxState& t = sender.Tx(s);
    if (!t.acked && !t.lost && onPath(t))
    {
      DeclareLost(s, MrcLossCause::PathDown);
    }
  }
}

void
MrcLossDetector::ResendInFlightOnEv(uint16_t id)
{
  ResendInFlight([&](const MrcTxState& t) { return t.ev == id; });
}

void
MrcLossDetector::ResendInFlightOnPort(uint16_t port)
{
  const MrcEvTable& evs = Qp().EvTable();
  ResendInFlight([&](const MrcTxState& t) { return evs.PortOfEv(t.ev) == port; });
}

Time
MrcLossDetector::SentAt(uint64_t seq) const
{
  const uint32_t after = Qp().Sender().Tx(seq).sentAfterBase;
  return after == FarSend() ? m_losses->farSends.at(seq) : SentAfterBase(after);
}

void
MrcLossDetector::SetSentAt(uint64_t seq, Time now)
{
  if (uint64_t((now - m_sentBase).GetTimeStep()) >= FarSend())
  {
    RebaseSendTimes(now, seq);
  }
  ForgetFarSend(seq); // if it had a far send (not read from the slot: that would be a load)
  Qp().Sender().Tx(seq).sentAfterBase = static_cast<uint32_t>((now - m_sentBase).GetTimeStep());
}

void
MrcLossDetector::RebaseSendTimes(Time now, uint64_t sending)
{
  // Rare: once per half span at most (2.1 ms of a QP's sending), a pass over the TX ring. Acked
  // packets there keep their times too: a late SACK naming one reads it (MrcSender::HandleSack).
  MrcSender& sender = Qp().Sender();
  const Time base = now - TimeStep(int64_t(FarSend() / 2));
  for (uint64_t s = sender.Base(); s < sender.SndNxt(); ++s)
  {
    MrcTxState& t = sender.Tx(s);
    if (s == sending || t.sentAfterBase == FarSend())
    {
      continue;
    }
    const Time at = SentAfterBase(t.sentAfterBase);
    if (at < base)
    {
      MakeLosses().farSends[s] = at;
      t.sentAfterBase = FarSend();
    }
    else
    {
      t.sentAfterBase = static_cast<uint32_t>((at - base).GetTimeStep());
    }
  }
  m_sentBase = base;
  ++MakeLosses().counts.sendTimeRebases;
  NS_LOG_LOGIC("QP " << Qp().GetQpn() << ": send times rebased to " << base);
}

void
MrcLossDetector::ForgetFarSend(uint64_t seq)
{
  if (m_losses && !m_losses->farSends.empty())
  {
    m_losses->farSends.erase(seq);
  }
}

bool
MrcLossDetector::FrontIsFirstSend() const
{
  return m_firstSend < Qp().Sender().SndNxt() &&
         (m_resends.empty() || m_firstSend < m_resends.front().firstSendsBefore);
}

bool
MrcLossDetector::PruneSendOrder()
{
  // A first send is outstanding until its packet is acknowledged, declared lost or resent; none
  // of these is undone, so m_firstSend only moves forward. All below the TX ring's base are
  // acknowledged.
  const MrcSender& sender = Qp().Sender();
  m_firstSend = std::max(m_firstSend, sender.Base());
  while (m_firstSend < sender.SndNxt())
  {
    const MrcTxState& t = sender.Tx(m_firstSend);
    if (!t.acked && !t.lost && !Resent(m_firstSend))
    {
      break;
    }
    ++m_firstSend;
  }
  while (!m_resends.empty())
  {
    const ResendRecord& r = m_resends.front();
    if (sender.Tracked(r.seq))
    {
      const MrcTxState& t = sender.Tx(r.seq);
      if (!t.acked && !t.lost && LostState(r.seq).sends == r.sends)
      {
        break;
      }
    }
    m_resends.pop_front();
  }
  return m_firstSend < sender.SndNxt() || !m_resends.empty();
}

void
MrcLossDetector::PopFront()
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
MrcLossDetector::DetectLosses(Time ackedSentAt)
{
  // Sends are in time order, so only the front counts.
  const Time window = Qp().ReorderWindow();
  while (!Qp().IsInError() && PruneSendOrder() && SentAt(FrontSeq()) + window < ackedSentAt)
  {
    const uint64_t s = FrontSeq();
    PopFront();
    DeclareLost(s, MrcLossCause::Rack);
  }
}

void
MrcLossDetector::SampleRtt(Time rtt)
{
  m_srtt = m_srtt + (rtt - m_srtt) / 8;
}

Time
MrcLossDetector::ProbeTimeout() const
{
  return m_srtt * Qp().LossProbeRtts() + Qp().SackDelay();
}

void
MrcLossDetector::ArmTimer()
{
  // The one timer of the QP fires at the oldest outstanding packet's deadline, or earlier for a
  // tail-loss probe. An ACK moves neither deadline's timer: OnTimer looks again when it fires.
  if (!PruneSendOrder())
  {
    return;
  }
  Time at = SentAt(FrontSeq()) + m_rto;
  if (Qp().LossProbeRtts() > 0)
  {
    at = std::min(at, m_lastProgress + ProbeTimeout());
  }
  at = std::max(at, Simulator::Now());
  m_timer.Cancel();
  m_timer = Qp().ScheduleTimer(at - Simulator::Now(), &MrcLossDetector::OnTimer, this);
}

void
MrcLossDetector::OnTimer()
{
  m_timer.Clear();
  if (Qp().IsInError())
  {
    return;
  }
  const Time now = Simulator::Now();
  bool fired = false;
  while (!Qp().IsInError() && PruneSendOrder() && SentAt(FrontSeq()) + m_rto <= now)
  {
    const uint64_t s = FrontSeq();
    PopFront();
    DeclareLost(s, MrcLossCause::Timer);
    fired = true;
  }
  if (fired)
  {
    ++MakeLosses().counts.timeouts;
    m_rto = m_rto * 2; // backoff until something is acknowledged
    NS_LOG_DEBUG("QP " << Qp().GetQpn() << ": retransmission timeout " << Timeouts() << ", next after " << m_rto);
    Qp().WakeAllPorts();
  }
  else if (Qp().LossProbeRtts() > 0 && now >= m_lastProgress + ProbeTimeout() && PruneSendOrder())
  {
    // Silence while packets are outstanding: nothing later will be acknowledged to reveal a lost
    // tail. The oldest goes again on another EV; a SACK of it declares the others lost (RACK).
    const uint64_t s = FrontSeq();
    NS_LOG_DEBUG("QP " << Qp().GetQpn() << ": tail-loss probe resends PSN " << (s & kPsnMask));
    PopFront();
    DeclareLost(s, MrcLossCause::Probe);
    ++MakeLosses().counts.lossProbes;
    m_lastProgress = now;
    Qp().WakeAllPorts();
  }
  ArmTimer();
}

} // namespace ns3
