#include "models/mrc/nscc-congestion-control.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("NsccCongestionControl");

NS_OBJECT_ENSURE_REGISTERED(NsccCongestionControl);

TypeId
NsccCongestionControl::GetTypeId()
{
  static TypeId tid =
    TypeId("ns3::NsccCongestionControl")
      .SetParent<MrcCongestionControl>()
      .AddConstructor<NsccCongestionControl>()
      .AddAttribute("TargetDelayFactor",
                    "Target queueing delay as a fraction of the base RTT (UEC: 0.75).",
                    DoubleValue(0.75),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::targetFactor),
                    MakeDoubleChecker<double>(0.01, 100))
      .AddAttribute("InitialWindow",
                    "Initial window in BDPs (UEC: 1.5).",
                    DoubleValue(1.5),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::initialWindowBdp),
                    MakeDoubleChecker<double>(0.01))
      .AddAttribute("MaxWindow",
                    "Maximum window in BDPs (UEC: 1.5).",
                    DoubleValue(1.5),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::maxWindowBdp),
                    MakeDoubleChecker<double>(0.01))
      .AddAttribute("MaxDecrease",
                    "Largest multiplicative decrease per base RTT (UEC: 0.5).",
                    DoubleValue(0.5),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::maxDecrease),
                    MakeDoubleChecker<double>(0, 1))
      .AddAttribute("TrimDecrease",
                    "Extra multiplicative decrease on a trim, at most once per base RTT (0: off, as in uet-htsim).",
                    DoubleValue(0.0),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::trimDecrease),
                    MakeDoubleChecker<double>(0, 1))
      .AddAttribute("FairIncrease",
                    "Fair (additive) increase per base RTT of acknowledgements, in MTUs.",
                    DoubleValue(1.0),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::fairIncreaseMtu),
                    MakeDoubleChecker<double>(0))
      .AddAttribute("ProportionalGain",
                    "Proportional increase: MTUs added per base RTT of acknowledgements at zero queueing delay, "
                    "scaled by how far the delay is below the target.",
                    DoubleValue(8.0),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::proportionalGain),
                    MakeDoubleChecker<double>(0))
      .AddAttribute("QuickAdaptDelay",
                    "Quick adapt also when an ACK's queueing delay exceeds this many target delays "
                    "(uet-htsim: 4; 0: only on trims and losses).",
                    DoubleValue(4.0),
                    MakeSharedConfigAccessor<DoubleValue>(&NsccCongestionControl::m_config, &Config::quickAdaptDelay),
                    MakeDoubleChecker<double>(0))
      .AddTraceSource("Window",
                      "Congestion window, bytes.",
                      MakeBundleTraceAccessor(&NsccCongestionControl::m_traces, &Traces::window),
                      "ns3::TracedValueCallback::Uint64");
  return tid;
}

NsccCongestionControl::NsccCongestionControl() = default;

NsccCongestionControl::NsccCongestionControl(const NsccCongestionControl& prototype)
  : MrcCongestionControl(prototype),
    m_config(prototype.m_config)
{
}

Ptr<MrcCongestionControl>
NsccCongestionControl::Copy() const
{
  NS_ABORT_MSG_IF(m_bdp != 0, "NsccCongestionControl::Copy: only a controller not yet initialised is copied");
  return Ptr<NsccCongestionControl>(new NsccCongestionControl(*this), false);
}

void
NsccCongestionControl::Init(const MrcCcPath& path)
{
  NS_ABORT_MSG_IF(path.mtu == 0, "NsccCongestionControl: an MTU of 0 bytes");
  m_mtu = path.mtu;
  m_baseRtt = path.baseRtt;
  m_bdp = static_cast<uint64_t>(path.baseRtt.GetSeconds() * path.lineRate.GetBitRate() / 8);
  Set(m_config->initialWindowBdp * m_bdp);
  NS_LOG_DEBUG("base RTT " << m_baseRtt << ", BDP " << m_bdp << " bytes, window " << m_window);
}

