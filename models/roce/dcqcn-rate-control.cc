#include "models/roce/dcqcn-rate-control.h"

#include "models/engine/attribute-default.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/trace-source-accessor.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <set>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("DcqcnRateControl");

NS_OBJECT_ENSURE_REGISTERED(DcqcnRateControl);

TypeId
DcqcnRateControl::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::DcqcnRateControl")
      .SetParent<ObjectBase>()
      .AddConstructor<DcqcnRateControl>()
      .AddAttribute("Profile",
                    "Parameter profile; attributes left at their defaults take its values. Paper: Zhu et al., "
                    "SIGCOMM 2015. ConnectX: NVIDIA ConnectX firmware defaults. Tuned (default): ConnectX's "
                    "algorithm as tuned for a 400G AI cluster, Peng et al., USENIX ATC 2025 (file comment).",
                    EnumValue(TUNED),
                    MakeSharedConfigAccessor<EnumValue>(&DcqcnRateControl::m_config, &Config::profile),
                    MakeEnumChecker(PAPER, "Paper", CONNECTX, "ConnectX", TUNED, "Tuned"))
      .AddAttribute("G",
                    "Gain g of alpha. 0: the profile's (Paper 1/256; ConnectX dce_tcp_g 1019, i.e. "
                    "alpha = 1019/1024 alpha [+ 5/1024]: g = 5/1024).",
                    DoubleValue(0),
                    MakeSharedConfigAccessor<DoubleValue>(&DcqcnRateControl::m_config, &Config::g),
                    MakeDoubleChecker<double>(0.0, 1.0))
      .AddAttribute("InitialAlpha",
                    "Alpha at the first CNP. 0: the profile's (Paper 1; ConnectX initial_alpha_value 1023/1024).",
                    DoubleValue(0),
                    MakeSharedConfigAccessor<DoubleValue>(&DcqcnRateControl::m_config, &Config::initialAlpha),
                    MakeDoubleChecker<double>(0.0, 1.0))
      .AddAttribute("AlphaUpdatePeriod",
                    "Paper: K, alpha decays by (1-g) after each K without a CNP (55 us). ConnectX: alpha is "
                    "updated once per period (dce_tcp_rtt 1 us). 0: the profile's.",
                    TimeValue(Time(0)),
                    MakeSharedConfigAccessor<TimeValue>(&DcqcnRateControl::m_config, &Config::alphaPeriod),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("RateIncreasePeriod",
                    "T: one rate-increase timer stage per T. 0: the profile's (Paper 55 us; ConnectX "
                    "rpg_time_reset 300 us; Tuned 60 us).",
                    TimeValue(Time(0)),
                    MakeSharedConfigAccessor<TimeValue>(&DcqcnRateControl::m_config, &Config::ratePeriod),
                    MakeTimeChecker(Time(0)))
      .AddAttribute("ByteCounter",
                    "B, bytes: one rate-increase byte-counter stage per B bytes sent. 0: the profile's (Paper "
                    "10 MB, taken as 10^7; ConnectX rpg_byte_reset 32767).",
                    UintegerValue(0),
                    MakeSharedConfigAccessor<UintegerValue>(&DcqcnRateControl::m_config, &Config::byteCounter),
                    MakeUintegerChecker<uint64_t>())
      .AddAttribute("FastRecoverySteps",
                    "F: increase events of fast recovery after a cut. 4294967295: the profile's (Paper 5; "
                    "ConnectX rpg_threshold 1).",
                    UintegerValue(UINT32_MAX),
                    MakeSharedConfigAccessor<UintegerValue>(&DcqcnRateControl::m_config, &Config::fastRecoverySteps),
                    MakeUintegerChecker<uint32_t>())
      .AddAttribute("AdditiveIncrease",
                    "R_AI: target-rate step of additive increase. 0: the profile's (Paper: the line rate / "
                    "1,000, its 40 Mb/s at 40G scaled with the rate, 100 Mb/s on a 100G plane; ConnectX "
                    "rpg_ai_rate 5 Mb/s; Tuned 14 Mb/s).",
                    DataRateValue(DataRate(0)),
                    MakeSharedConfigAccessor<DataRateValue>(&DcqcnRateControl::m_config, &Config::rai),
                    MakeDataRateChecker())
      .AddAttribute("HyperIncrease",
                    "R_HAI: target-rate step of hyper increase, times the stages past F. 0: the profile's "
                    "(Paper: 10 x R_AI, the ConnectX ratio, as the paper gives none; ConnectX rpg_hai_rate "
                    "50 Mb/s).",
                    DataRateValue(DataRate(0)),
                    MakeSharedConfigAccessor<DataRateValue>(&DcqcnRateControl::m_config, &Config::rhai),
                    MakeDataRateChecker())
      .AddAttribute("MinRate",
                    "Floor of the current rate (paper silent; ConnectX rpg_min_rate 1 Mb/s).",
                    DataRateValue(DataRate("1Mb/s")),
                    MakeSharedConfigAccessor<DataRateValue>(&DcqcnRateControl::m_config, &Config::minRate),
                    MakeDataRateChecker())
      .AddAttribute("CutInterval",
                    "Minimum time between two rate cuts; a CNP sooner is deferred to the interval's end. "
                    "Negative: the profile's (Paper 0, every CNP cuts, its NP sending at most one per 50 us; "
                    "ConnectX rate_reduce_monitor_period 4 us; Tuned 1 us).",
                    TimeValue(NanoSeconds(-1)),
                    MakeSharedConfigAccessor<TimeValue>(&DcqcnRateControl::m_config, &Config::cutInterval),
                    MakeTimeChecker(NanoSeconds(-1)))
      .AddAttribute("MinDecreaseFactor",
                    "A cut leaves at least this fraction of the rate: Rc = Rc max(1 - alpha/2, factor) "
                    "(ConnectX rpg_min_dec_fac). 0: the profile's (Paper and ConnectX 0.5, which no cut "
                    "reaches as alpha <= 1; Tuned 0.95).",
                    DoubleValue(0),
                    MakeSharedConfigAccessor<DoubleValue>(&DcqcnRateControl::m_config, &Config::minDecreaseFactor),
                    MakeDoubleChecker<double>(0.0, 1.0))
      .AddAttribute("AlphaIdleThreshold",
                    "Alpha below this counts as zero: back at line rate, the timers stop (1/1024, the "
                    "resolution of ConnectX's 10-bit alpha).",
                    DoubleValue(1.0 / 1024),
                    MakeSharedConfigAccessor<DoubleValue>(&DcqcnRateControl::m_config, &Config::alphaIdleThreshold),
                    MakeDoubleChecker<double>(0.0, 1.0))
      .AddTraceSource("Rate",
                      "The current rate changed: (old, new).",
                      MakeBundleTraceAccessor(&DcqcnRateControl::m_traces, &Traces::rate),
                      "ns3::DcqcnRateControl::RateTracedCallback")
      .AddTraceSource("Alpha",
                      "Alpha changed: (old, new). ConnectX profile: alpha is brought up to date when a CNP "
                      "arrives or the rate is cut, so the trace shows it at those instants.",
                      MakeBundleTraceAccessor(&DcqcnRateControl::m_traces, &Traces::alpha),
                      "ns3::TracedValueCallback::Double");
  return tid;
}

