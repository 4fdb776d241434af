// Invariants of the RoCEv2 model that any test may check on its counters or on a run's summary.
//
// No RoCEv2 timeout without a drop: on a lossless (PFC) fabric the local ACK timer is the last
// resort for a packet or an ACK that was lost. A responder answers every request within its ACK
// delay (RoceQueuePair::AckDelay) and every gap with a NAK, so with nothing dropped an expiry can
// only come from the model itself (an ACK held back, a timer left running), not from the network.
#ifndef MRCSIM_TESTS_ROCE_INVARIANTS_H
#define MRCSIM_TESTS_ROCE_INVARIANTS_H

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace mrcsim::test
{

/// True unless a retransmission timer expired while nothing was dropped.
inline bool
NoTimeoutWithoutDrop(uint64_t timeouts, uint64_t drops)
{
  return timeouts == 0 || drops > 0;
}

/// The invariant on one transport's run summary (RunTransport(...).summary, or an entry of
/// summary.json's "runs"): empty when it holds or the transport is not RoCEv2, else what broke.
inline std::string
RoceTimeoutWithoutDrop(const nlohmann::json& run)
{
  if (run.value("transport", std::string()) != "rocev2")
  {
    return {};
  }
  const nlohmann::json& counters = run.at("counters");
  uint64_t drops = 0;
  for (const auto& [cause, count] : counters.at("drops").items())
  {
    drops += count.get<uint64_t>();
  }
  const uint64_t timeouts = counters.at("timeouts").get<uint64_t>();
  if (NoTimeoutWithoutDrop(timeouts, drops))
  {
    return {};
  }
  return "RoCEv2 run '" + run.value("label", std::string("?")) + "': " + std::to_string(timeouts) +
         " retransmission timeout(s) with no packet dropped";
}

} // namespace mrcsim::test

#endif
