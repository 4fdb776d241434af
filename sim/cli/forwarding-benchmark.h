// `mrcsim bench forwarding`: raw packet forwarding on a multiplane fabric with per-packet
// spraying (SRv6 uSID paths over every plane and T1), timed and measured.
#ifndef MRCSIM_SIM_CLI_FORWARDING_BENCHMARK_H
#define MRCSIM_SIM_CLI_FORWARDING_BENCHMARK_H

#include "sim/cli/cli-args.h"

namespace mrcsim
{

int BenchForwarding(const CliArgs& args);

} // namespace mrcsim

#endif
