// NSCC, the Ultra Ethernet sender-side congestion control used by MRC, reduced to its four
// reactions to an ACK: queueing delay (RTT - base RTT) against a target, combined with the ECN
// echo. No ECN, low delay: proportional increase (in MTUs per RTT, scaled by the distance to the
// target, so that growth stays additive) plus fair increase. No ECN,
// high delay: fair increase only. ECN, low delay: nothing (a transient mark). ECN, high delay:
// multiplicative decrease scaled by how far the delay exceeds the target, at most once per base
// RTT. A trim takes the trimmed packet out of the window; trims and losses trigger quick adapt
// (at most once per base RTT, and only once a whole base RTT of ACKs was counted): the window falls
// to what was acknowledged in the last base RTT. So does a queueing delay above QuickAdaptDelay
// (4) targets when the last base RTT acknowledged less than an eighth of the maximum window
// (uet-htsim's delay trigger and gate): at a last hop, which marks no ECN for MRC, it is the only
// cut an incast's senders get besides trims, and what brings their windows to their shares.
// TrimDecrease adds a multiplicative cut on trims (off by default, as in uet-htsim). Defaults after UEC 1.0 and
// ultraethernet/uet-htsim: target delay 0.75 base RTT, initial and maximum window 1.5 BDP, decrease factor at most 0.5
// per base RTT. Leaves out: NSCC's per-EV path-penalty coupling (see EvSelector) and its pacing.
#ifndef MRCSIM_MODELS_NSCC_CONGESTION_CONTROL_H
#define MRCSIM_MODELS_NSCC_CONGESTION_CONTROL_H

#include "models/engine/shared-config.h"
#include "models/engine/trace-bundle.h"
#include "models/mrc/mrc-congestion-control.h"

#include "ns3/traced-callback.h"

#include <algorithm>
#include <memory>

namespace ns3
{

/// \brief NSCC window control (see the file comment).
class NsccCongestionControl : public MrcCongestionControl
{
public:
  static TypeId GetTypeId();
  NsccCongestionControl();

  void Init(const MrcCcPath& path) override;
  uint64_t GetWindow() const override { return m_window; }
  void OnAck(uint64_t bytes, Time rtt, bool ecn) override;
  void OnTrim() override;
  void OnLoss() override;
  Ptr<MrcCongestionControl> Copy() const override;

  uint64_t GetBdp() const { return m_bdp; }

private:
  /// \brief Copies the configuration of `prototype` (never initialised), none of its state.
  NsccCongestionControl(const NsccCongestionControl& prototype);
  NsccCongestionControl& operator=(const NsccCongestionControl&) = delete;
  bool QuickAdapt();
  /// What the path delivered lately: the larger of the last whole base RTT's and the current one's acknowledged bytes.
  uint64_t Achieved() const { return std::max(m_ackedLastWindow, m_ackedInWindow); }
  void Set(double window);

  /// The attributes, shared by the controllers copied from one prototype (SharedConfig).
  struct Config
  {
    double targetFactor;
    double initialWindowBdp;
    double maxWindowBdp;
    double maxDecrease;
    double trimDecrease;
    double fairIncreaseMtu;
    double proportionalGain;
    double quickAdaptDelay;
  };
  SharedConfig<Config> m_config;
  /// The trace source, made at the first connection: the window's changes (old, new), as a
  /// TracedValue reports them.
  struct Traces
  {
    TracedCallback<uint64_t, uint64_t> window;
  };
  std::unique_ptr<Traces> m_traces;

  // The 8-byte members, then the small ones together (one per QP: no padding between them).
  Time m_baseRtt;
  uint64_t m_bdp = 0;
  uint64_t m_window = 0;
  Time m_lastDecrease;
  Time m_windowStart; ///< start of the current base-RTT interval of acknowledged bytes
  uint64_t m_ackedInWindow = 0;
  uint64_t m_ackedLastWindow = 0;
  Time m_lastQuickAdapt;
  uint32_t m_mtu = 4096; ///< the QP's MTU (Init)
  bool m_decreasedOnce = false;
  bool m_acking = false;   ///< an ACK has come
  bool m_measured = false; ///< a whole base-RTT interval of acknowledged bytes was counted
  bool m_adaptedOnce = false;
};

} // namespace ns3

#endif
