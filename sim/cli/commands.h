// Subcommands of the mrcsim CLI. Each takes its own arguments (after the subcommand name) and
// returns the process exit status; bad input throws SpecError or UsageError.
#ifndef MRCSIM_SIM_CLI_COMMANDS_H
#define MRCSIM_SIM_CLI_COMMANDS_H

#include <string>
#include <vector>

namespace mrcsim
{

int TopoCommand(const std::vector<std::string>& args);
int BenchCommand(const std::vector<std::string>& args);
int RunCommand(const std::vector<std::string>& args);
int ValidateCommand(const std::vector<std::string>& args);
int AttributesCommand(const std::vector<std::string>& args);

class CliArgs;
/// \brief Installs the event scheduler named by --scheduler (default ns3::FabricScheduler) in
/// ns-3; a name that is not an ns-3 Scheduler is a UsageError listing the usual ones.
void SetSchedulerOption(const CliArgs& args);

} // namespace mrcsim

#endif
