// Minimal command-line reading shared by the subcommands: flags, options with values, and
// positional arguments; anything unrecognised is an error that names it.
#ifndef MRCSIM_SIM_CLI_CLI_ARGS_H
#define MRCSIM_SIM_CLI_CLI_ARGS_H

#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace mrcsim
{

/// \brief Bad command line; main prints the message with the usage and exits with status 2.
class UsageError : public std::runtime_error
{
public:
  using std::runtime_error::runtime_error;
};

/// \brief Parsed arguments of one subcommand.
class CliArgs
{
public:
  /// \param flags options without a value (e.g. "--json")
  /// \param options options taking a value (e.g. "--preset"); read with Values() they may
  /// repeat, with Value() or Unsigned() not
  CliArgs(const std::vector<std::string>& args,
          const std::set<std::string>& flags,
          const std::set<std::string>& options);

  bool Flag(const std::string& name) const { return m_flags.count(name) > 0; }
  bool Has(const std::string& name) const { return m_values.count(name) > 0; }
  /// \brief The value of an option that takes one: `fallback` if absent, a UsageError naming the
  /// option if given more than once.
  std::string Value(const std::string& name, const std::string& fallback = "") const;
  /// \brief Every value of an option that may repeat (--set, --fail-link), in order.
  std::vector<std::string> Values(const std::string& name) const;
  /// \brief The value of `name` as an unsigned integer in [min, max] (`fallback` if absent);
  /// anything else is a UsageError naming the option.
  uint64_t Unsigned(const std::string& name,
                    const std::string& fallback,
                    uint64_t min,
                    uint64_t max = std::numeric_limits<uint64_t>::max()) const;
  const std::vector<std::string>& Positional() const { return m_positional; }

private:
  std::set<std::string> m_flags;
  std::map<std::string, std::vector<std::string>> m_values;
  std::vector<std::string> m_positional;
};

} // namespace mrcsim

#endif