DcqcnRateControl::EcnThresholds
DcqcnRateControl::EcnThresholdsOf(Profile profile, DataRate rate)
{
  const double bps = double(rate.GetBitRate());
  if (profile == PAPER)
  {
    // Zhu et al. 2015, Section 5 (40G): Kmin 5 KB, Kmax 200 KB, Pmax 1%; bytes scaled with the
    // rate so that they stay the same fraction of the BDP, as R_AI is.
    const double scale = bps / 40e9;
    return { static_cast<uint32_t>(5000 * scale), static_cast<uint32_t>(200000 * scale), 0.01 };
  }
  // NVIDIA's RoCE defaults for its switches (Onyx "roce": ECN absolute min 150 KB, max 1500 KB,
  // https://docs.nvidia.com/networking/display/Onyxv31040100/RoCE+Commands; Cumulus Linux
  // likewise): absolute, the same at every port rate; marking rises to every packet at the max.
  return { 150000, 1500000, 1.0 };
}

Time
DcqcnRateControl::NpCnpInterval(Profile profile)
{
  // Zhu et al. 2015: at most one CNP per flow per 50 us; ConnectX min_time_between_cnps 4 us;
  // Tuned: 1 us (Peng et al. 2025: 0-2 us, the interval a BlueField-3 answers at).
  switch (profile)
  {
  case PAPER:
    return MicroSeconds(50);
  case CONNECTX:
    return MicroSeconds(4);
  case TUNED:
    break;
  }
  return MicroSeconds(1);
}

