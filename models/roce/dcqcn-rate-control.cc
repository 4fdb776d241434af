#include "models/roce/dcqcn-rate-control.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnRateControl");

NS_OBJECT_ENSURE_REGISTERED(DcqcnRateControl);

TypeId
DcqcnRateControl::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::DcqcnRateControl")
      .SetParent<Object>()
      .AddConstructor<DcqcnRateControl>()
      .AddAttribute("G",
                    "Gain g of the alpha average, alpha = (1-g) alpha + g per CNP (Zhu et al. 2015: 1/256).",
                    DoubleValue(1.0 / 256),
                    MakeDoubleAccessor(&DcqcnRateControl::m_g),
                    MakeDoubleChecker<double>(0.0, 1.0))
      .AddAttribute("InitialAlpha",
                    "Alpha at Start (Zhu et al. 2015: 1; ConnectX initial_alpha_value 1023/1024).",
                    DoubleValue(1.0),
                    MakeDoubleAccessor(&DcqcnRateControl::m_initialAlpha),
                    MakeDoubleChecker<double>(0.0, 1.0))
      .AddAttribute("AlphaUpdatePeriod",
                    "K: alpha decays by (1-g) after each K without a CNP (Zhu et al. 2015: 55 us).",
                    TimeValue(MicroSeconds(55)),
                    MakeTimeAccessor(&DcqcnRateControl::m_alphaPeriod),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("RateIncreasePeriod",
                    "T: one rate-increase timer stage per T (Zhu et al. 2015: 55 us; ConnectX rpg_time_reset "
                    "300 us).",
                    TimeValue(MicroSeconds(55)),
                    MakeTimeAccessor(&DcqcnRateControl::m_ratePeriod),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("ByteCounter",
                    "B, bytes: one rate-increase byte-counter stage per B bytes sent (Zhu et al. 2015: 10 MB, "
                    "taken as 10^7; ConnectX rpg_byte_reset 32767).",
                    UintegerValue(10000000),
                    MakeUintegerAccessor(&DcqcnRateControl::m_byteCounter),
                    MakeUintegerChecker<uint64_t>(1))
      .AddAttribute("FastRecoverySteps",
                    "F: increase events of fast recovery after a CNP (Zhu et al. 2015: 5; ConnectX "
                    "rpg_threshold 1).",
                    UintegerValue(5),
                    MakeUintegerAccessor(&DcqcnRateControl::m_fastRecoverySteps),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("AdditiveIncrease",
                    "R_AI: target-rate step of additive increase. 0 (default): the line rate / 1,000, Zhu et al. "
                    "2015's 40 Mb/s at 40G scaled with the rate (100 Mb/s on a 100G plane, 800 Mb/s at 800G), "
                    "as the paper's rates were chosen relative to the line rate (ConnectX rpg_ai_rate 5 Mb/s "
                    "is operator-tuned).",
                    DataRateValue(DataRate(0)),
                    MakeDataRateAccessor(&DcqcnRateControl::m_rai),
                    MakeDataRateChecker())
      .AddAttribute("HyperIncrease",
                    "R_HAI: target-rate step of hyper increase, times the stages past F. 0 (default): 10 x R_AI, "
                    "the ConnectX ratio rpg_hai_rate 50 / rpg_ai_rate 5 Mb/s.",
                    DataRateValue(DataRate(0)),
                    MakeDataRateAccessor(&DcqcnRateControl::m_rhai),
                    MakeDataRateChecker())
      .AddAttribute("MinRate",
                    "Floor of the current rate (paper silent; ConnectX rpg_min_rate 1 Mb/s).",
                    DataRateValue(DataRate("1Mb/s")),
                    MakeDataRateAccessor(&DcqcnRateControl::m_minRate),
                    MakeDataRateChecker())
      .AddAttribute("CutInterval",
                    "Minimum time between two rate cuts; a CNP sooner is deferred to the interval's end. 0: "
                    "every CNP cuts (Zhu et al. 2015, whose NP sends at most one CNP per 50 us; ConnectX "
                    "rate_reduce_monitor_period 4 us).",
                    TimeValue(Time(0)),
                    MakeTimeAccessor(&DcqcnRateControl::m_cutInterval),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("AlphaIdleThreshold",
                    "Alpha below this counts as zero: back at line rate, the timers stop (1/1024, the "
                    "resolution of ConnectX's 10-bit alpha).",
                    DoubleValue(1.0 / 1024),
                    MakeDoubleAccessor(&DcqcnRateControl::m_alphaIdleThreshold),
                    MakeDoubleChecker<double>(0.0, 1.0))
      .AddTraceSource("Rate",
                      "The current rate changed: (old, new).",
                      MakeTraceSourceAccessor(&DcqcnRateControl::m_rateTrace),
                      "ns3::DcqcnRateControl::RateTracedCallback")
      .AddTraceSource("Alpha",
                      "Alpha changed: (old, new).",
                      MakeTraceSourceAccessor(&DcqcnRateControl::m_alpha),
                      "ns3::TracedValueCallback::Double");
  return tid;
}

DcqcnRateControl::DcqcnRateControl() = default;

void
DcqcnRateControl::DoDispose()
{
  Stop();
  Object::DoDispose();
}

void
DcqcnRateControl::Start(DataRate lineRate)
{
  NS_ABORT_MSG_IF(lineRate < m_minRate,
                  "DcqcnRateControl: line rate " << lineRate << " is below MinRate " << m_minRate);
  NS_ABORT_MSG_IF(!m_alphaPeriod.IsStrictlyPositive() || !m_ratePeriod.IsStrictlyPositive(),
                  "DcqcnRateControl: AlphaUpdatePeriod and RateIncreasePeriod must be > 0");
  NS_LOG_FUNCTION(this << lineRate);
  Stop();
  m_running = true;
  m_lineRate = lineRate.GetBitRate();
  m_aiBps = m_rai.GetBitRate() > 0 ? m_rai.GetBitRate() : std::max<uint64_t>(1, m_lineRate / 1000);
  m_haiBps = m_rhai.GetBitRate() > 0 ? m_rhai.GetBitRate() : 10 * m_aiBps;
  m_targetRate = m_lineRate;
  SetRate(m_lineRate);
  m_alpha = m_initialAlpha;
  m_timerStages = 0;
  m_byteStages = 0;
  m_bytes = 0;
  m_cutDone = false;
}

void
DcqcnRateControl::Stop()
{
  m_running = false;
  m_alphaEvent.Cancel();
  m_rateEvent.Cancel();
  m_cutEvent.Cancel();
}

bool
DcqcnRateControl::IsIdle() const
{
  return !m_alphaEvent.IsRunning() && !m_rateEvent.IsRunning() && !m_cutEvent.IsRunning();
}

void
DcqcnRateControl::OnCnp()
{
  NS_ABORT_MSG_IF(m_lineRate == 0, "DcqcnRateControl: OnCnp before Start");
  if (!m_running || m_cutEvent.IsRunning())
  {
    return; // stopped, or coalesced into the deferred cut
  }
  Time now = Simulator::Now();
  if (m_cutDone && m_cutInterval.IsStrictlyPositive() && now < m_lastCut + m_cutInterval)
  {
    NS_LOG_LOGIC("CNP coalesced into the cut at " << m_lastCut + m_cutInterval);
    m_cutEvent = Simulator::Schedule(m_lastCut + m_cutInterval - now, &DcqcnRateControl::OnDeferredCut, this);
    return;
  }
  Cut();
}

void
DcqcnRateControl::OnDeferredCut()
{
  Cut();
}

void
DcqcnRateControl::Cut()
{
  m_targetRate = m_rate;
  auto cut = static_cast<uint64_t>(static_cast<double>(m_rate) * (1.0 - m_alpha / 2));
  SetRate(std::max(cut, m_minRate.GetBitRate()));
  m_alpha = (1 - m_g) * m_alpha + m_g;
  m_timerStages = 0;
  m_byteStages = 0;
  m_bytes = 0;
  m_cutDone = true;
  m_lastCut = Simulator::Now();
  NS_LOG_DEBUG("rate cut to " << m_rate << " bit/s, alpha " << m_alpha);
  // Both timers restart from the CNP: "no CNP for K" and "T since the cut" are measured from here.
  Arm(m_alphaEvent, m_alphaDeadline, m_alphaPeriod, &DcqcnRateControl::OnAlphaTimer);
  Arm(m_rateEvent, m_rateDeadline, m_ratePeriod, &DcqcnRateControl::OnRateTimer);
}

void
DcqcnRateControl::Arm(EventId& event, Time& deadline, Time period, void (DcqcnRateControl::*handler)())
{
  deadline = Simulator::Now() + period;
  // A pending event is never later than the new deadline: it stays, and on expiry re-arms itself
  // for the deadline. A CNP therefore costs no scheduler operation.
  if (!event.IsRunning())
  {
    event = Simulator::Schedule(period, handler, this);
  }
}

bool
DcqcnRateControl::Early(EventId& event, const Time& deadline, void (DcqcnRateControl::*handler)())
{
  const Time now = Simulator::Now();
  if (now < deadline)
  {
    event = Simulator::Schedule(deadline - now, handler, this);
    return true;
  }
  return false;
}

void
DcqcnRateControl::OnAlphaTimer()
{
  if (Early(m_alphaEvent, m_alphaDeadline, &DcqcnRateControl::OnAlphaTimer))
  {
    return;
  }
  m_alpha = (1 - m_g) * m_alpha;
  if (m_alpha < m_alphaIdleThreshold && m_rate == m_lineRate)
  {
    return; // fully recovered: stay silent until the next CNP
  }
  Arm(m_alphaEvent, m_alphaDeadline, m_alphaPeriod, &DcqcnRateControl::OnAlphaTimer);
}

void
DcqcnRateControl::OnRateTimer()
{
  if (Early(m_rateEvent, m_rateDeadline, &DcqcnRateControl::OnRateTimer) || m_rate == m_lineRate)
  {
    return; // re-armed for a later deadline, or the byte counter already finished the recovery
  }
  Increase();
  ++m_timerStages;
  if (m_rate < m_lineRate)
  {
    Arm(m_rateEvent, m_rateDeadline, m_ratePeriod, &DcqcnRateControl::OnRateTimer);
  }
}

void
DcqcnRateControl::OnBytesSent(uint32_t bytes)
{
  // Back at line rate there is nothing to increase; counting restarts at the next cut anyway.
  if (!m_running || m_rate == m_lineRate)
  {
    return;
  }
  m_bytes += bytes;
  while (m_bytes >= m_byteCounter && m_rate < m_lineRate)
  {
    m_bytes -= m_byteCounter;
    Increase();
    ++m_byteStages;
  }
}

void
DcqcnRateControl::Increase()
{
  const uint32_t f = m_fastRecoverySteps;
  const uint32_t hi = std::max(m_timerStages, m_byteStages);
  const uint32_t lo = std::min(m_timerStages, m_byteStages);
  uint64_t step = 0; // fast recovery (hi < F) keeps the target
  if (lo > f)
  {
    step = static_cast<uint64_t>(lo - f) * m_haiBps;
  }
  else if (hi >= f)
  {
    step = m_aiBps;
  }
  m_targetRate = step >= m_lineRate - m_targetRate ? m_lineRate : m_targetRate + step;
  // (Rt + Rc) / 2 rounded up, so that the rate reaches Rt exactly instead of stalling 1 b/s short.
  SetRate(m_targetRate - (m_targetRate - m_rate) / 2);
}

void
DcqcnRateControl::SetRate(uint64_t bps)
{
  if (bps != m_rate)
  {
    DataRate old(m_rate);
    m_rate = bps;
    m_rateTrace(old, DataRate(bps));
  }
}

} // namespace ns3
