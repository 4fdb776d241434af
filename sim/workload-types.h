// The workload registry: each workload type (ring_allreduce, hd_allreduce, all_to_all,
// permutation, incast, random, flows) with the keys it takes, the reader of those keys and the
// constructor of the running workload. A new workload type is one entry here (and its reader and
// constructor in workload-types.cc).
#ifndef MRCSIM_SIM_WORKLOAD_TYPES_H
#define MRCSIM_SIM_WORKLOAD_TYPES_H

#include "sim/ideal-model.h"
#include "sim/scenario-spec.h"
#include "sim/type-registry.h"
#include "sim/workload.h"

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

} // namespace mrcsim

#endif
