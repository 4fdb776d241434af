// DCQCN reaction point (sender rate control of one RoCEv2 QP), after the RP algorithm of Zhu et
// al., "Congestion Control for Large-Scale RDMA Deployments", SIGCOMM 2015, Section 3: a CNP cuts
// the rate by alpha/2; a timer and a byte counter then raise it by fast recovery, additive and
// hyper increase. Leaves out: the NP (CNP generation) and CP (ECN marking), packet pacing (the QP
// asks GetRate()), ConnectX's fixed-point arithmetic and its rate_to_set_on_first_cnp option (at
// its default, no rate is set on the first CNP).
//
// Three parameter profiles (attribute Profile); every other attribute left at its default takes
// the profile's value:
// - Paper (Zhu et al. 2015): alpha = (1-g) alpha + g on each CNP and (1-g) alpha after each K
//   without one; Rt = Rc on every cut; g = 1/256, K = T = 55 us, B = 10 MB, F = 5; R_AI 40 Mb/s
//   at 40G, scaled with the line rate (line rate / 1,000); R_HAI 10 x R_AI (the ConnectX ratio,
//   the paper gives none); every CNP cuts (its NP sends at most one per 50 us).
// - ConnectX (NVIDIA ConnectX-4 and later firmware defaults, NVIDIA "DCQCN CC Parameters",
//   https://networking-docs.nvidia.com/doca/archive/3-4-0/dcqcn-cc-parameters, and the same
//   values as mlxconfig reports them): alpha updated once per dce_tcp_rtt = 1 us, up if a CNP
//   arrived in that period and down otherwise, with weight dce_tcp_g = 1019/1024 (g = 5/1024);
//   initial_alpha_value 1023/1024; at most one cut per rate_reduce_monitor_period = 4 us;
//   clamp_tgt_rate 0 and clamp_tgt_rate_after_time_inc 1: a cut sets Rt = Rc only if the timer
//   raised the rate since the last cut; rpg_time_reset T = 300 us, rpg_byte_reset B = 32,767
//   bytes, rpg_threshold F = 1, rpg_ai_rate 5 Mb/s, rpg_hai_rate 50 Mb/s, rpg_min_dec_fac 50%
//   (no cut below half the rate), rpg_min_rate 1 Mb/s. NVIDIA gives these in absolute units for
//   every line rate; they are not scaled.
// - Tuned (the default): ConnectX's algorithm and defaults with the five parameters that
//   ByteDance retuned for its 400G BlueField-3 AI clusters (Peng et al., "Barre", USENIX ATC 2025,
//   Section 6.3 and Table 2, which gives ranges): min_time_between_cnps 1 us (0-2 us; the paper's
//   text: a BlueField-3 answers with CNPs every 1 us), rate_reduce_monitor_period 1 us (1-4 us:
//   every CNP cuts), rpg_min_dec_fac 95% (80-98%; Barre itself cuts by 0.95-0.99 per CNP),
//   rpg_ai_rate 14 Mb/s and rpg_time_reset 60 us (the middles of 8-20 Mb/s and 20-100 us). The
//   paper reports that with the defaults four flows into one server oscillate, unfair and with the
//   link underused, and that with the tuned values they converge to fair shares at near full use.
// The profile also names the NP's CNP interval (NpCnpInterval: 50 us / 4 us / 1 us) and the CP's
// ECN thresholds (EcnThresholds: the paper's, scaled; NVIDIA's switch defaults for ConnectX and
// Tuned, the tuning paper giving none), which the QP and the scenario runner use.
// Why Tuned is the default: the baseline stands for RoCEv2 as a production AI cluster runs it. With
// the Paper or ConnectX profile, a cut halves the rate (alpha near 1) once per CNP interval for as
// long as the bottleneck's queue, filled by the senders before the first CNP and held upstream by
// PFC, stays above Kmax: the rate falls far below the fair share before the queue drains, and
// recovers at R_AI per timer period (docs/MODEL.md gives the trace). Small cuts at the CNP rate stop
// within a microsecond of the marks stopping.
//
// Stage counting (our reading, as in the HPCC ns-3 DCQCN code): an increase event is
// classified by the stages completed *before* it, so the first F events after a CNP are fast
// recovery. Events: at most one pending per timer. The rate timer stops when the rate is back at
// line rate; the alpha timer stops once, in addition, alpha < AlphaIdleThreshold; so an idle QP
// costs no events until its next CNP.
#ifndef MRCSIM_MODELS_DCQCN_RATE_CONTROL_H
#define MRCSIM_MODELS_DCQCN_RATE_CONTROL_H

