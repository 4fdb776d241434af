// The settings of the library's workload types, each type's own (WorkloadSpec::params): its
// reader makes them from its keys (workload-types.cc) and its constructor reads them
// (ParamsOf). A spec built by code sets them with EditParams; without them a type runs with
// the defaults below.
#ifndef MRCSIM_SIM_WORKLOADS_WORKLOAD_PARAMS_H
#define MRCSIM_SIM_WORKLOADS_WORKLOAD_PARAMS_H

#include "sim/scenario/type-registry.h"
#include "sim/workloads/flow-list.h"

#include <cstdint>
#include <memory>
#include <string>

namespace mrcsim
{

/// \brief iterations and compute_us, of the types that repeat.
struct Repeats
{
  uint32_t iterations = 1;
  double computeUs = 0; ///< GPU compute time between iterations
};

/// \brief group_size and placement, of the collectives.
struct Groups
{
  uint32_t groupSize = 0;               ///< 0: one group of all the workload's GPUs
  std::string placement = "contiguous"; ///< "contiguous" or "strided"
};

/// \brief ring_allreduce, ring_allgather, ring_reducescatter: NCCL's pipelining (RingPipeline;
/// defaults: NCCL's Simple protocol).
struct RingParams : TypeParams, Groups, Repeats
{
  bool pipelined = true;
  uint32_t channels = 1;
  uint64_t chunkBytes = 512 << 10;
  uint32_t slots = 8;
};

/// \brief hd_allreduce.
struct HalvingDoublingParams : TypeParams, Groups, Repeats
{
};

/// \brief all_to_all.
struct AllToAllParams : TypeParams, Groups, Repeats
{
  std::string mode = "all_at_once"; ///< "all_at_once" or "pairwise"
  bool pxn = false; ///< on scale-up domains: relay through the destination's rail GPU
};

/// \brief permutation.
struct PermutationParams : TypeParams, Repeats
{
};

/// \brief train_step (sim/workloads/train-step.h): parallel sizes, layers and the collectives' sizes.
struct TrainStepParams : TypeParams, Repeats
{
  uint32_t tp = 1;
  uint32_t ep = 1;
  uint32_t dp = 1;
  uint32_t layers = 1;
  uint64_t tpBytes = 0;
  uint64_t a2aBytes = 0;
  uint64_t dpBytes = 0;
};

/// \brief incast: the first `senders` of the workload's GPUs other than the receiver send to it.
struct IncastParams : TypeParams
{
  uint32_t receiver = 0;
  uint32_t senders = 0;
};

/// \brief random background traffic.
struct RandomParams : TypeParams
{
  double load = 0; ///< offered load per GPU, a fraction of its NIC's line rate
  double durationUs = 0;
};

/// \brief flows: a flow list from a file (sim/workloads/flow-list.h); node i is the i-th GPU of
/// the workload's.
struct FlowsParams : TypeParams
{
  std::string file;   ///< as given, resolved against the scenario's folder
  std::string format; ///< "htsim", "csv" or "json" (default: by the file's extension)
  std::shared_ptr<const FlowList> flowList; ///< read by the scenario reader; else by MakeWorkload
};

} // namespace mrcsim

#endif
