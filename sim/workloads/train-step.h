// A training step as its collectives (the train_step workload): GPUs split by tensor (TP),
// expert (EP) and data (DP) parallelism, Megatron's order: TP ranks are consecutive GPUs (inside a
// scale-up domain), EP groups take one GPU of each of `ep` consecutive TP groups (a few domains),
// DP groups the same position in every EP x TP block (across the rest). Each layer: a TP ring
// all-reduce, the EP all-to-all that dispatches tokens to experts and the one that combines them,
// with compute before each; then the DP ring all-reduce of the gradients. Each group moves on as
// its own members allow (no global barrier). Left out: pipeline parallelism, the backward pass's
// own collectives (its all-to-alls and TP all-reduces), overlap of compute with communication,
// uneven expert loads.
#ifndef MRCSIM_SIM_WORKLOADS_TRAIN_STEP_H
#define MRCSIM_SIM_WORKLOADS_TRAIN_STEP_H

#include "sim/workloads/collective-workload.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace mrcsim
{

/// \brief The parallelism and sizes of one training step.
struct TrainStepShape
{
  uint32_t tp = 1;       ///< tensor-parallel size (consecutive GPUs)
  uint32_t ep = 1;       ///< expert-parallel size (one GPU of each of ep consecutive TP groups)
  uint32_t dp = 1;       ///< data-parallel size; tp x ep x dp GPUs in all
  uint32_t layers = 1;   ///< MoE layers in the step
  uint64_t tpBytes = 0;  ///< per layer, each GPU's TP all-reduce buffer (0: none)
  uint64_t a2aBytes = 0; ///< per all-to-all, bytes from each GPU to each EP peer (0: none)
  uint64_t dpBytes = 0;  ///< each GPU's gradient buffer, all-reduced over its DP group (0: none)
  ns3::Time compute;     ///< before every collective of the step but the first
};

/// \brief The step as one schedule over the ranks 0 .. tp x ep x dp - 1 (rank r is gpus[r]),
/// rings laid out over the scale-up domains (DomainRingLayout). Its record: bytes are what one
/// GPU sends in a step, bus factor 1 (its "bus bandwidth" is a GPU's send rate over the step).
std::unique_ptr<CollectiveAlgorithm> MakeTrainStep(const TrainStepShape& shape,
                                                   const std::vector<uint32_t>& gpus,
                                                   const ScaleUpSpec& scaleUp);

} // namespace mrcsim

#endif
