// `mrcsim bench perm-8192`: MRC on a random permutation, run to completion (the workload of the
// project's speed and memory targets, docs/PERFORMANCE.md; UEC's htsim is the reference point).
#ifndef MRCSIM_SIM_CLI_PERM_BENCHMARK_H
#define MRCSIM_SIM_CLI_PERM_BENCHMARK_H

#include "sim/cli/cli-args.h"

namespace mrcsim
{

/// \brief Runs the benchmark; prints wall time, packet-hops/s, events/s and peak RSS.
int BenchPermutation(const CliArgs& args);

} // namespace mrcsim

#endif
