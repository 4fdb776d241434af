// DCQCN reaction point (sender rate control of one RoCEv2 QP), after the RP algorithm of Zhu et
// al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, Section 3: a CNP cuts
// the rate by alpha/2; a timer and a byte counter then raise it by fast recovery, additive and
// hyper increase. Leaves out: the NP (CNP generation) and CP (ECN marking), packet pacing (the QP
// asks GetRate()), ConnectX's target-rate clamping options and its fixed-point arithmetic.
//
// Defaults are the paper's (g = 1/256, K = T = 55 us, B = 10 MB, F = 5), with its R_AI of 40 Mb/s
// at 40G scaled with the line rate (line rate / 1,000: 100 Mb/s on a 100G plane); where the paper
// is silent, NVIDIA/Mellanox ConnectX's (MinRate = rpg_min_rate 1 Mb/s; R_HAI = 10 x R_AI as
// rpg_hai_rate 50 / rpg_ai_rate 5 Mb/s). ConnectX differs on: rpg_time_reset 300 us,
// rpg_byte_reset 32767, rpg_threshold (F) 1, rpg_ai_rate 5 Mb/s, rate_reduce_monitor_period 4 us.
//
// Stage counting (our reading, as in the HPCC ns-3 DCQCN code): an increase event is
// classified by the stages completed *before* it, so the first F events after a CNP are fast
// recovery. Events: at most one pending per timer. The rate timer stops when the rate is back at
// line rate; the alpha timer stops once, in addition, alpha < AlphaIdleThreshold; so an idle QP
// costs no events until its next CNP.
#ifndef MRCSIM_MODELS_DCQCN_RATE_CONTROL_H
#define MRCSIM_MODELS_DCQCN_RATE_CONTROL_H

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <cstdint>

namespace ns3
{

/// \brief DCQCN reaction point: the sending rate of one QP, cut by CNPs and raised by a timer
/// and a byte counter.
class DcqcnRateControl : public Object
{
public:
  static TypeId GetTypeId();
  DcqcnRateControl();

  /// \brief Signature of the "Rate" trace source.
  typedef void (*RateTracedCallback)(DataRate oldRate, DataRate newRate);

  /// \brief Starts (or restarts) at line rate: current rate = target rate = lineRate, alpha =
  /// InitialAlpha, no timer pending. Aborts if lineRate is below MinRate.
  void Start(DataRate lineRate);
  /// \brief Cancels every pending event; later CNPs and byte counts are ignored until Start.
  void Stop();

  /// \brief Current rate Rc (MinRate <= Rc <= line rate).
  DataRate GetRate() const { return DataRate(m_rate); }
  /// \brief Target rate Rt (Rc <= Rt <= line rate).
  DataRate GetTargetRate() const { return DataRate(m_targetRate); }
  /// \brief The congestion estimate alpha, in [0, 1].
  double GetAlpha() const { return m_alpha; }
  /// \brief True when no event of this object is pending.
  bool IsIdle() const;

  /// \brief A CNP arrived now: Rt = Rc, Rc = Rc (1 - alpha/2), alpha = (1 - g) alpha + g, the
  /// increase stages restart and both timers are re-armed. With CutInterval > 0, a CNP less than
  /// CutInterval after the last cut is deferred to the end of that interval (CNPs coalesce).
  void OnCnp();
  /// \brief The QP sent `bytes`: every ByteCounter bytes make one byte-counter increase stage.
  void OnBytesSent(uint32_t bytes);

protected:
  void DoDispose() override;

private:
  void Cut();
  void OnDeferredCut();
  /// Sets the deadline now + period; schedules only if no event of this timer is pending.
  void Arm(EventId& event, Time& deadline, Time period, void (DcqcnRateControl::*handler)());
  /// A pending event that fires before its (since moved) deadline re-arms itself and returns true.
  bool Early(EventId& event, const Time& deadline, void (DcqcnRateControl::*handler)());
  void OnAlphaTimer();
  void OnRateTimer();
  /// Fast recovery, additive or hyper increase, chosen from the stages completed so far.
  void Increase();
  void SetRate(uint64_t bps);

  // ---- attributes ------------------------------------------------------------------------------
  double m_g;
  double m_initialAlpha;
  Time m_alphaPeriod;
  Time m_ratePeriod;
  uint64_t m_byteCounter;
  uint32_t m_fastRecoverySteps;
  DataRate m_rai;
  DataRate m_rhai;
  uint64_t m_aiBps = 0;  ///< R_AI in effect (derived from the line rate when m_rai is 0)
  uint64_t m_haiBps = 0; ///< R_HAI in effect
  DataRate m_minRate;
  Time m_cutInterval;
  double m_alphaIdleThreshold;

  // ---- state (rates in bit/s) ------------------------------------------------------------------
  bool m_running = false;
  uint64_t m_lineRate = 0;
  uint64_t m_rate = 0;
  uint64_t m_targetRate = 0;
  TracedValue<double> m_alpha;
  uint32_t m_timerStages = 0;
  uint32_t m_byteStages = 0;
  uint64_t m_bytes = 0;
  bool m_cutDone = false; ///< at least one cut since Start (m_lastCut is valid)
  Time m_lastCut;
  Time m_alphaDeadline;
  Time m_rateDeadline;
  EventId m_alphaEvent;
  EventId m_rateEvent;
  EventId m_cutEvent;

  TracedCallback<DataRate, DataRate> m_rateTrace;
};

} // namespace ns3

#endif // MRCSIM_MODELS_DCQCN_RATE_CONTROL_H
