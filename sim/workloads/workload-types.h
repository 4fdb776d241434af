// The workload registry: each workload type (ring_allreduce, hd_allreduce, all_to_all,
// permutation, incast, random, flows) with the keys it takes, the reader of those keys and the
// constructor of the running workload. A new workload type is one entry here (and its reader and
// constructor in workload-types.cc).
#ifndef MRCSIM_SIM_WORKLOADS_WORKLOAD_TYPES_H
#define MRCSIM_SIM_WORKLOADS_WORKLOAD_TYPES_H

#include "sim/references/ideal-model.h"
#include "sim/scenario/scenario-spec.h"
#include "sim/scenario/type-registry.h"
#include "sim/workloads/workload.h"

#include "topologies/fabric.h"

#include <cstddef>
#include <cstdint>
#include <memory>

namespace mrcsim
{

/// \brief One workload type.
struct WorkloadType : TypeKeys
{
  /// \brief Reads the type's own keys into `w` (its common keys, gpus included, are read) and
  /// checks them against the fabric; throws SpecError through `r`.
  void (*parse)(JsonReader& r, WorkloadSpec& w, const Fabric& fabric) = nullptr;
  /// \brief Builds the workload of a spec that passed MakeWorkload's common checks; throws
  /// SpecError on a spec it cannot run.
  std::unique_ptr<Workload> (*make)(const WorkloadSpec& spec, uint64_t seed, const IdealModel& ideal) = nullptr;
  /// \brief The fewest GPUs the type runs on (MakeWorkload's check).
  std::size_t minGpus = 1;
};

/// \brief The workload types, in the order messages list them.
const TypeRegistry<WorkloadType>& WorkloadTypes();

/// \brief Adds a workload type defined outside the library (docs/EXTENDING.md, "A workload"): from
/// then on scenarios may name it, its keys are checked like the built-in types' and MakeWorkload
/// builds it. Call before reading scenarios (e.g. from main or a test's set-up). Aborts if the
/// name is taken or `parse` or `make` is missing.
void RegisterWorkloadType(WorkloadType type);

} // namespace mrcsim

#endif
