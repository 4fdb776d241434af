// Subcommands of the mrcsim CLI. Each takes its own arguments (after the subcommand name) and
// returns the process exit status; bad input throws SpecError or UsageError.
#ifndef MRCSIM_SIM_COMMANDS_H
#define MRCSIM_SIM_COMMANDS_H

#include <string>
#include <vector>

namespace mrcsim
{

int TopoCommand(const std::vector<std::string>& args);
int BenchCommand(const std::vector<std::string>& args);
int RunCommand(const std::vector<std::string>& args);
int ValidateCommand(const std::vector<std::string>& args);

} // namespace mrcsim

#endif
