// The scenario's failure timeline and random link loss on one transport's ns-3 network.
#ifndef MRCSIM_SIM_FAILURES_FAILURE_SCHEDULE_H
#define MRCSIM_SIM_FAILURES_FAILURE_SCHEDULE_H

#include "sim/scenario/scenario-spec.h"
#include "topologies/fabric.h"

#include "models/fabric/fabric-network.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief The most failures a random_links entry may be expected to draw (links of its class x
/// (until_us - at_us) / mtbf_us): a run beyond it would spend its time failing links, not
/// moving data. Failures are drawn one at a time as the run reaches them.
constexpr double kMaxRandomFailures = 1e7;

/// \brief Links of a class: "gpu-t0" (a GPU at one end), "t0-t1" (tier-0 and tier-1 switches)
/// or "all".
std::vector<uint32_t> ClassLinks(const Fabric& fabric, const std::string& linkClass);

/// \brief Sets the scenario's random loss per link class (both directions of each link, from the
/// start); returns what was set (for the summary).
nlohmann::json ApplyLinkLoss(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net);

/// \brief The failures of a run, scheduled on its network.
class FailureSchedule
{
public:
  /// \brief Schedules `spec`'s failures, each by its type (sim/failures/failure-types.h). Throws SpecError
  /// (naming the file and the entry) on a random_links entry expected to draw more than
  /// kMaxRandomFailures.
  FailureSchedule(const ScenarioSpec& spec, const Fabric& fabric, ns3::FabricNetwork& net);
  ~FailureSchedule();

  /// \brief What was scheduled (for the summary); random_links entries count the failures
  /// drawn so far.
  nlohmann::json Log() const;

private:
  nlohmann::json m_log;
  /// Log index and what completes that entry (FailureType::schedule's result)
  std::vector<std::pair<std::size_t, std::function<void(nlohmann::json&)>>> m_updates;
};

} // namespace mrcsim

#endif