#include "models/engine/light-object.h"
#include "models/engine/shared-config.h"
#include "models/engine/trace-bundle.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <memory>

namespace ns3
{

/// \brief DCQCN reaction point: the sending rate of one QP, cut by CNPs and raised by a timer
/// and a byte counter. A LightObject (one per QP that received a CNP): made by CreateLight or
/// copied from a prototype; its owner calls Stop before letting it go.
class DcqcnRateControl : public LightObject<DcqcnRateControl>
{
public:
  static TypeId GetTypeId();
  DcqcnRateControl();
  /// \brief A copy of this one's configuration (its attributes, shared), none of its state: what
  /// a QP copied from a prototype uses. Takes no reference to this one, so that the partitions'
  /// threads may copy one prototype at once.
  Ptr<DcqcnRateControl> Copy() const;

  /// \brief Parameter profile (see the file comment).
  enum Profile
  {
    PAPER,   ///< Zhu et al., SIGCOMM 2015
    CONNECTX, ///< NVIDIA ConnectX firmware defaults
    TUNED     ///< ConnectX's algorithm as tuned for a 400G AI cluster (Peng et al., USENIX ATC 2025)
  };

  /// \brief ECN marking (the CP) that goes with a profile.
  struct EcnThresholds
  {
    uint32_t kminBytes;
    uint32_t kmaxBytes;
    double pmax;
  };
  /// \brief The profile's CP thresholds for ports of `rate` (Paper: scaled from its 40G; ConnectX: absolute).
  static EcnThresholds EcnThresholdsOf(Profile profile, DataRate rate);
  /// \brief The profile's NP interval: at most one CNP per QP per interval.
  static Time NpCnpInterval(Profile profile);
  /// \brief The Profile attribute's default (as Config::SetDefault left it).
  static Profile DefaultProfile();

  /// \brief Signature of the "Rate" trace source.
  typedef void (*RateTracedCallback)(DataRate oldRate, DataRate newRate);

  /// \brief Starts (or restarts) at line rate: current rate = target rate = lineRate, alpha =
  /// InitialAlpha, no timer pending. Aborts if lineRate is below MinRate.
  void Start(DataRate lineRate);
  /// \brief Aborts if a sender of `lineRate` could not start (below MinRate), for a QP to check
  /// at its first message what Start would find at its first CNP.
  void CheckLineRate(DataRate lineRate) const;
  /// \brief Cancels every pending event; later CNPs and byte counts are ignored until Start.
  void Stop();

  /// \brief Current rate Rc (MinRate <= Rc <= line rate).
  DataRate GetRate() const { return DataRate(m_rate); }
  /// \brief Target rate Rt (Rc <= Rt <= line rate).
  DataRate GetTargetRate() const { return DataRate(m_targetRate); }
  /// \brief The congestion estimate alpha, in [0, 1], as of now.
  double GetAlpha() const;
  /// \brief True when no event of this object is pending.
  bool IsIdle() const;