DcqcnRateControl::ProfileValues
DcqcnRateControl::ValuesOf(Profile profile, DataRate lineRate)
{
  ProfileValues v;
  if (profile == PAPER)
  {
    // Zhu et al. 2015, Section 5; R_AI 40 Mb/s at 40G scaled with the line rate; R_HAI 10 x R_AI.
    v.g = 1.0 / 256;
    v.initialAlpha = 1.0;
    v.alphaPeriod = MicroSeconds(55);
    v.ratePeriod = MicroSeconds(55);
    v.byteCounter = 10000000;
    v.fastRecoverySteps = 5;
    v.cutInterval = Time(0);
    v.aiBps = std::max<uint64_t>(1, lineRate.GetBitRate() / 1000);
    v.haiBps = 0; // 10 x the R_AI in effect, set or not
    v.periodicAlpha = false;
    return v;
  }
  // ConnectX firmware defaults (the file comment); Tuned changes five of them, each to a value in
  // the range Peng et al. give (USENIX ATC 2025, Table 2): a cut per CNP (rate_reduce_monitor_period
  // 1 us, of 1-4) of at most 5% (rpg_min_dec_fac 95, of 80-98: the smallest cut Barre's own beta,
  // 0.95-0.99, makes), rpg_ai_rate 14 Mb/s and rpg_time_reset 60 us (the middles of 8-20 and 20-100).
  const bool tuned = profile == TUNED;
  v.g = 5.0 / 1024;
  v.initialAlpha = 1023.0 / 1024;
  v.alphaPeriod = MicroSeconds(1);
  v.ratePeriod = tuned ? MicroSeconds(60) : MicroSeconds(300);
  v.byteCounter = 32767;
  v.fastRecoverySteps = 1;
  v.cutInterval = tuned ? MicroSeconds(1) : MicroSeconds(4);
  v.minDecreaseFactor = tuned ? 0.95 : 0.5;
  v.aiBps = tuned ? 14000000 : 5000000;
  v.haiBps = 50000000;
  v.periodicAlpha = true;
  return v;
}

DcqcnRateControl::Profile
DcqcnRateControl::DefaultProfile()
{
  return static_cast<Profile>(AttributeDefault<EnumValue>(GetTypeId(), "Profile"));
}

DcqcnRateControl::DcqcnRateControl()
  : m_in(Interned(ProfileValues{}))
{
}

DcqcnRateControl::DcqcnRateControl(const DcqcnRateControl& prototype)
  : LightObject<DcqcnRateControl>(prototype),
    m_config(prototype.m_config),
    m_in(prototype.m_in)
{
}

bool
DcqcnRateControl::ProfileValues::operator<(const ProfileValues& o) const
{
  auto key = [](const ProfileValues& v)
  {
    return std::make_tuple(v.g, v.initialAlpha, v.alphaPeriod, v.ratePeriod, v.byteCounter, v.fastRecoverySteps,
                           v.cutInterval, v.minDecreaseFactor, v.aiBps, v.haiBps, v.periodicAlpha);
  };
  return key(*this) < key(o);
}

const DcqcnRateControl::ProfileValues*
DcqcnRateControl::Interned(const ProfileValues& values)
{
  // Rate controls start on the partitions' threads at once (a QP's at its first message). The
  // sets live as long as the process: a handful of a few dozen bytes each.
  static std::mutex mutex;
  static std::set<ProfileValues> sets;
  std::lock_guard<std::mutex> lock(mutex);
  return &*sets.insert(values).first;
}

