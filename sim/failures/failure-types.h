// The failure registry: each failure type (link_down, link_up, link_flap, switch_down,
// switch_up, plane_down, plane_up, port_down, port_up, gray, random_links) with the keys it
// takes, the reader of those keys and the function that schedules it on a run's network. A new
// failure type is one entry here (and its reader and scheduler in failure-types.cc).
#ifndef MRCSIM_SIM_FAILURES_FAILURE_TYPES_H
#define MRCSIM_SIM_FAILURES_FAILURE_TYPES_H

#include "sim/scenario/scenario-spec.h"
#include "sim/scenario/type-registry.h"

#include "models/fabric/fabric-network.h"
#include "topologies/fabric.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>

namespace mrcsim
{

/// \brief What failures are scheduled on: one transport's run.
struct FailureContext
{
  const ScenarioSpec& spec;
  const Fabric& fabric;
  ns3::FabricNetwork& net;
  uint64_t randomStreams = 0; ///< random processes started so far (each draws from its own stream)
};

/// \brief Completes a failure's summary entry at the end of the run (e.g. failures drawn so far).
using FailureLogUpdate = std::function<void(nlohmann::json& entry)>;

/// \brief One failure type.
struct FailureType : TypeKeys
{
  /// \brief Reads the type's own keys into `f` ("type" and "at_us" are read) and checks them
  /// against the fabric; throws SpecError through `r`.
  void (*parse)(JsonReader& r, FailureSpec& f, const Fabric& fabric) = nullptr;
  /// \brief Schedules `f` on the run; adds to `entry` (its summary log, type and at_us set) what
  /// it touches. Returns what completes the entry at the end of the run, or an empty function.
  /// Throws SpecError on a failure the run cannot carry.
  FailureLogUpdate (*schedule)(const FailureSpec& f, FailureContext& run, nlohmann::json& entry) = nullptr;
};

/// \brief The failure types, in the order messages list them.
const TypeRegistry<FailureType>& FailureTypes();

/// \brief Adds a failure type defined outside the library (docs/EXTENDING.md, "A failure type"):
/// from then on scenarios may name it and runs schedule it. Call before reading scenarios. Aborts
/// if the name is taken or `parse` or `schedule` is missing.
void RegisterFailureType(FailureType type);

} // namespace mrcsim

#endif