void
NsccCongestionControl::Set(double window)
{
  double w = std::clamp(window, double(m_mtu), m_config->maxWindowBdp * m_bdp);
  const uint64_t next = static_cast<uint64_t>(w);
  if (m_traces && next != m_window)
    m_traces->window(m_window, next);
  m_window = next;
}

void
NsccCongestionControl::OnAck(uint64_t bytes, Time rtt, bool ecn)
{
  const Time now = Simulator::Now();
  if (!m_acking)
  {
    m_acking = true; // intervals of acknowledged bytes start with the first ACK
    m_windowStart = now;
  }
  else if (now - m_windowStart >= m_baseRtt)
  {
    m_ackedLastWindow = m_ackedInWindow;
    m_ackedInWindow = 0;
    m_windowStart = now;
    m_measured = true;
  }
  m_ackedInWindow += bytes;

  const double target = m_config->targetFactor * m_baseRtt.GetSeconds();
  // Queueing delay, never negative (UEC: max(0, RTT - base RTT)): an RTT below the base RTT means
  // an empty queue, not a negative one. Compared as Times first: GetSeconds of a negative Time
  // left-shifts a negative value in ns-3's int64x64 (undefined behaviour).
  const double delay = rtt > m_baseRtt ? (rtt - m_baseRtt).GetSeconds() : 0.0;
  // Quick adapt on a queueing delay far beyond the target, for a flow that achieves little of its
  // maximum window (uet-htsim: delay above 4 targets, achieved below an eighth of the maximum
  // window): at a last hop, where no ECN marks, the cut that brings an incast's senders to their
  // achieved rates and so towards equal shares.
  if (m_config->quickAdaptDelay > 0 && delay > m_config->quickAdaptDelay * target &&
      double(Achieved()) < m_config->maxWindowBdp * m_bdp / 8 && QuickAdapt())
  {
    return;
  }
  const double w = double(m_window);
  const double perRtt = double(bytes) / std::max(w, 1.0); // fraction of a window acknowledged
  if (ecn && delay > target)
  {
    if (!m_decreasedOnce || now - m_lastDecrease >= m_baseRtt)
    {
      double cut = std::min(m_config->maxDecrease, (delay - target) / delay);
      Set(w * (1 - cut));
      m_lastDecrease = now;
      m_decreasedOnce = true;
    }
    return;
  }
  if (ecn)
  {
    return; // low delay: a transient mark
  }
  double grow = m_config->fairIncreaseMtu * m_mtu * perRtt;
  if (delay < target)
  {
    grow += m_config->proportionalGain * m_mtu * (target - delay) / target * perRtt;
  }
  Set(w + grow);
}

void
NsccCongestionControl::OnTrim()
{
  // The trimmed packet leaves the window (as uet-htsim's NSCC does on a NACK); an optional
  // multiplicative cut, at most once per base RTT; quick adapt.
  Set(double(m_window) - m_mtu);
  const Time now = Simulator::Now();
  if (m_config->trimDecrease > 0 && (!m_decreasedOnce || now - m_lastDecrease >= m_baseRtt))
  {
    Set(double(m_window) * (1 - m_config->trimDecrease));
    NS_LOG_LOGIC("trim: window cut to " << m_window);
    m_lastDecrease = now;
    m_decreasedOnce = true;
  }
  QuickAdapt();
}

void
NsccCongestionControl::OnLoss()
{
  QuickAdapt();
}

bool
NsccCongestionControl::QuickAdapt()
{
  // The path delivers about what was acknowledged in the last base RTT: start from there, at
  // most once per base RTT so that one burst of trims counts once. Not before a whole base RTT
  // of ACKs has been counted: the first trims of a flow come back while its first window is
  // still being acknowledged, and what was acknowledged so far says nothing of the path.
  const Time now = Simulator::Now();
  if (!m_measured || (m_adaptedOnce && now - m_lastQuickAdapt < m_baseRtt))
  {
    return false;
  }
  const uint64_t achieved = Achieved();
  if (achieved > 0 && achieved < m_window)
  {
    Set(double(achieved));
    NS_LOG_LOGIC("quick adapt: window " << m_window);
    m_lastQuickAdapt = now;
    m_adaptedOnce = true;
    return true;
  }
  return false;
}

} // namespace ns3