Ptr<DcqcnRateControl>
DcqcnRateControl::Copy() const
{
  return Ptr<DcqcnRateControl>(new DcqcnRateControl(*this), false);
}

void
DcqcnRateControl::CheckLineRate(DataRate lineRate) const
{
  NS_ABORT_MSG_IF(lineRate < m_config->minRate,
                  "DcqcnRateControl: line rate " << lineRate << " is below MinRate " << m_config->minRate);
}

void
DcqcnRateControl::Start(DataRate lineRate)
{
  const Config& c = *m_config;
  CheckLineRate(lineRate);
  NS_LOG_FUNCTION(this << lineRate);
  Stop();
  ProfileValues in = ValuesOf(c.profile, lineRate);
  m_running = true;
  m_lineRate = lineRate.GetBitRate();
  if (c.g > 0)
    in.g = c.g;
  if (c.initialAlpha > 0)
    in.initialAlpha = c.initialAlpha;
  if (c.alphaPeriod.IsStrictlyPositive())
    in.alphaPeriod = c.alphaPeriod;
  if (c.ratePeriod.IsStrictlyPositive())
    in.ratePeriod = c.ratePeriod;
  if (c.byteCounter > 0)
    in.byteCounter = c.byteCounter;
  if (c.fastRecoverySteps != UINT32_MAX)
    in.fastRecoverySteps = c.fastRecoverySteps;
  if (c.minDecreaseFactor > 0)
    in.minDecreaseFactor = c.minDecreaseFactor;
  if (!c.cutInterval.IsNegative())
    in.cutInterval = c.cutInterval;
  if (c.rai.GetBitRate() > 0)
    in.aiBps = c.rai.GetBitRate();
  if (c.rhai.GetBitRate() > 0)
    in.haiBps = c.rhai.GetBitRate();
  if (in.haiBps == 0)
    in.haiBps = 10 * in.aiBps;
  m_in = Interned(in);
  m_targetRate = m_lineRate;
  SetRate(m_lineRate);
  SetAlpha(m_in->initialAlpha);
  m_timerStages = 0;
  m_byteStages = 0;
  m_bytes = 0;
  m_cutDone = false;
  m_gridStarted = false;
  m_periodsApplied = 0;
  m_cnpPeriod = UINT64_MAX;
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
  if (!m_running)
  {
    return;
  }
  Time now = Simulator::Now();
  if (m_in->periodicAlpha)
  {
    // ConnectX: the CNP raises alpha at the end of the period it arrived in; the first CNP only
    // starts the grid, alpha starting at InitialAlpha.
    if (!m_gridStarted)
    {
      m_gridStarted = true;
      m_gridOrigin = now;
      m_periodsApplied = 0;
      m_cnpPeriod = UINT64_MAX;
    }
    else
    {
      PeriodicAlpha(now, true);
      m_cnpPeriod = static_cast<uint64_t>((now - m_gridOrigin).GetPicoSeconds() / m_in->alphaPeriod.GetPicoSeconds());
    }
  }
  if (m_cutEvent.IsRunning())
  {
    return; // coalesced into the deferred cut
  }
  if (m_cutDone && m_in->cutInterval.IsStrictlyPositive() && now < m_lastCut + m_in->cutInterval)
  {
    NS_LOG_LOGIC("CNP coalesced into the cut at " << m_lastCut + m_in->cutInterval);
    m_cutEvent = Simulator::Schedule(m_lastCut + m_in->cutInterval - now, &DcqcnRateControl::OnDeferredCut, this);
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
  // Paper: every cut remembers the rate it cuts from as the target. ConnectX
  // (clamp_tgt_rate_after_time_inc): only when the timer raised the rate since the last cut, so
  // that cuts in a row keep the target from before the congestion and fast recovery returns
  // towards it, instead of each cut lowering the target with the rate.
  if (!m_in->periodicAlpha || !m_cutDone || m_timerStages > 0)
  {
    m_targetRate = m_rate;
  }
  if (m_in->periodicAlpha)
  {
    PeriodicAlpha(Simulator::Now(), true);
  }
  const double keep = std::max(1.0 - double(m_alpha) / 2, m_in->minDecreaseFactor);
  auto cut = static_cast<uint64_t>(static_cast<double>(m_rate) * keep);
  SetRate(std::max(cut, m_config->minRate.GetBitRate()));
  if (!m_in->periodicAlpha)
  {
    SetAlpha((1 - m_in->g) * m_alpha + m_in->g);
  }
  m_timerStages = 0;
  m_byteStages = 0;
  m_bytes = 0;
  m_cutDone = true;
  m_lastCut = Simulator::Now();
  NS_LOG_DEBUG("rate cut to " << m_rate << " bit/s, alpha " << m_alpha);
  // Both timers restart from the CNP: "no CNP for K" and "T since the cut" are measured from here.
  // (ConnectX's alpha needs no event: PeriodicAlpha folds the elapsed periods in when asked.)
  if (!m_in->periodicAlpha)
  {
    Arm(m_alphaEvent, m_alphaDeadline, m_in->alphaPeriod, &DcqcnRateControl::OnAlphaTimer);
  }
  Arm(m_rateEvent, m_rateDeadline, m_in->ratePeriod, &DcqcnRateControl::OnRateTimer);
}

double
DcqcnRateControl::PeriodicAlpha(Time now, bool commit)
{
  double alpha = m_alpha;
  if (!m_gridStarted)
  {
    return alpha;
  }
  const auto ended = static_cast<uint64_t>((now - m_gridOrigin).GetPicoSeconds() / m_in->alphaPeriod.GetPicoSeconds());
  uint64_t applied = m_periodsApplied;
  if (applied < ended && m_cnpPeriod == applied)
  {
    alpha = (1 - m_in->g) * alpha + m_in->g; // the period of the last CNP
    ++applied;
  }
  if (applied < ended)
  {
    alpha *= std::pow(1 - m_in->g, static_cast<double>(ended - applied)); // periods without a CNP
    applied = ended;
  }
  if (commit)
  {
    m_periodsApplied = applied;
    SetAlpha(alpha);
  }
  return alpha;
}

double
DcqcnRateControl::GetAlpha() const
{
  return m_in->periodicAlpha ? const_cast<DcqcnRateControl*>(this)->PeriodicAlpha(Simulator::Now(), false)
                         : double(m_alpha);
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
  SetAlpha((1 - m_in->g) * m_alpha);
  if (m_alpha < m_config->alphaIdleThreshold && m_rate == m_lineRate)
  {
    return; // fully recovered: stay silent until the next CNP
  }
  Arm(m_alphaEvent, m_alphaDeadline, m_in->alphaPeriod, &DcqcnRateControl::OnAlphaTimer);
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
    Arm(m_rateEvent, m_rateDeadline, m_in->ratePeriod, &DcqcnRateControl::OnRateTimer);
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
  while (m_bytes >= m_in->byteCounter && m_rate < m_lineRate)
  {
    m_bytes -= m_in->byteCounter;
    Increase();
    ++m_byteStages;
  }
}

void
DcqcnRateControl::Increase()
{
  const uint32_t f = m_in->fastRecoverySteps;
  const uint32_t hi = std::max(m_timerStages, m_byteStages);
  const uint32_t lo = std::min(m_timerStages, m_byteStages);
  uint64_t step = 0; // fast recovery (hi < F) keeps the target
  if (lo > f)
  {
    step = static_cast<uint64_t>(lo - f) * m_in->haiBps;
  }
  else if (hi >= f)
  {
    step = m_in->aiBps;
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
    if (m_traces)
      m_traces->rate(old, DataRate(bps));
  }
}

void
DcqcnRateControl::SetAlpha(double alpha)
{
  if (alpha != m_alpha)
  {
    const double old = m_alpha;
    m_alpha = alpha;
    if (m_traces)
      m_traces->alpha(old, alpha);
  }
}

} // namespace ns3