  /// \brief A CNP arrived now: Rt = Rc (Paper; ConnectX: only if the timer raised the rate since
  /// the last cut), Rc = Rc (1 - alpha/2), alpha = (1 - g) alpha + g (Paper; ConnectX: at the end
  /// of the alpha period), the increase stages restart and the timers are re-armed. With
  /// CutInterval > 0, a CNP less than CutInterval after the last cut is deferred to the end of
  /// that interval (CNPs coalesce).
  void OnCnp();
  /// \brief The QP sent `bytes`: every ByteCounter bytes make one byte-counter increase stage.
  void OnBytesSent(uint32_t bytes);

private:
  DcqcnRateControl(const DcqcnRateControl& prototype);
  DcqcnRateControl& operator=(const DcqcnRateControl&) = delete;
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
  /// Alpha, traced when it changes (as a TracedValue would).
  void SetAlpha(double alpha);
  /// ConnectX alpha: the value after every alpha period that ended by `now` (a period in which a
  /// CNP arrived raises it, every other lowers it). Writes it back if `commit`.
  double PeriodicAlpha(Time now, bool commit);

  /// The values a profile gives the attributes left at their defaults (see the file comment).
  struct ProfileValues
  {
    double g = 0;
    double initialAlpha = 0;
    Time alphaPeriod;
    Time ratePeriod;
    uint64_t byteCounter = 0;
    uint32_t fastRecoverySteps = 0;
    Time cutInterval;
    double minDecreaseFactor = 0.5; ///< 0.5: no bound, as alpha <= 1
    uint64_t aiBps = 0;
    uint64_t haiBps = 0; ///< 0: 10 x aiBps (the Paper profile: the paper gives no R_HAI)
    bool periodicAlpha = false; ///< ConnectX: alpha on a grid of AlphaUpdatePeriod, and Rt = Rc only
                                ///< after a timer increase
    bool operator<(const ProfileValues& o) const;
  };
  static ProfileValues ValuesOf(Profile profile, DataRate lineRate);
  /// \brief The one copy of `values` that every rate control in effect with them points to (a run
  /// has a few distinct sets, one per configuration and line rate, and millions of QPs).
  static const ProfileValues* Interned(const ProfileValues& values);

  // ---- attributes (0, or the largest value for FastRecoverySteps and a negative CutInterval:
  // the profile's), shared by the rate controls copied from one prototype (SharedConfig) --------
  struct Config
  {
    Profile profile;
    double g;
    double initialAlpha;
    Time alphaPeriod;
    Time ratePeriod;
    uint64_t byteCounter;
    uint32_t fastRecoverySteps;
    DataRate rai;
    DataRate rhai;
    DataRate minRate;
    Time cutInterval;
    double minDecreaseFactor;
    double alphaIdleThreshold;
  };
  SharedConfig<Config> m_config;

  // ---- parameters in effect: the profile's values, overridden by the attributes set, at Start
  // (Interned: shared by the rate controls with the same) -----------------------------------------
  const ProfileValues* m_in;

  // ---- state (rates in bit/s) ------------------------------------------------------------------
  bool m_running = false;
  uint64_t m_lineRate = 0;
  uint64_t m_rate = 0;
  uint64_t m_targetRate = 0;
  double m_alpha = 0; ///< set through SetAlpha (the Alpha trace)
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
  // ConnectX alpha grid: periods of AlphaUpdatePeriod from the first CNP
  bool m_gridStarted = false;
  Time m_gridOrigin;
  uint64_t m_periodsApplied = 0; ///< periods [0, this) are folded into m_alpha
  uint64_t m_cnpPeriod = UINT64_MAX; ///< the period of the last CNP (it raises alpha when it ends)

  /// The trace sources, made at the first connection (trace-bundle.h): the rate's and alpha's
  /// changes (old, new).
  struct Traces
  {
    TracedCallback<DataRate, DataRate> rate;
    TracedCallback<double, double> alpha;
  };
  std::unique_ptr<Traces> m_traces;
};

} // namespace ns3

#endif // MRCSIM_MODELS_DCQCN_RATE_CONTROL_H
